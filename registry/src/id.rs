//! A domain's id: one typed name, where there used to be four closed enums.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// A rule domain's name: what `--domain` takes, what a run's `report.json`, its
/// trace header and an experiment record say. Lowercase letters, digits and `-`,
/// starting with a letter (`twelve-tone`, `counterpoint`, `chorale`).
///
/// A domain names itself with a constant ([`DomainId::new`]); ids read from files
/// ([`DomainId::parse`]) are checked the same way and found in the registry
/// ([`crate::find`]), which says which ids it knows when one is not there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DomainId(Cow<'static, str>);

/// Why a text is not a domain id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a domain id (lowercase letters, digits and `-`, starting with a letter)")]
pub struct BadDomainId(pub String);

impl DomainId {
    /// The id `name`, for a domain naming itself (`DomainId::new("rising")`); the
    /// registry refuses a registration whose id is not well formed.
    pub const fn new(name: &'static str) -> DomainId {
        DomainId(Cow::Borrowed(name))
    }

    /// An id read from a file or a flag, checked.
    pub fn parse(text: &str) -> Result<DomainId, BadDomainId> {
        if is_well_formed(text) {
            Ok(DomainId(Cow::Owned(text.to_owned())))
        } else {
            Err(BadDomainId(text.to_owned()))
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the id is well formed (every id [`DomainId::parse`] returns is).
    pub fn is_well_formed(&self) -> bool {
        is_well_formed(&self.0)
    }
}

fn is_well_formed(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !text.ends_with('-')
}

impl fmt::Display for DomainId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for DomainId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for DomainId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_lowercase_words_joined_by_dashes() {
        for good in ["twelve-tone", "counterpoint", "rising", "a2"] {
            assert_eq!(DomainId::parse(good).unwrap(), DomainId::new(good));
        }
        for bad in ["", "Twelve", "12-tone", "a_b", "a-", "a b"] {
            assert!(DomainId::parse(bad).is_err(), "{bad:?}");
        }
        let json = serde_json::to_string(&DomainId::new("rising")).unwrap();
        assert_eq!(json, "\"rising\"");
    }
}
