"""SciPy-shaped conveniences over the LAPACK-style functions: the names, arguments and results of
scipy.linalg's eigh, eigvalsh, eigvalsh_tridiagonal, eigh_tridiagonal, lu_factor, lu_solve, solve
and solve_banded (the (1, 1) band), so that code written for SciPy can switch by changing the import."""
import warnings

import numpy as np

from . import _api


def _finite(arr, name, check_finite):
    if check_finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must not contain infs or NaNs")
    return arr


def _finite_anywhere(x, name, check_finite, ndim=None):
    """_finite for a host array (converted and checked as _api does) or a GPU array (checked on
    its device; its dtype and shape are checked by the device path)."""
    if _api._on_gpu(x):
        if check_finite:
            from . import _device
            _device.check_finite(x, name)
        return
    _finite(_api._as_real(x, name, ndim) if ndim else _api._host_array(x, name), name, check_finite)


def _power_of_two_scale(*arrays):
    """2**k bringing the largest |entry| into [0.5, 1): exact, and keeps bisection (which, like
    DSTEBZ, does not scale) far from underflow and overflow, as DSYEV and DSTERF scale."""
    top = max((float(np.max(np.abs(a))) if a.size else 0.0) for a in arrays)
    if top == 0.0 or not np.isfinite(top):
        return 1.0
    return float(np.ldexp(1.0, -np.frexp(top)[1]))


def _singular(err):
    return np.linalg.LinAlgError(f"singular matrix: {err}")


