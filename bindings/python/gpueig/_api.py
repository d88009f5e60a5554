"""The Pythonic layer: argument validation, NumPy arrays in and out, INFO turned into exceptions."""
import ctypes
import functools
import numbers
import operator
from collections import namedtuple

import numpy as np

from . import _library

GPUEIG_ERR_DEVICE, GPUEIG_ERR_LAPACK, GPUEIG_ERR_MEMORY, GPUEIG_ERR_INTERNAL = (
    -1001, -1002, -1003, -1004)
_LIBRARY_ERRORS = {
    GPUEIG_ERR_DEVICE: "the backend is forced to 'gpu' and the GPU could not run the call",
    GPUEIG_ERR_LAPACK: "the CPU backend could not load its LAPACK library",
    GPUEIG_ERR_MEMORY: "host workspace could not be allocated",
    GPUEIG_ERR_INTERNAL: "an inner LAPACK call rejected what libgpueig passed it (a libgpueig "
                         "defect: please report it)",
}
_INT_MIN, _INT_MAX = -2**31, 2**31 - 1
_LLONG_MIN, _LLONG_MAX = -2**63, 2**63 - 1


class GpueigError(RuntimeError):
    """A LAPACK condition (info > 0) or a library error (info <= -1000); `info` holds the code."""

    def __init__(self, routine, info, message):
        super().__init__(f"{routine}: {message} (info={info})")
        self.routine, self.info = routine, info


StebzResult = namedtuple("StebzResult", "w iblock isplit nsplit")


@functools.lru_cache(maxsize=None)
def _lib():
    return _library.load()


def _double_ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_double))


def _int_ptr(a):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int))


def _on_gpu(x):
    """Whether x is an array in GPU memory (CuPy, PyTorch CUDA tensors, Numba device arrays...)."""
    if hasattr(x, "__cuda_array_interface__"):
        return True
    device = getattr(x, "__dlpack_device__", None)
    if callable(device):
        try:
            return device()[0] not in (1, 3)  # DLPack kDLCPU = 1, kDLCUDAHost = 3
        except Exception:  # a broken __dlpack_device__: let NumPy judge the object
            return False
    return False


def _host_array(x, name):
    """x as a NumPy array, refusing GPU arrays with a message that says what to do."""
    if _on_gpu(x):
        raise TypeError(
            f"{name} is an array in GPU memory ({type(x).__module__}.{type(x).__name__}); this "
            f"function takes host (NumPy) arrays and moves the data itself: pass a host copy "
            f"(cupy.asnumpy(x), x.cpu().numpy())")
    return np.asarray(x)


def _as_real(x, name, ndim):
    """x as a float64 array with `ndim` dimensions. Integers are converted (exactly up to 2**53);
    float32, float16 and long double are rejected, never silently converted: the routines compute
    in double precision only, and a float32 caller would get a float64 answer it did not ask for
    (and a long double one would lose digits)."""
    arr = _host_array(x, name)
    if arr.dtype.kind == "f" and arr.dtype != np.float64:
        raise TypeError(
            f"{name} has dtype {arr.dtype}: gpueig computes in float64 only; convert explicitly "
            f"({name}.astype(numpy.float64)) if a float64 result is what you want")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {arr.shape}")
    return arr.astype(np.float64, copy=False)


def _vector(x, name, length=None):
    """A C-contiguous float64 vector, copied only if x is not one already (never written to)."""
    v = np.ascontiguousarray(_as_real(x, name, 1))
    if length is not None and v.size != length:
        raise ValueError(f"{name} must have length {length}, got {v.size}")
    return v


def _fortran_copy(x, name, ndim=2):
    """A new Fortran-ordered float64 array: the library writes into it, the input stays intact."""
    return np.array(_as_real(x, name, ndim), dtype=np.float64, order="F", copy=True)


def _integer(value, name, lo=_INT_MIN, hi=_INT_MAX):
    """value as a Python int that fits C's int (or [lo, hi]): TypeError for anything that is not
    an integer (a float such as 1.9, a string, a bool), OverflowError outside the range. Never
    wraps or truncates silently."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}") from None
    if not lo <= v <= hi:
        raise OverflowError(f"{name} = {v} does not fit the C type (range {lo} .. {hi})")
    return v


def _real(value, name):
    """value as a float: TypeError for strings, complex numbers and other non-reals."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    return float(value)


