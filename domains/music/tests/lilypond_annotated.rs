//! Annotations as a reader of the engraving sees them: labels and positions above
//! the note they name, remarks below it, colours on every tied part of a note,
//! ghosts in parentheses where a dropped event would have been, SVG attributes on
//! request; and the clear errors for marks that cannot be drawn.

use cantus_music::annotation::{Annotations, Colour, MarkKind};
use cantus_music::lilypond::{self, LilypondError, Options, mark_target};
use cantus_music::{Event, Meter, Pitch, Score, Voice, time};

fn two_bars() -> Score {
    let ev = |on, dur, keys: &[u8]| {
        Event::new(
            time(on, 1),
            time(dur, 1),
            keys.iter().map(|&k| Pitch::new(k)).collect(),
        )
    };
    Score {
        meter: Meter::COMMON,
        voices: vec![Voice {
            name: "Violin".into(),
            events: vec![ev(0, 2, &[67]), ev(2, 4, &[69, 72]), ev(6, 2, &[71])],
            ..Voice::default()
        }],
        ..Score::default()
    }
}

fn bars(ly: &str) -> Vec<&str> {
    ly.lines()
        .map(str::trim)
        .filter(|l| l.ends_with(" |"))
        .collect()
}

#[test]
fn labels_positions_and_remarks_sit_on_the_note_they_name() {
    let mut marks = Annotations::new();
    marks.push(0, time(0, 1), MarkKind::Label("P0".into()));
    marks.push(0, time(0, 1), MarkKind::Position(1));
    marks.push(0, time(2, 1), MarkKind::Position(3));
    marks.push(0, time(2, 1), MarkKind::Position(2));
    marks.push(0, time(6, 1), MarkKind::Remark("TT-REPEAT".into()));
    let ly = lilypond::write_annotated(&two_bars(), &marks, &Options::default()).expect("drawn");
    assert_eq!(
        bars(&ly),
        [
            "g'2^\\markup \\teeny \"1\"^\\markup \\bold \\small \"P0\" <a' c''>2^\\markup \\teeny \"2,3\"~ |",
            "<a' c''>2 b'2_\\markup \\with-color #(rgb-color 0.839 0.153 0.157) \\small \"TT-REPEAT\" |",
        ]
    );
}

#[test]
fn a_colour_covers_every_tied_part_and_is_defined_once() {
    let mut marks = Annotations::new();
    marks.push(0, time(2, 1), MarkKind::Colour(Colour::Orange));
    let ly = lilypond::write_annotated(&two_bars(), &marks, &Options::default()).expect("drawn");
    assert_eq!(ly.matches("cantusOrange = {").count(), 1, "{ly}");
    assert_eq!(
        bars(&ly),
        [
            "g'2 \\cantusOrange <a' c''>2~ |",
            "\\cantusOrange <a' c''>2 b'2 |"
        ]
    );
    assert!(!ly.contains("cantusRed"), "only used colours are defined");
}

#[test]
fn a_ghost_is_drawn_in_parentheses_in_a_voice_of_its_own() {
    let mut marks = Annotations::new();
    marks.push(
        0,
        time(1, 1),
        MarkKind::Ghost {
            pitches: vec![64],
            duration: time(1, 1),
        },
    );
    let ly = lilypond::write_annotated(&two_bars(), &marks, &Options::default()).expect("drawn");
    assert!(ly.contains("cantusGhost = {"), "{ly}");
    assert!(
        ly.contains("s4 \\cantusGhost \\parenthesize e'4 s2 |"),
        "the ghost overlaps the first note, so it gets a spacer voice: {ly}"
    );
}

#[test]
fn a_ghost_past_the_last_bar_is_clipped_to_it() {
    let mut marks = Annotations::new();
    marks.push(
        0,
        time(7, 1),
        MarkKind::Ghost {
            pitches: vec![60],
            duration: time(4, 1),
        },
    );
    marks.push(
        0,
        time(9, 1),
        MarkKind::Ghost {
            pitches: vec![60],
            duration: time(1, 1),
        },
    );
    let ly = lilypond::write_annotated(&two_bars(), &marks, &Options::default()).expect("drawn");
    assert_eq!(bars(&ly).len(), 4, "two bars, two LilyPond voices: {ly}");
    assert!(
        ly.contains("s2. \\cantusGhost \\parenthesize c'4 |"),
        "{ly}"
    );
}

