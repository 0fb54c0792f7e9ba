#!/usr/bin/env python3
"""An example Cantus subprocess plugin: a deterministic symbolic "model" in Python.

It proves that a proposer can be written in any language: Cantus starts this script,
speaks JSON lines over its stdin/stdout (see plugins/README.md), and reads its replies
as it would a model's. It answers every request with one bar in the onset-slot grammar,
decided only by the request's `context`, following exactly the rules (and messages) of
the Rust example, plugins/example-dylib/src/phrase.rs.

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
DESCRIPTION = "example subprocess (Python): one bar in the onset-slot grammar from context.allowed_pitch_classes"

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
            context = request.get("context") if isinstance(request, dict) else None
            send({"id": ident, "reply": {"text": phrase(context), "model": NAME, "stop_reason": "stop"}})
        except Refusal as refusal:
            send({"id": ident, "error": str(refusal)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
