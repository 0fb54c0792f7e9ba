//! The online hard predicates of the twelve-tone domain.
//!
//! Each checks one candidate [`ToneEvent`](crate::ToneEvent) against the accepted material and the
//! voice's row cursor, and reports every violation it finds. The release gate
//! (`crate::gate`) enforces the same rules on a finished score by its own means,
//! without the cursors and without trusting tags; these predicates exist so the
//! engine can repair an event while the context that caused the problem is known.
//!
//! | id | rule |
//! |---|---|
//! | `TT-SCHEDULE` | the event states the voice's scheduled form from its cursor, inside its section, with a positive duration |
//! | `TT-ROW` | the event's pitch classes are exactly the tagged positions of the tagged form |
//! | `TT-REPEAT` | no pitch class recurs within a statement (immediate repetitions only as the spec's tremolo allowance) |
//! | `TT-OCTAVE` | no two pitches of one event share a pitch class |
//! | `TT-COLLISION` | no pitch class shared with an overlapping event of another voice |
//! | `TT-TEXTURE` | chord size, pitches sounding at once, one line per voice |
//! | `TT-REGISTER` | every pitch inside the voice's register |
//! | `TT-CROSSING` | the running crossed share stays within the spec's limit |

mod serial;
mod vertical;

pub use serial::{NoOctaveDoubling, NoPrematureRepetition, RowConsistency, ScheduleLockstep};
pub(crate) use vertical::peak_sounding;
pub use vertical::{InRegister, LimitedCrossing, NoCollision, TextureBounds};

use crate::domain::TwelveTone;
use cantus_framework::Verifier;

/// Every online predicate, in the order they are reported.
pub fn verifier() -> Verifier<TwelveTone> {
    Verifier::new()
        .with(ScheduleLockstep)
        .with(RowConsistency)
        .with(NoPrematureRepetition)
        .with(NoOctaveDoubling)
        .with(NoCollision)
        .with(TextureBounds)
        .with(InRegister)
        .with(LimitedCrossing)
}

/// Pitch-class names for messages.
pub(crate) fn pc_names(mask: u16) -> String {
    (0..12u8)
        .filter(|pc| mask & (1 << pc) != 0)
        .map(crate::row::note_name)
        .collect::<Vec<_>>()
        .join(", ")
}
