"""Study 2: first estimators on dev: per-tree corrections by the last doubling's trend.

    python study2.py [SET]

E0: today's values. corr(K): each tree's v(n) + K (v(n) - v(n/2)), per move.
pool(Kc, Ks): the trend split into the position's common part (the mean over its moves of
each tree's trend) and each move's own: v + Kc common + Ks (own - common).
Each against the raw judge (today's 1.6M s41) and against itself at 1.6M s41 (from the
1.6M probe's checkpoints).
"""
import sys

from common import load_curve, load_probes
from evalkit import Est, raw_from_curve, table

SET = sys.argv[1] if len(sys.argv) > 1 else "dev"
probes = load_probes(sets={SET})
curve, meta, exact = load_curve()
BASES = [(100_000, 1), (100_000, 2), (100_000, 3)]
JUDGE = (1_600_000, 41)


def e0(rec):
    return {m: Est([r[4] for r in rows]) for m, rows in rec["V"].items()}


def corr(K, a=4, b=3):
    def f(rec):
        return {m: Est([r[a] + K * (r[a] - r[b]) for r in rows]) for m, rows in rec["V"].items()}
    return f


def pool(Kc, Ks):
    def f(rec):
        V = rec["V"]
        moves = list(V)
        T = len(V[moves[0]])
        common = [sum(V[m][u][4] - V[m][u][3] for m in moves) / len(moves) for u in range(T)]
        return {m: Est([V[m][u][4] + Kc * common[u] + Ks * (V[m][u][4] - V[m][u][3] - common[u])
                        for u in range(T)]) for m in moves}
    return f


def pairs_for(est, judge_kind):
    out = []
    for key, recs in sorted(probes.items()):
        if key in exact or JUDGE not in recs:
            continue
        if judge_kind == "raw":
            J = raw_from_curve(curve[key][JUDGE])
        else:
            J = est(recs[JUDGE])
        for b in BASES:
            if b in recs:
                out.append((key, est(recs[b]), J))
    return out


def main():
    table(pairs_for(e0, "raw"), meta, "E0 today vs raw 1.6M")
    for K in (0.5, 1.0, 1.5, 2.0, 3.0):
        table(pairs_for(corr(K), "raw"), meta, f"corr K={K} vs raw 1.6M", by=False)
        table(pairs_for(corr(K), "self"), meta, f"corr K={K} vs itself at 1.6M", by=False)
    for Kc, Ks in ((1, 1), (2, 1), (2, 0.5), (2, 0), (3, 1)):
        table(pairs_for(pool(Kc, Ks), "raw"), meta, f"pool Kc={Kc} Ks={Ks} vs raw", by=False)
        table(pairs_for(pool(Kc, Ks), "self"), meta, f"pool Kc={Kc} Ks={Ks} vs self", by=False)


main()
