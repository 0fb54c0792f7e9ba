//! The run folder's layout, named once. Every run of every domain — `cantus compose`,
//! an experiment's `runs/<run>/`, a bank — leaves the same files, and everything that
//! writes or reads one (the run directory, the renderer, the blind package, the
//! experiment's resume and merge) takes the names from here:
//!
//! | file | what |
//! |---|---|
//! | `piece.<ext>` | the released artefact, in each of its domain's formats ([`crate::Artefact`]) |
//! | `unreleased-piece.<ext>` | the artefact the gate refused, when one was made |
//! | `report.json` | the domain's report of the run; names its `domain` unless it is the default one |
//! | `trace.jsonl` | the trace: a certificate per event |
//! | `spec.toml` | what was asked for, when the domain writes its spec |
//! | `raw-reply.txt` | a model's whole reply as it came (the one-reply baseline) |

/// The run's report.
pub const REPORT: &str = "report.json";
/// The run's trace.
pub const TRACE: &str = "trace.jsonl";
/// The spec the run was asked for.
pub const SPEC: &str = "spec.toml";
/// A model's whole-piece reply as it came.
pub const REPLY: &str = "raw-reply.txt";
/// The stem of a released artefact's files.
pub const RELEASED: &str = "piece";
/// The stem of an unreleased artefact's files.
pub const UNRELEASED: &str = "unreleased-piece";

/// The stem of the artefact's files: `piece` when released, else `unreleased-piece`.
pub fn artefact_stem(released: bool) -> &'static str {
    if released { RELEASED } else { UNRELEASED }
}

/// The artefact's file in the format `extension` (`piece.txt`).
pub fn artefact_file(released: bool, extension: &str) -> String {
    format!("{}.{extension}", artefact_stem(released))
}

/// Whether `name` is a file a run folder holds, given the artefact extensions of
/// every registered domain.
pub fn is_run_file(name: &str, extensions: &[&str]) -> bool {
    if [REPORT, TRACE, SPEC, REPLY].contains(&name) {
        return true;
    }
    [RELEASED, UNRELEASED].iter().any(|stem| {
        name.strip_prefix(stem)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|ext| extensions.contains(&ext))
    })
}
