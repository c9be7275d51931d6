#!/usr/bin/env bash
# `cmake --install` into a scratch prefix: the programs, configs, data,
# docs, bash completion and systemd units are where cmake/install.cmake
# says; the installed programs run from there; the units pass
# `systemd-analyze verify` without a warning (pointed at the scratch
# prefix: the configured paths are the build's install prefix).
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
  share/doc/synergy/README.md share/doc/synergy/job-spec.md share/doc/synergy/operations.md \
  share/bash-completion/completions/synergyctl \
  lib/systemd/system/synergyd.service lib/systemd/system/synergy-node.service; do
  [[ -e $prefix/$f ]] || fail "not installed: $f"
done
for program in synergyd synergy-node synergyctl synergy-sim; do
  "$prefix/bin/$program" --version >/dev/null || fail "$prefix/bin/$program --version"
done
# The installed synergyd's --help names its config; synergy-sim runs its
# embedded default from the installed tree.
"$prefix/bin/synergy-sim" run --help >/dev/null || fail "synergy-sim run --help"
bash -n "$prefix/share/bash-completion/completions/synergyctl" || fail "the completion script does not parse"
if command -v systemd-analyze >/dev/null; then
  configured=$(awk -F= '/^CMAKE_INSTALL_PREFIX:/ { print $2 }' "$build/CMakeCache.txt")
  units=$(mktemp -d)
  for unit in synergyd synergy-node; do
    grep -q "^ExecStart=$configured/bin/$unit --config " "$prefix/lib/systemd/system/$unit.service" ||
      fail "$unit.service does not start $configured/bin/$unit"
    sed "s|$configured/bin/|$prefix/bin/|" "$prefix/lib/systemd/system/$unit.service" >"$units/$unit.service"
  done
  out=$(systemd-analyze verify "$units/synergyd.service" "$units/synergy-node.service" 2>&1)
  code=$?
  [[ $code == 0 && -z $out ]] || fail "systemd-analyze verify (status $code): $out"
  rm -rf "$units"
else
  echo "note systemd-analyze not installed: units not verified"
fi
((status == 0)) && echo "ok install into $prefix"
exit $status
