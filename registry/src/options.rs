//! A domain's flags as a typed table, not as code in the program.
//!
//! A domain declares the flags it adds to a command as a `&'static [Opt]`: name,
//! kind (a switch, text, a path, a number in a range, one of some words), help,
//! default and the flags it cannot be used with. The command line turns every
//! registered table into arguments (so `cantus compose --help` lists each domain's
//! flags under its name) and hands the values given back as [`Args`], checked
//! against the chosen domain's table *before any work*: a number out of its range, a
//! word not among the choices, two flags that exclude each other, or another
//! domain's flag are bad input naming the flag. Anything else that drives a domain
//! — the Python bindings, a test — builds the same [`Args`] from name–value pairs.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;

/// What a flag takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OptKind {
    /// A switch: present or not.
    Flag,
    /// Free text (`--brief "…"`).
    Text,
    /// A file or directory.
    Path,
    /// A whole number from `min` to `max`, both included.
    Number { min: u64, max: u64 },
    /// A real number from `min` to `max`, both included (a probability, a share).
    Real { min: f64, max: f64 },
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// One flag of a domain (`--cantus MODE|FILE`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Opt {
    /// The long name, without dashes (`cantus`).
    pub name: &'static str,
    pub kind: OptKind,
    /// The value's placeholder in help and messages (`MODE|FILE`); empty for a switch.
    pub value_name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The value taken when the flag is not given.
    pub default: Option<&'static str>,
    /// Flags of the same command (the domain's or the program's, like `raw`) this
    /// one cannot be used with.
    pub conflicts: &'static [&'static str],
}

impl Opt {
    const fn of(
        name: &'static str,
        kind: OptKind,
        value_name: &'static str,
        help: &'static str,
    ) -> Opt {
        Opt {
            name,
            kind,
            value_name,
            help,
            default: None,
            conflicts: &[],
        }
    }

    /// A switch.
    pub const fn flag(name: &'static str, help: &'static str) -> Opt {
        Opt::of(name, OptKind::Flag, "", help)
    }

    /// A flag taking text.
    pub const fn text(name: &'static str, value_name: &'static str, help: &'static str) -> Opt {
        Opt::of(name, OptKind::Text, value_name, help)
    }

    /// A flag taking a path.
    pub const fn path(name: &'static str, value_name: &'static str, help: &'static str) -> Opt {
        Opt::of(name, OptKind::Path, value_name, help)
    }

    /// A flag taking a whole number from `min` to `max`.
    pub const fn number(
        name: &'static str,
        value_name: &'static str,
        min: u64,
        max: u64,
        help: &'static str,
    ) -> Opt {
        Opt::of(name, OptKind::Number { min, max }, value_name, help)
    }

    /// A flag taking a real number from `min` to `max`.
    pub const fn real(
        name: &'static str,
        value_name: &'static str,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> Opt {
        Opt::of(name, OptKind::Real { min, max }, value_name, help)
    }

    /// A flag taking one of `values`.
    pub const fn choice(
        name: &'static str,
        value_name: &'static str,
        values: &'static [&'static str],
        help: &'static str,
    ) -> Opt {
        Opt::of(name, OptKind::Choice(values), value_name, help)
    }

    /// This flag with a default value (checked like a given one).
    pub const fn default(self, value: &'static str) -> Opt {
        Opt {
            default: Some(value),
            ..self
        }
    }

    /// This flag, refused together with any of `names`.
    pub const fn conflicts_with(self, names: &'static [&'static str]) -> Opt {
        Opt {
            conflicts: names,
            ..self
        }
    }

    /// Whether the flag takes a value.
    pub fn takes_value(&self) -> bool {
        self.kind != OptKind::Flag
    }

    /// How messages name it: `'--revise <N>'`, `'--above'`.
    pub fn display(&self) -> String {
        if self.takes_value() {
            format!("'--{} <{}>'", self.name, self.value_name)
        } else {
            format!("'--{}'", self.name)
        }
    }

    /// The help line with what the kind adds: the choices, the range, the default.
    pub fn full_help(&self) -> String {
        let mut help = self.help.to_owned();
        match self.kind {
            OptKind::Choice(values) => {
                help.push_str(&format!(" [possible values: {}]", values.join(", ")))
            }
            OptKind::Number { min, max } if max < u64::from(u32::MAX) || min > 0 => {
                help.push_str(&format!(" [{min}..={max}]"))
            }
            _ => {}
        }
        if let Some(d) = self.default {
            help.push_str(&format!(" [default: {d}]"));
        }
        help
    }
}

