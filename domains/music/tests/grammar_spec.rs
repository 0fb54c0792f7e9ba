//! The grammar's documented examples (libretto-spec §1), read strictly: exact
//! times, slot counts per meter and grid, pitches, chords, tags, comments.

use cantus_music::grammar::{ParseOptions, parse, rule};
use cantus_music::{Letter, Score, Spelling, Time, time};

fn read(text: &str) -> Score {
    match parse(text, &ParseOptions::default()) {
        Ok(p) => {
            assert!(
                p.warnings.is_empty(),
                "strict mode gave warnings: {:?}",
                p.warnings
            );
            p.score
        }
        Err(e) => panic!("did not parse:\n{e}\n--- text ---\n{text}"),
    }
}

fn rules_of(text: &str) -> Vec<&'static str> {
    match parse(text, &ParseOptions::default()) {
        Ok(_) => panic!("parsed, but should have failed:\n{text}"),
        Err(e) => e.rules(),
    }
}

/// A one-voice piece with the given meter, grid and body lines.
fn piece(meter: &str, grid: &str, body: &str) -> String {
    format!(
        "KEY: C major | METER: {meter} | TEMPO: 100 | GRID: {grid} | BARS: 8\nVOICES: V\n{body}"
    )
}

fn onsets(score: &Score) -> Vec<(Time, Time)> {
    score.voices[0]
        .events
        .iter()
        .map(|e| (e.onset, e.duration))
        .collect()
}

#[test]
fn c4_at_slot_1_for_4_slots_is_a_quarter_note_on_the_downbeat() {
    let s = read(&piece("4/4", "16th", "@1 [C]\n  V: C4@1>4\n"));
    let e = &s.voices[0].events[0];
    assert_eq!((e.onset, e.duration), (time(0, 1), time(1, 1)));
    assert_eq!(e.pitches.len(), 1);
    assert_eq!(e.pitches[0].midi, 60);
    let c = Spelling {
        letter: Letter::C,
        alter: 0,
    };
    assert_eq!(e.pitches[0].spelling, Some(c));
    assert_eq!(e.tag, None);
}

#[test]
fn slot_counts_follow_grid_per_whole_note() {
    // (meter, grid, slots in a bar): the last slot is accepted, one more is not.
    for (meter, grid, slots, bar_len) in [
        ("4/4", "16th", 16, time(4, 1)),
        ("3/4", "16th", 12, time(3, 1)),
        ("6/8", "16th", 12, time(3, 1)),
        ("4/4", "12t", 12, time(4, 1)),
        ("12/8", "12t", 18, time(6, 1)),
        ("7/8", "8th", 7, time(7, 2)),
    ] {
        let ok = piece(meter, grid, &format!("@2 [-]\n  V: C4@{slots}>1\n"));
        let s = read(&ok);
        let e = &s.voices[0].events[0];
        let g = i64::from(grid.trim_end_matches(['t', 'h']).parse::<u8>().unwrap());
        assert_eq!(
            e.onset,
            bar_len + time(4 * (slots - 1), g),
            "{meter} at {grid}"
        );
        assert_eq!(e.duration, time(4, g));
        let beyond = piece(meter, grid, &format!("@2 [-]\n  V: C4@{}>1\n", slots + 1));
        assert_eq!(
            rules_of(&beyond),
            vec![rule::ONSET_RANGE],
            "{meter} at {grid}"
        );
    }
}

#[test]
fn a_note_may_sound_into_the_next_bar() {
    let s = read(&piece(
        "4/4",
        "16th",
        "@6 [G]\n  V: B4@16>4\n@7 [C]\n  V: C5@1>4\n",
    ));
    let ev = &s.voices[0].events;
    // Bar 6 starts at 20 quarters; slot 16 is 3.75 beats in; 4 slots = 1 quarter.
    assert_eq!((ev[0].onset, ev[0].end()), (time(95, 4), time(99, 4)));
    assert!(ev[0].end() > time(24, 1), "sounds past the barline at 24");
    assert_eq!(ev[0].pitches[0].midi, 71);
    assert!(
        ev[0].overlaps(&ev[1]),
        "B4 still sounds when bar 7's C5 starts"
    );
}

