//! Compressed MusicXML (`.mxl`): read through its container, or its one score
//! when there is no container; zip bombs and damaged archives refused with a
//! clear error; errors inside the score name the entry and the line; and the
//! round trip to the text grammar.

use cantus_music::ReadOptions;
use cantus_music::format::{self, Format};
use cantus_music::musicxml::{self, MAX_MXL_XML_BYTES, MusicXmlError};
use std::io::Write;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A zip archive of `(name, bytes)` entries, deflated.
fn zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    let mut w = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        w.start_file(*name, opts).expect("entry");
        w.write_all(bytes).expect("write");
    }
    w.finish().expect("finish");
    out.into_inner()
}

#[test]
fn an_mxl_reads_as_the_score_its_container_names() {
    let plain = format::read_path(&fixture("musicxml/duet.musicxml"), false).expect("plain");
    let zipped = format::read_path(&fixture("mxl/duet.mxl"), false).expect("compressed");
    assert_eq!(zipped.format, Format::Mxl);
    assert_eq!(zipped.score, plain.score);
    assert_eq!(zipped.score.title.as_deref(), Some("Duet in a zip"));
    assert_eq!(zipped.score.event_count(), 6);
    // Without a container, the one score in the archive, with a warning.
    let bare = format::read_path(&fixture("mxl/no-container.mxl"), false).expect("no container");
    assert_eq!(bare.score, plain.score);
    assert!(
        bare.warnings
            .iter()
            .any(|w| w.contains("no META-INF/container.xml")),
        "{:?}",
        bare.warnings
    );
    // musicxml::read_file dispatches on the extension too.
    let (score, _) = musicxml::read_file(&fixture("mxl/duet.mxl")).expect("read_file");
    assert_eq!(score, plain.score);
}

#[test]
fn an_mxl_round_trips_through_the_text_grammar() {
    let zipped = format::read_path(&fixture("mxl/duet.mxl"), false).expect("reads");
    let text = format::render(&zipped.score, Format::Grammar).expect("writes");
    let back = cantus_music::grammar::parse(
        std::str::from_utf8(&text).expect("UTF-8"),
        &Default::default(),
    )
    .expect("reads back")
    .score;
    let mut expected = zipped.score.clone();
    expected.title = None;
    expected.bars = Some(expected.bar_count());
    assert_eq!(back, expected);
}

#[test]
fn a_zip_bomb_is_refused_without_reading_it_into_memory() {
    // 80 MiB of spaces inside a valid score deflate to about 80 KiB.
    let mut xml = b"<?xml version=\"1.0\"?><score-partwise>".to_vec();
    xml.resize(xml.len() + (80 << 20), b' ');
    xml.extend(b"</score-partwise>");
    let bomb = zip(&[("score.musicxml", &xml)]);
    drop(xml);
    assert!(bomb.len() < 1 << 20, "{} bytes compressed", bomb.len());
    let err = musicxml::read_mxl(&bomb, &ReadOptions::default()).expect_err("a bomb");
    let text = err.to_string();
    assert!(
        text.contains("decompresses to more than 64 MiB") && text.contains("zip bomb"),
        "{text}"
    );
    assert_eq!(MAX_MXL_XML_BYTES, 64 << 20);
}

#[test]
fn damaged_archives_and_bad_scores_inside_them_say_where() {
    let err = musicxml::read_mxl(b"PK\x03\x04 not really", &ReadOptions::default())
        .expect_err("not a zip");
    assert!(matches!(err, MusicXmlError::Archive(_)), "{err}");
    assert!(
        err.to_string().contains("not a readable zip archive"),
        "{err}"
    );

    let container =
        br#"<container><rootfiles><rootfile full-path="s.xml"/></rootfiles></container>"#;
    let missing = zip(&[("META-INF/container.xml", container)]);
    let err = musicxml::read_mxl(&missing, &ReadOptions::default()).expect_err("no score");
    assert!(
        err.to_string()
            .contains("names \"s.xml\", which is not in the archive"),
        "{err}"
    );

    let bad = zip(&[
        ("META-INF/container.xml", container),
        (
            "s.xml",
            b"<score-partwise>\n<part-list>\n<oops>\n</score-partwise>",
        ),
    ]);
    let err = musicxml::read_mxl(&bad, &ReadOptions::default()).expect_err("malformed");
    let text = err.to_string();
    assert!(text.starts_with("s.xml: line 4"), "{text}");

    let bad_container = zip(&[(
        "META-INF/container.xml",
        b"<container>\n<rootfiles>\n<rootfile/>",
    )]);
    let err = musicxml::read_mxl(&bad_container, &ReadOptions::default()).expect_err("container");
    assert!(
        err.to_string().starts_with("META-INF/container.xml: line"),
        "{err}"
    );

    // Through the format layer the file is named first.
    let dir = std::env::temp_dir().join(format!("cantus-mxl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bad.mxl");
    std::fs::write(&path, &bad).expect("write");
    let err = format::read_path(&path, false)
        .expect_err("malformed")
        .to_string();
    assert!(err.contains("bad.mxl: s.xml: line 4"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
