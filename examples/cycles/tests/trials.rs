//! The domain's experiment part on its own, as the runner drives it: the `[tasks]`
//! table read into tasks, and a trial's outcome — released or not, the gate's rules
//! by id, the loop's totals, the artefact in its format and the trace — with and
//! without the ladder.

use cantus_example_cycles::trials::CyclesTrials;
use cantus_registry::{Attempt, DomainId, Form, TaskTable, Trials, View};
use std::path::Path;

fn table(json: serde_json::Value) -> TaskTable {
    let serde_json::Value::Object(values) = json else {
        panic!("a table")
    };
    TaskTable::new(DomainId::new("cycles"), values, Path::new("."))
}

fn attempt(seed: u64, repair: bool) -> Attempt<'static> {
    Attempt {
        seed,
        model: None,
        // The whole ladder, or none.
        rungs: if repair { None } else { Some(&[]) },
        replans: None,
        form: Form::SECTIONS,
        folder: None,
    }
}

#[tokio::test]
async fn a_trial_is_released_judged_by_every_rule_and_counted() {
    let mut t = table(serde_json::json!({ "alphabet": [4, 6], "cycles": 3, "mistakes": 0.3 }));
    let tasks = CyclesTrials.tasks(&mut t).expect("a task set");
    assert!(t.unread().is_none());
    let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["a4-c3", "a6-c3"]);
    assert!(tasks[1].brief.starts_with("3 cycles of 6 symbols"));

    // Some seed's trial is released after repairs; every trial is judged by the same
    // five rules, its loop counted and its trace kept.
    let trial = &tasks[1].trial;
    let mut released = 0;
    for seed in 0..8 {
        let tried = trial.run(attempt(seed, true)).await;
        let judged = tried.judgement.as_ref().expect("an artefact was judged");
        let rules: Vec<&str> = judged.violations.keys().map(|r| r.as_str()).collect();
        assert_eq!(
            rules,
            [
                "CY-ALPHABET",
                "CY-COMPLETE",
                "CY-CURSOR",
                "CY-CYCLE",
                "CY-WINDOW"
            ]
        );
        assert_eq!(tried.released, judged.passed, "seed {seed}");
        assert_eq!(tried.released, tried.reason.is_empty(), "seed {seed}");
        let totals = tried.totals.as_ref().expect("the loop ran");
        assert!(totals.events_proposed >= 18, "seed {seed}: {totals:?}");
        assert_eq!(tried.sections, 3);
        let made = tried.artefact.as_ref().expect("an artefact");
        assert_eq!(made.files.len(), 1);
        assert_eq!(made.files[0].0, "txt");
        let text = String::from_utf8(made.files[0].1.clone()).unwrap();
        assert!(text.starts_with("window 4\n"), "{text}");
        assert!(matches!(made.view, View::Text(_)));
        let trace = String::from_utf8(tried.trace.clone().expect("a trace")).unwrap();
        assert!(trace.lines().count() > 3);
        assert!(
            !trace.contains("\"timing\""),
            "no timing line: same seed, same bytes"
        );
        released += usize::from(tried.released);
    }
    assert!(released >= 4, "{released} of 8 released");

    // Without the ladder nothing is repaired.
    let bare = trial.run(attempt(0, false)).await;
    assert_eq!(bare.totals.unwrap().repaired, 0);
    // The embedded proposer's trials apply (a model's do not: `tests/cycles_cli.rs`).
    assert!(trial.not_applicable(&attempt(0, true)).is_none());
}

#[test]
fn a_bad_table_names_its_key() {
    let mut t = table(serde_json::json!({ "alphabet": 3 }));
    let err = CyclesTrials
        .tasks(&mut t)
        .err()
        .expect("window 4 > 3 symbols");
    assert_eq!(err.key.as_deref(), Some("window"));
    let mut t = table(serde_json::json!({ "cycles": [] }));
    let err = CyclesTrials.tasks(&mut t).err().expect("an empty list");
    assert_eq!(err.key.as_deref(), Some("cycles"));
}
