//! The registered verifier judges a score in memory (Python's `cantus.verify(score,
//! domain="counterpoint")`) exactly as it judges the file the score was read from.

use cantus_counterpoint::plugin::verify::VerifyCounterpoint;
use cantus_registry::{Args, Verify};
use std::path::Path;

/// Flags by name, `None` for a switch.
type Given<'a> = &'a [(&'a str, Option<&'a str>)];

fn args(given: Given<'_>) -> Args {
    let given = given
        .iter()
        .map(|(n, v)| ((*n).to_owned(), v.map(Into::into)));
    Args::parse(VerifyCounterpoint.options(), "counterpoint", given, &[]).unwrap()
}

#[test]
fn a_score_in_memory_gets_the_verdict_of_its_file() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let cases: [(&str, Given<'_>); 3] = [
        ("fux/fig05-dorian-above.txt", &[]),
        (
            "fux/fig05-dorian-above.txt",
            &[
                ("species", Some("1")),
                ("above", None),
                ("profile", Some("lenient")),
            ],
        ),
        ("rules/fs-p-parallel-perfect.txt", &[]),
    ];
    for (file, given) in cases {
        let path = fixtures.join(file);
        let a = args(given);
        let score = cantus_music::format::read_path(&path, false).unwrap().score;
        let by_file = VerifyCounterpoint.verify(&path, false, &a).unwrap();
        let by_score = VerifyCounterpoint
            .verify_score(&score, &path.display().to_string(), &a)
            .unwrap();
        assert_eq!(by_score.json, by_file.json, "{file} {given:?}");
        assert_eq!(by_score.lines, by_file.lines, "{file} {given:?}");
    }
}
