//! Issue 17, item 4: measuring a piece takes memory in proportion to the piece,
//! and a piece over the bar limit is refused before it is laid out.
//!
//! The whole file is one test so the counting allocator sees nothing else: the
//! peaks below would otherwise include other tests' allocations.

use cantus_libretto::song::MAX_MEASURED_BARS;
use cantus_libretto::{Calibration, LayoutError, MeasureError, NoteGrid, fingerprint_text};
use cantus_libretto::{Layout, fingerprint};
use cantus_music::{Event, Pitch, Score, Time, Voice};
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to `System` unchanged; the counters only observe sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap bytes above what was live when `f` started.
fn peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// `bars` bars of one C4 each: every bar equals every other, the form axes'
/// worst case (issue 17 used 20,000 and 30,000 of them).
fn one_note_bars(bars: usize) -> String {
    let mut text = format!("KEY: C major | METER: 4/4 | GRID: 16th | BARS: {bars}\nVOICES: V\n");
    for bar in 1..=bars {
        let _ = writeln!(text, "@{bar} [-]\n  V: C4@1>4");
    }
    text
}

const MIB: usize = 1 << 20;

#[test]
fn memory_follows_the_piece_and_the_bar_limit_is_enforced_first() {
    let table = Calibration::original();
    let _ = NoteGrid::default(); // nothing lazily allocated inside the measured calls

    // 4,000 identical bars: the old n×n matrix held 16 million floats (128 MB)
    // plus the upper triangle (64 MB); the streamed one needs a few bytes a bar.
    let text = one_note_bars(4_000);
    let (fp, bytes) = peak(|| fingerprint_text(&text, table).expect("measures"));
    assert!(bytes < 4 * MIB, "4,000 bars took {bytes} bytes at peak");
    // Every bar is the same: similarity 1, no novelty, one distinct bar in 4,000.
    let raw = |id: &str| fp.readings.iter().find(|r| r.axis.id() == id).unwrap().raw;
    assert_eq!(raw("form_self_similarity"), 1.0);
    assert_eq!(raw("form_novelty_rate"), 0.0);
    assert_eq!(raw("form_distinct_bar_frac"), 1.0 / 4_000.0);

    // Twice the bars, at most about twice the memory (linear, not quadratic).
    let text = one_note_bars(8_000);
    let (_, bytes_8k) = peak(|| fingerprint_text(&text, table).expect("measures"));
    assert!(
        bytes_8k < 3 * bytes,
        "8,000 bars took {bytes_8k} bytes, 4,000 took {bytes}"
    );

    // One bar over the limit: refused with the counts, before any layout (the
    // peak is a small fraction of the text itself).
    let text = one_note_bars(MAX_MEASURED_BARS + 1);
    let (result, bytes) = peak(|| fingerprint_text(&text, table));
    match result {
        Err(MeasureError::Layout(LayoutError::TooManyBars { bars, limit })) => {
            assert_eq!(
                (bars, limit),
                ((MAX_MEASURED_BARS + 1) as u64, MAX_MEASURED_BARS)
            );
        }
        other => panic!("expected the bar limit, got {other:?}"),
    }
    assert!(bytes < text.len() / 4, "refusing took {bytes} bytes");
    let message = fingerprint_text(&text, table).unwrap_err().to_string();
    assert_eq!(
        message,
        format!(
            "the piece has {} bars; at most {MAX_MEASURED_BARS} are measured (the form axes compare every two bars)",
            MAX_MEASURED_BARS + 1
        )
    );

    // A score whose last note ends in bar 30,000 is refused the same way.
    let mut score = Score::default();
    let mut voice = Voice::new("V");
    let bar = Time::from_integer(4);
    voice.events.push(Event::new(
        bar * Time::from_integer(29_999),
        Time::from_integer(1),
        vec![Pitch::new(60)],
    ));
    score.voices.push(voice);
    let (result, bytes) = peak(|| fingerprint(&score, table));
    assert!(
        matches!(
            result,
            Err(MeasureError::Layout(LayoutError::TooManyBars {
                bars: 30_000,
                ..
            }))
        ),
        "{result:?}"
    );
    assert!(bytes < 64 * 1024, "refusing the score took {bytes} bytes");

    // A layout built by hand is checked too.
    let mut layout = Layout::from_text(&one_note_bars(2)).expect("lays out");
    let block = layout.blocks[0].clone();
    layout.blocks.resize(MAX_MEASURED_BARS + 1, block);
    assert!(matches!(
        cantus_libretto::fingerprint::raw_axes(&layout),
        Err(MeasureError::Layout(LayoutError::TooManyBars { .. }))
    ));

    // Copy risk of 4,000 identical bars against themselves: every note found at
    // offset 0 (the smallest of the best offsets), memory linear.
    let text = one_note_bars(4_000);
    let layout = Layout::from_text(&text).expect("lays out");
    let grid = NoteGrid::of(&layout.song());
    let ((risk, offset), bytes) = peak(|| grid.slide_overlap(&grid));
    assert_eq!((risk, offset), (1.0, 0));
    assert!(bytes < MIB, "the slide took {bytes} bytes");
}
