"""Judging a piece by a rule domain's release gate: :func:`verify`.

The verdict is the one ``cantus verify --json`` prints: passed or not, every
violation with its rule id, severity, bar, voice, onset and reason, and the gate's
facts. Domains are found by name (:func:`domains`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, Optional, Sequence, Union

from . import _cantus, _display

if TYPE_CHECKING:
    from .score import Score, Source

__all__ = ["Violation", "Verdict", "verify", "domains"]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule, located.

    Attributes:
        rule: the stable rule id (``TT-ROW``, ``FS-P-parallel-perfect``).
        severity: ``"hard"`` (blocks release) or ``"soft"`` (reported).
        bar: the 1-based bar.
        voice: the voice's name (``(all voices)`` for the texture).
        onset: exact onset in quarter notes.
        message: what is wrong, as the CLI prints it.
        from_bar: for a violation spanning bars, the first (counterpoint).
        location: every field of the domain's location (a chorale's ``beat`` and
            ``parts``, say), as the CLI's JSON has it.
    """

    rule: str
    severity: str
    bar: Optional[int]
    voice: Optional[str]
    onset: Optional[Fraction]
    message: str
    from_bar: Optional[int] = None
    location: Optional[dict[str, Any]] = None

    @property
    def hard(self) -> bool:
        return self.severity == "hard"

    def __str__(self) -> str:
        where = f"bar {self.bar}" if self.bar is not None else "the piece"
        if self.voice:
            where += f", {self.voice}"
        elif self.location and self.location.get("parts"):
            where += ", " + "/".join(map(str, self.location["parts"]))
        if self.onset is not None:
            where += f", onset {self.onset}"
        kind = "error" if self.hard else "warning"
        return f"{kind}[{self.rule}] at {where}: {self.message}"

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "Violation":
        onset = d.get("onset")
        return cls(
            rule=d["predicate"],
            severity=d["severity"],
            bar=d.get("bar"),
            voice=d.get("voice"),
            onset=None if onset is None else Fraction(onset),
            message=d["reason"],
            from_bar=d.get("from_bar"),
            location={k: v for k, v in d.items() if k not in ("predicate", "severity", "reason")},
        )


@dataclass(frozen=True)
class Verdict:
    """A gate's verdict on a piece.

    Attributes:
        domain: the rule domain's name.
        gate: the gate and its mode (``twelve-tone/strict``, ``species/fux``).
        passed: no hard violation.
        events: events in the piece.
        violations: the violations listed (at most 1000; the rest are counted in
            ``unlisted``).
        unlisted: violations found but not listed, by rule.
        facts: what the gate reports beside (row, labels, soft scores, …).
        file: the piece's source.
        raw: the whole JSON of ``cantus verify --json``.
    """

    domain: str
    gate: str
    passed: bool
    events: int
    violations: tuple[Violation, ...]
    unlisted: dict[str, int]
    facts: dict[str, Any]
    file: str
    raw: dict[str, Any]

    @property
    def hard(self) -> list[Violation]:
        """The hard violations listed."""
        return [v for v in self.violations if v.hard]

    @property
    def hard_count(self) -> int:
        """Hard violations found, listed or not."""
        extra = sum(u["count"] for u in self.raw.get("unlisted", []) if u.get("severity") == "hard")
        return len(self.hard) + extra

    @property
    def rules(self) -> list[str]:
        """The rule ids broken, each once, in order of first violation."""
        seen: dict[str, None] = {}
        for v in self.violations:
            seen.setdefault(v.rule, None)
        return list(seen)

    @property
    def soft_scores(self) -> Optional[dict[str, int]]:
        """Counterpoint: violations per soft rule of the species, zeros included."""
        return self.raw.get("soft_scores")

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        head = (
            f"PASSED {self.file} ({self.gate}): {self.events} events"
            if self.passed
            else f"FAILED {self.file} ({self.gate}): {self.hard_count} violation{'s' if self.hard_count != 1 else ''}"
        )
        return "\n".join([head] + [f"  {v}" for v in self.violations])

    def __repr__(self) -> str:
        verdict = "passed" if self.passed else f"failed, {self.hard_count} hard"
        return f"<cantus.Verdict {self.gate}: {verdict}, {len(self.violations)} listed>"

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.passed else "#cf222e"
        word = "PASSED" if self.passed else "FAILED"
        head = f"<p><b style='color:{colour}'>{word}</b> {_display.escape(self.file)} ({_display.escape(self.gate)}), {self.events} events</p>"
        rows = (
            (v.rule, v.severity, v.bar, v.voice, "" if v.onset is None else v.onset, v.message)
            for v in self.violations
        )
        body = _display.table(["rule", "severity", "bar", "voice", "onset", "message"], rows) if self.violations else ""
        plain_facts = [(k, v if isinstance(v, (str, int, float, bool)) else json.dumps(v)) for k, v in self.facts.items()]
        return head + body + (_display.facts(plain_facts) if plain_facts else "")


