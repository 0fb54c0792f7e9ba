//! The domain's experiment task sets: what `[tasks]` names when it names no other
//! domain. A task is one brief, compiled to a spec before anything runs (so a typo
//! is bad input, not a failure half-way through), with an id and a **family** — the
//! template it was made from — by which the report's bootstrap resamples, so tasks
//! that share a template are not counted as independent evidence.
//!
//! Briefs come from a bank file (`bank = "FILE"`: one brief per line, `#` comments,
//! an optional `[family]` before the brief; without one a task is its own family), or
//! from the single-factor generator of the harness paper's design (`[tasks.single_factor]`):
//! for each prime row, the length swept at a fixed number of voices and the number of
//! voices swept at a fixed length, one factor at a time; each such setting is a
//! family. `replicates` copies of every family differ in meter and tempo, drawn from
//! a seeded generator: the defaults give the 40-task bank (4 rows × 10 settings), and
//! `replicates = 101` the 4040-task design.

use crate::spec::{CompiledBrief, compile_brief};
use cantus_bounded as bounded;
use cantus_framework::SplitMix;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One task: its id (`L012` for line 12 of a bank, `sf-0007` generated), family,
/// brief, where it was written and the brief compiled (its spec, what was
/// defaulted and what was not understood).
#[derive(Clone, Debug)]
pub struct Brief {
    pub id: String,
    pub family: String,
    pub text: String,
    /// `file:line`, or the generator's family and copy.
    pub origin: String,
    pub compiled: CompiledBrief,
}

/// A brief that does not compile, or a bank file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{origin}: {message}")]
    Brief { origin: String, message: String },
}

/// One brief line of a bank file, not yet compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankLine {
    /// From 1.
    pub line: usize,
    pub family: Option<String>,
    pub text: String,
}

/// The brief lines of a bank's `text`: blank lines and `#` comments skipped, an
/// optional leading `[family]` taken off.
pub fn bank_lines(text: &str) -> Vec<BankLine> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(line, l)| {
            let (family, text) = match l.strip_prefix('[').and_then(|r| r.split_once(']')) {
                Some((family, rest)) => (Some(family.trim().to_owned()), rest.trim()),
                None => (None, l),
            };
            BankLine {
                line,
                family,
                text: text.to_owned(),
            }
        })
        .collect()
}

/// The briefs of the bank file at `path` (at most [`bounded::TEXT_FILE_CAP`]); every
/// brief must compile and ask for something: a line of which no word was understood
/// is refused (a file that is not a bank — `/etc/passwd`, say — is not composed line
/// by line on defaults), without quoting it.
pub fn from_bank(path: &Path) -> Result<Vec<Brief>, TaskError> {
    let text = bounded::read_text(path, bounded::TEXT_FILE_CAP, "bank file").map_err(|source| {
        TaskError::Read {
            path: path.to_owned(),
            source,
        }
    })?;
    let nothing_asked = compile_brief("a piece").map(|c| c.spec).ok();
    bank_lines(&text)
        .into_iter()
        .map(|l| {
            let id = format!("L{:03}", l.line);
            let family = l.family.unwrap_or_else(|| id.clone());
            let origin = format!("{}:{}", path.display(), l.line);
            let brief = brief(id, family, l.text, origin)?;
            if !brief.compiled.not_understood.is_empty()
                && Some(&brief.compiled.spec) == nothing_asked.as_ref()
            {
                return Err(TaskError::Brief {
                    origin: brief.origin,
                    message: "no word of this line was understood as a brief (a bank file \
                              holds one brief per line, `#` comments, an optional \
                              `[family]`); is this a bank file?"
                        .into(),
                });
            }
            Ok(brief)
        })
        .collect()
}

fn brief(id: String, family: String, text: String, origin: String) -> Result<Brief, TaskError> {
    let compiled = compile_brief(&text).map_err(|e| TaskError::Brief {
        origin: origin.clone(),
        message: e.to_string(),
    })?;
    Ok(Brief {
        id,
        family,
        text,
        origin,
        compiled,
    })
}

/// The single-factor design's factors (every key has the 40-task bank's default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SingleFactor {
    /// Prime rows, as the brief compiler names them.
    pub rows: Vec<String>,
    /// Lengths swept at `base_voices`.
    pub lengths: Vec<u32>,
    /// Voice counts swept at `base_length`.
    pub voices: Vec<u32>,
    pub base_length: u32,
    pub base_voices: u32,
    /// Copies of each family; the first keeps `meters[0]` and `tempi[0]`, the others
    /// draw both with `seed`.
    pub replicates: u32,
    pub meters: Vec<String>,
    pub tempi: Vec<u32>,
    pub seed: u64,
}

impl Default for SingleFactor {
    fn default() -> Self {
        SingleFactor {
            rows: [
                "Webern's Op. 21 row",
                "Schoenberg's Op. 25 row",
                "Berg's Lyric Suite row",
                "Webern's Op. 28 row",
            ]
            .map(String::from)
            .to_vec(),
            lengths: vec![4, 8, 16, 32, 64],
            voices: vec![1, 2, 3, 4, 5, 6],
            base_length: 16,
            base_voices: 2,
            replicates: 1,
            meters: ["4/4", "3/4", "2/4", "6/8"].map(String::from).to_vec(),
            tempi: vec![90, 60, 72, 108, 120],
            seed: 0,
        }
    }
}

