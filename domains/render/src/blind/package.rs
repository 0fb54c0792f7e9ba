//! Building the package: choose pairs, hide which is which, render both sides,
//! write the rating page, the manifest and the key.

use super::{CRITERIA, CSV_HEADER, manifest};
use crate::audio::{AudioFormat, Instrument, render as render_audio};
use crate::engrave::{Target, engrave_files, source};
use crate::error::{RenderError, Result};
use crate::piece::Piece;
use crate::report::escape;
use cantus_bounded as bounded;
use cantus_music::annotation::Annotations;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const RATE_JS: &str = include_str!("rate.js");

/// What to build.
#[derive(Clone)]
pub struct BlindOptions {
    /// Pairs wanted (fewer when fewer exist; [`Package::available`] says how many did).
    pub pairs: usize,
    /// The two conditions compared, e.g. `harness` and `raw`.
    pub conditions: [String; 2],
    /// The seed of the pair choice and the sides; `None`: a fresh one from the
    /// system's randomness (recorded in the key either way), so two packages never
    /// share their sides by default.
    pub seed: Option<u64>,
    /// The package directory (created; must be empty or absent).
    pub out: PathBuf,
    /// Where the key goes; never inside the package. `None`: `PKG.key.json` beside it.
    pub key: Option<PathBuf>,
    pub instrument: Instrument,
}

/// What was built.
#[derive(Clone, Debug)]
pub struct Package {
    pub index: PathBuf,
    pub manifest: PathBuf,
    pub key: PathBuf,
    /// The seed the pairs and sides were drawn with (in the key too).
    pub seed: u64,
    /// Pairs in the package.
    pub pairs: usize,
    /// Pairs the input offered.
    pub available: usize,
    /// LilyPond warnings, `file: warning`.
    pub warnings: Vec<String>,
}

/// One run folder as the contract reads it.
struct Run {
    folder: PathBuf,
    task: String,
    model: String,
    condition: String,
}

fn contract_error(folder: &Path, message: String) -> RenderError {
    RenderError::Blind {
        path: folder.join("report.json"),
        message,
    }
}