def _order(n, name):
    """An array dimension passed to C as int."""
    return _integer(n, name, 0, _INT_MAX)


def _option(value, name, allowed):
    v = str(value).upper()
    if len(v) != 1 or v not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return v.encode()


def _check(routine, info, argnames, conditions):
    """Raises for a non-zero INFO: ValueError for an illegal argument, GpueigError otherwise."""
    if info == 0:
        return
    if info <= -1000:
        message = _LIBRARY_ERRORS.get(info, "library error")
        if info == GPUEIG_ERR_LAPACK:  # the path and the loader's reason, as gpueig_info says them
            text = _lib().gpueig_info().decode()
            lines = [l for l in text.splitlines() if l.startswith("LAPACK (CPU backend):")]
            message += ": " + (lines[0].split(":", 1)[1].strip() if lines else "reason unknown")
        raise GpueigError(routine, info, message)
    if info < 0:
        raise ValueError(f"{routine}: argument {-info} ({argnames[-info - 1]}) has an illegal value")
    raise GpueigError(routine, info, conditions(info))


def _range_arguments(range, vl, vu, il, iu, n):
    """LAPACK's RANGE arguments; VL/VU only for 'V', IL/IU (1-based) only for 'I'."""
    r = _option(range, "range", "AVI")
    if r == b"V" and (vl is None or vu is None):
        raise ValueError("range='V' needs vl and vu (the interval (vl, vu])")
    if r == b"I" and (il is None or iu is None):
        raise ValueError("range='I' needs il and iu (1-based, inclusive)")
    if r == b"I" and n == 0:
        il, iu = 1, 0
    return (r, _real(vl, "vl") if r == b"V" else 0.0, _real(vu, "vu") if r == b"V" else 0.0,
            _integer(il, "il") if r == b"I" else 0, _integer(iu, "iu") if r == b"I" else 0)


# The largest z toeplitz_eig allocates for range 'V' (2 GiB: n = 16384), where M is not known in
# advance and z must hold n columns (LAPACK's contract).
_TOEPLITZ_Z_LIMIT = 1 << 31


def _toeplitz_columns(jz, r, n, il, iu):
    """The columns z needs for gpu_toeplitz_eig: the wanted count for range 'I' (at least 1), n for
    'A' and 'V' (ValueError where that exceeds _TOEPLITZ_Z_LIMIT: use range 'I')."""
    if jz != b"V" or n == 0:
        return 1
    if r == b"I":
        return max(1, min(iu, n) - max(il, 1) + 1)
    if r == b"V" and 8 * n * n > _TOEPLITZ_Z_LIMIT:
        raise ValueError(f"toeplitz_eig: jobz='V' with range='V' needs an n x n z (M is not known in advance), "
                         f"{8 * n * n / 2**30:.0f} GiB at n = {n}; ask by index (range='I'; count the eigenvalues "
                         f"in (vl, vu] with jobz='N' first)")
    return n


def stebz(d, e, range="A", order="E", vl=None, vu=None, il=None, iu=None, abstol=0.0):
    """Eigenvalues of the symmetric tridiagonal matrix (d, e) by bisection (LAPACK dstebz).

    range 'A' all, 'V' those in (vl, vu], 'I' the il-th to iu-th (1-based, inclusive);
    order 'E' ascending, 'B' grouped by split-off block. Returns StebzResult(w, iblock, isplit,
    nsplit) with w of length m, iblock (1-based block of each eigenvalue) and isplit[:nsplit].
    CuPy arrays or PyTorch CUDA tensors (d and e) go to gpu_stebz_dev; the results are then arrays
    of the same kind.
    """
    if _on_gpu(d) or _on_gpu(e):
        from . import _device
        return _device.stebz(d, e, range, order, vl, vu, il, iu, abstol)
    d = _vector(d, "d")
    n = _order(d.size, "len(d)")
    e = _vector(e, "e", max(n - 1, 0))
    r, vl, vu, il, iu = _range_arguments(range, vl, vu, il, iu, n)
    o = _option(order, "order", "BE")
    w = np.empty(max(n, 1))
    iblock = np.zeros(max(n, 1), dtype=np.intc)
    isplit = np.zeros(max(n, 1), dtype=np.intc)
    e_arg = e if e.size else np.zeros(1)
    m, nsplit = ctypes.c_int(0), ctypes.c_int(0)
    info = _lib().gpu_stebz(r, o, n, vl, vu, il, iu, _real(abstol, "abstol"), _double_ptr(d), _double_ptr(e_arg),
                            ctypes.byref(m), ctypes.byref(nsplit), _double_ptr(w), _int_ptr(iblock),
                            _int_ptr(isplit))
    _check("stebz", info, ["range", "order", "n", "vl", "vu", "il", "iu", "abstol",
                           "d (NaN or Inf)", "e (NaN or Inf)"],
           lambda i: {1: "some eigenvalues did not converge",
                      2: "not all eigenvalues il..iu were found",
                      3: "some eigenvalues did not converge and not all il..iu were found",
                      4: "the Gershgorin interval was too small"}.get(i, "failure"))
    k, ns = m.value, nsplit.value
    return StebzResult(w[:k].copy(), iblock[:k].copy(), isplit[:ns].copy(), ns)


