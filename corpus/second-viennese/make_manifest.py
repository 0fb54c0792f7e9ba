#!/usr/bin/env python3
"""Rebuild corpus/second-viennese from an OpenScore Lieder checkout, and its manifest.

    make_manifest.py LIEDER_CHECKOUT [--python-music21]

LIEDER_CHECKOUT is a clone of github.com/OpenScore/Lieder (CC0); the files are taken
from the commit pinned below (`git show COMMIT:PATH`, so the checkout may be at any
commit or bare). Each song's MusicXML is copied under a short name, and manifest.json
is written: source path and commit, licence, SHA-256, work, and what music21 reads in
the file (sounding spans, grace notes apart). music21 must be importable (the
venv of scripts/install-music-tools.sh: `.venv-tools/bin/python make_manifest.py ...`).

The Webern Op. 21 excerpt (`webern_op21_i_bars01-25.txt`) is not from OpenScore; it is
the twelve-tone crate's fixture, copied (see README.md). Its manifest entry is written
from the fixture's README; music21 does not read the Cantus text grammar, so its
`music21_*` fields are absent.

No network is used. The Rust test tests/corpus.rs checks every hash and count written
here against the committed files and against Cantus's reader.
"""

import hashlib
import json
import subprocess
from fractions import Fraction
import sys
from pathlib import Path

COMMIT = "bca122458de6da362abe62dd6aec62e25d7759b1"
REPO = "https://github.com/OpenScore/Lieder"
HERE = Path(__file__).resolve().parent

SETS = [
    (
        "schoenberg_op15",
        "scores/Schoenberg,_Arnold/Das_Buch_der_hängenden_Gärten,_Op.15/",
        "Arnold Schoenberg",
        "Das Buch der hängenden Gärten, Op. 15 (1908–09)",
    ),
    (
        "webern_op3",
        "scores/Webern,_Anton/5_Lieder_aus_“Der_siebente_Ring”,_Op.3/",
        "Anton Webern",
        "5 Lieder aus „Der siebente Ring“, Op. 3 (1908–09)",
    ),
    (
        "webern_op4",
        "scores/Webern,_Anton/5_Lieder_nach_Gedichten_von_Stefan_George,_Op.4/",
        "Anton Webern",
        "5 Lieder nach Gedichten von Stefan George, Op. 4 (1908–09)",
    ),
]

OP21 = {
    "file": "webern_op21_i_bars01-25.txt",
    "composer": "Anton Webern",
    "work": "Symphonie, Op. 21 (1927–28), first movement, bars 1–25",
    "style": "twelve-tone",
    "source": "domains/twelve-tone/tests/fixtures/webern_op21/symphonie_i_bars_1-25.txt "
    "(written for Cantus from the note data of github.com/fourscoreandmore/"
    "fourscoreandmore.org, scored-up-scores/Webern/Webern-Symphonie.mei; see that "
    "fixture's README)",
    "licence": "the notes of a public-domain work (Webern d. 1945; US: published 1929), "
    "written in the Cantus text grammar for Cantus; the MEI they were read from states "
    "no licence and is not copied",
    "literature_row": {
        "row": "A F# G G# E F B Bb D C# C Eb",
        "source": "Open Music Theory, 'Twelve-Tone Analysis Examples – Webern Op. 21 "
        "and 24' (Mark Gotham, CC BY-SA); music21.serial.historicalDict "
        "'RowWebernOp21'",
    },
}

LICENCE = "CC0 1.0 (OpenScore Lieder, LICENSE.txt; each file's <rights>: 'OpenScore (CC0)')"


def git(checkout, *args):
    return subprocess.run(
        ["git", "-C", str(checkout), *args], check=True, capture_output=True
    ).stdout


def music21_counts(path):
    """Sounding spans and grace-note pitches music21 reads in `path`.

    A span is what `scripts/music21_check.py --sounding` compares: per pitch, a stretch
    of time in which it sounds in some part, notes of one pitch that touch or overlap
    joined. Counting spans rather than notes leaves ties out of it: music21's
    stripTies joins a tie start to the next note of its pitch even where they do not
    touch (Webern Op. 3 No. 1, bar 1) and ties a whole chord when one of its notes is
    tied (Schoenberg Op. 15 No. 9, bar 19), so its note count is not a fact about the
    music.
    """
    from music21 import converter

    score = converter.parse(str(path))
    notes, grace = [], 0
    for part in score.parts:
        flat = part.flatten()
        for n in flat.notes:
            if n.duration.isGrace:
                grace += len(n.pitches)
                continue
            onset = Fraction(flat.elementOffset(n)).limit_denominator(65535)
            length = Fraction(n.duration.quarterLength).limit_denominator(65535)
            notes.extend((int(p.midi), onset, length) for p in n.pitches)
    spans = 0
    for midi in {m for m, _, _ in notes}:
        end = None
        for onset, length in sorted((o, d) for m, o, d in notes if m == midi and d > 0):
            if end is None or onset > end:
                spans += 1
                end = onset + length
            else:
                end = max(end, onset + length)
    return spans, grace


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    checkout = Path(sys.argv[1])
    listing = git(checkout, "ls-tree", "-r", "--name-only", "-z", COMMIT).decode()
    items = []
    for prefix, folder, composer, work in SETS:
        songs = sorted(
            (p for p in listing.split("\0") if p.startswith(folder) and p.endswith(".mxl")),
            key=lambda p: int(p[len(folder):].split("_")[0]),
        )
        for path in songs:
            song = path[len(folder):].split("/")[0]
            number = int(song.split("_")[0])
            name = f"{prefix}_no{number:02d}.mxl"
            target = HERE / name
            target.write_bytes(git(checkout, "show", f"{COMMIT}:{path}"))
            notes, grace = music21_counts(target)
            items.append(
                {
                    "file": name,
                    "composer": composer,
                    "work": work,
                    "song": f"No. {number}, {song.split('_', 1)[1].replace('_', ' ')}",
                    "style": "free atonal",
                    "source": {"repository": REPO, "commit": COMMIT, "path": path},
                    "licence": LICENCE,
                    "sha256": sha256(target),
                    "music21_sounding_spans": notes,
                    "music21_grace_notes": grace,
                }
            )
    op21 = dict(OP21)
    op21["sha256"] = sha256(HERE / OP21["file"])
    items.append(op21)
    manifest = {
        "corpus": "second-viennese",
        "description": "Songs and a symphony excerpt by Schoenberg and Webern: the "
        "reference set of the experiment's corpus distance and of `cantus analyze DIR`.",
        "held_out": "Webern's Variations for piano, Op. 27, is deliberately not here (nor "
        "in any test or fixture): it is kept as an independent check.",
        "fields": {
            "music21_sounding_spans": "per pitch, the stretches of time in which it "
            "sounds in some part (notes of one pitch that touch or overlap joined, grace "
            "notes excluded), as music21 10.5.1 reads the file; Cantus must read the same "
            "number, and (scripts/music21_check.py --sounding) the same spans",
            "music21_grace_notes": "grace-note pitches music21 reads",
            "literature_row": "the row the literature gives, where one is named",
        },
        "count": len(items),
        "items": items,
    }
    (HERE / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    print(f"make_manifest: {len(items)} pieces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
