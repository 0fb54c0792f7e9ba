//! LilyPond output checked two ways: every bar of every written score adds up to
//! the bar length (always), and the real LilyPond compiles the files to PDF with
//! no warning or error (when `lilypond` is on PATH; set `CANTUS_REQUIRE_TOOLS=1`
//! to make its absence a failure). The scores are a few hand-made pieces plus 20
//! random ones drawn from a fixed seed: rests, ties over barlines, chords,
//! triplets, polyphony within a voice, several meters.

use cantus_music::lilypond;
use cantus_music::{Event, Key, Meter, Mode, Pitch, Score, Spelling, Time, Voice, time};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use std::path::PathBuf;
use std::process::Command;

const METERS: [(u32, u32); 9] = [
    (4, 4),
    (3, 4),
    (2, 4),
    (6, 8),
    (5, 4),
    (2, 2),
    (7, 8),
    (12, 8),
    (3, 8),
];

/// Steps (quarter notes) of the rhythmic grids: binary, and triplets at 6, 12
/// and 24 per whole note.
const GRIDS: [(i64, i64); 7] = [(1, 1), (1, 2), (1, 4), (1, 8), (2, 3), (1, 3), (1, 6)];

/// One generated event: (gap before it, length, simultaneous with the previous
/// event?, intervals of the chord above its root, spell with flats?).
type RawEvent = (i64, i64, bool, Vec<u8>, bool);

fn voice_strategy() -> impl Strategy<Value = ((i64, i64), u8, Vec<RawEvent>)> {
    (
        proptest::sample::select(&GRIDS[..]),
        36u8..80,
        proptest::collection::vec(
            (
                0i64..4,
                1i64..10,
                proptest::bool::weighted(0.12),
                proptest::collection::vec(1u8..12, 0..3),
                proptest::bool::ANY,
            ),
            1..16,
        ),
    )
}

fn build_voice(name: String, (grid, low, raw): ((i64, i64), u8, Vec<RawEvent>)) -> Voice {
    let unit = time(grid.0, grid.1);
    let mut voice = Voice::new(name);
    let mut cursor = Time::from_integer(0);
    let mut previous_onset: Option<Time> = None;
    for (i, (gap, length, simultaneous, intervals, flats)) in raw.into_iter().enumerate() {
        let onset = match previous_onset {
            Some(onset) if simultaneous => onset,
            _ => cursor + unit * Time::from_integer(gap),
        };
        let duration = unit * Time::from_integer(length);
        let root = low + u8::try_from(i % 7).unwrap_or(0) * 2;
        let mut key = root;
        let mut pitches = vec![root];
        for step in intervals {
            key = key.saturating_add(step).min(100);
            pitches.push(key);
        }
        let pitches = pitches
            .into_iter()
            .map(|midi| {
                let spelling = if flats {
                    Spelling::flat_default(midi % 12)
                } else {
                    Spelling::sharp_default(midi % 12)
                };
                Pitch::spelled(midi, spelling)
            })
            .collect();
        voice.events.push(Event::new(onset, duration, pitches));
        cursor = cursor.max(onset + duration);
        previous_onset = Some(onset);
    }
    voice.sort();
    voice
}

fn score_strategy() -> impl Strategy<Value = Score> {
    (
        proptest::option::of("[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?"),
        proptest::option::of((-7i32..=7, proptest::bool::ANY)),
        proptest::sample::select(&METERS[..]),
        proptest::option::of(40i64..200),
        proptest::collection::vec(voice_strategy(), 1..5),
    )
        .prop_map(|(title, key, (num, den), tempo, voices)| Score {
            title,
            key: key.map(|(f, minor)| {
                Key::from_fifths(f, if minor { Mode::Minor } else { Mode::Major })
            }),
            meter: Meter::new(num, den),
            tempo: tempo.map(Time::from_integer),
            bars: None,
            voices: voices
                .into_iter()
                .enumerate()
                .map(|(i, raw)| build_voice(format!("Voice {}", i + 1), raw))
                .collect(),
        })
}

/// 20 random scores from proptest's fixed-seed runner.
fn random_scores() -> Vec<Score> {
    let mut runner = TestRunner::deterministic();
    let strategy = score_strategy();
    (0..20)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the strategy always generates")
                .current()
        })
        .collect()
}

fn hand_made() -> Vec<Score> {
    let ev = |on: Time, dur: Time, keys: &[u8]| {
        Event::new(on, dur, keys.iter().map(|&k| Pitch::new(k)).collect())
    };
    let chorale = Score {
        title: Some("Choral \"Test\"".into()),
        key: Some(Key::from_fifths(-2, Mode::Minor)),
        meter: Meter::new(3, 4),
        tempo: Some(time(135, 2)),
        bars: Some(4),
        voices: vec![
            Voice {
                name: "Soprano".into(),
                events: vec![
                    ev(time(0, 1), time(2, 1), &[70]),
                    ev(time(2, 1), time(5, 2), &[72]),
                ],
                ..Voice::default()
            },
            Voice {
                name: "Bass".into(),
                events: vec![
                    ev(time(0, 1), time(6, 1), &[43, 50]),
                    ev(time(7, 1), time(1, 3), &[38]),
                ],
                ..Voice::default()
            },
        ],
    };
    let empty = Score {
        voices: vec![Voice::new("Tacet")],
        ..Score::default()
    };
    vec![chorale, empty]
}

