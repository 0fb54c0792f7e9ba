//! Stepping back (`Budget::backtracks`): a section that cannot be filled sends the
//! loop into the section before it, whose choice the domain records as a dead end.

use cantus_framework::*;

/// Walks of `n` steps of ±1 from 0 that must end on 0.
struct Walk;

/// The walk so far and, per step, the values shown to be dead ends there.
#[derive(Clone, Default)]
struct Trail {
    steps: Vec<i32>,
    dead: Vec<(usize, i32)>,
}

impl Domain for Walk {
    type Spec = usize;
    type Section = usize;
    type Event = i32;
    type State = Trail;
    type Artefact = Vec<i32>;
    type Location = usize;
    type Amendment = NoAmendment;
    fn name(&self) -> &str {
        "walk"
    }
    fn plan(&self, n: &usize) -> Result<Vec<usize>, PlanError> {
        Ok((0..*n).collect())
    }
    fn initial_state(&self, _: &usize) -> Trail {
        Trail::default()
    }
    fn accept(&self, s: &mut Trail, _: &usize, e: &i32) {
        s.steps.push(*e);
    }
    fn skip(&self, _: &mut Trail, _: &usize, _: &i32) {}
    fn owed(&self, _: &usize, s: &Trail, section: &usize) -> Vec<Owed> {
        if s.steps.len() > *section {
            return Vec::new();
        }
        vec![Owed {
            part: 0,
            name: "walk".into(),
            unit: "step",
            positions: vec![*section as u32],
        }]
    }
    fn dead_end(&self, s: &mut Trail, section: &usize, withdrawn: &[i32]) {
        s.dead.extend(withdrawn.iter().map(|e| (*section, *e)));
    }
    fn locate(&self, section: &usize, _: &i32) -> usize {
        *section
    }
    fn finish(&self, _: &usize, s: Trail) -> Vec<i32> {
        s.steps
    }
}

const STEP: RuleId = RuleId::new("STEP");
const HOME: RuleId = RuleId::new("HOME");

/// `STEP`: one up or one down; `HOME`: the last step ends on 0.
struct Rules;
impl Predicate<Walk> for Rules {
    fn id(&self) -> RuleId {
        STEP
    }
    fn description(&self) -> &'static str {
        "one up or down, home at the end"
    }
    fn check(&self, ctx: CheckContext<'_, Walk>, e: &i32, out: &mut Vec<Violation<usize>>) {
        let before = ctx.state.steps.last().copied().unwrap_or(0);
        if (e - before).abs() != 1 {
            out.push(Violation::hard(STEP, ctx.section_index, "not a step"));
        }
        if ctx.section_index + 1 == *ctx.spec && *e != 0 {
            out.push(Violation::hard(HOME, ctx.section_index, "not home"));
        }
    }
}

struct WalkGate;
impl ReleaseGate<Walk> for WalkGate {
    fn name(&self) -> String {
        "walk".into()
    }
    fn judge(&self, n: &usize, a: &Vec<i32>) -> GateReport<usize> {
        let mut v = Vec::new();
        let mut before = 0;
        for (i, e) in a.iter().enumerate() {
            if (e - before).abs() != 1 {
                v.push(Violation::hard(STEP, i, "not a step"));
            }
            before = *e;
        }
        if a.len() != *n || a.last() != Some(&0) {
            v.push(Violation::hard(HOME, a.len(), "not home"));
        }
        GateReport::from_violations(self.name(), v)
    }
}

/// Climbs while it may (a value not known dead), else descends; at the last step it
/// goes home when home is a step away. Says there is no way on when both steps are
/// dead ends.
struct Climber;
#[async_trait]
impl Proposer<Walk> for Climber {
    fn name(&self) -> &str {
        "climber"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, Walk>,
    ) -> Result<Proposal<i32>, ProposerError> {
        let at = req.state.steps.len();
        let before = req.state.steps.last().copied().unwrap_or(0);
        let dead = |e: i32| req.state.dead.contains(&(at, e));
        let last = at + 1 == *req.spec;
        let next = if last && before.abs() == 1 {
            0
        } else if !dead(before + 1) {
            before + 1
        } else if !dead(before - 1) {
            before - 1
        } else {
            return Err(ProposerError::NoWayOn(format!(
                "both steps from {before} are dead ends"
            )));
        };
        Ok(Proposal::new(vec![next]))
    }
}

