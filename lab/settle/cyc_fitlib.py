"""Part 2's fitting and reporting (shared by the cyc_fit*/cyc_final* scripts).

fit_all(recs, judge, cf, prefix, norm): betas by least squares of (judge - answer) on the trees'
mean D1, D2 (cyc_est.features), then (gamma, kappa, a) by ML of the values' z's and (kappa_d,
a_d) by ML of the vs-best differences' z's (fitkit.fit's grids, gamma in 1, 1.5, 2) against the
judge. recs: [(key, rec)]; judge: {key: {move: Est}}.

report(...): the z tables (evalkit.table), the seed calibration (sd over seeds of the value /
the trees' spread of the corrected values, / the printed error), the printed error's median
against today's (the raw answer's spread), the verdicts.
"""
import math
import statistics as st
from collections import Counter

import numpy as np

from common import spread
from cyc_est import corrected, features
from evalkit import best_of, pair, table
from fitkit import fit, nll

AS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0)
KAPPAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def fit_betas(recs, judge, cf, prefix, norm, cols=(0, 1)):
    X, y = [], []
    for k, r in recs:
        for m, (v, d1, d2) in features(r, cf, prefix, norm).items():
            X.append([(d1, d2)[c] for c in cols])
            y.append(judge[k][m].value - v)
    b = np.linalg.lstsq(np.array(X), np.array(y), rcond=None)[0]
    out = [0.0, 0.0]
    for c, x in zip(cols, b):
        out[c] = float(x)
    return out


def fit_all(recs, judge, cf, prefix="p2", norm="doubling", cols=(0, 1), gammas=(1.0, 1.5, 2.0),
            betas=None):
    betas = betas if betas is not None else fit_betas(recs, judge, cf, prefix, norm, cols)
    pf = lambda est: [(k, est(r), judge[k]) for k, r in recs]
    best = None
    for g in gammas:
        mk = lambda kap, a: (lambda r: corrected(r, cf, betas, kap, 0, a, 0, g, prefix, norm))
        kv, av = fit(pf, mk, "v", KAPPAS, AS)
        v = nll(pf(mk(kv, av)), "v")
        if best is None or v < best[0]:
            best = (v, g, kv, av)
    _, g, kv, av = best
    mk = lambda kap, a: (lambda r: corrected(r, cf, betas, 0, kap, 0, a, g, prefix, norm))
    kd, ad = fit(pf, mk, "d", KAPPAS, AS)
    return {"cf": cf, "betas": betas, "gamma": g, "kappa": kv, "a": av, "kappa_d": kd,
            "a_d": ad, "prefix": prefix, "norm": norm}


def estimator(c, q=None):
    return lambda r: corrected(r, c["cf"], c["betas"], c["kappa"], c["kappa_d"], c["a"],
                               c["a_d"], c["gamma"], c["prefix"], c["norm"], q=q)


def calibration(by_key, est, raw_est):
    """by_key: {key: [rec per seed]}: (sd over seeds / trees' spread, / printed error, printed
    error median, raw (today's) spread median)."""
    r1, r2, w, w0 = [], [], [], []
    for k, rs in by_key.items():
        if len(rs) < 2:
            continue
        E = [est(r) for r in rs]
        R = [raw_est(r) for r in rs]
        for m in E[0]:
            vals = [e[m].value for e in E]
            sc = math.sqrt(st.fmean([spread(e[m].samples)[1] ** 2 for e in E]))
            sp = math.sqrt(st.fmean([e[m].se ** 2 for e in E]))
            if sc > 0:
                r1.append((st.stdev(vals) / sc) ** 2)
                r2.append((st.stdev(vals) / sp) ** 2)
            w += [e[m].se for e in E]
            w0 += [e[m].se for e in R]
    return (math.sqrt(st.fmean(r1)), math.sqrt(st.fmean(r2)), st.median(w), st.median(w0))


