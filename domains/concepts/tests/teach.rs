//! `teach` with the embedded proposers: twelve-tone and counterpoint concepts
//! end in released examples, and each released example is confirmed again by
//! the domain's own verifier (the strict serial gate or the species gate) and
//! by the concept's challenge; it differs from the worked example shown.
//! Hand-altered pieces show that the challenges fail where the device is
//! missing, and say where. The domains' concepts come with the domains: this
//! test links twelve-tone and counterpoint, and the catalogue finds them.

use cantus_concepts::{Answerer, Catalogue, TeachError, TeachOptions, teach};
use cantus_counterpoint::{ReadOptions, judge_score};
use cantus_libretto::workflow::teach::Challenge;
use cantus_libretto::workflow::{Outcome, Run};
use cantus_libretto::{Calibration, GateId};
use cantus_music::Score;
use cantus_twelve_tone::gate::{GateMode, SerialGate};
use cantus_twelve_tone::plugin::teach::CanonCheck;

fn catalogue() -> &'static Catalogue {
    Catalogue::shipped().expect("the linked domains' catalogues and Cantus's own read")
}

fn options() -> TeachOptions<'static> {
    TeachOptions {
        table: Calibration::original(),
        references: None,
        rounds: 8,
        seed: 0,
    }
}

async fn lesson(id: &str) -> (Run, Score) {
    let concept = catalogue().find(id).expect("in the catalogue");
    let run = teach(concept, Answerer::Embedded, &options())
        .await
        .expect("the lesson starts");
    let Outcome::Released { piece, .. } = &run.outcome else {
        panic!("{id} was not released:\n{}", run.text());
    };
    let piece = piece.clone();
    (run, piece)
}

/// The released example meets the challenge again, and the novelty gate saw
/// it differ from the worked example.
fn confirm(id: &str, run: &Run, piece: &Score) {
    let concept = catalogue().find(id).unwrap();
    let checked = concept
        .challenge(Calibration::original())
        .unwrap()
        .check(piece);
    assert!(checked.met, "{id}: {}", checked.found);
    let last = run.rounds.last().and_then(|r| r.verdict.as_ref()).unwrap();
    let gates: Vec<GateId> = last.gates.iter().map(|g| g.gate).collect();
    assert_eq!(gates, [GateId::Challenge, GateId::Novelty], "{id}");
    let overlap = last.measures["overlap_with_shown"].as_f64().unwrap();
    assert!(
        overlap < 0.5,
        "{id}: overlap with the worked example {overlap}"
    );
    assert!(
        run.setup.iter().any(|l| l.starts_with("worked example")),
        "{:?}",
        run.setup
    );
}

fn serial_gate_passes(piece: &Score) {
    let report = SerialGate::inferring(GateMode::Strict).judge_score(piece);
    assert!(report.passed, "{:?}", report.violations.first());
}

#[tokio::test]
async fn twelve_tone_concepts_are_released_and_the_serial_gate_confirms_them() {
    for id in [
        "inversion-canon",
        "canon-at-the-fifth",
        "hexachordal-combinatoriality",
        "all-interval-row",
    ] {
        let (run, piece) = lesson(id).await;
        serial_gate_passes(&piece);
        confirm(id, &run, &piece);
        assert_eq!(run.author, "embedded:twelve-tone");
    }
}

#[tokio::test]
async fn counterpoint_concepts_are_released_and_the_species_gate_confirms_them() {
    for (id, species) in [
        ("passing-tones", 2),
        ("contrary-motion", 1),
        ("imperfect-consonances", 1),
    ] {
        let (run, piece) = lesson(id).await;
        let (report, reading) = judge_score(&piece, &ReadOptions::default()).unwrap();
        assert!(report.passed, "{id}: {:?}", report.hard().next());
        assert_eq!(reading.exercise.species.number(), species, "{id}");
        confirm(id, &run, &piece);
        assert_eq!(run.author, "embedded:counterpoint");
    }
}

#[tokio::test]
async fn a_tonal_concept_is_a_models_task_and_says_so() {
    let concept = catalogue().find("syncopation").unwrap();
    let err = teach(concept, Answerer::Embedded, &options())
        .await
        .unwrap_err();
    assert_eq!(err, TeachError::NoEmbeddedAuthor("syncopation".into()));
    assert!(err.to_string().contains("give --config FILE"), "{err}");
}

#[tokio::test]
async fn the_canon_check_fails_where_the_follower_strays() {
    let (_, piece) = lesson("inversion-canon").await;
    let concept = catalogue().find("inversion-canon").unwrap();
    let challenge = concept.challenge(Calibration::original()).unwrap();
    // Move the follower's fifth note by a semitone: no longer a row statement,
    // so the serial gate refuses it before the canon is looked at.
    let mut strayed = piece.clone();
    let follower = strayed
        .voices
        .iter_mut()
        .find(|v| v.name == "Bass")
        .unwrap();
    follower.events[4].pitches[0].midi += 1;
    let checked = challenge.check(&strayed);
    assert!(!checked.met);
    assert!(
        checked.found.contains("strict twelve-tone gate"),
        "{}",
        checked.found
    );
    // The same piece checked for a canon at two bars: serial, but not that canon.
    let two_bars = CanonCheck {
        delay_bars: 2,
        transpose: None,
    };
    let checked = two_bars.check(&piece);
    assert!(!checked.met, "{}", checked.found);
    assert!(
        checked
            .found
            .contains("Bass after Soprano: it enters 4 quarter notes after the leader, not 8"),
        "{}",
        checked.found
    );
    // And it is no transposed canon either.
    let fifth = CanonCheck {
        delay_bars: 1,
        transpose: Some(7),
    };
    let checked = fifth.check(&piece);
    assert!(!checked.met, "{}", checked.found);
    assert!(
        checked
            .found
            .contains("Bass after Soprano: statement 1 is I"),
        "{}",
        checked.found
    );
    assert!(
        checked.found.contains("which does not answer P"),
        "{}",
        checked.found
    );
    // What the released canon was found to be.
    let found = challenge.check(&piece).found;
    assert!(
        found.starts_with("Bass answers Soprano in all 3 statements (P"),
        "{found}"
    );
}

