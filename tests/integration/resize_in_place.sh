#!/usr/bin/env bash
# Resize in place, end to end: one node of 2 GPUs, cores 0-1 and 0.5 GB.
# A CPU-sensitive job (res18) that follows resizes runs alone with more than
# its share; two short peers come and go one after the other, and TUNE moves
# its CPUs and memory at each: it must run in one process (attempt 1) to the
# end, see each new allocation in its own confinement (Cpus_allowed_list,
# and the memory cgroup's limit where the machine has one) when it hears of
# it, keep 60% of its memory allocated throughout (a limit lowered before it
# sheds would kill it), and end with the value of an uninterrupted run.
# usage: resize_in_place.sh BUILD_DIR
BIN=$1
TEST=resize_in_place
source "$(dirname "$0")/lib.sh"

NODE_CPUS="0, 1"
NODE_MEMORY_GB=0.5
POLICY=fifo MECHANISM=tune ROUND_S=0.5 start_daemon
start_node n1 2
wait_for_nodes 1

# The job's record from `get job ID -o json`, one field.
job_field() {  # ID PYTHON_EXPRESSION_OF_j
  ctl get job "$1" -o json | python3 -c 'import json,sys; j=json.load(sys.stdin); j=j["jobs"][0] if "jobs" in j else j; print('"$2"')'
}
# Under a sanitizer the allocator keeps freed memory in quarantine (ASan:
# 256 MB) and adds its own: a job cannot shed, so the memory-kill check
# means nothing there and is left out; the rest is checked as always.
hold=0.6
grep -q '^CMAKE_CXX_FLAGS:.*-fsanitize' "$BIN/CMakeCache.txt" 2>/dev/null && hold=0
a=$(submit main 1 res18 1200 --follow-resizes --hold-mem "$hold" --iteration-ms 20)
for _ in $(seq 100); do [[ $(state_of "$a") == running ]] && break; sleep 0.1; done
[[ $(state_of "$a") == running ]] || fail "$a is $(state_of "$a")"
for _ in $(seq 50); do [[ $(job_field "$a" 'j.get("lease", {}).get("resizable", False)') == True ]] && break; sleep 0.1; done
cpus_of() { job_field "$1" 'sum(len(s.get("cpu_ids", [])) for s in j.get("lease", {}).get("slices", []))'; }
# Wait until the job is alone with its ideal, then bring in a peer, twice.
for peer in 1 2; do
  for _ in $(seq 100); do (($(cpus_of "$a") == 2)) && break; sleep 0.1; done
  (($(cpus_of "$a") == 2)) || fail "$a holds $(cpus_of "$a") CPUs alone, not 2"
  p=$(submit "peer$peer" 1 res18 60 --iteration-ms 20)
  wait_until_done 60 "$p"
  [[ $(state_of "$p") == succeeded ]] || fail "peer $p is $(state_of "$p")"
done
wait_until_done 90 "$a"
ctl describe job "$a"
[[ $(state_of "$a") == succeeded ]] || fail "$a is $(state_of "$a")"
read -r attempts crashes resizes < <(job_field "$a" 'j.get("attempts", 0), j.get("crashes", 0), j.get("resizes", 0)')
((attempts == 1)) || fail "$a ran $attempts times: a resize restarted it"
((crashes == 0)) || fail "$a crashed $crashes times"
((resizes >= 4)) || fail "$a was resized $resizes times, expected 4 (two peers in, two out)"
[[ $(cat "$work/ckpt/$a.result") == "$(expected_state 1200)" ]] || fail "$a: wrong result"

out=$(cat "$work"/logs-n1/"$a".*.out)
echo "$out" | grep "resize\|resuming"
# Each resize the job heard of was in force when it heard of it: its memory
# limit at least what it was told (a lower one waits for its confirmation),
# and its CPUs those it was told, or fewer where a later shrink was already
# applied by the node (CPUs are taken at once; the job hears of it at its
# next report), or as many as a later revision gave where that one was
# already applied when a slow job heard of this one (on a loaded machine
# revision 3, a shrink, was heard 2 s late, beside revision 4, a growth).
# The last one, a growth, exactly.
python3 - "$out" "$(ctl describe job "$a")" <<'PY' || fail "a resize the job heard of was not in force"
import re, sys
def count(cpu_list):
    n = 0
    for part in cpu_list.split(","):
        lo, _, hi = part.partition("-")
        n += int(hi or lo) - int(lo) + 1
    return n
seen = re.findall(r"resize (\d+): (\d+) cpus \(allowed ([0-9,-]+)\), ([0-9.e+-]+) GB \(limit (\w+)\)", sys.argv[1])
# Every revision synergyd made, with its CPUs, from the job's events.
planned = {int(r): int(c) for r, c in re.findall(r"resized in place \(revision (\d+)\): cpus \d+ -> (\d+)", sys.argv[2])}
# It hears of the latest revision at its next report: one that came and
# went within a second may be skipped. A shrink and a growth at least.
assert len(seen) >= 2, f"the job heard of {len(seen)} resizes"
assert {int(c) for _, c, _, _, _ in seen} == {1, 2}, f"heard {seen}"
for revision, cpus, allowed, gb, limit in seen:
    most = max([int(cpus)] + [c for r, c in planned.items() if r > int(revision)])
    assert count(allowed) <= most, f"revision {revision}: {cpus} cpus (later ones at most {most}) but allowed {allowed}"
    if limit.isdigit() and int(limit) < 2**62:
        assert int(limit) >= float(gb) * 2**30 - 4096, f"revision {revision}: limit {limit} below {gb} GB"
revision, cpus, allowed, _, _ = seen[-1]
assert count(allowed) == int(cpus) == 2, f"the last revision {revision}: {cpus} cpus, allowed {allowed}"
print(f"{len(seen)} resizes heard of, each in force when the job heard of it")
PY
grep -q "resized in place" "$work/node-n1.log" || fail "the node never resized"
echo "PASS $TEST"
