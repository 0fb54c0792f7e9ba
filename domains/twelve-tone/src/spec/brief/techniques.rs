//! Phrase rules for techniques and strictness: canons (plain and by inversion),
//! register contrast, and whether pitch classes may repeat.

use super::scan::{CanonDraft, Ctx, Effect, Match, VOICE_UNITS, VoicePair, VoiceRef};
use crate::spec::Strength;
use crate::spec::defaults::VOICE_NAMES;

const CANON_WORDS: &[&str] = &["canon", "canons"];
const INVERSION_WORDS: &[&str] = &["inversion", "inversional", "inverted", "mirror", "inverse"];
const UP: &[&str] = &["above", "up", "higher", "over"];
const DOWN: &[&str] = &["below", "down", "lower", "under"];

/// A canon, in either order:
///
/// * `canon`, `a strict canon`, `an inversion canon`, `a mirror canon`, followed by any
///   of: `between the outer voices` / `between voices 1 and 3` / `of the soprano and
///   bass` / `between the first and last voices` / `in the upper two voices`;
///   `at two bars` / `one bar apart` / `with a delay of 2 bars`; `at the fifth (below)` /
///   `at 5 semitones`; `by inversion` / `in mirror form`; `around pitch class 4`;
/// * `the outer voices in (mirror) canon …`.
///
/// `retrograde`/`crab` canons are recognised and refused as unsupported.
pub(crate) fn canon(c: Ctx<'_>, i: usize) -> Option<Match> {
    let mut draft = CanonDraft::default();
    let mut j;
    if let Some((pair, k)) = voice_pair(c, i) {
        let k = c.skip(k, &["are", "sing", "move", "go", "set"]);
        if !c.is(k, "in") {
            return None;
        }
        let (inversion, k) = prefix(c, k + 1);
        c.any(k, CANON_WORDS)?;
        draft.pair = Some(pair);
        draft.inversion = inversion;
        j = k + 1;
    } else {
        // "two canons:", "several canons"
        let mut k = c.number(i).map_or(i, |(_, e)| e);
        if k > i && !c.is(k, "canons") {
            return None;
        }
        let mut crab = false;
        loop {
            if c.any(k, &["retrograde", "crab"]).is_some() {
                crab = true;
                k += 1;
            } else if let (true, next) = prefix(c, k) {
                draft.inversion = true;
                k = next;
            } else if c.any(k, &["strict", "exact", "simple", "plain"]).is_some() {
                k += 1;
            } else {
                break;
            }
        }
        c.any(k, CANON_WORDS)?;
        j = k + 1;
        if crab {
            return Match::new(
                j,
                Effect::Unsupported(
                    "retrograde (crab) canons are not supported; ask for a canon or an inversion (mirror) canon"
                        .to_string(),
                ),
            );
        }
    }
    let plural = c.is(j - 1, "canons");
    loop {
        let start = if c.sym(j, ',') { j + 1 } else { j };
        match modifier(c, start, &mut draft) {
            Some(next) => j = next,
            None => break,
        }
    }
    draft.heading = plural
        && draft.pair.is_none()
        && draft.delay.is_none()
        && draft.transpose.is_none()
        && draft.axis.is_none();
    Match::new(j, Effect::Canon(draft))
}

/// Inversion words before "canon": whether any, and where they end.
fn prefix(c: Ctx<'_>, i: usize) -> (bool, usize) {
    let mut k = i;
    while c.any(k, INVERSION_WORDS).is_some() {
        k += 1;
    }
    (k > i, k)
}

/// One modifier after "canon"; fills `draft` and returns where it ends.
fn modifier(c: Ctx<'_>, j: usize, draft: &mut CanonDraft) -> Option<usize> {
    // by inversion / in mirror form / inverted
    if c.any(j, &["by", "in"]).is_some() && c.any(j + 1, INVERSION_WORDS).is_some() {
        draft.inversion = true;
        return Some(c.skip(j + 2, &["form", "motion"]));
    }
    if c.is(j, "in") && c.is(j + 1, "contrary") && c.is(j + 2, "motion") {
        draft.inversion = true;
        return Some(j + 3);
    }
    if draft.pair.is_none()
        && c.any(j, &["between", "of", "for", "in", "on"]).is_some()
        && let Some((pair, end)) = voice_pair(c, j + 1)
    {
        draft.pair = Some(pair);
        return Some(end);
    }
    if draft.delay.is_none()
        && let Some((bars, end)) = delay(c, j)
    {
        draft.delay = Some(bars);
        return Some(end);
    }
    if draft.transpose.is_none()
        && let Some((semitones, end)) = transposition(c, j)
    {
        draft.transpose = Some(semitones);
        return Some(end);
    }
    if draft.axis.is_none() && c.any(j, &["around", "about", "axis"]).is_some() {
        let k = c.skip(j + 1, &["the"]);
        let k = if c.is(k, "pitch") && c.is(k + 1, "class") {
            k + 2
        } else {
            c.skip(k, &["pc", "axis"])
        };
        if let Some((n, end)) = c.number(k) {
            draft.axis = Some(n);
            return Some(end);
        }
    }
    None
}