/// A flag's checked value.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Flag,
    Text(String),
    Path(PathBuf),
    Number(u64),
    Real(f64),
}

/// Why the flags given are refused; each is bad input, worded as the command line's
/// own errors are.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// A value that does not fit the flag.
    #[error("invalid value '{value}' for {flag}: {why}")]
    Invalid {
        flag: String,
        value: String,
        why: String,
    },
    /// Two flags that exclude each other.
    #[error("the argument {flag} cannot be used with {other}")]
    Conflict { flag: String, other: String },
    /// A flag the domain does not take.
    #[error("{flag} is {} --domain {domain}", owned_by(owners))]
    Unknown {
        flag: String,
        domain: String,
        /// The domains that take it, if any do.
        owners: Vec<String>,
    },
    /// A switch given a value, or a valued flag given none.
    #[error("{flag} {why}")]
    Shape { flag: String, why: &'static str },
}

fn owned_by(owners: &[String]) -> String {
    if owners.is_empty() {
        "not a flag of".to_owned()
    } else {
        format!(
            "a flag of --domain {} only, not of",
            owners.join(" and --domain ")
        )
    }
}

/// The values of a domain's flags, checked against its table: what a domain's
/// composer or verifier reads. Every getter names a flag of the table; a flag not
/// given and without a default reads as absent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Args {
    values: BTreeMap<&'static str, Value>,
    /// Names given on the command line (defaults not included).
    given: Vec<&'static str>,
}

impl Args {
    /// Checks `given` — (flag name, value) pairs, `None` for a switch — against
    /// `table`. `others` are the command's other flags that were given (the
    /// program's own, like `raw`), for the table's conflicts. A name the table does
    /// not have is [`ArgsError::Unknown`], with `domain` in the message.
    pub fn parse(
        table: &'static [Opt],
        domain: &str,
        given: impl IntoIterator<Item = (String, Option<OsString>)>,
        others: &[&str],
    ) -> Result<Args, ArgsError> {
        let mut args = Args::default();
        for (name, raw) in given {
            let Some(opt) = table.iter().find(|o| o.name == name) else {
                return Err(ArgsError::Unknown {
                    flag: format!("--{name}"),
                    domain: domain.to_owned(),
                    owners: Vec::new(),
                });
            };
            let value = match (opt.kind, raw) {
                (OptKind::Flag, None) => Value::Flag,
                (OptKind::Flag, Some(_)) => {
                    return Err(ArgsError::Shape {
                        flag: opt.display(),
                        why: "takes no value",
                    });
                }
                (_, None) => {
                    return Err(ArgsError::Shape {
                        flag: opt.display(),
                        why: "needs a value",
                    });
                }
                (_, Some(raw)) => check(opt, raw)?,
            };
            args.values.insert(opt.name, value);
            args.given.push(opt.name);
        }
        for opt in table {
            if !args.given.contains(&opt.name) {
                continue;
            }
            let clash = opt
                .conflicts
                .iter()
                .find(|c| args.given.contains(c) || others.contains(c));
            if let Some(other) = clash {
                let other = table
                    .iter()
                    .find(|o| o.name == *other)
                    .map_or_else(|| format!("'--{other}'"), Opt::display);
                return Err(ArgsError::Conflict {
                    flag: opt.display(),
                    other,
                });
            }
        }
        for opt in table {
            if let (None, Some(d)) = (args.values.get(opt.name), opt.default) {
                let value = check(opt, d.into())?;
                args.values.insert(opt.name, value);
            }
        }
        Ok(args)
    }

