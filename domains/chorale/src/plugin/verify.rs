//! `cantus verify --domain chorale FILE`: judge a four-part chorale (a student's,
//! Bach's, a released one) by the strict or the lenient profile.

use crate::gate::judge_score;
use crate::read::{PhraseMark, ReadOptions};
use crate::rules::Profile;
use cantus_music::Score;
use cantus_music::format::read_path;
use cantus_registry::{Args, DomainError, Opt, Verified, Verify};
use std::path::Path;

const OPTIONS: &[Opt] = &[
    Opt::choice(
        "profile",
        "strict|lenient",
        &["strict", "lenient"],
        "Chorale: severities — `strict` (the textbook's prohibitions are hard) or `lenient` (Bach's practice: what he does now and then only warns).",
    )
    .default("strict"),
    Opt::text(
        "phrase-ends",
        "MARKS",
        "Chorale: where the phrases end, comma-separated (`4` = the last soprano note beginning in bar 4, `4:3` = the soprano note sounding at bar 4 beat 3); default: the file's fermatas, else the end.",
    ),
];

/// `cantus verify --domain chorale`: `--profile`, `--phrase-ends`.
pub struct VerifyChorale;

/// The read options `--profile` and `--phrase-ends` give.
pub(super) fn read_options(args: &Args) -> Result<ReadOptions, DomainError> {
    let profile = args
        .text("profile")
        .and_then(Profile::parse)
        .unwrap_or_default();
    let phrase_ends = match args.text("phrase-ends") {
        None => None,
        Some(text) => Some(
            text.split(',')
                .map(|m| {
                    m.trim()
                        .parse::<PhraseMark>()
                        .map_err(|e| DomainError::new(format!("--phrase-ends {text:?}: {e}")))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    Ok(ReadOptions {
        profile,
        phrase_ends,
        ..ReadOptions::default()
    })
}

impl Verify for VerifyChorale {
    fn options(&self) -> &'static [Opt] {
        OPTIONS
    }

    fn verify(&self, file: &Path, lenient: bool, args: &Args) -> Result<Verified, DomainError> {
        let loaded = read_path(file, lenient).map_err(DomainError::new)?;
        let warnings = loaded.warnings.iter().map(ToString::to_string).collect();
        judged(&loaded.score, &file.display().to_string(), warnings, args)
    }

    fn verify_score(
        &self,
        score: &Score,
        source: &str,
        args: &Args,
    ) -> Result<Verified, DomainError> {
        judged(score, source, Vec::new(), args)
    }
}

/// The verdict on `score` (read from `source`), as `cantus verify` prints it.
fn judged(
    score: &Score,
    source: &str,
    warnings: Vec<String>,
    args: &Args,
) -> Result<Verified, DomainError> {
    let options = read_options(args)?;
    let (report, reading, analysis) = judge_score(score, &options)
        .map_err(|e| DomainError::new(format!("{source}: not a four-part chorale: {e}")))?;
    let json = serde_json::json!({
        "file": source,
        "passed": report.passed,
        "gate": report.gate,
        "events": score.event_count(),
        "violations": report.violations.iter().map(|v| v.flat()).collect::<Vec<_>>(),
        "unlisted": report.unlisted,
        "facts": report.facts,
    });
    let c = &reading.chorale;
    let head = format!(
        "{} in {}, {}, {} beats, {} phrase{}",
        c.title.as_deref().unwrap_or("chorale"),
        c.key.name(),
        c.meter,
        analysis.total(),
        c.phrase_ends.len(),
        if c.phrase_ends.len() == 1 { "" } else { "s" }
    );
    let hard = report.hard_count();
    let mut lines = vec![if report.passed {
        format!("PASSED {source} ({}): {head}", report.gate)
    } else {
        format!(
            "FAILED {source} ({}): {hard} violation{}; {head}",
            report.gate,
            if hard == 1 { "" } else { "s" }
        )
    }];
    lines.extend(report.violations.iter().map(|v| format!("  {v}")));
    if let Some(line) = report.unlisted_line() {
        lines.push(format!("  {line}"));
    }
    if !reading.inferred.is_empty() {
        lines.push(format!("  inferred: {}", reading.inferred.join("; ")));
    }
    Ok(Verified {
        passed: report.passed,
        warnings,
        lines,
        json,
    })
}
