//! The serial analyser: which row statements a piece people wrote is made of.
//!
//! [`crate::gate`] judges a *generated* piece strictly: each statement inside one
//! voice, no repeated notes. Twelve-tone music as composers wrote it is freer: Webern
//! passes a statement between instruments, repeats and doubles notes, sets segments
//! as chords and lets one statement's last notes begin the next. [`analyze`] reads the
//! whole texture instead of voice by voice and says what it finds:
//!
//! * every **statement**, with its labels in both conventions, its notes (order
//!   position, bar, voice, onset), the positions it lacks if it is incomplete, and
//!   the notes that double or repeat its positions;
//! * the **elisions** (statements sharing notes) and the **canons** (statements whose
//!   positions sound at a fixed delay, related by transposition, inversion,
//!   retrograde or retrograde inversion);
//! * the share of notes explained, the notes left unexplained, and a [`Verdict`]
//!   judged against a [`Control`]: the same analysis on copies of the piece with its
//!   pitch classes shuffled (`control.rs` says why);
//! * the row, given or inferred (the ordering that explains the most notes), named
//!   when it is a known historical row and the verdict passes.
//!
//! # The verdict
//!
//! Statements of some row are found in any chromatic texture: free-atonal songs had
//! about 88% of their notes "explained", as much with their pitch classes shuffled
//! (`corpus/twelve-tone/calibration.md`). So the verdict counts only notes in
//! complete statements, and calls a piece twelve-tone when they are at least
//! [`TWELVE_TONE_PERCENT`]% of its notes and at least [`MARGIN_PERCENT`] points more
//! than in any of its shuffled copies ("partly" from [`PARTLY_PERCENT`]% with the same
//! margin). A given row goes through the same gate (its copies analysed on it). What
//! was found is reported whatever the verdict: a piece no candidate explains better
//! than chance gets `row_source` not-found, the best candidate as its row, its
//! statements and its shares, and no historical name.
//!
//! # How
//!
//! `texture.rs` turns the notes into tones (one per onset and pitch class, so octave
//! doublings merge and chords share an onset; grace notes, when the score has them,
//! just before the onset of the note they lead to); `strands.rs` first reads exact
//! canons whose two strands interleave note by note, both strands at once, a note
//! they meet on shared by both; `search.rs` reads one form from one seed tone with a
//! small dynamic programme; `select.rs` takes the best readings lazily, best first —
//! tight, complete ones in a first pass, then any — so that together they explain
//! the most; `repair.rs` then gives incomplete statements the
//! tones they lack where others can do without them, and `align.rs` lets canons decide
//! which of two like notes is whose; `absorb.rs` adds the repetitions; `canon.rs` pairs
//! statements; `infer.rs` finds and names the row; `report.rs` and `listing.rs` say it
//! all; `marks.rs` turns it into score annotations.
//!
//! The choices are heuristic: on pieces Cantus released and then disguised (notes
//! passed between voices, repeated, doubled, chorded, elided, left out, written as
//! grace notes), about 96% of the planted statements are found with their label and
//! completeness, and of canons interleaved note by note (sharing notes, with grace
//! notes, under a free voice) all but one in a thousand
//! (`tests/analysis_ground_truth.rs`); what is missed are statements of dense textures
//! that trade like notes with one sounding beside them.
//!
//! # Cost
//!
//! For a given row, linear in the number of notes `N` (up to a logarithm): the canon
//! pass tries, per tone, at most four leader forms times `strands::SEEDS` follower
//! beginnings, each rejected by one binary search over the onsets or read in twelve
//! steps (`O(N · SEEDS · log N)`); then two passes of about `4 N` and `12 N` bounded
//! searches (each at most `12 · 12 · 9` steps, see `search.rs`), a heap of at most as
//! many entries, and repairs local to each incomplete statement (a bounded number of
//! searches each). Inferring the row adds one pass per candidate row (about a
//! hundred) and up to `infer::ANALYSED + infer::ANALYSED_BY_ONSETS` full analyses.
//! The verdict's control repeats all of it on [`CONTROL_COPIES`] shuffled copies, so
//! an analysis costs `1 + CONTROL_COPIES` = 4 times one pass; past
//! [`CONTROL_MAX_NOTES`] notes the control is skipped (the report says so) and
//! [`Options::control_copies`] = 0 skips it (the experiment's share of notes
//! explained does). `benches/analyze.rs` measures pieces of 10^3 to 10^5 notes, and an
//! interleaved canon texture of 10^5, without the control (the 10^4 and 10^5 pieces
//! are past its limit anyway).
//!
//! # Limits
//!
//! A piece of more than [`MAX_ANALYSED_NOTES`] notes is refused
//! ([`AnalysisError::TooManyNotes`]) before any search, so an analysis takes
//! seconds, not minutes.
//!
//! A statement is found when at least [`Options::min_positions`] of its positions
//! sound in order (chords free) with at most two missing in a row; each position
//! must follow the previous within [`WINDOW`] tones. Segments of one statement that
//! overlap in time out of order (a row split into hexachords played at once in two
//! hands, each hexachord in order) are read as far as the order allows; the rest of
//! the notes are reported unexplained.