def stein(d, e, w, iblock, isplit):
    """Eigenvectors of the symmetric tridiagonal matrix (d, e) for the eigenvalues w by inverse
    iteration (LAPACK dstein), w, iblock and isplit as stebz(..., order='B') returns them.
    Returns z, n x len(w), column i the eigenvector for w[i]. Vectors that fail to converge raise
    GpueigError with info = their count, `ifail` (1-based indices) and `z` attributes. CuPy
    arrays or PyTorch CUDA tensors (all five) go to gpu_stein_dev; z is then the same kind.
    """
    if any(_on_gpu(v) for v in (d, e, w, iblock, isplit)):
        from . import _device
        return _device.stein(d, e, w, iblock, isplit)
    d = _vector(d, "d")
    n = _order(d.size, "len(d)")
    e = _vector(e, "e", max(n - 1, 0))
    w = np.array(_vector(w, "w"), dtype=np.float64)
    m = _order(w.size, "len(w)")
    iblock = np.array(np.ravel(_host_array(iblock, "iblock")), dtype=np.intc)
    if iblock.size != m:
        raise ValueError(f"iblock must have {m} entries, got {iblock.size}")
    split = np.zeros(max(n, 1), dtype=np.intc)
    given = np.ravel(_host_array(isplit, "isplit"))
    if given.size > max(n, 1):
        raise ValueError(f"isplit has {given.size} entries, more than n = {n}")
    split[:given.size] = given
    z = np.zeros((max(n, 1), max(m, 1)), dtype=np.float64, order="F")
    ifail = np.zeros(max(m, 1), dtype=np.intc)
    pad = np.zeros(1)
    info = _lib().gpu_stein(n, _double_ptr(d), _double_ptr(e if e.size else pad), m,
                            _double_ptr(w if w.size else pad), _int_ptr(iblock if m else np.zeros(1, np.intc)),
                            _int_ptr(split), _double_ptr(z), max(n, 1), _int_ptr(ifail))
    z = z[:n, :m]
    try:
        _check("stein", info, ["n", "d", "e", "m", "w", "iblock", "isplit", "z", "ldz", "ifail"],
               lambda i: f"{i} eigenvectors failed to converge")
    except GpueigError as err:
        err.ifail, err.z = ifail[:info].copy(), z
        raise
    return z


def gtsv(dl, d, du, b):
    """Solves tridiag(dl, d, du) x = b (LAPACK dgtsv). b is (n,) or (n, nrhs); returns x, the same
    shape. dl, d, du and b are not modified. CuPy arrays or PyTorch CUDA tensors (all four) are
    solved in GPU memory (gpu_gtsv_dev) and x comes back as that kind of array."""
    if any(_on_gpu(v) for v in (dl, d, du, b)):
        from . import _device
        return _device.gtsv(dl, d, du, b)
    d = _vector(d, "d")
    n = _order(d.size, "len(d)")
    dl, du = _vector(dl, "dl", max(n - 1, 0)), _vector(du, "du", max(n - 1, 0))
    b_arr = _host_array(b, "b")
    one_rhs = b_arr.ndim == 1
    x = _fortran_copy(b_arr.reshape(-1, 1) if one_rhs else b_arr, "b")
    if x.shape[0] != n:
        raise ValueError(f"b must have {n} rows, got shape {b_arr.shape}")
    pad = np.zeros(1)
    info = _lib().gpu_gtsv_pcr(n, _order(x.shape[1], "nrhs"), _double_ptr(dl if dl.size else pad), _double_ptr(d),
                               _double_ptr(du if du.size else pad), _double_ptr(x), max(n, 1))
    _check("gtsv", info, ["n", "nrhs", "dl", "d", "du", "b", "ldb"],
           lambda i: f"U({i},{i}) is exactly zero: the matrix is singular")
    return x[:, 0].copy() if one_rhs else x


