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
    /// Inferred from the piece: the candidate explaining most notes.
    Inferred,
    /// No candidate explained enough of the piece to call it its row.
    NotFound,
}

/// What the analysis concludes about the piece as a whole.
///
/// Both how much is explained and how much of it by *complete* statements count: any
/// texture with enough pitch classes holds stretches that read as most of some row
/// form, but only twelve-tone music is made of whole statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// At least 80% of the notes belong to statements, at least half to complete ones.
    TwelveTone,
    /// At least 40% belong to statements, at least a fifth to complete ones.
    PartlyTwelveTone,
    /// Less, or no row found: not (or not recognisably) twelve-tone.
    NotTwelveTone,
    /// The piece has no notes.
    Empty,
}

impl Verdict {
    /// The verdict for `explained` of `notes` notes, `in_complete` of them by
    /// complete statements.
    pub fn of(explained: usize, in_complete: usize, notes: usize) -> Verdict {
        if notes == 0 {
            Verdict::Empty
        } else if explained * 5 >= notes * 4 && in_complete * 2 >= notes {
            Verdict::TwelveTone
        } else if explained * 5 >= notes * 2 && in_complete * 5 >= notes {
            Verdict::PartlyTwelveTone
        } else {
            Verdict::NotTwelveTone
        }
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
    /// The row the labels refer to (`P0` in the relative convention), if any.
    pub row: Option<Row>,
    /// The historical row it is a form of (music21's id), if any.
    pub row_name: Option<String>,
    pub row_source: RowSource,
    /// Rows tried when inferring (0 when the row was given).
    pub rows_tried: usize,
    pub verdict: Verdict,
    /// Notes in the piece (every pitch of every event).
    pub notes: usize,
    /// Notes some statement explains (positions, doublings, repetitions).
    pub explained: usize,
    /// Of them, notes complete statements explain.
    pub explained_by_complete: usize,
    pub statements: Vec<Statement>,
    pub elisions: Vec<Elision>,
    pub canons: Vec<Canon>,
    pub unexplained: Vec<AnalysedNote>,
    /// When no row was found: the best candidate tried and what it explained.
    pub best_rejected: Option<Rejected>,
}

/// A candidate row that explained too little of the piece to be called its row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    pub row: Row,
    pub row_name: Option<String>,
    /// Notes it explained.
    pub explained: usize,
    /// Of them, notes explained by complete statements.
    pub explained_by_complete: usize,
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
