#!/usr/bin/env python3
"""An example Cantus subprocess plugin: a deterministic symbolic "model" in Python.

It proves that a proposer can be written in any language: Cantus starts this script,
speaks JSON lines over its stdin/stdout (see plugins/README.md), and reads its replies
as it would a model's. Its answers are decided only by the request's `context`,
following exactly the rules (and messages) of the Rust example:

* `context.domain == "twelve-tone"` (the twelve-tone LLM proposer's section, patch and
  rewrite requests): every owed note of every voice, as the voice lines the proposer
  reads (`Name: PITCH@SLOT>LENGTH ...`) -- plugins/example-dylib/src/twelve_tone/;
* any other context: one bar in the onset-slot grammar --
  plugins/example-dylib/src/phrase.rs.

Standard library only. Diagnostics go to stderr, never to stdout (stdout is the protocol).

Use it from a config file:

    [backend]
    kind = "subprocess"
    command = ["python3", "cantus_example_plugin.py"]   # run in the config file's directory
"""

import json
import sys

PROTOCOL_VERSION = 1
NAME = "example-serial-py"
VERSION = "0.1.0"
KIND = "proposer"
DESCRIPTION = (
    "example subprocess (Python): a symbolic twelve-tone proposer for the twelve-tone context, "
    "else one bar in the onset-slot grammar"
)

MAX_SLOTS = 4096
MISSING = object()
DEFAULT_PITCH_CLASSES = [0, 11, 7, 8, 3, 1, 2, 10, 6, 5, 4, 9]
SHARP_NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]


class Refusal(Exception):
    """The request's context cannot be used; the message says why."""


