//! A condition's form reaches a registered domain's trial as the condition asks it —
//! sections, the revise loop, one reply in a prompt style — and only when the domain
//! runs that form; the rest are recorded as not applicable in the runner's words. A
//! domain's lenient gate and degeneracy verdict reach the record as twelve-tone's do.

use cantus_experiment::jobs::Jobs;
use cantus_experiment::run::{Plan, read_whole_results, results_path, run};
use cantus_experiment::shard::Shard;
use cantus_experiment::{Experiment, RunOutcome};
use cantus_framework::RuleId;
use cantus_registry::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
// Twelve-tone beside the test's domain, as the program links it: its prompt styles
// and the `soft-rules` condition it ships are asked of a domain that has neither.
use cantus_twelve_tone as _;

/// The artefact: one line of text.
#[derive(Clone, Debug, PartialEq)]
struct Line(String);

impl Artefact for Line {
    const EXTENSIONS: &'static [&'static str] = &["txt"];
    const READS: &'static [&'static str] = &["txt"];
    fn to_bytes(&self, _: &str) -> Result<Vec<u8>, String> {
        Ok(self.0.clone().into_bytes())
    }
    fn read(path: &Path) -> Result<(Line, Vec<String>), String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Ok((Line(text), Vec::new()))
    }
    fn view(&self) -> View {
        View::Text(self.0.clone())
    }
}

/// A domain whose trials run sections and one reply in two styles, not the revise
/// loop; each trial writes down the form it was given.
struct Echo;

const RULE: RuleId = RuleId::new("EC-STRICT");

impl Trials for Echo {
    fn tasks(&self, _: &mut TaskTable) -> Result<Vec<TrialTask>, TaskTableError> {
        Ok(vec![TrialTask::new(
            "one",
            "one",
            "say which form was asked",
            Arc::new(EchoTrial),
        )])
    }

    fn forms(&self) -> Forms {
        Forms {
            revise: false,
            whole: vec![
                WholeStyle::PLAIN,
                WholeStyle {
                    id: "terse",
                    rounds: true,
                },
            ],
        }
    }

    fn lenient_gate(&self) -> Option<LenientGate> {
        Some(LenientGate {
            strict: "the echo gate (every letter heard)",
            lenient: "the gate that takes the echo's word",
        })
    }

    fn collision_rule(&self) -> Option<RuleId> {
        Some(RULE)
    }
}

struct EchoTrial;

#[async_trait(?Send)]
impl Trial for EchoTrial {
    async fn run(&self, attempt: Attempt<'_>) -> Tried {
        let said = match attempt.form {
            Form::Sections { revise_rounds } => format!("sections {revise_rounds}"),
            Form::Whole(w) => format!(
                "whole {} {:?} {:?} {}",
                w.prompt.style, w.prompt.rounds, w.instruction, w.constrained
            ),
        };
        let whole = matches!(attempt.form, Form::Whole(_));
        // The strict gate refuses a one-reply artefact; the lenient one lets it
        // through on the generator's word.
        Tried {
            released: !whole,
            reason: if whole {
                "refused".into()
            } else {
                String::new()
            },
            artefact: Some(Made::of(&Line(said))),
            judgement: Some(Judgement {
                passed: !whole,
                violations: BTreeMap::from([(RULE, u64::from(whole))]),
            }),
            lenient: Some(Lenient {
                judgement: Judgement {
                    passed: true,
                    violations: BTreeMap::from([(RULE, 0)]),
                },
                trusted: Some(u64::from(whole) * 3),
            }),
            degeneracy_passed: Some(!whole),
            ..Tried::default()
        }
    }
}

struct EchoPlugin;

impl DomainPlugin for EchoPlugin {
    fn id(&self) -> DomainId {
        DomainId::new("echo")
    }
    fn build(&self, unit: &mut Unit) {
        unit.describe("says which form it was asked for", "0")
            .artefact::<Line>()
            .trials(Echo);
    }
}