mod absorb;
mod align;
mod canon;
mod control;
mod infer;
mod listing;
mod marks;
mod repair;
mod report;
mod search;
mod select;
mod strands;
mod texture;

pub use control::{CONTROL_COPIES, CONTROL_MAX_NOTES, CONTROL_SEED, MAX_CONTROL_COPIES};
pub use listing::percent;
pub use marks::annotations;
pub use report::{
    AnalysedNote, Analysis, Canon, CanonRelation, Control, ControlCopy, Elision, Labels,
    MARGIN_PERCENT, NoteRole, PARTLY_PERCENT, RowSource, Statement, TWELVE_TONE_PERCENT, Verdict,
};

use crate::row::{Convention, FormTable, HistoricalRow, Row};
use absorb::ToneRole;
use cantus_music::Score;
use report::Builder;
use search::{SearchParams, Weights};
use select::{Forms, Selection};
use texture::Texture;

/// Most tones between two consecutive order positions of one statement.
pub const WINDOW: u32 = 64;

/// A gap between two positions of one statement is "far" beyond this many tones per
/// note sounding at a time (on average, in the piece).
const FAR_PER_SOUNDING: u32 = 4;

/// Fewest order positions a statement needs by default (of 12).
pub const DEFAULT_MIN_POSITIONS: u8 = 8;

/// Most notes (every pitch of every event) a piece may hold to be analysed. The
/// search tries every candidate row over every note, so time grows with the piece:
/// a piece at this limit took 9 s on a loaded 2-core VM (opt-level 1), one of
/// 200,000 notes a minute or more. The longest twelve-tone works run to a few
/// thousand notes.
pub const MAX_ANALYSED_NOTES: usize = 20_000;

/// What to analyse with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// The row; inferred from the piece when `None`.
    pub row: Option<Row>,
    /// Fewest order positions (1..=12) a statement must sound to be reported.
    pub min_positions: u8,
    /// Shuffled copies analysed as the verdict's control (0..=[`MAX_CONTROL_COPIES`];
    /// 0 skips the control, and the verdict rests on the share in complete
    /// statements alone). Each copy is one more analysis.
    pub control_copies: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            row: None,
            min_positions: DEFAULT_MIN_POSITIONS,
            control_copies: CONTROL_COPIES,
        }
    }
}

/// Why a piece could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The piece's onsets fit on no exact integer grid.
    #[error("cannot analyse: {0}")]
    Time(String),
    /// [`Options::min_positions`] is not 1..=12.
    #[error("min_positions must be between 1 and 12, got {0}")]
    MinPositions(u8),
    /// [`Options::control_copies`] is more than [`MAX_CONTROL_COPIES`].
    #[error("control_copies must be at most {MAX_CONTROL_COPIES}, got {0}")]
    ControlCopies(u8),
    /// More notes than are analysed ([`MAX_ANALYSED_NOTES`]).
    #[error("the piece has {notes} notes; at most {limit} are analysed (analyse it in parts)")]
    TooManyNotes {
        /// Notes in the piece (every pitch of every event).
        notes: usize,
        /// The limit.
        limit: usize,
    },
}

