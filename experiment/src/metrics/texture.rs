//! What the metrics measure in a piece itself: collisions among overlapping event
//! pairs, and the pitch-class and interval-class distributions.

use cantus_music::Score;

/// Pairs of events of different voices that overlap in time, and how many of them
/// share a pitch class (a vertical collision).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Collisions {
    pub overlapping: u64,
    pub colliding: u64,
}

/// The collisions of `score`, each pair counted once.
pub fn collisions(score: &Score) -> Collisions {
    let mut c = Collisions::default();
    for (vi, voice) in score.voices.iter().enumerate() {
        for e in &voice.events {
            let pcs: u16 = e.pitches.iter().fold(0, |m, p| m | 1 << p.pc());
            for (_, o) in score.overlapping_others(vi, e).filter(|(u, _)| *u > vi) {
                c.overlapping += 1;
                if o.pitches.iter().any(|p| pcs & (1 << p.pc()) != 0) {
                    c.colliding += 1;
                }
            }
        }
    }
    c
}

/// A piece's pitch-class and melodic interval-class distributions.
#[derive(Clone, Debug, PartialEq)]
pub struct Distributions {
    /// 12 shares summing to 1: every pitch of every event.
    pub pitch_classes: Vec<f64>,
    /// 7 shares summing to 1 (classes 0..=6): between consecutive events of a voice,
    /// lowest pitch to lowest pitch. All zero when no voice has two events.
    pub interval_classes: Vec<f64>,
}

/// The distributions of `score`; `None` when it sounds no note.
pub fn distributions(score: &Score) -> Option<Distributions> {
    let mut pcs = vec![0.0; 12];
    let mut ics = vec![0.0; 7];
    for voice in &score.voices {
        let mut last: Option<u8> = None;
        for e in &voice.events {
            for p in &e.pitches {
                pcs[usize::from(p.pc())] += 1.0;
            }
            let Some(low) = e.pitches.iter().map(|p| p.midi).min() else {
                continue;
            };
            if let Some(prev) = last {
                let d = (i32::from(low) - i32::from(prev)).rem_euclid(12);
                ics[d.min(12 - d) as usize] += 1.0;
            }
            last = Some(low);
        }
    }
    let total: f64 = pcs.iter().sum();
    if total == 0.0 {
        return None;
    }
    let norm = |v: &mut Vec<f64>| {
        let s: f64 = v.iter().sum();
        if s > 0.0 {
            v.iter_mut().for_each(|x| *x /= s);
        }
    };
    norm(&mut pcs);
    norm(&mut ics);
    Some(Distributions {
        pitch_classes: pcs,
        interval_classes: ics,
    })
}

/// The piece of a record, read from the text grammar.
pub fn read_piece(text: &str) -> Option<Score> {
    cantus_music::grammar::parse(text, &cantus_music::grammar::ParseOptions::named("record"))
        .ok()
        .map(|p| p.score)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(text: &str) -> Score {
        read_piece(text).expect("a piece")
    }

    const HEADER: &str = "KEY: ? | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 1\nVOICES: A, B\n";

    #[test]
    fn collisions_count_overlapping_pairs_and_shared_pitch_classes() {
        // A: C4 (beats 1-2), D4 (3-4). B: C3 over beats 1-4 → two overlapping pairs,
        // one sharing a pitch class (C).
        let s = score(&format!(
            "{HEADER}@1 [-]\n  A: C4@1>8 D4@9>8\n  B: C3@1>16\n"
        ));
        assert_eq!(
            collisions(&s),
            Collisions {
                overlapping: 2,
                colliding: 1
            }
        );
    }

    #[test]
    fn distributions_of_a_crafted_piece() {
        let s = score(&format!(
            "{HEADER}@1 [-]\n  A: C4@1>4 E4@5>4 C5@9>8\n  B: G3@1>16\n"
        ));
        let d = distributions(&s).unwrap();
        assert_eq!(d.pitch_classes[0], 0.5); // C, C of four pitches
        assert_eq!(d.pitch_classes[4], 0.25);
        assert_eq!(d.pitch_classes[7], 0.25);
        // C4→E4 = 4 semitones, E4→C5 = 8 → class 4: both.
        assert_eq!(d.interval_classes[4], 1.0);
    }
}
