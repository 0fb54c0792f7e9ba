//! `cantus-twelve-tone`: the twelve-tone reference domain of Cantus.
//!
//! * [`row`]: the row engine — 48 forms, matrix, labelling conventions, row theory, historical rows.
#![forbid(unsafe_code)]

pub mod row;
