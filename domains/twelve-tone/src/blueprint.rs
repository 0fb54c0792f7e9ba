//! The blueprint: the spec cut into sections, with the row form every voice states
//! in every section — the stored schedule the strict gate holds a piece to.
//!
//! Each voice states exactly one row form per section, starting within the section.
//! Sections are `section_bars` long; a last section shorter than half of that is
//! merged into the one before it.
//! Forms are chosen so the texture is serial in more than name: voice 0 opens with the
//! row as given and moves through P, RI, I and R forms by a seeded walk of
//! transpositions; voice 1, where the row allows it, takes a form hexachordally
//! combinatorial with voice 0's (their first hexachords make the aggregate, so the
//! two can sound together without sharing a pitch class); other voices take distinct
//! forms; a canon follower takes its leader's form, transposed or inverted.

use crate::row::{Convention, FormKind, FormTable, PitchClass, Row, RowError, RowForm};
use crate::spec::{Repetition, Spec, Technique, VoiceSpec};
use cantus_music::{Meter, Time, time_text};
use num_rational::Ratio;
use serde::Serialize;

/// One section of the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SectionPlan {
    /// 0-based section number.
    pub index: usize,
    /// First bar (1-based).
    pub first_bar: u32,
    /// Number of bars.
    pub bars: u32,
    #[serde(with = "time_text")]
    pub start: Time,
    #[serde(with = "time_text")]
    pub end: Time,
    /// The form each voice states in this section, by voice index.
    pub forms: Vec<RowForm>,
    /// Voice names, by voice index (for locations).
    #[serde(skip)]
    pub voice_names: std::sync::Arc<[String]>,
}

impl SectionPlan {
    /// Length of one bar.
    pub fn bar_length(&self) -> Time {
        (self.end - self.start) / Time::from_integer(i64::from(self.bars.max(1)))
    }

    /// The 1-based bar holding time `t` (bars before the section count backwards).
    pub fn bar_of(&self, t: Time) -> u32 {
        let offset = ((t - self.start) / self.bar_length()).floor().to_integer();
        u32::try_from(i64::from(self.first_bar) + offset).unwrap_or(0)
    }
}

/// A canon the blueprint honours: the follower restates the leader's section
/// `delay` later.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CanonPlan {
    pub leader: usize,
    pub follower: usize,
    #[serde(with = "time_text")]
    pub delay: Time,
    /// How the follower's pitch classes follow from the leader's.
    pub map: CanonMap,
}

/// How a canon maps the leader's pitch classes onto the follower's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CanonMap {
    /// Transposed by this many semitones.
    Transpose(u8),
    /// Inverted with this fixed sum (`p ↦ k − p`).
    Invert(u8),
    /// Inverted about the first pitch class of each leader statement, so the follower
    /// starts every statement on the leader's first pitch class.
    InvertAboutStart,
}

impl CanonMap {
    /// The concrete map in a section whose leader statement starts on `first`.
    pub fn in_section(self, first: PitchClass) -> PcMap {
        match self {
            CanonMap::Transpose(k) => PcMap::Transpose(k),
            CanonMap::Invert(k) => PcMap::Invert(k),
            CanonMap::InvertAboutStart => PcMap::Invert((2 * first) % 12),
        }
    }
}

/// A pitch-class map: `p ↦ p + k` (transposition) or `p ↦ k − p` (inversion), mod 12.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "k", rename_all = "kebab-case")]
pub enum PcMap {
    Transpose(u8),
    Invert(u8),
}

impl PcMap {
    /// The image of `pc`.
    pub fn apply(self, pc: PitchClass) -> PitchClass {
        match self {
            PcMap::Transpose(k) => (pc + k) % 12,
            PcMap::Invert(k) => (k + 12 - pc % 12) % 12,
        }
    }
}

/// The limits the verifier and gate enforce, taken from the spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// Working registers per voice (after register contrast).
    pub voices: Vec<VoiceSpec>,
    pub max_chord: u8,
    pub max_sounding: u8,
    /// Largest share of the voices' time together that may be crossed.
    #[serde(with = "ratio_text")]
    pub max_crossing: Ratio<i64>,
    /// Immediate repetitions allowed per statement online (never by the strict gate).
    pub tremolo_per_statement: u8,
}

