//! The engine paths of the counterpoint domain: a released exercise mutated into a
//! parallel fifth is caught; the nearest-pitch rung and the proposer patch repair
//! slips; a misplaced note is dropped and its slot asked for again; the gate refuses an
//! altered cantus and a broken rhythm; the crate depends on the framework and the
//! score model only.

use cantus_counterpoint::{
    Assignment, Cantus, Counterpoint, CpEvent, EmbeddedProposer, ExerciseGate, ModeName, Position,
    ReadOptions, Species, SpeciesGate, compose, judge_score, predicates, rungs,
};
use cantus_framework::{
    AskProposer, Engine, Ladder, Outcome, PatchScope, Proposal, ProposalRequest, Proposer,
    ProposerError, RequestKind, async_trait,
};
use cantus_music::{Pitch, Score};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

fn released(a: Assignment, seed: u64) -> Score {
    match block_on(compose(a, seed, &EmbeddedProposer)) {
        Outcome::Released { artefact, .. } => artefact,
        Outcome::Failure { diagnostics, .. } => panic!("not released: {diagnostics:#?}"),
    }
}

fn counterpoint_voice(score: &mut Score) -> &mut cantus_music::Voice {
    score
        .voices
        .iter_mut()
        .find(|v| v.name == "Counterpoint")
        .expect("a counterpoint voice")
}

/// Alters one counterpoint note of every released exercise so that it forms the
/// same perfect interval with the cantus as the note before it: the gate reports
/// FS-P-parallel-perfect at that bar.
#[test]
fn one_note_altered_into_parallel_perfect_is_caught() {
    let mut caught = 0;
    for mode in ModeName::ALL {
        for position in [Position::Above, Position::Below] {
            for species in [Species::First, Species::Second] {
                let a = Assignment::new(Cantus::fux(mode), species, position);
                let score = released(a, 11);
                let (report, reading) =
                    judge_score(&score, &ReadOptions::default()).expect("exercise");
                assert!(report.passed);
                let ex = &reading.exercise;
                // A perfect vertical followed by a downbeat where the cantus moves.
                let Some(i) = (0..ex.moments.len().saturating_sub(2)).find(|&i| {
                    let h = ex.vertical(i);
                    let next = ex.moments[i + 1];
                    h.is_perfect()
                        && h.semitones != 0
                        && next.bar == ex.moments[i].bar + 1
                        && next.cantus.midi != ex.moments[i].cantus.midi
                }) else {
                    continue;
                };
                let h = ex.vertical(i).semitones;
                let next = ex.moments[i + 1];
                let midi = match position {
                    Position::Above => i32::from(next.cantus.midi) + h,
                    Position::Below => i32::from(next.cantus.midi) - h,
                };
                let mut mutated = score.clone();
                let onset = cantus_counterpoint::Exercise::onset(next.bar, next.beat);
                let event = counterpoint_voice(&mut mutated)
                    .events
                    .iter_mut()
                    .find(|e| e.onset == onset)
                    .expect("the note to alter");
                event.pitches = vec![Pitch::new(u8::try_from(midi).expect("in range"))];
                let (report, _) = judge_score(&mutated, &ReadOptions::default()).expect("exercise");
                let bars: Vec<u32> = report
                    .hard()
                    .filter(|v| v.predicate == "FS-P-parallel-perfect")
                    .map(|v| v.location.bar)
                    .collect();
                assert!(
                    bars.contains(&(next.bar as u32 + 1)),
                    "{mode} {position} {species:?}: bar {} not caught: {:#?}",
                    next.bar + 1,
                    report.violations
                );
                assert!(!report.passed);
                caught += 1;
            }
        }
    }
    assert!(
        caught >= 20,
        "only {caught} exercises had a place to mutate"
    );
}

/// A proposer that answers like the embedded one but moves one note of one section
/// by `shift` semitones (section requests only; patches come back clean).
struct Slippy {
    section: usize,
    shift: i16,
    /// Only on the first attempt (so a replan gets a clean answer).
    first_attempt_only: bool,
    /// Put the note on the upbeat of a first-species bar (a place, not a pitch, problem).
    misplace: bool,
}

#[async_trait]
impl Proposer<Counterpoint> for Slippy {
    fn name(&self) -> &str {
        "slippy"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, Counterpoint>,
    ) -> Result<Proposal<CpEvent>, ProposerError> {
        let is_section = matches!(req.kind, RequestKind::Section);
        let (index, attempt) = (req.section_index, req.attempt);
        let mut p = EmbeddedProposer.propose(req).await?;
        if is_section
            && index == Some(self.section)
            && !(self.first_attempt_only && attempt > 0)
            && let Some(e) = p.events.first_mut()
        {
            let midi = (i16::from(e.midi) + self.shift).clamp(0, 127) as u8;
            e.midi = midi;
            e.spelling = cantus_music::Spelling::sharp_default(midi % 12);
            if self.misplace {
                e.beat = cantus_counterpoint::Beat::Up;
            }
        }
        Ok(p)
    }
}

