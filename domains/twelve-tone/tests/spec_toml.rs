//! Spec files: writing and reading back gives the same spec; the documented example
//! file loads; defaults fill what a file leaves out; and errors name the file, line,
//! column and field.

use cantus_music::Meter;
use cantus_twelve_tone::row::Convention;
use cantus_twelve_tone::spec::{
    Repetition, RowChoice, Spec, SpecError, Strength, Technique, Texture, VoiceSpec, compile_brief,
};
use num_rational::Ratio;
use proptest::prelude::*;

fn example_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/specs/webern-trio.toml")
}

fn round_trip(spec: &Spec) {
    let text = spec.to_toml_string();
    let back = Spec::from_toml_str(&text, "round-trip.toml")
        .unwrap_or_else(|e| panic!("{e}\n--- written:\n{text}"));
    assert_eq!(&back, spec, "--- written:\n{text}");
}

#[test]
fn specs_round_trip_through_toml() {
    let mut everything = Spec::with_voice_count(4);
    everything.title = Some("A \"quoted\" title\nover two lines".to_string());
    everything.row = RowChoice::AllInterval { seed: u64::MAX };
    everything.convention = Convention::Relative;
    everything.max_crossing = Ratio::new(3, 7);
    everything.repetition = Repetition::Tremolo {
        max_per_statement: 5,
    };
    everything.techniques = vec![
        Technique::Canon {
            leader: 0,
            follower: 3,
            delay_bars: 2,
            transpose: -7,
        },
        Technique::InversionCanon {
            leader: 1,
            follower: 2,
            delay_bars: 3,
            axis: Some(11),
        },
        Technique::RegisterContrast {
            strength: Strength::Mild,
        },
    ];
    round_trip(&everything);
    round_trip(&Spec::default());
    let mut explicit = Spec::with_voice_count(1);
    explicit.row = RowChoice::Explicit {
        pcs: [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9],
    };
    round_trip(&explicit);
    let flagship = compile_brief(
        "a 16-bar trio in 3/4 on Webern's Op. 21 row with a canon between the outer voices",
    )
    .expect("compiles");
    round_trip(&flagship.spec);
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        (1u32..=512, 1u32..=32, 0u32..=6, 20u32..=300, 1usize..=6),
        (any::<u64>(), 0i64..=100, 1u8..=4, any::<bool>(), 1u8..=12),
        (proptest::option::of("[A-Za-z \"'\\\\é]{1,40}"), 0u32..4),
    )
        .prop_filter("title must not be blank", |(_, _, (title, _))| {
            title.as_ref().is_none_or(|t| !t.trim().is_empty())
        })
        .prop_map(
            |(
                (bars, num, den_pow, tempo, voices),
                (seed, crossing, chord, tremolo, reps),
                (title, row_kind),
            )| {
                let mut spec = Spec::with_voice_count(voices);
                spec.title = title;
                spec.bars = bars;
                spec.meter = Meter::new(num, 1 << den_pow);
                spec.tempo = tempo;
                spec.section_bars = 1 + seed as u32 % bars;
                spec.max_crossing = Ratio::new(crossing, 100);
                spec.texture = Texture {
                    max_chord: chord,
                    max_sounding: chord.max(spec.texture.max_sounding),
                };
                spec.row = match row_kind {
                    0 => RowChoice::AllInterval { seed },
                    1 => RowChoice::Historical {
                        id: "BergLyricSuite".to_string(),
                    },
                    2 => RowChoice::Explicit {
                        pcs: [5, 4, 3, 2, 1, 0, 11, 10, 9, 8, 7, 6],
                    },
                    _ => RowChoice::Default,
                };
                if tremolo {
                    spec.repetition = Repetition::Tremolo {
                        max_per_statement: reps,
                    };
                }
                if voices >= 2 && bars >= 2 {
                    let delay_bars = 1 + (seed % u64::from(bars - 1)) as u32;
                    spec.techniques.push(Technique::Canon {
                        leader: 0,
                        follower: voices - 1,
                        delay_bars,
                        transpose: (seed % 49) as i8 - 24,
                    });
                }
                spec
            },
        )
}

proptest! {
    #[test]
    fn any_valid_spec_round_trips(spec in arb_spec()) {
        prop_assert_eq!(spec.validate(), Ok(()));
        let text = spec.to_toml_string();
        let back = Spec::from_toml_str(&text, "prop.toml");
        prop_assert_eq!(back, Ok(spec), "written:\n{}", text);
    }
}

#[test]
fn the_example_file_loads_and_says_what_the_flagship_brief_says() {
    let path = example_path();
    let text = std::fs::read_to_string(&path)
        .expect("examples/specs/webern-trio.toml is in the repository");
    let spec = Spec::from_toml_str(&text, "webern-trio.toml").unwrap_or_else(|e| panic!("{e}"));
    let brief = compile_brief(
        "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, \
         with a canon between the outer voices and strong register contrast",
    )
    .expect("compiles");
    let mut expected = brief.spec;
    expected.title = Some("Trio on Webern's Op. 21 row".to_string());
    assert_eq!(spec, expected);
    // The comment in the file states the working registers; hold it to them.
    let working: Vec<(u8, u8)> = spec
        .working_voices()
        .iter()
        .map(|v| (v.low, v.high))
        .collect();
    assert_eq!(working, [(68, 81), (54, 67), (40, 53)]);
    assert!(text.contains("Soprano 68-81, Tenor 54-67, Bass 40-53"));
}

