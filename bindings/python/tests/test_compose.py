"""cantus.compose: the embedded harness from Python, deterministic, off the GIL."""

from __future__ import annotations

import math
import threading
import time

import pytest

import cantus
from conftest import FUZZ

BRIEF = "Write an 8-bar piece for two voices in 4/4 at 72 bpm on Webern's Op. 21 row"


def test_a_brief_composes_a_released_piece_with_its_report_and_trace() -> None:
    done = cantus.compose(BRIEF, seed=7)
    assert done.released and done.diagnostics == []
    assert done.piece is not None and done.piece.bars == 8 and len(done.piece.voices) == 2
    assert done.report["released"] and done.report["seed"] == 7
    assert done.report["row"] and done.report["gate"]["passed"]
    kinds = [entry["kind"] for entry in done.trace]
    assert kinds[0] == "run" and kinds[-2:] == ["totals", "timing"]
    assert {"event", "call", "section", "gate"} <= set(kinds)
    assert done.totals["events_proposed"] >= done.totals["accepted"] > 0
    assert cantus.verify(done.piece).passed


def test_the_same_seed_gives_the_same_piece() -> None:
    a = cantus.compose(BRIEF, seed=11).piece
    b = cantus.compose(BRIEF, seed=11).piece
    c = cantus.compose(BRIEF, seed=12).piece
    assert a is not None and b is not None and c is not None
    assert a.to("txt") == b.to("txt") and a.to("txt") != c.to("txt")


def test_out_writes_the_run_folder_as_the_cli_does(tmp_path) -> None:
    done = cantus.compose(BRIEF, seed=2, out=tmp_path / "run")
    assert done.out is not None
    names = {p.name for p in done.out.iterdir()}
    assert {"piece.txt", "piece.musicxml", "trace.jsonl", "report.json", "spec.toml"} <= names
    assert cantus.read(done.out / "piece.txt").voices == done.piece.voices  # type: ignore[union-attr]
    with pytest.raises(cantus.ComposeError):
        cantus.compose(BRIEF, seed=3, out=tmp_path / "run")
    assert cantus.compose(BRIEF, seed=3, out=tmp_path / "run", force=True).released


def test_revise_and_the_relaxed_gate() -> None:
    done = cantus.compose(BRIEF, seed=4, revise=2)
    assert done.piece is not None
    assert cantus.compose(BRIEF, seed=4, mode="relaxed").report["gate"]["gate"].endswith("relaxed")


def test_counterpoint_composes_a_released_exercise() -> None:
    done = cantus.compose(domain="counterpoint", cantus="dorian", species=2, position="below", seed=1)
    assert done.released and done.piece is not None
    assert cantus.verify(done.piece, domain="counterpoint").passed


def test_composing_releases_the_interpreter() -> None:
    """Another Python thread keeps running while pieces are composed."""
    brief = "Write a 200-bar piece for six voices in 4/4 on Schoenberg's Op. 25 row"
    # How long one piece takes depends on the machine, so time one first and compose
    # as many as fill about half a second: long enough that a held interpreter shows.
    once = time.perf_counter()
    cantus.compose(brief, seed=5)
    once = time.perf_counter() - once
    pieces = max(1, math.ceil(0.5 / max(once, 1e-3)))
    ticks = 0
    finished = threading.Event()

    def work() -> None:
        for _ in range(pieces):
            cantus.compose(brief, seed=5)
        finished.set()

    thread = threading.Thread(target=work)
    started = time.perf_counter()
    thread.start()
    while not finished.is_set():
        ticks += 1
        time.sleep(0.001)
    thread.join()
    elapsed = time.perf_counter() - started
    # Held, the interpreter would run this loop about once per piece; released, about
    # once a millisecond (a fifth of that is plenty on a loaded machine).
    assert ticks > max(elapsed * 200, 3 * pieces), (ticks, pieces, elapsed)


def test_bad_briefs_options_and_configs_raise_clear_errors(tmp_path) -> None:
    with pytest.raises(cantus.BriefError):
        cantus.compose("a 0-bar piece")
    with pytest.raises(cantus.ComposeError, match="brief or a spec"):
        cantus.compose()
    with pytest.raises(cantus.ComposeError, match="counterpoint"):
        cantus.compose(BRIEF, species=1)
    with pytest.raises(cantus.ComposeError, match="needs --cantus"):
        cantus.compose(domain="counterpoint")
    with pytest.raises(cantus.DomainError):
        cantus.compose(BRIEF, domain="chess")
    config = tmp_path / "cantus.toml"
    config.write_text('[backend]\nkind = "openai"\ntemprature = 0.2\n')
    with pytest.raises(cantus.ConfigError) as caught:
        cantus.compose(BRIEF, config=config)
    assert caught.value.path == str(config) and caught.value.line == 3
    assert "temprature" in str(caught.value)


CONFIGS = sorted((FUZZ / "config").iterdir())


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_config_fuzz_reproducers_raise_config_errors(path) -> None:
    """Each reproducer is refused as a cantus.toml, or — valid — its (missing) replay
    cassette is: either way a ConfigError, and no backend is ever asked."""
    with pytest.raises(cantus.ConfigError) as caught:
        cantus.compose(BRIEF, config=path, replay=path.with_suffix(".no-such-cassette"))
    assert str(caught.value)
