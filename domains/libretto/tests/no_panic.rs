//! Whatever the text, measuring it never panics: it measures or says why not.

use cantus_libretto::{Calibration, fingerprint_text};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("KEY: C major | METER: 4/4 | GRID: 16th | BARS: 4".to_string()),
        Just("KEY: C major | METER: 0/4 | GRID: 0".to_string()),
        Just("KEY: C major | METER: 0/4 | GRID: 16th".to_string()),
        Just("KEY: C major | METER: 99999999999999999999999/1 | GRID: 3t".to_string()),
        Just("VOICES: A, B, A".to_string()),
        "@[0-9]{1,3} \\[[A-G-]?\\]( \\(grid:[0-9t]{1,3}\\))?",
        "@[0-9]{0,2}[ a-z]{0,4}",
        "  [AB]: ([A-Gb#]{1,3}-?[0-9]{1,2}(\\+[A-G][0-9])?@[0-9]{1,3}>[0-9]{1,3} ?){0,5}",
        "  Ghost: C4@1>4",
        "[ -~]{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn any_text_measures_or_errs(lines in prop::collection::vec(line(), 0..24)) {
        let text = lines.join("\n");
        if let Ok(fp) = fingerprint_text(&text, Calibration::original()) {
            prop_assert!(fp.readings.iter().all(|r| r.raw.is_finite() && r.percentile <= 100));
        }
    }
}
