"""cantus.fingerprint and cantus.compare: Libretto's numbers, as the CLI computes them."""

from __future__ import annotations

import pytest

import cantus
from conftest import MUSIC, WEBERN, cli_json


def test_the_fingerprint_has_29_axes_placed_as_the_cli_places_them() -> None:
    fp = cantus.fingerprint(WEBERN)
    assert len(fp) == 29 and fp.reference_pieces == 314
    for r in fp:
        assert 0 <= r.percentile <= 100 and r.extreme in (None, "low", "high")
    theirs = cli_json("fingerprint", str(WEBERN))
    for axis, reading in theirs["axes"].items():
        assert fp[axis].raw == pytest.approx(reading["raw"], rel=0, abs=0)
        assert fp[axis].percentile == reading["percentile"]
    assert list(fp.extremes) == theirs["extremes"]
    assert "<table>" in fp._repr_html_() and set(fp.to_dict()) == set(theirs["axes"])


def test_a_score_measures_like_its_file() -> None:
    score = cantus.read(MUSIC / "musicxml" / "duet.musicxml")
    assert cantus.fingerprint(score).to_dict() == cantus.fingerprint(MUSIC / "musicxml" / "duet.musicxml").to_dict()


def test_compare_finds_a_piece_in_itself_and_matches_the_cli() -> None:
    same = cantus.compare(WEBERN, WEBERN)
    assert same.copy_risk == 1.0 and same.copy and same.distance == 0.0
    other = MUSIC / "grammar" / "round1.txt"
    c = cantus.compare(WEBERN, other)
    theirs = cli_json("compare", str(WEBERN), str(other))
    assert (c.copy_risk, c.copy_risk_reverse, c.offset, c.distance) == (
        theirs["copy_risk"],
        theirs["copy_risk_reverse"],
        theirs["offset"],
        theirs["distance"],
    )
    assert "copy risk" in repr(c)


def test_a_bad_calibration_table_is_a_measure_error(tmp_path) -> None:
    table = tmp_path / "table.json"
    table.write_text("{")
    with pytest.raises(cantus.MeasureError):
        cantus.fingerprint(WEBERN, calibration=table)
