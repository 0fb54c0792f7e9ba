//! `morph`: K segments moving from piece A's profile to piece B's — the
//! original's morph task.
//!
//! A candidate is cut into K segments of L bars; each is measured alone
//! (renumbered from bar 1) and placed by its progress
//! `D(seg, A) / (D(seg, A) + D(seg, B))` ([`super::gates::progress`]),
//! which must rise steadily (`LIB-PROGRESS`: monotone within 0.05, a span of
//! at least 0.4, the first below 0.40, the last above 0.60). It must have its
//! K·L bars (`LIB-LENGTH`) and copy neither A, nor B, nor a reference piece
//! (`LIB-COPY`: note-level copy risk below 0.30). The score is the gates'
//! penalties (50 a failed progress check or length, 300 a unit of excess copy).
//!
//! The embedded author ([`Recombiner`]) needs no model: segment k takes its
//! first bars from A and its last from B in the proportion k/(K−1), runs of
//! consecutive bars from a seeded place in each piece, every segment
//! transposed by a seeded interval — the pieces' own material, moved, not
//! copied. It writes the voices of the piece with more of them; a voice of the
//! other goes to the voice of its name, else to the one at its place.

use super::gates::{Length, Progress, progress, sounding_bars};
use super::model::Task;
use super::{
    Ask, Author, AuthorError, Draft, Judge, Run, Verdict, Workflow, WorkflowError, refine,
};
use crate::calibration::Calibration;
use crate::copy::{NoteGrid, copy_risk};
use crate::fingerprint::{Fingerprint, Profile, raw_axes};
use crate::gates::{CopyGate, GateOutcome};
use crate::retrieval::{ReferenceSet, cut, excerpt};
use crate::song::Layout;
use cantus_framework::async_trait;
use cantus_music::{Event, Pitch, Score, Time, Voice};
use serde_json::json;

/// What to morph.
#[derive(Clone, Debug)]
pub struct MorphRequest<'a> {
    /// Where the morph starts.
    pub a: &'a Score,
    /// Where it ends.
    pub b: &'a Score,
    /// K, at least 2.
    pub segments: u32,
    /// Bars per segment, at least 1.
    pub segment_bars: u32,
    /// The table profiles are placed against.
    pub table: &'a Calibration,
    /// Reference pieces a morph must not copy either.
    pub references: Option<&'a ReferenceSet>,
}

/// The morph judge.
pub struct MorphJudge {
    table: Calibration,
    a: Profile,
    b: Profile,
    segments: u32,
    segment_bars: u32,
    progress: Progress,
    length: Length,
    copy: CopyGate,
}

/// A prepared morph.
pub struct MorphJob {
    /// The judge.
    pub judge: MorphJudge,
    /// What was set up, for the report.
    pub setup: Vec<String>,
    /// The model's task.
    pub task: Task,
}

fn measured(
    score: &Score,
    table: &Calibration,
    what: &str,
) -> Result<(Profile, NoteGrid), WorkflowError> {
    let fail = |why: String| WorkflowError::Unmeasurable {
        what: what.to_owned(),
        why,
    };
    let layout = Layout::from_score(score).map_err(|e| fail(e.to_string()))?;
    let raw = raw_axes(&layout).map_err(|e| fail(e.to_string()))?;
    Ok((
        Fingerprint::place(&raw, table).profile(),
        NoteGrid::of(&layout.song()),
    ))
}

fn profile_of(score: &Score, table: &Calibration) -> Option<(Profile, NoteGrid)> {
    measured(score, table, "segment").ok()
}

