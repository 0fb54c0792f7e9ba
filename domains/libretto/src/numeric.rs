//! Float arithmetic that reproduces the original's numbers bit for bit.
//!
//! Libretto is Python with numpy. Matching its axes to 1e-9 relative (and its
//! percentiles exactly) needs the same rounding and summation rules: Python's
//! `round(x, 4)` (correctly rounded, ties to even), Python's float `%` (result
//! takes the divisor's sign), Python's `sum` (left to right) and numpy's pairwise
//! summation inside `mean` and `std`. Each helper here names the rule it copies.

/// Python's `round(x, 4)` for a float: the exact binary value rounded to four
/// decimals, ties to even, read back as the nearest float.
pub fn round4(x: f64) -> f64 {
    round_decimals(x, 4)
}

/// Python's `round(x, digits)` for `digits` in 0..=6.
pub fn round_decimals(x: f64, digits: u32) -> f64 {
    let scale = 10i128.pow(digits.min(6));
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exp_bits = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mantissa, exp) = if exp_bits == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp_bits - 1075)
    };
    if exp >= 0 {
        return x; // an integer already
    }
    let shift = -exp;
    if shift > 110 {
        // |x| < 2^-57: far below half of 1e-4.
        return if negative { -0.0 } else { 0.0 };
    }
    let scaled = i128::from(mantissa) * scale;
    let q = scaled >> shift;
    let rem = scaled - (q << shift);
    let half = 1i128 << (shift - 1);
    let q = if rem > half || (rem == half && q % 2 == 1) {
        q + 1
    } else {
        q
    };
    // q < 2^53 for every |x| below 9e9, so this is exact, and the division is
    // correctly rounded like Python's string-to-float step.
    let r = q as f64 / scale as f64;
    if negative { -r } else { r }
}

/// Python's float `%`: the remainder takes the sign of the divisor.
pub fn py_mod(x: f64, y: f64) -> f64 {
    let mut r = x % y;
    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
        r += y;
    }
    if r == 0.0 { 0.0f64.copysign(y) } else { r }
}

/// Python's built-in `round(x)` to an integer: ties to even.
pub fn py_round(x: f64) -> i64 {
    x.round_ties_even() as i64
}

/// Python's `sum` over floats: left to right from zero.
pub fn py_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    xs.into_iter().fold(0.0, |acc, x| acc + x)
}

/// numpy's pairwise summation (`np.add.reduce` on a contiguous float64 array).
pub fn np_sum(xs: &[f64]) -> f64 {
    let mut rest = xs;
    np_sum_stream(xs.len(), &mut |block: &mut [f64]| {
        let (head, tail) = rest.split_at(block.len().min(rest.len()));
        block[..head.len()].copy_from_slice(head);
        rest = tail;
    })
}

/// numpy's summation block: at most this many values are added by the unrolled loop.
const NP_BLOCK: usize = 128;

