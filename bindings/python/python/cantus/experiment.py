"""Experiment records: :func:`load` reads what ``cantus experiment run`` (or
``cantus bank``) wrote into a directory — one record per run in
``results.jsonl`` — as plain dicts, and as a pandas DataFrame when pandas is
installed (:meth:`Experiment.to_dataframe`, :func:`dataframe`).

Each record is keyed by (task, model, condition, run) and holds the outcome
(``released``, ``refused``, ``failed``, ``not-applicable``), the reason, the piece
in the text grammar, both gates' verdicts per rule, the loop's counts and the cost.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Iterator, Optional, Union, overload

from . import _display
from .errors import CantusWarning, ExperimentError

__all__ = ["Experiment", "load", "dataframe", "MAX_LINE_BYTES"]

#: Longest line read from ``results.jsonl``; a longer one is refused by its line
#: number instead of being read into memory whole.
MAX_LINE_BYTES = 64 * 1024 * 1024


class Experiment(Sequence[dict[str, Any]]):
    """The records of one experiment, in file order, with its header.

    It is a sequence of dicts (``len(exp)``, ``exp[0]``, ``for r in exp``).

    Attributes:
        path: the ``results.jsonl`` read.
        name: the experiment's name.
        header: the first line: the experiment file as it was (``text``), its
            hash, the reference distributions, the shard.
        records: one dict per run.
    """

    def __init__(self, path: Path, header: dict[str, Any], records: list[dict[str, Any]]) -> None:
        self.path = path
        self.header = header
        self.records = records

    @property
    def name(self) -> str:
        return str(self.header.get("name", ""))

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: Union[int, slice]) -> Union[dict[str, Any], list[dict[str, Any]]]:
        return self.records[i]

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.records)

    @property
    def conditions(self) -> list[str]:
        """The conditions, in the order records first name them."""
        return list(dict.fromkeys(r["condition"] for r in self.records))

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(r["model"] for r in self.records))

    def delivery(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(model, condition) → (released, runs that apply): the strict delivery
        counts, leaving out runs whose condition does not apply to the model."""
        out: dict[tuple[str, str], tuple[int, int]] = {}
        for r in self.records:
            if r.get("outcome") == "not-applicable":
                continue
            key = (r["model"], r["condition"])
            released, runs = out.get(key, (0, 0))
            out[key] = (released + (r.get("outcome") == "released"), runs + 1)
        return out

    def to_dataframe(self) -> Any:
        """The records as a pandas DataFrame, one row per run, nested fields
        flattened with dots (``cost.calls``, ``strict.violations.TT-ROW``), with a
        boolean ``released`` column. Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError(
                "Experiment.to_dataframe needs pandas: pip install pandas "
                "(the records are also plain dicts: list(experiment))"
            ) from e
        frame = pd.json_normalize(self.records, sep=".")
        if "outcome" in frame:
            frame["released"] = frame["outcome"] == "released"
        return frame

    def __repr__(self) -> str:
        return (
            f"<cantus.experiment.Experiment {self.name!r}: {len(self)} records, "
            f"{len(self.models)} models, {len(self.conditions)} conditions>"
        )

    def _repr_html_(self) -> str:
        rows = []
        for (model, condition), (released, runs) in self.delivery().items():
            rows.append((model, condition, runs, released, f"{released / runs:.1%}" if runs else ""))
        return _display.table(
            ["model", "condition", "runs", "released", "strict delivery"],
            rows,
            caption=f"{self.name}: {len(self)} records ({self.path})",
        )


def _results(path: Union[str, "os.PathLike[str]"]) -> Path:
    p = Path(path)
    if p.is_dir():
        p = p / "results.jsonl"
    if not p.exists():
        raise FileNotFoundError(2, f"{p}: no experiment results here (cantus experiment run … --out DIR writes DIR/results.jsonl)", str(p))
    return p


def load(path: Union[str, "os.PathLike[str]"]) -> Experiment:
    """Reads the experiment in directory `path` (or the ``results.jsonl`` named).

    Lines are read one at a time, each at most :data:`MAX_LINE_BYTES`. A last line
    cut off without its newline (a run interrupted while writing) is left out with
    a :class:`~cantus.CantusWarning`, as ``cantus experiment run`` does when it
    resumes.

    Raises:
        ExperimentError: a line that is not a record, an oversized line, or a
            header out of place, naming the file and the line.
        FileNotFoundError: no ``results.jsonl`` there.
    """
    results = _results(path)
    header: Optional[dict[str, Any]] = None
    records: list[dict[str, Any]] = []

    def refuse(number: int, why: str) -> ExperimentError:
        return ExperimentError(f"{results}:{number}: {why}", path=str(results), line=number)

    with open(results, "rb") as f:
        number = 0
        while True:
            line = f.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                raise refuse(number, f"a line longer than {MAX_LINE_BYTES} bytes")
            if not line.endswith(b"\n"):
                warnings.warn(
                    f"{results}:{number}: the last line is cut off (an interrupted run); it is left out",
                    CantusWarning,
                    stacklevel=2,
                )
                break
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except (ValueError, UnicodeDecodeError) as e:
                raise refuse(number, f"not a JSON record: {e}") from None
            kind = value.get("kind") if isinstance(value, dict) else None
            if kind == "experiment":
                if number != 1:
                    raise refuse(number, "the experiment header must be the first line, and only the first")
                header = value
            elif kind == "run":
                if header is None:
                    raise refuse(number, "a record before the experiment header")
                value.pop("kind")
                records.append(value)
            else:
                raise refuse(number, f"a line of kind {kind!r}; expected \"experiment\" or \"run\"")
    if header is None:
        raise ExperimentError(f"{results}: no experiment header (an empty file)", path=str(results))
    header.pop("kind", None)
    return Experiment(results, header, records)


def dataframe(path: Union[str, "os.PathLike[str]"]) -> Any:
    """``load(path).to_dataframe()``: the records as a pandas DataFrame."""
    return load(path).to_dataframe()
