/** Descriptive statistics and the Mann-Whitney U test (normal approximation) for the timing check. */

/** Linear-interpolation quantile (R type 7, as numpy's default) of an ascending array; q in [0, 1]. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** Median, p90, mean, min, max of a sample. */
export function describe(values) {
  const sorted = [...values].sort((x, y) => x - y);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    mean: sorted.reduce((s, x) => s + x, 0) / sorted.length,
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

/** Complementary error function; fractional error < 1.2e-7 everywhere (Numerical Recipes `erfcc`). */
function erfc(x) {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -z * z -
    1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(poly);
  return x >= 0 ? r : 2 - r;
}

/**
 * Two-sided Mann-Whitney U test of samples `a` and `b`, normal approximation with average ranks
 * for ties, the tie-corrected variance and a continuity correction of 0.5 (as scipy's
 * `mannwhitneyu(a, b, method='asymptotic')`).
 * @returns U of `a` (u), the smaller U (uMin), z (positive when `a` tends to be larger) and p.
 */
export function mannWhitneyU(a, b) {
  const n1 = a.length;
  const n2 = b.length;
  const n = n1 + n2;
  const all = [...a.map((v) => [v, 0]), ...b.map((v) => [v, 1])].sort((x, y) => x[0] - y[0]);
  let rankSumA = 0;
  let ties = 0; // sum of t^3 - t over groups of tied values
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && all[j + 1][0] === all[i][0]) j++;
    const rank = (i + j) / 2 + 1; // average of the 1-based ranks i+1 … j+1
    for (let k = i; k <= j; k++) if (all[k][1] === 0) rankSumA += rank;
    const t = j - i + 1;
    ties += t ** 3 - t;
    i = j + 1;
  }
  const u = rankSumA - (n1 * (n1 + 1)) / 2;
  const mu = (n1 * n2) / 2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - ties / (n * (n - 1))));
  const d = u - mu;
  const z = sigma > 0 ? (Math.sign(d) * Math.max(0, Math.abs(d) - 0.5)) / sigma : 0;
  return { u, uMin: Math.min(u, n1 * n2 - u), z, p: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}
