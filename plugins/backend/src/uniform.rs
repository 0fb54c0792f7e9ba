//! The language of a GBNF grammar as a set to count and to draw from uniformly: the
//! arithmetic behind the null model ([`crate::null`]).
//!
//! Every grammar a Cantus domain sends is finite (no recursion, no unbounded
//! repetition), so its language has a size. [`Language::bits`] is log₂ of that size —
//! how much choice the constraint leaves — and [`Language::sample`] draws a string with
//! every string equally likely: each rule's alternatives are weighted by how many
//! strings they derive. Counts are kept as log₂ in `f64` (a six-voice section admits
//! far more than 2¹⁰²⁴ answers), so a draw is uniform up to floating-point rounding.
//!
//! Counting is over derivations; for an unambiguous grammar — every grammar the domains
//! generate: each string has one parse — that is counting strings. A grammar with
//! recursion, unbounded repetition (`*`, `+`, `{n,}`), `.` or a negated class has no
//! finite size and is refused, naming the rule.

use crate::grammar::{self, GrammarError, Item, Repeat, Rule, Term};
use std::collections::HashMap;

/// The most repetitions a bounded `{m,n}` may allow here.
const MAX_REPEAT: u32 = 10_000;

/// `log2(2^a + 2^b)`, with `-inf` as zero.
fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    hi + (1.0 + (lo - hi).exp2()).log2()
}

#[derive(Clone, Debug)]
enum Atom {
    Literal(String),
    /// Inclusive character ranges and how many characters they hold.
    Chars(Vec<(char, char)>, u32),
    Rule(usize),
}

#[derive(Clone, Debug)]
struct Part {
    atom: Atom,
    /// Inclusive bounds on how often the atom occurs.
    min: u32,
    max: u32,
    /// log₂ of the strings one occurrence derives.
    one: f64,
    /// log₂ of the strings the whole part derives.
    all: f64,
}

#[derive(Clone, Debug, Default)]
struct Node {
    name: String,
    alternatives: Vec<Vec<Part>>,
    /// log₂ of each alternative's strings.
    weights: Vec<f64>,
    /// log₂ of the node's strings.
    size: f64,
}

/// A finite GBNF language, counted.
#[derive(Clone, Debug)]
pub struct Language {
    nodes: Vec<Node>,
    root: usize,
}

