#!/usr/bin/env bash
# Every program answers --version with its name, the project's version and
# the source revision, on stdout, with status 0; and the same version.
# usage: version.sh BUILD_DIR
set -uo pipefail
build=$1
status=0
versions=()
for program in synergy-sim synergyd synergy-node synergyctl; do
  out=$("$build/$program" --version 2>/dev/null)
  code=$?
  if [[ $code != 0 || ! $out =~ ^$program\ ([0-9]+\.[0-9]+\.[0-9]+)\ \(revision\ [^\)]+\)$ ]]; then
    echo "FAIL $program --version: status $code, '$out'"
    status=1
    continue
  fi
  versions+=("${BASH_REMATCH[1]}")
  echo "ok   $out"
done
if ((status == 0)) && [[ $(printf '%s\n' "${versions[@]}" | sort -u | wc -l) != 1 ]]; then
  echo "FAIL the programs disagree on the version: ${versions[*]}"
  status=1
fi
exit $status
