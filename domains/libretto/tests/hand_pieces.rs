//! Small pieces whose every axis is worked out by hand (the arithmetic is in the
//! comment beside each assertion). Covers each family: rhythm, harmony, melody,
//! texture, form and within-song variation.

use cantus_libretto::{Axis, Calibration, Fingerprint, fingerprint_text};

fn measure(text: &str) -> Fingerprint {
    fingerprint_text(text, Calibration::original()).expect("piece measures")
}

fn h(ps: &[f64]) -> f64 {
    // Libretto's entropy: bits over the observed bins, / log2(number of bins).
    -ps.iter().map(|p| p * p.log2()).sum::<f64>() / (ps.len() as f64).log2()
}

fn assert_close(fp: &Fingerprint, axis: Axis, want: f64) {
    let got = fp.get(axis).raw;
    assert!(
        (got - want).abs() <= 1e-12 * want.abs().max(1.0),
        "{}: got {got}, by hand {want}",
        axis.id()
    );
}

/// Two bars, two voices; bar 2 on a triplet grid (12 slots per whole note).
const TWO_BARS: &str = "\
KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: 2
VOICES: Bass, Lead
@1 [C]
  Bass: C3@1>8 G2@9>8
  Lead: C5@1>4 D5@5>2 E5@7>2 G5@11>4
@2 [G] (grid:12t)
  Bass: G2@1>12
  Lead: B4+D5@1>3 C5@4>3
";
// Events (bar, onset in bar, duration, MIDI), quarter notes:
//   Bass: (1, 0, 2, 48) (1, 2, 2, 43) (2, 0, 4, 43)
//   Lead: (1, 0, 1, 72) (1, 1, .5, 74) (1, 1.5, .5, 76) (1, 2.5, 1, 79)
//         (2, 0, 1, 71) (2, 0, 1, 74) (2, 1, 1, 72)          — 10 events
// Distinct (voice, onset): Bass 0, 2, 4; Lead 0, 1, 1.5, 2.5, 4, 5 — 9 onsets.

#[test]
fn rhythm_by_hand() {
    let fp = measure(TWO_BARS);
    // Off the beat: Lead 1.5 and 2.5 → 2 of 9 onsets.
    assert_close(&fp, Axis::RhySyncopationRate, 2.0 / 9.0);
    // 9 onsets over 2 sounding bars.
    assert_close(&fp, Axis::RhyOnsetDensityPerBar, 4.5);
    // Two @ lines, bar 2 is (grid:12t).
    assert_close(&fp, Axis::RhyTripletShare, 0.5);
    // 16th bins over events: 0 ×5, 4 ×2, 6, 8, 10 → p = .5, .2, .1, .1, .1.
    assert_close(&fp, Axis::RhyOnsetPosEntropy, h(&[0.5, 0.2, 0.1, 0.1, 0.1]));
    // Durations 2 2 4 1 .5 .5 1 1 1 1: mean 1.4; variance (2·.36 + 6.76 + 5·.16 + 2·.81)/10 = .99.
    assert_close(&fp, Axis::RhyMeanDurBeats, 1.4);
    assert_close(&fp, Axis::RhyDurCv, 0.99f64.sqrt() / 1.4);
    // Events per bar 6 and 4: mean 5, population sd 1.
    assert_close(&fp, Axis::RhyDensityVariability, 0.2);
}

#[test]
fn harmony_by_hand() {
    let fp = measure(TWO_BARS);
    // Duration per pitch class: C 4, D 1.5, E .5, G 7, B 1 (total 14), all inside C major.
    assert_close(&fp, Axis::HarChromaticism, 0.0);
    assert_close(&fp, Axis::HarDistinctPc, 5.0);
    assert_close(
        &fp,
        Axis::HarPcEntropy,
        h(&[4.0 / 14.0, 1.5 / 14.0, 0.5 / 14.0, 7.0 / 14.0, 1.0 / 14.0]),
    );
    // Half-bars (prominent = weight ≥ .3 × max): bar 1 {C:3, D:.5, E:.5} → {C};
    // {G:3} → {G}; bar 2 {G:4, B:1, D:1, C:1} → {G}; second half empty.
    // Pairs: {C}→{G} changes, {G}→{G} not, {G}→{} not counted → 1 / 3.
    assert_close(&fp, Axis::HarChordChangeRate, 1.0 / 3.0);
    // Distinct non-empty half sets {C}, {G} over 2 bars.
    assert_close(&fp, Axis::HarVocabDensity, 1.0);
    // Bass roots: bar 1 lowest G2 → G, bar 2 G → one transition of 0: entropy 0, no fourths.
    assert_close(&fp, Axis::HarRootMotionEntropy, 0.0);
    assert_close(&fp, Axis::HarFourthMotionRate, 0.0);
    // Bar sets {C, G} and {G}: no diminished or augmented triad.
    assert_close(&fp, Axis::HarDimaugRate, 0.0);
}

#[test]
fn melody_and_texture_by_hand() {
    let fp = measure(TWO_BARS);
    // Lowest G2 = 43, highest G5 = 79.
    assert_close(&fp, Axis::MelPitchRange, 36.0);
    // No voice has 8 onsets, so the melody is the highest-mean voice: Lead.
    // Its line (top note per onset): 72 74 76 79 74 72 → +2 +2 +3 −5 −2.
    assert_close(&fp, Axis::MelStepRatio, 3.0 / 5.0);
    assert_close(&fp, Axis::MelIntervalEntropy, h(&[0.6, 0.2, 0.2]));
    assert_close(&fp, Axis::MelUpRatio, 3.0 / 5.0);
    // Lead spans B4 71 to G5 79.
    assert_close(&fp, Axis::MelVoiceRange, 8.0);
    assert_close(&fp, Axis::TexVoiceCount, 2.0);
    // 10 events over 9 voice onsets.
    assert_close(&fp, Axis::TexMeanSimultaneity, 10.0 / 9.0);
    // Only chord: B4+D5 = 71..74.
    assert_close(&fp, Axis::TexMaxChordWidth, 3.0);
    assert_close(&fp, Axis::TexActiveVoiceDensity, 2.0);
}