def gtsv_batch(dl, d, du, b):
    """Solves batch independent tridiagonal systems (gpu_gtsv_pcr_batch): row k of the arrays is
    system k, tridiag(dl[k], d[k], du[k]) x[k] = b[k], with dl and du of shape (batch, n-1) and
    d and b of shape (batch, n). Returns x, shape (batch, n); the inputs are not modified.

    Exactly singular systems raise GpueigError with `info` (as documented in gpueig.h), `system`
    (0-based index of the first singular system), `row` (its DGTSV INFO) and `x` (every other
    system solved). CuPy arrays or PyTorch CUDA tensors (all four) are solved in GPU memory
    (gpu_gtsv_batch_dev) and x comes back as that kind of array.
    """
    if any(_on_gpu(v) for v in (dl, d, du, b)):
        from . import _device
        return _device.gtsv_batch(dl, d, du, b)
    d = np.ascontiguousarray(_as_real(d, "d", 2))
    batch, n = _order(d.shape[0], "batch"), _order(d.shape[1], "n")
    x = np.array(_as_real(b, "b", 2), dtype=np.float64, order="C", copy=True)
    if x.shape != (batch, n):
        raise ValueError(f"b must have shape {(batch, n)}, got {x.shape}")
    # The C call takes one stride for all four arrays: dl and du go into rows of length n.
    off = np.zeros((batch, max(n, 1)))
    lower, upper = off.copy(), off.copy()
    for name, src, dst in (("dl", dl, lower), ("du", du, upper)):
        arr = _as_real(src, name, 2)
        if arr.shape != (batch, max(n - 1, 0)):
            raise ValueError(f"{name} must have shape {(batch, max(n - 1, 0))}, got {arr.shape}")
        dst[:, :n - 1] = arr
    if batch == 0 or n == 0:
        return x
    info = _lib().gpu_gtsv_pcr_batch(n, batch, _double_ptr(lower), _double_ptr(d),
                                     _double_ptr(upper), _double_ptr(x), n)
    try:
        _check("gtsv_batch", info, ["n", "batch", "dl", "d", "du", "b", "stride"],
               lambda i: f"system {(i - 1) // n} is exactly singular (U({(i - 1) % n + 1},"
                         f"{(i - 1) % n + 1}) = 0)")
    except GpueigError as err:
        if info > 0:
            err.system, err.row, err.x = (info - 1) // n, (info - 1) % n + 1, x
        raise
    return x


def getrf(a):
    """LU factorization with partial pivoting, A = P L U (LAPACK dgetrf), of an m x n array.

    Returns (lu, piv) in scipy.linalg.lu_factor's convention: lu holds L (unit diagonal implied)
    and U, piv[i] (0-based) is the row interchanged with row i, so scipy.linalg.lu_solve((lu, piv),
    b) works. An exactly singular U raises GpueigError with info = i and the completed factors
    in its `lu` and `piv` attributes. A CuPy array or PyTorch CUDA tensor is factored in GPU
    memory (gpu_getrf_dev) and lu, piv come back as that kind of array.
    """
    if _on_gpu(a):
        from . import _device
        return _device.getrf(a)
    lu = _fortran_copy(a, "a")
    m, n = _order(lu.shape[0], "m"), _order(lu.shape[1], "n")
    ipiv = np.zeros(max(min(m, n), 1), dtype=np.intc)
    info = _lib().gpu_getrf_crout(m, n, _double_ptr(lu), max(m, 1), _int_ptr(ipiv))
    piv = ipiv[:min(m, n)].astype(np.int32) - 1
    try:
        _check("getrf", info, ["m", "n", "a", "lda", "ipiv"],
               lambda i: f"U({i},{i}) is exactly zero: the factorization is complete but U is singular")
    except GpueigError as err:
        err.lu, err.piv = lu, piv
        raise
    return lu, piv


