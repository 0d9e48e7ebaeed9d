"""The statistics every layer shares: means and standard errors, intervals (normal, Wilson,
Student's t), the ratio and weighted-mean estimators.

>>> mean, se = spread([1.0, 2.0, 3.0])
>>> mean, round(se, 4)
(2.0, 0.6515)
"""
from __future__ import annotations

import math
from functools import lru_cache

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def json_number(x, places: int = 6):
    """A figure for JSON: rounded to `places`; None, infinity (one sample) and NaN as null."""
    return None if x is None or math.isinf(x) or math.isnan(x) else round(x, places)


def replicates_stderr(variance: float, n: int) -> float:
    """The standard error of the mean of n >= 2 replicates of sample variance `variance`,
    unbiased for normal replicates (s / sqrt(n) / c4(n))."""
    return math.sqrt(variance / n) / c4(n)


def spread(xs) -> tuple:
    """(mean, `replicates_stderr`) of independent replicates xs (inf with one)."""
    n, mean = len(xs), math.fsum(xs) / len(xs)
    if n < 2:
        return mean, math.inf
    return mean, replicates_stderr(_variance(xs, mean), n)


def c4(n: int) -> float:
    """E[s] / sigma for the sample standard deviation s of n normal draws."""
    return math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2)) * math.sqrt(2 / (n - 1))


def sample_variance(n, s, sq) -> float:
    """The sample variance of n >= 2 values from their sum `s` and sum of squares `sq`."""
    mean = s / n
    return max(sq / n - mean * mean, 0.0) * n / (n - 1)


def mean_stderr(n, s, sq) -> tuple:
    """(mean, standard error) of n samples from their sum `s` and sum of squares `sq`."""
    if n <= 0:
        return 0.0, float("inf")
    mean = s / n
    if n < 2:
        return mean, float("inf")
    return mean, math.sqrt(sample_variance(n, s, sq) / n)


def _variance(xs, mean: float) -> float:
    return math.fsum((x - mean) ** 2 for x in xs) / (len(xs) - 1)


def sample_sd(values) -> float | None:
    """The sample standard deviation; None below two values."""
    if len(values) < 2:
        return None
    return math.sqrt(_variance(values, math.fsum(values) / len(values)))


def ratio_stderr(numerators, denominators) -> float | None:
    """The delta-method standard error of sum(x) / sum(y) over independent units (or None)."""
    n = len(numerators)
    total = sum(denominators)
    if n < 2 or total <= 0:
        return None
    r = sum(numerators) / total
    ss = sum((x - r * y) ** 2 for x, y in zip(numerators, denominators))
    return math.sqrt(ss / (n * (n - 1))) / (total / n)


def weighted_sample_mean(sample, size) -> tuple:
    """(mean, standard error) of the weighted mean sum(w v) / sum(w) of `size` items from a
    uniform sample of (w, v) without replacement (finite-population corrected)."""
    n = len(sample)
    total = sum(w for w, _ in sample)
    mean = sum(w * v for w, v in sample) / total
    if n == size:
        return mean, 0.0
    if n < 2:
        return mean, math.inf
    dev = sum((w * (v - mean)) ** 2 for w, v in sample)
    return mean, math.sqrt((1 - n / size) * n / (n - 1) * dev) / total


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple:
    """The Wilson score interval (lo, hi) of `successes / n` (successes may be fractional);
    (0, 1) with n = 0.

    >>> [round(x, 4) for x in wilson_interval(10, 10)]
    [0.7225, 1.0]
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def normal_interval(values, z: float = Z95) -> tuple | None:
    """mean +- z standard errors (`mean_stderr`); None below two values."""
    if len(values) < 2:
        return None
    mean, se = mean_stderr(len(values), math.fsum(values), math.fsum(x * x for x in values))
    return (mean - z * se, mean + z * se)


@lru_cache(maxsize=None)
def normal_quantile(p: float) -> float:
    """The standard normal quantile of a two-sided interval of probability p, to 1e-12."""
    return _two_sided(lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2))), p, 40.0)


@lru_cache(maxsize=None)
def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile of a two-sided interval of probability p, to 1e-9; `dof` >= 1.

    >>> round(t_quantile(0.95, 7), 3), round(t_quantile(0.95, 1000), 3)
    (2.365, 1.962)
    """
    return _two_sided(lambda x: _t_cdf(x, dof), p, 1e3)


def _two_sided(cdf, p: float, hi: float) -> float:
    """The quantile of a two-sided interval of probability p, by bisection of `cdf` on 0..hi."""
    target, lo = 1 - (1 - p) / 2, 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):             # the floats between them are used up
            break
        if cdf(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def interval_quantile(p: float, dof: float) -> float:
    """The two-sided quantile for `dof` degrees of freedom, maybe fractional: Student's t on
    them rounded to a tenth (so that the cache holds), the normal quantile when infinite."""
    return normal_quantile(p) if not math.isfinite(dof) else t_quantile(p, round(dof, 1))


def _t_cdf(t: float, v: int) -> float:
    x = v / (v + t * t)
    tail = 0.5 * _betainc(v / 2, 0.5, x)
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b) (Numerical Recipes' betacf)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log(1 - x))
    if x > (a + 1) / (a + b + 2):
        return 1 - _betainc(b, a, 1 - x)
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + num * d
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + num / c
        c = c if abs(c) > 1e-300 else 1e-300
        f *= c * d
        if abs(1 - c * d) < 1e-15:
            break
    return front * (f - 1) / a
