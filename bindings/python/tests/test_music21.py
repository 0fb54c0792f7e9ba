"""music21 interop through MusicXML in memory, and life without music21."""

from __future__ import annotations

import sys

import pytest

import cantus
from conftest import MUSIC, WEBERN


def test_a_music21_stream_becomes_a_score_and_back() -> None:
    music21 = pytest.importorskip("music21")
    stream = music21.stream.Score()
    part = music21.stream.Part()
    part.partName = "Flute"
    for name, length in [("C5", 1.0), ("E-5", 0.5), ("G5", 0.5), ("B4", 2.0)]:
        part.append(music21.note.Note(name, quarterLength=length))
    stream.append(part)
    score = cantus.from_music21(stream)
    assert score.source == "<music21>"
    assert [e.midi for _, e in score.events] == [(72,), (75,), (79,), (71,)]
    assert [str(e.duration) for _, e in score.events] == ["1", "1/2", "1/2", "2"]
    back = score.to_music21()
    assert [n.pitch.midi for n in back.recurse().notes] == [72, 75, 79, 71]


def test_the_webern_analysed_through_music21_is_the_webern_read_directly() -> None:
    pytest.importorskip("music21")
    direct = cantus.read(WEBERN)
    through = cantus.from_music21(direct.to_music21())
    assert sorted(e.midi for _, e in through.events) == sorted(e.midi for _, e in direct.events)
    assert cantus.analyze(through, row="Webern Op. 21").share == pytest.approx(
        cantus.analyze(direct, row="Webern Op. 21").share, abs=0.02
    )


def test_without_music21_the_rest_works_and_the_interop_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "music21", None)
    score = cantus.read(MUSIC / "musicxml" / "duet.musicxml")
    assert cantus.verify(score).gate == "twelve-tone/strict"
    with pytest.raises(ImportError, match="pip install music21"):
        score.to_music21()
    with pytest.raises(ImportError, match="pip install music21"):
        cantus.from_music21(object())