/// numpy's pairwise summation of `n` values that `fill` writes in order, a block
/// of at most 128 at a time, without holding them all: the same blocks, the same
/// eight accumulators and the same split points as [`np_sum`], so the same float
/// comes out. `fill` is asked for exactly `n` values in all, and the sum keeps
/// O(log n) partial results.
pub fn np_sum_stream(n: usize, fill: &mut impl FnMut(&mut [f64])) -> f64 {
    if n <= NP_BLOCK {
        let mut buf = [0.0f64; NP_BLOCK];
        let xs = &mut buf[..n];
        fill(xs);
        return np_sum_block(xs);
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    let left = np_sum_stream(n2, fill);
    left + np_sum_stream(n - n2, fill)
}

/// numpy's sum of one block of at most 128 values.
fn np_sum_block(xs: &[f64]) -> f64 {
    let n = xs.len();
    if n < 8 {
        // numpy starts this short loop from -0.0 and adds in order.
        return xs.iter().fold(-0.0, |acc, &x| acc + x);
    }
    let mut r = [0.0f64; 8];
    r.copy_from_slice(&xs[..8]);
    let whole = n - n % 8;
    for chunk in xs[8..whole].chunks_exact(8) {
        for (acc, &x) in r.iter_mut().zip(chunk) {
            *acc += x;
        }
    }
    let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for &x in &xs[whole..] {
        res += x;
    }
    res
}

/// numpy's `arr.mean()` for a float64 array (NaN for an empty one).
pub fn np_mean(xs: &[f64]) -> f64 {
    np_sum(xs) / xs.len() as f64
}

/// numpy's `arr.std()`: the population standard deviation, computed as numpy does
/// (mean by pairwise sum, then the pairwise sum of squared deviations).
pub fn np_std(xs: &[f64]) -> f64 {
    let mean = np_mean(xs);
    let sq: Vec<f64> = xs.iter().map(|&x| (x - mean) * (x - mean)).collect();
    (np_sum(&sq) / xs.len() as f64).sqrt()
}

/// Libretto's entropy: Shannon entropy in bits of the counts, divided by
/// `log2` of the number of non-zero bins; 0 with one bin or fewer.
pub fn entropy(counts: &[f64]) -> f64 {
    let total = py_sum(counts.iter().copied());
    if total <= 0.0 {
        return 0.0;
    }
    let ps: Vec<f64> = counts
        .iter()
        .filter(|&&c| c > 0.0)
        .map(|&c| c / total)
        .collect();
    if ps.len() <= 1 {
        return 0.0;
    }
    let h = -py_sum(ps.iter().map(|&p| p * p.log2()));
    h / (ps.len() as f64).log2()
}

/// A first-seen-order counter (Python's `Counter`/`dict` iteration order), so
/// sums over its values add in the order the original adds them. Keys are found
/// by a linear scan while there are few (positions, intervals, root motions) and
/// by a hash index past that.
#[derive(Clone, Debug, Default)]
pub struct OrderedCounts<K: Eq + std::hash::Hash + Copy> {
    index: Option<std::collections::HashMap<K, usize>>,
    /// Keys and their accumulated values, in first-seen order.
    pub entries: Vec<(K, f64)>,
}

/// Distinct keys kept without a hash index.
const LINEAR_KEYS: usize = 32;

impl<K: Eq + std::hash::Hash + Copy> OrderedCounts<K> {
    /// An empty counter.
    pub fn new() -> Self {
        OrderedCounts {
            index: None,
            entries: Vec::new(),
        }
    }

    fn position(&self, key: K) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(&key).copied(),
            None => self.entries.iter().position(|e| e.0 == key),
        }
    }

    /// Adds `amount` to `key` (inserting it at the end when new).
    pub fn add(&mut self, key: K, amount: f64) {
        if let Some(i) = self.position(key) {
            self.entries[i].1 += amount;
            return;
        }
        self.entries.push((key, amount));
        if let Some(index) = &mut self.index {
            index.insert(key, self.entries.len() - 1);
        } else if self.entries.len() > LINEAR_KEYS {
            self.index = Some(
                self.entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.0, i))
                    .collect(),
            );
        }
    }

    /// The value of `key`, 0 when absent.
    pub fn get(&self, key: K) -> f64 {
        self.position(key).map_or(0.0, |i| self.entries[i].1)
    }

    /// The values in first-seen order.
    pub fn values(&self) -> Vec<f64> {
        self.entries.iter().map(|e| e.1).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round4_matches_python() {
        // Python: round(0.03125, 4) == 0.0312 (an exact tie goes to even);
        // round(0.33333333, 4) == 0.3333; round(2.675, 4) == 2.675.
        assert_eq!(round4(0.03125), 0.0312);
        assert_eq!(round4(0.09375), 0.0938);
        assert_eq!(round4(1.0 / 3.0), 0.3333);
        assert_eq!(round4(4.0 + 1.0 / 3.0), 4.3333);
        assert_eq!(round4(2.675), 2.675);
        assert_eq!(round4(-4.0), -4.0);
        assert_eq!(round4(-1.0 / 3.0), -0.3333);
    }

    #[test]
    fn python_modulo_takes_the_divisor_sign() {
        // Python: -1.0 % 4.0 == 3.0; 4.3333 % 4.0 == 0.3333000000000004.
        assert_eq!(py_mod(-1.0, 4.0), 3.0);
        assert_eq!(py_mod(4.3333, 4.0), 0.3333000000000004);
        assert_eq!(py_mod(8.0, 4.0), 0.0);
    }

    #[test]
    fn pairwise_sum_matches_numpy() {
        // numpy: np.array([0.1]*10).sum() == 1.0 (pairwise), whereas a left-to-right
        // sum gives 0.9999999999999999.
        let xs = [0.1; 10];
        assert_eq!(np_sum(&xs), 1.0);
        assert_eq!(py_sum(xs), 0.9999999999999999);
        // np.std([1, 2, 3, 4]) == 1.118033988749895
        assert_eq!(np_std(&[1.0, 2.0, 3.0, 4.0]), 1.118033988749895);
    }

    /// numpy's `pairwise_sum` over a contiguous slice, written out directly (the
    /// form this crate used before the sum was streamed): the stream must equal it.
    fn numpy_slice_sum(xs: &[f64]) -> f64 {
        let n = xs.len();
        if n < 8 {
            return xs.iter().fold(-0.0, |acc, &x| acc + x);
        }
        if n <= 128 {
            let mut r = [0.0f64; 8];
            r.copy_from_slice(&xs[..8]);
            let mut i = 8;
            while i < n - (n % 8) {
                for (k, acc) in r.iter_mut().enumerate() {
                    *acc += xs[i + k];
                }
                i += 8;
            }
            let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            for &x in &xs[i..] {
                res += x;
            }
            return res;
        }
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        numpy_slice_sum(&xs[..n2]) + numpy_slice_sum(&xs[n2..])
    }

    #[test]
    fn the_streamed_pairwise_sum_is_numpys_bit_for_bit() {
        // Lengths around every branch: the short loop, one block, the tail of a
        // block, and the recursive splits.
        for n in [0, 1, 7, 8, 9, 15, 16, 127, 128, 129, 1000, 4099, 100_003] {
            let xs: Vec<f64> = (0..n)
                .map(|i| 1.0 / (1.0 + (i % 37) as f64) + 1e-3 * i as f64)
                .collect();
            let mut it = xs.iter().copied();
            let mut asked = 0;
            let streamed = np_sum_stream(n, &mut |block: &mut [f64]| {
                asked += block.len();
                for x in block.iter_mut() {
                    *x = it.next().unwrap_or(f64::NAN);
                }
            });
            assert_eq!(asked, n);
            assert_eq!(
                streamed.to_bits(),
                numpy_slice_sum(&xs).to_bits(),
                "n = {n}"
            );
            assert_eq!(np_sum(&xs).to_bits(), streamed.to_bits(), "n = {n}");
        }
    }

    #[test]
    fn ordered_counts_keep_first_seen_order_past_the_linear_limit() {
        let mut c = OrderedCounts::new();
        for k in (0..100).rev() {
            c.add(k, 1.0);
        }
        c.add(42, 2.0);
        assert_eq!(c.entries.len(), 100);
        assert_eq!(c.entries[0].0, 99);
        assert_eq!(c.get(42), 3.0);
        assert_eq!(c.get(1000), 0.0);
    }

    #[test]
    fn entropy_is_normalised_by_observed_bins() {
        // Two equal bins: 1 bit / log2(2) = 1. One bin: 0. Counts 1,3: H = 0.811278… / 1.
        assert_eq!(entropy(&[5.0, 5.0]), 1.0);
        assert_eq!(entropy(&[7.0]), 0.0);
        assert_eq!(entropy(&[0.0, 7.0]), 0.0);
        assert!((entropy(&[1.0, 3.0]) - 0.8112781244591328).abs() < 1e-15);
    }
}
