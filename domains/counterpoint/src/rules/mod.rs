//! The rules of two-voice species counterpoint, as data: a stable id (the ids of
//! `shared/docs/counterpoint/rules.md`), a severity, the species it governs, its
//! scope and a check.
//!
//! A *moment* rule judges one counterpoint note against what came before it, so the
//! online verifier (one candidate at a time) and the release gate (the whole
//! exercise) run the very same code: the gate simply judges every moment in turn. A
//! *line* rule needs the whole counterpoint (range, climax, proportions) and runs in
//! the gate only. `SP-*` rules are about the exercise's shape and are checked where
//! that shape is known (reading a file, ordering candidates).
//!
//! Severity follows Fux: **hard** when he states a prohibition that all his
//! two-voice solutions obey, **soft** when it is a textbook preference his own
//! solutions sometimes break. Soft violations are reported and counted, never
//! dropped, and never block release.

mod cadence;
mod melody;
mod motion;
mod vertical;

use crate::exercise::{Exercise, Location, Species};
use cantus_framework::{RuleId, Severity, Violation};
use serde::Serialize;

/// A violation found by a rule.
pub type Finding = Violation<Location>;

/// `SP-rhythm`: the counterpoint has the species' rhythm.
pub const SP_RHYTHM: RuleId = RuleId::new("SP-rhythm");
/// `SP-structure`: the score is a two-voice exercise.
pub const SP_STRUCTURE: RuleId = RuleId::new("SP-structure");
/// `SP-cantus`: the cantus firmus is the one given.
pub const SP_CANTUS: RuleId = RuleId::new("SP-cantus");
/// `FS-M-leap-recovery`: a leap is recovered by step in the opposite direction.
pub const FS_M_LEAP_RECOVERY: RuleId = RuleId::new("FS-M-leap-recovery");
/// `FS-M-double-leap`: no two leaps in one direction.
pub const FS_M_DOUBLE_LEAP: RuleId = RuleId::new("FS-M-double-leap");
/// `FS-P-contrary-perfect`: no perfect consonance approached by contrary motion.
pub const FS_P_CONTRARY_PERFECT: RuleId = RuleId::new("FS-P-contrary-perfect");
/// `FS-P-battuta`: no battuta octave.
pub const FS_P_BATTUTA: RuleId = RuleId::new("FS-P-battuta");
/// `SS-battuta`: no battuta in second species.
pub const SS_BATTUTA: RuleId = RuleId::new("SS-battuta");

/// Which species a rule governs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applies {
    Both,
    First,
    Second,
}

impl Applies {
    /// Whether the rule governs `species`.
    pub fn covers(self, species: Species) -> bool {
        match self {
            Applies::Both => true,
            Applies::First => species == Species::First,
            Applies::Second => species == Species::Second,
        }
    }
}

/// What a rule needs to see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One counterpoint note and what came before it (online and in the gate).
    Moment,
    /// The whole counterpoint (gate only).
    Line,
    /// The shape of the exercise: rhythm, voices, the given cantus (reading and ordering).
    Shape,
}

/// A flagged place and why; the rule adds its id and severity.
pub(crate) struct Flag {
    pub location: Location,
    pub reason: String,
}

type MomentCheck = fn(&Exercise, usize, &mut Vec<Flag>);
type LineCheck = fn(&Exercise, &mut Vec<Flag>);

#[derive(Clone, Copy)]
enum Check {
    Moment(MomentCheck),
    Line(LineCheck),
    Shape,
}

/// One rule of the catalogue.
#[derive(Clone, Copy)]
pub struct Rule {
    /// Stable id, e.g. `FS-P-parallel-perfect`.
    pub id: RuleId,
    pub severity: Severity,
    pub applies: Applies,
    /// One sentence on what the rule requires.
    pub summary: &'static str,
    check: Check,
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rule({})", self.id)
    }
}

impl Rule {
    /// The rule's scope.
    pub fn scope(&self) -> Scope {
        match self.check {
            Check::Moment(_) => Scope::Moment,
            Check::Line(_) => Scope::Line,
            Check::Shape => Scope::Shape,
        }
    }

