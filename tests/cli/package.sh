#!/usr/bin/env bash
# The Debian package, as an operator meets it: CPack builds it from this
# build, dpkg installs it, the programs run from /usr/bin (synergyd and a
# synergy-node run a job from the packaged example spec in /usr/share), the
# installed units verify, the Python package imports from the system
# interpreter, and dpkg removes it (keeping /etc/synergy) and purges it
# (leaving nothing). Needs root for dpkg: skipped (77) otherwise, and when a
# synergy package is already installed (the test would replace it).
# usage: package.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $(id -u) != 0 ]]; then echo "skipped: dpkg needs root"; exit 77; fi
if grep -q '^CMAKE_CXX_FLAGS:.*-fsanitize' "$build/CMakeCache.txt"; then
  echo "skipped: a package is built from a release build, not a sanitized one"
  exit 77
fi
if dpkg-query -W -f='${Status}' synergy 2>/dev/null | grep -q "ok installed"; then
  echo "skipped: a synergy package is installed here already"
  exit 77
fi
out=$(mktemp -d /tmp/synergy-package.XXXXXX)
if ! cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1; then
  echo "FAIL cpack: $(tail -5 "$out/cpack.log")"
  rm -rf "$out"
  exit 1
fi
deb=$(ls "$out"/synergy_*.deb)
if ! dpkg -i "$deb" >"$out/dpkg.log" 2>&1; then
  echo "FAIL dpkg -i $deb: $(tail -5 "$out/dpkg.log")"
  dpkg -P synergy >/dev/null 2>&1
  rm -rf "$out"
  exit 1
fi

BIN=/usr/bin
TEST=package
# shellcheck source=../integration/lib.sh
source "$here/../integration/lib.sh"
remove_package() { dpkg -P synergy >/dev/null 2>&1; rm -rf "$out"; }
trap 'cleanup; remove_package' EXIT

version=$(/usr/bin/synergyd --version) || fail "/usr/bin/synergyd --version"
[[ $version == "synergyd $(awk -F'[()]' '/^project\(synergy/ { print $2 }' "$here/../../CMakeLists.txt" | awk '{print $3}')"* ]] ||
  fail "/usr/bin/synergyd --version says: $version"
for program in synergy-node synergyctl synergy-sim; do
  /usr/bin/$program --version >/dev/null || fail "/usr/bin/$program --version"
done
getent passwd synergy >/dev/null || fail "the package made no synergy account (synergyd.service's User)"
[[ $(stat -c '%a %U:%G' /etc/synergy/synergyd.yaml) == "640 root:synergy" ]] ||
  fail "synergyd.yaml is $(stat -c '%a %U:%G' /etc/synergy/synergyd.yaml), not 640 root:synergy"
[[ $(stat -c '%a %U' /etc/synergy/synergy-node.yaml) == "600 root" ]] ||
  fail "synergy-node.yaml (it holds the node's credential) is $(stat -c '%a %U' /etc/synergy/synergy-node.yaml)"
info=$(dpkg-deb -I "$deb")
grep -q "^ Depends: .*adduser" <<<"$info" || fail "the package does not depend on adduser"
grep -q " shlibs" <<<"$info" || fail "no shlibs file for libsynergy_agent.so"
[[ -f /etc/synergy/synergyd.yaml && -f /etc/synergy/synergy-node.yaml ]] || fail "no configs in /etc/synergy"
grep -q '^ExecStart=/usr/bin/synergyd --config /etc/synergy/synergyd.yaml$' /usr/lib/systemd/system/synergyd.service ||
  fail "synergyd.service: $(grep ExecStart /usr/lib/systemd/system/synergyd.service)"
if command -v systemd-analyze >/dev/null; then
  verify=$(systemd-analyze verify /usr/lib/systemd/system/synergyd.service /usr/lib/systemd/system/synergy-node.service 2>&1) ||
    fail "systemd-analyze verify: $verify"
  [[ -z $verify ]] || fail "systemd-analyze verify: $verify"
fi
if ls "$build"/python/synergy/_agent*.so >/dev/null 2>&1; then
  (cd / && env -u PYTHONPATH /usr/bin/python3 -c 'import synergy, synergy.examples; synergy.Agent.from_environment()') ||
    fail "the packaged Python package does not import"
fi

# The packaged programs schedule a job from the packaged example spec.
start_daemon
start_node n1 1
wait_for_nodes 1
id=$(ctl submit -f /usr/share/synergy/jobs/plain-process.yaml) || fail "submit the packaged plain-process.yaml"
for _ in $(seq 100); do
  grep -qs "cpus" "$work"/logs-n1/"$id".*.out && break
  sleep 0.1
done
grep -qs "GPUs 0, .* cpus" "$work"/logs-n1/"$id".*.out ||
  fail "the packaged example job wrote no output: $(cat "$work"/logs-n1/* 2>/dev/null | head -3)"
ctl cancel "$id" >/dev/null || fail "cancel $id"
wait_until_done 30 "$id"
kill -TERM "${pids[@]}" 2>/dev/null
sleep 0.5

dpkg -r synergy >"$out/remove.log" 2>&1 || fail "dpkg -r synergy: $(tail -3 "$out/remove.log")"
[[ ! -e /usr/bin/synergyd && ! -e /usr/lib/libsynergy_agent.so ]] || fail "dpkg -r left the programs"
[[ -f /etc/synergy/synergyd.yaml ]] || fail "dpkg -r removed the conffiles (only purge may)"
dpkg -P synergy >"$out/purge.log" 2>&1 || fail "dpkg -P synergy: $(tail -3 "$out/purge.log")"
[[ ! -e /etc/synergy/synergyd.yaml ]] || fail "dpkg -P left /etc/synergy/synergyd.yaml"
! getent passwd synergy >/dev/null || fail "dpkg -P left the synergy account"
! getent group synergy >/dev/null || fail "dpkg -P left the synergy group"
echo "ok $(basename "$deb") installed, ran from /usr/bin, removed and purged"
