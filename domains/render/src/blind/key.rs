//! The key of a blind package: which condition is on which side of every pair, and
//! the seed the sides were drawn with. It is written outside the package and read
//! back only to score the ratings.

use crate::error::{RenderError, Result};
use cantus_bounded as bounded;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The most a key file may hold (a study of thousands of pairs is a few MiB).
pub const KEY_FILE_CAP: u64 = 16 * bounded::MIB;

/// A package's key, as scoring reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The seed the pairs and sides were drawn with (also the bootstrap's).
    pub seed: u64,
    /// The two conditions compared.
    pub conditions: [String; 2],
    /// Per pair id, the condition (index into `conditions`) of side A and of side B.
    sides: BTreeMap<String, [usize; 2]>,
}

fn key_error(path: &Path, message: String) -> RenderError {
    RenderError::Blind {
        path: path.to_path_buf(),
        message,
    }
}

impl Key {
    /// Reads the key file at `path` (at most [`KEY_FILE_CAP`]).
    pub fn read(path: &Path) -> Result<Key> {
        let text = bounded::read_text(path, KEY_FILE_CAP, "key file")
            .map_err(|e| RenderError::io(path, e))?;
        Key::from_json(&text, path)
    }

    /// The key in `text`, read from `path` (which names it in errors).
    pub fn from_json(text: &str, path: &Path) -> Result<Key> {
        let key: Value =
            serde_json::from_str(text).map_err(|e| key_error(path, format!("not JSON: {e}")))?;
        let conditions: [String; 2] = key
            .get("conditions")
            .and_then(Value::as_array)
            .and_then(|c| {
                let names: Vec<String> = c
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                names.try_into().ok()
            })
            .ok_or_else(|| key_error(path, "needs \"conditions\": two names".into()))?;
        let seed = key.get("seed").and_then(Value::as_u64).unwrap_or(0);
        let mut sides = BTreeMap::new();
        for p in key
            .get("pairs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = p
                .get("pair")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let side = |s: &str| {
                let c = p
                    .pointer(&format!("/{s}/condition"))
                    .and_then(Value::as_str)?;
                conditions.iter().position(|x| x == c)
            };
            match (side("A"), side("B")) {
                (Some(a), Some(b)) => {
                    sides.insert(id, [a, b]);
                }
                _ => {
                    return Err(key_error(
                        path,
                        format!("pair {id:?} names no known conditions"),
                    ));
                }
            }
        }
        Ok(Key {
            seed,
            conditions,
            sides,
        })
    }

    /// The conditions of side A and side B of `pair`, if the key has it.
    pub fn sides(&self, pair: &str) -> Option<[usize; 2]> {
        self.sides.get(pair).copied()
    }
}
