//! The model's constraint: the voicings of one beat that the rules admit and from
//! which the phrase can still be finished — the rules, never the answer.
//!
//! Every alto, tenor and bass the textbook's shape allows under the soprano (each
//! part in its range, the parts in order, soprano–alto and alto–tenor within an
//! octave: under the strict profile those three rules are hard, so this is every
//! voicing they admit) is pushed as the next beat and judged by every hard moment
//! rule of the profile. Of those that pass, a bounded search ([`Completer`],
//! [`COMPLETION_NODES`] beats) drops the ones from which it proves the phrase can
//! no longer reach its cadence, and one beat beyond; a voicing it could not decide
//! within its budget stays (the grammar never narrows the model's choice beyond
//! what the rules prove). Where every voicing is a proven dead end, all that pass
//! at this beat are offered, and where none does, every voicing of the shape (the
//! answer keeps its form; the ladder then repairs). A refused voicing (a patch) is
//! not offered again while another remains.
//! What the model chooses among them — chord, inversion, doubling, spacing — is
//! its own; the prompt advises, the grammar only rules out.

use super::search::{Completer, Task};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing};
use crate::pitch::{Part, Tone};
use crate::rules::{self, Profile};
use cantus_framework::model::gbnf_literal;

/// The beats the completion search may visit for one offered voicing.
pub(crate) const COMPLETION_NODES: usize = 60;

/// A tenor offered and the basses that may go with it.
type Tenor = (String, Vec<String>);

/// The voicings offered at a beat, as a tree: each alto with the tenors that may
/// go with it, each tenor with its basses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Offer {
    pub tree: Vec<(String, Vec<Tenor>)>,
}

impl Offer {
    /// How many voicings it offers.
    pub fn len(&self) -> usize {
        self.tree
            .iter()
            .flat_map(|(_, ts)| ts.iter().map(|(_, bs)| bs.len()))
            .sum()
    }

    /// Whether it offers nothing (then the model is asked without a constraint).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn from_voicings(voicings: &[Voicing]) -> Offer {
        let mut tree: Vec<(String, Vec<Tenor>)> = Vec::new();
        for v in voicings {
            let (a, t, b) = (v.alto.to_string(), v.tenor.to_string(), v.bass.to_string());
            let altos = match tree.iter().position(|(x, _)| *x == a) {
                Some(i) => i,
                None => {
                    tree.push((a, Vec::new()));
                    tree.len() - 1
                }
            };
            let tenors = &mut tree[altos].1;
            let k = match tenors.iter().position(|(x, _)| *x == t) {
                Some(k) => k,
                None => {
                    tenors.push((t, Vec::new()));
                    tenors.len() - 1
                }
            };
            tenors[k].1.push(b);
        }
        Offer { tree }
    }
}

/// Every voicing of the textbook's shape under the soprano of beat `b` (the next
/// beat of `a`), spelled in the key.
pub(crate) fn shaped(a: &Analysis, b: usize) -> Vec<Voicing> {
    let c = &a.chorale;
    let key = c.key;
    let start = c.beat_start(a.number_of(b));
    let soprano = c
        .note_at(Part::Soprano, start)
        .map(|n| c.parts[0][n].tone.midi);
    let (alo, ahi) = Part::Alto.range();
    let (tlo, thi) = Part::Tenor.range();
    let (blo, bhi) = Part::Bass.range();
    let (alo, ahi) = match soprano {
        Some(s) => (alo.max(s.saturating_sub(12)), ahi.min(s)),
        None => (alo, ahi),
    };
    let tone = |m: u8| -> Tone { key.tone(m) };
    let mut out = Vec::new();
    for alto in alo..=ahi {
        for tenor in tlo.max(alto.saturating_sub(12))..=thi.min(alto) {
            for bass in blo..=bhi.min(tenor) {
                out.push(Voicing {
                    beat: b,
                    alto: tone(alto),
                    tenor: tone(tenor),
                    bass: tone(bass),
                });
            }
        }
    }
    out
}

