//! The piece as Libretto measures it: one event per sounding pitch, with the bar
//! it was written in, its position in that bar and its length, all as the
//! original's floats (rounded to four decimals), plus the bar lines of the text.
//!
//! Every axis reads this view, never the score directly, for two reasons. The
//! original measures *text*: a note that spills past its barline still belongs
//! to the bar it was written in, silent `@N [-]` bars count for the triplet share
//! and the variation windows, and voices missing from `VOICES` are ignored by the
//! voice-based axes. And its numbers come from floats rounded to four decimals,
//! which an exact [`Time`](cantus_music::Time) must be turned into the same way.
//! A [`Layout`] holds the text's structure (from text, [`Layout::from_text`]; from
//! any [`Score`](cantus_music::Score), [`Layout::from_score`], which lays the score
//! out as Libretto's encoder would); [`Song`] is the event table of a run of its
//! bar blocks (the whole piece, or one variation window).

mod score;
mod text;

pub use text::LayoutError;

use crate::numeric::round4;

/// The most bars a piece may have to be measured: bar lines of a text
/// ([`Layout::from_text`]), bars up to the last note of a score
/// ([`Layout::from_score`]). The form axes compare every two sounding bars, so a
/// longer piece is refused before anything is laid out; at this limit a
/// fingerprint of the worst case (every bar sharing a note with every other)
/// takes about 1.5 s on a 2-core AMD EPYC and 15 MB.
pub const MAX_MEASURED_BARS: usize = 20_000;

/// Index of a voice name in [`Layout::names`].
pub type VoiceId = u32;

/// One written token: a slot, a length in slots and the MIDI numbers it sounds.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// 1-based onset slot within the bar.
    pub slot: i64,
    /// Length in slots.
    pub dur: i64,
    /// The pitches that parsed (unparsable ones are dropped, as in the original).
    pub midis: Vec<i64>,
}

/// One indented voice line of a bar block.
#[derive(Clone, Debug, PartialEq)]
pub struct VoiceLine {
    /// The voice named at the start of the line.
    pub voice: VoiceId,
    /// Its readable tokens in written order.
    pub tokens: Vec<Token>,
}

/// A bar line the original's bar pattern accepts: `@N [label]` with an optional
/// `(grid:…)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarHead {
    /// The written bar number.
    pub number: i64,
    /// The grid override's number (slots per whole note), if any.
    pub grid: Option<i64>,
}

/// Every line starting with `@` opens a block that runs to the next one.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The bar this block opens, or `None` when its `@` line is not a valid bar
    /// line (its voice lines then belong to the previous bar, as in the original).
    pub head: Option<BarHead>,
    /// Whether the block's effective grid is a triplet grid (the triplet share's
    /// reading of the `@` line).
    pub triplet: bool,
    /// Indented voice lines of the block.
    pub lines: Vec<VoiceLine>,
}

/// The structure of a piece as text: meter, grids, declared voices, bar blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Bar length in quarter notes, as the original's float `4*num/den`.
    pub bar_ql: f64,
    /// Grid (slots per whole note) of bars without an override.
    pub default_grid: i64,
    /// Voice names, indexed by [`VoiceId`].
    pub names: Vec<String>,
    /// The `VOICES` line, in order (duplicates kept, as the original keeps them).
    pub declared: Vec<VoiceId>,
    /// The voices each variation window declares: the original copies the first
    /// `VOICES:` line found before the first bar into each window (`None`: no such
    /// line, so a window's first bar line is not read as one).
    pub window_declared: Option<Vec<VoiceId>>,
    /// Whether the text has a header line before its first `@` line (windows need it).
    pub has_head: bool,
    /// The bar blocks in order.
    pub blocks: Vec<Block>,
}

/// One sounding pitch, as the original's event dictionary holds it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NoteEvent {
    /// The voice named on its line.
    pub voice: VoiceId,
    /// The bar it was written in.
    pub bar: i64,
    /// Onset within its bar, quarter notes, rounded to 4 decimals.
    pub onb: f64,
    /// Absolute onset, quarter notes, rounded to 4 decimals.
    pub abs: f64,
    /// Duration, quarter notes, rounded to 4 decimals.
    pub dur: f64,
    /// MIDI number.
    pub midi: i64,
}

impl NoteEvent {
    /// Pitch class 0..=11.
    pub fn pc(&self) -> u8 {
        self.midi.rem_euclid(12) as u8
    }
}

/// The event table of a run of bar blocks, ready to be measured.
#[derive(Clone, Debug)]
pub struct Song<'a> {
    /// The layout the events come from.
    pub layout: &'a Layout,
    /// Declared voices (of the whole piece, or none for a window without a
    /// `VOICES` line).
    pub declared: &'a [VoiceId],
    /// Events in text order.
    pub events: Vec<NoteEvent>,
    /// `@` lines of the run.
    pub bar_lines: usize,
    /// Of those, the ones whose grid is triplet.
    pub triplet_lines: usize,
}

impl Layout {
    /// The whole piece's events.
    pub fn song(&self) -> Song<'_> {
        self.run(0, self.blocks.len(), false, &self.declared)
    }

    /// Events of blocks `lo..hi` renumbered from bar 1, as the original's
    /// within-song-variation windows see them.
    pub fn window(&self, lo: usize, hi: usize) -> Song<'_> {
        match &self.window_declared {
            Some(declared) => self.run(lo, hi, true, declared),
            None => self.run(lo, hi, true, &[]),
        }
    }

    fn run<'a>(
        &'a self,
        lo: usize,
        hi: usize,
        renumber: bool,
        declared: &'a [VoiceId],
    ) -> Song<'a> {
        let with_voices = !renumber || self.window_declared.is_some();
        let blocks = self.blocks.get(lo..hi).unwrap_or(&[]);
        let mut events = Vec::new();
        let mut current: Option<(i64, i64)> = None; // (bar, grid)
        for (i, block) in blocks.iter().enumerate() {
            // Without a VOICES line the window's first `@` line lands on line 2 of
            // its text, which the original's parser never reads as a bar.
            let readable = with_voices || i > 0;
            if let (Some(head), true) = (block.head, readable) {
                let bar = if renumber { i as i64 + 1 } else { head.number };
                current = Some((bar, head.grid.unwrap_or(self.default_grid)));
            }
            let Some((bar, grid)) = current else { continue };
            let slot_ql = 4.0 / grid as f64;
            for line in &block.lines {
                for tok in &line.tokens {
                    let onb = (tok.slot - 1) as f64 * slot_ql;
                    let dur = tok.dur as f64 * slot_ql;
                    let abs = (bar - 1) as f64 * self.bar_ql + onb;
                    for &midi in &tok.midis {
                        events.push(NoteEvent {
                            voice: line.voice,
                            bar,
                            onb: round4(onb),
                            abs: round4(abs) + 0.0,
                            dur: round4(dur),
                            midi,
                        });
                    }
                }
            }
        }
        Song {
            layout: self,
            declared,
            events,
            bar_lines: blocks.len(),
            triplet_lines: blocks.iter().filter(|b| b.triplet).count(),
        }
    }
}
