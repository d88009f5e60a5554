#!/usr/bin/env python3
"""Writes the seed corpus tests/fuzz/corpus/<target>/ (a handful of tiny inputs per target).

The byte layout is the one fuzz_common.hpp's Input decodes: one byte per decision, sizes from
one byte (40..: value % 49; 8..39: value % 4; 0..7: negative or extreme), doubles from a selector
byte (0..39 special values, 40..199 (b-120)/8, 200.. then 8 raw bytes); once the input runs out
the rest comes from a PRNG. Run it again after changing the decoding: python3 make_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

CPU, AUTO, GPU = 0, 1, 2           # choose_policy: index % 4
def n(v): return 40 + v            # a size byte giving v (v <= 48)
def dv(x): return 120 + int(x * 8) # a double byte for a multiple of 1/8 in [-10, 10]
def raw(x): return [200] + list(struct.pack("<d", x))
NAN, INF, NINF, DBLMIN, DENORM, DBLMAX = 4, 6, 7, 8, 9, 11  # specials
LD_OK = 12                         # leading dimension byte: max(1, n)
NEG = 0                            # size byte: -1

seeds = {
    "gtsv": [
        [CPU, n(4), n(1), LD_OK] + [dv(1)] * 3 + [dv(4)] * 4 + [dv(1)] * 3 + [dv(1)] * 4,
        [AUTO, n(3), n(2), LD_OK + 1] + [0] * 12,       # singular (zero matrix)
        [GPU, n(5), n(0), LD_OK],                       # NRHS = 0
        [CPU, NEG, n(1), LD_OK],                        # N < 0
        [AUTO, n(4), n(1), 0] + [NAN] * 10,             # LDB too small, NaN
        [CPU, n(40), n(3), LD_OK + 3],                  # larger, PRNG values
    ],
    "gtsv_batch": [
        [CPU, n(4), n(3), 20] + [dv(2)] * 30,
        [AUTO, n(6), n(5), 3] + [0] * 10,
        [GPU, n(2), n(0), 20],
        [CPU, n(3), n(2), 1],                           # STRIDE < N
        [AUTO, n(24), n(12), 24],
    ],
    "getrf": [
        [CPU, n(3), n(3), LD_OK] + [dv(v) for v in (2, 1, 0, 1, 3, 1, 0, 1, 4)],
        [AUTO, n(4), n(2), LD_OK + 2] + [0] * 12,
        [GPU, n(2), n(5), LD_OK] + [INF, NAN, DENORM, DBLMAX],
        [CPU, n(5), n(5), 0],                           # LDA too small
        [AUTO, n(48), n(48), LD_OK + 3],
        [GPU, n(1), n(1), LD_OK] + raw(5e-310),          # subnormal pivot
    ],
    "stebz": [
        [CPU, ord("A"), ord("E"), n(5), dv(0), dv(1), 0] + [0, 0],
        [AUTO, ord("V"), ord("B"), n(6), dv(-2), dv(2), 0, 1, 1] + [dv(2)] * 6 + [dv(1)] * 5,
        [GPU, ord("I"), ord("E"), n(8), 0, 0, 0, 2, 5] + [dv(1)] * 8 + [0, dv(1)] * 4,
        [CPU, ord("A"), ord("B"), n(4), 0, 0, 0, 0, 0] + [NAN] * 4,
        [AUTO, ord("i"), ord("e"), n(0), 0, 0, 0, 2, 1],
        [GPU, ord("V"), ord("E"), n(3), NAN, dv(1), 0, 0, 0],
        [CPU, ord("A"), ord("E"), n(40), 0, 0, 0, 0, 0],
    ],
    "sytrd": [
        [CPU, ord("N"), ord("U"), n(3), LD_OK, LD_OK] + [dv(1)] * 9,
        [AUTO, ord("V"), ord("L"), n(5), LD_OK + 2, LD_OK + 1],
        [GPU, ord("U"), ord("U"), n(4), LD_OK, LD_OK] + [dv(0.5)] * 16 + [0] * 4 + [dv(1), 0, 0, 0, 0, dv(1)],
        [CPU, ord("V"), ord("L"), n(4), LD_OK, 0],      # LDQ too small
        [AUTO, ord("x"), ord("U"), n(2), LD_OK, LD_OK],
        [GPU, ord("n"), ord("l"), n(6), LD_OK, LD_OK] + [INF, NAN, DBLMAX],
        [CPU, ord("V"), ord("U"), n(40), LD_OK + 3, LD_OK],
    ],
    "toeplitz": [
        [CPU, ord("N"), ord("A"), n(6), 0, 0, 0, 0, 0] + [dv(v) for v in (4, 1, 0.5, 0.25, 0, 0)],
        [AUTO, ord("V"), ord("I"), n(7), 0, 0, 0, 1, 4, LD_OK] + [dv(2), dv(-1)],
        [GPU, ord("N"), ord("V"), n(9), dv(-1), dv(3), 0, 0, 0],
        [CPU, ord("V"), ord("A"), n(5), 0, 0, 0, 0, 0, 0],  # LDZ too small
        [AUTO, ord("N"), ord("A"), n(4), 0, 0, 0, 0, 0] + [NAN],
        [GPU, ord("N"), ord("I"), n(40), 0, 0, 0, 5, 30],
        [CPU, ord("v"), ord("a"), n(33), 0, 0, 0, 0, 0, LD_OK] + raw(1e200),
    ],
    "utilities": [
        [0, 10, 0, 0, 1, 10, 1, 0, 10, 2, 3, 4, 5, 2],
        [0, 10, 4, 1, 5, 3, 1, 10, 3, 0, 7, 1, 0, 5, 3],
        [0, 10, 200, 4, ord("g"), ord("p"), ord("u"), 0, 1, 10, 1, 0, 200, 6],
        [7, 0, 128, 3, ord("1"), ord("0"), ord("x"), 20, 7, 2, 128, 1, ord("-"), 30],
        [0, 0, 2, 1, 200, 0, 5, 1, 6, 0],
    ],
    "shim": [
        [0, CPU, n(4), n(1), LD_OK] + [dv(1)] * 3 + [dv(4)] * 4 + [dv(1)] * 3,   # dgtsv_
        [1, AUTO, n(3), n(3), LD_OK],                                            # dgetrf_
        [1, CPU, NEG, n(3), LD_OK],                                              # dgetrf_ M < 0
        [2, GPU, ord("I"), ord("E"), n(6), 1, 4, 0, 0, 0],                       # dstebz_
        [3, CPU, n(10)],                                                         # dsterf_
        [4, AUTO, ord("N"), ord("U"), n(5), LD_OK, 5],                           # dsyev_
        [4, CPU, ord("N"), ord("L"), n(4), LD_OK, 0],                            # dsyev_ query
        [5, GPU, ord("N"), ord("U"), n(6), LD_OK, 5, 5],                         # dsyevd_
        [5, CPU, ord("V"), ord("L"), n(6), LD_OK + 1, 0, 0],                     # dsyevd_ JOBZ=V query
        [5, AUTO, ord("Q"), ord("U"), n(3), LD_OK, 5, 5],                        # illegal JOBZ
        [6, CPU, n(4), n(2), LD_OK, LD_OK],                                      # dgesv_
        [6, AUTO, n(3), n(1), LD_OK, 0],                                         # dgesv_ LDB < N
        [7, CPU, n(5), n(2), LD_OK + 1, LD_OK],                                  # scipy_dgesv_64_
        [7, GPU, NEG, n(1), LD_OK, LD_OK],                                       # ILP64, N < 0
        [10, CPU, ord("T"), n(4), n(3), LD_OK, LD_OK],                           # dgetrs_
        [10, AUTO, ord("X"), n(2), n(1), LD_OK, LD_OK],                          # illegal TRANS
        # dsyevx_ / dsyevr_: JOBZ, RANGE, UPLO (option indices), N, LDA, LDZ, VL, VU (flag 1: VL +
        # a step of 1/4), ABSTOL (flag 1: 0), IL, IU (flag 1: IL + a step), LWORK (5: ample), A
        [8, GPU, 1, 2, 1, n(10), LD_OK, LD_OK, dv(0), 0, dv(1), 1, 1, 1, 4, 5],  # dsyevx_ RANGE I
        [8, AUTO, 0, 1, 0, n(7), LD_OK + 1, LD_OK, dv(-1), 1, 12, 1, 0, 0, 5],   # RANGE V, N
        [8, CPU, 1, 0, 1, n(6), LD_OK, LD_OK, 0, 0, 0, 1, 0, 0, 0],              # workspace query
        [9, GPU, 1, 0, 1, n(9), LD_OK, LD_OK, 0, 0, 0, 1, 0, 0, 5, 5],           # dsyevr_ all
        [9, AUTO, 1, 2, 0, n(12), LD_OK, LD_OK + 2, 0, 0, 0, 1, 3, 1, 2, 5, 5],  # dsyevr_ RANGE I
    ],
    # gpu_syevd (flag byte even): JOBZ, UPLO (option indices), N, LDA, A; gpu_syevx (odd): JOBZ,
    # RANGE, UPLO, N, LDA, LDZ, VL, VU (flag 1: VL + a step of 1/4), ABSTOL (flag 1: 0), IL, IU
    "symmetric": [
        [CPU, 0, 1, 1, n(5), LD_OK] + [dv(1)] * 25,                              # syevd V
        [AUTO, 0, 0, 0, n(8), LD_OK + 1],                                        # syevd N
        [GPU, 0, 1, 0, n(4), 0],                                                 # LDA too small
        [GPU, 1, 1, 2, 1, n(10), LD_OK, LD_OK, dv(0), 0, dv(1), 1, 1, 1, 4],     # syevx RANGE I
        [AUTO, 1, 0, 1, 0, n(7), LD_OK, LD_OK + 1, dv(-1), 1, 12, 1, 0, 0],      # RANGE V
        [CPU, 1, 1, 0, 1, n(12), LD_OK, LD_OK, 0, 0, 0, 1, 0, 0],                # RANGE A
        [GPU, 1, 1, 1, 0, n(6), LD_OK, LD_OK, NAN, 0, dv(1), 1, 0, 0],           # NaN VL: -8
        # (2026-11-26: DSYEVX on a NaN diagonal entry called DSTEIN with an IBLOCK it rejects)
        [0xfa, 0x7d, 0x7d, 0x75, 0x2b, 0xcc, 0x2b, 0x41, 0x41, 0x7d, 0x80] + [0] * 48 + [0x80] + [0] * 17
        + [0xbc] + [0] * 7 + [0x7d, 0xaf, 0xbf, 0x05],
        [AUTO, 1, 1, 2, 1, n(40), LD_OK + 3, LD_OK, 0, 0, 0, 1, 5, 1, 9],        # larger
        # (2026-11-26: DSYEVD's INFO for JOBZ 'V' names the failed submatrix, 80 > N = 26)
        [0x01, 0x00, 0x4b, 0x4b, 0x4b, 0x36, 0x21, 0x61, 0x00, 0x30, 0x4b, 0x4b, 0x4b, 0x00,
         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x4b,
         0x4b, 0xa3, 0xc0, 0x4b, 0x4b, 0x4b, 0x4b, 0x4b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4b,
         0x4b, 0x3a, 0x0d],
    ],
    "stein": [
        [CPU, n(6)] + [dv(1)] * 6 + [dv(0.5)] * 5 + [1, 1, 0],                  # all, from DSTEBZ
        [AUTO, n(9)] + [dv(2)] * 9 + [0] * 8 + [1, 0, 0, 1],                    # split T, a subset
        [GPU, n(5)] + [dv(1)] * 5 + [dv(1)] * 4 + [0, n(5)] + [dv(1)] * 5 + [9] * 10,  # arbitrary
        [CPU, n(4)] + [NAN] * 4 + [0] * 3,                                      # NaN D
        [AUTO, n(0), 0, LD_OK],
        [CPU, n(40)] + [1, 1, 0],
    ],
    "solve": [
        [0, CPU, n(3), n(1), LD_OK, LD_OK] + [dv(v) for v in (2, 1, 0, 1, 3, 1, 0, 1, 4)],  # gesv
        [0, AUTO, n(4), n(2), LD_OK + 2, LD_OK] + [0] * 12,                     # singular
        [0, GPU, n(5), n(0), LD_OK, LD_OK],                                      # NRHS = 0
        [0, CPU, n(4), n(1), LD_OK, 0],                                          # LDB too small
        [1, CPU, ord("N"), n(4), n(2), LD_OK, LD_OK],                            # getrs
        [1, AUTO, ord("t"), n(6), n(3), LD_OK + 1, LD_OK + 2],
        [1, GPU, ord("C"), n(3), n(1), LD_OK, LD_OK] + [0] * 12 + [0],          # any pivots
        [1, CPU, ord("Z"), n(3), n(1), LD_OK, LD_OK],                            # illegal TRANS
        [0, AUTO, n(40), n(3), LD_OK + 3, LD_OK + 1],                            # larger
        # the device-pointer twins: routine (0 getrf, 1 getrs, 2 gesv), [TRANS], [M], N, [NRHS],
        # LDA, LDB, a NULL INFO when 0 mod 16
        [2, CPU, 0, n(5), n(4), LD_OK, LD_OK, 1],                                # getrf_dev
        [2, AUTO, 1, ord("N"), n(6), n(2), LD_OK, LD_OK, 1],                     # getrs_dev
        [2, GPU, 2, n(8), n(3), LD_OK + 1, LD_OK, 1],                            # gesv_dev
        [2, CPU, 2, n(3), n(1), LD_OK, LD_OK, 0],                                # NULL INFO
    ],
}

for target, inputs in seeds.items():
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        os.remove(os.path.join(d, old))
    for i, data in enumerate(inputs):
        with open(os.path.join(d, "seed%02d" % i), "wb") as f:
            f.write(bytes(b & 0xFF for b in data))
print("wrote", sum(len(v) for v in seeds.values()), "seeds under", os.path.join(HERE, "corpus"))
