//! Delivery rates over the brief bank, the harness paper's headline figure: how many
//! briefs end in a released piece when the embedded proposer's raw output is judged
//! directly, and when it goes through the full propose–verify–repair loop — each
//! under the relaxed gate (which trusts the generator's row tags, as the paper's did)
//! and under the strict one (which re-derives them from the pitches).
//!
//! `cargo run --release --example delivery [SEEDS]` (default 3 seeds per brief).

use cantus_framework::{Assessment, Engine, Measure, Outcome, Revise};
use cantus_twelve_tone::compose::{budget, engine};
use cantus_twelve_tone::gate::GateMode;
use cantus_twelve_tone::spec::compile_brief;
use cantus_twelve_tone::{Blueprint, EmbeddedProposer, TwelveTone};

/// No soft measure: a raw proposal is judged by the gate alone.
struct GateOnly;

impl Measure<TwelveTone> for GateOnly {
    fn name(&self) -> &str {
        "gate-only"
    }
    fn assess(&self, _: &cantus_music::Score) -> Assessment {
        Assessment {
            converged: true,
            ..Assessment::default()
        }
    }
}

fn main() {
    let seeds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let bank = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/briefs/bank.txt"
    ))
    .expect("the brief bank");
    let briefs: Vec<&str> = bank
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    // [raw relaxed, raw strict, harness relaxed, harness strict]
    let mut released = [0usize; 4];
    let mut runs = 0;
    for brief in &briefs {
        let spec = compile_brief(brief).expect("bank briefs compile").spec;
        for seed in 0..seeds {
            let plan = Blueprint::new(&spec, seed).expect("bank briefs plan");
            runs += 1;
            for (i, mode) in [GateMode::Relaxed, GateMode::Strict]
                .into_iter()
                .enumerate()
            {
                let e: Engine<TwelveTone> = engine(mode).with_budget(budget());
                // Raw: one whole-piece proposal, judged as it comes.
                let raw = rt.block_on(e.revise_whole(
                    &plan,
                    &EmbeddedProposer,
                    &GateOnly,
                    seed,
                    Revise::gate_only(1),
                ));
                released[i] += usize::from(matches!(raw, Outcome::Released { .. }));
                // Harness: the propose–verify–repair loop.
                let harness = rt.block_on(e.run(&plan, &EmbeddedProposer, seed));
                released[2 + i] += usize::from(harness.is_released());
            }
        }
    }
    let pct = |n: usize| 100.0 * n as f64 / runs as f64;
    println!("{} briefs × {seeds} seeds = {runs} runs", briefs.len());
    println!("                 relaxed gate   strict gate");
    println!(
        "raw proposals    {:>6.1}%        {:>6.1}%",
        pct(released[0]),
        pct(released[1])
    );
    println!(
        "full harness     {:>6.1}%        {:>6.1}%",
        pct(released[2]),
        pct(released[3])
    );
}
