//! The grammar's offers checked on hand-made fixtures, on the null model's path
//! through BWV 269 and after Bach's own beats.

use super::*;
use crate::domain::Harmonisation;
use crate::read::{ReadOptions, read_chorale};
use std::sync::Arc;

/// Whether the next beat of `a` has a voicing of the textbook's shape that breaks
/// no hard rule of `profile` (true at the last beat): [`goes_on`] one beat deep,
/// without a budget.
pub(crate) fn continues(a: &mut Analysis, profile: Profile) -> bool {
    let mut unbounded = usize::MAX;
    goes_on(a, profile, 1, &mut unbounded) != Some(false)
}

/// Whether `a` can be written `depth` beats further (or to its last beat, if
/// nearer) breaking no hard rule of `profile`, judging at most `budget` voicings:
/// the plain exhaustive search over every voicing of the shape, without the memo
/// of [`Prover`] and without ruling out a part by a motion rule ([`moving`]) —
/// the tests' check of its proofs.
pub(crate) fn goes_on(
    a: &mut Analysis,
    profile: Profile,
    depth: usize,
    budget: &mut usize,
) -> Option<bool> {
    let b = a.beats.len();
    if depth == 0 || b >= a.total() {
        return Some(true);
    }
    for v in &proof::by_distance(a, b, shaped(a, b)) {
        *budget = budget.checked_sub(1)?;
        if !push_voicing(a, v) {
            continue;
        }
        let on = if rules::breaks_hard(a, b, profile) {
            Some(false)
        } else {
            goes_on(a, profile, depth - 1, budget)
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

/// A fixture read as a chorale, its first phrase ending at bar 1 beat 4.
fn fixture_chorale(name: &str) -> crate::Chorale {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let loaded = cantus_music::format::read_path(&path, false).expect("fixture");
    let options = ReadOptions {
        phrase_ends: Some(vec!["1:4".parse().expect("mark")]),
        ..ReadOptions::default()
    };
    read_chorale(&loaded.score, &options)
        .expect("a chorale")
        .chorale
}

/// The melody of a fixture (its phrase ends given as the fixture says).
pub(crate) fn melody(name: &str) -> Harmonisation {
    Harmonisation::of(name, &fixture_chorale(name))
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
    let o = offer(&task, None, &[], Profile::Strict, &Proofs::default()).unwrap_or_default();
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
        &Proofs::default(),
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
    offer(&task, None, &[], Profile::Strict, &Proofs::default()).unwrap_or_default()
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
/// G♯4 under the soprano's held A4; two beats on, under the soprano's G4, every
/// voicing broke a hard rule — a dead end three beats deep, which the offer's
/// two-beat proofs cannot show (two beats on from it there is still a way). It
/// was offered while the last phrase's proofs to its end had only their own
/// budget; with what the two-beat proofs leave they show it, and it is not
/// offered. Where the dead end is reached, the offer says there is no way on.
#[test]
fn a_dead_end_three_beats_before_the_end_is_not_offered() {
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
    assert!(!voicings(&o, 59).contains(&chosen));
    // A dead end indeed: an exhaustive search without a budget finds no way on.
    let mut known = Knowledge::new(62, Profile::Strict);
    let mut fresh = Prover::new(Profile::Strict, &cadences, 62, usize::MAX, &mut known);
    let mut x = a.clone();
    assert!(with_voicing(&mut x, &chosen, |x| fresh.reaches(x) == Some(false)));
    // Not two beats deep: two beats on from it there is a way.
    let mut x = prefix(&spec, &null, 60);
    let mut budget = TWO_BEAT_JUDGEMENTS;
    assert_eq!(goes_on(&mut x, Profile::Strict, 2, &mut budget), Some(true));
    // The beat after the model's next voicing: nothing clean.
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
    assert!(
        offer(
            &task_after(&stuck, &cadences),
            None,
            &[],
            Profile::Strict,
            &Proofs::default()
        )
        .is_none()
    );

    let a = prefix(&spec, &null, 56);
    let o = offer(
        &task_after(&a, &cadences),
        None,
        &[],
        Profile::Strict,
        &Proofs::default(),
    )
    .expect("a way on");
    let all = voicings(&o, 56);
    let dead = vec![all[0], all[all.len() / 2]];
    let back = offer(
        &task_after(&a, &cadences),
        None,
        &dead,
        Profile::Strict,
        &Proofs::default(),
    )
    .expect("a way on");
    let offered = voicings(&back, 56);
    assert!(!offered.is_empty());
    assert!(offered.iter().all(|v| !dead.contains(v)));
    let mut x = a.clone();
    for v in &offered {
        assert!(with_voicing(&mut x, v, |x| continues(x, Profile::Strict)));
    }
}

/// The grammar never narrows the model's choice beyond the rules: every voicing
/// the hard rules admit at a beat and the grammar leaves out is a dead end, proven
/// again here by an exhaustive search without a budget (and a memo of its own),
/// along the null model's path through BWV 269 and up to its dead end — the
/// offers made as a run makes them, on what its proofs learnt before.
#[test]
fn nothing_is_dropped_without_a_proof() {
    let (spec, null) = bwv269_null();
    let cadences = Arc::new(spec.cadence_beats());
    let mut dropped = 0;
    // One run's proofs throughout, as the loop has them: each offer draws on
    // what the offers before it proved, and after a step back (to beat 57 again)
    // on what the offers further on proved.
    let proofs = Proofs::default();
    for b in [0, 12, 41, 56, 57, 58, 59, 57] {
        let a = prefix(&spec, &null, b);
        let task = Task {
            base: &a,
            end: super::super::horizon(&cadences, b),
            cadences: Arc::clone(&cadences),
            profile: Profile::Strict,
        };
        let o = offer(&task, None, &[], Profile::Strict, &proofs).unwrap_or_default();
        let offered = voicings(&o, b);
        let mut x = a.clone();
        for v in shaped(&a, b) {
            let admitted = with_voicing(&mut x, &v, |x| !rules::breaks_hard(x, b, Profile::Strict));
            if !admitted || offered.contains(&v) {
                continue;
            }
            dropped += 1;
            let goal = super::super::horizon(&cadences, b);
            let mut known = Knowledge::new(goal, Profile::Strict);
            let mut fresh = Prover::new(Profile::Strict, &cadences, goal, usize::MAX, &mut known);
            let proof = with_voicing(&mut x, &v, |x| fresh.reaches(x) == Some(false));
            assert!(
                proof,
                "beat {b}: {} {} {} is admitted and left out without a proof",
                v.alto, v.tenor, v.bass
            );
        }
    }
    assert!(dropped > 0, "the path has dead ends the grammar shows");
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
    // Early in a phrase every voicing offered is decided: the offer is exact.
    assert_eq!(
        offered_after(&prefix(&spec, &null, 12), &cadences).undecided,
        0
    );
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

/// The memo merges only prefixes the rules judge alike: on the null model's path
/// through BWV 269, for voicings the rules admit, the memoised search to two beats
/// on agrees with the plain exhaustive search, live and dead alike.
#[test]
fn the_memoised_proof_agrees_with_the_plain_search() {
    let (spec, null) = bwv269_null();
    let cadences = Arc::new(spec.cadence_beats());
    let (mut live, mut dead) = (0, 0);
    for b in [9, 12, 18, 19, 57, 59] {
        let a = prefix(&spec, &null, b);
        let mut x = a.clone();
        let admitted: Vec<Voicing> = shaped(&a, b)
            .into_iter()
            .filter(|v| with_voicing(&mut x, v, |x| !rules::breaks_hard(x, b, Profile::Strict)))
            .collect();
        let mut known = Knowledge::new(b + 2, Profile::Strict);
        let mut prover = Prover::new(Profile::Strict, &cadences, b + 2, usize::MAX, &mut known);
        for v in admitted.iter().step_by(3) {
            let (mut memo, mut plain) = (None, None);
            with_voicing(&mut x, v, |x| {
                memo = prover.reaches(x);
                let mut unbounded = usize::MAX;
                plain = goes_on(x, Profile::Strict, 2, &mut unbounded);
                true
            });
            assert_eq!(memo, plain, "beat {b}: {} {} {}", v.alto, v.tenor, v.bass);
            if plain == Some(true) {
                live += 1
            } else {
                dead += 1
            }
        }
    }
    assert!(live > 0 && dead > 0, "{live} live, {dead} dead");
}

/// The memo's state says all the rules can still read: wherever two prefixes
/// leave the same state, every voicing of the next beat is judged alike after
/// both, and leaves the same state again — so a verdict found after one holds
/// after the other, however deep. Checked on prefixes written along the null
/// model's path through BWV 269 up to two beats before a beat, then two beats of
/// voicings the rules admit (before and at cadences, under held notes).
#[test]
fn prefixes_in_one_state_are_judged_alike() {
    let (spec, null) = bwv269_null();
    let cadences = Arc::new(spec.cadence_beats());
    let mut pairs = 0;
    for n in [9, 11, 12, 19, 20, 21, 30, 41, 42, 58] {
        let mut a = prefix(&spec, &null, n - 2);
        let mut seen: std::collections::HashMap<_, (Voicing, Voicing)> = Default::default();
        let mut collisions = Vec::new();
        for v1 in admitted(&mut a, shaped).into_iter().step_by(4) {
            assert!(push_voicing(&mut a, &v1));
            for v2 in admitted(&mut a, shaped).into_iter().step_by(3) {
                assert!(push_voicing(&mut a, &v2));
                match seen.entry(proof::state(&a, &cadences)) {
                    std::collections::hash_map::Entry::Occupied(e) if collisions.len() < 12 => {
                        collisions.push((*e.get(), (v1, v2)));
                    }
                    std::collections::hash_map::Entry::Occupied(_) => {}
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert((v1, v2));
                    }
                }
                pop_voicing(&mut a);
            }
            pop_voicing(&mut a);
        }
        for ((p1, p2), (q1, q2)) in collisions {
            pairs += 1;
            assert_judged_alike(&a, &[p1, p2], &[q1, q2], &cadences);
        }
    }
    assert!(pairs > 20, "{pairs} prefixes sharing a state compared");
}

/// The voicings of `shape` at the next beat of `x` that break no hard rule.
fn admitted(x: &mut Analysis, shape: fn(&Analysis, usize) -> Vec<Voicing>) -> Vec<Voicing> {
    let b = x.beats.len();
    shape(x, b)
        .into_iter()
        .filter(|v| with_voicing(x, v, |x| !rules::breaks_hard(x, b, Profile::Strict)))
        .collect()
}

/// After `a` and the voicings `p`, and after `a` and `q` (which leave one state),
/// every voicing of the shape at the next beat is judged alike and leaves one
/// state again.
fn assert_judged_alike(a: &Analysis, p: &[Voicing], q: &[Voicing], cadences: &[usize]) {
    let (mut x, mut y) = (a.clone(), a.clone());
    assert!(p.iter().all(|v| push_voicing(&mut x, v)));
    assert!(q.iter().all(|v| push_voicing(&mut y, v)));
    assert_eq!(proof::state(&x, cadences), proof::state(&y, cadences));
    let n = x.beats.len();
    for w in shaped(&x, n) {
        let judged = |z: &mut Analysis| {
            let mut verdict = None;
            with_voicing(z, &w, |z| {
                let clean = !rules::breaks_hard(z, n, Profile::Strict);
                verdict = Some((clean, clean.then(|| proof::state(z, cadences))));
                true
            });
            verdict
        };
        assert_eq!(
            judged(&mut x),
            judged(&mut y),
            "beat {n}: after {p:?} and {q:?} (one state), {w:?} is judged apart"
        );
    }
}

/// Of a phrase's chords before its last two beats the state keeps only those its
/// cadence may still take as the chord before its last: so prefixes three beats
/// long that differ in the chord of their first beat share a state — and are
/// judged alike after it. Checked on the null model's path through BWV 269 before
/// three of its cadences.
#[test]
fn prefixes_apart_in_chords_no_cadence_reads_share_a_state() {
    let (spec, null) = bwv269_null();
    let cadences = Arc::new(spec.cadence_beats());
    let mut merged = 0;
    for n in [40, 52, 60] {
        let mut a = prefix(&spec, &null, n - 3);
        let mut seen: std::collections::HashMap<_, [Voicing; 3]> = Default::default();
        let mut collisions = Vec::new();
        for v0 in admitted(&mut a, moving_strict).into_iter().step_by(23) {
            assert!(push_voicing(&mut a, &v0));
            for v1 in admitted(&mut a, moving_strict).into_iter().step_by(23) {
                assert!(push_voicing(&mut a, &v1));
                for v2 in admitted(&mut a, moving_strict).into_iter().step_by(5) {
                    assert!(push_voicing(&mut a, &v2));
                    let chord = a.beats[n - 3].chord;
                    match seen.entry(proof::state(&a, &cadences)) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            let p = *e.get();
                            if collisions.len() < 8 && p[0] != v0 {
                                collisions.push((p, [v0, v1, v2], chord));
                            }
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            e.insert([v0, v1, v2]);
                        }
                    }
                    pop_voicing(&mut a);
                }
                pop_voicing(&mut a);
            }
            pop_voicing(&mut a);
        }
        for (p, q, chord) in collisions {
            let mut x = a.clone();
            assert!(p.iter().all(|v| push_voicing(&mut x, v)));
            merged += usize::from(x.beats[n - 3].chord != chord);
            assert_judged_alike(&a, &p, &q, &cadences);
        }
    }
    assert!(
        merged > 3,
        "{merged} prefixes apart in a chord sharing a state"
    );
}

fn moving_strict(a: &Analysis, b: usize) -> Vec<Voicing> {
    moving(a, b, Profile::Strict)
}

/// The part-by-part check rules out nothing the hard rules admit: at every beat
/// of the null model's path through BWV 269, and after each voicing the rules
/// admit at some of them (where parts are jammed), under both profiles, every
/// voicing of the shape that breaks no hard rule is among those [`moving`]
/// leaves — which, under the strict profile, are fewer than half the shape's.
#[test]
fn the_part_by_part_check_rules_out_nothing_the_rules_admit() {
    let (spec, null) = bwv269_null();
    let (mut shape, mut kept) = (0, 0);
    let mut check = |x: &mut Analysis, profile: Profile| {
        let b = x.beats.len();
        let all = shaped(x, b);
        let moving = moving(x, b, profile);
        if profile == Profile::Strict {
            shape += all.len();
            kept += moving.len();
        }
        for v in &all {
            let admitted = with_voicing(x, v, |x| !rules::breaks_hard(x, b, profile));
            assert!(
                !admitted || moving.contains(v),
                "beat {b} ({profile}): {} {} {} is admitted but ruled out part by part",
                v.alto,
                v.tenor,
                v.bass
            );
        }
    };
    // A whole chorale (the rules' clean base, to its final cadence), its own
    // lower parts written up to each beat.
    let (base, whole) = written_fixture("rules/pass.txt");
    let mut final_beat = 0;
    for profile in Profile::ALL {
        for n in 0..null.beats.len().min(61) {
            let mut a = prefix(&spec, &null, n);
            check(&mut a, profile);
            if n % 12 == 11 {
                for v in shaped(&a, n).iter().step_by(97) {
                    if push_voicing(&mut a, v) {
                        check(&mut a, profile);
                        pop_voicing(&mut a);
                    }
                }
            }
        }
        for n in 0..whole.beats.len() {
            let mut a = prefix(&base, &whole, n);
            check(&mut a, profile);
            if a.phrase_end_at(n) == Some(whole.chorale.phrase_ends.len() - 1) {
                final_beat += 1;
                // Bass and chord: the tonic triad over the tonic.
                assert!(moving(&a, n, Profile::Strict).len() * 20 < shaped(&a, n).len());
                // And after other voicings of the beat before that the rules admit.
                let mut x = prefix(&base, &whole, n - 1);
                for v in shaped(&x, n - 1).iter().step_by(7) {
                    let clean = with_voicing(&mut x, v, |x| !rules::breaks_hard(x, n - 1, profile));
                    if clean && push_voicing(&mut x, v) {
                        check(&mut x, profile);
                        pop_voicing(&mut x);
                    }
                }
            }
        }
    }
    assert!(kept * 2 < shape, "strict: {kept} of {shape} kept");
    assert_eq!(
        final_beat, 2,
        "the final cadence's beat checked under both profiles"
    );
}

/// A four-part fixture: its melody (phrase ends as [`melody`] gives them) and the
/// whole chorale, lower parts and all.
fn written_fixture(name: &str) -> (Harmonisation, Analysis) {
    let chorale = fixture_chorale(name);
    (Harmonisation::of(name, &chorale), Analysis::new(chorale))
}
