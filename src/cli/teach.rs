//! `cantus teach CONCEPT`: a teaching example of a device from Cantus's concept
//! catalogue (Cantus's own and every linked domain's), by the concept's domain's
//! embedded proposer or a model (`--config`), judged by the concept's challenge,
//! novelty against the example shown and copy against the references.

use super::workflow::{Setup, WorkflowArgs, author_options};
use super::{Exit, bad_input};
use cantus_backend::Configured;
use cantus_concepts::{Answerer, Catalogue, TeachOptions, teach};
use cantus_libretto::Calibration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The concept's id (see --list).
    #[arg(required_unless_present = "list")]
    pub concept: Option<String>,
    /// List the catalogue: id, level, name and challenge of every concept.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub common: WorkflowArgs,
}

pub fn run(args: Args) -> Exit {
    let catalogue = match Catalogue::shipped() {
        Ok(c) => c,
        Err(e) => return bad_input(format!("the concept catalogue: {e}")),
    };
    if args.list {
        for c in &catalogue.concepts {
            let by = if c.embedded() {
                "embedded or --config"
            } else {
                "--config only"
            };
            say!("{:<30} {:<13} {} ({by})", c.id, c.level.name(), c.title);
            if let Ok(challenge) = c.challenge(Calibration::original()) {
                say!("    {}", challenge.statement());
            }
        }
        return Exit::Ok;
    }
    let Some(id) = &args.concept else {
        return bad_input("name a concept, or --list");
    };
    let concept = match catalogue.find(id) {
        Ok(c) => c,
        Err(e) => return bad_input(e),
    };
    let Setup {
        table,
        references,
        model,
        rounds,
        constrained,
    } = match args.common.setup() {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let options = TeachOptions {
        table: &table,
        references: references.as_ref(),
        rounds,
        seed: args.common.seed,
    };
    let answerer = match &model {
        None => Answerer::Embedded,
        Some(Configured { backend, .. }) => Answerer::Model {
            backend: backend.as_ref(),
            options: author_options(constrained),
        },
    };
    match super::runtime().block_on(teach(concept, answerer, &options)) {
        Ok(run) => args.common.finish(&run),
        Err(e) => bad_input(e),
    }
}
