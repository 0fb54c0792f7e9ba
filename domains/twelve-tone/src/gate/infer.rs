//! Reading the row from the piece itself, for a gate told no row
//! ([`super::SerialGate::inferring`]).
//!
//! The row is the first twelve distinct pitch classes, in order, of the first voice
//! that sounds all twelve. A voice that reaches twelve with single notes gives the
//! order outright. Otherwise the opening contains chords, and a chord does not say
//! in which order its pitch classes stand in the row: then every ordering of those
//! chords (up to [`MAX_READINGS`] of them) is tried, and the one under which most
//! statements of the piece (the first [`STATEMENTS_TRIED`] of each voice) are forms
//! of the row wins; ties go to the reading that orders each chord low to high.

use crate::row::{Convention, Row};
use cantus_music::Score;

/// Most orderings of the opening's chords tried.
const MAX_READINGS: usize = 5040;
/// Statements per voice that decide between readings.
const STATEMENTS_TRIED: usize = 8;

/// The row read from `score`, and the voice it was read from.
pub(crate) fn infer_row(score: &Score) -> Option<(Row, usize)> {
    let mut fallback: Option<(Vec<Vec<u8>>, usize)> = None;
    for (v, voice) in score.voices.iter().enumerate() {
        let mut seen = 0u16;
        // The pitch classes each event adds, low to high, until all twelve.
        let mut groups: Vec<Vec<u8>> = Vec::new();
        for e in &voice.events {
            let mut group = Vec::new();
            for p in &e.pitches {
                let pc = p.midi % 12;
                if seen & 1 << pc == 0 && seen.count_ones() < 12 {
                    seen |= 1 << pc;
                    group.push(pc);
                }
            }
            if !group.is_empty() {
                groups.push(group);
            }
            if seen.count_ones() == 12 {
                break;
            }
        }
        if seen.count_ones() < 12 {
            continue;
        }
        if groups.iter().all(|g| g.len() == 1) {
            let pcs: Vec<u8> = groups.concat();
            return Row::new(&pcs).ok().map(|row| (row, v));
        }
        fallback = fallback.or(Some((groups, v)));
    }
    let (groups, v) = fallback?;
    let readings = readings(&groups);
    let masks = statement_masks(score);
    let mut best: Option<(usize, Row)> = None;
    for pcs in readings {
        let Ok(row) = Row::new(&pcs) else {
            continue;
        };
        let fitting = fitting_statements(&row, &masks);
        if best.as_ref().is_none_or(|(most, _)| fitting > *most) {
            best = Some((fitting, row));
        }
    }
    best.map(|(_, row)| (row, v))
}

/// Every ordering of the groups' members (each group permuted, groups in order),
/// the low-to-high reading first; only that one if there are too many.
fn readings(groups: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let count = groups
        .iter()
        .map(|g| (1..=g.len()).product::<usize>())
        .try_fold(1usize, |acc, n| {
            acc.checked_mul(n).filter(|&c| c <= MAX_READINGS)
        });
    if count.is_none() {
        return vec![groups.concat()];
    }
    let mut out: Vec<Vec<u8>> = vec![Vec::new()];
    for group in groups {
        let orders = permutations(group);
        out = out
            .iter()
            .flat_map(|prefix| {
                orders.iter().map(move |order| {
                    let mut next = prefix.clone();
                    next.extend_from_slice(order);
                    next
                })
            })
            .collect();
    }
    out
}

/// All orderings of `items`, the given order first.
fn permutations(items: &[u8]) -> Vec<Vec<u8>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

