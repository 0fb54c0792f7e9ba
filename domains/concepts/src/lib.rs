//! `cantus-concepts`: the concept catalogue and the teach workflow over it.
//!
//! `cantus teach CONCEPT` writes a teaching example of a named device. The
//! loop, its gates and its score are Libretto's
//! ([`cantus_libretto::workflow::teach`]); what this crate adds is what needs
//! the domains: the catalogue (`catalogue`, shipped as `data/concepts.toml`),
//! the challenges that only a domain can check — a twelve-tone canon or
//! combinatorial pair, read by the strict serial gate ([`serial`]); a species
//! device, read by the species gate (`species`) — and the embedded authors
//! that compose an example with those domains' harnesses.
//!
//! It sits above the domains so nothing cycles: Libretto knows no domain (it
//! defines [`Challenge`] and [`Author`] and measures any score), the
//! twelve-tone and counterpoint crates know nothing of Libretto or of this
//! crate, and this crate depends on all three. The CLI only parses, calls
//! [`teach`] and prints.
//!
//! A concept with an example is first written by Cantus itself (the first
//! seed from [`EXAMPLE_SEED`] whose piece meets the challenge): that worked
//! example is shown to the author, and the answer must differ from it
//! (`LIB-NOVELTY`). A concept without one (an axis
//! band of a tonal style) is a model's task; with a reference set, its shown
//! example is the excerpt of the reference piece furthest along the axis.

#![forbid(unsafe_code)]

mod catalogue;
pub mod serial;
mod species;

pub use catalogue::{
    Catalogue, CatalogueError, ChallengeSpec, Concept, Example, ExampleError, Level,
};

use cantus_framework::{AskOptions, Domain, ModelBackend, Outcome};
use cantus_libretto::retrieval::{ReferenceSet, excerpt};
use cantus_libretto::workflow::model::ModelAuthor;
use cantus_libretto::workflow::teach::{AxisBand, Challenge, Lesson, TeachJob};
use cantus_libretto::workflow::{Ask, Author, AuthorError, Draft, Run};
use cantus_libretto::{Axis, Calibration};
use cantus_music::Score;
use serial::{AllIntervalRow, CanonCheck, CombinatorialPairs, SerialAuthor};
use species::{Device, SpeciesAuthor, SpeciesCheck};

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
    /// The concept's example or challenge cannot be set up.
    #[error("concept `{id}`: {why}")]
    Example {
        /// The concept.
        id: String,
        /// Why.
        why: ExampleError,
    },
    /// No embedded proposer writes this concept.
    #[error(
        "concept `{0}` is a model's task: the embedded proposers write twelve-tone pieces and species counterpoint only, not tonal examples; give --config FILE to ask a model"
    )]
    NoEmbeddedAuthor(String),
}

/// Who answers.
pub enum Answerer<'a> {
    /// The concept's embedded author (twelve-tone or counterpoint harness).
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

impl Concept {
    /// The concept's challenge, checkable on any score (`Err` for an axis id no
    /// axis has, which a catalogue read by [`Catalogue::from_toml`] never holds).
    pub fn challenge(&self, table: &Calibration) -> Result<Box<dyn Challenge>, TeachError> {
        Ok(match &self.challenge {
            ChallengeSpec::AxisBand { axis, above, below } => Box::new(AxisBand {
                axis: Axis::from_id(axis).ok_or_else(|| TeachError::Example {
                    id: self.id.clone(),
                    why: ExampleError::NoAxis(axis.clone()),
                })?,
                above: *above,
                below: *below,
                table: table.clone(),
            }),
            ChallengeSpec::Canon {
                delay_bars,
                transpose,
            } => Box::new(CanonCheck {
                delay_bars: *delay_bars,
                transpose: Some(*transpose),
            }),
            ChallengeSpec::InversionCanon { delay_bars } => Box::new(CanonCheck {
                delay_bars: *delay_bars,
                transpose: None,
            }),
            ChallengeSpec::CombinatorialPairs { sections } => Box::new(CombinatorialPairs {
                sections: *sections,
            }),
            ChallengeSpec::AllIntervalRow => Box::new(AllIntervalRow),
            ChallengeSpec::PassingTones { min, consecutive } => Box::new(SpeciesCheck {
                species: cantus_counterpoint::Species::Second,
                device: Device::PassingTones {
                    min: *min,
                    consecutive: *consecutive,
                },
            }),
            ChallengeSpec::ContraryMotion { min_share } => Box::new(SpeciesCheck {
                species: self.species(),
                device: Device::ContraryMotion(*min_share),
            }),
            ChallengeSpec::ImperfectConsonances { min_share } => Box::new(SpeciesCheck {
                species: self.species(),
                device: Device::ImperfectConsonances(*min_share),
            }),
        })
    }

    fn species(&self) -> cantus_counterpoint::Species {
        match &self.example {
            Some(Example::Counterpoint { species: 2, .. }) => cantus_counterpoint::Species::Second,
            _ => cantus_counterpoint::Species::First,
        }
    }

    /// The embedded author of the concept's examples (`None`: a model's task).
    pub fn embedded_author(&self) -> Result<Option<Box<dyn Author>>, TeachError> {
        let fail = |why: ExampleError| TeachError::Example {
            id: self.id.clone(),
            why,
        };
        Ok(match &self.example {
            None => None,
            Some(Example::TwelveTone { brief }) => {
                Some(Box::new(SerialAuthor::new(brief).map_err(fail)?))
            }
            Some(Example::Counterpoint {
                species,
                modes,
                position,
            }) => Some(Box::new(
                SpeciesAuthor::new(*species, modes, position).map_err(fail)?,
            )),
        })
    }
}

/// A harness run as a round's draft: the released piece, or the round's
/// failure with the harness's first diagnostic.
pub(crate) fn draft_of<D>(
    outcome: cantus_framework::Outcome<D>,
    what: &str,
) -> Result<cantus_libretto::workflow::Draft, cantus_libretto::workflow::AuthorError>
where
    D: Domain<Artefact = Score>,
{
    match outcome {
        Outcome::Released { artefact, .. } => Ok(Draft {
            score: artefact,
            notes: Vec::new(),
            usage: None,
        }),
        Outcome::Failure { diagnostics, .. } => Err(AuthorError::Round {
            why: diagnostics.first().map_or_else(
                || format!("the {what} harness released nothing"),
                ToString::to_string,
            ),
            usage: None,
        }),
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
    let axis = Axis::from_id(axis)?;
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
    let challenge = concept.challenge(opts.table)?;
    let embedded = concept.embedded_author()?;
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
