//! Shared helpers for the embedded-proposer tests: building plans and states, asking
//! the proposer, and checking a section answer against the rules every answer obeys.
#![allow(dead_code)]

use cantus_framework::{Domain, Feedback, Proposal, ProposalRequest, Proposer, RequestKind};
use cantus_music::Time;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, Location, ToneEvent, ToneState, TwelveTone};

/// A planned spec and its empty state.
pub fn planned(spec: &Spec, seed: u64) -> (Blueprint, ToneState) {
    let plan = Blueprint::new(spec, seed).expect("the spec plans");
    let state = ToneState::new(&plan);
    (plan, state)
}

/// Asks the embedded proposer for one request.
pub async fn ask(
    plan: &Blueprint,
    state: &ToneState,
    kind: RequestKind<'_, TwelveTone>,
    section: Option<usize>,
    seed: u64,
    attempt: u32,
    feedback: &[Feedback<Location>],
) -> Vec<ToneEvent> {
    let request = ProposalRequest {
        kind,
        spec: plan,
        plan: &plan.sections,
        section_index: section,
        state,
        feedback,
        attempt,
        seed,
    };
    let Proposal { events, .. } = EmbeddedProposer::new()
        .propose(request)
        .await
        .expect("the embedded proposer answers");
    events
}

/// A section answer for the state as it stands (after `begin_section`).
pub async fn section(
    plan: &Blueprint,
    state: &mut ToneState,
    index: usize,
    seed: u64,
) -> Vec<ToneEvent> {
    TwelveTone.begin_section(state, &plan.sections[index]);
    ask(plan, state, RequestKind::Section, Some(index), seed, 0, &[]).await
}

/// Accepts every event as the engine would after a clean verdict.
pub fn accept_all(plan: &Blueprint, state: &mut ToneState, index: usize, events: &[ToneEvent]) {
    for e in events {
        TwelveTone.accept(state, &plan.sections[index], e);
    }
}

/// Whether `t` is a whole number of sixteenths or of triplet eighths.
pub fn on_grid(t: Time) -> bool {
    (t * Time::from_integer(4)).is_integer() || (t * Time::from_integer(3)).is_integer()
}

/// Bars (1-based) where one voice writes sixteenths while some voice writes triplet
/// values: the text grammar needs one grid per bar, so a triplet bar allows only
/// multiples of a sixth of a quarter.
pub fn mixed_grid_bars(plan: &Blueprint, events: &[ToneEvent]) -> Vec<i64> {
    let bar = plan.meter.bar_length();
    let mut bars: Vec<i64> = Vec::new();
    let mut by_bar: std::collections::BTreeMap<i64, (bool, bool)> = Default::default();
    for e in events {
        let b = (e.onset / bar).floor().to_integer() + 1;
        let entry = by_bar.entry(b).or_default();
        for t in [e.onset, e.duration] {
            // Triplet values have a factor 3 in the denominator; values off the
            // sixth-of-a-quarter grid (sixteenths, 32nds) cannot share a bar with them.
            entry.0 |= t.denom() % 3 == 0;
            entry.1 |= !(t * Time::from_integer(6)).is_integer();
        }
    }
    for (b, (triplet, sixteenth)) in by_bar {
        if triplet && sixteenth {
            bars.push(b);
        }
    }
    bars
}

/// Checks a whole-section answer (every voice from position 0): the problems found.
pub fn section_problems(plan: &Blueprint, index: usize, events: &[ToneEvent]) -> Vec<String> {
    let section = &plan.sections[index];
    let mut problems = Vec::new();
    let voices = plan.limits.voices.len();
    let mut order: Vec<usize> = Vec::new();
    for v in 0..voices {
        let line: Vec<&ToneEvent> = events.iter().filter(|e| e.voice == v).collect();
        let form = section.forms[v];
        let pcs = plan.table.pcs(form);
        let reg = &plan.limits.voices[v];
        let mut next = 0u8;
        // Only a statement that cannot fit in sixteenths may use finer binary values.
        let sixteenths = Time::new(i64::try_from(line.len()).unwrap_or(0), 4);
        let cramped = sixteenths > section.end - section.start;
        for (i, e) in line.iter().enumerate() {
            let at = format!("section {index} voice {v} event {i} ({e:?})");
            if e.tag.form != form || e.tag.start != next || e.tag.len == 0 {
                problems.push(format!(
                    "{at}: tag out of order, expected {form} from {next}"
                ));
            }
            next = e.tag.start + e.tag.len;
            let want: Vec<u8> = (e.tag.start..next)
                .filter_map(|p| pcs.get(usize::from(p)).copied())
                .collect();
            let mut got: Vec<u8> = e.pitches.iter().map(|p| p % 12).collect();
            let mut want_sorted = want.clone();
            got.sort_unstable();
            want_sorted.sort_unstable();
            if got != want_sorted {
                problems.push(format!("{at}: pitch classes {got:?}, tag says {want:?}"));
            }
            if !e.pitches.windows(2).all(|w| w[0] < w[1]) {
                problems.push(format!("{at}: pitches not strictly ascending"));
            }
            if e.pitches.iter().any(|&p| p < reg.low || p > reg.high) {
                problems.push(format!("{at}: outside register {}-{}", reg.low, reg.high));
            }
            if e.pitches.len() > usize::from(plan.limits.max_chord) {
                problems.push(format!("{at}: chord larger than {}", plan.limits.max_chord));
            }
            let fine = |t: Time| cramped && (t * Time::from_integer(16)).is_integer();
            if !(on_grid(e.onset) || fine(e.onset)) || !(on_grid(e.duration) || fine(e.duration)) {
                problems.push(format!("{at}: off the 16th/triplet grid"));
            }
            if e.duration <= Time::default() || e.onset < section.start || e.end() > section.end {
                problems.push(format!(
                    "{at}: outside section {}..{}",
                    section.start, section.end
                ));
            }
            if i > 0 && line[i - 1].end() > e.onset {
                problems.push(format!("{at}: overlaps the voice's previous event"));
            }
        }
        if next != 12 {
            problems.push(format!(
                "section {index} voice {v}: statement ends at position {next}, not 12"
            ));
        }
        order.extend(line.iter().map(|e| e.voice));
    }
    let voice_major: Vec<usize> = events.iter().map(|e| e.voice).collect();
    if voice_major != order {
        problems.push(format!(
            "section {index}: events are not voice-major: {voice_major:?}"
        ));
    }
    problems
}

/// Pairs of overlapping events of different voices that share a pitch class.
pub fn collisions(events: &[ToneEvent]) -> usize {
    let mut n = 0;
    for (i, a) in events.iter().enumerate() {
        for b in &events[i + 1..] {
            if a.voice != b.voice && a.overlaps(b) && a.pc_set() & b.pc_set() != 0 {
                n += 1;
            }
        }
    }
    n
}
