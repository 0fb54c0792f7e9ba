//! Shared by the render tests: tools that must be there in CI.
#![allow(dead_code)]

/// Whether a missing tool must fail the test (CI sets CANTUS_REQUIRE_TOOLS=1).
pub fn require_tools() -> bool {
    std::env::var("CANTUS_REQUIRE_TOOLS").as_deref() == Ok("1")
}

/// Runs `found` or says SKIPPED (or panics under CANTUS_REQUIRE_TOOLS=1).
pub fn tool_or_skip<T, E: std::fmt::Display>(found: Result<T, E>) -> Option<T> {
    match found {
        Ok(t) => Some(t),
        Err(e) if require_tools() => {
            panic!("{e} (CANTUS_REQUIRE_TOOLS=1; run scripts/install-music-tools.sh)")
        }
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            None
        }
    }
}

/// A fresh temporary directory.
pub fn temp_dir(label: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "cantus-render-{label}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}
