"""Serial music: the analyser (:func:`analyze`) and the row engine (:func:`rows`).

:func:`cantus.verify` judges a *generated* piece by the strict gate; :func:`analyze`
describes music people wrote the way a theorist reads it — statements passed
between instruments, repeated and doubled notes, elisions, canons, incomplete
statements — and says what share of the notes the row explains.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from . import _cantus, _display
from .errors import AnalysisError

if TYPE_CHECKING:
    from .score import Score

__all__ = [
    "AnalysedNote",
    "Statement",
    "Canon",
    "Elision",
    "ControlCopy",
    "Control",
    "Analysis",
    "analyze",
    "Rows",
    "rows",
    "historical_rows",
    "HistoricalRow",
]

RowLike = Union[str, Sequence[int]]


def _row_text(row: RowLike) -> str:
    if isinstance(row, str):
        return row
    return " ".join(str(int(pc)) for pc in row)


@dataclass(frozen=True, slots=True)
class AnalysedNote:
    """One note, located: its order position in its statement (None when
    unexplained), its role (``position``, ``elided``, ``shared`` — a canon's common
    note —, ``doubling``, ``repetition``, ``unexplained``), pitch, bar, voice, exact
    onset, and whether it is written as a grace note (its onset is then that of the
    note it leads to)."""

    position: Optional[int]
    role: str
    pc: int
    midi: int
    bar: int
    voice: int
    voice_name: str
    event: int
    onset: Fraction
    grace: bool = False

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "AnalysedNote":
        return cls(
            d["position"], d["role"], d["pc"], d["midi"], d["bar"], d["voice"],
            d["voice_name"], d["event"], Fraction(d["onset"]), bool(d.get("grace", False)),
        )


@dataclass(frozen=True, slots=True)
class Statement:
    """One row statement: its labels (zero-centred convention, and relative), whether
    it is complete, the positions it lacks, where it lies and its notes."""

    number: int
    labels: tuple[str, ...]
    labels_relative: tuple[str, ...]
    complete: bool
    missing: tuple[int, ...]
    first_bar: int
    last_bar: int
    onset: Fraction
    voices: tuple[str, ...]
    notes: tuple[AnalysedNote, ...]

    @property
    def label(self) -> str:
        """The labels as one text: ``"P5=R11"`` for a symmetric row's two."""
        return "=".join(self.labels)

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "Statement":
        return cls(
            d["number"], tuple(d["labels"]["zero_centred"]), tuple(d["labels"]["relative"]),
            d["complete"], tuple(d["missing"]), d["first_bar"], d["last_bar"],
            Fraction(d["onset"]), tuple(d["voices"]), tuple(AnalysedNote._of(n) for n in d["notes"]),
        )


@dataclass(frozen=True, slots=True)
class Canon:
    """Two statements in canon: the follower sounds the leader's positions a fixed
    ``delay`` later, related by ``relation`` (transposition, inversion, retrograde,
    retrograde-inversion) at ``interval``."""

    leader: int
    follower: int
    relation: str
    interval: int
    delay: Fraction
    positions: int
    free_positions: tuple[int, ...]

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "Canon":
        return cls(
            d["leader"], d["follower"], d["relation"], d["interval"], Fraction(d["delay"]),
            d["positions"], tuple(d["free_positions"]),
        )


@dataclass(frozen=True, slots=True)
class Elision:
    """Statement ``from_`` ends with the ``shared`` positions statement ``to`` begins with."""

    from_: int
    to: int
    shared: int


@dataclass(frozen=True, slots=True)
class ControlCopy:
    """One copy of the piece with its pitch classes shuffled (seeded), analysed as
    the piece was: how many of its notes statements explain, and complete ones."""

    seed: int
    notes: int
    explained: int
    explained_by_complete: int
    row: Optional[tuple[int, ...]]

    @property
    def complete_share(self) -> float:
        """The share of the copy's notes in complete statements."""
        return self.explained_by_complete / self.notes if self.notes else 0.0

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "ControlCopy":
        row = d.get("row")
        return cls(
            d["seed"], d["notes"], d["explained"], d["explained_by_complete"],
            None if row is None else tuple(row),
        )


@dataclass(frozen=True, slots=True)
class Control:
    """What the verdict is judged against: the same analysis on copies of the piece
    with its pitch classes shuffled. A piece is twelve-tone only when its share of
    notes in complete statements clearly exceeds the copies' (chance finds
    statements of some row in any chromatic texture). ``skipped`` says why no copy
    was analysed, when none was."""

    copies: tuple[ControlCopy, ...]
    skipped: Optional[str] = None

    @property
    def highest(self) -> Optional[float]:
        """The highest share in complete statements among the copies (None without
        copies)."""
        return max((c.complete_share for c in self.copies), default=None)

    @classmethod
    def _of(cls, d: dict[str, Any]) -> "Control":
        return cls(tuple(ControlCopy._of(c) for c in d.get("copies", [])), d.get("skipped"))