def show(value):
    """JSON text of a value, compact like serde_json's, for messages."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def is_whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def whole(ctx, key, lo, hi, default):
    value = ctx.get(key)
    if value is None:
        return default
    if is_whole(value) and lo <= value <= hi:
        return value
    raise Refusal(f"context.{key} must be a whole number from {lo} to {hi}, got {show(value)}")


def parse_meter(value):
    if not isinstance(value, str) or "/" not in value:
        return None
    num, den = value.split("/", 1)
    parts = []
    for part in (num, den):
        if not part or not all("0" <= c <= "9" for c in part):
            return None
        n = int(part)
        if not 1 <= n <= 1000:
            return None
        parts.append(n)
    return parts[0], parts[1]


def valid_voice(value):
    if not isinstance(value, str) or not value.strip() or value.strip() != value:
        return False
    return all((c.isascii() and c.isalnum()) or c in " -_" for c in value)


def phrase(context):
    """The grammar text for a request context (see phrase.rs for the rules)."""
    if context is None:
        context = {}
    if not isinstance(context, dict):
        raise Refusal(f"context must be a JSON object, got {show(context)}")
    pcs = context.get("allowed_pitch_classes")
    if pcs is None:
        pcs = DEFAULT_PITCH_CLASSES
    elif not isinstance(pcs, list) or not pcs:
        raise Refusal(f"context.allowed_pitch_classes must be a non-empty list, got {show(pcs)}")
    else:
        for i, pc in enumerate(pcs):
            if not (is_whole(pc) and pc < 12):
                raise Refusal(
                    f"context.allowed_pitch_classes[{i}] must be a pitch class from 0 to 11, got {show(pc)}"
                )
    bar = whole(context, "bar", 1, 10000, 1)
    meter = context.get("meter")
    if meter is None:
        num, den = 4, 4
    else:
        parsed = parse_meter(meter)
        if parsed is None:
            raise Refusal(
                f'context.meter must be "num/den" with each from 1 to 1000, got {show(meter)}'
            )
        num, den = parsed
    grid = whole(context, "grid", 1, 3840, 16)
    if (grid * num) % den != 0:
        raise Refusal(f"context.grid {grid} does not divide a bar of {num}/{den} into whole slots")
    voice = context.get("voice")
    if voice is None:
        voice = "Voice"
    elif not valid_voice(voice):
        raise Refusal(
            f"context.voice must be a name of letters, digits, spaces, `-` or `_`, got {show(voice)}"
        )
    octave = whole(context, "octave", 0, 8, 4)
    slots = grid * num // den
    try:
        notes = whole(context, "notes", 1, slots, len(pcs))
    except Refusal as refusal:
        raise Refusal(f"{refusal} (the bar has {slots} slots)") from None
    each = slots // notes
    tokens = [
        f"{SHARP_NAMES[pcs[i % len(pcs)]]}{octave}@{1 + i * each}>{each}" for i in range(notes)
    ]
    return (
        f"KEY: ? | METER: {num}/{den} | TEMPO: ? | GRID: {grid} | BARS: {bar}\n"
        f"VOICES: {voice}\n@{bar} [-]\n  {voice}: {' '.join(tokens)}\n"
    )


# --- the twelve-tone proposer (rules in plugins/example-dylib/src/twelve_tone/mod.rs) ---


def shown(value):
    """A value for a message: its JSON text, or `nothing` when the key is absent."""
    return "nothing" if value is MISSING else show(value)


def whole_at(value, at, lo, hi):
    if is_whole(value) and lo <= value <= hi:
        return value
    raise Refusal(f"{at} must be a whole number from {lo} to {hi}, got {shown(value)}")


def pair_at(value, at, lo, hi):
    if isinstance(value, list) and len(value) == 2:
        a, b = value
        if is_whole(a) and is_whole(b) and lo <= a <= b <= hi:
            return a, b
    raise Refusal(
        f"{at} must be [low, high], whole numbers from {lo} to {hi} with low <= high, got {shown(value)}"
    )


def read_note(note, at, slots):
    if not isinstance(note, dict):
        raise Refusal(f"{at} must be a JSON object, got {show(note)}")
    items = note.get("pcs", MISSING)
    if not isinstance(items, list) or not items:
        raise Refusal(f"{at}.pcs must be a non-empty list of pitch classes, got {shown(items)}")
    pcs = []
    for k, item in enumerate(items):
        pc = whole_at(item, f"{at}.pcs[{k}]", 0, 11)
        if pc in pcs:
            raise Refusal(f"{at}.pcs names pitch class {pc} twice")
        pcs.append(pc)
    lo, hi = pair_at(note.get("onset_slots", MISSING), f"{at}.onset_slots", 1, slots)
    max_length = whole_at(note.get("max_length", MISSING), f"{at}.max_length", 1, slots)
    return {"pcs": pcs, "lo": lo, "hi": hi, "max_length": max_length}


def read_voice(voice, at, slots):
    if not isinstance(voice, dict):
        raise Refusal(f"{at} must be a JSON object, got {show(voice)}")
    name = voice.get("name", MISSING)
    if not valid_voice(name):
        raise Refusal(
            f"{at}.name must be a name of letters, digits, spaces, `-` or `_`, got {shown(name)}"
        )
    index = whole_at(voice.get("voice", MISSING), f"{at}.voice", 0, 999)
    low, high = pair_at(voice.get("register", MISSING), f"{at}.register", 0, 127)
    previous = voice.get("previous_pitch")
    if previous is not None:
        previous = whole_at(previous, f"{at}.previous_pitch", 0, 127)
    notes = voice.get("notes", MISSING)
    if not isinstance(notes, list):
        raise Refusal(f"{at}.notes must be a list, got {shown(notes)}")
    notes = [read_note(n, f"{at}.notes[{j}]", slots) for j, n in enumerate(notes)]
    return {"name": name, "voice": index, "low": low, "high": high, "previous": previous, "notes": notes}


def read_job(context):
    request = context.get("request", MISSING)
    if request == "whole":
        raise Refusal(
            'context.request "whole" names no voices or row positions; this plugin '
            "answers section, patch and rewrite requests"
        )
    if request not in ("section", "patch", "rewrite"):
        raise Refusal(
            f'context.request must be "section", "patch" or "rewrite", got {shown(request)}'
        )
    slots = whole_at(context.get("slots", MISSING), "context.slots", 1, MAX_SLOTS)
    voices = context.get("voices", MISSING)
    if not isinstance(voices, list) or not voices:
        raise Refusal(f"context.voices must be a non-empty list, got {shown(voices)}")
    plan = advice(context)
    read = []
    for i, v in enumerate(voices):
        voice = read_voice(v, f"context.voices[{i}]", slots)
        notes = v.get("notes") if isinstance(v.get("notes"), list) else []
        tags = [n.get("tag") if isinstance(n, dict) else None for n in notes]
        follow_advice(voice, tags, plan)
        read.append(voice)
    return slots, read


def advice(context):
    """The planner's advice (context.plan): (voice, tag, onset slot, length) for each
    entry it can read; advice, unlike the windows, is not part of the contract."""
    entries = context.get("plan")
    if not isinstance(entries, list):
        return []
    out = []
    for e in entries:
        if not isinstance(e, dict):
            continue
        voice, tag, onset, length = e.get("voice"), e.get("tag"), e.get("onset_slot"), e.get("length")
        if is_whole(voice) and isinstance(tag, str) and is_whole(onset) and is_whole(length):
            out.append((voice, tag, onset, length))
    return out


def follow_advice(voice, tags, plan):
    """Rule 0: a note the plan advises keeps to the plan's onset and length, where its
    window allows them."""
    for note, tag in zip(voice["notes"], tags):
        for v, t, onset, length in plan:
            if v == voice["voice"] and t == tag:
                if note["lo"] <= onset <= note["hi"]:
                    note["lo"] = note["hi"] = onset
                    note["max_length"] = min(note["max_length"], max(1, length))
                break


def overlaps(note, onset, length):
    return note["onset"] < onset + length and onset < note["onset"] + note["length"]


def shares(note, pcs):
    return any(p % 12 in pcs for p in note["pitches"])


def timing(owed, next_onset, others):
    """Rule 2: the earliest onset that collides with no other voice, at its longest."""

    def room(onset):
        return min(owed["max_length"], max(0, next_onset - onset))

    rivals = [o for o in others if shares(o, owed["pcs"])]
    for onset in range(owed["lo"], owed["hi"] + 1):
        longest = room(onset)
        if longest == 0 or any(overlaps(o, onset, 1) for o in rivals):
            continue
        for rival in rivals:
            if rival["onset"] > onset:
                longest = min(longest, rival["onset"] - onset)
        return onset, longest
    return owed["lo"], max(1, room(owed["lo"]))


def crosses(pitch, voice, other):
    if not other["pitches"]:
        return False
    lowest, highest = other["pitches"][0], other["pitches"][-1]
    return (other["voice"] < voice and pitch > lowest) or (other["voice"] > voice and pitch < highest)


def choose_pitch(pc, target, voice, sounding):
    """Rule 3: nearest the previous note, then the register's middle, then lower."""
    middle = (voice["low"] + voice["high"]) // 2
    candidates = [p for p in range(voice["low"], voice["high"] + 1) if p % 12 == pc]
    candidates.sort(key=lambda p: (abs(p - target), abs(p - middle), p))
    for p in candidates:
        if not any(crosses(p, voice["voice"], o) for o in sounding):
            return p
    return candidates[0] if candidates else None


