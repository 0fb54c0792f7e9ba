//! The gate's findings as they are made, listed up to [`LISTED_VIOLATIONS`] and the
//! rest only counted.
//!
//! A broken piece can break a rule once per *pair* of events — two thousand voices
//! sharing four notes collide two million times — so keeping every finding (each
//! with its reason text) would make memory grow with the square of the input.
//! [`Findings`] keeps the first [`LISTED_VIOLATIONS`] in report order (onset, voice,
//! rule, then the order they were found: exactly the list an unbounded sort would
//! begin with) and counts the others by rule. It holds at most twice the cap at
//! once: when full it sorts, keeps the first half and from then on counts, without
//! building its reason, any finding that would sort after the last one kept.

use super::rules::{Finding, Rule};
use super::time::cmp_time;
use cantus_framework::{LISTED_VIOLATIONS, Severity, Unlisted};
use cantus_music::Time;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The findings of one judgement.
#[derive(Debug, Default)]
pub(crate) struct Findings {
    /// Kept findings with the order they were found in.
    kept: Vec<(u64, Finding)>,
    found: u64,
    /// Once the list was cut: the key of the last finding kept. A finding sorting
    /// after it is counted, not kept.
    bound: Option<(Time, usize, Rule)>,
    unlisted: BTreeMap<Rule, u64>,
}

impl Findings {
    pub fn new() -> Findings {
        Findings::default()
    }

    /// Records `finding`.
    pub fn push(&mut self, finding: Finding) {
        if self.listed(finding.rule, finding.voice, finding.onset) {
            self.keep(finding);
        }
    }

    /// Records a finding whose reason is built only if it is listed (for rules
    /// that can be broken once per pair of events).
    pub fn push_with(
        &mut self,
        rule: Rule,
        voice: Option<usize>,
        onset: Time,
        reason: impl FnOnce() -> String,
    ) {
        if self.listed(rule, voice, onset) {
            self.keep(Finding::new(rule, voice, onset, reason()));
        }
    }

    /// Moves every finding of `other` (made after those already here) into `self`.
    pub fn append(&mut self, other: Findings) {
        for (_, f) in other.kept {
            self.push(f);
        }
        for (rule, n) in other.unlisted {
            *self.unlisted.entry(rule).or_default() += n;
        }
    }

    /// The listed findings in report order, and the counts of the others by rule.
    pub fn finish(mut self) -> (Vec<Finding>, Vec<Unlisted>) {
        self.cut();
        let listed = self.kept.into_iter().map(|(_, f)| f).collect();
        let unlisted = self
            .unlisted
            .into_iter()
            .map(|(rule, count)| Unlisted {
                predicate: rule.into(),
                severity: Severity::Hard,
                count,
            })
            .collect();
        (listed, unlisted)
    }

    /// Whether a finding with this key is kept; if not, it is counted.
    fn listed(&mut self, rule: Rule, voice: Option<usize>, onset: Time) -> bool {
        let key = (onset, voice.unwrap_or(usize::MAX), rule);
        // A new finding comes after every kept one with the same key, so it is
        // listed only if its key sorts strictly before the bound.
        if let Some(bound) = self.bound
            && compare(&key, &bound) != Ordering::Less
        {
            *self.unlisted.entry(rule).or_default() += 1;
            return false;
        }
        true
    }

    fn keep(&mut self, finding: Finding) {
        self.found += 1;
        self.kept.push((self.found, finding));
        if self.kept.len() >= 2 * LISTED_VIOLATIONS {
            self.cut();
        }
    }

    /// Sorts the kept findings and counts those past the cap.
    fn cut(&mut self) {
        self.kept
            .sort_by(|(a_seq, a), (b_seq, b)| compare(&key(a), &key(b)).then(a_seq.cmp(b_seq)));
        if self.kept.len() <= LISTED_VIOLATIONS {
            return;
        }
        for (_, f) in self.kept.drain(LISTED_VIOLATIONS..) {
            *self.unlisted.entry(f.rule).or_default() += 1;
        }
        self.bound = self.kept.last().map(|(_, f)| key(f));
    }
}

fn key(f: &Finding) -> (Time, usize, Rule) {
    (f.onset, f.voice.unwrap_or(usize::MAX), f.rule)
}

/// Report order: onset, then voice (the whole texture last), then rule.
fn compare(a: &(Time, usize, Rule), b: &(Time, usize, Rule)) -> Ordering {
    cmp_time(a.0, b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(onset: i64, voice: usize) -> Finding {
        Finding::new(
            Rule::Collision,
            Some(voice),
            Time::from_integer(onset),
            format!("{onset}/{voice}"),
        )
    }

    #[test]
    fn the_first_findings_in_report_order_are_listed_and_the_rest_counted() {
        let n = 5 * LISTED_VIOLATIONS as i64 + 17;
        let mut findings = Findings::new();
        // Pushed latest first, so the cut must keep the earliest, not the first pushed.
        for i in (0..n).rev() {
            findings.push(finding(i / 3, (i % 3) as usize));
        }
        findings.push(Finding::new(
            Rule::Bars,
            None,
            Time::from_integer(0),
            "bar".into(),
        ));
        let (listed, unlisted) = findings.finish();
        assert_eq!(listed.len(), LISTED_VIOLATIONS);
        assert_eq!(listed[0].reason, "0/0");
        assert_eq!(
            listed[3].reason, "bar",
            "the texture comes after the voices"
        );
        assert_eq!(listed[4].reason, "1/0");
        let counted: u64 = unlisted.iter().map(|u| u.count).sum();
        assert_eq!(counted as usize + listed.len(), n as usize + 1);
        assert_eq!(unlisted[0].predicate, "TT-COLLISION");
    }

    #[test]
    fn a_finding_past_the_cut_is_not_built() {
        let mut findings = Findings::new();
        for i in 0..2 * LISTED_VIOLATIONS as i64 {
            findings.push(finding(i, 0));
        }
        let mut built = false;
        findings.push_with(
            Rule::Collision,
            Some(0),
            Time::from_integer(1 << 40),
            || {
                built = true;
                String::new()
            },
        );
        assert!(!built);
        let (listed, unlisted) = findings.finish();
        assert_eq!(
            (listed.len(), unlisted[0].count),
            (LISTED_VIOLATIONS, LISTED_VIOLATIONS as u64 + 1)
        );
    }
}
