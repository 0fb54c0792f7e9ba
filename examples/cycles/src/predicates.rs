//! The rules of the cycles domain, one predicate each.

use crate::domain::{Cycles, Symbol};
use cantus_framework::{CheckContext, Domain, Predicate, RuleId, Severity, Violation};

// The domain's rule ids, each written once.
/// `CY-CURSOR`: a symbol fills exactly the position the cursor is at.
pub const CURSOR: RuleId = RuleId::new("CY-CURSOR");
/// `CY-ALPHABET`: every symbol belongs to the alphabet.
pub const ALPHABET: RuleId = RuleId::new("CY-ALPHABET");
/// `CY-CYCLE`: no symbol twice in one cycle.
pub const CYCLE: RuleId = RuleId::new("CY-CYCLE");
/// `CY-WINDOW`: no symbol within the window of its last occurrence.
pub const WINDOW: RuleId = RuleId::new("CY-WINDOW");
/// `CY-NEIGHBOUR`: (soft) no step to the next letter.
pub const NEIGHBOUR: RuleId = RuleId::new("CY-NEIGHBOUR");
/// `CY-COMPLETE`: every slot of every cycle filled (gate only).
pub const COMPLETE: RuleId = RuleId::new("CY-COMPLETE");

type Out = Vec<Violation<<Cycles as Domain>::Location>>;

fn here(ctx: &CheckContext<'_, Cycles>, e: &Symbol) -> crate::Slot {
    ctx.domain.locate(ctx.section, e)
}

/// `CY-CURSOR`: a symbol must claim the position the cursor is at.
pub struct OnCursor;

impl Predicate<Cycles> for OnCursor {
    fn id(&self) -> RuleId {
        CURSOR
    }
    fn description(&self) -> &'static str {
        "a symbol fills exactly the position the cursor is at"
    }
    fn check(&self, ctx: CheckContext<'_, Cycles>, e: &Symbol, out: &mut Out) {
        let cursor = ctx.state.cursor();
        if e.position != cursor {
            out.push(Violation::hard(
                self.id(),
                here(&ctx, e),
                format!(
                    "claims position {} but the cursor is at {cursor}",
                    e.position
                ),
            ));
        }
    }
}

/// `CY-ALPHABET`: a symbol must belong to the alphabet.
pub struct InAlphabet;

impl Predicate<Cycles> for InAlphabet {
    fn id(&self) -> RuleId {
        ALPHABET
    }
    fn description(&self) -> &'static str {
        "every symbol belongs to the alphabet"
    }
    fn check(&self, ctx: CheckContext<'_, Cycles>, e: &Symbol, out: &mut Out) {
        let last = char::from(b'A' + ctx.spec.alphabet as u8 - 1);
        if !('A'..=last).contains(&e.symbol) {
            out.push(Violation::hard(
                self.id(),
                here(&ctx, e),
                format!("{:?} is not in the alphabet A..={last}", e.symbol),
            ));
        }
    }
}

/// `CY-CYCLE`: no symbol twice in one cycle.
pub struct NoRepeatInCycle;

impl Predicate<Cycles> for NoRepeatInCycle {
    fn id(&self) -> RuleId {
        CYCLE
    }
    fn description(&self) -> &'static str {
        "each symbol appears at most once per cycle"
    }
    fn check(&self, ctx: CheckContext<'_, Cycles>, e: &Symbol, out: &mut Out) {
        if ctx.state.used_in_cycle(ctx.spec).any(|s| s == e.symbol) {
            out.push(Violation::hard(
                self.id(),
                here(&ctx, e),
                format!("{:?} was already used in this cycle", e.symbol),
            ));
        }
    }
}

/// `CY-WINDOW`: no symbol within `window` positions of its last occurrence.
pub struct NoRepeatInWindow;

impl Predicate<Cycles> for NoRepeatInWindow {
    fn id(&self) -> RuleId {
        WINDOW
    }
    fn description(&self) -> &'static str {
        "a symbol does not recur within the window"
    }
    fn check(&self, ctx: CheckContext<'_, Cycles>, e: &Symbol, out: &mut Out) {
        if ctx.state.in_window(ctx.spec).any(|s| s == e.symbol) {
            out.push(Violation::hard(
                self.id(),
                here(&ctx, e),
                format!(
                    "{:?} recurs within {} positions of its last occurrence",
                    e.symbol, ctx.spec.window
                ),
            ));
        }
    }
}

/// `CY-NEIGHBOUR` (soft): avoid stepping to the next letter of the alphabet.
pub struct NoNeighbourStep;

impl Predicate<Cycles> for NoNeighbourStep {
    fn id(&self) -> RuleId {
        NEIGHBOUR
    }
    fn description(&self) -> &'static str {
        "prefer not to step to the next letter (soft)"
    }
    fn severity(&self) -> Severity {
        Severity::Soft
    }
    fn check(&self, ctx: CheckContext<'_, Cycles>, e: &Symbol, out: &mut Out) {
        if let Some(Some(prev)) = ctx.state.placed.last()
            && u32::from(*prev) + 1 == u32::from(e.symbol)
        {
            out.push(Violation::soft(
                self.id(),
                here(&ctx, e),
                format!("{prev:?} steps straight to {:?}", e.symbol),
            ));
        }
    }
}
