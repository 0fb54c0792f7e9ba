//! The online verifier: every moment rule of the catalogue as a framework
//! [`Predicate`], plus the two shape checks a candidate voicing needs (its beat and
//! its spelling).
//!
//! A predicate judges the candidate as the next beat of the chorale written so far,
//! with the same code the gate runs on every beat of the finished chorale.

use crate::chorale::Location;
use crate::domain::{ChoraleDomain, Voicing};
use crate::rules::{self, Profile, Rule};
use cantus_framework::{CheckContext, Predicate, RuleId, Severity, Verifier, Violation};

/// A catalogue rule run online on one candidate, with its profile's severity.
pub struct RulePredicate {
    pub rule: &'static Rule,
    pub severity: Severity,
}

impl Predicate<ChoraleDomain> for RulePredicate {
    fn id(&self) -> RuleId {
        self.rule.id
    }
    fn description(&self) -> &'static str {
        self.rule.summary
    }
    fn severity(&self) -> Severity {
        self.severity
    }
    fn check(
        &self,
        ctx: CheckContext<'_, ChoraleDomain>,
        v: &Voicing,
        out: &mut Vec<Violation<Location>>,
    ) {
        if let Some((a, b)) = ctx.state.with_candidate(v) {
            let from = out.len();
            self.rule.check_beat(&a, b, out);
            for f in &mut out[from..] {
                f.severity = self.severity;
            }
        }
    }
}

/// `CH-structure` online: the candidate is the beat after the last one written,
/// and each of its tones is spelled as its MIDI pitch sounds.
pub struct BeatOrder;

impl Predicate<ChoraleDomain> for BeatOrder {
    fn id(&self) -> RuleId {
        rules::CH_STRUCTURE
    }
    fn description(&self) -> &'static str {
        "the candidate voices the beat after the last one written, each tone spelled as it sounds"
    }
    fn check(
        &self,
        ctx: CheckContext<'_, ChoraleDomain>,
        v: &Voicing,
        out: &mut Vec<Violation<Location>>,
    ) {
        let next = ctx.state.analysis.beats.len();
        let why = if v.beat >= ctx.state.analysis.total() {
            format!("the melody has no beat {}", v.beat + 1)
        } else if v.beat != next {
            format!(
                "beat {} is written next; the beats are written in order",
                next + 1
            )
        } else if let Some((part, t)) = v.tones().into_iter().find(|(_, t)| {
            let spelled =
                (t.spelling.letter.pitch_class() + i32::from(t.spelling.alter)).rem_euclid(12);
            spelled != i32::from(t.pc()) || t.midi > 127
        }) {
            format!(
                "the {part}'s spelling {:?} does not name MIDI pitch {}",
                t.spelling, t.midi
            )
        } else {
            return;
        };
        out.push(Violation::hard(
            rules::CH_STRUCTURE,
            ctx.section.at.clone(),
            why,
        ));
    }
}

/// The online verifier with `profile`'s severities: the shape check, then every
/// moment rule.
pub fn verifier(profile: Profile) -> Verifier<ChoraleDomain> {
    let mut v = Verifier::new().with(BeatOrder);
    for rule in rules::moment_rules() {
        v.push(std::sync::Arc::new(RulePredicate {
            rule,
            severity: profile.severity(rule),
        }));
    }
    v
}