def eigvalsh(a, lower=True, check_finite=True):
    """Eigenvalues of a real symmetric matrix, ascending, as scipy.linalg.eigvalsh(a) and
    numpy.linalg.eigvalsh(a): Givens tridiagonalization (gpu_sytrd_givens) and bisection
    (gpu_stebz), each on the GPU where it pays. Only the `lower` (default) or upper triangle
    is read. The matrix is scaled by a power of two (exactly) for the computation. A CuPy array
    or PyTorch CUDA tensor is reduced in GPU memory on its library's current stream
    (gpu_sytrd_dev; only d and e pass through the host) and w comes back as the same kind of
    array on its device.

    Example::

        >>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
        >>> gpueig.eigvalsh(a)
        array([1., 3.])

    Raises:
        ValueError: a is not a square 2-D array, or holds Inf/NaN (with check_finite).
        TypeError: a is not real float64 or integer data (NumPy, CuPy, or a PyTorch CUDA
            tensor).
        GpueigError: a library error (e.g. GPUEIG_ERR_DEVICE with the GPU forced).
    """
    if _api._on_gpu(a):  # CuPy / PyTorch CUDA: reduced in GPU memory (gpu_sytrd_dev)
        from . import _device
        return _device.eigvalsh(a, lower, check_finite)
    arr = _api._as_real(a, "a", 2)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"a must be square, got shape {arr.shape}")
    n = arr.shape[0]
    if n == 0:
        return np.empty(0)
    triangle = np.tril(arr) if lower else np.triu(arr)
    _finite(triangle, "a", check_finite)
    s = _power_of_two_scale(triangle)
    d, e, _ = _api.sytrd_givens(triangle * s, vect="N", uplo="L" if lower else "U")
    return _api.stebz(d, e).w / s


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """Eigenvalues and eigenvectors of a real symmetric matrix, as scipy.linalg.eigh(a): the whole
    spectrum by gpu_syevd (the two-stage Givens reduction with Q, divide and conquer, Q Z; each
    pair checked by LAPACK's residual and orthogonality ratios, LAPACK DSYEVD where a check fails),
    a subset (subset_by_index=(lo, hi), 0-based and inclusive; subset_by_value=(lo, hi), the
    half-open interval (lo, hi], infinite ends allowed) by gpu_syevx (bisection and inverse
    iteration on T). Only the `lower` (default) or upper triangle is read. Returns (w, v): w
    ascending, v[:, i] the unit eigenvector for w[i]; w alone with eigvals_only. a is never
    modified (overwrite_a is accepted and has no effect). driver: None (the whole spectrum 'evd',
    a subset 'evx'), 'ev' or 'evd' (whole spectrum only, as SciPy), 'evr' or 'evx' (computed by
    gpu_syevx; the library has no MRRR). A CuPy array or PyTorch CUDA tensor stays on the GPU
    (gpu_syevd_dev or gpu_syevx_dev on its library's current stream) and w, v come back as the
    same kind of array.

    Example::

        >>> w, v = gpueig.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
        >>> w
        array([1., 3.])
        >>> gpueig.eigh(np.diag([3.0, 1.0, 2.0]), eigvals_only=True, subset_by_index=(0, 1))
        array([1., 2.])

    Raises:
        ValueError: a is not a square 2-D array, holds Inf/NaN (with check_finite), b is given
            (the generalized problem is not implemented), both subsets or a bad subset, a driver
            SciPy does not know or one that cannot compute a subset, or type not 1, 2 or 3.
        TypeError: a is not real float64 or integer data (NumPy, CuPy, or a PyTorch CUDA
            tensor).
        numpy.linalg.LinAlgError: the eigensolver did not converge (DSYEVD's INFO > 0) or some
            eigenvectors of a subset did not (their 1-based indices in the message).
        GpueigError: a library error (e.g. GPUEIG_ERR_DEVICE with the GPU forced).
    """
    del overwrite_a, overwrite_b  # (inputs are never modified)
    if type not in (1, 2, 3):
        raise ValueError(f"type must be 1, 2 or 3, got {type!r}")
    if b is not None:
        raise ValueError("eigh: the generalized problem (b) is not implemented; gpueig solves a v = w v only")
    drivers = {None: None, "ev": "evd", "evd": "evd", "evr": "evx", "evx": "evx"}
    if driver not in drivers:
        raise ValueError(f"eigh: driver must be one of 'ev', 'evd', 'evr', 'evx' (or None) for the standard "
                         f"problem, got {driver!r}")
    if subset_by_index is not None and subset_by_value is not None:
        raise ValueError("eigh: give subset_by_index or subset_by_value, not both")
    subset = subset_by_index is not None or subset_by_value is not None
    if subset and drivers[driver] == "evd":
        raise ValueError(f"eigh: driver {driver!r} cannot compute subsets of eigenvalues")
    on_gpu = _api._on_gpu(a)
    if on_gpu:
        from . import _device
        _device.kind_of(a)
    else:
        a = _api._as_real(a, "a", 2)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"a must be a square 2-D array, got shape {tuple(a.shape)}")
    _finite_anywhere(a, "a", check_finite, 2)
    n = a.shape[0]
    jobz, uplo = ("N" if eigvals_only else "V"), ("L" if lower else "U")
    kw = {}
    if subset_by_index is not None:
        _, kw = _select("i", subset_by_index, n)
        kw["range"] = "I"
    elif subset_by_value is not None:
        if len(subset_by_value) != 2:
            raise ValueError("subset_by_value must be a pair (lo, hi)")
        lo, hi = float(subset_by_value[0]), float(subset_by_value[1])
        if np.isnan(lo) or np.isnan(hi) or not lo < hi:
            raise ValueError(f"subset_by_value must satisfy lo < hi, got {tuple(subset_by_value)}")
        # |eigenvalue| <= n max|a(i,j)| over the triangle read: infinite ends become finite ones
        # beyond every eigenvalue (a NaN or Inf there gives NaN eigenvalues whatever the bounds)
        if np.isinf(lo) or np.isinf(hi):
            if on_gpu:
                from . import _device
                k = _device.kind_of(a)
                top = k.amax(k.triangle(a, lower))
            else:
                top = float(np.max(np.abs(np.tril(a) if lower else np.triu(a)))) if n else 0.0
            far = 2.0 * n * top + 1.0
            if not np.isfinite(far):
                far = np.finfo(float).max
            lo, hi = max(lo, -far), min(hi, far)
        kw = {"range": "V", "vl": lo, "vu": hi}
    try:
        if subset or drivers[driver] == "evx":
            return _api.syevx(a, jobz=jobz, uplo=uplo, **kw) if kw else _api.syevx(a, jobz=jobz, uplo=uplo)
        return _api.syevd(a, jobz=jobz, uplo=uplo)
    except _api.GpueigError as err:
        if err.info > 0:
            raise np.linalg.LinAlgError(f"eigh: {err}") from err
        raise


