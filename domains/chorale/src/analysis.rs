//! A chorale cut into beats and sonorities, each beat labelled with its chord.
//!
//! A **slice** is a stretch of time in which no part changes: it begins at a beat
//! or at any note's onset. A **beat** is the meter's beat; its slices never cross
//! into the next beat, so a beat's slices and its chord are the same whether the
//! analysis holds the whole chorale or only the beats up to it. That is what lets
//! one rule serve the online verifier and the gate: a rule judges beat `b` through
//! an [`At`] view that shows nothing after `b` (see [`crate::rules`]).
//!
//! The analysis grows and shrinks at its end ([`Analysis::push_beat`],
//! [`Analysis::pop_beat`]), so the embedded search and the model's grammar try a
//! voicing by pushing one beat and judging it, not by re-reading the chorale.

use crate::chorale::{Chorale, Location, Note};
use crate::harmony::Chord;
use crate::harmony::label::{Sounding, label};
use crate::pitch::{Part, Tone};
use cantus_music::Time;
use std::ops::Range;

/// A stretch of time in which no part changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    pub start: Time,
    pub end: Time,
    /// What each part sounds (soprano first); `None` where it rests.
    pub tones: [Option<Tone>; 4],
    /// Whether a note of the part begins at `start`.
    pub attack: [bool; 4],
    /// The index of the sounding note in its part.
    pub note: [Option<usize>; 4],
}

impl Slice {
    /// The tone of `part`.
    pub fn tone(&self, part: Part) -> Option<Tone> {
        self.tones[part.index()]
    }
}

/// One beat: its slices, its chord, whether a phrase ends in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    /// Beat number from the start of the piece.
    pub number: i64,
    pub start: Time,
    pub slices: Range<usize>,
    /// `None` when nothing sounds at the beat's start.
    pub chord: Option<Chord>,
    /// A second chord later in the beat, from a bass note begun there (Bach's bass
    /// in quavers often changes the harmony on the half beat): its start and chord.
    /// Only where that sonority is a whole chord of its own — a major or minor
    /// triad, a dominant or diminished seventh, every tone a member, root and third
    /// sounding — on another root, and the beat's chord does not hold the new bass
    /// note (else that note is a passing or neighbour tone).
    pub closing: Option<(Time, Chord)>,
    /// The phrase (from 0) whose last soprano note ends in this beat: its cadence
    /// is judged here, once every chord under that note is known.
    pub phrase_end: Option<usize>,
}

impl Beat {
    /// The chord sounding at the end of the beat: the closing chord, else the beat's.
    pub fn last_chord(&self) -> Option<Chord> {
        self.closing.map(|(_, c)| c).or(self.chord)
    }

    /// The chord a note begun at `t` in this beat sounds against.
    pub fn chord_for(&self, t: Time) -> Option<Chord> {
        match self.closing {
            Some((from, c)) if t >= from => Some(c),
            _ => self.chord,
        }
    }
}

/// A chorale in beats and slices, whole or up to some beat.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub chorale: Chorale,
    pub slices: Vec<Slice>,
    pub beats: Vec<Beat>,
    /// Beat number of `beats[0]`.
    first: i64,
    /// How many beats the whole piece has (the analysis may hold fewer).
    total: usize,
    /// The phrase whose last soprano note ends in each beat (see
    /// [`Beat::phrase_end`]), read from the melody once when the analysis is
    /// opened: pushing and popping beats writes only the lower parts.
    phrase_ends: Vec<Option<usize>>,
}

impl Analysis {
    /// The analysis of the whole of `chorale`.
    pub fn new(chorale: Chorale) -> Analysis {
        let mut a = Analysis::open(chorale);
        while a.beats.len() < a.total {
            a.push_beat();
        }
        a
    }

    /// An analysis of `chorale` holding no beat yet; the piece's length is its
    /// soprano's.
    pub fn open(chorale: Chorale) -> Analysis {
        let (first, last) = chorale.beat_span().unwrap_or((0, -1));
        let total = usize::try_from(last - first + 1).unwrap_or(0);
        let mut phrase_ends = vec![None; total];
        for (k, &t) in chorale.phrase_ends.iter().enumerate() {
            let end = chorale
                .note_at(Part::Soprano, t)
                .map_or(t, |n| chorale.parts[0][n].end());
            let number = chorale
                .beat_number(end - Time::new(1, 1_000_000))
                .min(first + total as i64 - 1);
            if let Some(slot) = usize::try_from(number - first)
                .ok()
                .and_then(|i| phrase_ends.get_mut(i))
            {
                slot.get_or_insert(k);
            }
        }
        Analysis {
            chorale,
            slices: Vec::new(),
            beats: Vec::new(),
            first,
            total,
            phrase_ends,
        }
    }

