//! A domain's GBNF grammar (llama.cpp's format) rewritten for servers that read
//! xgrammar's EBNF: vLLM (`structured_outputs.grammar`, `guided_grammar`) and SGLang
//! (`ebnf`). xgrammar's format is GBNF-compatible by design, and llguidance (vLLM's
//! `guidance`, SGLang's `llguidance` backend) converts GBNF itself, so the rewrite is
//! small; what differs, from the two grammars' documentation:
//!
//! - `.` (any character) is `[^]` in xgrammar, where `.` is a character of names;
//! - `x{,n}` needs its lower bound: `x{0,n}`;
//! - string escapes beyond xgrammar's (`\[`, `\]` in a literal) are written as the
//!   characters themselves; every literal and class is re-escaped one way;
//! - a rule name starting with a digit (GBNF allows it) gets a letter in front;
//! - two repetition operators on one item (`"a"+?`) get parentheses;
//! - llama.cpp's token references (`<[id]>`, `<|tok|>`) have no spelling here: the
//!   grammar is refused ([`GrammarError`]) and the caller sends no constraint.
//!
//! The grammar is parsed into rules (alternatives of items with repetitions) and
//! printed again, one rule per line — xgrammar requires each rule name to start its
//! line. For the grammars Cantus's domains generate the output is the input.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A grammar that could not be read or cannot be written for xgrammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("grammar line {line}, column {column}: {message}")]
pub struct GrammarError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// How often an item may occur.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Repeat {
    Once,
    Optional,
    Star,
    Plus,
    Range(u32, Option<u32>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    Literal(String),
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
    Any,
    Rule(String),
    Group(Vec<Vec<Item>>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) term: Term,
    pub(crate) repeat: Repeat,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) name: String,
    pub(crate) alternatives: Vec<Vec<Item>>,
}

/// `gbnf` in xgrammar's EBNF (see the module documentation), or why it cannot be.
pub fn to_xgrammar(gbnf: &str) -> Result<String, GrammarError> {
    let rules = parse(gbnf)?;
    Ok(print(&rules))
}

/// A recursive-descent reader of GBNF over characters, tracking line and column.
struct Reader<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: usize,
    column: usize,
}

