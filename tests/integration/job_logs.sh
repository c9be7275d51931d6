#!/usr/bin/env bash
# synergyctl logs through a real synergyd and two nodes on loopback:
#  1. logs -f follows a job across a preemption (a drain moves it from one
#     node to the other): every iteration line of both leases, in order,
#     the two leases' headers, and the follower stops when the job ends;
#  2. after the job ended: logs (latest lease), --lease 1 from the node it
#     left, --stderr;
#  3. only the owner and admins read it; a lease it never had is NOT_FOUND;
#  4. a node's log_max_bytes: the file is rotated to FILE.1 on the node and
#     logs reads the current file.
# usage: job_logs.sh BUILD_DIR
BIN=$1
TEST=job_logs
source "$(dirname "$0")/lib.sh"
POLICY=fifo
start_daemon
NODE_EXTRA="log_max_bytes: 4096" start_node n1 1
start_node n2 1
wait_for_nodes 2
ctl drain n2 >/dev/null || fail "drain n2"   # the job starts on n1

as_alice() { SYNERGY_TOKEN=$ALICE_TOKEN ctl "$@"; }
node_of() { ctl get jobs | awk -v id="$1" '$1 == id { print $7 }'; }

iterations=600
id=$(SYNERGY_TOKEN=$ALICE_TOKEN submit logged 1 res18 $iterations --print-every 1)
for _ in $(seq 100); do [[ $(node_of "$id") == n1 ]] && break; sleep 0.1; done
[[ $(node_of "$id") == n1 ]] || fail "$id did not start on n1"

# ---- 1. follow across a preemption
as_alice logs "$id" -f >"$work/follow.out" 2>"$work/follow.err" &
follower=$!
pids+=("$follower")
# The job moves once n1 has rotated its output (part 4 checks it): a fixed
# wait let a slow job (a sanitizer build) write less than log_max_bytes.
deadline=$((SECONDS + 60))
until [[ -e $work/logs-n1/$id.1.out.1 ]]; do
  ((SECONDS < deadline)) || fail "n1 did not rotate $id.1.out at 4096 bytes within 60 s"
  sleep 0.2
done
sleep 0.5
ctl undrain n2 >/dev/null && ctl drain n1 --reason "moving the job" >/dev/null || fail "drain n1"
for _ in $(seq 200); do [[ $(node_of "$id") == n2 ]] && break; sleep 0.1; done
[[ $(node_of "$id") == n2 ]] || fail "$id did not move to n2"
wait_until_done 60 "$id"
[[ $(state_of "$id") == succeeded ]] || fail "$id ended $(state_of "$id")"
for _ in $(seq 100); do kill -0 "$follower" 2>/dev/null || break; sleep 0.1; done
kill -0 "$follower" 2>/dev/null && fail "logs -f did not stop after the job ended"
wait "$follower" || fail "logs -f exited with an error: $(cat "$work/follow.err")"
grep -q "^--- $id lease 1 on n1 ---$" "$work/follow.err" || fail "no header for lease 1: $(cat "$work/follow.err")"
grep -q "^--- $id lease 2 on n2 ---$" "$work/follow.err" || fail "no header for lease 2: $(cat "$work/follow.err")"
grep -q "lease 2: resuming at iteration" "$work/follow.out" || fail "the follower missed lease 2's start"
grep -q "done, state $(expected_state $iterations)" "$work/follow.out" || fail "the follower missed the end"
# Lease 2's lines continue from its checkpoint to the end without a gap;
# lease 1's rise from 0 (a rotation on n1 may skip what the follower had
# not read yet: that part is in the node's FILE.1).
python3 - "$work/follow.out" "$iterations" <<'PY' || fail "the followed iterations are out of order or lease 2's are missing"
import re, sys
text = open(sys.argv[1]).read()
first, second = re.split(r"^agent_job \S+ lease 2: resuming at iteration \d+.*$", text, flags=re.M)
resumed = int(re.search(r"lease 2: resuming at iteration (\d+)", text).group(1))
its = lambda part: [int(i) for i in re.findall(r"^iteration (\d+)$", part, re.M)]
one, two = its(first), its(second)
assert one and one[0] == 0 and all(b > a for a, b in zip(one, one[1:])), one[:5]
assert two == list(range(resumed, int(sys.argv[2]))), (resumed, two[:3], two[-3:])
PY
echo "ok   logs -f followed $id across the move n1 -> n2 and stopped when it ended"

# ---- 2. after the end, from either node
as_alice logs "$id" >"$work/latest.out" || fail "logs after the end"
head -1 "$work/latest.out" | grep -q "lease 2: resuming" || fail "logs does not show the latest lease: $(head -2 "$work/latest.out")"
tail -1 "$work/latest.out" | grep -q "done, state" || fail "logs stops before the end"
as_alice logs "$id" --lease 1 >"$work/first.out" || fail "logs --lease 1"
grep -q "lease 1: resuming at iteration 0" "$work/first.out" ||
  grep -q "^iteration" "$work/first.out" || fail "logs --lease 1 shows nothing of lease 1"
as_alice logs "$id" --stderr >/dev/null || fail "logs --stderr"
echo "ok   logs after the end: lease 2 (n2) in full, lease 1 (n1), --stderr"

# ---- 3. who may read, and what is not there
out=$(SYNERGY_TOKEN=$BOB_TOKEN ctl logs "$id" 2>&1) && fail "bob read alice's output: $out"
grep -q "its output is its owner's" <<<"$out" || fail "bob was refused for another reason: $out"
ctl logs "$id" >/dev/null || fail "an admin could not read the output"
out=$(ctl logs "$id" --lease 9 2>&1) && fail "a lease the job never had: $out"
grep -q "had no lease 9" <<<"$out" || fail "lease 9: $out"
echo "ok   only the owner and admins; a lease it never had is refused"

# ---- 4. rotation on n1 (log_max_bytes 4096)
ls "$work/logs-n1/$id.1.out.1" >/dev/null 2>&1 || fail "n1 did not rotate $id.1.out at 4096 bytes"
size=$(stat -c %s "$work/logs-n1/$id.1.out")
((size < 4096 + 1024)) || fail "$id.1.out on n1 is $size bytes, over the cap"
grep -q "reached log_max_bytes" "$work/node-n1.log" || fail "n1 did not log the rotation"
echo "ok   n1 rotated $id.1.out at log_max_bytes (now $size bytes)"
echo "ok job_logs"
