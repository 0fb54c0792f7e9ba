//! `cantus-registry`: a rule domain as one registered unit.
//!
//! `cantus-framework` is what a domain is written against (its traits, the engine);
//! this crate is how a finished domain becomes part of a program. A domain crate
//! implements [`DomainPlugin`] and registers it with [`register!`]; the program
//! (`cantus compose|verify|plugins|render|blind|experiment`), the renderer and the
//! experiment runner then find it by its [`DomainId`] ([`find`], [`domains`]) and
//! never name it. This crate knows no domain, no network and no command line: a
//! domain depends on it without pulling in the program.
//!
//! What a unit bundles, each part optional and each a small trait:
//!
//! | part | trait | used by |
//! |---|---|---|
//! | flags, spec read and checked before work, the job | [`Compose`], [`Job`] | `cantus compose --domain <id>` |
//! | judging a file by the domain's gate | [`Verify`] | `cantus verify --domain <id>` |
//! | the artefact's files, written and read back | [`Artefact`] | every run folder, the renderer |
//! | the gate's verdict and the analysis marks for a page | [`Review`] | `cantus render`, `cantus blind` |
//! | experiment task sets (`[tasks] domain = "<id>"`) and one trial of a task | [`Trials`], [`Trial`] | `cantus experiment run\|report` |
//! | concepts it can judge and write, for lessons | [`Teach`](teach::Teach) | `cantus teach` |
//! | its proposers, one line each | [`Unit::proposer`] | `cantus plugins` |
//!
//! What a domain gets for free: the run folder, written as one unit in one layout
//! ([`RunDir`], [`layout`]); the model (`--config`, record and replay) handed in as a
//! [`Model`]; for a [`Score`](cantus_music::Score) artefact every score format, the
//! engraving with its violations and the trace's repairs drawn on it, audio, and
//! the HTML report and index pages; a progress bar, exit codes and `--json`; and,
//! with [`Trials`], `cantus experiment` over its task sets — the grid of models,
//! conditions and runs, resumable records, shards and merge, delivery, cost,
//! violations by rule and the choice its constraints offered in the report.
//!
//! # Registering a domain
//!
//! ```
//! use cantus_registry::*;
//! use std::path::Path;
//!
//! /// The artefact: a list of numbers, written as one line of text.
//! #[derive(Clone, Debug, PartialEq)]
//! struct Numbers(Vec<u32>);
//!
//! impl Artefact for Numbers {
//!     const EXTENSIONS: &'static [&'static str] = &["txt"];
//!     const READS: &'static [&'static str] = &["txt"];
//!     fn to_bytes(&self, _: &str) -> Result<Vec<u8>, String> {
//!         let words: Vec<String> = self.0.iter().map(u32::to_string).collect();
//!         Ok(words.join(" ").into_bytes())
//!     }
//!     fn read(path: &Path) -> Result<(Numbers, Vec<String>), String> {
//!         let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
//!         let numbers = text.split_whitespace().map(|w| w.parse().map_err(|_| format!("`{w}` is not a number")));
//!         Ok((Numbers(numbers.collect::<Result<_, _>>()?), Vec::new()))
//!     }
//!     fn view(&self) -> View {
//!         View::Text(String::from_utf8(self.to_bytes("txt").unwrap()).unwrap())
//!     }
//! }
//!
//! /// `cantus verify --domain rising FILE [--strictly]`.
//! struct CheckRising;
//! impl Verify for CheckRising {
//!     fn options(&self) -> &'static [Opt] {
//!         const OPTIONS: &[Opt] = &[Opt::flag("strictly", "no number may repeat")];
//!         OPTIONS
//!     }
//!     fn verify(&self, file: &Path, _lenient: bool, args: &Args) -> Result<Verified, DomainError> {
//!         let (Numbers(n), warnings) = Numbers::read(file).map_err(DomainError::new)?;
//!         let ok = |w: &[u32]| if args.flag("strictly") { w[0] < w[1] } else { w[0] <= w[1] };
//!         let passed = n.windows(2).all(ok);
//!         Ok(Verified {
//!             passed,
//!             warnings,
//!             lines: vec![format!("{} {}", if passed { "PASSED" } else { "FAILED" }, file.display())],
//!             json: serde_json::json!({ "passed": passed }),
//!         })
//!     }
//! }
//!
//! struct Rising;
//! impl DomainPlugin for Rising {
//!     fn id(&self) -> DomainId {
//!         DomainId::new("rising")
//!     }
//!     fn build(&self, unit: &mut Unit) {
//!         unit.describe("rising sequences of numbers", env!("CARGO_PKG_VERSION"))
//!             .artefact::<Numbers>()
//!             .verify(CheckRising);
//!     }
//! }
//!
//! register!(Rising);
//!
//! // What the program does with `cantus verify --domain rising --strictly FILE`:
//! let file = std::env::temp_dir().join(format!("rising-{}.txt", std::process::id()));
//! std::fs::write(&file, "1 2 2 5").unwrap();
//! let verifier = find("rising").unwrap().verifier().unwrap();
//! let given = [("strictly".to_owned(), None)];
//! let args = Args::parse(verifier.options(), "rising", given, &[]).unwrap();
//! let verdict = verifier.verify(&file, false, &args).unwrap();
//! std::fs::remove_file(&file).unwrap();
//! assert!(!verdict.passed);
//! assert!(find("rising").unwrap().composer().is_err(), "it composes nothing");
//! ```
//!
//! The program's binary links a domain crate with one line (`use the_crate as _;`
//! in `src/domains.rs`); a program of your own can instead call `cantus::cli::main()`
//! from a binary that also links your domain, and name nothing else.
#![forbid(unsafe_code)]

mod artefact;
mod compose;
mod form;
mod id;
pub mod layout;
mod options;
mod report;
mod review;
mod run_dir;
pub mod summary;
pub mod teach;
mod trials;
mod unit;
mod verify;

pub use artefact::{Artefact, ArtefactKind, View};
pub use compose::{Compose, Composed, DomainError, Job, Model, ProgressFn, Request, Run};
pub use form::{Form, Forms, Prompt, Whole, WholeStyle};
pub use id::{BadDomainId, DomainId};
pub use options::{Args, ArgsError, Opt, OptKind};
pub use report::{Analyser, LenientGate, Reference};
pub use review::{Analysis, Finding, Place, Review, Reviewed, Verdict};
pub use run_dir::{OutputError, RunDir};
pub use trials::{
    Attempt, Folder, Judgement, Lenient, Made, RunFolder, Study, TaskTable, TaskTableError, Trial,
    TrialTask, Trials, Tried,
};
pub use unit::{
    DomainPlugin, Missing, ProposerInfo, Registration, Shortcut, Unit, UnknownDomain,
    artefact_extensions, default_domain, domain_of_run, domains, find,
};
pub use verify::{Verified, Verify};

/// The attribute a [`Job`] is implemented with (`#[async_trait(?Send)]`).
pub use async_trait::async_trait;
#[doc(hidden)]
pub use inventory;