@dataclass(frozen=True)
class Analysis:
    """What :func:`analyze` found (the JSON of ``cantus analyze --json`` in
    :attr:`raw`; :attr:`listing` is its text listing)."""

    row: Optional[tuple[int, ...]]
    row_name: Optional[str]
    row_source: str
    verdict: str
    notes: int
    explained: int
    explained_by_complete: int
    statements: tuple[Statement, ...]
    elisions: tuple[Elision, ...]
    canons: tuple[Canon, ...]
    unexplained: tuple[AnalysedNote, ...]
    control: Control
    listing: str
    raw: dict[str, Any]
    _marks: Any
    _score: "Score"
    _engraved: dict[str, bytes] = field(default_factory=dict, repr=False, compare=False)

    @property
    def share(self) -> float:
        """The share of notes some statement explains (0 for an empty piece)."""
        return self.explained / self.notes if self.notes else 0.0

    @property
    def complete_share(self) -> float:
        """The share of notes in complete statements: what the verdict weighs
        against :attr:`control`."""
        return self.explained_by_complete / self.notes if self.notes else 0.0

    def __str__(self) -> str:
        return self.listing

    def __repr__(self) -> str:
        row = self.row_name or (" ".join(map(str, self.row)) if self.row else "no row")
        return (
            f"<cantus.Analysis {self.verdict}: row {row} ({self.row_source}), "
            f"{len(self.statements)} statements, {len(self.canons)} canons, "
            f"{self.explained} of {self.notes} notes explained>"
        )

    def engrave(self, target: str = "svg") -> bytes:
        """The score engraved with each statement's labels over its first note,
        order positions by the notes and unexplained notes grey (needs LilyPond)."""
        if target not in self._engraved:
            self._engraved[target] = self._score.engrave(target, analysis=self)  # type: ignore[arg-type]
        return self._engraved[target]

    def _repr_html_(self) -> str:
        head = _display.facts(
            [
                ("row", self.row_name or ("" if self.row is None else " ".join(map(str, self.row)))),
                ("row source", self.row_source),
                ("verdict", self.verdict),
                ("explained", f"{self.explained} of {self.notes} ({self.share:.0%})"),
                ("by complete statements", self.explained_by_complete),
                (
                    "shuffled copies",
                    self.control.skipped
                    if self.control.highest is None
                    else f"{len(self.control.copies)}, at most {self.control.highest:.0%} in complete statements",
                ),
            ]
        )
        statements = _display.table(
            ["#", "label", "complete", "missing", "bars", "voices"],
            (
                (s.number, s.label, "yes" if s.complete else "no", " ".join(map(str, s.missing)),
                 f"{s.first_bar}-{s.last_bar}", ", ".join(s.voices))
                for s in self.statements
            ),
        )
        canons = (
            _display.table(
                ["leader", "follower", "relation", "interval", "delay"],
                ((c.leader, c.follower, c.relation, c.interval, c.delay) for c in self.canons),
                caption="canons",
            )
            if self.canons
            else ""
        )
        picture = ""
        if self._score.event_count <= _display.ENGRAVE_MAX_EVENTS and self._score.bars <= _display.ENGRAVE_MAX_BARS and _display.lilypond_available():
            try:
                picture = _display.svg_block(self.engrave("svg"))
            except Exception:
                picture = ""
        return picture + head + statements + canons


def analyze(
    score: "Score",
    row: Optional[RowLike] = None,
    *,
    min_positions: int = 8,
    control_copies: int = 3,
) -> Analysis:
    """The serial analysis of `score`.

    Args:
        score: the piece.
        row: the row (pitch classes, note names, or a historical name such as
            ``"Webern Op. 21"``); inferred from the music when None.
        min_positions: fewest order positions (of 12) a statement must sound.
        control_copies: copies of the piece with its pitch classes shuffled that
            the verdict is judged against (:attr:`Analysis.control`; each one more
            analysis, at most 16); 0 judges by the share in complete statements
            alone.

    Raises:
        RowError: `row` is neither a row nor a historical row's name.
        AnalysisError: the piece's times fit no exact grid, `min_positions` is
            not 1..12, or `control_copies` is not 0..16.
    """
    # Past what the native call takes (a byte) the analyser's own check cannot speak.
    if control_copies < 0:
        raise AnalysisError(f"control_copies must not be negative, got {control_copies}")
    if control_copies > 255:
        raise AnalysisError(f"control_copies must be at most 16, got {control_copies}")
    text = None if row is None else _row_text(row)
    doc, listing, marks = _cantus.analyze(score._native, text, min_positions, control_copies)
    d = json.loads(doc)
    return Analysis(
        row=None if d["row"] is None else tuple(d["row"]),
        row_name=d["row_name"],
        row_source=d["row_source"],
        verdict=d["verdict"],
        notes=d["notes"],
        explained=d["explained"],
        explained_by_complete=d["explained_by_complete"],
        statements=tuple(Statement._of(s) for s in d["statements"]),
        elisions=tuple(Elision(e["from"], e["to"], e["shared"]) for e in d["elisions"]),
        canons=tuple(Canon._of(c) for c in d["canons"]),
        unexplained=tuple(AnalysedNote._of(n) for n in d["unexplained"]),
        control=Control._of(d["control"]),
        listing=listing,
        raw=d,
        _marks=marks,
        _score=score,
    )