/// The plan of a whole piece.
#[derive(Clone, Debug)]
pub struct Blueprint {
    pub row: Row,
    pub table: FormTable,
    pub meter: Meter,
    pub bars: u32,
    pub tempo: u32,
    pub title: Option<String>,
    pub sections: Vec<SectionPlan>,
    pub canons: Vec<CanonPlan>,
    pub limits: Limits,
}

mod ratio_text {
    use num_rational::Ratio;
    use serde::Serializer;
    pub fn serialize<S: Serializer>(r: &Ratio<i64>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&cantus_music::time_text::format(*r))
    }
}

impl Blueprint {
    /// Plans `spec`; `seed` varies the walk of transpositions.
    pub fn new(spec: &Spec, seed: u64) -> Result<Blueprint, BlueprintError> {
        spec.validate().map_err(|e| BlueprintError(e.to_string()))?;
        let row = spec
            .row
            .to_row()
            .map_err(|e: RowError| BlueprintError(e.to_string()))?;
        let table = FormTable::new(&row, spec.convention);
        let bar = spec.meter.bar_length();
        let canons = canon_plans(spec, bar)?;
        let voices = spec.voices.len();
        let mut sections = Vec::new();
        let mut first_bar = 1;
        let mut walk = Walk::new(&table, seed);
        let working = spec.working_voices();
        let voice_names: std::sync::Arc<[String]> =
            working.iter().map(|v| v.name.clone()).collect();
        while first_bar <= spec.bars {
            let mut bars = spec.section_bars.min(spec.bars - first_bar + 1);
            // A remainder shorter than half a section would have to cram a whole row
            // statement per voice into a bar or two: it joins this section instead.
            let rest = spec.bars + 1 - (first_bar + bars);
            if rest > 0 && rest * 2 < spec.section_bars {
                bars += rest;
            }
            let start = bar * Time::from_integer(i64::from(first_bar - 1));
            let end = start + bar * Time::from_integer(i64::from(bars));
            let index = sections.len();
            let forms = walk.section_forms(index, voices, &canons);
            for c in &canons {
                if c.delay >= end - start {
                    return Err(BlueprintError(format!(
                        "the canon between voices {} and {} is {} quarter notes late, but section {} is only {} long; \
                         use a shorter delay or longer sections (section_bars)",
                        c.leader + 1,
                        c.follower + 1,
                        time_text::format(c.delay),
                        index + 1,
                        time_text::format(end - start)
                    )));
                }
            }
            sections.push(SectionPlan {
                index,
                first_bar,
                bars,
                start,
                end,
                forms,
                voice_names: voice_names.clone(),
            });
            first_bar += bars;
        }
        Ok(Blueprint {
            row,
            table,
            meter: spec.meter,
            bars: spec.bars,
            tempo: spec.tempo,
            title: spec.title.clone(),
            sections,
            canons,
            limits: Limits {
                voices: working,
                max_chord: spec.texture.max_chord,
                max_sounding: spec.texture.max_sounding,
                max_crossing: spec.max_crossing,
                tremolo_per_statement: match spec.repetition {
                    Repetition::Forbidden => 0,
                    Repetition::Tremolo { max_per_statement } => max_per_statement,
                },
            },
        })
    }

    /// The convention labels follow.
    pub fn convention(&self) -> Convention {
        self.table.convention()
    }

    /// The forms voice `voice` states, in order (its schedule).
    pub fn schedule(&self, voice: usize) -> impl Iterator<Item = RowForm> + '_ {
        self.sections
            .iter()
            .filter_map(move |s| s.forms.get(voice).copied())
    }

    /// The end of the piece.
    pub fn end(&self) -> Time {
        self.meter.bar_length() * Time::from_integer(i64::from(self.bars))
    }

    /// The canon in which `voice` follows, if any.
    pub fn canon_following(&self, voice: usize) -> Option<&CanonPlan> {
        self.canons.iter().find(|c| c.follower == voice)
    }
}

/// Why a spec cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BlueprintError(pub String);

