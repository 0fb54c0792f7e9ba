//! What the rules leave open for one voice's line in a section: every way to write its
//! next row positions from which the section can still be finished cleanly — and
//! nothing narrower. This is the constraint a model is held to under
//! `freedom = "rules"` (the default); the plan's onsets, lengths and register go into
//! the prompt as advice, never into the grammar.
//!
//! A line is an automaton over states *(row position p, free slot f)*: the voice has
//! written positions up to `p`, and its last note ends at slot `f`. From there, one
//! event writes positions `p..p+k` (a single note, or a chord of up to `max_chord`
//! consecutive positions where the texture allows chords), in any octave of the
//! voice's register, at any onset `s ≥ f` (a rest before it is free), for any length
//! `d` such that, on every slot `s..s+d`:
//!
//! - no pitch class of the event sounds in a voice already fixed (`TT-COLLISION`),
//! - the pitches sounding at once stay within `max_sounding` (`TT-TEXTURE`),
//!
//! and from the state it leads to, *(p+k, s+d)*, the rest of the statement still fits
//! before the section's end (`reach`). Pitch classes come from the row cursor in order
//! (`TT-ROW`, `TT-SCHEDULE`), notes of the voice never overlap (`TT-TEXTURE`), every
//! pitch lies in its register (`TT-REGISTER`), and one event never doubles a pitch
//! class (`TT-OCTAVE`, since row positions are distinct).
//!
//! What a grammar cannot say is left to the verifier and the ladder, as the design
//! intends: voices written in the same reply do not see each other (a context-free
//! grammar cannot make one line depend on another), the running crossing share, and
//! a bar left silent by every voice. Voices fixed before the request — accepted
//! earlier in the section, sustained from the last one, kept by a rewrite — are known
//! and honoured exactly.
//!
//! The same automaton writes the GBNF grammar ([`Line::gbnf`]), decides membership
//! ([`Line::admits`]) and counts the answers it admits with each pitch counted once
//! however it is spelled ([`Line::bits`]), so the three can never disagree.

use super::constraint::pitch_names;
use crate::row::PitchClass;
use cantus_framework::model::gbnf_literal;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// One voice's open choices in a section (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Line {
    /// Pitch classes of row positions `0..12` of the voice's form.
    pub pcs: Vec<PitchClass>,
    /// First row position asked for.
    pub from: u8,
    /// One past the last row position asked for (`from < to ≤ 12`).
    pub to: u8,
    /// Positions after `to` that must still fit before `end` (12 − `to` for a section,
    /// fewer when a patch leaves later positions to notes already written).
    pub tail: u8,
    /// The voice's register, inclusive.
    pub low: u8,
    pub high: u8,
    /// Earliest onset slot (0-based): after the voice's last accepted note.
    pub first: u32,
    /// Every note ends by this slot.
    pub end: u32,
    /// Fewest and most positions one event of those asked for may hold.
    pub chord: (u8, u8),
    /// Most positions one event of the tail may hold (the texture's chord limit).
    pub max_chord: u8,
    /// Per slot, the pitch classes voices already fixed sound there.
    blocked: Vec<u16>,
    /// Per slot, how many more pitches may sound there.
    room: Vec<u8>,
    /// `longest[i][k - 1][s]`: the longest an event of positions `from + i ..` `+ k`
    /// starting at slot `s` may last.
    longest: Vec<Vec<Vec<u32>>>,
    /// `reach[i][f]`: positions `from + i .. to + tail` fit from slot `f`.
    reach: Vec<Vec<bool>>,
}

/// What other voices already sound, slot by slot, for [`Line::new`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Fixed {
    /// Pitch classes sounding in each slot.
    pub blocked: Vec<u16>,
    /// Distinct pitches sounding in each slot.
    pub sounding: Vec<u8>,
}

impl Fixed {
    /// Nothing fixed over `slots` slots.
    pub fn none(slots: u32) -> Fixed {
        let n = usize::try_from(slots).unwrap_or(0);
        Fixed {
            blocked: vec![0; n],
            sounding: vec![0; n],
        }
    }
}

/// Arguments of [`Line::new`] that describe the voice rather than the time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Voice {
    pub pcs: Vec<PitchClass>,
    pub low: u8,
    pub high: u8,
    pub max_chord: u8,
    pub max_sounding: u8,
}

