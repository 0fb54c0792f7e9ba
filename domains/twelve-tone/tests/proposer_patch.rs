//! Patch and rewrite answers: the row order never changes (same tags, the tagged
//! pitch classes), everything stays in register, on the grid, after the voice's last
//! accepted note and inside the section — and the answers clear the clashes the real
//! online predicates report.

mod proposer_support;

use cantus_framework::{CheckContext, Domain, RequestKind, Verdict, Verifier};
use cantus_music::Time;
use cantus_twelve_tone::event::Location;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Blueprint, Tag, ToneEvent, ToneState, TwelveTone, predicates};
use proposer_support::{ask, on_grid, planned};

fn verify(
    verifier: &Verifier<TwelveTone>,
    plan: &Blueprint,
    state: &ToneState,
    index: usize,
    e: &ToneEvent,
) -> Verdict<Location> {
    let ctx = CheckContext {
        domain: &TwelveTone,
        spec: plan,
        state,
        section: &plan.sections[index],
        section_index: index,
    };
    verifier.verify(ctx, e)
}

/// Problems with one answered event: row order, register, grid, room.
fn event_problems(plan: &Blueprint, state: &ToneState, index: usize, e: &ToneEvent) -> Vec<String> {
    let mut out = Vec::new();
    let s = &plan.sections[index];
    let reg = &plan.limits.voices[e.voice];
    let positions = usize::from(e.tag.start)..usize::from(e.tag.start + e.tag.len);
    let mut want: Vec<u8> = plan.table.pcs(e.tag.form)[positions].to_vec();
    let mut got: Vec<u8> = e.pcs().collect();
    want.sort_unstable();
    got.sort_unstable();
    if want != got {
        out.push(format!(
            "pitch classes {got:?} but the tag {} says {want:?}",
            e.tag
        ));
    }
    if e.pitches.iter().any(|&p| p < reg.low || p > reg.high)
        || !e.pitches.windows(2).all(|w| w[0] < w[1])
    {
        out.push(format!(
            "pitches {:?} not ascending inside {}-{}",
            e.pitches, reg.low, reg.high
        ));
    }
    if !on_grid(e.onset) || !on_grid(e.duration) || e.duration <= Time::default() {
        out.push(format!("timing {} + {} off the grid", e.onset, e.duration));
    }
    if e.onset < state.voices[e.voice].last_end() || e.onset < s.start || e.end() > s.end {
        out.push(format!(
            "timing {} + {} outside the voice's room",
            e.onset, e.duration
        ));
    }
    if e.pitches.len() > usize::from(plan.limits.max_chord) {
        out.push("chord too large".into());
    }
    out
}

#[tokio::test]
async fn a_patch_moves_a_colliding_note_past_the_clash_and_keeps_its_tag() {
    let spec = Spec::with_voice_count(2);
    let (plan, mut state) = planned(&spec, 3);
    let s = &plan.sections[0];
    TwelveTone.begin_section(&mut state, s);
    let (top, bass) = (s.forms[0], s.forms[1]);
    let pc = plan.table.pcs(top)[0];
    // The bass holds the soprano's first pitch class for the first beat.
    let held = ToneEvent {
        voice: 1,
        onset: Time::from_integer(0),
        duration: Time::from_integer(1),
        pitches: vec![48 + pc % 12],
        tag: Tag {
            form: bass,
            start: plan.table.position_of(bass, pc),
            len: 1,
        },
    };
    state.insert(held);
    let candidate = ToneEvent {
        voice: 0,
        onset: Time::from_integer(0),
        duration: Time::from_integer(2),
        pitches: vec![72 + pc % 12],
        tag: Tag {
            form: top,
            start: 0,
            len: 1,
        },
    };
    let verifier = predicates::verifier();
    let verdict = verify(&verifier, &plan, &state, 0, &candidate);
    assert!(
        verdict
            .violations
            .iter()
            .any(|v| v.predicate == "TT-COLLISION"),
        "{verdict:?}"
    );
    for attempt in 0..3 {
        let kind = RequestKind::Patch {
            candidate: &candidate,
            violations: &verdict.violations,
        };
        let answer = ask(&plan, &state, kind, Some(0), 3, attempt, &[]).await;
        assert_eq!(answer.len(), 1, "{answer:?}");
        let patched = &answer[0];
        assert_eq!(patched.tag, candidate.tag);
        assert!(event_problems(&plan, &state, 0, patched).is_empty());
        assert!(
            patched.onset >= Time::from_integer(1) && patched.end() <= candidate.end(),
            "{patched:?}"
        );
        let after = verify(&verifier, &plan, &state, 0, patched);
        assert!(
            after.is_acceptable(),
            "attempt {attempt}: {patched:?} still breaks {:?}",
            after.violations
        );
    }
}

