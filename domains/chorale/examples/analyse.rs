//! Prints a chorale beat by beat: the tones of each part at the beat, the chord and
//! its Roman numeral, the phrase ends, then every violation under a profile.
//!
//! `cargo run -p cantus-chorale --example analyse -- FILE [strict|lenient] [FROM_BAR TO_BAR]`

use cantus_chorale::{Part, Profile, ReadOptions, judge_score};
use cantus_music::format::read_path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: analyse FILE [strict|lenient] [FROM_BAR TO_BAR]".into());
    };
    let profile = args
        .get(1)
        .and_then(|p| Profile::parse(p))
        .unwrap_or_default();
    let from: u32 = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(0);
    let to: u32 = args.get(3).and_then(|b| b.parse().ok()).unwrap_or(u32::MAX);
    let loaded = read_path(std::path::Path::new(path), false)?;
    let options = ReadOptions {
        profile,
        ..ReadOptions::default()
    };
    let (report, reading, analysis) = judge_score(&loaded.score, &options)?;
    let c = &reading.chorale;
    println!(
        "{}: {} ({:?}), {} beats",
        path,
        c.key,
        reading.key_source,
        analysis.total()
    );
    for beat in &analysis.beats {
        let (bar, b) = c.bar_beat(beat.start);
        if bar < from || bar > to {
            continue;
        }
        let tones: Vec<String> = analysis.slices[beat.slices.clone()]
            .iter()
            .map(|s| {
                Part::ALL
                    .iter()
                    .map(|p| s.tone(*p).map_or("-".into(), |t| t.to_string()))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        println!(
            "{bar:3}:{:<4} {:12} {:8} {}{}",
            cantus_music::time_text::format(b),
            beat.chord.map_or("-".into(), |ch| ch.to_string()),
            beat.chord.map_or("-".into(), |ch| ch.roman(c.key)),
            tones.join(" | "),
            if beat.phrase_end.is_some() {
                "  (phrase end)"
            } else {
                ""
            }
        );
    }
    for v in &report.violations {
        if v.location.bar >= from && v.location.bar <= to {
            println!(
                "{} {} {}: {}",
                if v.is_hard() { "hard" } else { "soft" },
                v.predicate,
                v.location,
                v.reason
            );
        }
    }
    Ok(())
}
