"""Domains by name from the domain registry: a domain the program links is composed
and judged from Python with no line of the bindings naming it — here the cycles
example, whose artefact is not even a score."""

from __future__ import annotations

from pathlib import Path

import pytest

import cantus

BINDINGS = Path(__file__).resolve().parent.parent


def test_every_registered_domain_is_listed() -> None:
    assert {"twelve-tone", "counterpoint", "cycles"} <= set(cantus.domains())


def test_a_domain_the_bindings_never_name_composes_and_verifies(tmp_path) -> None:
    done = cantus.compose(domain="cycles", alphabet=6, cycles=3, seed=7, out=tmp_path / "run")
    assert done.released and done.piece is None and done.text is not None
    cycles = done.text.strip().split("|")
    assert len(cycles) == 3 and all(len(c) == 6 for c in cycles), done.text
    assert done.report["domain"] == "cycles" and done.report["released"]
    assert done.trace[0]["kind"] == "run"
    assert done.out is not None and (done.out / "piece.txt").is_file()
    # The same seed without a folder: the same string, and no folder left behind.
    again = cantus.compose(domain="cycles", alphabet=6, cycles=3, seed=7)
    assert again.text == done.text and again.out is None and "files" not in again.report

    verdict = cantus.verify(done.out / "piece.txt", domain="cycles")
    assert verdict.passed and verdict.domain == "cycles" and verdict.gate.startswith("cycles/")
    # `A` twice within the window: the gate says where.
    broken = tmp_path / "broken.txt"
    broken.write_text("window 3\nABA|CBA\n")
    failed = cantus.verify(broken, domain="cycles")
    assert not failed.passed and failed.hard and failed.hard[0].location == {"location": {"cycle": 1, "slot": 3}}
    # The domain's own flag, checked by its own table: a narrower window forgives more.
    assert cantus.verify(broken, domain="cycles", window=1).hard_count < failed.hard_count
    with pytest.raises(cantus.DomainError, match="'--window <N>': 99 is not in 1..=26"):
        cantus.verify(broken, domain="cycles", window=99)


def test_bad_options_and_unknown_domains_say_what_is_registered(tmp_path) -> None:
    with pytest.raises(cantus.ComposeError, match="'--alphabet <N>'"):
        cantus.compose(domain="cycles", alphabet=99)
    with pytest.raises(cantus.ComposeError, match="--brief is a flag of --domain twelve-tone only"):
        cantus.compose("a trio", domain="cycles")
    with pytest.raises(cantus.DomainError) as caught:
        cantus.compose(domain="chess")
    assert "registered: " in str(caught.value) and "cycles" in str(caught.value)
    # A domain that judges only its own files says so for a score in memory.
    score = cantus.Score([cantus.Voice("Solo", [cantus.Event(0, 4, ["D4"])])])
    with pytest.raises(cantus.DomainError, match="give the file"):
        cantus.verify(score, domain="cycles")


def test_the_bindings_name_no_domain_they_do_not_ship_with() -> None:
    """`cycles` is reached through the registry alone (as a new domain would be)."""
    sources = [*(BINDINGS / "src").glob("*.rs"), *(BINDINGS / "python" / "cantus").glob("*.py")]
    assert sources
    naming = [p.name for p in sources if "cycles" in p.read_text(encoding="utf-8")]
    assert naming == []
