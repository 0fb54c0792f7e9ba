//! The embedded proposer writes varied music: many note values, rests, a minority
//! of dyads, lines that use their registers, and voices planned independently enough
//! that they collide (so the repair ladder has work). Measured over 20 seeds of the
//! default 3-voice, 16-bar spec, on raw section answers.

mod proposer_support;

use cantus_music::Time;
use cantus_twelve_tone::spec::Spec;
use proposer_support::{accept_all, collisions, planned, section};
use std::collections::BTreeSet;

#[derive(Default, Debug)]
struct Tally {
    durations: BTreeSet<Time>,
    events: usize,
    chords: usize,
    gaps: usize,
    collision_seeds: usize,
    collisions: usize,
    narrow_voices: Vec<String>,
}

#[tokio::test]
async fn twenty_seeds_of_a_trio_are_varied_and_collide() {
    let spec = Spec::with_voice_count(3);
    let mut tally = Tally::default();
    for seed in 0..20u64 {
        let (plan, mut state) = planned(&spec, seed);
        let mut piece = Vec::new();
        let mut seed_collisions = 0;
        for index in 0..plan.sections.len() {
            let events = section(&plan, &mut state, index, seed).await;
            seed_collisions += collisions(&events);
            accept_all(&plan, &mut state, index, &events);
            piece.extend(events);
        }
        tally.collisions += seed_collisions;
        tally.collision_seeds += usize::from(seed_collisions > 0);
        for v in 0..plan.limits.voices.len() {
            let line: Vec<_> = piece.iter().filter(|e| e.voice == v).collect();
            let low = line
                .iter()
                .flat_map(|e| e.pitches.iter())
                .min()
                .copied()
                .unwrap_or(0);
            let high = line
                .iter()
                .flat_map(|e| e.pitches.iter())
                .max()
                .copied()
                .unwrap_or(0);
            if high - low < 12 {
                tally
                    .narrow_voices
                    .push(format!("seed {seed} voice {v}: {low}-{high}"));
            }
            tally.gaps += line.windows(2).filter(|w| w[0].end() < w[1].onset).count();
        }
        tally.events += piece.len();
        tally.chords += piece.iter().filter(|e| e.pitches.len() > 1).count();
        tally.durations.extend(piece.iter().map(|e| e.duration));
    }
    let chord_share = tally.chords as f64 / tally.events as f64;
    eprintln!(
        "variety over 20 seeds: {} events, {} distinct durations {:?}, {} chords ({:.1}%), {} gaps, \
         collisions {} in {} seeds",
        tally.events,
        tally.durations.len(),
        tally
            .durations
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>(),
        tally.chords,
        chord_share * 100.0,
        tally.gaps,
        tally.collisions,
        tally.collision_seeds
    );
    assert!(tally.durations.len() >= 5, "{tally:?}");
    assert!(
        tally.gaps >= 20 * 3,
        "fewer than one rest per voice per piece: {tally:?}"
    );
    assert!(
        (0.05..=0.25).contains(&chord_share),
        "chord share {chord_share}: {tally:?}"
    );
    assert!(
        tally.narrow_voices.is_empty(),
        "voices using less than an octave: {:?}",
        tally.narrow_voices
    );
    assert!(
        tally.collision_seeds >= 15,
        "collisions in only {} of 20 seeds",
        tally.collision_seeds
    );
}