/// The most tasks a generator may make (the 4040-task design fits many times over).
pub const MAX_GENERATED: usize = 100_000;

impl SingleFactor {
    /// The (length, voices) settings: the length sweep, then the voice sweep without
    /// the setting both share.
    pub fn settings(&self) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = self
            .lengths
            .iter()
            .map(|&l| (l, self.base_voices))
            .collect();
        for &v in &self.voices {
            if !out.contains(&(self.base_length, v)) {
                out.push((self.base_length, v));
            }
        }
        out
    }

    /// How many tasks the design makes.
    pub fn count(&self) -> usize {
        self.rows.len() * self.settings().len() * self.replicates as usize
    }

    /// The briefs, family by family.
    pub fn briefs(&self) -> Result<Vec<Brief>, TaskError> {
        if self.count() > MAX_GENERATED || self.meters.is_empty() || self.tempi.is_empty() {
            return Err(TaskError::Brief {
                origin: "tasks.single_factor".into(),
                message: format!(
                    "makes {} tasks from {} meters and {} tempi; at most {MAX_GENERATED} \
                     tasks, with at least one meter and one tempo",
                    self.count(),
                    self.meters.len(),
                    self.tempi.len()
                ),
            });
        }
        let mut rng = SplitMix::new(self.seed);
        let mut out = Vec::with_capacity(self.count());
        for (r, row) in self.rows.iter().enumerate() {
            for &(bars, voices) in &self.settings() {
                let family = format!("r{}-{bars}b-{voices}v", r + 1);
                for k in 0..self.replicates {
                    let (meter, tempo) = if k == 0 {
                        (&self.meters[0], self.tempi[0])
                    } else {
                        (
                            &self.meters[rng.below(self.meters.len())],
                            self.tempi[rng.below(self.tempi.len())],
                        )
                    };
                    let id = format!("sf-{:04}", out.len() + 1);
                    let text = setting(bars, voices, meter, tempo, row);
                    let origin = format!("tasks.single_factor: {family} #{}", k + 1);
                    out.push(brief(id, family.clone(), text, origin)?);
                }
            }
        }
        Ok(out)
    }
}

/// The English brief of one setting.
fn setting(bars: u32, voices: u32, meter: &str, tempo: u32, row: &str) -> String {
    let texture = match voices {
        1 => "one voice".to_owned(),
        n => format!("{n} voices"),
    };
    format!("A {bars}-bar piece for {texture} in {meter} at {tempo} bpm on {row}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_design_is_the_40_task_single_factor_bank() {
        let design = SingleFactor::default();
        let briefs = design.briefs().unwrap();
        assert_eq!(briefs.len(), 40);
        let families: std::collections::BTreeSet<_> = briefs.iter().map(|t| &t.family).collect();
        assert_eq!(families.len(), 40);
        // One factor at a time: every setting differs from the base in one factor.
        for (bars, voices) in design.settings() {
            assert!(bars == 16 || voices == 2, "{bars} bars, {voices} voices");
        }
        // Every brief says what the spec holds.
        for t in &briefs {
            let spec = &t.compiled.spec;
            let (bars, voices) = (spec.bars, spec.voices.len() as u32);
            assert!(
                t.text.starts_with(&format!("A {bars}-bar piece")),
                "{}: {bars} bars",
                t.text
            );
            assert!(
                t.family.ends_with(&format!("-{bars}b-{voices}v")),
                "{}",
                t.text
            );
        }
    }

    #[test]
    fn a_hundred_and_one_replicates_give_the_4040_task_design_deterministically() {
        let design = SingleFactor {
            replicates: 101,
            ..SingleFactor::default()
        };
        assert_eq!(design.count(), 4040);
        let lines = |d: &SingleFactor| {
            let mut rng = SplitMix::new(d.seed);
            (0..200)
                .map(|_| (rng.below(d.meters.len()), rng.below(d.tempi.len())))
                .collect::<Vec<_>>()
        };
        assert_eq!(lines(&design), lines(&design.clone()));
        let families: std::collections::BTreeSet<_> = design
            .settings()
            .into_iter()
            .flat_map(|s| (0..design.rows.len()).map(move |r| (r, s)))
            .collect();
        assert_eq!(families.len(), 40);
    }

    #[test]
    fn bank_lines_take_an_optional_family() {
        let lines = bank_lines("# c\n\n[len] A 4-bar trio in 4/4\nA 4-bar duet in 4/4\n");
        assert_eq!(
            lines,
            [
                BankLine {
                    line: 3,
                    family: Some("len".into()),
                    text: "A 4-bar trio in 4/4".into()
                },
                BankLine {
                    line: 4,
                    family: None,
                    text: "A 4-bar duet in 4/4".into()
                }
            ]
        );
    }
}
