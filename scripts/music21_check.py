#!/usr/bin/env python3
"""Check that music21 reads a MusicXML or MIDI file as the notes we expect.

Cantus writes MusicXML and MIDI itself; this script asks an independent
reader, music21, what it finds in such a file, so a misplaced tie, a wrong
<divisions> or a shifted track shows up as a concrete difference.

Usage:
    music21_check.py FILE EXPECTED.json [--skip-empty-parts | --sounding]

FILE is a .musicxml/.xml/.mxl or .mid/.midi file. EXPECTED.json is a list of
    {"voice": 0, "onset": "9/2", "duration": "1/3", "midi": 60}
one entry per sounding pitch, with onset and duration as exact fractions of a
quarter note ("n/d" or an integer) and voice the 0-based part index.

music21 loads the file (MIDI without quantisation: quantizePost=False), then
each part (split into its voices when its measures hold several) has its
ties stripped (tied notes merged into one) and is flattened, and
every pitch of every note or chord gives one (part index, onset, duration,
midi) entry. The check passes when the two multisets are equal.

--skip-empty-parts numbers parts (on both sides) only among those holding
notes: music21 turns MIDI tracks into parts, may keep or drop a conductor
track, and a voice without notes leaves no track notes behind.

--sounding compares what sounds, not how it is notated, for files whose parts and
staves a reader may number differently (a piano's two staves, a part's voices) and
whose ties a reader may join differently: on both sides, per pitch, the time spans
in which it sounds in any part, notes of one pitch that touch or overlap joined into
one span; music21's tied notes are taken as written (its stripTies joins a tie start
to the next note of that pitch even when they do not touch). The corpus check of
corpus/second-viennese uses it. Grace notes are never compared.

Exit status: 0 on agreement, 1 on a mismatch (a diff is printed), 2 when the
arguments or files cannot be used.
"""

import argparse
import copy
import json
import sys
from collections import Counter
from fractions import Fraction

# music21 keeps offsets as floats only when they are exact binary fractions
# with small denominators; anything else is a Fraction. Larger denominators
# can only be float noise, cleaned up the way music21's opFrac does.
DENOM_LIMIT = 65535


def exact(value):
    """An exact Fraction for a music21 offset or quarterLength."""
    if isinstance(value, Fraction):
        return value
    frac = Fraction(value)
    if frac.denominator > DENOM_LIMIT:
        frac = frac.limit_denominator(DENOM_LIMIT)
    return frac


def parse_fraction(text, where):
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError) as err:
        print(f"music21_check: {where}: bad fraction {text!r}: {err}", file=sys.stderr)
        sys.exit(2)


