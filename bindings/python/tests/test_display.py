"""Notebook display: engravings when LilyPond runs, plain tables when it does not."""

from __future__ import annotations

import pytest

import cantus
from cantus import _display
from conftest import WEBERN


def test_without_lilypond_a_score_shows_a_table(monkeypatch) -> None:
    monkeypatch.setattr(_display, "_lilypond", False)
    html = cantus.read(WEBERN)._repr_html_()
    assert "<table>" in html and "<svg" not in html and "Violin I" in html


def test_with_lilypond_a_score_shows_its_engraving() -> None:
    if not _display.lilypond_available():
        pytest.skip("SKIPPED: LilyPond is not installed")
    score = cantus.compose("Write a 4-bar piece for two voices in 4/4 on Webern's Op. 21 row", seed=1).piece
    assert score is not None
    # LilyPond starts slowly (seconds): three engravings, each kept where it is cached.
    assert "<svg" in score._repr_html_()
    analysis = cantus.analyze(score)
    labelled = analysis.engrave()
    assert b"<svg" in labelled and labelled != score.engrave("svg")
    assert score.engrave("png").startswith(b"\x89PNG")
    with pytest.raises(cantus.FormatError):
        score.engrave("gif")  # type: ignore[arg-type]


def test_names_in_tables_are_escaped(monkeypatch) -> None:
    monkeypatch.setattr(_display, "_lilypond", False)
    score = cantus.Score([cantus.Voice("<script>alert(1)</script>", [cantus.Event(0, 1, [60])])])
    assert "<script>" not in score._repr_html_()


def test_every_result_has_a_repr_and_html(monkeypatch) -> None:
    monkeypatch.setattr(_display, "_lilypond", False)
    score = cantus.read(WEBERN)
    for value in (score, cantus.verify(score), cantus.analyze(score), cantus.rows("Webern Op. 21"),
                  cantus.fingerprint(score), cantus.compare(score, score)):
        assert repr(value).startswith("<cantus.")
        assert value._repr_html_()
