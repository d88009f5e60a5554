"""NumPy and SciPy run a set of LAPACK calls without the shim and under
LD_PRELOAD=libgpueig_lapack.so in several modes. Under the shim nothing may abort; a call the shim
forwarded must give bit-identical results (the same LAPACK is underneath; lu_solve on factors
that the shim served is judged by its residual instead), a call it served must
be within LAPACK's test ratios (threshold 30), and each call must show in GPUEIG_VERBOSE's log as
intercepted. Two flavors:
  system: Debian's python3-numpy/python3-scipy, extension modules that load the system LAPACK
          with dlopen(RTLD_LOCAL), where dlsym(RTLD_NEXT) cannot see it (names dgesv_, ...);
  wheels: pip's wheels, each bundling its own OpenBLAS under renamed symbols: NumPy 2's ILP64
          scipy_dgesv_64_ (64-bit INTEGER; NumPy 1's dgesv_64_), SciPy's LP64 scipy_dgesv_.

Usage: python3 numpy_under_shim.py [--wheels] SHIM MODE...   (MODE: auto | cpu | serve | gpu)
Exit 77 (skipped) when this interpreter's NumPy/SciPy are not of the flavor asked for, except in
CI (CI=true), where tools/setup.sh installs them and their absence is a failure.
"""
import json
import os
import re
import subprocess
import sys

MARK = "@@call "

# name: (expression computing the result, routine the shim must intercept under any of its
# names: dgesv_, scipy_dgesv_, dgesv_64_, scipy_dgesv_64_)
CALLS = {
    "np.linalg.eigvalsh(eye(3))": ("np.linalg.eigvalsh(np.eye(3))", "dsyevd"),
    "np.linalg.eigvalsh": ("np.linalg.eigvalsh(A)", "dsyevd"),
    "np.linalg.eigvalsh tiny": ("np.linalg.eigvalsh(A * 1e-200)", "dsyevd"),
    "np.linalg.eigh": ("np.linalg.eigh(A)[0]", "dsyevd"),
    "np.linalg.solve": ("np.linalg.solve(B, R)", "dgesv"),
    "np.linalg.solve n=600": ("np.linalg.solve(B3, R3)", "dgesv"),
    "scipy.linalg.eigvalsh ev": ("sl.eigvalsh(A, driver='ev')", "dsyev"),
    "scipy.linalg.eigvalsh evd": ("sl.eigvalsh(A, driver='evd')", "dsyevd"),
    "scipy.linalg.lu_factor": ("sl.lu_factor(B)", "dgetrf"),
    "scipy.linalg.lu_solve": ("sl.lu_solve(LU, R)", "dgetrs"),
    "scipy.linalg.lu_solve trans": ("sl.lu_solve(LU, R, trans=1)", "dgetrs"),
    "scipy.linalg.solve_banded": ("sl.solve_banded((1, 1), AB, rhs)", "dgtsv"),
    "eigvalsh_tridiagonal stebz": ("sl.eigvalsh_tridiagonal(d, e, lapack_driver='stebz')", "dstebz"),
    "eigvalsh_tridiagonal sterf": ("sl.eigvalsh_tridiagonal(d, e, lapack_driver='sterf')", "dsterf"),
    "eigvalsh_tridiagonal sterf 1e-160": (
        "sl.eigvalsh_tridiagonal(d * 1e-160, e * 1e-160, lapack_driver='sterf')", "dsterf"),
}
# Solutions are checked by their residual: (matrix, right-hand side, transposed) per call.
SOLVES = {"np.linalg.solve": ("B", "R", False), "np.linalg.solve n=600": ("B3", "R3", False),
          "scipy.linalg.lu_solve": ("B", "R", False), "scipy.linalg.lu_solve trans": ("B", "R", True)}
MODES = {
    "auto": {},
    "cpu": {"GPUEIG_BACKEND": "cpu"},
    "serve": {"GPUEIG_SHIM": "serve", "GPUEIG_BACKEND": "cpu"},
    "gpu": {"GPUEIG_BACKEND": "gpu"},
}


def inputs():
    """The matrices every run uses (the same seed in every process)."""
    import numpy as np
    rng = np.random.default_rng(7)
    n = 60
    A = rng.uniform(-1, 1, (n, n)); A = A + A.T
    B = rng.uniform(-1, 1, (n, n))
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)
    AB = np.vstack([np.r_[0, rng.uniform(-1, 1, n - 1)], rng.uniform(3, 4, n),
                    np.r_[rng.uniform(-1, 1, n - 1), 0]])
    rhs = rng.uniform(-1, 1, n)
    R = rng.uniform(-1, 1, (n, 3))
    B3, R3 = rng.uniform(-1, 1, (600, 600)), rng.uniform(-1, 1, (600, 2))
    return dict(A=A, B=B, d=d, e=e, AB=AB, rhs=rhs, R=R, B3=B3, R3=R3)


def child():
    """Runs every call, prints {name: [hex floats]} as JSON; a marker on stderr before each call."""
    import numpy as np
    import scipy.linalg as sl
    scope = dict(inputs(), np=np, sl=sl)
    sys.stderr.write(MARK + "lu_factor for lu_solve\n"); sys.stderr.flush()
    scope["LU"] = sl.lu_factor(scope["B"])
    out = {}
    for name, (expr, _) in CALLS.items():
        sys.stderr.write(MARK + name + "\n"); sys.stderr.flush()
        r = eval(expr, scope)
        parts = r if isinstance(r, tuple) else (r,)
        out[name] = [float(x).hex() for p in parts for x in np.ravel(p)]
    print(json.dumps(out))


