"""Cantus from Python.

Read and write scores, judge them by a rule domain's strict release gate, analyse
serial music, work with rows, measure with Libretto's fingerprint, compose under
hard rules and load experiment records — the library behind the ``cantus``
command, with exact ``Fraction`` times and errors that say where and why::

    import cantus
    score = cantus.read("piece.musicxml")
    verdict = cantus.verify(score)                 # the strict twelve-tone gate
    print(verdict.passed, [v.rule for v in verdict.violations])
    print(cantus.analyze(score).share)             # notes explained by the row
    print(cantus.rows("Webern Op. 21").matrix[0])

music21 (:func:`from_music21`, :meth:`Score.to_music21`) and pandas
(:meth:`cantus.experiment.Experiment.to_dataframe`) are used when installed and
never required.
"""

from __future__ import annotations

from . import experiment
from ._cantus import __version__
from ._music21 import from_music21
from .compose import Composition, compose
from .errors import (
    AnalysisError,
    BriefError,
    CantusError,
    CantusWarning,
    ComposeError,
    ConfigError,
    DomainError,
    EngraveError,
    ExperimentError,
    FormatError,
    MeasureError,
    ReadError,
    RowError,
    ScoreError,
    SpecError,
    WriteError,
)
from .judge import Verdict, Violation, domains, verify
from .measure import AxisReading, Comparison, Fingerprint, compare, fingerprint
from .score import Event, Pitch, Score, Voice, read
from .serial import (
    AnalysedNote,
    Analysis,
    Canon,
    Control,
    ControlCopy,
    Elision,
    HistoricalRow,
    Rows,
    Statement,
    analyze,
    historical_rows,
    rows,
)

__all__ = [
    "__version__",
    # scores
    "read",
    "Score",
    "Voice",
    "Event",
    "Pitch",
    "from_music21",
    # judging
    "verify",
    "domains",
    "Verdict",
    "Violation",
    # serial music
    "analyze",
    "Analysis",
    "Statement",
    "AnalysedNote",
    "Canon",
    "Elision",
    "Control",
    "ControlCopy",
    "rows",
    "Rows",
    "historical_rows",
    "HistoricalRow",
    # Libretto's measures
    "fingerprint",
    "Fingerprint",
    "AxisReading",
    "compare",
    "Comparison",
    # composing
    "compose",
    "Composition",
    # experiments
    "experiment",
    # errors
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
