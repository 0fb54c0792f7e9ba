//! Rendering a laid-out score as MusicXML 4.0 text.
//!
//! [`super::layout`] decides what goes in each measure; this module only spells
//! it out: header, part list, first-measure attributes, tempo, and one `<note>`
//! per notehead. Text is escaped with quick-xml's `escape`.

use super::dom::is_xml_char;
use super::layout::{self, Item, PartLayout, Sound};
use super::notation::format_decimal;
use super::part::{MAX_FIFTHS, MAX_METER_TERM};
use super::{MusicXmlError, TAG_LYRIC_NAME};
use crate::clef::Clef;
use crate::score::{Mode, Pitch, Score, Time, Voice};
use quick_xml::escape::escape;
use std::fmt::Write as _;

/// Writes `score` as a score-partwise MusicXML 4.0 document: one part per voice.
///
/// Each part names its instrument (`<score-instrument>`, so notation programs
/// import it without complaint) and gets the clef its range calls for
/// (`Clef::for_pitches`: treble, treble_8 as a G clef an octave down, bass).
/// A score without a key gets no key signature.
///
/// Fails (never panics) on what MusicXML cannot hold, and on what the reader
/// would refuse, so whatever it writes reads back: no voices, an event without
/// pitches or with a non-positive duration, a pitch below C0 or a spelling that
/// does not match its MIDI number, a non-positive tempo, a key beyond 35 fifths,
/// a meter term above 1000, a title, name or tag holding a character XML 1.0
/// cannot hold (a control character).
pub fn write(score: &Score) -> Result<String, MusicXmlError> {
    layout::validate(score)?;
    check_readable(score)?;
    for voice in &score.voices {
        for ev in &voice.events {
            for p in &ev.pitches {
                written_pitch(*p)?;
            }
        }
    }
    let bar = score.bar_length();
    let measures = layout::measure_count(score)?;
    let parts: Vec<PartLayout<'_>> = score
        .voices
        .iter()
        .map(|v| layout::lay_out_voice(v, bar, measures))
        .collect::<Result<_, _>>()?;
    let divisions = layout::divisions(&parts, bar)?;

    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    out.push_str(
        "<!DOCTYPE score-partwise PUBLIC \"-//Recordare//DTD MusicXML 4.0 Partwise//EN\" \
         \"http://www.musicxml.org/dtds/partwise.dtd\">\n",
    );
    out.push_str("<score-partwise version=\"4.0\">\n");
    if let Some(title) = &score.title {
        let _ = writeln!(
            out,
            "  <work>\n    <work-title>{}</work-title>\n  </work>",
            escape(title.as_str())
        );
    }
    out.push_str(
        "  <identification>\n    <encoding>\n      <software>Cantus</software>\n    \
         </encoding>\n  </identification>\n",
    );
    out.push_str("  <part-list>\n");
    for (i, voice) in score.voices.iter().enumerate() {
        let name = escape(voice.name.as_str());
        let _ = writeln!(
            out,
            "    <score-part id=\"P{n}\">\n      <part-name>{name}</part-name>\n      \
             <score-instrument id=\"P{n}-I1\">\n        <instrument-name>{name}</instrument-name>\n      \
             </score-instrument>\n    </score-part>",
            n = i + 1,
        );
    }
    out.push_str("  </part-list>\n");
    for (i, (voice, part)) in score.voices.iter().zip(&parts).enumerate() {
        let _ = writeln!(out, "  <part id=\"P{}\">", i + 1);
        for (m, items) in part.measures.iter().enumerate() {
            let _ = writeln!(out, "    <measure number=\"{}\">", m + 1);
            if m == 0 {
                attributes(&mut out, score, voice, divisions);
                if i == 0
                    && let Some(tempo) = score.tempo
                {
                    tempo_direction(&mut out, tempo);
                }
            }
            for item in items {
                match item {
                    Item::Sound(s) => sound(&mut out, s, divisions)?,
                    Item::Forward { duration, layer } => {
                        let _ = writeln!(
                            out,
                            "      <forward>\n        <duration>{}</duration>\n        \
                             <voice>{}</voice>\n      </forward>",
                            layout::in_divisions(*duration, divisions)?,
                            layer + 1
                        );
                    }
                    Item::Backup { duration } => {
                        let _ = writeln!(
                            out,
                            "      <backup>\n        <duration>{}</duration>\n      </backup>",
                            layout::in_divisions(*duration, divisions)?
                        );
                    }
                }
            }
            out.push_str("    </measure>\n");
        }
        out.push_str("  </part>\n");
    }
    out.push_str("</score-partwise>\n");
    Ok(out)
}

