//! The model flags of `cantus compose`: which `cantus.toml` to use, and whether to
//! record the run's model exchanges to a cassette or replay them from one.
//!
//! Without `--config` Cantus uses its embedded symbolic proposer and no network.

use cantus_backend::{Cassette, Config};
use cantus_framework::ModelBackend;
use std::path::PathBuf;
use std::sync::Arc;

/// Model backend flags of `cantus compose`.
#[derive(clap::Args, Debug, Default)]
pub struct ModelArgs {
    /// A `cantus.toml` naming the model backend, its settings, harness budgets and gate
    /// (see examples/config/cantus.toml). Without it the embedded proposer is used.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Store every model exchange of this run in FILE (JSON lines) for --replay.
    #[arg(
        long,
        value_name = "FILE",
        requires = "config",
        conflicts_with = "replay"
    )]
    pub record: Option<PathBuf>,
    /// Answer every model call from FILE, written by --record: offline and deterministic.
    #[arg(long, value_name = "FILE", requires = "config")]
    pub replay: Option<PathBuf>,
    /// Ask the model for the whole piece in one reply and judge it with the strict gate
    /// (no harness: the baseline the harness is measured against).
    #[arg(long, requires = "config")]
    pub raw: bool,
    /// Constrained decoding: send a grammar generated from the domain (for twelve-tone
    /// compose, only the pitch classes the row cursor allows next; for fill, exactly the
    /// gap's bars) — overrides `[harness] constrained`.
    #[arg(long, requires = "config", conflicts_with = "raw")]
    pub constrained: bool,
}

impl ModelArgs {
    /// Whether to send a decoding constraint: `--constrained`, else `[harness] constrained`.
    pub fn constrained_with(&self, config: &Config) -> bool {
        self.constrained || config.harness.constrained
    }
}

/// A loaded `cantus.toml` and the backend it names, ready to answer.
pub type Configured = (Config, Arc<dyn ModelBackend>);

/// The config and the backend `args` ask for, wrapped to record or replay; `None`
/// without `--config`. With `--replay` the configured backend is not built at all (no
/// key, no network needed). Errors name the file and the problem.
pub fn backend(args: &ModelArgs) -> Result<Option<Configured>, String> {
    let Some(path) = &args.config else {
        return Ok(None);
    };
    let config = Config::load(path).map_err(|e| e.to_string())?;
    let backend: Arc<dyn ModelBackend> = if let Some(cassette) = &args.replay {
        Arc::new(Cassette::replay(cassette).map_err(|e| e.to_string())?)
    } else {
        let built = cantus_backend::build(&config)
            .map_err(|e| format!("{}: [backend]: {e}", path.display()))?;
        match &args.record {
            Some(cassette) => {
                Arc::new(Cassette::record(built, cassette).map_err(|e| e.to_string())?)
            }
            None => built,
        }
    };
    Ok(Some((config, backend)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::{Message, ModelReply, ModelRequest};

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("cantus-model-args-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn no_config_means_no_backend() {
        assert!(backend(&ModelArgs::default()).unwrap().is_none());
    }

    #[test]
    fn config_errors_name_the_file_and_key() {
        let dir = temp("bad");
        let path = dir.join("cantus.toml");
        std::fs::write(&path, "[backend]\nkind = \"openai\"\ntemprature = 0.2\n").unwrap();
        let args = ModelArgs {
            config: Some(path),
            ..ModelArgs::default()
        };
        let err = backend(&args).err().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            err.contains("cantus.toml:3:1") && err.contains("temprature"),
            "{err}"
        );
    }

    #[test]
    fn replay_answers_without_building_the_configured_backend() {
        let dir = temp("replay");
        let config = dir.join("cantus.toml");
        // A hosted backend whose key variable is unset: building it would fail.
        std::fs::write(
            &config,
            "[backend]\nkind = \"anthropic\"\nbase_url = \"https://api.example.invalid\"\nmodel = \"m\"\n\
             api_key_env = \"CANTUS_TEST_UNSET_VARIABLE_FOR_REPLAY\"\n",
        )
        .unwrap();
        let request = ModelRequest::new(vec![Message::user("next?")]);
        let entry = cantus_backend::cassette::Entry {
            call: 1,
            backend: "anthropic:m".into(),
            request: request.clone(),
            outcome: cantus_backend::cassette::Outcome::Reply(ModelReply::text("C4@0>1")),
        };
        let cassette = dir.join("run.jsonl");
        std::fs::write(&cassette, serde_json::to_string(&entry).unwrap() + "\n").unwrap();

        let built = ModelArgs {
            config: Some(config.clone()),
            ..ModelArgs::default()
        };
        let err = backend(&built).err().unwrap();
        assert!(
            err.contains("CANTUS_TEST_UNSET_VARIABLE_FOR_REPLAY"),
            "{err}"
        );

        let replaying = ModelArgs {
            config: Some(config),
            replay: Some(cassette),
            ..ModelArgs::default()
        };
        let (_, model) = backend(&replaying).unwrap().unwrap();
        let reply = crate::cli::runtime()
            .block_on(model.complete(&request))
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            (model.name().as_str(), reply.text.as_str()),
            ("anthropic:m", "C4@0>1")
        );
    }
}
