//! The seeded disguises. Each is tried on a copy and kept only if the piece stays
//! unambiguous (two statements never sound one pitch class at one onset), so that
//! what was planted is the only right answer.

use super::{Ev, Note, Working};
use cantus_music::Time;
use cantus_twelve_tone::row::RowForm;
use fastrand::Rng;

/// Applies every kind of disguise to some statements of `w`.
pub fn disguise(w: &mut Working, rng: &mut Rng) {
    let n = w.statements.len();
    for s in 0..n {
        if rng.u8(0..100) < 25 {
            attempt(w, "elision", |w| elide(w, s, rng.u8(1..=2), rng.u64(..)));
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 20 {
            let count = rng.u8(1..=2);
            attempt(w, "incomplete", |w| leave_out(w, s, count, rng.u64(..)));
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 70 {
            attempt(w, "passed between voices", |w| {
                pass_between(w, s, rng.u64(..))
            });
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 30 {
            attempt(w, "chord", |w| chord(w, s, rng.u64(..)));
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 35 {
            let tremolo = rng.bool();
            let kind = if tremolo { "tremolo" } else { "repetition" };
            attempt(w, kind, |w| repeat(w, s, tremolo, rng.u64(..)));
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 35 {
            attempt(w, "octave doubling", |w| double(w, s, rng.u64(..)));
        }
    }
    for s in 0..n {
        if rng.u8(0..100) < 25 {
            attempt(w, "grace note", |w| grace(w, s, rng.u64(..)));
        }
    }
}

/// Runs `change` on a copy; keeps it if it applied and left the piece unambiguous.
fn attempt(w: &mut Working, kind: &'static str, change: impl FnOnce(&mut Working) -> bool) {
    let mut copy = w.clone();
    if change(&mut copy) && copy.is_unambiguous() {
        *w = copy;
        w.count(kind);
    }
}

/// Events holding only positions of statement `s`, by position.
fn own_events(w: &Working, s: usize) -> Vec<usize> {
    w.events_of(s)
        .into_iter()
        .filter(|&i| {
            w.events[i]
                .notes
                .iter()
                .all(|n| n.at.map(|a| a.0) == Some(s))
        })
        .collect()
}

fn single(w: &Working, i: usize) -> bool {
    w.events[i].notes.len() == 1
}

fn position(w: &Working, i: usize) -> u8 {
    w.events[i].notes[0].at.map_or(0, |a| a.1)
}

/// Re-pitches the statement after `s` in its voice so that it begins with `s`'s last
/// `m` pitch classes, and removes its own first `m` notes: `s`'s last notes now begin
/// it too.
fn elide(w: &mut Working, s: usize, m: u8, seed: u64) -> bool {
    let Some(next) = w.statements[s].next else {
        return false;
    };
    if w.statements[next].elided > 0 || w.statements[s].elided > 0 {
        return false;
    }
    let pcs = *w.table.pcs(w.statements[s].form);
    let tail: Vec<u8> = pcs[12 - usize::from(m)..].to_vec();
    let choices: Vec<RowForm> = RowForm::all()
        .filter(|&f| w.table.pcs(f)[..usize::from(m)] == tail[..])
        .collect();
    if choices.is_empty() {
        return false;
    }
    let form = choices[Rng::with_seed(seed).usize(..choices.len())];
    let own = own_events(w, s);
    let theirs = own_events(w, next);
    let last_single = own.len() >= usize::from(m)
        && own
            .iter()
            .rev()
            .take(usize::from(m))
            .all(|&i| single(w, i) && position(w, i) >= 12 - m);
    let first_single = theirs.len() >= usize::from(m)
        && theirs
            .iter()
            .take(usize::from(m))
            .all(|&i| single(w, i) && position(w, i) < m);
    if !last_single || !first_single {
        return false;
    }
    let new = *w.table.pcs(form);
    for e in &mut w.events {
        for n in &mut e.notes {
            if let Some((t, k)) = n.at
                && t == next
            {
                n.midi = nearest(n.midi, new[usize::from(k)]);
            }
        }
    }
    let mut drop: Vec<usize> = theirs[..usize::from(m)].to_vec();
    drop.sort_unstable();
    for &i in drop.iter().rev() {
        w.events.remove(i);
    }
    w.statements[next].form = form;
    w.statements[next].elided = m;
    true
}

/// The MIDI pitch of class `pc` nearest `midi`.
fn nearest(midi: u8, pc: u8) -> u8 {
    let base = i32::from(midi) - i32::from(midi % 12) + i32::from(pc);
    let best = [base - 12, base, base + 12]
        .into_iter()
        .filter(|m| (0..=127).contains(m))
        .min_by_key(|m| (m - i32::from(midi)).abs())
        .unwrap_or(base);
    u8::try_from(best).unwrap_or(midi)
}

/// Removes `count` single notes (not adjacent, neither the first nor the last two
/// positions) from statement `s`: it is left incomplete.
fn leave_out(w: &mut Working, s: usize, count: u8, seed: u64) -> bool {
    let mut rng = Rng::with_seed(seed);
    let skip_head = w.statements[s].elided + 1;
    let own = own_events(w, s);
    let mut options: Vec<usize> = own
        .iter()
        .copied()
        .filter(|&i| single(w, i) && (skip_head..=9).contains(&position(w, i)))
        .collect();
    rng.shuffle(&mut options);
    let mut chosen: Vec<usize> = Vec::new();
    for i in options {
        let k = position(w, i);
        if chosen.iter().all(|&j| position(w, j).abs_diff(k) > 1) {
            chosen.push(i);
        }
        if chosen.len() == usize::from(count) {
            break;
        }
    }
    if chosen.len() != usize::from(count) {
        return false;
    }
    let left_out: Vec<u8> = chosen.iter().map(|&i| position(w, i) + 1).collect();
    w.statements[s].missing.extend(left_out);
    w.statements[s].missing.sort_unstable();
    chosen.sort_unstable();
    for &i in chosen.iter().rev() {
        w.events.remove(i);
    }
    true
}

/// Cuts statement `s` into two or three segments and gives each after the first to
/// another voice.
fn pass_between(w: &mut Working, s: usize, seed: u64) -> bool {
    let mut rng = Rng::with_seed(seed);
    let voices = w.voices.len();
    let own = own_events(w, s);
    if voices < 2 || own.len() < 4 {
        return false;
    }
    let mut cuts: Vec<usize> = (0..rng.usize(1..=2))
        .map(|_| rng.usize(1..own.len()))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut voice = w.events[own[0]].voice;
    for (j, &i) in own.iter().enumerate() {
        if cuts.contains(&j) {
            let other = (voice + rng.usize(1..voices)) % voices;
            voice = other;
        }
        w.events[i].voice = voice;
    }
    true
}

/// Sounds two adjacent positions of statement `s` together as one chord.
fn chord(w: &mut Working, s: usize, seed: u64) -> bool {
    let own = own_events(w, s);
    let pairs: Vec<(usize, usize)> = own
        .windows(2)
        .map(|p| (p[0], p[1]))
        .filter(|&(a, b)| {
            let top = w.events[a]
                .notes
                .iter()
                .filter_map(|n| n.at)
                .map(|a| a.1)
                .max();
            let low = w.events[b]
                .notes
                .iter()
                .filter_map(|n| n.at)
                .map(|a| a.1)
                .min();
            top.zip(low).is_some_and(|(t, l)| t + 1 == l)
        })
        .collect();
    if pairs.is_empty() {
        return false;
    }
    let (a, b) = pairs[Rng::with_seed(seed).usize(..pairs.len())];
    let later = w.events[b].clone();
    let end = (later.onset + later.duration).max(w.events[a].onset + w.events[a].duration);
    let first = &mut w.events[a];
    first.duration = end - first.onset;
    first.notes.extend(later.notes);
    w.events.remove(b);
    true
}

/// Repeats a note of statement `s` at once (its duration split in two), or makes a
/// tremolo of it and the next position (four strokes over their joint span).
fn repeat(w: &mut Working, s: usize, tremolo: bool, seed: u64) -> bool {
    let own: Vec<usize> = own_events(w, s)
        .into_iter()
        .filter(|&i| single(w, i))
        .collect();
    if own.is_empty() {
        return false;
    }
    let mut rng = Rng::with_seed(seed);
    if tremolo {
        let pairs: Vec<(usize, usize)> = own
            .windows(2)
            .map(|p| (p[0], p[1]))
            .filter(|&(a, b)| {
                let (ea, eb) = (&w.events[a], &w.events[b]);
                ea.voice == eb.voice
                    && ea.onset + ea.duration == eb.onset
                    && position(w, a) + 1 == position(w, b)
            })
            .collect();
        if pairs.is_empty() {
            return false;
        }
        let (a, b) = pairs[rng.usize(..pairs.len())];
        let (ea, eb) = (w.events[a].clone(), w.events[b].clone());
        let quarter = (eb.onset + eb.duration - ea.onset) / Time::from_integer(4);
        let stroke = |k: i64, src: &Ev, first: bool| Ev {
            voice: ea.voice,
            onset: ea.onset + quarter * Time::from_integer(k),
            duration: quarter,
            notes: vec![Note {
                midi: src.notes[0].midi,
                at: if first { src.notes[0].at } else { None },
            }],
            grace: false,
        };
        let strokes = [
            stroke(0, &ea, true),
            stroke(1, &eb, true),
            stroke(2, &ea, false),
            stroke(3, &eb, false),
        ];
        let (lo, hi) = (a.min(b), a.max(b));
        w.events.remove(hi);
        w.events.remove(lo);
        w.events.extend(strokes);
        return true;
    }
    let i = own[rng.usize(..own.len())];
    let half = w.events[i].duration / Time::from_integer(2);
    let mut again = w.events[i].clone();
    w.events[i].duration = half;
    again.onset += half;
    again.duration = half;
    again.notes[0].at = None;
    w.events.push(again);
    true
}

/// Doubles a note of statement `s` an octave away, in the same event or in another
/// voice at the same onset.
fn double(w: &mut Working, s: usize, seed: u64) -> bool {
    let own = own_events(w, s);
    if own.is_empty() {
        return false;
    }
    let mut rng = Rng::with_seed(seed);
    let i = own[rng.usize(..own.len())];
    let note = w.events[i].notes[rng.usize(..w.events[i].notes.len())];
    let up = rng.bool();
    let Some(midi) = [up, !up]
        .into_iter()
        .map(|u| {
            if u {
                i16::from(note.midi) + 12
            } else {
                i16::from(note.midi) - 12
            }
        })
        .find(|m| (0..=127).contains(m))
        .and_then(|m| u8::try_from(m).ok())
    else {
        return false;
    };
    let extra = Note { midi, at: None };
    let voices = w.voices.len();
    if voices < 2 || rng.bool() {
        if w.events[i].notes.iter().any(|n| n.midi == midi) {
            return false;
        }
        w.events[i].notes.push(extra);
    } else {
        let e = &w.events[i];
        let voice = (e.voice + rng.usize(1..voices)) % voices;
        let copy = Ev {
            voice,
            onset: e.onset,
            duration: e.duration,
            notes: vec![extra],
            grace: false,
        };
        w.events.push(copy);
    }
    true
}

/// Writes a single note of statement `s` as a grace note before the next position
/// of `s` in the same voice (which must follow it, single, without a gap of any other
/// event of that voice): its onset becomes that note's, its duration none.
fn grace(w: &mut Working, s: usize, seed: u64) -> bool {
    let own: Vec<usize> = own_events(w, s)
        .into_iter()
        .filter(|&i| single(w, i) && !w.events[i].grace)
        .collect();
    let pairs: Vec<(usize, usize)> = own
        .windows(2)
        .map(|p| (p[0], p[1]))
        .filter(|&(a, b)| {
            let (ea, eb) = (&w.events[a], &w.events[b]);
            ea.voice == eb.voice
                && position(w, a) + 1 == position(w, b)
                && ea.onset < eb.onset
                && !w
                    .events
                    .iter()
                    .any(|e| e.voice == ea.voice && e.onset > ea.onset && e.onset < eb.onset)
        })
        .collect();
    if pairs.is_empty() {
        return false;
    }
    let (a, b) = pairs[Rng::with_seed(seed).usize(..pairs.len())];
    let onset = w.events[b].onset;
    let e = &mut w.events[a];
    e.onset = onset;
    e.duration = Time::from_integer(0);
    e.grace = true;
    // Before its note in the list, so it sounds first.
    if a > b {
        let moved = w.events.remove(a);
        w.events.insert(b, moved);
    }
    true
}
