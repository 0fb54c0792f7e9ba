//! The analysis as a theorist reads it: statements with their labels in both
//! conventions and their notes (bar, voice, onset), elisions, canons, the share of
//! notes explained and the notes left over. Everything here serialises (`--json`);
//! `listing.rs` prints it for people.

use super::absorb::ToneRole;
use super::search::NONE;
use super::select::{Forms, Selection};
use super::texture::Texture;
use crate::row::{Convention, FormTable, PitchClass, Row, RowForm};
use cantus_music::{Score, Time, time_text};
use serde::Serialize;

/// Where the row came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowSource {
    /// Given by the caller (`--row`).
    Given,
    /// Inferred from the piece: the candidate explaining most notes, and more than
    /// chance (the [`Verdict`] passes).
    Inferred,
    /// No candidate explained more of the piece than chance: the best one tried is
    /// reported (its statements are what it found), but it is not the piece's row.
    NotFound,
}

/// What the analysis concludes about the piece as a whole.
///
/// Only notes in *complete* statements count, and only as far as they exceed what
/// the same analysis finds in the piece's own notes put in random order (its
/// [`Control`]). Why: any texture with enough pitch classes holds stretches that
/// read as most of some form, and complete statements of some row turn up by chance
/// too — in the calibration (`corpus/twelve-tone/`) free-atonal songs had 27–63% of
/// their notes in complete statements, and copies with their pitch classes shuffled
/// as many; Webern's Op. 21 had 94.5% and its shuffled copies at most 66%. A share of
/// notes "explained" (partial statements included) was about 88% for all of them and
/// plays no part here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// At least [`TWELVE_TONE_PERCENT`]% of the notes are in complete statements, and
    /// at least [`MARGIN_PERCENT`] points more than in any shuffled copy.
    TwelveTone,
    /// At least [`PARTLY_PERCENT`]% in complete statements and [`MARGIN_PERCENT`]
    /// points more than in any shuffled copy (a piece partly serial, or serial in a
    /// way the analyser reads only in part). Never given without a control.
    PartlyTwelveTone,
    /// Less: the statements found are no more than chance finds in the same notes.
    NotTwelveTone,
    /// The piece has no notes.
    Empty,
}

/// Share of notes (percent) complete statements must hold for "twelve-tone". The
/// margin over the control does the discriminating; this floor keeps a piece whose
/// statements are mostly incomplete at "partly". 65: above copies of Op. 21 shuffled
/// only within each bar and analysed on Op. 21's row (up to 61%: a bar keeps the
/// row's order at the scale of bars), and below all but 6 of the 230 disguised
/// released pieces of `tests/analysis_ground_truth.rs` (notes left out make a third
/// of some pieces' statements incomplete).
pub const TWELVE_TONE_PERCENT: usize = 65;

/// Share of notes (percent) complete statements must hold for "partly twelve-tone".
pub const PARTLY_PERCENT: usize = 25;

/// How far (percentage points) the piece's share in complete statements must exceed
/// the highest of its shuffled copies': twice what any free-atonal song exceeded its
/// copies by in the calibration (about 10 points), and more than the spread of the
/// copies of one piece (up to about 17 points).
pub const MARGIN_PERCENT: usize = 20;

impl Verdict {
    /// The verdict for `in_complete` of `notes` notes in complete statements, given
    /// the control's highest copy as (notes in complete statements, notes), or `None`
    /// when no control was computed.
    pub fn of(in_complete: usize, notes: usize, control: Option<(usize, usize)>) -> Verdict {
        if notes == 0 {
            return Verdict::Empty;
        }
        let at_least = |percent: usize| in_complete * 100 >= notes * percent;
        // in_complete / notes >= c / n + MARGIN / 100, in integers.
        let above_chance = |(c, n): (usize, usize)| {
            n == 0 || in_complete * 100 * n >= (c * 100 + MARGIN_PERCENT * n) * notes
        };
        match control {
            Some(c) if above_chance(c) && at_least(TWELVE_TONE_PERCENT) => Verdict::TwelveTone,
            Some(c) if above_chance(c) && at_least(PARTLY_PERCENT) => Verdict::PartlyTwelveTone,
            None if at_least(TWELVE_TONE_PERCENT) => Verdict::TwelveTone,
            _ => Verdict::NotTwelveTone,
        }
    }

    /// Whether the statements found are more than chance finds (a row may be named).
    pub fn passes(self) -> bool {
        matches!(self, Verdict::TwelveTone | Verdict::PartlyTwelveTone)
    }
}

