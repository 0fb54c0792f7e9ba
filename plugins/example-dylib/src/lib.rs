//! An example dynamic plugin for Cantus, built as a cdylib: a deterministic symbolic
//! "model". Asked by the twelve-tone proposer (`context.domain == "twelve-tone"`) it
//! answers as a symbolic proposer ([`twelve_tone`]): every owed note of every voice,
//! in the voice lines the proposer reads. Any other request gets one bar in the
//! onset-slot grammar ([`phrase`]).
//!
//! It exists to prove the C ABI end to end (the host loads it with `libloading`,
//! checks the ABI version, sends JSON, reads JSON) and to give tests a model that
//! needs no network and always answers the same way. What it writes is decided by
//! [`answer`]; the Python subprocess example (`plugins/example-subprocess/`) follows
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
pub mod twelve_tone;

use cantus_plugin_abi::{Plugin, c_str, export_plugin};
use std::ffi::CStr;

/// The plugin: stateless, so `call` is safe from any number of threads.
pub struct ExampleSerial;

impl Plugin for ExampleSerial {
    const NAME: &'static CStr = c"example-serial";
    const VERSION: &'static CStr = c_str!(env!("CARGO_PKG_VERSION"));
    const KIND: &'static CStr = c"proposer";
    const DESCRIPTION: &'static CStr =
        c"example cdylib: a symbolic twelve-tone proposer for the twelve-tone context, else one bar in the onset-slot grammar";

    fn new() -> Result<Self, String> {
        Ok(ExampleSerial)
    }

    fn call(&self, request: serde_json::Value) -> Result<serde_json::Value, String> {
        answer(&request)
    }
}

/// The reply JSON to a request JSON: a twelve-tone proposer's answer when
/// `context.domain` is `"twelve-tone"`, otherwise the generic phrase.
pub fn answer(request: &serde_json::Value) -> Result<serde_json::Value, String> {
    match request.get("context") {
        Some(serde_json::Value::Object(ctx))
            if ctx.get("domain").and_then(serde_json::Value::as_str) == Some("twelve-tone") =>
        {
            twelve_tone::answer(ctx)
        }
        _ => phrase::answer(request),
    }
}

export_plugin!(ExampleSerial);
