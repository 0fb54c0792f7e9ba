"""cantus.experiment: records as dicts and as a DataFrame; damaged files refused by line."""

from __future__ import annotations

import sys

import pytest

import cantus
from conftest import EXPERIMENT


def test_the_records_load_as_dicts() -> None:
    exp = cantus.experiment.load(EXPERIMENT)
    assert exp.name == "python-example" and len(exp) == 64
    assert exp.conditions == ["raw", "harness", "no-repair", "no-replan"]
    assert all({"task", "model", "condition", "run", "outcome"} <= set(r) for r in exp)
    assert exp[0]["piece"].startswith("KEY:")
    delivery = exp.delivery()
    assert delivery[("embedded", "harness")] == (16, 16)
    assert "strict delivery" in exp._repr_html_()
    # The file itself may be named.
    assert len(cantus.experiment.load(EXPERIMENT / "results.jsonl")) == 64


def test_the_records_load_as_a_dataframe() -> None:
    pytest.importorskip("pandas")
    frame = cantus.experiment.dataframe(EXPERIMENT)
    assert len(frame) == 64
    assert {"condition", "outcome", "released", "cost.calls", "strict.passed"} <= set(frame.columns)
    rates = frame.groupby("condition")["released"].mean()
    assert rates["harness"] == 1.0 and rates["raw"] < 1.0


def test_without_pandas_the_dataframe_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        cantus.experiment.load(EXPERIMENT).to_dataframe()


def test_a_malformed_line_is_refused_naming_file_and_line(tmp_path) -> None:
    lines = (EXPERIMENT / "results.jsonl").read_text().splitlines(keepends=True)
    damaged = tmp_path / "results.jsonl"
    damaged.write_text("".join(lines[:3]) + '{"kind": "run", "task": \n' + "".join(lines[3:]))
    with pytest.raises(cantus.ExperimentError) as caught:
        cantus.experiment.load(tmp_path)
    assert caught.value.line == 4 and caught.value.path == str(damaged)


def test_a_cut_off_last_line_is_left_out_with_a_warning(tmp_path) -> None:
    text = (EXPERIMENT / "results.jsonl").read_text()
    (tmp_path / "results.jsonl").write_text(text + '{"kind": "run", "ta')
    with pytest.warns(cantus.CantusWarning, match="cut off"):
        exp = cantus.experiment.load(tmp_path)
    assert len(exp) == 64


def test_an_oversized_line_is_refused_without_reading_it_whole(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(cantus.experiment, "MAX_LINE_BYTES", 1000)
    with pytest.raises(cantus.ExperimentError, match="longer than 1000 bytes"):
        cantus.experiment.load(EXPERIMENT)


def test_no_results_and_no_header(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        cantus.experiment.load(tmp_path)
    (tmp_path / "results.jsonl").write_text('{"kind": "run"}\n')
    with pytest.raises(cantus.ExperimentError, match="before the experiment header"):
        cantus.experiment.load(tmp_path)