#[test]
fn form_by_hand_on_two_different_bars() {
    let fp = measure(TWO_BARS);
    // The two bars share no (voice, onset, pitch): Jaccard 0.
    assert_close(&fp, Axis::FormSelfSimilarity, 0.0);
    assert_close(&fp, Axis::FormNoveltyRate, 1.0);
    assert_close(&fp, Axis::FormDistinctBarFrac, 1.0);
    // n = 2, no interior bar can peak: (0 + 1) / 2 × 100.
    assert_close(&fp, Axis::FormSectionPer100Bars, 50.0);
    // Fewer than 4 bar blocks: no variation windows.
    assert_close(&fp, Axis::WithinSongVariation, 0.0);
}

/// Eight bars: four whole notes C4, then four bars of four quarter-note C4s.
const HELD_THEN_PULSE: &str = "\
KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 4th | BARS: 8
VOICES: Solo
@1 [C]
  Solo: C4@1>4
@2 [C]
  Solo: C4@1>4
@3 [C]
  Solo: C4@1>4
@4 [C]
  Solo: C4@1>4
@5 [C]
  Solo: C4@1>1 C4@2>1 C4@3>1 C4@4>1
@6 [C]
  Solo: C4@1>1 C4@2>1 C4@3>1 C4@4>1
@7 [C]
  Solo: C4@1>1 C4@2>1 C4@3>1 C4@4>1
@8 [C]
  Solo: C4@1>1 C4@2>1 C4@3>1 C4@4>1
";

#[test]
fn form_by_hand_on_a_two_part_piece() {
    let fp = measure(HELD_THEN_PULSE);
    // Bar sets: A = {C4@0} (bars 1–4), B = {C4@0,1,2,3} (bars 5–8); J(A, B) = 1/4.
    // Upper triangle: 12 pairs within a part (1) and 16 across (1/4) → 16 / 28.
    assert_close(&fp, Axis::FormSelfSimilarity, 16.0 / 28.0);
    // Consecutive pairs: six of 1 and one of 1/4 → mean(1 − S) = .75 / 7.
    assert_close(&fp, Axis::FormNoveltyRate, 0.75 / 7.0);
    assert_close(&fp, Axis::FormDistinctBarFrac, 2.0 / 8.0);
    // L = 2; checkerboard novelty per bar: 1, 1/9, 0, 3/32, 3/8, 3/32, 0, 1/9;
    // mean .2231, sd .3132, threshold .3797: bar 5's 3/8 falls short, so no peak:
    // (0 + 1) / 8 × 100.
    assert_close(&fp, Axis::FormSectionPer100Bars, 12.5);
}

#[test]
fn variation_by_hand() {
    let fp = measure(HELD_THEN_PULSE);
    let sd = |a: Axis| Calibration::original().column(a).sd;
    // 8 blocks → W = max(2, 8 / 6) = 2 windows of 4 bars. Of the 24 local axes only
    // three differ: onset density 1 vs 4, onset-position entropy 0 vs 1 (four equal
    // bins), mean duration 4 vs 1. With two windows the sd is half the difference.
    let want = (1.5 / sd(Axis::RhyOnsetDensityPerBar)
        + 0.5 / sd(Axis::RhyOnsetPosEntropy)
        + 1.5 / sd(Axis::RhyMeanDurBeats))
        / 24.0;
    assert_close(&fp, Axis::WithinSongVariation, want);
    // Transposing the second half instead changes no local axis: variation 0.
    let transposed = TWO_PART_TRANSPOSED;
    assert_close(&measure(transposed), Axis::WithinSongVariation, 0.0);
}

const TWO_PART_TRANSPOSED: &str = "\
KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 4th | BARS: 8
VOICES: Solo
@1 [C]
  Solo: C4@1>2 E4@3>2
@2 [C]
  Solo: C4@1>2 E4@3>2
@3 [C]
  Solo: C4@1>2 E4@3>2
@4 [C]
  Solo: C4@1>2 E4@3>2
@5 [C]
  Solo: G4@1>2 B4@3>2
@6 [C]
  Solo: G4@1>2 B4@3>2
@7 [C]
  Solo: G4@1>2 B4@3>2
@8 [C]
  Solo: G4@1>2 B4@3>2
";

#[test]
fn what_the_original_tolerates_is_measured_as_it_measures_it() {
    // A voice missing from VOICES still sounds (pitch range, simultaneity) but is
    // not a voice (count); an unreadable token and pitch are skipped; a bar line
    // without brackets does not start a bar, so its notes join bar 1.
    let text = "\
KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: 2
VOICES: A
@1 [C]
  A: C4@1>4 X9@5>4 E4+Q4@9>4 oops
  Ghost: C6@1>4
@2 no brackets
  A: G4@13>4
";
    let fp = measure(text);
    assert_close(&fp, Axis::TexVoiceCount, 1.0);
    // C4 60 .. C6 84.
    assert_close(&fp, Axis::MelPitchRange, 24.0);
    // One sounding bar (the `@2` line is not a bar line), two @ lines.
    assert_close(&fp, Axis::RhyOnsetDensityPerBar, 4.0);
}