    /// The phrase whose last soprano note ends in beat `i` (as [`Beat::phrase_end`]
    /// will say once the beat is written).
    pub fn phrase_end_at(&self, i: usize) -> Option<usize> {
        self.phrase_ends.get(i).copied().flatten()
    }

    /// How many beats the whole piece has.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Beat number of the `i`-th beat.
    pub fn number_of(&self, i: usize) -> i64 {
        self.first + i as i64
    }

    /// The index of the beat holding time `t`, if the piece has it.
    pub fn beat_index(&self, t: Time) -> Option<usize> {
        let n = self.chorale.beat_number(t) - self.first;
        usize::try_from(n).ok().filter(|&i| i < self.total)
    }

    /// Adds the next beat: its slices from the notes the chorale holds now, and
    /// its chord. Does nothing past the end of the piece.
    pub fn push_beat(&mut self) {
        let i = self.beats.len();
        if i >= self.total {
            return;
        }
        let c = &self.chorale;
        let number = self.first + i as i64;
        let start = c.beat_start(number);
        let end = start + c.beat;
        let mut cuts: Vec<Time> = vec![start];
        for part in &c.parts {
            let from = part.partition_point(|n| n.onset <= start);
            cuts.extend(
                part[from..]
                    .iter()
                    .take_while(|n| n.onset < end)
                    .map(|n| n.onset),
            );
        }
        cuts.sort();
        cuts.dedup();
        let first_slice = self.slices.len();
        for (k, &t) in cuts.iter().enumerate() {
            let until = cuts.get(k + 1).copied().unwrap_or(end);
            let mut s = Slice {
                start: t,
                end: until,
                tones: [None; 4],
                attack: [false; 4],
                note: [None; 4],
            };
            for p in Part::ALL {
                if let Some(n) = c.note_at(p, t) {
                    let note = c.parts[p.index()][n];
                    s.tones[p.index()] = Some(note.tone);
                    s.attack[p.index()] = note.onset == t;
                    s.note[p.index()] = Some(n);
                }
            }
            self.slices.push(s);
        }
        let phrase_end = self.phrase_end_at(i);
        let prev = self.beats.last().and_then(Beat::last_chord);
        let soundings = self.soundings(first_slice..self.slices.len(), start, end);
        let chord = label(&soundings, prev, c.key);
        let closing = chord.and_then(|ch| self.closing(first_slice, ch, end));
        self.beats.push(Beat {
            number,
            start,
            slices: first_slice..self.slices.len(),
            chord,
            closing,
            phrase_end,
        });
    }

    /// The closing chord of the beat whose slices begin at `first` (see
    /// [`Beat::closing`]).
    fn closing(&self, first: usize, chord: Chord, end: Time) -> Option<(Time, Chord)> {
        let bass = Part::Bass.index();
        let k = (first + 1..self.slices.len())
            .rev()
            .find(|&k| self.slices[k].attack[bass])?;
        let s = &self.slices[k];
        let new_bass = s.tones[bass]?;
        if chord.contains(new_bass.pc()) {
            return None;
        }
        let tones = self.soundings(k..self.slices.len(), s.start, end);
        let late = label(&tones, Some(chord), self.chorale.key)?;
        let all_members = tones.iter().all(|t| late.contains(t.tone.pc()));
        let has = |r: crate::harmony::Role| {
            late.pc_of(r)
                .is_some_and(|pc| tones.iter().any(|t| t.tone.pc() == pc))
        };
        let whole = has(crate::harmony::Role::Root) && has(crate::harmony::Role::Third);
        // A triad or a dominant or diminished seventh: other sevenths in a late
        // sonority are tones held over from the beat's chord.
        let kind = late.quality.is_consonant_triad()
            || matches!(
                late.quality,
                crate::harmony::Quality::Dominant7 | crate::harmony::Quality::Diminished7
            );
        (all_members && whole && kind && late.root != chord.root).then_some((s.start, late))
    }

