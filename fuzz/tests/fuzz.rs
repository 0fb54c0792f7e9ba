//! The fuzz run: every reader of untrusted input, its committed seed corpus
//! (`fuzz/corpus/<target>/`, holding the cases of issue 17), generated seeds too
//! large to commit, and a fixed number of seeded mutations, each input checked
//! for panics, time and peak allocation (see `cantus_fuzz`).
//!
//! Readers that accept an input also write what they read in every format
//! Cantus writes and read it back: a writer must never write what its reader
//! refuses (issue 17, item 8).
//!
//! `CANTUS_FUZZ_MUTATIONS` (default 400 per target) runs longer locally;
//! CI keeps the default (about ten seconds in all on a 2-core EPYC).
//!
//! To add a target, add its corpus directory and one entry to [`targets`].

use cantus::experiment::run::parse_results;
use cantus_backend::Config;
use cantus_framework::Budget;
use cantus_fuzz::{CountingAllocator, Limits, Target, no_generated, nothing_more, run};
use cantus_music::format::{self, Format, ReadOptions};
use cantus_music::{PitchLevel, Score, grammar, midi};
use cantus_render::blind::{Key, Ratings, scores};
use cantus_twelve_tone::spec::{Spec, compile_brief};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[global_allocator]
static ALLOC: CountingAllocator = CountingAllocator::new();

const MIB: usize = 1 << 20;

/// Reads `bytes` as `format`, as `cantus convert` would.
fn read_as(format: Format, bytes: &[u8], opts: &ReadOptions) -> Option<Score> {
    format::read_bytes(Path::new("fuzz-input"), format, bytes, opts)
        .ok()
        .map(|l| l.score)
}

/// Reads `bytes` as `format` and, if that works, writes the score in each
/// format and reads it back (unmeasured: the writers' costs are theirs).
fn read_and_round_trip(format: Format, bytes: &[u8]) {
    let graces = ReadOptions {
        lenient: true,
        grace_notes: true,
        ..ReadOptions::default()
    };
    if let Some(score) = read_as(format, bytes, &graces) {
        write_and_read_back(&score);
    }
}

/// The writers' own limits bound what they write; past this many bar × voice
/// cells (or events) the round trip is left to the writers' tests, so a tiny
/// input that declares a long piece does not make the run slow.
const MAX_ROUND_TRIP_CELLS: usize = 20_000;

fn write_and_read_back(score: &Score) {
    let cells = score.voices.len().max(1) * score.bar_count() as usize;
    if cells > MAX_ROUND_TRIP_CELLS || score.event_count() > MAX_ROUND_TRIP_CELLS {
        return;
    }
    for format in [Format::Grammar, Format::Midi, Format::MusicXml] {
        if let Ok(bytes) = format::render(score, format) {
            let path = PathBuf::from(format!("written.{}", format.extension()));
            let graces = ReadOptions {
                grace_notes: true,
                ..ReadOptions::default()
            };
            if let Err(e) = format::read_bytes(&path, format, &bytes, &graces) {
                panic!("the {format} writer wrote what its reader refuses: {e}");
            }
        }
    }
}

fn fixtures(dir: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../domains/music/tests/fixtures")
        .join(dir);
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x != "md"))
        .map(|p| {
            let name = format!(
                "fixture {}",
                p.file_name().unwrap_or_default().to_string_lossy()
            );
            (name, std::fs::read(&p).expect("fixture"))
        })
        .collect();
    out.sort();
    out
}

/// Issue 17, item 6: one voice line with 100 000 onsets outside their bar.
fn long_grammar_line() -> Vec<(String, Vec<u8>)> {
    let mut text = String::from("KEY: ? | METER: 4/4 | GRID: 16th\nVOICES: A\n@1 [-]\n  A:");
    text.push_str(&" C4@17>1".repeat(100_000));
    text.push('\n');
    let mut out = fixtures("grammar");
    out.push((
        "generated 100000 out-of-bar onsets on one line".into(),
        text.into_bytes(),
    ));
    out
}

fn musicxml_seeds() -> Vec<(String, Vec<u8>)> {
    let depth = 100_000;
    let nested = format!("{}{}", "<a>".repeat(depth), "</a>".repeat(depth));
    let mut out = fixtures("musicxml");
    out.push(("generated 100000-deep nesting".into(), nested.into_bytes()));
    out
}

/// A zip of one deflated entry.
fn zip_of(name: &str, content: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1));
    w.start_file(name, opts).expect("entry");
    w.write_all(content).expect("write");
    w.finish().expect("finish");
    out.into_inner()
}

