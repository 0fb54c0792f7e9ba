//! Canons in section answers: the follower is the leader shifted by the delay, its
//! pitch classes mapped by the canon (so they are the follower's scheduled form,
//! position by position), tagged with the follower's form, its contour kept where the
//! register allows — and the leader finishes early enough for the follower to end
//! inside the section.

mod proposer_support;

use cantus_music::Time;
use cantus_twelve_tone::blueprint::CanonPlan;
use cantus_twelve_tone::spec::{Spec, Technique, compile_brief};
use cantus_twelve_tone::{Blueprint, ToneEvent};
use proposer_support::{accept_all, planned, section, section_problems};

/// Checks one canon in one section answer; returns (intervals kept, intervals compared).
fn check_canon(
    plan: &Blueprint,
    index: usize,
    events: &[ToneEvent],
    c: &CanonPlan,
    chain_tail: Time,
) -> (usize, usize) {
    let s = &plan.sections[index];
    let leader: Vec<&ToneEvent> = events.iter().filter(|e| e.voice == c.leader).collect();
    let follower: Vec<&ToneEvent> = events.iter().filter(|e| e.voice == c.follower).collect();
    assert_eq!(
        leader.len(),
        follower.len(),
        "section {index}: follower has a different number of events"
    );
    let first = plan.table.pcs(s.forms[c.leader])[0];
    let map = c.map.in_section(first);
    let sign = match map {
        cantus_twelve_tone::blueprint::PcMap::Transpose(_) => 1,
        cantus_twelve_tone::blueprint::PcMap::Invert(_) => -1,
    };
    let mut kept = 0;
    let mut compared = 0;
    for (i, (l, f)) in leader.iter().zip(&follower).enumerate() {
        assert_eq!(
            f.onset,
            l.onset + c.delay,
            "section {index} event {i}: not shifted by the delay"
        );
        assert_eq!(f.duration, l.duration);
        assert!(
            l.end() <= s.end - c.delay - chain_tail,
            "section {index}: leader ends too late for its followers"
        );
        let mapped: u16 = l.pcs().fold(0, |m, pc| m | 1 << map.apply(pc));
        assert_eq!(
            f.pc_set(),
            mapped,
            "section {index} event {i}: pitch classes not mapped"
        );
        assert_eq!(
            (f.tag.form, f.tag.start, f.tag.len),
            (s.forms[c.follower], l.tag.start, l.tag.len)
        );
        if i > 0
            && l.pitches.len() == 1
            && leader[i - 1].pitches.len() == 1
            && follower[i - 1].pitches.len() == 1
        {
            let li = i32::from(l.pitches[0]) - i32::from(leader[i - 1].pitches[0]);
            let fi = i32::from(f.pitches[0]) - i32::from(follower[i - 1].pitches[0]);
            compared += 1;
            kept += usize::from(fi == sign * li);
        }
    }
    (kept, compared)
}

async fn run_canons(spec: &Spec, seeds: std::ops::Range<u64>) -> (usize, usize) {
    let (mut kept, mut compared) = (0, 0);
    for seed in seeds {
        let (plan, mut state) = planned(spec, seed);
        assert!(!plan.canons.is_empty());
        for index in 0..plan.sections.len() {
            let events = section(&plan, &mut state, index, seed).await;
            let problems = section_problems(&plan, index, &events);
            assert!(problems.is_empty(), "seed {seed}: {problems:#?}");
            for c in &plan.canons {
                let below: Time = plan
                    .canons
                    .iter()
                    .filter(|d| d.leader == c.follower)
                    .map(|d| d.delay)
                    .max()
                    .unwrap_or_default();
                let (k, n) = check_canon(&plan, index, &events, c, below);
                kept += k;
                compared += n;
            }
            accept_all(&plan, &mut state, index, &events);
        }
    }
    (kept, compared)
}

#[tokio::test]
async fn a_brief_canon_between_the_outer_voices_is_followed_exactly() {
    let brief = compile_brief(
        "a 16-bar trio in 3/4 on Webern's Op. 21 row with a canon between the outer voices",
    )
    .expect("the brief compiles");
    let (kept, compared) = run_canons(&brief.spec, 0..8).await;
    eprintln!("plain canon: {kept} of {compared} melodic intervals kept exactly");
    assert!(
        compared > 100 && kept * 10 >= compared * 7,
        "{kept} of {compared}"
    );
}

#[tokio::test]
async fn inversion_transposed_and_chained_canons_are_followed_exactly() {
    let mut spec = Spec::with_voice_count(4);
    spec.techniques = vec![
        Technique::InversionCanon {
            leader: 0,
            follower: 1,
            delay_bars: 1,
            axis: None,
        },
        Technique::Canon {
            leader: 1,
            follower: 3,
            delay_bars: 1,
            transpose: -5,
        },
    ];
    let (kept, compared) = run_canons(&spec, 0..6).await;
    eprintln!("inversion + chained canon: {kept} of {compared} melodic intervals kept exactly");
    assert!(
        compared > 100 && kept * 10 >= compared * 6,
        "{kept} of {compared}"
    );

    let mut spec = Spec::with_voice_count(2);
    spec.meter = cantus_music::Meter::new(6, 8);
    spec.techniques = vec![Technique::InversionCanon {
        leader: 0,
        follower: 1,
        delay_bars: 2,
        axis: Some(3),
    }];
    let (_, compared) = run_canons(&spec, 0..6).await;
    assert!(compared > 0);
}
