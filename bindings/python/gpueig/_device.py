"""The device path of getrf, getrs, gesv, gtsv, gtsv_batch, sytrd_givens, syevd, syevx, stebz,
stein and toeplitz_eig (and of lu_factor, lu_solve, solve, solve_banded, eigvalsh_tridiagonal,
eigh_tridiagonal and eigh over them) and of eigvalsh: CuPy arrays and PyTorch CUDA tensors go to
the library's device-pointer API (gpu_getrf_dev, gpu_getrs_dev, gpu_gesv_dev, gpu_gtsv_dev,
gpu_gtsv_batch_dev, gpu_sytrd_dev, gpu_syevd_dev, gpu_syevx_dev, gpu_stebz_dev, gpu_stein_dev,
gpu_toeplitz_eig_dev) on the array library's current stream, and the results come back as
the same kind of array on the same device. Only float64 (and integer) data is taken, as on the host
path; the inputs are never written. Each call reads the routine's INFO back from the device, so
it waits for its own work on that stream (not for the whole device)."""
import ctypes

from . import _api


class _Cupy:
    def __init__(self):
        import cupy
        self.xp = cupy

    def dtype_ok(self, x):
        return x.dtype.kind in "iu" or x.dtype == self.xp.float64

    def fortran_copy(self, x):
        return self.xp.array(x, dtype=self.xp.float64, order="F", copy=True)

    def ints(self, values):
        return self.xp.ascontiguousarray(values, dtype=self.xp.int32)

    def zeros_int(self, n):
        return self.xp.zeros(max(n, 1), dtype=self.xp.int32)

    def contiguous(self, x):
        """x as C-contiguous float64 (x itself where it already is: the callers never write it)."""
        return self.xp.ascontiguousarray(x, dtype=self.xp.float64)

    def c_copy(self, x):
        return self.xp.array(x, dtype=self.xp.float64, order="C", copy=True)

    def zeros(self, shape):
        return self.xp.zeros(shape, dtype=self.xp.float64)

    @staticmethod
    def ptr(arr):
        return ctypes.c_void_p(arr.data.ptr)

    def stream(self, x):
        return ctypes.c_void_p(self.xp.cuda.get_current_stream().ptr)

    def first(self, arr):
        return int(arr[:1].get()[0])

    def all_finite(self, x):
        return bool(self.xp.isfinite(x).all())

    def device(self, x):
        return x.device.id

    def triangle(self, x, lower):
        return self.xp.tril(x) if lower else self.xp.triu(x)

    def amax(self, x):
        return float(self.xp.abs(x).max()) if x.size else 0.0

    def to_host(self, x):
        return self.xp.asnumpy(x)

    def argsort(self, x):
        return self.xp.argsort(x)  # stable

    def from_host(self, values, like):
        with like.device:
            return self.xp.asarray(values)


class _Torch:
    def __init__(self):
        import torch
        self.torch = torch

    def dtype_ok(self, x):
        t = self.torch
        return x.dtype == t.float64 or x.dtype in (t.int8, t.int16, t.int32, t.int64, t.uint8)

    def fortran_copy(self, x):
        # A new column-major tensor: (cols, rows) row-major, transposed.
        out = self.torch.empty((x.shape[1], x.shape[0]), dtype=self.torch.float64, device=x.device).t()
        out.copy_(x)
        return out

    def ints(self, values):
        return values.to(self.torch.int32).contiguous()

    def zeros_int(self, n):
        return self.torch.zeros(max(n, 1), dtype=self.torch.int32, device=self._dev)

    def contiguous(self, x):
        return x.to(self.torch.float64).contiguous()

    def c_copy(self, x):
        return x.to(self.torch.float64).clone(memory_format=self.torch.contiguous_format)

    def zeros(self, shape):
        return self.torch.zeros(shape, dtype=self.torch.float64, device=self._dev)

    @staticmethod
    def ptr(arr):
        return ctypes.c_void_p(arr.data_ptr())

    def stream(self, x):
        return ctypes.c_void_p(self.torch.cuda.current_stream(x.device).cuda_stream)

    def first(self, arr):
        return int(arr[0].item())

    def all_finite(self, x):
        return bool(self.torch.isfinite(x).all().item())

    def device(self, x):
        return x.device.index

    def triangle(self, x, lower):
        return self.torch.tril(x) if lower else self.torch.triu(x)

    def amax(self, x):
        return float(x.abs().max().item()) if x.numel() else 0.0

    def to_host(self, x):
        return x.cpu().numpy()

    def argsort(self, x):
        return self.torch.argsort(x, stable=True)

    def from_host(self, values, like):
        return self.torch.from_numpy(values).to(like.device)