#[test]
fn a_file_may_leave_out_every_field() {
    let spec = Spec::from_toml_str("", "empty.toml").expect("an empty file is all defaults");
    assert_eq!(spec, Spec::default());
    let five = "bars = 2\n".to_string()
        + &(0..5)
            .map(|i| {
                format!(
                    "[[voices]]\nname = \"V{i}\"\nlow = {}\nhigh = {}\n",
                    40 + 5 * i,
                    60 + 5 * i
                )
            })
            .collect::<String>();
    let spec = Spec::from_toml_str(&five, "five.toml").expect("valid");
    assert_eq!(spec.texture.max_sounding, 7, "min(12, voices + 2)");
    assert_eq!(spec.section_bars, 2, "sections no longer than the piece");
    assert_eq!(spec.meter, Meter::new(4, 4));
    assert_eq!(spec.voices[4], VoiceSpec::new("V4", 60, 80));
}

#[test]
fn crossing_fractions_are_read_exactly_in_every_spelling() {
    for written in ["\"1/10\"", "\"10%\"", "0.1", "\"0.1\""] {
        let spec = Spec::from_toml_str(&format!("max_crossing = {written}\n"), "x.toml")
            .unwrap_or_else(|e| panic!("{written}: {e}"));
        assert_eq!(spec.max_crossing, Ratio::new(1, 10), "{written}");
    }
}

fn error(text: &str) -> SpecError {
    match Spec::from_toml_str(text, "bad.toml") {
        Ok(spec) => panic!("should fail:\n{text}\ngot {spec:?}"),
        Err(e) => e,
    }
}

fn assert_located(e: &SpecError, line: usize, column: usize, field: &str) {
    assert_eq!(e.source_name.as_deref(), Some("bad.toml"), "{e}");
    assert_eq!((e.line, e.column), (Some(line), Some(column)), "{e}");
    assert_eq!(e.field.as_deref(), Some(field), "{e}");
    assert!(
        e.to_string()
            .starts_with(&format!("bad.toml:{line}:{column}: field `{field}`: ")),
        "{e}"
    );
}

#[test]
fn an_unknown_field_is_named_with_its_line_and_column() {
    let e = error("bars = 16\ntempo = 80\n  colour = \"blue\"\n");
    assert_located(&e, 3, 3, "colour");
    assert!(e.message.contains("unknown field `colour`"), "{e}");
    let e = error("[[voices]]\nname = \"A\"\nlow = 40\nhigh = 60\nrange = 3\n");
    assert_located(&e, 5, 1, "voices[0].range");
}

#[test]
fn a_bad_meter_is_located() {
    let e = error("bars = 8\nmeter = \"3-4\"\n");
    assert_located(&e, 2, 9, "meter");
    assert!(e.message.contains("write it like \"3/4\""), "{e}");
    let e = error("meter = \"5/3\"\n");
    assert_located(&e, 1, 9, "meter");
    assert!(e.message.contains("power of two"), "{e}");
}

#[test]
fn an_inverted_register_points_at_the_value() {
    let text = "[[voices]]\nname = \"Soprano\"\nlow = 60\nhigh = 81\n\n[[voices]]\nname = \"Bass\"\nlow = 62\nhigh = 40\n";
    let e = error(text);
    assert_located(&e, 8, 7, "voices[1].low");
    assert_eq!(e.message, "register inverted: low 62 is not below high 40");
}

#[test]
fn validation_errors_reach_into_techniques_and_rows() {
    let text = "bars = 4\n[[techniques]]\nkind = \"canon\"\nleader = 0\nfollower = 2\ndelay_bars = 4\ntranspose = 0\n";
    let e = error(text);
    assert_located(&e, 6, 14, "techniques[0].delay_bars");
    let e = error("[row]\nkind = \"explicit\"\npcs = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10]\n");
    assert_eq!(e.field.as_deref(), Some("row"), "{e}");
    assert!(e.message.contains("pitch class 10 occurs 2 times"), "{e}");
    let e = error("[row]\nkind = \"historical\"\nid = \"Webern Op. 99\"\n");
    assert_located(&e, 3, 6, "row.id");
    let e = error("[[techniques]]\nkind = \"fugue\"\n");
    assert_located(&e, 2, 8, "techniques[0].kind");
}

#[test]
fn syntax_and_type_errors_are_located() {
    let e = error("bars = 16\ntitle = \"unclosed\n");
    assert_eq!(e.line, Some(2), "{e}");
    assert!(e.message.starts_with("invalid TOML"), "{e}");
    let e = error("bars = -3\n");
    assert_located(&e, 1, 8, "bars");
    let e = error("tempo = \"fast\"\n");
    assert_located(&e, 1, 9, "tempo");
}
