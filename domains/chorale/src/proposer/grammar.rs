//! The model's constraint: the voicings of one beat that the rules admit and from
//! which the phrase can still be finished — the rules, never the answer.
//!
//! Every alto, tenor and bass the textbook's shape allows under the soprano (each
//! part in its range, the parts in order, soprano–alto and alto–tenor within an
//! octave: under the strict profile those three rules are hard, so this is every
//! voicing they admit) is pushed as the next beat and judged by every hard moment
//! rule of the profile. Of those that pass, the ones from which the phrase can
//! provably no longer reach its cadence (and one beat beyond) are dropped, in
//! three steps, each only for what the one before left undecided:
//!
//! 1. a bounded search ([`Completer`], [`COMPLETION_NODES`] beats per voicing)
//!    finds a way to the cadence, or shows that none of the ways it tries (the
//!    vocabulary's best voicings at each beat) gets there;
//! 2. a voicing it could not decide is tried against every voicing of the shape
//!    at the next beat ([`continues`]): if each breaks a hard rule, it is a dead
//!    end one beat on, proven whatever the budget;
//! 3. what is still undecided gets a deeper search ([`DEEP_NODES`] beats), while
//!    the offer's budget for those lasts ([`DEEP_TOTAL`] beats).
//!
//! Why: a voicing the first search cannot decide in its budget stays offered,
//! and a dead end a few beats away hides behind the many ways on that each fail
//! later. The null model walked into one on BWV 269 (alto and tenor G♯4 under
//! the soprano's held A4, three beats before the end) and was refused two beats
//! later; the deeper search finds within 600 beats that none of the ways it
//! tries from there reaches the end. Step 2 is the guarantee that no voicing is
//! offered whose next beat has no clean voicing at all; it is cheap, because the
//! first search already shows most such dead ends in one beat (on the null
//! model's runs over eight chorales it found none the first had missed). A
//! voicing still undecided stays: the grammar never narrows the model's choice
//! beyond what is shown. Steps 1 and 3 show a dead end among the voicings the
//! search tries, step 2 among every voicing of the shape. Dead ends three or
//! more beats deep — typically a final cadence under a held last melody note,
//! judged only at the last beat — are mostly beyond these budgets.
//!
//! The cost per beat, at most: one push and judgement per voicing of the shape
//! (up to about 3,000), [`COMPLETION_NODES`] search beats per voicing the rules
//! admit, one push and judgement per voicing of the next beat's shape for each
//! undecided one (nearest first, stopping at the first that passes), and
//! [`DEEP_TOTAL`] search beats (about a second in a release build). Measured on
//! a loaded 2-core VM, release build: the offers along Bach's lower parts of four
//! chorales took 1.11 times as long as with the first search alone, along the
//! null model's path on BWV 269 1.21 times.
//!
//! Where every voicing is shown a dead end by the searches, those that can still
//! go one beat further are offered (finding them costs a check of step 2 per
//! voicing the rules admit — seconds at worst, and only at a dead end). Where none
//! can, or none passes at this beat at all, there is no way on from what is
//! written: the proposer says so ([`ProposerError::NoWayOn`]) and the engine steps
//! back a beat ([`Budget::backtracks`]), the voicing it withdraws there a dead end
//! the offer never names again ([`ChState::dead`]). So a dead end deeper than these
//! searches see costs steps back, never a refusal the rules could have avoided. A
//! refused voicing (a patch) is not offered again while another remains.
//!
//! [`ProposerError::NoWayOn`]: cantus_framework::ProposerError::NoWayOn
//! [`Budget::backtracks`]: cantus_framework::Budget::backtracks
//! [`ChState::dead`]: crate::domain::ChState::dead
//!
//! What the model chooses among them — chord, inversion, doubling, spacing — is
//! its own; the prompt advises, the grammar only rules out.

use super::search::{Completer, Task};
use crate::analysis::Analysis;
use crate::domain::{Voicing, pop_voicing, push_voicing, with_voicing};
use crate::pitch::{Part, Tone};
use crate::rules::{self, Profile};
use cantus_framework::model::gbnf_literal;

/// The beats the completion search may visit for one offered voicing.
pub(crate) const COMPLETION_NODES: usize = 60;

/// The beats a second, deeper search may visit for one voicing the first left
/// undecided.
pub(crate) const DEEP_NODES: usize = 600;

