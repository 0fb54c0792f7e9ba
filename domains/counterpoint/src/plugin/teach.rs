//! `cantus teach`'s counterpoint concepts (`concepts.toml`), checked by the
//! domain itself: the piece is read as a species exercise and judged by every
//! rule of its species (the species gate; hard violations fail it), then the
//! device is counted on the exercise the gate read — its verticals, motions and
//! beats, with the domain's own interval qualities. The embedded author
//! composes on one of Fux's cantus firmi with the counterpoint harness.
//!
//! Suspensions (fourth species) are outside the domain, which writes and
//! judges first and second species only; the catalogue's second-species device
//! is therefore the dissonant passing tone, the one dissonance that species
//! allows (rule `SS-upbeat-passing`).

use crate::{
    Assignment, Beat, Cantus, EmbeddedProposer, Exercise, ModeName, Position, ReadOptions, Species,
    judge_score,
};
use cantus_framework::async_trait;
use cantus_music::Score;
use cantus_registry::teach::{
    Ask, Author, AuthorError, Challenge, Checked, Concepts, Draft, Teach, draft_of,
};
use serde::Deserialize;

/// What a counterpoint concept's example must show (an entry's `challenge`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SpeciesChallenge {
    /// Second species: at least `min` weak-beat dissonances, `consecutive` of
    /// them in successive bars.
    PassingTones {
        /// Fewest dissonant passing tones.
        min: u32,
        /// Longest run of bars with one, at least.
        consecutive: u32,
    },
    /// At least this share of the moves in contrary motion.
    ContraryMotion {
        /// Share, 0–1.
        min_share: f64,
    },
    /// At least this share of the inner verticals imperfect consonances.
    ImperfectConsonances {
        /// Share, 0–1.
        min_share: f64,
    },
}

/// How the embedded search writes an example (an entry's `example`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeciesExample {
    /// 1 or 2.
    pub species: u8,
    /// The cantus firmi's modes, two or more: the first for Cantus's worked
    /// example, the others in turn for the answers (an answer on the example's
    /// own cantus would share half its notes with it).
    pub modes: Vec<String>,
    /// `above` or `below`.
    pub position: String,
}

impl SpeciesExample {
    fn species(&self) -> Result<Species, String> {
        Species::from_number(self.species).ok_or_else(|| {
            format!(
                "no species {}: Cantus writes the first and the second",
                self.species
            )
        })
    }
}

/// The counterpoint domain's lessons.
pub struct SpeciesLessons;

impl Teach for SpeciesLessons {
    type Challenge = SpeciesChallenge;
    type Example = SpeciesExample;

    fn concepts(&self) -> Concepts {
        Concepts {
            origin: "counterpoint/concepts.toml",
            text: include_str!("concepts.toml"),
        }
    }

    fn challenge(
        &self,
        challenge: &SpeciesChallenge,
        example: &SpeciesExample,
    ) -> Result<Box<dyn Challenge>, String> {
        let share = |s: f64| {
            (0.0..=1.0)
                .contains(&s)
                .then_some(s)
                .ok_or_else(|| format!("challenge: share {s} is outside 0–1"))
        };
        let species = example.species()?;
        let device = match *challenge {
            SpeciesChallenge::PassingTones { min, consecutive } => {
                if species != Species::Second {
                    return Err(
                        "challenge: passing tones are a second-species device, the example is first species"
                            .into(),
                    );
                }
                Device::PassingTones { min, consecutive }
            }
            SpeciesChallenge::ContraryMotion { min_share } => {
                Device::ContraryMotion(share(min_share)?)
            }
            SpeciesChallenge::ImperfectConsonances { min_share } => {
                Device::ImperfectConsonances(share(min_share)?)
            }
        };
        Ok(Box::new(SpeciesCheck { species, device }))
    }

    fn author(&self, example: &SpeciesExample) -> Result<Box<dyn Author>, String> {
        Ok(Box::new(SpeciesAuthor::new(example)?))
    }
}

/// What a species challenge counts.
#[derive(Clone, Debug, PartialEq)]
pub enum Device {
    /// At least `min` weak-beat dissonances, `consecutive` of them in
    /// successive bars.
    PassingTones {
        /// Fewest.
        min: u32,
        /// Longest run of successive bars with one, at least.
        consecutive: u32,
    },
    /// At least this share of the moves from note to note in contrary motion.
    ContraryMotion(f64),
    /// At least this share of the verticals between the first and the last on
    /// a third or a sixth (an imperfect consonance).
    ImperfectConsonances(f64),
}

/// A device in a species exercise that passes the species gate.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeciesCheck {
    /// The species the exercise is read in.
    pub species: Species,
    /// What is counted.
    pub device: Device,
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

