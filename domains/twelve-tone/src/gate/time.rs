//! Exact integer time for the gate.
//!
//! Comparing `Ratio<i64>` values costs divisions, and adding them costs gcds; the
//! gate compares millions of onsets and ends. So it first finds one grid on which
//! every time of the artefact (onsets, durations, the bar, the plan's section
//! boundaries) is a whole number of ticks — the least common multiple of their
//! denominators — and then works in `i64` ticks. This is exact: a tick count is the
//! rational time times that common denominator, nothing is rounded. If no such grid
//! fits (denominators whose lcm passes 2^58, or times too far from 0), the gate says
//! so (`TT-TIME`) instead of guessing.

use cantus_music::Time;

/// Largest magnitude of a tick count or of ticks per quarter note: ends (onset +
/// duration) then stay within 2^59 and overlap lengths below 2^60, so eight of
/// them add up without overflowing an `i64`.
pub(crate) const TICK_LIMIT: i128 = 1 << 58;

/// Ticks per quarter note for one judgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Grid {
    pub per_quarter: i64,
}

/// Why the artefact's times cannot be placed on one grid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum GridProblem {
    /// A time with denominator 0 (only reachable by building a `Ratio` raw).
    ZeroDenominator(Time),
    /// The common denominator exceeds [`TICK_LIMIT`].
    TooFine(Time),
    /// A time whose tick count exceeds [`TICK_LIMIT`].
    TooFar(Time),
}

impl GridProblem {
    /// What went wrong, for a `TT-TIME` reason.
    pub fn describe(&self) -> String {
        match self {
            GridProblem::ZeroDenominator(t) => format!(
                "the time {}/{} has denominator 0; every time must be a fraction of quarter notes",
                t.numer(),
                t.denom()
            ),
            GridProblem::TooFine(t) => format!(
                "the time {}/{} needs a grid finer than 2^58 ticks per quarter note together with the other times; \
                 the gate cannot place the events exactly",
                t.numer(),
                t.denom()
            ),
            GridProblem::TooFar(t) => format!(
                "the time {}/{} lies too far from the start to be placed exactly (more than 2^58 ticks)",
                t.numer(),
                t.denom()
            ),
        }
    }
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

/// A time as numerator and positive denominator, widened.
fn parts(t: Time) -> Result<(i128, i128), GridProblem> {
    let (n, d) = (i128::from(*t.numer()), i128::from(*t.denom()));
    match d {
        0 => Err(GridProblem::ZeroDenominator(t)),
        d if d < 0 => Ok((-n, -d)),
        d => Ok((n, d)),
    }
}

/// Denominators below this are cached in bit sets and tables (the common case:
/// 1, 2, 3, 4, 6, 8, 12, 16, …).
const SMALL: i64 = 64;

/// Accumulates the least common multiple of denominators.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridBuilder {
    lcm: i128,
    /// Bit `d`: the small denominator `d` is already folded in.
    seen: u64,
}

impl Default for GridBuilder {
    fn default() -> Self {
        GridBuilder { lcm: 1, seen: 0 }
    }
}

impl GridBuilder {
    /// Takes `t`'s denominator into account.
    #[inline]
    pub fn add(&mut self, t: Time) -> Result<(), GridProblem> {
        let d = *t.denom();
        if (1..SMALL).contains(&d) && self.seen & 1 << d != 0 {
            return Ok(());
        }
        self.fold(t)
    }

    #[cold]
    fn fold(&mut self, t: Time) -> Result<(), GridProblem> {
        let (_, d) = parts(t)?;
        if self.lcm % d != 0 {
            self.lcm = self.lcm / gcd(self.lcm, d) * d;
            if self.lcm > TICK_LIMIT {
                return Err(GridProblem::TooFine(t));
            }
        }
        if let Ok(small) = u32::try_from(*t.denom())
            && i64::from(small) < SMALL
        {
            self.seen |= 1 << small;
        }
        Ok(())
    }

