//! An independent checker for the two rule families the release gate must never get
//! wrong: vertical collisions and serial order.
//!
//! It is written apart from the gate on purpose and shares only the score model
//! (`cantus_music::Score`) and plain data (a row as twelve integers): it does not use
//! the crate's row engine, tables or gate code. Where the gate is built for speed
//! (integer ticks, 48-bit candidate sets, a k-way sweep), this checker is built to be
//! obviously right: exact rational arithmetic, `BTreeSet`s of pitch classes, the 48
//! forms computed by its own few lines, and an O(n²) test of every pair of events of
//! different voices. When the two agree over thousands of pieces, each is evidence
//! for the other.
//!
//! The serial reading follows the gate's documented statement rules (see
//! `cantus_twelve_tone::gate`): events in onset order realise one order position per
//! distinct pitch class; an event with exactly the previous event's pitch classes
//! inside an open statement re-sounds them (a repetition that takes no position); a
//! chord that does not fit in its statement's remaining positions cuts it (and if its
//! new pitch classes exactly fill the rest, the others open the next statement, else
//! all of it does); a statement breaks at the first event after which no form fits.

#![allow(dead_code)]

use cantus_music::{Event, Score, Time};
use std::collections::BTreeSet;

/// One thing the checker found, located like the gate's violations.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The gate's predicate id for the same rule.
    pub rule: &'static str,
    pub voice: String,
    pub bar: u32,
    pub onset: Time,
}

/// The 48 forms of `row` (P, I, R and RI at all 12 transpositions). Labels do not
/// matter here: only which pitch sequences are forms.
pub fn forms(row: [u8; 12]) -> Vec<[u8; 12]> {
    let mut out = Vec::with_capacity(48);
    for n in 0..12u8 {
        let mut prime = [0u8; 12];
        let mut inversion = [0u8; 12];
        for i in 0..12 {
            let step = (row[i] + 12 - row[0]) % 12;
            prime[i] = (n + step) % 12;
            inversion[i] = (n + 12 - step) % 12;
        }
        let mut retrograde = prime;
        retrograde.reverse();
        let mut retro_inversion = inversion;
        retro_inversion.reverse();
        out.extend([prime, inversion, retrograde, retro_inversion]);
    }
    out
}

fn bar_of(score: &Score, onset: Time) -> u32 {
    let bar = Time::new(4 * i64::from(score.meter.num), i64::from(score.meter.den));
    let index = (onset / bar).floor().to_integer();
    u32::try_from(index + 1).unwrap_or(1).max(1)
}

fn pcs(e: &Event) -> BTreeSet<u8> {
    e.pitches.iter().map(|p| p.midi % 12).collect()
}

fn finding(score: &Score, rule: &'static str, voice: usize, e: &Event) -> Finding {
    Finding {
        rule,
        voice: score.voices[voice].name.clone(),
        bar: bar_of(score, e.onset),
        onset: e.onset,
    }
}

/// Every pair of events of different voices that sound together for a positive time
/// and share a pitch class, located at the later-starting event (at the higher voice
/// index when both start together), one finding per pair. Sorted.
pub fn collisions(score: &Score) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, upper) in score.voices.iter().enumerate() {
        for (j, lower) in score.voices.iter().enumerate().skip(i + 1) {
            for a in &upper.events {
                for b in &lower.events {
                    let together = a.onset < b.onset + b.duration && b.onset < a.onset + a.duration;
                    if !together || pcs(a).is_disjoint(&pcs(b)) {
                        continue;
                    }
                    if a.onset > b.onset {
                        out.push(finding(score, "TT-COLLISION", i, a));
                    } else {
                        out.push(finding(score, "TT-COLLISION", j, b));
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// A statement being read: the pitch-class sets it has so far and where each sits.
struct Statement {
    first: usize,
    items: Vec<(usize, BTreeSet<u8>)>,
    sounded: BTreeSet<u8>,
    filled: usize,
    broken: bool,
}

impl Statement {
    fn new(first: usize) -> Statement {
        Statement {
            first,
            items: Vec::new(),
            sounded: BTreeSet::new(),
            filled: 0,
            broken: false,
        }
    }

    /// Whether some form holds every item's pitch classes at the item's positions.
    fn fits_some(&self, forms: &[[u8; 12]]) -> bool {
        forms.iter().any(|form| {
            self.items.iter().all(|(start, set)| {
                let window: BTreeSet<u8> =
                    form[*start..*start + set.len()].iter().copied().collect();
                window == *set
            })
        })
    }
}

/// Serial-order findings (`TT-ROW`, `TT-REPEAT`, `TT-ROW-COMPLETE`) of every voice
/// against `row`, as the strict gate should report them. Sorted.
pub fn serial(score: &Score, row: [u8; 12]) -> Vec<Finding> {
    let forms = forms(row);
    let mut out = Vec::new();
    for (v, voice) in score.voices.iter().enumerate() {
        let mut events: Vec<&Event> = voice.events.iter().collect();
        events.sort_by_key(|e| e.onset);
        let mut open: Option<Statement> = None;
        let mut previous: Option<BTreeSet<u8>> = None;
        for (k, e) in events.iter().enumerate() {
            let set = pcs(e);
            if set.is_empty() {
                continue;
            }
            let is_open = open.as_ref().is_some_and(|s| s.filled > 0);
            if is_open && previous.as_ref() == Some(&set) {
                out.push(finding(score, "TT-REPEAT", v, e));
                continue;
            }
            // The part of the event its statement takes: all of it, unless it straddles.
            let whole = set.clone();
            let mut set = set;
            if let Some(s) = &open
                && s.filled + set.len() > 12
            {
                if !s.broken {
                    out.push(finding(score, "TT-ROW", v, e));
                }
                // Split where the statement ends if the new pitch classes fill it exactly.
                let new: BTreeSet<u8> = set.difference(&s.sounded).copied().collect();
                if new.len() == 12 - s.filled {
                    set = set.difference(&new).copied().collect();
                }
                open = None;
            }
            let s = open.get_or_insert_with(|| Statement::new(k));
            if !s.sounded.is_disjoint(&set) {
                out.push(finding(score, "TT-REPEAT", v, e));
            }
            s.items.push((s.filled, set.clone()));
            if !s.broken && !s.fits_some(&forms) {
                out.push(finding(score, "TT-ROW", v, e));
                s.broken = true;
            }
            s.sounded.extend(set.iter().copied());
            s.filled += set.len();
            if s.filled == 12 {
                open = None;
            }
            previous = Some(whole);
        }
        if let Some(s) = open {
            out.push(finding(score, "TT-ROW-COMPLETE", v, events[s.first]));
        }
    }
    out.sort();
    out
}

/// Every event with a pitch outside its voice's inclusive register `(low, high)`
/// (voices without one are unbounded), as `TT-REGISTER`. Sorted.
pub fn registers(score: &Score, registers: &[(u8, u8)]) -> Vec<Finding> {
    let mut out = Vec::new();
    for (v, voice) in score.voices.iter().enumerate() {
        let Some(&(low, high)) = registers.get(v) else {
            continue;
        };
        for e in &voice.events {
            if e.pitches.iter().any(|p| p.midi < low || p.midi > high) {
                out.push(finding(score, "TT-REGISTER", v, e));
            }
        }
    }
    out.sort();
    out
}
