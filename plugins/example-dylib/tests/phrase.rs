//! The example plugin's answers are well-formed onset-slot grammar that the strict
//! reader accepts, follow the request's context, and refuse unusable contexts by name.

use cantus_music::grammar::{ParseOptions, parse};
use cantus_plugin_example::phrase::{DEFAULT_PITCH_CLASSES, answer};
use serde_json::{Value, json};

fn text_of(request: Value) -> String {
    let reply = answer(&request).expect("the example answers");
    assert_eq!(reply["model"], "example-serial");
    reply["text"]
        .as_str()
        .expect("text is a string")
        .to_string()
}

#[test]
fn without_context_it_writes_the_fixed_row_as_one_strictly_readable_bar() {
    let text = text_of(json!({"messages": [{"role": "user", "content": "anything"}]}));
    assert_eq!(
        text,
        "KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 16 | BARS: 1\nVOICES: Voice\n@1 [-]\n  \
         Voice: C4@1>1 B4@2>1 G4@3>1 G#4@4>1 D#4@5>1 C#4@6>1 D4@7>1 A#4@8>1 F#4@9>1 F4@10>1 E4@11>1 A4@12>1\n"
    );
    let score = parse(&text, &ParseOptions::named("reply"))
        .expect("strict read")
        .score;
    let pcs: Vec<u8> = score.voices[0]
        .events
        .iter()
        .map(|e| e.pitches[0].pc())
        .collect();
    assert_eq!(pcs, DEFAULT_PITCH_CLASSES);
}

#[test]
fn the_context_chooses_pitch_classes_bar_meter_grid_voice_and_register() {
    let text = text_of(json!({"messages": [], "context": {
        "allowed_pitch_classes": [9, 6, 7], "bar": 5, "meter": "3/4", "grid": 8,
        "voice": "Viola", "octave": 3, "notes": 6, "row_form": "P9"
    }}));
    let score = parse(&text, &ParseOptions::named("reply"))
        .expect("strict read")
        .score;
    assert_eq!(score.voices[0].name, "Viola");
    let events = &score.voices[0].events;
    assert_eq!(events.len(), 6);
    // Bar 5 of 3/4 starts at quarter 12; six notes of one eighth each fill it.
    let onsets: Vec<String> = events.iter().map(|e| e.onset.to_string()).collect();
    assert_eq!(onsets, ["12", "25/2", "13", "27/2", "14", "29/2"]);
    let midi: Vec<u8> = events.iter().map(|e| e.pitches[0].midi).collect();
    assert_eq!(midi, [57, 54, 55, 57, 54, 55]);
}

#[test]
fn an_unusable_context_is_refused_naming_the_key() {
    let cases = [
        (
            json!({"allowed_pitch_classes": [0, 12]}),
            "context.allowed_pitch_classes[1] must be a pitch class from 0 to 11, got 12",
        ),
        (
            json!({"allowed_pitch_classes": []}),
            "context.allowed_pitch_classes must be a non-empty list, got []",
        ),
        (
            json!({"bar": 0}),
            "context.bar must be a whole number from 1 to 10000, got 0",
        ),
        (
            json!({"meter": "4-4"}),
            "context.meter must be \"num/den\" with each from 1 to 1000, got \"4-4\"",
        ),
        (
            json!({"meter": "3/8", "grid": 4}),
            "context.grid 4 does not divide a bar of 3/8 into whole slots",
        ),
        (
            json!({"voice": "Alto: 2"}),
            "context.voice must be a name of letters, digits, spaces, `-` or `_`, got \"Alto: 2\"",
        ),
        (
            json!({"notes": 17}),
            "context.notes must be a whole number from 1 to 16, got 17 (the bar has 16 slots)",
        ),
        (json!([1, 2]), "context must be a JSON object, got [1,2]"),
    ];
    for (context, message) in cases {
        let got = answer(&json!({"messages": [], "context": context}));
        assert_eq!(got, Err(message.to_string()), "context {context}");
    }
}
