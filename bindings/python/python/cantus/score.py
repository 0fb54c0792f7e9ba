"""Scores: read from any format Cantus reads, built from Python values, written
back, and handed to and from music21.

Times are exact ``fractions.Fraction`` quarter notes, as Cantus keeps them: an
event of a triplet quaver lasts ``Fraction(1, 3)``, never ``0.333``.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import IO, TYPE_CHECKING, Any, Iterable, Literal, Optional, Union, overload

from . import _cantus, _display
from .errors import CantusWarning, ScoreError

if TYPE_CHECKING:
    from .serial import Analysis

__all__ = ["Pitch", "Event", "Voice", "Score", "read", "Source", "TextFormat"]

#: What :func:`read` takes: a path, the bytes of a file, or an open binary file.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

#: Formats written as text (``Score.to`` returns ``str``); ``"midi"`` is bytes.
TextFormat = Literal["txt", "text", "grammar", "musicxml", "xml", "ly", "lilypond"]

Time = Union[Fraction, int, str]


def _fraction(value: Any, what: str) -> Fraction:
    try:
        return Fraction(value)
    except (TypeError, ValueError) as e:
        raise ScoreError(f"{what}: {value!r} is not a number of quarter notes") from e


def _pair(value: Fraction, what: str) -> tuple[int, int]:
    if not (-(2**63) <= value.numerator < 2**63 and value.denominator < 2**63):
        raise ScoreError(f"{what}: {value} is too large for exact time (64-bit)")
    return (value.numerator, value.denominator)


@dataclass(frozen=True, slots=True)
class Pitch:
    """One sounding pitch: its MIDI number (C4 = 60) and its name as the text
    grammar writes it (``"C#4"``, ``"Bb3"``; sharps when the file had no spelling)."""

    midi: int
    name: str

    @property
    def pc(self) -> int:
        """Pitch class, 0 (C) to 11 (B)."""
        return self.midi % 12

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Event:
    """One onset in one voice: one or more pitches sharing onset and duration.

    ``onset`` and ``duration`` are exact quarter notes from the start. A grace note
    (``grace`` is ``"acciaccatura"`` or ``"appoggiatura"``) takes no notated time:
    its duration is 0 and its onset that of the note it leads to. ``fermata`` marks a
    held note (MusicXML and MEI carry it; a chorale's phrase ends). ``tag`` is what the
    file carried beside the notes (Cantus's row tags, ``P0:1-3``). Build one with
    pitches as MIDI numbers, names or :class:`Pitch`::

        Event(Fraction(1, 3), Fraction(1, 3), ["C#5", 64])
    """

    onset: Fraction
    duration: Fraction
    pitches: tuple[Pitch, ...]
    tag: Optional[str] = None
    grace: Optional[str] = None
    fermata: bool = False

    def __init__(
        self,
        onset: Time,
        duration: Time,
        pitches: Iterable[Union[Pitch, int, str]],
        tag: Optional[str] = None,
        grace: Optional[Literal["acciaccatura", "appoggiatura"]] = None,
        fermata: bool = False,
    ) -> None:
        object.__setattr__(self, "onset", _fraction(onset, "onset"))
        object.__setattr__(self, "duration", _fraction(duration, "duration"))
        object.__setattr__(self, "pitches", tuple(_pitch_in(p) for p in pitches))
        object.__setattr__(self, "tag", tag)
        object.__setattr__(self, "grace", grace)
        object.__setattr__(self, "fermata", bool(fermata))

    @property
    def end(self) -> Fraction:
        """When it stops sounding (exclusive)."""
        return self.onset + self.duration

    @property
    def midi(self) -> tuple[int, ...]:
        """The MIDI numbers, lowest first."""
        return tuple(p.midi for p in self.pitches)


def _pitch_in(p: Union[Pitch, int, str]) -> Pitch:
    if isinstance(p, Pitch):
        return p
    if isinstance(p, bool) or not isinstance(p, (int, str)):
        raise ScoreError(f"a pitch is a MIDI number or a name like 'C#4', not {p!r}")
    return Pitch(*_cantus.pitch(p))


@dataclass(frozen=True, slots=True)
class Voice:
    """One voice (part, staff line): a name, its events sorted by onset, and its own
    key signature when the part has one (a transposing instrument's)."""

    name: str
    events: tuple[Event, ...] = field(default=())
    key: Optional[str] = None

    def __init__(self, name: str, events: Iterable[Event] = (), key: Optional[str] = None) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "events", tuple(events))
        object.__setattr__(self, "key", key)

    def __len__(self) -> int:
        return len(self.events)


def _event_out(raw: tuple[Any, ...]) -> Event:
    (on_n, on_d), (du_n, du_d), pitches, tag, grace, fermata = raw
    e = object.__new__(Event)
    object.__setattr__(e, "onset", Fraction(on_n, on_d))
    object.__setattr__(e, "duration", Fraction(du_n, du_d))
    object.__setattr__(e, "pitches", tuple(Pitch(m, n) for m, n in pitches))
    object.__setattr__(e, "tag", tag)
    object.__setattr__(e, "grace", grace)
    object.__setattr__(e, "fermata", fermata)
    return e


class Score:
    """A whole piece: voices of events, with meter, tempo, key and title.

    Read one with :func:`cantus.read`, get one from :func:`cantus.compose` or
    :func:`cantus.from_music21`, or build one::

        Score([Voice("Melody", [Event(0, 2, ["C5"]), Event(2, 2, ["E5", "G5"])])],
              meter="4/4", tempo=96)

    A score is immutable. Its notes stay in Cantus's native model until
    :attr:`voices` is asked for, so a large piece is judged or measured without a
    Python object per note.
    """

    __slots__ = ("_native", "_voices", "_meta", "_svg")

    def __init__(
        self,
        voices: Iterable[Voice] = (),
        *,
        meter: Union[str, tuple[int, int]] = "4/4",
        tempo: Optional[Time] = None,
        title: Optional[str] = None,
        key: Optional[str] = None,
        bars: Optional[int] = None,
    ) -> None:
        if isinstance(meter, str):
            num, _, den = meter.partition("/")
            try:
                meter = (int(num), int(den))
            except ValueError as e:
                raise ScoreError(f"cannot read meter {meter!r}: write it like '3/4'") from e
        raw = []
        for v in voices:
            if not isinstance(v, Voice):
                raise ScoreError(f"a score's voices are cantus.Voice objects, not {v!r}")
            events = []
            for i, e in enumerate(v.events):
                at = f"voice {v.name!r}, event {i}"
                pitches = [p.name for p in e.pitches]
                events.append((_pair(e.onset, at), _pair(e.duration, at), pitches, e.tag, e.grace, e.fermata))
            raw.append((v.name, v.key, events))
        tempo_pair = None if tempo is None else _pair(_fraction(tempo, "tempo"), "tempo")
        native = _cantus.build(raw, meter, tempo_pair, title, key, bars)
        self._init(native)

    def _init(self, native: "_cantus.NativeScore") -> None:
        self._native = native
        self._voices: Optional[tuple[Voice, ...]] = None
        self._meta = native.meta()
        self._svg: Optional[bytes] = None

    @classmethod
    def _wrap(cls, native: "_cantus.NativeScore") -> "Score":
        score = cls.__new__(cls)
        score._init(native)
        return score

    # --- what it holds ------------------------------------------------------

    @property
    def voices(self) -> tuple[Voice, ...]:
        """The voices, with exact times (built on first use, then kept)."""
        if self._voices is None:
            self._voices = tuple(
                Voice(name, [_event_out(e) for e in events], key) for name, key, events in self._native.voices()
            )
        return self._voices

    @property
    def events(self) -> list[tuple[str, Event]]:
        """Every event with its voice's name, voice by voice."""
        return [(v.name, e) for v in self.voices for e in v.events]

    @property
    def title(self) -> Optional[str]:
        return self._meta[0]

    @property
    def key(self) -> Optional[str]:
        """The key signature, e.g. ``"F# minor"``, if the file had one."""
        return self._meta[1]

    @property
    def meter(self) -> str:
        """The time signature, e.g. ``"3/4"`` (one per score)."""
        num, den = self._meta[2]
        return f"{num}/{den}"

    @property
    def tempo(self) -> Optional[Fraction]:
        """Quarter notes per minute, exact, if the file gave one."""
        t = self._meta[3]
        return None if t is None else Fraction(*t)

    @property
    def bars(self) -> int:
        """Bars: the declared count, or enough to hold every note."""
        return int(self._meta[5])

    @property
    def bar_length(self) -> Fraction:
        """One bar in quarter notes."""
        num, den = self._meta[2]
        return Fraction(4 * num, den)

    @property
    def end(self) -> Fraction:
        """When the last note stops sounding."""
        return Fraction(*self._meta[7])

    @property
    def event_count(self) -> int:
        return int(self._meta[6])

    def __len__(self) -> int:
        return self.event_count

    @property
    def source(self) -> str:
        """The file it was read from (``<bytes>``, ``<built>``, ``<composed>``)."""
        return self._native.source

    @property
    def format(self) -> Optional[str]:
        """The format it was read in (``"txt"``, ``"mid"``, ``"musicxml"``, …)."""
        return self._native.format

    @property
    def warnings(self) -> list[str]:
        """What the reader skipped, guessed or repaired, one line each."""
        return self._native.warnings

    def bar_of(self, t: Time) -> int:
        """The 1-based bar holding time `t`."""
        return int(_fraction(t, "time") // self.bar_length) + 1

    # --- writing ------------------------------------------------------------

    @overload
    def to(self, format: Literal["midi", "mid"]) -> bytes: ...
    @overload
    def to(self, format: TextFormat) -> str: ...
    @overload
    def to(self, format: str) -> Union[str, bytes]: ...

    def to(self, format: str) -> Union[str, bytes]:
        """The score in `format`: ``"txt"`` (the text grammar), ``"musicxml"``,
        ``"ly"`` (LilyPond) as text, ``"midi"`` as bytes.

        Voice names the format cannot carry are renamed, each with a
        :class:`~cantus.CantusWarning` (as ``cantus convert`` does).
        """
        data, said = self._native.render(format)
        for w in said:
            warnings.warn(w, CantusWarning, stacklevel=2)
        if format.lower().lstrip(".") in ("midi", "mid"):
            return bytes(data)
        return bytes(data).decode("utf-8")

    def write(self, path: Union[str, "os.PathLike[str]"], format: Optional[str] = None) -> None:
        """Writes the score to `path`, in `format` or the one its extension names."""
        path = os.fspath(path)
        fmt = format or os.path.splitext(path)[1].lstrip(".")
        data = self.to(fmt)
        mode = "wb" if isinstance(data, bytes) else "w"
        with open(path, mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
            f.write(data)

    def engrave(self, target: Literal["svg", "png", "pdf"] = "svg", analysis: "Optional[Analysis]" = None) -> bytes:
        """The engraving by LilyPond (needs LilyPond installed); with `analysis`,
        its row labels drawn over the statements and unexplained notes grey."""
        marks = None if analysis is None else analysis._marks
        data, said = _cantus.engrave(self._native, target, marks)
        for w in said:
            warnings.warn(f"LilyPond: {w}", CantusWarning, stacklevel=2)
        return bytes(data)

    def to_music21(self) -> Any:
        """The score as a ``music21.stream.Score`` (through MusicXML in memory).
        Needs music21 installed."""
        from ._music21 import to_music21

        return to_music21(self)

    # --- display ------------------------------------------------------------

    def __repr__(self) -> str:
        title = f" {self.title!r}" if self.title else ""
        return (
            f"<cantus.Score{title}: {len(self._native.voice_names())} voices, "
            f"{self.event_count} events, {self.bars} bars of {self.meter}>"
        )

    def summary(self) -> list[tuple[str, Any]]:
        """Name, events, lowest and highest pitch of every voice."""
        rows: list[tuple[str, Any]] = []
        for v in self.voices:
            midis = [m for e in v.events for m in e.midi]
            names = {p.midi: p.name for e in v.events for p in e.pitches}
            low = names[min(midis)] if midis else ""
            high = names[max(midis)] if midis else ""
            rows.append((v.name, len(v.events), low, high))
        return rows

    def _repr_html_(self) -> str:
        head = _display.facts(
            [
                ("title", self.title or ""),
                ("meter", self.meter),
                ("tempo", "" if self.tempo is None else f"{float(self.tempo):g} bpm"),
                ("key", self.key or ""),
                ("bars", self.bars),
                ("events", self.event_count),
            ]
        )
        body = _display.table(["voice", "events", "lowest", "highest"], self.summary())
        if 0 < self.event_count <= _display.ENGRAVE_MAX_EVENTS and self.bars <= _display.ENGRAVE_MAX_BARS and _display.lilypond_available():
            try:
                if self._svg is None:
                    self._svg = self.engrave("svg")
                return _display.svg_block(self._svg) + head
            except Exception:  # an engraving is a nicety: fall back to the table
                pass
        return head + body


def read(
    source: Source,
    format: Optional[str] = None,
    *,
    lenient: bool = False,
    written_pitch: bool = False,
    grace_notes: bool = False,
) -> Score:
    """Reads a score.

    Args:
        source: a path, the bytes of a file, or a file opened in binary mode.
        format: ``"txt"`` (the text grammar), ``"midi"``, ``"musicxml"``,
            ``"mxl"`` or ``"mei"``; by default the path's extension, or for bytes
            what their first bytes show (MIDI and zip magic, the XML root element,
            else the text grammar).
        lenient: read the text grammar as leniently as Libretto did (warnings in
            :attr:`Score.warnings`) and damaged MIDI files as far as they go.
        written_pitch: read transposing parts at written, not sounding, pitch.
        grace_notes: keep grace notes (MusicXML, MEI, the text grammar) as events
            with :attr:`Event.grace` set, duration 0, at the onset of the note they
            lead to; by default they are left out and counted in a warning, as the
            CLI's commands read them.

    Raises:
        ReadError: the reader refuses the file; the exception names the file,
            line, column (or byte) and, for the text grammar, the rule id.
        FileNotFoundError: there is no such file.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Score._wrap(_cantus.read_bytes(bytes(source), format, lenient, written_pitch, grace_notes=grace_notes))
    if hasattr(source, "read"):
        data = source.read()  # type: ignore[union-attr]
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("cantus.read needs a file opened in binary mode ('rb')")
        name = str(getattr(source, "name", "<bytes>"))
        if format is None and name != "<bytes>":
            ext = os.path.splitext(name)[1].lstrip(".")
            format = ext or None
        return Score._wrap(_cantus.read_bytes(bytes(data), format, lenient, written_pitch, name, grace_notes))
    if isinstance(source, (str, os.PathLike)):
        return Score._wrap(_cantus.read_path(os.fspath(source), format, lenient, written_pitch, grace_notes))
    raise TypeError(f"cantus.read takes a path, bytes or a binary file, not {type(source).__name__}")