/// What the grammar offers at the next beat of `task.base`.
pub(crate) fn offer(task: &Task<'_>, refused: Option<Voicing>, profile: Profile) -> Offer {
    let mut a = task.base.clone();
    let b = a.beats.len();
    if b >= a.total() {
        return Offer::default();
    }
    let mut admitted = Vec::new();
    for v in shaped(&a, b) {
        if push_voicing(&mut a, &v) {
            if !rules::breaks_hard(&a, b, profile) {
                admitted.push(v);
            }
            pop_voicing(&mut a);
        }
    }
    let mut completer = Completer::new(task);
    // Every voicing not known to be a dead end (a search that ran out of budget
    // rules nothing out); where every one is, what the rules admit at this beat;
    // else, at a dead end, every voicing of the shape (the grammar then keeps the
    // answer's form, the ladder the rules).
    let mut open: Vec<Voicing> = Vec::new();
    for v in &admitted {
        if push_voicing(&mut a, v) {
            if completer.completable(&a, COMPLETION_NODES) != Some(false) {
                open.push(*v);
            }
            pop_voicing(&mut a);
        }
    }
    if open.is_empty() {
        open = if admitted.is_empty() {
            shaped(&a, b)
        } else {
            admitted
        };
    }
    if open.iter().any(|v| Some(*v) != refused) {
        open.retain(|v| Some(*v) != refused);
    }
    Offer::from_voicings(&open)
}

/// The GBNF grammar of an answer naming an offered alto, tenor and bass.
pub(crate) fn grammar(offer: &Offer) -> String {
    let mut g = String::from("root ::= ");
    let altos: Vec<String> = (0..offer.tree.len()).map(|i| format!("a{i}")).collect();
    g.push_str(&altos.join(" | "));
    g.push('\n');
    for (i, (alto, tenors)) in offer.tree.iter().enumerate() {
        let heads: Vec<String> = (0..tenors.len()).map(|k| format!("t{i}x{k}")).collect();
        g.push_str(&format!(
            "a{i} ::= {} \" \" ({})\n",
            gbnf_literal(alto),
            heads.join(" | ")
        ));
        for (k, (tenor, basses)) in tenors.iter().enumerate() {
            let bs: Vec<String> = basses.iter().map(|b| gbnf_literal(b)).collect();
            g.push_str(&format!(
                "t{i}x{k} ::= {} \" \" ({})\n",
                gbnf_literal(tenor),
                bs.join(" | ")
            ));
        }
    }
    g
}

