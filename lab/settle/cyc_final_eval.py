"""Part 2: the frozen cycle method (cyc_method.py) measured once on a held-out set (test, val,
fresh: data/cyc_held.jsonl), or on dev (data/cyc.jsonl, in sample); judges data/judges.jsonl:
  best: 100k s1-3 vs today's 1.6M s41 (and s42), by players and stage: the tails of the 99%
        interval (out99: |v - v_J| beyond it; |z|>2.58: beyond it widened by the judge's
        error), median |z| in printed errors, best kept (the raw choice and the corrected);
        the raw answer (today's error with the Student quantile) and today's engine's 100k
        (the curve's or the probes', where there) for scale; the seed calibration; the
        printed error and the 99% half-width against today's; the verdicts;
  analyze: 20k s1-3 vs today's 320k s41, s42;
  deepening: 100k s1 deepened, after cycles of 200k .. 1.6M (h 3, 2, 1, 0) vs 1.6M s41, s42.

    python lab/settle/cyc_final_eval.py SET        (dev, test, val or fresh)
"""
import hashlib
import math
import os
import statistics as st
import sys
from collections import defaultdict

import cyc_method as M
from common import spread
from cyc_common import DATA, judges, load_cyc
from cyc_est import corrected
from evalkit import Est, best_of, pair, table, zof

SET = sys.argv[1]
#: The frozen method's files as the study froze them, before any held-out result was read
#: (cyc_common.py, the loading, was frozen too; only where it reads the judges changed since).
FROZEN = {"cyc_method.py": "0679e18b01391bf751edd24a476c0959",
          "cyc_est.py": "bda29c3fb102f99e144b64ebea2cf063"}
HERE = os.path.dirname(os.path.abspath(__file__))
cyc = load_cyc(path=None if SET == "dev" else os.path.join(DATA, "cyc_held.jsonl"),
               sets={SET})
J, meta, exact = judges()
keys = sorted(k for k in cyc if k not in exact)
print(f"{SET}: {len(keys)} ISMCTS-sampled positions with cycle probes; the method's md5 "
      f"(frozen: {FROZEN}):")
for name in FROZEN:
    print(f"  {hashlib.md5(open(os.path.join(HERE, name), 'rb').read()).hexdigest()}  {name}")


def recs_of(budget, seeds, deepen=None):
    return [(k, r) for k in keys for (b, s, d), r in sorted(cyc[k].items())
            if b == budget and s in seeds and (deepen is None or d == deepen)]


def med_z(pairs_printed):
    zs, dz = [], []
    for k, E, Jd in pairs_printed:
        for m in E:
            zs.append(abs(zof(E[m].value - Jd[m].value, math.sqrt(E[m].se ** 2 + Jd[m].se ** 2))))
        b = best_of(E)
        for m in E:
            if m != b:
                d, s = pair(E, m, b)
                dj, sj = pair(Jd, m, b)
                dz.append(abs(zof(d - dj, math.sqrt(s * s + sj * sj))))
    return st.median(zs), st.median(dz)


