# Sourced by scripts/test: `stage NAME COMMAND...` runs COMMAND as one stage
# of the run, prints "stage NAME: S s" when it ends, and on failure exits
# with COMMAND's status. `stage_table` (scripts/test's exit trap) prints
# every stage's time so far and the total.
stage_names=()
stage_seconds=()
stage_started=$(date +%s)

stage() {
  local name=$1
  shift
  local t0 rc=0
  t0=$(date +%s)
  echo "=== stage $name: $*"
  "$@" || rc=$?
  stage_names+=("$name")
  stage_seconds+=("$(($(date +%s) - t0))")
  if ((rc != 0)); then
    echo "=== stage $name: FAILED (exit $rc) after ${stage_seconds[-1]} s"
    exit "$rc"
  fi
  echo "=== stage $name: ${stage_seconds[-1]} s"
}

# background_start NAME COMMAND...: starts COMMAND in a session of its own,
# its output in /tmp (printed by background_wait); one at a time.
background_name=""
background_pid=""
background_log=""
background_started=0
background_start() {
  background_name=$1
  shift
  background_log=$(mktemp "/tmp/synergy-test-$background_name.XXXXXX")
  background_started=$(date +%s)
  # A new session is a new scheduling group where the kernel groups by
  # session (autogroup, kernel.sched_autogroup_enabled), and a group gets its
  # fair share whatever the policy of its processes: measured, a SCHED_IDLE
  # build in a session of its own took half the CPU from the Release build
  # beside it. So the command, once in its session, sets its group's nice
  # to 19 (a weight of 15 against 1024) before it starts.
  setsid bash -c 'if [[ -w /proc/self/autogroup ]]; then echo 19 >/proc/self/autogroup 2>/dev/null; fi; exec "$@"' \
    background "$@" >"$background_log" 2>&1 &
  background_pid=$!
  echo "=== stage $background_name: started in the background: $*"
}

# background_wait: waits for the background command, prints its output
# and how long it ran in all; fails as it failed.
background_wait() {
  local rc=0
  wait "$background_pid" || rc=$?
  cat "$background_log"
  echo "$background_name: $(($(date +%s) - background_started)) s since it started in the background"
  rm -f "$background_log"
  background_pid=""
  return "$rc"
}

# background_stop: ends the background command and everything it started
# (the exit trap: a failed stage must not leave a build running).
background_stop() {
  [[ -n $background_pid ]] || return 0
  pkill -KILL -s "$background_pid" 2>/dev/null || true
  wait "$background_pid" 2>/dev/null || true
  background_pid=""
}

stage_table() {
  echo "=== stages"
  local i
  for i in "${!stage_names[@]}"; do printf '%-22s %6s s\n' "${stage_names[$i]}" "${stage_seconds[$i]}"; done
  printf '%-22s %6s s\n' total "$(($(date +%s) - stage_started))"
  if command -v ccache >/dev/null; then
    echo "ccache: $(ccache --print-stats 2>/dev/null | awk -F'\t' \
      '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hit += $2 } $1 == "cache_miss" { miss = $2 }
       END { printf "%d hits, %d misses since its statistics were zeroed", hit, miss }')"
  fi
}

# slowest_tests BUILD_DIR [N]: the N (10) longest tests of the last ctest
# run in BUILD_DIR, from ctest's own record of each test's time.
slowest_tests() {
  local costs=$1/Testing/Temporary/CTestCostData.txt
  [[ -f $costs ]] || return 0
  echo "=== the ${2:-10} slowest tests in $1 (seconds, from $costs)"
  # awk, not head: head's early exit would fail the pipeline (pipefail).
  awk '/^---/ { exit } { printf "%8.1f  %s\n", $3, $1 }' "$costs" | sort -rn | awk -v n="${2:-10}" 'NR <= n'
}
