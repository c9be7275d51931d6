#!/usr/bin/env bash
# The PyTorch user's path (issue 45, item 1): `pip install ./python` in a
# fresh virtualenv, offline, with Debian's pip and setuptools
# (--no-build-isolation: nothing is downloaded). The package builds its
# extension through the project's CMake, imports, runs an example
# standalone (Debian's torch through --system-site-packages), and
# `pip uninstall` removes it.
# usage: pip_install.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/synergy-pip.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL pip_install: $*" >&2; exit 1; }

/usr/bin/python3 -m venv --system-site-packages "$work/v" || fail "python3 -m venv"
# CMake builds under $work (setuptools leaves its own build/ and
# synergy.egg-info in python/, both ignored by git).
SYNERGY_PIP_BUILD_DIR=$work/cmake "$work/v/bin/pip" install --no-build-isolation --no-index "$src/python" \
  >"$work/pip.log" 2>&1 || { tail -30 "$work/pip.log" >&2; fail "pip install"; }
shown=$("$work/v/bin/pip" show synergy 2>&1) || fail "pip show: $shown"
grep -q "^Version: 0.1.0" <<<"$shown" || fail "pip show: $shown"
where=$("$work/v/bin/python" -c "import synergy, os; print(os.path.dirname(synergy.__file__))")
[[ $where == "$work/v/"* ]] || fail "synergy imported from $where, not the virtualenv"
[[ $("$work/v/bin/python" -c "import synergy; print(synergy.Agent.from_environment().managed)") == False ]] ||
  fail "a standalone agent says it is managed"
if "$work/v/bin/python" -c "import torch, torchvision" 2>/dev/null; then
  (cd "$work" && "$work/v/bin/python" -m synergy.examples.image_train --model small-cnn --iterations 5 --batch 4 \
    --checkpoint-dir "$work" --result "$work/result") >"$work/example.log" 2>&1 ||
    { tail -20 "$work/example.log" >&2; fail "the example did not run standalone"; }
  [[ -s $work/result ]] || fail "the example wrote no result"
else
  echo "pip_install: no torch for $(/usr/bin/python3 -V): the example is not run"
fi
"$work/v/bin/pip" uninstall -y synergy >/dev/null || fail "pip uninstall"
if "$work/v/bin/python" -c "import synergy" 2>/dev/null; then fail "synergy still imports after pip uninstall"; fi
[[ -z $(find "$work/v" -path "*site-packages/synergy*" -print -quit) ]] || fail "pip uninstall left files behind"
echo "ok pip_install: built, imported, ran standalone and uninstalled in a fresh virtualenv"
