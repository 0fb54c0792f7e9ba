//! The release gate of the cycles domain.
//!
//! It judges a [`CyclesString`] alone against its spec — the engine's, or one typed by
//! hand — by replaying it through the domain's own predicates from an empty state, and
//! adds the one rule only a finished string can break: every slot filled.

use crate::domain::{Cycle, CycleSpec, CycleState, Cycles, CyclesString, Slot, Symbol};
use cantus_framework::{CheckContext, GateReport, ReleaseGate, Violation};

/// Replays the string through [`crate::verifier`] and checks completeness (`CY-COMPLETE`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CycleGate;

impl ReleaseGate<Cycles> for CycleGate {
    fn name(&self) -> String {
        "cycles/strict".to_owned()
    }

    fn judge(&self, spec: &CycleSpec, artefact: &CyclesString) -> GateReport<Slot> {
        let mut violations = Vec::new();
        let expected = spec.alphabet * spec.cycles;
        if artefact.symbols.len() != expected {
            violations.push(Violation::hard(
                crate::predicates::COMPLETE,
                Slot {
                    cycle: artefact.symbols.len() / spec.alphabet.max(1) + 1,
                    slot: artefact.symbols.len() % spec.alphabet.max(1) + 1,
                },
                format!(
                    "the string has {} positions; {} cycles of {} need {expected}",
                    artefact.symbols.len(),
                    spec.cycles,
                    spec.alphabet
                ),
            ));
        }
        let verifier = crate::verifier();
        let mut state = CycleState {
            placed: Vec::with_capacity(artefact.symbols.len()),
        };
        for (position, symbol) in artefact.symbols.iter().enumerate() {
            let index = position / spec.alphabet.max(1);
            let section = Cycle {
                index,
                start: index * spec.alphabet,
                len: spec.alphabet,
            };
            match symbol {
                None => violations.push(Violation::hard(
                    crate::predicates::COMPLETE,
                    Slot {
                        cycle: index + 1,
                        slot: position - section.start + 1,
                    },
                    "slot left empty: every cycle needs every symbol once".to_owned(),
                )),
                Some(symbol) => {
                    let ctx = CheckContext {
                        domain: &Cycles,
                        spec,
                        state: &state,
                        section: &section,
                        section_index: index,
                    };
                    let verdict = verifier.verify(
                        ctx,
                        &Symbol {
                            position,
                            symbol: *symbol,
                        },
                    );
                    violations.extend(verdict.violations);
                }
            }
            state.placed.push(*symbol);
        }
        GateReport::from_violations(self.name(), violations)
    }
}