fn read_run(folder: &Path) -> Result<Run> {
    let path = folder.join("report.json");
    let text = bounded::read_text(&path, bounded::TEXT_FILE_CAP, "report.json")
        .map_err(|e| RenderError::io(&path, e))?;
    let report: Value = serde_json::from_str(&text)
        .map_err(|e| contract_error(folder, format!("not JSON: {e}")))?;
    let text_at = |pointer: &str| {
        report
            .pointer(pointer)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    // An experiment's run folder names its cell under "study"; a folder made by
    // hand may name it at the top.
    let key =
        |name: &str| text_at(&format!("/study/{name}")).or_else(|| text_at(&format!("/{name}")));
    let condition = key("condition").ok_or_else(|| {
        contract_error(
            folder,
            "needs a \"condition\" string (e.g. \"harness\" or \"raw\"); the run folders of \
             `cantus experiment run` (with run_folders = true) and `cantus bank` name it"
                .into(),
        )
    })?;
    let task = key("task")
        .or_else(|| text_at("/brief/text"))
        .ok_or_else(|| {
            contract_error(folder, "needs a \"task\" string (or a brief.text)".into())
        })?;
    let model = match key("model") {
        Some(m) => m,
        None => {
            let trace = folder.join("trace.jsonl");
            std::fs::read_to_string(&trace)
                .ok()
                .and_then(|t| {
                    t.lines()
                        .next()
                        .and_then(|l| serde_json::from_str::<Value>(l).ok())
                })
                .and_then(|h| h.get("proposer").and_then(Value::as_str).map(str::to_owned))
                .ok_or_else(|| {
                    contract_error(
                        folder,
                        "needs a \"model\" string (or a trace naming its proposer)".into(),
                    )
                })?
        }
    };
    Ok(Run {
        folder: folder.to_path_buf(),
        task,
        model,
        condition,
    })
}

/// Builds the package (see the module docs).
pub fn build(input: &Path, options: &BlindOptions) -> Result<Package> {
    let key_path = manifest::key_place(&options.out, options.key.as_deref())?;
    let seed = options.seed.unwrap_or_else(|| fastrand::Rng::new().u64(..));
    if options.out.symlink_metadata().is_ok() && !options.out.is_dir() {
        return Err(RenderError::OutputIsAFile {
            path: options.out.clone(),
        });
    }
    if options.out.exists()
        && std::fs::read_dir(&options.out)
            .map_err(|e| RenderError::io(&options.out, e))?
            .next()
            .is_some()
    {
        return Err(RenderError::Blind {
            path: options.out.clone(),
            message: "the package directory is not empty; give a new one".into(),
        });
    }
    let folders = crate::report::index::run_folders(input)?;
    let runs = folders
        .iter()
        .map(|f| read_run(f))
        .collect::<Result<Vec<_>>>()?;
    // (task, model) → runs of each condition, in folder order.
    let mut groups: BTreeMap<(String, String), [Vec<&Run>; 2]> = BTreeMap::new();
    for run in &runs {
        if let Some(side) = options.conditions.iter().position(|c| *c == run.condition) {
            groups
                .entry((run.task.clone(), run.model.clone()))
                .or_default()[side]
                .push(run);
        }
    }
    let mut candidates: Vec<(&Run, &Run)> = groups
        .values()
        .flat_map(|[a, b]| a.iter().copied().zip(b.iter().copied()))
        .collect();
    let available = candidates.len();
    if available == 0 {
        return Err(RenderError::Blind {
            path: input.to_path_buf(),
            message: format!(
                "no pairs: no task and model has runs under both {:?} and {:?}",
                options.conditions[0], options.conditions[1]
            ),
        });
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    rng.shuffle(&mut candidates);
    candidates.truncate(options.pairs);

    let out = &options.out;
    let created = !out.exists();
    crate::error::output_dir(out)?;
    // Once more now that the package exists: a key path through a link that led
    // nowhere before may lead into it now.
    if let Err(e) = manifest::key_place(out, Some(&key_path)) {
        if created {
            let _ = std::fs::remove_dir(out);
        }
        return Err(e);
    }
    let mut sources = Vec::new();
    let mut key_pairs = Vec::new();
    let mut pairs_html = String::new();
    for (i, (first, second)) in candidates.iter().enumerate() {
        let id = format!("pair-{:02}", i + 1);
        let swap = rng.bool();
        let (a, b) = if swap {
            (second, first)
        } else {
            (first, second)
        };
        for (side, run) in [("A", a), ("B", b)] {
            let mut piece = Piece::load(&run.folder, None)?;
            piece.score_mut()?.title = None;
            let stem = format!("{id}-{side}");
            let ly = out.join(format!("{stem}.ly"));
            let text = source(piece.score()?, &Annotations::new(), Target::Svg)?;
            std::fs::write(&ly, text).map_err(|e| RenderError::io(&ly, e))?;
            sources.push(ly);
            let audio = render_audio(
                piece.score()?,
                &piece.tempo,
                &options.instrument,
                AudioFormat::Ogg,
            )?;
            let path = out.join(format!("{stem}.ogg"));
            std::fs::write(&path, audio).map_err(|e| RenderError::io(&path, e))?;
        }
        key_pairs.push(json!({
            "pair": id,
            "task": a.task,
            "model": a.model,
            "A": { "condition": a.condition, "run": a.folder.display().to_string() },
            "B": { "condition": b.condition, "run": b.folder.display().to_string() },
        }));
        pairs_html.push_str(&pair_html(&id, i + 1));
    }
    let engraved = engrave_files(&sources, out, Target::Svg)?;
    let warnings = engraved
        .iter()
        .flat_map(|e| {
            e.warnings
                .iter()
                .map(move |w| format!("{}: {w}", e.source.display()))
        })
        .collect();
    for ly in &sources {
        std::fs::remove_file(ly).map_err(|e| RenderError::io(ly, e))?;
    }
    let index = out.join("index.html");
    std::fs::write(&index, page(&pairs_html, candidates.len()))
        .map_err(|e| RenderError::io(&index, e))?;
    let manifest = manifest::write(out)?;
    let manifest_hash = manifest::hex(&Sha256::digest(
        std::fs::read(&manifest).map_err(|e| RenderError::io(&manifest, e))?,
    ));
    let key = json!({
        "seed": seed,
        "conditions": options.conditions,
        "package": out.display().to_string(),
        "manifest_sha256": manifest_hash,
        "pairs": key_pairs,
    });
    if let Some(parent) = key_path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| RenderError::io(parent, e))?;
    }
    std::fs::write(
        &key_path,
        serde_json::to_string_pretty(&key).unwrap_or_default(),
    )
    .map_err(|e| RenderError::io(&key_path, e))?;
    Ok(Package {
        index,
        manifest,
        key: key_path,
        seed,
        pairs: candidates.len(),
        available,
        warnings,
    })
}

