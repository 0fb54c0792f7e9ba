//! `--shard i/N`: one process's slice of a sweep, for a scheduler (a Slurm job array, a
//! Kubernetes Indexed Job) to run N processes side by side.
//!
//! The slice is the cells whose index in the fixed grid order is `i` modulo `N`: the
//! same cells whichever machine runs it, every cell in exactly one shard, and shards
//! of sizes that differ by at most one — balanced over tasks, models and conditions
//! too, since consecutive cells go to different shards. A shard's results record
//! which shard they are, so `cantus experiment merge` can check what it was given.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count` (`index < count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// The whole grid: shard 0 of 1.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Shard `index` of `count`.
    pub fn new(index: usize, count: usize) -> Result<Shard, String> {
        if count == 0 {
            return Err(format!("{index}/{count}: N must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "{index}/{count}: i must be below N (shards are numbered 0 to {})",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// `i` of `i/N`.
    pub fn index(self) -> usize {
        self.index
    }

    /// `N` of `i/N`.
    pub fn count(self) -> usize {
        self.count
    }

    /// Whether the cell at `position` of the fixed order is this shard's.
    pub fn holds(self, position: usize) -> bool {
        position % self.count == self.index
    }

    /// Whether this is the whole grid.
    pub fn is_whole(self) -> bool {
        self.count == 1
    }
}

impl Default for Shard {
    fn default() -> Self {
        Shard::WHOLE
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let number = |part: &str, what: &str| {
            part.trim()
                .parse::<usize>()
                .map_err(|_| format!("{s}: {what} must be a whole number (write i/N, e.g. 0/4)"))
        };
        let Some((i, n)) = s.split_once('/') else {
            return Err(format!(
                "{s}: write i/N, e.g. 0/4 for the first of four shards"
            ));
        };
        Shard::new(number(i, "i")?, number(n, "N")?)
    }
}

impl TryFrom<String> for Shard {
    type Error = String;
    fn try_from(s: String) -> Result<Shard, String> {
        s.parse()
    }
}

impl From<Shard> for String {
    fn from(s: Shard) -> String {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_parsed_or_refused_saying_why() {
        assert_eq!("1/3".parse::<Shard>(), Shard::new(1, 3));
        assert!(
            "3/3"
                .parse::<Shard>()
                .unwrap_err()
                .starts_with("3/3: i must be below N")
        );
        assert!(
            "0/0"
                .parse::<Shard>()
                .unwrap_err()
                .contains("N must be at least 1")
        );
        assert!(
            "x/3"
                .parse::<Shard>()
                .unwrap_err()
                .contains("i must be a whole number")
        );
        assert!("2".parse::<Shard>().unwrap_err().contains("write i/N"));
    }

    #[test]
    fn the_shards_of_a_grid_cover_it_once_and_differ_in_size_by_at_most_one() {
        for count in 1..7 {
            let shards: Vec<Shard> = (0..count).map(|i| Shard::new(i, count).unwrap()).collect();
            let sizes: Vec<usize> = shards
                .iter()
                .map(|s| (0..40).filter(|&p| s.holds(p)).count())
                .collect();
            assert_eq!(sizes.iter().sum::<usize>(), 40);
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            for p in 0..40 {
                assert_eq!(shards.iter().filter(|s| s.holds(p)).count(), 1);
            }
        }
    }
}
