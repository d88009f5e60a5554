"""gpueig: LAPACK-style routines on NVIDIA GPUs (libgpueig), for NumPy arrays.

Functions: stebz, stein, syevd, syevx, gtsv, gtsv_batch, getrf, getrs, gesv, sytrd_givens, toeplitz_eig; backend, set_backend, backend_for,
gpu_available, version, info. SciPy-shaped (scipy.linalg's names and arguments): eigh, eigvalsh,
eigvalsh_tridiagonal, eigh_tridiagonal, lu_factor, lu_solve, solve, solve_banded. Inputs are never modified; results are new arrays. Illegal
arguments raise ValueError (or TypeError for a wrong dtype); a LAPACK condition (INFO > 0) or a
library error raises GpueigError, which carries `info`.
"""
from ._api import (GpueigError, StebzResult, backend, backend_for, gesv, getrf, getrs,
                   gpu_available, gtsv,
                   gtsv_batch,
                   info, set_backend, stebz, stein, syevd, syevx, sytrd_givens, toeplitz_eig,
                   version)
from ._library import LibraryNotFoundError
from ._scipy_like import (eigh, eigh_tridiagonal, eigvalsh, eigvalsh_tridiagonal, lu_factor, lu_solve,
                          solve, solve_banded)

__all__ = ["GpueigError", "LibraryNotFoundError", "StebzResult", "backend", "backend_for",
           "gesv", "getrf", "getrs", "gpu_available", "gtsv", "gtsv_batch", "info", "set_backend", "stebz", "stein", "syevd", "syevx", "sytrd_givens",
           "toeplitz_eig", "version", "eigvalsh", "eigvalsh_tridiagonal", "lu_factor", "lu_solve",
           "solve_banded", "eigh_tridiagonal", "solve", "eigh"]
__version__ = "0.1.0"
