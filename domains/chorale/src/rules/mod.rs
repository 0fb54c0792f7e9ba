//! The rules of four-part chorale writing, as data: a stable id, the severity of
//! the strict (textbook) profile, a scope and a check.
//!
//! Every check but the shape rules is a *moment* rule over one beat: it judges beat
//! `b` through an [`At`] view that shows the chorale up to the end of `b` and
//! nothing later — but the soprano, which is the given melody, known whole from
//! the start online as in the gate. The online verifier judges the beat a
//! candidate voicing fills; the gate judges every beat of the finished chorale: the
//! same code, so the two cannot disagree. A rule whose evidence arrives later (a
//! non-chord tone of a lower part is only resolved by the note after it, a cadence
//! only ends at its last chord) is judged at the beat where the evidence arrives
//! and located where the fault is; a melody note's treatment is judged at the first
//! chord it is outside, since the notes around it are known.
//!
//! Severity is data ([`Profile`]). **Strict** is the harmony class: what the
//! textbooks (Aldwell & Schachter, Piston, Kostka & Payne) forbid is hard.
//! **Lenient** keeps hard only what Bach's own chorales keep (nearly) always and
//! turns the textbook prohibitions he breaks — hidden fifths and octaves, crossing,
//! spacing, free treatment of tendency tones — into warnings. Soft violations are
//! reported and counted, never dropped, and never block release. The ids are
//! stable: reports, traces and the README's Bach figures name them.

mod cadence;
mod harmony;

pub use cadence::CadenceKind;
pub(crate) use cadence::LOOK_BACK as CADENCE_LOOK_BACK;
pub(crate) use cadence::{final_bass_fits, final_tones_fit};
mod motion;
pub(crate) use motion::{HardMotion, Tones};
mod resolution;
mod vertical;

use crate::analysis::{Analysis, At};
use crate::chorale::Location;
use cantus_framework::{RuleId, Severity, Violation};
use serde::Serialize;

/// A violation found by a rule.
pub type Finding = Violation<Location>;

/// `CH-structure`: four parts of single notes (or one melody part).
pub const CH_STRUCTURE: RuleId = RuleId::new("CH-structure");
/// `CH-melody`: a harmonisation keeps the melody it was given.
pub const CH_MELODY: RuleId = RuleId::new("CH-melody");
/// `CH-range`: each part in its range.
pub const CH_RANGE: RuleId = RuleId::new("CH-range");
/// `CH-spacing`: soprano–alto and alto–tenor within an octave.
pub const CH_SPACING: RuleId = RuleId::new("CH-spacing");
/// `CH-crossing`: no part below the part under it.
pub const CH_CROSSING: RuleId = RuleId::new("CH-crossing");
/// `CH-overlap`: no part moves past the previous note of its neighbour.
pub const CH_OVERLAP: RuleId = RuleId::new("CH-overlap");
/// `CH-chord`: every beat is a triad or seventh chord.
pub const CH_CHORD: RuleId = RuleId::new("CH-chord");
/// `CH-non-chord-tone`: every non-chord tone is treated as its kind requires.
pub const CH_NON_CHORD_TONE: RuleId = RuleId::new("CH-non-chord-tone");
/// `CH-parallel-fifths`.
pub const CH_PARALLEL_FIFTHS: RuleId = RuleId::new("CH-parallel-fifths");
/// `CH-parallel-octaves`.
pub const CH_PARALLEL_OCTAVES: RuleId = RuleId::new("CH-parallel-octaves");
/// `CH-parallel-unisons`.
pub const CH_PARALLEL_UNISONS: RuleId = RuleId::new("CH-parallel-unisons");
/// `CH-contrary-fifths`: consecutive fifths by contrary motion.
pub const CH_CONTRARY_FIFTHS: RuleId = RuleId::new("CH-contrary-fifths");
/// `CH-contrary-octaves`: consecutive octaves by contrary motion.
pub const CH_CONTRARY_OCTAVES: RuleId = RuleId::new("CH-contrary-octaves");
/// `CH-hidden-fifths`: outer voices into a fifth by similar motion with a leap above.
pub const CH_HIDDEN_FIFTHS: RuleId = RuleId::new("CH-hidden-fifths");
/// `CH-hidden-octaves`: outer voices into an octave by similar motion with a leap above.
pub const CH_HIDDEN_OCTAVES: RuleId = RuleId::new("CH-hidden-octaves");
/// `CH-unequal-fifths`: a diminished fifth to a perfect fifth against the bass.
pub const CH_UNEQUAL_FIFTHS: RuleId = RuleId::new("CH-unequal-fifths");
/// `CH-leading-tone`: a dominant's leading tone resolves to its tonic.
pub const CH_LEADING_TONE: RuleId = RuleId::new("CH-leading-tone");
/// `CH-seventh`: a chordal seventh resolves down by step.
pub const CH_SEVENTH: RuleId = RuleId::new("CH-seventh");
/// `CH-doubled-leading-tone`.
pub const CH_DOUBLED_LEADING_TONE: RuleId = RuleId::new("CH-doubled-leading-tone");
/// `CH-doubling`: the preferred doublings.
pub const CH_DOUBLING: RuleId = RuleId::new("CH-doubling");
/// `CH-incomplete-chord`: a chord without its third.
pub const CH_INCOMPLETE_CHORD: RuleId = RuleId::new("CH-incomplete-chord");
/// `CH-six-four`: second-inversion triads only as cadential, passing or pedal 6/4s.
pub const CH_SIX_FOUR: RuleId = RuleId::new("CH-six-four");
/// `CH-melodic-interval`: no augmented interval and no leap beyond an octave.
pub const CH_MELODIC_INTERVAL: RuleId = RuleId::new("CH-melodic-interval");
/// `CH-cadence`: every phrase ends with a cadence.
pub const CH_CADENCE: RuleId = RuleId::new("CH-cadence");
/// `CH-cadence-complete`: the chords of a cadence are complete.
pub const CH_CADENCE_COMPLETE: RuleId = RuleId::new("CH-cadence-complete");
/// `CH-final-cadence`: the chorale ends with an authentic cadence in its key.
pub const CH_FINAL_CADENCE: RuleId = RuleId::new("CH-final-cadence");