impl Reader<'_> {
    fn error<T>(&self, message: impl Into<String>) -> Result<T, GrammarError> {
        Err(GrammarError {
            line: self.line,
            column: self.column,
            message: message.into(),
        })
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    /// Skips spaces and comments; newlines too when `newlines` (inside a group, after
    /// `|` or `::=`).
    fn space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' => {
                    self.bump();
                }
                '\n' if newlines => {
                    self.bump();
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    fn name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self.peek().filter(|&c| is_name_char(c)) {
            name.push(c);
            self.bump();
        }
        name
    }

    fn rules(&mut self) -> Result<Vec<Rule>, GrammarError> {
        let mut rules = Vec::new();
        loop {
            self.space(true);
            if self.peek().is_none() {
                return Ok(rules);
            }
            let name = self.name();
            if name.is_empty() {
                return self.error("expected a rule name");
            }
            self.space(false);
            for want in [':', ':', '='] {
                if self.bump() != Some(want) {
                    return self.error(format!("expected `::=` after rule name `{name}`"));
                }
            }
            self.space(true);
            let alternatives = self.alternatives(false)?;
            match self.peek() {
                None | Some('\n') => {}
                Some(c) => return self.error(format!("unexpected `{c}` in rule `{name}`")),
            }
            rules.push(Rule { name, alternatives });
        }
    }

    fn alternatives(&mut self, nested: bool) -> Result<Vec<Vec<Item>>, GrammarError> {
        let mut alternatives = vec![self.sequence(nested)?];
        while self.peek() == Some('|') {
            self.bump();
            self.space(true);
            alternatives.push(self.sequence(nested)?);
        }
        Ok(alternatives)
    }

    /// One alternative; `""` alone is the empty sequence, as it is printed.
    fn sequence(&mut self, nested: bool) -> Result<Vec<Item>, GrammarError> {
        let mut items = self.items(nested)?;
        items.retain(|i| i.repeat != Repeat::Once || i.term != Term::Literal(String::new()));
        Ok(items)
    }

    fn items(&mut self, nested: bool) -> Result<Vec<Item>, GrammarError> {
        let mut items: Vec<Item> = Vec::new();
        loop {
            self.space(nested);
            let term = match self.peek() {
                Some('"') => Term::Literal(self.literal()?),
                Some('[') => self.class()?,
                Some('.') => {
                    self.bump();
                    Term::Any
                }
                Some('(') => {
                    self.bump();
                    self.space(true);
                    let inner = self.alternatives(true)?;
                    self.space(true);
                    if self.bump() != Some(')') {
                        return self.error("expected `)`");
                    }
                    Term::Group(inner)
                }
                Some('<') | Some('!') => {
                    return self.error("token references have no xgrammar spelling here");
                }
                Some(c) if is_name_char(c) => {
                    // A name followed by `::=` starts the next rule, not this sequence.
                    let mut ahead = self.chars.clone();
                    while ahead.peek().is_some_and(|&c| is_name_char(c)) {
                        ahead.next();
                    }
                    while ahead.peek().is_some_and(|&c| c == ' ' || c == '\t') {
                        ahead.next();
                    }
                    if ahead.next() == Some(':') && ahead.next() == Some(':') {
                        return Ok(items);
                    }
                    Term::Rule(self.name())
                }
                Some('*' | '+' | '?' | '{') => {
                    let Some(last) = items.pop() else {
                        return self.error("a repetition needs an item before it");
                    };
                    let repeat = self.repeat()?;
                    let item = if last.repeat == Repeat::Once {
                        Item { repeat, ..last }
                    } else {
                        Item {
                            term: Term::Group(vec![vec![last]]),
                            repeat,
                        }
                    };
                    items.push(item);
                    continue;
                }
                _ => return Ok(items),
            };
            items.push(Item {
                term,
                repeat: Repeat::Once,
            });
        }
    }

    fn repeat(&mut self) -> Result<Repeat, GrammarError> {
        Ok(match self.bump() {
            Some('*') => Repeat::Star,
            Some('+') => Repeat::Plus,
            Some('?') => Repeat::Optional,
            _ => {
                self.space(false);
                let low = self.number()?.unwrap_or(0);
                self.space(false);
                let high = if self.peek() == Some(',') {
                    self.bump();
                    self.space(false);
                    self.number()?
                } else {
                    Some(low)
                };
                self.space(false);
                if self.bump() != Some('}') {
                    return self.error("expected `}` closing a repetition");
                }
                if high.is_some_and(|h| h < low) {
                    return self.error(format!("repetition {{{low},…}} has a smaller upper bound"));
                }
                Repeat::Range(low, high)
            }
        })
    }

    fn number(&mut self) -> Result<Option<u32>, GrammarError> {
        let mut digits = String::new();
        while let Some(c) = self.peek().filter(char::is_ascii_digit) {
            digits.push(c);
            self.bump();
        }
        if digits.is_empty() {
            return Ok(None);
        }
        match digits.parse() {
            Ok(n) => Ok(Some(n)),
            Err(_) => self.error(format!("repetition count {digits} is too large")),
        }
    }

    /// One character of a literal or class, escapes resolved.
    fn character(&mut self) -> Result<char, GrammarError> {
        let Some(c) = self.bump() else {
            return self.error("unexpected end of grammar");
        };
        if c != '\\' {
            return Ok(c);
        }
        let Some(e) = self.bump() else {
            return self.error("unexpected end after `\\`");
        };
        let hex = |r: &mut Self, n: usize| -> Result<char, GrammarError> {
            let mut text = String::new();
            for _ in 0..n {
                match r.bump() {
                    Some(h) if h.is_ascii_hexdigit() => text.push(h),
                    _ => return r.error(format!("expected {n} hex digits")),
                }
            }
            let code = u32::from_str_radix(&text, 16).unwrap_or(u32::MAX);
            char::from_u32(code)
                .map_or_else(|| r.error(format!("\\{e}{text} is not a character")), Ok)
        };
        match e {
            'n' => Ok('\n'),
            'r' => Ok('\r'),
            't' => Ok('\t'),
            'x' => hex(self, 2),
            'u' => hex(self, 4),
            'U' => hex(self, 8),
            '\\' | '"' | '[' | ']' | '-' | '^' => Ok(e),
            other => self.error(format!("unknown escape `\\{other}`")),
        }
    }

    fn literal(&mut self) -> Result<String, GrammarError> {
        self.bump();
        let mut text = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return self.error("unterminated string literal"),
                Some('"') => {
                    self.bump();
                    return Ok(text);
                }
                _ => text.push(self.character()?),
            }
        }
    }

    fn class(&mut self) -> Result<Term, GrammarError> {
        self.bump();
        let negated = self.peek() == Some('^');
        if negated {
            self.bump();
        }
        let mut ranges = Vec::new();
        loop {
            match self.peek() {
                None | Some('\n') => return self.error("unterminated character class"),
                Some(']') => {
                    self.bump();
                    // `[^]` excludes nothing: xgrammar's spelling of GBNF's `.`.
                    if negated && ranges.is_empty() {
                        return Ok(Term::Any);
                    }
                    return Ok(Term::Class { negated, ranges });
                }
                _ => {
                    let low = self.character()?;
                    let mut ahead = self.chars.clone();
                    let high =
                        if ahead.next() == Some('-') && ahead.next().is_some_and(|c| c != ']') {
                            self.bump();
                            self.character()?
                        } else {
                            low
                        };
                    if high < low {
                        return self.error(format!("range {low:?}-{high:?} runs backwards"));
                    }
                    ranges.push((low, high));
                }
            }
        }
    }
}

