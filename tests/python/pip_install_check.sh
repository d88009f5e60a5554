#!/bin/sh
# The Python package as a new user installs it, with no environment variable at run time:
#  1. `pip install ./bindings/python` with the library just built (GPUEIG_BUILD_DIR names its build
#     folder) into a fresh target folder, then README's Python example exactly as written there,
#     run from outside the source tree with GPUEIG_LIBRARY unset: the package must load the copy of
#     the library it carries;
#  2. a wheel built from the same sources (`pip wheel`), installed into a fresh virtual
#     environment, running the example the same way.
# No index and no build isolation (NumPy, setuptools and wheel come from the interpreter running
# the tests; the venv sees its site packages), so the test needs no network; README's own command
# installs NumPy from PyPI instead.
set -eu
python=$1 src=$2 lib=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
unset GPUEIG_LIBRARY
export GPUEIG_BUILD_DIR="$(dirname "$lib")"
example=$(sed -n '/<!-- python-example:begin -->/,/<!-- python-example:end -->/p' "$src/README.md" \
  | sed -n "/^import /,/^EOF\$/p" | grep -v '^EOF$')
[ -n "$example" ] || { echo "no Python example found in README"; exit 1; }
# Which library the package loaded: the copy inside the installed package, nothing else.
check='import gpueig, os; p = gpueig._api._lib()._name; d = os.path.dirname(gpueig.__file__)
assert os.path.dirname(os.path.abspath(p)) == d, (p, d); print("loaded", p)'

echo "== pip install ./bindings/python"
"$python" -m pip install -q --no-build-isolation --no-deps --no-index --target "$work/site" \
  "$src/bindings/python"
cd "$work"
PYTHONPATH="$work/site" "$python" -c "$example"
PYTHONPATH="$work/site" "$python" -c "$check"

echo "== pip wheel, then a fresh venv"
"$python" -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$work/wheel" "$src/bindings/python"
whl=$(ls "$work"/wheel/gpueig-*.whl)
case "$whl" in *none-any.whl) echo "the wheel carries a native library but is tagged none-any: $whl"; exit 1;; esac
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-deps --no-index "$whl"
unset GPUEIG_BUILD_DIR
"$work/venv/bin/python" -c "$example"
"$work/venv/bin/python" -c "$check"
echo "wheel: $(basename "$whl")"