impl Line {
    /// The line of `voice` writing positions `from..to` on slots `first..end`, with
    /// `tail` positions still to fit after them, against `fixed`; `chord` bounds how
    /// many positions one event may hold (`(1, max_chord)`, or exactly a patched tag's).
    /// `None` when no way to write them exists.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        voice: &Voice,
        from: u8,
        to: u8,
        tail: u8,
        first: u32,
        end: u32,
        chord: (u8, u8),
        fixed: &Fixed,
    ) -> Option<Line> {
        if from >= to || usize::from(to) > voice.pcs.len() || end > fixed.blocked.len() as u32 {
            return None;
        }
        let room = fixed
            .sounding
            .iter()
            .map(|&n| voice.max_sounding.saturating_sub(n))
            .collect();
        let mut line = Line {
            pcs: voice.pcs.clone(),
            from,
            to,
            tail,
            low: voice.low,
            high: voice.high,
            first,
            end,
            chord: (chord.0.max(1), chord.1.max(chord.0.max(1))),
            max_chord: voice.max_chord.max(1),
            blocked: fixed.blocked.clone(),
            room,
            longest: Vec::new(),
            reach: Vec::new(),
        };
        line.longest = line.longest_table();
        line.reach = line.reachability();
        line.reachable(from, first).then_some(line)
    }

    /// The line asking only for positions `from..to` (fewer than before): the rest join
    /// the tail. `None` if nothing is left to ask or it no longer fits.
    pub fn cut(mut self, to: u8) -> Option<Line> {
        if to <= self.from || to >= self.to {
            return (to == self.to).then_some(self);
        }
        self.tail += self.to - to;
        self.to = to;
        self.reach = self.reachability();
        self.reachable(self.from, self.first).then_some(self)
    }

    /// Positions in all: asked for now, then the tail.
    fn last(&self) -> u8 {
        self.to + self.tail
    }

    /// The chord sizes an event starting at position `p` may take.
    fn sizes(&self, p: u8) -> impl Iterator<Item = u8> + '_ {
        // Asked positions and the tail are separate events: a chord never spans `to`.
        let limit = if p < self.to { self.to } else { self.last() };
        let (lo, hi) = if p < self.to {
            self.chord
        } else {
            (1, self.max_chord)
        };
        (lo..=hi).filter(move |&k| p + k <= limit)
    }

    /// The pitch classes of positions `p..p+k` as a mask.
    fn mask(&self, p: u8, k: u8) -> u16 {
        (p..p + k).fold(0, |m, q| m | 1 << (self.pcs[usize::from(q)] % 12))
    }

    /// The longest an event of positions `p..p+k` starting at slot `s` may last.
    fn longest(&self, p: u8, k: u8, s: u32) -> u32 {
        self.longest
            .get(usize::from(p - self.from))
            .and_then(|t| t.get(usize::from(k) - 1))
            .and_then(|t| t.get(s as usize))
            .copied()
            .unwrap_or(0)
    }

    /// [`Line::longest`] for every position, size and slot: backwards over the slots,
    /// a run of free slots grows by one.
    fn longest_table(&self) -> Vec<Vec<Vec<u32>>> {
        (self.from..self.last())
            .map(|p| {
                (1..=self.chord.1.max(self.max_chord))
                    .map(|k| {
                        let mut run = vec![0u32; self.end as usize + 1];
                        if p + k > self.last() {
                            return run;
                        }
                        let mask = self.mask(p, k);
                        for j in (0..self.end as usize).rev() {
                            let free = self.blocked[j] & mask == 0 && self.room[j] >= k;
                            run[j] = if free { run[j + 1] + 1 } else { 0 };
                        }
                        run
                    })
                    .collect()
            })
            .collect()
    }

    fn reachable(&self, p: u8, f: u32) -> bool {
        self.reach
            .get(usize::from(p - self.from))
            .and_then(|r| r.get(f as usize))
            .copied()
            .unwrap_or(false)
    }

    /// `reach`, backwards from the last position.
    fn reachability(&self) -> Vec<Vec<bool>> {
        let slots = self.end as usize + 1;
        let count = usize::from(self.last() - self.from) + 1;
        let mut reach = vec![vec![false; slots]; count];
        reach[count - 1] = vec![true; slots];
        for p in (self.from..self.last()).rev() {
            let i = usize::from(p - self.from);
            // can[s]: some event at onset exactly s leads on.
            let mut can = vec![false; slots];
            for k in self.sizes(p).collect::<Vec<_>>() {
                let next = &reach[i + usize::from(k)];
                for s in 0..self.end {
                    if can[s as usize] {
                        continue;
                    }
                    let longest = self.longest(p, k, s);
                    can[s as usize] = (1..=longest).any(|d| next[(s + d) as usize]);
                }
            }
            // reach[p][f]: an onset at f or later leads on.
            let mut later = false;
            for f in (0..slots).rev() {
                later |= can[f];
                reach[i][f] = later;
            }
        }
        reach
    }

    /// The lengths an event of positions `p..p+k` may take at onset `s`.
    fn lengths(&self, p: u8, k: u8, s: u32) -> impl Iterator<Item = u32> + '_ {
        (1..=self.longest(p, k, s)).filter(move |&d| self.reachable(p + k, s + d))
    }

    /// The onsets from `f` on at which an event of positions `p..p+k` leads on.
    fn onsets(&self, p: u8, k: u8, f: u32) -> impl Iterator<Item = u32> + '_ {
        (f..self.end).filter(move |&s| self.lengths(p, k, s).next().is_some())
    }

    /// The MIDI pitches of pitch class `pc` in the register.
    fn octaves(&self, pc: PitchClass) -> usize {
        (self.low..=self.high).filter(|m| m % 12 == pc % 12).count()
    }

    /// log₂ of the distinct answers the line admits — each event's pitches (a pitch
    /// however spelled counts once), onset and length.
    pub fn bits(&self) -> f64 {
        let slots = self.end as usize + 1;
        let count = usize::from(self.to - self.from) + 1;
        // ways[i][f]: answers for positions from+i..to from free slot f.
        let mut ways = vec![vec![0f64; slots]; count];
        for (f, way) in ways[count - 1].iter_mut().enumerate() {
            *way = if self.reachable(self.to, f as u32) {
                1.0
            } else {
                0.0
            };
        }
        for p in (self.from..self.to).rev() {
            let i = usize::from(p - self.from);
            // at[s]: answers with the next event at onset exactly s.
            let mut at = vec![0f64; slots];
            for k in self.sizes(p).collect::<Vec<_>>() {
                let pitches: f64 = (p..p + k)
                    .map(|q| self.octaves(self.pcs[usize::from(q)]) as f64)
                    .product();
                let next = &ways[i + usize::from(k)];
                for s in 0..self.end {
                    let longest = self.longest(p, k, s);
                    let sum: f64 = (1..=longest).map(|d| next[(s + d) as usize]).sum();
                    at[s as usize] += pitches * sum;
                }
            }
            let mut later = 0.0;
            for f in (0..slots).rev() {
                later += at[f];
                ways[i][f] = later;
            }
        }
        ways[0][self.first as usize].log2()
    }

    /// Whether `tokens` (one voice line's notes, `C#4@13>2`, chords joined by `+`) are
    /// an answer the line admits: the same language as [`Line::gbnf`].
    pub fn admits(&self, tokens: &[&str]) -> bool {
        let (mut p, mut f) = (self.from, self.first);
        for token in tokens {
            let Some((pitches, timing)) = token.split_once('@') else {
                return false;
            };
            let Some((at, len)) = timing.split_once('>') else {
                return false;
            };
            let names: Vec<&str> = pitches.split('+').collect();
            let Ok(k) = u8::try_from(names.len()) else {
                return false;
            };
            if !self.sizes(p).any(|size| size == k) || p + k > self.to {
                return false;
            }
            let spelled = names.iter().enumerate().all(|(i, n)| {
                pitch_names(self.pcs[usize::from(p) + i], self.low, self.high)
                    .iter()
                    .any(|a| a == n)
            });
            let (Some(s), Some(d)) = (number(at), number(len)) else {
                return false;
            };
            let s = s - 1;
            if !spelled || s < f || s >= self.end || d > self.longest(p, k, s) {
                return false;
            }
            if !self.reachable(p + k, s + d) {
                return false;
            }
            p += k;
            f = s + d;
        }
        p == self.to
    }

    /// The GBNF rules of the line, for voice rule `name` (e.g. `v0`), whose line text
    /// starts with `prefix` (`"Soprano: "`). Only states the line can reach are written.
    ///
    /// `{name}-a{p}-{f}`: an event at position `p` with the voice free from slot `f`;
    /// `{name}-o{p}-{k}-{s}`: a `k`-position event at onset `s` or a later one (the
    /// chain is the same from any free slot before `s`, so it is written once);
    /// `{name}-l{p}-{k}-{s}`: its lengths, each leading to the next state.
    pub fn gbnf(&self, name: &str, prefix: &str) -> String {
        let mut g = String::new();
        let _ = writeln!(
            g,
            "{name} ::= {} {name}-a{}-{} \"\\n\"",
            gbnf_literal(prefix),
            self.from,
            self.first
        );
        // The onsets each (p, k) can take, in order.
        let onsets: Vec<Vec<Vec<u32>>> = (self.from..self.to)
            .map(|p| {
                (1..=self.chord.1)
                    .map(|k| {
                        if self.sizes(p).any(|size| size == k) {
                            self.onsets(p, k, 0).collect()
                        } else {
                            Vec::new()
                        }
                    })
                    .collect()
            })
            .collect();
        let onsets_of = |p: u8, k: u8| &onsets[usize::from(p - self.from)][usize::from(k) - 1];
        let mut todo = vec![(self.from, self.first)];
        let mut states: BTreeSet<(u8, u32)> = BTreeSet::new();
        let mut chains: BTreeSet<(u8, u8, u32)> = BTreeSet::new();
        let mut chords: BTreeSet<(u8, u8)> = BTreeSet::new();
        while let Some((p, f)) = todo.pop() {
            if !states.insert((p, f)) {
                continue;
            }
            let mut alternatives = Vec::new();
            for k in self.sizes(p).collect::<Vec<_>>() {
                let all = onsets_of(p, k);
                let from = all.partition_point(|&s| s < f);
                let Some(&s0) = all.get(from) else {
                    continue;
                };
                chords.insert((p, k));
                alternatives.push(format!("{name}-c{p}-{k} \"@\" {name}-o{p}-{k}-{s0}"));
                for (i, &s) in all.iter().enumerate().skip(from) {
                    if !chains.insert((p, k, s)) {
                        // Written from an earlier state; so is the rest of its chain.
                        break;
                    }
                    let mut chain = format!("\"{}>\" {name}-l{p}-{k}-{s}", s + 1);
                    if let Some(&next) = all.get(i + 1) {
                        let _ = write!(chain, " | {name}-o{p}-{k}-{next}");
                    }
                    let _ = writeln!(g, "{name}-o{p}-{k}-{s} ::= {chain}");
                    let lengths: Vec<String> = self
                        .lengths(p, k, s)
                        .map(|d| {
                            if p + k < self.to {
                                todo.push((p + k, s + d));
                                format!("\"{d} \" {name}-a{}-{}", p + k, s + d)
                            } else {
                                format!("\"{d}\"")
                            }
                        })
                        .collect();
                    let _ = writeln!(g, "{name}-l{p}-{k}-{s} ::= {}", lengths.join(" | "));
                }
            }
            let _ = writeln!(g, "{name}-a{p}-{f} ::= {}", alternatives.join(" | "));
        }
        for (p, k) in chords {
            let parts: Vec<String> = (p..p + k).map(|q| format!("{name}-pc{q}")).collect();
            let _ = writeln!(g, "{name}-c{p}-{k} ::= {}", parts.join(" \"+\" "));
        }
        for q in self.from..self.to {
            let names: Vec<String> = pitch_names(self.pcs[usize::from(q)], self.low, self.high)
                .iter()
                .map(|n| gbnf_literal(n))
                .collect();
            let _ = writeln!(g, "{name}-pc{q} ::= {}", names.join(" | "));
        }
        g
    }
}