def kind_of(x):
    """The array library of a GPU array x, or TypeError for one this path does not take."""
    module = type(x).__module__.split(".")[0]
    if module == "cupy":
        return _Cupy()
    if module == "torch" and getattr(x, "is_cuda", False):
        k = _Torch()
        k._dev = x.device
        return k
    raise TypeError(
        f"{type(x).__module__}.{type(x).__name__} is a GPU array gpueig does not take: pass a CuPy "
        f"array or a PyTorch CUDA tensor (or a NumPy array)")


def _matrix(k, x, name):
    if not k.dtype_ok(x):
        raise TypeError(
            f"{name} has dtype {x.dtype}: gpueig computes in float64 only; convert explicitly if a "
            f"float64 result is what you want")
    if x.ndim != 2:
        raise ValueError(f"{name} must be 2-dimensional, got shape {tuple(x.shape)}")
    return k.fortran_copy(x)


def _square(k, a, name="a"):
    """(a column-major copy of the square GPU array a, its order n)."""
    work = _matrix(k, a, name)
    n = _api._order(work.shape[0], "n")
    if tuple(work.shape) != (n, n):
        raise ValueError(f"{name} must be square, got shape {tuple(work.shape)}")
    return work, n


def _rhs(k, b, n):
    if not k.dtype_ok(b):
        raise TypeError(f"b has dtype {b.dtype}: gpueig computes in float64 only")
    vector = b.ndim == 1
    if b.ndim not in (1, 2):
        raise ValueError(f"b must be 1- or 2-dimensional, got shape {tuple(b.shape)}")
    x = k.fortran_copy(b.reshape(-1, 1) if vector else b)
    if x.shape[0] != n:
        raise ValueError(f"b has {x.shape[0]} rows, a has {n}")
    return x, vector


def _kind_of_all(*named):
    """The array library of the (array, name) pairs, all GPU arrays of one library, else
    TypeError."""
    for x, name in named:
        if not _api._on_gpu(x):
            raise TypeError(f"{name} is a host array and the others are GPU arrays: pass all of them "
                            f"on the GPU, or all on the host")
    k = kind_of(named[0][0])
    for x, name in named[1:]:
        if type(kind_of(x)) is not type(k):
            raise TypeError(f"{name} is not the same kind of GPU array as {named[0][1]}")
    return k


def check_finite(x, name):
    k = kind_of(x)
    if not k.all_finite(x):
        raise ValueError(f"{name} must not contain infs or NaNs")


def _call(routine, info, argnames, k, x):
    """The synchronous INFO: ValueError naming a device mismatch where that is the cause."""
    if info < 0 and info > -1000 and argnames[-info - 1] in (
            "a", "lu", "b", "ipiv", "info", "dl", "d", "du", "e", "w", "iblock", "isplit", "z", "ifail", "t"):
        raise ValueError(
            f"{routine}: {argnames[-info - 1]} is not in memory of the library's device (device "
            f"{k.device(x)} given; GPUEIG_DEVICE chooses the library's, default 0)")
    _api._check(routine, info, argnames, lambda i: "")


def getrf(a):
    k = kind_of(a)
    lu = _matrix(k, a, "a")
    m, n = _api._order(lu.shape[0], "m"), _api._order(lu.shape[1], "n")
    ipiv, info = k.zeros_int(min(m, n)), k.zeros_int(1)
    r = _api._lib().gpu_getrf_dev(m, n, k.ptr(lu), max(m, 1), k.ptr(ipiv), k.ptr(info), k.stream(a))
    _call("getrf", r, ["m", "n", "a", "lda", "ipiv", "info", "stream"], k, a)
    piv = ipiv[:min(m, n)] - 1
    i = k.first(info)
    if i > 0:
        err = _api.GpueigError("getrf", i, f"U({i},{i}) is exactly zero: the factorization is "
                                           f"complete but U is singular")
        err.lu, err.piv = lu, piv
        raise err
    return lu, piv


