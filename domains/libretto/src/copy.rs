//! Note-level copy risk: the share of a piece's notes that another piece also
//! has at the same position in the aligned bar and the same pitch, under the best
//! whole-piece bar offset. Voice and duration are ignored; the threshold the
//! original calibrated between unrelated real songs is 0.30.

use crate::numeric::round_decimals;
use crate::song::Song;
use std::collections::{BTreeMap, HashSet};

/// The original's strict copy threshold.
pub const COPY_THRESHOLD: f64 = 0.30;

/// A piece's notes per bar as (onset in bar rounded to 2 decimals, MIDI) sets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NoteGrid {
    bars: BTreeMap<i64, HashSet<(u64, i64)>>,
    /// Number of note events (duplicates across voices count, as in the original).
    pub total: usize,
}

impl NoteGrid {
    /// The grid of a song's events.
    pub fn of(song: &Song<'_>) -> NoteGrid {
        let mut grid = NoteGrid::default();
        for e in &song.events {
            let key = ((round_decimals(e.onb, 2) + 0.0).to_bits(), e.midi);
            grid.bars.entry(e.bar).or_default().insert(key);
            grid.total += 1;
        }
        grid
    }

    /// Whether the piece has no notes.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Share of this piece's notes found in `other` when bar `b` is set against
    /// bar `b + offset`.
    pub fn aligned_overlap(&self, other: &NoteGrid, offset: i64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let hit: usize = self
            .bars
            .iter()
            .filter_map(|(b, notes)| {
                let theirs = other.bars.get(&(b + offset))?;
                Some(notes.intersection(theirs).count())
            })
            .sum();
        hit as f64 / self.total as f64
    }

    /// The best aligned overlap over every bar offset, and that offset.
    pub fn slide_overlap(&self, other: &NoteGrid) -> (f64, i64) {
        let (Some((&gmin, _)), Some((&gmax, _)), Some((&smin, _)), Some((&smax, _))) = (
            self.bars.first_key_value(),
            self.bars.last_key_value(),
            other.bars.first_key_value(),
            other.bars.last_key_value(),
        ) else {
            return (0.0, 0);
        };
        let mut best = (0.0, 0);
        for offset in (smin - gmax)..=(smax - gmin) {
            let ov = self.aligned_overlap(other, offset);
            if ov > best.0 {
                best = (ov, offset);
            }
        }
        best
    }
}

/// The copy risk of `piece` against references: the largest slid overlap.
pub fn copy_risk<'a>(piece: &NoteGrid, references: impl IntoIterator<Item = &'a NoteGrid>) -> f64 {
    references
        .into_iter()
        .map(|r| piece.slide_overlap(r).0)
        .fold(0.0, f64::max)
}