/// A decimal number without sign or leading zero, at least 1.
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|&n| n >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_backend::Language;

    /// Schoenberg's Op. 25 row (E F G C# F# D# G# D B C A A#) as pitch classes.
    const ROW: [PitchClass; 12] = [4, 5, 7, 1, 6, 3, 8, 2, 11, 0, 9, 10];

    fn voice(low: u8, high: u8, max_chord: u8) -> Voice {
        Voice {
            pcs: ROW.to_vec(),
            low,
            high,
            max_chord,
            max_sounding: 6,
        }
    }

    /// Another voice holding pitch class `pc` on slots `a..b`.
    fn hold(fixed: &mut Fixed, pc: PitchClass, a: usize, b: usize) {
        for j in a..b {
            fixed.blocked[j] |= 1 << pc;
            fixed.sounding[j] += 1;
        }
    }

    /// A bar of 4/4 in sixteenths, four positions asked (E F G C#), the rest of the
    /// statement owed later in the section (tail 8, which needs 8 more slots), so the
    /// four must end by slot 24 of 32; the bass holds F on slots 4..8.
    fn bar() -> Line {
        let mut fixed = Fixed::none(32);
        hold(&mut fixed, 5, 4, 8);
        Line::new(&voice(60, 81, 2), 0, 4, 8, 0, 32, (1, 2), &fixed).expect("fits")
    }

    #[test]
    fn a_clean_line_is_admitted_note_by_note() {
        let line = bar();
        // E4 at slot 1 for 2, rest, F5 from slot 9 (after the bass's F), G4, C#5.
        assert!(line.admits(&["E4@1>2", "F5@9>4", "G4@13>2", "C#5@16>1"]));
        // Flat spellings, the top of the register and a dyad are rules too.
        assert!(line.admits(&["E5@3>1", "F4@9>1", "G5+Db5@20>5"]));
        // Touching is not overlapping: a note may start where the last ended.
        assert!(line.admits(&["E4@1>4", "F4@9>1", "G4@10>1", "C#4@11>1"]));
    }

    #[test]
    fn the_rules_refuse_a_collision_an_order_an_overlap_and_a_register() {
        let line = bar();
        // F sounds in the bass on slots 5-8 (1-based): an F starting at 6, or one
        // starting at 3 and lasting into slot 5, collides.
        assert!(!line.admits(&["E4@1>2", "F5@6>2", "G4@13>2", "C#5@16>1"]));
        assert!(!line.admits(&["E4@1>2", "F5@3>3", "G4@13>2", "C#5@16>1"]));
        // Out of row order: G before F.
        assert!(!line.admits(&["E4@1>2", "G4@9>2", "F5@13>2", "C#5@16>1"]));
        // F starts before E ends: the voice would overlap itself.
        assert!(!line.admits(&["E4@1>4", "F4@3>1", "G4@10>1", "C#4@11>1"]));
        // E3 lies below the register (C4-A5), E6 above it.
        assert!(!line.admits(&["E3@1>2", "F5@9>4", "G4@13>2", "C#5@16>1"]));
        assert!(!line.admits(&["E6@1>2", "F5@9>4", "G4@13>2", "C#5@16>1"]));
        // Past the room the rest of the statement needs: C# ending at slot 26 leaves
        // 6 slots for 8 positions, even as dyads... 8 positions as 4 dyads need 4.
        assert!(line.admits(&["E4@1>2", "F5@9>4", "G4@13>2", "C#5@16>12"]));
        assert!(!line.admits(&["E4@1>2", "F5@9>4", "G4@13>2", "C#5@16>14"]));
        // A chord of three: the texture allows two.
        assert!(!line.admits(&["E4+F4+G4@1>2", "C#5@16>1"]));
        // Too few notes, or one too many.
        assert!(!line.admits(&["E4@1>2", "F5@9>4", "G4@13>2"]));
        assert!(!line.admits(&["E4@1>2", "F5@9>4", "G4@13>2", "C#5@16>1", "F#4@18>1"]));
        // Numbers are written plainly.
        assert!(!line.admits(&["E4@01>2", "F5@9>4", "G4@13>2", "C#5@16>1"]));
    }

    #[test]
    fn grammar_membership_and_count_are_one_language() {
        // Naturals only (E F G), so every pitch has one spelling and the grammar's
        // string count is the line's answer count. Register E4-G5, 8 slots, G held
        // elsewhere on slots 2..4, the voice free from slot 1.
        let mut fixed = Fixed::none(8);
        hold(&mut fixed, 7, 2, 4);
        let line = Line::new(&voice(64, 79, 2), 0, 3, 0, 1, 8, (1, 2), &fixed).expect("fits");
        let g = format!("root ::= v0\n{}", line.gbnf("v0", "S: "));
        let language = Language::new(&g).expect("a finite grammar");
        assert!(
            (language.bits() - line.bits()).abs() < 1e-9,
            "grammar {} bits, line {} bits",
            language.bits(),
            line.bits()
        );
        // Every draw from the grammar is admitted.
        let mut rng = fastrand::Rng::with_seed(9);
        for _ in 0..2000 {
            let text = language.sample(&mut rng);
            let tokens: Vec<&str> = text
                .trim_end()
                .strip_prefix("S: ")
                .expect("the voice's name")
                .split(' ')
                .collect();
            assert!(line.admits(&tokens), "{text}");
        }
        // And nothing else: every candidate answer (any of E F G in 55..84, onsets
        // 1-10, lengths 1-9, singles and dyads), counted where `admits` takes it.
        let names: Vec<String> = (55..84u8)
            .filter(|m| [4, 5, 7].contains(&(m % 12)))
            .map(|m| {
                super::super::constraint::pitch_name(
                    m,
                    cantus_music::Spelling::sharp_default(m % 12),
                )
            })
            .collect();
        let timed = |pitch: &str| -> Vec<String> {
            (1..=10)
                .flat_map(|s| (1..=9).map(move |d| (s, d)))
                .map(|(s, d)| format!("{pitch}@{s}>{d}"))
                .collect()
        };
        let singles: Vec<String> = names.iter().flat_map(|n| timed(n)).collect();
        let dyads: Vec<String> = names
            .iter()
            .flat_map(|a| names.iter().map(move |b| format!("{a}+{b}")))
            .flat_map(|p| timed(&p))
            .collect();
        // A prefix of `k` positions is worth extending only if the line cut to `k`
        // takes it (a whole answer's prefix always is).
        let prefix_ok =
            |tokens: &[&str], k: u8| line.clone().cut(k).is_some_and(|l| l.admits(tokens));
        let mut admitted = 0u64;
        for a in singles.iter().chain(&dyads) {
            let ka: u8 = if a.contains('+') { 2 } else { 1 };
            if !prefix_ok(&[a], ka) {
                continue;
            }
            for b in singles.iter().chain(&dyads) {
                let kb: u8 = if b.contains('+') { 2 } else { 1 };
                match ka + kb {
                    3 => admitted += u64::from(line.admits(&[a, b])),
                    2 if prefix_ok(&[a, b], 2) => {
                        admitted +=
                            singles.iter().filter(|c| line.admits(&[a, b, c])).count() as u64;
                    }
                    _ => {}
                }
            }
        }
        assert!(
            ((admitted as f64).log2() - line.bits()).abs() < 1e-9,
            "admits accepts {admitted}, the line counts 2^{}",
            line.bits()
        );
    }

    #[test]
    fn a_line_that_cannot_fit_is_none_and_one_cut_short_keeps_room_for_the_rest() {
        // Twelve positions in eleven slots: no way, even... dyads make it six events.
        assert!(Line::new(&voice(60, 81, 1), 0, 12, 0, 0, 11, (1, 1), &Fixed::none(11)).is_none());
        assert!(Line::new(&voice(60, 81, 2), 0, 12, 0, 0, 11, (1, 2), &Fixed::none(11)).is_some());
        // Asking for 6 of 12 positions in 16 slots leaves the last 6 six slots.
        let line = Line::new(&voice(60, 81, 1), 0, 12, 0, 0, 16, (1, 1), &Fixed::none(16))
            .unwrap()
            .cut(6)
            .unwrap();
        assert!(line.admits(&[
            "E4@1>1", "F4@2>1", "G4@3>1", "C#5@4>1", "F#4@5>1", "D#4@6>5"
        ]));
        assert!(!line.admits(&[
            "E4@1>1", "F4@2>1", "G4@3>1", "C#5@4>1", "F#4@5>1", "D#4@6>6"
        ]));
    }

    #[test]
    fn bits_count_octaves_onsets_and_lengths() {
        // One note of E in a register holding two Es (E4, E5), on 4 slots: onset s and
        // length d with s + d <= 4: 4 + 3 + 2 + 1 = 10 placements, 2 pitches: 20.
        let line = Line::new(&voice(64, 76, 1), 0, 1, 0, 0, 4, (1, 1), &Fixed::none(4)).unwrap();
        assert!(
            (line.bits() - 20f64.log2()).abs() < 1e-12,
            "{}",
            line.bits()
        );
        // C# has two spellings in each of its octaves, counted once: C#5/Db5 only.
        let mut v = voice(64, 76, 1);
        v.pcs = vec![1; 12];
        let line = Line::new(&v, 0, 1, 0, 0, 4, (1, 1), &Fixed::none(4)).unwrap();
        assert!(
            (line.bits() - 10f64.log2()).abs() < 1e-12,
            "{}",
            line.bits()
        );
    }
}