/// The beats all the deeper searches of one offer may visit together.
pub(crate) const DEEP_TOTAL: usize = 3_000;

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

/// Whether the next beat of `a` has a voicing of the textbook's shape that breaks
/// no hard rule of `profile` (true at the last beat): at most one push and one
/// judgement per voicing of [`shaped`], stopping at the first that passes. The
/// voicings nearest the last beat's are tried first (a clean one is usually
/// near); only a dead end costs them all.
pub(crate) fn continues(a: &mut Analysis, profile: Profile) -> bool {
    let mut unbounded = usize::MAX;
    continues_within(a, profile, &mut unbounded) != Some(false)
}

/// The voicings an offer made where the loop came back from a dead end may push and
/// judge to show that what it offers leads on ([`leads_on`]): a few seconds in a
/// release build. What the budget leaves unshown stays offered.
const LEADS_ON_JUDGEMENTS: usize = 60_000;

/// Whether the next beat of `a` has a voicing the rules admit from which the beat
/// after it [`continues`] — that the offer there would not be a dead end — judging
/// at most `budget` voicings (spent from it): `None` when it ran out first. Asked
/// only where the loop came back from a dead end.
fn leads_on(a: &mut Analysis, profile: Profile, budget: &mut usize) -> Option<bool> {
    let b = a.beats.len();
    if b >= a.total() {
        return Some(true);
    }
    for v in shaped(a, b) {
        *budget = budget.checked_sub(1)?;
        if !push_voicing(a, &v) {
            continue;
        }
        let on = if rules::breaks_hard(a, b, profile) {
            Some(false)
        } else {
            continues_within(a, profile, budget)
        };
        pop_voicing(a);
        match on {
            Some(true) => return Some(true),
            None => return None,
            Some(false) => {}
        }
    }
    Some(false)
}

/// [`continues`], judging at most `budget` voicings (spent from it), the nearest to
/// the last beat written first: `None` when it ran out first.
fn continues_within(a: &mut Analysis, profile: Profile, budget: &mut usize) -> Option<bool> {
    let b = a.beats.len();
    if b >= a.total() {
        return Some(true);
    }
    let mut next = shaped(a, b);
    if let Some(last) = b.checked_sub(1).and_then(|p| written(a, p)) {
        let away = |v: &Voicing| {
            v.tones()
                .iter()
                .zip(last.tones().iter())
                .map(|((_, x), (_, y))| u32::from(x.midi.abs_diff(y.midi)))
                .sum::<u32>()
        };
        next.sort_by_key(away);
    }
    for v in &next {
        *budget = budget.checked_sub(1)?;
        if with_voicing(a, v, |a| !rules::breaks_hard(a, b, profile)) {
            return Some(true);
        }
    }
    Some(false)
}

