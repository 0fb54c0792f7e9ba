//! Throughput of the serial analyser (`cantus analyze`) for a given row, on
//! synthetic four-voice pieces (`cantus_twelve_tone::synth`: chords, rests,
//! overlapping voices) of about 10^3, 10^4 and 10^5 notes on the Op. 25 row, each
//! statement's notes dealt out over the voices in turns (so statements pass between
//! voices, as in real twelve-tone music). The analysis is meant to be linear in the
//! number of notes: the three sizes should take time in proportion. Run with
//! `cargo bench --bench analyze -- --warm-up-time 1 --measurement-time 5`.

use cantus_music::Score;
use cantus_twelve_tone::analysis::{Options, analyze};
use cantus_twelve_tone::row::resolve;
use cantus_twelve_tone::synth::{SynthOptions, piece};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// A synthetic piece of about `notes` notes whose events are dealt out over the
/// voices in turns of three.
fn dealt(notes: usize) -> Score {
    let row = resolve("SchoenbergOp25").expect("a historical row").row;
    let mut options = SynthOptions::new(row, 4, notes * 7 / 8, 7);
    options.tags = false;
    let mut score = piece(&options).score;
    let voices = score.voices.len();
    let mut moved: Vec<Vec<cantus_music::Event>> = vec![Vec::new(); voices];
    for (v, voice) in score.voices.iter_mut().enumerate() {
        for (k, e) in voice.events.drain(..).enumerate() {
            moved[(v + k / 3) % voices].push(e);
        }
    }
    for (voice, events) in score.voices.iter_mut().zip(moved) {
        voice.events = events;
        voice.sort();
    }
    score
}

fn analyse(c: &mut Criterion) {
    let options = Options {
        row: Some(resolve("SchoenbergOp25").expect("a historical row").row),
        ..Options::default()
    };
    let pieces: Vec<Score> = SIZES.iter().map(|&n| dealt(n)).collect();
    let mut group = c.benchmark_group("analyze_given_row");
    for score in &pieces {
        let notes: usize = score
            .voices
            .iter()
            .flat_map(|v| &v.events)
            .map(|e| e.pitches.len())
            .sum();
        let analysis = analyze(score, &options).expect("a synthetic piece is analysable");
        assert!(
            analysis.explained * 100 >= analysis.notes * 95,
            "{} of {} notes explained",
            analysis.explained,
            analysis.notes
        );
        if notes > 50_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(notes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(notes), score, |b, score| {
            b.iter(|| black_box(analyze(black_box(score), &options)))
        });
    }
    group.finish();
}

criterion_group!(benches, analyse);
criterion_main!(benches);
