"""cantus.read, Score, Score.to: every format, exact times, and errors that say where."""

from __future__ import annotations

import io
import pickle
import warnings
from fractions import Fraction

import pytest

import cantus
from conftest import FUZZ, MUSIC, WEBERN


def test_a_text_grammar_file_reads_with_exact_times_and_named_pitches() -> None:
    score = cantus.read(WEBERN)
    assert score.format == "txt"
    assert score.meter == "2/2"
    assert score.bars == 25
    assert [v.name for v in score.voices][:3] == ["Clarinet", "Bass Clarinet", "Horn 1"]
    horn2 = next(v for v in score.voices if v.name == "Horn 2")
    first = horn2.events[0]
    # A3@9>16 on a 32nd grid: slot 9 is 8 32nds after the barline (a quarter), 16 slots a half.
    assert first.onset == Fraction(1) and first.duration == Fraction(2)
    assert first.pitches[0].name == "A3" and first.pitches[0].midi == 57 and first.pitches[0].pc == 9
    assert isinstance(first.onset, Fraction) and isinstance(first.duration, Fraction)
    assert len(score) == sum(len(v) for v in score.voices)
    assert score.end == max(e.end for v in score.voices for e in v.events)


def test_tuplets_keep_their_exact_thirds_and_fifths() -> None:
    score = cantus.read(MUSIC / "musicxml" / "tuplets-and-128ths.musicxml")
    denominators = {e.duration.denominator for v in score.voices for e in v.events}
    assert {5, 7} <= denominators, denominators  # quintuplets and septuplets, exactly
    assert all(isinstance(e.onset, Fraction) for _, e in score.events)


@pytest.mark.parametrize(
    "path",
    [
        MUSIC / "musicxml" / "duet.musicxml",
        MUSIC / "mxl" / "duet.mxl",
        MUSIC / "mei" / "serial-duet.mei",
    ],
)
def test_bytes_are_read_in_the_format_their_first_bytes_show(path) -> None:
    from_path = cantus.read(path)
    from_bytes = cantus.read(path.read_bytes())
    assert from_bytes.source == "<bytes>"
    assert from_bytes.voices == from_path.voices
    with open(path, "rb") as f:
        assert cantus.read(f).voices == from_path.voices


def test_every_written_format_reads_back_the_same_notes(tmp_path) -> None:
    score = cantus.read(MUSIC / "musicxml" / "duet.musicxml")

    def notes(s: cantus.Score) -> list:
        # The notes, not the parts' own key signatures (the text grammar has one key).
        return [(v.name, v.events) for v in s.voices]

    text = score.to("txt")
    assert isinstance(text, str) and text.startswith("KEY:")
    assert notes(cantus.read(text.encode(), format="txt")) == notes(score)
    xml = score.to("musicxml")
    assert notes(cantus.read(xml.encode())) == notes(score)
    midi = score.to("midi")
    assert isinstance(midi, bytes) and midi.startswith(b"MThd")
    back = cantus.read(midi)
    assert [e.midi for _, e in back.events] == [e.midi for _, e in score.events]
    assert "\\version" in score.to("ly")
    score.write(tmp_path / "piece.mid")
    score.write(tmp_path / "piece.txt")
    assert notes(cantus.read(tmp_path / "piece.txt")) == notes(score)


def test_a_score_built_in_python_holds_exact_times_and_spellings() -> None:
    melody = cantus.Voice(
        "Melody",
        [
            cantus.Event(0, Fraction(1, 3), ["Bb4"]),
            cantus.Event(Fraction(1, 3), Fraction(2, 3), [64, "G4"]),
        ],
    )
    score = cantus.Score([melody], meter="3/4", tempo=Fraction(145, 2), title="Built", key="F major")
    assert score.meter == "3/4" and score.tempo == Fraction(145, 2) and score.key == "F major"
    events = score.voices[0].events
    assert events[0].pitches[0].name == "Bb4"
    assert events[1].midi == (64, 67)
    assert events[1].onset == Fraction(1, 3)
    assert "Bb4" in score.to("txt")


@pytest.mark.parametrize(
    "event, words",
    [
        (lambda: cantus.Event(0, 0, [60]), "not positive"),
        (lambda: cantus.Event(-1, 1, [60]), "before the start"),
        (lambda: cantus.Event(0, 1, [128]), "outside 0..=127"),
        (lambda: cantus.Event(0, 1, []), "no pitch"),
    ],
)
def test_a_score_the_model_cannot_hold_is_refused_saying_why(event, words) -> None:
    with pytest.raises(cantus.ScoreError, match=words):
        cantus.Score([cantus.Voice("V", [event()])])


def test_a_malformed_pitch_name_is_refused() -> None:
    with pytest.raises(cantus.ScoreError, match="H4"):
        cantus.Event(0, 1, ["H4"])


BAD_GRAMMAR = """KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 16th | BARS: 2
VOICES: Sop
@1 [-]
  Sop: C4@1>4
@2 [-]
  Sop: C4@1>4 D4@17>2
"""


