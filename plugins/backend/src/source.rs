//! The model a command runs with: the backend `cantus.toml` names, wrapped to record
//! its exchanges to a cassette or to replay them from one.
//!
//! Without a config Cantus uses its embedded symbolic proposers and no network.

use crate::{Cassette, Config};
use cantus_framework::ModelBackend;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a command's model comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelSource {
    /// The `cantus.toml`; `None` for the embedded proposers.
    pub config: Option<PathBuf>,
    /// Store every exchange in this cassette (JSON lines).
    pub record: Option<PathBuf>,
    /// Answer every call from this cassette instead of the backend.
    pub replay: Option<PathBuf>,
}

/// A loaded `cantus.toml` and the backend it names, ready to answer.
#[derive(Clone)]
pub struct Configured {
    /// The whole file (`cantus_backend::Config`).
    pub settings: Config,
    pub backend: Arc<dyn ModelBackend>,
}

/// Why the model could not be set up; the message names the file and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ModelSetupError(pub String);

impl ModelSource {
    /// The settings and backend, or `None` without a config. With `replay` the
    /// configured backend is not built at all (no key, no network needed).
    pub fn open(&self) -> Result<Option<Configured>, ModelSetupError> {
        let Some(path) = &self.config else {
            return Ok(None);
        };
        let settings = Config::load(path).map_err(|e| ModelSetupError(e.to_string()))?;
        let backend = self.backend(path, &settings)?;
        Ok(Some(Configured { settings, backend }))
    }

    fn backend(
        &self,
        path: &Path,
        settings: &Config,
    ) -> Result<Arc<dyn ModelBackend>, ModelSetupError> {
        if let Some(cassette) = &self.replay {
            let replay = Cassette::replay(cassette).map_err(|e| ModelSetupError(e.to_string()))?;
            return Ok(Arc::new(replay));
        }
        let built = crate::build(settings)
            .map_err(|e| ModelSetupError(format!("{}: [backend]: {e}", path.display())))?;
        Ok(match &self.record {
            Some(cassette) => Arc::new(
                Cassette::record(built, cassette).map_err(|e| ModelSetupError(e.to_string()))?,
            ),
            None => built,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_framework::{Message, ModelReply, ModelRequest};

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("cantus-model-source-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn no_config_means_no_backend() {
        assert!(ModelSource::default().open().unwrap().is_none());
    }

    #[test]
    fn config_errors_name_the_file_and_key() {
        let dir = temp("bad");
        let path = dir.join("cantus.toml");
        std::fs::write(&path, "[backend]\nkind = \"openai\"\ntemprature = 0.2\n").unwrap();
        let source = ModelSource {
            config: Some(path),
            ..ModelSource::default()
        };
        let err = source.open().err().unwrap().to_string();
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
        let entry = crate::cassette::Entry {
            call: 1,
            backend: "anthropic:m".into(),
            request: request.clone(),
            outcome: crate::cassette::Outcome::Reply(ModelReply::text("C4@0>1")),
        };
        let cassette = dir.join("run.jsonl");
        std::fs::write(&cassette, serde_json::to_string(&entry).unwrap() + "\n").unwrap();

        let built = ModelSource {
            config: Some(config.clone()),
            ..ModelSource::default()
        };
        let err = built.open().err().unwrap().to_string();
        assert!(
            err.contains("CANTUS_TEST_UNSET_VARIABLE_FOR_REPLAY"),
            "{err}"
        );

        let replaying = ModelSource {
            config: Some(config),
            replay: Some(cassette),
            ..ModelSource::default()
        };
        let model = replaying.open().unwrap().unwrap().backend;
        let reply = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(model.complete(&request))
            .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            (model.name().as_str(), reply.text.as_str()),
            ("anthropic:m", "C4@0>1")
        );
    }
}