/// The proposer's patch as a rung.
fn patch_rung() -> AskProposer {
    AskProposer::new(
        cantus_framework::RungId::new("proposer-patch"),
        PatchScope::Event,
    )
}

/// The counterpoint engine for `a` with `rung` as its only rung.
fn patch_only(a: &Assignment, rung: AskProposer) -> Engine<Counterpoint> {
    Engine::new(
        Counterpoint,
        predicates::verifier(a.species),
        Ladder::new().then(rung),
        ExerciseGate(a.species),
    )
    .with_budget(cantus_counterpoint::compose::budget())
}

fn dorian_first() -> Assignment {
    Assignment::new(
        Cantus::fux(ModeName::Dorian),
        Species::First,
        Position::Above,
    )
}

#[test]
fn nearest_pitch_rung_repairs_a_slip() {
    let slippy = Slippy {
        section: 4,
        shift: 1,
        first_attempt_only: false,
        misplace: false,
    };
    let outcome = block_on(compose(dorian_first(), 3, &slippy));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    assert_eq!(
        trace.totals.repairs_by_rung.get("nearest-pitch"),
        Some(&1),
        "{:?}",
        trace.totals
    );
    assert_eq!(trace.totals.dropped, 0);
}

#[test]
fn proposer_patch_repairs_when_it_is_the_only_rung() {
    let a = dorian_first();
    let engine = patch_only(&a, patch_rung());
    let slippy = Slippy {
        section: 2,
        shift: 1,
        first_attempt_only: false,
        misplace: false,
    };
    let outcome = block_on(engine.run(&a, &slippy, 5));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    assert_eq!(
        trace.totals.repairs_by_rung.get("proposer-patch"),
        Some(&1),
        "{:?}",
        trace.totals
    );
}

#[test]
fn a_misplaced_note_is_dropped_and_its_slot_asked_for_again() {
    let slippy = Slippy {
        section: 3,
        shift: 0,
        first_attempt_only: true,
        misplace: true,
    };
    let outcome = block_on(compose(dorian_first(), 3, &slippy));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    assert_eq!(trace.totals.dropped, 1, "{:?}", trace.totals);
    // Its bar owes the downbeat; one continue request fills it, no replan.
    assert_eq!(trace.totals.continues, 1, "{:?}", trace.totals);
    assert_eq!(trace.totals.replans, 0);
    assert_eq!(
        rungs::ladder().names(),
        vec!["nearest-pitch", "proposer-patch"]
    );
}

#[test]
fn the_gate_refuses_an_altered_cantus_and_a_broken_rhythm() {
    let a = dorian_first();
    let gate = SpeciesGate::for_assignment(&a);
    let score = released(a, 2);
    assert!(gate.judge(&score).passed);
    let mut altered = score.clone();
    let cantus = altered
        .voices
        .iter_mut()
        .find(|v| v.name == "Cantus")
        .expect("cantus");
    cantus.events[4].pitches = vec![Pitch::new(cantus.events[4].pitches[0].midi + 2)];
    let report = gate.judge(&altered);
    let first = &report.violations[0];
    assert_eq!(
        (first.predicate.as_str(), first.location.bar),
        ("SP-cantus", 5)
    );
    // A half note in first species.
    let mut halved = score.clone();
    let cp = counterpoint_voice(&mut halved);
    cp.events[6].duration /= 2;
    let report = gate.judge(&halved);
    let rhythm: Vec<u32> = report
        .hard()
        .filter(|v| v.predicate == "SP-rhythm")
        .map(|v| v.location.bar)
        .collect();
    assert_eq!(rhythm, vec![7]);
    // Not an exercise at all: one voice. The gate reports it rather than panicking.
    let mut lonely = score;
    lonely.voices.retain(|v| v.name == "Cantus");
    let report = gate.judge(&lonely);
    assert!(!report.passed);
    assert_eq!(report.violations[0].predicate, "SP-structure");
}

/// The crate's dependencies: the framework, the registry (how the program finds it),
/// the score model and general crates only.
#[test]
fn depends_on_framework_registry_and_music_only() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("manifest");
    let deps = manifest
        .split("[dependencies]")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("a [dependencies] table");
    let names: Vec<&str> = deps
        .lines()
        .filter_map(|l| l.split(['=', '.']).next().map(str::trim))
        .filter(|n| !n.is_empty() && !n.starts_with('#'))
        .collect();
    let cantus: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| n.starts_with("cantus"))
        .collect();
    assert_eq!(
        cantus,
        ["cantus-framework", "cantus-music", "cantus-registry"]
    );
    let general = ["serde", "serde_json", "thiserror", "fastrand"];
    for n in names.iter().filter(|n| !n.starts_with("cantus")) {
        assert!(general.contains(n), "unexpected dependency {n}");
    }
}

/// A second-species proposer that leaves out the downbeat of one bar in its first
/// answer for that bar (section requests only): the upbeat comes alone.
struct Gappy {
    section: usize,
}