/// Refuses what the reader would refuse: a key or meter out of its range, text
/// XML cannot hold.
fn check_readable(score: &Score) -> Result<(), MusicXmlError> {
    let mut keys = score
        .key
        .into_iter()
        .chain(score.voices.iter().filter_map(|v| v.key));
    if let Some(key) = keys.find(|k| k.fifths().abs() > MAX_FIFTHS) {
        return Err(MusicXmlError::Unwritable(format!(
            "a key of {} fifths: MusicXML readers take -{MAX_FIFTHS} to {MAX_FIFTHS}",
            key.fifths()
        )));
    }
    let meter = score.meter;
    if meter.num > MAX_METER_TERM || meter.den > MAX_METER_TERM {
        return Err(MusicXmlError::Unwritable(format!(
            "meter {meter}: each term must lie in 1..={MAX_METER_TERM}"
        )));
    }
    let text = |what: String, s: &str| match s.chars().find(|c| !is_xml_char(*c)) {
        None => Ok(()),
        Some(c) => Err(MusicXmlError::Unwritable(format!(
            "{what} holds U+{:04X}, a character XML 1.0 cannot hold",
            u32::from(c)
        ))),
    };
    if let Some(title) = &score.title {
        text("the title".into(), title)?;
    }
    for voice in &score.voices {
        text(format!("voice name {:?}", voice.name), &voice.name)?;
        for e in &voice.events {
            if let Some(tag) = &e.tag {
                text(
                    format!("voice {:?}, onset {}: the tag", voice.name, e.onset),
                    tag,
                )?;
            }
        }
    }
    Ok(())
}

/// Step letter, alteration and octave of a pitch, checked against its MIDI number.
fn written_pitch(p: Pitch) -> Result<(char, i8, i32), MusicXmlError> {
    let sp = p.spelling_or_default();
    let octave = sp.octave_for(p.midi);
    let sounding = (octave + 1) * 12 + sp.letter.pitch_class() + i32::from(sp.alter);
    if sounding != i32::from(p.midi) {
        return Err(MusicXmlError::Unwritable(format!(
            "MIDI {} cannot be spelled {}{:+}",
            p.midi,
            sp.letter.as_char(),
            sp.alter
        )));
    }
    if !(0..=9).contains(&octave) {
        return Err(MusicXmlError::Unwritable(format!(
            "MIDI {} lies in octave {octave}; MusicXML octaves run 0 to 9",
            p.midi
        )));
    }
    Ok((sp.letter.as_char(), sp.alter, octave))
}

/// First-measure `<attributes>`: divisions, the part's key (its own, else the
/// score's), time and a clef chosen by the voice's mean pitch (bass clef below
/// middle C).
fn attributes(out: &mut String, score: &Score, voice: &Voice, divisions: i64) {
    out.push_str("      <attributes>\n");
    let _ = writeln!(out, "        <divisions>{divisions}</divisions>");
    if let Some(key) = score.part_key(voice) {
        let mode = match key.mode {
            Mode::Major => "major",
            Mode::Minor => "minor",
        };
        let _ = writeln!(
            out,
            "        <key>\n          <fifths>{}</fifths>\n          <mode>{mode}</mode>\n        </key>",
            key.fifths()
        );
    }
    let _ = writeln!(
        out,
        "        <time>\n          <beats>{}</beats>\n          <beat-type>{}</beat-type>\n        </time>",
        score.meter.num, score.meter.den
    );
    let clef = Clef::for_pitches(voice.events.iter().flat_map(|e| &e.pitches).map(|p| p.midi));
    let (sign, line, octave) = match clef {
        Clef::Treble => ('G', 2, ""),
        Clef::Treble8 => (
            'G',
            2,
            "\n          <clef-octave-change>-1</clef-octave-change>",
        ),
        Clef::Bass => ('F', 4, ""),
    };
    let _ = writeln!(
        out,
        "        <clef>\n          <sign>{sign}</sign>\n          <line>{line}</line>{octave}\n        </clef>"
    );
    out.push_str("      </attributes>\n");
}