def _rhs(b, n):
    """B as a new Fortran-ordered n x nrhs array, and whether it came as a vector."""
    arr = _host_array(b, "b")
    vector = arr.ndim == 1
    x = _fortran_copy(arr.reshape(-1, 1) if vector else arr, "b")
    if x.shape[0] != n:
        raise ValueError(f"b has {x.shape[0]} rows, a has {n}")
    return x, vector


def gesv(a, b):
    """Solves a x = b for a square array a (LAPACK dgesv): b a vector or an n x nrhs array.

    Returns (x, lu, piv): x shaped as b, and the factors in scipy.linalg.lu_factor's convention
    (piv 0-based). An exactly singular U raises GpueigError with info = i and the completed factors
    in its `lu` and `piv` attributes. CuPy arrays or PyTorch CUDA tensors (both a and b) are
    solved in GPU memory (gpu_gesv_dev); the results are that kind of array.
    """
    if _on_gpu(a) or _on_gpu(b):
        from . import _device
        return _device.gesv(a, b)
    lu = _fortran_copy(a, "a")
    if lu.shape[0] != lu.shape[1]:
        raise ValueError(f"a must be square, got shape {lu.shape}")
    n = _order(lu.shape[0], "n")
    x, vector = _rhs(b, n)
    nrhs = _order(x.shape[1], "nrhs")
    ipiv = np.zeros(max(n, 1), dtype=np.intc)
    info = _lib().gpu_gesv_crout(n, nrhs, _double_ptr(lu), max(n, 1), _int_ptr(ipiv),
                                 _double_ptr(x), max(n, 1))
    piv = ipiv[:n].astype(np.int32) - 1
    try:
        _check("gesv", info, ["n", "nrhs", "a", "lda", "ipiv", "b", "ldb"],
               lambda i: f"U({i},{i}) is exactly zero: a is singular, no solution computed")
    except GpueigError as err:
        err.lu, err.piv = lu, piv
        raise
    return (x[:, 0] if vector else x), lu, piv


def getrs(lu_and_piv, b, trans=0):
    """Solves a x = b (trans 0), a^T x = b (1) or a^H x = b (2) with the factors (lu, piv) of
    getrf or scipy.linalg.lu_factor (LAPACK dgetrs, as scipy.linalg.lu_solve). Returns x shaped
    as b. Factors, piv and b as CuPy arrays or PyTorch CUDA tensors are solved in GPU memory
    (gpu_getrs_dev); x is then that kind of array."""
    lu, piv = lu_and_piv
    if _on_gpu(lu) or _on_gpu(b):
        from . import _device
        return _device.getrs((lu, piv), b, trans=trans)
    lu = _fortran_copy(lu, "lu")
    if lu.shape[0] != lu.shape[1]:
        raise ValueError(f"lu must be square, got shape {lu.shape}")
    n = _order(lu.shape[0], "n")
    piv = _host_array(piv, "piv")
    if piv.shape != (n,):
        raise ValueError(f"piv must have {n} entries, got shape {piv.shape}")
    ipiv = np.array(piv + 1, dtype=np.intc)
    if n and (ipiv.min() < 1 or ipiv.max() > n):
        raise ValueError(f"piv entries must lie in [0, {n - 1}]")
    code = {0: "N", 1: "T", 2: "C"}.get(trans)
    if code is None:
        raise ValueError(f"trans must be 0, 1 or 2, got {trans!r}")
    x, vector = _rhs(b, n)
    nrhs = _order(x.shape[1], "nrhs")
    info = _lib().gpu_getrs_crout(code.encode(), n, nrhs, _double_ptr(lu), max(n, 1),
                                  _int_ptr(ipiv), _double_ptr(x), max(n, 1))
    _check("getrs", info, ["trans", "n", "nrhs", "a", "lda", "ipiv", "b", "ldb"], lambda i: "")
    return x[:, 0] if vector else x


