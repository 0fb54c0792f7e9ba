//! Throughput of the serial analyser (`cantus analyze`) for a given row, on
//! synthetic four-voice pieces (`cantus_twelve_tone::synth`: chords, rests,
//! overlapping voices) of about 10^3, 10^4 and 10^5 notes on the Op. 25 row, each
//! statement's notes dealt out over the voices in turns (so statements pass between
//! voices, as in real twelve-tone music). The analysis is meant to be linear in the
//! number of notes: the three sizes should take time in proportion. A second group
//! analyses mirror canons whose strands interleave note by note between two hands (the
//! texture the canon pass reads strand by strand), of the same sizes. Run with
//! `cargo bench --bench analyze -- --warm-up-time 1 --measurement-time 5`.

use cantus_music::{Event, Pitch, Score, Time, Voice};
use cantus_twelve_tone::analysis::{Options, analyze};
use cantus_twelve_tone::row::resolve;
use cantus_twelve_tone::synth::{SynthOptions, piece};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

/// A synthetic piece of about `notes` notes whose events are dealt out over the
/// voices in turns of three.
fn dealt(notes: usize) -> Score {
    let row = resolve("SchoenbergOp25").expect("a historical row").row;
    let mut options = SynthOptions::new(row, 4, notes * 7 / 8, 7);
    options.tags = false;
    let mut score = piece(&options).score;
    let voices = score.voices.len();
    let mut moved: Vec<Vec<cantus_music::Event>> = vec![Vec::new(); voices];
    for (v, voice) in score.voices.iter_mut().enumerate() {
        for (k, e) in voice.events.drain(..).enumerate() {
            moved[(v + k / 3) % voices].push(e);
        }
    }
    for (voice, events) in score.voices.iter_mut().zip(moved) {
        voice.events = events;
        voice.sort();
    }
    score
}

/// A mirror canon of about `notes` notes on the Op. 25 row: the leader states forms
/// one after another in sixteenths, the follower its mirror about A4 a sixteenth
/// later, each note in the hand its register falls in (so every onset is a dyad
/// across or within the hands).
fn mirror(notes: usize) -> Score {
    let row = resolve("SchoenbergOp25").expect("a historical row").row;
    let table = cantus_twelve_tone::row::FormTable::new(
        &row,
        cantus_twelve_tone::row::Convention::ZeroCentred,
    );
    let forms: Vec<_> = cantus_twelve_tone::row::RowForm::all().collect();
    let mut rng = fastrand::Rng::with_seed(3);
    let mut hands = [Voice::new("Right hand"), Voice::new("Left hand")];
    let step = Time::new(1, 4);
    let mut k = 0i64;
    let mut prev = 70i16;
    while (k as usize) * 2 < notes {
        let form = forms[rng.usize(..forms.len())];
        for &pc in table.pcs(form) {
            let base = prev - prev.rem_euclid(12) + i16::from(pc);
            let m = [base - 12, base, base + 12]
                .into_iter()
                .filter(|m| (57..=81).contains(m) && *m != 69)
                .min_by_key(|m| (m - prev).abs())
                .unwrap_or(base);
            prev = m;
            for (midi, at) in [(m, k), (138 - m, k + 1)] {
                let hand = usize::from(midi < 69);
                let pitch = Pitch::new(u8::try_from(midi).expect("in range"));
                let onset = step * Time::from_integer(at);
                hands[hand]
                    .events
                    .push(Event::new(onset, step, vec![pitch]));
            }
            k += 1;
        }
    }
    for h in &mut hands {
        h.sort();
        // A dyad within one hand is one chord.
        let mut merged: Vec<Event> = Vec::with_capacity(h.events.len());
        for e in h.events.drain(..) {
            match merged.last_mut() {
                Some(last) if last.onset == e.onset => {
                    last.pitches.extend(e.pitches);
                    last.normalise_pitches();
                }
                _ => merged.push(e),
            }
        }
        h.events = merged;
    }
    Score {
        voices: hands.into(),
        ..Score::default()
    }
}

fn analyse(c: &mut Criterion) {
    let options = Options {
        row: Some(resolve("SchoenbergOp25").expect("a historical row").row),
        // One pass: the verdict's control (shuffled copies, skipped past 5,000 notes
        // anyway) would multiply the smallest size's time by four.
        control_copies: 0,
        ..Options::default()
    };
    let pieces: Vec<Score> = SIZES.iter().map(|&n| dealt(n)).collect();
    let mut group = c.benchmark_group("analyze_given_row");
    for score in &pieces {
        let notes: usize = score
            .voices
            .iter()
            .flat_map(|v| &v.events)
            .map(|e| e.pitches.len())
            .sum();
        let analysis = analyze(score, &options).expect("a synthetic piece is analysable");
        assert!(
            analysis.explained * 100 >= analysis.notes * 95,
            "{} of {} notes explained",
            analysis.explained,
            analysis.notes
        );
        if notes > 50_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(notes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(notes), score, |b, score| {
            b.iter(|| black_box(analyze(black_box(score), &options)))
        });
    }
    group.finish();

    let canons: Vec<Score> = SIZES.iter().map(|&n| mirror(n)).collect();
    let mut group = c.benchmark_group("analyze_mirror_canon");
    for score in &canons {
        let notes: usize = score
            .voices
            .iter()
            .flat_map(|v| &v.events)
            .map(|e| e.pitches.len())
            .sum();
        let analysis = analyze(score, &options).expect("a canon is analysable");
        assert!(
            analysis.explained * 100 >= analysis.notes * 95 && !analysis.canons.is_empty(),
            "{} of {} notes explained, {} canons",
            analysis.explained,
            analysis.notes,
            analysis.canons.len()
        );
        if notes > 50_000 {
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(notes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(notes), score, |b, score| {
            b.iter(|| black_box(analyze(black_box(score), &options)))
        });
    }
    group.finish();
}

criterion_group!(benches, analyse);
criterion_main!(benches);
