//! Row labels from the strict gate's own statements (never re-derived here).

use crate::gate::StatementSpan;
use cantus_music::Score;
use cantus_music::annotation::{Annotations, MarkKind};

/// `P0` (or `P0=R6` for a symmetric row, `?` for a broken statement) above each
/// statement's first note; with `positions`, each note's order positions.
///
/// A statement's label is the gate's ([`StatementSpan::label`]); an incomplete
/// statement that still fits more than two forms gets `…`. Positions count the
/// pitch classes each note adds to its statement, in the gate's segmentation: a
/// note re-sounding the previous note's pitch classes adds none and gets none.
pub fn row_labels(score: &Score, statements: &[StatementSpan], positions: bool) -> Annotations {
    let mut out = Annotations::new();
    for (i, st) in statements.iter().enumerate() {
        let Some(voice) = score.voices.get(st.voice) else {
            continue;
        };
        let label = if st.forms.len() > 2 && st.filled < 12 {
            "…".to_owned()
        } else {
            st.label()
        };
        out.push(st.voice, st.onset, MarkKind::Label(label));
        if !positions {
            continue;
        }
        let end = statements
            .get(i + 1)
            .filter(|next| next.voice == st.voice)
            .map_or(voice.events.len(), |next| next.first_event);
        let (mut count, mut seen, mut previous) = (0u8, 0u16, None);
        for event in voice.events.get(st.first_event..end).unwrap_or_default() {
            let pcs = event
                .pitches
                .iter()
                .fold(0u16, |set, p| set | 1 << (p.midi % 12));
            if previous == Some(pcs) {
                continue;
            }
            for _ in 0..(pcs & !seen).count_ones() {
                count = count.saturating_add(1);
                if count <= 12 {
                    out.push(st.voice, event.onset, MarkKind::Position(count));
                }
            }
            seen |= pcs;
            previous = Some(pcs);
        }
    }
    out
}
