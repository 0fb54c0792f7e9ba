"""Libretto's measures: a piece's 29-axis fingerprint (:func:`fingerprint`) and how
much of one piece another holds (:func:`compare`), as ``cantus fingerprint`` and
``cantus compare`` compute them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Union

from . import _cantus, _display

if TYPE_CHECKING:
    from .score import Score, Source

__all__ = ["AxisReading", "Fingerprint", "Comparison", "fingerprint", "compare"]

Calibration = Optional[Union[str, "os.PathLike[str]"]]


@dataclass(frozen=True, slots=True)
class AxisReading:
    """One axis: its raw value, its percentile against the calibration table and
    whether it sits at an extreme (``"low"``: at or below the 5th, ``"high"``: at or
    above the 95th)."""

    axis: str
    family: str
    raw: float
    percentile: int
    extreme: Optional[str]


@dataclass(frozen=True)
class Fingerprint:
    """A piece's 29 axes against a calibration table (the shipped 314-song one by
    default)."""

    axes: dict[str, AxisReading]
    extremes: tuple[str, ...]
    calibration: str
    reference_pieces: int
    file: str

    def __getitem__(self, axis: str) -> AxisReading:
        return self.axes[axis]

    def __iter__(self) -> Any:
        return iter(self.axes.values())

    def __len__(self) -> int:
        return len(self.axes)

    def to_dict(self) -> dict[str, float]:
        """Axis id → raw value."""
        return {a: r.raw for a, r in self.axes.items()}

    def __repr__(self) -> str:
        return f"<cantus.Fingerprint {self.file}: {len(self.extremes)} of {len(self.axes)} axes at an extreme>"

    def _repr_html_(self) -> str:
        return _display.table(
            ["axis", "family", "raw", "percentile", "extreme"],
            ((r.axis, r.family, f"{r.raw:.6g}", r.percentile, r.extreme or "") for r in self.axes.values()),
            caption=f"fingerprint against {self.calibration} ({self.reference_pieces} pieces)",
        )


@dataclass(frozen=True)
class Comparison:
    """Copy risk of `a` against `b` (the share of a's notes found in b, aligned bar
    by bar and slid over bar offsets), the reverse, and the fingerprint distance
    (mean |Δ percentile| over the 29 axes)."""

    copy_risk: float
    copy_risk_reverse: float
    offset: int
    threshold: float
    copy: bool
    distance: float
    a: str
    b: str

    def __repr__(self) -> str:
        verdict = "COPY" if self.copy else "ok"
        return (
            f"<cantus.Comparison copy risk {self.copy_risk:.3f} at bar offset {self.offset:+d} ({verdict}); "
            f"reverse {self.copy_risk_reverse:.3f}; distance {self.distance:.2f}>"
        )

    def _repr_html_(self) -> str:
        return _display.facts(
            [
                ("copy risk (a in b)", f"{self.copy_risk:.3f} at bar offset {self.offset:+d}"),
                ("threshold", f"{self.threshold:.2f}: {'COPY' if self.copy else 'ok'}"),
                ("reverse (b in a)", f"{self.copy_risk_reverse:.3f}"),
                ("fingerprint distance", f"{self.distance:.2f}"),
            ]
        )


def _score(s: Union["Score", "Source"]) -> "Score":
    from .score import Score, read

    return s if isinstance(s, Score) else read(s)


def _table(calibration: Calibration) -> Optional[str]:
    return None if calibration is None else os.fspath(calibration)


def fingerprint(score: Union["Score", "Source"], *, calibration: Calibration = None) -> Fingerprint:
    """Libretto's 29 structural axes of `score`, placed against `calibration` (a
    table from ``cantus calibrate``; the shipped one when None).

    Raises:
        MeasureError: the piece is longer than 20,000 bars or cannot be laid
            out, or the table cannot be read.
    """
    s = _score(score)
    d = json.loads(_cantus.fingerprint(s._native, _table(calibration)))
    axes = {
        a: AxisReading(a, d["axes"][a]["family"], d["axes"][a]["raw"], d["axes"][a]["percentile"], d["axes"][a]["extreme"])
        for a in d["order"]
    }
    return Fingerprint(axes, tuple(d["extremes"]), d["calibration"], d["reference_pieces"], d["file"])


def compare(
    a: Union["Score", "Source"], b: Union["Score", "Source"], *, calibration: Calibration = None
) -> Comparison:
    """How much of `a` `b` already holds, and how far apart their fingerprints are.

    Raises:
        MeasureError: a piece Libretto cannot measure.
    """
    sa, sb = _score(a), _score(b)
    d = json.loads(_cantus.compare(sa._native, sb._native, _table(calibration)))
    return Comparison(
        copy_risk=d["copy_risk"],
        copy_risk_reverse=d["copy_risk_reverse"],
        offset=d["offset"],
        threshold=d["threshold"],
        copy=d["copy"],
        distance=d["distance"],
        a=d["a"],
        b=d["b"],
    )
