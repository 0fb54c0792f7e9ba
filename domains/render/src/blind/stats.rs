//! The statistics of a blind study: Fleiss' κ and percentile bootstrap intervals.

/// Fleiss' κ for `counts[i][j]` = raters who put subject `i` in category `j`.
/// Every subject must have the same number `n ≥ 2` of ratings; `None` otherwise,
/// or with no subject, or when every rating falls in one category (κ undefined).
///
/// κ = (P̄ − P̄ₑ) / (1 − P̄ₑ), with Pᵢ = (Σⱼ nᵢⱼ² − n) / (n(n − 1)), P̄ their
/// mean, pⱼ = Σᵢ nᵢⱼ / (N n) and P̄ₑ = Σⱼ pⱼ².
pub fn fleiss_kappa(counts: &[Vec<u32>]) -> Option<f64> {
    let n = counts.first()?.iter().sum::<u32>();
    if n < 2 || counts.iter().any(|row| row.iter().sum::<u32>() != n) {
        return None;
    }
    let k = counts[0].len();
    let subjects = counts.len() as f64;
    let n = f64::from(n);
    let mut totals = vec![0f64; k];
    let mut p_bar = 0.0;
    for row in counts {
        let squares: f64 = row.iter().map(|&c| f64::from(c) * f64::from(c)).sum();
        p_bar += (squares - n) / (n * (n - 1.0));
        for (t, &c) in totals.iter_mut().zip(row) {
            *t += f64::from(c);
        }
    }
    p_bar /= subjects;
    let p_e: f64 = totals.iter().map(|t| (t / (subjects * n)).powi(2)).sum();
    if (1.0 - p_e).abs() < 1e-12 {
        return None;
    }
    Some((p_bar - p_e) / (1.0 - p_e))
}

/// A percentile bootstrap interval of a statistic over clusters: `clusters` are
/// resampled with replacement `resamples` times (seeded), `statistic` computed on
/// each resample, and the `(1 − level)/2` and `(1 + level)/2` quantiles returned
/// (nearest rank). `None` without clusters.
pub fn bootstrap_interval<T>(
    clusters: &[T],
    statistic: impl Fn(&[&T]) -> f64,
    resamples: usize,
    level: f64,
    seed: u64,
) -> Option<(f64, f64)> {
    if clusters.is_empty() || resamples == 0 {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut values: Vec<f64> = (0..resamples)
        .map(|_| {
            let sample: Vec<&T> = (0..clusters.len())
                .map(|_| &clusters[rng.usize(..clusters.len())])
                .collect();
            statistic(&sample)
        })
        .filter(|v| v.is_finite())
        .collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        let r = (q * values.len() as f64).ceil() as usize;
        values[r.clamp(1, values.len()) - 1]
    };
    Some((rank((1.0 - level) / 2.0), rank((1.0 + level) / 2.0)))
}
