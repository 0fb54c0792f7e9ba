//! The grammar a constrained model is held to: which note names each slot of a
//! request may take. Only what the verifier could accept is offered, and, for the
//! request's first two slots, only what still leads to a cadence the gate releases —
//! a small model cannot write itself into a dead end. `admits` says whether a reply
//! is what the grammar admits, so a server that ignored it is recorded as such.

use crate::exercise::{Beat, Exercise, Moment, Position};
use crate::pitch::{Interval, Note};
use cantus_framework::model::gbnf_literal;

/// The notes the grammar offers at `slot` after the accepted notes of `ex`, lowest
/// first: inside the counterpoint's range (the embedded search's: above, from the
/// cantus's lowest note to a tenth over its highest; below, mirrored), on its own
/// side of that bar's cantus note, usable in the mode there (the cadence's ficta
/// in the penultimate bar), and on a downbeat a consonance with the cantus (no
/// unison but in the first and last bars). At the request's first slot (`first`),
/// where the notes before are known, a note that would break a hard moment rule
/// (parallel perfects, direct motion into one, a dissonant leap …) is not offered
/// either, while some other note remains. So a small model can write only what the
/// verifier could accept, and which side of the cantus it writes on no longer
/// depends on what its tokens happen to favour.
pub(crate) fn offered(ex: &Exercise, (bar, beat): (usize, Beat), first: bool) -> Vec<Note> {
    let notes = in_place(ex, (bar, beat));
    if !first {
        return notes;
    }
    // Clean now, and not a dead end: the slot after it still has a clean note (a
    // counterpoint a third above the cantus before the cantus leaps up past it has
    // none — every next note overlaps — and asking again cannot get out of that).
    let clean: Vec<Note> = notes
        .iter()
        .copied()
        .filter(|&n| {
            let Some(trial) = with(ex, (bar, beat), n) else {
                return false;
            };
            next_slot(ex, (bar, beat)).is_none_or(|next| {
                in_place(&trial, next)
                    .into_iter()
                    .any(|m| with(&trial, next, m).is_some())
            })
        })
        .collect();
    if clean.is_empty() { notes } else { clean }
}

/// The notes [`offered`] at a slot before the rules of motion are asked: range,
/// side, mode, downbeat consonance.
fn in_place(ex: &Exercise, (bar, beat): (usize, Beat)) -> Vec<Note> {
    let Some(&cantus) = ex.cantus.get(bar) else {
        return Vec::new();
    };
    let (lo, hi) = super::range(ex);
    let edge = bar == 0 || ex.is_last_bar(bar);
    (lo..=hi)
        .filter(|&p| match ex.position {
            Position::Above => p >= cantus.midi,
            Position::Below => p <= cantus.midi,
        })
        .filter(|&p| crate::rungs::usable(ex, bar, p % 12))
        .map(|p| ex.modality.note(p))
        .filter(|&n| {
            let (upper, lower) = match ex.position {
                Position::Above => (n, cantus),
                Position::Below => (cantus, n),
            };
            let v = Interval::between(lower, upper);
            beat == Beat::Up || (v.is_consonant() && (edge || v.semitones != 0))
        })
        .collect()
}

/// `ex` with note `n` at `slot` after its accepted notes.
fn placed(ex: &Exercise, (bar, beat): (usize, Beat), n: Note) -> Option<Exercise> {
    let cantus = *ex.cantus.get(bar)?;
    let mut trial = ex.clone();
    trial.moments.push(Moment {
        bar,
        beat,
        onset: Exercise::onset(bar, beat),
        cantus,
        counterpoint: n,
    });
    Some(trial)
}

/// `ex` with note `n` at `slot` after its accepted notes, if that breaks no hard
/// moment rule.
fn with(ex: &Exercise, slot: (usize, Beat), n: Note) -> Option<Exercise> {
    let trial = placed(ex, slot, n)?;
    let i = trial.moments.len() - 1;
    let broken = crate::rules::judge_moment(&trial, i)
        .iter()
        .any(|f| f.is_hard());
    (!broken).then_some(trial)
}

/// The slot after `slot` in the exercise, if any (second species: the upbeat, then
/// the next bar; the last bar holds one whole note).
fn next_slot(ex: &Exercise, (bar, beat): (usize, Beat)) -> Option<(usize, Beat)> {
    let next = match (ex.species, beat) {
        (crate::exercise::Species::Second, Beat::Down) if !ex.is_last_bar(bar) => (bar, Beat::Up),
        _ => (bar + 1, Beat::Down),
    };
    (next.0 < ex.cantus.len()).then_some(next)
}