/// Whether `text` is what [`grammar`] admits (cut off at the token limit: a prefix
/// of it), so that a server ignoring the grammar is recorded as not honouring it.
pub(crate) fn admits(offer: &Offer, text: &str, truncated: bool) -> bool {
    let tokens: Vec<&str> = text.split(' ').collect();
    if tokens.len() > 3 || (!truncated && tokens.len() != 3) {
        return false;
    }
    let last = tokens.len() - 1;
    let fits = |k: usize, t: &str, name: &str| {
        name == t || (truncated && k == last && name.starts_with(t))
    };
    let Some((_, tenors)) = offer.tree.iter().find(|(a, _)| fits(0, tokens[0], a)) else {
        return false;
    };
    let Some(tenor) = tokens.get(1) else {
        return true;
    };
    if !tenors.iter().any(|(t, _)| fits(1, tenor, t)) {
        return false;
    }
    let Some(bass) = tokens.get(2) else {
        return true;
    };
    tenors
        .iter()
        .filter(|(t, _)| t == tenor)
        .any(|(_, basses)| basses.iter().any(|b| fits(2, bass, b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Harmonisation;
    use crate::read::{ReadOptions, read_chorale};
    use std::sync::Arc;

    /// The melody of a fixture (its phrase ends given as the fixture says).
    pub(crate) fn melody(name: &str) -> Harmonisation {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name);
        let loaded = cantus_music::format::read_path(&path, false).expect("fixture");
        let options = ReadOptions {
            phrase_ends: Some(vec!["1:4".parse().expect("mark")]),
            ..ReadOptions::default()
        };
        let reading = read_chorale(&loaded.score, &options).expect("a chorale");
        Harmonisation::of(name, &reading.chorale)
    }

    fn pick(o: &Offer, how: usize, text: &mut String) -> Voicing {
        let choose = |n: usize| match how {
            0 => 0,
            1 => n - 1,
            _ => n / 2,
        };
        let (a, tenors) = &o.tree[choose(o.tree.len())];
        let (t, basses) = &tenors[choose(tenors.len())];
        let b = &basses[choose(basses.len())];
        *text = format!("{a} {t} {b}");
        let tone = |s: &str| {
            let p = cantus_music::Pitch::parse(s).expect("a note");
            Tone {
                midi: p.midi,
                spelling: p.spelling.expect("spelled"),
            }
        };
        Voicing {
            beat: 0,
            alto: tone(a),
            tenor: tone(t),
            bass: tone(b),
        }
    }

    /// Whatever a model writes inside the grammar, beat by beat, it cannot write
    /// itself into a dead end: taking always the first, the last or a middle
    /// voicing offered ends in a chorale the strict gate releases.
    #[test]
    fn every_chorale_the_grammar_admits_beat_by_beat_is_released() {
        let spec = melody("rules/pass-ornamented.txt");
        let cadences = Arc::new(spec.cadence_beats());
        for how in 0..3 {
            let mut a = spec.open();
            while a.beats.len() < a.total() {
                let b = a.beats.len();
                let task = Task {
                    base: &a,
                    end: super::super::horizon(&cadences, b),
                    cadences: Arc::clone(&cadences),
                    profile: Profile::Strict,
                };
                let o = offer(&task, None, Profile::Strict);
                assert!(!o.is_empty(), "pick {how}: nothing offered at beat {b}");
                let mut text = String::new();
                let v = Voicing {
                    beat: b,
                    ..pick(&o, how, &mut text)
                };
                assert!(admits(&o, &text, false), "{text}");
                assert!(push_voicing(&mut a, &v));
                assert!(
                    !rules::breaks_hard(&a, b, Profile::Strict),
                    "pick {how}: the offered {text} breaks a hard rule at beat {b}"
                );
            }
            let score = crate::domain::score_of(&spec, a.chorale.clone());
            let report =
                crate::gate::HarmonisationGate(Profile::Strict).judge_harmonisation(&spec, &score);
            assert!(report.passed, "pick {how}: {:#?}", report.violations);
        }
    }

    /// The honoured check accepts exactly what the grammar admits.
    #[test]
    fn a_reply_honours_the_grammar_only_if_the_grammar_admits_it() {
        let spec = melody("rules/pass.txt");
        let cadences = Arc::new(spec.cadence_beats());
        let a = spec.open();
        let task = Task {
            base: &a,
            end: 2,
            cadences,
            profile: Profile::Strict,
        };
        let o = offer(&task, None, Profile::Strict);
        let mut good = String::new();
        pick(&o, 0, &mut good);
        assert!(admits(&o, &good, false));
        assert!(!admits(&o, &good.to_lowercase(), false));
        assert!(!admits(&o, &good.replace(' ', ", "), false));
        let two: Vec<&str> = good.split(' ').take(2).collect();
        assert!(!admits(&o, &two.join(" "), false));
        assert!(admits(&o, &two.join(" "), true), "a cut-off prefix");
        assert!(!admits(&o, "C2 C2 C2", false));
        let g = grammar(&o);
        assert!(g.starts_with("root ::= a0"), "{g}");
        assert_eq!(
            g.matches(" ::= ").count(),
            1 + o.tree.len() + o.tree.iter().map(|t| t.1.len()).sum::<usize>()
        );
        // A refused voicing is not offered again.
        let refused = pick(&o, 0, &mut good);
        let without = offer(&task, Some(Voicing { beat: 0, ..refused }), Profile::Strict);
        assert!(!admits(&without, &good, false));
        assert_eq!(without.len() + 1, o.len());
    }
}