def domains() -> list[str]:
    """The rule domains :func:`verify` judges by, by name."""
    return list(_cantus.domains())


def verify(
    score: Union["Score", "Source"],
    mode: Literal["strict", "relaxed"] = "strict",
    row: Optional[Union[str, Sequence[int]]] = None,
    spec: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    domain: str = "twelve-tone",
    seed: int = 0,
    species: Optional[int] = None,
    cantus_voice: Optional[str] = None,
    position: Optional[Literal["above", "below"]] = None,
    profile: Optional[Literal["fux", "strict", "lenient"]] = None,
) -> Verdict:
    """Judges `score` by the release gate of `domain`, as ``cantus verify`` does.

    Args:
        score: a :class:`~cantus.Score`, or anything :func:`cantus.read` reads.
        mode: twelve-tone: ``"strict"`` re-derives every row label from the
            pitches; ``"relaxed"`` trusts the row tags.
        row: twelve-tone: the row (pitch classes, note names or a historical
            name); inferred from the music when neither row nor spec is given.
        spec: twelve-tone: the spec file the piece was written to (registers,
            texture, crossing and, with `seed`, the schedule of row forms).
        domain: ``"twelve-tone"``, ``"counterpoint"`` or ``"chorale"`` (four-part
            harmonisation; :func:`domains`).
        seed: twelve-tone: the compose seed, to rebuild the schedule from `spec`.
        species: counterpoint: 1 or 2 (inferred from the rhythm when None).
        cantus_voice: counterpoint: the cantus firmus's voice (default: the voice
            whose name starts with "Cantus").
        position: counterpoint: whether the counterpoint is ``"above"`` or
            ``"below"`` the cantus (inferred when None).
        profile: counterpoint: ``"fux"`` (his prohibitions are hard; the default)
            or ``"lenient"`` (modern textbooks'); chorale: ``"strict"`` (the
            harmony class; the default) or ``"lenient"`` (Bach's practice).

    A failing verdict is a result, not an exception: check :attr:`Verdict.passed`.

    Raises:
        ReadError: `score` is a file the reader refuses.
        RowError, SpecError: the row or spec cannot be used.
        DomainError: an unknown domain, an option the domain does not take, or a
            piece the domain cannot judge.
    """
    from .score import Score, read

    if not isinstance(score, Score):
        score = read(score)
    options = {
        "mode": mode,
        "row": None if row is None or isinstance(row, str) else " ".join(str(int(p)) for p in row),
        "spec": None if spec is None else os.fspath(spec),
        "seed": seed,
        "species": species,
        "cantus_voice": cantus_voice,
        "position": position,
        "profile": profile,
    }
    if isinstance(row, str):
        options["row"] = row
    d = json.loads(_cantus.verify(score._native, domain, _Options(options)))
    return Verdict(
        domain=d["domain"],
        gate=d["gate"],
        passed=d["passed"],
        events=d["events"],
        violations=tuple(Violation._of(v) for v in d["violations"]),
        unlisted={u["predicate"]: u["count"] for u in d.get("unlisted", [])},
        facts=d["facts"],
        file=d["file"],
        raw=d,
    )


class _Options:
    """The options as attributes, the way the native side reads them."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.__dict__.update(values)