/// The control: the same analysis on copies of the piece with its pitch classes
/// shuffled (see [`super::CONTROL_COPIES`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Control {
    /// Each copy analysed.
    pub copies: Vec<ControlCopy>,
    /// Why no copy was analysed, when none was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// One shuffled copy, analysed as the piece was (on the given row, or inferring one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ControlCopy {
    /// The shuffle's seed.
    pub seed: u64,
    /// Notes in the copy (as many as in the piece).
    pub notes: usize,
    /// Notes some statement explains.
    pub explained: usize,
    /// Of them, notes complete statements explain.
    pub explained_by_complete: usize,
    /// The row it was analysed on (given, or the best inferred).
    pub row: Option<Row>,
}

impl Control {
    /// The copy with the largest share of its notes in complete statements: what
    /// chance reached.
    pub fn highest(&self) -> Option<&ControlCopy> {
        self.copies.iter().max_by(|a, b| {
            // a.c / a.n against b.c / b.n, in integers.
            (a.explained_by_complete * b.notes.max(1))
                .cmp(&(b.explained_by_complete * a.notes.max(1)))
        })
    }
}

/// A statement's labels in both conventions (two each for a symmetric row).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Labels {
    pub zero_centred: Vec<RowForm>,
    pub relative: Vec<RowForm>,
}

/// What a note is in its statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoteRole {
    /// It sounds the order position.
    Position,
    /// It sounds the order position, which it shares with the statement before
    /// (an elision; that statement lists it as a plain position).
    Elided,
    /// It sounds the order position, which it shares with a statement sounding at the
    /// same time (a canon's common note, such as the axis of a mirror canon; that
    /// statement lists it as a plain position).
    Shared,
    /// It doubles the position's note (same onset and pitch class, another octave
    /// or instrument).
    Doubling,
    /// It repeats the position's pitch class in the same voice (a repeated note, a
    /// tremolo, a chord struck again) before the statement moves on.
    Repetition,
    /// No statement explains it.
    Unexplained,
}

/// One note of the piece, located.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalysedNote {
    /// Order position in the statement, 1..=12 (none for an unexplained note).
    pub position: Option<u8>,
    pub role: NoteRole,
    pub pc: PitchClass,
    pub midi: u8,
    pub bar: u32,
    /// Voice index in the score (0-based) and its name.
    pub voice: usize,
    pub voice_name: String,
    /// Index of the note's event in its voice.
    pub event: usize,
    /// Onset of its event; for a grace note, the onset of the note it leads to (it
    /// sounds just before it).
    #[serde(with = "time_text")]
    pub onset: Time,
    /// Whether it is written as a grace note.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub grace: bool,
}

/// One row statement found in the piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Statement {
    /// 1-based, in order of first onset.
    pub number: usize,
    pub labels: Labels,
    pub complete: bool,
    /// Order positions (1..=12) not found.
    pub missing: Vec<u8>,
    pub first_bar: u32,
    pub last_bar: u32,
    /// Onset of its first note.
    #[serde(with = "time_text")]
    pub onset: Time,
    /// The voices it passes through, in order (a voice again after another, again).
    pub voices: Vec<String>,
    /// Its notes in onset order (positions, doublings, repetitions).
    pub notes: Vec<AnalysedNote>,
}

/// Two consecutive statements sharing notes: the last `shared` positions of `from`
/// are the first `shared` of `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Elision {
    pub from: usize,
    pub to: usize,
    pub shared: u8,
}

/// How a canon's follower relates to its leader.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CanonRelation {
    /// The follower is the leader transposed (`interval` semitones up, mod 12).
    Transposition,
    /// The follower is the leader inverted: pitch class `x` becomes `interval − x`.
    Inversion,
    /// The follower is the leader's retrograde, transposed by `interval`.
    Retrograde,
    /// The follower is the leader's retrograde inversion (`interval − x`).
    RetrogradeInversion,
}

/// Two statements in canon: the follower's order positions sound at the leader's
/// onsets plus a fixed delay, and its form is a transformation of the leader's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Canon {
    pub leader: usize,
    pub follower: usize,
    pub relation: CanonRelation,
    /// Transposition interval, or the index number (sum) of the inversion, mod 12.
    pub interval: PitchClass,
    #[serde(with = "time_text")]
    pub delay: Time,
    /// Order positions found in both that keep the delay.
    pub positions: u8,
    /// Order positions (1..=12) found in both that do not (a free note or two).
    pub free_positions: Vec<u8>,
}