/// A metronome mark with the playback tempo.
fn tempo_direction(out: &mut String, tempo: Time) {
    let bpm = format_decimal(tempo);
    let _ = writeln!(
        out,
        "      <direction placement=\"above\">\n        <direction-type>\n          <metronome>\n            \
         <beat-unit>quarter</beat-unit>\n            <per-minute>{bpm}</per-minute>\n          \
         </metronome>\n        </direction-type>\n        <sound tempo=\"{bpm}\"/>\n      </direction>"
    );
}

/// One `<note>` per notehead of a note, chord or rest.
fn sound(out: &mut String, s: &Sound<'_>, divisions: i64) -> Result<(), MusicXmlError> {
    let duration = layout::in_divisions(s.duration, divisions)?;
    let heads: Vec<Option<Pitch>> = if s.pitches.is_empty() {
        vec![None]
    } else {
        s.pitches.iter().copied().map(Some).collect()
    };
    for (k, head) in heads.into_iter().enumerate() {
        out.push_str("      <note>\n");
        if k > 0 {
            out.push_str("        <chord/>\n");
        }
        match head {
            Some(p) => {
                let (step, alter, octave) = written_pitch(p)?;
                let _ = write!(out, "        <pitch>\n          <step>{step}</step>\n");
                if alter != 0 {
                    let _ = writeln!(out, "          <alter>{alter}</alter>");
                }
                let _ = writeln!(out, "          <octave>{octave}</octave>\n        </pitch>");
            }
            None if s.whole_measure => out.push_str("        <rest measure=\"yes\"/>\n"),
            None => out.push_str("        <rest/>\n"),
        }
        let _ = writeln!(out, "        <duration>{duration}</duration>");
        if s.tie_stop {
            out.push_str("        <tie type=\"stop\"/>\n");
        }
        if s.tie_start {
            out.push_str("        <tie type=\"start\"/>\n");
        }
        let _ = writeln!(out, "        <voice>{}</voice>", s.layer + 1);
        if let Some(v) = s.value {
            let _ = writeln!(out, "        <type>{}</type>", v.note_type.musicxml_name());
            for _ in 0..v.dots {
                out.push_str("        <dot/>\n");
            }
            if let Some((actual, normal)) = v.tuplet {
                let _ = writeln!(
                    out,
                    "        <time-modification>\n          <actual-notes>{actual}</actual-notes>\n          \
                     <normal-notes>{normal}</normal-notes>\n        </time-modification>"
                );
            }
        }
        let first = k == 0;
        let tuplet_start = first && s.tuplet_start;
        let tuplet_stop = first && s.tuplet_stop;
        let fermata = first && s.fermata;
        if s.tie_stop || s.tie_start || tuplet_start || tuplet_stop || fermata {
            out.push_str("        <notations>\n");
            if s.tie_stop {
                out.push_str("          <tied type=\"stop\"/>\n");
            }
            if s.tie_start {
                out.push_str("          <tied type=\"start\"/>\n");
            }
            if tuplet_start {
                out.push_str("          <tuplet type=\"start\" bracket=\"yes\"/>\n");
            }
            if tuplet_stop {
                out.push_str("          <tuplet type=\"stop\"/>\n");
            }
            if fermata {
                out.push_str("          <fermata type=\"upright\"/>\n");
            }
            out.push_str("        </notations>\n");
        }
        if let (true, Some(tag)) = (first, s.tag) {
            let _ = writeln!(
                out,
                "        <lyric name=\"{TAG_LYRIC_NAME}\">\n          <syllabic>single</syllabic>\n          \
                 <text>{}</text>\n        </lyric>",
                escape(tag)
            );
        }
        out.push_str("      </note>\n");
    }
    Ok(())
}