    /// Whether a switch was given.
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(Value::Flag))
    }

    /// A text or choice flag's value.
    pub fn text(&self, name: &str) -> Option<&str> {
        match self.values.get(name)? {
            Value::Text(t) => Some(t),
            _ => None,
        }
    }

    /// A path flag's value.
    pub fn path(&self, name: &str) -> Option<&std::path::Path> {
        match self.values.get(name)? {
            Value::Path(p) => Some(p),
            _ => None,
        }
    }

    /// A number flag's value (already within its range).
    pub fn number(&self, name: &str) -> Option<u64> {
        match self.values.get(name)? {
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// A real flag's value (already within its range).
    pub fn real(&self, name: &str) -> Option<f64> {
        match self.values.get(name)? {
            Value::Real(x) => Some(*x),
            _ => None,
        }
    }

    /// Whether the flag was given (not just defaulted).
    pub fn given(&self, name: &str) -> bool {
        self.given.contains(&name)
    }
}

fn check(opt: &Opt, raw: OsString) -> Result<Value, ArgsError> {
    let invalid = |value: &str, why: String| ArgsError::Invalid {
        flag: opt.display(),
        value: value.to_owned(),
        why,
    };
    if opt.kind == OptKind::Path {
        return Ok(Value::Path(PathBuf::from(raw)));
    }
    let text = raw
        .into_string()
        .map_err(|raw| invalid(&raw.to_string_lossy(), "not UTF-8".into()))?;
    match opt.kind {
        OptKind::Number { min, max } => match text.trim().parse::<u64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(Value::Number(n)),
            Ok(n) => Err(invalid(&text, format!("{n} is not in {min}..={max}"))),
            Err(_) => Err(invalid(&text, "not a whole number".into())),
        },
        OptKind::Real { min, max } => match text.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && (min..=max).contains(&x) => Ok(Value::Real(x)),
            Ok(_) => Err(invalid(&text, format!("not in {min}..={max}"))),
            Err(_) => Err(invalid(&text, "not a number".into())),
        },
        OptKind::Choice(values) => match values.iter().find(|v| v.eq_ignore_ascii_case(&text)) {
            Some(v) => Ok(Value::Text((*v).to_owned())),
            None => Err(invalid(
                &text,
                format!("possible values: {}", values.join(", ")),
            )),
        },
        _ => Ok(Value::Text(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[Opt] = &[
        Opt::text("brief", "TEXT", "what to write").conflicts_with(&["spec"]),
        Opt::path("spec", "FILE", "a spec file"),
        Opt::number("revise", "N", 1, u32::MAX as u64, "rounds").conflicts_with(&["raw"]),
        Opt::choice("mode", "MODE", &["strict", "relaxed"], "gate").default("strict"),
        Opt::flag("above", "above"),
    ];

    fn parse(given: &[(&str, Option<&str>)], others: &[&str]) -> Result<Args, ArgsError> {
        Args::parse(
            TABLE,
            "twelve-tone",
            given
                .iter()
                .map(|(n, v)| ((*n).to_owned(), v.map(OsString::from))),
            others,
        )
    }

    #[test]
    fn values_are_typed_and_defaults_filled_in() {
        let args = parse(
            &[
                ("revise", Some("3")),
                ("above", None),
                ("brief", Some("a trio")),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(args.number("revise"), Some(3));
        assert!(args.flag("above"));
        assert_eq!(args.text("brief"), Some("a trio"));
        assert_eq!(args.text("mode"), Some("strict"));
        assert!(!args.given("mode"));
        assert_eq!(args.path("spec"), None);
    }

    #[test]
    fn bad_values_conflicts_and_strangers_are_refused_by_name() {
        let err = parse(&[("revise", Some("0"))], &[])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "invalid value '0' for '--revise <N>': 0 is not in 1..=4294967295"
        );
        let err = parse(&[("mode", Some("lax"))], &[])
            .unwrap_err()
            .to_string();
        assert!(err.contains("possible values: strict, relaxed"), "{err}");
        let err = parse(&[("brief", Some("x")), ("spec", Some("s.toml"))], &[])
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "the argument '--brief <TEXT>' cannot be used with '--spec <FILE>'"
        );
        let err = parse(&[("revise", Some("2"))], &["raw"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot be used with '--raw'"), "{err}");
        let err = parse(&[("cantus", Some("dorian"))], &[])
            .unwrap_err()
            .to_string();
        assert_eq!(err, "--cantus is not a flag of --domain twelve-tone");
    }
}
