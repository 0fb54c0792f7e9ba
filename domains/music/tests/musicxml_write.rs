//! What the MusicXML writer puts on the page: exact divisions, ties at
//! barlines, chords, dotted and tuplet values, layered voices, clefs, tempo,
//! and clear errors for scores MusicXML cannot hold. One small score is kept as
//! a reviewed snapshot of the whole document.

use cantus_music::musicxml::{self, MusicXmlError};
use cantus_music::{Event, Key, Letter, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};

fn score(meter: Meter, voices: Vec<Voice>) -> Score {
    Score {
        meter,
        voices,
        ..Score::default()
    }
}

/// `(onset, duration, MIDI numbers)` with times as `(numerator, denominator)`.
type Spec<'a> = ((i64, i64), (i64, i64), &'a [u8]);

fn voice(name: &str, events: &[Spec<'_>]) -> Voice {
    let mut v = Voice::new(name);
    for &(on, dur, midis) in events {
        v.events.push(Event::new(
            time(on.0, on.1),
            time(dur.0, dur.1),
            midis.iter().map(|&m| Pitch::new(m)).collect(),
        ));
    }
    v.sort();
    v
}

fn count(xml: &str, needle: &str) -> usize {
    xml.matches(needle).count()
}

#[test]
fn small_score_snapshot() {
    let mut melody = voice(
        "Melody",
        &[
            ((0, 1), (3, 2), &[67]),
            ((3, 2), (1, 2), &[69]),
            ((2, 1), (1, 3), &[71]),
            ((7, 3), (1, 3), &[72]),
            ((8, 3), (1, 3), &[74]),
            ((3, 1), (2, 1), &[64, 67, 72]),
        ],
    );
    melody.events[0].tag = Some("P0:1-3".into());
    melody.events[0].pitches[0].spelling = Some(Spelling {
        letter: Letter::G,
        alter: 0,
    });
    let bass = voice("Bass", &[((0, 1), (4, 1), &[48]), ((4, 1), (2, 1), &[43])]);
    let mut s = score(Meter::new(4, 4), vec![melody, bass]);
    s.title = Some("Snapshot & <friends>".into());
    s.key = Some(Key::from_fifths(0, Mode::Major));
    s.tempo = Some(time(96, 1));
    let xml = musicxml::write(&s).expect("writes");
    insta::assert_snapshot!("small_score", xml);
    assert_eq!(
        musicxml::read(&xml).expect("reads").voices[0].events.len(),
        6
    );
}

#[test]
fn divisions_are_the_least_common_multiple_needed() {
    let s = score(
        Meter::new(4, 4),
        vec![voice(
            "V",
            &[((0, 1), (1, 3), &[60]), ((1, 3), (1, 4), &[62])],
        )],
    );
    let xml = musicxml::write(&s).expect("writes");
    assert!(xml.contains("<divisions>12</divisions>"), "{xml}");
    let s = score(
        Meter::new(3, 8),
        vec![voice("V", &[((0, 1), (3, 2), &[60])])],
    );
    let xml = musicxml::write(&s).expect("writes");
    assert!(
        xml.contains("<divisions>2</divisions>"),
        "3/8 bars need eighths"
    );
    assert!(xml.contains("<type>quarter</type>") && xml.contains("<dot/>"));
}

#[test]
fn a_note_across_two_barlines_is_tied_through_three_measures() {
    let s = score(
        Meter::new(2, 4),
        vec![voice("V", &[((1, 1), (4, 1), &[60, 64])])],
    );
    let xml = musicxml::write(&s).expect("writes");
    // Pieces: beat 2 of bar 1, all of bar 2, beat 1 of bar 3; two pitches each.
    assert_eq!(count(&xml, "<tie type=\"start\"/>"), 4, "{xml}");
    assert_eq!(count(&xml, "<tie type=\"stop\"/>"), 4);
    assert_eq!(count(&xml, "<tied type=\"start\"/>"), 4);
    assert_eq!(count(&xml, "<chord/>"), 3);
    let back = musicxml::read(&xml).expect("reads");
    assert_eq!(
        back.voices[0].events.len(),
        1,
        "the ties merge back into one event"
    );
    assert_eq!(back.voices[0].events[0].duration, time(4, 1));
}

#[test]
fn awkward_durations_become_tied_standard_values() {
    // Five quarters inside a 6/4 bar: a whole note tied to a quarter.
    let s = score(
        Meter::new(6, 4),
        vec![voice("V", &[((0, 1), (5, 1), &[60])])],
    );
    let xml = musicxml::write(&s).expect("writes");
    assert!(xml.contains("<type>whole</type>") && xml.contains("<type>quarter</type>"));
    assert_eq!(count(&xml, "<tie type=\"start\"/>"), 1);
}

#[test]
fn tuplets_carry_time_modification_and_brackets() {
    let triplets = voice(
        "V",
        &[
            ((0, 1), (2, 3), &[60]),
            ((2, 3), (2, 3), &[62]),
            ((4, 3), (2, 3), &[64]),
        ],
    );
    let xml = musicxml::write(&score(Meter::new(2, 4), vec![triplets])).expect("writes");
    assert_eq!(count(&xml, "<actual-notes>3</actual-notes>"), 3, "{xml}");
    assert_eq!(count(&xml, "<normal-notes>2</normal-notes>"), 3);
    assert_eq!(count(&xml, "<tuplet type=\"start\""), 1);
    assert_eq!(count(&xml, "<tuplet type=\"stop\""), 1);
    let quintuplet = voice("V", &[((0, 1), (1, 5), &[60])]);
    let xml = musicxml::write(&score(Meter::new(1, 4), vec![quintuplet])).expect("writes");
    assert!(xml.contains("<actual-notes>5</actual-notes>"), "{xml}");
    assert!(xml.contains("<normal-notes>4</normal-notes>"));
}

#[test]
fn durations_without_a_drawable_value_are_written_exactly_without_a_type() {
    let odd = voice("V", &[((0, 1), (1, 17), &[60]), ((1, 17), (16, 17), &[62])]);
    let s = score(Meter::new(1, 4), vec![odd]);
    let xml = musicxml::write(&s).expect("writes");
    assert!(xml.contains("<divisions>17</divisions>"), "{xml}");
    assert!(
        !xml.contains("<type>"),
        "no type can draw a 17-tuplet: {xml}"
    );
    let back = musicxml::read(&xml).expect("reads");
    assert_eq!(back.voices[0].events[1].duration, time(16, 17));
}

#[test]
fn overlapping_events_of_one_voice_use_a_second_musicxml_voice() {
    let v = voice("V", &[((0, 1), (4, 1), &[72]), ((1, 1), (2, 1), &[60])]);
    let xml = musicxml::write(&score(Meter::new(4, 4), vec![v.clone()])).expect("writes");
    assert!(
        xml.contains("<backup>\n        <duration>4</duration>"),
        "{xml}"
    );
    assert!(
        xml.contains("<forward>"),
        "silence in voice 2 is a forward, not a rest"
    );
    assert!(xml.contains("<voice>2</voice>"));
    assert_eq!(musicxml::read(&xml).expect("reads").voices[0], {
        let mut expected = v;
        for e in &mut expected.events {
            for p in &mut e.pitches {
                p.spelling = Some(p.spelling_or_default());
            }
        }
        expected
    });
}

#[test]
fn low_voices_get_a_bass_clef_and_silent_bars_a_measure_rest() {
    let s = score(
        Meter::new(3, 4),
        vec![
            voice("High", &[((0, 1), (3, 1), &[67])]),
            voice("Low", &[((3, 1), (3, 1), &[40])]),
        ],
    );
    let xml = musicxml::write(&s).expect("writes");
    let low = &xml[xml.find("<part id=\"P2\">").expect("part 2")..];
    assert!(low.contains("<sign>F</sign>"));
    assert!(
        low.contains("<rest measure=\"yes\"/>"),
        "bar 1 of the low voice is empty"
    );
    assert!(xml[..xml.find("<part id=\"P2\">").unwrap_or(0)].contains("<sign>G</sign>"));
}

#[test]
fn a_tempo_that_is_not_a_terminating_decimal_is_rounded_to_six_places() {
    let mut s = score(
        Meter::new(4, 4),
        vec![voice("V", &[((0, 1), (1, 1), &[60])])],
    );
    s.tempo = Some(time(100, 3));
    let xml = musicxml::write(&s).expect("writes");
    assert!(xml.contains("<sound tempo=\"33.333333\"/>"), "{xml}");
    assert!(xml.contains("<per-minute>33.333333</per-minute>"));
    assert_eq!(
        musicxml::read(&xml).expect("reads").tempo,
        Some(time(33_333_333, 1_000_000))
    );
}

#[test]
fn scores_musicxml_cannot_hold_are_refused() {
    let unwritable = |s: &Score| match musicxml::write(s) {
        Err(MusicXmlError::Unwritable(msg)) => msg,
        other => panic!("expected Unwritable, got {other:?}"),
    };
    assert!(unwritable(&Score::default()).contains("no voices"));
    let mut s = score(
        Meter::new(4, 4),
        vec![voice("V", &[((0, 1), (1, 1), &[60])])],
    );
    s.voices[0].events[0].pitches.clear();
    assert!(unwritable(&s).contains("at least one pitch"));
    s.voices[0].events[0].pitches.push(Pitch::new(5));
    assert!(unwritable(&s).contains("octave -1"));
    s.voices[0].events[0].pitches[0] = Pitch::spelled(
        61,
        Spelling {
            letter: Letter::C,
            alter: 0,
        },
    );
    assert!(unwritable(&s).contains("cannot be spelled C+0"));
    s.voices[0].events[0].pitches[0] = Pitch::new(60);
    s.voices[0].events[0].duration = Time::from_integer(0);
    assert!(unwritable(&s).contains("not positive"));
    let mut s = score(
        Meter::new(4, 4),
        vec![voice("V", &[((0, 1), (1, 1), &[60])])],
    );
    s.tempo = Some(Time::from_integer(-1));
    assert!(unwritable(&s).contains("tempo"));
}

/// Issue 13 (MusicXML part): a tenor gets the treble clef an octave down, a
/// keyless score no key signature, every part an instrument name.
#[test]
fn clefs_by_range_instrument_names_and_no_key_for_keyless_music() {
    let tenor = voice("Tenor", &[((0, 1), (4, 1), &[55, 57, 60])]);
    let soprano = voice("Soprano", &[((0, 1), (4, 1), &[72])]);
    let bass = voice("Bass", &[((0, 1), (4, 1), &[40])]);
    let xml = musicxml::write(&score(Meter::COMMON, vec![soprano, tenor, bass])).expect("writes");
    let clefs: Vec<&str> = xml
        .split("<clef>")
        .skip(1)
        .map(|c| &c[..c.find("</clef>").expect("closed")])
        .collect();
    assert_eq!(clefs.len(), 3);
    assert!(clefs[0].contains("<sign>G</sign>") && !clefs[0].contains("octave-change"));
    assert!(
        clefs[1].contains("<sign>G</sign>")
            && clefs[1].contains("<clef-octave-change>-1</clef-octave-change>"),
        "{}",
        clefs[1]
    );
    assert!(clefs[2].contains("<sign>F</sign>"));
    assert!(!xml.contains("<key>"), "no key signature without a key");
    assert!(xml.contains(
        "<score-instrument id=\"P2-I1\">\n        <instrument-name>Tenor</instrument-name>"
    ));
    // The clef is notation only: the tenor reads back at the pitches written.
    let back = musicxml::read(&xml).expect("reads");
    assert_eq!(
        back.voices[1].events[0]
            .pitches
            .iter()
            .map(|p| p.midi)
            .collect::<Vec<_>>(),
        vec![55, 57, 60]
    );
}

/// Issue 17, item 8: the writer refuses what the reader refuses.
#[test]
fn keys_and_meters_the_reader_refuses_are_not_written() {
    let mut s = score(Meter::COMMON, vec![voice("A", &[((0, 1), (1, 1), &[60])])]);
    s.key = Some(Key {
        tonic: Spelling {
            letter: Letter::C,
            alter: -11,
        },
        mode: Mode::Major,
    });
    let err = musicxml::write(&s).expect_err("Cbbbbbbbbbbb major");
    assert!(
        matches!(&err, MusicXmlError::Unwritable(m) if m.contains("-77 fifths")),
        "{err}"
    );
    s.key = None;
    s.meter = Meter::new(1001, 4);
    assert!(
        musicxml::write(&s).is_err(),
        "the reader takes meters up to 1000"
    );
}