/// Sums every bar (a line ending in ` |`) of our own output, reading durations
/// back (tuplet groups count 2/3), and checks each equals the bar length.
fn assert_bars_add_up(ly: &str, bar: Time, label: &str) {
    for line in ly.lines().map(str::trim).filter(|l| l.ends_with(" |")) {
        let mut total = Time::from_integer(0);
        let mut scale = Time::from_integer(1);
        for token in tokens(line.trim_end_matches(" |")) {
            match token.as_str() {
                "\\tuplet" => continue,
                "3/2" => continue,
                "{" => scale = time(2, 3),
                "}" => scale = Time::from_integer(1),
                _ => {
                    let value = duration_of(&token)
                        .unwrap_or_else(|| panic!("{label}: token {token:?} in {line:?}"));
                    total += scale * value;
                }
            }
        }
        assert_eq!(total, bar, "{label}: bar {line:?} does not add up");
    }
}

/// Whitespace-separated tokens, with a chord `<c e g>4` kept as one token.
fn tokens(music: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_chord = false;
    for word in music.split_whitespace() {
        match out.last_mut() {
            Some(chord) if in_chord => {
                chord.push(' ');
                chord.push_str(word);
            }
            _ => out.push(word.to_string()),
        }
        if word.starts_with('<') {
            in_chord = true;
        }
        if word.contains('>') {
            in_chord = false;
        }
    }
    out
}

/// Quarter notes of a written note, chord or rest token (`c'4.~`, `<c e>8`, `R1*5/4`).
fn duration_of(token: &str) -> Option<Time> {
    let token = token.trim_end_matches('~');
    let (base, dotted) = match token.strip_suffix('.') {
        Some(t) => (t, true),
        None => (token, false),
    };
    let value = if base.ends_with("\\breve") {
        time(8, 1)
    } else {
        let start = base.rfind(|c: char| !(c.is_ascii_digit() || c == '*' || c == '/'))? + 1;
        let digits = base.get(start..)?;
        let (value, factor) = match digits.split_once('*') {
            Some((v, f)) => {
                let (n, d) = f.split_once('/')?;
                (v, time(n.parse().ok()?, d.parse().ok()?))
            }
            None => (digits, Time::from_integer(1)),
        };
        time(4, value.parse().ok()?) * factor
    };
    Some(if dotted { value * time(3, 2) } else { value })
}

proptest::proptest! {
    /// Beyond the 20 compiled scores: any score on these grids is notatable and
    /// every bar of its output adds up.
    #[test]
    fn every_random_score_is_written_with_bars_that_add_up(score in score_strategy()) {
        let ly = lilypond::write(&score).map_err(|e| {
            proptest::test_runner::TestCaseError::fail(format!("{e}"))
        })?;
        assert_bars_add_up(&ly, score.bar_length(), "random score");
    }
}

#[test]
fn written_bars_add_up_and_lilypond_compiles_them_cleanly() {
    let scores: Vec<Score> = hand_made().into_iter().chain(random_scores()).collect();
    let mut sources = Vec::new();
    for (i, score) in scores.iter().enumerate() {
        let label = format!("score{i:02}");
        let ly = lilypond::write(score).unwrap_or_else(|e| panic!("{label}: {e}\n{score:?}"));
        assert_bars_add_up(&ly, score.bar_length(), &label);
        sources.push((label, ly));
    }
    let triplets = sources
        .iter()
        .filter(|(_, ly)| ly.contains("\\tuplet"))
        .count();
    let polyphonic = sources
        .iter()
        .filter(|(_, ly)| ly.contains("\\\\\n"))
        .count();
    let ties = sources.iter().filter(|(_, ly)| ly.contains("~ |")).count();
    assert!(
        triplets >= 5 && polyphonic >= 3 && ties >= 10,
        "random scores too tame: {triplets} with triplets, {polyphonic} polyphonic, {ties} with ties over barlines"
    );

    let lilypond_found = Command::new("lilypond")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !lilypond_found {
        if std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1") {
            panic!(
                "lilypond not on PATH and CANTUS_REQUIRE_TOOLS=1 (run scripts/install-music-tools.sh)"
            );
        }
        eprintln!("SKIPPED: lilypond not on PATH");
        return;
    }

    let dir = temp_dir();
    let mut files = Vec::new();
    for (label, ly) in &sources {
        let file = format!("{label}.ly");
        let path = dir.join(&file);
        std::fs::write(&path, ly).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        files.push(file);
    }
    // One LilyPond process for all files (its start-up dominates small scores);
    // PDFs land next to the sources in the working directory.
    let output = Command::new("lilypond")
        .current_dir(&dir)
        .arg("--pdf")
        .args(&files)
        .output()
        .expect("lilypond runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let complaints: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            let l = l.to_lowercase();
            l.contains("warning") || l.contains("error") || l.contains("barcheck")
        })
        .collect();
    assert!(
        output.status.success() && complaints.is_empty(),
        "lilypond exit {:?}; complaints:\n{}\nfull stderr:\n{stderr}\n(sources kept in {})",
        output.status.code(),
        complaints.join("\n"),
        dir.display()
    );
    for (label, _) in &sources {
        let pdf = dir.join(format!("{label}.pdf"));
        assert!(pdf.is_file(), "{} missing", pdf.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn temp_dir() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("cantus-lilypond-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}
