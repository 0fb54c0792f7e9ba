//! How `cantus fingerprint` and `cantus compare` grow with the piece: time (criterion)
//! and peak heap memory (a counting global allocator) at 10^3, 10^4 and 10^5 note
//! events, on two kinds of piece:
//!
//! * `varied`: four voices in 4/4 (quarters, eighths, chords in the lower voices,
//!   a triplet bar every seventh bar, a four-bar cell that returns with changes),
//!   about 30 events a bar — the texture of the corpus pieces;
//! * `one_note`: one note per bar, the same note every bar (issue 17's worst case
//!   for the form axes and copy risk: every bar equals every other).
//!
//! Each run does what the command does: read the text file (Cantus's strict
//! reader, then the original's layout), measure the 29 axes and place them
//! (`fingerprint`); for `compare`, also both pieces' note grids and the copy
//! risk slid both ways. Peak memory and one run's time are printed per case
//! before criterion times them:
//!
//! `cargo bench -p cantus-libretto --bench scale -- --warm-up-time 1 --measurement-time 3`
//!
//! `CANTUS_SCALE_ONCE=1` stops after the one-run table (a release-mode harness
//! for sizes criterion would take too long on); `CANTUS_SCALE_ONE_NOTE=1000,20000`
//! chooses the one-note sizes (default 1000 and 10000).

use cantus_libretto::fingerprint::raw_axes;
use cantus_libretto::load::load;
use cantus_libretto::{Calibration, Fingerprint, NoteGrid};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting live bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; the counters only
// observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap bytes above what was live when `f` started.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

const NAMES: [&str; 12] = [
    "C", "C#", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B",
];

fn note(midi: i64) -> String {
    format!("{}{}", NAMES[midi.rem_euclid(12) as usize], midi / 12 - 1)
}

/// The `varied` piece with at least `events` events, and its event count.
fn varied(events: usize, seed: u64) -> (String, usize) {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as i64
    };
    let mut bars = String::new();
    let (mut count, mut bar) = (0, 0i64);
    while count < events {
        bar += 1;
        let triplet = bar % 7 == 0;
        let _ = writeln!(
            bars,
            "@{bar} [-]{}",
            if triplet { " (grid:12t)" } else { "" }
        );
        for (v, base) in [72i64, 64, 55, 43].into_iter().enumerate() {
            let (step, n) = match (triplet, v % 2) {
                (true, _) => (1, 12),
                (false, 0) => (2, 8),
                (false, _) => (4, 4),
            };
            let cell = (bar % 4) * 2 + if bar % 16 < 8 { 0 } else { next() % 3 };
            let mut line = format!("  V{}:", v + 1);
            for k in 0..n {
                let midi = (base + cell + next() % 7 - 3).clamp(21, 100);
                let mut pitches = note(midi);
                count += 1;
                if v >= 2 && k % 2 == 0 {
                    pitches = format!("{pitches}+{}", note(midi + 7));
                    count += 1;
                }
                let _ = write!(line, " {pitches}@{}>{step}", 1 + k * step);
            }
            bars.push_str(&line);
            bars.push('\n');
        }
    }
    let head = format!(
        "KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: {bar}\nVOICES: V1, V2, V3, V4\n"
    );
    (head + &bars, count)
}

/// `events` bars of one C4 each.
fn one_note(events: usize) -> (String, usize) {
    let mut text = format!(
        "KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: {events}\nVOICES: V\n"
    );
    for bar in 1..=events {
        let _ = writeln!(text, "@{bar} [-]\n  V: C4@1>4");
    }
    (text, events)
}

fn write_temp(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-scale-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

/// What `cantus fingerprint FILE` computes.
fn fingerprint_file(path: &Path) -> Fingerprint {
    let loaded = load(path, false).expect("the bench piece reads");
    let raw = raw_axes(&loaded.layout).expect("the bench piece measures");
    Fingerprint::place(&raw, Calibration::original())
}

/// What `cantus compare A B` computes: copy risk both ways and the distance.
fn compare_files(a: &Path, b: &Path) -> (f64, f64, f64) {
    let grid = |p: &Path| NoteGrid::of(&load(p, false).expect("reads").layout.song());
    let (ga, gb) = (grid(a), grid(b));
    let (risk, _) = ga.slide_overlap(&gb);
    let (reverse, _) = gb.slide_overlap(&ga);
    let distance = fingerprint_file(a).distance(&fingerprint_file(b));
    (risk, reverse, distance)
}

struct Case {
    kind: &'static str,
    events: usize,
    a: PathBuf,
    b: PathBuf,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for target in [1_000, 10_000, 100_000] {
        let (a, n) = varied(target, 1);
        let (b, _) = varied(target, 2);
        out.push(Case {
            kind: "varied",
            events: n,
            a: write_temp(&format!("varied-{target}-a.txt"), &a),
            b: write_temp(&format!("varied-{target}-b.txt"), &b),
        });
    }
    let one_note_sizes: Vec<usize> = std::env::var("CANTUS_SCALE_ONE_NOTE")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000]);
    for target in one_note_sizes {
        let (a, n) = one_note(target);
        let path = write_temp(&format!("one-note-{target}.txt"), &a);
        out.push(Case {
            kind: "one_note",
            events: n,
            a: path.clone(),
            b: path,
        });
    }
    out
}

/// Peak memory and one wall-clock time of each command on each case.
fn once(cases: &[Case]) {
    // The shipped table is parsed once per process: not part of any call's cost.
    let _ = Calibration::original();
    println!("peak heap above the start of each call (counting allocator), one run's time:");
    for case in cases {
        let start = std::time::Instant::now();
        let (_, fp) = peak_of(|| fingerprint_file(&case.a));
        let fp_time = start.elapsed();
        let start = std::time::Instant::now();
        let (_, cmp) = peak_of(|| compare_files(&case.a, &case.b));
        let cmp_time = start.elapsed();
        println!(
            "  {:<9} {:>7} events: fingerprint {:>9.2} MiB {:>9.1} ms | compare {:>9.2} MiB {:>9.1} ms",
            case.kind,
            case.events,
            fp as f64 / (1 << 20) as f64,
            fp_time.as_secs_f64() * 1e3,
            cmp as f64 / (1 << 20) as f64,
            cmp_time.as_secs_f64() * 1e3,
        );
    }
}

fn bench(c: &mut Criterion) {
    let cases = cases();
    once(&cases);
    if std::env::var_os("CANTUS_SCALE_ONCE").is_some() {
        return;
    }
    for (name, compare) in [("fingerprint", false), ("compare", true)] {
        let mut group = c.benchmark_group(name);
        group.sample_size(10);
        for case in &cases {
            group.throughput(Throughput::Elements(case.events as u64));
            let id = BenchmarkId::new(case.kind, case.events);
            group.bench_with_input(id, case, |bch, case| {
                if compare {
                    bch.iter(|| compare_files(black_box(&case.a), black_box(&case.b)))
                } else {
                    bch.iter(|| fingerprint_file(black_box(&case.a)))
                }
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
