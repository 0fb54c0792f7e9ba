//! Lenient mode on raw, messy model output: it reads what it can, like
//! Libretto's parser, and says what it skipped, line by line.

use cantus_music::grammar::{ParseOptions, Severity, parse, rule};
use cantus_music::time;

const MESSY: &str = "Sure! Here's a short piece in C major:

```
KEY: C major | METER: 4/4 | TEMPO: 90 | GRID: 16th | BARS: 4
VOICES: Melody, Bass
@1 [C]
  Melody: C5@1>4 E5@5>4 G5@9>8
  Bass: C3@1>16
@2 G major
  Melody: D5@1>4 B4@5>4 H4@9>4 G4@13>4
  Bass: G2@1>16
  Piano: C4+E4@1>4
@3 [F]
  Melody: A4@1>8 C5@17>4
  Bass: F2@0>16 F2@1>0
  this is a nice cadence
```
Hope you enjoy it!
";

#[test]
fn messy_llm_output_reads_with_a_warning_per_problem() {
    let strict = parse(MESSY, &ParseOptions::named("reply.md")).expect_err("strict refuses prose");
    assert_eq!(strict.rules(), vec![rule::HEADER]);

    let parsed =
        parse(MESSY, &ParseOptions::named("reply.md").lenient()).expect("lenient reads it");
    let got: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.rule)).collect();
    assert_eq!(
        got,
        vec![
            (1, rule::PROSE),
            (3, rule::PROSE),
            (9, rule::BAR_LABEL),
            (10, rule::PITCH),
            (12, rule::VOICE_UNDECLARED),
            (14, rule::ONSET_RANGE),
            (15, rule::ONSET_RANGE),
            (15, rule::DURATION_ZERO),
            (16, rule::VOICE_LINE),
            (17, rule::PROSE),
            (18, rule::PROSE),
        ]
    );
    for w in &parsed.warnings {
        assert_eq!(w.severity, Severity::Warning);
        assert_eq!(w.source, "reply.md");
        assert!(
            w.to_string().starts_with(&format!("warning[{}]", w.rule)),
            "{w}"
        );
    }
    assert!(
        parsed.warnings[3].message.ends_with("pitch dropped"),
        "{}",
        parsed.warnings[3].message
    );

    let s = &parsed.score;
    let names: Vec<&str> = s.voices.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        ["Melody", "Bass", "Piano"],
        "undeclared voice added after the declared ones"
    );
    let melody: Vec<_> = s.voices[0]
        .events
        .iter()
        .map(|e| (e.onset, e.pitches[0].midi))
        .collect();
    assert_eq!(
        melody,
        vec![
            (time(0, 1), 72),
            (time(1, 1), 76),
            (time(2, 1), 79),
            (time(4, 1), 74), // bar 2 read despite its missing bracket
            (time(5, 1), 71),
            (time(7, 1), 67), // H4 dropped
            (time(8, 1), 69),
            (time(12, 1), 72), // slot 17 of bar 3 spills into bar 4
        ]
    );
    let bass: Vec<_> = s.voices[1].events.iter().map(|e| e.onset).collect();
    assert_eq!(
        bass,
        vec![time(0, 1), time(4, 1), time(31, 4)],
        "slot 0 of bar 3 is one slot before it"
    );
    assert_eq!(s.voices[2].events.len(), 1);
    assert_eq!(s.voices[2].events[0].pitches.len(), 2);
}

#[test]
fn lenient_mode_without_voices_line_declares_voices_as_used() {
    let text = "\n\nKEY: ? | METER: 3/4 | GRID: 8th\n@1 [-]\n  Alto: A4@1>2\n  Bass: A2@1>6\n";
    let parsed = parse(text, &ParseOptions::default().lenient()).expect("lenient");
    let names: Vec<&str> = parsed
        .score
        .voices
        .iter()
        .map(|v| v.name.as_str())
        .collect();
    assert_eq!(names, ["Alto", "Bass"]);
    let got: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.rule)).collect();
    assert_eq!(
        got,
        vec![
            (4, rule::VOICES),
            (5, rule::VOICE_UNDECLARED),
            (6, rule::VOICE_UNDECLARED)
        ]
    );
    assert_eq!(parsed.score.voices[1].events[0].duration, time(3, 1));
}