    /// Removes the last beat.
    pub fn pop_beat(&mut self) {
        if let Some(b) = self.beats.pop() {
            self.slices.truncate(b.slices.start);
        }
    }

    /// The tones of a beat as the chord labeller reads them.
    fn soundings(&self, slices: Range<usize>, start: Time, end: Time) -> Vec<Sounding> {
        let c = &self.chorale;
        let beat = c.beat;
        let Some(first) = self.slices.get(slices.start) else {
            return Vec::new();
        };
        let bass = Part::ALL
            .iter()
            .rev()
            .copied()
            .find(|p| first.tones[p.index()].is_some());
        let mut out = Vec::new();
        for p in Part::ALL {
            let notes = &c.parts[p.index()];
            for s in &self.slices[slices.clone()] {
                let (Some(tone), Some(n)) = (s.tones[p.index()], s.note[p.index()]) else {
                    continue;
                };
                let on_beat = s.start == start;
                if !on_beat && !s.attack[p.index()] {
                    continue;
                }
                let note = notes[n];
                let within = note.end().min(end) - note.onset.max(start);
                let prev = n.checked_sub(1).map(|k| notes[k]);
                let prepared = note.onset < start
                    || prev.is_some_and(|q| q.end() == note.onset && q.tone.midi == tone.midi);
                let by_step = prev.is_some_and(|q| {
                    (1..=2).contains(&(i32::from(q.tone.midi) - i32::from(tone.midi)).abs())
                });
                out.push(Sounding {
                    tone,
                    on_beat,
                    prepared: on_beat && prepared,
                    by_step,
                    bass: on_beat && Some(p) == bass,
                    weight: weight_of(within, beat),
                });
            }
        }
        out
    }

    /// The view of beat `b` (what a rule judging it may see).
    pub fn at(&self, b: usize) -> At<'_> {
        At { a: self, b }
    }
}

fn weight_of(within: Time, beat: Time) -> f64 {
    let r = within / beat;
    *r.numer() as f64 / *r.denom() as f64
}

/// Beat `b` of an analysis and everything before it: what a rule judging `b` sees.
/// Nothing that begins after `b` is reachable through it.
#[derive(Clone, Copy)]
pub struct At<'a> {
    a: &'a Analysis,
    /// Index of the beat judged.
    pub b: usize,
}