def test_a_bad_text_grammar_file_raises_naming_file_line_column_and_rule(tmp_path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(BAD_GRAMMAR)
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(path)
    e = caught.value
    assert isinstance(e, ValueError)
    assert (e.path, e.line, e.column, e.rule) == (str(path), 6, 18, "G-ONSET-RANGE")
    # The message is the CLI's rustc-style diagnostic, with the caret line.
    assert "error[G-ONSET-RANGE]" in str(e) and f"--> {path}:6:18" in str(e)
    assert e.diagnostics[0]["rule"] == "G-ONSET-RANGE"
    # Pickled (multiprocessing, joblib) it keeps its place.
    again = pickle.loads(pickle.dumps(e))
    assert (again.line, again.column, again.rule) == (6, 18, "G-ONSET-RANGE")


def test_bytes_are_named_in_errors() -> None:
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(BAD_GRAMMAR.encode())
    assert caught.value.path == "<bytes>" and caught.value.line == 6


def test_every_error_of_a_bad_text_is_listed() -> None:
    text = BAD_GRAMMAR + "  Sop: X9@1>4\n"
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(text.encode(), format="txt")
    rules = [d["rule"] for d in caught.value.diagnostics]
    assert "G-ONSET-RANGE" in rules and len(rules) >= 2


def test_lenient_reading_keeps_what_strict_refuses_and_says_what_it_skipped() -> None:
    text = b"KEY: ? | TEMPO: ?\nVOICES: A\n@1 [-]\n  A: C4@1>4\n"
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(text, format="txt")
    assert caught.value.rule == "G-HEADER-MISSING"
    score = cantus.read(text, format="txt", lenient=True)
    assert len(score) == 1 and score.warnings


def test_malformed_xml_raises_with_line_and_column() -> None:
    xml = b'<?xml version="1.0"?>\n<score-partwise>\n  <part-list>\n</score-partwise>\n'
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(xml)
    assert caught.value.line == 4 and caught.value.column is not None


def test_invalid_utf8_raises_with_line_and_byte() -> None:
    data = b"KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 4th\nVOICES: A\n\xff\n"
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(data, format="txt")
    assert (caught.value.line, caught.value.byte) == (3, len(b"KEY: ? | METER: 4/4 | TEMPO: ? | GRID: 4th\nVOICES: A\n"))


def test_a_damaged_midi_file_names_the_byte_and_reads_leniently() -> None:
    path = FUZZ / "midi" / "track-declares-220-has-108.mid"
    with pytest.raises(cantus.ReadError) as caught:
        cantus.read(path)
    assert caught.value.byte is not None and "--lenient" in str(caught.value)
    cantus.read(path, lenient=True)


def test_unknown_formats_and_missing_files() -> None:
    with pytest.raises(cantus.FormatError):
        cantus.read("piece.doc")
    with pytest.raises(cantus.FormatError):
        cantus.read(b"x", format="doc")
    with pytest.raises(FileNotFoundError):
        cantus.read("/nonexistent/piece.txt")
    with pytest.raises(TypeError):
        cantus.read(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cantus.read(io.StringIO("text"))  # type: ignore[arg-type]


READERS = {"grammar": "txt", "mei": "mei", "midi": "midi", "musicxml": "musicxml", "mxl": "mxl"}
FUZZ_CASES = sorted(
    (target, path) for target in READERS for path in (FUZZ / target).iterdir() if path.is_file()
)


@pytest.mark.parametrize("target, path", FUZZ_CASES, ids=[f"{t}/{p.name}" for t, p in FUZZ_CASES])
@pytest.mark.parametrize("lenient", [False, True])
def test_every_reader_fuzz_reproducer_reads_or_raises_a_cantus_error(target, path, lenient) -> None:
    """The fuzz harness's reproducers (fuzz/corpus/): a score or a ReadError/FormatError,
    never another exception and never a crash of the interpreter."""
    for source in (path, path.read_bytes()):
        try:
            score = cantus.read(source, format=READERS[target], lenient=lenient)
        except (cantus.ReadError, cantus.FormatError) as e:
            assert str(e)
            continue
        # What was read can be walked and written (names renamed with a warning).
        assert len(score.events) == len(score)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", cantus.CantusWarning)
            try:
                score.to("txt")
            except cantus.WriteError:
                pass


def test_grace_notes_are_kept_when_asked_for() -> None:
    path = MUSIC / "musicxml" / "grace-notes.musicxml"
    plain = cantus.read(path)
    assert all(e.grace is None for _, e in plain.events)
    assert any("grace" in w for w in plain.warnings)
    graced = cantus.read(path, grace_notes=True)
    graces = [e for _, e in graced.events if e.grace is not None]
    assert graces and all(e.duration == 0 for e in graces)
    assert {e.grace for e in graces} <= {"acciaccatura", "appoggiatura"}
    assert len(graced) == len(plain) + len(graces)


def test_a_grace_note_built_in_python_survives_the_text_grammar() -> None:
    voice = cantus.Voice(
        "Piano",
        [cantus.Event(1, 0, ["D5"], grace="acciaccatura"), cantus.Event(1, 1, ["C5"])],
    )
    score = cantus.Score([voice])
    back = cantus.read(score.to("txt").encode(), format="txt", grace_notes=True)
    assert [(e.grace, e.duration) for _, e in back.events] == [("acciaccatura", 0), (None, 1)]
    with pytest.raises(cantus.ScoreError, match="no notated time"):
        cantus.Score([cantus.Voice("P", [cantus.Event(0, 1, [60], grace="appoggiatura")])])


def test_a_fermata_survives_musicxml() -> None:
    held = cantus.Score([cantus.Voice("S", [cantus.Event(0, 2, ["G4"]), cantus.Event(2, 2, ["C5"], fermata=True)])])
    back = cantus.read(held.to("musicxml").encode())
    assert [e.fermata for _, e in back.events] == [False, True]
