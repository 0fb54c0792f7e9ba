//! The domain's types and its lockstep bookkeeping.

use cantus_framework::{Assemble, Domain, NoAmendment, PlanError};
use serde::Serialize;
use std::fmt;

/// What to generate.
#[derive(Clone, Debug, Serialize)]
pub struct CycleSpec {
    /// Alphabet size: symbols are `A`, `B`, … (2..=26).
    pub alphabet: usize,
    /// A symbol may not recur within this many positions (1 = no constraint).
    pub window: usize,
    /// Number of cycles.
    pub cycles: usize,
}

impl CycleSpec {
    /// The symbols of the alphabet, in order.
    pub fn symbols(&self) -> impl Iterator<Item = char> + use<> {
        (b'A'..).take(self.alphabet).map(char::from)
    }
}

/// One proposed symbol, tagged with the position it claims to fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Symbol {
    /// 0-based position in the whole string.
    pub position: usize,
    pub symbol: char,
}

/// Where a symbol sits: cycle and slot within it, both from 1 for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Slot {
    pub cycle: usize,
    pub slot: usize,
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cycle {}, slot {}", self.cycle, self.slot)
    }
}

/// Accepted symbols (`None` where one was dropped); the cursor is their count. The
/// alphabet and window are the run's spec, which every predicate, rung and proposer
/// is handed with the state.
#[derive(Clone, Debug, Default)]
pub struct CycleState {
    pub placed: Vec<Option<char>>,
}

impl CycleState {
    /// Position the next symbol must fill.
    pub fn cursor(&self) -> usize {
        self.placed.len()
    }

    /// Symbols already placed in the cycle of the cursor.
    pub fn used_in_cycle(&self, spec: &CycleSpec) -> impl Iterator<Item = char> + '_ {
        let start = self.cursor() - self.cursor() % spec.alphabet;
        self.placed[start..].iter().flatten().copied()
    }

    /// Symbols within the window before the cursor.
    pub fn in_window(&self, spec: &CycleSpec) -> impl Iterator<Item = char> + '_ {
        let from = self.cursor().saturating_sub(spec.window.saturating_sub(1));
        self.placed[from..].iter().flatten().copied()
    }
}

/// The finished string: one entry per position, `None` where a symbol was dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CyclesString {
    pub alphabet: usize,
    pub window: usize,
    pub cycles: usize,
    pub symbols: Vec<Option<char>>,
}

impl fmt::Display for CyclesString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.symbols.iter().enumerate() {
            if i > 0 && i % self.alphabet == 0 {
                f.write_str("|")?;
            }
            write!(f, "{}", s.unwrap_or('_'))?;
        }
        Ok(())
    }
}

/// One section of the plan: one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// 0-based cycle number.
    pub index: usize,
    /// Position of the cycle's first slot.
    pub start: usize,
    /// Number of slots (the alphabet size).
    pub len: usize,
}

/// The cycles domain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cycles;

impl Domain for Cycles {
    type Spec = CycleSpec;
    type Section = Cycle;
    type Event = Symbol;
    type State = CycleState;
    type Artefact = CyclesString;
    type Location = Slot;
    type Amendment = NoAmendment;

    fn name(&self) -> &str {
        "cycles"
    }

    fn plan(&self, spec: &CycleSpec) -> Result<Vec<Cycle>, PlanError> {
        if !(2..=26).contains(&spec.alphabet) {
            return Err(PlanError::new(format!(
                "alphabet size {} is outside 2..=26",
                spec.alphabet
            )));
        }
        if spec.window > spec.alphabet {
            return Err(PlanError::new(format!(
                "a window of {} cannot be kept with only {} symbols",
                spec.window, spec.alphabet
            )));
        }
        Ok((0..spec.cycles)
            .map(|index| Cycle {
                index,
                start: index * spec.alphabet,
                len: spec.alphabet,
            })
            .collect())
    }

    fn initial_state(&self, _spec: &CycleSpec) -> CycleState {
        CycleState::default()
    }

    fn accept(&self, state: &mut CycleState, _section: &Cycle, event: &Symbol) {
        state.placed.push(Some(event.symbol));
    }

    fn skip(&self, state: &mut CycleState, _section: &Cycle, _event: &Symbol) {
        state.placed.push(None);
    }

    fn locate(&self, section: &Cycle, event: &Symbol) -> Slot {
        // A mis-tagged symbol is located by the slot it claims, which may lie
        // outside its cycle; slot 0 then means "before the cycle".
        Slot {
            cycle: section.index + 1,
            slot: (event.position + 1).saturating_sub(section.start),
        }
    }

    fn finish(&self, spec: &CycleSpec, state: CycleState) -> CyclesString {
        CyclesString {
            alphabet: spec.alphabet,
            window: spec.window,
            cycles: spec.cycles,
            symbols: state.placed,
        }
    }
}

impl Assemble for Cycles {
    fn assemble(&self, spec: &CycleSpec, events: Vec<Symbol>) -> CyclesString {
        let len = spec.alphabet * spec.cycles;
        let mut symbols = vec![None; len];
        for e in events {
            if let Some(slot) = symbols.get_mut(e.position) {
                *slot = Some(e.symbol);
            }
        }
        CyclesString {
            alphabet: spec.alphabet,
            window: spec.window,
            cycles: spec.cycles,
            symbols,
        }
    }
}