impl<'a> At<'a> {
    pub fn chorale(&self) -> &'a Chorale {
        &self.a.chorale
    }

    /// The beat judged.
    pub fn beat(&self) -> &'a Beat {
        &self.a.beats[self.b]
    }

    /// Beat `i` (at most the judged one).
    pub fn beat_at(&self, i: usize) -> Option<&'a Beat> {
        (i <= self.b).then(|| &self.a.beats[i])
    }

    /// The beat before the judged one.
    pub fn previous(&self) -> Option<&'a Beat> {
        self.b.checked_sub(1).map(|i| &self.a.beats[i])
    }

    /// End of the judged beat: nothing at or after it is visible.
    pub fn horizon(&self) -> Time {
        self.beat().start + self.a.chorale.beat
    }

    /// Whether the judged beat is the last of the piece.
    pub fn is_last(&self) -> bool {
        self.b + 1 == self.a.total
    }

    /// The slices of beat `i` (at most the judged one).
    pub fn slices_of(&self, i: usize) -> &'a [Slice] {
        match self.beat_at(i) {
            Some(beat) => &self.a.slices[beat.slices.clone()],
            None => &[],
        }
    }

    /// The slices of the judged beat.
    pub fn slices(&self) -> &'a [Slice] {
        self.slices_of(self.b)
    }

    /// The slice before the first of beat `i`, if any (the last of the beat before).
    pub fn slice_before(&self, i: usize) -> Option<&'a Slice> {
        let beat = self.beat_at(i)?;
        beat.slices.start.checked_sub(1).map(|k| &self.a.slices[k])
    }

    /// Every slice up to the end of the judged beat, with its index.
    pub fn slices_until_now(&self) -> &'a [Slice] {
        &self.a.slices[..self.beat().slices.end]
    }

    /// The slice index range of the judged beat.
    pub fn slice_range(&self) -> Range<usize> {
        self.beat().slices.clone()
    }

    /// Slice `k` of the analysis (at most the last of the judged beat).
    pub fn slice(&self, k: usize) -> Option<&'a Slice> {
        (k < self.beat().slices.end).then(|| &self.a.slices[k])
    }

    /// The chord of beat `i` (at most the judged one).
    pub fn chord(&self, i: usize) -> Option<Chord> {
        self.beat_at(i).and_then(|b| b.chord)
    }

    /// Note `n` of `part`, if it begins before the horizon.
    pub fn note(&self, part: Part, n: usize) -> Option<&'a Note> {
        self.a.chorale.parts[part.index()]
            .get(n)
            .filter(|note| note.onset < self.horizon())
    }

    /// The note after note `n` of `part`, if it begins before the horizon.
    pub fn next_note(&self, part: Part, n: usize) -> Option<&'a Note> {
        self.note(part, n + 1)
    }

    /// The note before note `n` of `part`.
    pub fn prev_note(&self, part: Part, n: usize) -> Option<&'a Note> {
        n.checked_sub(1).and_then(|k| self.note(part, k))
    }

    /// The beat index holding time `t`.
    pub fn beat_index(&self, t: Time) -> Option<usize> {
        self.a.beat_index(t).filter(|&i| i <= self.b)
    }

    /// The place of `onset`, concerning `parts`.
    pub fn location(&self, onset: Time, parts: Vec<Part>) -> Location {
        Location::at(&self.a.chorale, onset, parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pitch::Tonality;
    use cantus_music::{Key, Meter, Mode, Pitch, time};

    fn note(on: i64, len: i64, name: &str) -> Note {
        let p = Pitch::parse(name).expect("pitch");
        Note {
            onset: time(on, 2),
            duration: time(len, 2),
            tone: Tone {
                midi: p.midi,
                spelling: p.spelling.expect("spelled"),
            },
        }
    }

    /// I – IV6 (with a passing E4 in the alto) – V under a held C5 then B4.
    fn chorale() -> Chorale {
        Chorale {
            title: None,
            key: Tonality::of(Key::from_fifths(0, Mode::Major)),
            meter: Meter::new(4, 4),
            beat: time(1, 1),
            parts: [
                vec![note(0, 4, "C5"), note(4, 2, "B4")],
                vec![
                    note(0, 2, "G4"),
                    note(2, 1, "F4"),
                    note(3, 1, "E4"),
                    note(4, 2, "D4"),
                ],
                vec![note(0, 2, "E4"), note(2, 2, "C4"), note(4, 2, "G3")],
                vec![note(0, 2, "C3"), note(2, 2, "A2"), note(4, 2, "G2")],
            ],
            phrase_ends: vec![time(2, 1)],
        }
    }

    #[test]
    fn beats_hold_their_slices_and_chords() {
        let a = Analysis::new(chorale());
        assert_eq!(a.total(), 3);
        assert_eq!(a.beats.len(), 3);
        let b1 = &a.beats[1];
        assert_eq!(a.slices[b1.slices.clone()].len(), 2, "F4 then E4 in beat 2");
        let held = &a.slices[b1.slices.start];
        assert_eq!(held.attack, [false, true, true, true]);
        let names: Vec<String> = a
            .beats
            .iter()
            .map(|b| b.chord.map_or("-".into(), |c| c.roman(a.chorale.key)))
            .collect();
        assert_eq!(names, ["I", "IV6", "V"]);
        assert_eq!(a.beats[2].phrase_end, Some(0));
        assert_eq!(a.beats[1].phrase_end, None);
    }

    #[test]
    fn a_view_shows_nothing_after_its_beat() {
        let a = Analysis::new(chorale());
        let at = a.at(0);
        assert_eq!(at.horizon(), time(1, 1));
        assert!(at.next_note(Part::Alto, 0).is_none(), "F4 begins at beat 2");
        assert!(a.at(1).next_note(Part::Alto, 0).is_some());
        assert_eq!(at.slices_of(1), &[] as &[Slice]);
        let mut grown = Analysis::open(chorale());
        grown.push_beat();
        grown.push_beat();
        grown.pop_beat();
        grown.push_beat();
        assert_eq!(grown.beats, a.beats[..2]);
        assert_eq!(grown.slices, a.slices[..a.beats[1].slices.end]);
    }
}
