//! Bootstrap intervals clustered by task family: resample whole families with
//! replacement (as many as there are), pool every item of the drawn families,
//! recompute the statistic; the interval is the 2.5th and 97.5th percentile of the
//! resampled statistics (nearest rank). Tasks of one family share a template, so
//! resampling them one by one would count them as independent and make intervals
//! too narrow. The resamples and seed are the experiment file's (and the report's).

use super::super::tasks::FamilyId;
use cantus_framework::SplitMix;
use serde::Serialize;
use std::collections::BTreeMap;

/// An estimate and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Interval {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// `12.5% [8.0, 17.1]`.
    pub fn percent(&self) -> String {
        format!(
            "{:.1}% [{:.1}, {:.1}]",
            100.0 * self.estimate,
            100.0 * self.low,
            100.0 * self.high
        )
    }

    /// `0.123 [0.101, 0.150]`.
    pub fn plain(&self) -> String {
        format!("{:.3} [{:.3}, {:.3}]", self.estimate, self.low, self.high)
    }
}

/// How to resample.
#[derive(Clone, Copy, Debug)]
pub struct Bootstrap {
    pub resamples: u32,
    pub seed: u64,
}

impl Bootstrap {
    /// `stat` over `items` (each with its family) and its clustered interval; `None`
    /// when `stat` is undefined on all of them.
    pub fn interval<T>(
        &self,
        items: &[(&FamilyId, T)],
        stat: impl Fn(&[&T]) -> Option<f64>,
    ) -> Option<Interval> {
        let all: Vec<&T> = items.iter().map(|(_, t)| t).collect();
        let estimate = stat(&all)?;
        let mut families: BTreeMap<&FamilyId, Vec<&T>> = BTreeMap::new();
        for (f, t) in items {
            families.entry(f).or_default().push(t);
        }
        let groups: Vec<Vec<&T>> = families.into_values().collect();
        let mut rng = SplitMix::new(self.seed);
        let mut stats = Vec::with_capacity(self.resamples as usize);
        let mut drawn = Vec::new();
        for _ in 0..self.resamples {
            drawn.clear();
            for _ in 0..groups.len() {
                drawn.extend_from_slice(&groups[rng.below(groups.len())]);
            }
            if let Some(s) = stat(&drawn) {
                stats.push(s);
            }
        }
        if stats.is_empty() {
            return Some(Interval {
                estimate,
                low: estimate,
                high: estimate,
            });
        }
        stats.sort_by(f64::total_cmp);
        let at =
            |q: f64| stats[((q * (stats.len() - 1) as f64).round() as usize).min(stats.len() - 1)];
        Some(Interval {
            estimate,
            low: at(0.025),
            high: at(0.975),
        })
    }
}

/// The mean of `xs`; `None` when empty.
pub fn mean(xs: &[&f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().copied().sum::<f64>() / xs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fam(s: &str) -> FamilyId {
        FamilyId(s.into())
    }

    #[test]
    fn one_family_per_value_has_no_spread_when_all_agree() {
        let (a, b) = (fam("a"), fam("b"));
        let items = [(&a, 1.0), (&b, 1.0)];
        let b = Bootstrap {
            resamples: 200,
            seed: 7,
        };
        let i = b.interval(&items, mean).unwrap();
        assert_eq!((i.estimate, i.low, i.high), (1.0, 1.0, 1.0));
    }

    #[test]
    fn clustering_widens_the_interval_when_families_differ() {
        // Two families of ten: one all 1, one all 0. Resampling families, a draw is
        // (1,1), (1,0), (0,1) or (0,0): the mean is 0, 0.5 or 1; the interval is
        // [0, 1]. Resampling items one by one it would be near [0.3, 0.7].
        let (a, b) = (fam("a"), fam("b"));
        let mut items = Vec::new();
        for _ in 0..10 {
            items.push((&a, 1.0));
            items.push((&b, 0.0));
        }
        let boot = Bootstrap {
            resamples: 1000,
            seed: 7,
        };
        let i = boot.interval(&items, mean).unwrap();
        assert_eq!((i.estimate, i.low, i.high), (0.5, 0.0, 1.0));
    }

    #[test]
    fn the_same_seed_gives_the_same_interval() {
        let fams: Vec<FamilyId> = (0..30).map(|i| fam(&i.to_string())).collect();
        let items: Vec<(&FamilyId, f64)> = fams
            .iter()
            .enumerate()
            .map(|(i, f)| (f, (i % 7) as f64))
            .collect();
        let boot = Bootstrap {
            resamples: 500,
            seed: 3,
        };
        let one = boot.interval(&items, mean).unwrap();
        assert_eq!(one, boot.interval(&items, mean).unwrap());
        assert!(one.low < one.estimate && one.estimate < one.high, "{one:?}");
    }
}