impl MorphJob {
    /// Measures A and B and sets the judge up.
    pub fn new(req: &MorphRequest<'_>) -> Result<MorphJob, WorkflowError> {
        if req.segments < 2 || req.segment_bars == 0 {
            return Err(WorkflowError::Input(format!(
                "a morph needs at least 2 segments of at least 1 bar (asked: {} of {})",
                req.segments, req.segment_bars
            )));
        }
        let total = req
            .segments
            .checked_mul(req.segment_bars)
            .filter(|&t| t <= 4096)
            .ok_or_else(|| {
                WorkflowError::Input("a morph of more than 4096 bars is not written".into())
            })?;
        let (a, grid_a) = measured(req.a, req.table, "A")?;
        let (b, grid_b) = measured(req.b, req.table, "B")?;
        let mut refs = vec![grid_a, grid_b];
        let mut setup = vec![format!(
            "A and B are {:.1} apart (mean |Δ percentile| against {}); {} segments of {} bars",
            a.distance(&b),
            req.table.source,
            req.segments,
            req.segment_bars
        )];
        if let Some(set) = req.references {
            refs.extend(set.grids());
            setup.push(format!(
                "copy also judged against {} reference pieces in {}",
                set.pieces.len(),
                set.dir.display()
            ));
        }
        let task = Task {
            workflow: Workflow::Morph,
            text: task_text(req),
            header: header_of(req.a, total),
            context: json!({ "segments": req.segments, "segment_bars": req.segment_bars }),
        };
        Ok(MorphJob {
            judge: MorphJudge {
                table: req.table.clone(),
                a,
                b,
                segments: req.segments,
                segment_bars: req.segment_bars,
                progress: Progress::default(),
                length: Length {
                    min: total,
                    max: total,
                    what: "morph",
                },
                copy: CopyGate::new(refs),
            },
            setup,
            task,
        })
    }

    /// Runs the loop with `author`.
    pub async fn run(&self, author: &dyn Author, rounds: u32, seed: u64) -> Run {
        refine(
            Workflow::Morph,
            author,
            &self.judge,
            rounds,
            seed,
            self.setup.clone(),
        )
        .await
    }
}

/// The header and voices a reply without its own is read under: A's, with the
/// morph's `bars` (what a constrained reply is held to).
fn header_of(score: &Score, bars: u32) -> String {
    let names: Vec<&str> = score.voices.iter().map(|v| v.name.as_str()).collect();
    format!(
        "KEY: ? | METER: {}/{} | TEMPO: ? | GRID: 16th | BARS: {bars}\nVOICES: {}\n",
        score.meter.num,
        score.meter.den,
        names.join(", ")
    )
}

fn task_text(req: &MorphRequest<'_>) -> String {
    let show = |s: &Score| {
        excerpt(s)
            .and_then(|(_, e)| cantus_music::grammar::write(&e).ok())
            .unwrap_or_default()
    };
    format!(
        "Write a morph in {k} segments of {l} bars ({t} bars in all): segment 1 close to piece A, \
         the last close to piece B, each segment a step further from A toward B. Use your own notes: \
         copy neither piece.\nPiece A (8 bars):\n{a}Piece B (8 bars):\n{b}",
        k = req.segments,
        l = req.segment_bars,
        t = req.segments * req.segment_bars,
        a = show(req.a),
        b = show(req.b),
    )
}

impl MorphJudge {
    /// Each segment's progress from A to B (`None` for a segment that cannot be measured).
    pub fn progress_of(&self, piece: &Score) -> Vec<Option<f64>> {
        (0..self.segments)
            .map(|k| {
                let seg = cut(piece, 1 + k * self.segment_bars, self.segment_bars);
                profile_of(&seg, &self.table).map(|(p, _)| progress(&p, &self.a, &self.b))
            })
            .collect()
    }
}

impl Judge for MorphJudge {
    fn judge(&self, piece: &Score) -> Verdict {
        let bars = sounding_bars(piece);
        let values = self.progress_of(piece);
        let mut gates: Vec<GateOutcome> = vec![self.length.check(bars)];
        let known: Vec<f64> = values.iter().map(|v| v.unwrap_or(f64::NAN)).collect();
        let mut progress = self.progress.check(&known);
        if let Some(k) = values.iter().position(Option::is_none) {
            progress.passed = false;
            progress.penalty += 50.0;
            progress
                .feedback
                .insert(0, format!("progress: segment {} sounds no note", k + 1));
        }
        gates.push(progress);
        let grid = Layout::from_score(piece)
            .ok()
            .map(|l| NoteGrid::of(&l.song()));
        let risk = grid
            .as_ref()
            .map_or(0.0, |g| copy_risk(g, &self.copy.references));
        match &grid {
            Some(g) => gates.push(self.copy.check(g)),
            None => gates.push(super::silent_gate()),
        }
        Verdict {
            score: gates.iter().map(|g| g.penalty).sum(),
            measures: json!({
                "bars": bars,
                "progress": values,
                "copy_risk": risk,
            }),
            gates,
        }
    }
}

/// Intervals a segment is moved by (never 0: moved material is not a copy).
const TRANSPOSITIONS: [i16; 8] = [2, -2, 3, -3, 5, -5, 7, -7];

