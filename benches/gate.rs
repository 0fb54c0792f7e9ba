//! Throughput of the strict release gate, against the cost of reading the same
//! piece from the text grammar.
//!
//! Pieces are synthetic valid four-voice pieces (`cantus_twelve_tone::synth`) of
//! 10^3 … 10^6 events with chords and rests, on the Op. 25 row, tagged as the engine
//! tags. Targets: at least 20 million events per second per core, and at most 1.5×
//! the parse of the same piece. Run with
//! `cargo bench --bench gate -- --warm-up-time 1 --measurement-time 3`.

use cantus_music::grammar::{self, ParseOptions};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::row::resolve;
use cantus_twelve_tone::synth::{SynthOptions, SynthPiece, piece};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn four_voices(events: usize) -> SynthPiece {
    let row = resolve("SchoenbergOp25").expect("a historical row").row;
    piece(&SynthOptions::new(row, 4, events, 42))
}

fn gate_vs_parse(c: &mut Criterion) {
    let pieces: Vec<(SynthPiece, String)> = SIZES
        .iter()
        .map(|&n| {
            let p = four_voices(n);
            let text = grammar::write(&p.score).expect("a synthetic piece is writable");
            (p, text)
        })
        .collect();
    for (p, _) in &pieces {
        assert!(p.gate(GateMode::Strict).judge_score(&p.score).passed);
    }

    let mut group = c.benchmark_group("strict_gate");
    for (p, _) in &pieces {
        let events = p.score.event_count();
        if events > 50_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(events as u64));
        let gate = p.gate(GateMode::Strict);
        group.bench_with_input(BenchmarkId::from_parameter(events), &p.score, |b, score| {
            b.iter(|| black_box(gate.judge_score(black_box(score))))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("grammar_parse");
    let options = ParseOptions::default();
    for (p, text) in &pieces {
        let events = p.score.event_count();
        if events > 50_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(events as u64));
        group.bench_with_input(BenchmarkId::from_parameter(events), text, |b, text| {
            b.iter(|| {
                black_box(grammar::parse(black_box(text), &options).map(|p| p.score.event_count()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, gate_vs_parse);
criterion_main!(benches);
