//! The analyser on what is not twelve-tone music, or not music at all: Bach chorales
//! (from the shared corpus, when present), a scale, an empty score, a single note,
//! times no grid holds. Each gets an analysis that says what it is — little or
//! nothing explained, no row found — or a typed error; never a panic.

use cantus_music::format::read_path;
use cantus_music::{Event, Pitch, Score, Time, Voice};
use cantus_twelve_tone::analysis::{AnalysisError, Options, RowSource, Verdict, analyze};
use cantus_twelve_tone::row::resolve;
use std::path::PathBuf;

/// The shared corpus directory, or `None` after printing the SKIPPED line (a
/// failure when `CANTUS_REQUIRE_SHARED=1`).
fn corpus(set: &str) -> Option<PathBuf> {
    let shared = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    let dir = shared.join("data/corpus").join(set);
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "SKIPPED: analysis of the {set} corpus (shared data not found at {}; set CANTUS_SHARED)",
        shared.display()
    );
    assert!(
        std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
        "{msg}"
    );
    eprintln!("{msg}");
    None
}

fn one_voice(events: Vec<Event>) -> Score {
    Score {
        voices: vec![Voice {
            name: "V".into(),
            events,
            ..Voice::default()
        }],
        ..Score::default()
    }
}

fn note(onset: Time, midi: u8) -> Event {
    Event::new(onset, Time::from_integer(1), vec![Pitch::new(midi)])
}

#[test]
fn bach_chorales_are_not_twelve_tone() {
    let Some(dir) = corpus("bach_chorales") else {
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "musicxml"))
        .collect();
    files.sort();
    assert!(files.len() >= 100, "{} chorales", files.len());
    let op25 = resolve("SchoenbergOp25").unwrap().row;
    let (mut notes, mut by_complete) = (0usize, 0usize);
    // Every tenth chorale: inference and a given row both, on 15 pieces.
    for path in files.iter().step_by(10) {
        let score = read_path(path, false).expect("the corpus reads").score;
        let inferred = analyze(&score, &Options::default()).expect("a chorale is analysable");
        assert_eq!(
            inferred.row_source,
            RowSource::NotFound,
            "{}",
            path.display()
        );
        assert_eq!(inferred.verdict, Verdict::NotTwelveTone);
        // What the best candidate found is reported (not zero), without a name: it is
        // no more than chance finds in the same notes shuffled.
        assert!(inferred.row.is_some() && inferred.row_name.is_none());
        assert!(inferred.explained > 0, "{}", path.display());
        assert_eq!(
            inferred.unexplained.len() + inferred.explained,
            inferred.notes,
            "{}",
            path.display()
        );
        assert!(
            inferred.explained_by_complete * 5 < inferred.notes,
            "{}",
            path.display()
        );
        assert_eq!(inferred.control.copies.len(), 3);
        let listing = inferred.to_string();
        assert!(listing.contains("Row: none found"), "{listing}");
        assert!(listing.contains("Verdict: not twelve-tone"), "{listing}");
        assert!(listing.contains("Control: 3 copies"), "{listing}");

        let given = analyze(
            &score,
            &Options {
                row: Some(op25),
                ..Options::default()
            },
        )
        .unwrap();
        // A given row goes through the same gate, and is not named when it fails.
        assert_eq!(given.verdict, Verdict::NotTwelveTone, "{}", path.display());
        assert_eq!(given.row_source, RowSource::Given);
        assert_eq!(given.row_name, None, "{}", path.display());
        notes += given.notes;
        by_complete += given.explained_by_complete;
    }
    // Told a row, the analyser finds fragments that read as most of a form here and
    // there (a chorale has enough pitch classes for that), but hardly a whole one.
    assert!(by_complete * 20 < notes, "{by_complete} of {notes}");
}

#[test]
fn a_chromatic_scale_is_one_statement_of_nothing_in_particular() {
    // Twelve distinct pitch classes once: a row (the chromatic scale), explained by
    // itself, with nothing to name it by.
    let events = (0..12)
        .map(|k| note(Time::from_integer(k), 60 + k as u8))
        .collect();
    let a = analyze(&one_voice(events), &Options::default()).unwrap();
    assert_eq!(a.statements.len(), 1);
    assert_eq!(a.explained, 12);
    assert_eq!(a.row_name, None);
    // A diatonic scale up and down has no twelve-tone statement at all.
    let major = [0, 2, 4, 5, 7, 9, 11, 12, 11, 9, 7, 5, 4, 2, 0];
    let events = major
        .iter()
        .enumerate()
        .map(|(k, &d)| note(Time::from_integer(k as i64), 60 + d))
        .collect();
    let a = analyze(&one_voice(events), &Options::default()).unwrap();
    assert_eq!(a.row_source, RowSource::NotFound);
    assert_eq!(a.verdict, Verdict::NotTwelveTone);
    assert_eq!(a.explained, 0);
}

#[test]
fn empty_and_tiny_pieces_are_reported_not_refused() {
    let a = analyze(&Score::default(), &Options::default()).unwrap();
    assert_eq!((a.notes, a.verdict), (0, Verdict::Empty));
    assert!(a.to_string().contains("empty (no notes)"), "{a}");
    let a = analyze(
        &one_voice(vec![note(Time::from_integer(0), 60)]),
        &Options::default(),
    )
    .unwrap();
    assert_eq!(
        (a.notes, a.explained, a.verdict),
        (1, 0, Verdict::NotTwelveTone)
    );
    let given = Options {
        row: Some(resolve("WebernOp21").unwrap().row),
        ..Options::default()
    };
    let a = analyze(&one_voice(vec![note(Time::from_integer(0), 60)]), &given).unwrap();
    assert!(a.statements.is_empty());
    assert_eq!(a.unexplained.len(), 1);
}

#[test]
fn impossible_times_and_options_are_typed_errors() {
    // Onsets whose common grid exceeds 2^58 ticks per quarter note.
    let primes: [i64; 8] = [
        1_000_003, 1_000_033, 1_000_037, 1_000_039, 999_983, 999_979, 999_961, 999_959,
    ];
    let events = primes
        .iter()
        .enumerate()
        .map(|(k, &p)| note(Time::new(k as i64 * p + 1, p), 60 + k as u8))
        .collect();
    let err = analyze(&one_voice(events), &Options::default()).unwrap_err();
    assert!(matches!(err, AnalysisError::Time(_)), "{err}");
    assert!(err.to_string().contains("grid finer than 2^58"), "{err}");
    for bad in [0, 13] {
        let options = Options {
            min_positions: bad,
            ..Options::default()
        };
        assert_eq!(
            analyze(&Score::default(), &options).unwrap_err(),
            AnalysisError::MinPositions(bad)
        );
    }
}
