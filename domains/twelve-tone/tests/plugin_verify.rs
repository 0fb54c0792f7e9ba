//! The registered verifier judges a score in memory (Python's `cantus.verify(score)`)
//! exactly as it judges the file the score was read from (`cantus verify FILE`), and
//! keeps the domain's own error as the cause of a refusal.

use cantus_music::Score;
use cantus_registry::{Args, Verify};
use cantus_twelve_tone::plugin::verify::{VerifyError, VerifyTwelveTone};
use std::path::{Path, PathBuf};

fn args(given: &[(&str, &str)]) -> Args {
    let given = given
        .iter()
        .map(|(n, v)| ((*n).to_owned(), Some((*v).into())));
    Args::parse(VerifyTwelveTone.options(), "twelve-tone", given, &[]).unwrap()
}

fn webern() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt")
}

#[test]
fn a_score_in_memory_gets_the_verdict_of_its_file() {
    let path = webern();
    let score = cantus_music::format::read_path(&path, false).unwrap().score;
    let cases: [&[(&str, &str)]; 3] = [&[], &[("mode", "relaxed")], &[("row", "Webern Op. 21")]];
    for given in cases {
        let a = args(given);
        let by_file = VerifyTwelveTone.verify(&path, false, &a).unwrap();
        let by_score = VerifyTwelveTone
            .verify_score(&score, &path.display().to_string(), &a)
            .unwrap();
        assert_eq!(by_score.json, by_file.json, "{given:?}");
        assert_eq!(by_score.lines, by_file.lines, "{given:?}");
        assert_eq!(by_score.passed, by_file.passed);
    }
}

#[test]
fn a_refusal_keeps_the_domains_own_error() {
    let e = VerifyTwelveTone
        .verify_score(&Score::default(), "x", &args(&[("row", "Mozart K. 331")]))
        .unwrap_err();
    let cause = e.cause().and_then(|c| c.downcast_ref::<VerifyError>());
    assert!(matches!(cause, Some(VerifyError::Row(_))), "{e}");
    assert!(e.message().starts_with("--row: "), "{e}");
}
