//! What an engraving shows, checked on the LilyPond source and by the real
//! LilyPond: statement labels where the gate cuts statements, repair colours by
//! rung and ghosts from a trace (rolled-back attempts ignored), interval figures
//! and violation marks for counterpoint; and a clean compile of all of it.

mod common;

use cantus_music::annotation::{Colour, MarkKind};
use cantus_music::grammar::{self, ParseOptions};
use cantus_music::{Score, time};
use cantus_render::annotate::{Layers, for_piece, repairs, rung_colour};
use cantus_render::engrave::{Target, engrave, source};
use cantus_render::trace::TraceView;
use cantus_render::{Piece, judge};
// The two music domains, linked so the registry holds them.
use cantus_counterpoint as _;
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::plugin::row_labels;
use cantus_twelve_tone::row::resolve;
use cantus_twelve_tone::synth::{SynthOptions, piece};

/// A trace of four events: one accepted, one repaired by the second rung, one
/// dropped, and a repaired one in an attempt a replan rolled back.
const TRACE: &str = r#"{"kind":"run","domain":"twelve-tone","proposer":"embedded","seed":0,"ladder":["trim","yield","retime"]}
{"kind":"event","section":0,"replan":0,"index":0,"location":{"bar":1,"voice":"V1","onset":"0"},"proposed":{"voice":0,"onset":"0","duration":"1","pitches":[60]},"verdict":[],"steps":[],"status":"repaired","rung":"trim","accepted":{"voice":0,"onset":"0","duration":"1","pitches":[60]}}
{"kind":"section","section":0,"replan":0,"outcome":"replanned"}
{"kind":"event","section":0,"replan":1,"index":0,"location":{"bar":1,"voice":"V1","onset":"0"},"proposed":{"voice":0,"onset":"0","duration":"1","pitches":[60]},"verdict":[],"steps":[],"status":"accepted","accepted":{"voice":0,"onset":"0","duration":"1","pitches":[60]}}
{"kind":"event","section":0,"replan":1,"index":1,"location":{"bar":1,"voice":"V1","onset":"1"},"proposed":{"voice":0,"onset":"1","duration":"2","pitches":[62]},"verdict":[],"steps":[],"status":"repaired","rung":"yield","accepted":{"voice":0,"onset":"1","duration":"1","pitches":[62]}}
{"kind":"event","section":0,"replan":1,"index":2,"location":{"bar":1,"voice":"V1","onset":"3"},"proposed":{"voice":0,"onset":"3","duration":"1","pitches":[71]},"verdict":[{"predicate":"TT-ROW"}],"steps":[{"pass":1,"rung":"trim","before":{"voice":0,"onset":"3","duration":"1","pitches":[71]},"after":null}],"status":"dropped","accepted":null}
{"kind":"section","section":0,"replan":1,"outcome":"kept"}
"#;

fn three_notes() -> Score {
    let text = "KEY: ? | METER: 4/4 | TEMPO: 60 | GRID: 4th\nVOICES: V1\n@1 [-]\n  V1: C4@1>1 D4@2>1 E4@3>1\n";
    grammar::parse(text, &ParseOptions::default())
        .unwrap()
        .score
}

#[test]
fn a_withdrawn_event_is_not_coloured_as_if_it_stood_in_the_piece() {
    // Accepted after a repair, then withdrawn with the drop before it: the note at
    // onset 1 in the piece is the one asked for again, not this certificate's.
    let trace = TRACE.replace(
        r#""status":"repaired","rung":"yield","accepted""#,
        r#""status":"repaired","rung":"yield","withdrawn":true,"accepted""#,
    );
    let trace = TraceView::parse(&trace).expect("reads");
    assert!(!trace.events[2].kept, "withdrawn");
    assert!(trace.events[1].kept && trace.events[3].kept);
    let marks = repairs(&three_notes(), &trace);
    assert!(
        marks.marks.iter().all(|m| m.at.onset != time(1, 1)),
        "{:?}",
        marks.marks
    );
}

#[test]
fn the_trace_colours_repairs_by_rung_and_draws_drops_as_ghosts() {
    let score = three_notes();
    let trace = TraceView::parse(TRACE).expect("reads");
    assert_eq!(trace.events.len(), 4);
    assert!(!trace.events[0].kept, "the rolled-back attempt");
    let marks = repairs(&score, &trace);
    assert_eq!(
        marks
            .marks
            .iter()
            .map(|m| (m.at.onset, m.kind.clone()))
            .collect::<Vec<_>>(),
        vec![
            (time(1, 1), MarkKind::Colour(rung_colour(1))),
            (
                time(3, 1),
                MarkKind::Ghost {
                    pitches: vec![71],
                    duration: time(1, 1)
                }
            ),
        ],
        "the rolled-back repair of the first note is not drawn"
    );
    assert_eq!(rung_colour(1), Colour::Green);
    let ly = source(&score, &marks, Target::Pdf).unwrap();
    assert!(
        ly.contains("\\cantusGreen d'4") && ly.contains("\\cantusGhost \\parenthesize b'4"),
        "{ly}"
    );
}