/// The first statements of each voice, as (first position, pitch-class set) per
/// event, cut as the gate cuts them (see `segment.rs`).
fn statement_masks(score: &Score) -> Vec<Vec<(u8, u16)>> {
    let mut out = Vec::new();
    for voice in &score.voices {
        let mut current: Vec<(u8, u16)> = Vec::new();
        let (mut pos, mut prev, mut sounded) = (0u8, 0u16, 0u16);
        let mut taken = 0;
        for e in &voice.events {
            let m = e.pitches.iter().fold(0u16, |m, p| m | 1 << (p.midi % 12));
            let n = m.count_ones() as u8;
            if m == 0 || (pos > 0 && m == prev) {
                continue;
            }
            prev = m;
            let mut take = m;
            if pos + n > 12 {
                let fresh = m & !sounded;
                if fresh.count_ones() == u32::from(12 - pos) {
                    take = m & !fresh;
                }
                (pos, sounded) = (0, 0);
                current.clear();
            }
            current.push((pos, take));
            pos += take.count_ones() as u8;
            sounded |= take;
            if pos >= 12 {
                out.push(std::mem::take(&mut current));
                (pos, sounded) = (0, 0);
                taken += 1;
                if taken == STATEMENTS_TRIED {
                    break;
                }
            }
        }
    }
    out
}

/// How many of the statements are forms of `row`.
fn fitting_statements(row: &Row, statements: &[Vec<(u8, u16)>]) -> usize {
    let prefix: Vec<[u16; 13]> = row
        .forms(Convention::ZeroCentred)
        .map(|(_, pcs)| {
            let mut p = [0u16; 13];
            for (k, &pc) in pcs.iter().enumerate() {
                p[k + 1] = p[k] | 1 << pc;
            }
            p
        })
        .collect();
    statements
        .iter()
        .filter(|statement| {
            prefix.iter().any(|p| {
                statement.iter().all(|&(start, mask)| {
                    let (s, e) = (
                        usize::from(start),
                        usize::from(start) + mask.count_ones() as usize,
                    );
                    e <= 12 && p[e] ^ p[s] == mask
                })
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{FormKind, RowForm, resolve};
    use cantus_music::{Event, Pitch, Time, Voice};

    /// One voice stating `forms` of Op. 25, the first two pitch classes of each
    /// statement as one chord written high to low in the row's order.
    fn chorded(forms: &[RowForm]) -> Score {
        let row = resolve("SchoenbergOp25").unwrap().row;
        let mut events = Vec::new();
        let mut t = 0;
        for &form in forms {
            let pcs = row.form(form, Convention::ZeroCentred);
            // Row order is pcs[0], pcs[1]; written as a chord, pitch order may differ.
            events.push(Event::new(
                Time::from_integer(t),
                Time::from_integer(1),
                vec![Pitch::new(72 + pcs[0]), Pitch::new(60 + pcs[1])],
            ));
            t += 1;
            for &pc in &pcs[2..] {
                events.push(Event::new(
                    Time::from_integer(t),
                    Time::from_integer(1),
                    vec![Pitch::new(60 + pc)],
                ));
                t += 1;
            }
        }
        Score {
            voices: vec![Voice {
                name: "V".into(),
                events,
                ..Voice::default()
            }],
            ..Score::default()
        }
    }

    #[test]
    fn the_chord_order_that_makes_the_piece_serial_wins() {
        let forms = [
            RowForm::new(FormKind::P, 4),
            RowForm::new(FormKind::I, 9),
            RowForm::new(FormKind::R, 2),
        ];
        let (row, voice) = infer_row(&chorded(&forms)).unwrap();
        assert_eq!(voice, 0);
        let op25 = resolve("SchoenbergOp25").unwrap().row;
        // The inferred row is a form of Op. 25 (here P4 itself).
        assert!(
            !op25
                .labels_of(&row.pcs(), Convention::ZeroCentred)
                .is_empty(),
            "{row}"
        );
    }

    #[test]
    fn too_many_orderings_fall_back_to_low_to_high() {
        let groups = vec![vec![0, 1, 2, 3, 4, 5], vec![6, 7, 8, 9, 10, 11]];
        assert_eq!(readings(&groups), vec![(0..12).collect::<Vec<u8>>()]);
        assert_eq!(
            readings(&[vec![3, 1], vec![2]]),
            vec![vec![3, 1, 2], vec![1, 3, 2]]
        );
    }
}
