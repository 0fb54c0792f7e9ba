//! `cantus-twelve-tone`: the twelve-tone reference domain of Cantus (being built).
#![forbid(unsafe_code)]
