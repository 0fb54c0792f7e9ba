//! Between twelve-tone events and the shared score model.
//!
//! A finished piece is a plain [`Score`]: one voice per spec voice, each event's row
//! tag written into [`cantus_music::Event::tag`] (`P0:1-3`). Reading it back gives the
//! events again, tags included where present — which only the relaxed gate trusts.

use crate::blueprint::Blueprint;
use crate::event::{Tag, ToneEvent};
use cantus_music::{Event, Pitch, Score, Time, Voice};

/// Builds the score of a blueprint from accepted events (any order).
pub fn to_score(plan: &Blueprint, events: impl IntoIterator<Item = ToneEvent>) -> Score {
    let mut voices: Vec<Voice> = plan
        .limits
        .voices
        .iter()
        .map(|v| Voice::new(v.name.clone()))
        .collect();
    for e in events {
        let Some(voice) = voices.get_mut(e.voice) else {
            continue;
        };
        let mut event = Event::new(
            e.onset,
            e.duration,
            e.pitches.iter().map(|&m| Pitch::new(m)).collect(),
        );
        event.tag = Some(e.tag.to_string());
        voice.events.push(event);
    }
    let mut score = Score {
        title: plan.title.clone(),
        key: None,
        meter: plan.meter,
        tempo: Some(Time::from_integer(i64::from(plan.tempo))),
        bars: Some(plan.bars),
        voices,
    };
    score.sort();
    score
}

/// A score's events as twelve-tone events with their tags, where a tag is present
/// and readable (`None` for the event otherwise).
pub fn tagged_events(score: &Score) -> Vec<(ToneEvent, bool)> {
    let mut out = Vec::with_capacity(score.event_count());
    for (voice, v) in score.voices.iter().enumerate() {
        for e in &v.events {
            let tag: Option<Tag> = e.tag.as_deref().and_then(|t| t.parse().ok());
            let pitches = e.pitches.iter().map(|p| p.midi).collect();
            let fallback = Tag {
                form: crate::row::RowForm::new(crate::row::FormKind::P, 0),
                start: 0,
                len: 1,
            };
            out.push((
                ToneEvent {
                    voice,
                    onset: e.onset,
                    duration: e.duration,
                    pitches,
                    tag: tag.unwrap_or(fallback),
                },
                tag.is_some(),
            ));
        }
    }
    out
}