impl Language {
    /// Reads and counts `gbnf`; refuses grammars whose language is not finite.
    pub fn new(gbnf: &str) -> Result<Language, GrammarError> {
        let rules = grammar::parse(gbnf)?;
        let refuse = |message: String| GrammarError {
            line: 0,
            column: 0,
            message,
        };
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (i, rule) in rules.iter().enumerate() {
            index.insert(rule.name.as_str(), i);
        }
        let mut nodes: Vec<Node> = rules
            .iter()
            .map(|r| Node {
                name: r.name.clone(),
                ..Node::default()
            })
            .collect();
        // Groups become nodes of their own after the rules.
        let mut groups: Vec<(String, Vec<Vec<Item>>)> = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            nodes[i].alternatives = lower(rule, &rule.alternatives, &index, &mut groups)
                .map_err(|m| refuse(format!("rule `{}`: {m}", rule.name)))?;
        }
        let mut next = 0;
        while next < groups.len() {
            let (name, alternatives) = groups[next].clone();
            let at = rules.len() + next;
            let rule = Rule {
                name: name.clone(),
                alternatives: alternatives.clone(),
            };
            let lowered = lower(&rule, &alternatives, &index, &mut groups)
                .map_err(|m| refuse(format!("rule `{name}`: {m}")))?;
            debug_assert_eq!(nodes.len(), at);
            nodes.push(Node {
                name,
                alternatives: lowered,
                ..Node::default()
            });
            next += 1;
        }
        let root = index["root"];
        count(&mut nodes, root).map_err(refuse)?;
        if nodes[root].size == f64::NEG_INFINITY {
            return Err(refuse("the grammar admits no string".into()));
        }
        Ok(Language { nodes, root })
    }

    /// log₂ of the number of strings in the language.
    pub fn bits(&self) -> f64 {
        self.nodes[self.root].size
    }

    /// A string of the language, every string equally likely.
    pub fn sample(&self, rng: &mut fastrand::Rng) -> String {
        let mut out = String::new();
        // Parts still to write, the next one on top.
        let mut stack: Vec<&Part> = Vec::new();
        self.expand(self.root, rng, &mut stack);
        while let Some(part) = stack.pop() {
            self.write(part, rng, &mut out, &mut stack);
        }
        out
    }

    /// Writes one part (all its occurrences) to `out`, pushing rule expansions on `stack`.
    fn write<'a>(
        &'a self,
        part: &'a Part,
        rng: &mut fastrand::Rng,
        out: &mut String,
        stack: &mut Vec<&'a Part>,
    ) {
        let times = repetitions(part, rng);
        match &part.atom {
            Atom::Literal(text) => {
                for _ in 0..times {
                    out.push_str(text);
                }
            }
            Atom::Chars(ranges, total) => {
                for _ in 0..times {
                    out.push(pick_char(ranges, *total, rng));
                }
            }
            Atom::Rule(node) => {
                // Each occurrence is an independent draw; expand them in order.
                let mut expansions: Vec<Vec<&Part>> = Vec::new();
                for _ in 0..times {
                    let mut inner = Vec::new();
                    self.expand(*node, rng, &mut inner);
                    expansions.push(inner);
                }
                for inner in expansions.into_iter().rev() {
                    stack.extend(inner);
                }
            }
        }
    }

    /// Chooses an alternative of `node` by weight and pushes its parts, last first.
    fn expand<'a>(&'a self, node: usize, rng: &mut fastrand::Rng, todo: &mut Vec<&'a Part>) {
        let n = &self.nodes[node];
        let mut r = rng.f64();
        let mut chosen = n.weights.len().saturating_sub(1);
        for (i, &w) in n.weights.iter().enumerate() {
            let p = (w - n.size).exp2();
            if r < p {
                chosen = i;
                break;
            }
            r -= p;
        }
        // Never land on an alternative that derives nothing (rounding at the end).
        while n.weights.get(chosen) == Some(&f64::NEG_INFINITY) && chosen > 0 {
            chosen -= 1;
        }
        if let Some(parts) = n.alternatives.get(chosen) {
            todo.extend(parts.iter().rev());
        }
    }
}

/// How many times `part` occurs this time, weighted by the strings each count derives.
fn repetitions(part: &Part, rng: &mut fastrand::Rng) -> u32 {
    if part.min == part.max {
        return part.min;
    }
    let mut r = rng.f64();
    for k in part.min..=part.max {
        let p = (f64::from(k) * part.one - part.all).exp2();
        if r < p {
            return k;
        }
        r -= p;
    }
    part.max
}

fn pick_char(ranges: &[(char, char)], total: u32, rng: &mut fastrand::Rng) -> char {
    let mut k = rng.u32(0..total.max(1));
    for &(lo, hi) in ranges {
        let width = u32::from(hi) - u32::from(lo) + 1;
        if k < width {
            return char::from_u32(u32::from(lo) + k).unwrap_or(lo);
        }
        k -= width;
    }
    ranges.first().map_or('?', |r| r.0)
}