    fn finding(&self, f: Flag) -> Finding {
        Violation {
            predicate: self.id,
            severity: self.severity,
            location: f.location,
            reason: f.reason,
        }
    }

    /// Judges moment `i` of `ex` (a moment rule of `ex`'s species; others do nothing).
    pub fn check_moment(&self, ex: &Exercise, i: usize, out: &mut Vec<Finding>) {
        if let Check::Moment(f) = self.check
            && self.applies.covers(ex.species)
            && i < ex.moments.len()
        {
            let mut flags = Vec::new();
            f(ex, i, &mut flags);
            out.extend(flags.into_iter().map(|f| self.finding(f)));
        }
    }

    /// Judges the whole of `ex`: every moment, or the line.
    pub fn check_all(&self, ex: &Exercise, out: &mut Vec<Finding>) {
        if !self.applies.covers(ex.species) {
            return;
        }
        match self.check {
            Check::Moment(_) => (0..ex.moments.len()).for_each(|i| self.check_moment(ex, i, out)),
            Check::Line(f) => {
                if !ex.moments.is_empty() {
                    let mut flags = Vec::new();
                    f(ex, &mut flags);
                    out.extend(flags.into_iter().map(|f| self.finding(f)));
                }
            }
            Check::Shape => {}
        }
    }

    /// A finding of this rule (for shape rules, checked outside the catalogue).
    pub fn at(&self, location: Location, reason: impl Into<String>) -> Finding {
        self.finding(Flag {
            location,
            reason: reason.into(),
        })
    }
}

const fn rule(
    id: RuleId,
    severity: Severity,
    applies: Applies,
    summary: &'static str,
    check: Check,
) -> Rule {
    Rule {
        id,
        severity,
        applies,
        summary,
        check,
    }
}

use Applies::{Both, First, Second};
use Severity::{Hard as H, Soft as S};

