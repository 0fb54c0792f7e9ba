//! Stereo samples to WAV (hound), FLAC (flacenc) or Ogg Vorbis (vorbis_rs).

use crate::error::{RenderError, Result};
use std::num::{NonZeroU8, NonZeroU32};

/// An audio file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AudioFormat {
    /// 16-bit PCM WAV.
    Wav,
    /// Ogg Vorbis (quality 0.4, about 128 kbit/s).
    Ogg,
    /// 16-bit FLAC, lossless.
    Flac,
}

impl AudioFormat {
    /// File extension.
    pub fn extension(self) -> &'static str {
        match self {
            AudioFormat::Wav => "wav",
            AudioFormat::Ogg => "ogg",
            AudioFormat::Flac => "flac",
        }
    }

    /// The MIME type a page's `<audio>` element is told.
    pub fn mime(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Ogg => "audio/ogg",
            AudioFormat::Flac => "audio/flac",
        }
    }

    /// `wav`, `ogg` or `flac` (any case).
    pub fn parse(text: &str) -> Option<AudioFormat> {
        match text.to_ascii_lowercase().as_str() {
            "wav" => Some(AudioFormat::Wav),
            "ogg" => Some(AudioFormat::Ogg),
            "flac" => Some(AudioFormat::Flac),
            _ => None,
        }
    }
}

/// Serial number of every Ogg stream written, so output is reproducible.
const OGG_SERIAL: i32 = 0x4361_6e74;

/// Encodes left/right samples (−1..1) at `rate` Hz.
pub fn encode(left: &[f32], right: &[f32], rate: u32, format: AudioFormat) -> Result<Vec<u8>> {
    match format {
        AudioFormat::Wav => wav(left, right, rate),
        AudioFormat::Flac => flac(left, right, rate),
        AudioFormat::Ogg => ogg(left, right, rate),
    }
}

fn pcm16(x: f32) -> i16 {
    (x.clamp(-1.0, 1.0) * f32::from(i16::MAX)).round() as i16
}

fn wav(left: &[f32], right: &[f32], rate: u32) -> Result<Vec<u8>> {
    let fail = |e: hound::Error| RenderError::Encode {
        format: "wav",
        message: e.to_string(),
    };
    let spec = hound::WavSpec {
        channels: 2,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut bytes = std::io::Cursor::new(Vec::with_capacity(left.len() * 4 + 44));
    {
        let mut writer = hound::WavWriter::new(&mut bytes, spec).map_err(fail)?;
        for (l, r) in left.iter().zip(right) {
            writer.write_sample(pcm16(*l)).map_err(fail)?;
            writer.write_sample(pcm16(*r)).map_err(fail)?;
        }
        writer.finalize().map_err(fail)?;
    }
    Ok(bytes.into_inner())
}

fn flac(left: &[f32], right: &[f32], rate: u32) -> Result<Vec<u8>> {
    use flacenc::component::BitRepr;
    use flacenc::error::Verify;
    let fail = |message: String| RenderError::Encode {
        format: "flac",
        message,
    };
    let samples: Vec<i32> = left
        .iter()
        .zip(right)
        .flat_map(|(l, r)| [i32::from(pcm16(*l)), i32::from(pcm16(*r))])
        .collect();
    let config = flacenc::config::Encoder::default()
        .into_verified()
        .map_err(|(_, e)| fail(format!("{e:?}")))?;
    let source = flacenc::source::MemSource::from_samples(&samples, 2, 16, rate as usize);
    let stream = flacenc::encode_with_fixed_block_size(&config, source, config.block_size)
        .map_err(|e| fail(format!("{e:?}")))?;
    let mut sink = flacenc::bitsink::ByteSink::new();
    stream
        .write(&mut sink)
        .map_err(|e| fail(format!("{e:?}")))?;
    Ok(sink.as_slice().to_vec())
}

fn ogg(left: &[f32], right: &[f32], rate: u32) -> Result<Vec<u8>> {
    use vorbis_rs::{VorbisBitrateManagementStrategy, VorbisEncoderBuilder};
    let fail = |e: vorbis_rs::VorbisError| RenderError::Encode {
        format: "ogg",
        message: e.to_string(),
    };
    let rate = NonZeroU32::new(rate).ok_or_else(|| RenderError::Encode {
        format: "ogg",
        message: "sample rate 0".into(),
    })?;
    let channels = NonZeroU8::new(2).unwrap_or(NonZeroU8::MIN);
    let mut builder = VorbisEncoderBuilder::new_with_serial(rate, channels, Vec::new(), OGG_SERIAL);
    builder.bitrate_management_strategy(VorbisBitrateManagementStrategy::QualityVbr {
        target_quality: 0.4,
    });
    let mut encoder = builder.build().map_err(fail)?;
    for (l, r) in left.chunks(4096).zip(right.chunks(4096)) {
        encoder.encode_audio_block([l, r]).map_err(fail)?;
    }
    encoder.finish().map_err(fail)
}
