//! Planted canons whose strands interleave note by note: a leader stating a few row
//! forms one after another, a follower imitating it exactly (rhythm, durations) by
//! transposition, inversion, retrograde or retrograde inversion a slot later or half
//! a step later, the notes of both strands dealt to two or three hands by register or
//! at random, so no hand follows a strand. Where the strands meet on one pitch class
//! at one onset they sound one tone (often engineered: a follower form chosen so that
//! it meets the leader there), which both statements own. Some positions of both
//! strands are written as grace notes (the same positions, so the canon stays exact),
//! and a free voice may add its own statements in long notes.

use super::{Ev, Note, Planted, Working};
use cantus_music::{Meter, Score, Time, Voice};
use cantus_twelve_tone::row::{Convention, FormKind, FormTable, Row, RowForm};
use fastrand::Rng;
use std::collections::{BTreeMap, HashMap};

/// One planted canonic texture, and the row it is on.
pub fn planted(rng: &mut Rng) -> (Working, Row) {
    let mut pcs: Vec<u8> = (0..12).collect();
    rng.shuffle(&mut pcs);
    let row = Row::new(&pcs).expect("a permutation is a row");
    let table = FormTable::new(&row, Convention::ZeroCentred);
    // Times in units of a 32nd note: the strands move in sixteenths (dyads: the
    // follower a step behind, meeting the leader at every onset) or eighths
    // (alternation: the follower half a step behind); a free voice sounds between.
    let unit = Time::new(1, 8);
    let dyads = rng.bool();
    let step: i64 = if dyads { 2 } else { 4 };
    let delay: i64 = 2;
    let pairs = rng.usize(1..=3);
    let hands = rng.usize(2..=3);
    let free_voice = rng.bool();
    let mut statements: Vec<Planted> = Vec::new();
    // (onset in slots, duration in slots, midi, statement, position, grace)
    let mut notes: Vec<(i64, i64, u8, usize, u8, bool)> = Vec::new();
    let mut start = 0i64;
    let mut prev_leader_midi = 66u8;
    let (mut shared, mut graced) = (0, 0);
    for _ in 0..pairs {
        let f = RowForm::new(random_kind(rng), rng.u8(0..12));
        let fp = *table.pcs(f);
        // The follower's form: chosen to meet the leader on one pitch class (a shared
        // tone) at a random position when the strands make dyads, else at random.
        let kind = random_kind(rng);
        let meet = rng.usize(0..11);
        let g = if dyads && rng.u8(0..100) < 70 {
            // Follower position `meet` sounds with leader position `meet + 1`.
            let wanted = fp[meet + 1];
            (0..12u8)
                .map(|n| RowForm::new(kind, n))
                .find(|&g| table.pcs(g)[meet] == wanted)
                .unwrap_or(f)
        } else {
            RowForm::new(kind, rng.u8(0..12))
        };
        if g == f {
            continue;
        }
        let gp = *table.pcs(g);
        let (a, b) = (statements.len(), statements.len() + 1);
        for form in [f, g] {
            statements.push(Planted {
                form,
                missing: Vec::new(),
                next: None,
                elided: 0,
            });
        }
        // Grace positions: both strands write the same positions as grace notes.
        let graces: Vec<bool> = (0..12).map(|k| k < 11 && rng.u8(0..100) < 12).collect();
        let mut leader_midi = [0u8; 12];
        for k in 0..12 {
            leader_midi[k] = near(prev_leader_midi, fp[k], rng);
            prev_leader_midi = leader_midi[k];
        }
        for k in 0..12 {
            let onset = start + step * k as i64;
            let (on, dur, grace) = if graces[k] {
                (onset + step, 0, true)
            } else {
                (onset, step, false)
            };
            notes.push((on, dur, leader_midi[k], a, k as u8, grace));
            // The follower's note: the leader's own where they meet on a pitch class
            // at one onset (one tone), else a register of its own.
            let f_on = on + delay;
            let meets = dyads && k + 1 < 12 && gp[k] == fp[k + 1] && !graces[k] && !graces[k + 1];
            let midi = if meets {
                leader_midi[k + 1]
            } else {
                let mirror = 132i16 - i16::from(leader_midi[k]);
                near(u8::try_from(mirror.clamp(40, 90)).unwrap_or(66), gp[k], rng)
            };
            notes.push((f_on, dur, midi, b, k as u8, grace));
            shared += usize::from(meets);
            graced += usize::from(graces[k]);
        }
        start += step * 12 + delay + 2 * step;
    }
    let end = start;
    if free_voice {
        // A line in long notes, its own statements, under the canon and off its beats.
        let mut t = 1;
        let mut midi = 45u8;
        while t + 12 * 4 <= end + 8 {
            let f = RowForm::new(random_kind(rng), rng.u8(0..12));
            let id = statements.len();
            statements.push(Planted {
                form: f,
                missing: Vec::new(),
                next: None,
                elided: 0,
            });
            for (k, &pc) in table.pcs(f).iter().enumerate() {
                midi = near(midi, pc, rng).clamp(36, 55);
                midi = midi - (midi % 12) + pc;
                notes.push((t + 4 * k as i64, FREE, midi, id, k as u8, false));
            }
            t += 48;
        }
    }
    // Deal the notes to hands: a free voice's to the last hand, the rest by register
    // (above or below a split) or at random, and merge what meets in one hand at one
    // onset into a chord (one note for one pitch).
    let split = rng.u8(60..=72);
    let by_register = rng.bool();
    let voices: Vec<String> = (0..hands + usize::from(free_voice))
        .map(|h| format!("Hand {}", h + 1))
        .collect();
    let mut cells: BTreeMap<(usize, i64, i64, bool, usize), Vec<Note>> = BTreeMap::new();
    let mut grace_order: HashMap<(usize, i64, i64, bool, usize), usize> = HashMap::new();
    for (i, &(on, dur, midi, s, k, grace)) in notes.iter().enumerate() {
        let hand = if dur == FREE {
            hands
        } else if by_register {
            usize::from(midi >= split) % hands
        } else {
            rng.usize(0..hands)
        };
        // Grace notes of one strand stay separate events, in position order.
        let key = (hand, on, dur, grace, if grace { i } else { 0 });
        grace_order.entry(key).or_insert(i);
        let cell = cells.entry(key).or_default();
        cell.push(Note {
            midi,
            at: Some((s, k)),
        });
    }
    let mut events: Vec<(usize, Ev)> = cells
        .into_iter()
        .map(|((hand, on, dur, grace, _), notes)| {
            let order = notes
                .iter()
                .filter_map(|n| n.at.map(|a| a.1))
                .min()
                .unwrap_or(0);
            (
                usize::from(order),
                Ev {
                    voice: hand,
                    onset: unit * Time::from_integer(on),
                    duration: unit * Time::from_integer(dur),
                    notes,
                    grace,
                },
            )
        })
        .collect();
    // Grace notes before the note they lead to: by onset, grace first, then position.
    events.sort_by_key(|(order, e)| (e.onset, !e.grace, *order));
    let events: Vec<Ev> = events.into_iter().map(|(_, e)| e).collect();
    let meter = Meter::new(2, 4);
    let mut template = Score {
        meter,
        voices: voices.iter().map(Voice::new).collect(),
        ..Score::default()
    };
    template.bars = None;
    let mut w = Working {
        voices,
        template,
        events,
        statements,
        table,
        planted: HashMap::new(),
    };
    for _ in 0..statements_pairs(&w) {
        w.count("canon pair");
    }
    for _ in 0..shared {
        w.count("shared tone");
    }
    for _ in 0..graced {
        w.count("grace notes (both strands)");
    }
    if free_voice && w.statements.len() > 2 * statements_pairs(&w) {
        w.count("free voice");
    }
    (w, row)
}