/// `at two bars`, `after one bar`, `with a delay of 2 bars`, `one bar apart`: a bar
/// count with a lead word or a trailing "apart"/"later"; bare "16 bars" is not a delay.
fn delay(c: Ctx<'_>, j: usize) -> Option<(u64, usize)> {
    let k = c.skip(j, &["at", "after", "with", "by"]);
    let led = k > j;
    let k = c.skip(k, &["the", "a", "an"]);
    let k = c.skip(k, &["distance", "delay", "offset", "lag", "interval"]);
    let k = c.skip(k, &["of"]);
    let (bars, end) = c.bars(k)?;
    let after = c.skip(
        end,
        &["apart", "later", "behind", "delay", "distance", "lag"],
    );
    (led || after > end).then_some((bars, after))
}

/// `at the fifth`, `at the octave below`, `a fourth above`, `transposed down 3
/// semitones`, `at 5 semitones`: signed semitones and where the phrase ends.
fn transposition(c: Ctx<'_>, j: usize) -> Option<(i64, usize)> {
    let mut k = c.skip(j, &["at", "transposed"]);
    let led = k > j;
    let mut sign = 1;
    let mut directed = false;
    if c.any(k, UP).is_some() {
        k += 1;
        directed = true;
    } else if c.any(k, DOWN).is_some() {
        sign = -1;
        k += 1;
        directed = true;
    }
    let k = c.skip(c.skip(k, &["by"]), &["the", "a", "an"]);
    let (semitones, end) = if let Some((n, e)) = c.number(k) {
        let e = if c.is(e, "half") && c.any(e + 1, &["steps", "step"]).is_some() {
            e + 2
        } else {
            c.any(e, &["semitones", "semitone"]).map(|_| e + 1)?
        };
        (i64::try_from(n).ok()?, e)
    } else {
        c.interval(k)?
    };
    let (sign, end) = if c.any(end, UP).is_some() {
        directed = true;
        (1, end + 1)
    } else if c.any(end, DOWN).is_some() {
        directed = true;
        (-1, end + 1)
    } else {
        (sign, end)
    };
    (led || directed).then_some((sign * semitones, end))
}

/// `and`, `&`, `with`, `to` between two voices.
fn pair_separator(c: Ctx<'_>, k: usize) -> Option<usize> {
    if c.any(k, &["and", "with", "to"]).is_some() || c.sym(k, '&') || c.sym(k, '+') {
        Some(k + 1)
    } else {
        None
    }
}

/// Two voices as a brief names them: `the outer voices`, `the upper two voices`,
/// `the lower voices`, `voices 1 and 3`, `voice 2 and voice 4`, `the first and last
/// voices`, `the 2nd and 3rd parts`, `soprano and bass`, `the alto and the tenor`.
pub(crate) fn voice_pair(c: Ctx<'_>, i: usize) -> Option<(VoicePair, usize)> {
    let j = c.skip(i, &["the"]);
    let group = if c
        .any(j, &["outer", "outside", "outermost", "extreme"])
        .is_some()
    {
        Some(VoicePair::Outer)
    } else if c.any(j, &["top", "upper", "highest"]).is_some() {
        Some(VoicePair::Upper)
    } else if c.any(j, &["bottom", "lower", "lowest"]).is_some() {
        Some(VoicePair::Lower)
    } else {
        None
    };
    if let Some(group) = group {
        let k = c.skip(j + 1, &["two"]);
        c.any(k, VOICE_UNITS)?;
        return Some((group, k + 1));
    }
    if c.any(j, &["voices", "voice", "parts", "part"]).is_some() {
        let (a, k) = c.number(j + 1)?;
        let k = pair_separator(c, k)?;
        let k = c.skip(k, &["voice", "part"]);
        let (b, end) = c.number(k)?;
        return Some((VoicePair::Refs(VoiceRef::Nth(a), VoiceRef::Nth(b)), end));
    }
    if let Some((first, k)) = c.ordinal(j) {
        let k = c.skip(k, &["voice", "part"]);
        let k = c.skip(pair_separator(c, k)?, &["the"]);
        let (second, end) = c.ordinal(k)?;
        let as_ref = |o| match o {
            super::numbers::Ordinal::Nth(n) => VoiceRef::Nth(n),
            super::numbers::Ordinal::Last => VoiceRef::Last,
        };
        let end = c.skip(end, VOICE_UNITS);
        return Some((VoicePair::Refs(as_ref(first), as_ref(second)), end));
    }
    let first = c.any(j, &VOICE_NAMES).filter(|n| *n != "voice")?;
    let k = c.skip(pair_separator(c, j + 1)?, &["the"]);
    let second = c.any(k, &VOICE_NAMES).filter(|n| *n != "voice")?;
    let end = c.skip(k + 1, VOICE_UNITS);
    Some((
        VoicePair::Refs(
            VoiceRef::Named(first.to_string()),
            VoiceRef::Named(second.to_string()),
        ),
        end,
    ))
}

