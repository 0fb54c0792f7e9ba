//! A domain's lessons: the concepts `cantus teach` can set only because this
//! domain judges them and writes them.
//!
//! `cantus teach` (the `cantus-concepts` crate) runs Libretto's teach loop over
//! a catalogue of concepts. A concept whose challenge any piece can be measured
//! on (a Libretto axis band) is the catalogue's own; one that only a domain can
//! judge (a twelve-tone canon, read by the strict serial gate; a species
//! device, read by the species gate) comes from that domain's registered
//! [`Teach`]: the domain ships its catalogue entries, reads each entry's
//! `challenge` and `example` tables in its own types, and hands back the
//! challenge and the embedded author that writes a worked example. The program
//! never names the domain's challenge kinds.

use crate::DomainId;
use cantus_framework::{Domain, Outcome};
use cantus_music::Score;
use serde::de::DeserializeOwned;

pub use cantus_libretto::workflow::teach::{Challenge, Checked};
pub use cantus_libretto::workflow::{Ask, Author, AuthorError, Draft};

/// A domain's catalogue file: TOML, `[[concept]]` tables in the format of
/// `cantus-concepts`' catalogue (`id`, `level`, `title`, `what`), whose
/// `challenge` and `example` tables the domain's [`Teach`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Concepts {
    /// Where the text comes from, for messages (`twelve-tone/concepts.toml`).
    pub origin: &'static str,
    /// The file's text (`include_str!`).
    pub text: &'static str,
}

/// What a domain teaches (registered with [`Unit::teach`](crate::Unit::teach)).
pub trait Teach: Send + Sync + 'static {
    /// An entry's `challenge` table: what an example must show (usually an
    /// enum tagged by `kind`, with `deny_unknown_fields`).
    type Challenge: DeserializeOwned;
    /// An entry's `example` table: how the domain's embedded proposer writes one.
    type Example: DeserializeOwned;

    /// The domain's catalogue entries.
    fn concepts(&self) -> Concepts;

    /// The challenge an entry states (the example may say in which form it is
    /// read, a species say), or why the entry cannot work.
    fn challenge(
        &self,
        challenge: &Self::Challenge,
        example: &Self::Example,
    ) -> Result<Box<dyn Challenge>, String>;

    /// The embedded author of the entry's examples, or why it cannot write them.
    fn author(&self, example: &Self::Example) -> Result<Box<dyn Author>, String>;
}

/// One domain concept, read: what its examples are judged by and who writes them.
pub struct Lesson {
    /// The challenge.
    pub challenge: Box<dyn Challenge>,
    /// The embedded author.
    pub author: Box<dyn Author>,
}

/// A [`Teach`] as the registry holds it: its entries' tables read from TOML.
pub trait Teaching: Send + Sync {
    /// The domain's catalogue entries.
    fn concepts(&self) -> Concepts;
    /// Reads an entry's `challenge` and `example` tables (an error names the
    /// table and what is wrong in it).
    fn lesson(&self, challenge: &toml::Value, example: &toml::Value) -> Result<Lesson, String>;
}

pub(crate) struct Erased<T>(pub T);

/// A table read in a domain's type; an error names the table.
fn read<V: DeserializeOwned>(what: &str, value: &toml::Value) -> Result<V, String> {
    value
        .clone()
        .try_into()
        .map_err(|e: toml::de::Error| format!("{what}: {}", e.message().trim_end()))
}

impl<T: Teach> Teaching for Erased<T> {
    fn concepts(&self) -> Concepts {
        self.0.concepts()
    }

    fn lesson(&self, challenge: &toml::Value, example: &toml::Value) -> Result<Lesson, String> {
        let spec: T::Challenge = read("challenge", challenge)?;
        let example: T::Example = read("example", example)?;
        Ok(Lesson {
            challenge: self.0.challenge(&spec, &example)?,
            author: self
                .0
                .author(&example)
                .map_err(|e| format!("example: {e}"))?,
        })
    }
}

/// A harness run as a teach round's draft: the released piece, or the round's
/// failure with the harness's first diagnostic (`what` names the harness when
/// there is none).
pub fn draft_of<D>(outcome: Outcome<D>, what: &DomainId) -> Result<Draft, AuthorError>
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
