//! What a harmonisation is measured by beside delivery: how far it agrees with
//! Bach's under the same melody, how much of it is Bach's own (copy risk), and how
//! degenerate it is (the same chord over and over, inner parts that never move).
//!
//! Everything is read per beat at the beat's onset, from the two analyses of the
//! same melody, so the beats line up one for one. The degeneracy measures are
//! computed for Bach's harmonisation too: a figure means something only beside
//! his.

use crate::analysis::Analysis;
use crate::pitch::Part;
use serde::{Deserialize, Serialize};

/// Agreement of a harmonisation with Bach's, beat by beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Agreement {
    /// Beats compared (the melody's).
    pub beats: usize,
    /// Beats whose bass has Bach's pitch class at the beat's onset.
    pub bass: usize,
    /// Beats whose chord has Bach's root (a beat without a chord agrees with none).
    pub root: usize,
    /// Beats whose alto, tenor and bass are Bach's exact pitches: the copy risk.
    pub copied: usize,
    /// The longest run of consecutive copied beats.
    pub longest_copied_run: usize,
}

impl Agreement {
    /// `n` of the beats as a share (0 for a piece of no beats).
    pub fn share(&self, n: usize) -> f64 {
        if self.beats == 0 {
            0.0
        } else {
            n as f64 / self.beats as f64
        }
    }
}

/// Degeneracy measures of one harmonisation (shares of its beats).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Degeneracy {
    /// Beats holding the chord of the beat before (same root and quality).
    pub repeated_chord: f64,
    /// Distinct chords (root, quality, bass) over beats: 1 when every beat differs.
    pub chord_variety: f64,
    /// Beats where alto, tenor and bass all sound the pitches of the beat before.
    pub static_lower_parts: f64,
    /// Beats whose chord is in root position.
    pub root_position: f64,
}

/// The tones of alto, tenor and bass sounding at beat `i`'s onset.
fn lower_parts(a: &Analysis, i: usize) -> [Option<u8>; 3] {
    let Some(s) = a.beats.get(i).and_then(|b| a.slices.get(b.slices.start)) else {
        return [None; 3];
    };
    [Part::Alto, Part::Tenor, Part::Bass].map(|p| s.tone(p).map(|t| t.midi))
}

/// How `ours` agrees with `bach`, both analyses of one melody.
pub fn agreement(ours: &Analysis, bach: &Analysis) -> Agreement {
    let beats = ours.beats.len().min(bach.beats.len());
    let mut out = Agreement {
        beats,
        ..Agreement::default()
    };
    let mut run = 0;
    for i in 0..beats {
        let (x, y) = (lower_parts(ours, i), lower_parts(bach, i));
        if let (Some(a), Some(b)) = (x[2], y[2])
            && a % 12 == b % 12
        {
            out.bass += 1;
        }
        if let (Some(a), Some(b)) = (ours.beats[i].chord, bach.beats[i].chord)
            && a.root == b.root
        {
            out.root += 1;
        }
        if x == y && x.iter().all(Option::is_some) {
            out.copied += 1;
            run += 1;
            out.longest_copied_run = out.longest_copied_run.max(run);
        } else {
            run = 0;
        }
    }
    out
}

/// The degeneracy measures of a whole analysis.
pub fn degeneracy(a: &Analysis) -> Degeneracy {
    let n = a.beats.len();
    if n == 0 {
        return Degeneracy::default();
    }
    let share = |k: usize| k as f64 / n as f64;
    let chords: Vec<_> = a.beats.iter().map(|b| b.chord).collect();
    let repeated = (1..n)
        .filter(|&i| match (chords[i - 1], chords[i]) {
            (Some(p), Some(c)) => p.same_harmony(c),
            _ => false,
        })
        .count();
    let mut distinct: Vec<_> = chords
        .iter()
        .flatten()
        .map(|c| (c.root, c.quality, c.bass))
        .collect();
    distinct.sort_by_key(|&(r, q, b)| (r, q as u8, b));
    distinct.dedup();
    let still = (1..n)
        .filter(|&i| {
            let (p, c) = (lower_parts(a, i - 1), lower_parts(a, i));
            p == c && c.iter().all(Option::is_some)
        })
        .count();
    let root_position = chords
        .iter()
        .flatten()
        .filter(|c| c.inversion() == Some(0))
        .count();
    Degeneracy {
        repeated_chord: share(repeated),
        chord_variety: share(distinct.len()),
        static_lower_parts: share(still),
        root_position: share(root_position),
    }
}