/// Analyses `score` (see the module docs).
pub fn analyze(score: &Score, options: &Options) -> Result<Analysis, AnalysisError> {
    if !(1..=12).contains(&options.min_positions) {
        return Err(AnalysisError::MinPositions(options.min_positions));
    }
    if options.control_copies > MAX_CONTROL_COPIES {
        return Err(AnalysisError::ControlCopies(options.control_copies));
    }
    let notes: usize = score
        .voices
        .iter()
        .flat_map(|v| &v.events)
        .map(|e| e.pitches.len())
        .sum();
    if notes > MAX_ANALYSED_NOTES {
        return Err(AnalysisError::TooManyNotes {
            notes,
            limit: MAX_ANALYSED_NOTES,
        });
    }
    let tex = Texture::new(score).map_err(|e| AnalysisError::Time(e.describe()))?;
    let found = best(score, &tex, options);
    let control = control(score, notes, options)?;
    let highest = control
        .highest()
        .map(|c| (c.explained_by_complete, c.notes));
    let Some(found) = found else {
        return Ok(not_found(score, &tex, control, highest));
    };
    let verdict = Verdict::of(found.run.in_complete, tex.notes.len(), highest);
    let source = match (options.row, verdict.passes()) {
        (Some(_), _) => RowSource::Given,
        (None, true) => RowSource::Inferred,
        (None, false) => RowSource::NotFound,
    };
    // A name only for a fit that passes: chance fits are forms of historical rows as
    // often as of any other.
    let name = found.name.filter(|_| verdict.passes());
    let mut analysis = found.run.report(score, &tex, source, name, found.tried);
    analysis.verdict = verdict;
    analysis.control = control;
    Ok(analysis)
}

/// The search parameters for a texture.
fn params(tex: &Texture, options: &Options) -> SearchParams {
    SearchParams {
        window: WINDOW,
        far: FAR_PER_SOUNDING * tex.density,
        candidates: 3,
        max_skip: 2,
        min_found: options.min_positions,
        elision: true,
        weights: Weights::DEFAULT,
    }
}

/// The analysis on the best row: the given one, or the candidate explaining the most.
struct Found {
    run: Run,
    name: Option<&'static HistoricalRow>,
    /// Rows tried (0 when given).
    tried: usize,
}

