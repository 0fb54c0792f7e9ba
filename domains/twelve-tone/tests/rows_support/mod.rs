//! Shared helpers for the `rows_*` tests: where the read-only shared data lives, and
//! the polite skip when it is absent.

use std::path::PathBuf;

/// `$CANTUS_SHARED`, or `<workspace root>/../shared`.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("CANTUS_SHARED") {
        Some(dir) => PathBuf::from(dir),
        // CARGO_MANIFEST_DIR is domains/twelve-tone; the workspace root is two up.
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
    }
}

/// The shared file at `relative`, or `None` after printing the SKIPPED line — unless
/// `CANTUS_REQUIRE_SHARED=1`, in which case a missing file fails the test.
pub fn shared_file(relative: &str, what: &str) -> Option<PathBuf> {
    let dir = shared_dir();
    let path = dir.join(relative);
    if path.is_file() {
        return Some(path);
    }
    if std::env::var("CANTUS_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "{what}: shared data required (CANTUS_REQUIRE_SHARED=1) but {} is missing",
            path.display()
        );
    }
    eprintln!(
        "SKIPPED: {what} (shared data not found at {}; set CANTUS_SHARED)",
        dir.display()
    );
    None
}

/// A file shipped in this crate's `tests/fixtures/`.
#[allow(dead_code)] // not every test file uses fixtures
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}