def verdicts(pairs_by_judge, z=2.576):
    """[(est, [judge Ests])] -> Counter: settled / not, re-ranked (the judge's best differs
    from the estimator's best), and the raw (today's) best re-ranked."""
    c = Counter()
    for E, judges_, R in pairs_by_judge:
        b = best_of(E)
        ok = all(pair(E, b, m)[0] - z * pair(E, b, m)[1] > 0 for m in E if m != b)
        rb = best_of(R)
        for Jd in judges_:
            jb = best_of(Jd)
            c[(ok, "n")] += 1
            c[(ok, "rerank")] += jb != b
            c[(ok, "raw rerank")] += jb != rb
            c["raw rerank"] += jb != rb
            c["corr rerank"] += jb != b
            c["n"] += 1
    return c


def say_verdicts(c, out=print, label=""):
    s, n = c[(True, "n")], c[(False, "n")]
    out(f"  verdicts{label}: settled {s} ({100 * s / max(c['n'], 1):.0f}% of the cases): "
        f"re-ranked {c[(True, 'rerank')]} ({100 * c[(True, 'rerank')] / max(s, 1):.1f}%); not "
        f"settled {n}: re-ranked {c[(False, 'rerank')]} ({100 * c[(False, 'rerank')] / max(n, 1):.1f}%)"
        f"; the raw best re-ranked {c['raw rerank']} of {c['n']}, the corrected best "
        f"{c['corr rerank']}")


def say(c):
    t = (f"; nu {c['nu']} (q {c['q']}), nu_d {c['nu_d']} (q_d {c['q_d']}); lam {c.get('lam')}, "
         f"lam_d {c.get('lam_d')}" if "nu" in c else "")
    return (f"betas {c['betas'][0]:.3f}, {c['betas'][1]:.3f}; gamma {c['gamma']}; kappa "
            f"{c['kappa']}, a {c['a']}; kappa_d {c['kappa_d']}, a_d {c['a_d']} "
            f"(prefix {c['prefix']}, {c['norm']}){t}")


# ---- heavier tails: the z's as a Student t with nu degrees of freedom and unit sd ----------
def tq(nu, p=0.995):
    """The p quantile of a Student t on nu df scaled to unit sd (nu = inf: the normal's)."""
    from scipy import stats as sps
    if not math.isfinite(nu):
        return float(sps.norm.ppf(p))
    return float(sps.t.ppf(p, nu) * math.sqrt((nu - 2) / nu))


def arrays(recs, judge, cf, betas, gamma, prefix, norm):
    """The pieces of every z (numpy arrays), values and vs-best differences: the error x,
    the trees' spread^2 s2, the model part u, the judge's variance j2 (se^2 = s2 (1 + kappa^2) +
    a^2 u)."""
    import numpy as np
    from cyc_est import N0
    from cyc_common import own, sigma_w
    V, D = [], []
    for k, r in recs:
        E = corrected(r, cf, betas, 0, 0, 0, 0, gamma, prefix, norm)
        R = corrected(r, cf, (), 0, 0, 0, 0, gamma, prefix, norm)
        corr = {m: E[m].value - R[m].value for m in E}
        Jd = judge[k]
        u = {}
        for m in E:
            sw2 = st.fmean([sigma_w(t, m, cf) ** 2 for t in r["trees"]])
            n_m = st.fmean([own(t, m, cf) for t in r["trees"]])
            u[m] = sw2 / N0 * (N0 / max(n_m, 1)) ** gamma
            V.append((E[m].value - Jd[m].value, spread(E[m].samples)[1] ** 2, u[m],
                      Jd[m].se ** 2, corr[m] ** 2))
        b = best_of(E)
        for m in E:
            if m == b:
                continue
            d, s = pair(E, m, b)
            dj, sj = pair(Jd, m, b)
            D.append((d - dj, s * s, u[m] + u[b], sj * sj, (corr[m] - corr[b]) ** 2))
    return np.array(V), np.array(D)