/// Zip bombs: 70 MiB of spaces in a score, once with its true size in the
/// archive (refused before inflating) and once claiming 1000 bytes (inflated
/// only up to the limit, then refused).
fn mxl_seeds() -> Vec<(String, Vec<u8>)> {
    let mut xml = b"<score-partwise>".to_vec();
    xml.resize(70 * MIB, b' ');
    xml.extend(b"</score-partwise>");
    let honest = zip_of("score.musicxml", &xml);
    drop(xml);
    let mut lying = honest.clone();
    // Every uncompressed-size field (local header offset 22, central directory 24) says 1000.
    for (sig, offset) in [(b"PK\x03\x04", 22), (b"PK\x01\x02", 24)] {
        if let Some(at) = lying.windows(4).position(|w| w == sig) {
            lying[at + offset..at + offset + 4].copy_from_slice(&1000u32.to_le_bytes());
        }
    }
    let mut out = fixtures("mxl");
    out.push(("generated zip bomb (true size)".into(), honest));
    out.push(("generated zip bomb (claims 1000 bytes)".into(), lying));
    out
}

/// The results file a fuzz input is read as.
const RESULTS: &str = "results.jsonl";

/// Issue 28: a results file loses nothing. Every line of what was read is the
/// header, a record or a bad line (whose place in the input is its bytes, so it
/// can be moved aside whole), and the bad lines are in file order.
fn results_lose_nothing(b: &[u8]) {
    let Ok(results) = parse_results(b, Path::new(RESULTS)) else {
        return;
    };
    let lines = b.split(|&c| c == b'\n').count() - usize::from(b.ends_with(b"\n") || b.is_empty());
    assert_eq!(
        usize::from(results.header.is_some()) + results.records.len() + results.bad.len(),
        lines,
        "every line of a results file is the header, a record or a bad line"
    );
    let mut end = 0;
    for bad in &results.bad {
        let (from, to) = (bad.offset as usize, (bad.offset + bad.length) as usize);
        assert!(
            from >= end && to <= b.len() && to > from,
            "bad line {} at {from}..{to}",
            bad.line
        );
        assert!(
            to == b.len() || b[to - 1] == b'\n',
            "a bad line ends at its newline"
        );
        end = to;
    }
}

/// The key the ratings fuzz inputs are scored with: the pairs of the seeds.
fn ratings_key() -> Key {
    let text = r#"{"seed": 5, "conditions": ["harness", "raw"], "pairs": [
        {"pair": "pair-01", "A": {"condition": "harness"}, "B": {"condition": "raw"}},
        {"pair": "pair-02", "A": {"condition": "raw"}, "B": {"condition": "harness"}},
        {"pair": "pair-03", "A": {"condition": "harness"}, "B": {"condition": "raw"}}]}"#;
    Key::from_json(text, Path::new("key.json")).expect("the fuzz key reads")
}

fn read_ratings(b: &[u8], key: &Key) -> Option<Ratings> {
    let mut ratings = Ratings::default();
    ratings.read(b, Path::new("ratings.csv"), key).ok()?;
    Some(ratings)
}

/// Issue 28: ratings that read score without a panic, every answer once: the
/// preference counts of a criterion sum to its answers, which are at most the
/// rows not repeated; rates and intervals lie in [0, 1]. The same file read twice
/// counts each answer once.
fn ratings_count_once(b: &[u8]) {
    let key = ratings_key();
    let Some(ratings) = read_ratings(b, &key) else {
        return;
    };
    let once = scores(&key, &ratings);
    for c in &once.criteria {
        assert_eq!(
            c.preferences.iter().map(|p| p.count).sum::<usize>(),
            c.answers
        );
        assert!(c.answers <= ratings.rows - ratings.repeated);
        for p in &c.preferences {
            assert!((0.0..=1.0).contains(&p.rate), "rate {}", p.rate);
            if let Some((lo, hi)) = p.interval {
                assert!(0.0 <= lo && lo <= hi && hi <= 1.0, "interval {lo}..{hi}");
            }
        }
    }
    let mut twice = ratings;
    twice
        .read(b, Path::new("again.csv"), &key)
        .expect("a ratings file read once reads again");
    let again = scores(&key, &twice);
    let counts = |s: &cantus_render::blind::Scores| -> Vec<Vec<usize>> {
        s.criteria
            .iter()
            .map(|c| c.preferences.iter().map(|p| p.count).collect())
            .collect()
    };
    assert_eq!(
        counts(&again),
        counts(&once),
        "the same file twice counts once"
    );
}