#[test]
fn pitch_spellings_and_octaves() {
    let s = read(&piece(
        "4/4",
        "16th",
        "@1 [-]\n  V: Bb1@1>1 C##4@2>1 Cbb4@3>1 C-1@4>1 G9@5>1 f#5@6>1 B#3@7>1\n",
    ));
    let got: Vec<(u8, Option<Spelling>)> = s.voices[0]
        .events
        .iter()
        .map(|e| (e.pitches[0].midi, e.pitches[0].spelling))
        .collect();
    let sp = |letter, alter| Some(Spelling { letter, alter });
    assert_eq!(
        got,
        vec![
            (34, sp(Letter::B, -1)),
            (62, sp(Letter::C, 2)),
            (58, sp(Letter::C, -2)),
            (0, sp(Letter::C, 0)),
            (127, sp(Letter::G, 0)),
            (78, sp(Letter::F, 1)),
            (60, sp(Letter::B, 1)),
        ]
    );
    assert_eq!(
        rules_of(&piece("4/4", "16th", "@1 [-]\n  V: G#9@1>1\n")),
        vec![rule::PITCH_RANGE]
    );
    assert_eq!(
        rules_of(&piece("4/4", "16th", "@1 [-]\n  V: Cb-1@1>1\n")),
        vec![rule::PITCH_RANGE]
    );
    assert_eq!(
        rules_of(&piece("4/4", "16th", "@1 [-]\n  V: H4@1>1\n")),
        vec![rule::PITCH]
    );
}

#[test]
fn chords_are_one_event_sorted_and_deduplicated() {
    let s = read(&piece("4/4", "16th", "@1 [C]\n  V: G4+C4+E4+C4@1>8\n"));
    let e = &s.voices[0].events[0];
    let midis: Vec<u8> = e.pitches.iter().map(|p| p.midi).collect();
    assert_eq!(midis, vec![60, 64, 67]);
    assert_eq!(e.duration, time(2, 1));
}

#[test]
fn triplet_override_changes_only_its_bar() {
    let s = read(&piece(
        "4/4",
        "16th",
        "@1 [C] (grid:12t)\n  V: C4@1>4 D4@5>4 E4@9>4\n@2 [G]\n  V: G4@1>4\n",
    ));
    assert_eq!(
        onsets(&s),
        vec![
            (time(0, 1), time(4, 3)),
            (time(4, 3), time(4, 3)),
            (time(8, 3), time(4, 3)),
            (time(4, 1), time(1, 1)),
        ]
    );
}

#[test]
fn header_fields_become_score_metadata() {
    let s = read(
        "KEY: Bb minor | METER: 6/8 | TEMPO: 92.5 | GRID: 12t | BARS: 3 | STYLE: waltz\nVOICES: A, B\n",
    );
    let key = s.key.expect("key");
    assert_eq!(
        (key.tonic, key.fifths()),
        (
            Spelling {
                letter: Letter::B,
                alter: -1
            },
            -5
        )
    );
    assert_eq!((s.meter.num, s.meter.den), (6, 8));
    assert_eq!(s.tempo, Some(time(185, 2)));
    assert_eq!(s.bars, Some(3));
    assert_eq!(
        s.voices.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(),
        ["A", "B"]
    );
    let unknown =
        read("KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 32th (adaptive) | BARS: ?\nVOICES: A\n");
    assert_eq!(
        (unknown.key, unknown.tempo, unknown.bars),
        (None, None, None)
    );
    let f_sharp = read("KEY: F# major | METER: 4/4 | GRID: 4th\nVOICES: A\n");
    assert_eq!(f_sharp.key.map(|k| k.fifths()), Some(6));
}

