"""The statistics the settle analyses share: the engine's spread (c4-corrected) and the
99% normal quantile."""
import math

Z99 = 2.576


def c4(n):
    return math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2)) * math.sqrt(2 / (n - 1))


def spread(xs):
    """(mean, stderr) as the engine's stats.spread (c4-corrected)."""
    n = len(xs)
    m = math.fsum(xs) / n
    if n < 2:
        return m, math.inf
    var = math.fsum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n) / c4(n)