def _select(select, select_range, n):
    """SciPy's select/select_range as stebz's range and bounds."""
    kind = select.lower() if isinstance(select, str) else select
    if kind in ("a", "all", 0):
        rng, args = "A", {}
    elif kind in ("v", "value", 1) or kind in ("i", "index", 2):
        if select_range is None or len(select_range) != 2:
            raise ValueError("select_range must be a pair (min, max) with select 'v' or 'i'")
        lo, hi = select_range
        if kind in ("v", "value", 1):
            rng, args = "V", {"vl": float(lo), "vu": float(hi)}
        else:
            if int(lo) != lo or int(hi) != hi:
                raise ValueError(f"select_range must hold integers with select 'i', got {select_range}")
            if not 0 <= lo <= hi < n:
                raise ValueError(f"select_range {select_range} must satisfy 0 <= min <= max < {n}")
            rng, args = "I", {"il": int(lo) + 1, "iu": int(hi) + 1}
    else:
        raise ValueError(f"select must be 'a', 'v' or 'i', got {select!r}")
    return rng, args


def _tridiagonal(d, e, check_finite):
    d = _api._vector(d, "d")
    e = _api._vector(e, "e")
    if e.size != max(d.size - 1, 0):
        raise ValueError(f"e must have length {max(d.size - 1, 0)}, got {e.size}")
    return _finite(d, "d", check_finite), _finite(e, "e", check_finite)


def eigvalsh_tridiagonal(d, e, select="a", select_range=None, check_finite=True, tol=0.0):
    """Eigenvalues of the symmetric tridiagonal matrix with diagonal d and off-diagonal e,
    ascending, as scipy.linalg.eigvalsh_tridiagonal: bisection (gpu_stebz). CuPy arrays or
    PyTorch CUDA tensors are solved by gpu_stebz_dev on their library's current stream (only its
    O(n) bookkeeping on the host) and w comes back as the same kind of array.

    select: 'a' all; 'v' those in the half-open interval select_range = (min, max];
    'i' those of 0-based indices select_range = (min, max), inclusive. tol: the absolute
    tolerance of bisection (0: LAPACK's default). Scaled by a power of two for the computation.

    Example::

        >>> gpueig.eigvalsh_tridiagonal(np.full(4, 2.0), np.ones(3), select="i", select_range=(0, 1))
        array([0.38196601, 1.38196601])

    Raises:
        ValueError: shapes that do not match, Inf/NaN (with check_finite), a bad select or
            select_range.
        TypeError: d or e not real float64 or integer data (NumPy, CuPy, or PyTorch CUDA
            tensors, both of one kind).
        GpueigError: bisection did not converge, or a library error.
    """
    if _api._on_gpu(d) or _api._on_gpu(e):  # CuPy / PyTorch CUDA: gpu_stebz_dev
        from . import _device
        _finite_anywhere(d, "d", check_finite)
        _finite_anywhere(e, "e", check_finite)
        rng, args = _select(select, select_range, d.shape[0])
        return _device.eigvalsh_tridiagonal(d, e, rng, args, tol)
    d, e = _tridiagonal(d, e, check_finite)
    rng, args = _select(select, select_range, d.size)
    if d.size == 0:
        return np.empty(0)
    s = _power_of_two_scale(d, e)
    if rng == "V":
        args = {"vl": args["vl"] * s, "vu": args["vu"] * s}
    return _api.stebz(d * s, e * s, range=rng, abstol=float(tol) * s, **args).w / s


