#!/usr/bin/env bash
# A 2-GPU agent job across two 1-GPU nodes (rank 0 on one, rank 1 on the
# other): draining one node ends its lease, and both ranks stop at the same
# iteration, the one rank 0 chose and announced through synergyd; after the
# undrain both ranks resume there, and the job ends with the value of an
# uninterrupted run.
# usage: multi_rank.sh BUILD_DIR
BIN=$1
TEST=multi_rank
source "$(dirname "$0")/lib.sh"
POLICY=fifo
# Rank 0 hears of the lease's end at its next report (up to 1 s) and picks a
# stop 1.25 report intervals ahead, so the ranks need up to ~2.3 s, more on
# a loaded machine under ASan; lib.sh's 2 s grace would kill them first.
LEASE_GRACE_S=10 start_daemon
start_node n1 1
start_node n2 1
wait_for_nodes 2

id=$(submit wide 2 res18 400)
for _ in $(seq 100); do [[ $(state_of "$id") == running ]] && break; sleep 0.1; done
sleep 1.5
ctl get jobs -o wide
suspend_by_drain "$id" n2
wait_until_done 60 "$id"
[[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"

# Where each rank of the first lease stopped.
read -r stop0 stop1 <<<"$(rank_stops "$id")"
echo "rank 0 stopped at $stop0, rank 1 at $stop1"
[[ $stop0 != "?" && $stop1 != "?" ]] || fail "a rank did not log where it stopped"
[[ $stop0 == "$stop1" ]] || fail "ranks stopped at different iterations: $stop0 and $stop1"
((stop0 > 0 && stop0 < 400)) || fail "stop iteration $stop0 is not inside the run"
resumed=$(grep -lh "resuming at iteration $stop0 of 400" "$work"/logs-n*/"$id".*.out | wc -l)
((resumed == 2)) || fail "$resumed ranks resumed at $stop0, want 2"
[[ $(cat "$work/ckpt/$id.result") == "$(expected_state 400)" ]] || fail "$id's result is wrong"
echo "ok multi_rank"
