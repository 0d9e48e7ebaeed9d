"""The method, frozen (every constant here; fitted on dev only, studies 13-18):

At the default budget (100k: 8 trees of 12.5k), every search estimates the value a move
has at the reference budget, 16 x the default (8 trees of 200k: today's 1.6M search):

- checkpoints: each root move's final pass (the tree's own worlds and seed, W as today) is
  also read at n/2 and n/4 of that move's own forced iterations (one pass of the move alone,
  `evaluate_root(W, seed, only=move)`, from halving's Marks hook);
- per tree u: c_u = v_u(n) + BETA1 (v_u(n) - v_u(n/2)) + BETA2 (v_u(n/2) - v_u(n/4));
- value = the trees' mean of c_u; se_c = their spread (stats.spread, c4);
- printed error: se^2 = se_c^2 (1 + KAPPA^2) + A^2 u_m, u_m = sigma_w^2 / N0 (N0 / n_m)^GAMMA,
  sigma_w the move's per-world outcome sd in the final pass (the trees' mean variance),
  n_m the move's own iterations (the trees' mean);
- a difference m - b: se_d^2 = spread(c_m - c_b)^2 (1 + KAPPA_D^2) + A_D^2 (u_m + u_b);
- not settled (frozen with the rest): see `settled`.
The new engine at the reference budget (h = 0) is today's engine: no correction.
"""
import math
import statistics as st

from common import spread
from estimators import corrected

BETA1, BETA2 = 1.75, 0.51
KAPPA, A = 1.0, 1.4
KAPPA_D, A_D = 0.75, 1.2
GAMMA, N0 = 1.5, 5000.0
Z = 2.576


def estimate(rec):
    """{move: Est} of a 100k probe record (estimators.corrected with the constants)."""
    return corrected(rec, [BETA1, BETA2], KAPPA, KAPPA_D, A, A_D, gamma=GAMMA)


def settled(rec, est=None):
    """(best, settled, trend_flag): best by the corrected value; settled when the corrected
    99% interval of best - m excludes 0 for every other move; trend_flag when for some other
    move the correction of the difference (the trend's part of c_best - c_m) is larger than
    2.576 of its trees' spread: the measured trend is larger than the noise."""
    est = est or estimate(rec)
    b = max(est, key=lambda m: (est[m].value, -m))
    V = rec["V"]
    ok, trend = True, False
    for m in est:
        if m == b:
            continue
        d = [x - y for x, y in zip(est[b].samples, est[m].samples)]
        mu, s = spread(d)
        s = math.sqrt(s * s + est[b].extra_d.get(m, 0.0))
        if mu - Z * s <= 0:
            ok = False
        corr = [BETA1 * ((p[4] - p[3]) - (q[4] - q[3])) + BETA2 * ((p[3] - p[2]) - (q[3] - q[2]))
                for p, q in zip(V[b], V[m])]
        cm, cs = spread(corr)
        if abs(cm) > Z * cs:
            trend = True
    return b, ok, trend