/// The serial analysis of a piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The row the labels refer to (`P0` in the relative convention), if any: the
    /// given row, the inferred one, or (`row_source` not-found) the best candidate.
    pub row: Option<Row>,
    /// The historical row it is a form of (music21's id), if any — only when the
    /// verdict passes: a chance fit's ordering equals some historical row's as often
    /// as any other ordering does, and a name would say the piece uses it.
    pub row_name: Option<String>,
    pub row_source: RowSource,
    /// Rows tried when inferring (0 when the row was given).
    pub rows_tried: usize,
    pub verdict: Verdict,
    /// Notes in the piece (every pitch of every event).
    pub notes: usize,
    /// Notes some statement explains (positions, doublings, repetitions), whatever
    /// the verdict: what was found.
    pub explained: usize,
    /// Of them, notes complete statements explain (what the verdict weighs).
    pub explained_by_complete: usize,
    pub statements: Vec<Statement>,
    pub elisions: Vec<Elision>,
    pub canons: Vec<Canon>,
    pub unexplained: Vec<AnalysedNote>,
    /// The same analysis on copies of the piece with its pitch classes shuffled: what
    /// the verdict is judged against.
    pub control: Control,
}

impl Analysis {
    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Internal statement numbering: `order[s]` is the report index of selection
/// statement `s`.
pub(crate) struct Numbering {
    pub order: Vec<usize>,
}

/// Builds the statements, elisions and unexplained notes of one selection.
pub(crate) struct Builder<'a> {
    pub score: &'a Score,
    pub tex: &'a Texture,
    pub row: &'a Row,
    pub forms: &'a Forms,
    pub sel: &'a Selection,
    pub roles: &'a [ToneRole],
}

impl Builder<'_> {
    /// The statements (in onset order), their numbering, the elisions and the
    /// unexplained notes.
    pub fn build(&self) -> (Vec<Statement>, Numbering, Vec<Elision>, Vec<AnalysedNote>) {
        let zero = FormTable::new(self.row, Convention::ZeroCentred);
        let relative = FormTable::new(self.row, Convention::Relative);
        let mut by_onset: Vec<(i64, u32, usize)> = self
            .sel
            .statements
            .iter()
            .enumerate()
            .map(|(s, c)| {
                let first = c
                    .tones
                    .iter()
                    .filter(|&&t| t != NONE)
                    .map(|&t| self.tex.tones[t as usize].onset)
                    .min()
                    .unwrap_or(0);
                (first, u32::from(c.form), s)
            })
            .collect();
        by_onset.sort();
        let mut order = vec![0; self.sel.statements.len()];
        for (i, &(_, _, s)) in by_onset.iter().enumerate() {
            order[s] = i;
        }
        let mut repeats: Vec<Vec<(u32, u8)>> = vec![Vec::new(); self.sel.statements.len()];
        for (t, role) in self.roles.iter().enumerate() {
            if let ToneRole::Repetition { stmt, pos } = *role {
                repeats[stmt as usize].push((t as u32, pos));
            }
        }
        // Tones shared by two statements: the one not holding the claim.
        let mut later_sharer = std::collections::HashMap::new();
        for (s, chain) in self.sel.statements.iter().enumerate() {
            for &t in &chain.tones {
                if t != NONE && self.sel.claims[t as usize].stmt as usize != s {
                    later_sharer.insert(t, s);
                }
            }
        }
        let mut statements = Vec::with_capacity(by_onset.len());
        let mut elisions = Vec::new();
        for &(_, _, s) in &by_onset {
            let chain = &self.sel.statements[s];
            let pcs = &self.forms.pcs[usize::from(chain.form)];
            let mut notes = Vec::new();
            for (k, &t) in chain.tones.iter().enumerate() {
                if t == NONE {
                    continue;
                }
                let claim = self.sel.claims[t as usize];
                let other = if claim.stmt as usize == s {
                    later_sharer.get(&t).copied()
                } else {
                    Some(claim.stmt as usize)
                };
                // A tone two statements share is, in an elision (one's last notes
                // the other's first), a plain position of the earlier and an elided
                // one of the later; in two statements sounding at once (a canon's
                // common note), a plain position of the one holding it and a shared
                // one of the other.
                let first = match other {
                    None => NoteRole::Position,
                    Some(o) if self.elides(o, s) => {
                        if order[o] < order[s] {
                            NoteRole::Elided
                        } else {
                            NoteRole::Position
                        }
                    }
                    Some(_) if claim.stmt as usize == s => NoteRole::Position,
                    Some(_) => NoteRole::Shared,
                };
                self.push_notes(&mut notes, t, Some(k as u8), first, NoteRole::Doubling);
            }
            for &(t, k) in &repeats[s] {
                self.push_notes(
                    &mut notes,
                    t,
                    Some(k),
                    NoteRole::Repetition,
                    NoteRole::Repetition,
                );
            }
            notes.sort_by(|a, b| {
                (a.onset, a.position, a.voice).cmp(&(b.onset, b.position, b.voice))
            });
            let missing: Vec<u8> = (0..12u8)
                .filter(|&k| chain.tones[usize::from(k)] == NONE)
                .map(|k| k + 1)
                .collect();
            let mut voices: Vec<String> = Vec::new();
            for n in notes.iter().filter(|n| n.role != NoteRole::Repetition) {
                if voices.last() != Some(&n.voice_name) {
                    voices.push(n.voice_name.clone());
                }
            }
            if let Some((partner, shared)) = chain.elided_head {
                elisions.push(Elision {
                    from: order[partner as usize] + 1,
                    to: order[s] + 1,
                    shared,
                });
            }
            if let Some((partner, shared)) = chain.elided_tail {
                elisions.push(Elision {
                    from: order[s] + 1,
                    to: order[partner as usize] + 1,
                    shared,
                });
            }
            statements.push(Statement {
                number: order[s] + 1,
                labels: Labels {
                    zero_centred: zero.labels_of(pcs),
                    relative: relative.labels_of(pcs),
                },
                complete: missing.is_empty(),
                missing,
                first_bar: notes.first().map_or(1, |n| n.bar),
                last_bar: notes.iter().map(|n| n.bar).max().unwrap_or(1),
                onset: notes.first().map_or_else(Time::default, |n| n.onset),
                voices,
                notes,
            });
        }
        elisions.sort_by_key(|e| (e.from, e.to));
        let unexplained = unexplained_notes(self.score, self.tex, self.roles);
        (statements, Numbering { order }, elisions, unexplained)
    }

    /// Whether statement `s` shares notes with `o` by an elision (one's last notes
    /// the other's first) rather than by sounding with it.
    fn elides(&self, o: usize, s: usize) -> bool {
        let (a, b) = (&self.sel.statements[o], &self.sel.statements[s]);
        let partner = |c: &super::search::Chain, x: usize| {
            c.elided_head.is_some_and(|(p, _)| p as usize == x)
                || c.elided_tail.is_some_and(|(p, _)| p as usize == x)
        };
        partner(a, s) || partner(b, o)
    }

    fn push_notes(
        &self,
        out: &mut Vec<AnalysedNote>,
        t: u32,
        position: Option<u8>,
        first: NoteRole,
        rest: NoteRole,
    ) {
        push_notes(self.score, self.tex, out, t, position, first, rest);
    }
}

