"""CTest entry for the Python suite: runs pytest on this folder. With GPUEIG_TEST_BACKEND=gpu and
no usable GPU it exits 77, which CTest reports as skipped (never as passed)."""
import os
import sys

import pytest

here = os.path.dirname(os.path.abspath(__file__))
if os.environ.get("GPUEIG_TEST_BACKEND") == "gpu":
    import gpueig
    if not gpueig.gpu_available():
        print("SKIPPED: no usable GPU")
        sys.exit(77)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", here] + sys.argv[1:]))
