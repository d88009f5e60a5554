"""gpueig.eigvalsh on a CuPy array and on a PyTorch CUDA tensor against cupy.linalg.eigvalsh and
torch.linalg.eigvalsh (both cuSOLVER's syevd) on the same data, same process (issue 23).

Each call is timed by the host clock from a synchronized device to the end of the call plus a
synchronize (ours returns on the host; the others queue work), warm-up first, then runs of the
three interleaved; medians. The values are compared with SciPy's on the host.

    python3 bench/eigvalsh_device.py [n ...]        (default 4096 8192; GPUEIG_LIBRARY as for the
                                                     package if it is not installed)
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

    sizes = [int(x) for x in sys.argv[1:]] or [4096, 8192]
    reps = 5
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
            "gpueig.eigvalsh(cupy)": lambda: gpueig.eigvalsh(ca),
            "cupy.linalg.eigvalsh": lambda: cupy.linalg.eigvalsh(ca),
            "gpueig.eigvalsh(torch)": lambda: gpueig.eigvalsh(ta),
            "torch.linalg.eigvalsh": lambda: torch.linalg.eigvalsh(ta),
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
        scale = 30 * n * np.finfo(float).eps * np.abs(ref).max()
        for name in calls:
            out = outs[name]
            w = cupy.asnumpy(out) if isinstance(out, cupy.ndarray) else out.cpu().numpy()
            err = np.abs(w - ref).max() / scale
            med = statistics.median(times[name])
            print(f"n={n:6d}  {name:24s} {med:9.1f} ms  (runs {' '.join(f'{t:.1f}' for t in times[name])})"
                  f"  max|w - scipy| / (30 n eps |w|max) = {err:.3g}")
        ours_c, ours_t = statistics.median(times["gpueig.eigvalsh(cupy)"]), statistics.median(times["gpueig.eigvalsh(torch)"])
        print(f"n={n:6d}  ratio cupy / gpueig: {statistics.median(times['cupy.linalg.eigvalsh']) / ours_c:.2f}x"
              f"   torch / gpueig: {statistics.median(times['torch.linalg.eigvalsh']) / ours_t:.2f}x")


if __name__ == "__main__":
    main()
