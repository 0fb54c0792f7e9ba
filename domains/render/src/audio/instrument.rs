//! General MIDI programs for voices, by the words in their names.

/// The General MIDI program (0-based) for a voice name: the first instrument
/// word it contains (any case), else the acoustic grand piano (0) — the neutral
/// choice for voices named by register (Soprano … Bass) or by role.
pub fn program_for(name: &str) -> u8 {
    const WORDS: [(&str, u8); 24] = [
        ("violoncello", 42),
        ("cello", 42),
        ("contrabass", 43),
        ("double bass", 43),
        ("viola", 41),
        ("violin", 40),
        ("harp", 46),
        ("piccolo", 72),
        ("flute", 73),
        ("english horn", 69),
        ("cor anglais", 69),
        ("oboe", 68),
        ("bass clarinet", 71),
        ("clarinet", 71),
        ("bassoon", 70),
        ("horn", 60),
        ("trumpet", 56),
        ("trombone", 57),
        ("tuba", 58),
        ("organ", 19),
        ("guitar", 24),
        ("celesta", 8),
        ("vibraphone", 11),
        ("marimba", 12),
    ];
    let lower = name.to_lowercase();
    WORDS
        .iter()
        .find(|(word, _)| lower.contains(word))
        .map_or(0, |&(_, program)| program)
}

#[cfg(test)]
mod tests {
    use super::program_for;

    #[test]
    fn names_choose_programs() {
        assert_eq!(program_for("Violin I"), 40);
        assert_eq!(program_for("Viola"), 41);
        assert_eq!(program_for("Violoncello"), 42);
        assert_eq!(program_for("Bass Clarinet"), 71);
        assert_eq!(program_for("French Horn"), 60);
        assert_eq!(program_for("Soprano"), 0);
        assert_eq!(program_for("Bass"), 0);
    }
}
