//! The deterministic repair rungs of the cycles domain.

use crate::domain::{Cycles, Symbol};
use cantus_framework::{CheckContext, Domain, RepairRung, RungAction, RungId, Violation};

type Vs = [Violation<<Cycles as Domain>::Location>];

/// `retag`: a symbol claiming the wrong position is moved to the cursor. Never
/// changes the symbol.
pub struct Retag;

impl Retag {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("retag");
}

impl RepairRung<Cycles> for Retag {
    fn id(&self) -> RungId {
        Self::ID
    }
    fn repair(&self, ctx: CheckContext<'_, Cycles>, c: &Symbol, vs: &Vs) -> RungAction<Cycles> {
        if !vs.iter().any(|v| v.predicate == crate::predicates::CURSOR) {
            return RungAction::give_up("the position tag is right");
        }
        RungAction::candidate(Symbol {
            position: ctx.state.cursor(),
            ..*c
        })
    }
}

/// `substitute`: a symbol foreign to the alphabet is replaced by the first symbol
/// (alphabetically) that is unused in the cycle and outside the window. Symbols of
/// the alphabet are left to the proposer, which knows its plan for the cycle.
pub struct Substitute;

impl Substitute {
    /// This rung's id in traces, totals and conditions.
    pub const ID: RungId = RungId::new("substitute");
}

impl RepairRung<Cycles> for Substitute {
    fn id(&self) -> RungId {
        Self::ID
    }
    fn repair(&self, ctx: CheckContext<'_, Cycles>, c: &Symbol, vs: &Vs) -> RungAction<Cycles> {
        if !vs
            .iter()
            .any(|v| v.predicate == crate::predicates::ALPHABET)
        {
            return RungAction::give_up("the symbol belongs to the alphabet");
        }
        let (spec, state) = (ctx.spec, ctx.state);
        let free = spec.symbols().find(|&s| {
            !state.used_in_cycle(spec).any(|u| u == s) && !state.in_window(spec).any(|u| u == s)
        });
        match free {
            Some(symbol) if symbol != c.symbol => RungAction::candidate(Symbol {
                position: state.cursor(),
                symbol,
            }),
            Some(_) => RungAction::give_up("the only free symbol is the candidate's own"),
            None => RungAction::give_up("every unused symbol of the cycle is inside the window"),
        }
    }
}
