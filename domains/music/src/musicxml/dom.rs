//! A small element tree built from quick-xml events.
//!
//! MusicXML is read by looking at elements in context (a `<duration>` means
//! different things under `<note>`, `<backup>` and `<forward>`), which is far
//! easier on a tree than on a stream. The tree lives in one arena (`Vec<Node>`),
//! so neither building nor dropping it recurses, whatever the input's nesting.
//! Every node remembers the byte offset of its start tag so errors can name a
//! line and column.

use super::MusicXmlError;
use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// Deepest element nesting accepted; real MusicXML stays below 10.
const MAX_DEPTH: usize = 256;

/// One element: name, attributes, its own text (not its children's) and children.
#[derive(Debug)]
pub(crate) struct Node {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<usize>,
    /// Byte offset of the start tag in the source.
    pub pos: usize,
}

/// A parsed document: the arena and the index of the root element.
#[derive(Debug)]
pub(crate) struct Doc<'s> {
    pub source: &'s str,
    pub nodes: Vec<Node>,
    pub root: usize,
}

impl<'s> Doc<'s> {
    /// Parses `source` into a tree, or reports the first XML error with its position.
    pub fn parse(source: &'s str) -> Result<Doc<'s>, MusicXmlError> {
        check_chars(source)?;
        let mut reader = Reader::from_str(source);
        let mut nodes: Vec<Node> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut root: Option<usize> = None;
        loop {
            let before = usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX);
            let event = match reader.read_event() {
                Ok(ev) => ev,
                Err(e) => {
                    let at = usize::try_from(reader.error_position()).unwrap_or(usize::MAX);
                    return Err(xml_error(source, at, e.to_string()));
                }
            };
            let (start, is_empty) = match event {
                Event::Start(start) => (start, false),
                Event::Empty(start) => (start, true),
                Event::End(_) => {
                    stack.pop();
                    continue;
                }
                Event::Text(text) => {
                    if let Some(&top) = stack.last() {
                        nodes[top]
                            .text
                            .push_str(&text.xml_content(XmlVersion::Implicit1_0));
                    }
                    continue;
                }
                Event::CData(data) => {
                    if let Some(&top) = stack.last() {
                        nodes[top]
                            .text
                            .push_str(&data.xml_content(XmlVersion::Implicit1_0));
                    }
                    continue;
                }
                Event::GeneralRef(reference) => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) if !is_xml_char(c) => {
                            let msg = format!(
                                "character reference &{}; names U+{:04X}, which XML 1.0 does not allow",
                                &*reference,
                                u32::from(c)
                            );
                            return Err(xml_error(source, before, msg));
                        }
                        Ok(Some(c)) => c.to_string(),
                        Ok(None) => match resolve_predefined_entity(&reference) {
                            Some(s) => s.to_string(),
                            None => {
                                let msg = format!("unknown entity &{};", &*reference);
                                return Err(xml_error(source, before, msg));
                            }
                        },
                        Err(e) => return Err(xml_error(source, before, e.to_string())),
                    };
                    if let Some(&top) = stack.last() {
                        nodes[top].text.push_str(&resolved);
                    }
                    continue;
                }
                Event::Eof => break,
                Event::Decl(decl) => {
                    check_encoding(source, &decl, before)?;
                    continue;
                }
                Event::Comment(_) | Event::PI(_) | Event::DocType(_) => continue,
            };
            let node = element_node(source, &start, before)?;
            let idx = nodes.len();
            match stack.last() {
                Some(&parent) => nodes[parent].children.push(idx),
                None if root.is_none() => root = Some(idx),
                None => {
                    let msg = format!("a second root element <{}>", node.name);
                    return Err(xml_error(source, before, msg));
                }
            }
            nodes.push(node);
            if !is_empty {
                if stack.len() >= MAX_DEPTH {
                    let msg = format!("elements nested deeper than {MAX_DEPTH} levels");
                    return Err(xml_error(source, before, msg));
                }
                stack.push(idx);
            }
        }
        if let Some(&open) = stack.last() {
            let node = &nodes[open];
            let msg = format!("<{}> is never closed", node.name);
            return Err(xml_error(source, node.pos, msg));
        }
        match root {
            Some(root) => Ok(Doc {
                source,
                nodes,
                root,
            }),
            None => Err(xml_error(
                source,
                source.len(),
                "no root element".to_string(),
            )),
        }
    }

    /// The node at `idx` (an index this document handed out).
    pub fn node(&self, idx: usize) -> &Node {
        &self.nodes[idx]
    }

    /// Indices of the children of `idx`, in document order.
    pub fn children(&self, idx: usize) -> impl Iterator<Item = usize> + '_ {
        self.nodes[idx].children.iter().copied()
    }

    /// Indices of the children of `idx` named `name`.
    pub fn children_named<'a>(
        &'a self,
        idx: usize,
        name: &'a str,
    ) -> impl Iterator<Item = usize> + 'a {
        self.children(idx)
            .filter(move |&c| self.nodes[c].name == name)
    }

    /// The first child of `idx` named `name`.
    pub fn child(&self, idx: usize, name: &str) -> Option<usize> {
        self.children_named(idx, name).next()
    }

    /// Whether `idx` has a child named `name`.
    pub fn has_child(&self, idx: usize, name: &str) -> bool {
        self.child(idx, name).is_some()
    }

    /// The text of `idx` with surrounding XML whitespace removed.
    pub fn trimmed_text(&self, idx: usize) -> &str {
        self.nodes[idx]
            .text
            .trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
    }

    /// The trimmed text of the first child named `name`.
    pub fn child_text(&self, idx: usize, name: &str) -> Option<&str> {
        self.child(idx, name).map(|c| self.trimmed_text(c))
    }

    /// The value of attribute `name` on `idx`.
    pub fn attr(&self, idx: usize, name: &str) -> Option<&str> {
        self.nodes[idx]
            .attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// An error about element `idx`, positioned at its start tag.
    pub fn error_at(&self, idx: usize, message: impl Into<String>) -> MusicXmlError {
        let node = &self.nodes[idx];
        let (line, column) = line_column(self.source, node.pos);
        MusicXmlError::Invalid {
            line,
            column,
            element: node.name.clone(),
            message: message.into(),
        }
    }

    /// `line:column` of element `idx`, for warnings.
    pub fn position(&self, idx: usize) -> String {
        let (line, column) = line_column(self.source, self.nodes[idx].pos);
        format!("line {line}, column {column}")
    }
}