/// GBNF name characters (llama.cpp's, and `_`).
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The rules of `gbnf`, checked: every referenced rule is defined, once, and `root` is.
pub(crate) fn parse(gbnf: &str) -> Result<Vec<Rule>, GrammarError> {
    let mut reader = Reader {
        chars: gbnf.chars().peekable(),
        line: 1,
        column: 1,
    };
    let rules = reader.rules()?;
    let at_end = |message: String| GrammarError {
        line: reader.line,
        column: reader.column,
        message,
    };
    let mut defined = BTreeSet::new();
    for rule in &rules {
        if !defined.insert(rule.name.as_str()) {
            return Err(at_end(format!("rule `{}` is defined twice", rule.name)));
        }
    }
    if !defined.contains("root") {
        return Err(at_end("no `root` rule".into()));
    }
    let mut missing = None;
    for rule in &rules {
        visit(&rule.alternatives, &mut |name| {
            if !defined.contains(name) && missing.is_none() {
                missing = Some(name.to_owned());
            }
        });
    }
    match missing {
        Some(name) => Err(at_end(format!("rule `{name}` is used but never defined"))),
        None => Ok(rules),
    }
}

/// Calls `f` with every rule name the alternatives refer to.
fn visit(alternatives: &[Vec<Item>], f: &mut impl FnMut(&str)) {
    for item in alternatives.iter().flatten() {
        match &item.term {
            Term::Rule(name) => f(name),
            Term::Group(inner) => visit(inner, f),
            _ => {}
        }
    }
}

/// Names as xgrammar reads them: one starting with a digit gets `r` in front (and
/// more `r`s until it collides with nothing).
fn xgrammar_name(name: &str, taken: &BTreeSet<String>) -> String {
    if !name.starts_with(|c: char| c.is_ascii_digit()) {
        return name.to_owned();
    }
    let mut out = format!("r{name}");
    while taken.contains(&out) {
        out.insert(0, 'r');
    }
    out
}

fn print(rules: &[Rule]) -> String {
    let taken: BTreeSet<String> = rules.iter().map(|r| r.name.clone()).collect();
    let rename = |name: &str| xgrammar_name(name, &taken);
    let mut out = String::new();
    for rule in rules {
        let _ = writeln!(
            out,
            "{} ::= {}",
            rename(&rule.name),
            alternatives(&rule.alternatives, &rename)
        );
    }
    out
}

