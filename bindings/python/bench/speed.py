"""Speed of the Python package, as ratios measured in one run on one machine.

1. `cantus.verify` on a piece of about 96,000 events against `cantus verify` (the CLI
   binary, a release build) on the same file: the binding's overhead over the program.
2. `cantus.rows` against music21's `serial` module on the 71 historical rows
   (/work/shared/data/rows/ or CANTUS_SHARED; Cantus ships the same table): the row,
   its 48 forms and its matrix (and, for Cantus, its properties too).

    python bindings/python/bench/speed.py --cli target/release/cantus [--events 96000]

Each figure is the median of --repeat runs. Not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import cantus


def median_seconds(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def big_piece(events: int) -> cantus.Score:
    """A released piece repeated in time until it holds `events` events: every copy
    is whole row statements, so the strict gate judges a piece like the ones it
    releases."""
    base = cantus.compose(
        "Write a 64-bar piece for four voices in 4/4 at 72 bpm on Schoenberg's Op. 25 row", seed=3
    ).piece
    assert base is not None
    copies = -(-events // len(base))
    span = Fraction(base.bars) * base.bar_length
    voices = []
    for v in base.voices:
        out = []
        for k in range(copies):
            shift = span * k
            out.extend(cantus.Event(e.onset + shift, e.duration, e.pitches) for e in v.events)
        voices.append(cantus.Voice(v.name, out))
    return cantus.Score(voices, meter=base.meter, tempo=base.tempo, bars=base.bars * copies)


def verify_ratio(cli: Path, events: int, repeat: int) -> dict:
    score = big_piece(events)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        score.write(path)
        read = cantus.read(path)
        verdict = cantus.verify(read)
        cli_out = json.loads(subprocess.run([str(cli), "verify", str(path), "--json"], capture_output=True, text=True).stdout)
        assert cli_out["passed"] == verdict.passed and cli_out["violations"] == verdict.raw["violations"]
        t_cli = median_seconds(lambda: subprocess.run([str(cli), "verify", str(path), "--json"], capture_output=True), repeat)
        t_read_verify = median_seconds(lambda: cantus.verify(cantus.read(path)), repeat)
        t_verify = median_seconds(lambda: cantus.verify(read), repeat)
        t_read = median_seconds(lambda: cantus.read(path), repeat)
        t_voices = median_seconds(lambda: cantus.read(path).voices, 1)
    return {
        "events": len(read),
        "passed": verdict.passed,
        "cli_verify_s": t_cli,
        "py_read_plus_verify_s": t_read_verify,
        "py_verify_only_s": t_verify,
        "py_read_only_s": t_read,
        "py_read_and_all_events_as_fractions_s": t_voices,
        "ratio_cli_over_py_read_plus_verify": t_cli / t_read_verify,
        "ratio_cli_over_py_verify_only": t_cli / t_verify,
    }


def rows_ratio(repeat: int) -> dict:
    from music21 import serial

    ids = [h.id for h in cantus.historical_rows()]
    shared = Path(os.environ.get("CANTUS_SHARED", "/work/shared")) / "data" / "rows" / "historical_rows.json"
    if shared.exists():
        table = {r["id"]: r["pcs"] for r in json.loads(shared.read_text())}
        assert sorted(table) == sorted(ids), "the shared table is the one Cantus ships"

    def ours() -> None:
        for i in ids:
            r = cantus.rows(i)
            _ = (r.forms, r.matrix, r.all_interval, r.combinatorial_partners, r.symmetries)

    def theirs() -> None:
        for i in ids:
            row = serial.getHistoricalRowByName(i)
            row.matrix()
            for kind in ("P", "I", "R", "RI"):
                for n in range(12):
                    row.zeroCenteredTransformation(kind, n)
            row.isAllInterval()

    t_ours = median_seconds(ours, repeat)
    t_theirs = median_seconds(theirs, repeat)
    return {"rows": len(ids), "cantus_rows_s": t_ours, "music21_serial_s": t_theirs, "ratio_music21_over_cantus": t_theirs / t_ours}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, required=True, help="the cantus binary (a release build)")
    parser.add_argument("--events", type=int, default=96_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps({"verify": verify_ratio(args.cli, args.events, args.repeat), "rows": rows_ratio(args.repeat)}, indent=2))


if __name__ == "__main__":
    main()