impl SpeciesCheck {
    fn count(&self, ex: &Exercise) -> Checked {
        let n = ex.moments.len();
        match self.device {
            Device::PassingTones { min, consecutive } => {
                let bars: Vec<usize> = (0..n)
                    .filter(|&i| ex.moments[i].beat == Beat::Up && !ex.vertical(i).is_consonant())
                    .map(|i| ex.moments[i].bar)
                    .collect();
                let (mut run, mut longest) = (0u32, 0u32);
                for (k, &b) in bars.iter().enumerate() {
                    run = if k > 0 && bars[k - 1] + 1 == b {
                        run + 1
                    } else {
                        1
                    };
                    longest = longest.max(run);
                }
                let listed: Vec<String> = bars.iter().map(|b| (b + 1).to_string()).collect();
                Checked {
                    met: bars.len() >= min as usize && longest >= consecutive,
                    found: format!(
                        "{} dissonant passing tone(s) (bars {}), at most {longest} in successive bars",
                        bars.len(),
                        if listed.is_empty() {
                            "-".into()
                        } else {
                            listed.join(", ")
                        }
                    ),
                }
            }
            Device::ContraryMotion(min) => {
                let moves = n.saturating_sub(1);
                let contrary = (1..n)
                    .filter(|&i| ex.motion(i).is_some_and(|(u, l)| u * l < 0))
                    .count();
                let share = contrary as f64 / moves.max(1) as f64;
                Checked {
                    met: moves > 0 && share >= min,
                    found: format!(
                        "{contrary} of {moves} moves in contrary motion ({})",
                        percent(share)
                    ),
                }
            }
            Device::ImperfectConsonances(min) => {
                let inner: Vec<usize> = (1..n.saturating_sub(1)).collect();
                let imperfect = inner
                    .iter()
                    .filter(|&&i| {
                        let v = ex.vertical(i);
                        v.is_consonant() && !v.is_perfect()
                    })
                    .count();
                let share = imperfect as f64 / inner.len().max(1) as f64;
                Checked {
                    met: !inner.is_empty() && share >= min,
                    found: format!(
                        "{imperfect} of {} inner verticals are thirds or sixths ({})",
                        inner.len(),
                        percent(share)
                    ),
                }
            }
        }
    }
}

impl Challenge for SpeciesCheck {
    fn statement(&self) -> String {
        let device = match self.device {
            Device::PassingTones { min, consecutive } => format!(
                "at least {min} dissonant passing tones on the weak beat, {consecutive} of them in successive bars"
            ),
            Device::ContraryMotion(min) => {
                format!("at least {} of the moves in contrary motion", percent(min))
            }
            Device::ImperfectConsonances(min) => format!(
                "at least {} of the inner verticals on thirds and sixths",
                percent(min)
            ),
        };
        format!(
            "{device}, in a species-{} exercise that passes the species gate",
            self.species.number()
        )
    }

    fn check(&self, piece: &Score) -> Checked {
        let options = ReadOptions {
            species: Some(self.species),
            ..ReadOptions::default()
        };
        match judge_score(piece, &options) {
            Err(e) => Checked {
                met: false,
                found: format!("not a species exercise: {e}"),
            },
            Ok((report, _)) if !report.passed => {
                let hard: Vec<String> = report
                    .hard()
                    .take(3)
                    .map(|v| format!("{} at {}", v.predicate, v.location))
                    .collect();
                Checked {
                    met: false,
                    found: format!(
                        "the exercise breaks the species' hard rules ({})",
                        hard.join("; ")
                    ),
                }
            }
            Ok((_, reading)) => self.count(&reading.exercise),
        }
    }
}

/// The counterpoint harness as a teaching example's author: round 0 (the
/// worked example) on the first mode's cantus firmus, round `r` on mode
/// `1 + (r − 1) mod (n − 1)`.
pub struct SpeciesAuthor {
    assignments: Vec<Assignment>,
}

impl SpeciesAuthor {
    /// An author of `example`: its species against Fux's cantus firmi in its
    /// modes, the counterpoint at its position; or why it cannot write.
    pub fn new(example: &SpeciesExample) -> Result<SpeciesAuthor, String> {
        let species = example.species()?;
        let position = match example.position.as_str() {
            "above" => Position::Above,
            "below" => Position::Below,
            other => return Err(format!("position `{other}` is neither `above` nor `below`")),
        };
        if example.modes.len() < 2 {
            return Err(
                "two modes or more are needed: one for the worked example, others for the answers"
                    .into(),
            );
        }
        let assignments = example
            .modes
            .iter()
            .map(|m| {
                let mode = ModeName::parse(m).ok_or_else(|| format!("no mode `{m}`"))?;
                Ok(Assignment::new(Cantus::fux(mode), species, position))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(SpeciesAuthor { assignments })
    }

    fn assignment(&self, round: u32) -> &Assignment {
        let n = self.assignments.len();
        if round == 0 || n == 1 {
            &self.assignments[0]
        } else {
            &self.assignments[1 + (round as usize - 1) % (n - 1)]
        }
    }
}

#[async_trait]
impl Author for SpeciesAuthor {
    fn name(&self) -> String {
        "embedded:counterpoint".into()
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        let outcome = crate::compose(
            self.assignment(ask.round).clone(),
            ask.seed,
            &EmbeddedProposer,
        )
        .await;
        draft_of(outcome, &super::ID)
    }
}