/// The embedded morph author (see the module docs).
pub struct Recombiner {
    a: Score,
    b: Score,
    segments: u32,
    segment_bars: u32,
}

impl Recombiner {
    /// An author for this request, or why the embedded one cannot write it.
    pub fn new(req: &MorphRequest<'_>) -> Result<Recombiner, WorkflowError> {
        if req.a.meter != req.b.meter {
            return Err(WorkflowError::NoEmbeddedAuthor(format!(
                "the embedded morph moves bars between the pieces and needs them in one meter (A is {}, B is {}): give --config FILE to ask a model",
                req.a.meter, req.b.meter
            )));
        }
        Ok(Recombiner {
            a: req.a.clone(),
            b: req.b.clone(),
            segments: req.segments,
            segment_bars: req.segment_bars,
        })
    }
}

/// The bars of `score` that hold an onset.
fn sounding(score: &Score) -> Vec<u32> {
    let mut bars: Vec<u32> = score
        .voices
        .iter()
        .flat_map(|v| v.events.iter().map(|e| score.bar_of(e.onset)))
        .collect();
    bars.sort_unstable();
    bars.dedup();
    bars
}

/// Where each voice of `src` goes in `out`: the voice of the same name, else
/// the voice at the same place.
fn voice_map(src: &Score, out: &Score) -> Vec<usize> {
    src.voices
        .iter()
        .enumerate()
        .map(|(i, v)| {
            out.voice_index(&v.name)
                .unwrap_or(i.min(out.voices.len() - 1))
        })
        .collect()
}

/// Copies bar `from` of `src` to bar `to` of `out`, moved by `shift` semitones.
fn copy_bar(src: &Score, from: u32, out: &mut Score, to: u32, shift: i16) {
    let map = voice_map(src, out);
    let bar = src.bar_length();
    let delta = out.bar_start(to) - src.bar_start(from);
    let end = out.bar_start(to) + bar;
    for (vi, voice) in src.voices.iter().enumerate() {
        for e in voice.events.iter().filter(|e| src.bar_of(e.onset) == from) {
            let pitches: Vec<Pitch> = e
                .pitches
                .iter()
                .filter_map(|p| u8::try_from(i16::from(p.midi) + shift).ok())
                .filter(|m| *m <= 127)
                .map(Pitch::new)
                .collect();
            let onset = e.onset + delta;
            let duration = e.duration.min(end - onset);
            if !pitches.is_empty() && duration > Time::from_integer(0) {
                out.voices[map[vi]]
                    .events
                    .push(Event::new(onset, duration, pitches));
            }
        }
    }
}

#[async_trait]
impl Author for Recombiner {
    fn name(&self) -> String {
        "embedded:recombine".into()
    }

    async fn write(&self, ask: &Ask<'_>) -> Result<Draft, AuthorError> {
        let (from_a, from_b) = (sounding(&self.a), sounding(&self.b));
        if from_a.is_empty() || from_b.is_empty() {
            return Err(AuthorError::Unavailable("A or B sounds no note".into()));
        }
        let mut rng = fastrand::Rng::with_seed(ask.seed);
        // The voices of the piece with more of them.
        let wider = if self.b.voices.len() > self.a.voices.len() {
            &self.b
        } else {
            &self.a
        };
        let mut out = Score {
            bars: Some(self.segments * self.segment_bars),
            voices: wider
                .voices
                .iter()
                .map(|v| Voice::new(v.name.clone()))
                .collect(),
            ..self.a.clone()
        };
        let (mut at_a, mut at_b) = (rng.usize(..from_a.len()), rng.usize(..from_b.len()));
        let last = f64::from(self.segments - 1);
        for k in 0..self.segments {
            let share_b = f64::from(k) / last;
            let bars_b = (share_b * f64::from(self.segment_bars)).round() as u32;
            let shift = TRANSPOSITIONS[rng.usize(..TRANSPOSITIONS.len())];
            for j in 0..self.segment_bars {
                let to = 1 + k * self.segment_bars + j;
                if j < self.segment_bars - bars_b {
                    copy_bar(&self.a, from_a[at_a % from_a.len()], &mut out, to, shift);
                    at_a += 1;
                } else {
                    copy_bar(&self.b, from_b[at_b % from_b.len()], &mut out, to, shift);
                    at_b += 1;
                }
            }
        }
        out.sort();
        Ok(Draft {
            score: out,
            notes: Vec::new(),
            usage: None,
        })
    }
}
