//! The concept catalogue: `data/concepts.toml`, shipped with Cantus and
//! written for it. Each entry names a device, says what it is, gives a
//! machine-checkable challenge ([`ChallengeSpec`]) and, where Cantus's own
//! proposers can write one, how ([`Example`]). Unknown keys are errors with
//! their line and column, so a catalogue typo cannot pass silently.

use cantus_counterpoint::{ModeName, Position, Species};
use cantus_libretto::Axis;
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
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ChallengeSpec {
    /// A Libretto axis above and/or below a percentile of the reference table.
    AxisBand {
        /// The axis id.
        axis: String,
        /// Percentile to exceed.
        above: Option<u8>,
        /// Percentile to stay under.
        below: Option<u8>,
    },
    /// Twelve-tone: a voice repeats another's pitch classes, transposed, later.
    Canon {
        /// Bars between leader and follower.
        delay_bars: u32,
        /// Semitones the follower is moved by.
        transpose: i8,
    },
    /// Twelve-tone: a voice repeats another's pitch classes inverted, later.
    InversionCanon {
        /// Bars between leader and follower.
        delay_bars: u32,
    },
    /// Twelve-tone: P and I statements sounding together whose first
    /// hexachords are complementary, in at least `sections` places.
    CombinatorialPairs {
        /// How many such pairs.
        sections: u32,
    },
    /// Twelve-tone: the row holds all eleven intervals.
    AllIntervalRow,
    /// Counterpoint, second species: at least `min` weak-beat dissonances,
    /// `consecutive` of them in successive bars.
    PassingTones {
        /// Fewest dissonant passing tones.
        min: u32,
        /// Longest run of bars with one, at least.
        consecutive: u32,
    },
    /// Counterpoint: at least this share of the moves in contrary motion.
    ContraryMotion {
        /// Share, 0–1.
        min_share: f64,
    },
    /// Counterpoint: at least this share of the inner verticals imperfect consonances.
    ImperfectConsonances {
        /// Share, 0–1.
        min_share: f64,
    },
}

/// How Cantus's embedded proposers write an example of a concept.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "domain", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Example {
    /// A twelve-tone piece from a brief.
    TwelveTone {
        /// The brief, as `cantus compose --brief` reads it.
        brief: String,
    },
    /// A species exercise on Fux's cantus firmi.
    Counterpoint {
        /// 1 or 2.
        species: u8,
        /// The cantus firmi's modes, two or more: the first for Cantus's worked
        /// example, the others in turn for the answers (an answer on the
        /// example's own cantus would share half its notes with it).
        modes: Vec<String>,
        /// `above` or `below`.
        position: String,
    },
}

/// One concept.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concept {
    /// The id on the command line.
    pub id: String,
    /// How hard it is.
    pub level: Level,
    /// Its name.
    pub title: String,
    /// What it is.
    pub what: String,
    /// What an example must show.
    pub challenge: ChallengeSpec,
    /// How the embedded proposers write one (`None`: a model's task).
    pub example: Option<Example>,
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    concept: Vec<Concept>,
}

/// The catalogue.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalogue {
    /// Its concepts, in file order.
    pub concepts: Vec<Concept>,
}

