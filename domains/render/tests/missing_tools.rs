//! With no LilyPond, engraving is an error naming the program and how to install
//! it (its own test binary: it points CANTUS_LILYPOND at nothing).

use cantus_render::engrave::{Target, engrave};

#[test]
fn a_missing_lilypond_is_named_with_its_install_command() {
    // SAFETY of the test: this binary has one test, so no other thread reads the environment.
    unsafe { std::env::set_var("CANTUS_LILYPOND", "/nonexistent/lilypond") };
    let dir = std::env::temp_dir().join(format!("cantus-missing-{}", std::process::id()));
    let err = engrave("\\version \"2.24.0\"\n{ c'4 }\n", &dir, "x", Target::Pdf)
        .expect_err("no lilypond");
    let text = err.to_string();
    assert!(
        text.contains("LilyPond") && text.contains("apt-get install lilypond"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
