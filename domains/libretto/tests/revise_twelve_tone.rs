//! The generate–measure–revise loop on the twelve-tone domain, in harness mode:
//! every round runs the full propose–verify–repair loop, so every round is
//! rule-abiding, and Libretto's degeneracy gate (against the shipped serial
//! reference) decides whether it is music.
//!
//! The proposer wraps the embedded one and degenerates its section answers —
//! the upper voices' notes joined into dyads, every line squeezed into one
//! octave and re-timed onto the slowest even grid of whole, half or quarter
//! bars that holds it, each note held until the next (long held notes, few
//! onsets all on the beat, a static block texture) — until a section request's
//! feedback asks for shorter notes or more onsets. Round 1 alone is the "specification gaming" the issue names: it
//! passes the strict serial gate and fails the degeneracy gate. The revise loop's
//! feedback is what changes it.

use async_trait::async_trait;
use cantus_framework::{
    Entry, Feedback, Outcome, Proposal, ProposalRequest, Proposer, ProposerError, RequestKind,
    Revise, RoundRecord,
};
use cantus_libretto::{Calibration, Degeneracy, GateId, LibrettoMeasure};
use cantus_music::{Score, Time};
use cantus_twelve_tone::compose::engine;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::spec::compile_brief;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, Location, ToneEvent, TwelveTone};

const BRIEF: &str = "A 16-bar quartet in 4/4 on Schoenberg's Op. 25 row";
const SEED: u64 = 7;

/// Whether revise feedback asks for shorter notes or more onsets.
fn asks_for_motion(feedback: &[Feedback<Location>]) -> bool {
    feedback.iter().any(|f| match f {
        Feedback::Measure { text } => motion_line(text),
        _ => false,
    })
}

/// Whether one feedback line asks for shorter notes or more onsets.
fn motion_line(l: &str) -> bool {
    (l.starts_with("average note length") && l.contains("lower it"))
        || (l.starts_with("note density") && l.contains("raise it"))
}

/// Re-times one voice's events onto the slowest grid of whole, half or quarter
/// bars (from the section's start) that holds them all between the voice's
/// first onset and the section's end, each note held until the next and the
/// last until the section ends. A voice no such grid holds is left as it is.
fn hold(events: &mut [ToneEvent], section_start: Time, section_end: Time, bar: Time) {
    let Some(first) = events.first().map(|e| e.onset) else {
        return;
    };
    let n = Time::from_integer(events.len() as i64);
    for unit in [bar, bar / 2, bar / 4] {
        let start = section_start + ((first - section_start) / unit).ceil() * unit;
        if start + n * unit > section_end {
            continue;
        }
        let count = events.len();
        for (i, e) in events.iter_mut().enumerate() {
            e.onset = start + Time::from_integer(i as i64) * unit;
            e.duration = if i + 1 == count {
                section_end - e.onset
            } else {
                unit
            };
        }
        return;
    }
}

/// Joins consecutive single notes of one row form into dyads (at most
/// `max_chord` pitches): half as many onsets, each sounding longer.
fn pair_up(line: Vec<ToneEvent>, max_chord: usize) -> Vec<ToneEvent> {
    let mut out: Vec<ToneEvent> = Vec::with_capacity(line.len());
    for e in line {
        if let Some(last) = out.last_mut() {
            let joins = last.tag.form == e.tag.form
                && last.tag.end() == u16::from(e.tag.start)
                && last.pitches.len() + e.pitches.len() <= max_chord.min(2)
                && last.pitches.len() == 1;
            if joins {
                last.pitches.extend(e.pitches);
                last.pitches.sort_unstable();
                last.tag.len += e.tag.len;
                continue;
            }
        }
        out.push(e);
    }
    out
}

/// Moves every pitch of an event into one octave of the voice's register (the
/// octave around its middle): a melody that hardly moves.
fn narrow(event: &mut ToneEvent, low: u8, high: u8) {
    let middle = (u16::from(low) + u16::from(high)) / 2;
    let floor = middle
        .saturating_sub(6)
        .clamp(u16::from(low), u16::from(high).saturating_sub(11));
    for p in &mut event.pitches {
        let up = (u16::from(*p) + 12 - floor % 12) % 12;
        *p = u8::try_from(floor + up).unwrap_or(*p);
    }
    event.pitches.sort_unstable();
}

/// The embedded proposer, with its section answers held (see [`hold`]) until
/// the feedback asks for motion; patches and rewrites pass through.
struct HeldUntilTold;

#[async_trait]
impl Proposer<TwelveTone> for HeldUntilTold {
    fn name(&self) -> &str {
        "held-until-told"
    }

