//! Throughput of Libretto's fingerprint (all 29 axes and their percentiles) on a
//! 100-bar, four-voice piece, from a score and from its text.
//!
//! The piece is deterministic: four voices in 4/4, each bar mixing quarters,
//! eighths, a triplet bar every seventh bar, chords in the lower voices and a
//! four-bar cell that returns with changes (so the form axes see repetition).
//! Run with `cargo bench --bench fingerprint -- --warm-up-time 1 --measurement-time 3`.

use cantus_libretto::{Calibration, fingerprint, fingerprint_text};
use cantus_music::{Event, Pitch, Score, Voice, time};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn piece(bars: i64) -> Score {
    let mut seed: u64 = 0x5EED;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as i64
    };
    let mut score = Score {
        bars: Some(bars as u32),
        ..Score::default()
    };
    for (v, base) in [72i64, 64, 55, 43].into_iter().enumerate() {
        let mut voice = Voice::new(format!("V{}", v + 1));
        for bar in 0..bars {
            let start = time(4 * bar, 1);
            let (step, count) = if bar % 7 == 6 {
                (time(1, 3), 12)
            } else if v % 2 == 0 {
                (time(1, 2), 8)
            } else {
                (time(1, 1), 4)
            };
            let cell = (bar % 4) * 2 + if bar % 16 < 8 { 0 } else { next() % 3 };
            for k in 0..count {
                let midi = (base + cell + (next() % 7) - 3).clamp(21, 108) as u8;
                let mut pitches = vec![Pitch::new(midi)];
                if v >= 2 && k % 2 == 0 {
                    pitches.push(Pitch::new(midi + 7));
                }
                voice
                    .events
                    .push(Event::new(start + step * time(k, 1), step, pitches));
            }
        }
        score.voices.push(voice);
    }
    score
}

fn bench(c: &mut Criterion) {
    let score = piece(100);
    let text = cantus_music::grammar::write(&score).expect("the bench piece is writable");
    let table = Calibration::original();
    let events: usize = score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .map(|e| e.pitches.len())
        .sum();
    let mut group = c.benchmark_group("fingerprint_100_bars_4_voices");
    group.throughput(Throughput::Elements(events as u64));
    group.bench_function("score", |b| {
        b.iter(|| fingerprint(black_box(&score), table).expect("measures"))
    });
    group.bench_function("text", |b| {
        b.iter(|| fingerprint_text(black_box(&text), table).expect("measures"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
