#!/bin/sh
# `pip install ./bindings/python` into a fresh target folder, then README's Python example, exactly
# as written there, run from outside the source tree against the library just built. The install
# uses no index and no build isolation (NumPy, setuptools and wheel come from the interpreter
# running the tests), so the test needs no network; README's own command, in a new virtual
# environment, installs NumPy from PyPI instead.
set -eu
python=$1 src=$2 lib=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$python" -m pip install -q --no-build-isolation --no-deps --no-index --target "$work/site" \
  "$src/bindings/python"
example=$(sed -n '/<!-- python-example:begin -->/,/<!-- python-example:end -->/p' "$src/README.md" \
  | sed -n "/^import /,/^EOF\$/p" | grep -v '^EOF$')
[ -n "$example" ] || { echo "no Python example found in README"; exit 1; }
cd "$work"
export PYTHONPATH="$work/site" GPUEIG_LIBRARY="$lib"
"$python" -c "$example"
"$python" -c "import gpueig; assert gpueig.__file__.startswith('$work/site'), gpueig.__file__"
