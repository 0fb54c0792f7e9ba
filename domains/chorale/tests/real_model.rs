//! A Bach chorale melody (one of the shortest, 32 beats) harmonised by a real model — llama.cpp's
//! OpenAI-compatible server with SmolLM2-135M (`scripts/local-model.sh start`
//! prints the URL to put in `CANTUS_LOCAL_MODEL_URL`) — through the constrained
//! harness under the strict profile. Every outcome is judged: a released chorale
//! must pass the gate again and keep its melody, a failure must say why; every
//! reply must have been held to the grammar. One line per run goes to stderr
//! (outcome, calls, tokens, wall time).
//!
//! Without `CANTUS_LOCAL_MODEL_URL` the test prints `SKIPPED: …` and passes, unless
//! `CANTUS_REQUIRE_MODEL=1`; without the shared chorales likewise, unless
//! `CANTUS_REQUIRE_SHARED=1`.

use cantus_backend::Config;
use cantus_chorale::{
    Harmonisation, HarmonisationGate, ModelProposer, Profile, ReadOptions, read_chorale,
};
use cantus_framework::{AskOptions, Budget, Entry, ModelBackend, Outcome};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn local_model_url(what: &str) -> Option<String> {
    match std::env::var("CANTUS_LOCAL_MODEL_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var("CANTUS_REQUIRE_MODEL").as_deref() != Ok("1"),
                "{what}: CANTUS_REQUIRE_MODEL=1 but CANTUS_LOCAL_MODEL_URL is not set"
            );
            eprintln!("SKIPPED: {what} (no local model; set CANTUS_LOCAL_MODEL_URL)");
            None
        }
    }
}

fn shared_chorales(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANTUS_SHARED")
        .map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            PathBuf::from,
        )
        .join("data/corpus/bach_chorales");
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!("SKIPPED: {what} (shared data not found; set CANTUS_SHARED)");
    assert!(
        std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
        "{msg}"
    );
    eprintln!("{msg}");
    None
}

fn backend(url: &str) -> Arc<dyn ModelBackend> {
    let toml = format!(
        "[backend]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"smollm2\"\n\
         temperature = 0.0\nseed = 7\nmax_tokens = 16\ntimeout_s = 60.0\nretries = 1\n"
    );
    let config = Config::from_toml_str(&toml, "real_model.rs").expect("the config reads");
    cantus_backend::build(&config).unwrap_or_else(|e| panic!("the backend builds: {e}"))
}

#[test]
fn smollm2_harmonises_a_bach_melody_under_the_grammar() {
    let Some(url) = local_model_url("SmolLM2 harmonising a chorale melody") else {
        return;
    };
    let Some(dir) = shared_chorales("SmolLM2 harmonising a chorale melody") else {
        return;
    };
    let backend = backend(&url);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // One melody: at a few seconds a call on a loaded 2-core machine, a chorale is
    // minutes; the 40-melody run is `examples/harmonise_bach.rs`.
    {
        let file = "r006_bwv281.musicxml";
        let loaded = cantus_music::format::read_path(&dir.join(file), false).expect("reads");
        let reading = read_chorale(&loaded.score, &ReadOptions::default()).expect("a chorale");
        let spec = Harmonisation::of(file, &reading.chorale);
        let options = AskOptions {
            constrained: true,
            reasks: 1,
            temperature: Some(0.0),
            seed: Some(7),
            max_tokens: Some(16),
            ..AskOptions::default()
        };
        let proposer = ModelProposer::new(Arc::clone(&backend), options, Profile::Strict);
        let engine = cantus_chorale::engine(Profile::Strict).with_budget(Budget {
            deadline: Some(Duration::from_secs(420)),
            max_proposer_calls: Some(120),
            ..cantus_chorale::compose::budget()
        });
        let start = Instant::now();
        let outcome = runtime.block_on(engine.run(&spec, &proposer, 3));
        let trace = outcome.trace();
        let exchanges: Vec<_> = trace
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Call(c) => c.model.as_ref(),
                _ => None,
            })
            .collect();
        assert!(!exchanges.is_empty(), "{file}: the model was asked");
        assert!(
            exchanges
                .iter()
                .all(|x| x.constraint.as_deref() == Some("gbnf")
                    && x.constraint_honoured != Some(false)),
            "{file}: every reply held to the grammar"
        );
        let what = match &outcome {
            Outcome::Released { artefact, .. } => {
                let report =
                    HarmonisationGate(Profile::Strict).judge_harmonisation(&spec, artefact);
                assert!(
                    report.passed,
                    "{file}: released but {:#?}",
                    report.violations
                );
                "released".to_owned()
            }
            Outcome::Failure { diagnostics, .. } => {
                assert!(!diagnostics.is_empty(), "{file}: a failure says why");
                eprintln!("REAL-MODEL chorale | {file}: {}", diagnostics[0]);
                format!("failure: {}", diagnostics[0])
            }
        };
        let t = &trace.totals;
        eprintln!(
            "REAL-MODEL chorale | {file:<24} | {:<50.50} | calls {:>3} | tokens in {:?} out {:?} | repaired {} dropped {} | wall {} ms",
            what,
            t.proposer_calls,
            t.usage.tokens_in,
            t.usage.tokens_out,
            t.repaired,
            t.dropped,
            start.elapsed().as_millis()
        );
    }
}