#[test]
fn a_part_in_another_key_gives_it_after_its_name() {
    let s = read(
        "KEY: F major | METER: 4/4 | GRID: 4th\n\
         VOICES: Flute, Clarinet in Bb (KEY: G major), Horn (solo) (KEY: C major), Oboe (KEY: ?)\n",
    );
    let parts: Vec<(&str, Option<i32>, Option<i32>)> = s
        .voices
        .iter()
        .map(|v| {
            let own = v.key.map(|k| k.fifths());
            (v.name.as_str(), own, s.part_key(v).map(|k| k.fifths()))
        })
        .collect();
    assert_eq!(
        parts,
        [
            ("Flute", None, Some(-1)),
            ("Clarinet in Bb", Some(1), Some(1)),
            ("Horn (solo)", Some(0), Some(0)),
            ("Oboe", None, Some(-1)),
        ]
    );

    // A malformed part key is an error at its value, strictly; leniently the part
    // takes the score's key.
    let text = "KEY: F major | METER: 4/4 | GRID: 4th\nVOICES: Flute, Clarinet (KEY: H major)\n";
    let err = parse(text, &ParseOptions::default()).expect_err("H is no tonic");
    assert_eq!(err.rules(), vec![rule::KEY]);
    let d = &err.diagnostics[0];
    assert_eq!((d.line, d.column, d.width), (2, 31, 7), "{err}");
    assert!(
        d.message.contains("voice `Clarinet` has KEY `H major`"),
        "{err}"
    );
    let lenient = parse(text, &ParseOptions::default().lenient()).expect("lenient");
    assert_eq!(lenient.warnings.len(), 1);
    assert_eq!(lenient.score.voices[1].name, "Clarinet");
    assert_eq!(lenient.score.voices[1].key, None);
    let unclosed = "KEY: F major | METER: 4/4 | GRID: 4th\nVOICES: Clarinet (KEY: G major\n";
    let err = parse(unclosed, &ParseOptions::default()).expect_err("no `)`");
    assert!(err.to_string().contains("has no closing `)`"), "{err}");
}

#[test]
fn silent_bars_are_gaps_and_bars_must_increase() {
    let s = read(&piece(
        "3/4",
        "8th",
        "@1 [-]\n  V: C4@1>2\n@4 [-]\n  V: D4@1>2\n",
    ));
    assert_eq!(onsets(&s)[1].0, time(9, 1), "bars 2 and 3 are silent");
    let back = piece("3/4", "8th", "@2 [-]\n  V: C4@1>2\n@2 [-]\n  V: D4@1>2\n");
    assert_eq!(rules_of(&back), vec![rule::BAR_ORDER]);
}

#[test]
fn comments_tags_velocity_and_blank_lines() {
    let text = "% generated by hand\n\nKEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: 2 % header\n\
                VOICES: V % one voice\n\n% bar one\n@1 [C] % tonic\n  V: C4@1>4{P0:1-3} E4@5>4^90 % v3 velocity\n\n";
    let s = read(text);
    let ev = &s.voices[0].events;
    assert_eq!(ev.len(), 2);
    assert_eq!(ev[0].tag.as_deref(), Some("P0:1-3"));
    assert_eq!(ev[1].tag, None);
    assert_eq!(ev[1].onset, time(1, 1));
}

#[test]
fn a_voice_written_twice_in_a_bar_is_refused_strictly_and_merged_leniently() {
    let text = piece("4/4", "16th", "@1 [-]\n  V: C4@1>4\n  V: E4@5>4\n");
    assert_eq!(rules_of(&text), vec![rule::VOICE_REPEATED]);
    let lenient = parse(&text, &ParseOptions::default().lenient()).expect("lenient reads it");
    assert_eq!(lenient.score.voices[0].events.len(), 2);
    assert_eq!(lenient.warnings.len(), 1);
    assert_eq!(lenient.warnings[0].rule, rule::VOICE_REPEATED);
}

#[test]
fn strict_mode_collects_every_body_error() {
    let text = piece(
        "4/4",
        "16th",
        "@1 [-]\n  V: C4@0>4 X4@2>1 C4@3>0\n  W: C4@1>1\n@2\n  V: C4@1>1\nprose here\n",
    );
    assert_eq!(
        rules_of(&text),
        vec![
            rule::ONSET_RANGE,
            rule::PITCH,
            rule::DURATION_ZERO,
            rule::VOICE_UNDECLARED,
            rule::BAR_LABEL,
            rule::PROSE,
        ]
    );
}

#[test]
fn hand_written_canonical_text_is_a_fixed_point() {
    let text = "KEY: ? | METER: 6/8 | TEMPO: ? | GRID: 8th | BARS: 5\n\
                VOICES: Flute, Cello\n\
                @1 [-]\n  Flute: C#5@1>3 Eb5@4>3{a}\n  Cello: C-1+G2@1>6\n\
                @3 [-] (grid:12t)\n  Flute: D5@1>2 E5@3>2 F5@5>2\n\
                @5 [-]\n  Cello: C2@6>4\n";
    let s = read(text);
    assert_eq!(cantus_music::grammar::write(&s).expect("writable"), text);
    // A byte-order mark in front changes nothing.
    assert_eq!(read(&format!("\u{feff}{text}")), s);
}
