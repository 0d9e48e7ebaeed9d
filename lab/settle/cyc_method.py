"""The cycle method, frozen (every constant here; fitted on dev only: cyc_cv.py chose the form,
cyc_fit_final.py the constants, cyc_deepen.py the horizon rule). md5 of this file, cyc_est.py
and cyc_common.py in reports/cyc_frozen_md5.txt, taken before any held-out result was read.

The engine (the settle branch's hidden setting cycles=on): each of the 8 trees spends its
share B of the budget as halvings over B/4, B/4, B/2 on the same tree; after the first two
cycles a pass of every root move on the first P = round(W_B / 2) worlds of the final pass's
stream (W_B = clip(B / (5 k), 100, 4000), the final pass's worlds; seed: the tree's pass
seed); the final pass (W_B worlds) sums those P worlds apart. Deepening until stopped: cycles
of B, 2B, 4B ... on the same trees, each ending in a pass of a search of that total T
(W_T = clip(T / (5 k))) that sums the same first P worlds apart.

The answer after a cycle of total T (every tree u, move m; a_j its value on the P worlds after
this cycle (j = 0) and the two before; n_j its own iterations there; v its value in the pass
of T):
    D1 = (a_0 - a_1) / log2(n_0 / n_1),  D2 = (a_1 - a_2) / log2(n_1 / n_2)
    c_u = v + (h / 4) (BETA1 D1 + BETA2 D2),  h = log2(R / T) doublings to the reference
value = mean of c_u over the trees; correction K_m = value - (mean of v);
se^2 = spread(c)^2 (1 + KAPPA^2) + A^2 u_m + (LAM K_m)^2,  u_m = sigma_w^2 / N0 (N0 / n_m)^GAMMA
    (sigma_w: the move's per-world sd in the pass, the trees' mean variance; n_m its own
    iterations, the trees' mean; N0 = 5000);
difference m - o: se_d^2 = spread(c_m - c_o)^2 (1 + KAPPA_D^2) + A_D^2 (u_m + u_o)
    + (LAM_D (K_m - K_o))^2;
99% interval: +- t_{0.995, nu} se with nu = 7 (se^2 / (spread^2 (1 + KAPPA^2)))^2 (Welch-
Satterthwaite: the trees' spread on 7 df, the model's parts known), the same for a
difference with its own parts.
Reference R: 16 x the base budget (best: 1.6M, 8 trees of 200k, today's 1.6M search;
analyze: 320k for its 20k a decision), each base with its own constants; at and beyond the
reference (h <= 0) the raw answer (no correction, no model part), with the Student quantile.
Not settled ("more time may re-rank"): the corrected 99% interval of best - m contains 0 for
some other move m (best by the corrected value). The move played: today's raw value's best.
"""
import math

from cyc_est import corrected, student_q

CHECK_SHARE = 0.5
PREFIX = "p2"
N0 = 5000.0
#: best: 100k (8 x 12.5k) against today's 1.6M
BEST = dict(betas=(1.315, 0.592), gamma=2.0, kappa=0.75, a=0.75, lam=0.8, kappa_d=0.0,
            a_d=0.75, lam_d=1.0, budget=100_000, reference=1_600_000)
#: analyze: 20k a decision (8 x 2.5k) against today's 320k
ANALYZE = dict(betas=(0.970, 0.653), gamma=2.0, kappa=0.0, a=0.25, lam=0.8, kappa_d=0.0,
               a_d=0.0, lam_d=1.0, budget=20_000, reference=320_000)
H_BASE = 4.0        # the horizon the constants were fitted at (16x)


def horizon(base, total):
    """Doublings from a search of `total` to the base's reference."""
    return math.log2(base["reference"] / total)


def estimate(rec, cf, base=BEST, total=None):
    """{move: Est} of the answer after cycle index cf of a cycle probe record (cyc_probe.py),
    its errors the printed ones scaled to the 99% interval (x q / 2.576, so that the 99%
    interval is 2.576 of them: evalkit's tables count its tails). `total`: the search's
    iterations after that cycle (default: the base budget x 2^(cf - 2))."""
    total = total or base["budget"] * 2 ** (cf - 2)
    h = horizon(base, total)
    if h <= 0:
        return corrected(rec, cf, q="t", q_d="t")
    f = h / H_BASE
    return corrected(rec, cf, (f * base["betas"][0], f * base["betas"][1]), base["kappa"],
                     base["kappa_d"], base["a"], base["a_d"], base["gamma"], PREFIX,
                     "doubling", q="t", q_d="t", lam=base["lam"], lam_d=base["lam_d"])


def printed(rec, cf, base=BEST, total=None):
    """The same with the errors as printed (se, before the quantile)."""
    total = total or base["budget"] * 2 ** (cf - 2)
    h = horizon(base, total)
    if h <= 0:
        return corrected(rec, cf)
    f = h / H_BASE
    return corrected(rec, cf, (f * base["betas"][0], f * base["betas"][1]), base["kappa"],
                     base["kappa_d"], base["a"], base["a_d"], base["gamma"], PREFIX,
                     "doubling", lam=base["lam"], lam_d=base["lam_d"])


def settled(E):
    """(best by the corrected value, settled): settled when the 99% interval of best - m
    (E from `estimate`: 2.576 of its difference errors) excludes 0 for every other m."""
    from evalkit import best_of, pair
    b = best_of(E)
    return b, all(pair(E, b, m)[0] - 2.576 * pair(E, b, m)[1] > 0 for m in E if m != b)


assert student_q(7) > 3.49       # t_{0.995, 7} = 3.499
