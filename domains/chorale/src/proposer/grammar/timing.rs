//! The time the offers of whole chorales take (not a check: run it by name, in a
//! release build, to compare versions of the grammar).

use super::*;
use std::sync::Arc;

/// Each offer along Bach's lower parts of the first four shared chorales (and
/// along the null model's path on BWV 269 in the fixture), timed.
#[test]
#[ignore = "a measurement: cargo test --release -p cantus-chorale --lib timing -- --ignored --nocapture"]
fn offer_time_on_whole_chorales() {
    let dir = std::env::var_os("CANTUS_SHARED").map_or_else(
        || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared"),
        std::path::PathBuf::from,
    );
    let Ok((tasks, _)) = crate::experiment::tasks(&dir.join("data/corpus/bach_chorales"), 4) else {
        eprintln!("SKIPPED: offer timing (shared data not found; set CANTUS_SHARED)");
        return;
    };
    let mut all = std::time::Duration::ZERO;
    for t in &tasks {
        let cadences = Arc::new(t.spec.cadence_beats());
        let mut a = t.spec.open();
        let (mut sum, mut worst) = (std::time::Duration::ZERO, 0.0f64);
        let (mut offered, mut undecided, mut exact) = (0, 0, 0);
        while a.beats.len() < a.total() {
            let b = a.beats.len();
            let task = Task {
                base: &a,
                end: crate::proposer::horizon(&cadences, b),
                cadences: Arc::clone(&cadences),
                profile: Profile::Strict,
            };
            let clock = std::time::Instant::now();
            let o =
                offer(&task, None, &[], Profile::Strict, &Proofs::default()).unwrap_or_default();
            offered += o.len();
            undecided += o.undecided;
            exact += usize::from(o.undecided == 0);
            let took = clock.elapsed();
            sum += took;
            worst = worst.max(took.as_secs_f64());
            let c = &t.bach.chorale;
            let at = c.beat_start(t.bach.number_of(b));
            let tone = |p: Part| c.note_at(p, at).map(|n| c.parts[p.index()][n].tone);
            let (Some(alto), Some(tenor), Some(bass)) =
                (tone(Part::Alto), tone(Part::Tenor), tone(Part::Bass))
            else {
                break;
            };
            let v = Voicing {
                beat: b,
                alto,
                tenor,
                bass,
            };
            if !push_voicing(&mut a, &v) {
                break;
            }
        }
        all += sum;
        eprintln!(
            "TIMING {}: {} beats, offers {:.2} s in all, {:.0} ms at worst, {offered} voicings offered, {undecided} of them undecided; {exact} offers exact",
            t.id,
            a.beats.len(),
            sum.as_secs_f64(),
            worst * 1000.0
        );
    }
    eprintln!("TIMING all: {:.2} s", all.as_secs_f64());
}