/// The slots of the exercise after `slot`, to the final.
fn slots_after(ex: &Exercise, slot: (usize, Beat)) -> Vec<(usize, Beat)> {
    std::iter::successors(next_slot(ex, slot), |&s| next_slot(ex, s)).collect()
}

/// Search nodes a completion check may visit; past them the note is offered (the
/// check is a filter for dead ends, never the judge).
const COMPLETION_NODES: usize = 2_000;

/// The `notes` at `slot` from which the rest of the exercise can still reach a
/// cadence the gate releases ([`super::search::completable`]); all of them when
/// none can, so that the model is still asked and the verifier still judges.
fn leading_on(ex: &Exercise, slot: (usize, Beat), notes: Vec<Note>) -> (Vec<Note>, bool) {
    let rest = slots_after(ex, slot);
    let open: Vec<Note> = notes
        .iter()
        .copied()
        .filter(|&n| {
            placed(ex, slot, n).is_none_or(|trial| {
                super::search::completable(&trial, &rest, COMPLETION_NODES) != Some(false)
            })
        })
        .collect();
    if open.is_empty() {
        (notes, false)
    } else {
        (open, true)
    }
}

/// The note names a constrained reply may give. The request's first two slots are
/// a tree — what is clean at the second, and still leads to a releasable cadence,
/// depends on the note before it — and each later slot offers its own notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Offer {
    /// Each note of the first slot with the notes the second may take after it
    /// (empty when the request has one slot). Empty: any note name at both.
    pairs: Vec<(String, Vec<String>)>,
    /// The slots after the second: each its notes (none: any note name).
    later: Vec<Vec<String>>,
    /// How many slots the request asks for.
    slots: usize,
}

impl Offer {
    /// The notes of the first slot.
    fn firsts(&self) -> Vec<String> {
        self.pairs.iter().map(|p| p.0.clone()).collect()
    }

    /// The notes the second slot may take after `first` (none: any note name).
    fn seconds(&self, first: &str) -> &[String] {
        self.pairs
            .iter()
            .find(|p| p.0 == first)
            .map_or(&[][..], |p| &p.1[..])
    }

    /// How much choice the grammar leaves the model: log₂ of the answers it admits
    /// (the first two slots counted as the pairs it offers, later slots each on
    /// its own), over the slots asked for — the figure the experiment's "what the
    /// model decided" section compares with the null model's.
    pub(super) fn choice(&self) -> cantus_framework::Choice {
        let log2 = |n: usize| (n.max(1) as f64).log2();
        let any = log2(ANY_NOTES);
        let width = |names: &[String]| {
            if names.is_empty() {
                any
            } else {
                log2(names.len())
            }
        };
        let head = if self.pairs.is_empty() {
            any * self.slots.min(2) as f64
        } else if self.slots < 2 {
            log2(self.pairs.len())
        } else {
            let answers: usize = self
                .pairs
                .iter()
                .map(|(_, seconds)| {
                    if seconds.is_empty() {
                        ANY_NOTES
                    } else {
                        seconds.len()
                    }
                })
                .sum();
            log2(answers)
        };
        cantus_framework::Choice {
            notes: u32::try_from(self.slots).unwrap_or(u32::MAX),
            bits: head + self.later.iter().map(|names| width(names)).sum::<f64>(),
            // Counterpoint has no plan: every note is the proposer's.
            as_planned: None,
        }
    }
}

/// The note names [`ANY_NOTE`] admits: a letter, an optional accidental, an octave digit.
const ANY_NOTES: usize = 7 * 3 * 10;