#[test]
fn lenient_header_falls_back_to_libretto_defaults() {
    let text =
        "KEY: C lydian | METER: four | TEMPO: -3 | GRID: 16th\nVOICES: A\n@2 [-]\n  A: C4@5>4\n";
    let parsed = parse(text, &ParseOptions::default().lenient()).expect("lenient");
    let rules: Vec<&str> = parsed.warnings.iter().map(|w| w.rule).collect();
    assert_eq!(rules, vec![rule::KEY, rule::METER, rule::TEMPO]);
    let s = &parsed.score;
    assert_eq!(
        (s.key, s.meter.num, s.meter.den, s.tempo),
        (None, 4, 4, None)
    );
    assert_eq!(s.voices[0].events[0].onset, time(5, 1), "4/4 bar 2, slot 5");
}

#[test]
fn lenient_mode_still_needs_a_header_somewhere() {
    let err = parse(
        "just some prose\nand more\n",
        &ParseOptions::default().lenient(),
    )
    .expect_err("no header");
    assert_eq!(err.rules(), vec![rule::HEADER]);
    assert_eq!(err.diagnostics[0].line, 2);
    let empty = parse("", &ParseOptions::default()).expect_err("empty text");
    assert_eq!(empty.rules(), vec![rule::HEADER]);
    assert_eq!(empty.diagnostics[0].line, 1);
}

#[test]
fn lenient_bar_order_and_repeats_follow_the_original() {
    let text = "KEY: ? | METER: 4/4 | GRID: 4th | BARS: 1\nVOICES: A\n@2 [-]\n  A: C4@1>1\n  @1 [-]\n  A: D4@1>1\n  A: E4@2>1\n";
    let parsed = parse(text, &ParseOptions::default().lenient()).expect("lenient");
    let got: Vec<(usize, &str)> = parsed.warnings.iter().map(|w| (w.line, w.rule)).collect();
    assert_eq!(
        got,
        vec![
            (3, rule::BARS_SHORT),
            (5, rule::BAR_INDENTED),
            (5, rule::BAR_ORDER),
            (7, rule::VOICE_REPEATED)
        ]
    );
    let onsets: Vec<_> = parsed.score.voices[0]
        .events
        .iter()
        .map(|e| e.onset)
        .collect();
    assert_eq!(
        onsets,
        vec![time(0, 1), time(1, 1), time(4, 1)],
        "sorted by time"
    );
}

#[test]
fn extreme_numbers_are_read_exactly_without_overflow() {
    let text = "KEY: ? | METER: 997/999 | GRID: 3839 | BARS: 4294967295\nVOICES: A\n\
                @10000000 [-]\n  A: C4@4294967295>4294967295 C4@0>1\n";
    let parsed = parse(text, &ParseOptions::default().lenient()).expect("lenient");
    let rules: Vec<&str> = parsed.warnings.iter().map(|w| w.rule).collect();
    assert_eq!(
        rules,
        vec![rule::GRID_DIVIDE, rule::ONSET_RANGE, rule::ONSET_RANGE]
    );
    let ev = &parsed.score.voices[0].events;
    let bar_start = time(4 * 997 * 9_999_999, 999);
    assert_eq!(
        ev[0].onset,
        bar_start - time(4, 3839),
        "slot 0 is one slot early"
    );
    assert_eq!(ev[1].onset, bar_start + time(4 * 4_294_967_294, 3839));
    assert_eq!(ev[1].duration, time(4 * 4_294_967_295, 3839));
    assert!(
        cantus_music::grammar::write(&parsed.score).is_err(),
        "GRID 3839 is no writer grid"
    );
}
