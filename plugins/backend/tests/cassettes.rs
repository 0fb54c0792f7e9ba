//! `--record` then `--replay`: the same requests get the same answers with no server,
//! in order; a request that was not recorded is an explicit error naming the call.

mod support;

use cantus_backend::Cassette;
use cantus_backend::cassette::{Entry, Outcome};
use cantus_framework::{Constraint, ModelBackend, ModelError};
use std::path::PathBuf;
use support::{FakeServer, Reply, ask, backend, config_toml, openai_reply};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cantus-cassette-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("run.jsonl")
}

#[tokio::test]
async fn a_recorded_run_replays_offline_and_in_order() {
    let path = temp("roundtrip");
    let recorded = {
        let server = FakeServer::start(vec![
            Reply::json(openai_reply("first")),
            Reply::json(openai_reply("second")),
            Reply::status(404, r#"{"error":{"message":"no such model"}}"#),
            Reply::json(openai_reply("constrained")),
        ]);
        let cassette =
            Cassette::record(backend(&config_toml("openai", &server.url, "")), &path).unwrap();
        let mut constrained = ask("row?");
        constrained.constraint = Some(Constraint::Gbnf("root ::= \"P0\"".into()));
        let out = vec![
            cassette.complete(&ask("same")).await,
            cassette.complete(&ask("same")).await,
            cassette.complete(&ask("missing model")).await,
            cassette.complete(&constrained).await,
        ];
        assert_eq!(server.count(), 4);
        (out, cassette.name())
    }; // the server is gone now

    let replay = Cassette::replay(&path).unwrap();
    assert_eq!(
        replay.name(),
        recorded.1,
        "a replayed trace names the recorded backend"
    );
    let mut constrained = ask("row?");
    constrained.constraint = Some(Constraint::Gbnf("root ::= \"P0\"".into()));
    let again = vec![
        replay.complete(&ask("same")).await,
        replay.complete(&ask("same")).await,
        replay.complete(&ask("missing model")).await,
        replay.complete(&constrained).await,
    ];
    assert_eq!(again, recorded.0, "same answers, same errors, same order");
    assert_eq!(again[0].as_ref().unwrap().text, "first");
    assert_eq!(again[1].as_ref().unwrap().text, "second");

    let lines: Vec<Entry> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.iter().map(|e| e.call).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    assert!(matches!(
        lines[2].outcome,
        Outcome::Error(ModelError::Http { status: 404, .. })
    ));
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[tokio::test]
async fn a_request_not_on_the_cassette_is_an_error_naming_the_call() {
    let path = temp("miss");
    let server = FakeServer::start(vec![Reply::json(openai_reply("only"))]);
    let cassette =
        Cassette::record(backend(&config_toml("openai", &server.url, "")), &path).unwrap();
    cassette.complete(&ask("recorded")).await.unwrap();
    drop(cassette);

    let replay = Cassette::replay(&path).unwrap();
    let err = replay.complete(&ask("never asked")).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ModelError::Config(_)), "{text}");
    assert!(
        text.contains("call 1 is not on cassette") && text.contains("never asked"),
        "{text}"
    );
    // A different sampling setting is a different request.
    let mut hotter = ask("recorded");
    hotter.sampling.temperature = Some(1.0);
    assert!(replay.complete(&hotter).await.is_err());
    // The recorded one still answers once, then it is used up.
    assert_eq!(
        replay.complete(&ask("recorded")).await.unwrap().text,
        "only"
    );
    let err = replay.complete(&ask("recorded")).await.unwrap_err();
    assert!(
        err.to_string().contains("call 4 is not on cassette"),
        "{err}"
    );
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn a_damaged_cassette_names_its_line() {
    let path = temp("damaged");
    let good = serde_json::to_string(&Entry {
        call: 1,
        backend: "openai:m".into(),
        request: ask("x"),
        outcome: Outcome::Reply(cantus_framework::ModelReply::text("y")),
    })
    .unwrap();
    std::fs::write(&path, format!("{good}\n\n{{\"call\": 2, \"backend\"\n")).unwrap();
    let Err(err) = Cassette::replay(&path) else {
        panic!("damaged cassette loaded")
    };
    assert!(err.to_string().contains("line 3"), "{err}");
    let Err(err) = Cassette::replay(&path.with_file_name("absent.jsonl")) else {
        panic!()
    };
    assert!(err.to_string().contains("absent.jsonl"), "{err}");
    std::fs::remove_dir_all(path.parent().unwrap()).unwrap();
}

#[test]
fn requests_carry_no_field_a_key_could_hide_in() {
    // The request and reply types are the whole cassette; neither has a place for a key.
    let mut request = ask("hello");
    request.constraint = Some(Constraint::JsonSchema(
        serde_json::json!({"type": "object"}),
    ));
    let json = serde_json::to_value(&request).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["constraint", "messages", "sampling"]);
    let reply = serde_json::to_value(cantus_framework::ModelReply::text("x")).unwrap();
    for field in reply.as_object().unwrap().keys() {
        assert!(
            !field.contains("key") && !field.contains("auth") && !field.contains("header"),
            "{field}"
        );
    }
}
