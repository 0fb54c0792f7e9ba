//! `cantus-concepts`: the concept catalogue and the teach workflow over it.
//!
//! `cantus teach CONCEPT` writes a teaching example of a named device. The
//! loop, its gates and its score are Libretto's
//! ([`cantus_libretto::workflow::teach`]); what this crate adds is the
//! catalogue ([`Catalogue`]): Cantus's own concepts (`data/concepts.toml`,
//! devices of any tonal piece, measured on a Libretto axis band) and those of
//! every registered domain that teaches ([`cantus_registry::teach`]) — a
//! twelve-tone canon read by the strict serial gate, a species device read by
//! the species gate — each with the challenge and the embedded author that
//! domain gives it. This crate names no domain: a domain linked into the
//! program brings its concepts with it.
//!
//! A concept with an example is first written by Cantus itself (the first
//! seed from [`EXAMPLE_SEED`] whose piece meets the challenge): that worked
//! example is shown to the author, and the answer must differ from it
//! (`LIB-NOVELTY`). A concept without one (an axis
//! band of a tonal style) is a model's task; with a reference set, its shown
//! example is the excerpt of the reference piece furthest along the axis.

#![forbid(unsafe_code)]

mod catalogue;

pub use catalogue::{Catalogue, CatalogueError, ChallengeSpec, Concept, Level};

use cantus_framework::{AskOptions, ModelBackend};
use cantus_libretto::Calibration;
use cantus_libretto::retrieval::{ReferenceSet, excerpt};
use cantus_libretto::workflow::model::ModelAuthor;
use cantus_libretto::workflow::teach::{AxisBand, Challenge, Lesson, TeachJob};
use cantus_libretto::workflow::{Ask, Author, Run};
use cantus_music::Score;

/// The first seed Cantus writes a concept's worked example with: the example
/// is the first of `EXAMPLE_SEED`, `EXAMPLE_SEED + 1`, … (at most
/// [`EXAMPLE_TRIES`]) that meets the challenge. Far from the seeds people give,
/// so a round's seed ([`cantus_framework::round_seed`] of the run's) rarely
/// repeats the example.
pub const EXAMPLE_SEED: u64 = 1 << 32;
/// Seeds tried for the worked example.
pub const EXAMPLE_TRIES: u64 = 8;

/// Why a lesson cannot start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TeachError {
    /// The concept is unknown or its entry is wrong.
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    /// The concept's domain cannot set up its challenge or its author.
    #[error("concept `{id}`: {why}")]
    Example {
        /// The concept.
        id: String,
        /// Why, in the domain's words.
        why: String,
    },
    /// No embedded proposer writes this concept.
    #[error(
        "concept `{0}` is a model's task: no domain's embedded proposer writes it (the catalogue's own concepts are any tonal piece's); give --config FILE to ask a model"
    )]
    NoEmbeddedAuthor(String),
}

/// Who answers.
pub enum Answerer<'a> {
    /// The concept's embedded author (its domain's harness).
    Embedded,
    /// A model.
    Model {
        /// The backend.
        backend: &'a dyn ModelBackend,
        /// Sampling settings.
        options: AskOptions,
    },
}

/// How to run a lesson.
#[derive(Clone, Copy)]
pub struct TeachOptions<'a> {
    /// The table axis bands are placed against.
    pub table: &'a Calibration,
    /// Reference pieces the example must not copy (and, for an axis band, the
    /// source of the shown example).
    pub references: Option<&'a ReferenceSet>,
    /// Rounds allowed.
    pub rounds: u32,
    /// The run's seed.
    pub seed: u64,
}

/// A concept's challenge and its embedded author (`None`: a model's task).
type Parts = (Box<dyn Challenge>, Option<Box<dyn Author>>);

impl Concept {
    /// The concept's challenge, checkable on any score, and its embedded author.
    fn parts(&self, table: &Calibration) -> Result<Parts, TeachError> {
        let lesson = self.lesson().map_err(|why| TeachError::Example {
            id: self.id.clone(),
            why,
        })?;
        Ok(match (&self.challenge, lesson) {
            (_, Some(lesson)) => (lesson.challenge, Some(lesson.author)),
            (ChallengeSpec::AxisBand { axis, above, below }, None) => (
                Box::new(AxisBand {
                    axis: *axis,
                    above: *above,
                    below: *below,
                    table: table.clone(),
                }),
                None,
            ),
            (ChallengeSpec::Domain { domain, .. }, None) => {
                return Err(TeachError::Example {
                    id: self.id.clone(),
                    why: format!("the {domain} domain gave no lesson"),
                });
            }
        })
    }

