//! Counterpoint challenges, checked by the counterpoint domain itself: the
//! piece is read as a species exercise and judged by every rule of its species
//! (the species gate; hard violations fail it), then the device is counted on
//! the exercise the gate read — its verticals, motions and beats, with the
//! domain's own interval qualities. The embedded author composes on one of
//! Fux's cantus firmi with the counterpoint harness.
//!
//! Suspensions (fourth species) are outside the domain, which writes and
//! judges first and second species only; the catalogue's second-species device
//! is therefore the dissonant passing tone, the one dissonance that species
//! allows (rule `SS-upbeat-passing`).

use crate::catalogue::{ExampleError, parse_mode, parse_position, parse_species};
use cantus_counterpoint::{
    Assignment, Beat, Cantus, EmbeddedProposer, Exercise, ReadOptions, Species, judge_score,
};
use cantus_framework::async_trait;
use cantus_libretto::workflow::teach::{Challenge, Checked};
use cantus_libretto::workflow::{Ask, Author, AuthorError, Draft};
use cantus_music::Score;

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
    /// An author in `species` against Fux's cantus firmi in `modes`, the
    /// counterpoint `position` (`above`/`below`) them.
    pub fn new(
        species: u8,
        modes: &[String],
        position: &str,
    ) -> Result<SpeciesAuthor, ExampleError> {
        let species = parse_species(species)?;
        let position = parse_position(position)?;
        let assignments = modes
            .iter()
            .map(|m| {
                Ok(Assignment::new(
                    Cantus::fux(parse_mode(m)?),
                    species,
                    position,
                ))
            })
            .collect::<Result<Vec<_>, ExampleError>>()?;
        if assignments.is_empty() {
            return Err(ExampleError::NoModes);
        }
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
        let outcome = cantus_counterpoint::compose(
            self.assignment(ask.round).clone(),
            ask.seed,
            &EmbeddedProposer,
        )
        .await;
        crate::draft_of(outcome, "counterpoint")
    }
}