def gesv(a, b):
    k = _kind_of_all((a, "a"), (b, "b"))
    lu = _matrix(k, a, "a")
    if lu.shape[0] != lu.shape[1]:
        raise ValueError(f"a must be square, got shape {tuple(lu.shape)}")
    n = _api._order(lu.shape[0], "n")
    x, vector = _rhs(k, b, n)
    nrhs = _api._order(x.shape[1], "nrhs")
    ipiv, info = k.zeros_int(n), k.zeros_int(1)
    r = _api._lib().gpu_gesv_dev(n, nrhs, k.ptr(lu), max(n, 1), k.ptr(ipiv), k.ptr(x), max(n, 1),
                                 k.ptr(info), k.stream(a))
    _call("gesv", r, ["n", "nrhs", "a", "lda", "ipiv", "b", "ldb", "info", "stream"], k, a)
    piv = ipiv[:n] - 1
    i = k.first(info)
    if i > 0:
        err = _api.GpueigError("gesv", i, f"U({i},{i}) is exactly zero: a is singular, no solution "
                                          f"computed")
        err.lu, err.piv = lu, piv
        raise err
    return (x[:, 0] if vector else x), lu, piv


def getrs(lu_and_piv, b, trans=0):
    lu, piv = lu_and_piv
    k = _kind_of_all((lu, "lu"), (piv, "piv"), (b, "b"))
    lu = _matrix(k, lu, "lu")
    if lu.shape[0] != lu.shape[1]:
        raise ValueError(f"lu must be square, got shape {tuple(lu.shape)}")
    n = _api._order(lu.shape[0], "n")
    if tuple(piv.shape) != (n,):
        raise ValueError(f"piv must have {n} entries, got shape {tuple(piv.shape)}")
    code = {0: "N", 1: "T", 2: "C"}.get(trans)
    if code is None:
        raise ValueError(f"trans must be 0, 1 or 2, got {trans!r}")
    ipiv = k.ints(piv + 1)
    x, vector = _rhs(k, b, n)
    nrhs = _api._order(x.shape[1], "nrhs")
    info = k.zeros_int(1)
    r = _api._lib().gpu_getrs_dev(code.encode(), n, nrhs, k.ptr(lu), max(n, 1), k.ptr(ipiv), k.ptr(x),
                                  max(n, 1), k.ptr(info), k.stream(b))
    _call("getrs", r, ["trans", "n", "nrhs", "lu", "lda", "ipiv", "b", "ldb", "info", "stream"], k, b)
    if k.first(info) == -6:
        raise ValueError(f"piv entries must lie in [0, {n - 1}]")
    return x[:, 0] if vector else x


def _real_dev(k, x, name, ndim):
    if not k.dtype_ok(x):
        raise TypeError(f"{name} has dtype {x.dtype}: gpueig computes in float64 only")
    if x.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(x.shape)}")
    return k.contiguous(x)


def gtsv(dl, d, du, b):
    k = _kind_of_all((dl, "dl"), (d, "d"), (du, "du"), (b, "b"))
    d = _real_dev(k, d, "d", 1)
    n = _api._order(d.shape[0], "len(d)")
    dl, du = _real_dev(k, dl, "dl", 1), _real_dev(k, du, "du", 1)
    for name, v in (("dl", dl), ("du", du)):
        if v.shape[0] != max(n - 1, 0):
            raise ValueError(f"{name} must have {max(n - 1, 0)} entries, got {v.shape[0]}")
    x, vector = _rhs(k, b, n)
    nrhs = _api._order(x.shape[1], "nrhs")
    info = k.zeros_int(1)
    pad = k.zeros(1)
    r = _api._lib().gpu_gtsv_dev(n, nrhs, k.ptr(dl if n > 1 else pad), k.ptr(d if n else pad),
                                 k.ptr(du if n > 1 else pad), k.ptr(x), max(n, 1), k.ptr(info), k.stream(d))
    _call("gtsv", r, ["n", "nrhs", "dl", "d", "du", "b", "ldb", "info", "stream"], k, d)
    i = k.first(info)
    if i > 0:
        raise _api.GpueigError("gtsv", i, f"U({i},{i}) is exactly zero: the matrix is singular")
    return x[:, 0] if vector else x


