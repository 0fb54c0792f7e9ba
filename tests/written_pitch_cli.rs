//! `--written-pitch`: transposing parts are read at sounding pitch unless asked.

use std::path::Path;
use std::process::Command;

fn convert(flags: &[&str], out: &Path) -> String {
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("domains/music/tests/fixtures/musicxml/transposing.musicxml");
    let status = Command::new(env!("CARGO_BIN_EXE_cantus"))
        .arg("convert")
        .args(flags)
        .arg(&input)
        .arg(out)
        .status()
        .expect("cantus runs");
    assert!(status.success(), "convert {flags:?} failed");
    std::fs::read_to_string(out).expect("written")
}

#[test]
fn convert_reads_sounding_pitch_by_default_and_written_pitch_on_request() {
    let dir = std::env::temp_dir().join(format!("cantus-written-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let sounding = convert(&[], &dir.join("sounding.txt"));
    let written = convert(&["--written-pitch"], &dir.join("written.txt"));
    // The B♭ clarinet's written D5 sounds C5.
    assert!(sounding.contains("Clarinet in B♭: C5@1>1"), "{sounding}");
    assert!(written.contains("Clarinet in B♭: D5@1>1"), "{written}");
    std::fs::remove_dir_all(&dir).ok();
}
