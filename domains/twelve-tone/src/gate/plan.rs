//! The rules that hold a piece to its blueprint: `TT-SCHEDULE` (statement k of
//! each voice is the planned form of section k and starts inside it) and
//! `TT-AGGREGATE` (each section sounds all twelve pitch classes).

use super::events::VoiceSlots;
use super::findings::Findings;
use super::rules::{Finding, Rule, mask_text};
use super::segment::Statement;
use super::tables::labels_text;
use super::time::{ticks_text, to_time};
use crate::blueprint::{Blueprint, SectionPlan};
use cantus_music::{Event, time_text};

/// A section's span in ticks, `[start, end)`.
pub(crate) type Span = (i64, i64);

/// `"section 3 (bars 9–12)"`.
fn section_text(s: &SectionPlan) -> String {
    if s.bars <= 1 {
        format!("section {} (bar {})", s.index + 1, s.first_bar)
    } else {
        format!(
            "section {} (bars {}–{})",
            s.index + 1,
            s.first_bar,
            s.first_bar + s.bars - 1
        )
    }
}

/// What `TT-SCHEDULE` needs about one voice.
pub(crate) struct ScheduleInput<'a> {
    pub plan: &'a Blueprint,
    /// Section spans in ticks (None when times could not be placed: spans unchecked).
    pub spans: Option<&'a [Span]>,
    pub per_quarter: i64,
    pub voice: usize,
    pub events: &'a [Event],
    pub statements: &'a [Statement],
}

/// Checks one voice's statements against the plan's schedule.
pub(crate) fn schedule(input: &ScheduleInput<'_>, findings: &mut Findings) {
    let sections = &input.plan.sections;
    let v = input.voice;
    let onset_of = |st: &Statement| {
        input
            .events
            .get(st.first)
            .map_or_else(Default::default, |e| e.onset)
    };
    for (k, st) in input.statements.iter().enumerate() {
        let Some(section) = sections.get(k) else {
            findings.push(Finding::new(
                Rule::Schedule,
                Some(v),
                onset_of(st),
                format!(
                    "statement {} is one more than the plan schedules: the voice has {} statements, the plan {} sections",
                    k + 1,
                    input.statements.len(),
                    sections.len()
                ),
            ));
            break;
        };
        let Some(&expected) = section.forms.get(v) else {
            continue;
        };
        if !st.broken && st.forms & 1 << expected.index() == 0 {
            let found = if st.filled == 12 {
                format!("statement {} is {}", k + 1, labels_text(st.forms))
            } else {
                format!("statement {} opens like {}", k + 1, labels_text(st.forms))
            };
            findings.push(Finding::new(
                Rule::Schedule,
                Some(v),
                onset_of(st),
                format!(
                    "{found}, but the plan schedules {expected} in {}",
                    section_text(section)
                ),
            ));
        }
        if let Some(&(start, end)) = input.spans.and_then(|s| s.get(k))
            && (st.onset < start || st.onset >= end)
        {
            findings.push(Finding::new(
                Rule::Schedule,
                Some(v),
                onset_of(st),
                format!(
                    "statement {} ({expected} by the plan) starts at onset {}, outside {} (onsets {} until {})",
                    k + 1,
                    time_text::format(onset_of(st)),
                    section_text(section),
                    ticks_text(i128::from(start), input.per_quarter),
                    ticks_text(i128::from(end), input.per_quarter)
                ),
            ));
        }
    }
    if input.statements.len() < sections.len() {
        let first_missing = &sections[input.statements.len()];
        let missing: Vec<String> = sections[input.statements.len()..]
            .iter()
            .filter_map(|s| {
                s.forms
                    .get(v)
                    .map(|f| format!("{f} in {}", section_text(s)))
            })
            .take(4)
            .collect();
        let more = sections.len() - input.statements.len();
        let etc = if more > missing.len() { ", …" } else { "" };
        findings.push(Finding::new(
            Rule::Schedule,
            Some(v),
            first_missing.start,
            format!(
                "the voice states {} statements, but the plan schedules {}: missing {}{etc}",
                input.statements.len(),
                sections.len(),
                missing.join(", ")
            ),
        ));
    }
}

/// Checks that every section's onsets, over all voices, sound all 12 pitch classes.
pub(crate) fn aggregate(
    plan: &Blueprint,
    spans: &[Span],
    lines: &[VoiceSlots],
    per_quarter: i64,
    findings: &mut Findings,
) {
    let mut sounded = vec![0u16; spans.len()];
    for line in lines {
        let mut s = 0usize;
        for slot in &line.slots {
            while s < spans.len() && slot.onset >= spans[s].1 {
                s += 1;
            }
            match spans.get(s) {
                Some(&(start, _)) if slot.onset >= start => sounded[s] |= slot.mask,
                Some(_) => {}
                None => break,
            }
        }
    }
    for ((section, &mask), &(start, _)) in plan.sections.iter().zip(&sounded).zip(spans) {
        if mask != 0x0FFF {
            findings.push(Finding::new(
                Rule::Aggregate,
                None,
                to_time(i128::from(start), per_quarter),
                format!(
                    "{} sounds only {} of the 12 pitch classes; missing {}",
                    section_text(section),
                    mask.count_ones(),
                    mask_text(!mask & 0x0FFF)
                ),
            ));
        }
    }
}
