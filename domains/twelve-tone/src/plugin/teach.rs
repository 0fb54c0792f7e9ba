//! `cantus teach`'s twelve-tone concepts (`concepts.toml`), checked by the
//! domain itself: a piece must first pass the strict serial gate (which
//! re-derives every statement's row form from the pitches and trusts no tag);
//! the device is then read from the gate's own analysis (its row and its labels
//! per voice) or from the notes with the row engine's maps and theory. The
//! embedded author composes from a brief with the twelve-tone harness, so its
//! examples pass the same gate.

use crate::blueprint::PcMap;
use crate::gate::{GateMode, SerialGate};
use crate::row::{Convention, FormKind, Row, RowForm};
use crate::spec::{Spec, compile_brief};
use crate::{EmbeddedProposer, Location};
use cantus_framework::{GateReport, async_trait};
use cantus_music::{Score, Time};
use cantus_registry::teach::{
    Ask, Author, AuthorError, Challenge, Checked, Concepts, Draft, Teach, draft_of,
};
use serde::Deserialize;
use serde_json::Value;

/// What a twelve-tone concept's example must show (an entry's `challenge`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum SerialChallenge {
    /// A voice repeats another's pitch classes, transposed, later.
    Canon {
        /// Bars between leader and follower.
        delay_bars: u32,
        /// Semitones the follower is moved by.
        transpose: i8,
    },
    /// A voice repeats another's pitch classes inverted, later.
    InversionCanon {
        /// Bars between leader and follower.
        delay_bars: u32,
    },
    /// P and I statements sounding together whose first hexachords are
    /// complementary, in at least `sections` places.
    CombinatorialPairs {
        /// How many such pairs.
        sections: u32,
    },
    /// The row holds all eleven intervals.
    AllIntervalRow,
}

/// How the embedded proposer writes an example (an entry's `example`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerialExample {
    /// The brief, as `cantus compose --brief` reads it.
    pub brief: String,
}

/// The twelve-tone domain's lessons.
pub struct SerialLessons;

impl Teach for SerialLessons {
    type Challenge = SerialChallenge;
    type Example = SerialExample;

    fn concepts(&self) -> Concepts {
        Concepts {
            origin: "twelve-tone/concepts.toml",
            text: include_str!("concepts.toml"),
        }
    }

    fn challenge(
        &self,
        challenge: &SerialChallenge,
        _: &SerialExample,
    ) -> Result<Box<dyn Challenge>, String> {
        Ok(match *challenge {
            SerialChallenge::Canon {
                delay_bars,
                transpose,
            } => Box::new(CanonCheck {
                delay_bars,
                transpose: Some(transpose),
            }),
            SerialChallenge::InversionCanon { delay_bars } => Box::new(CanonCheck {
                delay_bars,
                transpose: None,
            }),
            SerialChallenge::CombinatorialPairs { sections } => {
                Box::new(CombinatorialPairs { sections })
            }
            SerialChallenge::AllIntervalRow => Box::new(AllIntervalRow),
        })
    }

    fn author(&self, example: &SerialExample) -> Result<Box<dyn Author>, String> {
        Ok(Box::new(SerialAuthor::new(&example.brief)?))
    }
}

/// The strict gate's verdict, or why the piece is not serial.
fn serial(piece: &Score) -> Result<GateReport<Location>, Checked> {
    let report = SerialGate::inferring(GateMode::Strict).judge_score(piece);
    if report.passed {
        Ok(report)
    } else {
        let first = report.violations.first().map_or_else(String::new, |v| {
            format!(": {} at {} ({})", v.predicate, v.location, v.reason)
        });
        Err(Checked {
            met: false,
            found: format!(
                "the piece does not pass the strict twelve-tone gate ({} violations){first}",
                report.violations.len()
            ),
        })
    }
}

/// A canon as the twelve-tone domain writes one (`Technique::Canon`,
/// `Technique::InversionCanon`): the follower enters `delay_bars` after the
/// leader and states, statement by statement, the leader's row forms mapped by
/// one transposition (`transpose`) or by an inversion (whose axis may change
/// from statement to statement, as a canon inverted about each statement's
/// first note does). The forms are the strict gate's own labels. The
/// harness's repair ladder may re-time a note, so the rhythm is reported (how
/// many notes answer exactly `delay_bars` later), not required.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CanonCheck {
    /// Bars between the voices.
    pub delay_bars: u32,
    /// `Some(t)`: transposed by `t` semitones; `None`: inverted.
    pub transpose: Option<i8>,
}