    /// The concept's challenge, checkable on any score (`Err` only when its
    /// domain, which checked it when the catalogue was read, no longer can).
    pub fn challenge(&self, table: &Calibration) -> Result<Box<dyn Challenge>, TeachError> {
        self.parts(table).map(|(challenge, _)| challenge)
    }

    /// Whether an embedded proposer writes the concept's examples (else it is a
    /// model's task).
    pub fn embedded(&self) -> bool {
        self.domain().is_some()
    }
}

/// The header and voices lines of a written score (a model's reply without
/// its own is read under them).
fn header_of(score: Option<&Score>) -> String {
    score
        .and_then(|s| cantus_music::grammar::write(s).ok())
        .map(|text| {
            text.lines()
                .take(2)
                .map(|l| format!("{l}\n"))
                .collect::<String>()
        })
        .filter(|h| h.lines().count() == 2)
        .unwrap_or_else(|| {
            "KEY: C major | METER: 4/4 | TEMPO: 100 | GRID: 16th | BARS: 8\nVOICES: Melody, Bass\n"
                .into()
        })
}

/// The excerpt of the reference piece furthest along an axis band's direction.
fn reference_example(
    set: &ReferenceSet,
    table: &Calibration,
    spec: &ChallengeSpec,
) -> Option<(String, Score)> {
    let ChallengeSpec::AxisBand { axis, above, .. } = spec else {
        return None;
    };
    let axis = *axis;
    let profiles = set.profiles(table);
    let pick = (0..profiles.len()).max_by(|&a, &b| {
        let (pa, pb) = (profiles[a].get(axis), profiles[b].get(axis));
        if above.is_some() {
            pa.total_cmp(&pb)
        } else {
            pb.total_cmp(&pa)
        }
    })?;
    let (_, piece) = set.read(pick)?;
    let (_, shown) = excerpt(&piece)?;
    Some((set.pieces[pick].path.display().to_string(), shown))
}

/// Cantus's worked example: the first seed's piece that meets the challenge
/// (the last one tried, said to miss it, when none does).
async fn worked_example(
    author: &dyn Author,
    challenge: &dyn Challenge,
    notes: &mut Vec<String>,
) -> Option<Score> {
    let mut last = None;
    for seed in EXAMPLE_SEED..EXAMPLE_SEED + EXAMPLE_TRIES {
        let ask = Ask {
            round: 0,
            seed,
            feedback: &[],
        };
        match author.write(&ask).await {
            Ok(draft) => {
                let checked = challenge.check(&draft.score);
                if checked.met {
                    notes.push(format!(
                        "worked example by {} (seed {seed}): {}",
                        author.name(),
                        checked.found
                    ));
                    return Some(draft.score);
                }
                last = Some((seed, draft.score, checked.found));
            }
            Err(e) => notes.push(format!("no worked example with seed {seed}: {e}")),
        }
    }
    let (seed, score, found) = last?;
    notes.push(format!(
        "worked example by {} (seed {seed}): {found} — it does not meet the challenge itself",
        author.name()
    ));
    Some(score)
}

/// Writes a teaching example of `concept` (see the crate docs): the worked
/// example or a reference excerpt is shown, and the answerer's rounds are
/// judged by the challenge, novelty against what was shown and copy against
/// the references.
pub async fn teach(
    concept: &Concept,
    answerer: Answerer<'_>,
    opts: &TeachOptions<'_>,
) -> Result<Run, TeachError> {
    let (challenge, embedded) = concept.parts(opts.table)?;
    let mut notes = Vec::new();
    let shown = match (&embedded, opts.references) {
        (Some(author), _) => worked_example(author.as_ref(), challenge.as_ref(), &mut notes).await,
        (None, Some(set)) => {
            reference_example(set, opts.table, &concept.challenge).map(|(name, s)| {
                notes.push(format!("example shown: 8 bars of {name}"));
                s
            })
        }
        (None, None) => None,
    };
    let header = header_of(shown.as_ref());
    let mut job = TeachJob::new(Lesson {
        id: &concept.id,
        title: &concept.title,
        what: &concept.what,
        challenge: challenge.as_ref(),
        shown,
        references: opts.references,
        header,
    });
    job.setup.splice(1..1, notes);
    Ok(match answerer {
        Answerer::Embedded => {
            let author =
                embedded.ok_or_else(|| TeachError::NoEmbeddedAuthor(concept.id.clone()))?;
            job.run(author.as_ref(), opts.rounds, opts.seed).await
        }
        Answerer::Model { backend, options } => {
            let author = ModelAuthor::new(backend, job.task.clone(), options);
            job.run(&author, opts.rounds, opts.seed).await
        }
    })
}
