//! The concept catalogue: every registered domain's concepts (each domain's
//! catalogue file, its [`Teach`](cantus_registry::teach::Teach)), then Cantus's
//! own `data/concepts.toml`, read and checked as one. Each entry names a
//! device, says what it is and gives a machine-checkable challenge; a domain's
//! entry also says how its embedded proposer writes an example, in that
//! domain's own terms, which only that domain reads. Unknown keys are errors
//! naming the file and the concept (with line and column where TOML knows
//! them), so a catalogue typo cannot pass silently.

use cantus_libretto::Axis;
use cantus_registry::DomainId;
use cantus_registry::teach::Lesson;
use serde::Deserialize;
use std::sync::OnceLock;

const SHIPPED: &str = include_str!("../data/concepts.toml");

/// How hard a concept is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// First lessons.
    Beginner,
    /// Needs the basics.
    Intermediate,
    /// Needs the theory behind it.
    Advanced,
}

impl Level {
    /// `"beginner"`, `"intermediate"`, `"advanced"`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "beginner",
            Level::Intermediate => "intermediate",
            Level::Advanced => "advanced",
        }
    }
}

/// What an example must show, as the catalogue states it.
#[derive(Clone, Debug, PartialEq)]
pub enum ChallengeSpec {
    /// A Libretto axis above and/or below a percentile of the reference table:
    /// any piece can be measured on it, and no embedded proposer writes one (a
    /// model's task).
    AxisBand {
        /// The axis.
        axis: Axis,
        /// Percentile to exceed.
        above: Option<u8>,
        /// Percentile to stay under.
        below: Option<u8>,
    },
    /// A domain's: its entry's `challenge` and `example` tables, which that
    /// domain's registered teaching reads.
    Domain {
        /// The domain.
        domain: DomainId,
        /// The entry's `challenge` table.
        challenge: toml::Value,
        /// The entry's `example` table.
        example: toml::Value,
    },
}

/// One concept.
#[derive(Clone, Debug, PartialEq)]
pub struct Concept {
    /// The id on the command line.
    pub id: String,
    /// How hard it is.
    pub level: Level,
    /// Its name.
    pub title: String,
    /// What it is.
    pub what: String,
    /// What an example must show (and, for a domain's, how it writes one).
    pub challenge: ChallengeSpec,
}

impl Concept {
    /// The domain whose verifier judges it and whose proposer writes it
    /// (`None`: an axis band, a model's task).
    pub fn domain(&self) -> Option<&DomainId> {
        match &self.challenge {
            ChallengeSpec::AxisBand { .. } => None,
            ChallengeSpec::Domain { domain, .. } => Some(domain),
        }
    }

    /// The domain's reading of the entry: its challenge and embedded author.
    pub(crate) fn lesson(&self) -> Result<Option<Lesson>, String> {
        let ChallengeSpec::Domain {
            domain,
            challenge,
            example,
        } = &self.challenge
        else {
            return Ok(None);
        };
        let teaching = cantus_registry::find(domain.as_str())
            .map_err(|e| e.to_string())?
            .teaching()
            .map_err(|e| e.to_string())?;
        teaching.lesson(challenge, example).map(Some)
    }
}

/// Why a catalogue cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CatalogueError {
    /// Not TOML, or not the catalogue's shape (the message names line and column).
    #[error("{origin}: {message}")]
    Toml {
        /// Where the catalogue came from.
        origin: String,
        /// What is wrong and where.
        message: String,
    },
    /// An entry that parses but cannot work.
    #[error("{origin}: concept `{id}`: {problem}")]
    Entry {
        /// Where the catalogue came from.
        origin: String,
        /// The concept.
        id: String,
        /// What is wrong.
        problem: String,
    },
    /// No such concept.
    #[error("no concept `{id}` in the catalogue (concepts: {known})")]
    Unknown {
        /// The id asked for.
        id: String,
        /// The ids there are.
        known: String,
    },
}