/// Whether XML 1.0 allows `c` in a document: tab, line feed, carriage return,
/// and everything from U+0020 except U+FFFE and U+FFFF (Rust strings hold no
/// surrogates). Writers check text with it too.
pub(crate) fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Refuses a document holding a character XML does not allow (a NUL byte
/// between elements, say), at its line and column.
fn check_chars(source: &str) -> Result<(), MusicXmlError> {
    let bad = source
        .bytes()
        .position(|b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'));
    let bad = bad.or_else(|| {
        source
            .char_indices()
            .find(|(_, c)| matches!(c, '\u{FFFE}' | '\u{FFFF}'))
            .map(|(i, _)| i)
    });
    match bad {
        None => Ok(()),
        Some(at) => {
            let c = source[at..].chars().next().unwrap_or('\0');
            let msg = format!(
                "character U+{:04X} (at byte offset {at}) is not allowed in XML",
                u32::from(c)
            );
            Err(xml_error(source, at, msg))
        }
    }
}

/// Refuses an XML declaration naming an encoding the (UTF-8) text is not in.
/// ASCII-compatible single-byte encodings are accepted for pure-ASCII text,
/// where they read the same.
fn check_encoding(
    source: &str,
    decl: &quick_xml::events::BytesDecl<'_>,
    pos: usize,
) -> Result<(), MusicXmlError> {
    let Some(encoding) = decl.encoding() else {
        return Ok(());
    };
    let encoding = encoding
        .map(|e| e.trim().to_ascii_lowercase())
        .map_err(|e| xml_error(source, pos, format!("in the XML declaration: {e}")))?;
    let single_byte = [
        "us-ascii",
        "ascii",
        "iso-8859-",
        "latin",
        "windows-125",
        "cp125",
    ];
    let ok = matches!(encoding.as_str(), "utf-8" | "utf8")
        || (source.is_ascii() && single_byte.iter().any(|p| encoding.starts_with(p)));
    if ok {
        return Ok(());
    }
    Err(xml_error(
        source,
        pos,
        format!(
            "the XML declaration says encoding=\"{encoding}\", but the file is read as UTF-8 \
             (re-save it as UTF-8 and fix the declaration)"
        ),
    ))
}

/// Builds the node for a start (or empty) tag found at byte `pos`.
fn element_node(source: &str, start: &BytesStart<'_>, pos: usize) -> Result<Node, MusicXmlError> {
    // Local names: a namespace prefix (`mei:note`) does not change what an element is.
    let name = start.local_name().as_ref().to_string();
    let mut attrs = Vec::new();
    for attr in start.attributes() {
        let attr = attr.map_err(|e| xml_error(source, pos, format!("in <{name}>: {e}")))?;
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| xml_error(source, pos, format!("in <{name}>: {e}")))?;
        attrs.push((attr.key.as_ref().to_string(), value.into_owned()));
    }
    Ok(Node {
        name,
        attrs,
        text: String::new(),
        children: Vec::new(),
        pos,
    })
}

/// A malformed-XML error at byte offset `pos`.
fn xml_error(source: &str, pos: usize, message: String) -> MusicXmlError {
    let (line, column) = line_column(source, pos);
    MusicXmlError::Xml {
        line,
        column,
        message,
    }
}

/// 1-based line and column (in characters) of byte offset `pos` in `source`.
pub(crate) fn line_column(source: &str, pos: usize) -> (usize, usize) {
    let mut pos = pos.min(source.len());
    while !source.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &source[..pos];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}