/// The lower parts of `a` at beat `b`, if written.
fn written(a: &Analysis, b: usize) -> Option<Voicing> {
    let c = &a.chorale;
    let at = c.beat_start(a.number_of(b));
    let tone = |p: Part| c.note_at(p, at).map(|n| c.parts[p.index()][n].tone);
    Some(Voicing {
        beat: b,
        alto: tone(Part::Alto)?,
        tenor: tone(Part::Tenor)?,
        bass: tone(Part::Bass)?,
    })
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

/// What the grammar offers at the next beat of `task.base`, never one of `dead`
/// (shown dead ends there: the loop stepped back from them); `None` where there is
/// no way on — every voicing the rules admit at this beat is one of `dead` or leaves
/// the next beat none they admit.
pub(crate) fn offer(
    task: &Task<'_>,
    refused: Option<Voicing>,
    dead: &[Voicing],
    profile: Profile,
) -> Option<Offer> {
    let mut a = task.base.clone();
    let b = a.beats.len();
    if b >= a.total() {
        return Some(Offer::default());
    }
    let mut admitted = shaped(&a, b);
    admitted.retain(|v| {
        !dead.contains(v) && with_voicing(&mut a, v, |a| !rules::breaks_hard(a, b, profile))
    });
    // Every voicing not known to be a dead end (a search that ran out of budget
    // rules nothing out); where every one is, those that can still go one beat
    // further, else what the rules admit at this beat; else, at a dead end, every
    // voicing of the shape (the grammar then keeps the answer's form, the ladder
    // the rules).
    let mut completer = Completer::new(task);
    let mut verdicts: Vec<Option<bool>> = Vec::with_capacity(admitted.len());
    for v in &admitted {
        let mut verdict = Some(false);
        if push_voicing(&mut a, v) {
            verdict = completer.completable(&a, COMPLETION_NODES);
            pop_voicing(&mut a);
        }
        verdicts.push(verdict);
    }
    // The undecided: a dead end at the very next beat is proven by trying every
    // voicing of its shape; the rest get a deeper search while the offer's budget
    // for them lasts.
    let mut deep = DEEP_TOTAL;
    for (v, verdict) in admitted.iter().zip(verdicts.iter_mut()) {
        if verdict.is_some() || !push_voicing(&mut a, v) {
            continue;
        }
        if !continues(&mut a, profile) {
            *verdict = Some(false);
        } else if deep >= DEEP_NODES {
            *verdict = completer.completable(&a, DEEP_NODES);
            deep -= completer.visited();
        }
        pop_voicing(&mut a);
    }
    let mut open: Vec<Voicing> = admitted
        .iter()
        .zip(&verdicts)
        .filter(|(_, verdict)| **verdict != Some(false))
        .map(|(v, _)| *v)
        .collect();
    if open.is_empty() {
        open = admitted
            .iter()
            .copied()
            .filter(|v| with_voicing(&mut a, v, |a| continues(a, profile)))
            .collect();
    }
    // Back here from a dead end: what is offered must leave the next beat a way on
    // (a voicing the rules admit that itself goes one beat further), or the loop
    // would step back here once for every voicing the dead end lies behind.
    if !dead.is_empty() {
        let mut budget = LEADS_ON_JUDGEMENTS;
        open.retain(|v| {
            with_voicing(&mut a, v, |a| {
                leads_on(a, profile, &mut budget) != Some(false)
            })
        });
    }
    if open.is_empty() {
        return None;
    }
    if open.iter().any(|v| Some(*v) != refused) {
        open.retain(|v| Some(*v) != refused);
    }
    Some(Offer::from_voicings(&open))
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
                let o = offer(&task, None, &[], Profile::Strict).unwrap_or_default();
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
        let o = offer(&task, None, &[], Profile::Strict).unwrap_or_default();
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
        let without = offer(
            &task,
            Some(Voicing { beat: 0, ..refused }),
            &[],
            Profile::Strict,
        )
        .expect("a way on");
        assert!(!admits(&without, &good, false));
        assert_eq!(without.len() + 1, o.len());
    }

    /// The voicings an offer names, at beat `b`.
    fn voicings(o: &Offer, b: usize) -> Vec<Voicing> {
        let tone = |s: &str| {
            let p = cantus_music::Pitch::parse(s).expect("a note");
            Tone {
                midi: p.midi,
                spelling: p.spelling.expect("spelled"),
            }
        };
        let mut out = Vec::new();
        for (alto, tenors) in &o.tree {
            for (tenor, basses) in tenors {
                for bass in basses {
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

    /// `a` with the lower parts of `from` written at beats `0..n`.
    fn prefix(spec: &Harmonisation, from: &Analysis, n: usize) -> Analysis {
        let mut a = spec.open();
        for b in 0..n {
            let v = written(from, b).expect("four parts at every beat");
            assert!(push_voicing(&mut a, &v), "beat {b}");
        }
        a
    }

    /// The offer at the next beat of `a`, under the strict profile.
    fn offered_after(a: &Analysis, cadences: &Arc<Vec<usize>>) -> Offer {
        let b = a.beats.len();
        let task = Task {
            base: a,
            end: super::super::horizon(cadences, b),
            cadences: Arc::clone(cadences),
            profile: Profile::Strict,
        };
        offer(&task, None, &[], Profile::Strict).unwrap_or_default()
    }

    /// Every voicing offered at the next beat of `a` can go on to the beat after
    /// it without breaking a hard rule — unless no voicing the rules admit at
    /// this beat can (a dead end already, where the offer says so by offering
    /// what the rules admit). Returns how many voicings were offered.
    fn assert_every_offered_voicing_goes_on(a: &Analysis, cadences: &Arc<Vec<usize>>) -> usize {
        let b = a.beats.len();
        let o = offered_after(a, cadences);
        let mut x = a.clone();
        for v in voicings(&o, b) {
            assert!(push_voicing(&mut x, &v));
            let onward = continues(&mut x, Profile::Strict);
            pop_voicing(&mut x);
            if onward {
                continue;
            }
            let any = shaped(&x, b).iter().any(|w| {
                with_voicing(&mut x, w, |x| {
                    !rules::breaks_hard(x, b, Profile::Strict) && continues(x, Profile::Strict)
                })
            });
            assert!(
                !any,
                "beat {b}: {} {} {} is offered, but every voicing of beat {} after it breaks a hard rule",
                v.alto,
                v.tenor,
                v.bass,
                b + 1
            );
        }
        o.len()
    }

    /// The null model's path through BWV 269 (a fixture: the melody, the phrase
    /// ends of its fermatas, and the lower parts it wrote before it was refused).
    fn bwv269_null() -> (Harmonisation, Analysis) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/proposer/bwv269-null-dead-end.txt");
        let loaded = cantus_music::format::read_path(&path, false).expect("fixture");
        let options = ReadOptions {
            phrase_ends: Some(
                ["5:2", "8:2", "11:2", "15:2", "19:2"]
                    .iter()
                    .map(|m| m.parse().expect("mark"))
                    .collect(),
            ),
            ..ReadOptions::default()
        };
        let reading = read_chorale(&loaded.score, &options).expect("a chorale");
        let spec = Harmonisation::of("bwv269-null", &reading.chorale);
        (spec, Analysis::new(reading.chorale))
    }

    /// Issue 27: the null model chose, at bar 21 beat 2 of BWV 269, alto and tenor
    /// G♯4 under the soprano's held A4 — a voicing from which the completion
    /// search finds no way to the end among those it tries, but only with more
    /// than its first budget, so it was offered. Two beats on, under the
    /// soprano's G4, every voicing broke a hard rule and the run was refused. It
    /// is no longer offered, and the voicing the model took after it has no clean
    /// continuation at all.
    #[test]
    fn the_null_models_dead_end_on_bwv269_is_not_offered() {
        let (spec, null) = bwv269_null();
        let cadences = Arc::new(spec.cadence_beats());
        assert_eq!(*cadences, vec![11, 20, 29, 41, 53, 62], "the fermatas");
        let a = prefix(&spec, &null, 59);
        let chosen = written(&null, 59).expect("written");
        assert_eq!(
            (chosen.alto.to_string(), chosen.tenor.to_string()),
            ("G#4".to_owned(), "G#4".to_owned())
        );
        let o = offered_after(&a, &cadences);
        assert!(!o.is_empty());
        assert!(
            !voicings(&o, 59).contains(&chosen),
            "the dead end is offered"
        );
        // The beat after: the voicing the model took there leaves nothing clean.
        let mut b = prefix(&spec, &null, 61);
        assert!(!rules::breaks_hard(&b, 60, Profile::Strict));
        assert!(!continues(&mut b, Profile::Strict));
    }

    /// Where no voicing the rules admit goes on, the offer says there is no way on
    /// (the engine then steps back); a voicing the loop stepped back from is never
    /// offered again at its beat, and back there what is offered leaves the next
    /// beat a way on.
    #[test]
    fn no_way_on_is_said_and_dead_ends_are_not_offered_again() {
        let (spec, null) = bwv269_null();
        let cadences = Arc::new(spec.cadence_beats());
        fn task_after<'a>(a: &'a Analysis, cadences: &Arc<Vec<usize>>) -> Task<'a> {
            Task {
                base: a,
                end: super::super::horizon(cadences, a.beats.len()),
                cadences: Arc::clone(cadences),
                profile: Profile::Strict,
            }
        }
        let stuck = prefix(&spec, &null, 61);
        assert!(offer(&task_after(&stuck, &cadences), None, &[], Profile::Strict).is_none());

        let a = prefix(&spec, &null, 56);
        let o = offer(&task_after(&a, &cadences), None, &[], Profile::Strict).expect("a way on");
        let all = voicings(&o, 56);
        let dead = vec![all[0], all[all.len() / 2]];
        let back =
            offer(&task_after(&a, &cadences), None, &dead, Profile::Strict).expect("a way on");
        let offered = voicings(&back, 56);
        assert!(!offered.is_empty());
        assert!(offered.iter().all(|v| !dead.contains(v)));
        let mut x = a.clone();
        let mut budget = usize::MAX;
        for v in &offered {
            assert!(with_voicing(&mut x, v, |x| {
                leads_on(x, Profile::Strict, &mut budget) == Some(true)
            }));
        }
    }

    /// Along the null model's path up to its dead end, every voicing offered can
    /// go one beat further.
    #[test]
    fn every_voicing_offered_on_the_null_models_path_goes_on_a_beat() {
        let (spec, null) = bwv269_null();
        let cadences = Arc::new(spec.cadence_beats());
        for b in [0, 11, 12, 29, 41, 53, 56, 57, 58, 59] {
            let a = prefix(&spec, &null, b);
            assert!(assert_every_offered_voicing_goes_on(&a, &cadences) > 0);
        }
    }

    /// The shared Bach chorales (`$CANTUS_SHARED`, default `<workspace>/../shared`).
    fn shared_chorales(what: &str) -> Option<std::path::PathBuf> {
        let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            std::path::PathBuf::from,
        );
        let dir = dir.join("data/corpus/bach_chorales");
        if dir.is_dir() {
            return Some(dir);
        }
        let msg = format!("SKIPPED: {what} (shared data not found; set CANTUS_SHARED)");
        assert!(
            std::env::var("CANTUS_REQUIRE_SHARED").as_deref() != Ok("1"),
            "{msg}"
        );
        eprintln!("{msg}");
        None
    }

    /// On the first four shared chorales (those of the chorale experiment), after
    /// Bach's own lower parts up to a beat, every voicing offered there can go one
    /// beat further.
    #[test]
    fn every_voicing_offered_after_bachs_beats_goes_on_a_beat() {
        let Some(dir) = shared_chorales("offers after Bach's beats") else {
            return;
        };
        let (tasks, _) = crate::experiment::tasks(&dir, 4).expect("the chorales");
        for t in &tasks {
            let cadences = Arc::new(t.spec.cadence_beats());
            let total = t.spec.open().total();
            for b in [1, total / 3, total / 2, total - 3] {
                let a = prefix(&t.spec, &t.bach, b);
                assert_every_offered_voicing_goes_on(&a, &cadences);
            }
        }
    }
}