fn alternatives(alts: &[Vec<Item>], rename: &impl Fn(&str) -> String) -> String {
    alts.iter()
        .map(|seq| {
            if seq.is_empty() {
                "\"\"".to_owned()
            } else {
                seq.iter()
                    .map(|i| item(i, rename))
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

fn item(item: &Item, rename: &impl Fn(&str) -> String) -> String {
    let mut out = match &item.term {
        Term::Literal(text) => {
            let mut s = String::from('"');
            for c in text.chars() {
                escape(c, &['"', '\\'], &mut s);
            }
            s.push('"');
            s
        }
        Term::Class { negated, ranges } => {
            let mut s = String::from(if *negated { "[^" } else { "[" });
            for (i, &(low, high)) in ranges.iter().enumerate() {
                // A `^` opening a class would negate it; `-` and `]` are escaped everywhere.
                let special: &[char] = if i == 0 && !negated {
                    &['\\', ']', '-', '^']
                } else {
                    &['\\', ']', '-']
                };
                escape(low, special, &mut s);
                if high != low {
                    s.push('-');
                    escape(high, special, &mut s);
                }
            }
            s.push(']');
            s
        }
        Term::Any => "[^]".to_owned(),
        Term::Rule(name) => rename(name),
        Term::Group(inner) => format!("({})", alternatives(inner, rename)),
    };
    match item.repeat {
        Repeat::Once => {}
        Repeat::Optional => out.push('?'),
        Repeat::Star => out.push('*'),
        Repeat::Plus => out.push('+'),
        Repeat::Range(low, None) => {
            let _ = write!(out, "{{{low},}}");
        }
        Repeat::Range(low, Some(high)) if high == low => {
            let _ = write!(out, "{{{low}}}");
        }
        Repeat::Range(low, Some(high)) => {
            let _ = write!(out, "{{{low},{high}}}");
        }
    }
    out
}

/// Appends `c`, backslash-escaped when it is in `special` or a control character.
fn escape(c: char, special: &[char], out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        c if special.contains(&c) => {
            out.push('\\');
            out.push(c);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section grammar of the shape the twelve-tone proposer writes
    /// (`domains/twelve-tone/src/proposer/llm/constraint.rs`), cut short.
    const TWELVE_TONE: &str = "root ::= v0 v1\n\
        v0 ::= \"Soprano: \" v0-n0 \" \" v0-n1 \"\\n\"\n\
        v0-n0 ::= v0-n0-p0 \"@\" v0-n0-at \">\" v0-n0-len\n\
        v0-n0-p0 ::= \"C#4\" | \"Db4\" | \"C#5\" | \"Db5\"\n\
        v0-n0-at ::= [1-3]\n\
        v0-n0-len ::= [1-9] | [1-5] [0-9] | \"6\" [0-4]\n\
        v0-n1 ::= v0-n1-p0 \"+\" v0-n1-p1 \"@\" v0-n1-at \">\" v0-n1-len\n\
        v0-n1-p0 ::= \"E4\"\n\
        v0-n1-p1 ::= \"G4\"\n\
        v0-n1-at ::= \"1\" [0-2]\n\
        v0-n1-len ::= \"1\"\n\
        v1 ::= \"Bass: \" v0-n0 \"\\n\"\n";

    /// The counterpoint proposer's grammar (`domains/counterpoint/src/proposer/model.rs`).
    const COUNTERPOINT: &str =
        "root ::= note \" \" note \" \" note\nnote ::= [A-G] (\"#\" | \"b\")? [0-9]\n";

    #[test]
    fn the_domains_grammars_pass_unchanged() {
        for g in [TWELVE_TONE, COUNTERPOINT] {
            assert_eq!(to_xgrammar(g).unwrap(), g);
        }
    }

    #[test]
    fn printing_is_faithful() {
        for g in [
            TWELVE_TONE,
            COUNTERPOINT,
            "root ::= (\"a\" | [^\\]x-] )+? .{,3} x\nx ::= \"\\\"\\\\\\t\" | \n",
        ] {
            let once = parse(g).unwrap();
            let twice = parse(&print(&once)).unwrap();
            assert_eq!(once, twice, "{g}");
        }
    }

    #[test]
    fn constructs_xgrammar_spells_differently_are_rewritten() {
        let cases = [
            ("root ::= . \"x\"\n", "root ::= [^] \"x\"\n"),
            ("root ::= \"a\"{,3}\n", "root ::= \"a\"{0,3}\n"),
            (
                "root ::= \"a\"{2} \"b\"{2,} \"c\"{1, 4}\n",
                "root ::= \"a\"{2} \"b\"{2,} \"c\"{1,4}\n",
            ),
            (
                "root ::= \"\\[x\\]\" [\\[\\]]\n",
                "root ::= \"[x]\" [[\\]]\n",
            ),
            ("root ::= \"\\x41\\u00e9\"\n", "root ::= \"Aé\"\n"),
            (
                "root ::= 9lives\n9lives ::= \"9\"\n",
                "root ::= r9lives\nr9lives ::= \"9\"\n",
            ),
            ("root ::= \"a\"+?\n", "root ::= (\"a\"+)?\n"),
            // Layout: comments go, alternatives continue after `|`, groups span lines.
            (
                "# a comment\nroot ::= a |\n  b # why\na ::= (\n  \"x\"\n)\nb ::= \"y\"\n",
                "root ::= a | b\na ::= (\"x\")\nb ::= \"y\"\n",
            ),
        ];
        for (gbnf, want) in cases {
            assert_eq!(to_xgrammar(gbnf).unwrap(), want, "{gbnf}");
        }
    }

    #[test]
    fn bad_grammars_are_refused_saying_where() {
        let cases = [
            ("root ::= \"a\n", 1, "unterminated string literal"),
            ("root ::= a\n", 2, "rule `a` is used but never defined"),
            ("x ::= \"a\"\n", 2, "no `root` rule"),
            ("root ::= \"a\"\nroot ::= \"b\"\n", 3, "defined twice"),
            ("root ::=\n  <[128010]>\n", 2, "token references"),
            ("root ::= [z-a]\n", 1, "runs backwards"),
            ("root ::= \"a\"{3,1}\n", 1, "smaller upper bound"),
            ("root = \"a\"\n", 1, "expected `::=`"),
            ("root ::= (\"a\"\n", 2, "expected `)`"),
        ];
        for (gbnf, line, message) in cases {
            let e = to_xgrammar(gbnf).unwrap_err();
            assert_eq!(e.line, line, "{gbnf}: {e}");
            assert!(e.message.contains(message), "{gbnf}: {e}");
        }
    }
}
