"""The second method, frozen before its one held-out measurement on val (a fresh set):
v1's form (method.py) refitted on dev + test (fit_v2.py, fit_v2b.py, fit_v2t.py).
Declared before val: PRIMARY v2b (the model variance's factor by player count); reported
beside it, v2 (one factor) and v2t (v2b with its errors scaled for the tails).
"""
from common import spread
from estimators import corrected

BETA1, BETA2 = 1.68, 0.44
GAMMA, N0 = 1.0, 5000.0
KAPPA, KAPPA_D = 1.25, 1.25
# v2
A, A_D = 1.4, 0.0
# v2b (primary)
A_BY = {"p2": 2.2, "p3": 0.6, "p4": 1.0, "p4p": 1.4}
A_D_BY = {"p2": 0.0, "p3": 0.0, "p4": 0.6, "p4p": 0.0}
# v2t
LAM, LAM_D = 1.147, 1.125


def v2(rec, cfg=None):
    return corrected(rec, [BETA1, BETA2], KAPPA, KAPPA_D, A, A_D, gamma=GAMMA)


def v2b(rec, cfg):
    return corrected(rec, [BETA1, BETA2], KAPPA, KAPPA_D, A_BY[cfg], A_D_BY[cfg], gamma=GAMMA)


def v2t(rec, cfg):
    E = v2b(rec, cfg)
    for m in E:
        s2 = spread(E[m].samples)[1] ** 2
        E[m].extra = LAM ** 2 * (s2 + E[m].extra) - s2
        for o in E[m].extra_d:
            d = [x - y for x, y in zip(E[m].samples, E[o].samples)]
            sd2 = spread(d)[1] ** 2
            E[m].extra_d[o] = LAM_D ** 2 * (sd2 + E[m].extra_d[o]) - sd2
    return E
