"""The Python package against SciPy, on the backend named by GPUEIG_TEST_BACKEND (default cpu)."""
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.linalg as sla

import gpueig

BACKEND = os.environ.get("GPUEIG_TEST_BACKEND", "cpu")
EPS = np.finfo(float).eps
rng = np.random.default_rng(20261121)


@pytest.fixture(autouse=True)
def policy():
    gpueig.set_backend(BACKEND)
    yield
    gpueig.set_backend("auto")


def test_version_and_info():
    assert gpueig.version() == "0.1.0"
    assert "backend policy: " + BACKEND in gpueig.info()
    assert isinstance(gpueig.gpu_available(), bool)
    assert gpueig.backend_for("gtsv", 10) in ("gpu", "cpu")
    with pytest.raises(ValueError):
        gpueig.backend_for("potrf", 10)
    with pytest.raises(ValueError):
        gpueig.set_backend("fastest")


def test_missing_library_error_names_what_was_tried():
    env = dict(os.environ, GPUEIG_LIBRARY="/nonexistent/libgpueig.so")
    env.pop("LD_LIBRARY_PATH", None)
    code = "import gpueig\ntry:\n    gpueig.version()\nexcept gpueig.LibraryNotFoundError as e:\n    print(e)\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    if not out:
        pytest.skip("libgpueig is installed where the system loader finds it")
    assert "/nonexistent/libgpueig.so" in out and "system loader" in out and "GPUEIG_LIBRARY" in out


# ---------------------------------------------------------------- stebz
def tridiagonal(n):
    return rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)


