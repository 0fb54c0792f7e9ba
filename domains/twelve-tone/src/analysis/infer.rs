//! Finding the row when none is given, and naming it.
//!
//! Candidates are every run of twelve distinct pitch classes in a row — within one
//! voice (immediate repetitions collapsed, a chord read low to high) or across the
//! whole texture in onset order — and the 71 historical rows, each kept once up to
//! its 48 forms. Candidates are ranked by a cheap fit: how many consecutive
//! three-note groups of the voices and of the texture are consecutive in some form of
//! the row (about a third of all ordered triples are, for a typical row; nearly all
//! of a serial piece's are, for its own row). The best few are then analysed in
//! full and the one explaining the most notes wins — notes in complete statements
//! counting twice, since any texture holds stretches that read as most of some form
//! but only serial music is made of whole statements: the row is the ordering that
//! explains the most of the piece. Where statements sound together interleaved note
//! by note (a canon whose strands alternate, two notes at each onset), no voice and
//! no texture order follows one strand; so the rows that best fit the three-note
//! groups taking one note from each of three consecutive onsets of at most two notes
//! (each strand is one of them) are analysed too.
//!
//! A row that no voice and no stretch of the texture states in order, and that is
//! not a historical row, is not found this way.

use super::texture::Texture;
use crate::row::{Convention, HistoricalRow, PitchClass, Row, historical_rows};
use cantus_music::Score;

/// Candidates analysed in full: the best by the lines' fit …
pub(crate) const ANALYSED: usize = 4;
/// … and the best by the onsets' fit, when not among those.
pub(crate) const ANALYSED_BY_ONSETS: usize = 2;
/// Runs of twelve taken per sequence (each voice, the texture).
const RUNS_PER_SEQUENCE: usize = 24;

/// A row to try.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    pub row: Row,
    pub historical: Option<&'static HistoricalRow>,
    /// How much better than chance the piece's consecutive triples fit the row's forms.
    pub fit: i64,
    /// The same for the triples across consecutive onsets of one or two notes.
    pub fit_onsets: i64,
}

/// What candidates are read from and scored on: the pitch-class lines (one per voice,
/// and the texture's tones in onset order) and the pitch classes of each onset.
pub(crate) struct Sequences {
    pub lines: Vec<Vec<PitchClass>>,
    pub onsets: Vec<Vec<PitchClass>>,
}

/// The sequences of a piece (see [`Sequences`]).
pub(crate) fn sequences(score: &Score, tex: &Texture) -> Sequences {
    let onsets = tex
        .blocks
        .iter()
        .enumerate()
        .map(|(b, &first)| {
            let end = tex
                .blocks
                .get(b + 1)
                .copied()
                .unwrap_or(tex.tones.len() as u32);
            (first..end).map(|t| tex.tones[t as usize].pc).collect()
        })
        .collect();
    Sequences {
        lines: lines(score, tex),
        onsets,
    }
}

fn lines(score: &Score, tex: &Texture) -> Vec<Vec<PitchClass>> {
    let mut out = Vec::with_capacity(score.voices.len() + 1);
    for voice in &score.voices {
        let mut seq: Vec<PitchClass> = Vec::with_capacity(voice.events.len());
        for e in &voice.events {
            for p in &e.pitches {
                push_collapsed(&mut seq, p.midi % 12);
            }
        }
        out.push(seq);
    }
    let mut texture = Vec::with_capacity(tex.tones.len());
    for t in &tex.tones {
        push_collapsed(&mut texture, t.pc);
    }
    out.push(texture);
    out
}

fn push_collapsed(seq: &mut Vec<PitchClass>, pc: PitchClass) {
    if seq.last() != Some(&pc) {
        seq.push(pc);
    }
}

/// Every candidate, best fit first (ties: historical rows first, then in the order
/// found).
pub(crate) fn candidates(sequences: &Sequences) -> Vec<Candidate> {
    let mut keys: Vec<[PitchClass; 12]> = Vec::new();
    let mut out: Vec<Candidate> = Vec::new();
    let mut add = |row: Row, historical: Option<&'static HistoricalRow>| {
        let key = canonical(&row);
        if !keys.contains(&key) {
            keys.push(key);
            out.push(Candidate {
                row,
                historical,
                fit: 0,
                fit_onsets: 0,
            });
        }
    };
    for h in historical_rows() {
        add(h.row, Some(h));
    }
    for seq in &sequences.lines {
        for run in runs(seq).into_iter().take(RUNS_PER_SEQUENCE) {
            if let Ok(row) = Row::new(&run) {
                add(row, None);
            }
        }
    }
    for c in &mut out {
        c.fit = fit(&c.row, &sequences.lines, &[]);
        c.fit_onsets = fit(&c.row, &[], &sequences.onsets);
    }
    let mut indexed: Vec<(usize, Candidate)> = out.into_iter().enumerate().collect();
    indexed.sort_by(|(i, a), (j, b)| {
        (b.fit, b.historical.is_some(), std::cmp::Reverse(*i)).cmp(&(
            a.fit,
            a.historical.is_some(),
            std::cmp::Reverse(*j),
        ))
    });
    indexed.into_iter().map(|(_, c)| c).collect()
}