/// The alternatives of a rule as parts; groups are queued as nodes of their own.
fn lower(
    rule: &Rule,
    alternatives: &[Vec<Item>],
    index: &HashMap<&str, usize>,
    groups: &mut Vec<(String, Vec<Vec<Item>>)>,
) -> Result<Vec<Vec<Part>>, String> {
    let base = index.len();
    alternatives
        .iter()
        .map(|alt| {
            alt.iter()
                .map(|item| {
                    let atom = match &item.term {
                        Term::Literal(text) => Atom::Literal(text.clone()),
                        Term::Class { negated: true, .. } => {
                            return Err("a negated character class has no finite size".into());
                        }
                        Term::Any => return Err("`.` has no finite size".into()),
                        Term::Class { ranges, .. } => {
                            let mut total = 0u32;
                            for &(lo, hi) in ranges {
                                if hi < lo {
                                    return Err(format!("class range {lo}-{hi} is backwards"));
                                }
                                total += u32::from(hi) - u32::from(lo) + 1;
                            }
                            Atom::Chars(ranges.clone(), total)
                        }
                        Term::Rule(name) => Atom::Rule(index[name.as_str()]),
                        Term::Group(inner) => {
                            groups.push((
                                format!("{}#group{}", rule.name, groups.len()),
                                inner.clone(),
                            ));
                            Atom::Rule(base + groups.len() - 1)
                        }
                    };
                    let (min, max) = match item.repeat {
                        Repeat::Once => (1, 1),
                        Repeat::Optional => (0, 1),
                        Repeat::Range(lo, Some(hi)) if hi <= MAX_REPEAT => (lo, hi),
                        Repeat::Range(_, Some(hi)) => {
                            return Err(format!(
                                "a repetition up to {hi} times (at most {MAX_REPEAT} here)"
                            ));
                        }
                        Repeat::Star | Repeat::Plus | Repeat::Range(_, None) => {
                            return Err("an unbounded repetition has no finite size".into());
                        }
                    };
                    Ok(Part {
                        atom,
                        min,
                        max,
                        one: 0.0,
                        all: 0.0,
                    })
                })
                .collect()
        })
        .collect()
}