for label, base, budget, jn in (("best", M.BEST, 100_000, 1_600_000),
                                ("analyze", M.ANALYZE, 20_000, 320_000)):
    recs = [(k, r) for k, r in recs_of(budget, (1, 2, 3)) if (jn, 41) in J[k]]
    if not recs:
        continue
    print(f"\n######## {label}: {budget} s1-3 ({len(recs)} searches) vs today's {jn}")
    for js in (41, 42):
        P = [(k, M.estimate(r, 2, base), J[k][(jn, js)]) for k, r in recs if (jn, js) in J[k]]
        table(P, meta, f"method vs {jn // 1000}k s{js}", by=(js == 41))
        mz = med_z([(k, M.printed(r, 2, base), J[k][(jn, js)]) for k, r in recs
                    if (jn, js) in J[k]])
        print(f"  median |z| in printed errors: values {mz[0]:.2f}, vs best {mz[1]:.2f}")
    raw = lambda r: corrected(r, 2, q="t", q_d="t")
    table([(k, raw(r), J[k][(jn, 41)]) for k, r in recs], meta,
          "the raw answer (its spread, Student 99%) vs s41", by=False)
    table([(k, corrected(r, 2), J[k][(jn, 41)]) for k, r in recs], meta,
          "the raw answer (its spread, 2.576) vs s41", by=False)
    if budget == 100_000:
        tod = [(k, J[k][(100_000, s)], J[k][(jn, 41)]) for k in keys for s in (1, 2, 3)
               if (100_000, s) in J[k] and (jn, 41) in J[k]]
        if tod:
            table(tod, meta, "today's engine 100k s1-3 (curve) vs s41", by=False)
    # best kept: the raw choice and the corrected choice, where the judge separates its top two
    kept = defaultdict(int)
    for k, r in recs:
        E, R = M.estimate(r, 2, base), corrected(r, 2)
        for js in (41, 42):
            if (jn, js) not in J[k]:
                continue
            Jd = J[k][(jn, js)]
            jb = best_of(Jd)
            second = max((m for m in Jd if m != jb), key=lambda m: Jd[m].value)
            d, s = pair(Jd, jb, second)
            if d > 2.576 * s:
                kept["sep"] += 1
                kept["raw"] += best_of(R) == jb
                kept["corr"] += best_of(E) == jb
            # regret against the judge's values of the move chosen
            kept["n"] += 1
            kept["regret raw"] += Jd[jb].value - Jd[best_of(R)].value
            kept["regret corr"] += Jd[jb].value - Jd[best_of(E)].value
    print(f"  best kept (judge separates its top two): raw choice {kept['raw']}/{kept['sep']}, "
          f"corrected choice {kept['corr']}/{kept['sep']}; mean regret against the judge's "
          f"values: raw {kept['regret raw'] / kept['n']:.4f}, corrected "
          f"{kept['regret corr'] / kept['n']:.4f} points")
    # seed calibration and widths
    by = defaultdict(list)
    for k, r in recs:
        by[k].append(r)
    r1, r2, w, w99, w0 = [], [], [], [], []
    for k, rs in by.items():
        if len(rs) < 2:
            continue
        Ep = [M.printed(r, 2, base) for r in rs]
        Eq = [M.estimate(r, 2, base) for r in rs]
        R = [corrected(r, 2) for r in rs]
        for m in Ep[0]:
            vals = [e[m].value for e in Ep]
            sc = math.sqrt(st.fmean([spread(e[m].samples)[1] ** 2 for e in Ep]))
            sp = math.sqrt(st.fmean([e[m].se ** 2 for e in Ep]))
            if sc > 0:
                r1.append((st.stdev(vals) / sc) ** 2)
                r2.append((st.stdev(vals) / sp) ** 2)
            w += [e[m].se for e in Ep]
            w99 += [2.576 * e[m].se for e in Eq]
            w0 += [e[m].se for e in R]
    if r1:      # positions searched with two seeds or more
        print(f"  seed calibration: sd over seeds / trees' spread of the corrected values "
              f"{math.sqrt(st.fmean(r1)):.2f}, / printed error {math.sqrt(st.fmean(r2)):.2f}; printed "
              f"error median {st.median(w):.4f} (today's {st.median(w0):.4f}: x{st.median(w) / st.median(w0):.2f}); "
              f"99% half-width median {st.median(w99):.4f} (today's 2.576 x error: "
              f"x{st.median(w99) / (2.576 * st.median(w0)):.2f})")
    # verdicts
    c = defaultdict(int)
    for k, r in recs:
        E = M.estimate(r, 2, base)
        b, ok = M.settled(E)
        rb = best_of(corrected(r, 2))
        c[("n", ok)] += 1
        for js in (41, 42):
            if (jn, js) not in J[k]:
                continue
            jb = best_of(J[k][(jn, js)])
            c[("cases", ok)] += 1
            c[("rerank", ok)] += jb != b
            c[("raw rerank", ok)] += jb != rb
    n = c[("n", True)] + c[("n", False)]
    print(f"  verdicts: settled {c[('n', True)]} of {n} searches ({100 * c[('n', True)] / n:.0f}%; "
          f"not settled fires in {100 * c[('n', False)] / n:.0f}%); the judge's best differs from "
          f"the corrected best: settled {c[('rerank', True)]}/{c[('cases', True)]}, not settled "
          f"{c[('rerank', False)]}/{c[('cases', False)]} "
          f"({100 * c[('rerank', False)] / max(c[('cases', False)], 1):.1f}%); from the raw best: "
          f"settled {c[('raw rerank', True)]}, not settled {c[('raw rerank', False)]}")

recs = [(k, r) for k, r in recs_of(100_000, (1,), deepen=4) if (1_600_000, 41) in J[k]]
if recs:
    print(f"\n######## deepening: 100k s1 deepened ({len(recs)} positions)")
    for cf in (3, 4, 5, 6):
        T = 100_000 * 2 ** (cf - 2)
        for js in (41, 42):
            P = [(k, M.estimate(r, cf), J[k][(1_600_000, js)]) for k, r in recs
                 if (1_600_000, js) in J[k]]
            table(P, meta, f"after {T // 1000}k (h {M.horizon(M.BEST, T):.0f}) vs 1.6M s{js}",
                  by=False)
        table([(k, corrected(r, cf), J[k][(1_600_000, 41)]) for k, r in recs], meta,
              f"   raw after {T // 1000}k vs 1.6M s41", by=False)
