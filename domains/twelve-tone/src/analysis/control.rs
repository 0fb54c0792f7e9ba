//! The control a verdict is judged against: the same analysis on copies of the piece
//! with its pitch classes shuffled.
//!
//! Why: the calibration of `corpus/twelve-tone/` showed that in any chromatic texture
//! statements of *some* row are found everywhere. Free-atonal songs had about 88% of
//! their notes "explained by rows", as much after their pitch classes were shuffled,
//! and about 45% of their notes in complete statements, shuffled or not; a fixed
//! threshold called a third of them twelve-tone, and three of five bar-shuffled
//! copies of Webern's Op. 21. What a twelve-tone piece has that chance does not is
//! *order*: with its pitch classes permuted it loses its complete statements (Op. 21:
//! 94.5% of its notes in complete statements, its shuffled copies 28–66%). So the
//! verdict asks how far the piece's share in complete statements exceeds what the
//! same analysis reaches on the piece's own material put in random order.
//!
//! A copy keeps every event (voice, onset, duration, grace flag) and the piece's
//! multiset of pitch classes; the pitch classes of all its notes are permuted at
//! random over the whole piece ([`CONTROL_SEED`] + copy number, so a piece's control
//! is the same every run), and each note moves to the pitch of its new pitch class
//! nearest its old one (a fourth down to a tritone up), so register, density and
//! texture stay as written. Two notes of one chord never land on one pitch (the later
//! takes the nearest free octave), so a copy has as many notes as the piece.
//!
//! # Cost
//!
//! Each copy is one more analysis of the same size: the control multiplies the time
//! by `1 + copies` ([`CONTROL_COPIES`] = 3 by default, so four analyses). Above
//! [`CONTROL_MAX_NOTES`] notes the control is skipped and the report says why; the
//! verdict then rests on the share in complete statements alone.

use cantus_music::Score;

/// Shuffled copies analysed by default.
pub const CONTROL_COPIES: u8 = 3;

/// Most copies a caller may ask for (each one more analysis).
pub const MAX_CONTROL_COPIES: u8 = 16;

/// Copy `k` (1-based) is shuffled with seed `CONTROL_SEED + k`.
pub const CONTROL_SEED: u64 = 2900;

/// Most notes a piece may hold for its control to be computed. The 564-note
/// Schoenberg Op. 15 No. 3 took 1.3 s without the control and 3.5 s with it (release
/// build, loaded 2-core VM, reading the file included); one pass over 20,000 notes
/// takes about 9 s ([`super::MAX_ANALYSED_NOTES`]), so a piece at this limit takes
/// about 2 s a pass, some 10 s with its three copies. The longest twelve-tone works run
/// to a few thousand notes.
pub const CONTROL_MAX_NOTES: usize = 5_000;

/// `score` with the pitch classes of all its notes permuted (see the module docs).
pub(crate) fn shuffled(score: &Score, seed: u64) -> Score {
    let mut out = score.clone();
    let mut pcs: Vec<u8> = out
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .flat_map(|e| &e.pitches)
        .map(|p| p.midi % 12)
        .collect();
    fastrand::Rng::with_seed(seed).shuffle(&mut pcs);
    let mut next = pcs.into_iter();
    for voice in &mut out.voices {
        for event in &mut voice.events {
            let mut taken: Vec<u8> = Vec::with_capacity(event.pitches.len());
            for p in &mut event.pitches {
                let pc = next.next().unwrap_or(p.midi % 12);
                let midi = nearest(p.midi, pc, &taken);
                taken.push(midi);
                p.midi = midi;
                p.spelling = None;
            }
            event.normalise_pitches();
        }
    }
    out
}

/// The MIDI pitch of pitch class `pc` nearest `old` (a fourth below to a tritone
/// above first) not in `taken`; if every octave is taken, the nearest.
fn nearest(old: u8, pc: u8, taken: &[u8]) -> u8 {
    let cost = |c: u8| {
        let d = i16::from(c) - i16::from(old);
        let far = if (-5..=6).contains(&d) { 0 } else { 12 };
        (d.abs() + far, c)
    };
    let pitches = (pc % 12..128).step_by(12);
    pitches
        .clone()
        .filter(|c| !taken.contains(c))
        .min_by_key(|&c| cost(c))
        .or_else(|| pitches.min_by_key(|&c| cost(c)))
        .unwrap_or(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::{Event, Pitch, Time, Voice};

    fn piece() -> Score {
        let mut v = Voice::new("V");
        for k in 0..24i64 {
            let pitches = if k % 5 == 0 {
                vec![
                    Pitch::new(60 + (k % 12) as u8),
                    Pitch::new(72 + (k % 12) as u8),
                ]
            } else {
                vec![Pitch::new(55 + (k * 7 % 12) as u8)]
            };
            v.events.push(Event::new(
                Time::from_integer(k),
                Time::from_integer(1),
                pitches,
            ));
        }
        Score {
            voices: vec![v],
            ..Score::default()
        }
    }

    fn pcs(s: &Score) -> Vec<u8> {
        let mut out: Vec<u8> = s
            .voices
            .iter()
            .flat_map(|v| &v.events)
            .flat_map(|e| &e.pitches)
            .map(|p| p.midi % 12)
            .collect();
        out.sort_unstable();
        out
    }

    #[test]
    fn a_copy_keeps_rhythm_notes_and_pitch_classes_and_is_deterministic() {
        let p = piece();
        let a = shuffled(&p, CONTROL_SEED + 1);
        assert_eq!(a, shuffled(&p, CONTROL_SEED + 1));
        assert_ne!(a, shuffled(&p, CONTROL_SEED + 2));
        assert_eq!(pcs(&a), pcs(&p));
        for (x, y) in p.voices[0].events.iter().zip(&a.voices[0].events) {
            assert_eq!((x.onset, x.duration), (y.onset, y.duration));
            assert_eq!(x.pitches.len(), y.pitches.len());
        }
    }

    #[test]
    fn the_nearest_pitch_stays_close_and_avoids_the_chords_other_notes() {
        assert_eq!(nearest(60, 0, &[]), 60);
        assert_eq!(nearest(60, 6, &[]), 66);
        assert_eq!(nearest(60, 7, &[]), 55);
        assert_eq!(nearest(60, 0, &[60]), 48);
        assert_eq!(nearest(127, 11, &[]), 119);
        let all: Vec<u8> = (0..128).filter(|c| c % 12 == 0).collect();
        assert_eq!(nearest(61, 0, &all), 60);
    }
}
