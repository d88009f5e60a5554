"""gpueig.eigvalsh (or, with --vectors, gpueig.eigh: all eigenpairs) on a CuPy array and on a
PyTorch CUDA tensor against cupy.linalg.eigvalsh / eigh and torch.linalg.eigvalsh / eigh (all
cuSOLVER's syevd) on the same data, same process (issue 23).

Each call is timed by the host clock from a synchronized device to the end of the call plus a
synchronize (ours returns on the host; the others queue work), warm-up first, then runs of the
four interleaved; medians. The values are compared with SciPy's on the host; with --vectors the
pairs of every library also by LAPACK's ratios, computed on the GPU: ||A V - V W||_1 /
(n ||A||_1 eps) and ||V^T V - I||_1 / (n eps) (threshold 30).

    python3 bench/eigvalsh_device.py [--vectors] [n ...]   (default 4096 8192; GPUEIG_LIBRARY as
                                                            for the package if it is not installed)
"""
import statistics
import sys
import time

import numpy as np
import scipy.linalg as sla

import gpueig


def main():
    import cupy
    import torch

    args = sys.argv[1:]
    vectors = "--vectors" in args
    sizes = [int(x) for x in args if x != "--vectors"] or [4096, 8192]
    reps = 5
    eps = np.finfo(float).eps
    ours, theirs = ("eigh", "eigh") if vectors else ("eigvalsh", "eigvalsh")
    print(f"device: {torch.cuda.get_device_name(0)}; gpueig {gpueig.version()}")
    for n in sizes:
        rng = np.random.default_rng(n)
        a = rng.uniform(-1, 1, (n, n))
        a = a + a.T
        ca, ta = cupy.asarray(a), torch.as_tensor(a, device="cuda")

        def timed(f):
            cupy.cuda.Device().synchronize()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            out = f()
            cupy.cuda.Device().synchronize()
            torch.cuda.synchronize()
            return (time.perf_counter() - t0) * 1e3, out

        calls = {
            f"gpueig.{ours}(cupy)": lambda: getattr(gpueig, ours)(ca),
            f"cupy.linalg.{theirs}": lambda: getattr(cupy.linalg, theirs)(ca),
            f"gpueig.{ours}(torch)": lambda: getattr(gpueig, ours)(ta),
            f"torch.linalg.{theirs}": lambda: getattr(torch.linalg, theirs)(ta),
        }
        times = {k: [] for k in calls}
        outs = {}
        for r in range(reps + 1):
            for name, f in calls.items():
                ms, out = timed(f)
                if r > 0:
                    times[name].append(ms)
                outs[name] = out
        ref = sla.eigvalsh(a)
        anorm = float(cupy.abs(ca).sum(axis=0).max())
        for name in calls:
            # (torch tensors through __cuda_array_interface__)
            w, v = (cupy.asarray(x) for x in outs[name]) if vectors else (cupy.asarray(outs[name]), None)
            err = np.abs(cupy.asnumpy(w) - ref).max() / (30 * n * eps * np.abs(ref).max())
            pairs = ""
            if vectors:
                res = float(cupy.abs(ca @ v - v * w).sum(axis=0).max()) / (n * anorm * eps)
                orth = float(cupy.abs(v.T @ v - cupy.eye(n)).sum(axis=0).max()) / (n * eps)
                pairs = f"  residual {res:.3g}  orthogonality {orth:.3g}"
            med = statistics.median(times[name])
            print(f"n={n:6d}  {name:24s} {med:9.1f} ms  (runs {' '.join(f'{t:.1f}' for t in times[name])})"
                  f"{pairs}  max|w - scipy| / (30 n eps |w|max) = {err:.3g}")
        ours_c = statistics.median(times[f"gpueig.{ours}(cupy)"])
        ours_t = statistics.median(times[f"gpueig.{ours}(torch)"])
        print(f"n={n:6d}  ratio cupy / gpueig: {statistics.median(times[f'cupy.linalg.{theirs}']) / ours_c:.2f}x"
              f"   torch / gpueig: {statistics.median(times[f'torch.linalg.{theirs}']) / ours_t:.2f}x")


if __name__ == "__main__":
    main()
