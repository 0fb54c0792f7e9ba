//! The 29 structural axes of Libretto v2.2, one module per family, all computed
//! from one set of per-bar tables built once per piece.
//!
//! The axis ids are Libretto's names and are stable: calibration tables, JSON
//! output and feedback refer to them. The definitions (and their edge cases) are
//! the original implementation's, as restated in `libretto-spec.md` §2.

mod form;
mod harmony;
mod melody;
mod rhythm;
mod texture;
mod variation;

use crate::song::{Layout, NoteEvent, Song, VoiceId};

/// One of the 29 axes, in the original's `axes_order`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Axis {
    RhySyncopationRate,
    RhyOnsetDensityPerBar,
    RhyTripletShare,
    RhyOnsetPosEntropy,
    RhyDurCv,
    RhyMeanDurBeats,
    RhyDensityVariability,
    HarChromaticism,
    HarDistinctPc,
    HarPcEntropy,
    HarChordChangeRate,
    HarVocabDensity,
    HarRootMotionEntropy,
    HarFourthMotionRate,
    HarDimaugRate,
    MelPitchRange,
    MelStepRatio,
    MelIntervalEntropy,
    MelUpRatio,
    MelVoiceRange,
    TexVoiceCount,
    TexMeanSimultaneity,
    TexMaxChordWidth,
    TexActiveVoiceDensity,
    FormSelfSimilarity,
    FormNoveltyRate,
    FormDistinctBarFrac,
    FormSectionPer100Bars,
    WithinSongVariation,
}

/// The axis families.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Rhythm,
    Harmony,
    Melody,
    Texture,
    Form,
    /// Within-song variation (the original's category `meta`).
    Variation,
}

/// Number of axes.
pub const AXIS_COUNT: usize = 29;

/// (id, readable name, what it measures) per axis, in order.
const DESCRIPTIONS: [(&str, &str, &str); AXIS_COUNT] = [
    (
        "rhy_syncopation_rate",
        "syncopation",
        "how many onsets fall between the beats",
    ),
    (
        "rhy_onset_density_per_bar",
        "note density",
        "how many onsets each bar holds",
    ),
    (
        "rhy_triplet_share",
        "triplet feel",
        "how many bars are on a triplet grid",
    ),
    (
        "rhy_onset_pos_entropy",
        "rhythmic-position variety",
        "how evenly onsets spread over the positions in the bar",
    ),
    (
        "rhy_dur_cv",
        "duration contrast",
        "how much note lengths differ from one another",
    ),
    (
        "rhy_mean_dur_beats",
        "average note length",
        "the mean note length in beats",
    ),
    (
        "rhy_density_variability",
        "density change",
        "how much the number of notes changes from bar to bar",
    ),
    (
        "har_chromaticism",
        "chromaticism",
        "how much sounds outside the best-fitting major scale",
    ),
    (
        "har_distinct_pc",
        "pitch-class breadth",
        "how many of the 12 pitch classes are used",
    ),
    (
        "har_pc_entropy",
        "pitch-class balance",
        "how evenly the pitch classes share the time",
    ),
    (
        "har_chord_change_rate",
        "harmonic rhythm",
        "how often the prominent pitch set changes from half-bar to half-bar",
    ),
    (
        "har_vocab_density",
        "chord variety",
        "how many different prominent pitch sets appear per bar",
    ),
    (
        "har_root_motion_entropy",
        "root-motion variety",
        "how varied the bass's bar-to-bar root motion is",
    ),
    (
        "har_fourth_motion_rate",
        "fourth motion",
        "how often the bass root moves up a fourth",
    ),
    (
        "har_dimaug_rate",
        "diminished/augmented colour",
        "how often bars hold a diminished or augmented triad",
    ),
    (
        "mel_pitch_range",
        "overall range",
        "the span from the lowest to the highest note",
    ),
    (
        "mel_step_ratio",
        "stepwise motion",
        "how much the melody moves by step rather than by leap",
    ),
    (
        "mel_interval_entropy",
        "interval variety",
        "how varied the melody's intervals are",
    ),
    (
        "mel_up_ratio",
        "melodic direction",
        "how much the melody rises rather than falls",
    ),
    (
        "mel_voice_range",
        "melody range",
        "the span of the melody voice",
    ),
    ("tex_voice_count", "voice count", "how many voices play"),
    (
        "tex_mean_simultaneity",
        "texture fullness",
        "how many notes sound at once",
    ),
    (
        "tex_max_chord_width",
        "chord width",
        "the widest chord within one voice",
    ),
    (
        "tex_active_voice_density",
        "active voices",
        "how many voices play in a bar",
    ),
    (
        "form_self_similarity",
        "repetition",
        "how alike the bars are to one another",
    ),
    (
        "form_novelty_rate",
        "novelty",
        "how much each bar differs from the one before",
    ),
    (
        "form_distinct_bar_frac",
        "bar distinctness",
        "the share of bars that are not exact repeats",
    ),
    (
        "form_section_per100bars",
        "sectioning",
        "how many section boundaries there are per 100 bars",
    ),
    (
        "within_song_variation",
        "within-piece variation",
        "how much the local character changes across the piece",
    ),
];