def nll_arr(A, kappa, a, nu, df=7, lam=0.0):
    """The z's negative log likelihood: normal (nu inf), a unit-sd Student t on nu df, or
    (nu "student") a Student t of scale se on the Welch-Satterthwaite df of se^2, the trees'
    spread part on `df` (their number less one), the model part and the judge's as known."""
    import numpy as np
    from scipy import stats as sps
    var = np.maximum(A[:, 1] * (1 + kappa ** 2) + a * a * A[:, 2] + A[:, 3] + lam * lam * A[:, 4],
                     1e-24)
    s = np.sqrt(var)
    if nu == "student":
        sp = np.maximum(A[:, 1] * (1 + kappa ** 2), 1e-30)
        nus = np.minimum(df * (var / sp) ** 2, 1e6)
        return float(np.sum(-sps.t.logpdf(A[:, 0] / s, nus) + np.log(s)))
    if not math.isfinite(nu):
        return float(np.sum(-sps.norm.logpdf(A[:, 0] / s) + np.log(s)))
    c = math.sqrt((nu - 2) / nu)
    return float(np.sum(-sps.t.logpdf(A[:, 0] / (s * c), nu) + np.log(s * c)))


def fit_all_t(recs, judge, cf, prefix="p2", norm="doubling", cols=(0, 1), gammas=(1.0, 1.5, 2.0),
              nus=(3, 4, 5, 6, 8, 12, math.inf), betas=None, fixed_nu=None, lams=(0.0,)):
    """fit_all with the z's a unit-sd Student t: (nu, gamma, kappa, a) by ML of the values,
    (nu_d, kappa_d, a_d) of the differences (gamma the values'); the 99% quantiles q =
    tq(nu), q_d = tq(nu_d). fixed_nu: (nu, nu_d) given (inf, inf: the normal fit)."""
    betas = betas if betas is not None else fit_betas(recs, judge, cf, prefix, norm, cols)
    nus_v = nus if fixed_nu is None else (fixed_nu[0],)
    nus_d = nus if fixed_nu is None else (fixed_nu[1],)
    best, cache = None, {}
    for g in gammas:
        cache[g] = arrays(recs, judge, cf, betas, g, prefix, norm)
        for nu in nus_v:
            for kv in KAPPAS:
                for av in AS:
                    for lv in lams:
                        v = nll_arr(cache[g][0], kv, av, nu, lam=lv)
                        if best is None or v < best[0]:
                            best = (v, nu, g, kv, av, lv)
    _, nu, g, kv, av, lv = best
    bd = None
    for nud in nus_d:
        for kd in KAPPAS:
            for ad in AS:
                for ld in lams:
                    v = nll_arr(cache[g][1], kd, ad, nud, lam=ld)
                    if bd is None or v < bd[0]:
                        bd = (v, nud, kd, ad, ld)
    _, nud, kd, ad, ld = bd
    q = "t" if nu == "student" else tq(nu)
    q_d = "t" if nud == "student" else tq(nud)
    return {"cf": cf, "betas": betas, "gamma": g, "kappa": kv, "a": av, "kappa_d": kd,
            "a_d": ad, "prefix": prefix, "norm": norm, "nu": nu, "nu_d": nud, "q": q,
            "q_d": q_d, "lam": lv, "lam_d": ld}


def estimator_q(c):
    """The estimator whose errors are se x q / 2.576 (values: q; differences: q_d): its 99%
    intervals are 2.576 of them (the z tables then count the tails of the printed 99%)."""
    return lambda r: corrected(r, c["cf"], c["betas"], c["kappa"], c["kappa_d"], c["a"],
                               c["a_d"], c["gamma"], c["prefix"], c["norm"], q=c.get("q"),
                               q_d=c.get("q_d"), lam=c.get("lam", 0.0),
                               lam_d=c.get("lam_d", 0.0))