#[test]
fn a_trace_line_that_is_not_json_is_named() {
    let err = TraceView::parse("{\"kind\":\"run\"}\nnot json\n").expect_err("line 2");
    assert_eq!(err.0, 2);
}

#[test]
fn row_labels_stand_over_the_first_note_of_each_statement() {
    let mut opts = SynthOptions::new(resolve("SchoenbergOp25").unwrap().row, 2, 48, 5);
    opts.tags = false;
    let synth = piece(&opts);
    let statements = synth.gate(GateMode::Strict).statements(&synth.score);
    let marks = row_labels(&synth.score, &statements, true);
    for st in &statements {
        let at: Vec<&MarkKind> = marks.at(st.voice, st.onset).collect();
        assert!(at.contains(&&MarkKind::Label(st.label())), "{st:?}: {at:?}");
        assert!(at.contains(&&MarkKind::Position(1)), "{st:?}");
    }
    let positions = marks
        .marks
        .iter()
        .filter(|m| matches!(m.kind, MarkKind::Position(_)))
        .count();
    assert_eq!(
        positions,
        12 * statements.len(),
        "every position of every statement, once"
    );
}

#[test]
fn counterpoint_gets_figures_and_red_violation_marks() {
    // D dorian cantus; the counterpoint moves in parallel fifths in bars 2-3.
    let text = "KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 4th | BARS: 4\nVOICES: Counterpoint, Cantus\n\
                @1 [-]\n  Counterpoint: A4@1>4\n  Cantus: D4@1>4\n@2 [-]\n  Counterpoint: C5@1>4\n  Cantus: F4@1>4\n\
                @3 [-]\n  Counterpoint: D5@1>4\n  Cantus: G4@1>4\n@4 [-]\n  Counterpoint: D5@1>4\n  Cantus: D4@1>4\n";
    let score = grammar::parse(text, &ParseOptions::default())
        .unwrap()
        .score;
    let piece = Piece::from_score("cp.txt".into(), score).expect("a domain");
    assert_eq!(piece.domain.id().as_str(), "counterpoint");
    let verdict = judge(&piece);
    assert!(!verdict.passed);
    assert!(
        verdict
            .findings
            .iter()
            .any(|f| f.rule == "FS-P-parallel-perfect"),
        "{:?}",
        verdict.findings
    );
    let marks = for_piece(&piece, piece.score().unwrap(), &verdict, Layers::default());
    let figures: Vec<String> = marks
        .marks
        .iter()
        .filter_map(|m| match &m.kind {
            MarkKind::Label(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(figures, ["5", "5", "5", "8"]);
    let ly = source(piece.score().unwrap(), &marks, Target::Pdf).unwrap();
    assert!(
        ly.contains("\"FS-P-parallel-perfect\"") && ly.contains("\\cantusRed"),
        "{ly}"
    );
    assert!(!ly.contains("\\key"), "keyless: no key signature");

    let Some(_) = common::tool_or_skip(cantus_render::tools::lilypond()) else {
        return;
    };
    let dir = common::temp_dir("cp");
    for target in [Target::Svg, Target::Png, Target::Pdf] {
        let text = source(piece.score().unwrap(), &marks, target).unwrap();
        let done = engrave(&text, &dir, "cp", target).expect("engraved");
        assert!(done.warnings.is_empty(), "{:?}", done.warnings);
        assert!(std::fs::metadata(&done.file).unwrap().len() > 1000);
    }
    let svg = std::fs::read_to_string(dir.join("cp.svg")).unwrap();
    assert_eq!(
        svg.matches("class=\"cantus-event\"").count(),
        8,
        "one per note"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_twelve_tone_piece_with_its_trace_engraves_cleanly() {
    let Some(_) = common::tool_or_skip(cantus_render::tools::lilypond()) else {
        return;
    };
    let mut opts = SynthOptions::new(resolve("WebernOp21").unwrap().row, 4, 96, 2);
    opts.tags = true;
    let synth = piece(&opts);
    let piece = Piece::from_score("quartet.txt".into(), synth.score.clone()).expect("a domain");
    let verdict = judge(&piece);
    assert!(verdict.passed, "{:?}", verdict.findings);
    let layers = Layers {
        positions: true,
        ..Layers::default()
    };
    let marks = for_piece(&piece, &synth.score, &verdict, layers);
    let dir = common::temp_dir("tt");
    let done = engrave(
        &source(piece.score().unwrap(), &marks, Target::Svg).unwrap(),
        &dir,
        "q",
        Target::Svg,
    )
    .expect("engraved");
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    let svg = std::fs::read_to_string(&done.file).unwrap();
    assert!(
        svg.contains(">P") || svg.contains(">I") || svg.contains(">R"),
        "labels are drawn as text"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