/// Every target. Limits are per input; the memory ones were set from the worst
/// peaks measured (see the summary this test prints) with room to spare.
fn targets() -> Vec<Target> {
    let time = Duration::from_secs(5);
    vec![
        Target {
            name: "grammar",
            read: |b| {
                read_as(Format::Grammar, b, &ReadOptions::default());
                read_as(Format::Grammar, b, &ReadOptions::lenient(true));
                // Text that is not UTF-8 is refused above; read it as text anyway.
                let text = String::from_utf8_lossy(b);
                let _ = grammar::parse(&text, &grammar::ParseOptions::default().lenient());
            },
            also: |b| read_and_round_trip(Format::Grammar, b),
            generated: long_grammar_line,
            dictionary: &[b"@1 [-]\n", b"  A: ", b"C4@1>4 ", b"D5@1>g ", b">g/", b"+E4", b"{tag}", b"(grid:12t)", b"|", b"VOICES:", b"%", b"\n@"],
            // Measured worst: 19.6 MB for the 800 kB long line (24 per byte).
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 48 },
        },
        Target {
            name: "midi",
            read: |b| {
                read_as(Format::Midi, b, &ReadOptions::default());
                read_as(Format::Midi, b, &ReadOptions::lenient(true));
                let _ = midi::read(b);
            },
            also: |b| read_and_round_trip(Format::Midi, b),
            generated: no_generated,
            dictionary: &[b"MThd\0\0\0\x06", b"MTrk", b"\xFF\x2F\0", b"\xFF\x51\x03", b"\xF0\x7F", b"\x90\x3C\x50", b"\x80\x3C\0", b"\xFF\xFF\xFF\x7F"],
            // Measured worst: 0.43 MB for a 40 kB file (11 per byte).
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 32 },
        },
        Target {
            name: "musicxml",
            read: |b| {
                read_as(Format::MusicXml, b, &ReadOptions::default());
                let written = ReadOptions { pitch: PitchLevel::Written, grace_notes: true, ..ReadOptions::default() };
                read_as(Format::MusicXml, b, &written);
            },
            also: |b| read_and_round_trip(Format::MusicXml, b),
            generated: musicxml_seeds,
            dictionary: &[b"<note><pitch><step>C</step><octave>4</octave></pitch><duration>1</duration></note>", b"<backup><duration>9</duration></backup>", b"<chord/>", b"<grace/>", b"<tie type=\"stop\"/>", b"<transpose><chromatic>-2</chromatic></transpose>", b"<attributes><divisions>7</divisions></attributes>", b"</measure><measure>", b"&#0;", b"\0", b"<?xml version=\"1.0\" encoding=\"UTF-16\"?>"],
            // The element tree costs about 100 bytes per element.
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 128 },
        },
        Target {
            name: "mxl",
            read: |b| {
                read_as(Format::Mxl, b, &ReadOptions::default());
            },
            also: nothing_more,
            generated: mxl_seeds,
            dictionary: &[b"PK\x03\x04", b"PK\x01\x02", b"META-INF/container.xml"],
            // The decompressed score is bounded by MAX_MXL_XML_BYTES (64 MiB), not by the input.
            limits: Limits { time, base_bytes: 72 * MIB, per_byte: 128 },
        },
        Target {
            name: "mei",
            read: |b| {
                read_as(Format::Mei, b, &ReadOptions::default());
                let written = ReadOptions { pitch: PitchLevel::Written, grace_notes: true, ..ReadOptions::default() };
                read_as(Format::Mei, b, &written);
            },
            also: |b| read_and_round_trip(Format::Mei, b),
            generated: || fixtures("mei"),
            dictionary: &[b"<note pname=\"c\" oct=\"4\" dur=\"4\"/>", b"<chord dur=\"2\">", b"</chord>", b"<tuplet num=\"7\" numbase=\"4\">", b"</tuplet>", b"<mRest/>", b"<measure>", b"</measure>", b" tie=\"i\"", b" grace=\"acc\"", b" trans.semi=\"-2\""],
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 128 },
        },
        Target {
            name: "spec",
            read: |b| {
                if let Ok(text) = std::str::from_utf8(b) {
                    let _ = Spec::from_toml_str(text, "fuzz.toml");
                }
            },
            also: |b| {
                // A spec that loads writes TOML that loads back equal.
                if let Some(spec) = std::str::from_utf8(b).ok().and_then(|t| Spec::from_toml_str(t, "fuzz.toml").ok()) {
                    let back = Spec::from_toml_str(&spec.to_toml_string(), "written.toml");
                    assert_eq!(back.as_ref().ok(), Some(&spec), "a spec written as TOML reads back equal");
                }
            },
            generated: || vec![("webern-trio.toml".into(), include_bytes!("../../examples/specs/webern-trio.toml").to_vec())],
            dictionary: &[b"bars = ", b"tempo = ", b"meter = \"", b"1e20", b"-3", b"18446744073709551615", b"1e308", b"nan", b"inf", b"[[voices]]\n", b"register = ", b"max_crossing = \"", b"row = \"", b"section_bars = "],
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 64 },
        },
        Target {
            name: "config",
            read: |b| {
                if let Ok(text) = std::str::from_utf8(b)
                    && let Ok(settings) = Config::from_toml_str(text, "cantus.toml") {
                        // Every accepted value converts without a panic (1e20 s did not).
                        let _ = settings.harness.budget(Budget::default());
                        let _ = settings.ask(false);
                    }
            },
            also: nothing_more,
            generated: || vec![("example-cantus.toml".into(), include_bytes!("../../examples/config/cantus.toml").to_vec())],
            dictionary: &[b"[backend]\n", b"[harness]\n", b"deadline_s = ", b"retries = ", b"backoff_s = ", b"timeout_s = ", b"1e20", b"1e308", b"18446744073709551615", b"2147483648", b"-1", b"nan", b"inf", b"kind = \"openai\"\n"],
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 64 },
        },
        Target {
            name: "brief",
            read: |b| {
                let _ = compile_brief(&String::from_utf8_lossy(b));
            },
            also: nothing_more,
            generated: no_generated,
            dictionary: &[b" bpm", b" bars", b" voices", b"72.5", b"-3", b"100000000000000000000000000000", b" in 3/4", b" on Webern's Op. 21 row", b" canon at the fifth", b"\"", b"twenty-four", b" seed "],
            // Tokens with their positions: about 100 bytes per character of brief.
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 256 },
        },
        Target {
            name: "results",
            read: |b| {
                let _ = parse_results(b, Path::new(RESULTS)).map(|r| r.whole(Path::new(RESULTS)));
            },
            also: results_lose_nothing,
            generated: no_generated,
            dictionary: &[b"{\"kind\":\"run\",", b"{\"kind\":\"experiment\",", b"\"files\":[{\"path\":\"../x\",\"sha256\":\"00\"}]", b"\"path\":\"/etc/passwd\"", b"\"path\":\"traces/", b"\"path\":\"runs/", b"\n", b"1e400", b"0.09090909090909091", b"\"\\u0000\""],
            // serde_json's values: about 40 bytes per byte of JSON, and one line at a time.
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 64 },
        },
        Target {
            name: "ratings",
            read: |b| {
                let key = ratings_key();
                if let Some(ratings) = read_ratings(b, &key) {
                    let _ = scores(&key, &ratings);
                }
            },
            also: ratings_count_once,
            generated: no_generated,
            dictionary: &[b"rater,pair,criterion,preference,rating_a,rating_b\n", b"r1,pair-01,coherence,A,3,4\n", b"pair-02", b"pair-09", b",none,", b",B,,", b"overall-quality", b"rule-adherence", b"\"", b"\"\"", b"\r\n", b",6,", b",0,"],
            // The answers and a map of where each was first read: a few hundred bytes per row.
            limits: Limits { time, base_bytes: 4 * MIB, per_byte: 64 },
        },
    ]
}

#[test]
fn every_reader_stays_within_its_limits_on_seeds_and_mutations() {
    let mutations = std::env::var("CANTUS_FUZZ_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let budget = cantus_fuzz::Budget {
        mutations,
        max_len: 256 << 10,
        seed: *b"cantus fuzz seed: issue 17 cases",
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let failures = root.join("../target/fuzz-failures");
    // Panics inside readers are caught and reported; keep their default output quiet.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut report = Vec::new();
    let mut failure = None;
    for target in targets() {
        match run(&target, &root.join("corpus"), budget, &ALLOC, &failures) {
            Ok(s) => report.push(format!(
                "{:>9}: {:>5} inputs, worst peak {:>10} bytes (input {:>8} bytes; limit {} + {}/byte), worst time {:?}",
                target.name,
                s.inputs,
                s.worst_bytes.0,
                s.worst_bytes.1,
                target.limits.base_bytes,
                target.limits.per_byte,
                s.worst_time
            )),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    std::panic::set_hook(hook);
    eprintln!("{}", report.join("\n"));
    if let Some(e) = failure {
        panic!("{e}");
    }
}