    async fn propose(
        &self,
        request: ProposalRequest<'_, TwelveTone>,
    ) -> Result<Proposal<ToneEvent>, ProposerError> {
        let section = match (&request.kind, request.section()) {
            (RequestKind::Section, Some(s)) if !asks_for_motion(request.feedback) => s.clone(),
            _ => return EmbeddedProposer.propose(request).await,
        };
        let registers = request.spec.limits.voices.clone();
        let max_chord = usize::from(request.spec.limits.max_chord);
        let mut proposal = EmbeddedProposer.propose(request).await?;
        let mut held = Vec::with_capacity(proposal.events.len());
        for (voice, register) in registers.iter().enumerate() {
            let mut line: Vec<ToneEvent> = proposal
                .events
                .iter()
                .filter(|e| e.voice == voice)
                .cloned()
                .collect();
            line.sort_by_key(|e| e.onset);
            // The upper two voices in dyads: at most 2 × 2 + 2 pitches sound at once.
            if voice < 2 {
                line = pair_up(line, max_chord);
            }
            for e in &mut line {
                narrow(e, register.low, register.high);
            }
            hold(&mut line, section.start, section.end, section.bar_length());
            held.extend(line);
        }
        proposal.events = held;
        Ok(proposal)
    }
}

fn rounds(outcome: &Outcome<TwelveTone>) -> Vec<RoundRecord> {
    outcome
        .trace()
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Round(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

struct Setup {
    rt: tokio::runtime::Runtime,
    plan: Blueprint,
    measure: LibrettoMeasure<fn(&Score) -> Score>,
}

fn setup() -> Setup {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let spec = compile_brief(BRIEF).unwrap().spec;
    let plan = Blueprint::new(&spec, SEED).unwrap();
    let view: fn(&Score) -> Score = Score::clone;
    let measure = LibrettoMeasure::new(view, Calibration::serial().clone())
        .with_degeneracy(Degeneracy::serial());
    Setup { rt, plan, measure }
}

fn revise(s: &Setup, rounds: u32) -> Outcome<TwelveTone> {
    s.rt.block_on(engine(GateMode::Strict).revise_harness(
        &s.plan,
        &HeldUntilTold,
        &s.measure,
        SEED,
        Revise::measured(rounds),
    ))
}

#[test]
fn round_one_alone_games_the_strict_gate() {
    let s = setup();
    let outcome = revise(&s, 1);
    let rounds = rounds(&outcome);
    assert_eq!(rounds.len(), 1, "{rounds:#?}");
    assert!(rounds[0].gate_passed && !rounds[0].converged, "{rounds:#?}");
    // Not released: the measure never accepted it. The failure keeps the piece.
    let Outcome::Failure {
        artefact: Some(held),
        diagnostics,
        ..
    } = &outcome
    else {
        panic!("round 1 alone must not release: {rounds:#?}");
    };
    let said: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    assert!(
        said.iter()
            .any(|d| d.contains("measure `libretto` not satisfied")),
        "{said:#?}"
    );
    // The held piece passes the strict serial gate on its own…
    let gate = SerialGate::for_plan(&s.plan, GateMode::Strict);
    let report = gate.judge_score(held);
    assert!(report.passed, "{:#?}", report.hard().collect::<Vec<_>>());
    // …and fails the degeneracy gate: long held notes, few onsets.
    let verdict = s.measure.report(held);
    let degeneracy = &verdict.gates[0];
    assert_eq!(degeneracy.gate, GateId::Degeneracy);
    assert!(!degeneracy.passed, "{degeneracy:#?}");
    let fp = verdict.fingerprint.expect("the held piece sounds");
    let mean_dur = fp.get(cantus_libretto::Axis::RhyMeanDurBeats);
    assert!(mean_dur.percentile >= 95, "{mean_dur:?}");
}

#[test]
fn revise_raises_a_degenerate_piece_past_both_gates() {
    let s = setup();
    let outcome = revise(&s, 4);
    let rounds = rounds(&outcome);
    // Round 1 is the held piece: legal, but the degeneracy gate fails it and says why.
    let first = &rounds[0];
    assert!(first.gate_passed && !first.converged, "{first:#?}");
    assert!(first.score > 0.0);
    assert!(
        first.feedback.iter().any(|l| motion_line(l)),
        "{:#?}",
        first.feedback
    );
    // Round 2 follows the feedback and converges.
    assert_eq!(rounds.len(), 2, "{rounds:#?}");
    assert!(rounds[1].converged && rounds[1].gate_passed && rounds[1].best);
    let Outcome::Released { artefact, .. } = &outcome else {
        panic!("the loop releases a piece: {rounds:#?}");
    };
    // Released means the strict serial gate passed; the degeneracy gate passes too.
    let report = s.measure.report(artefact);
    assert!(report.gates.iter().all(|g| g.passed), "{:?}", report.gates);
    // Every round ran the harness: its section requests are in the trace.
    let sections = outcome
        .trace()
        .entries
        .iter()
        .filter(|e| matches!(e, Entry::Section(_)))
        .count();
    assert!(sections >= 2 * s.plan.sections.len(), "{sections}");
    // The feedback the degenerate round produced (Libretto's lines), reviewed.
    insta::assert_json_snapshot!("degenerate_round_feedback", first.feedback);
}