def gtsv_batch(dl, d, du, b):
    k = _kind_of_all((dl, "dl"), (d, "d"), (du, "du"), (b, "b"))
    d = _real_dev(k, d, "d", 2)
    batch, n = _api._order(d.shape[0], "batch"), _api._order(d.shape[1], "n")
    if not k.dtype_ok(b):
        raise TypeError(f"b has dtype {b.dtype}: gpueig computes in float64 only")
    x = k.c_copy(b)
    if tuple(x.shape) != (batch, n):
        raise ValueError(f"b must have shape {(batch, n)}, got {tuple(x.shape)}")
    # One stride for all four arrays: dl and du go into rows of length n.
    rows = []
    for name, src in (("dl", dl), ("du", du)):
        arr = _real_dev(k, src, name, 2)
        if tuple(arr.shape) != (batch, max(n - 1, 0)):
            raise ValueError(f"{name} must have shape {(batch, max(n - 1, 0))}, got {tuple(arr.shape)}")
        row = k.zeros((batch, max(n, 1)))
        row[:, :max(n - 1, 0)] = arr
        rows.append(row)
    if batch == 0 or n == 0:
        return x
    info = k.zeros_int(1)
    r = _api._lib().gpu_gtsv_batch_dev(n, batch, k.ptr(rows[0]), k.ptr(d), k.ptr(rows[1]), k.ptr(x), n,
                                       k.ptr(info), k.stream(d))
    _call("gtsv_batch", r, ["n", "batch", "dl", "d", "du", "b", "stride", "info", "stream"], k, d)
    i = k.first(info)
    if i > 0:
        err = _api.GpueigError("gtsv_batch", i, f"system {(i - 1) // n} is exactly singular "
                                                f"(U({(i - 1) % n + 1},{(i - 1) % n + 1}) = 0)")
        err.system, err.row, err.x = (i - 1) // n, (i - 1) % n + 1, x
        raise err
    return x


_STEBZ_ARGS = ["range", "order", "n", "vl", "vu", "il", "iu", "abstol", "d", "e", "m", "nsplit", "w", "iblock",
               "isplit", "info", "stream"]


def _tridiagonal_dev(k, d, e):
    d = _real_dev(k, d, "d", 1)
    n = _api._order(d.shape[0], "len(d)")
    e = _real_dev(k, e, "e", 1)
    if e.shape[0] != max(n - 1, 0):
        raise ValueError(f"e must have length {max(n - 1, 0)}, got {e.shape[0]}")
    return d, e, n


def stebz(d, e, range="A", order="E", vl=None, vu=None, il=None, iu=None, abstol=0.0):
    """_api.stebz on GPU arrays (gpu_stebz_dev): StebzResult of arrays of the same kind."""
    k = _kind_of_all((d, "d"), (e, "e"))
    d, e, n = _tridiagonal_dev(k, d, e)
    r, vl, vu, il, iu = _api._range_arguments(range, vl, vu, il, iu, n)
    o = _api._option(order, "order", "BE")
    w, iblock, isplit, info = k.zeros(max(n, 1)), k.zeros_int(n), k.zeros_int(n), k.zeros_int(1)
    pad = k.zeros(1)
    m, nsplit = ctypes.c_int(0), ctypes.c_int(0)
    rc = _api._lib().gpu_stebz_dev(r, o, n, vl, vu, il, iu, _api._real(abstol, "abstol"), k.ptr(d if n else pad),
                                   k.ptr(e if n > 1 else pad), ctypes.byref(m), ctypes.byref(nsplit), k.ptr(w),
                                   k.ptr(iblock), k.ptr(isplit), k.ptr(info), k.stream(d))
    _call("stebz", rc, _STEBZ_ARGS, k, d)
    names = list(_STEBZ_ARGS)
    names[8], names[9] = "d (NaN or Inf)", "e (NaN or Inf)"
    _api._check("stebz", k.first(info), names,
                lambda i: {1: "some eigenvalues did not converge",
                           2: "not all eigenvalues il..iu were found",
                           3: "some eigenvalues did not converge and not all il..iu were found",
                           4: "the Gershgorin interval was too small"}.get(i, "failure"))
    return _api.StebzResult(w[:m.value], iblock[:m.value], isplit[:nsplit.value], nsplit.value)