def load_expected(path):
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, json.JSONDecodeError) as err:
        print(f"music21_check: cannot read {path}: {err}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(raw, list):
        print(f"music21_check: {path}: expected a JSON list", file=sys.stderr)
        sys.exit(2)
    notes = []
    for i, item in enumerate(raw):
        where = f"{path}: entry {i}"
        try:
            voice, midi = int(item["voice"]), int(item["midi"])
            onset = parse_fraction(item["onset"], where)
            duration = parse_fraction(item["duration"], where)
        except (KeyError, TypeError, ValueError) as err:
            print(f"music21_check: {where}: {err}", file=sys.stderr)
            sys.exit(2)
        notes.append((voice, onset, duration, midi))
    return notes


def load_with_music21(path, strip_ties=True):
    """(part index, onset, duration, midi) for every sounding pitch music21 finds
    (tied notes joined unless `strip_ties` is false)."""
    try:
        from music21 import converter
    except ImportError as err:
        print(f"music21_check: music21 is not importable: {err}", file=sys.stderr)
        sys.exit(2)
    is_midi = path.lower().endswith((".mid", ".midi"))
    try:
        if is_midi:
            score = converter.parse(path, quantizePost=False)
        else:
            score = converter.parse(path)
    except Exception as err:  # music21 raises many kinds of errors
        print(f"music21_check: music21 cannot read {path}: {err}", file=sys.stderr)
        sys.exit(2)
    notes = []
    for index, part in enumerate(score.parts):
        for line in voice_lines(part):
            flat = (line.stripTies() if strip_ties else line).flatten()
            for n in flat.notes:
                if n.duration.isGrace:
                    continue
                onset = exact(flat.elementOffset(n))
                duration = exact(n.duration.quarterLength)
                for p in n.pitches:
                    notes.append((index, onset, duration, int(p.midi)))
    return notes


def voice_lines(part):
    """The part itself, or one stream per MusicXML voice number when measures
    hold several voices. music21 strips ties only between consecutive notes of
    one stream, so interleaved voices must be separated first, by voice number
    (a measure's position in its voice list varies when a voice is absent)."""
    from music21 import stream

    if not part.recurse().getElementsByClass("Voice"):
        return [part]
    lines = {}
    for measure in part.getElementsByClass("Measure"):
        start = part.elementOffset(measure)
        voices = list(measure.voices)
        # A measure without Voice objects holds the first voice's notes directly.
        containers = [(str(v.id), v, start + measure.elementOffset(v)) for v in voices]
        if not voices:
            containers = [("1", measure, start)]
        for voice_id, container, base in containers:
            line = lines.setdefault(voice_id, stream.Stream())
            for n in container.notes:
                line.insert(base + container.elementOffset(n), copy.deepcopy(n))
    return [lines[k] for k in sorted(lines)]


def sounding(notes):
    """Per pitch, the spans in which it sounds in any part: (0, onset, length, midi),
    notes of one pitch that touch or overlap joined, time counted from the first
    note (a reader may start a pickup bar at 0 or where it ends in a whole bar)."""
    start = min((n[1] for n in notes), default=0)
    notes = [(0, n[1] - start, n[2], n[3]) for n in notes]
    spans = []
    for midi in sorted({n[3] for n in notes}):
        current = None
        for onset, duration in sorted((n[1], n[2]) for n in notes if n[3] == midi and n[2] > 0):
            end = onset + duration
            if current and onset <= current[1]:
                current[1] = max(current[1], end)
                continue
            if current:
                spans.append((0, current[0], current[1] - current[0], midi))
            current = [onset, end]
        if current:
            spans.append((0, current[0], current[1] - current[0], midi))
    return spans


def compact_parts(notes):
    """Renumbers parts 0, 1, ... among those that hold notes, in order."""
    order = {v: i for i, v in enumerate(sorted({n[0] for n in notes}))}
    return [(order[n[0]],) + tuple(n[1:]) for n in notes]


def show(entry):
    voice, onset, duration, midi = entry
    return f"part {voice}  onset {onset}  duration {duration}  midi {midi}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="MusicXML or MIDI file")
    parser.add_argument("expected", help="JSON list of expected notes")
    parser.add_argument(
        "--skip-empty-parts",
        action="store_true",
        help="number parts only among those holding notes (for MIDI)",
    )
    parser.add_argument(
        "--sounding",
        action="store_true",
        help="compare per pitch the spans in which it sounds, whatever the part or ties",
    )
    args = parser.parse_args()

    expected = load_expected(args.expected)
    found = load_with_music21(args.file, strip_ties=not args.sounding)
    if args.skip_empty_parts:
        expected, found = compact_parts(expected), compact_parts(found)
    if args.sounding:
        expected, found = sounding(expected), sounding(found)
    want, got = Counter(expected), Counter(found)
    if want == got:
        print(f"music21_check: {args.file}: music21 agrees on {len(found)} notes")
        return 0
    missing = sorted((want - got).elements())
    extra = sorted((got - want).elements())
    print(
        f"music21_check: {args.file}: music21 disagrees "
        f"(expected {len(expected)} notes, music21 found {len(found)})"
    )
    limit = 40
    for title, entries in (("expected but not found", missing), ("found but not expected", extra)):
        if entries:
            print(f"  {title} ({len(entries)}):")
            for entry in entries[:limit]:
                print(f"    {show(entry)}")
            if len(entries) > limit:
                print(f"    ... {len(entries) - limit} more")
    return 1


if __name__ == "__main__":
    sys.exit(main())