fn engine(backtracks: u32) -> Engine<Walk> {
    Engine::new(Walk, Verifier::new().with(Rules), Ladder::new(), WalkGate).with_budget(Budget {
        replans_per_section: 1,
        backtracks,
        ..Budget::default()
    })
}

fn run(backtracks: u32, n: usize) -> Outcome<Walk> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(engine(backtracks).run(&n, &Climber, 0))
}

#[test]
fn without_steps_back_a_dead_end_behind_the_failing_section_ends_the_run() {
    // 1, 2, 3: from 3 the fourth step cannot reach home.
    let Outcome::Failure { diagnostics, .. } = run(0, 4) else {
        panic!("no step back, no walk home");
    };
    assert!(
        diagnostics[0].reason.contains("section 4"),
        "{:?}",
        diagnostics[0].reason
    );
}

#[test]
fn a_step_back_withdraws_the_dead_end_and_the_walk_gets_home() {
    let Outcome::Released { artefact, trace } = run(4, 4) else {
        panic!("released after stepping back");
    };
    assert_eq!(artefact, vec![1, 2, 1, 0]);
    assert_eq!(trace.totals.backtracks, 1);
    // The third step's first attempt stood, then was withdrawn with its 3.
    let withdrawn: Vec<(usize, i32)> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Event(c) if c.withdrawn => Some((c.section, c.accepted?)),
            _ => None,
        })
        .collect();
    assert_eq!(withdrawn, vec![(2, 3)]);
    let third: Vec<(u32, SectionOutcome)> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Section(s) if s.section == 2 => Some((s.replan, s.outcome)),
            _ => None,
        })
        .collect();
    assert_eq!(
        third,
        vec![(0, SectionOutcome::Withdrawn), (1, SectionOutcome::Kept)],
        "asked again as its second attempt"
    );
    // What stands in the trace is the artefact, step by step.
    let standing: Vec<i32> = trace
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Event(c) if !c.withdrawn => c.accepted,
            _ => None,
        })
        .collect();
    assert_eq!(standing, artefact);
    // The section asked again was told why.
    let told = trace.entries.iter().any(|e| {
        matches!(e, Entry::Section(s) if s.section == 2 && s.replan == 1
            && s.feedback.iter().any(|f| f.contains("left section 4 no way on")))
    });
    assert!(told);
}

#[test]
fn no_way_on_fails_a_section_at_once_and_steps_back_further() {
    // Six steps: 1 2 3 4 5, then home is out of reach. Back: the fifth step goes
    // down to 3, still too far; back again, both of its ways are dead ends, so it
    // fails at once and the loop steps back to the fourth, and so on home.
    let Outcome::Released { artefact, trace } = run(16, 6) else {
        panic!("released");
    };
    assert_eq!(artefact, vec![1, 2, 3, 2, 1, 0]);
    assert_eq!(trace.totals.backtracks, 4);
    let no_way_on = trace
        .entries
        .iter()
        .filter(|e| matches!(e, Entry::Call(c) if c.error.as_deref().is_some_and(|e| e.contains("no way on"))))
        .count();
    assert_eq!(no_way_on, 1, "the fifth step, both of its ways dead ends");
    // Every section that said there was no way on was asked once in that attempt.
    for e in &trace.entries {
        if let Entry::Call(c) = e
            && c.error.as_deref().is_some_and(|e| e.contains("no way on"))
        {
            let again = trace.entries.iter().any(|x| {
                matches!(x, Entry::Call(d) if d.call == c.call + 1 && d.section == c.section
                    && d.attempt == c.attempt)
            });
            assert!(!again, "call {} was followed by a replan", c.call);
        }
    }
}

#[test]
fn steps_back_are_bounded_by_the_budget() {
    let Outcome::Failure { trace, .. } = run(1, 6) else {
        panic!("one step back is not enough for six steps");
    };
    assert_eq!(trace.totals.backtracks, 1);
}

#[test]
fn a_budget_without_steps_back_writes_no_backtracks_field() {
    let header = serde_json::to_value(Budget::default()).unwrap();
    assert!(header.get("backtracks").is_none(), "{header}");
    let header = serde_json::to_value(Budget {
        backtracks: 3,
        ..Budget::default()
    })
    .unwrap();
    assert_eq!(header["backtracks"], 3);
}
