"""cantus.verify: every domain by name, the CLI's verdict, errors for what cannot be judged."""

from __future__ import annotations

from fractions import Fraction

import pytest

import cantus
from conftest import COUNTERPOINT, FUZZ, SPEC, cli_json

BRIEF = "Write an 8-bar piece for two voices in 4/4 at 72 bpm on Webern's Op. 21 row"


@pytest.fixture(scope="module")
def released() -> cantus.Score:
    done = cantus.compose(BRIEF, seed=1)
    assert done.released and done.piece is not None
    return done.piece


def collision() -> cantus.Score:
    """Two voices sounding pitch class 0 at once: TT-COLLISION in bar 1."""
    return cantus.Score(
        [
            cantus.Voice("Upper", [cantus.Event(0, 1, ["C5"])]),
            cantus.Voice("Lower", [cantus.Event(Fraction(1, 2), 1, ["C3"])]),
        ]
    )


def test_a_released_piece_passes_the_strict_gate(released) -> None:
    verdict = cantus.verify(released)
    assert verdict.passed and bool(verdict)
    assert verdict.domain == "twelve-tone" and verdict.gate == "twelve-tone/strict"
    assert verdict.events == len(released)
    assert verdict.hard_count == 0


def test_the_row_given_and_the_relaxed_mode(released) -> None:
    assert cantus.verify(released, row="Webern Op. 21").passed
    assert cantus.verify(released, mode="relaxed").gate == "twelve-tone/relaxed"
    wrong = cantus.verify(released, row=list(range(12)))
    assert not wrong.passed and "TT-ROW" in wrong.rules


def test_violations_carry_rule_bar_voice_and_exact_onset() -> None:
    verdict = cantus.verify(collision(), row="0 1 2 3 4 5 6 7 8 9 10 11")
    assert not verdict.passed
    v = next(v for v in verdict.violations if v.rule == "TT-COLLISION")
    assert v.hard and v.severity == "hard" and v.bar == 1
    assert v.voice in ("Upper", "Lower") and isinstance(v.onset, Fraction)
    assert "TT-COLLISION" in str(verdict) and "<table>" in verdict._repr_html_()


def test_the_verdict_is_the_one_the_cli_prints(tmp_path) -> None:
    path = tmp_path / "collision.txt"
    collision().write(path)
    ours = cantus.verify(path, row="0 1 2 3 4 5 6 7 8 9 10 11")
    theirs = cli_json("verify", str(path), "--row", "0 1 2 3 4 5 6 7 8 9 10 11")
    assert ours.raw["violations"] == theirs["violations"]
    assert ours.raw["facts"] == theirs["facts"] and ours.passed == theirs["passed"]


def test_a_spec_and_its_seed_rebuild_the_schedule() -> None:
    done = cantus.compose(spec=SPEC, seed=3)
    assert done.released and done.piece is not None
    assert cantus.verify(done.piece, spec=SPEC, seed=3).passed
    with pytest.raises(cantus.DomainError, match="'--row <ROW>' cannot be used with '--spec <SPEC>'"):
        cantus.verify(done.piece, spec=SPEC, row="Webern Op. 21")


SPEC_CASES = sorted((FUZZ / "spec").iterdir())


@pytest.mark.parametrize("path", SPEC_CASES, ids=[p.name for p in SPEC_CASES])
def test_spec_fuzz_reproducers_give_a_spec_error_or_a_verdict(path, released) -> None:
    try:
        verdict = cantus.verify(released, spec=path)
    except (cantus.SpecError, cantus.ReadError) as e:
        assert str(e)
    else:
        assert isinstance(verdict.passed, bool)


def test_a_spec_error_names_the_line(tmp_path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('bars = 8\nmeter = "4/4"\nrow = "not a row"\n')
    with pytest.raises(cantus.SpecError) as caught:
        cantus.verify(collision(), spec=path)
    assert caught.value.path == str(path)


def test_counterpoint_by_name_passes_fux_and_catches_parallels() -> None:
    good = cantus.verify(COUNTERPOINT / "fux" / "fig05-dorian-above.txt", domain="counterpoint")
    assert good.passed and good.domain == "counterpoint" and good.soft_scores is not None
    bad = cantus.verify(COUNTERPOINT / "rules" / "fs-p-parallel-perfect.txt", domain="counterpoint")
    assert not bad.passed
    v = next(v for v in bad.violations if v.rule == "FS-P-parallel-perfect")
    assert v.bar == 3
    theirs = cli_json("verify", "--domain", "counterpoint", str(COUNTERPOINT / "rules" / "fs-p-parallel-perfect.txt"))
    assert bad.raw["violations"] == theirs["violations"]


def test_counterpoint_options() -> None:
    path = COUNTERPOINT / "fux" / "fig05-dorian-above.txt"
    assert cantus.verify(path, domain="counterpoint", species=1, position="above", profile="lenient").passed
    with pytest.raises(cantus.DomainError, match="'3' for '--species <SPECIES>': 3 is not in 1..=2"):
        cantus.verify(path, domain="counterpoint", species=3)
    with pytest.raises(cantus.DomainError, match="--row is a flag of --domain twelve-tone only"):
        cantus.verify(path, domain="counterpoint", row="Webern Op. 21")


def test_what_a_domain_cannot_judge_is_a_domain_error() -> None:
    solo = cantus.Score([cantus.Voice("Solo", [cantus.Event(0, 4, ["D4"])])])
    with pytest.raises(cantus.DomainError, match="two-voice"):
        cantus.verify(solo, domain="counterpoint")
    with pytest.raises(cantus.DomainError) as caught:
        cantus.verify(solo, domain="chess")
    assert "twelve-tone" in str(caught.value) and "counterpoint" in str(caught.value)
    assert set(cantus.domains()) >= {"twelve-tone", "counterpoint", "chorale"}
    with pytest.raises(cantus.RowError):
        cantus.verify(solo, row="Mozart K. 331")
    with pytest.raises(cantus.DomainError, match="mode"):
        cantus.verify(solo, mode="lax")  # type: ignore[arg-type]


def test_the_chorale_domain_by_name_catches_parallel_fifths() -> None:
    fixtures = COUNTERPOINT.parents[2] / "chorale" / "tests" / "fixtures" / "rules"
    verdict = cantus.verify(fixtures / "ch-parallel-fifths.txt", domain="chorale")
    assert verdict.domain == "chorale" and not verdict.passed
    v = next(v for v in verdict.violations if v.rule == "CH-parallel-fifths")
    assert v.bar == 1 and v.location is not None and {"alto", "bass"} <= set(v.location["parts"])
    assert cantus.verify(fixtures / "ch-parallel-fifths.txt", domain="chorale", profile="lenient").gate
    with pytest.raises(cantus.DomainError, match="profile"):
        cantus.verify(fixtures / "ch-parallel-fifths.txt", domain="chorale", profile="fux")
    with pytest.raises(cantus.DomainError, match="four-part"):
        cantus.verify(collision(), domain="chorale")
