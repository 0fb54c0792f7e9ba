//! Scoring a blind study: `cantus blind score` over ratings of 10^4 and 10^5 rows
//! (raters × pairs × the four criteria), every answer given, so every pair and
//! criterion has an answer of every rater. Scoring is linear in the rows (issue 28:
//! it was quadratic, 59 s for 10^5 rows); the bootstrap intervals (2000
//! resamples of the pairs per criterion) grow with the pairs.
//!
//! Run with `cargo bench --bench blind_score -- --warm-up-time 1 --measurement-time 5`.

use cantus_render::blind::{CRITERIA, CSV_HEADER, score};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A key of `pairs` pairs and one ratings file per rater, in `dir`.
fn study(dir: &Path, raters: usize, pairs: usize) -> (PathBuf, Vec<PathBuf>) {
    let mut key = String::from(r#"{"seed": 1, "conditions": ["harness", "raw"], "pairs": ["#);
    for p in 0..pairs {
        let (a, b) = if p % 2 == 0 {
            ("harness", "raw")
        } else {
            ("raw", "harness")
        };
        let comma = if p + 1 < pairs { "," } else { "" };
        let _ = write!(
            key,
            r#"{{"pair": "pair-{p:05}", "A": {{"condition": "{a}"}}, "B": {{"condition": "{b}"}}}}{comma}"#
        );
    }
    key.push_str("]}");
    let key_path = dir.join("key.json");
    std::fs::write(&key_path, key).unwrap();
    let mut files = Vec::new();
    for r in 0..raters {
        let mut csv = format!("{CSV_HEADER}\n");
        for p in 0..pairs {
            for (c, criterion) in CRITERIA.iter().enumerate() {
                let answer = ["A", "B", "none"][(r * 7 + p * 3 + c) % 3];
                let _ = writeln!(
                    csv,
                    "r{r},pair-{p:05},{},{answer},{},{}",
                    criterion.id(),
                    1 + (r + p) % 5,
                    1 + (r + c) % 5
                );
            }
        }
        let path = dir.join(format!("r{r}.csv"));
        std::fs::write(&path, csv).unwrap();
        files.push(path);
    }
    (key_path, files)
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("cantus-bench-blind-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("blind_score");
    group.sample_size(10);
    // (raters, pairs): 10 × 250 × 4 = 10^4 rows, 50 × 500 × 4 = 10^5 rows.
    for (raters, pairs) in [(10, 250), (50, 500)] {
        let rows = raters * pairs * CRITERIA.len();
        let here = dir.join(rows.to_string());
        std::fs::create_dir_all(&here).unwrap();
        let (key, files) = study(&here, raters, pairs);
        group.throughput(Throughput::Elements(rows as u64));
        group.bench_with_input(BenchmarkId::from_parameter(rows), &rows, |b, _| {
            b.iter(|| score(&key, &files).unwrap())
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
