"""Composing under hard rules: :func:`compose` runs the propose–verify–repair
harness — with the embedded proposer (no network) by default, or the model a
``cantus.toml`` names — and returns the piece, the report and the trace that
``cantus compose`` writes."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Optional, Union

from . import _cantus, _display
from .judge import flags, position_flag
from .score import Score

__all__ = ["Composition", "compose"]

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Composition:
    """What a compose run came to.

    Attributes:
        released: the strict gate released the piece.
        piece: the piece, released or not, when one was made.
        report: ``report.json`` as ``cantus compose`` writes it (spec, row,
            schedule, the gate's verdict, diagnostics, totals).
        trace: ``trace.jsonl``, one dict per line (a certificate per event, every
            proposer call, the gate's report, the totals, the timing).
        out: the run folder, when `out` was given.
        write_errors: files of the run folder that could not be written.
        text: the artefact as text, for a domain whose artefact is not a score
            (``piece`` is None then).
        notes: what the run said besides (defaults applied, words of the brief
            not understood, the summary ``cantus compose`` prints).
    """

    released: bool
    piece: Optional[Score]
    report: dict[str, Any]
    trace: list[dict[str, Any]]
    out: Optional[Path]
    write_errors: tuple[str, ...]
    text: Optional[str] = None
    notes: tuple[str, ...] = ()

    @property
    def diagnostics(self) -> list[str]:
        """Why it failed (empty when released)."""
        return list(self.report.get("diagnostics", []))

    @property
    def totals(self) -> dict[str, Any]:
        """The run's counts: events proposed, accepted, repaired, dropped; calls."""
        for entry in self.trace:
            if entry.get("kind") == "totals":
                return {k: v for k, v in entry.items() if k != "kind"}
        return {}

    def __repr__(self) -> str:
        state = "released" if self.released else "not released"
        size = f", {len(self.piece)} events" if self.piece is not None else ""
        return f"<cantus.Composition {state}{size}, {len(self.trace)} trace lines>"

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.released else "#cf222e"
        head = f"<p><b style='color:{colour}'>{'RELEASED' if self.released else 'NOT RELEASED'}</b></p>"
        why = "".join(f"<p>{_display.escape(d)}</p>" for d in self.diagnostics)
        if self.piece is not None:
            return head + why + self.piece._repr_html_()
        return head + why + (f"<pre>{_display.escape(self.text)}</pre>" if self.text is not None else "")


def compose(
    brief: Optional[str] = None,
    *,
    seed: int = 0,
    config: Optional[PathLike] = None,
    spec: Optional[PathLike] = None,
    mode: Optional[Literal["strict", "relaxed"]] = None,
    constrained: bool = False,
    revise: Optional[int] = None,
    domain: Optional[str] = None,
    cantus: Optional[str] = None,
    species: Optional[int] = None,
    position: Optional[Literal["above", "below"]] = None,
    record: Optional[PathLike] = None,
    replay: Optional[PathLike] = None,
    out: Optional[PathLike] = None,
    force: bool = False,
    **options: Any,
) -> Composition:
    """Composes a piece through the harness, as ``cantus compose`` does.

    Twelve-tone (the default domain) from an English `brief` ("a 16-bar piece for
    three voices in 3/4 on Webern's Op. 21 row, with a canon between the outer
    voices") or a `spec` file; counterpoint (``domain="counterpoint"``) from
    `cantus` (a mode — ``"dorian"`` … ``"ionian"`` for Fux's own cantus firmi — or
    a file), `species` (1 or 2) and `position`; any other domain the program
    links by its name and its own options (``domain="name", some_flag=6``).
    The run is the domain's registered compose job, the one ``cantus compose
    --domain NAME`` runs.

    Args:
        seed: seeds the plan and the proposer; the same seed gives the same piece.
        config: a ``cantus.toml`` naming a model backend; the embedded proposer
            (no network, no key) when None.
        mode: the gate mode (default: the config's ``[gate] mode``, else strict).
        constrained: constrained decoding for the model, whatever ``[harness]``
            says.
        revise: up to this many generate–measure–revise rounds, each also
            measured by Libretto's degeneracy gate.
        record, replay: a cassette to record every model exchange to, or to
            answer every call from (offline, deterministic).
        out: also write the run folder there, as ``cantus compose --out`` does
            (refused when it holds another run, unless `force`).
        options: any other flag of the domain's ``cantus compose``, by its name
            with ``_`` for ``-`` (``True`` for a switch).

    The interpreter is released while it composes, so other Python threads run.
    A run that is not released is a result, not an exception: check
    :attr:`Composition.released` and :attr:`Composition.diagnostics`.

    Raises:
        BriefError, SpecError: the brief or spec cannot be planned.
        ConfigError: the ``cantus.toml`` is malformed or its backend cannot be built.
        ComposeError: options the domain does not take or that do not go
            together (worded as the command line words them).
        DomainError: an unknown domain (the message lists the registered ones).
    """

    def path(p: Optional[PathLike]) -> Optional[str]:
        return None if p is None else os.fspath(p)

    given = {
        "brief": brief,
        "spec": spec,
        "gate": mode,
        "revise": revise,
        "cantus": cantus,
        "species": species,
        **position_flag(position),
        **options,
    }
    request = _Request(
        domain=domain,
        options=flags(given),
        seed=seed,
        config=path(config),
        record=path(record),
        replay=path(replay),
        constrained=constrained,
        out=path(out),
        force=force,
    )
    done = _cantus.compose(request)
    piece = done.piece
    return Composition(
        released=done.released,
        piece=None if piece is None else Score._wrap(piece),
        report=json.loads(done.report),
        trace=[json.loads(line) for line in done.trace.splitlines() if line.strip()],
        out=None if done.out is None else Path(done.out),
        write_errors=tuple(done.write_errors),
        text=done.text,
        notes=tuple(done.notes),
    )


class _Request:
    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)