register!(EchoPlugin);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trial_is_given_the_form_its_condition_asks_and_only_one_its_domain_runs() {
    let dir = std::env::temp_dir().join(format!("cantus-forms-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("echo.toml");
    std::fs::write(
        &file,
        r#"runs = 1
conditions = ["harness", "raw", "soft-rules", "revise", "terse", "terse-told"]

[tasks]
domain = "echo"

[[models]]
name = "null"
config = "null.toml"

[[custom_conditions]]
name = "terse"
proposer = "whole"
prompt = { style = "terse", rounds = 2 }

[[custom_conditions]]
name = "terse-told"
proposer = "whole"
constrained = true
prompt = { style = "terse", rounds = 1 }
instruction = "Be brief."
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("null.toml"),
        "[backend]\nkind = \"null\"\nseed = 1\n",
    )
    .unwrap();
    let exp = Experiment::load(&file).unwrap();
    let out = dir.join("out");
    let handle = tokio::runtime::Handle::current();
    let plan = Plan {
        jobs: Jobs::new(1).unwrap(),
        shard: Shard::WHOLE,
    };
    let (ran, out) =
        tokio::task::spawn_blocking(move || (run(&exp, &out, plan, &handle, &|_, _| {}), out))
            .await
            .unwrap();
    ran.unwrap();
    let (_, records) = read_whole_results(&results_path(&out)).unwrap();
    let by = |condition: &str| {
        records
            .iter()
            .find(|r| r.key.condition.0 == condition)
            .unwrap_or_else(|| panic!("{condition}: {records:?}"))
    };

    assert_eq!(by("harness").piece.as_deref(), Some("sections 0"));
    assert_eq!(
        by("raw").piece.as_deref(),
        Some("whole plain None None false")
    );
    assert_eq!(
        by("terse").piece.as_deref(),
        Some("whole terse Some(2) None false")
    );
    assert_eq!(
        by("terse-told").piece.as_deref(),
        Some("whole terse Some(1) Some(\"Be brief.\") true"),
        "a one-reply trial places the instruction itself"
    );
    for (condition, why) in [
        (
            "soft-rules",
            "not for echo tasks: the echo domain has no `soft-rules` prompt (its prompts: `plain`, `terse`)",
        ),
        (
            "revise",
            "not for echo tasks: this condition is the revise loop, and the echo domain runs none",
        ),
    ] {
        let r = by(condition);
        assert_eq!(r.outcome, RunOutcome::NotApplicable, "{r:?}");
        assert_eq!(r.reason, why);
    }

    // The lenient gate's verdict, what it took on trust and the degeneracy verdict
    // are recorded beside the strict gate's.
    let harness = by("harness");
    assert_eq!(harness.outcome, RunOutcome::Released);
    assert!(harness.released_relaxed);
    assert_eq!(harness.events_relying_on_tags, Some(0));
    assert_eq!(harness.libretto_degeneracy_passed, Some(true));
    let raw = by("raw");
    assert_eq!(raw.outcome, RunOutcome::Refused);
    assert_eq!(raw.strict.as_ref().unwrap().violations["EC-STRICT"], 1);
    assert!(raw.relaxed.as_ref().unwrap().passed);
    assert!(raw.released_relaxed, "refused only on the rules");
    assert_eq!(raw.events_relying_on_tags, Some(3));
    assert_eq!(raw.libretto_degeneracy_passed, Some(false));

    // The report gives the lenient gate's delivery beside the strict one's, and
    // describes both gates and the rule reported alone in the domain's words.
    cantus_experiment::report::report(&out, None).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(
            "Strict: released by the echo gate (every letter heard). Relaxed: the gate that \
             takes the echo's word."
        ),
        "{md}"
    );
    assert!(md.contains("no vertical collision (`EC-STRICT`)"), "{md}");
    assert!(
        md.contains("| null | raw | 1 | 0.0% [0.0, 0.0] | 100.0% [100.0, 100.0] | +100.0 pp | 1 |"),
        "raw: refused by the strict gate, passed by the lenient one: {md}"
    );
    assert!(!md.contains("row tags"), "no twelve-tone words: {md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_prompt_style_no_domain_has_is_refused_where_it_is_written() {
    let dir = std::env::temp_dir().join(format!("cantus-forms-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.toml");
    std::fs::write(
        &file,
        "runs = 1\nconditions = [\"x\"]\n[tasks]\ndomain = \"echo\"\n[[models]]\nname = \"embedded\"\n\
         [[custom_conditions]]\nname = \"x\"\nproposer = \"whole\"\nprompt = { style = \"shout\" }\n",
    )
    .unwrap();
    let err = Experiment::load(&file).err().expect("refused").to_string();
    assert!(
        err.contains("unknown prompt style `shout`, expected one of `plain`, "),
        "{err}"
    );
    for style in ["`soft-rules`", "`self-refine`", "`terse`"] {
        assert!(err.contains(style), "every domain's styles: {err}");
    }
    assert!(err.contains("bad.toml"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
