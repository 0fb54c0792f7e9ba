//! Fleiss' κ and the bootstrap intervals against hand-worked examples.

use cantus_render::blind::stats::{bootstrap_interval, fleiss_kappa};

#[test]
fn fleiss_kappa_of_the_textbook_example() {
    // Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories.
    // p_j = .143 .200 .279 .171 .229, P̄ = .3048, P̄e = .2128, κ = .2099.
    let counts = vec![
        vec![0, 0, 0, 0, 14],
        vec![0, 2, 6, 4, 2],
        vec![0, 0, 3, 5, 6],
        vec![0, 3, 9, 2, 0],
        vec![2, 2, 8, 1, 1],
        vec![7, 7, 0, 0, 0],
        vec![3, 2, 6, 3, 0],
        vec![2, 5, 3, 2, 2],
        vec![6, 5, 2, 1, 0],
        vec![0, 2, 2, 3, 7],
    ];
    let kappa = fleiss_kappa(&counts).expect("defined");
    assert!((kappa - 0.20993).abs() < 5e-5, "{kappa}");
}

#[test]
fn fleiss_kappa_worked_by_hand_on_three_raters() {
    // 4 pairs × 3 raters, categories (harness, raw, none):
    //   [3,0,0] P=1, [0,3,0] P=1, [1,1,1] P=0, [2,1,0] P=(4+1-3)/6=1/3.
    //   P̄ = (1+1+0+1/3)/4 = 7/12. p = (6/12, 5/12, 1/12): P̄e = (36+25+1)/144 = 62/144.
    //   κ = (7/12 − 62/144) / (1 − 62/144) = (84−62)/(144−62) = 22/82.
    let counts = vec![vec![3, 0, 0], vec![0, 3, 0], vec![1, 1, 1], vec![2, 1, 0]];
    let kappa = fleiss_kappa(&counts).expect("defined");
    assert!((kappa - 22.0 / 82.0).abs() < 1e-12, "{kappa}");
    // Perfect agreement on varied subjects is 1; one category only is undefined.
    assert_eq!(fleiss_kappa(&[vec![2, 0], vec![0, 2]]), Some(1.0));
    assert_eq!(fleiss_kappa(&[vec![2, 0], vec![2, 0]]), None);
    assert_eq!(
        fleiss_kappa(&[vec![2, 0], vec![1, 0]]),
        None,
        "unequal rater counts"
    );
}

fn rate(sample: &[&bool]) -> f64 {
    sample.iter().filter(|&&&x| x).count() as f64 / sample.len() as f64
}

#[test]
fn bootstrap_intervals_match_worked_cases() {
    // Every answer the same: the interval is that single value.
    let all = vec![true; 10];
    assert_eq!(
        bootstrap_interval(&all, rate, 500, 0.95, 1),
        Some((1.0, 1.0))
    );
    // Two pairs, one each way: resampled rates are 0, 1/2, 1 with chances 1/4,
    // 1/2, 1/4, so the 2.5% and 97.5% quantiles are 0 and 1.
    let two = vec![true, false];
    assert_eq!(
        bootstrap_interval(&two, rate, 4000, 0.95, 2),
        Some((0.0, 1.0))
    );
    // ... and the 50% interval (25% and 75% quantiles) is exactly [0, 1]'s inner
    // point 1/2 on both sides only when the 25% quantile falls in the middle mass.
    let (lo, hi) = bootstrap_interval(&two, rate, 4000, 0.40, 3).expect("some");
    assert_eq!((lo, hi), (0.5, 0.5));
    // 100 pairs, 30 preferring: the normal approximation gives 0.30 ± 1.96·√(.3·.7/100)
    // = [0.210, 0.390]; the bootstrap agrees to within a resampling error.
    let many: Vec<bool> = (0..100).map(|i| i < 30).collect();
    let (lo, hi) = bootstrap_interval(&many, rate, 4000, 0.95, 4).expect("some");
    assert!(
        (lo - 0.210).abs() < 0.025 && (hi - 0.390).abs() < 0.025,
        "[{lo}, {hi}]"
    );
}