def sytrd_givens(a, vect="V", uplo="L", q=None):
    """Reduces the symmetric array a to tridiagonal form, a = Q T Q^T, T = tridiag(e, d, e).

    vect 'N' (no Q), 'V' (Q formed) or 'U' (returns q @ Q for the given orthogonal q); uplo: the
    triangle of a that is read. Returns (d, e, Q) with Q None for vect 'N'. A CuPy array or PyTorch
    CUDA tensor a (and q) is reduced in GPU memory (gpu_sytrd_dev); d, e, Q are then that kind.
    """
    if _on_gpu(a) or (q is not None and _on_gpu(q)):
        from . import _device
        return _device.sytrd_givens(a, vect, uplo, q)
    work = _fortran_copy(a, "a")
    n = _order(work.shape[0], "n")
    if work.shape != (n, n):
        raise ValueError(f"a must be square, got shape {work.shape}")
    v = _option(vect, "vect", "NVU")
    u = _option(uplo, "uplo", "UL")
    if v == b"U":
        if q is None:
            raise ValueError("vect='U' needs q, the orthogonal matrix to update")
        qm = _fortran_copy(q, "q")
        if qm.shape != (n, n):
            raise ValueError(f"q must be {n} x {n}, got shape {qm.shape}")
    else:
        qm = np.zeros((n, n) if v == b"V" else (1, 1), order="F")
    d, e = np.empty(max(n, 1)), np.empty(max(n - 1, 1))
    ldq = max(n, 1) if v != b"N" else 1
    info = _lib().gpu_sytrd_givens(v, u, n, _double_ptr(work), max(n, 1), _double_ptr(d),
                                   _double_ptr(e), _double_ptr(qm), ldq)
    _check("sytrd_givens", info, ["vect", "uplo", "n", "a", "lda", "d", "e", "q", "ldq"],
           lambda i: "failure")
    return d[:n].copy(), e[:max(n - 1, 0)].copy(), (None if v == b"N" else qm)


def syevd(a, jobz="V", uplo="L"):
    """All eigenvalues (jobz 'N') or eigenpairs (jobz 'V') of the symmetric array a (LAPACK
    dsyevd); uplo: the triangle of a that is read. Returns w (ascending) or (w, z) with z[:, i]
    the eigenvector for w[i]. a is not modified. A CuPy array or PyTorch CUDA tensor goes to
    gpu_syevd_dev on its library's current stream (w, z: the same kind of array)."""
    if _on_gpu(a):
        from . import _device
        return _device.syevd(a, jobz, uplo)
    work = _fortran_copy(a, "a")
    n = _order(work.shape[0], "n")
    if work.shape != (n, n):
        raise ValueError(f"a must be square, got shape {work.shape}")
    jz = _option(jobz, "jobz", "NV")
    u = _option(uplo, "uplo", "UL")
    w = np.empty(max(n, 1))
    info = _lib().gpu_syevd(jz, u, n, _double_ptr(work), max(n, 1), _double_ptr(w))
    _check("syevd", info, ["jobz", "uplo", "n", "a", "lda", "w"],
           lambda i: "the tridiagonal eigenproblem did not converge")
    return (w[:n].copy(), work) if jz == b"V" else w[:n].copy()


def syevx(a, jobz="V", range="A", vl=None, vu=None, il=None, iu=None, abstol=0.0, uplo="L"):
    """Selected eigenvalues (jobz 'N') or eigenpairs (jobz 'V') of the symmetric array a (LAPACK
    dsyevx): range 'A' all, 'V' those in (vl, vu], 'I' the il-th to iu-th smallest (1-based,
    inclusive). Returns w (ascending) or (w, z) with z[:, i] the eigenvector for w[i]. a is not
    modified. Raises GpueigError (its message lists IFAIL, 1-based) where eigenvectors failed to
    converge. A CuPy array or PyTorch CUDA tensor goes to gpu_syevx_dev on its library's current
    stream (w, z: the same kind of array)."""
    if _on_gpu(a):
        from . import _device
        return _device.syevx(a, jobz, range, vl, vu, il, iu, abstol, uplo)
    work = _fortran_copy(a, "a")
    n = _order(work.shape[0], "n")
    if work.shape != (n, n):
        raise ValueError(f"a must be square, got shape {work.shape}")
    jz = _option(jobz, "jobz", "NV")
    r, vl, vu, il, iu = _range_arguments(range, vl, vu, il, iu, n)
    u = _option(uplo, "uplo", "UL")
    w = np.empty(max(n, 1))
    z = np.zeros((n, n) if jz == b"V" and n else (1, 1), order="F")
    ldz = max(n, 1) if jz == b"V" else 1
    ifail = np.zeros(max(n, 1), dtype=np.intc)
    m = ctypes.c_int(0)
    info = _lib().gpu_syevx(jz, r, u, n, _double_ptr(work), max(n, 1), vl, vu, il, iu,
                            _real(abstol, "abstol"), ctypes.byref(m), _double_ptr(w), _double_ptr(z), ldz,
                            ifail.ctypes.data_as(ctypes.POINTER(ctypes.c_int)))
    _check("syevx", info, ["jobz", "range", "uplo", "n", "a", "lda", "vl", "vu", "il", "iu", "abstol",
                           "m", "w", "z", "ldz", "ifail"],
           lambda i: f"{i} eigenvectors failed to converge (ifail {list(ifail[:i])})")
    k = m.value
    return w[:k].copy() if jz == b"N" else (w[:k].copy(), z[:, :k].copy(order="F"))