/// Canon pairs planted (the statements before any free voice's, two by two).
fn statements_pairs(w: &Working) -> usize {
    let free = w
        .events
        .iter()
        .filter(|e| e.duration == Time::new(FREE, 8))
        .flat_map(|e| e.notes.iter().filter_map(|n| n.at.map(|a| a.0)))
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    (w.statements.len() - free) / 2
}

fn random_kind(rng: &mut Rng) -> FormKind {
    [FormKind::P, FormKind::I, FormKind::R, FormKind::RI][rng.usize(0..4)]
}

/// The MIDI pitch of class `pc` within a fourth of `midi` (either way, at random
/// when both are), kept in 45..=84.
fn near(midi: u8, pc: u8, rng: &mut Rng) -> u8 {
    let base = i16::from(midi) - i16::from(midi % 12) + i16::from(pc);
    let mut options: Vec<i16> = [base - 12, base, base + 12]
        .into_iter()
        .filter(|m| (45..=84).contains(m) && (m - i16::from(midi)).abs() <= 7)
        .collect();
    if options.is_empty() {
        options = [base - 12, base, base + 12]
            .into_iter()
            .filter(|m| (45..=84).contains(m))
            .collect();
    }
    u8::try_from(options[rng.usize(..options.len())]).unwrap_or(60)
}

/// How long a free voice's note lasts (in 32nds): no canon note lasts as long.
const FREE: i64 = 3;
