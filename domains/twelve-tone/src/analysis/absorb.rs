//! What the chosen statements explain besides their order positions.
//!
//! A tone no statement takes is still explained when it **repeats** a pitch class of a
//! statement at once, in the same voice, before the statement moves on: after
//! position `k` sounded and before position `k + 2` does (or within a bar after the
//! statement's last position), with nothing in that voice in between but the same
//! notes again or positions `k - 1` and `k + 1` (an immediate repetition of `k`, a
//! tremolo between `k` and a neighbour, a chord struck again), at most [`MAX_BETWEEN`] events on. A pitch
//! class that merely comes back later in the voice is not a repetition. Octave
//! doublings need no rule here: notes that start together on one pitch class are
//! already one tone (see `texture`).

use super::search::NONE;
use super::select::Selection;
use super::texture::Texture;
use cantus_music::Score;

/// What a tone is in the analysis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToneRole {
    /// Order position `pos` (0-based) of statement `stmt` (and of a second one, for
    /// an elided tone; see the claims).
    Position { stmt: u32, pos: u8 },
    /// A repetition of position `pos` of statement `stmt`.
    Repetition { stmt: u32, pos: u8 },
    /// Explained by no statement.
    Unexplained,
}

/// One place a repetition may belong: a position's pitch class, from its onset until
/// `limit` (exclusive), in its voices.
#[derive(Clone, Copy, Debug)]
struct Window {
    onset: i64,
    limit: i64,
    voices: u64,
    /// Pitch classes that may sound in the voice between the note and its
    /// repetition: its own (with its chord) and its neighbouring positions'.
    allowed: u16,
    tone: u32,
    stmt: u32,
    pos: u8,
}

/// Most events of a voice between a note and its repetition.
const MAX_BETWEEN: usize = 4;

/// Most windows of one pitch class looked back through for one tone.
const LOOK_BACK: usize = 16;

/// The role of every tone.
pub(crate) fn roles(score: &Score, tex: &Texture, sel: &Selection) -> Vec<ToneRole> {
    let mut roles: Vec<ToneRole> = sel
        .claims
        .iter()
        .map(|c| {
            if c.stmt == NONE {
                ToneRole::Unexplained
            } else {
                ToneRole::Position {
                    stmt: c.stmt,
                    pos: c.pos,
                }
            }
        })
        .collect();
    let mut windows: [Vec<Window>; 12] = Default::default();
    for (s, chain) in sel.statements.iter().enumerate() {
        let found: Vec<(u8, u32)> = (0..12u8)
            .filter_map(|k| {
                let t = chain.tones[usize::from(k)];
                (t != NONE).then_some((k, t))
            })
            .collect();
        let Some(&(_, last)) = found.last() else {
            continue;
        };
        let end = tex.tones[last as usize].onset.saturating_add(tex.bar);
        for &(k, t) in &found {
            let tone = &tex.tones[t as usize];
            let limit = found
                .iter()
                .find(|&&(j, _)| j >= k + 2)
                .map_or(end, |&(_, u)| tex.tones[u as usize].onset);
            let allowed = found
                .iter()
                .filter(|&&(j, u)| {
                    j + 1 == k || j == k + 1 || tex.tones[u as usize].block == tone.block
                })
                .fold(1u16 << tone.pc, |m, &(_, u)| {
                    m | 1 << tex.tones[u as usize].pc
                });
            windows[usize::from(tone.pc)].push(Window {
                onset: tone.onset,
                limit,
                voices: tone.voices,
                allowed,
                tone: t,
                stmt: s as u32,
                pos: k,
            });
        }
    }
    for list in &mut windows {
        list.sort_by_key(|w| (w.onset, w.stmt, w.pos));
    }
    for (t, tone) in tex.tones.iter().enumerate() {
        if roles[t] != ToneRole::Unexplained {
            continue;
        }
        let list = &windows[usize::from(tone.pc)];
        let before = list.partition_point(|w| w.onset < tone.onset);
        let found = list[..before].iter().rev().take(LOOK_BACK).find(|w| {
            tone.onset < w.limit && w.voices & tone.voices != 0 && at_once(score, tex, w, t as u32)
        });
        if let Some(w) = found {
            roles[t] = ToneRole::Repetition {
                stmt: w.stmt,
                pos: w.pos,
            };
        }
    }
    roles
}

/// Whether tone `u` follows window `w`'s note in one voice with only allowed pitch
/// classes, at most [`MAX_BETWEEN`] events, in between.
fn at_once(score: &Score, tex: &Texture, w: &Window, u: u32) -> bool {
    tex.notes_of(u).iter().any(|later| {
        tex.notes_of(w.tone).iter().any(|earlier| {
            if earlier.voice != later.voice || later.event <= earlier.event {
                return false;
            }
            let (from, to) = (earlier.event as usize + 1, later.event as usize);
            to - from <= MAX_BETWEEN
                && score.voices[earlier.voice as usize].events[from..to]
                    .iter()
                    .all(|e| {
                        e.pitches
                            .iter()
                            .all(|p| w.allowed & 1 << (p.midi % 12) != 0)
                    })
        })
    })
}
