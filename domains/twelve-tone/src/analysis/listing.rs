//! The analysis as text for people: the row and verdict, then each statement with
//! its notes one per line, then elisions, canons and the notes left unexplained.

use super::report::{
    AnalysedNote, Analysis, CanonRelation, Labels, MARGIN_PERCENT, NoteRole, PARTLY_PERCENT,
    RowSource, TWELVE_TONE_PERCENT, Verdict,
};
use crate::row::{RowForm, note_name};
use cantus_music::time_text;
use std::fmt::{self, Write as _};

/// Unexplained notes listed before the rest are only counted.
const UNEXPLAINED_SHOWN: usize = 40;

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.header(f)?;
        for s in &self.statements {
            let state = if s.complete {
                "complete".to_owned()
            } else {
                format!("incomplete, missing {}", join(s.missing.iter()))
            };
            let bars = if s.first_bar == s.last_bar {
                format!("bar {}", s.first_bar)
            } else {
                format!("bars {}-{}", s.first_bar, s.last_bar)
            };
            writeln!(
                f,
                "\nStatement {}  {}  {bars}, {state}",
                s.number,
                labels_text(&s.labels)
            )?;
            writeln!(f, "  voices: {}", s.voices.join(" > "))?;
            for n in &s.notes {
                writeln!(f, "  {}", note_line(n))?;
            }
        }
        if !self.elisions.is_empty() {
            writeln!(f, "\nElisions:")?;
            for e in &self.elisions {
                let notes = if e.shared == 1 { "note" } else { "notes" };
                writeln!(
                    f,
                    "  statement {} ends with the {} {notes} statement {} begins with",
                    e.from, e.shared, e.to
                )?;
            }
        }
        if !self.canons.is_empty() {
            writeln!(f, "\nCanons:")?;
            for c in &self.canons {
                let how = match c.relation {
                    CanonRelation::Transposition => format!("transposition by {}", c.interval),
                    CanonRelation::Inversion => format!("inversion (index {})", c.interval),
                    CanonRelation::Retrograde => {
                        format!("retrograde, transposed by {}", c.interval)
                    }
                    CanonRelation::RetrogradeInversion => {
                        format!("retrograde inversion (index {})", c.interval)
                    }
                };
                let free = if c.free_positions.is_empty() {
                    String::new()
                } else {
                    format!(", free at {}", join(c.free_positions.iter()))
                };
                writeln!(
                    f,
                    "  statement {} follows statement {} by {how}, {} quarter notes later ({} positions{free})",
                    c.follower,
                    c.leader,
                    time_text::format(c.delay),
                    c.positions
                )?;
            }
        }
        if !self.unexplained.is_empty() {
            writeln!(f, "\nUnexplained notes ({}):", self.unexplained.len())?;
            for n in self.unexplained.iter().take(UNEXPLAINED_SHOWN) {
                writeln!(f, "  {}", note_line(n))?;
            }
            if self.unexplained.len() > UNEXPLAINED_SHOWN {
                writeln!(
                    f,
                    "  … and {} more (all of them in --json)",
                    self.unexplained.len() - UNEXPLAINED_SHOWN
                )?;
            }
        }
        Ok(())
    }
}

impl Analysis {
    fn header(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self
            .row_name
            .as_deref()
            .map_or_else(String::new, |n| format!(" ({n})"));
        match (&self.row, self.row_source) {
            (Some(row), RowSource::Given) => writeln!(f, "Row: {row}{name}, given")?,
            (Some(row), RowSource::Inferred) => writeln!(
                f,
                "Row: {row}{name}, inferred (the best of {} rows tried)",
                self.rows_tried
            )?,
            (Some(row), RowSource::NotFound) => writeln!(
                f,
                "Row: none found ({} rows tried; the best, {row}, finds no more than chance: its statements are listed below)",
                self.rows_tried
            )?,
            (None, _) => writeln!(f, "Row: none found ({} rows tried)", self.rows_tried)?,
        }
        let verdict = match self.verdict {
            Verdict::TwelveTone => "twelve-tone",
            Verdict::PartlyTwelveTone => "partly twelve-tone",
            Verdict::NotTwelveTone => "not twelve-tone",
            Verdict::Empty => "empty (no notes)",
        };
        let complete = self.statements.iter().filter(|s| s.complete).count();
        writeln!(
            f,
            "Verdict: {verdict}: {} of {} notes explained ({}) by {} statements ({complete} complete, {} incomplete); {} by complete statements",
            self.explained,
            self.notes,
            percent(self.explained, self.notes),
            self.statements.len(),
            self.statements.len() - complete,
            percent(self.explained_by_complete, self.notes)
        )?;
        self.control_line(f)?;
        if self.row.is_some() {
            writeln!(
                f,
                "Labels: zero-centred (Pn and In start on n), then relative to the row above (P0 is the row)"
            )?;
        }
        Ok(())
    }
}