def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None, check_finite=True,
                     tol=0.0):
    """Eigenvalues and eigenvectors of the symmetric tridiagonal matrix (d, e), as
    scipy.linalg.eigh_tridiagonal: bisection (gpu_stebz, ORDER 'B') and inverse iteration
    (gpu_stein, DSTEIN's method). select and select_range as in eigvalsh_tridiagonal. Returns
    (w, v): w ascending, v[:, i] the unit eigenvector for w[i]; w alone with eigvals_only. CuPy
    arrays or PyTorch CUDA tensors go to gpu_stebz_dev and gpu_stein_dev (v computed in GPU
    memory) and w, v come back as the same kind of array.

    Example::

        >>> w, v = gpueig.eigh_tridiagonal(np.full(4, 2.0), np.ones(3), select="i", select_range=(0, 0))
        >>> w
        array([0.38196601])

    Raises:
        ValueError: shapes that do not match, Inf/NaN (with check_finite), a bad select or
            select_range.
        numpy.linalg.LinAlgError: some eigenvectors did not converge (their 1-based indices in
            the message).
        TypeError: d or e not real float64 or integer data (NumPy, CuPy, or PyTorch CUDA
            tensors, both of one kind).
        GpueigError: bisection did not converge, or a library error.
    """
    if eigvals_only:
        return eigvalsh_tridiagonal(d, e, select, select_range, check_finite, tol)
    if _api._on_gpu(d) or _api._on_gpu(e):  # CuPy / PyTorch CUDA: gpu_stebz_dev, gpu_stein_dev
        from . import _device
        _finite_anywhere(d, "d", check_finite)
        _finite_anywhere(e, "e", check_finite)
        rng, args = _select(select, select_range, d.shape[0])
        try:
            return _device.eigh_tridiagonal(d, e, rng, args, tol)
        except _api.GpueigError as err:
            if err.info > 0 and err.routine == "stein":
                raise np.linalg.LinAlgError(
                    f"{err.info} eigenvectors did not converge (1-based: {list(err.ifail)})") from err
            raise
    d, e = _tridiagonal(d, e, check_finite)
    rng, args = _select(select, select_range, d.size)
    if d.size == 0:
        return np.empty(0), np.empty((0, 0))
    s = _power_of_two_scale(d, e)
    if rng == "V":
        args = {"vl": args["vl"] * s, "vu": args["vu"] * s}
    ds, es = d * s, e * s
    r = _api.stebz(ds, es, range=rng, order="B", abstol=float(tol) * s, **args)
    try:
        z = _api.stein(ds, es, r.w, r.iblock, r.isplit)
    except _api.GpueigError as err:
        if err.info > 0:
            raise np.linalg.LinAlgError(
                f"{err.info} eigenvectors did not converge (1-based: {list(err.ifail)})") from err
        raise
    order = np.argsort(r.w, kind="stable")
    return r.w[order] / s, np.asfortranarray(z[:, order])


def lu_factor(a, check_finite=True):
    """LU factorization with partial pivoting, as scipy.linalg.lu_factor: returns (lu, piv), piv
    0-based, for lu_solve (this one's or SciPy's). An exactly singular U warns (as SciPy does)
    and returns the completed factors. A CuPy array or PyTorch CUDA tensor is factored in GPU
    memory, and lu, piv are that kind of array (for this module's lu_solve).

    Example::

        >>> lu, piv = gpueig.lu_factor(a)
        >>> x = gpueig.lu_solve((lu, piv), b)

    Raises:
        ValueError: a is not 2-D, or holds Inf/NaN (with check_finite).
        TypeError: a is not real float64 or integer data (NumPy, CuPy, or a PyTorch CUDA
            tensor).
        GpueigError: a library error.
    """
    _finite_anywhere(a, "a", check_finite, 2)
    try:
        return _api.getrf(a)
    except _api.GpueigError as err:
        if err.info <= 0:
            raise
        warnings.warn(f"Diagonal number {err.info} is exactly zero. Singular matrix.",
                      RuntimeWarning, stacklevel=2)
        return err.lu, err.piv