fn pair_html(id: &str, number: usize) -> String {
    let mut out = format!(
        "<section class=\"pair\" id=\"{id}\" data-pair=\"{id}\">\n<h2>Pair {number}</h2>\n<div class=\"sides\">\n"
    );
    for side in ["A", "B"] {
        let _ = writeln!(
            out,
            "<div class=\"side\"><h3>Piece {side}</h3><img src=\"{id}-{side}.svg\" alt=\"score of piece {side}\">\n\
             <audio controls preload=\"metadata\" src=\"{id}-{side}.ogg\"></audio></div>"
        );
    }
    out.push_str("</div>\n");
    for c in CRITERIA {
        let name = format!("{id}-{}", c.id());
        let _ = write!(
            out,
            "<div class=\"criterion\" data-criterion=\"{cid}\"><span class=\"name\" title=\"{q}\">{t}</span>",
            cid = c.id(),
            q = escape(c.question()),
            t = escape(c.title())
        );
        for (value, label) in [("A", "A"), ("B", "B"), ("none", "no preference")] {
            let _ = write!(
                out,
                " <label><input type=\"radio\" name=\"{name}-pref\" value=\"{value}\"> {label}</label>"
            );
        }
        for side in ["a", "b"] {
            let _ = write!(
                out,
                " <label>{} <select name=\"{name}-rating-{side}\"><option value=\"\">–</option>{}</select></label>",
                side.to_uppercase(),
                (1..=5)
                    .map(|k| format!("<option value=\"{k}\">{k}</option>"))
                    .collect::<String>()
            );
        }
        out.push_str("</div>\n");
    }
    out.push_str("</section>\n");
    out
}

fn page(pairs: &str, count: usize) -> String {
    let mut out = crate::report::index::index_html("Blind listening study", &[], &[]);
    // Reuse the page head and style; replace the empty body with the form.
    let body_at = out.find("<h1>").unwrap_or(out.len());
    out.truncate(body_at);
    let _ = write!(
        out,
        "<h1>Blind listening study</h1>\n<p>{count} pairs. Each pair is two pieces written for the same task. \
         Read and listen to both, then for each criterion choose the piece you prefer (or no preference) \
         and rate each piece from 1 (poor) to 5 (excellent). Nothing on this page says how a piece was made.</p>\n\
         <p><label>Your rater id <input id=\"rater\" name=\"rater\" required></label></p>\n{pairs}\
         <p><button id=\"export\" type=\"button\">Export ratings</button> <span id=\"export-status\" class=\"note\"></span></p>\n\
         <textarea id=\"csv-output\" rows=\"6\" cols=\"80\" readonly placeholder=\"the exported CSV also appears here\"></textarea>\n\
         <script>const CANTUS_CSV_HEADER = \"{CSV_HEADER}\";\n{RATE_JS}</script>\n</body>\n</html>\n"
    );
    out
}
