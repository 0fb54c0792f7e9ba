//! Spec files: reading TOML with errors that point at the line, column and field, and
//! writing a spec back so that it reads to an equal spec.
//!
//! Reading happens in three steps, each of which can fail with a located error:
//! the text is parsed as TOML (syntax errors), deserialised into a spec (unknown
//! fields, wrong types, a meter that is not `"n/d"`), and validated (limits). The
//! parsed document keeps the span of every key and value, so even a validation error
//! such as "register inverted" at `voices[1].low` points at that value in the file.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Spec, SpecError};

/// See [`Spec::from_toml_str`].
pub(super) fn from_toml_str(text: &str, source_name: &str) -> Result<Spec, SpecError> {
    let located = |span: Option<Range<usize>>, field: Option<String>, message: String| {
        let (line, column) = match span {
            Some(span) => {
                let (line, column) = line_column(text, span.start);
                (Some(line), Some(column))
            }
            None => (None, None),
        };
        SpecError {
            source_name: Some(source_name.to_string()),
            line,
            column,
            field,
            message,
        }
    };
    let document = DeTable::parse(text)
        .map_err(|e| located(e.span(), None, format!("invalid TOML: {}", e.message())))?;
    let spec: Spec = ::toml::from_str(text).map_err(|e| {
        let span = e.span();
        let field = span
            .as_ref()
            .and_then(|s| field_at(document.get_ref(), s.start));
        located(span, field, e.message().to_string())
    })?;
    spec.validate().map_err(|e| {
        let span = e.field.as_deref().and_then(|f| locate(&document, f));
        SpecError {
            message: e.message,
            ..located(span, e.field, String::new())
        }
    })?;
    Ok(spec)
}

/// See [`Spec::to_toml_string`].
pub(super) fn to_toml_string(spec: &Spec) -> String {
    // Every field is a string, a small integer, a table or an array of them (seeds
    // above i64::MAX are written as strings), so serialisation cannot fail.
    let body = ::toml::to_string(spec).expect("every spec field is representable in TOML");
    format!(
        "# Cantus twelve-tone spec; every field is explained in examples/specs/webern-trio.toml\n{body}"
    )
}

/// 1-based line and character column of byte `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// One step of a field path: a table key or an array index.
#[derive(Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// `voices[1].low` → `[Key("voices"), Index(1), Key("low")]`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some((index, after)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Step::Index(i));
            }
            rest = after.strip_prefix('[').unwrap_or(after);
        }
    }
    out
}

/// The span of the value at `path`, or of its deepest ancestor present in the file
/// (a defaulted field has no text of its own); `None` if not even the first key is there.
fn locate(document: &Spanned<DeTable<'_>>, path: &str) -> Option<Range<usize>> {
    let mut found: Option<Range<usize>> = None;
    let mut table: Option<&DeTable<'_>> = Some(document.get_ref());
    let mut array: Option<&[Spanned<DeValue<'_>>]> = None;
    for step in steps(path) {
        let next = match step {
            Step::Key(key) => table.and_then(|t| {
                t.iter()
                    .find(|(k, _)| k.get_ref().as_ref() == key)
                    .map(|(_, v)| v)
            }),
            Step::Index(i) => array.and_then(|a| a.get(i)),
        };
        let Some(value) = next else { break };
        found = Some(value.span());
        table = value.get_ref().as_table();
        array = value.get_ref().as_array().map(|a| &a[..]);
    }
    found
}

/// The path of the deepest key or array element whose text contains byte `offset`.
fn field_at(table: &DeTable<'_>, offset: usize) -> Option<String> {
    for (key, value) in table.iter() {
        let name = key.get_ref().as_ref();
        let in_key = key.span().contains(&offset);
        if in_key || value.span().contains(&offset) {
            let deeper = if in_key {
                None
            } else {
                field_in_value(value.get_ref(), offset)
            };
            return Some(match deeper {
                Some(rest) if rest.starts_with('[') => format!("{name}{rest}"),
                Some(rest) => format!("{name}.{rest}"),
                None => name.to_string(),
            });
        }
    }
    // Array-of-tables elements and `[table]` bodies may not be inside their parent's
    // span; look for the offset in any nested value.
    for (key, value) in table.iter() {
        if let Some(rest) = field_in_value(value.get_ref(), offset) {
            let name = key.get_ref().as_ref();
            return Some(if rest.starts_with('[') {
                format!("{name}{rest}")
            } else {
                format!("{name}.{rest}")
            });
        }
    }
    None
}

fn field_in_value(value: &DeValue<'_>, offset: usize) -> Option<String> {
    if let Some(table) = value.as_table() {
        return field_at(table, offset);
    }
    let array = value.as_array()?;
    for (i, element) in array.iter().enumerate() {
        let inner = field_in_value(element.get_ref(), offset);
        if inner.is_some() || element.span().contains(&offset) {
            return Some(match inner {
                Some(rest) if rest.starts_with('[') => format!("[{i}]{rest}"),
                Some(rest) => format!("[{i}].{rest}"),
                None => format!("[{i}]"),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_into_keys_and_indices() {
        assert_eq!(
            steps("voices[1].low"),
            [Step::Key("voices"), Step::Index(1), Step::Key("low")]
        );
        assert_eq!(steps("bars"), [Step::Key("bars")]);
    }

    #[test]
    fn positions_are_one_based_characters() {
        let text = "a = 1\nbé = 2\n";
        assert_eq!(line_column(text, 0), (1, 1));
        assert_eq!(line_column(text, 6), (2, 1));
        assert_eq!(line_column(text, 11), (2, 5));
    }

    #[test]
    fn values_are_found_by_path_even_in_arrays_of_tables() {
        let text =
            "bars = 3\n[[voices]]\nname = \"A\"\nlow = 70\n[[voices]]\nname = \"B\"\nlow = 80\n";
        let doc = DeTable::parse(text).expect("valid TOML");
        let span = locate(&doc, "voices[1].low").expect("found");
        assert_eq!(&text[span.clone()], "80");
        assert_eq!(
            field_at(doc.get_ref(), span.start).as_deref(),
            Some("voices[1].low")
        );
        assert_eq!(
            locate(&doc, "voices[1].high").map(|s| line_column(text, s.start).0),
            Some(5)
        );
    }
}
