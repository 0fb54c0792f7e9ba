//! Serial predicates: the row cursor, row consistency, repetition, octave doubling.

use super::pc_names;
use crate::domain::TwelveTone;
use crate::event::{Location, ToneEvent};
use crate::gate::Rule;
use cantus_framework::{CheckContext, Domain, Predicate, RuleId, Violation};

type Out = Vec<Violation<Location>>;

fn at(ctx: &CheckContext<'_, TwelveTone>, e: &ToneEvent) -> Location {
    ctx.domain.locate(ctx.section, e)
}

/// Whether `e` immediately repeats the previous event of its voice (same tag) and the
/// spec's tremolo allowance still has room in this statement.
fn allowed_tremolo(ctx: &CheckContext<'_, TwelveTone>, e: &ToneEvent) -> bool {
    let Some(line) = ctx.state.voices.get(e.voice) else {
        return false;
    };
    let allowance = ctx.spec.limits.tremolo_per_statement;
    line.last().is_some_and(|last| {
        last.tag == e.tag
            && last.pc_set() == e.pc_set()
            && u16::from(line.cursor.position) == e.tag.end()
            && line.tremolos < allowance
    })
}

/// `TT-SCHEDULE`: the event states its voice's scheduled form from the cursor.
pub struct ScheduleLockstep;

impl Predicate<TwelveTone> for ScheduleLockstep {
    fn id(&self) -> RuleId {
        Rule::Schedule.into()
    }
    fn description(&self) -> &'static str {
        "an event states its voice's scheduled row form, starting at the voice's row cursor, inside its section"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let Some(line) = ctx.state.voices.get(e.voice) else {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "voice {} does not exist (the piece has {} voices)",
                    e.voice + 1,
                    ctx.state.voices.len()
                ),
            ));
            return;
        };
        let section = ctx.section;
        if e.onset < section.start || e.onset >= section.end {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "onset lies outside section {} (bars {}–{})",
                    section.index + 1,
                    section.first_bar,
                    section.first_bar + section.bars - 1
                ),
            ));
        }
        if let Some(prev) = line.last()
            && e.onset < prev.onset
        {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "starts before the voice's previous note (at {}): row order must follow time",
                    cantus_music::time_text::format(prev.onset)
                ),
            ));
        }
        if e.duration <= cantus_music::Time::default() {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                "the duration is not positive",
            ));
        }
        match ctx.state.expected_form(ctx.spec, e.voice) {
            None => out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                "the voice has already stated every form of its schedule",
            )),
            Some(form) => {
                if line.cursor.statement != section.index {
                    out.push(Violation::hard(
                        self.id(),
                        at(&ctx, e),
                        format!(
                            "the voice is at statement {} but this is section {}",
                            line.cursor.statement + 1,
                            section.index + 1
                        ),
                    ));
                }
                if e.tag.form != form {
                    out.push(Violation::hard(
                        self.id(),
                        at(&ctx, e),
                        format!("tagged {} but the schedule says {form} here", e.tag.form),
                    ));
                }
                if e.tag.start != line.cursor.position && !allowed_tremolo(&ctx, e) {
                    out.push(Violation::hard(
                        self.id(),
                        at(&ctx, e),
                        format!(
                            "claims position {} but the voice's next position is {}",
                            u16::from(e.tag.start) + 1,
                            line.cursor.position + 1
                        ),
                    ));
                }
            }
        }
    }
}

/// `TT-ROW`: the pitches are exactly the tagged positions of the tagged form.
pub struct RowConsistency;

impl Predicate<TwelveTone> for RowConsistency {
    fn id(&self) -> RuleId {
        Rule::Row.into()
    }
    fn description(&self) -> &'static str {
        "an event's pitch classes are the tagged order positions of the tagged form (a chord in any order)"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let tag = e.tag;
        if e.pitches.is_empty() {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                "the event sounds no pitch",
            ));
            return;
        }
        if usize::from(tag.len) != e.pitches.len() || tag.end() > 12 || tag.len == 0 {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "tag {tag} names {} positions but the event sounds {} pitches",
                    tag.len,
                    e.pitches.len()
                ),
            ));
            return;
        }
        let form = ctx.spec.table.pcs(tag.form);
        let expected = form[usize::from(tag.start)..usize::from(tag.end())]
            .iter()
            .fold(0u16, |m, &pc| m | 1 << pc);
        let got = e.pc_set();
        if got != expected {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "sounds {{{}}} but {tag} is {{{}}}",
                    pc_names(got),
                    pc_names(expected)
                ),
            ));
        }
    }
}

/// `TT-REPEAT`: no premature repetition within a statement.
pub struct NoPrematureRepetition;

impl Predicate<TwelveTone> for NoPrematureRepetition {
    fn id(&self) -> RuleId {
        Rule::Repeat.into()
    }
    fn description(&self) -> &'static str {
        "no pitch class recurs before its statement is complete (immediate repetition only within the spec's tremolo allowance)"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        let Some(line) = ctx.state.voices.get(e.voice) else {
            return;
        };
        let again = line.sounded & e.pc_set();
        if again != 0 && !allowed_tremolo(&ctx, e) {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "{} already sounded in this statement ({})",
                    pc_names(again),
                    ctx.state
                        .expected_form(ctx.spec, e.voice)
                        .map_or_else(|| "-".to_owned(), |f| f.to_string())
                ),
            ));
        }
    }
}

/// `TT-OCTAVE`: no octave doubling within an event.
pub struct NoOctaveDoubling;

impl Predicate<TwelveTone> for NoOctaveDoubling {
    fn id(&self) -> RuleId {
        Rule::Octave.into()
    }
    fn description(&self) -> &'static str {
        "no two pitches of one event share a pitch class (octave equivalence)"
    }
    fn check(&self, ctx: CheckContext<'_, TwelveTone>, e: &ToneEvent, out: &mut Out) {
        if e.pc_set().count_ones() as usize != e.pitches.len() {
            out.push(Violation::hard(
                self.id(),
                at(&ctx, e),
                format!(
                    "pitches {:?} double a pitch class at the octave (or in unison)",
                    e.pitches
                ),
            ));
        }
    }
}
