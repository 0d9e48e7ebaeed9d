"""The estimators studied (shared by the study scripts): per-tree corrected values with a
model variance on top of the trees' spread.

corrected(rec, betas, kappa, kappa_d, a, a_d): c_u = v_u + sum_j beta_j D_j,u for every tree
u (D_1 = v(n) - v(n/2), D_2 = v(n/2) - v(n/4), ... of that tree); value = the trees' mean;
variance = spread^2 (1 + kappa^2) + a^2 sigma_w^2 / n_m, where sigma_w is the move's per-world
outcome sd in the final pass (pooled over the trees) and n_m its own iterations (mean over
the trees); a difference m - o: spread_d^2 (1 + kappa_d^2) + a_d^2 (sigma_w,m^2 / n_m +
sigma_w,o^2 / n_o).
"""
import math
import statistics as st

from common import spread
from evalkit import Est


def world_sd(rec, m):
    var = []
    for t in rec["trees"]:
        W = t["worlds"]
        s = t["marks"][str(m)][-1][1]
        if isinstance(s, list):
            s = s[0]
        q = t["sq"][str(m)]
        var.append(q / W - (s / W) ** 2)
    return math.sqrt(max(st.fmean(var), 0.0))


N0 = 5000.0      # the scale of n_m in the model variance (gamma != 1)


def corrected(rec, betas, kappa=0.0, kappa_d=0.0, a=0.0, a_d=0.0, trees=None, gamma=1.0):
    V = rec["V"]
    out, unexplained = {}, {}
    for m, rows in V.items():
        idx = range(len(rows)) if trees is None else trees
        s = [rows[u][4] + sum(b * (rows[u][4 - j] - rows[u][3 - j]) for j, b in enumerate(betas))
             for u in idx]
        out[m] = Est(s)
        n_m = st.fmean([rec["N"][m][u] for u in idx])
        unexplained[m] = world_sd(rec, m) ** 2 / N0 * (N0 / max(n_m, 1)) ** gamma
    for m in out:
        se = spread(out[m].samples)[1]
        out[m].extra = kappa ** 2 * se ** 2 + a ** 2 * unexplained[m]
        for o in out:
            if o != m:
                d = [x - y for x, y in zip(out[m].samples, out[o].samples)]
                out[m].extra_d[o] = (kappa_d ** 2 * spread(d)[1] ** 2
                                     + a_d ** 2 * (unexplained[m] + unexplained[o]))
    return out


def pooled(rec, betas, kappa=0.0, kappa_d=0.0, a=0.0, a_d=0.0, trees=None):
    """As `corrected`, but each move's spread is the position's pooled one, scaled to the move
    by its per-world variance: s_m^2 = sigma_w,m^2 x mean over the moves of (spread^2 /
    sigma_w^2) (more degrees of freedom than one move's 8 trees); a difference's likewise over
    the pairs with the best. The samples are kept (for the paired differences) but the
    errors come from the pooled spreads: Est.extra carries (pooled - own) + the model part."""
    out = corrected(rec, betas, 0.0, 0.0, 0.0, 0.0, trees)
    moves = list(out)
    sw2 = {m: max(world_sd(rec, m) ** 2, 1e-12) for m in moves}
    own = {m: spread(out[m].samples)[1] ** 2 for m in moves}
    ratio = st.fmean([own[m] / sw2[m] for m in moves])
    idx = range(len(rec["V"][moves[0]])) if trees is None else trees
    n = {m: st.fmean([rec["N"][m][u] for u in idx]) for m in moves}
    for m in moves:
        pooled_var = ratio * sw2[m]
        out[m].extra = pooled_var * (1 + kappa ** 2) - own[m] + a ** 2 * sw2[m] / max(n[m], 1)
    for m in moves:
        for o in moves:
            if o == m:
                continue
            d_own = {}
            for x in moves:
                if x == o:
                    continue
                d = [p - q for p, q in zip(out[x].samples, out[o].samples)]
                d_own[x] = spread(d)[1] ** 2
            r = st.fmean([d_own[x] / (sw2[x] + sw2[o]) for x in d_own])
            pv = r * (sw2[m] + sw2[o])
            out[m].extra_d[o] = (pv * (1 + kappa_d ** 2) - d_own[m]
                                 + a_d ** 2 * (sw2[m] / max(n[m], 1) + sw2[o] / max(n[o], 1)))
    return out


def grouped(rec, betas, kappa, kappa_d, a_by, a_d_by, group, gamma=1.0):
    """`corrected` with the model variance's factor by a group of the position (e.g. its
    player count): a_by[group], a_d_by[group]."""
    return corrected(rec, betas, kappa, kappa_d, a_by[group], a_d_by[group], gamma=gamma)
