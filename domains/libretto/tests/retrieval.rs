//! Retrieval of reference pieces: the nearest pieces on a crafted set whose
//! distances are worked out by hand, seeded sampling among the nearest
//! max(6, 3k), the fingerprint index kept beside the scores, and Libretto's
//! excerpt (8 bars from the 9th sounding bar, renumbered from 1).

use cantus_libretto::retrieval::{
    INDEX_FILE, ReferencePiece, ReferenceSet, RetrievalError, excerpt,
};
use cantus_libretto::{AXIS_COUNT, Calibration, Profile};
use cantus_music::{Event, Pitch, Score, Time, Voice};
use std::path::{Path, PathBuf};

/// A table whose every column is 0, 1, …, 9: a raw value k (0–9) sits at the
/// percentile 10·(k + 1) (k + 1 of the 10 values are ≤ k).
fn table() -> Calibration {
    let rows: Vec<[f64; AXIS_COUNT]> = (0..10).map(|k| [f64::from(k); AXIS_COUNT]).collect();
    Calibration::from_pieces("crafted", &rows)
}

fn piece(name: &str, raw: [f64; AXIS_COUNT]) -> ReferencePiece {
    ReferencePiece {
        path: PathBuf::from(name),
        raw,
    }
}

/// Ten axes at 9, the rest at 0.
fn split() -> [f64; AXIS_COUNT] {
    let mut raw = [0.0; AXIS_COUNT];
    raw[..10].fill(9.0);
    raw
}

fn crafted() -> ReferenceSet {
    ReferenceSet::from_pieces(
        Path::new("/crafted"),
        vec![
            piece("a.txt", [0.0; AXIS_COUNT]),  // percentile 10 on every axis
            piece("b.txt", [4.0; AXIS_COUNT]),  // 50
            piece("c.txt", [9.0; AXIS_COUNT]),  // 100
            piece("d.txt", split()),            // 100 on 10 axes, 10 on 19
            piece("aa.txt", [4.0; AXIS_COUNT]), // 50, like b
        ],
    )
}

fn names(set: &ReferenceSet, near: &[cantus_libretto::retrieval::Neighbour]) -> Vec<String> {
    near.iter()
        .map(|n| set.pieces[n.piece].path.display().to_string())
        .collect()
}

#[test]
fn the_nearest_pieces_by_mean_absolute_percentile_difference() {
    let set = crafted();
    let target = Profile([40.0; AXIS_COUNT]);
    let near = set.nearest(&target, &table(), 5, None);
    // D to a target of 40 everywhere: a |10 − 40| = 30; b and aa |50 − 40| = 10;
    // c |100 − 40| = 60; d (10·60 + 19·30) / 29 = 1170 / 29 = 40.34…
    let d: Vec<f64> = near.iter().map(|n| n.distance).collect();
    assert_eq!(
        names(&set, &near),
        ["aa.txt", "b.txt", "a.txt", "d.txt", "c.txt"]
    );
    assert_eq!(d[..3], [10.0, 10.0, 30.0]);
    assert!((d[3] - 1170.0 / 29.0).abs() < 1e-12, "{}", d[3]);
    assert_eq!(d[4], 60.0);
    // k = 2: the two nearest, equal ones in file-name order.
    assert_eq!(
        names(&set, &set.nearest(&target, &table(), 2, None)),
        ["aa.txt", "b.txt"]
    );
    // A piece as the target: c's nearest is itself (0), then aa and b (50 away),
    // then d ((10·0 + 19·90) / 29 = 58.97), then a (90).
    let c = Profile([100.0; AXIS_COUNT]);
    let near = set.nearest(&c, &table(), 5, None);
    assert_eq!(
        names(&set, &near),
        ["c.txt", "aa.txt", "b.txt", "d.txt", "a.txt"]
    );
    assert_eq!(
        (near[0].distance, near[1].distance, near[4].distance),
        (0.0, 50.0, 90.0)
    );
    assert!((near[3].distance - 1710.0 / 29.0).abs() < 1e-12);
}

#[test]
fn the_centroid_is_the_mean_profile() {
    let set = crafted();
    // Per axis: the first ten axes (10 + 50 + 100 + 100 + 50) / 5 = 62; the
    // other nineteen (10 + 50 + 100 + 10 + 50) / 5 = 44.
    let centre = set.centroid(&table());
    assert_eq!(centre.0[0], 62.0);
    assert_eq!(centre.0[AXIS_COUNT - 1], 44.0);
}

#[test]
fn sampling_draws_among_the_nearest_max_6_3k_with_its_seed() {
    // Ten pieces at 0..9 on every axis: against a target of 10 they are 0, 10,
    // …, 90 away, so the six nearest are the pieces 0–5.
    let pieces: Vec<ReferencePiece> = (0..10)
        .map(|k| piece(&format!("p{k}.txt"), [f64::from(k); AXIS_COUNT]))
        .collect();
    let set = ReferenceSet::from_pieces(Path::new("/ten"), pieces);
    let target = Profile([10.0; AXIS_COUNT]);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..300 {
        let drawn = set.nearest(&target, &table(), 1, Some(seed));
        assert_eq!(drawn.len(), 1);
        assert!(
            drawn[0].piece <= 5,
            "seed {seed} drew piece {}",
            drawn[0].piece
        );
        seen.insert(drawn[0].piece);
        // The same seed draws the same pieces.
        assert_eq!(drawn, set.nearest(&target, &table(), 1, Some(seed)));
    }
    assert_eq!(
        seen.len(),
        6,
        "every one of the six nearest is drawn: {seen:?}"
    );
    // k = 3: the pool is max(6, 9) = 9 pieces, three drawn, nearest first.
    for seed in 0..100 {
        let drawn = set.nearest(&target, &table(), 3, Some(seed));
        assert_eq!(drawn.len(), 3);
        assert!(drawn.iter().all(|n| n.piece <= 8));
        assert!(drawn.windows(2).all(|w| w[0].distance <= w[1].distance));
    }
}

