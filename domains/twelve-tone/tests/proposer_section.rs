//! Section and whole-piece answers of the embedded proposer: deterministic from the
//! seed, and always a correct statement of every voice's scheduled form — in order,
//! right pitch classes, in register, on the 16th/triplet grid, inside the section,
//! one line per voice, chords within `max_chord` — across meters, voice counts,
//! section lengths and chord limits.

mod proposer_support;

use cantus_framework::{Domain, Feedback, RequestKind};
use cantus_music::{Meter, Time};
use cantus_twelve_tone::gate::Rule;
use cantus_twelve_tone::spec::Spec;
use cantus_twelve_tone::{Location, ToneEvent, TwelveTone};
use proposer_support::{accept_all, ask, mixed_grid_bars, planned, section, section_problems};

/// The events of every section of a piece, each accepted before the next is asked.
async fn piece(spec: &Spec, seed: u64) -> Vec<Vec<ToneEvent>> {
    let (plan, mut state) = planned(spec, seed);
    let mut out = Vec::new();
    for index in 0..plan.sections.len() {
        let events = section(&plan, &mut state, index, seed).await;
        accept_all(&plan, &mut state, index, &events);
        out.push(events);
    }
    out
}

#[tokio::test]
async fn same_request_same_events_and_other_seeds_other_pieces() {
    let spec = Spec::with_voice_count(3);
    let first = piece(&spec, 11).await;
    assert_eq!(first, piece(&spec, 11).await);
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..6 {
        distinct.insert(format!("{:?}", piece(&spec, seed).await));
    }
    assert_eq!(
        distinct.len(),
        6,
        "six seeds gave only {} different pieces",
        distinct.len()
    );
    // Same blueprint, different run seeds: the music differs, the schedule does not.
    let (plan, state) = planned(&spec, 1);
    let a = ask(&plan, &state, RequestKind::Section, Some(0), 100, 0, &[]).await;
    let b = ask(&plan, &state, RequestKind::Section, Some(0), 101, 0, &[]).await;
    let c = ask(&plan, &state, RequestKind::Section, Some(0), 100, 1, &[]).await;
    assert_ne!(a, b);
    assert_ne!(a, c, "a replan (attempt 1) should propose something new");
    assert!(section_problems(&plan, 0, &b).is_empty() && section_problems(&plan, 0, &c).is_empty());
}

fn spec_with(voices: usize, meter: Meter, section_bars: u32, max_chord: u8) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.meter = meter;
    spec.bars = 8;
    spec.section_bars = section_bars;
    spec.texture.max_chord = max_chord;
    spec.texture.max_sounding = 12;
    spec
}

#[tokio::test]
async fn every_answer_states_each_form_correctly_across_meters_and_textures() {
    let meters = [
        (4, 4),
        (3, 4),
        (6, 8),
        (5, 8),
        (2, 2),
        (7, 16),
        (12, 8),
        (2, 4),
    ];
    let mut checked = 0;
    let mut triplet_bars = 0;
    for (i, &(num, den)) in meters.iter().enumerate() {
        for voices in 1..=6 {
            let section_bars = [1, 2, 4][(i + voices) % 3];
            let max_chord = [1, 2, 3, 4][(i + voices) % 4];
            let spec = spec_with(voices, Meter::new(num, den), section_bars, max_chord);
            for seed in 0..3 {
                let (plan, _) = planned(&spec, seed);
                for (index, events) in piece(&spec, seed).await.iter().enumerate() {
                    let problems = section_problems(&plan, index, events);
                    assert!(
                        problems.is_empty(),
                        "{num}/{den}, {voices} voices, seed {seed}: {problems:#?}"
                    );
                    let mixed = mixed_grid_bars(&plan, events);
                    assert!(
                        mixed.is_empty(),
                        "{num}/{den}: bars {mixed:?} mix 16ths and triplets"
                    );
                    triplet_bars += usize::from(
                        events
                            .iter()
                            .any(|e| !(e.duration * Time::from_integer(4)).is_integer()),
                    );
                    checked += 1;
                }
            }
        }
    }
    eprintln!("{checked} section answers checked, {triplet_bars} with triplet values");
    assert!(checked > 300);
    assert!(triplet_bars > 0, "no triplets anywhere");
}

#[tokio::test]
async fn a_voice_part_way_through_its_statement_continues_from_its_cursor() {
    let spec = Spec::with_voice_count(3);
    let (plan, mut state) = planned(&spec, 4);
    TwelveTone.begin_section(&mut state, &plan.sections[0]);
    let first = ask(&plan, &state, RequestKind::Section, Some(0), 4, 0, &[]).await;
    // Accept voice 0's events up to (and including) position 4 only.
    let early: Vec<ToneEvent> = first
        .iter()
        .filter(|e| e.voice == 0 && e.tag.start + e.tag.len <= 5)
        .cloned()
        .collect();
    accept_all(&plan, &mut state, 0, &early);
    let cursor = state.voices[0].cursor.position;
    let last_end = state.voices[0].last_end();
    assert!(cursor > 0);
    let again = ask(&plan, &state, RequestKind::Section, Some(0), 4, 1, &[]).await;
    let line: Vec<&ToneEvent> = again.iter().filter(|e| e.voice == 0).collect();
    assert_eq!(line.first().map(|e| e.tag.start), Some(cursor));
    assert_eq!(line.last().map(|e| e.tag.start + e.tag.len), Some(12));
    assert!(
        line.iter()
            .all(|e| e.onset >= last_end && e.end() <= plan.sections[0].end)
    );
    // The other voices are untouched by the cursor and still state everything.
    for v in 1..3 {
        let positions: u8 = again
            .iter()
            .filter(|e| e.voice == v)
            .map(|e| e.tag.len)
            .sum();
        assert_eq!(positions, 12);
    }
}

#[tokio::test]
async fn a_whole_piece_states_every_section_and_calms_down_after_collision_feedback() {
    let spec = Spec::with_voice_count(4);
    let (plan, state) = planned(&spec, 2);
    let whole = ask(&plan, &state, RequestKind::Whole, None, 2, 0, &[]).await;
    assert_eq!(
        whole,
        ask(&plan, &state, RequestKind::Whole, None, 2, 0, &[]).await
    );
    for (index, s) in plan.sections.iter().enumerate() {
        let events: Vec<ToneEvent> = whole
            .iter()
            .filter(|e| e.onset >= s.start && e.onset < s.end)
            .cloned()
            .collect();
        let problems = section_problems(&plan, index, &events);
        assert!(problems.is_empty(), "{problems:#?}");
    }
    let chords = |events: &[ToneEvent]| events.iter().filter(|e| e.pitches.len() > 1).count();
    let feedback = vec![Feedback::Violation {
        rule: Rule::Collision.into(),
        location: Location {
            bar: 1,
            voice: "Soprano".into(),
            onset: Time::default(),
        },
        reason: "9 collisions between voices".into(),
    }];
    let (mut before, mut after) = (0, 0);
    for seed in 0..10 {
        before += chords(&ask(&plan, &state, RequestKind::Whole, None, seed, 0, &[]).await);
        after += chords(&ask(&plan, &state, RequestKind::Whole, None, seed, 2, &feedback).await);
    }
    eprintln!("chords over 10 seeds: {before} at first, {after} after collision feedback");
    assert!(
        after * 2 < before,
        "feedback should thin the chords: {before} → {after}"
    );
}