impl Axis {
    /// Every axis in the original's order.
    pub const ALL: [Axis; AXIS_COUNT] = [
        Axis::RhySyncopationRate,
        Axis::RhyOnsetDensityPerBar,
        Axis::RhyTripletShare,
        Axis::RhyOnsetPosEntropy,
        Axis::RhyDurCv,
        Axis::RhyMeanDurBeats,
        Axis::RhyDensityVariability,
        Axis::HarChromaticism,
        Axis::HarDistinctPc,
        Axis::HarPcEntropy,
        Axis::HarChordChangeRate,
        Axis::HarVocabDensity,
        Axis::HarRootMotionEntropy,
        Axis::HarFourthMotionRate,
        Axis::HarDimaugRate,
        Axis::MelPitchRange,
        Axis::MelStepRatio,
        Axis::MelIntervalEntropy,
        Axis::MelUpRatio,
        Axis::MelVoiceRange,
        Axis::TexVoiceCount,
        Axis::TexMeanSimultaneity,
        Axis::TexMaxChordWidth,
        Axis::TexActiveVoiceDensity,
        Axis::FormSelfSimilarity,
        Axis::FormNoveltyRate,
        Axis::FormDistinctBarFrac,
        Axis::FormSectionPer100Bars,
        Axis::WithinSongVariation,
    ];

    /// Position in [`Axis::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The stable id (Libretto's axis name), e.g. `tex_mean_simultaneity`.
    pub fn id(self) -> &'static str {
        DESCRIPTIONS[self.index()].0
    }

    /// A readable name, e.g. "texture fullness".
    pub fn name(self) -> &'static str {
        DESCRIPTIONS[self.index()].1
    }

    /// What the axis measures, in a few words.
    pub fn meaning(self) -> &'static str {
        DESCRIPTIONS[self.index()].2
    }

    /// The axis with this id.
    pub fn from_id(id: &str) -> Option<Axis> {
        Axis::ALL.into_iter().find(|a| a.id() == id)
    }

    /// The axis's family.
    pub fn family(self) -> Family {
        match self.id().split('_').next() {
            Some("rhy") => Family::Rhythm,
            Some("har") => Family::Harmony,
            Some("mel") => Family::Melody,
            Some("tex") => Family::Texture,
            Some("form") => Family::Form,
            _ => Family::Variation,
        }
    }

    /// Whether the within-song variation averages this axis (the 24 axes that are
    /// neither form nor the variation itself).
    pub fn is_local(self) -> bool {
        !matches!(self.family(), Family::Form | Family::Variation)
    }
}

/// Raw values of every axis, indexed by [`Axis::index`].
pub type RawAxes = [f64; AXIS_COUNT];

/// Per-piece tables every axis reads: built once, so no axis rescans the score.
pub(crate) struct Tables<'s> {
    pub song: &'s Song<'s>,
    /// Sounding bars, ascending.
    pub bars: Vec<i64>,
    /// Event indices per sounding bar (same order as `bars`), in text order.
    pub bar_events: Vec<Vec<usize>>,
    /// Distinct (voice, absolute onset) pairs.
    pub onsets: Vec<(VoiceId, f64)>,
    /// Event indices per voice id, in text order.
    pub voice_events: Vec<Vec<usize>>,
}

impl<'s> Tables<'s> {
    fn new(song: &'s Song<'s>) -> Tables<'s> {
        let mut bars: Vec<i64> = song.events.iter().map(|e| e.bar).collect();
        bars.sort_unstable();
        bars.dedup();
        let mut bar_events = vec![Vec::new(); bars.len()];
        let mut voice_events = vec![Vec::new(); song.layout.names.len()];
        let mut keys: Vec<(VoiceId, u64)> = Vec::with_capacity(song.events.len());
        for (i, e) in song.events.iter().enumerate() {
            if let Ok(k) = bars.binary_search(&e.bar) {
                bar_events[k].push(i);
            }
            voice_events[e.voice as usize].push(i);
            keys.push((e.voice, e.abs.to_bits()));
        }
        keys.sort_unstable();
        keys.dedup();
        let onsets = keys
            .into_iter()
            .map(|(v, a)| (v, f64::from_bits(a)))
            .collect();
        Tables {
            song,
            bars,
            bar_events,
            onsets,
            voice_events,
        }
    }

    pub fn events(&self) -> &[NoteEvent] {
        &self.song.events
    }

    pub fn bar_ql(&self) -> f64 {
        self.song.layout.bar_ql
    }
}

/// The 28 per-piece axes of a song (everything but the within-song variation),
/// or `None` when it has no events (the original measures nothing then).
pub fn base_axes(song: &Song<'_>, with_form: bool) -> Option<RawAxes> {
    if song.events.is_empty() {
        return None;
    }
    let t = Tables::new(song);
    let mut out = [0.0; AXIS_COUNT];
    rhythm::measure(&t, &mut out);
    let roles = melody::roles(&t);
    harmony::measure(&t, roles.bass, &mut out);
    melody::measure(&t, roles.melody, &mut out);
    texture::measure(&t, &mut out);
    if with_form {
        form::measure(&t, &mut out);
    }
    Some(out)
}

/// All 29 raw axes of a laid-out piece; `None` when it sounds no note.
/// `sd` gives each local axis's corpus standard deviation (the variation axis's
/// unit), indexed by [`Axis::index`].
pub fn measure_layout(layout: &Layout, sd: &RawAxes) -> Option<RawAxes> {
    let song = layout.song();
    let mut out = base_axes(&song, true)?;
    out[Axis::WithinSongVariation.index()] = variation::within_song_variation(layout, sd);
    Some(out)
}