/// What the grammar offers for `slots` after the accepted notes of `ex`: the
/// notes [`offered`] at each, the first two only where the exercise can still be
/// finished from them ([`leading_on`]); at the first slot of a patch or rewrite not
/// the `refused` pitch while another remains — a refused note is not asked for again.
pub(super) fn offer(ex: &Exercise, slots: &[(usize, Beat)], refused: Option<u8>) -> Offer {
    let names = |notes: &[Note]| notes.iter().map(ToString::to_string).collect::<Vec<_>>();
    let Some(&first) = slots.first() else {
        return Offer {
            pairs: Vec::new(),
            later: Vec::new(),
            slots: 0,
        };
    };
    let mut firsts = offered(ex, first, true);
    if firsts.iter().any(|n| Some(n.midi) != refused) {
        firsts.retain(|n| Some(n.midi) != refused);
    }
    let (firsts, _) = leading_on(ex, first, firsts);
    let mut pairs: Vec<(String, Vec<String>, bool)> = firsts
        .into_iter()
        .map(|n| match (slots.get(1), placed(ex, first, n)) {
            (Some(&second), Some(trial)) => {
                let (seconds, open) = leading_on(&trial, second, offered(&trial, second, true));
                (n.to_string(), names(&seconds), open)
            }
            _ => (n.to_string(), Vec::new(), true),
        })
        .collect();
    // A first note after which no second note leads on goes, while another remains.
    if pairs.iter().any(|p| p.2) {
        pairs.retain(|p| p.2);
    }
    let later = slots
        .iter()
        .skip(2)
        .map(|&slot| names(&offered(ex, slot, false)))
        .collect();
    Offer {
        pairs: pairs.into_iter().map(|(n, s, _)| (n, s)).collect(),
        later,
        slots: slots.len(),
    }
}

const ANY_NOTE: &str = "[A-G] (\"#\" | \"b\")? [0-9]";

