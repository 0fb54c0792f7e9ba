//! Table-driven tests of the brief compiler: each brief, the spec fields it must
//! produce. Every case checks length, voices, meter, tempo, row and techniques in
//! full (unmentioned fields must be the documented defaults), plus anything else
//! the brief asks for, and that nothing was left not understood unless expected.

use cantus_music::Meter;
use cantus_twelve_tone::row::Convention;
use cantus_twelve_tone::spec::{
    CompiledBrief, Repetition, RowChoice, Spec, Strength, Technique, compile_brief,
};
use num_rational::Ratio;

struct Case {
    brief: &'static str,
    bars: u32,
    voices: usize,
    meter: (u32, u32),
    tempo: u32,
    row: RowChoice,
    techniques: Vec<Technique>,
    not_understood: Vec<&'static str>,
    more: Option<fn(&Spec)>,
}

/// A case expecting every field at its default; builders override.
fn case(brief: &'static str) -> Case {
    Case {
        brief,
        bars: 16,
        voices: 3,
        meter: (4, 4),
        tempo: 72,
        row: RowChoice::Default,
        techniques: Vec::new(),
        not_understood: Vec::new(),
        more: None,
    }
}

impl Case {
    fn bars(mut self, bars: u32) -> Case {
        self.bars = bars;
        self
    }
    fn voices(mut self, voices: usize) -> Case {
        self.voices = voices;
        self
    }
    fn meter(mut self, num: u32, den: u32) -> Case {
        self.meter = (num, den);
        self
    }
    fn tempo(mut self, tempo: u32) -> Case {
        self.tempo = tempo;
        self
    }
    fn row(mut self, row: RowChoice) -> Case {
        self.row = row;
        self
    }
    fn historical(self, id: &str) -> Case {
        self.row(RowChoice::Historical { id: id.to_string() })
    }
    fn technique(mut self, technique: Technique) -> Case {
        self.techniques.push(technique);
        self
    }
    fn not_understood(mut self, words: &[&'static str]) -> Case {
        self.not_understood = words.to_vec();
        self
    }
    fn and(mut self, check: fn(&Spec)) -> Case {
        self.more = Some(check);
        self
    }
}

fn canon(leader: usize, follower: usize, delay_bars: u32, transpose: i8) -> Technique {
    Technique::Canon {
        leader,
        follower,
        delay_bars,
        transpose,
    }
}

fn mirror(leader: usize, follower: usize, delay_bars: u32, axis: Option<u8>) -> Technique {
    Technique::InversionCanon {
        leader,
        follower,
        delay_bars,
        axis,
    }
}

fn contrast(strength: Strength) -> Technique {
    Technique::RegisterContrast { strength }
}

const OP21_EXPLICIT: [u8; 12] = [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9];

fn cases() -> Vec<Case> {
    vec![
        case("Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, with a canon between the outer voices and strong register contrast")
            .meter(3, 4)
            .historical("WebernOp21")
            .technique(canon(0, 2, 1, 0))
            .technique(contrast(Strength::Strong)),
        case("sixteen bars for a string quartet").voices(4).not_understood(&["string"]),
        case("twenty-four measures, two-voice, in 6/8 time, ♩=96")
            .bars(24)
            .voices(2)
            .meter(6, 8)
            .tempo(96),
        case("a 32 bar piece, solo, slow").bars(32).voices(1).tempo(60),
        case("a four-bar duet, tempo 100, on the row 0 11 7 8 3 1 2 10 6 5 4 9")
            .bars(4)
            .voices(2)
            .tempo(100)
            .row(RowChoice::Explicit { pcs: OP21_EXPLICIT })
            .and(|s| assert_eq!(s.section_bars, 4)),
        case("a trio on the row 0,E,7,8,3,1,2,T,6,5,4,9 with a canon between voices 1 and 3 at two bars")
            .row(RowChoice::Explicit { pcs: OP21_EXPLICIT })
            .technique(canon(0, 2, 2, 0)),
        case("on the tone row C B G G# D# C# D A# F# F E A for monophonic voice")
            .voices(1)
            .row(RowChoice::Explicit { pcs: OP21_EXPLICIT }),
        case("a quintet on the Lyric Suite row with a mirror canon")
            .voices(5)
            .historical("BergLyricSuite")
            .technique(mirror(0, 4, 1, None)),
        case("Schoenberg Op. 25, sextet").voices(6).historical("SchoenbergOp25"),
        case("Op. 21 by Webern, a duo").voices(2).historical("WebernOp21"),
        case("Berg's Violin Concerto in 4/4, 12 bars, very slow")
            .bars(12)
            .tempo(44)
            .historical("BergViolinConcerto"),
        case("an all-interval row, three voices, fast").tempo(132).row(RowChoice::AllInterval { seed: 0 }),
        case("an all-interval row with seed 42 for a duo")
            .voices(2)
            .row(RowChoice::AllInterval { seed: 42 }),
        case("compose a short serial twelve-tone dodecaphonic piece please"),
        case("a canon at two bars in waltz time").meter(3, 4).technique(canon(0, 2, 2, 0)),
        case("an inversion canon between the soprano and the bass, quartet")
            .voices(4)
            .technique(mirror(0, 3, 1, None)),
        case("a quartet with a canon at the fifth below between the upper two voices")
            .voices(4)
            .technique(canon(0, 1, 1, -7)),
        case("the outer voices in mirror canon at one bar around pitch class 4, quartet")
            .voices(4)
            .technique(mirror(0, 3, 1, Some(4))),
        case("canon between voices 2 and 4").voices(4).technique(canon(1, 3, 1, 0)),
        case("a canon between the first and last voices, one bar apart, at the octave, for two voices")
            .voices(2)
            .technique(canon(0, 1, 1, 12)),
        case("a canon between the alto and the tenor at 3 semitones up, SATB quartet")
            .voices(4)
            .technique(canon(1, 2, 1, 3))
            .not_understood(&["SATB"]),
        case("a hundred and twelve bars in 7/8").bars(112).meter(7, 8),
        case("a piece with lots of pizzicato and harmonics")
            .not_understood(&["lots of pizzicato and harmonics"]),
        case("title \"Night Music\", a trio, moderate tempo")
            .tempo(100)
            .and(|s| assert_eq!(s.title.as_deref(), Some("Night Music"))),
        case("a four-voice piece at tempo 80 with tremolo up to 2 repetitions per statement")
            .voices(4)
            .tempo(80)
            .and(|s| assert_eq!(s.repetition, Repetition::Tremolo { max_per_statement: 2 })),
        case("zero-centred labels, q=96, three-four time, no chords")
            .meter(3, 4)
            .tempo(96)
            .and(|s| {
                assert_eq!(s.convention, Convention::ZeroCentred);
                assert_eq!(s.texture.max_chord, 1);
            }),
        case("relative labelling, ♩ = 60, in common time").tempo(60).and(|s| {
            assert_eq!(s.convention, Convention::Relative);
        }),
        case("8 bars in 4-bar sections, no repeated notes, chords of up to 3 notes, crossing up to 20%")
            .bars(8)
            .and(|s| {
                assert_eq!(s.section_bars, 4);
                assert_eq!(s.repetition, Repetition::Forbidden);
                assert_eq!(s.texture.max_chord, 3);
                assert_eq!(s.max_crossing, Ratio::new(1, 5));
            }),
        case("a 2-bar piece for two voices, no voice crossing, tremolos allowed")
            .bars(2)
            .voices(2)
            .and(|s| {
                assert_eq!(s.max_crossing, Ratio::from_integer(0));
                assert_eq!(s.repetition, Repetition::Tremolo { max_per_statement: 3 });
                assert_eq!(s.section_bars, 2);
            }),
        case("24 bars, alla breve, andante, with register contrast")
            .bars(24)
            .meter(2, 2)
            .tempo(80)
            .technique(contrast(Strength::Mild)),
        case("in sections of 8 bars, a 32-measure quartet at 120 beats per minute")
            .bars(32)
            .voices(4)
            .tempo(120)
            .and(|s| assert_eq!(s.section_bars, 8)),
        case("a piece in the style of Webern").not_understood(&["style of Webern"]),
        case("a duo on an all-interval series, seed 7, in 5/8 at 144 bpm")
            .voices(2)
            .meter(5, 8)
            .tempo(144)
            .row(RowChoice::AllInterval { seed: 7 }),
        case("Schoenberg's Op. 27 No. 4 for a sextet, moderately fast")
            .voices(6)
            .tempo(112)
            .historical("SchoenbergOp27No4"),
        case("two canons: a canon between voices 1 and 2 and a mirror canon between voices 3 and 4 at two bars")
            .voices(4)
            .technique(canon(0, 1, 1, 0))
            .technique(mirror(2, 3, 2, None)),
        case("a trio on the row 0 11 7 8 3 1 2 10 6 5 4 9, 16 bars, seed 3")
            .row(RowChoice::Explicit { pcs: OP21_EXPLICIT })
            .not_understood(&["seed 3 (only an all-interval row takes a seed)"]),
    ]
}

fn check(case: &Case, compiled: &CompiledBrief) {
    let s = &compiled.spec;
    let brief = case.brief;
    assert_eq!(s.bars, case.bars, "bars of {brief:?}");
    assert_eq!(s.voices.len(), case.voices, "voices of {brief:?}");
    assert_eq!(
        s.meter,
        Meter::new(case.meter.0, case.meter.1),
        "meter of {brief:?}"
    );
    assert_eq!(s.tempo, case.tempo, "tempo of {brief:?}");
    assert_eq!(s.row, case.row, "row of {brief:?}");
    assert_eq!(s.techniques, case.techniques, "techniques of {brief:?}");
    assert_eq!(
        compiled.not_understood, case.not_understood,
        "not understood in {brief:?}"
    );
    assert_eq!(s.validate(), Ok(()), "compiled specs are valid: {brief:?}");
    if let Some(more) = case.more {
        more(s);
    }
}

#[test]
fn every_brief_in_the_table_compiles_to_its_expected_spec() {
    let cases = cases();
    assert!(cases.len() >= 30, "the table has {} briefs", cases.len());
    for case in &cases {
        let compiled = compile_brief(case.brief)
            .unwrap_or_else(|e| panic!("{:?} should compile, got: {e}", case.brief));
        check(case, &compiled);
    }
}

#[test]
fn the_flagship_brief_lists_exactly_the_defaults_it_needed() {
    let brief = "Write a 16-bar piece for three voices in 3/4 at 72 bpm on Webern's Op. 21 row, \
                 with a canon between the outer voices and strong register contrast";
    let compiled = compile_brief(brief).expect("compiles");
    let applied = compiled.defaults_applied.join("\n");
    assert!(
        applied.contains("canon delay: 1 bar (default)"),
        "{applied}"
    );
    assert!(applied.contains("voice names and registers: Soprano 60–81, Tenor 48–69, Bass 40–62"));
    // Everything the brief says must not be reported as defaulted.
    for asked in [
        "bars:",
        "meter:",
        "tempo:",
        "row:",
        "voices:",
        "canon voices",
        "strength",
    ] {
        assert!(
            !applied.contains(asked),
            "{asked:?} was given, yet defaulted:\n{applied}"
        );
    }
}

#[test]
fn a_bare_brief_reports_every_default_it_used() {
    let compiled = compile_brief("Compose a piece.").expect("compiles");
    assert_eq!(
        compiled.spec,
        Spec::default(),
        "all defaults, as documented"
    );
    let applied = compiled.defaults_applied.join("\n");
    for expected in [
        "bars: 16 (default)",
        "meter: 4/4 (default)",
        "tempo: 72 bpm (default)",
        "voices: 3 (default)",
        "row: SchoenbergOp25",
        "labelling convention: zero-centred (default)",
        "repetition: forbidden",
        "voice crossing: at most 1/10 of the time (default)",
        "sections: 4 bars (default)",
    ] {
        assert!(
            applied.contains(expected),
            "missing {expected:?} in:\n{applied}"
        );
    }
}

#[test]
fn the_same_request_said_twice_is_not_a_contradiction() {
    let compiled =
        compile_brief("a trio for three voices, 16 bars, sixteen measures").expect("compiles");
    assert_eq!(compiled.spec.voices.len(), 3);
    assert_eq!(compiled.spec.bars, 16);
}

#[test]
fn a_tempo_word_agrees_with_a_number_inside_its_band() {
    let compiled = compile_brief("slow, at 66 bpm").expect("compiles");
    assert_eq!(compiled.spec.tempo, 66, "the number wins when it agrees");
}

#[test]
fn strong_register_contrast_separates_the_compiled_voices() {
    let compiled = compile_brief("a quartet with strong register contrast").expect("compiles");
    let working = compiled.spec.working_voices();
    let declared = &compiled.spec.voices;
    for (w, d) in working.iter().zip(declared) {
        assert!(
            w.low >= d.low && w.high <= d.high && w.high - w.low >= 11,
            "{w:?} in {d:?}"
        );
    }
    let overlap = |v: &[cantus_twelve_tone::spec::VoiceSpec]| -> i32 {
        v.windows(2)
            .map(|p| (i32::from(p[1].high) - i32::from(p[0].low) + 1).max(0))
            .sum()
    };
    assert!(overlap(&working) < overlap(declared) / 4, "{working:?}");
}