/// An entry as written: its domain part still a table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    id: String,
    level: Level,
    title: String,
    what: String,
    challenge: toml::Value,
    example: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    concept: Vec<Entry>,
}

/// The only challenge of Cantus's own entries.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum OwnChallenge {
    AxisBand {
        axis: String,
        above: Option<u8>,
        below: Option<u8>,
    },
}

/// The catalogue.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalogue {
    /// Its concepts: each registered domain's (by domain id, in file order),
    /// then Cantus's own.
    pub concepts: Vec<Concept>,
}

impl Catalogue {
    /// The catalogue of this program: the concepts of every domain it links
    /// that teaches, then Cantus's own. A domain's catalogue that does not read,
    /// or an id used twice, is the program's error, said here.
    pub fn shipped() -> Result<&'static Catalogue, CatalogueError> {
        static CATALOGUE: OnceLock<Result<Catalogue, CatalogueError>> = OnceLock::new();
        CATALOGUE
            .get_or_init(|| {
                let mut all = Catalogue {
                    concepts: Vec::new(),
                };
                for unit in cantus_registry::domains() {
                    if let Ok(teaching) = unit.teaching() {
                        let file = teaching.concepts();
                        let part = Catalogue::read(file.text, file.origin, Some(unit.id()))?;
                        all.join(part, file.origin)?;
                    }
                }
                all.join(
                    Catalogue::from_toml(SHIPPED, "data/concepts.toml")?,
                    "data/concepts.toml",
                )?;
                Ok(all)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Reads a catalogue of Cantus's own form (axis bands, no examples) and
    /// checks every entry.
    pub fn from_toml(text: &str, origin: &str) -> Result<Catalogue, CatalogueError> {
        Catalogue::read(text, origin, None)
    }

    /// Reads `domain`'s catalogue and checks every entry by that domain's
    /// registered teaching.
    pub fn from_domain_toml(
        text: &str,
        origin: &str,
        domain: &DomainId,
    ) -> Result<Catalogue, CatalogueError> {
        Catalogue::read(text, origin, Some(domain))
    }

    fn read(
        text: &str,
        origin: &str,
        domain: Option<&DomainId>,
    ) -> Result<Catalogue, CatalogueError> {
        let file: File = toml::from_str(text).map_err(|e| CatalogueError::Toml {
            origin: origin.to_owned(),
            message: e.to_string(),
        })?;
        let mut catalogue = Catalogue {
            concepts: Vec::new(),
        };
        for entry in file.concept {
            let Entry {
                id,
                level,
                title,
                what,
                challenge,
                example,
            } = entry;
            let bad = |problem: String| CatalogueError::Entry {
                origin: origin.to_owned(),
                id: id.clone(),
                problem,
            };
            let challenge = match (domain, example) {
                (None, Some(_)) => {
                    return Err(bad(
                        "an example is written by a domain's proposer: the entry belongs in that domain's catalogue".into(),
                    ));
                }
                (None, None) => own_challenge(challenge).map_err(bad)?,
                (Some(_), None) => {
                    return Err(bad(
                        "a domain's concept needs an example its proposer can write".into(),
                    ));
                }
                (Some(domain), Some(example)) => ChallengeSpec::Domain {
                    domain: domain.clone(),
                    challenge,
                    example,
                },
            };
            let concept = Concept {
                id: id.clone(),
                level,
                title,
                what,
                challenge,
            };
            concept.lesson().map_err(bad)?;
            catalogue.add(concept, origin)?;
        }
        Ok(catalogue)
    }

    /// Adds `other`'s concepts, refusing an id already here.
    fn join(&mut self, other: Catalogue, origin: &str) -> Result<(), CatalogueError> {
        other
            .concepts
            .into_iter()
            .try_for_each(|c| self.add(c, origin))
    }

    /// Adds a concept read from `origin`, refusing an id already here.
    fn add(&mut self, concept: Concept, origin: &str) -> Result<(), CatalogueError> {
        if self.concepts.iter().any(|o| o.id == concept.id) {
            return Err(CatalogueError::Entry {
                origin: origin.to_owned(),
                id: concept.id,
                problem: "the id is used twice".into(),
            });
        }
        self.concepts.push(concept);
        Ok(())
    }

    /// The concept with this id.
    pub fn find(&self, id: &str) -> Result<&Concept, CatalogueError> {
        self.concepts
            .iter()
            .find(|c| c.id == id)
            .ok_or_else(|| CatalogueError::Unknown {
                id: id.to_owned(),
                known: self
                    .concepts
                    .iter()
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

/// An axis band, checked: the axis exists, a bound is given, percentiles ≤ 100.
fn own_challenge(table: toml::Value) -> Result<ChallengeSpec, String> {
    let OwnChallenge::AxisBand { axis, above, below } = table
        .try_into()
        .map_err(|e: toml::de::Error| format!("challenge: {}", e.message().trim_end()))?;
    let axis = Axis::from_id(&axis).ok_or_else(|| format!("no axis `{axis}`"))?;
    if above.is_none() && below.is_none() {
        return Err("an axis band needs `above` or `below`".into());
    }
    if above.or(below).is_some_and(|p| p > 100) {
        return Err("a percentile is at most 100".into());
    }
    Ok(ChallengeSpec::AxisBand { axis, above, below })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cantus_own_catalogue_reads_axis_bands() {
        let own = Catalogue::from_toml(SHIPPED, "data/concepts.toml").unwrap();
        assert!(own.concepts.len() >= 5, "{}", own.concepts.len());
        assert!(own.concepts.iter().all(|c| c.domain().is_none()));
        let err = own.find("fugue").unwrap_err().to_string();
        assert!(
            err.starts_with("no concept `fugue`") && err.contains("syncopation"),
            "{err}"
        );
    }

    #[test]
    fn bad_entries_are_refused_with_where_and_why() {
        let typo = "[[concept]]\nid = \"x\"\nlevel = \"beginner\"\ntitle = \"t\"\nwhat = \"w\"\n\
                    challenge = { kind = \"axis-band\", axis = \"rhy_syncopation_rate\", abov = 75 }\n";
        let err = Catalogue::from_toml(typo, "cat.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("cat.toml: concept `x`: challenge: unknown field `abov`"),
            "{err}"
        );
        let header = typo.replace("title", "titel");
        let err = Catalogue::from_toml(&header, "cat.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cat.toml") && err.contains("titel") && err.contains("line 4"),
            "{err}"
        );
        let axis = typo
            .replace("abov", "above")
            .replace("rhy_syncopation_rate", "rhy_swing");
        let err = Catalogue::from_toml(&axis, "cat.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "cat.toml: concept `x`: no axis `rhy_swing`");
        let example = typo.replace("abov", "above") + "example = { brief = \"b\" }\n";
        let err = Catalogue::from_toml(&example, "cat.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("belongs in that domain's catalogue"), "{err}");
        let twice = format!(
            "{}\n{}",
            typo.replace("abov", "above"),
            typo.replace("abov", "above")
        );
        let err = Catalogue::from_toml(&twice, "cat.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "cat.toml: concept `x`: the id is used twice");
    }

    #[test]
    fn a_domain_that_teaches_nothing_cannot_own_an_entry() {
        let entry = "[[concept]]\nid = \"d\"\nlevel = \"advanced\"\ntitle = \"t\"\nwhat = \"w\"\n\
                     challenge = { kind = \"any\" }\nexample = { x = 1 }\n";
        let err = Catalogue::from_domain_toml(entry, "d.toml", &DomainId::new("no-such-domain"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("d.toml: concept `d`: unknown domain `no-such-domain`"),
            "{err}"
        );
    }
}