/// The time the offers of whole chorales take (not a check: run it by name, in a
/// release build, to compare versions of the grammar).
#[cfg(test)]
mod timing {
    use super::*;
    use std::sync::Arc;

    /// Each offer along Bach's lower parts of the first four shared chorales (and
    /// along the null model's path on BWV 269 in the fixture), timed.
    #[test]
    #[ignore = "a measurement: cargo test --release -p cantus-chorale --lib timing -- --ignored --nocapture"]
    fn offer_time_on_whole_chorales() {
        let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
            std::path::PathBuf::from,
        );
        let Ok((tasks, _)) = crate::experiment::tasks(&dir.join("data/corpus/bach_chorales"), 4)
        else {
            eprintln!("SKIPPED: offer timing (shared data not found; set CANTUS_SHARED)");
            return;
        };
        let mut all = std::time::Duration::ZERO;
        for t in &tasks {
            let cadences = Arc::new(t.spec.cadence_beats());
            let mut a = t.spec.open();
            let (mut sum, mut worst, mut offered) = (std::time::Duration::ZERO, 0.0f64, 0);
            while a.beats.len() < a.total() {
                let b = a.beats.len();
                let task = Task {
                    base: &a,
                    end: crate::proposer::horizon(&cadences, b),
                    cadences: Arc::clone(&cadences),
                    profile: Profile::Strict,
                };
                let clock = std::time::Instant::now();
                offered += offer(&task, None, &[], Profile::Strict)
                    .unwrap_or_default()
                    .len();
                let took = clock.elapsed();
                sum += took;
                worst = worst.max(took.as_secs_f64());
                let c = &t.bach.chorale;
                let at = c.beat_start(t.bach.number_of(b));
                let tone = |p: Part| c.note_at(p, at).map(|n| c.parts[p.index()][n].tone);
                let (Some(alto), Some(tenor), Some(bass)) =
                    (tone(Part::Alto), tone(Part::Tenor), tone(Part::Bass))
                else {
                    break;
                };
                let v = Voicing {
                    beat: b,
                    alto,
                    tenor,
                    bass,
                };
                if !push_voicing(&mut a, &v) {
                    break;
                }
            }
            all += sum;
            eprintln!(
                "TIMING {}: {} beats, offers {:.2} s in all, {:.0} ms at worst, {offered} voicings offered",
                t.id,
                a.beats.len(),
                sum.as_secs_f64(),
                worst * 1000.0
            );
        }
        eprintln!("TIMING all: {:.2} s", all.as_secs_f64());
    }
}