impl Analysis {
    /// `Control: …`: what the shuffled copies reached, and what the verdict asks.
    fn control_line(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.notes == 0 {
            return Ok(());
        }
        let Some(high) = self.control.highest() else {
            let why = self
                .control
                .skipped
                .as_deref()
                .unwrap_or("no copy analysed");
            return writeln!(
                f,
                "Control: none ({why}); the verdict rests on the share in complete statements alone (twelve-tone from {TWELVE_TONE_PERCENT}%)"
            );
        };
        let copies = self.control.copies.len();
        let (c, n) = self.control.copies.iter().fold((0, 0), |(c, n), k| {
            (c + k.explained_by_complete, n + k.notes)
        });
        writeln!(
            f,
            "Control: {copies} copies, pitch classes shuffled: at most {} in complete statements ({} all together); twelve-tone needs {TWELVE_TONE_PERCENT}% and {MARGIN_PERCENT} points over the copies (partly twelve-tone {PARTLY_PERCENT}% and {MARGIN_PERCENT} points)",
            percent(high.explained_by_complete, high.notes),
            percent(c, n)
        )
    }
}

/// `P9=R3 (relative I0=RI6)`.
fn labels_text(labels: &Labels) -> String {
    let join = |forms: &[RowForm]| {
        forms
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("=")
    };
    format!(
        "{} (relative {})",
        join(&labels.zero_centred),
        join(&labels.relative)
    )
}

/// `  3  G   bar 3  Horn 2        onset 8     G2   repetition`.
fn note_line(n: &AnalysedNote) -> String {
    let position = n.position.map_or_else(|| "-".to_owned(), |p| p.to_string());
    let octave = i32::from(n.midi) / 12 - 1;
    let mut line = format!(
        "{position:>2}  {:<2}  bar {:<4} {:<16} onset {:<8} {}{octave}",
        note_name(n.pc),
        n.bar,
        n.voice_name,
        time_text::format(n.onset),
        note_name(n.pc)
    );
    let role = match n.role {
        NoteRole::Position | NoteRole::Unexplained => "",
        NoteRole::Elided => "  (elided: the previous statement's too)",
        NoteRole::Shared => "  (shared: a statement sounding with it has it too)",
        NoteRole::Doubling => "  (doubling)",
        NoteRole::Repetition => "  (repetition)",
    };
    if n.grace {
        line.push_str("  (grace note)");
    }
    line.push_str(role);
    line
}

fn join<'a>(values: impl Iterator<Item = &'a u8>) -> String {
    let mut out = String::new();
    for v in values {
        if !out.is_empty() {
            out.push_str(", ");
        }
        let _ = write!(out, "{v}");
    }
    out
}

/// `96.9%`, exact to one decimal (rounded half up), from integers: how the listing
/// (and a corpus table) shows a share of notes.
pub fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        return "0%".to_owned();
    }
    let tenths = (part * 2000 + whole) / (2 * whole);
    format!("{}.{}%", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_round_half_up() {
        assert_eq!(percent(126, 130), "96.9%");
        assert_eq!(percent(1, 8), "12.5%");
        assert_eq!(percent(0, 5), "0.0%");
        assert_eq!(percent(3, 3), "100.0%");
    }
}