const STRONG: &[&str] = &[
    "strong",
    "stronger",
    "strongly",
    "sharp",
    "sharply",
    "extreme",
    "wide",
    "widely",
    "stark",
    "starkly",
    "big",
    "large",
    "maximal",
    "maximum",
    "clear",
    "clearly",
    "marked",
    "pronounced",
];
const MILD: &[&str] = &[
    "mild", "mildly", "gentle", "gently", "slight", "slightly", "light", "subtle", "moderate",
    "modest", "some",
];

/// `register contrast`, `strong register contrast`, `mild registral separation`,
/// `widely separated registers`, `contrasting registers`. Without a strength word the
/// strength is left to the default (mild).
pub(crate) fn register_contrast(c: Ctx<'_>, i: usize) -> Option<Match> {
    let j = c.skip(i, &["very"]);
    let (strength, j) = if c.any(j, STRONG).is_some() {
        (Some(Strength::Strong), j + 1)
    } else if c.any(j, MILD).is_some() {
        (Some(Strength::Mild), j + 1)
    } else {
        (None, i)
    };
    let contrast = [
        "contrast",
        "contrasts",
        "separation",
        "contrasting",
        "distinction",
        "spread",
        "differentiation",
    ];
    let separated = [
        "contrasting",
        "contrasted",
        "separate",
        "separated",
        "distinct",
        "different",
    ];
    let register_contrast = c.any(j, &["register", "registral", "registers"]).is_some()
        && c.any(j + 1, &contrast).is_some();
    let separated_registers =
        c.any(j, &separated).is_some() && c.any(j + 1, &["registers", "register"]).is_some();
    if !(register_contrast || separated_registers) {
        return None;
    }
    Match::new(j + 2, Effect::RegisterContrast(strength))
}

/// The noun of a repetition phrase: `repeated notes`, `immediate repetitions`,
/// `pitch-class repetition`, `tremolos`. Returns (is a tremolo word, end).
fn repetition_noun(c: Ctx<'_>, i: usize) -> Option<(bool, usize)> {
    let k = c.skip(i, &["immediate", "immediately"]);
    if c.any(k, &["tremolo", "tremolos", "tremolandi", "tremolando"])
        .is_some()
    {
        return Some((true, k + 1));
    }
    if c.any(k, &["repeated", "repeating"]).is_some() {
        if c.is(k + 1, "pitch") {
            return Some((false, c.skip(k + 2, &["classes", "class"])));
        }
        c.any(k + 1, &["notes", "note", "pitches"])?;
        return Some((false, k + 2));
    }
    let k = if c.is(k, "pitch") {
        c.skip(k + 1, &["class"])
    } else {
        c.skip(k, &["note"])
    };
    c.any(k, &["repetition", "repetitions", "repeats"])?;
    Some((false, k + 1))
}

/// `no repeated notes`, `without repetition`, `strict` → repetition forbidden;
/// `tremolos`, `with repeated notes`, `repetitions allowed`, `up to 2 repetitions per
/// statement` → immediate repetition allowed (with a limit if given).
pub(crate) fn repetition(c: Ctx<'_>, i: usize) -> Option<Match> {
    let negations = [
        "no",
        "without",
        "forbid",
        "forbidding",
        "avoid",
        "avoiding",
        "never",
    ];
    if c.any(i, &negations).is_some() {
        let (_, end) = repetition_noun(c, i + 1)?;
        return Match::new(end, Effect::NoRepetition);
    }
    if c.any(i, &["strict", "strictly"]).is_some() {
        let end = c.skip(i + 1, &["serial", "dodecaphonic", "atonal"]);
        return Match::new(end, Effect::NoRepetition);
    }
    let k = c.skip(i, &["allow", "allowing", "permit", "permitting", "with"]);
    let (limit, k) =
        if (c.is(k, "up") && c.is(k + 1, "to")) || (c.is(k, "at") && c.is(k + 1, "most")) {
            let (n, e) = c.number(k + 2)?;
            (Some(n), e)
        } else if let Some((n, e)) = c.number(k) {
            (Some(n), e)
        } else {
            (None, k)
        };
    let (_, end) = repetition_noun(c, k)?;
    let end = c.skip(end, &["allowed", "permitted", "ok", "okay", "welcome"]);
    let end = if c.is(end, "per") {
        let e = c.skip(end + 1, &["row"]);
        c.any(e, &["statement", "row"]).map_or(end, |_| e + 1)
    } else {
        end
    };
    Match::new(end, Effect::Tremolo(limit))
}