/// A GBNF alternation of `names`, or any note name when there are none.
fn choice(names: &[String]) -> String {
    if names.is_empty() {
        return ANY_NOTE.to_owned();
    }
    names
        .iter()
        .map(|n| gbnf_literal(n))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// The GBNF grammar of an answer naming one note for each slot of `offer`,
/// separated by spaces.
pub(super) fn grammar(offer: &Offer) -> String {
    let mut g = String::from("root ::= head");
    for k in 0..offer.later.len() {
        g.push_str(&format!(" \" \" n{}", k + 2));
    }
    g.push('\n');
    if offer.pairs.is_empty() {
        g.push_str(&format!("head ::= {ANY_NOTE}"));
        if offer.slots > 1 {
            g.push_str(&format!(" \" \" {ANY_NOTE}"));
        }
        g.push('\n');
    } else if offer.slots < 2 {
        g.push_str(&format!("head ::= {}\n", choice(&offer.firsts())));
    } else {
        let heads: Vec<String> = (0..offer.pairs.len()).map(|i| format!("h{i}")).collect();
        g.push_str(&format!("head ::= {}\n", heads.join(" | ")));
        for (i, (first, seconds)) in offer.pairs.iter().enumerate() {
            g.push_str(&format!(
                "h{i} ::= {} \" \" ({})\n",
                gbnf_literal(first),
                choice(seconds)
            ));
        }
    }
    for (k, names) in offer.later.iter().enumerate() {
        g.push_str(&format!("n{} ::= {}\n", k + 2, choice(names)));
    }
    g
}

/// Whether `text` is what [`grammar`] admits (a cut-off reply: a prefix of it),
/// so that a server ignoring the grammar is recorded as not honouring it even
/// when the lenient reader can use the reply.
pub(super) fn admits(offer: &Offer, text: &str, truncated: bool) -> bool {
    let any = |t: &str| {
        let b = t.as_bytes();
        matches!(b.first(), Some(b'A'..=b'G'))
            && match b.len() {
                2 => b[1].is_ascii_digit(),
                3 => matches!(b[1], b'#' | b'b') && b[2].is_ascii_digit(),
                _ => false,
            }
    };
    let tokens: Vec<&str> = text.split(' ').collect();
    if tokens.len() > offer.slots || (!truncated && tokens.len() != offer.slots) {
        return false;
    }
    let last = tokens.len() - 1;
    // A token is whole among `names` (any note when there are none), or, cut off at
    // the token limit, the start of one of them.
    let fits = |k: usize, t: &str, names: &[String]| {
        let whole = if names.is_empty() {
            any(t)
        } else {
            names.iter().any(|n| n == t)
        };
        whole
            || (truncated
                && k == last
                && (names.is_empty() || names.iter().any(|n| n.starts_with(t))))
    };
    if !fits(0, tokens[0], &offer.firsts()) {
        return false;
    }
    if let Some(second) = tokens.get(1)
        && !fits(1, second, offer.seconds(tokens[0]))
    {
        return false;
    }
    tokens
        .iter()
        .enumerate()
        .skip(2)
        .all(|(k, t)| fits(k, t, &offer.later[k - 2]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proposer::model::parse_note;

    /// The choice a request reports is the size of the language its grammar sends,
    /// counted independently (by the null model's counter), for every Fux exercise's
    /// opening request of one, two and four slots.
    #[test]
    fn the_reported_choice_is_the_grammar_s_language() {
        use crate::domain::Assignment;
        use crate::pitch::ModeName;
        use crate::{Cantus, Species};
        for mode in ModeName::ALL {
            for species in [Species::First, Species::Second] {
                let a = Assignment::new(Cantus::fux(mode), species, Position::Above);
                let ex = a.empty_exercise();
                for n in [1, 2, 4] {
                    let o = offer(&ex, &a.slots()[..n], None);
                    let counted = cantus_backend::uniform::Language::new(&grammar(&o))
                        .expect("a finite grammar")
                        .bits();
                    let choice = o.choice();
                    assert_eq!(choice.notes as usize, n);
                    assert!(
                        (choice.bits - counted).abs() < 1e-9,
                        "{mode} species {}: {n} slots report {} bits, the grammar holds {counted}",
                        species.number(),
                        choice.bits
                    );
                    assert!(choice.bits > 0.0, "{mode}: the model has a choice");
                }
            }
        }
    }

    /// The grammar offers, for every Fux exercise, only notes on the counterpoint's
    /// side of the cantus and consonant on downbeats — and never shuts out the
    /// embedded search's textbook line, note by note.
    #[test]
    fn the_grammar_keeps_the_side_and_the_consonances_and_admits_a_textbook_line() {
        use crate::domain::Assignment;
        use crate::pitch::ModeName;
        use crate::{Cantus, Species};
        for mode in ModeName::ALL {
            for position in [Position::Above, Position::Below] {
                for species in [Species::First, Species::Second] {
                    let a = Assignment::new(Cantus::fux(mode), species, position);
                    let what = format!("{mode} {position} species {}", species.number());
                    let mut ex = a.empty_exercise();
                    let line = super::super::complete(&ex, &a.slots(), 7, 0, None);
                    for (k, e) in line.iter().enumerate() {
                        let slot = (e.bar, e.beat);
                        let cantus = ex.cantus[e.bar];
                        let notes = offered(&ex, slot, k == 0);
                        assert!(!notes.is_empty(), "{what}: nothing offered at {slot:?}");
                        for n in &notes {
                            let v = match position {
                                Position::Above => Interval::between(cantus, *n),
                                Position::Below => Interval::between(*n, cantus),
                            };
                            assert!(v.semitones >= 0, "{what}: {n} on the wrong side");
                            if e.beat == Beat::Down {
                                assert!(v.is_consonant(), "{what}: {n} dissonant at {slot:?}");
                            }
                        }
                        assert!(
                            offered(&ex, slot, false).iter().any(|n| n.midi == e.midi),
                            "{what}: the textbook note {} at {slot:?} is shut out",
                            e.midi
                        );
                        ex.moments.push(Moment {
                            bar: e.bar,
                            beat: e.beat,
                            onset: Exercise::onset(e.bar, e.beat),
                            cantus,
                            counterpoint: ex.modality.note(e.midi),
                        });
                    }
                }
            }
        }
        let a = crate::domain::Assignment::new(
            crate::Cantus::fux(crate::pitch::ModeName::Dorian),
            crate::Species::First,
            Position::Below,
        );
        let ex = a.empty_exercise();
        let slots = a.slots();
        let g = grammar(&offer(&ex, &slots[..2], None));
        let first = offered(&ex, slots[0], true);
        let without = grammar(&offer(&ex, &slots[..1], Some(first[0].midi)));
        assert!(
            !without.contains(&format!("\"{}\"", first[0])) || first.len() == 1,
            "a refused note is not offered again: {without}"
        );
        assert!(g.starts_with("root ::= head\nhead ::= h0 | h1"), "{g}");
    }

    /// Whatever a model writes inside the grammar, bar by bar, it cannot write itself
    /// into a dead end: for every Fux exercise, a model that always takes the lowest,
    /// the highest or a middle pair the grammar offers ends with a counterpoint the
    /// gate releases (no hard finding). Without the completion check, several of
    /// these lines end at a cadence no note can finish.
    #[test]
    fn every_line_the_grammar_admits_bar_by_bar_reaches_a_releasable_cadence() {
        use crate::domain::Assignment;
        use crate::pitch::ModeName;
        use crate::{Cantus, Species};
        for mode in ModeName::ALL {
            for position in [Position::Above, Position::Below] {
                for species in [Species::First, Species::Second] {
                    let a = Assignment::new(Cantus::fux(mode), species, position);
                    for pick in [0usize, 1, 2] {
                        let what =
                            format!("{mode} {position} species {} pick {pick}", species.number());
                        let mut ex = a.empty_exercise();
                        let slots = a.slots();
                        let bars = slots.last().map_or(0, |s| s.0 + 1);
                        for bar in 0..bars {
                            let wanted: Vec<_> =
                                slots.iter().copied().filter(|s| s.0 == bar).collect();
                            let o = offer(&ex, &wanted, None);
                            let choose = |n: usize| match pick {
                                0 => 0,
                                1 => n - 1,
                                _ => n / 2,
                            };
                            let (first, seconds) = &o.pairs[choose(o.pairs.len())];
                            let mut names = vec![first.clone()];
                            if wanted.len() > 1 {
                                names.push(seconds[choose(seconds.len())].clone());
                            }
                            for (&slot, name) in wanted.iter().zip(&names) {
                                let (midi, _) = parse_note(name).expect("a note name");
                                let note = ex.modality.note(midi);
                                ex = with(&ex, slot, note).unwrap_or_else(|| {
                                    panic!(
                                        "{what}: the offered {name} at {slot:?} breaks a hard rule"
                                    )
                                });
                            }
                        }
                        let hard: Vec<_> = crate::rules::judge(&ex)
                            .into_iter()
                            .filter(|f| f.is_hard())
                            .collect();
                        assert!(hard.is_empty(), "{what}: {hard:#?}");
                    }
                }
            }
        }
    }

    /// The honoured check accepts exactly what the grammar admits: a server that
    /// ignores the grammar (a note outside a slot's alternatives, commas, lower
    /// case, a missing note) is caught even where the lenient reader reads it.
    #[test]
    fn a_reply_honours_the_grammar_only_if_the_grammar_admits_it() {
        let a = crate::domain::Assignment::new(
            crate::Cantus::fux(crate::pitch::ModeName::Dorian),
            crate::Species::First,
            Position::Above,
        );
        let ex = a.empty_exercise();
        let slots = a.slots();
        let alts = offer(&ex, &slots[..3], None);
        let pick = |k: usize| match k {
            0 => alts.pairs[0].0.clone(),
            1 => alts.pairs[0].1[0].clone(),
            _ => alts.later[k - 2].first().expect("notes offered").clone(),
        };
        let good = format!("{} {} {}", pick(0), pick(1), pick(2));
        assert!(admits(&alts, &good, false), "{good}");
        assert!(!admits(&alts, &format!("{} {}", pick(0), pick(1)), false));
        assert!(admits(&alts, &format!("{} {}", pick(0), pick(1)), true));
        let cut = &pick(1)[..1];
        assert!(admits(&alts, &format!("{} {cut}", pick(0)), true));
        assert!(!admits(
            &alts,
            &format!("{}, {}, {}", pick(0), pick(1), pick(2)),
            false
        ));
        assert!(!admits(&alts, &good.to_lowercase(), false));
        let outside = (0..=11)
            .flat_map(|o| ["C", "D", "E", "F", "G", "A", "B"].map(|l| format!("{l}{o}")))
            .find(|n| alts.pairs.iter().all(|p| &p.0 != n))
            .expect("some note is not offered at the first slot");
        assert!(!admits(
            &alts,
            &format!("{outside} {} {}", pick(1), pick(2)),
            false
        ));
        // The second note must be one offered after the first.
        let other = alts.pairs.iter().find_map(|(f, seconds)| {
            alts.pairs[0]
                .1
                .iter()
                .find(|n| !seconds.contains(n))
                .map(|n| (f.clone(), n.clone()))
        });
        if let Some((f, n)) = other {
            assert!(!admits(&alts, &format!("{f} {n} {}", pick(2)), false));
        }
        let any = Offer {
            pairs: Vec::new(),
            later: Vec::new(),
            slots: 1,
        };
        assert!(admits(&any, "F#4", false));
        assert!(!admits(&any, "H4", false));
    }
}