#[tokio::test]
async fn species_challenges_count_on_the_exercise_the_gate_read() {
    // The released first-species example has no weak beats at all: read as
    // second species it is not an exercise, so the passing-tone challenge fails.
    let (_, first) = lesson("contrary-motion").await;
    let passing = catalogue().find("passing-tones").unwrap();
    let checked = passing
        .challenge(Calibration::original())
        .unwrap()
        .check(&first);
    assert!(!checked.met, "{}", checked.found);
    // And an all-interval row is not what a canon's default row is.
    let (_, canon) = lesson("inversion-canon").await;
    let all_interval = catalogue().find("all-interval-row").unwrap();
    let checked = all_interval
        .challenge(Calibration::original())
        .unwrap()
        .check(&canon);
    assert!(!checked.met);
    assert!(checked.found.starts_with("the row "), "{}", checked.found);
}

#[test]
fn the_catalogue_holds_each_linked_domains_concepts_then_cantus_own() {
    let c = catalogue();
    let of = |domain: &str| {
        c.concepts
            .iter()
            .filter(|k| k.domain().is_some_and(|d| d.as_str() == domain))
            .map(|k| k.id.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        of("twelve-tone"),
        [
            "inversion-canon",
            "canon-at-the-fifth",
            "hexachordal-combinatoriality",
            "all-interval-row"
        ]
    );
    assert_eq!(
        of("counterpoint"),
        ["passing-tones", "contrary-motion", "imperfect-consonances"]
    );
    let own: Vec<&str> = c
        .concepts
        .iter()
        .filter(|k| !k.embedded())
        .map(|k| k.id.as_str())
        .collect();
    assert_eq!(
        own,
        [
            "syncopation",
            "stepwise-melody",
            "chromatic-colour",
            "repetition-and-return",
            "triplet-feel"
        ]
    );
    assert!(
        c.concepts[c.concepts.len() - own.len()..]
            .iter()
            .all(|k| !k.embedded()),
        "the domains' concepts come first"
    );
    let err = c.find("fugue").unwrap_err().to_string();
    assert!(
        err.starts_with("no concept `fugue`") && err.contains("passing-tones"),
        "{err}"
    );
}

#[test]
fn a_domain_catalogue_entry_is_read_by_that_domain() {
    let id = cantus_registry::DomainId::new("counterpoint");
    let entry = |challenge: &str, example: &str| {
        format!(
            "[[concept]]\nid = \"c\"\nlevel = \"beginner\"\ntitle = \"t\"\nwhat = \"w\"\nchallenge = {challenge}\nexample = {example}\n"
        )
    };
    let good = entry(
        "{ kind = \"contrary-motion\", min_share = 0.5 }",
        "{ species = 1, modes = [\"dorian\", \"lydian\"], position = \"above\" }",
    );
    let read = Catalogue::from_domain_toml(&good, "cp.toml", &id).unwrap();
    assert_eq!(read.concepts[0].domain(), Some(&id));
    for (text, why) in [
        (
            good.replace("min_share", "min_shar"),
            "cp.toml: concept `c`: challenge: unknown field `min_shar`, expected `min_share`",
        ),
        (
            good.replace("0.5", "1.5"),
            "cp.toml: concept `c`: challenge: share 1.5 is outside 0–1",
        ),
        (
            good.replace("dorian", "locrian"),
            "cp.toml: concept `c`: example: no mode `locrian`",
        ),
        (
            good.replace("species = 1", "species = 4"),
            "cp.toml: concept `c`: no species 4: Cantus writes the first and the second",
        ),
        (
            good.replace(
                "contrary-motion\", min_share = 0.5",
                "passing-tones\", min = 1, consecutive = 1",
            ),
            "cp.toml: concept `c`: challenge: passing tones are a second-species device, the example is first species",
        ),
    ] {
        let err = Catalogue::from_domain_toml(&text, "cp.toml", &id)
            .unwrap_err()
            .to_string();
        assert_eq!(err, why);
    }
    let brief = "[[concept]]\nid = \"s\"\nlevel = \"beginner\"\ntitle = \"t\"\nwhat = \"w\"\n\
                 challenge = { kind = \"all-interval-row\" }\nexample = { brief = \"a piece for ninety voices\" }\n";
    let err = Catalogue::from_domain_toml(
        brief,
        "tt.toml",
        &cantus_registry::DomainId::new("twelve-tone"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("tt.toml: concept `s`: example: brief `a piece for ninety voices`"),
        "{err}"
    );
}
