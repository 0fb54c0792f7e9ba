//! The online verifier: every moment rule of the catalogue as a framework
//! [`Predicate`], plus the two shape checks a candidate needs (its place and its
//! pitch).
//!
//! A predicate judges the candidate as the next note of the exercise accepted so
//! far, with the same code the release gate runs on the whole exercise; line rules
//! (range, climax, proportions) wait for the gate.

use crate::domain::{Counterpoint, CpEvent};
use crate::exercise::{Location, Species};
use crate::rules::{self, Profile, Rule, Scope};
use cantus_framework::{CheckContext, Predicate, RuleId, Severity, Verifier, Violation};

/// A catalogue rule run online on one candidate, with its profile's severity.
pub struct RulePredicate {
    pub rule: &'static Rule,
    pub severity: Severity,
}

impl Predicate<Counterpoint> for RulePredicate {
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
        ctx: CheckContext<'_, Counterpoint>,
        event: &CpEvent,
        out: &mut Vec<Violation<Location>>,
    ) {
        if let Some((ex, i)) = ctx.state.with_candidate(event) {
            let from = out.len();
            self.rule.check_moment(&ex, i, out);
            for v in &mut out[from..] {
                v.severity = self.severity;
            }
        }
    }
}

/// `SP-rhythm` online: the candidate fills the species' next slot after the last
/// accepted note. A note after a dropped one is refused too, so a bar is never left
/// with a hole before an accepted note: what the bar still owes is then a run of
/// slots a continue request can ask for, and every moment rule sees the notes
/// before it in order.
pub struct SlotOrder;

impl Predicate<Counterpoint> for SlotOrder {
    fn id(&self) -> RuleId {
        rules::SP_RHYTHM
    }
    fn description(&self) -> &'static str {
        "the candidate fills the species' next slot after the last accepted note"
    }
    fn check(
        &self,
        ctx: CheckContext<'_, Counterpoint>,
        e: &CpEvent,
        out: &mut Vec<Violation<Location>>,
    ) {
        let place = (e.bar, e.beat);
        let slots = ctx.spec.slots();
        let location = Location {
            bar: e.bar as u32 + 1,
            voice: crate::exercise::COUNTERPOINT_VOICE.to_owned(),
            onset: crate::exercise::Exercise::onset(e.bar, e.beat),
            from_bar: None,
        };
        let last = ctx.state.exercise.moments.last().map(|m| (m.bar, m.beat));
        let next = slots.iter().find(|&&s| last.is_none_or(|l| s > l));
        let why = if !slots.contains(&place) {
            format!("bar {} has no {:?} slot in this species", e.bar + 1, e.beat)
        } else if last.is_some_and(|l| l >= place) {
            "this slot is already filled".to_owned()
        } else if let Some(&(bar, beat)) = next
            && (bar, beat) != place
        {
            format!(
                "the bar {} {} is not written yet; the notes are written in order",
                bar + 1,
                match beat {
                    crate::exercise::Beat::Down => "downbeat",
                    crate::exercise::Beat::Up => "upbeat",
                }
            )
        } else {
            return;
        };
        out.push(Violation::hard(rules::SP_RHYTHM, location, why));
    }
}

/// `SP-structure` online: a MIDI pitch (0..=127) that the spelling names.
pub struct SoundingPitch;

impl Predicate<Counterpoint> for SoundingPitch {
    fn id(&self) -> RuleId {
        rules::SP_STRUCTURE
    }
    fn description(&self) -> &'static str {
        "the candidate is a MIDI pitch its spelling names"
    }
    fn check(
        &self,
        _ctx: CheckContext<'_, Counterpoint>,
        e: &CpEvent,
        out: &mut Vec<Violation<Location>>,
    ) {
        let spelled_pc =
            (e.spelling.letter.pitch_class() + i32::from(e.spelling.alter)).rem_euclid(12);
        let why = if e.midi > 127 {
            Some(format!("MIDI pitch {} is above 127", e.midi))
        } else if spelled_pc != i32::from(e.midi % 12) {
            Some(format!(
                "the spelling {:?} does not name MIDI pitch {}",
                e.spelling, e.midi
            ))
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Violation::hard(
                rules::SP_STRUCTURE,
                Location {
                    bar: e.bar as u32 + 1,
                    voice: crate::exercise::COUNTERPOINT_VOICE.to_owned(),
                    onset: crate::exercise::Exercise::onset(e.bar, e.beat),
                    from_bar: None,
                },
                why,
            ));
        }
    }
}

/// The online verifier for `species` with Fux's severities.
pub fn verifier(species: Species) -> Verifier<Counterpoint> {
    verifier_with(species, Profile::Fux)
}

/// The online verifier for `species`: shape checks, then every moment rule, with
/// `profile`'s severities.
pub fn verifier_with(species: Species, profile: Profile) -> Verifier<Counterpoint> {
    let mut v = Verifier::new().with(SoundingPitch).with(SlotOrder);
    for rule in rules::rules_for(species).filter(|r| r.scope() == Scope::Moment) {
        v.push(std::sync::Arc::new(RulePredicate {
            rule,
            severity: profile.severity(rule),
        }));
    }
    v
}
