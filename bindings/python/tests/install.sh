#!/bin/sh
# CTest python_install: the package installed as a user installs it,
# `pip install` of bindings/python, offline (--no-index: its build backend
# needs nothing from PyPI) into a target folder, then imported from
# elsewhere. The other Python tests use that folder.
#
#   sh bindings/python/tests/install.sh WORKDIR
set -eu
src=$(cd "$(dirname "$0")/.." && pwd) # bindings/python
work=$1
skip() { echo "$*: skipped"; exit 77; }
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
python3 -m pip --version >/dev/null 2>&1 || skip "pip not found (apt-get install python3-pip)"
python3 -c 'import os, sysconfig, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
  skip "Python's headers not found (apt-get install python3-dev)"
rm -rf "$work/target"
mkdir -p "$work"
PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore python3 -m pip install --no-index --no-cache-dir --quiet --target "$work/target" "$src"
cd "$work"
PYTHONPATH="$work/target" python3 - <<'EOP'
import sluice
assert sluice.__file__.startswith(__import__("os").getcwd()), sluice.__file__
r = sluice.once(sluice.Think(), "a<think>b</think>c")
assert (r.text, r.thought) == ("ac", "b"), r
print("installed and imported sluice %s from %s" % (sluice.__version__, sluice.__file__))
EOP