#[derive(Default, Debug)]
struct Tally {
    violating: usize,
    patch_clean: usize,
    patch_worse: usize,
    rewrite_clean: usize,
    rewrite_worse: usize,
}

/// Settles a section answer event by event with the real predicates; on each
/// violation asks for a patch and a rewrite, checks both, and keeps the patch if
/// it is clean (otherwise skips the event, as the engine's drop does).
async fn settle_with_patches(
    plan: &Blueprint,
    state: &mut ToneState,
    index: usize,
    seed: u64,
    tally: &mut Tally,
) {
    let verifier = predicates::verifier();
    let s = &plan.sections[index];
    TwelveTone.begin_section(state, s);
    let events = ask(plan, state, RequestKind::Section, Some(index), seed, 0, &[]).await;
    for (i, candidate) in events.iter().enumerate() {
        let verdict = verify(&verifier, plan, state, index, candidate);
        if verdict.is_acceptable() {
            TwelveTone.accept(state, s, candidate);
            continue;
        }
        tally.violating += 1;
        let before = verdict.hard_count();
        let kind = RequestKind::Patch {
            candidate,
            violations: &verdict.violations,
        };
        let patch = ask(plan, state, kind, Some(index), seed, 1, &[]).await;
        assert_eq!(patch.len(), 1);
        assert_eq!(patch[0].tag, candidate.tag);
        let problems = event_problems(plan, state, index, &patch[0]);
        assert!(problems.is_empty(), "patch {:?}: {problems:?}", patch[0]);
        let patched = verify(&verifier, plan, state, index, &patch[0]).hard_count();

        let pending = &events[i + 1..];
        let kind = RequestKind::Rewrite {
            candidate,
            pending,
            violations: &verdict.violations,
        };
        let rewrite = ask(plan, state, kind, Some(index), seed, 1, &[]).await;
        check_rewrite(plan, state, index, candidate, pending, &rewrite);
        let rewritten = verify(&verifier, plan, state, index, &rewrite[0]).hard_count();

        tally.patch_clean += usize::from(patched == 0);
        tally.patch_worse += usize::from(patched > before);
        tally.rewrite_clean += usize::from(rewritten == 0);
        tally.rewrite_worse += usize::from(rewritten > before);
        if patched == 0 {
            TwelveTone.accept(state, s, &patch[0]);
        } else {
            TwelveTone.skip(state, s, candidate);
        }
    }
}

/// A rewrite: the voice's segment re-timed with the same positions in order, then
/// the other voices' pending events unchanged.
fn check_rewrite(
    plan: &Blueprint,
    state: &ToneState,
    index: usize,
    candidate: &ToneEvent,
    pending: &[ToneEvent],
    answer: &[ToneEvent],
) {
    let v = candidate.voice;
    let segment_len = answer.iter().take_while(|e| e.voice == v).count();
    let (segment, rest) = answer.split_at(segment_len);
    let others: Vec<&ToneEvent> = pending.iter().filter(|e| e.voice != v).collect();
    assert_eq!(
        rest.iter().collect::<Vec<_>>(),
        others,
        "other voices' events must come back unchanged"
    );
    let mut next = candidate.tag.start;
    for (i, e) in segment.iter().enumerate() {
        assert_eq!(
            (e.tag.form, e.tag.start),
            (candidate.tag.form, next),
            "rewrite out of row order: {segment:?}"
        );
        next += e.tag.len;
        let problems = event_problems(plan, state, index, e);
        assert!(problems.is_empty(), "rewrite event {e:?}: {problems:?}");
        if i > 0 {
            assert!(
                segment[i - 1].end() <= e.onset,
                "rewrite overlaps itself: {segment:?}"
            );
        }
    }
    let original_end = pending
        .iter()
        .filter(|e| e.voice == v)
        .map(|e| e.tag.start + e.tag.len)
        .next_back();
    assert_eq!(
        next,
        original_end.unwrap_or(candidate.tag.start + candidate.tag.len)
    );
}

#[tokio::test]
async fn patches_and_rewrites_keep_the_row_and_clear_most_clashes() {
    let mut tally = Tally::default();
    for voices in [3, 4] {
        let spec = Spec::with_voice_count(voices);
        for seed in 0..12 {
            let (plan, mut state) = planned(&spec, seed);
            for index in 0..plan.sections.len() {
                settle_with_patches(&plan, &mut state, index, seed, &mut tally).await;
            }
        }
    }
    eprintln!("patch/rewrite over 24 pieces: {tally:?}");
    assert!(tally.violating > 50, "too few clashes to judge: {tally:?}");
    assert_eq!(tally.patch_worse + tally.rewrite_worse, 0, "{tally:?}");
    assert!(
        tally.patch_clean * 2 > tally.violating,
        "patches cleared too few: {tally:?}"
    );
    assert!(
        tally.rewrite_clean * 2 > tally.violating,
        "rewrites cleared too few: {tally:?}"
    );
}