def stein(d, e, w, iblock, isplit):
    """_api.stein on GPU arrays (gpu_stein_dev): z, n x len(w), the same kind of array."""
    k = _kind_of_all((d, "d"), (e, "e"), (w, "w"), (iblock, "iblock"), (isplit, "isplit"))
    d, e, n = _tridiagonal_dev(k, d, e)
    w = _real_dev(k, w, "w", 1)
    m = _api._order(w.shape[0], "len(w)")
    if m > n:
        raise ValueError(f"w has {m} entries, more than n = {n}")
    iblock = k.ints(iblock.reshape(-1))
    if iblock.shape[0] != m:
        raise ValueError(f"iblock must have {m} entries, got {iblock.shape[0]}")
    given = k.ints(isplit.reshape(-1))
    if given.shape[0] > max(n, 1):
        raise ValueError(f"isplit has {given.shape[0]} entries, more than n = {n}")
    split = k.zeros_int(n)
    split[:given.shape[0]] = given
    z = k.fortran_copy(k.zeros((max(n, 1), max(m, 1))))
    ifail, info = k.zeros_int(m), k.zeros_int(1)
    pad = k.zeros(1)
    rc = _api._lib().gpu_stein_dev(n, k.ptr(d if n else pad), k.ptr(e if n > 1 else pad), m, k.ptr(w if m else pad),
                                   k.ptr(iblock if m else split), k.ptr(split), k.ptr(z), max(n, 1), k.ptr(ifail),
                                   k.ptr(info), k.stream(d))
    names = ["n", "d", "e", "m", "w", "iblock", "isplit", "z", "ldz", "ifail", "info", "stream"]
    _call("stein", rc, names, k, d)
    z = z[:n, :m]
    i = k.first(info)
    if i < 0:
        detail = {-2: "d (NaN or Inf)", -3: "e (NaN or Inf)", -5: "w (NaN, Inf, or not ascending within a block)",
                  -6: "iblock", -7: "isplit"}
        raise ValueError(f"stein: argument {-i} ({detail.get(i, names[-i - 1])}) has an illegal value")
    if i > 0:
        err = _api.GpueigError("stein", i, f"{i} eigenvectors failed to converge")
        err.ifail, err.z = k.to_host(ifail)[:i].copy(), z
        raise err
    return z


def sytrd_givens(a, vect="V", uplo="L", q=None):
    """_api.sytrd_givens on GPU arrays (gpu_sytrd_dev): (d, e, Q) of the same kind (Q None for
    vect 'N'); a is only read."""
    v = _api._option(vect, "vect", "NVU")
    u = _api._option(uplo, "uplo", "UL")
    if v == b"U" and q is None:
        raise ValueError("vect='U' needs q, the orthogonal matrix to update")
    k = _kind_of_all((a, "a"), (q, "q")) if v == b"U" else kind_of(a)
    work, n = _square(k, a)
    if v == b"U":
        qm = _matrix(k, q, "q")
        if tuple(qm.shape) != (n, n):
            raise ValueError(f"q must be {n} x {n}, got shape {tuple(qm.shape)}")
    else:
        qm = k.fortran_copy(k.zeros((n, n))) if v == b"V" and n else k.zeros(1)
    d, e, info = k.zeros(max(n, 1)), k.zeros(max(n - 1, 1)), k.zeros_int(1)
    pad = k.zeros(1)
    r = _api._lib().gpu_sytrd_dev(v, u, n, k.ptr(work if n else pad), max(n, 1), k.ptr(d), k.ptr(e), k.ptr(qm),
                                  max(n, 1) if v != b"N" else 1, k.ptr(info), k.stream(a))
    _call("sytrd_givens", r, ["vect", "uplo", "n", "a", "lda", "d", "e", "q", "ldq", "info", "stream"], k, a)
    return d[:n], e[:max(n - 1, 0)], (None if v == b"N" else qm)


