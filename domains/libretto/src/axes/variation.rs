//! Within-song variation: how much the 24 local axes drift across windows of the
//! piece, in units of each axis's corpus standard deviation.

use super::{AXIS_COUNT, Axis, RawAxes, base_axes};
use crate::numeric::np_mean;
use crate::song::Layout;

/// Most windows a piece is cut into.
const WINDOWS: usize = 6;

/// The variation axis; 0 where the original stores 0 (fewer than 4 bar blocks,
/// no header, or a window without notes).
pub(super) fn within_song_variation(layout: &Layout, sd: &RawAxes) -> f64 {
    let n = layout.blocks.len();
    let w = (n / 6).clamp(2, WINDOWS);
    if n < 4 || !layout.has_head {
        return 0.0;
    }
    let per = n / w;
    let local: Vec<Axis> = Axis::ALL.into_iter().filter(|a| a.is_local()).collect();
    let mut rows: Vec<RawAxes> = Vec::with_capacity(w);
    for k in 0..w {
        let lo = k * per;
        let hi = if k + 1 < w { (k + 1) * per } else { n };
        let song = layout.window(lo, hi);
        match base_axes(&song, false) {
            Some(row) => rows.push(row),
            None => return 0.0, // the original's exception path
        }
    }
    let windows = rows.len() as f64;
    let ratios: Vec<f64> = local
        .iter()
        .map(|a| {
            let i = a.index();
            // numpy reduces a (W, 24) array along axis 0 row by row.
            let mean = rows.iter().fold(0.0, |acc, r| acc + r[i]) / windows;
            let var = rows
                .iter()
                .fold(0.0, |acc, r| acc + (r[i] - mean) * (r[i] - mean))
                / windows;
            let unit = if sd[i] != 0.0 { sd[i] } else { 1e-9 };
            var.sqrt() / unit
        })
        .collect();
    debug_assert_eq!(ratios.len() + 5, AXIS_COUNT);
    np_mean(&ratios)
}
