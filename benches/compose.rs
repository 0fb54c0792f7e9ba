//! Throughput of the whole main job: plan, propose, verify, repair and gate a piece
//! with the embedded proposer, in events settled per second.
//!
//! Run with `cargo bench --bench compose -- --warm-up-time 1 --measurement-time 3`.

use cantus_framework::Outcome;
use cantus_twelve_tone::EmbeddedProposer;
use cantus_twelve_tone::compose::{Composer, budget};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const BRIEFS: [&str; 3] = [
    "A 16-bar trio in 3/4 on Webern's Op. 21 row with a canon between the outer voices",
    "A 32-bar quartet in 4/4 on Schoenberg's Op. 25 row",
    "A 32-bar sextet in 4/4 on Berg's Lyric Suite row",
];

fn compose_bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("compose");
    group.sample_size(10);
    for brief in BRIEFS {
        let spec = compile_brief(brief).expect("bench briefs compile").spec;
        let run = || {
            runtime
                .block_on(Composer::new(GateMode::Strict, budget()).compose(
                    &spec,
                    0,
                    &EmbeddedProposer,
                ))
                .expect("bench briefs plan")
        };
        let first = run();
        let events = first.outcome.trace().totals.events_proposed;
        assert!(
            matches!(first.outcome, Outcome::Released { .. }),
            "{brief} releases"
        );
        group.throughput(Throughput::Elements(events));
        let label = format!("{}v{}b", spec.voices.len(), spec.bars);
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter(|| black_box(run().outcome.is_released()))
        });
    }
    group.finish();
}

criterion_group!(benches, compose_bench);
criterion_main!(benches);
