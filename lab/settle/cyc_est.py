"""Part 2's estimators on the cycle probes (cyc_common.py): the raw answer after a cycle, and
the corrected one.

corrected(rec, cf, betas, ...): the answer after cycle cf (index in rec's trees' cycles),
per tree u and move m:
    v = the pass of the search of T (W_T worlds; below B, W_B);
    a_j = the move's value after cycle cf - j on the prefix `prefix` (p2: the product's
          CHECK_SHARE 1/2; p4: 1/4; B: the whole W_B) of the same stream, j = 0, 1, 2;
    D1 = (a_0 - a_1) / L1, D2 = (a_1 - a_2) / L2, with L = log2 of the move's own count
         ratio over that cycle ("doubling"), or 1 ("cycle": per cycle, counts ignored),
         or max(log2 ratio, floor);
    c_u = v + beta1 D1 + beta2 D2.
value = the trees' mean; se^2 = spread^2 (1 + kappa^2) + a^2 u_m, u_m = sigma_w^2 / N0
(N0 / n_m)^gamma (sigma_w: the move's per-world sd in the pass, the trees' mean variance; n_m:
its own iterations, the trees' mean); a difference m - o: spread(c_m - c_o)^2 (1 + kappa_d^2)
+ a_d^2 (u_m + u_o). `lam` (`lam_d`): the variance gains (lam x the correction of the trees'
mean)^2 (of the difference's correction), as if each position's persistence of the trend (its
beta) were the fitted one's times 1 + N(0, lam^2). `q` (`q_d` for the differences): the error is se x q / 2.576 (a
heavier-tailed 99% quantile q of se, so that the 99% interval is 2.576 of these errors).
"""
import math
import statistics as st

from common import spread
from cyc_common import own, sigma_w, val
from evalkit import Est

N0 = 5000.0


def trend(t, m, cf, j, prefix, norm, floor=0.5):
    """D_{j+1} of tree t, move m at cycle cf: (a_j - a_{j+1}) / L."""
    d = val(t, m, cf - j, prefix) - val(t, m, cf - j - 1, prefix)
    if norm == "cycle":
        return d
    r = math.log2(own(t, m, cf - j) / max(own(t, m, cf - j - 1), 1))
    if norm == "floor":
        r = max(r, floor)
    return d / r if r > 0 else 0.0


def corrected(rec, cf, betas=(), kappa=0.0, kappa_d=0.0, a=0.0, a_d=0.0, gamma=1.5,
              prefix="p2", norm="doubling", floor=0.5, q=None, q_d=None, lam=0.0, lam_d=0.0):
    out, unexpl, corr = {}, {}, {}
    trees = rec["trees"]
    for m in rec["moves"]:
        s, ds = [], []
        for t in trees:
            c = v = val(t, m, cf, "T")
            for j, b in enumerate(betas):
                if b:
                    c += b * trend(t, m, cf, j, prefix, norm, floor)
            s.append(c)
            ds.append(c - v)
        out[m] = Est(s)
        corr[m] = st.fmean(ds)
        sw2 = st.fmean([sigma_w(t, m, cf) ** 2 for t in trees])
        n_m = st.fmean([own(t, m, cf) for t in trees])
        unexpl[m] = sw2 / N0 * (N0 / max(n_m, 1)) ** gamma
    df = len(trees) - 1

    def scale(qq, sp, total):
        """(q / 2.576)^2: q given, or ("t") the Student t's 99% quantile on the
        Welch-Satterthwaite df of the error (the spread's part on df, the model's known)."""
        if qq is None:
            return 1.0
        if qq == "t":
            nu = min(df * (total / max(sp, 1e-30)) ** 2, 1e6) if total > 0 else 1e6
            qq = student_q(nu)
        return (qq / 2.576) ** 2
    for m in out:
        se = spread(out[m].samples)[1]
        base = se * se * (1 + kappa ** 2) + a ** 2 * unexpl[m] + (lam * corr[m]) ** 2
        out[m].extra = base * scale(q, se * se * (1 + kappa ** 2), base) - se * se
        for o in out:
            if o != m:
                d = [x - y for x, y in zip(out[m].samples, out[o].samples)]
                sd = spread(d)[1] ** 2
                bd = (sd * (1 + kappa_d ** 2) + a_d ** 2 * (unexpl[m] + unexpl[o])
                      + (lam_d * (corr[m] - corr[o])) ** 2)
                out[m].extra_d[o] = bd * scale(q_d, sd * (1 + kappa_d ** 2), bd) - sd
    return out


_Q = {}


def student_q(nu, p=0.995):
    """The Student t's p quantile on nu df (cached on nu rounded to 0.1)."""
    from scipy import stats as sps
    key = round(nu, 1)
    if key not in _Q:
        _Q[key] = float(sps.t.ppf(p, max(key, 1.0)))
    return _Q[key]


def raw(rec, cf):
    return corrected(rec, cf)


def features(rec, cf, prefix="p2", norm="doubling", floor=0.5):
    """{move: (v, D1, D2)} trees' means (for least squares of the betas)."""
    out = {}
    for m in rec["moves"]:
        trees = rec["trees"]
        v = st.fmean([val(t, m, cf, "T") for t in trees])
        d1 = st.fmean([trend(t, m, cf, 0, prefix, norm, floor) for t in trees])
        d2 = st.fmean([trend(t, m, cf, 1, prefix, norm, floor) for t in trees]) if cf >= 2 else 0.0
        out[m] = (v, d1, d2)
    return out