impl Catalogue {
    /// The catalogue shipped with Cantus.
    pub fn shipped() -> &'static Catalogue {
        static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
        CATALOGUE.get_or_init(|| {
            Catalogue::from_toml(SHIPPED, "data/concepts.toml")
                .expect("the shipped catalogue is valid (checked by a test)")
        })
    }

    /// Reads a catalogue and checks every entry.
    pub fn from_toml(text: &str, origin: &str) -> Result<Catalogue, CatalogueError> {
        let file: File = toml::from_str(text).map_err(|e| CatalogueError::Toml {
            origin: origin.to_owned(),
            message: e.to_string(),
        })?;
        for (i, c) in file.concept.iter().enumerate() {
            let bad = |problem: String| CatalogueError::Entry {
                origin: origin.to_owned(),
                id: c.id.clone(),
                problem,
            };
            if file.concept[..i].iter().any(|o| o.id == c.id) {
                return Err(bad("the id is used twice".into()));
            }
            c.check().map_err(bad)?;
        }
        Ok(Catalogue {
            concepts: file.concept,
        })
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

impl Concept {
    /// Checks what serde cannot: axis ids, modes, shares, and that the
    /// example's domain is the challenge's.
    fn check(&self) -> Result<(), String> {
        let share = |s: f64| {
            (0.0..=1.0)
                .contains(&s)
                .then_some(())
                .ok_or_else(|| format!("share {s} is outside 0–1"))
        };
        match &self.challenge {
            ChallengeSpec::AxisBand { axis, above, below } => {
                Axis::from_id(axis).ok_or_else(|| format!("no axis `{axis}`"))?;
                if above.is_none() && below.is_none() {
                    return Err("an axis band needs `above` or `below`".into());
                }
                if above.or(*below).is_some_and(|p| p > 100) {
                    return Err("a percentile is at most 100".into());
                }
            }
            ChallengeSpec::ContraryMotion { min_share }
            | ChallengeSpec::ImperfectConsonances { min_share } => share(*min_share)?,
            _ => {}
        }
        let serial = matches!(
            self.challenge,
            ChallengeSpec::Canon { .. }
                | ChallengeSpec::InversionCanon { .. }
                | ChallengeSpec::CombinatorialPairs { .. }
                | ChallengeSpec::AllIntervalRow
        );
        let species = matches!(
            self.challenge,
            ChallengeSpec::PassingTones { .. }
                | ChallengeSpec::ContraryMotion { .. }
                | ChallengeSpec::ImperfectConsonances { .. }
        );
        match &self.example {
            Some(Example::TwelveTone { .. }) if !serial => {
                Err("a twelve-tone example for a challenge no serial piece is judged by".into())
            }
            Some(Example::Counterpoint { .. }) if !species => {
                Err("a counterpoint example for a challenge no exercise is judged by".into())
            }
            Some(Example::Counterpoint {
                species,
                modes,
                position,
            }) => {
                parse_species(*species).map_err(|e| e.to_string())?;
                if modes.len() < 2 {
                    return Err("a counterpoint example needs two modes or more: one for the worked example, others for the answers".into());
                }
                for mode in modes {
                    parse_mode(mode).map_err(|e| e.to_string())?;
                }
                parse_position(position).map_err(|e| e.to_string())?;
                Ok(())
            }
            None if serial || species => {
                Err("a domain challenge needs an example the domain's proposer can write".into())
            }
            _ => Ok(()),
        }
    }
}

/// Why a concept's example cannot be written by its embedded author.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExampleError {
    /// The twelve-tone example's brief does not compile.
    #[error("brief `{brief}`: {error}")]
    Brief {
        /// The brief.
        brief: String,
        /// Why the compiler refused it.
        error: cantus_twelve_tone::spec::BriefError,
    },
    /// Fux wrote five species; Cantus composes the first two.
    #[error("no species {0}")]
    NoSpecies(u8),
    /// Not one of the church modes of Fux's cantus firmi.
    #[error("no mode `{0}`")]
    NoMode(String),
    /// A counterpoint example names no mode.
    #[error("no mode given")]
    NoModes,
    /// Neither `above` nor `below`.
    #[error("position `{0}` is neither `above` nor `below`")]
    Position(String),
    /// An axis-band challenge names no Libretto axis.
    #[error("no axis `{0}`")]
    NoAxis(String),
}

/// `above` or `below`.
pub(crate) fn parse_position(text: &str) -> Result<Position, ExampleError> {
    match text {
        "above" => Ok(Position::Above),
        "below" => Ok(Position::Below),
        _ => Err(ExampleError::Position(text.into())),
    }
}

/// Species `n`, if Cantus composes it.
pub(crate) fn parse_species(n: u8) -> Result<Species, ExampleError> {
    Species::from_number(n).ok_or(ExampleError::NoSpecies(n))
}

/// The church mode named `name`.
pub(crate) fn parse_mode(name: &str) -> Result<ModeName, ExampleError> {
    ModeName::parse(name).ok_or_else(|| ExampleError::NoMode(name.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_catalogue_reads_with_domain_and_axis_concepts() {
        let c = Catalogue::shipped();
        assert!(c.concepts.len() >= 12, "{}", c.concepts.len());
        let serial = c
            .concepts
            .iter()
            .filter(|c| matches!(c.example, Some(Example::TwelveTone { .. })))
            .count();
        let species = c
            .concepts
            .iter()
            .filter(|c| matches!(c.example, Some(Example::Counterpoint { .. })))
            .count();
        assert!(
            serial >= 3 && species >= 3,
            "{serial} serial, {species} species"
        );
        assert!(c.find("inversion-canon").is_ok());
        let err = c.find("fugue").unwrap_err().to_string();
        assert!(
            err.starts_with("no concept `fugue`") && err.contains("passing-tones"),
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
            err.contains("cat.toml") && err.contains("abov") && err.contains("line 6"),
            "{err}"
        );
        let axis = typo
            .replace("abov", "above")
            .replace("rhy_syncopation_rate", "rhy_swing");
        let err = Catalogue::from_toml(&axis, "cat.toml")
            .unwrap_err()
            .to_string();
        assert_eq!(err, "cat.toml: concept `x`: no axis `rhy_swing`");
        let serial = "[[concept]]\nid = \"c\"\nlevel = \"advanced\"\ntitle = \"t\"\nwhat = \"w\"\n\
                      challenge = { kind = \"all-interval-row\" }\n";
        let err = Catalogue::from_toml(serial, "cat.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("needs an example"), "{err}");
    }
}
