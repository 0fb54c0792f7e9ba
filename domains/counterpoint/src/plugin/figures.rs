//! A species exercise's vertical intervals as figures above the counterpoint.

use crate::{ReadOptions, read_exercise};
use cantus_music::Score;
use cantus_music::annotation::{Annotations, MarkKind};

/// Above each counterpoint note, the interval number from the lower voice to the
/// upper (`3`, `5`, `8`, `10`, …; compounds kept, as in Fux). Nothing for a score
/// that does not read as an exercise.
pub fn interval_figures(score: &Score) -> Annotations {
    let mut out = Annotations::new();
    let Ok(reading) = read_exercise(score, &ReadOptions::default()) else {
        return out;
    };
    let ex = &reading.exercise;
    let Some(voice) = score.voice_index(&ex.counterpoint_voice) else {
        return out;
    };
    for (i, moment) in ex.moments.iter().enumerate() {
        let interval = ex.vertical(i);
        let figure = interval.steps.abs() + 1;
        out.push(voice, moment.onset, MarkKind::Label(figure.to_string()));
    }
    out
}
