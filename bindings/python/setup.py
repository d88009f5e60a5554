"""Builds the gpueig package (metadata: pyproject.toml). Where a libgpueig build is found, its
shared library goes into the package, so that the installed package or wheel needs no
GPUEIG_LIBRARY: from GPUEIG_BUILD_DIR (a CMake build folder; an error if it holds no library),
else from the repository's own build/ beside this folder. Without one the package is pure Python
and finds the library at run time (GPUEIG_LIBRARY, then the system loader).

A wheel that carries the library is tagged for this platform, and the library still needs what it
was linked against on the machine it runs on (the system's LAPACK, e.g. OpenBLAS; no CUDA library:
cuBLAS is loaded at its first use, and without a GPU every call runs on the CPU)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libgpueig.so.0"


def _library():
    """The real file of the library to package, or None."""
    chosen = os.environ.get("GPUEIG_BUILD_DIR")
    build = chosen or os.path.join(HERE, "..", "..", "build")
    path = os.path.join(build, SONAME)
    if os.path.exists(path):
        return os.path.realpath(path)
    if chosen:
        raise SystemExit(f"GPUEIG_BUILD_DIR={chosen} holds no {SONAME}: build libgpueig there first")
    return None


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = _library()
        if lib:
            target = os.path.join(self.build_lib, "gpueig", SONAME)
            shutil.copyfile(lib, target)  # the real file, under the name the package loads


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        # A native library inside: the wheel is platform-specific, not py3-none-any.
        return _library() is not None


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