def toeplitz_eig(t, jobz="N", range="A", vl=None, vu=None, il=None, iu=None, abstol=0.0):
    """Eigenvalues (jobz 'N') or eigenpairs (jobz 'V') of the symmetric Toeplitz matrix whose first
    column is t. range as in stebz. Returns w (ascending) or (w, z) with z[:, i] for w[i]. A CuPy
    array or PyTorch CUDA tensor t goes to gpu_toeplitz_eig_dev (w, z: the same kind of array).
    A few eigenpairs of a large T (range 'I') take the structured method (T never formed): z is
    sized for the wanted count. Raises ValueError for jobz='V', range='V' past n = 16384 (z would
    need n columns: LAPACK's contract, M being unknown in advance)."""
    if _on_gpu(t):
        from . import _device
        return _device.toeplitz_eig(t, jobz, range, vl, vu, il, iu, abstol)
    t = _vector(t, "t")
    n = _order(t.size, "len(t)")
    jz = _option(jobz, "jobz", "NV")
    r, vl, vu, il, iu = _range_arguments(range, vl, vu, il, iu, n)
    w = np.empty(max(n, 1))
    z = np.zeros((max(n, 1), _toeplitz_columns(jz, r, n, il, iu)) if jz == b"V" else (1, 1), order="F")
    ldz = max(n, 1) if jz == b"V" else 1
    m = ctypes.c_int(0)
    info = _lib().gpu_toeplitz_eig(jz, r, n, _double_ptr(t if n else np.zeros(1)), vl, vu, il, iu,
                                   _real(abstol, "abstol"), ctypes.byref(m), _double_ptr(w), _double_ptr(z), ldz)
    _check("toeplitz_eig", info, ["jobz", "range", "n", "t (NaN or Inf)", "vl", "vu", "il", "iu",
                                  "abstol", "m", "w", "z", "ldz"],
           lambda i: f"the eigensolver of a half block failed (info {i})")
    k = m.value
    return w[:k].copy() if jz == b"N" else (w[:k].copy(), z[:, :k].copy(order="F"))


def backend():
    """Where this thread's last call ran: 'gpu', 'cpu' or 'none'."""
    return _lib().gpueig_last_backend().decode()


def _name(value, what):
    """A str without NUL characters, encoded for C (a NUL would cut the name short in C)."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__} {value!r}")
    if "\0" in value:
        raise ValueError(f"{what} must not contain NUL characters, got {value!r}")
    return value.encode()


def set_backend(name):
    """Sets the process-wide policy: 'auto', 'gpu' or 'cpu'."""
    if _lib().gpueig_set_backend(_name(name, "backend")) != 0:
        raise ValueError(f"unknown backend {name!r}: use 'auto', 'gpu' or 'cpu'")


def backend_for(routine, size):
    """The backend a call of routine ('gtsv', 'stebz', ...) of this size would use now."""
    r = _lib().gpueig_backend_for(_name(routine, "routine"),
                                  _integer(size, "size", _LLONG_MIN, _LLONG_MAX))
    if r is None:
        raise ValueError(f"unknown routine {routine!r}")
    return r.decode()


def gpu_available():
    return bool(_lib().gpueig_gpu_available())


def version():
    return _lib().gpueig_version().decode()


def info():
    """The build and run-time description `gpueig info` prints."""
    return _lib().gpueig_info().decode()

