"""Finding and loading libgpueig.so, and declaring its C signatures for ctypes."""
import ctypes
import ctypes.util
import glob
import os

_c_int, _c_double, _c_char, _c_char_p = ctypes.c_int, ctypes.c_double, ctypes.c_char, ctypes.c_char_p
_pd = ctypes.POINTER(ctypes.c_double)
_pi = ctypes.POINTER(ctypes.c_int)
_vp = ctypes.c_void_p  # device memory, and a cudaStream_t

# name: (restype, argtypes) -- exactly include/gpueig.h
_SIGNATURES = {
    "gpu_sytrd_givens": (_c_int, [_c_char, _c_char, _c_int, _pd, _c_int, _pd, _pd, _pd, _c_int]),
    "gpu_stebz": (_c_int, [_c_char, _c_char, _c_int, _c_double, _c_double, _c_int, _c_int,
                           _c_double, _pd, _pd, _pi, _pi, _pd, _pi, _pi]),
    "gpu_gtsv_pcr": (_c_int, [_c_int, _c_int, _pd, _pd, _pd, _pd, _c_int]),
    "gpu_gtsv_pcr_batch": (_c_int, [_c_int, _c_int, _pd, _pd, _pd, _pd, _c_int]),
    "gpu_getrf_crout": (_c_int, [_c_int, _c_int, _pd, _c_int, _pi]),
    "gpu_getrs_crout": (_c_int, [_c_char, _c_int, _c_int, _pd, _c_int, _pi, _pd, _c_int]),
    "gpu_gesv_crout": (_c_int, [_c_int, _c_int, _pd, _c_int, _pi, _pd, _c_int]),
    "gpu_stein": (_c_int, [_c_int, _pd, _pd, _c_int, _pd, _pi, _pi, _pd, _c_int, _pi]),
    "gpu_syevd": (_c_int, [_c_char, _c_char, _c_int, _pd, _c_int, _pd]),
    "gpu_syevx": (_c_int, [_c_char, _c_char, _c_char, _c_int, _pd, _c_int, _c_double, _c_double, _c_int,
                           _c_int, _c_double, _pi, _pd, _pd, _c_int, _pi]),
    "gpu_toeplitz_eig": (_c_int, [_c_char, _c_char, _c_int, _pd, _c_double, _c_double, _c_int,
                                  _c_int, _c_double, _pi, _pd, _pd, _c_int]),
    "gpu_getrf_dev": (_c_int, [_c_int, _c_int, _vp, _c_int, _vp, _vp, _vp]),
    "gpu_getrs_dev": (_c_int, [_c_char, _c_int, _c_int, _vp, _c_int, _vp, _vp, _c_int, _vp, _vp]),
    "gpu_gesv_dev": (_c_int, [_c_int, _c_int, _vp, _c_int, _vp, _vp, _c_int, _vp, _vp]),
    "gpu_gtsv_dev": (_c_int, [_c_int, _c_int, _vp, _vp, _vp, _vp, _c_int, _vp, _vp]),
    "gpu_gtsv_batch_dev": (_c_int, [_c_int, _c_int, _vp, _vp, _vp, _vp, _c_int, _vp, _vp]),
    "gpu_sytrd_dev": (_c_int, [_c_char, _c_char, _c_int, _vp, _c_int, _vp, _vp, _vp, _c_int, _vp, _vp]),
    "gpu_syevd_dev": (_c_int, [_c_char, _c_char, _c_int, _vp, _c_int, _vp, _vp, _vp]),
    "gpu_syevx_dev": (_c_int, [_c_char, _c_char, _c_char, _c_int, _vp, _c_int, _c_double, _c_double, _c_int,
                               _c_int, _c_double, _pi, _vp, _vp, _c_int, _vp, _vp, _vp]),
    "gpu_stebz_dev": (_c_int, [_c_char, _c_char, _c_int, _c_double, _c_double, _c_int, _c_int, _c_double, _vp,
                               _vp, _pi, _pi, _vp, _vp, _vp, _vp, _vp]),
    "gpu_stein_dev": (_c_int, [_c_int, _vp, _vp, _c_int, _vp, _vp, _vp, _vp, _c_int, _vp, _vp, _vp]),
    "gpu_toeplitz_eig_dev": (_c_int, [_c_char, _c_char, _c_int, _vp, _c_double, _c_double, _c_int, _c_int,
                                      _c_double, _pi, _vp, _vp, _c_int, _vp, _vp]),
    "gpueig_version": (_c_char_p, []),
    "gpueig_gpu_available": (_c_int, []),
    "gpueig_last_backend": (_c_char_p, []),
    "gpueig_set_backend": (_c_int, [_c_char_p]),
    "gpueig_backend_for": (_c_char_p, [_c_char_p, ctypes.c_longlong]),
    "gpueig_backend_reason": (_c_char_p, [_c_char_p, ctypes.c_longlong]),
    "gpueig_info": (_c_char_p, []),
}


class LibraryNotFoundError(OSError):
    """libgpueig.so could not be loaded; the message lists every place that was tried."""


def _candidates():
    """(description, path or soname) in the order they are tried."""
    env = os.environ.get("GPUEIG_LIBRARY")
    if env:
        yield "GPUEIG_LIBRARY", env
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "libgpueig.so*"))):
        yield "package directory", path
    for name in ("libgpueig.so.0", "libgpueig.so"):
        yield "system loader", name
    found = ctypes.util.find_library("gpueig")
    if found:
        yield "ctypes.util.find_library", found


def load():
    """Loads the library, declares its signatures and returns the ctypes.CDLL."""
    tried = []
    for where, name in _candidates():
        try:
            lib = ctypes.CDLL(name)
        except OSError as err:
            tried.append(f"  {where}: {name}: {err}")
            continue
        for fn, (restype, argtypes) in _SIGNATURES.items():
            f = getattr(lib, fn)
            f.restype, f.argtypes = restype, argtypes
        return lib
    if not os.environ.get("GPUEIG_LIBRARY"):
        tried.insert(0, "  GPUEIG_LIBRARY: not set")
    raise LibraryNotFoundError(
        "cannot load libgpueig; tried:\n" + "\n".join(tried) +
        "\nSet GPUEIG_LIBRARY to the path of libgpueig.so (e.g. build/libgpueig.so), or install "
        "the library where the system loader finds it.")