    /// The grid holding every time added.
    pub fn finish(self) -> Grid {
        Grid {
            per_quarter: i64::try_from(self.lcm).unwrap_or(i64::MAX),
        }
    }
}

/// Converts times to ticks on a grid, with the scale of each small denominator
/// cached.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ticker {
    per_quarter: i64,
    /// `scale[d]` = ticks per `1/d` quarter note (0: not computed yet).
    scale: [i64; SMALL as usize],
}

impl Ticker {
    pub fn new(grid: Grid) -> Ticker {
        Ticker {
            per_quarter: grid.per_quarter,
            scale: [0; SMALL as usize],
        }
    }

    /// Ticks per quarter note.
    pub fn per_quarter(&self) -> i64 {
        self.per_quarter
    }

    /// `t` in ticks. Fails if `t` is not on the grid's denominators or too far out.
    #[inline]
    pub fn ticks(&mut self, t: Time) -> Result<i64, GridProblem> {
        let d = *t.denom();
        let cached = usize::try_from(d)
            .ok()
            .and_then(|i| self.scale.get(i).copied())
            .unwrap_or(0);
        let scale = if cached != 0 {
            cached
        } else {
            self.scale_of(t)?
        };
        match t.numer().checked_mul(scale) {
            Some(ticks) if i128::from(ticks).abs() <= TICK_LIMIT => Ok(ticks),
            _ => Err(GridProblem::TooFar(t)),
        }
    }

    /// The (signed) scale of `t`'s denominator, cached when small.
    #[cold]
    fn scale_of(&mut self, t: Time) -> Result<i64, GridProblem> {
        let (_, d) = parts(t)?;
        let per_quarter = i128::from(self.per_quarter);
        if per_quarter % d != 0 {
            return Err(GridProblem::TooFine(t));
        }
        let magnitude = i64::try_from(per_quarter / d).map_err(|_| GridProblem::TooFine(t))?;
        let scale = if *t.denom() < 0 {
            -magnitude
        } else {
            magnitude
        };
        if let Ok(i) = usize::try_from(*t.denom())
            && let Some(slot) = self.scale.get_mut(i)
        {
            *slot = scale;
        }
        Ok(scale)
    }
}

/// Exact comparison of two times (no overflow: the cross products fit in i128).
pub(crate) fn cmp_time(a: Time, b: Time) -> std::cmp::Ordering {
    let norm = |t: Time| {
        let (n, d) = (i128::from(*t.numer()), i128::from(*t.denom()));
        if d < 0 { (-n, -d) } else { (n, d) }
    };
    let ((an, ad), (bn, bd)) = (norm(a), norm(b));
    (an * bd).cmp(&(bn * ad))
}

/// `ticks` as exact quarter notes.
pub(crate) fn to_time(ticks: i128, per_quarter: i64) -> Time {
    let g = gcd(ticks, i128::from(per_quarter)).max(1);
    let (n, d) = (ticks / g, i128::from(per_quarter) / g);
    match (i64::try_from(n), i64::try_from(d)) {
        (Ok(n), Ok(d)) if d != 0 => Time::new_raw(n, d),
        _ => Time::from_integer(0),
    }
}

/// `ticks` as quarter-note text, `"3/2"` or `"4"`, exact for any i128.
pub(crate) fn ticks_text(ticks: i128, per_quarter: i64) -> String {
    ratio_text(ticks, i128::from(per_quarter))
}

/// `n / d` in lowest terms as `"3/2"` or `"4"` (`d > 0`).
pub(crate) fn ratio_text(n: i128, d: i128) -> String {
    let g = gcd(n, d).max(1);
    let (n, d) = (n / g, d / g);
    if d == 1 {
        n.to_string()
    } else {
        format!("{n}/{d}")
    }
}