#[async_trait]
impl Proposer<Counterpoint> for Gappy {
    fn name(&self) -> &str {
        "gappy"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, Counterpoint>,
    ) -> Result<Proposal<CpEvent>, ProposerError> {
        let gap = matches!(req.kind, RequestKind::Section)
            && req.section_index == Some(self.section)
            && req.attempt == 0;
        let mut p = EmbeddedProposer.propose(req).await?;
        if gap {
            p.events.retain(|e| e.beat == cantus_counterpoint::Beat::Up);
        }
        Ok(p)
    }
}

#[test]
fn a_note_after_a_missing_one_waits_and_the_continue_request_fills_the_bar_in_order() {
    let a = Assignment::new(
        Cantus::fux(ModeName::Dorian),
        Species::Second,
        Position::Above,
    );
    let outcome = block_on(compose(a, 3, &Gappy { section: 3 }));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    // The lone upbeat is refused (its downbeat is not written yet), so the bar owes
    // both beats and one continue request asks for them, in order.
    assert_eq!(trace.totals.continues, 1, "{:?}", trace.totals);
    assert_eq!(trace.totals.dropped, 1, "{:?}", trace.totals);
    assert_eq!(trace.totals.replans, 0, "{:?}", trace.totals);
}

/// How many of the calls of `trace` asked for a patch.
fn patch_calls(trace: &cantus_framework::TraceOf<Counterpoint>) -> usize {
    trace
        .entries
        .iter()
        .filter(|e| {
            matches!(e, cantus_framework::Entry::Call(c) if c.request == cantus_framework::RequestType::Patch)
        })
        .count()
}

/// Answers sections like the embedded proposer but a semitone off at every bar's
/// first note, and every patch with that same wrong note: its patches never repair.
struct Stubborn;

#[async_trait]
impl Proposer<Counterpoint> for Stubborn {
    fn name(&self) -> &str {
        "stubborn"
    }
    async fn propose(
        &self,
        req: ProposalRequest<'_, Counterpoint>,
    ) -> Result<Proposal<CpEvent>, ProposerError> {
        if let RequestKind::Patch { candidate, .. } = &req.kind {
            return Ok(Proposal::new(vec![**candidate]));
        }
        let mut p = EmbeddedProposer.propose(req).await?;
        if let Some(e) = p.events.first_mut() {
            e.midi += 1;
            e.spelling = cantus_music::Spelling::sharp_default(e.midi % 12);
        }
        Ok(p)
    }
}

#[test]
fn a_patch_rung_that_keeps_repairing_nothing_is_retired_for_the_rest_of_the_run() {
    let a = dorian_first();
    let engine = patch_only(&a, patch_rung().retiring_after(3));
    let outcome = block_on(engine.run(&a, &Stubborn, 5));
    let trace = outcome.trace();
    let patches = patch_calls(trace);
    assert_eq!(
        patches, 3,
        "three fruitless patches (under 1 in 3), then no more"
    );
    assert_eq!(
        trace.totals.rungs_retired,
        vec!["proposer-patch".to_owned()]
    );
    let retired_steps = trace
        .certificates()
        .flat_map(|c| &c.steps)
        .filter(|s| {
            s.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("retired for the rest of the run"))
        })
        .count();
    assert!(retired_steps > 0, "later events say why no patch was asked");
}

#[test]
fn a_patch_rung_that_repairs_is_never_retired() {
    // Slippy's patches come back clean: a yield of 1 in 1.
    let a = dorian_first();
    let engine = patch_only(&a, patch_rung().retiring_after(1));
    let slippy = Slippy {
        section: 2,
        shift: 1,
        first_attempt_only: false,
        misplace: false,
    };
    let outcome = block_on(engine.run(&a, &slippy, 5));
    let Outcome::Released { trace, .. } = outcome else {
        panic!("released")
    };
    assert!(trace.totals.rungs_retired.is_empty(), "{:?}", trace.totals);
}

#[test]
fn a_rung_whose_proposer_gives_the_refused_note_back_is_not_asked_about_it_again() {
    // Stubborn answers every patch with the candidate itself: the same question would
    // get the same answer on each of the budget's passes.
    let a = dorian_first();
    let engine = patch_only(&a, patch_rung());
    let passes = cantus_counterpoint::compose::budget().attempts_per_event;
    assert!(passes > 1, "the budget gives an event several passes");
    let outcome = block_on(engine.run(&a, &Stubborn, 5));
    let trace = outcome.trace();
    let events: Vec<_> = trace
        .certificates()
        .filter(|c| !c.steps.is_empty())
        .collect();
    assert!(
        !events.is_empty(),
        "Stubborn's wrong notes climb the ladder"
    );
    for c in &events {
        let asked = c.steps.iter().filter(|s| s.call.is_some()).count();
        assert_eq!(asked, 1, "one patch per refused note: {:?}", c.steps);
        assert_eq!(c.steps.len(), passes as usize, "{:?}", c.steps);
        assert!(c.steps[1..].iter().all(|s| {
            s.reason
                .as_deref()
                .is_some_and(|r| r.contains("already judged"))
        }));
    }
    let patches = patch_calls(trace);
    assert_eq!(patches, events.len());
}
