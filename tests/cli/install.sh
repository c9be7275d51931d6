#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the programs, configs, data,
# docs, bash completion, systemd units and the agent library are where
# cmake/install.cmake says; the installed programs run from there; the
# units start the installed programs and pass `systemd-analyze verify`
# without a warning; a job built outside the tree finds the agent through
# pkg-config and through find_package(SynergyAgent), links and runs.
# usage: install.sh BUILD_DIR
set -uo pipefail
build=$1
prefix=$(mktemp -d /tmp/synergy-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
status=0
fail() { echo "FAIL $*"; status=1; }
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL cmake --install"; exit 1; }
etc=etc
for f in bin/synergyd bin/synergy-node bin/synergyctl bin/synergy-sim \
  "$etc/synergy/synergyd.yaml" "$etc/synergy/synergy-node.yaml" \
  share/synergy/models/zoo.yaml share/synergy/clusters/default-128.yaml share/synergy/jobs/image-agent.yaml \
  share/synergy/slurm/job_submit.lua \
  share/doc/synergy/README.md share/doc/synergy/job-spec.md share/doc/synergy/operations.md \
  share/bash-completion/completions/synergyctl \
  lib/systemd/system/synergyd.service lib/systemd/system/synergy-node.service \
  include/synergy/agent.h include/synergy/agent_profiler.h lib/libsynergy_agent.so \
  lib/pkgconfig/synergy-agent.pc lib/cmake/SynergyAgent/SynergyAgentConfig.cmake; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
for program in synergyd synergy-node synergyctl synergy-sim; do
  "$prefix/bin/$program" --version >/dev/null || fail "$prefix/bin/$program --version"
done
# The installed synergyd's --help names its config; synergy-sim runs its
# embedded default from the installed tree.
"$prefix/bin/synergy-sim" run --help >/dev/null || fail "synergy-sim run --help"
bash -n "$prefix/share/bash-completion/completions/synergyctl" || fail "the completion script does not parse"
for unit in synergyd synergy-node; do
  grep -q "^ExecStart=$prefix/bin/$unit --config $prefix/etc/synergy/$unit.yaml\$" \
    "$prefix/lib/systemd/system/$unit.service" ||
    fail "$unit.service does not start $prefix/bin/$unit with $prefix/etc/synergy/$unit.yaml"
done
if command -v systemd-analyze >/dev/null; then
  out=$(systemd-analyze verify "$prefix/lib/systemd/system/synergyd.service" \
    "$prefix/lib/systemd/system/synergy-node.service" 2>&1)
  code=$?
  [[ $code == 0 && -z $out ]] || fail "systemd-analyze verify (status $code): $out"
  # The sandbox: exposure at most 3.0 for synergyd, 6.0 for synergy-node
  # (whose jobs inherit it), as systemd-analyze security scores them.
  for limit in synergyd:30 synergy-node:60; do
    unit=${limit%%:*}
    if ! score=$(systemd-analyze security --offline=true --threshold="${limit#*:}" \
      "$prefix/lib/systemd/system/$unit.service" 2>&1 | tail -1); then
      fail "$unit.service is more exposed than ${limit#*:}/10: $score"
    fi
    echo "note $score"
  done
else
  echo "note systemd-analyze not installed: units not verified"
fi

# A job built outside the tree, twice: with pkg-config and with CMake (with
# the build's own compiler and flags: a sanitized library needs a sanitized
# job, and clang's sanitizer flags are not all gcc's).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_value() { awk -v key="$1" -F= '$1 ~ "^" key ":" { sub(/^[^=]*=/, ""); print }' "$build/CMakeCache.txt"; }
cxxflags=$(cache_value CMAKE_CXX_FLAGS)
cxx=$(cache_value CMAKE_CXX_COMPILER)
consumer=$prefix/consumer
mkdir -p "$consumer"
if flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs synergy-agent); then
  # shellcheck disable=SC2086
  if "$cxx" -std=c++17 $cxxflags -o "$consumer/pc" "$here/agent_consumer/consumer.cc" $flags 2>"$consumer/pc.log"; then
    out=$(LD_LIBRARY_PATH=$prefix/lib "$consumer/pc") || fail "the pkg-config-built job: $out"
    [[ $out == "iterations 5 sum 15" ]] || fail "the pkg-config-built job printed: $out"
  else
    fail "$cxx with pkg-config's flags ($flags): $(tail -5 "$consumer/pc.log")"
  fi
else
  fail "pkg-config does not find synergy-agent"
fi
if cmake -S "$here/agent_consumer" -B "$consumer/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$cxxflags" >"$consumer/cmake.log" 2>&1 &&
  cmake --build "$consumer/cmake" >>"$consumer/cmake.log" 2>&1; then
  # CMake's imported target puts the library's directory in the RUNPATH.
  out=$("$consumer/cmake/agent_consumer") || fail "the CMake-built job: $out"
  [[ $out == "iterations 5 sum 15" ]] || fail "the CMake-built job printed: $out"
else
  fail "find_package(SynergyAgent): $(tail -15 "$consumer/cmake.log")"
fi
# The example job specs run from anywhere the package is installed: each
# one's command, from a scratch directory, with the installed package on
# PYTHONPATH (2 iterations, small model, checkpoints in the scratch prefix).
pydir=$(find "$prefix/lib" -path '*/dist-packages' -type d | head -1)
if ! ls "$build"/python/synergy/_agent*.so >/dev/null 2>&1; then
  echo "note this build has no Python package (-DSYNERGY_WITH_PYTHON=OFF): the example job specs are not run"
elif [[ -z $pydir ]]; then
  fail "the Python package is not installed under $prefix/lib"
elif ! PYTHONPATH=$pydir /usr/bin/python3 -c 'import synergy._agent, torch, torchvision, yaml' 2>/dev/null; then
  echo "note /usr/bin/python3 lacks torch, torchvision or yaml: the example job specs are not run"
else
  for spec in image-agent language-agent; do
    command=$(/usr/bin/python3 - "$prefix/share/synergy/jobs/$spec.yaml" <<'PY'
import shlex, sys, yaml
print(shlex.join(yaml.safe_load(open(sys.argv[1]))["command"]))
PY
)
    extra=(--iterations 2 --checkpoint-dir "$prefix/ckpt-$spec")
    [[ $spec == image-agent ]] && extra+=(--model small-cnn)
    run_dir=$(mktemp -d -p "$prefix")
    # shellcheck disable=SC2086
    if ! out=$(cd "$run_dir" && PATH=/usr/bin:/bin PYTHONPATH=$pydir timeout 300 $command "${extra[@]}" 2>&1); then
      fail "$spec.yaml's command ($command) from $run_dir: $(echo "$out" | tail -3)"
    elif ! grep -q "done at iteration 2" <<<"$out"; then
      fail "$spec.yaml's command did not train: $(echo "$out" | tail -3)"
    fi
  done
fi

((status == 0)) && echo "ok install into $prefix"
exit $status