/// The 1-based bar holding `onset`, computed without overflow (bars before the
/// first count as bar 1).
pub(crate) fn bar_of(onset: Time, bar: Time) -> u32 {
    let (Ok((n, d)), Ok((bn, bd))) = (parts(onset), parts(bar)) else {
        return 1;
    };
    if bn <= 0 {
        return 1;
    }
    // floor((n/d) / (bn/bd)) = floor(n*bd / (d*bn))
    let index = (n * bd).div_euclid(d * bn);
    u32::try_from(index.saturating_add(1))
        .map_or(if index < 0 { 1 } else { u32::MAX }, |b| b.max(1))
}

/// Whether `a / b > p / q` for `a, b ≥ 0`, `b > 0`, `q > 0`, exactly, without overflow
/// (continued-fraction comparison).
pub(crate) fn share_exceeds(a: i128, b: i128, p: i128, q: i128) -> bool {
    if b <= 0 || q <= 0 {
        return false;
    }
    if p < 0 {
        return a >= 0;
    }
    let (mut a, mut b, mut p, mut q) = (a as u128, b as u128, p as u128, q as u128);
    // While `flipped`, the fractions compared are reciprocals of the original
    // remainders, so the original answer is "current left < current right".
    let mut flipped = false;
    loop {
        let (ia, ip) = (a / b, p / q);
        if ia != ip {
            return (ia > ip) != flipped;
        }
        let (ra, rp) = (a % b, p % q);
        match (ra == 0, rp == 0) {
            (true, true) => return false,
            (true, false) => return flipped,
            (false, true) => return !flipped,
            (false, false) => {
                // ra/b > rp/q  ⇔  b/ra < q/rp
                (a, b, p, q) = (b, ra, q, rp);
                flipped = !flipped;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cantus_music::time;

    #[test]
    fn grid_places_mixed_denominators_exactly() {
        let mut g = GridBuilder::default();
        for t in [time(1, 3), time(3, 4), time(5, 6), time(7, 1)] {
            g.add(t).unwrap();
        }
        let grid = g.finish();
        assert_eq!(grid.per_quarter, 12);
        let mut tick = Ticker::new(grid);
        assert_eq!(tick.ticks(time(1, 3)).unwrap(), 4);
        assert_eq!(tick.ticks(time(3, 4)).unwrap(), 9);
        assert_eq!(tick.ticks(Time::new_raw(1, -3)).unwrap(), -4);
        assert_eq!(to_time(9, 12), time(3, 4));
        assert_eq!(ticks_text(18, 12), "3/2");
        assert!(matches!(
            tick.ticks(time(1, 5)),
            Err(GridProblem::TooFine(_))
        ));
    }

    #[test]
    fn grids_too_fine_or_too_far_are_refused() {
        let mut g = GridBuilder::default();
        let primes = [1_000_003i64, 1_000_033, 1_000_037, 1_000_039];
        let err = primes
            .iter()
            .map(|&p| g.add(time(1, p)))
            .find_map(Result::err);
        assert!(matches!(err, Some(GridProblem::TooFine(_))));
        let mut tick = Ticker::new(Grid {
            per_quarter: 1 << 40,
        });
        assert!(matches!(
            tick.ticks(time(1 << 30, 1)),
            Err(GridProblem::TooFar(_))
        ));
    }

    #[test]
    fn bars_and_shares_are_exact() {
        assert_eq!(bar_of(time(0, 1), time(4, 1)), 1);
        assert_eq!(bar_of(time(4, 1), time(4, 1)), 2);
        assert_eq!(bar_of(time(11, 3), time(3, 1)), 2);
        assert_eq!(bar_of(time(-1, 1), time(3, 1)), 1);
        assert!(share_exceeds(11, 100, 1, 10));
        assert!(!share_exceeds(10, 100, 1, 10));
        assert!(!share_exceeds(9, 100, 1, 10));
        assert!(share_exceeds(1 << 120, (1 << 120) + 1, 999_999, 1_000_000));
        assert!(!share_exceeds(0, 5, 0, 1));
        assert!(share_exceeds(1, 3, 1, 4));
        assert!(!share_exceeds(1, 4, 1, 3));
        assert!(!share_exceeds(2, 6, 1, 3));
    }
}
