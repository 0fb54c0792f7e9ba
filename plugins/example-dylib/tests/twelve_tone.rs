//! The example plugin as a symbolic twelve-tone proposer: for a context recorded from
//! a real `cantus compose` run it writes every owed note in its window, register and
//! pitch class, as voice lines the grammar reader takes; it steps around collisions
//! and crossings it can see; it refuses unusable contexts naming the key; and any
//! other context still gets the generic phrase.

use cantus_music::grammar::{ParseOptions, parse};
use cantus_music::{Score, Time};
use cantus_plugin_example::{answer, phrase};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A section request's context, recorded from `cantus compose --brief "an 8-bar piece
/// for three voices in 3/4"` (Soprano, Tenor, Bass; 48 slots of sixteenths).
const RECORDED: &str = include_str!("fixtures/section-three-voices.json");

fn recorded() -> Value {
    serde_json::from_str(RECORDED).expect("the fixture is JSON")
}

fn reply(context: &Value) -> Result<String, String> {
    let reply = answer(&json!({"messages": [], "context": context}))?;
    assert_eq!(reply["model"], "example-serial");
    Ok(reply["text"]
        .as_str()
        .expect("text is a string")
        .to_string())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The reply read strictly, wrapped as the twelve-tone reply reader wraps it: the
/// section as one bar of `slots` slots.
fn read_back(context: &Value, text: &str) -> Score {
    let slots = context["slots"].as_u64().expect("slots");
    let grid = context["grid"].as_u64().unwrap_or(16);
    let g = gcd(slots, grid);
    let names: Vec<&str> = context["voices"]
        .as_array()
        .expect("voices")
        .iter()
        .map(|v| v["name"].as_str().expect("a name"))
        .collect();
    let body: String = text.lines().map(|l| format!("  {l}\n")).collect();
    let wrapped = format!(
        "METER: {}/{} | GRID: {grid}\nVOICES: {}\n@1 [-]\n{body}",
        slots / g,
        grid / g,
        names.join(", ")
    );
    parse(&wrapped, &ParseOptions::named("reply"))
        .unwrap_or_else(|e| panic!("the reply reads strictly:\n{e}\n{wrapped}"))
        .score
}

/// A time as a 1-based slot of `grid` slots per whole note (exact: it must be whole).
fn slot(t: Time, grid: i64) -> i64 {
    let s = t * Time::from_integer(grid) / Time::from_integer(4);
    assert!(s.is_integer(), "{t} is not on the grid");
    s.to_integer() + 1
}

#[test]
fn every_owed_note_is_written_in_its_window_register_and_pitch_class() {
    let context = recorded();
    let text = reply(&context).expect("the plugin answers");
    assert_eq!(text.lines().count(), 3, "{text}");
    check_every_owed_note(&context, &text);
    // The same request always gets the same answer.
    assert_eq!(reply(&context), Ok(text));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any job shaped like the proposer's (windows in order, registers of at least an
    /// octave) is answered with every owed note where it belongs.
    #[test]
    fn any_well_formed_job_is_answered_note_for_note(
        voices in prop::collection::vec(
            (30u8..70, 11u8..30, prop::collection::vec(
                (prop::collection::btree_set(0u8..12, 1..3), 1u32..4, 1u32..5), 1..7)),
            1..5),
    ) {
        let mut slots = 1;
        let voices: Vec<Value> = voices.into_iter().enumerate().map(|(i, (low, span, notes))| {
            let mut lo = 1;
            let notes: Vec<Value> = notes.into_iter().map(|(pcs, width, length)| {
                let pcs: Vec<u8> = pcs.into_iter().collect();
                let n = note(&pcs, [lo, lo + width - 1], length);
                lo += width + length;
                n
            }).collect();
            slots = slots.max(lo);
            voice(&format!("V{i}"), i as u32, [low, low + span], json!(notes))
        }).collect();
        let mut context = section(voices);
        context["slots"] = json!(slots);
        let text = reply(&context).map_err(TestCaseError::fail)?;
        check_every_owed_note(&context, &text);
    }
}

/// Reads the reply back strictly and checks each voice wrote each owed note: its pitch
/// classes, inside the register, starting in its window, no longer than allowed and
/// ending before the next note's window.
fn check_every_owed_note(context: &Value, text: &str) {
    let score = read_back(context, text);
    let grid = context["grid"].as_i64().expect("grid");
    for (v, voice) in context["voices"]
        .as_array()
        .expect("voices")
        .iter()
        .enumerate()
    {
        let owed = voice["notes"].as_array().expect("notes");
        let events = &score.voices[v].events;
        assert_eq!(events.len(), owed.len(), "{}", voice["name"]);
        let (low, high) = (voice["register"][0].as_u64(), voice["register"][1].as_u64());
        for (j, (event, note)) in events.iter().zip(owed).enumerate() {
            let mut pcs: Vec<u64> = event.pitches.iter().map(|p| u64::from(p.pc())).collect();
            let mut want: Vec<u64> = note["pcs"]
                .as_array()
                .expect("pcs")
                .iter()
                .filter_map(Value::as_u64)
                .collect();
            pcs.sort_unstable();
            want.sort_unstable();
            assert_eq!(pcs, want, "{} note {j}", voice["name"]);
            for p in &event.pitches {
                let midi = Some(u64::from(p.midi));
                assert!(
                    low <= midi && midi <= high,
                    "{} note {j}: {}",
                    voice["name"],
                    p.midi
                );
            }
            let onset = slot(event.onset, grid);
            let (lo, hi) = (
                note["onset_slots"][0].as_i64(),
                note["onset_slots"][1].as_i64(),
            );
            assert!(
                Some(onset) >= lo && Some(onset) <= hi,
                "{} note {j} at {onset}",
                voice["name"]
            );
            let end = slot(event.onset + event.duration, grid);
            assert!(end - onset <= note["max_length"].as_i64().expect("max_length"));
            if let Some(next) = owed.get(j + 1) {
                assert!(
                    Some(end) <= next["onset_slots"][0].as_i64(),
                    "{} note {j} runs into the next",
                    voice["name"]
                );
            }
        }
    }
}

fn voice(name: &str, index: u32, register: [u8; 2], notes: Value) -> Value {
    json!({"voice": index, "name": name, "form": "P0", "register": register, "notes": notes})
}

fn note(pcs: &[u8], window: [u32; 2], max_length: u32) -> Value {
    json!({"tag": "P0:1", "pcs": pcs, "onset_slots": window, "max_length": max_length})
}

fn section(voices: Vec<Value>) -> Value {
    json!({"domain": "twelve-tone", "request": "section", "section": 0, "attempt": 0,
           "slots": 8, "bar_slots": 8, "grid": 8, "voices": voices})
}

#[test]
fn a_pitch_class_sounding_in_another_voice_is_sounded_later_or_cut_short() {
    let context = section(vec![
        voice(
            "Upper",
            0,
            [60, 84],
            json!([note(&[0], [1, 1], 2), note(&[7], [4, 4], 2)]),
        ),
        // C is held by Upper in slots 1–2: the earliest free onset is slot 3.
        // G starts in Upper at slot 4: Lower's G from slot 1 stops before it.
        voice("Lower", 1, [36, 59], json!([note(&[7], [1, 1], 4)])),
        voice("Third", 2, [24, 47], json!([note(&[0], [1, 4], 4)])),
    ]);
    let text = reply(&context).expect("answers");
    assert_eq!(text, "Upper: C5@1>2 G4@4>2\nLower: G2@1>3\nThird: C2@3>4\n");
    read_back(&context, &text);
}

#[test]
fn each_note_stays_near_the_previous_one_and_below_the_voice_above() {
    let context = section(vec![
        voice("Upper", 0, [60, 72], json!([note(&[2], [1, 1], 4)])),
        // Middle of 48–80 is 64: F4 (65) is nearest but would sit above Upper's D4.
        // Then C near F3 and C# near that C (C#4, nearer the middle, is not chosen).
        voice(
            "Lower",
            1,
            [48, 80],
            json!([
                note(&[5], [1, 1], 2),
                note(&[0], [3, 3], 2),
                note(&[1], [5, 5], 2)
            ]),
        ),
    ]);
    assert_eq!(
        reply(&context).expect("answers"),
        "Upper: D4@1>4\nLower: F3@1>2 C3@3>2 C#3@5>2\n"
    );
}

#[test]
fn the_first_note_leads_on_from_the_previous_section() {
    // Register 48–84, middle 66: without a previous note G# is 68 (G#4); after a
    // last accepted note of 80 (G#5) the line stays up there, and B follows at 83.
    let notes = json!([note(&[8], [1, 1], 2), note(&[11], [3, 3], 2)]);
    let alone = section(vec![voice("Solo", 0, [48, 84], notes.clone())]);
    assert_eq!(reply(&alone).expect("answers"), "Solo: G#4@1>2 B4@3>2\n");
    let mut led = voice("Solo", 0, [48, 84], notes);
    led["previous_pitch"] = json!(80);
    assert_eq!(
        reply(&section(vec![led])).expect("answers"),
        "Solo: G#5@1>2 B5@3>2\n"
    );
}

#[test]
fn a_patch_of_two_positions_is_one_chord_written_low_to_high() {
    let mut context = section(vec![voice(
        "Soprano",
        0,
        [60, 81],
        json!([note(&[4, 0], [2, 3], 3)]),
    )]);
    context["request"] = json!("patch");
    let text = reply(&context).expect("answers");
    assert_eq!(text, "Soprano: E4+C5@2>3\n");
    let score = read_back(&context, &text);
    assert_eq!(score.voices[0].events[0].pitches.len(), 2);
}

#[test]
fn an_unusable_twelve_tone_context_is_refused_naming_the_key() {
    let good = || {
        section(vec![voice(
            "Soprano",
            0,
            [60, 81],
            json!([note(&[4], [1, 2], 3)]),
        )])
    };
    let with = |edit: &dyn Fn(&mut Value)| {
        let mut c = good();
        edit(&mut c);
        c
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            with(&|c| c["request"] = json!("whole")),
            "context.request \"whole\" names no voices or row positions; this plugin answers section, patch and rewrite requests",
        ),
        (
            with(&|c| c["request"] = json!(3)),
            "context.request must be \"section\", \"patch\" or \"rewrite\", got 3",
        ),
        (
            with(&|c| c["slots"] = json!(0)),
            "context.slots must be a whole number from 1 to 4096, got 0",
        ),
        (
            with(&|c| c["voices"] = json!([])),
            "context.voices must be a non-empty list, got []",
        ),
        (
            with(&|c| c["voices"][0]["name"] = json!("Alto: 2")),
            "context.voices[0].name must be a name of letters, digits, spaces, `-` or `_`, got \"Alto: 2\"",
        ),
        (
            with(&|c| c["voices"][0]["register"] = json!([81, 60])),
            "context.voices[0].register must be [low, high], whole numbers from 0 to 127 with low <= high, got [81,60]",
        ),
        (
            with(&|c| c["voices"][0]["notes"][0]["pcs"] = json!([4, 12])),
            "context.voices[0].notes[0].pcs[1] must be a whole number from 0 to 11, got 12",
        ),
        (
            with(&|c| c["voices"][0]["notes"][0]["pcs"] = json!([4, 4])),
            "context.voices[0].notes[0].pcs names pitch class 4 twice",
        ),
        (
            with(&|c| c["voices"][0]["notes"][0]["onset_slots"] = json!([1, 9])),
            "context.voices[0].notes[0].onset_slots must be [low, high], whole numbers from 1 to 8 with low <= high, got [1,9]",
        ),
        (
            with(&|c| {
                c["voices"][0]["notes"][0]
                    .as_object_mut()
                    .map(|n| n.remove("max_length"));
            }),
            "context.voices[0].notes[0].max_length must be a whole number from 1 to 8, got nothing",
        ),
        (
            with(&|c| c["voices"][0]["register"] = json!([65, 67])),
            "context.voices[0].register [65, 67] holds no pitch of pitch class 4 (owed by context.voices[0].notes[0])",
        ),
    ];
    for (context, message) in cases {
        assert_eq!(
            reply(&context),
            Err(message.to_string()),
            "context {context}"
        );
    }
}

#[test]
fn other_contexts_still_get_the_generic_phrase() {
    for context in [
        json!(null),
        json!({"domain": "counterpoint", "voice": "Cantus", "allowed_pitch_classes": [2, 4]}),
        json!({"allowed_pitch_classes": [9, 6, 7], "meter": "3/4"}),
    ] {
        let request = json!({"messages": [], "context": context});
        assert_eq!(
            answer(&request),
            phrase::answer(&request),
            "context {context}"
        );
        assert!(answer(&request).is_ok());
    }
}
