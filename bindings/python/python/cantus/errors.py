"""The exceptions Cantus raises.

Every one carries the message the command line prints and, where the reader knows
them, the place and the rule as attributes::

    try:
        cantus.read("piece.txt")
    except cantus.ReadError as e:
        print(e.path, e.line, e.column, e.rule)   # piece.txt 7 18 G-ONSET-RANGE

Errors about the input (a malformed file, an unknown row, a bad option) are also
``ValueError``s; a missing file is Python's own ``FileNotFoundError``.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "CantusError",
    "ReadError",
    "FormatError",
    "WriteError",
    "ScoreError",
    "RowError",
    "SpecError",
    "BriefError",
    "ConfigError",
    "DomainError",
    "AnalysisError",
    "MeasureError",
    "ComposeError",
    "EngraveError",
    "ExperimentError",
    "CantusWarning",
]


class CantusError(Exception):
    """Base of every Cantus error.

    Attributes:
        message: what went wrong, as the CLI prints it (for the text grammar the
            rustc-style diagnostics, with the source line and a caret).
        path: the file (``<bytes>`` for bytes read from memory), when known.
        line: 1-based line, when known.
        column: 1-based column (in characters), when known.
        byte: 0-based byte offset, when known (invalid UTF-8, MIDI files).
        rule: the stable rule id (``G-ONSET-RANGE``), when the reader has one.
        diagnostics: every diagnostic of a text-grammar refusal, as dicts with
            ``rule``, ``severity``, ``message``, ``help``, ``path``, ``line``,
            ``column`` and ``text`` (the rendered diagnostic).
    """

    def __init__(
        self,
        message: str,
        *,
        path: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        byte: Optional[int] = None,
        rule: Optional[str] = None,
        diagnostics: Optional[list[dict[str, Any]]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.byte = byte
        self.rule = rule
        self.diagnostics: list[dict[str, Any]] = list(diagnostics or [])

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Any:
        return (
            _rebuild,
            (
                type(self),
                self.message,
                {
                    "path": self.path,
                    "line": self.line,
                    "column": self.column,
                    "byte": self.byte,
                    "rule": self.rule,
                    "diagnostics": self.diagnostics,
                },
            ),
        )


def _rebuild(cls: type, message: str, fields: dict[str, Any]) -> CantusError:
    return cls(message, **fields)  # type: ignore[no-any-return]


class ReadError(CantusError, ValueError):
    """A score the reader refuses: malformed text grammar (with rule ids), XML,
    MusicXML, MEI or MIDI, or text that is not UTF-8."""


class FormatError(CantusError, ValueError):
    """A format Cantus does not know, or a direction it does not go (reading
    LilyPond, writing MEI)."""


class WriteError(CantusError, ValueError):
    """A score that cannot be written in the format asked for."""


class ScoreError(CantusError, ValueError):
    """A score built in Python that the model cannot hold (a zero duration, a
    pitch outside MIDI 0..127, a negative onset)."""


class RowError(CantusError, ValueError):
    """Text that is neither a twelve-tone row nor a historical row's name."""


class SpecError(CantusError, ValueError):
    """A spec file (TOML) that is malformed or asks for something impossible."""


class BriefError(CantusError, ValueError):
    """A brief that contradicts itself or asks for something impossible."""


class ConfigError(CantusError, ValueError):
    """A ``cantus.toml`` that is malformed, or whose backend cannot be built."""


class DomainError(CantusError, ValueError):
    """An unknown rule domain, an option it does not take, or a piece it cannot
    judge (a counterpoint exercise needs two voices)."""


class AnalysisError(CantusError, ValueError):
    """A piece the serial analyser cannot read."""


class MeasureError(CantusError, ValueError):
    """A piece Libretto's measures refuse (too long, nothing to measure), or a
    calibration table that cannot be read."""


class ComposeError(CantusError, ValueError):
    """A compose request that cannot run (conflicting options, an output folder
    holding another run)."""


class EngraveError(CantusError):
    """LilyPond is missing or failed."""


class ExperimentError(CantusError, ValueError):
    """An experiment's ``results.jsonl`` that cannot be read."""


class CantusWarning(UserWarning):
    """Something Cantus renamed, skipped or guessed, said once."""