/// What a rule needs to see.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// One beat and what came before it (online and in the gate).
    Moment,
    /// The shape of the chorale: its parts, the given melody (reading the file).
    Shape,
}

/// A flagged place and why; the rule adds its id and severity.
pub(crate) struct Flag {
    pub location: Location,
    pub reason: String,
}

type MomentCheck = fn(&At<'_>, &mut Vec<Flag>);

#[derive(Clone, Copy)]
enum Check {
    Moment(MomentCheck),
    /// A motion rule that a pair of parts breaks on its own, whatever the other
    /// parts do: its judgement of a beat, and its test of one pair of parts
    /// across one motion (the same test the judgement runs), with which the
    /// model's grammar rules out a voicing part by part ([`HardMotion`]).
    Motion(MomentCheck, motion::PairTest),
    Shape,
}

/// One rule of the catalogue.
#[derive(Clone, Copy)]
pub struct Rule {
    /// Stable id, e.g. `CH-parallel-fifths`.
    pub id: RuleId,
    /// The strict profile's severity.
    pub severity: Severity,
    /// The lenient profile's severity.
    pub lenient: Severity,
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
            Check::Moment(_) | Check::Motion(..) => Scope::Moment,
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

    /// Judges beat `b` of `a` (a moment rule; shape rules do nothing).
    pub fn check_beat(&self, a: &Analysis, b: usize, out: &mut Vec<Finding>) {
        if let Check::Moment(f) | Check::Motion(f, _) = self.check
            && b < a.beats.len()
        {
            let mut flags = Vec::new();
            f(&a.at(b), &mut flags);
            out.extend(flags.into_iter().map(|f| self.finding(f)));
        }
    }

    /// Its test of one pair of parts across one motion, if it is a motion rule a
    /// pair of parts breaks on its own.
    pub(crate) fn pair_test(&self) -> Option<motion::PairTest> {
        match self.check {
            Check::Motion(_, test) => Some(test),
            _ => None,
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
    lenient: Severity,
    summary: &'static str,
    check: Check,
) -> Rule {
    Rule {
        id,
        severity,
        lenient,
        summary,
        check,
    }
}

use Severity::{Hard as H, Soft as S};

/// Every rule, in report order.
pub static CATALOGUE: &[Rule] = &[
    rule(
        CH_STRUCTURE,
        H,
        H,
        "four parts (soprano, alto, tenor, bass) of single notes, or one melody to harmonise",
        Check::Shape,
    ),
    rule(
        CH_MELODY,
        H,
        H,
        "a harmonisation keeps the melody it was given, note for note",
        Check::Shape,
    ),
    // The sonority of each beat.
    rule(
        CH_CHORD,
        H,
        H,
        "every beat is a triad or seventh chord: a tone outside it on the beat is prepared (a suspension) or reached by step, and at most two are",
        Check::Moment(harmony::chord),
    ),
    rule(
        CH_NON_CHORD_TONE,
        H,
        S,
        "every non-chord tone is treated as its kind requires: passing and neighbour tones by step, suspensions prepared and resolved down by step, anticipations repeated into the next chord, escape tones left by leap the other way",
        Check::Moment(harmony::non_chord_tone),
    ),
    rule(
        CH_INCOMPLETE_CHORD,
        S,
        S,
        "every chord has its third",
        Check::Moment(vertical::incomplete),
    ),
    rule(
        CH_SIX_FOUR,
        S,
        S,
        "a second-inversion triad is cadential (over the dominant, resolving to it), passing (bass by step on and on) or a pedal (bass held)",
        Check::Moment(harmony::six_four),
    ),
    // Ranges and spacing.
    rule(
        CH_RANGE,
        H,
        S,
        "each part in its range: soprano C4–A5, alto G3–D5, tenor C3–A4, bass D2–D4",
        Check::Moment(vertical::range),
    ),
    rule(
        CH_SPACING,
        H,
        S,
        "soprano and alto, alto and tenor at most an octave apart",
        Check::Moment(vertical::spacing),
    ),
    rule(
        CH_CROSSING,
        H,
        S,
        "no part sounds below the part under it",
        Check::Moment(vertical::crossing),
    ),
    rule(
        CH_OVERLAP,
        H,
        S,
        "no part moves above the previous note of the part over it, or below that of the part under it (leaving a unison exempt)",
        Check::Motion(motion::overlap, motion::pair::overlap),
    ),
    // Motion between any two parts.
    rule(
        CH_PARALLEL_FIFTHS,
        H,
        H,
        "no two parts move in parallel perfect fifths (compound fifths included)",
        Check::Motion(motion::parallel_fifths, motion::pair::parallel_fifths),
    ),
    rule(
        CH_PARALLEL_OCTAVES,
        H,
        H,
        "no two parts move in parallel octaves (compound octaves included)",
        Check::Motion(motion::parallel_octaves, motion::pair::parallel_octaves),
    ),
    rule(
        CH_PARALLEL_UNISONS,
        H,
        H,
        "no two parts move in parallel unisons",
        Check::Motion(motion::parallel_unisons, motion::pair::parallel_unisons),
    ),
    rule(
        CH_CONTRARY_FIFTHS,
        H,
        S,
        "no consecutive perfect fifths by contrary motion",
        Check::Motion(motion::contrary_fifths, motion::pair::contrary_fifths),
    ),
    rule(
        CH_CONTRARY_OCTAVES,
        H,
        S,
        "no consecutive octaves or unisons by contrary motion",
        Check::Motion(motion::contrary_octaves, motion::pair::contrary_octaves),
    ),
    rule(
        CH_HIDDEN_FIFTHS,
        H,
        S,
        "the outer parts reach a fifth by similar motion only with the soprano moving by step",
        Check::Motion(motion::hidden_fifths, motion::pair::hidden_fifths),
    ),
    rule(
        CH_HIDDEN_OCTAVES,
        H,
        S,
        "the outer parts reach an octave by similar motion only with the soprano moving by step",
        Check::Motion(motion::hidden_octaves, motion::pair::hidden_octaves),
    ),
    rule(
        CH_UNEQUAL_FIFTHS,
        S,
        S,
        "no diminished fifth moving to a perfect fifth against the bass",
        Check::Moment(motion::unequal_fifths),
    ),
    rule(
        CH_MELODIC_INTERVAL,
        H,
        S,
        "the alto, tenor and bass move by no augmented interval (a chromatic semitone aside) and leap no more than an octave",
        Check::Moment(motion::melodic_interval),
    ),
    // Tendency tones and doubling.
    rule(
        CH_LEADING_TONE,
        H,
        S,
        "when a dominant moves to its tonic, its leading tone rises to the tonic (an inner part may fall to the fifth)",
        Check::Moment(resolution::leading_tone),
    ),
    rule(
        CH_SEVENTH,
        H,
        S,
        "a chordal seventh resolves down by step when the chord changes (or is held into the next chord)",
        Check::Moment(resolution::seventh),
    ),
    rule(
        CH_DOUBLED_LEADING_TONE,
        H,
        S,
        "the leading tone of a dominant (the third of V or V7, the root of vii°) is never doubled",
        Check::Moment(vertical::doubled_leading_tone),
    ),
    rule(
        CH_DOUBLING,
        S,
        S,
        "a root-position major triad doubles its root or fifth, not its third; a chordal seventh is never doubled",
        Check::Moment(vertical::doubling),
    ),
    // Cadences.
    rule(
        CH_CADENCE,
        H,
        S,
        "every phrase ends with a cadence (authentic, plagal, half, Phrygian or deceptive) on a root-position triad in a closely related key",
        Check::Moment(cadence::cadence),
    ),
    rule(
        CH_CADENCE_COMPLETE,
        H,
        S,
        "the chords of a cadence are complete: root and third of the last chord and of the dominant before it",
        Check::Moment(cadence::complete),
    ),
    rule(
        CH_FINAL_CADENCE,
        H,
        S,
        "the chorale ends with an authentic cadence in its key: V(7)–I, both in root position",
        Check::Moment(cadence::final_cadence),
    ),
];

/// Which severities the catalogue uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// The harmony class: every textbook prohibition is hard (the default).
    #[default]
    Strict,
    /// Bach's practice: hard only what his chorales keep (nearly) always.
    Lenient,
}

impl Profile {
    /// Both profiles.
    pub const ALL: [Profile; 2] = [Profile::Strict, Profile::Lenient];

    /// The profile named `text` (`strict` or `lenient`, any case).
    pub fn parse(text: &str) -> Option<Profile> {
        match text.trim().to_ascii_lowercase().as_str() {
            "strict" => Some(Profile::Strict),
            "lenient" => Some(Profile::Lenient),
            _ => None,
        }
    }

    /// `strict` or `lenient`.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Strict => "strict",
            Profile::Lenient => "lenient",
        }
    }

    /// The severity of `rule` under this profile.
    pub fn severity(self, rule: &Rule) -> Severity {
        match self {
            Profile::Strict => rule.severity,
            Profile::Lenient => rule.lenient,
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

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The rule with this id.
pub fn rule_by_id(id: RuleId) -> Option<&'static Rule> {
    CATALOGUE.iter().find(|r| r.id == id)
}

/// The moment rules, in catalogue order.
pub fn moment_rules() -> impl Iterator<Item = &'static Rule> {
    CATALOGUE.iter().filter(|r| r.scope() == Scope::Moment)
}

/// Every finding of every moment rule on every beat of `a` (strict severities).
pub fn judge(a: &Analysis) -> Vec<Finding> {
    let mut out = Vec::new();
    for b in 0..a.beats.len() {
        out.extend(judge_beat(a, b));
    }
    out
}

/// The findings of the moment rules on beat `b` (what the online verifier sees
/// when `b` is the beat just written).
pub fn judge_beat(a: &Analysis, b: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in moment_rules() {
        r.check_beat(a, b, &mut out);
    }
    out
}

/// A phrase ending as the cadence rule reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cadence {
    /// The beat where it is judged (the last of the phrase's last soprano note).
    pub location: Location,
    /// `None` when it is no cadence the catalogue recognises.
    pub kind: Option<CadenceKind>,
    /// The chords, as Roman numerals in the chorale's key: the one before the
    /// last (when there is one) and the last.
    pub chords: Vec<String>,
}

/// Every phrase ending of `a` and the cadence it makes.
pub fn cadences(a: &Analysis) -> Vec<Cadence> {
    (0..a.beats.len())
        .filter_map(|b| {
            let at = a.at(b);
            let e = cadence::ending(&at)?;
            let key = a.chorale.key;
            let chords = e
                .before
                .iter()
                .map(|(_, c)| c.roman(key))
                .chain([e.last.roman(key)])
                .collect();
            Some(Cadence {
                location: at.location(at.beat().start, Vec::new()),
                kind: cadence::cadence_at(&at).map(|(k, _)| k),
                chords,
            })
        })
        .collect()
}

/// Whether beat `b` breaks a rule that is hard under `profile` (stops at the first).
pub fn breaks_hard(a: &Analysis, b: usize, profile: Profile) -> bool {
    let mut out = Vec::new();
    for r in moment_rules().filter(|r| profile.severity(r) == Severity::Hard) {
        r.check_beat(a, b, &mut out);
        if !out.is_empty() {
            return true;
        }
    }
    false
}
