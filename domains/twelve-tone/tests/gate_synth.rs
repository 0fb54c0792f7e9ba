//! Synthetic pieces are what they claim: valid (the strict gate passes every one, at
//! every size, voice count, grid, meter and row), stating the forms they recorded
//! (the gate re-derives the same labels), deterministic in their seed, writable as
//! grammar text; and a piece written for a plan passes that plan's gate.

use cantus_music::grammar::{self, ParseOptions};
use cantus_music::{Meter, Time};
use cantus_twelve_tone::Blueprint;
use cantus_twelve_tone::gate::{GateMode, SerialGate, report_text};
use cantus_twelve_tone::row::{Row, resolve};
use cantus_twelve_tone::spec::{RowChoice, Spec, Technique};
use cantus_twelve_tone::synth::{SynthOptions, from_plan, piece};

fn rows() -> [Row; 4] {
    [
        resolve("SchoenbergOp25").unwrap().row,
        resolve("WebernOp21").unwrap().row,
        Row::all_interval(7),
        resolve("BergLyricSuite").unwrap().row,
    ]
}

fn options(seed: u64) -> SynthOptions {
    let mut opts = SynthOptions::new(
        rows()[seed as usize % 4],
        1 + seed as usize % 6,
        20 + (seed as usize * 37) % 400,
        seed,
    );
    opts.max_chord = 1 + (seed % 4) as u8;
    opts.chord_percent = (seed % 5) as u8 * 10;
    opts.rest_percent = (seed % 3) as u8 * 15;
    opts.grid = [
        Time::new(1, 4),
        Time::new(1, 3),
        Time::new(1, 12),
        Time::new(1, 2),
    ][seed as usize % 4];
    opts.meter = [
        Meter::new(4, 4),
        Meter::new(3, 4),
        Meter::new(6, 8),
        Meter::new(5, 8),
    ][(seed / 4) as usize % 4];
    opts
}

#[test]
fn synthetic_pieces_pass_the_strict_gate_and_state_their_recorded_forms() {
    for seed in 0..120u64 {
        let opts = options(seed);
        let p = piece(&opts);
        assert_eq!(p.score.voices.len(), opts.voices);
        assert!(p.score.event_count() >= opts.events);
        let report = p.gate(GateMode::Strict).judge_score(&p.score);
        assert!(report.passed, "seed {seed}:\n{}", report_text(&report));
        for (v, voice) in p.score.voices.iter().enumerate() {
            let labels = report.facts["labels"][&voice.name].as_str().unwrap();
            let derived: Vec<&str> = labels.split(' ').collect();
            assert_eq!(
                derived.len(),
                p.forms[v].len(),
                "seed {seed}, {}",
                voice.name
            );
            for (statement, form) in derived.iter().zip(&p.forms[v]) {
                assert!(
                    statement.split('=').any(|l| l == form.to_string()),
                    "seed {seed}: {} stated {form}, the gate derived {statement}",
                    voice.name
                );
            }
        }
    }
}

#[test]
fn the_same_seed_writes_the_same_piece() {
    let a = piece(&options(17));
    let b = piece(&options(17));
    let c = piece(&options(18));
    assert_eq!(a.score, b.score);
    assert_ne!(a.score, c.score);
}

#[test]
fn sixteenth_grid_pieces_survive_the_text_grammar() {
    let mut opts = SynthOptions::new(rows()[0], 4, 400, 5);
    opts.max_chord = 3;
    let p = piece(&opts);
    let text = grammar::write(&p.score).unwrap();
    let parsed = grammar::parse(&text, &ParseOptions::default())
        .unwrap()
        .score;
    assert_eq!(parsed.event_count(), p.score.event_count());
    let report = p.gate(GateMode::Relaxed).judge_score(&parsed);
    assert!(report.passed, "{}", report_text(&report));
    assert_eq!(
        report.facts["events_relying_on_tags"],
        p.score.event_count() as u64
    );
}

fn spec(voices: usize, row: RowChoice, meter: Meter, bars: u32, section_bars: u32) -> Spec {
    let mut spec = Spec::with_voice_count(voices);
    spec.row = row;
    spec.meter = meter;
    spec.bars = bars;
    spec.section_bars = section_bars;
    spec
}

#[test]
fn pieces_written_for_a_plan_pass_that_plans_gate() {
    let choices = [
        RowChoice::Default,
        RowChoice::Historical {
            id: "WebernOp21".to_owned(),
        },
        RowChoice::AllInterval { seed: 3 },
        RowChoice::Explicit {
            pcs: [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9],
        },
    ];
    let meters = [Meter::new(4, 4), Meter::new(3, 4), Meter::new(6, 8)];
    let mut checked = 0;
    for seed in 0..24u64 {
        let voices = 1 + seed as usize % 6;
        let mut s = spec(
            voices,
            choices[seed as usize % 4].clone(),
            meters[seed as usize % 3],
            8 + (seed % 3) as u32 * 4,
            2 + (seed % 3) as u32,
        );
        if voices >= 2 && seed % 2 == 0 {
            s.techniques.push(Technique::Canon {
                leader: 0,
                follower: voices - 1,
                delay_bars: 1,
                transpose: 0,
            });
        }
        let plan = Blueprint::new(&s, seed).unwrap();
        let score = from_plan(&plan, seed).unwrap();
        let gate = SerialGate::for_plan(&plan, GateMode::Strict);
        let report = gate.judge_score(&score);
        assert!(report.passed, "seed {seed}:\n{}", report_text(&report));
        assert_eq!(
            report.facts["statements"],
            (plan.sections.len() * voices) as u64
        );
        checked += 1;
    }
    assert_eq!(checked, 24);
}