@pytest.mark.parametrize("n", [1, 2, 3, 17, 64, 201])
@pytest.mark.parametrize("order", ["E", "B"])
def test_stebz_matches_scipy(n, order):
    d, e = tridiagonal(n)
    ref = sla.eigh_tridiagonal(d, e, eigvals_only=True)
    tol = 30 * n * EPS * max(1.0, np.abs(ref).max())
    r = gpueig.stebz(d, e, order=order)
    assert r.w.size == n and np.allclose(np.sort(r.w), ref, rtol=0, atol=tol)
    if order == "E":
        assert np.all(np.diff(r.w) >= 0)
    assert r.nsplit == r.isplit.size and r.isplit[-1] == n and np.all(r.iblock >= 1)
    il, iu = 1, max(1, n // 3)
    ri = gpueig.stebz(d, e, range="I", il=il, iu=iu)
    assert np.allclose(ri.w, ref[il - 1:iu], rtol=0, atol=tol)
    if n > 2:
        gaps = np.argmax(np.diff(ref))
        vl, vu = ref[0] - 1, (ref[gaps] + ref[gaps + 1]) / 2
        rv = gpueig.stebz(d, e, range="V", vl=vl, vu=vu)
        assert np.allclose(rv.w, ref[ref <= vu], rtol=0, atol=tol)


def test_stebz_analytic_121():
    n = 300
    w = gpueig.stebz(np.full(n, 2.0), np.ones(n - 1), range="I", il=1, iu=10).w
    exact = 2 - 2 * np.cos(np.arange(1, 11) * np.pi / (n + 1))
    assert np.allclose(w, exact, rtol=0, atol=30 * n * EPS * 4)


def test_stebz_validation():
    d, e = tridiagonal(5)
    with pytest.raises(ValueError, match="argument 9"):
        gpueig.stebz(np.array([1.0, np.nan, 2, 3, 4]), e)
    with pytest.raises(ValueError):
        gpueig.stebz(d, e[:-1])
    with pytest.raises(ValueError):
        gpueig.stebz(d, e, range="V")
    with pytest.raises(ValueError):
        gpueig.stebz(d, e, range="I", il=3, iu=9)
    with pytest.raises(TypeError):
        gpueig.stebz(d.astype(complex), e)
    assert gpueig.stebz([], []).w.size == 0


# ---------------------------------------------------------------- gtsv
def banded(dl, d, du):
    n = d.size
    ab = np.zeros((3, n))
    ab[0, 1:], ab[1], ab[2, :-1] = du, d, dl
    return ab


@pytest.mark.parametrize("n", [1, 2, 3, 100, 1023, 70001])
@pytest.mark.parametrize("nrhs", [None, 1, 4])
def test_gtsv_matches_solve_banded(n, nrhs):
    dl, du = rng.uniform(-1, 1, n - 1), rng.uniform(-1, 1, n - 1)
    d = 3 + rng.uniform(0, 1, n)
    b = rng.uniform(-1, 1, n if nrhs is None else (n, nrhs))
    keep = [a.copy() for a in (dl, d, du, b)]
    x = gpueig.gtsv(dl, d, du, b)
    assert x.shape == b.shape
    for a, k in zip((dl, d, du, b), keep):
        assert np.array_equal(a, k), "inputs must not be modified"
    ref = sla.solve_banded((1, 1), banded(dl, d, du), b)
    assert np.allclose(x, ref, rtol=1e-13, atol=1e-13)
    if BACKEND == "gpu":
        assert gpueig.backend() == "gpu"


def test_gtsv_accepts_fortran_order_and_integers():
    n = 50
    b = np.asfortranarray(rng.uniform(-1, 1, (n, 3)))
    x = gpueig.gtsv(np.full(n - 1, -1), np.full(n, 4), np.full(n - 1, -1), b)
    ref = sla.solve_banded((1, 1), banded(-np.ones(n - 1), 4 * np.ones(n), -np.ones(n - 1)), b)
    assert np.allclose(x, ref)


def test_gtsv_singular_raises_with_info():
    d = np.array([1.0, 0.0, 1.0])
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.gtsv(np.array([0.0, 0.0]), d, np.array([0.0, 0.0]), np.ones(3))
    assert err.value.info == 2


def test_gtsv_validation():
    with pytest.raises(ValueError):
        gpueig.gtsv(np.ones(3), np.ones(3), np.ones(2), np.ones(3))
    with pytest.raises(ValueError):
        gpueig.gtsv(np.ones(2), np.ones(3), np.ones(2), np.ones(4))
    with pytest.raises(TypeError):
        gpueig.gtsv(np.ones(2), np.ones(3, dtype=complex), np.ones(2), np.ones(3))


@pytest.mark.parametrize("n,batch", [(1, 3), (2, 1), (37, 1000), (3000, 3)])
def test_gtsv_batch_matches_solve_banded(n, batch):
    dl, du = rng.uniform(-1, 1, (batch, n - 1)), rng.uniform(-1, 1, (batch, n - 1))
    d = 3 + rng.uniform(0, 1, (batch, n))
    b = rng.uniform(-1, 1, (batch, n))
    keep = [a.copy() for a in (dl, d, du, b)]
    x = gpueig.gtsv_batch(dl, d, du, b)
    assert x.shape == (batch, n)
    for a, k in zip((dl, d, du, b), keep):
        assert np.array_equal(a, k), "inputs must not be modified"
    for k in range(0, batch, max(1, batch // 10)):
        ref = sla.solve_banded((1, 1), banded(dl[k], d[k], du[k]), b[k])
        assert np.allclose(x[k], ref, rtol=1e-13, atol=1e-13)


def test_gtsv_batch_singular_system_reported():
    n, batch = 4, 5
    dl, du = np.full((batch, n - 1), -1.0), np.full((batch, n - 1), -1.0)
    d, b = np.full((batch, n), 4.0), np.ones((batch, n))
    d[3, 2], dl[3, 1], dl[3, 2], du[3, 1], du[3, 2] = 0, 0, 0, 0, 0
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.gtsv_batch(dl, d, du, b)
    assert (err.value.system, err.value.row, err.value.info) == (3, 3, 3 * n + 3)
    ref = sla.solve_banded((1, 1), banded(dl[0], d[0], du[0]), b[0])
    assert np.allclose(err.value.x[0], ref)


def test_gtsv_batch_validation():
    with pytest.raises(ValueError):
        gpueig.gtsv_batch(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError):
        gpueig.gtsv_batch(np.ones((2, 2)), np.ones((2, 3)), np.ones((2, 2)), np.ones((3, 3)))
    assert gpueig.gtsv_batch(np.ones((0, 2)), np.ones((0, 3)), np.ones((0, 2)),
                             np.ones((0, 3))).shape == (0, 3)


# ---------------------------------------------------------------- getrf
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (64, 64), (40, 25), (25, 40)])
def test_getrf_matches_lu_factor(shape):
    a = rng.uniform(-1, 1, shape)
    keep = a.copy()
    lu, piv = gpueig.getrf(a)
    assert np.array_equal(a, keep)
    ref_lu, ref_piv = sla.lu_factor(a)
    assert np.array_equal(piv, ref_piv)
    assert np.allclose(lu, ref_lu, rtol=0, atol=100 * EPS * shape[0])
    if shape[0] == shape[1]:
        b = rng.uniform(-1, 1, shape[0])
        x = sla.lu_solve((lu, piv), b)
        assert np.linalg.norm(a @ x - b, 1) <= 30 * EPS * np.linalg.norm(a, 1) * np.linalg.norm(x, 1) * shape[0]


@pytest.mark.parametrize("n,nrhs", [(1, 1), (7, 1), (60, 3), (130, 100)])
def test_gesv_and_getrs_solve(n, nrhs):
    a = rng.uniform(-1, 1, (n, n))
    b = rng.uniform(-1, 1, (n, nrhs)) if nrhs > 1 else rng.uniform(-1, 1, n)
    keep_a, keep_b = a.copy(), b.copy()
    x, lu, piv = gpueig.gesv(a, b)
    assert np.array_equal(a, keep_a) and np.array_equal(b, keep_b)
    assert x.shape == b.shape
    bound = 30 * EPS * np.linalg.norm(a, 1) * n
    assert np.linalg.norm(a @ x - b, 1) <= bound * np.linalg.norm(x, 1)
    assert np.array_equal(piv, sla.lu_factor(a)[1])
    for trans, op in ((0, a), (1, a.T), (2, a.T)):
        y = gpueig.getrs((lu, piv), b, trans=trans)
        assert np.allclose(y, sla.lu_solve((lu, piv), b, trans=trans), rtol=0,
                           atol=1e3 * EPS * np.max(np.abs(y)))
        assert np.linalg.norm(op @ y - b, 1) <= bound * np.linalg.norm(y, 1)


def test_gesv_singular_and_bad_arguments():
    a = rng.uniform(-1, 1, (5, 5))
    a[:, 1] = 0
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.gesv(a, np.ones(5))
    assert err.value.info == 2
    with pytest.raises(ValueError):
        gpueig.gesv(np.ones((3, 4)), np.ones(3))
    with pytest.raises(ValueError):
        gpueig.gesv(np.eye(3), np.ones(4))
    with pytest.raises(ValueError):
        gpueig.getrs((np.eye(3), np.array([0, 5, 2])), np.ones(3))
    with pytest.raises(ValueError):
        gpueig.getrs((np.eye(3), np.arange(3)), np.ones(3), trans=3)


@pytest.mark.parametrize("n", [1, 2, 17, 120])
def test_stein_vectors_of_stebz_values(n):
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, max(n - 1, 0))
    r = gpueig.stebz(d, e, order="B")
    z = gpueig.stein(d, e, r.w, r.iblock, r.isplit)
    assert z.shape == (n, n)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    assert np.max(np.abs(t @ z - z * r.w)) <= 30 * n * EPS * max(np.max(np.abs(t)), 1e-300)
    assert np.max(np.abs(z.T @ z - np.eye(n))) <= 30 * n * EPS
    part = gpueig.stebz(d, e, range="I", il=1, iu=max(1, n // 2), order="B")
    zp = gpueig.stein(d, e, part.w, part.iblock, part.isplit)
    assert zp.shape == (n, part.w.size)
    with pytest.raises(ValueError):
        gpueig.stein(d, e, r.w[::-1] if n > 1 else [np.nan], r.iblock, r.isplit)


@pytest.mark.parametrize("n", [1, 2, 40, 130])
@pytest.mark.parametrize("uplo", ["U", "L"])
def test_syevd_eigenpairs(n, uplo):
    a = rng.uniform(-1, 1, (n, n))
    a = a + a.T
    keep = a.copy()
    w, z = gpueig.syevd(a, uplo=uplo)
    assert np.array_equal(a, keep)
    assert np.all(np.diff(w) >= 0)
    scale = max(np.max(np.abs(a)), 1e-300)
    assert np.max(np.abs(a @ z - z * w)) <= 30 * n * EPS * scale * n
    assert np.max(np.abs(z.T @ z - np.eye(n))) <= 30 * n * EPS
    assert np.max(np.abs(gpueig.syevd(a, jobz="N") - sla.eigvalsh(a))) <= 30 * n * EPS * scale
    with pytest.raises(ValueError):
        gpueig.syevd(a, jobz="X")


@pytest.mark.parametrize("n", [1, 2, 40, 130])
@pytest.mark.parametrize("sel", ["A", "I", "V"])
def test_syevx_selected(n, sel):
    a = rng.uniform(-1, 1, (n, n))
    a = a + a.T
    keep = a.copy()
    ref = sla.eigvalsh(a)
    kw = {"A": {}, "I": {"il": 1, "iu": max(1, n // 4)},
          "V": {"vl": ref[0] - 1, "vu": (ref[0] + ref[-1]) / 2 if n > 1 else ref[0] + 1}}[sel]
    w, z = gpueig.syevx(a, range=sel, **kw)
    assert np.array_equal(a, keep)
    want = ref if sel == "A" else ref[:max(1, n // 4)] if sel == "I" else ref[ref <= kw["vu"]]
    assert w.size == want.size and np.all(np.diff(w) >= 0)
    scale = max(np.max(np.abs(a)), 1e-300)
    assert np.max(np.abs(w - want)) <= 30 * n * EPS * scale
    assert z.shape == (n, w.size)
    assert np.max(np.abs(a @ z - z * w)) <= 30 * n * EPS * scale * n
    assert np.max(np.abs(z.T @ z - np.eye(w.size))) <= 30 * n * EPS
    wn = gpueig.syevx(a, jobz="N", range=sel, **kw)
    assert wn.size == w.size and np.all(np.abs(wn - w) <= 30 * n * EPS * scale)
    with pytest.raises(ValueError):
        gpueig.syevx(a, range="I")  # il, iu missing
    with pytest.raises(ValueError):
        gpueig.syevx(a, range="V", vl=1.0, vu=0.0)


def test_getrf_singular_raises_with_factors():
    a = rng.uniform(-1, 1, (6, 6))
    a[:, 2] = 0
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.getrf(a)
    assert err.value.info == 3 and err.value.lu.shape == (6, 6) and err.value.piv.size == 6


# ---------------------------------------------------------------- sytrd_givens
@pytest.mark.parametrize("n", [1, 2, 3, 31, 64])
@pytest.mark.parametrize("uplo", ["U", "L"])
def test_sytrd_givens(n, uplo):
    a = rng.uniform(-1, 1, (n, n))
    a = a + a.T
    given = np.triu(a) if uplo == "U" else np.tril(a)
    given[given == 0] = np.nan  # the other triangle must not be read
    given[np.diag_indices(n)] = np.diag(a)
    d, e, q = gpueig.sytrd_givens(given, vect="V", uplo=uplo)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    scale = n * EPS * np.linalg.norm(a, 1)
    assert np.linalg.norm(q @ t @ q.T - a, 1) <= 30 * scale
    assert np.linalg.norm(q.T @ q - np.eye(n), 1) <= 30 * n * EPS
    ref = sla.eigvalsh(a)
    assert np.allclose(sla.eigh_tridiagonal(d, e, eigvals_only=True) if n > 1 else d, ref,
                       rtol=0, atol=30 * scale)
    d2, e2, none = gpueig.sytrd_givens(given, vect="N", uplo=uplo)
    assert none is None and np.allclose(d2, d) and np.allclose(e2, e)
    q0 = sla.qr(rng.uniform(-1, 1, (n, n)))[0]
    _, _, qu = gpueig.sytrd_givens(given, vect="U", uplo=uplo, q=q0)
    assert np.allclose(qu, q0 @ q, atol=1e-12)


# ---------------------------------------------------------------- toeplitz_eig
@pytest.mark.parametrize("n", [1, 2, 3, 10, 33, 64])
def test_toeplitz_eig_matches_dense(n):
    t = rng.uniform(-1, 1, n)
    dense = sla.toeplitz(t)
    ref = sla.eigvalsh(dense)
    tol = 30 * n * EPS * np.linalg.norm(dense, 1)
    w = gpueig.toeplitz_eig(t)
    assert np.allclose(w, ref, rtol=0, atol=tol)
    w, z = gpueig.toeplitz_eig(t, jobz="V")
    assert np.linalg.norm(dense @ z - z * w, 1) <= tol
    assert np.linalg.norm(z.T @ z - np.eye(n), 1) <= 30 * n * EPS
    k = max(1, n // 4)
    assert np.allclose(gpueig.toeplitz_eig(t, range="I", il=1, iu=k), ref[:k], rtol=0, atol=tol)


def test_toeplitz_structured_eigenpairs(monkeypatch):
    """A few eigenpairs by the structured method (T never formed): z sized for the wanted count,
    the pairs those of the dense T; range 'V' with vectors past n = 16384 is refused clearly."""
    monkeypatch.setenv("GPUEIG_TOEPLITZ_METHOD", "structured")
    n = 300
    t = rng.uniform(-1, 1, n) / (1 + 0.01 * np.arange(n))
    t[0] = 4
    dense = sla.toeplitz(t)
    ref = sla.eigvalsh(dense)
    tol = 30 * n * EPS * np.linalg.norm(dense, 1)
    w, z = gpueig.toeplitz_eig(t, jobz="V", range="I", il=3, iu=8)
    assert z.shape == (n, 6)
    assert np.allclose(w, ref[2:8], rtol=0, atol=tol)
    assert np.linalg.norm(dense @ z - z * w, 1) <= tol
    assert np.linalg.norm(z.T @ z - np.eye(6), 1) <= 30 * n * EPS
    with pytest.raises(ValueError, match="range='I'"):
        gpueig.toeplitz_eig(np.r_[2.0, -1.0, np.zeros(20000 - 2)], jobz="V", range="V", vl=0, vu=1e-6)


def test_toeplitz_rejects_nan():
    with pytest.raises(ValueError, match="argument 4"):
        gpueig.toeplitz_eig(np.array([1.0, np.inf, 0.5]))


# ---------------------------------------------------------------- argument types and ranges
class _FakeCudaArray:
    """Stands for a CuPy array or a Numba device array: GPU memory, no NumPy conversion."""
    shape, dtype = (4,), np.dtype(np.float64)
    __cuda_array_interface__ = {"shape": (4,), "typestr": "<f8", "data": (0, False), "version": 3}


class _FakeDlpackCuda:
    """Stands for a PyTorch CUDA tensor: DLPack device kDLCUDA (2)."""
    def __dlpack_device__(self):
        return (2, 0)

    def __array__(self, *args, **kwargs):  # torch raises here for CUDA tensors; never reached
        raise AssertionError("converted a GPU array to NumPy")


@pytest.mark.parametrize("gpu_array", [_FakeCudaArray, _FakeDlpackCuda])
def test_gpu_arrays_are_refused_with_what_to_do(gpu_array):
    d, e = tridiagonal(4)
    a = rng.uniform(-1, 1, (4, 4))
    # Every routine has a device path: it takes CuPy and PyTorch arrays only, all on the GPU.
    for call in (lambda g: gpueig.syevd(g), lambda g: gpueig.syevx(g, range="I", il=1, iu=1),
                 lambda g: gpueig.eigh(g)):
        with pytest.raises(TypeError, match="GPU array gpueig does not take.*CuPy.*PyTorch"):
            call(gpu_array())
    with pytest.raises(TypeError, match="host array and the others are GPU arrays"):
        gpueig.gesv(a, gpu_array())
    with pytest.raises(TypeError, match="host array and the others are GPU arrays"):
        gpueig.getrs((a, np.arange(4)), gpu_array())
    with pytest.raises(TypeError, match="host array and the others are GPU arrays"):
        gpueig.gtsv(e[:3], d, e[:3], gpu_array())
    with pytest.raises(TypeError, match="host array and the others are GPU arrays"):
        gpueig.stebz(gpu_array(), e)
    with pytest.raises(TypeError, match="GPU array gpueig does not take.*CuPy.*PyTorch"):
        gpueig.getrf(gpu_array())
    with pytest.raises(TypeError, match="GPU array gpueig does not take.*CuPy.*PyTorch"):
        gpueig.stebz(gpu_array(), gpu_array())
    with pytest.raises(TypeError, match="GPU array gpueig does not take.*CuPy.*PyTorch"):
        gpueig.toeplitz_eig(gpu_array())
    with pytest.raises(TypeError, match="GPU array gpueig does not take.*CuPy.*PyTorch"):
        gpueig.sytrd_givens(gpu_array())


def _symmetric_one_triangle(n, lower):
    """(a, junk): a random symmetric a, and junk equal to it in the triangle `lower` names and 7
    in the other, which the routines must not read."""
    a = rng.uniform(-1, 1, (n, n))
    a = a + a.T
    junk = a.copy()
    junk[np.triu_indices(n, 1) if lower else np.tril_indices(n, -1)] = 7.0
    return a, junk


def _device_arrays(lib):
    """(to_device, to_host) for a GPU array library that is installed with a usable GPU, else skip."""
    mod = pytest.importorskip(lib)
    if not gpueig.gpu_available():
        pytest.skip("no usable GPU")
    if lib == "torch":
        if not mod.cuda.is_available():
            pytest.skip("PyTorch without CUDA")
        return (lambda x: mod.as_tensor(x, device="cuda")), (lambda x: x.cpu().numpy())
    return mod.asarray, mod.asnumpy


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_lu_on_device_arrays(lib):
    """getrf/getrs/gesv and lu_factor/lu_solve/solve on CuPy arrays and PyTorch CUDA tensors:
    the same kind of array back, answers as the host path's, inputs untouched."""
    dev, host = _device_arrays(lib)
    for n, nrhs in [(1, 1), (7, 2), (200, 3), (513, 1)]:
        a = rng.uniform(-1, 1, (n, n)) + n * np.eye(n) * (n % 2)
        b = rng.uniform(-1, 1, (n, nrhs))
        da, db = dev(a), dev(b)
        lu, piv = gpueig.lu_factor(da)
        assert type(lu) is type(da) and type(piv) is type(da)
        lu_h, piv_h = host(lu), host(piv)
        p = np.arange(n)
        for i, j in enumerate(piv_h):
            p[[i, j]] = p[[j, i]]
        l_part = np.tril(lu_h, -1) + np.eye(n)
        assert np.abs(l_part @ np.triu(lu_h) - a[p]).max() <= 30 * n * EPS * np.abs(a).max()
        for trans in (0, 1):
            x = gpueig.lu_solve((lu, piv), db, trans=trans)
            ref = np.linalg.solve(a.T if trans else a, b)
            assert type(x) is type(db)
            assert np.allclose(host(x), ref, rtol=1e-9, atol=1e-12)
        x = gpueig.solve(da, db[:, 0])
        assert tuple(x.shape) == (n,)
        assert np.allclose(host(x), np.linalg.solve(a, b[:, 0]), rtol=1e-9, atol=1e-12)
        assert np.array_equal(host(da), a) and np.array_equal(host(db), b)
    singular = dev(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(np.linalg.LinAlgError):
        gpueig.solve(singular, dev(np.ones(2)))
    with pytest.warns(RuntimeWarning, match="exactly zero"):
        gpueig.lu_factor(singular)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.solve(dev(np.array([[np.nan, 0.0], [0.0, 1.0]])), dev(np.ones(2)))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.getrf(dev(np.eye(3, dtype=np.float32)))
    with pytest.raises(TypeError, match="host array"):
        gpueig.solve(dev(np.eye(2)), np.ones(2))


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_tridiagonal_solves_on_device_arrays(lib):
    """gtsv, gtsv_batch and solve_banded on CuPy arrays and PyTorch CUDA tensors: the same kind
    of array back, answers as the host path's (one that needs pivoting included), inputs untouched,
    singular systems raising as on the host."""
    dev, host = _device_arrays(lib)
    for n, nrhs in [(1, 1), (2, 3), (100, 1), (3000, 2)]:
        dl, du = rng.uniform(-1, 1, max(n - 1, 0)), rng.uniform(-1, 1, max(n - 1, 0))
        for d in (rng.uniform(3, 4, n), rng.uniform(-1, 1, n)):  # dominant, then pivoting needed
            b = rng.uniform(-1, 1, (n, nrhs))
            args = [dev(v) for v in (dl, d, du, b)]
            x = gpueig.gtsv(*args)
            assert type(x) is type(args[3]) and tuple(x.shape) == (n, nrhs)
            assert np.allclose(host(x), gpueig.gtsv(dl, d, du, b), rtol=1e-9, atol=1e-9)
            x1 = gpueig.gtsv(args[0], args[1], args[2], dev(b[:, 0]))
            assert tuple(x1.shape) == (n,)
            assert np.array_equal(host(args[3]), b) and np.array_equal(host(args[1]), d)
    ab = np.array([[0, -1, -1], [2, 2, 2], [-1, -1, 0]], dtype=float)
    assert np.allclose(host(gpueig.solve_banded((1, 1), dev(ab), dev(np.ones(3)))), [1.5, 2.0, 1.5])
    with pytest.raises(np.linalg.LinAlgError):
        gpueig.solve_banded((1, 1), dev(np.zeros((3, 3))), dev(np.ones(3)))
    batch, n = 5, 40
    d = rng.uniform(3, 4, (batch, n))
    dl, du = rng.uniform(-1, 1, (batch, n - 1)), rng.uniform(-1, 1, (batch, n - 1))
    b = rng.uniform(-1, 1, (batch, n))
    x = gpueig.gtsv_batch(dev(dl), dev(d), dev(du), dev(b))
    assert type(x) is type(dev(b))
    assert np.allclose(host(x), gpueig.gtsv_batch(dl, d, du, b), rtol=1e-9, atol=1e-12)
    d[3] = 0.0
    dl[3] = 0.0
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.gtsv_batch(dev(dl), dev(d), dev(du), dev(b))
    assert err.value.system == 3
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.gtsv(dev(dl[0].astype(np.float32)), dev(d[0]), dev(du[0]), dev(b[0]))


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_eigvalsh_on_device_arrays(lib):
    """eigvalsh on CuPy arrays and PyTorch CUDA tensors (gpu_sytrd_dev): the same kind of array
    back, values as SciPy's to LAPACK's tolerance, only the chosen triangle read, input untouched."""
    dev, host = _device_arrays(lib)
    for n in (1, 2, 40, 300, 1100):
        for lower in (True, False):
            a, junk = _symmetric_one_triangle(n, lower)
            da = dev(junk)
            w = gpueig.eigvalsh(da, lower=lower)
            assert type(w) is type(da) and tuple(w.shape) == (n,)
            ref = sla.eigvalsh(a)
            assert np.max(np.abs(host(w) - ref)) <= 30 * n * EPS * max(1.0, np.abs(ref).max())
            assert np.array_equal(host(da), junk)
    assert tuple(gpueig.eigvalsh(dev(np.zeros((0, 0)))).shape) == (0,)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigvalsh(dev(np.array([[np.nan, 0.0], [0.0, 1.0]])))
    with pytest.raises(ValueError, match="square"):
        gpueig.eigvalsh(dev(np.ones((2, 3))))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.eigvalsh(dev(np.eye(3, dtype=np.float32)))


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_dense_eigen_on_device_arrays(lib):
    """syevd, syevx and eigh on CuPy arrays and PyTorch CUDA tensors (gpu_syevd_dev; subsets from
    gpu_sytrd_dev, gpu_stebz_dev and gpu_stein_dev): the same kind of array back, eigenvalues as
    the host path's and SciPy's to LAPACK's tolerance, eigenpairs by its residual and
    orthogonality, only the chosen triangle read, the input untouched."""
    dev, host = _device_arrays(lib)
    for n in (1, 2, 40, 300, 700):
        for lower in (True, False):
            a, junk = _symmetric_one_triangle(n, lower)
            da = dev(junk)
            ref = sla.eigvalsh(a)
            tol = 30 * n * EPS * max(1.0, np.abs(ref).max())
            uplo = "L" if lower else "U"
            w, z = gpueig.syevd(da, uplo=uplo)
            assert type(w) is type(da) and type(z) is type(da) and tuple(z.shape) == (n, n)
            hw, hz = host(w), host(z)
            assert np.max(np.abs(hw - ref)) <= tol
            assert np.max(np.abs(hw - gpueig.syevd(junk, jobz="N", uplo=uplo))) <= tol
            assert np.max(np.abs(a @ hz - hz * hw)) <= tol * n
            assert np.max(np.abs(hz.T @ hz - np.eye(n))) <= 30 * n * EPS
            assert np.max(np.abs(host(gpueig.syevd(da, jobz="N", uplo=uplo)) - ref)) <= tol
            k = max(1, n // 10)
            for kw, want in (({"range": "I", "il": 1, "iu": k}, ref[:k]),
                             ({"range": "V", "vl": -0.5, "vu": 0.5}, ref[(ref > -0.5) & (ref <= 0.5)])):
                ws, zs = gpueig.syevx(da, uplo=uplo, **kw)
                assert type(ws) is type(da) and tuple(zs.shape) == (n, want.size)
                hws, hzs = host(ws), host(zs)
                assert hws.size == want.size and np.max(np.abs(hws - want), initial=0) <= tol
                assert np.max(np.abs(a @ hzs - hzs * hws), initial=0) <= tol * n
                assert np.max(np.abs(hzs.T @ hzs - np.eye(want.size)), initial=0) <= 30 * n * EPS
                wn = host(gpueig.syevx(da, jobz="N", uplo=uplo, **kw))
                assert wn.size == want.size and np.max(np.abs(wn - want), initial=0) <= tol
            we, ze = gpueig.eigh(da, lower=lower)
            assert type(we) is type(da) and np.max(np.abs(host(we) - ref)) <= tol
            wi = gpueig.eigh(da, lower=lower, eigvals_only=True, subset_by_index=(0, k - 1))
            assert type(wi) is type(da) and np.max(np.abs(host(wi) - ref[:k])) <= tol
            wv, zv = gpueig.eigh(da, lower=lower, subset_by_value=(-np.inf, 0.0))
            assert host(wv).size == np.count_nonzero(ref <= 0.0) and tuple(zv.shape) == (n, host(wv).size)
            assert np.array_equal(host(da), junk)
    w0, z0 = gpueig.syevd(dev(np.zeros((0, 0))))
    assert tuple(w0.shape) == (0,) and tuple(z0.shape) == (0, 0)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigh(dev(np.array([[np.nan, 0.0], [0.0, 1.0]])))
    with pytest.raises(ValueError, match="square"):
        gpueig.syevd(dev(np.ones((2, 3))))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.syevd(dev(np.eye(3, dtype=np.float32)))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.eigh(dev(np.eye(3, dtype=np.float32)))


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_tridiagonal_eigen_on_device_arrays(lib):
    """stebz, stein, eigvalsh_tridiagonal and eigh_tridiagonal on CuPy arrays and PyTorch CUDA
    tensors (gpu_stebz_dev, gpu_stein_dev): the same kind of array back, the host path's answers
    (bisection to the bit: the same method), inputs untouched, bad data raising as on the host."""
    dev, host = _device_arrays(lib)
    gpueig.set_backend("gpu")  # the host calls on the device too, at every size: the same method
    _tridiagonal_eigen_on_device_arrays(dev, host)  # (the fixture restores the policy)


def _tridiagonal_eigen_on_device_arrays(dev, host):
    for n in (1, 2, 60, 700, 2500):
        d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, max(n - 1, 0))
        dd, de = dev(d), dev(e)
        for kw in ({}, {"range": "I", "il": 1, "iu": max(1, n // 3), "order": "B"},
                   {"range": "V", "vl": -0.5, "vu": 0.5}):
            got, want = gpueig.stebz(dd, de, **kw), gpueig.stebz(d, e, **kw)
            assert type(got.w) is type(dd) and got.nsplit == want.nsplit
            assert np.array_equal(host(got.w), want.w)
            assert np.array_equal(host(got.iblock), want.iblock)
            assert np.array_equal(host(got.isplit), want.isplit)
        w = gpueig.eigvalsh_tridiagonal(dd, de)
        assert type(w) is type(dd)
        assert np.max(np.abs(host(w) - sla.eigvalsh_tridiagonal(d, e))) <= 30 * n * EPS
        sel = {"select": "i", "select_range": (0, min(n - 1, 9))}
        w, v = gpueig.eigh_tridiagonal(dd, de, **sel)
        assert type(w) is type(dd) and type(v) is type(dd)
        wh, vh = host(w), host(v)
        t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        assert np.max(np.abs(wh - sla.eigvalsh_tridiagonal(d, e, **sel))) <= 30 * n * EPS
        assert np.max(np.abs(t @ vh - vh * wh)) <= 30 * n * EPS
        assert np.max(np.abs(vh.T @ vh - np.eye(wh.size))) <= 30 * n * EPS
        r = gpueig.stebz(d, e, order="B")
        z = gpueig.stein(dd, de, dev(r.w), dev(r.iblock), dev(r.isplit))
        assert type(z) is type(dd) and tuple(z.shape) == (n, n)
        assert np.allclose(host(z), gpueig.stein(d, e, r.w, r.iblock, r.isplit), rtol=0, atol=1e-12)
        assert np.array_equal(host(dd), d) and np.array_equal(host(de), e)
    assert tuple(gpueig.eigvalsh_tridiagonal(dev(np.zeros(0)), dev(np.zeros(0))).shape) == (0,)
    d, e = rng.uniform(-1, 1, 5), rng.uniform(-1, 1, 4)
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigvalsh_tridiagonal(dev(np.array([1.0, np.nan])), dev(np.ones(1)))
    with pytest.raises(ValueError, match="argument 9"):
        gpueig.stebz(dev(np.array([1.0, np.nan])), dev(np.ones(1)))
    with pytest.raises(ValueError, match="argument 5"):  # w not ascending within its block
        gpueig.stein(dev(d), dev(e), dev(np.array([0.5, 0.1])), dev(np.array([1, 1])), dev(np.array([5])))
    with pytest.raises(ValueError, match="length 4"):
        gpueig.eigvalsh_tridiagonal(dev(d), dev(e[:3]))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.stebz(dev(d.astype(np.float32)), dev(e))
    with pytest.raises(TypeError, match="host array"):
        gpueig.eigh_tridiagonal(dev(d), e)


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_sytrd_on_device_arrays(lib):
    """sytrd_givens on CuPy arrays and PyTorch CUDA tensors (gpu_sytrd_dev): the same kind of
    array back, a = Q T Q^T with Q orthogonal (and q Q for vect 'U'), a untouched."""
    dev, host = _device_arrays(lib)
    for n in (1, 2, 40, 300):
        a = rng.uniform(-1, 1, (n, n))
        a = a + a.T
        da = dev(a)
        for uplo in ("L", "U"):
            d, e, q = gpueig.sytrd_givens(da, vect="V", uplo=uplo)
            assert type(d) is type(da) and type(q) is type(da)
            dh, eh, qh = host(d), host(e), host(q)
            t = np.diag(dh) + np.diag(eh, 1) + np.diag(eh, -1)
            assert np.abs(qh @ t @ qh.T - a).max() <= 30 * n * EPS * max(1.0, np.abs(a).max())
            assert np.abs(qh.T @ qh - np.eye(n)).max() <= 30 * n * EPS
            d2, e2, none = gpueig.sytrd_givens(da, vect="N", uplo=uplo)
            assert none is None and np.allclose(host(d2), dh, rtol=0, atol=1e-12)
        q0 = np.linalg.qr(rng.uniform(-1, 1, (n, n)))[0]
        d, e, qu = gpueig.sytrd_givens(da, vect="U", q=dev(q0))
        dh, eh, qh = host(d), host(e), host(qu)
        t = np.diag(dh) + np.diag(eh, 1) + np.diag(eh, -1)
        assert np.abs(qh @ t @ qh.T - q0 @ a @ q0.T).max() <= 30 * n * EPS * max(1.0, np.abs(a).max())
        assert np.array_equal(host(da), a)
    with pytest.raises(ValueError, match="square"):
        gpueig.sytrd_givens(dev(np.ones((2, 3))))
    with pytest.raises(ValueError, match="needs q"):
        gpueig.sytrd_givens(dev(np.eye(2)), vect="U")


@pytest.mark.parametrize("lib", ["cupy", "torch"])
def test_toeplitz_on_device_arrays(lib):
    """toeplitz_eig on CuPy arrays and PyTorch CUDA tensors (gpu_toeplitz_eig_dev): the same kind
    of array back, the host call's answers on the same device, t untouched, NaN refused."""
    dev, host = _device_arrays(lib)
    gpueig.set_backend("gpu")  # the host call on the device too: the same method (the fixture restores)
    for n in (1, 2, 50, 700):
        t = rng.uniform(-1, 1, n)
        dt = dev(t)
        for kw in ({}, {"range": "I", "il": 1, "iu": max(1, n // 4)}):
            w = gpueig.toeplitz_eig(dt, **kw)
            assert type(w) is type(dt)
            assert np.array_equal(host(w), gpueig.toeplitz_eig(t, **kw))
            w, z = gpueig.toeplitz_eig(dt, jobz="V", **kw)
            wh, zh = gpueig.toeplitz_eig(t, jobz="V", **kw)
            assert type(z) is type(dt) and tuple(z.shape) == zh.shape
            assert np.array_equal(host(w), wh)
            assert np.allclose(host(z), zh, rtol=0, atol=1e-12)
        assert np.array_equal(host(dt), t)
    with pytest.raises(ValueError, match="argument 4"):
        gpueig.toeplitz_eig(dev(np.array([1.0, np.nan, 0.5])))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.longdouble])
def test_other_float_types_are_refused_not_converted(dtype):
    d, e = tridiagonal(6)
    if np.dtype(dtype) == np.dtype(np.float64):  # long double is double on some platforms
        pytest.skip("long double is float64 here")
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.stebz(d.astype(dtype), e)
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.gesv(np.eye(3, dtype=dtype), np.ones(3))
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.gtsv(e[:5], d, e[:5], np.ones(6, dtype=dtype))


def test_integer_arrays_are_accepted():
    x, lu, piv = gpueig.gesv(np.array([[2, 1], [1, 3]]), np.array([3, 5]))
    assert np.allclose(x, [0.8, 1.4], rtol=0, atol=1e-15)


def test_integers_outside_c_int_or_not_integers_are_rejected():
    d, e = np.full(10, 2.0), np.ones(9)
    for il, iu in ((2**32 + 1, 2**32 + 3), (-2**31 - 1, 3), (1, 2**31)):
        with pytest.raises(OverflowError):
            gpueig.stebz(d, e, range="I", il=il, iu=iu)
    for il, iu in ((1.9, 3), (1, "2"), (True, 2), (1, 2.0)):
        with pytest.raises(TypeError):
            gpueig.stebz(d, e, range="I", il=il, iu=iu)
    with pytest.raises(TypeError):
        gpueig.stebz(d, e, range="V", vl="0", vu=1)
    with pytest.raises(TypeError):
        gpueig.toeplitz_eig(np.ones(4), range="I", il=1, iu=np.float64(2.5))
    with pytest.raises(OverflowError):
        gpueig.backend_for("gtsv", 2**63)
    # NumPy integers are integers.
    r = gpueig.stebz(d, e, range="I", il=np.int64(1), iu=np.int32(3))
    assert r.w.size == 3


def test_names_with_nul_or_of_another_type_are_rejected():
    for bad in ("cpu\0anything", "auto\0"):
        with pytest.raises(ValueError):
            gpueig.set_backend(bad)
    with pytest.raises(TypeError):
        gpueig.set_backend(b"cpu")
    with pytest.raises(ValueError):
        gpueig.backend_for("gtsv\0x", 10)
    assert "backend policy: " + BACKEND in gpueig.info()  # unchanged


def test_gtsv_without_right_hand_sides_reports_a_singular_matrix():
    n = 5
    d = np.ones(n); d[2] = 0
    with pytest.raises(gpueig.GpueigError) as err:
        gpueig.gtsv(np.zeros(n - 1), d, np.zeros(n - 1), np.zeros((n, 0)))
    assert err.value.info == 3


def test_missing_lapack_error_names_the_path_and_the_reason():
    env = dict(os.environ, GPUEIG_LAPACK="/nonexistent/liblapack-missing.so")
    code = ("import numpy as np, gpueig\n"
            "gpueig.set_backend('cpu')\n"
            "try:\n"
            "    gpueig.gtsv(np.ones(2), np.full(3, 4.0), np.ones(2), np.ones(3))\n"
            "except gpueig.GpueigError as e:\n"
            "    print(e.info, e)\n")
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       check=True)
    assert p.stdout.startswith("-1002 ")
    assert "/nonexistent/liblapack-missing.so" in p.stdout and "No such file" in p.stdout
    assert p.stderr.count("has no LAPACK") == 1 and "/nonexistent/liblapack-missing.so" in p.stderr


# ---------------------------------------------------------------- SciPy-shaped conveniences
@pytest.mark.parametrize("n", [1, 2, 5, 50, 300])
@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e200])
def test_eigvalsh_matches_scipy(n, lower, scale):
    a = rng.uniform(-1, 1, (n, n))
    a = (a + a.T) * scale
    junk = a.copy()
    # Only the named triangle is read: garbage in the other one must not matter.
    if lower:
        junk[np.triu_indices(n, 1)] = 7e300
    else:
        junk[np.tril_indices(n, -1)] = 7e300
    keep = junk.copy()
    w = gpueig.eigvalsh(junk, lower=lower)
    assert np.array_equal(junk, keep)
    ref = sla.eigvalsh(a)
    norm = np.abs(a).sum(axis=0).max()
    assert w.shape == (n,)
    assert np.max(np.abs(w - ref)) <= 30 * n * EPS * norm


def test_eigvalsh_tridiagonal_matches_scipy():
    n = 200
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)
    full = sla.eigvalsh_tridiagonal(d, e)
    tol = 30 * n * EPS * 3
    assert np.max(np.abs(gpueig.eigvalsh_tridiagonal(d, e) - full)) <= tol
    got = gpueig.eigvalsh_tridiagonal(d, e, select="i", select_range=(10, 19))
    assert got.shape == (10,) and np.max(np.abs(got - full[10:20])) <= tol
    lo, hi = (full[30] + full[31]) / 2, (full[60] + full[61]) / 2
    got = gpueig.eigvalsh_tridiagonal(d, e, select="v", select_range=(lo, hi))
    assert got.shape == (30,) and np.max(np.abs(got - full[31:61])) <= tol
    tiny = gpueig.eigvalsh_tridiagonal(d * 1e-300, e * 1e-300)
    assert np.max(np.abs(tiny * 1e300 - full)) <= tol


def test_eigvalsh_and_tridiagonal_validation():
    with pytest.raises(ValueError, match="square"):
        gpueig.eigvalsh(np.ones((2, 3)))
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigvalsh(np.array([[1.0, np.nan], [np.nan, 1.0]]))
    assert gpueig.eigvalsh(np.zeros((0, 0))).size == 0
    d, e = tridiagonal(5)
    with pytest.raises(ValueError, match="select"):
        gpueig.eigvalsh_tridiagonal(d, e, select="x")
    with pytest.raises(ValueError, match="select_range"):
        gpueig.eigvalsh_tridiagonal(d, e, select="i", select_range=(3, 9))
    with pytest.raises(ValueError, match="select_range"):
        gpueig.eigvalsh_tridiagonal(d, e, select="v")
    with pytest.raises(ValueError, match="length"):
        gpueig.eigvalsh_tridiagonal(d, e[:-1])
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigvalsh_tridiagonal(d, np.full(4, np.inf))


@pytest.mark.parametrize("n", [1, 7, 300])
def test_lu_factor_lu_solve_match_scipy(n):
    a, b = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, (n, 2))
    lu, piv = gpueig.lu_factor(a)
    for trans in (0, 1):
        x = gpueig.lu_solve((lu, piv), b, trans=trans)
        ref = sla.lu_solve(sla.lu_factor(a), b, trans=trans)
        assert np.allclose(x, ref, rtol=1e-8, atol=1e-10)
    # and SciPy solves on our factors
    assert np.allclose(sla.lu_solve((lu, piv), b), sla.solve(a, b), rtol=1e-8, atol=1e-10)


def test_lu_factor_singular_warns_and_returns_factors():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.warns(RuntimeWarning, match="exactly zero"):
        lu, piv = gpueig.lu_factor(a)
    assert lu.shape == (2, 2) and lu[1, 1] == 0.0
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.lu_factor(np.array([[np.inf]]))


def test_solve_banded_matches_scipy():
    n = 500
    dl, d, du = rng.uniform(-1, 1, n - 1), 3 + rng.uniform(0, 1, n), rng.uniform(-1, 1, n - 1)
    ab = np.zeros((3, n))
    ab[0, 1:], ab[1], ab[2, :-1] = du, d, dl
    for b in (rng.uniform(-1, 1, n), rng.uniform(-1, 1, (n, 3))):
        x = gpueig.solve_banded((1, 1), ab, b)
        assert x.shape == b.shape
        assert np.allclose(x, sla.solve_banded((1, 1), ab, b), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match=r"\(1, 1\)"):
        gpueig.solve_banded((2, 1), np.zeros((4, 3)), np.ones(3))
    with pytest.raises(ValueError, match="3 rows"):
        gpueig.solve_banded((1, 1), np.zeros((4, 3)), np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        gpueig.solve_banded((1, 1), np.zeros((3, 3)), np.ones(3))


@pytest.mark.parametrize("select,select_range", [("a", None), ("i", (5, 24)), ("v", (-0.5, 0.5))])
def test_eigh_tridiagonal_matches_scipy(select, select_range):
    n = 120
    d, e = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n - 1)
    t = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
    w, v = gpueig.eigh_tridiagonal(d, e, select=select, select_range=select_range)
    ref = sla.eigh_tridiagonal(d, e, eigvals_only=True, select=select, select_range=select_range)
    norm = np.abs(t).sum(axis=0).max()
    assert w.shape == ref.shape and v.shape == (n, w.size)
    assert np.max(np.abs(w - ref)) <= 30 * n * EPS * norm
    assert np.abs(t @ v - v * w).max() / (n * norm * EPS) <= 30  # residual ratio
    assert np.abs(v.T @ v - np.eye(w.size)).sum(axis=0).max() / (n * EPS) <= 30
    assert np.array_equal(gpueig.eigh_tridiagonal(d, e, eigvals_only=True, select=select,
                                                  select_range=select_range), w)


@pytest.mark.parametrize("n", [0, 1, 2, 40, 130])
@pytest.mark.parametrize("lower", [True, False])
def test_eigh_matches_scipy(n, lower):
    a, junk = _symmetric_one_triangle(n, lower)
    keep = junk.copy()
    ref = sla.eigvalsh(a)
    tol = 30 * max(n, 1) * EPS * max(1.0, np.abs(ref).max(initial=0))
    w, v = gpueig.eigh(junk, lower=lower)
    assert np.array_equal(junk, keep)
    assert w.shape == (n,) and v.shape == (n, n)
    assert np.max(np.abs(w - ref), initial=0) <= tol
    assert np.max(np.abs(a @ v - v * w), initial=0) <= tol * max(n, 1)
    assert np.max(np.abs(v.T @ v - np.eye(n)), initial=0) <= 30 * max(n, 1) * EPS
    assert np.max(np.abs(gpueig.eigh(junk, lower=lower, eigvals_only=True) - ref), initial=0) <= tol
    if n == 0:
        return
    k = max(1, n // 5)
    for kw, want in (({"subset_by_index": (1, k) if n > k else (0, 0)}, ref[1:k + 1] if n > k else ref[:1]),
                     ({"subset_by_value": (-1.0, 1.0)}, ref[(ref > -1.0) & (ref <= 1.0)]),
                     ({"subset_by_value": (-np.inf, 0.0)}, ref[ref <= 0.0]),
                     ({"subset_by_value": (0.0, np.inf)}, ref[ref > 0.0])):
        for driver in (None, "evx", "evr"):
            ws, vs = gpueig.eigh(junk, lower=lower, driver=driver, **kw)
            assert ws.size == want.size and np.max(np.abs(ws - want), initial=0) <= tol
            assert vs.shape == (n, want.size)
            assert np.max(np.abs(a @ vs - vs * ws), initial=0) <= tol * n
            wo = gpueig.eigh(junk, lower=lower, eigvals_only=True, driver=driver, **kw)
            assert wo.size == want.size and np.max(np.abs(wo - want), initial=0) <= tol
    for driver in ("ev", "evd"):
        assert np.max(np.abs(gpueig.eigh(junk, lower=lower, driver=driver)[0] - ref)) <= tol


def test_eigh_validation():
    a = np.eye(3)
    with pytest.raises(ValueError, match="generalized"):
        gpueig.eigh(a, np.eye(3))
    with pytest.raises(ValueError, match="driver"):
        gpueig.eigh(a, driver="gvd")
    with pytest.raises(ValueError, match="cannot compute subsets"):
        gpueig.eigh(a, driver="evd", subset_by_index=(0, 1))
    with pytest.raises(ValueError, match="not both"):
        gpueig.eigh(a, subset_by_index=(0, 1), subset_by_value=(0, 1))
    with pytest.raises(ValueError, match="select_range"):
        gpueig.eigh(a, subset_by_index=(2, 3))
    with pytest.raises(ValueError, match="lo < hi"):
        gpueig.eigh(a, subset_by_value=(1.0, 1.0))
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.eigh(np.array([[np.inf, 0.0], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        gpueig.eigh(np.ones((2, 3)))
    with pytest.raises(ValueError, match="type"):
        gpueig.eigh(a, type=4)
    with pytest.raises(TypeError, match="float64 only"):
        gpueig.eigh(np.eye(3, dtype=np.float32))


def test_eigh_tridiagonal_clustered_and_scaled():
    n = 60  # the identity: one eigenvalue of multiplicity n, at scale 1e-250
    w, v = gpueig.eigh_tridiagonal(np.full(n, 1e-250), np.zeros(n - 1))
    assert np.allclose(w, 1e-250, rtol=30 * n * EPS, atol=0)
    assert np.abs(v.T @ v - np.eye(n)).sum(axis=0).max() / (n * EPS) <= 30


def test_solve_matches_scipy_and_raises_on_singular():
    a, b = rng.uniform(-1, 1, (40, 40)), rng.uniform(-1, 1, (40, 3))
    assert np.allclose(gpueig.solve(a, b), sla.solve(a, b), rtol=1e-9, atol=1e-11)
    assert gpueig.solve(a, b[:, 0]).shape == (40,)
    with pytest.raises(np.linalg.LinAlgError, match="singular"):
        gpueig.solve(np.zeros((3, 3)), np.ones(3))
    with pytest.raises(ValueError, match="assume_a"):
        gpueig.solve(a, b, assume_a="pos")
    with pytest.raises(ValueError, match="infs or NaNs"):
        gpueig.solve(a, np.full(40, np.nan))
