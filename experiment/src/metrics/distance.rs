//! Corpus distance: how far the pieces' pitch-class (or interval-class) distributions
//! lie from a reference set of scores people wrote.
//!
//! * **KL** — `KL(P ‖ Q)` in nats, `P` the pooled distribution of the pieces, `Q` the
//!   pooled reference distribution, both smoothed by adding [`SMOOTHING`] to every
//!   bin before renormalising (so an empty reference bin is not infinite).
//! * **MMD** — the maximum mean discrepancy between the pieces' and the references'
//!   per-piece distributions (vectors summing to 1), with the Gaussian kernel
//!   `k(x, y) = exp(−‖x − y‖² / (2σ²))`, σ from the experiment file (default 0.25);
//!   the biased (V-statistic) estimate of MMD², square-rooted, which is defined for a
//!   single reference piece and never negative.

/// Added to every bin before KL.
pub const SMOOTHING: f64 = 1e-3;

/// The pooled (mean) distribution of `dists`; `None` if there are none.
pub fn pooled(dists: &[&[f64]]) -> Option<Vec<f64>> {
    let first = dists.first()?;
    let mut sum = vec![0.0; first.len()];
    for d in dists {
        for (s, x) in sum.iter_mut().zip(d.iter()) {
            *s += x;
        }
    }
    let n = dists.len() as f64;
    Some(sum.into_iter().map(|s| s / n).collect())
}

fn smoothed(p: &[f64]) -> Vec<f64> {
    let total: f64 = p.iter().map(|x| x + SMOOTHING).sum();
    p.iter().map(|x| (x + SMOOTHING) / total).collect()
}

/// `KL(p ‖ q)` in nats, both smoothed.
pub fn kl(p: &[f64], q: &[f64]) -> f64 {
    let (p, q) = (smoothed(p), smoothed(q));
    p.iter().zip(&q).map(|(a, b)| a * (a / b).ln()).sum()
}

fn kernel(x: &[f64], y: &[f64], sigma: f64) -> f64 {
    let d2: f64 = x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum();
    (-d2 / (2.0 * sigma * sigma)).exp()
}

/// The MMD between the sets `xs` and `ys` (biased estimate, square-rooted); `None`
/// when either is empty.
pub fn mmd(xs: &[&[f64]], ys: &[&[f64]], sigma: f64) -> Option<f64> {
    if xs.is_empty() || ys.is_empty() {
        return None;
    }
    let mean = |a: &[&[f64]], b: &[&[f64]]| {
        let mut s = 0.0;
        for x in a {
            for y in b {
                s += kernel(x, y, sigma);
            }
        }
        s / (a.len() * b.len()) as f64
    };
    let m2 = mean(xs, xs) + mean(ys, ys) - 2.0 * mean(xs, ys);
    Some(m2.max(0.0).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kl_of_a_distribution_with_itself_is_zero_and_of_crafted_ones_is_known() {
        let u = [0.25; 4];
        assert!(kl(&u, &u).abs() < 1e-12);
        // p = (1/2, 1/2), q = (1/4, 3/4): KL = 1/2 ln 2 + 1/2 ln(2/3) ≈ 0.1438 (nats);
        // the smoothing moves it by less than 0.001.
        let k = kl(&[0.5, 0.5], &[0.25, 0.75]);
        let exact = 0.5 * 2f64.ln() + 0.5 * (2.0f64 / 3.0).ln();
        assert!((k - exact).abs() < 1e-3, "{k} vs {exact}");
        assert!(kl(&[1.0, 0.0], &[0.0, 1.0]).is_finite());
    }

    #[test]
    fn mmd_is_zero_for_equal_sets_and_known_for_two_points() {
        let a: &[f64] = &[1.0, 0.0];
        let b: &[f64] = &[0.0, 1.0];
        assert_eq!(mmd(&[a], &[a], 0.25), Some(0.0));
        // One point each: MMD² = 2 − 2 k(a, b), ‖a − b‖² = 2, σ = 1 → k = e^−1.
        let m = mmd(&[a], &[b], 1.0).unwrap();
        let exact = (2.0 - 2.0 * (-1.0f64).exp()).sqrt();
        assert!((m - exact).abs() < 1e-12);
        assert_eq!(mmd(&[], &[a], 1.0), None);
    }

    #[test]
    fn pooling_averages_the_pieces() {
        assert_eq!(pooled(&[&[1.0, 0.0], &[0.0, 1.0]]), Some(vec![0.5, 0.5]));
    }
}