def lu_solve(lu_and_piv, b, trans=0, check_finite=True):
    """Solves a x = b (trans 0), a^T x = b (1) or a^H x = b (2) from lu_factor's (lu, piv), as
    scipy.linalg.lu_solve. Returns x shaped as b; with CuPy arrays or PyTorch CUDA tensors the
    solve runs in GPU memory and x is that kind of array.

    Raises:
        ValueError: shapes that do not match, a bad trans or piv, Inf/NaN (with check_finite).
        TypeError: non-real data, GPU arrays other than CuPy's and PyTorch's, or host and GPU
            arrays mixed.
        GpueigError: a library error.
    """
    lu, _ = lu_and_piv
    _finite_anywhere(lu, "lu", check_finite, 2)
    _finite_anywhere(b, "b", check_finite)
    return _api.getrs(lu_and_piv, b, trans=trans)


def solve_banded(l_and_u, ab, b, check_finite=True):
    """Solves the banded system a x = b given in LAPACK band storage, as scipy.linalg.solve_banded,
    for the tridiagonal band (l, u) = (1, 1): ab[0, 1:] the superdiagonal, ab[1] the diagonal,
    ab[2, :-1] the subdiagonal (gpu_gtsv_pcr). b is (n,) or (n, nrhs). ab and b as CuPy arrays or
    PyTorch CUDA tensors are solved in GPU memory (gpu_gtsv_dev), x the same kind of array.

    Example::

        >>> ab = np.array([[0, -1, -1], [2, 2, 2], [-1, -1, 0]], dtype=float)
        >>> gpueig.solve_banded((1, 1), ab, np.ones(3))
        array([1.5, 2. , 1.5])

    Raises:
        ValueError: (l, u) other than (1, 1) (not implemented: use scipy.linalg.solve_banded),
            ab not of shape (3, n), Inf/NaN (with check_finite).
        numpy.linalg.LinAlgError: the matrix is exactly singular.
        TypeError: non-real data, GPU arrays other than CuPy's and PyTorch's, or host and GPU
            arrays mixed.
    """
    if tuple(l_and_u) != (1, 1):
        raise ValueError(f"only the tridiagonal band (l, u) = (1, 1) is implemented, got {tuple(l_and_u)}")
    if _api._on_gpu(ab):  # CuPy / PyTorch CUDA: solved in GPU memory (gpu_gtsv_dev)
        band = ab
        if band.ndim != 2 or band.shape[0] != 3:
            raise ValueError(f"ab must have 3 rows for (1, 1), got shape {tuple(band.shape)}")
        _finite_anywhere(band, "ab", check_finite)
        _finite_anywhere(b, "b", check_finite)
    else:
        band = _api._as_real(ab, "ab", 2)
        if band.shape[0] != 3:
            raise ValueError(f"ab must have 3 rows for (1, 1), got shape {band.shape}")
        _finite(band, "ab", check_finite)
        _finite(_api._host_array(b, "b"), "b", check_finite)
    try:
        return _api.gtsv(band[2, :-1], band[1], band[0, 1:], b)
    except _api.GpueigError as err:
        if err.info > 0:
            raise _singular(err) from err
        raise


def solve(a, b, check_finite=True, assume_a="gen"):
    """Solves a x = b for a square a, as scipy.linalg.solve (assume_a 'gen': LU with partial
    pivoting, gpu_gesv_crout, on the GPU where it pays). b is (n,) or (n, nrhs); x has b's shape.
    CuPy arrays or PyTorch CUDA tensors are solved in GPU memory (gpu_gesv_dev); x is then that
    kind of array.

    Example::

        >>> gpueig.solve(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0]))
        array([2., 3.])

    Raises:
        ValueError: a not square, b of another row count, Inf/NaN (with check_finite), an
            assume_a other than 'gen' (not implemented: use scipy.linalg.solve).
        numpy.linalg.LinAlgError: a is exactly singular.
        TypeError: non-real data, GPU arrays other than CuPy's and PyTorch's, or host and GPU
            arrays mixed.
        GpueigError: a library error.
    """
    if assume_a not in ("gen", "general"):
        raise ValueError(f"only assume_a='gen' is implemented, got {assume_a!r}")
    _finite_anywhere(a, "a", check_finite, 2)
    _finite_anywhere(b, "b", check_finite)
    try:
        return _api.gesv(a, b)[0]
    except _api.GpueigError as err:
        if err.info > 0:
            raise _singular(err) from err
        raise
