//! What the proposer decided, beside chance: how much of its piece the null model —
//! uniform draws from the same constraints — wrote too. (The bits offered and the
//! share written otherwise than the plan are counted when each answer is read, in
//! `cantus_framework::Choice`.)
//!
//! Pieces are compared as sets of notes, one per sounding pitch: (voice, onset, MIDI
//! pitch). Two pieces that agree on a note put the same pitch in the same voice at the
//! same time; lengths are left out, as the issue that asked for these measures did.

use cantus_music::{Score, Time};
use std::collections::BTreeSet;

/// One sounding pitch of a piece.
pub type Note = (usize, Time, u8);

/// Every note of `score`.
pub fn notes(score: &Score) -> BTreeSet<Note> {
    score
        .voices
        .iter()
        .enumerate()
        .flat_map(|(v, voice)| {
            voice
                .events
                .iter()
                .flat_map(move |e| e.pitches.iter().map(move |p| (v, e.onset, p.midi)))
        })
        .collect()
}

/// The share of `a`'s notes that `b` has too (`None` when `a` has none).
pub fn agreement(a: &BTreeSet<Note>, b: &BTreeSet<Note>) -> Option<f64> {
    (!a.is_empty()).then(|| a.intersection(b).count() as f64 / a.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::grammar::{ParseOptions, parse};

    fn score(body: &str) -> Score {
        let text = format!("METER: 4/4 | GRID: 16th | BARS: 1\nVOICES: A, B\n@1 [-]\n{body}");
        parse(&text, &ParseOptions::named("t"))
            .expect("parses")
            .score
    }

    #[test]
    fn a_note_counts_by_voice_onset_and_pitch_not_length() {
        let plan = score("  A: C4@1>4 D4@5>4\n  B: E3@1>8\n");
        // The second note longer: the same notes.
        let same = score("  A: C4@1>4 D4@5>8\n  B: E3@1>8\n");
        assert_eq!(agreement(&notes(&same), &notes(&plan)), Some(1.0));
        // D an octave up, E in the other voice: one of three notes agrees.
        let moved = score("  A: C4@1>4 D5@5>4\n  B: F3@1>8\n");
        let a = agreement(&notes(&moved), &notes(&plan)).expect("notes");
        assert!((a - 1.0 / 3.0).abs() < 1e-12);
        // A chord is one note per pitch.
        let chord = score("  A: C4+G4@1>4 D4@5>4\n  B: E3@1>8\n");
        assert_eq!(notes(&chord).len(), 4);
        assert_eq!(agreement(&notes(&plan), &notes(&chord)), Some(1.0));
        assert_eq!(agreement(&notes(&chord), &notes(&plan)), Some(0.75));
        assert_eq!(agreement(&BTreeSet::new(), &notes(&plan)), None);
    }
}