def pitch_name(midi):
    return f"{SHARP_NAMES[midi % 12]}{midi // 12 - 1}"


def twelve_tone(context):
    """The voice lines for a twelve-tone context (see twelve_tone/mod.rs for the rules)."""
    slots, voices = read_job(context)
    placed = []
    out = []
    for i, voice in enumerate(voices):
        middle = (voice["low"] + voice["high"]) // 2
        previous = voice["previous"]
        line = []
        notes = voice["notes"]
        for j, owed in enumerate(notes):
            next_onset = min(notes[j + 1]["lo"] if j + 1 < len(notes) else slots + 1, slots + 1)
            onset, length = timing(owed, next_onset, placed)
            sounding = [o for o in placed if o["voice"] != voice["voice"] and overlaps(o, onset, length)]
            target = middle if previous is None else previous
            pitches = []
            for pc in owed["pcs"]:
                p = choose_pitch(pc, target, voice, sounding)
                if p is None:
                    raise Refusal(
                        f"context.voices[{i}].register [{voice['low']}, {voice['high']}] holds no pitch "
                        f"of pitch class {pc} (owed by context.voices[{i}].notes[{j}])"
                    )
                pitches.append(p)
            previous = pitches[0]
            line.append({"voice": voice["voice"], "onset": onset, "length": length, "pitches": sorted(pitches)})
        placed.extend(line)
        if line:
            tokens = [
                f"{'+'.join(pitch_name(p) for p in n['pitches'])}@{n['onset']}>{n['length']}" for n in line
            ]
            out.append(f"{voice['name']}: {' '.join(tokens)}\n")
    return "".join(out)


def answer(request):
    """The reply text for a request: twelve-tone voice lines or the generic phrase."""
    context = request.get("context") if isinstance(request, dict) else None
    if isinstance(context, dict) and context.get("domain") == "twelve-tone":
        return twelve_tone(context)
    return phrase(context)


def send(message):
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    hello = sys.stdin.readline()
    if not hello:
        return 0
    try:
        version = json.loads(hello).get("cantus_plugin")
    except (ValueError, AttributeError):
        version = None
    identity = {
        "cantus_plugin": PROTOCOL_VERSION,
        "name": NAME,
        "version": VERSION,
        "kind": KIND,
        "description": DESCRIPTION,
    }
    if version != PROTOCOL_VERSION:
        identity["error"] = f"this plugin speaks protocol version {PROTOCOL_VERSION}, the host {show(version)}"
        send(identity)
        return 1
    send(identity)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            ident = message.get("id")
            request = message["request"]
        except (ValueError, AttributeError, KeyError, TypeError) as error:
            print(f"unreadable request line: {error}", file=sys.stderr)
            send({"id": None, "error": f"unreadable request line: {error}"})
            continue
        try:
            send({"id": ident, "reply": {"text": answer(request), "model": NAME, "stop_reason": "stop"}})
        except Refusal as refusal:
            send({"id": ident, "error": str(refusal)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
