"""Judging a piece by a rule domain's release gate: :func:`verify`.

The verdict is the one ``cantus verify --json`` prints: passed or not, every
violation with its rule id, severity, bar, voice, onset and reason, and the gate's
facts. Domains are found by name (:func:`domains`).
"""

from __future__ import annotations

import json
import os
import warnings
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
    """The rule domains :func:`verify` judges by, by name: every domain the
    program links (``cantus plugins`` lists them)."""
    return list(_cantus.domains())


def flags(options: dict[str, Any]) -> list[tuple[str, Optional[str]]]:
    """Keyword options as a domain's flags: ``cantus_voice=`` is ``--cantus-voice``;
    ``True`` gives a switch, ``None`` and ``False`` leave the flag out, a path is
    its text, anything else ``str(value)``. The domain checks them (names, ranges,
    choices, flags that exclude each other) as the command line does."""
    out: list[tuple[str, Optional[str]]] = []
    for name, value in options.items():
        flag = name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append((flag, None))
        elif isinstance(value, os.PathLike):
            out.append((flag, os.fspath(value)))
        else:
            out.append((flag, str(value)))
    return out


def position_flag(position: Optional[str]) -> dict[str, bool]:
    """``position="above"|"below"``: counterpoint's ``--above`` / ``--below``."""
    if position is None:
        return {}
    if position not in ("above", "below"):
        from .errors import DomainError

        raise DomainError(f'position {position!r}: use "above" or "below"')
    return {position: True}


def verify(
    score: Union["Score", "Source"],
    mode: Optional[Literal["strict", "relaxed"]] = None,
    row: Optional[Union[str, Sequence[int]]] = None,
    spec: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    domain: Optional[str] = None,
    seed: Optional[int] = None,
    species: Optional[int] = None,
    cantus_voice: Optional[str] = None,
    position: Optional[Literal["above", "below"]] = None,
    profile: Optional[Literal["fux", "strict", "lenient"]] = None,
    **options: Any,
) -> Verdict:
    """Judges `score` by the release gate of `domain`, as ``cantus verify`` does.

    Args:
        score: a :class:`~cantus.Score`, or a file (path), judged as
            ``cantus verify FILE`` reads it (a domain whose artefact is not a score
            is judged this way), or bytes / a binary file, read by
            :func:`cantus.read`.
        mode: twelve-tone: ``"strict"`` (the default) re-derives every row label
            from the pitches; ``"relaxed"`` trusts the row tags.
        row: twelve-tone: the row (pitch classes, note names or a historical
            name); inferred from the music when neither row nor spec is given.
        spec: twelve-tone: the spec file the piece was written to (registers,
            texture, crossing and, with `seed`, the schedule of row forms).
        domain: the rule domain, by name (:func:`domains`: ``"twelve-tone"``, the
            default, ``"counterpoint"``, ``"chorale"`` and any other the program
            links).
        seed: twelve-tone: the compose seed, to rebuild the schedule from `spec`.
        species: counterpoint: 1 or 2 (inferred from the rhythm when None).
        cantus_voice: counterpoint: the cantus firmus's voice (default: the voice
            whose name starts with "Cantus").
        position: counterpoint: whether the counterpoint is ``"above"`` or
            ``"below"`` the cantus (inferred when None).
        profile: counterpoint: ``"fux"`` (his prohibitions are hard; the default)
            or ``"lenient"`` (modern textbooks'); chorale: ``"strict"`` (the
            harmony class; the default) or ``"lenient"`` (Bach's practice).
        options: any other flag of the domain's ``cantus verify``, by its name
            with ``_`` for ``-`` (``True`` for a switch).

    A failing verdict is a result, not an exception: check :attr:`Verdict.passed`.

    Raises:
        ReadError: `score` is a file the reader refuses.
        RowError, SpecError: the row or spec cannot be used.
        DomainError: an unknown domain (the message lists the registered ones), an
            option the domain does not take, or a piece the domain cannot judge.
    """
    from .errors import CantusWarning
    from .score import Score, read

    given = {
        "mode": mode,
        "row": row if row is None or isinstance(row, str) else " ".join(str(int(p)) for p in row),
        "spec": spec,
        "seed": seed,
        "species": species,
        "cantus_voice": cantus_voice,
        "profile": profile,
        **position_flag(position),
        **options,
    }
    if isinstance(score, Score):
        text = _cantus.verify(score._native, domain, flags(given))
    elif isinstance(score, (str, os.PathLike)):
        text, warned = _cantus.verify_file(os.fspath(score), domain, flags(given))
        for w in warned:
            warnings.warn(w, CantusWarning, stacklevel=2)
    else:
        text = _cantus.verify(read(score)._native, domain, flags(given))
    d = json.loads(text)
    return Verdict(
        domain=d["domain"],
        gate=d.get("gate", ""),
        passed=d["passed"],
        events=d.get("events", 0),
        violations=tuple(Violation._of(v) for v in d.get("violations", [])),
        unlisted={u["predicate"]: u["count"] for u in d.get("unlisted", [])},
        facts=d.get("facts", {}),
        file=d.get("file", ""),
        raw=d,
    )