fn bar_piece(bars: &[u32], meter_bar: i64) -> Score {
    let mut voice = Voice::new("V");
    for &b in bars {
        let start = Time::from_integer(meter_bar * i64::from(b - 1));
        voice.events.push(Event::new(
            start,
            Time::from_integer(1),
            vec![Pitch::new(60 + (b % 12) as u8)],
        ));
    }
    // A last note held over the excerpt's end.
    Score {
        voices: vec![voice],
        ..Score::default()
    }
}

#[test]
fn an_excerpt_is_eight_bars_from_the_ninth_sounding_bar_renumbered() {
    // Bars 1, 2, 4, 5, …, 20 sound (bar 3 is silent): the 9th sounding bar is 10.
    let bars: Vec<u32> = (1..=20).filter(|&b| b != 3).collect();
    let mut score = bar_piece(&bars, 4);
    // Bar 17 holds a note two bars long: cut at the excerpt's end.
    let long = score.voices[0]
        .events
        .iter_mut()
        .find(|e| e.onset == Time::from_integer(64))
        .unwrap();
    long.duration = Time::from_integer(8);
    let (from, ex) = excerpt(&score).unwrap();
    assert_eq!(from, 10);
    assert_eq!(ex.bars, Some(8));
    let onsets: Vec<i64> = ex.voices[0]
        .events
        .iter()
        .map(|e| e.onset.to_integer())
        .collect();
    // Bars 10–17 → 1–8: onsets 0, 4, …, 28.
    assert_eq!(onsets, [0, 4, 8, 12, 16, 20, 24, 28]);
    assert_eq!(ex.voices[0].events[0].pitches[0].midi, 60 + 10);
    assert_eq!(ex.voices[0].events[7].duration, Time::from_integer(4));
    // A piece of five sounding bars is excerpted from its first.
    let short = bar_piece(&[3, 4, 5, 6, 7], 4);
    let (from, ex) = excerpt(&short).unwrap();
    assert_eq!(
        (from, ex.voices[0].events[0].onset),
        (3, Time::from_integer(0))
    );
    assert!(excerpt(&Score::default()).is_none());
}

fn text(pitch: &str, bars: u32) -> String {
    let mut t = format!("KEY: C major | METER: 4/4 | GRID: 16th | BARS: {bars}\nVOICES: A, B\n");
    for b in 1..=bars {
        t.push_str(&format!(
            "@{b} [-]\n  A: {pitch}5@1>4 D5@5>2 E5@7>2 G5@9>8\n  B: C3@1>8 G2@9>8\n"
        ));
    }
    t
}

#[test]
fn the_index_is_kept_reused_refreshed_and_rebuilt() {
    let dir = std::env::temp_dir().join(format!("cantus-retrieval-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("one.txt"), text("C", 12)).unwrap();
    std::fs::write(dir.join("sub/two.txt"), text("F", 16)).unwrap();
    std::fs::write(
        dir.join("broken.txt"),
        "KEY: C major\nthis is not a piece\n@1 nonsense\n",
    )
    .unwrap();

    let first = ReferenceSet::open(&dir).unwrap();
    assert_eq!(first.pieces.len(), 2);
    assert_eq!((first.index.reused, first.index.measured), (0, 2));
    assert_eq!(first.skipped.len(), 1);
    assert!(first.skipped[0].path.ends_with("broken.txt"));
    assert!(dir.join(INDEX_FILE).is_file());
    let names: Vec<String> = first
        .pieces
        .iter()
        .map(|p| p.path.display().to_string())
        .collect();
    assert_eq!(names, ["one.txt", "sub/two.txt"]);

    // Opened again: every fingerprint from the index, the same numbers.
    let again = ReferenceSet::open(&dir).unwrap();
    assert_eq!((again.index.reused, again.index.measured), (2, 0));
    assert_eq!(again.pieces, first.pieces);

    // A changed file is measured again; the other is reused.
    std::fs::write(dir.join("one.txt"), text("A", 12)).unwrap();
    let changed = ReferenceSet::open(&dir).unwrap();
    assert_eq!((changed.index.reused, changed.index.measured), (1, 1));
    assert_ne!(changed.pieces[0].raw, first.pieces[0].raw);

    // A damaged index is rebuilt, and says so.
    std::fs::write(dir.join(INDEX_FILE), "{ not json").unwrap();
    let rebuilt = ReferenceSet::open(&dir).unwrap();
    assert_eq!(rebuilt.index.measured, 2);
    assert!(
        rebuilt
            .index
            .problem
            .as_deref()
            .unwrap()
            .starts_with("rebuilt"),
        "{:?}",
        rebuilt.index
    );
    assert_eq!(rebuilt.pieces, changed.pieces);

    // Notes and excerpts come from the files.
    assert_eq!(rebuilt.grids().len(), 2);
    let near = rebuilt.nearest(
        &rebuilt.centroid(&rebuilt.table()),
        &rebuilt.table(),
        1,
        None,
    );
    let shown = rebuilt.show(&near);
    assert_eq!(shown.len(), 1);
    assert!(
        shown[0].text.contains("@1 [-]") && shown[0].text.contains("VOICES: A, B"),
        "{}",
        shown[0].text
    );

    // A directory without a measurable score is an error that says so.
    let empty = dir.join("sub/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let err = ReferenceSet::open(&empty).unwrap_err();
    assert!(
        matches!(err, RetrievalError::Empty { skipped: 0, .. }),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