/// Every rule, in report order.
pub static CATALOGUE: &[Rule] = &[
    // Shape of the exercise.
    rule(
        SP_RHYTHM,
        H,
        Both,
        "the counterpoint has the species' rhythm: 1:1 whole notes, or 2:1 half notes (a half rest may open; the last bar is one whole note)",
        Check::Shape,
    ),
    rule(
        SP_STRUCTURE,
        H,
        Both,
        "the score is a two-voice exercise: a cantus voice of single notes without rests, and one counterpoint voice",
        Check::Shape,
    ),
    rule(
        SP_CANTUS,
        H,
        Both,
        "the cantus firmus is the one given (a composed exercise may not alter it)",
        Check::Shape,
    ),
    // First species: verticals.
    rule(
        RuleId::new("FS-H-consonance"),
        H,
        First,
        "every vertical is a consonance (P1, P8, P5, 3rds, 6ths, compounds; correctly spelled)",
        Check::Moment(vertical::consonance),
    ),
    rule(
        RuleId::new("FS-H-unison-inner"),
        H,
        First,
        "a unison only in the first and last bars",
        Check::Moment(vertical::unison_inner),
    ),
    rule(
        RuleId::new("FS-H-prefer-imperfect"),
        S,
        Both,
        "fewer perfect than imperfect consonances on the downbeats",
        Check::Line(vertical::prefer_imperfect),
    ),
    rule(
        RuleId::new("FS-V-spacing"),
        S,
        Both,
        "the voices at most a twelfth apart",
        Check::Moment(vertical::spacing),
    ),
    // First species: beginning, end, cadence.
    rule(
        RuleId::new("FS-B-start-perfect"),
        H,
        First,
        "the first vertical is a perfect consonance",
        Check::Moment(cadence::start_perfect),
    ),
    rule(
        RuleId::new("FS-B-start-final-above"),
        H,
        First,
        "a counterpoint above begins on the final or its fifth",
        Check::Moment(cadence::start_final_above),
    ),
    rule(
        RuleId::new("FS-B-start-final-below"),
        H,
        First,
        "a counterpoint below begins on the final (a fifth below changes the mode)",
        Check::Moment(cadence::start_final_below),
    ),
    rule(
        RuleId::new("FS-B-end-octave"),
        H,
        First,
        "the last vertical is a unison or an octave",
        Check::Moment(cadence::end_octave),
    ),
    rule(
        RuleId::new("FS-B-end-final"),
        H,
        First,
        "the counterpoint ends on the final",
        Check::Moment(cadence::end_final),
    ),
    rule(
        RuleId::new("FS-B-cadence-step-contrary"),
        H,
        First,
        "the last vertical is reached by step in contrary motion",
        Check::Moment(cadence::step_contrary),
    ),
    rule(
        RuleId::new("FS-B-cadence-6-8-or-3-1"),
        H,
        First,
        "the penultimate vertical is a major sixth (counterpoint above) or a minor third (below)",
        Check::Moment(cadence::six_eight_three_one),
    ),
    rule(
        RuleId::new("FS-M-ficta"),
        S,
        Both,
        "only the mode's notes, except the raised leading tone at the cadence and B-flat against F",
        Check::Moment(melody::ficta),
    ),
    // Motion between verticals (both species: between consecutive notes).
    rule(
        RuleId::new("FS-P-parallel-perfect"),
        H,
        Both,
        "no parallel unisons, fifths or octaves (compounds included)",
        Check::Moment(motion::parallel_perfect),
    ),
    rule(
        FS_P_CONTRARY_PERFECT,
        H,
        Both,
        "no consecutive fifths or octaves by contrary motion",
        Check::Moment(motion::contrary_perfect),
    ),
    rule(
        RuleId::new("FS-P-direct-perfect"),
        H,
        Both,
        "no similar (hidden) motion into a perfect consonance",
        Check::Moment(motion::direct_perfect),
    ),
    rule(
        FS_P_BATTUTA,
        H,
        First,
        "no octave reached from a tenth with the upper voice stepping down (the final cadence exempt)",
        Check::Moment(motion::battuta),
    ),
    rule(
        RuleId::new("FS-P-imperfect-run"),
        S,
        First,
        "at most three parallel thirds or sixths in a row",
        Check::Moment(motion::imperfect_run),
    ),
    rule(
        RuleId::new("FS-V-crossing"),
        H,
        First,
        "the voices do not cross",
        Check::Moment(motion::crossing),
    ),
    rule(
        RuleId::new("FS-V-overlap"),
        H,
        First,
        "no voice moves past the other's previous note (leaving a unison exempt)",
        Check::Moment(motion::overlap),
    ),
    // Melody of the counterpoint (both species).
    rule(
        RuleId::new("FS-M-interval"),
        H,
        Both,
        "melodic steps, thirds, fourths, fifths, octaves and the rising minor sixth only; no augmented or diminished interval",
        Check::Moment(melody::interval),
    ),
    rule(
        FS_M_LEAP_RECOVERY,
        S,
        Both,
        "after a leap of a fourth or more, turn back",
        Check::Moment(melody::leap_recovery),
    ),
    rule(
        FS_M_DOUBLE_LEAP,
        S,
        Both,
        "no two leaps (a third or more) in one direction",
        Check::Moment(melody::double_leap),
    ),
    rule(
        RuleId::new("FS-M-chromatic"),
        S,
        Both,
        "no two semitone steps in one direction",
        Check::Moment(melody::chromatic),
    ),
    rule(
        RuleId::new("FS-M-outlined-tritone"),
        S,
        Both,
        "no tritone between consecutive turning points of the line",
        Check::Line(melody::outlined_tritone),
    ),
    rule(
        RuleId::new("FS-M-range"),
        S,
        Both,
        "the counterpoint within a tenth",
        Check::Line(melody::range),
    ),
    rule(
        RuleId::new("FS-M-climax"),
        S,
        Both,
        "the highest note sounds once",
        Check::Line(melody::climax),
    ),
    rule(
        RuleId::new("FS-M-repetition"),
        S,
        First,
        "at most one immediate repetition",
        Check::Line(melody::repetition),
    ),
    // Second species.
    rule(
        RuleId::new("SS-start"),
        H,
        Second,
        "the first note (after an optional half rest) is a perfect consonance on the final (below) or the final or its fifth (above)",
        Check::Moment(cadence::ss_start),
    ),
    rule(
        RuleId::new("SS-downbeat-consonant"),
        H,
        Second,
        "every downbeat is a consonance",
        Check::Moment(vertical::downbeat_consonant),
    ),
    rule(
        RuleId::new("SS-upbeat-passing"),
        H,
        Second,
        "a dissonant upbeat is a passing tone: reached and left by step in one direction",
        Check::Moment(vertical::upbeat_passing),
    ),
    rule(
        RuleId::new("SS-downbeat-parallels"),
        H,
        Second,
        "no fifths or octaves on successive downbeats, unless the upbeat leaps a fourth or more",
        Check::Moment(motion::downbeat_parallels),
    ),
    rule(
        RuleId::new("SS-no-repeat"),
        H,
        Second,
        "no note repeated immediately",
        Check::Moment(melody::no_repeat),
    ),
    rule(
        RuleId::new("SS-unison"),
        H,
        Second,
        "a unison on a downbeat only in the first and last bars",
        Check::Moment(vertical::ss_unison),
    ),
    rule(
        RuleId::new("SS-cadence"),
        H,
        Second,
        "the penultimate bar is 5-6 (above) or 5/6-3 (below), the last one whole note on the final at the unison or octave, reached by contrary step",
        Check::Moment(cadence::ss_cadence),
    ),
    rule(
        SS_BATTUTA,
        H,
        Second,
        "no battuta between successive notes (the final cadence exempt)",
        Check::Moment(motion::battuta),
    ),
    rule(
        RuleId::new("SS-crossing"),
        H,
        Second,
        "the voices do not cross",
        Check::Moment(motion::crossing),
    ),
    rule(
        RuleId::new("SS-overlap"),
        H,
        Second,
        "no voice moves past the other's previous note (leaving a unison exempt)",
        Check::Moment(motion::overlap),
    ),
];