fn canon_plans(spec: &Spec, bar: Time) -> Result<Vec<CanonPlan>, BlueprintError> {
    let mut out = Vec::new();
    for t in &spec.techniques {
        let (leader, follower, delay_bars, map) = match *t {
            Technique::Canon {
                leader,
                follower,
                delay_bars,
                transpose,
            } => (
                leader,
                follower,
                delay_bars,
                CanonMap::Transpose(i32::from(transpose).rem_euclid(12) as u8),
            ),
            Technique::InversionCanon {
                leader,
                follower,
                delay_bars,
                axis,
            } => (
                leader,
                follower,
                delay_bars,
                axis.map_or(CanonMap::InvertAboutStart, |a| CanonMap::Invert(a % 12)),
            ),
            Technique::RegisterContrast { .. } => continue,
        };
        if follower <= leader {
            // Planning fills voices in order; a follower must come after its leader.
            return Err(BlueprintError(format!(
                "a canon's follower must be a lower voice than its leader (voice {} follows voice {})",
                follower + 1,
                leader + 1
            )));
        }
        out.push(CanonPlan {
            leader,
            follower,
            delay: bar * Time::from_integer(i64::from(delay_bars)),
            map,
        });
    }
    Ok(out)
}

/// The seeded walk that picks each section's forms.
struct Walk<'a> {
    table: &'a FormTable,
    rng: fastrand::Rng,
    /// Voice 0's form in the previous section.
    last: Option<RowForm>,
}

const KIND_CYCLE: [FormKind; 4] = [FormKind::P, FormKind::RI, FormKind::I, FormKind::R];
const STEPS: [u8; 6] = [5, 7, 2, 10, 3, 9];

impl<'a> Walk<'a> {
    fn new(table: &'a FormTable, seed: u64) -> Self {
        Walk {
            table,
            rng: fastrand::Rng::with_seed(seed ^ 0x5EC7_10A5),
            last: None,
        }
    }

    fn section_forms(&mut self, index: usize, voices: usize, canons: &[CanonPlan]) -> Vec<RowForm> {
        let lead = match self.last {
            None => self.table.prime_starting_on(self.table.row().first()),
            Some(prev) => {
                let kind = KIND_CYCLE[index % 4];
                let step = STEPS[self.rng.usize(..STEPS.len())];
                RowForm::new(kind, (prev.n + step) % 12)
            }
        };
        self.last = Some(lead);
        let mut forms = vec![lead];
        for v in 1..voices {
            let form = if let Some(c) = canons.iter().find(|c| c.follower == v) {
                self.follower_form(forms[c.leader], c)
            } else if v == 1 {
                self.combinatorial_partner(lead)
                    .unwrap_or_else(|| self.fresh(&forms))
            } else {
                self.fresh(&forms)
            };
            forms.push(form);
        }
        forms
    }

    fn mask(&self, form: RowForm, hexachord: std::ops::Range<usize>) -> u16 {
        self.table.pcs(form)[hexachord]
            .iter()
            .fold(0u16, |m, &pc| m | 1 << pc)
    }

    /// A form whose first hexachord is the complement of `form`'s, other than the
    /// trivial retrograde; the choice among several is seeded.
    fn combinatorial_partner(&mut self, form: RowForm) -> Option<RowForm> {
        let first = self.mask(form, 0..6);
        let own = self.table.pcs(form);
        let partners: Vec<RowForm> = RowForm::all()
            .filter(|&g| self.mask(g, 0..6) & first == 0)
            .filter(|&g| {
                let pcs = self.table.pcs(g);
                // Not the plain retrograde of `form` (trivially combinatorial).
                !pcs.iter().eq(own.iter().rev())
            })
            .collect();
        if partners.is_empty() {
            None
        } else {
            Some(partners[self.rng.usize(..partners.len())])
        }
    }

    /// A form not used by the voices planned so far (by pitch-class content order).
    fn fresh(&mut self, taken: &[RowForm]) -> RowForm {
        loop {
            let kind = FormKind::ALL[self.rng.usize(..4)];
            let candidate = RowForm::new(kind, self.rng.u8(..12));
            let pcs = self.table.pcs(candidate);
            if taken.iter().all(|&t| self.table.pcs(t) != pcs) {
                return candidate;
            }
        }
    }

    fn follower_form(&self, leader: RowForm, canon: &CanonPlan) -> RowForm {
        let pcs = self.table.pcs(leader);
        let map = canon.map.in_section(pcs[0]);
        let mapped: [PitchClass; 12] = pcs.map(|p| map.apply(p));
        self.table
            .labels_of(&mapped)
            .first()
            .copied()
            .unwrap_or(leader)
    }
}