def syevd(a, jobz="V", uplo="L"):
    """_api.syevd on a GPU array (gpu_syevd_dev): w, or (w, z) of the same kind; a is not
    modified (the call works on a column-major copy, which becomes z)."""
    jz = _api._option(jobz, "jobz", "NV")
    u = _api._option(uplo, "uplo", "UL")
    k = kind_of(a)
    work, n = _square(k, a)
    w, info, pad = k.zeros(max(n, 1)), k.zeros_int(1), k.zeros(1)
    r = _api._lib().gpu_syevd_dev(jz, u, n, k.ptr(work if n else pad), max(n, 1), k.ptr(w), k.ptr(info),
                                  k.stream(a))
    _call("syevd", r, ["jobz", "uplo", "n", "a", "lda", "w", "info", "stream"], k, a)
    _api._check("syevd", k.first(info), [], lambda i: "the tridiagonal eigenproblem did not converge")
    return w[:n] if jz == b"N" else (w[:n], work)


def syevx(a, jobz="V", range="A", vl=None, vu=None, il=None, iu=None, abstol=0.0, uplo="L"):
    """_api.syevx on a GPU array (gpu_syevx_dev, on a column-major copy of a): w, or (w, z), of
    a's kind."""
    jz = _api._option(jobz, "jobz", "NV")
    u = _api._option(uplo, "uplo", "UL")
    k = kind_of(a)
    work, n = _square(k, a)
    r, vl, vu, il, iu = _api._range_arguments(range, vl, vu, il, iu, n)
    cols = (max(1, min(iu, n) - max(il, 1) + 1) if r == b"I" else n) if jz == b"V" and n else 1
    w, info, pad = k.zeros(max(n, 1)), k.zeros_int(1), k.zeros(1)
    z = k.fortran_copy(k.zeros((n, cols))) if jz == b"V" and n else pad
    ifail = k.zeros_int(n)
    m = ctypes.c_int(0)
    names = ["jobz", "range", "uplo", "n", "a", "lda", "vl", "vu", "il", "iu", "abstol", "m", "w", "z", "ldz",
             "ifail", "info", "stream"]
    rc = _api._lib().gpu_syevx_dev(jz, r, u, n, k.ptr(work if n else pad), max(n, 1), vl, vu, il, iu,
                                   _api._real(abstol, "abstol"), ctypes.byref(m), k.ptr(w), k.ptr(z),
                                   max(n, 1) if jz == b"V" else 1, k.ptr(ifail), k.ptr(info), k.stream(a))
    _call("syevx", rc, names, k, a)
    _api._check("syevx", k.first(info), names,
                lambda i: f"{i} eigenvectors failed to converge (ifail {list(k.to_host(ifail)[:i])})")
    return w[:m.value] if jz == b"N" else (w[:m.value], z[:, :m.value])


def toeplitz_eig(t, jobz="N", range="A", vl=None, vu=None, il=None, iu=None, abstol=0.0):
    """_api.toeplitz_eig on a GPU array (gpu_toeplitz_eig_dev): w or (w, z) of the same kind."""
    k = kind_of(t)
    t = _real_dev(k, t, "t", 1)
    n = _api._order(t.shape[0], "len(t)")
    jz = _api._option(jobz, "jobz", "NV")
    r, vl, vu, il, iu = _api._range_arguments(range, vl, vu, il, iu, n)
    w, info, pad = k.zeros(max(n, 1)), k.zeros_int(1), k.zeros(1)
    z = k.fortran_copy(k.zeros((n, _api._toeplitz_columns(jz, r, n, il, iu)))) if jz == b"V" and n else pad
    ldz = max(n, 1) if jz == b"V" else 1
    m = ctypes.c_int(0)
    names = ["jobz", "range", "n", "t", "vl", "vu", "il", "iu", "abstol", "m", "w", "z", "ldz", "info", "stream"]
    rc = _api._lib().gpu_toeplitz_eig_dev(jz, r, n, k.ptr(t if n else pad), vl, vu, il, iu,
                                          _api._real(abstol, "abstol"), ctypes.byref(m), k.ptr(w), k.ptr(z), ldz,
                                          k.ptr(info), k.stream(t))
    _call("toeplitz_eig", rc, names, k, t)
    names[3] = "t (NaN or Inf)"
    _api._check("toeplitz_eig", k.first(info), names,
                lambda i: f"the eigensolver of a half block failed (info {i})")
    return w[:m.value] if jz == b"N" else (w[:m.value], z[:, :m.value])