/// The pitch classes of a form as a map from one to the other, if `map` of
/// some kind takes `from` to `to` position by position.
fn relates(from: &[u8; 12], to: &[u8; 12], transpose: Option<i8>) -> bool {
    match transpose {
        Some(t) => {
            let k = i16::from(t).rem_euclid(12) as u8;
            from.iter()
                .zip(to)
                .all(|(&a, &b)| PcMap::Transpose(k).apply(a) == b)
        }
        None => (0..12).any(|k| {
            from.iter()
                .zip(to)
                .all(|(&a, &b)| PcMap::Invert(k).apply(a) == b)
        }),
    }
}

impl CanonCheck {
    /// Whether `follower` answers `leader`; `Err` says where it does not.
    fn follows(
        &self,
        piece: &Score,
        (leader, lead_forms): (&str, &[Option<RowForm>]),
        (follower, follow_forms): (&str, &[Option<RowForm>]),
        row: &Row,
        convention: Convention,
    ) -> Result<String, String> {
        let voice = |name: &str| {
            piece
                .voice_index(name)
                .map(|i| &piece.voices[i])
                .ok_or_else(|| format!("the gate names a voice {name} the score lacks"))
        };
        let (lv, fv) = (voice(leader)?, voice(follower)?);
        let (Some(l0), Some(f0)) = (lv.events.first(), fv.events.first()) else {
            return Err("a voice is silent".into());
        };
        let delay = piece.bar_length() * Time::from_integer(i64::from(self.delay_bars));
        if f0.onset - l0.onset != delay {
            return Err(format!(
                "it enters {} quarter notes after the leader, not {delay}",
                f0.onset - l0.onset
            ));
        }
        if lead_forms.is_empty() || lead_forms.len() != follow_forms.len() {
            return Err(format!(
                "the leader states {} forms and the follower {}",
                lead_forms.len(),
                follow_forms.len()
            ));
        }
        for (k, (l, f)) in lead_forms.iter().zip(follow_forms).enumerate() {
            let (Some(l), Some(f)) = (l, f) else {
                return Err(format!("statement {} is no row form", k + 1));
            };
            if !relates(
                &row.form(*l, convention),
                &row.form(*f, convention),
                self.transpose,
            ) {
                return Err(format!(
                    "statement {} is {f}, which does not answer {l}",
                    k + 1
                ));
            }
        }
        let exact = lv
            .events
            .iter()
            .filter(|e| {
                fv.events
                    .iter()
                    .any(|g| g.onset == e.onset + delay && g.duration == e.duration)
            })
            .count();
        Ok(format!(
            "{} answers {} in all {} statements ({}), entering {} bar(s) later; {exact} of {} notes in exact rhythmic imitation",
            fv.name,
            lv.name,
            lead_forms.len(),
            lead_forms
                .iter()
                .zip(follow_forms)
                .filter_map(|(l, f)| Some(format!("{}→{}", (*l)?, (*f)?)))
                .collect::<Vec<_>>()
                .join(" "),
            self.delay_bars,
            lv.events.len()
        ))
    }
}

impl Challenge for CanonCheck {
    fn statement(&self) -> String {
        let how = match self.transpose {
            None => "by inversion".to_owned(),
            Some(7) => "at the fifth".to_owned(),
            Some(t) => format!("transposed by {t} semitones"),
        };
        let bars = if self.delay_bars == 1 {
            "one bar".to_owned()
        } else {
            format!("{} bars", self.delay_bars)
        };
        format!(
            "a canon {how} at {bars} between two voices (every statement of the follower the leader's form, {}), in a piece that passes the strict twelve-tone gate",
            if self.transpose.is_some() {
                "transposed"
            } else {
                "inverted"
            }
        )
    }

    fn check(&self, piece: &Score) -> Checked {
        let (row, convention, labels) = match analysed(piece) {
            Ok(a) => a,
            Err(not) => return not,
        };
        let mut why = Vec::new();
        for (li, lead) in labels.iter().enumerate() {
            for (fi, follow) in labels.iter().enumerate() {
                if li == fi {
                    continue;
                }
                match self.follows(
                    piece,
                    (&lead.0, &lead.1),
                    (&follow.0, &follow.1),
                    &row,
                    convention,
                ) {
                    Ok(found) => return Checked { met: true, found },
                    Err(w) => why.push(format!("{} after {}: {w}", follow.0, lead.0)),
                }
            }
        }
        Checked {
            met: false,
            found: format!("no two voices are in this canon ({})", why.join("; ")),
        }
    }
}

/// Each voice's name and statements as the gate labelled them (`None`: no
/// form), in the score's voice order.
type Labels = Vec<(String, Vec<Option<RowForm>>)>;

