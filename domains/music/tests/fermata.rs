//! Fermatas: read from MusicXML and MEI (where a chorale's phrases end), kept over
//! a tied note, written back to MusicXML and engraved by LilyPond.

use cantus_music::format::{self, Format};
use cantus_music::{Event, Meter, Pitch, Score, Voice, lilypond, mei, musicxml, time};

/// A quarter note, then a half note tied into the next bar (the fermata on its
/// second notehead), then a quarter without one.
const TIED: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<score-partwise version="4.0">
  <part-list><score-part id="P1"><part-name>Soprano</part-name></score-part></part-list>
  <part id="P1">
    <measure number="1">
      <attributes><divisions>1</divisions><time><beats>3</beats><beat-type>4</beat-type></time></attributes>
      <note><pitch><step>G</step><octave>4</octave></pitch><duration>1</duration><type>quarter</type></note>
      <note><pitch><step>A</step><octave>4</octave></pitch><duration>2</duration><tie type="start"/><type>half</type>
        <notations><tied type="start"/></notations></note>
    </measure>
    <measure number="2">
      <note><pitch><step>A</step><octave>4</octave></pitch><duration>1</duration><tie type="stop"/><type>quarter</type>
        <notations><tied type="stop"/><fermata type="upright"/></notations></note>
      <note><pitch><step>B</step><octave>4</octave></pitch><duration>2</duration><type>half</type></note>
    </measure>
  </part>
</score-partwise>
"#;

fn fermatas(score: &Score) -> Vec<(i64, bool)> {
    score.voices[0]
        .events
        .iter()
        .map(|e| (e.onset.to_integer(), e.fermata))
        .collect()
}

#[test]
fn a_musicxml_fermata_marks_its_whole_tied_note_and_is_written_back() {
    let (score, _) = musicxml::read_with(TIED, &Default::default()).expect("reads");
    assert_eq!(fermatas(&score), [(0, false), (1, true), (4, false)]);
    let xml = format::render(&score, Format::MusicXml).expect("writes");
    let text = std::str::from_utf8(&xml).expect("utf-8");
    assert_eq!(text.matches("<fermata").count(), 1, "{text}");
    let (back, _) = musicxml::read_with(text, &Default::default()).expect("reads back");
    assert_eq!(back.voices[0].events, score.voices[0].events);
    let json = serde_json::to_string(&score.voices[0].events[0]).expect("json");
    assert!(!json.contains("fermata"), "no field when unset: {json}");
}

#[test]
fn lilypond_engraves_a_fermata_over_the_last_tied_value() {
    let mut v = Voice::new("Soprano");
    v.events = vec![
        Event {
            fermata: true,
            ..Event::new(time(2, 1), time(3, 1), vec![Pitch::parse("A4").unwrap()])
        },
        Event::new(time(5, 1), time(1, 1), vec![Pitch::parse("B4").unwrap()]),
    ];
    let score = Score {
        meter: Meter::new(4, 4),
        voices: vec![v],
        ..Score::default()
    };
    let ly = lilypond::write(&score).expect("writes");
    assert_eq!(ly.matches("\\fermata").count(), 1, "{ly}");
    assert!(
        ly.contains("a'4\\fermata"),
        "over the tied quarter in bar 2: {ly}"
    );
}

fn mei_doc(staff_one: &str, controls: &str) -> String {
    format!(
        "<mei>\n<music><body><mdiv><score>\n<scoreDef meter.count=\"4\" meter.unit=\"4\"><staffGrp>\
         <staffDef n=\"1\" lines=\"5\"/><staffDef n=\"2\" lines=\"5\"/></staffGrp></scoreDef>\n\
         <section><measure>\n<staff n=\"1\"><layer>\n{staff_one}\n</layer></staff>\n\
         <staff n=\"2\"><layer>\n<note pname=\"c\" oct=\"3\" dur=\"2\"/><note pname=\"g\" oct=\"2\" dur=\"2\"/>\n</layer></staff>\n\
         {controls}\n</measure></section></score></mdiv></body></music></mei>\n"
    )
}

#[test]
fn mei_fermatas_by_attribute_by_startid_and_by_tstamp() {
    let read = |xml: &str| mei::read_with(xml, &Default::default()).expect("reads").0;
    let by_attr = read(&mei_doc(
        "<note pname=\"e\" oct=\"4\" dur=\"2\"/><chord dur=\"2\" fermata=\"above\"><note pname=\"d\" oct=\"4\"/><note pname=\"f\" oct=\"4\"/></chord>",
        "",
    ));
    assert_eq!(fermatas(&by_attr), [(0, false), (2, true)]);
    let by_id = read(&mei_doc(
        "<note xml:id=\"n1\" pname=\"e\" oct=\"4\" dur=\"2\"/><chord xml:id=\"c1\" dur=\"2\"><note pname=\"d\" oct=\"4\"/><note pname=\"f\" oct=\"4\"/></chord>",
        "<fermata startid=\"#c1\"/>",
    ));
    assert_eq!(fermatas(&by_id), [(0, false), (2, true)]);
    let by_tstamp = read(&mei_doc(
        "<note pname=\"e\" oct=\"4\" dur=\"2\"/><note pname=\"d\" oct=\"4\" dur=\"2\"/>",
        "<fermata tstamp=\"3\" staff=\"2\"/>",
    ));
    assert_eq!(fermatas(&by_tstamp), [(0, false), (2, false)]);
    let bass: Vec<bool> = by_tstamp.voices[1]
        .events
        .iter()
        .map(|e| e.fermata)
        .collect();
    assert_eq!(bass, [false, true]);
    let (_, warnings) = mei::read_with(
        &mei_doc(
            "<note pname=\"e\" oct=\"4\" dur=\"1\"/>",
            "<fermata startid=\"#nowhere\"/>",
        ),
        &Default::default(),
    )
    .expect("reads");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("<fermata> names a note")),
        "{warnings:?}"
    );
}