/// The notes of tones no statement explains, in onset order.
pub(crate) fn unexplained_notes(
    score: &Score,
    tex: &Texture,
    roles: &[ToneRole],
) -> Vec<AnalysedNote> {
    let mut out = Vec::new();
    for (t, role) in roles.iter().enumerate() {
        if *role == ToneRole::Unexplained {
            let role = NoteRole::Unexplained;
            push_notes(score, tex, &mut out, t as u32, None, role, role);
        }
    }
    out.sort_by_key(|a| (a.onset, a.voice, a.midi));
    out
}

/// The notes of tone `t`: the first as `first`, the others as `rest`.
fn push_notes(
    score: &Score,
    tex: &Texture,
    out: &mut Vec<AnalysedNote>,
    t: u32,
    position: Option<u8>,
    first: NoteRole,
    rest: NoteRole,
) {
    for (i, n) in tex.notes_of(t).iter().enumerate() {
        let voice = n.voice as usize;
        let event = n.event as usize;
        let (name, onset, grace) = score
            .voices
            .get(voice)
            .map(|v| {
                let e = v.events.get(event);
                let onset = e.map_or_else(Time::default, |e| e.onset);
                (v.name.clone(), onset, e.is_some_and(|e| e.is_grace()))
            })
            .unwrap_or_default();
        out.push(AnalysedNote {
            position: position.map(|k| k + 1),
            role: if i == 0 { first } else { rest },
            pc: n.midi % 12,
            midi: n.midi,
            bar: score.bar_of(onset),
            voice,
            voice_name: name,
            event,
            onset,
            grace,
        });
    }
}

/// Notes explained by some statement, and those of them explained by complete ones.
pub(crate) fn explained_notes(
    tex: &Texture,
    sel: &Selection,
    roles: &[ToneRole],
) -> (usize, usize) {
    let complete = |s: u32| sel.statements[s as usize].found == 12;
    let mut out = (0, 0);
    for (t, r) in roles.iter().enumerate() {
        let notes = tex.tones[t].count as usize;
        match *r {
            ToneRole::Unexplained => {}
            ToneRole::Position { stmt, .. } | ToneRole::Repetition { stmt, .. } => {
                out.0 += notes;
                if complete(stmt) {
                    out.1 += notes;
                }
            }
        }
    }
    out
}
