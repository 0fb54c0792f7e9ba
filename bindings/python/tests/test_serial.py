"""cantus.analyze and cantus.rows against the shipped Webern and music21's row table."""

from __future__ import annotations

from fractions import Fraction

import pytest

import cantus
from conftest import WEBERN, cli_json


@pytest.fixture(scope="module")
def webern() -> cantus.Score:
    return cantus.read(WEBERN)


def test_webern_is_read_as_twelve_tone_with_its_row_named(webern) -> None:
    a = cantus.analyze(webern)
    assert a.row_source == "inferred" and a.row_name == "WebernOp21"
    assert a.verdict == "twelve-tone" and a.share > 0.9
    assert a.statements and all(isinstance(s.onset, Fraction) for s in a.statements)
    first = a.statements[0]
    assert first.labels and first.label.startswith(("P", "I", "R"))
    assert first.notes[0].position is not None and first.notes[0].voice_name
    assert len(a.unexplained) == a.notes - a.explained
    assert "statement" in a.listing.lower() and repr(a).startswith("<cantus.Analysis twelve-tone")


def test_the_analysis_is_the_one_the_cli_prints(webern) -> None:
    ours = cantus.analyze(webern, row="Webern Op. 21")
    theirs = cli_json("analyze", str(WEBERN), "--row", "Webern Op. 21")
    assert ours.raw == theirs


def test_canons_and_the_row_given(webern) -> None:
    a = cantus.analyze(webern, row=[9, 5, 8, 7, 11, 10, 4, 3, 6, 0, 1, 2])
    assert a.row_source == "given"
    for c in a.canons:
        assert c.relation in ("transposition", "inversion", "retrograde", "retrograde-inversion")
        assert isinstance(c.delay, Fraction)


def test_the_verdict_is_judged_against_shuffled_copies(webern) -> None:
    a = cantus.analyze(webern)
    assert len(a.control.copies) == 3 and a.control.skipped is None
    assert all(c.notes == a.notes for c in a.control.copies)
    # Webern's order is what the copies lose: his share in complete statements
    # clearly exceeds the best of theirs.
    assert a.control.highest is not None and a.complete_share > a.control.highest + 0.2
    assert [c.seed for c in a.control.copies] == [c["seed"] for c in a.raw["control"]["copies"]]
    alone = cantus.analyze(webern, control_copies=0)
    assert alone.control.copies == () and alone.control.highest is None
    assert alone.control.skipped


def test_analysis_errors(webern) -> None:
    with pytest.raises(cantus.RowError):
        cantus.analyze(webern, row="no such row")
    with pytest.raises(cantus.AnalysisError, match="min_positions"):
        cantus.analyze(webern, min_positions=13)
    for copies in (17, -1, 1000):
        with pytest.raises(cantus.AnalysisError, match="control_copies"):
            cantus.analyze(webern, control_copies=copies)


def test_rows_gives_48_forms_the_matrix_and_properties() -> None:
    r = cantus.rows("Webern Op. 21")
    assert r.name == "WebernOp21" and len(r.forms) == 48
    assert len(r.matrix) == 12 and all(len(line) == 12 for line in r.matrix)
    assert r.matrix[0][0] == 0 and sorted(r.matrix[0]) == list(range(12))
    # Op. 21's row is its own retrograde at the tritone: every form has two labels.
    assert r.symmetries and len(r.labels_of(r.form("P0"))) == 2
    assert r.form("p0") == r.matrix[0]
    assert "Matrix" in str(r) and "<table>" in r._repr_html_()
    relative = cantus.rows(r.row, convention="relative")
    assert relative.convention == "relative" and relative.form("P0") == r.row


def test_rows_take_pitch_classes_note_names_and_the_all_interval_test() -> None:
    all_interval = cantus.rows([0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9])
    assert all_interval.row == (0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9)
    assert cantus.rows("0 1 2 3 4 5 6 7 8 9 T E").row == tuple(range(12))
    assert not cantus.rows("0 1 2 3 4 5 6 7 8 9 10 11").all_interval
    with pytest.raises(cantus.RowError):
        cantus.rows("0 1 2")
    with pytest.raises(cantus.RowError):
        cantus.rows("0 0 1 2 3 4 5 6 7 8 9 10")
    with pytest.raises(cantus.RowError, match="convention"):
        cantus.rows("Webern Op. 21", convention="sideways")


def test_the_71_historical_rows_agree_with_music21s_serial_module() -> None:
    serial = pytest.importorskip("music21.serial")
    rows = cantus.historical_rows()
    assert len(rows) == 71
    for h in rows:
        ours = cantus.rows(h.id)
        assert ours.row == h.pcs
        theirs = serial.getHistoricalRowByName(h.id)
        assert list(ours.row) == list(theirs.row), h.id
        m21 = theirs.matrix()
        matrix = tuple(tuple(n.pitch.pitchClass for n in m21[i]) for i in range(12))
        assert ours.matrix == matrix, h.id
        for n in range(12):
            p = theirs.zeroCenteredTransformation("P", n)
            assert ours.form(f"P{n}") == tuple(x.pitchClass for x in p.pitches), (h.id, n)
            ri = theirs.zeroCenteredTransformation("RI", n)
            assert ours.form(f"RI{n}") == tuple(x.pitchClass for x in ri.pitches), (h.id, n)