fn best(score: &Score, tex: &Texture, options: &Options) -> Option<Found> {
    let params = params(tex, options);
    if let Some(row) = options.row {
        return Some(Found {
            run: Run::new(score, tex, &row, &params),
            name: infer::name(&row),
            tried: 0,
        });
    }
    let sequences = infer::sequences(score, tex);
    let candidates = infer::candidates(&sequences);
    let mut best: Option<(Run, Option<&'static HistoricalRow>)> = None;
    for c in infer::analysed(&candidates) {
        let run = Run::new(score, tex, &c.row, &params);
        // Notes explained, those in complete statements counting twice: any texture
        // holds stretches that read as most of some form, only serial music is made
        // of whole statements.
        let weight = |r: &Run| r.explained + r.in_complete;
        if best.as_ref().is_none_or(|(b, _)| weight(&run) > weight(b)) {
            best = Some((run, c.historical));
        }
    }
    best.map(|(run, name)| Found {
        run,
        name,
        tried: candidates.len(),
    })
}

/// The same analysis on `options.control_copies` shuffled copies of `score` (of
/// `notes` notes), or why not.
fn control(score: &Score, notes: usize, options: &Options) -> Result<Control, AnalysisError> {
    let skipped = |why: String| Control {
        copies: Vec::new(),
        skipped: Some(why),
    };
    if options.control_copies == 0 {
        return Ok(skipped("no shuffled copies asked for".to_owned()));
    }
    if notes == 0 {
        return Ok(skipped("the piece has no notes".to_owned()));
    }
    if notes > CONTROL_MAX_NOTES {
        return Ok(skipped(format!(
            "the piece has {notes} notes, more than the {CONTROL_MAX_NOTES} a control is computed for"
        )));
    }
    let mut copies = Vec::with_capacity(usize::from(options.control_copies));
    for k in 1..=u64::from(options.control_copies) {
        let seed = CONTROL_SEED + k;
        let copy = control::shuffled(score, seed);
        let tex = Texture::new(&copy).map_err(|e| AnalysisError::Time(e.describe()))?;
        let found = best(&copy, &tex, options);
        copies.push(ControlCopy {
            seed,
            notes: tex.notes.len(),
            explained: found.as_ref().map_or(0, |f| f.run.explained),
            explained_by_complete: found.as_ref().map_or(0, |f| f.run.in_complete),
            row: found.map(|f| f.run.row),
        });
    }
    Ok(Control {
        copies,
        skipped: None,
    })
}

/// One analysis on one row.
struct Run {
    row: Row,
    forms: Forms,
    sel: Selection,
    roles: Vec<ToneRole>,
    explained: usize,
    /// Of them, those explained by complete statements.
    in_complete: usize,
    min_positions: u8,
}

impl Run {
    fn new(score: &Score, tex: &Texture, row: &Row, params: &SearchParams) -> Run {
        let forms = Forms::new(&FormTable::new(row, Convention::ZeroCentred));
        let tight = SearchParams {
            window: params.far,
            max_skip: 0,
            min_found: 12,
            ..*params
        };
        let mut sel = select::select(tex, &forms, params, &tight);
        repair::repair(tex, &forms, &mut sel, params);
        align::align(tex, &forms, &mut sel, params.window);
        repair::repair(tex, &forms, &mut sel, params);
        let roles = absorb::roles(score, tex, &sel);
        let (explained, in_complete) = report::explained_notes(tex, &sel, &roles);
        Run {
            row: *row,
            forms,
            sel,
            roles,
            explained,
            in_complete,
            min_positions: params.min_found,
        }
    }

    fn report(
        &self,
        score: &Score,
        tex: &Texture,
        source: RowSource,
        name: Option<&'static HistoricalRow>,
        tried: usize,
    ) -> Analysis {
        let builder = Builder {
            score,
            tex,
            row: &self.row,
            forms: &self.forms,
            sel: &self.sel,
            roles: &self.roles,
        };
        let (statements, numbering, elisions, unexplained) = builder.build();
        let zero = FormTable::new(&self.row, Convention::ZeroCentred);
        let mut canons: Vec<Canon> =
            canon::canons(tex, &self.sel, &self.forms, &zero, self.min_positions)
                .into_iter()
                .map(|c| Canon {
                    leader: numbering.order[c.leader] + 1,
                    follower: numbering.order[c.follower] + 1,
                    relation: c.relation,
                    interval: c.interval,
                    delay: tex.time(c.delay),
                    positions: c.positions,
                    free_positions: c.free_positions,
                })
                .collect();
        canons.sort_by_key(|c| (c.leader, c.follower));
        Analysis {
            row: Some(self.row),
            row_name: name.map(|h| h.id.clone()),
            row_source: source,
            rows_tried: tried,
            // Set by the caller, once the control is in.
            verdict: Verdict::NotTwelveTone,
            notes: tex.notes.len(),
            explained: self.explained,
            explained_by_complete: self.in_complete,
            statements,
            elisions,
            canons,
            unexplained,
            control: Control::default(),
        }
    }
}

/// The analysis of a piece no row was analysed on (no candidate at all).
fn not_found(
    score: &Score,
    tex: &Texture,
    control: Control,
    highest: Option<(usize, usize)>,
) -> Analysis {
    let roles = vec![ToneRole::Unexplained; tex.tones.len()];
    Analysis {
        row: None,
        row_name: None,
        row_source: RowSource::NotFound,
        rows_tried: 0,
        verdict: Verdict::of(0, tex.notes.len(), highest),
        notes: tex.notes.len(),
        explained: 0,
        explained_by_complete: 0,
        statements: Vec::new(),
        elisions: Vec::new(),
        canons: Vec::new(),
        unexplained: report::unexplained_notes(score, tex, &roles),
        control,
    }
}