/// Which severities the catalogue uses. Severity is data: the rules document marks
/// two hard rules "hard for Fux, soft for modern textbooks".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Fux's own prohibitions are hard (the default; what the held-out set expects).
    #[default]
    Fux,
    /// As modern textbooks: consecutive perfect consonances by contrary motion
    /// (`FS-P-contrary-perfect`) and the battuta (`FS-P-battuta`, `SS-battuta`) only warn.
    Lenient,
}

impl Profile {
    /// The profile named `text` (`fux` or `lenient`, any case).
    pub fn parse(text: &str) -> Option<Profile> {
        match text.trim().to_ascii_lowercase().as_str() {
            "fux" => Some(Profile::Fux),
            "lenient" => Some(Profile::Lenient),
            _ => None,
        }
    }

    /// The severity of `rule` under this profile.
    pub fn severity(self, rule: &Rule) -> Severity {
        let relaxed = [FS_P_CONTRARY_PERFECT, FS_P_BATTUTA, SS_BATTUTA];
        match self {
            Profile::Lenient if relaxed.contains(&rule.id) => Severity::Soft,
            _ => rule.severity,
        }
    }

    /// Rewrites the severities of `findings` to this profile's.
    pub fn apply(self, findings: &mut [Finding]) {
        for f in findings {
            if let Some(r) = rule_by_id(f.predicate) {
                f.severity = self.severity(r);
            }
        }
    }
}

/// The rule with this id.
pub fn rule_by_id(id: RuleId) -> Option<&'static Rule> {
    CATALOGUE.iter().find(|r| r.id == id)
}

/// The rules that govern `species`.
pub fn rules_for(species: Species) -> impl Iterator<Item = &'static Rule> {
    CATALOGUE.iter().filter(move |r| r.applies.covers(species))
}

/// Every finding of every moment and line rule on a whole exercise.
pub fn judge(ex: &Exercise) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in rules_for(ex.species) {
        r.check_all(ex, &mut out);
    }
    out
}

/// The findings of the moment rules on moment `i` (what the online verifier sees).
pub fn judge_moment(ex: &Exercise, i: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in rules_for(ex.species) {
        r.check_moment(ex, i, &mut out);
    }
    out
}

/// `C5 over F4 (P5)`: the two notes of moment `i` and their vertical interval.
pub(crate) fn describe(ex: &Exercise, i: usize) -> String {
    let (up, lo) = ex.upper_lower(&ex.moments[i]);
    format!("{up} over {lo} ({})", ex.vertical(i).name())
}