/// The strict gate's row and each voice's statement labels for a piece that
/// passes it, or what the challenge found instead.
fn analysed(piece: &Score) -> Result<(Row, Convention, Labels), Checked> {
    analysis(&serial(piece)?).ok_or_else(|| Checked {
        met: false,
        found: "the gate's analysis has no row or labels".into(),
    })
}

/// The strict gate's row and each voice's statement labels (the first label
/// of a symmetric row's statement).
fn analysis(report: &GateReport<Location>) -> Option<(Row, Convention, Labels)> {
    let row: Row = report.facts.get("row")?.as_str()?.parse().ok()?;
    let convention: Convention = report.facts.get("convention")?.as_str()?.parse().ok()?;
    let labels = report.facts.get("labels")?.as_object()?;
    let voices = labels
        .iter()
        .map(|(name, v)| {
            let forms = v
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(|s| s.split('=').next().unwrap_or(s).parse().ok())
                .collect();
            (name.clone(), forms)
        })
        .collect();
    Some((row, convention, voices))
}

/// P and I statements sounding together (the k-th statement of two voices)
/// whose first hexachords are complementary, in at least `sections` places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CombinatorialPairs {
    /// Places needed.
    pub sections: u32,
}

fn hexachord(row: &Row, form: RowForm, convention: Convention) -> u16 {
    row.form(form, convention)[..6]
        .iter()
        .fold(0, |m, &pc| m | 1 << pc)
}

impl Challenge for CombinatorialPairs {
    fn statement(&self) -> String {
        format!(
            "a P form and an I form sounding together whose first hexachords make the aggregate, in at least {} sections, in a piece that passes the strict twelve-tone gate",
            self.sections
        )
    }

    fn check(&self, piece: &Score) -> Checked {
        let (row, convention, voices) = match analysed(piece) {
            Ok(a) => a,
            Err(not) => return not,
        };
        let mut pairs = Vec::new();
        for (a, (_, va)) in voices.iter().enumerate() {
            for (_, vb) in &voices[a + 1..] {
                for (fa, fb) in va.iter().zip(vb) {
                    let (Some(fa), Some(fb)) = (fa, fb) else {
                        continue;
                    };
                    let kinds = (fa.kind, fb.kind);
                    let p_with_i = matches!(
                        kinds,
                        (FormKind::P, FormKind::I) | (FormKind::I, FormKind::P)
                    );
                    if p_with_i
                        && hexachord(&row, *fa, convention) & hexachord(&row, *fb, convention) == 0
                    {
                        pairs.push(format!("{fa} with {fb}"));
                    }
                }
            }
        }
        Checked {
            met: pairs.len() >= self.sections as usize,
            found: if pairs.is_empty() {
                format!(
                    "no P and I statements sound together with complementary hexachords (row {row})"
                )
            } else {
                format!(
                    "{} combinatorial pair(s): {}",
                    pairs.len(),
                    pairs.join(", ")
                )
            },
        }
    }
}

/// The piece's row (as the strict gate reads it) holds all eleven intervals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllIntervalRow;

impl Challenge for AllIntervalRow {
    fn statement(&self) -> String {
        "a row whose eleven intervals are all different, in a piece that passes the strict twelve-tone gate".into()
    }

    fn check(&self, piece: &Score) -> Checked {
        let report = match serial(piece) {
            Ok(r) => r,
            Err(not) => return not,
        };
        match report
            .facts
            .get("row")
            .and_then(Value::as_str)
            .map(Row::parse)
        {
            Some(Ok(row)) => Checked {
                met: row.is_all_interval(),
                found: format!("the row {row} has intervals {}", row.interval_string()),
            },
            _ => Checked {
                met: false,
                found: "the gate read no row".into(),
            },
        }
    }
}

/// The twelve-tone harness as a teaching example's author: the brief's spec,
/// composed with the embedded proposer and the round's seed.
pub struct SerialAuthor {
    spec: Spec,
}

impl SerialAuthor {
    /// An author for `brief`, or why it cannot be compiled.
    pub fn new(brief: &str) -> Result<SerialAuthor, String> {
        let compiled = compile_brief(brief).map_err(|error| format!("brief `{brief}`: {error}"))?;
        Ok(SerialAuthor {
            spec: compiled.spec,
        })
    }
}

#[async_trait]
impl Author for SerialAuthor {
    fn name(&self) -> String {
        "embedded:twelve-tone".into()
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        let composer = crate::compose::Composer::new(GateMode::Strict, crate::compose::budget());
        let composed = composer
            .compose(&self.spec, ask.seed, &EmbeddedProposer::new())
            .await
            .map_err(|e| AuthorError::Unavailable(e.to_string()))?;
        draft_of(composed.outcome, &super::ID)
    }
}
