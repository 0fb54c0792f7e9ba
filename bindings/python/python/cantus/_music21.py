"""music21 interop through MusicXML in memory: music21 is never a dependency of
Cantus, only of these two functions, and is imported when they are called."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .score import Score


def _music21() -> Any:
    try:
        import music21
    except ImportError as e:
        raise ImportError(
            "this needs music21, which is not installed: pip install music21 "
            "(Cantus itself does not need it)"
        ) from e
    return music21


def from_music21(stream: Any) -> "Score":
    """A music21 stream (a ``Score``, ``Part``, ``Opus``' first score, …) as a Cantus
    :class:`~cantus.Score`, through MusicXML in memory. Needs music21."""
    music21 = _music21()
    from music21.musicxml.m21ToXml import GeneralObjectExporter

    from . import _cantus
    from .score import Score

    if not isinstance(stream, music21.base.Music21Object):
        raise TypeError(f"cantus.from_music21 takes a music21 object, not {type(stream).__name__}")
    data = GeneralObjectExporter(stream).parse()
    title = getattr(getattr(stream, "metadata", None), "title", None)
    name = f"<music21 {title}>" if title else "<music21>"
    return Score._wrap(_cantus.read_bytes(bytes(data), "musicxml", False, False, name))


def to_music21(score: "Score") -> Any:
    """`score` as a ``music21.stream.Score``, through MusicXML in memory."""
    music21 = _music21()
    xml = score.to("musicxml")
    return music21.converter.parseData(xml, format="musicxml")