def _scale_of(k, *arrays):
    """2**-k bringing the largest |entry| into [0.5, 1) (exact), as the host path scales."""
    import numpy as np

    top = max(k.amax(a) for a in arrays)
    return 1.0 if top == 0.0 or not np.isfinite(top) else float(np.ldexp(1.0, -np.frexp(top)[1]))


def _scaled(d, e, rng, args, tol):
    """(k, d s, e s, s, the stebz keywords in that scale) for GPU arrays d and e."""
    k = _kind_of_all((d, "d"), (e, "e"))
    d, e, n = _tridiagonal_dev(k, d, e)
    s = _scale_of(k, d, e)
    if rng == "V":
        args = {"vl": args["vl"] * s, "vu": args["vu"] * s}
    return k, d * s, e * s, s, dict(args, range=rng, abstol=float(tol) * s)


def eigvalsh_tridiagonal(d, e, rng, args, tol):
    """_scipy_like.eigvalsh_tridiagonal's computation on GPU arrays (checked there)."""
    k, ds, es, s, kw = _scaled(d, e, rng, args, tol)
    return stebz(ds, es, **kw).w / s


def eigh_tridiagonal(d, e, rng, args, tol):
    """_scipy_like.eigh_tridiagonal's computation on GPU arrays: (w, v) of the same kind."""
    k, ds, es, s, kw = _scaled(d, e, rng, args, tol)
    r = stebz(ds, es, order="B", **kw)
    z = stein(ds, es, r.w, r.iblock, r.isplit)
    order = k.argsort(r.w)
    return r.w[order] / s, k.fortran_copy(z[:, order])


def eigvalsh(a, lower=True, check_finite=True):
    """scipy.linalg.eigvalsh's values of a symmetric GPU array: the reduction in GPU memory
    (gpu_sytrd_dev on the array library's stream), then bisection on d and e (gpu_stebz_dev, its
    O(n) bookkeeping on the host), w returned as the same kind of array on a's device."""
    import numpy as np

    k = kind_of(a)
    if not k.dtype_ok(a):
        raise TypeError(
            f"a has dtype {a.dtype}: gpueig computes in float64 only; convert explicitly if a "
            f"float64 result is what you want")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square 2-D array, got shape {tuple(a.shape)}")
    n = _api._order(a.shape[0], "n")
    if n == 0:
        return k.from_host(np.empty(0), a)
    tri = k.triangle(k.contiguous(a), lower)
    if check_finite and not k.all_finite(tri):
        raise ValueError("a must not contain infs or NaNs")
    top = k.amax(tri)
    # 2**-k bringing the largest |entry| into [0.5, 1), as the host path scales (exact).
    s = 1.0 if top == 0.0 or not np.isfinite(top) else float(np.ldexp(1.0, -np.frexp(top)[1]))
    work = k.fortran_copy(tri * s)
    d, e, info = k.zeros(n), k.zeros(max(n - 1, 1)), k.zeros_int(1)
    r = _api._lib().gpu_sytrd_dev(b"N", b"L" if lower else b"U", n, k.ptr(work), n, k.ptr(d), k.ptr(e),
                                  None, 1, k.ptr(info), k.stream(a))
    _call("sytrd_dev", r, ["vect", "uplo", "n", "a", "lda", "d", "e", "q", "ldq", "info", "stream"], k, a)
    return stebz(d, e[:n - 1]).w / s
