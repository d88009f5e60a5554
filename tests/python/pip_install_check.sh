#!/bin/sh
# `pip install ./bindings/python` into a new virtual environment, then README's Python example,
# exactly as written there, run from outside the source tree against the library just built.
# The environment sees the system's site-packages (NumPy) and installs with no index, so the test
# needs no network; README's own command installs NumPy from PyPI instead.
set -eu
python=$1 src=$2 lib=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-build-isolation --no-deps --no-index "$src/bindings/python"
example=$(sed -n '/<!-- python-example:begin -->/,/<!-- python-example:end -->/p' "$src/README.md" \
  | sed -n "/^import /,/^EOF\$/p" | grep -v '^EOF$')
[ -n "$example" ] || { echo "no Python example found in README"; exit 1; }
cd "$work"
GPUEIG_LIBRARY="$lib" "$work/venv/bin/python" -c "$example"
"$work/venv/bin/python" -c "import gpueig, sys; assert '/venv/' in gpueig.__file__, gpueig.__file__"
