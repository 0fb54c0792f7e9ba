//! An example dynamic plugin for Cantus, built as a cdylib: a deterministic symbolic
//! "model" that answers every request with one bar in the onset-slot grammar.
//!
//! It exists to prove the C ABI end to end (the host loads it with `libloading`,
//! checks the ABI version, sends JSON, reads JSON) and to give tests a model that
//! needs no network and always answers the same way. What it writes is decided by
//! [`phrase`]; the Python subprocess example (`plugins/example-subprocess/`) follows
//! the same rules, so the two can be checked against each other.
//!
//! Build it and point a config at it:
//!
//! ```text
//! cargo build --release -p cantus-plugin-example
//! # target/release/libcantus_plugin_example.so (.dylib on macOS, .dll on Windows)
//!
//! # cantus.toml
//! [backend]
//! kind = "dynamic"
//! path = "../target/release/libcantus_plugin_example.so"   # relative to this file
//! ```

pub mod phrase;

use cantus_plugin_abi::{Plugin, c_str, export_plugin};
use std::ffi::CStr;

/// The plugin: stateless, so `call` is safe from any number of threads.
pub struct ExampleSerial;

impl Plugin for ExampleSerial {
    const NAME: &'static CStr = c"example-serial";
    const VERSION: &'static CStr = c_str!(env!("CARGO_PKG_VERSION"));
    const KIND: &'static CStr = c"proposer";
    const DESCRIPTION: &'static CStr =
        c"example cdylib: one bar in the onset-slot grammar from context.allowed_pitch_classes";

    fn new() -> Result<Self, String> {
        Ok(ExampleSerial)
    }

    fn call(&self, request: serde_json::Value) -> Result<serde_json::Value, String> {
        phrase::answer(&request)
    }
}

export_plugin!(ExampleSerial);