#[test]
fn a_mark_off_every_onset_goes_to_the_note_sounding_then() {
    let score = two_bars();
    let voice = &score.voices[0];
    assert_eq!(mark_target(voice, time(0, 1)), Some(0));
    assert_eq!(mark_target(voice, time(3, 1)), Some(1), "sounding");
    assert_eq!(
        mark_target(voice, time(9, 1)),
        Some(2),
        "after the end: the last"
    );
    let later = Voice {
        name: "Late".into(),
        events: vec![Event::new(time(4, 1), time(1, 1), vec![Pitch::new(60)])],
        ..Voice::default()
    };
    assert_eq!(mark_target(&later, time(0, 1)), Some(0), "before: the next");
    assert_eq!(mark_target(&Voice::new("Empty"), time(0, 1)), None);
}

#[test]
fn event_ids_name_voice_and_onset_for_the_svg() {
    let ly = lilypond::write_annotated(
        &two_bars(),
        &Annotations::new(),
        &Options { event_ids: true },
    )
    .expect("drawn");
    assert!(ly.contains(
        "\\once \\override NoteHead.output-attributes = #'((class . \"cantus-event\") (data-voice . \"0\") (data-onset . \"2\")) <a' c''>2~ |"
    ), "{ly}");
    assert_eq!(
        ly.matches("cantus-event").count(),
        3,
        "the tied part gets none"
    );
}

#[test]
fn marks_that_cannot_be_drawn_are_errors_naming_the_voice() {
    let mut marks = Annotations::new();
    marks.push(3, time(0, 1), MarkKind::Label("P0".into()));
    let err = lilypond::write_annotated(&two_bars(), &marks, &Options::default())
        .expect_err("no voice 4");
    assert!(err.to_string().contains("voice 4"), "{err}");

    let mut empty = two_bars();
    empty.voices.push(Voice::new("Tacet"));
    let mut marks = Annotations::new();
    marks.push(1, time(0, 1), MarkKind::Label("P0".into()));
    let err = lilypond::write_annotated(&empty, &marks, &Options::default())
        .expect_err("no note in Tacet");
    assert!(
        matches!(&err, LilypondError::Annotation { voice, .. } if voice == "Tacet"),
        "{err:?}"
    );

    let mut marks = Annotations::new();
    marks.push(
        0,
        time(1, 5),
        MarkKind::Ghost {
            pitches: vec![60],
            duration: time(1, 1),
        },
    );
    let err = lilypond::write_annotated(&two_bars(), &marks, &Options::default())
        .expect_err("a quintuplet ghost");
    assert!(err.to_string().contains("grid"), "{err}");
}

#[test]
fn a_keyless_score_has_no_key_signature_and_a_keyed_one_keeps_it() {
    let ly = lilypond::write(&two_bars()).expect("drawn");
    assert!(!ly.contains("\\key"), "{ly}");
    let mut keyed = two_bars();
    keyed.key = Some(cantus_music::Key::from_fifths(2, cantus_music::Mode::Major));
    assert!(
        lilypond::write(&keyed)
            .expect("drawn")
            .contains("\\key d \\major")
    );
}

#[test]
fn a_numeral_sits_below_its_note_nearer_the_staff_than_a_remark() {
    let mut marks = Annotations::new();
    marks.push(0, time(0, 1), MarkKind::Numeral("I".into()));
    marks.push(0, time(6, 1), MarkKind::Remark("CH-doubling".into()));
    marks.push(0, time(6, 1), MarkKind::Numeral("V7".into()));
    let ly = lilypond::write_annotated(&two_bars(), &marks, &Options::default()).expect("drawn");
    assert_eq!(
        bars(&ly),
        [
            "g'2_\\markup \\small \"I\" <a' c''>2~ |",
            "<a' c''>2 b'2_\\markup \\small \"V7\"_\\markup \\with-color #(rgb-color 0.839 0.153 0.157) \\small \"CH-doubling\" |",
        ]
    );
}