@dataclass(frozen=True)
class Rows:
    """A row's 48 forms, matrix and properties (``cantus rows --json``)."""

    row: tuple[int, ...]
    name: Optional[str]
    convention: str
    forms: dict[str, tuple[int, ...]]
    matrix: tuple[tuple[int, ...], ...]
    all_interval: bool
    interval_string: str
    combinatorial_partners: tuple[str, ...]
    symmetries: tuple[str, ...]
    listing: str

    def form(self, label: str) -> tuple[int, ...]:
        """The pitch classes of the form labelled `label` (``"RI3"``)."""
        return self.forms[label.upper()]

    def labels_of(self, pcs: Sequence[int]) -> list[str]:
        """Every label whose form is `pcs` (two for a symmetric row)."""
        target = tuple(int(p) % 12 for p in pcs)
        return [label for label, f in self.forms.items() if f == target]

    def __str__(self) -> str:
        return self.listing

    def __repr__(self) -> str:
        name = f" {self.name}" if self.name else ""
        return f"<cantus.Rows{name}: {' '.join(map(str, self.row))} ({self.convention})>"

    def _repr_html_(self) -> str:
        head = _display.facts(
            [
                ("row", " ".join(map(str, self.row))),
                ("name", self.name or ""),
                ("intervals", self.interval_string),
                ("all-interval", "yes" if self.all_interval else "no"),
                ("combinatorial with P0", ", ".join(self.combinatorial_partners) or "none"),
                ("symmetries", ", ".join(self.symmetries) or "none"),
            ]
        )
        columns = [tuple(line[i] for line in self.matrix) for i in range(12)]
        matrix = _display.table(
            [""] + [self._label("I", c) for c in columns],
            ([self._label("P", line)] + list(line) for line in self.matrix),
            caption=f"matrix ({self.convention} labels)",
        )
        return head + matrix

    def _label(self, kind: str, pcs: Sequence[int]) -> str:
        return next((label for label in self.labels_of(pcs) if label.rstrip("0123456789") == kind), "")


def rows(row: RowLike, *, convention: str = "zero-centred") -> Rows:
    """The row `row` names — pitch classes (``"0 11 7 8 3 1 2 10 6 5 4 9"``, a list of
    ints, ``"0123456789TE"``), note names, or a historical name (``"Webern Op. 21"``,
    ``"Berg Lyric Suite"``) — with its 48 forms, matrix and properties.

    Args:
        convention: ``"zero-centred"`` (music21's ``zeroCenteredTransformation``:
            Pn and In start on pitch class n, Rn and RIn end on it) or ``"relative"``
            (music21's ``originalCenteredTransformation``: every form of the row as
            given, moved up n).

    Raises:
        RowError: `row` is neither a row nor a historical row's name.
    """
    doc, listing = _cantus.rows(_row_text(row), convention)
    d = json.loads(doc)
    return Rows(
        row=tuple(d["row"]),
        name=d.get("name"),
        convention=d["convention"],
        forms={k: tuple(v) for k, v in d["forms"].items()},
        matrix=tuple(tuple(line) for line in d["matrix"]),
        all_interval=d["all_interval"],
        interval_string=d["interval_string"],
        combinatorial_partners=tuple(d["combinatorial_partners"]),
        symmetries=tuple(d["symmetries"]),
        listing=listing,
    )


@dataclass(frozen=True, slots=True)
class HistoricalRow:
    """One of the 71 rows of music21's ``serial.historicalDict``."""

    id: str
    composer: str
    opus: Optional[str]
    title: str
    pcs: tuple[int, ...]


def historical_rows() -> list[HistoricalRow]:
    """Every historical row Cantus ships (music21's table), by id."""
    return [HistoricalRow(i, c, o, t, tuple(p)) for i, c, o, t, p in _cantus.historical_rows()]