/// The candidates to analyse in full: the first [`ANALYSED`] (best by the lines'
/// fit), then the [`ANALYSED_BY_ONSETS`] best by the onsets' fit not among them.
pub(crate) fn analysed(candidates: &[Candidate]) -> Vec<&Candidate> {
    let mut out: Vec<&Candidate> = candidates.iter().take(ANALYSED).collect();
    let mut by_onsets: Vec<(usize, &Candidate)> = candidates.iter().enumerate().collect();
    by_onsets.sort_by_key(|&(i, c)| (std::cmp::Reverse(c.fit_onsets), i));
    out.extend(
        by_onsets
            .into_iter()
            .filter(|&(i, c)| i >= ANALYSED && c.fit_onsets > 0)
            .map(|(_, c)| c)
            .take(ANALYSED_BY_ONSETS),
    );
    out
}

/// The historical row `row` is a form of, if any (the first by id).
pub(crate) fn name(row: &Row) -> Option<&'static HistoricalRow> {
    historical_rows().iter().find(|h| {
        !h.row
            .labels_of(&row.pcs(), Convention::ZeroCentred)
            .is_empty()
    })
}

/// The least of a row's 48 forms: equal for two rows exactly when each is a form of
/// the other.
fn canonical(row: &Row) -> [PitchClass; 12] {
    row.forms(Convention::ZeroCentred)
        .map(|(_, pcs)| pcs)
        .min()
        .unwrap_or_else(|| row.pcs())
}

/// Every window of twelve distinct consecutive pitch classes, in order.
fn runs(seq: &[PitchClass]) -> Vec<Vec<PitchClass>> {
    let mut out = Vec::new();
    let mut last_seen = [usize::MAX; 12];
    let mut start = 0;
    for (i, &pc) in seq.iter().enumerate() {
        let seen = last_seen[usize::from(pc % 12)];
        if seen != usize::MAX && seen >= start {
            start = seen + 1;
        }
        last_seen[usize::from(pc % 12)] = i;
        if i + 1 - start == 12 {
            out.push(seq[start..=i].to_vec());
            start += 1;
        }
    }
    out
}

/// How far more consecutive triples of the sequences are consecutive in a form of
/// `row` than chance would make them: hits minus the share of all ordered triples of
/// distinct pitch classes the row's forms hold, times the triples tried (scaled by
/// 1320, the number of such triples, to stay in integers). A symmetric row has half
/// as many distinct forms, so it must not be ranked by raw hits. The triples are the
/// `lines`' consecutive ones and, for three consecutive `onsets` of at most two
/// notes each, not all single, every choice of one note from each.
fn fit(row: &Row, lines: &[Vec<PitchClass>], onsets: &[Vec<PitchClass>]) -> i64 {
    let mut triples = vec![0u64; 1728 / 64];
    for (_, pcs) in row.forms(Convention::ZeroCentred) {
        for w in pcs.windows(3) {
            let i = triple_index(w[0], w[1], w[2]);
            triples[i / 64] |= 1 << (i % 64);
        }
    }
    let held: i64 = triples.iter().map(|w| i64::from(w.count_ones())).sum();
    let (mut hits, mut tried) = (0i64, 0i64);
    let mut count = |a: PitchClass, b: PitchClass, c: PitchClass| {
        if a == b || b == c || a == c {
            return;
        }
        tried += 1;
        let i = triple_index(a, b, c);
        if triples[i / 64] & (1 << (i % 64)) != 0 {
            hits += 1;
        }
    };
    for w in lines.iter().flat_map(|seq| seq.windows(3)) {
        if w[0] != w[2] {
            count(w[0], w[1], w[2]);
        }
    }
    for w in onsets.windows(3) {
        let sizes = w.iter().map(Vec::len);
        if sizes.clone().any(|n| n > 2) || sizes.clone().all(|n| n == 1) {
            continue;
        }
        for &a in &w[0] {
            for &b in &w[1] {
                for &c in &w[2] {
                    count(a, b, c);
                }
            }
        }
    }
    hits * 1320 - held * tried
}

fn triple_index(a: PitchClass, b: PitchClass, c: PitchClass) -> usize {
    usize::from(a % 12) * 144 + usize::from(b % 12) * 12 + usize::from(c % 12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_windows_of_twelve_distinct() {
        let seq: Vec<u8> = (0..12).chain([0, 1]).collect();
        let found = runs(&seq);
        assert_eq!(found.len(), 3);
        assert_eq!(found[1], (1..12).chain([0]).collect::<Vec<u8>>());
        assert!(runs(&[0, 1, 2, 0, 1, 2]).is_empty());
    }

    #[test]
    fn a_form_of_a_historical_row_is_named() {
        let op25 = crate::row::resolve("SchoenbergOp25").unwrap();
        let i3 = op25.row.form(
            crate::row::RowForm::new(crate::row::FormKind::I, 3),
            Convention::ZeroCentred,
        );
        let named = name(&Row::new(&i3).unwrap()).unwrap();
        assert_eq!(named.id, "SchoenbergOp25");
        assert_eq!(canonical(&op25.row), canonical(&Row::new(&i3).unwrap()));
    }
}
