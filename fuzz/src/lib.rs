//! A fuzz harness that runs on stable Rust inside `cargo test`, for a bounded
//! time, over every reader of untrusted input.
//!
//! Each [`Target`] is one reader: a function from bytes to nothing (it reads
//! and drops), a seed corpus directory (`fuzz/corpus/<name>/`, committed, holding
//! the cases of past issues), generated seeds too large to commit, and the
//! [`Limits`] each input must stay within. [`run`] feeds every seed and a fixed
//! number of seeded mutations of them (a ChaCha RNG from a fixed seed, so a run
//! is reproducible) to the target and checks, per input:
//!
//! * it does not panic (nor does the target's check of what it read, such as
//!   "what the writer writes, the reader reads back");
//! * it takes at most [`Limits::time`] of wall-clock time;
//! * its peak heap allocation stays within `base + per_byte × input length`,
//!   measured by the [`CountingAllocator`] that the test binary installs as its
//!   `#[global_allocator]` (a test binary holding one `#[test]`, so nothing else
//!   allocates while an input runs).
//!
//! A failure names the target, the input (seed file, or seed and mutation
//! number) and writes the offending bytes to `target/fuzz-failures/` so they
//! can be committed as a new seed once fixed.
//!
//! To add a target (a TOML spec or config loader, the brief compiler): put its
//! seeds in `fuzz/corpus/<name>/`, add the crate to `[dev-dependencies]`, and
//! add one [`Target`] to the list in `fuzz/tests/fuzz.rs`. See `fuzz/README.md`.

use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The global allocator of a fuzz test binary: the system allocator, counting
/// the bytes live now and the most live since [`CountingAllocator::reset_peak`].
pub struct CountingAllocator {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl CountingAllocator {
    /// A counter at zero (for a `static`).
    pub const fn new() -> Self {
        CountingAllocator {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Bytes allocated and not yet freed.
    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    /// Sets the peak to what is live now.
    pub fn reset_peak(&self) {
        self.peak.store(self.live(), Ordering::Relaxed);
    }

    /// The most bytes live at once since the last reset.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn grew(&self, by: usize) {
        let now = self.live.fetch_add(by, Ordering::Relaxed) + by;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn shrank(&self, by: usize) {
        self.live.fetch_sub(by, Ordering::Relaxed);
    }
}

impl Default for CountingAllocator {
    fn default() -> Self {
        Self::new()
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only
// observe the sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's layout.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            self.grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (through us).
        unsafe { System.dealloc(ptr, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; `ptr` came from `System` through us.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size > layout.size() {
                self.grew(new_size - layout.size());
            } else {
                self.shrank(layout.size() - new_size);
            }
        }
        p
    }
}

/// What one input may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Wall-clock time for one input (generous: test builds are not optimised
    /// fully and CI machines are shared; a quadratic path still blows it).
    pub time: Duration,
    /// Peak heap bytes allowed whatever the input's size.
    pub base_bytes: usize,
    /// Peak heap bytes allowed per byte of input.
    pub per_byte: usize,
}

impl Limits {
    /// The peak allocation allowed for an input of `len` bytes.
    pub fn bytes_for(&self, len: usize) -> usize {
        self.base_bytes
            .saturating_add(self.per_byte.saturating_mul(len))
    }
}

/// One reader under test.
pub struct Target {
    /// Name, also the corpus directory under `fuzz/corpus/`.
    pub name: &'static str,
    /// Reads the bytes and drops the result; must never panic. Its time and
    /// memory are measured.
    pub read: fn(&[u8]),
    /// Runs after `read`, unmeasured, and must not panic either: properties of
    /// what was read (e.g. that it writes and reads back), whose cost is the
    /// writers' and is bounded by their own limits.
    pub also: fn(&[u8]),
    /// Seeds built in code (too large to commit), named.
    pub generated: fn() -> Vec<(String, Vec<u8>)>,
    /// Byte strings worth splicing into this target's inputs (tokens, tags, chunk heads).
    pub dictionary: &'static [&'static [u8]],
    /// What each input may cost.
    pub limits: Limits,
}

/// No property check after reading.
pub fn nothing_more(_: &[u8]) {}

/// No generated seeds.
pub fn no_generated() -> Vec<(String, Vec<u8>)> {
    Vec::new()
}

/// How much to run.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Mutated inputs per target (besides every seed as it is).
    pub mutations: usize,
    /// Largest mutated input, in bytes (mutations that grow past it are cut).
    pub max_len: usize,
    /// The RNG seed: a run is the same every time.
    pub seed: [u8; 32],
}

/// What a target's run saw.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Inputs run.
    pub inputs: usize,
    /// Largest peak allocation seen, and the input length it came with.
    pub worst_bytes: (usize, usize),
    /// Longest time seen.
    pub worst_time: Duration,
}

/// The seeds of `target`: every file of its corpus directory (sorted), then its generated ones.
pub fn seeds(corpus: &Path, target: &Target) -> Vec<(String, Vec<u8>)> {
    let dir = corpus.join(target.name);
    // A target may have only generated seeds (git keeps no empty directory).
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let mut out: Vec<(String, Vec<u8>)> = files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (name, bytes)
        })
        .collect();
    out.extend((target.generated)());
    out
}