def run(env_extra, shim=None):
    env = dict(os.environ, GPUEIG_VERBOSE="1", **env_extra)
    env.pop("LD_PRELOAD", None)
    if shim:
        env["LD_PRELOAD"] = shim
    p = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True,
                       text=True, timeout=600)
    logs, current = {}, None
    for line in p.stderr.splitlines():
        if line.startswith(MARK):
            current = line[len(MARK):]
            logs[current] = []
        elif current is not None:
            logs[current].append(line)
    return p, logs


def accuracy_ok(name, got, ref):
    """Served results: eigenvalues within 30 n eps ||A||; factors and solutions by residual."""
    import numpy as np
    g = np.array([float.fromhex(x) for x in got])
    r = np.array([float.fromhex(x) for x in ref])
    if g.shape != r.shape or not np.all(np.isfinite(g)):
        return False, "shape or non-finite values"
    eps = np.finfo(float).eps
    if "lu_factor" in name:  # compare the factorizations by their residuals' ratio
        B = inputs()["B"]
        n = B.shape[0]
        lu, piv = g[:n * n].reshape(n, n), g[n * n:].astype(int)
        L, U = np.tril(lu, -1) + np.eye(n), np.triu(lu)
        PA = B.copy()
        for i, p in enumerate(piv):
            PA[[i, p]] = PA[[p, i]]
        ratio = np.linalg.norm(PA - L @ U, 1) / (n * np.linalg.norm(B, 1) * eps)
        return ratio <= 30, f"||PA - LU|| ratio {ratio:.3g}"
    if name in SOLVES:  # ||op(M) x - b|| / (n ||M|| ||x|| eps), column by column
        m_name, b_name, trans = SOLVES[name]
        M, rhs = inputs()[m_name], inputs()[b_name]
        M = M.T if trans else M
        x = g.reshape(rhs.shape)
        n = M.shape[0]
        ratio = max(np.linalg.norm(M @ x[:, j] - rhs[:, j], 1)
                    / (n * np.linalg.norm(M, 1) * np.linalg.norm(x[:, j], 1) * eps)
                    for j in range(rhs.shape[1]))
        return ratio <= 30, f"solve residual ratio {ratio:.3g}"
    scale = max(np.max(np.abs(r)), np.finfo(float).tiny)
    ratio = np.max(np.abs(g - r)) / (len(r) * eps * scale)
    return ratio <= 30, f"eigenvalue/solution ratio {ratio:.3g}"


def inputs_served(logs, name):
    """lu_solve runs on lu_factor's factors: where the shim served that lu_factor, a forwarded
    dgetrs_ solves with other (equally accurate) factors than the plain run's, so it is judged by
    its residual, as a served call is."""
    if not name.startswith("scipy.linalg.lu_solve"):
        return False
    return any("-> libgpueig" in l for l in logs.get("lu_factor for lu_solve", []))


def main():
    if sys.argv[1:2] == ["--child"]:
        return child()
    args = sys.argv[1:]
    wheels = args[:1] == ["--wheels"]
    if wheels:
        args = args[1:]
    shim, modes = args[0], args[1:]
    try:
        import numpy.linalg._umath_linalg as umath_linalg
        import scipy.linalg  # noqa: F401
        # The distribution's NumPy links the system LAPACK (liblapack.so.3); a wheel's bundles
        # its own OpenBLAS, named scipy_openblas, beside the package.
        needed = subprocess.run(["ldd", umath_linalg.__file__], capture_output=True,
                                text=True).stdout
        if wheels:
            flavor_ok = "openblas" in needed and "liblapack.so" not in needed
            why = f"NumPy at {umath_linalg.__file__} is not a pip wheel with its own OpenBLAS"
            hint = "pip install numpy scipy"
        else:
            flavor_ok = "liblapack.so" in needed
            why = f"NumPy at {umath_linalg.__file__} does not use the system LAPACK"
            hint = "install python3-numpy python3-scipy"
    except (ImportError, OSError) as err:
        flavor_ok, why, hint = False, str(err), "install NumPy and SciPy"
    if not flavor_ok:
        print(f"{sys.executable}: {why} ({hint})")
        return 1 if os.environ.get("CI") == "true" else 77

    plain, _ = run({})
    if plain.returncode != 0:
        print("plain run failed:\n" + plain.stderr)
        return 1
    ref = json.loads(plain.stdout)
    failures, checked = 0, 0
    for mode in modes:
        p, logs = run(MODES[mode], shim)
        if p.returncode != 0:
            print(f"[{mode}] under the shim the process ended with {p.returncode}:\n{p.stderr}")
            failures += 1
            continue
        got = json.loads(p.stdout)
        for name, (_, routine) in CALLS.items():
            checked += 1
            lines = [l for l in logs.get(name, []) if l.startswith("gpueig-lapack: ")]
            served = any("-> libgpueig" in l for l in lines)
            names = re.compile(f"gpueig-lapack: (scipy_)?{routine}_(64_)? ")
            if not any(names.match(l) for l in lines):
                print(f"[{mode}] {name}: {routine} was not intercepted; log: {lines}")
                failures += 1
            elif not served and not inputs_served(logs, name):
                if got[name] != ref[name]:
                    print(f"[{mode}] {name}: forwarded, but not bit-identical to the plain run")
                    failures += 1
            else:
                ok, what = accuracy_ok(name, got[name], ref[name])
                if not ok:
                    print(f"[{mode}] {name}: served, {what} (threshold 30)")
                    failures += 1
            print(f"[{mode}] {name}: {'served' if served else 'forwarded'}")
    print(f"{checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
