"""Cantus from Python, as a notebook would use it (each "# %%" is a cell; run it
whole with `python examples/python/notebook.py --out DIR`; CI runs it).

Needs the `cantus-music` wheel (README, "Python"), music21, pandas and matplotlib —
scripts/test-python.sh installs them all into .venv-tools/.
"""

# %% Setup
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # write files; a notebook shows the figure inline instead
import matplotlib.pyplot as plt
import music21

import cantus

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
WEBERN = REPO / "domains/twelve-tone/tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt"
EXPERIMENT = HERE / "data" / "experiment"

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--out", type=Path, default=Path(tempfile.mkdtemp(prefix="cantus-notebook-")))
args = parser.parse_args()
args.out.mkdir(parents=True, exist_ok=True)

# %% 1. Analyse a score read through music21
# The opening of Webern's Symphony Op. 21 as MusicXML, the way a music21 user has it,
# parsed by music21 and handed to Cantus in memory.
musicxml = args.out / "webern-op21.musicxml"
cantus.read(WEBERN).write(musicxml)
stream = music21.converter.parse(musicxml)
print(f"music21 read {len(stream.parts)} parts, {len(stream.flatten().notes)} notes")

score = cantus.from_music21(stream)
analysis = cantus.analyze(score)  # the row is inferred and named
print(repr(analysis))
print(f"row {analysis.row_name}: {analysis.explained} of {analysis.notes} notes explained ({analysis.share:.0%})")
for s in analysis.statements[:6]:
    print(f"  statement {s.number}: {s.label:<8} bars {s.first_bar}-{s.last_bar}  {', '.join(s.voices)}")
for c in analysis.canons[:3]:
    print(f"  canon: statement {c.follower} follows {c.leader} by {c.relation} {c.interval} after {c.delay} quarters")
assert analysis.row_name == "WebernOp21" and analysis.share > 0.9

# The same row, its matrix and its symmetry, next to music21's serial module.
rows = cantus.rows("Webern Op. 21")
m21_row = music21.serial.getHistoricalRowByName("WebernOp21")
assert list(rows.matrix[0]) == [n.pitch.pitchClass for n in m21_row.matrix()[0]]
print(f"P0 = {rows.form('P0')}; symmetric: {', '.join(rows.symmetries)}")

# %% 2. Verify a generated piece
done = cantus.compose("Write a 12-bar trio in 3/4 at 72 bpm on Schoenberg's Op. 25 row", seed=4)
print(repr(done))
assert done.released and done.piece is not None
verdict = cantus.verify(done.piece)
print(verdict)
assert verdict.passed

# Move one note a semitone, and the strict gate says exactly where the row breaks.
voices = list(done.piece.voices)
first = voices[0].events[0]
nudged = cantus.Event(first.onset, first.duration, [p.midi + 1 for p in first.pitches])
voices[0] = cantus.Voice(voices[0].name, (nudged,) + voices[0].events[1:])
broken = cantus.Score(voices, meter=done.piece.meter, tempo=done.piece.tempo)
verdict = cantus.verify(broken)
print(verdict)
assert not verdict.passed
for v in verdict.hard[:3]:
    print(f"  {v.rule} in bar {v.bar}, {v.voice}, at onset {v.onset}")
if cantus._display.lilypond_available():
    (args.out / "trio.svg").write_bytes(done.piece.engrave("svg"))

# %% 3. An experiment in a DataFrame: strict delivery per condition
frame = cantus.experiment.dataframe(EXPERIMENT)
applies = frame[frame["outcome"] != "not-applicable"]
delivery = applies.groupby("condition", sort=False)["released"].agg(["mean", "count"])
print(delivery)

fig, ax = plt.subplots(figsize=(5, 3))
ax.bar(delivery.index, delivery["mean"] * 100, color="#4c72b0")
ax.set_ylabel("strict delivery (%)")
ax.set_ylim(0, 115)
ax.set_yticks(range(0, 101, 20))
ax.set_title(f"{frame['task'].nunique()} tasks x {frame['run'].nunique()} runs, embedded proposer")
for i, (rate, n) in enumerate(zip(delivery["mean"], delivery["count"])):
    ax.text(i, rate * 100 + 2, f"{rate:.0%} of {n}", ha="center", fontsize=8)
fig.tight_layout()
plot = args.out / "delivery.png"
fig.savefig(plot, dpi=120)
print(f"wrote {plot}")
assert plot.stat().st_size > 0