/// Runs `target` over its seeds and `budget.mutations` mutations of them,
/// checking every input against its limits with `alloc`. The error names the
/// first input that breaks a limit (saved under `failures`) and why.
///
/// Readers' panics are caught; install a quiet panic hook around the call to
/// keep their messages out of the test output.
pub fn run(
    target: &Target,
    corpus: &Path,
    budget: Budget,
    alloc: &CountingAllocator,
    failures: &Path,
) -> Result<Summary, String> {
    let seeds = seeds(corpus, target);
    if seeds.is_empty() {
        return Err(format!("target {} has no seeds", target.name));
    }
    let mut summary = Summary::default();
    for (name, bytes) in &seeds {
        check(
            target,
            &format!("seed {name}"),
            bytes,
            alloc,
            failures,
            &mut summary,
        )?;
    }
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &budget.seed);
    for k in 0..budget.mutations {
        let (name, base) = &seeds[rng.random_range(0..seeds.len())];
        let input = mutate(&mut rng, base, &seeds, target.dictionary, budget.max_len);
        check(
            target,
            &format!("mutation {k} of seed {name}"),
            &input,
            alloc,
            failures,
            &mut summary,
        )?;
    }
    Ok(summary)
}

fn check(
    target: &Target,
    what: &str,
    input: &[u8],
    alloc: &CountingAllocator,
    failures: &Path,
    summary: &mut Summary,
) -> Result<(), String> {
    let fail = |why: String| -> Result<(), String> {
        let _ = std::fs::create_dir_all(failures);
        let file = failures.join(format!("{}-{}", target.name, what.replace([' ', '/'], "-")));
        let _ = std::fs::write(&file, input);
        Err(format!(
            "fuzz target `{}`, {what} ({} bytes, saved to {}): {why}",
            target.name,
            input.len(),
            file.display()
        ))
    };
    let before = alloc.live();
    alloc.reset_peak();
    let start = Instant::now();
    let outcome = std::panic::catch_unwind(|| (target.read)(input));
    let took = start.elapsed();
    let peak = alloc.peak().saturating_sub(before);
    if let Err(panic) = outcome {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        return fail(format!("panicked: {message}"));
    }
    if let Err(panic) = std::panic::catch_unwind(|| (target.also)(input)) {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        return fail(format!("the check after reading panicked: {message}"));
    }
    if took > target.limits.time {
        return fail(format!("took {took:?}, limit {:?}", target.limits.time));
    }
    let allowed = target.limits.bytes_for(input.len());
    if peak > allowed {
        return fail(format!(
            "peak allocation {peak} bytes, limit {allowed} ({} + {} per input byte)",
            target.limits.base_bytes, target.limits.per_byte
        ));
    }
    summary.inputs += 1;
    if peak > summary.worst_bytes.0 {
        summary.worst_bytes = (peak, input.len());
    }
    summary.worst_time = summary.worst_time.max(took);
    Ok(())
}

/// Numbers that break readers: zero, negatives, the edges of integer types, huge decimals.
const NUMBERS: [&[u8]; 10] = [
    b"0",
    b"-1",
    b"1",
    b"255",
    b"65535",
    b"4294967295",
    b"9223372036854775807",
    b"99999999999999999999999",
    b"1e308",
    b"0.0000001",
];

/// One to eight byte-level mutations of `base`: flips, insertions, deletions,
/// repeated runs (to grow inputs), splices from other seeds, dictionary words
/// and hostile numbers; at most `max_len` bytes.
pub fn mutate(
    rng: &mut TestRng,
    base: &[u8],
    seeds: &[(String, Vec<u8>)],
    dictionary: &[&[u8]],
    max_len: usize,
) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..rng.random_range(1..=8) {
        let len = out.len();
        let at = if len == 0 {
            0
        } else {
            rng.random_range(0..=len)
        };
        match rng.random_range(0..8) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                out[i] ^= 1 << rng.random_range(0..8);
            }
            1 => {
                let n = rng.random_range(1..16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.random::<u8>()).collect();
                out.splice(at..at, bytes);
            }
            2 if len > 0 => {
                let end = (at + rng.random_range(1..64)).min(len);
                out.drain(at.min(end)..end);
            }
            3 if len > 0 => {
                // Repeat a run many times: long lines, deep nesting, many events.
                let end = (at + rng.random_range(1..32)).min(len);
                let run = out[at.min(end)..end].to_vec();
                let times = rng.random_range(2..2000);
                let room = max_len.saturating_sub(len) / run.len().max(1);
                let piece: Vec<u8> = run.repeat(times.min(room));
                out.splice(end..end, piece);
            }
            4 => {
                let (_, other) = &seeds[rng.random_range(0..seeds.len())];
                if !other.is_empty() {
                    let from = rng.random_range(0..other.len());
                    let to = (from + rng.random_range(1..256)).min(other.len());
                    out.splice(at..at, other[from..to].iter().copied());
                }
            }
            5 if !dictionary.is_empty() => {
                let word = dictionary[rng.random_range(0..dictionary.len())];
                out.splice(at..at, word.iter().copied());
            }
            6 => {
                // Replace the digit run at or after `at` with a hostile number.
                if let Some(start) = (at..len).find(|&i| out[i].is_ascii_digit()) {
                    let end = (start..len)
                        .find(|&i| !out[i].is_ascii_digit())
                        .unwrap_or(len);
                    let number = NUMBERS[rng.random_range(0..NUMBERS.len())];
                    out.splice(start..end, number.iter().copied());
                }
            }
            _ if len >= 4 => {
                // Overwrite four bytes with a big-endian hostile length.
                let i = rng.random_range(0..len - 3);
                let value: u32 =
                    [0, 1, 0x7F, 0xFFFF_FFFF, rng.random::<u32>()][rng.random_range(0..5)];
                out[i..i + 4].copy_from_slice(&value.to_be_bytes());
            }
            _ => {}
        }
        out.truncate(max_len);
    }
    out
}