/// Counts every node reachable from `root` (post-order, without recursion), refusing
/// a cycle by the rule that closes it.
fn count(nodes: &mut [Node], root: usize) -> Result<(), String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; nodes.len()];
    let mut stack: Vec<(usize, bool)> = vec![(root, false)];
    while let Some((node, children_done)) = stack.pop() {
        if children_done {
            let mut weights = Vec::with_capacity(nodes[node].alternatives.len());
            let mut alternatives = std::mem::take(&mut nodes[node].alternatives);
            for alt in &mut alternatives {
                let mut w = 0.0;
                for part in alt.iter_mut() {
                    part.one = match &part.atom {
                        Atom::Literal(_) => 0.0,
                        Atom::Chars(_, 0) => f64::NEG_INFINITY,
                        Atom::Chars(_, n) => f64::from(*n).log2(),
                        Atom::Rule(r) => nodes[*r].size,
                    };
                    part.all = (part.min..=part.max).fold(f64::NEG_INFINITY, |acc, k| {
                        let term = if k == 0 { 0.0 } else { f64::from(k) * part.one };
                        log_add(acc, term)
                    });
                    w += part.all;
                }
                if w.is_nan() {
                    w = f64::NEG_INFINITY;
                }
                weights.push(w);
            }
            nodes[node].alternatives = alternatives;
            nodes[node].size = weights
                .iter()
                .fold(f64::NEG_INFINITY, |a, &w| log_add(a, w));
            nodes[node].weights = weights;
            mark[node] = Mark::Done;
            continue;
        }
        match mark[node] {
            Mark::Done => continue,
            Mark::Open => {
                return Err(format!(
                    "rule `{}` refers back to itself: a recursive grammar has no finite size",
                    nodes[node].name
                ));
            }
            Mark::New => {}
        }
        mark[node] = Mark::Open;
        stack.push((node, true));
        for alt in &nodes[node].alternatives {
            for part in alt {
                if let Atom::Rule(r) = part.atom {
                    match mark[r] {
                        Mark::Done => {}
                        Mark::Open => {
                            return Err(format!(
                                "rule `{}` refers back to `{}`: a recursive grammar has no finite size",
                                nodes[node].name, nodes[r].name
                            ));
                        }
                        Mark::New => stack.push((r, false)),
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_small_grammar_has_the_size_its_strings_say() {
        // 2 × 3 = 6 strings; [0-9]{1,2}: 10 + 100 = 110; an optional doubles.
        let six =
            Language::new("root ::= (\"a\" | \"b\") x\nx ::= \"c\" | \"d\" | \"e\"\n").unwrap();
        assert!((six.bits() - 6f64.log2()).abs() < 1e-12, "{}", six.bits());
        let digits = Language::new("root ::= [0-9]{1,2}\n").unwrap();
        assert!((digits.bits() - 110f64.log2()).abs() < 1e-9);
        let optional = Language::new("root ::= \"n\" [a-c] \"!\"?\n").unwrap();
        assert!((optional.bits() - 6f64.log2()).abs() < 1e-12);
        // One string only: no choice at all.
        assert_eq!(Language::new("root ::= \"C4@1>4\"\n").unwrap().bits(), 0.0);
    }

    #[test]
    fn draws_are_uniform_over_the_strings() {
        // Uneven structure, even strings: "a" then one of 3, or "b" alone.
        // 4 strings, each should come up a quarter of the time.
        let lang = Language::new("root ::= \"a\" [x-z] | \"b\"\n").unwrap();
        let mut rng = fastrand::Rng::with_seed(7);
        let mut seen: BTreeMap<String, u32> = BTreeMap::new();
        for _ in 0..40_000 {
            *seen.entry(lang.sample(&mut rng)).or_default() += 1;
        }
        assert_eq!(seen.len(), 4, "{seen:?}");
        for (s, n) in &seen {
            assert!((9_400..10_600).contains(n), "{s}: {n} of 40000");
        }
    }

    #[test]
    fn every_draw_is_in_the_language() {
        let lang = Language::new(
            "root ::= v0 \" \" v1\nv0 ::= \"C\" ([3-5] | \"#\" [3-4])\nv1 ::= \"@\" (\"1\" [0-9]? )\n",
        )
        .unwrap();
        let mut rng = fastrand::Rng::with_seed(1);
        for _ in 0..500 {
            let s = lang.sample(&mut rng);
            let (a, b) = s.split_once(' ').unwrap();
            assert!(["C3", "C4", "C5", "C#3", "C#4"].contains(&a), "{s}");
            let n: u32 = b.strip_prefix('@').unwrap().parse().unwrap();
            assert!(n == 1 || (10..=19).contains(&n), "{s}");
        }
        // 5 × 11 strings.
        assert!((lang.bits() - 55f64.log2()).abs() < 1e-12);
    }

    #[test]
    fn infinite_languages_are_refused_by_the_rule_that_makes_them() {
        let e = Language::new("root ::= a\na ::= \"x\" a | \"y\"\n").unwrap_err();
        assert!(
            e.message.contains("`a`") && e.message.contains("recursive"),
            "{e}"
        );
        let e = Language::new("root ::= [0-9]+\n").unwrap_err();
        assert!(e.message.contains("unbounded"), "{e}");
        let e = Language::new("root ::= [^x]\n").unwrap_err();
        assert!(e.message.contains("negated"), "{e}");
        let e = Language::new("root ::= [a-c] [] \n").map(|l| l.bits());
        assert!(e.is_err() || e.unwrap() == f64::NEG_INFINITY);
    }

    #[test]
    fn deep_chains_draw_without_recursion() {
        // A chain 5000 rules deep (deeper than any thread's stack would take by recursion).
        let mut g = String::from("root ::= r0\n");
        for i in 0..5000 {
            g.push_str(&format!("r{i} ::= \"{}\" r{}\n", i % 10, i + 1));
        }
        g.push_str("r5000 ::= \"!\" | \"?\"\n");
        let lang = Language::new(&g).unwrap();
        assert!((lang.bits() - 1.0).abs() < 1e-12);
        let s = lang.sample(&mut fastrand::Rng::with_seed(3));
        assert_eq!(s.len(), 5001);
    }
}
