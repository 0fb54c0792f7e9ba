//! Every shared Bach chorale read and judged under both profiles, with the
//! counts asserted against the figures in the crate's README (between the
//! `<!-- bach:begin -->` and `<!-- bach:end -->` markers): how many chorales pass
//! each profile, how often each rule is broken and in how many chorales, how the
//! phrases end. A change to a rule that moves a figure fails here and prints the
//! table as it now is, for the README.
//!
//! Needs `$CANTUS_SHARED` (default `<workspace>/../shared`); without it the test
//! prints `SKIPPED: ...` and passes, unless `CANTUS_REQUIRE_SHARED=1`.

use cantus_chorale::rules::{self, CATALOGUE, CadenceKind};
use cantus_chorale::{PhraseSource, Profile, ReadOptions, judge_score};
use cantus_music::format::read_path;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        PathBuf::from,
    );
    if dir.join("data/corpus/bach_chorales").is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "SKIPPED: {what} (shared data not found at {}; set CANTUS_SHARED)",
        dir.display()
    );
    if std::env::var("CANTUS_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!("{msg}");
    }
    eprintln!("{msg}");
    None
}

/// What the corpus gives, in the README's words.
#[derive(Debug, Default, PartialEq, Eq)]
struct Figures {
    chorales: usize,
    phrases: usize,
    beats: usize,
    passed: BTreeMap<&'static str, usize>,
    /// Rule id → (violations, chorales breaking it).
    rules: BTreeMap<String, (usize, usize)>,
    /// Cadence kind (`none` for no cadence) → phrases.
    cadences: BTreeMap<&'static str, usize>,
}

impl Figures {
    /// The README block these figures make: the catalogue with Bach's counts, the
    /// passes per profile, the cadences.
    fn render(&self) -> String {
        let mut out = String::from("<!-- bach:begin -->\n");
        out.push_str(&format!(
            "{} chorales, {} phrases, {} beats. Passed: ",
            self.chorales, self.phrases, self.beats
        ));
        let passed: Vec<String> = Profile::ALL
            .iter()
            .map(|p| {
                format!(
                    "{} under {p}",
                    self.passed.get(p.as_str()).copied().unwrap_or(0)
                )
            })
            .collect();
        out.push_str(&passed.join(", "));
        out.push_str(".\n\n| rule | strict | lenient | what it requires | violations | chorales |\n|---|---|---|---|---|---|\n");
        for rule in CATALOGUE {
            let (n, files) = self.rules.get(rule.id.as_str()).copied().unwrap_or((0, 0));
            let sev = |p: Profile| match p.severity(rule) {
                cantus_framework::Severity::Hard => "hard",
                cantus_framework::Severity::Soft => "soft",
            };
            out.push_str(&format!(
                "| `{}` | {} | {} | {} | {n} | {files} |\n",
                rule.id,
                sev(Profile::Strict),
                sev(Profile::Lenient),
                rule.summary
            ));
        }
        out.push_str("\n| phrase ending | phrases |\n|---|---|\n");
        for (k, n) in &self.cadences {
            out.push_str(&format!("| {k} | {n} |\n"));
        }
        out.push_str("<!-- bach:end -->");
        out
    }
}

#[test]
fn every_bach_chorale_is_read_and_judged_as_the_readme_says() {
    let Some(shared) = shared_dir("the Bach chorales under the chorale rules") else {
        return;
    };
    let dir = shared.join("data/corpus/bach_chorales");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest JSON");
    let items = manifest["items"].as_array().expect("items");
    let mut figures = Figures {
        chorales: items.len(),
        ..Figures::default()
    };
    for item in items {
        let file = item["musicxml_file"].as_str().expect("a MusicXML file");
        let loaded = read_path(&dir.join(file), false).unwrap_or_else(|e| panic!("{file}: {e}"));
        for profile in Profile::ALL {
            let options = ReadOptions {
                profile,
                ..ReadOptions::default()
            };
            let (report, reading, analysis) =
                judge_score(&loaded.score, &options).unwrap_or_else(|e| panic!("{file}: {e}"));
            if report.passed {
                *figures.passed.entry(profile.as_str()).or_default() += 1;
            }
            if profile != Profile::Strict {
                continue;
            }
            assert_eq!(
                reading.phrase_source,
                PhraseSource::Fermatas,
                "{file}: the phrase ends come from its fermatas"
            );
            assert!(report.unlisted.is_empty(), "{file}: every violation listed");
            figures.beats += analysis.total();
            figures.phrases += reading.chorale.phrase_ends.len();
            let mut seen = BTreeSet::new();
            for v in &report.violations {
                let e = figures.rules.entry(v.predicate.to_string()).or_default();
                e.0 += 1;
                if seen.insert(v.predicate) {
                    e.1 += 1;
                }
            }
            for c in rules::cadences(&analysis) {
                let kind = c.kind.map_or("none", CadenceKind::as_str);
                *figures.cadences.entry(kind).or_default() += 1;
            }
        }
    }
    let readme =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .expect("README.md");
    let block = readme
        .split_once("<!-- bach:begin -->")
        .and_then(|(_, rest)| rest.split_once("<!-- bach:end -->"))
        .map(|(inner, _)| format!("<!-- bach:begin -->{inner}<!-- bach:end -->"))
        .expect("the README holds a bach:begin … bach:end block");
    let now = figures.render();
    assert!(
        block == now,
        "the README's Bach figures are out of date; they are now:\n\n{now}\n"
    );
}
