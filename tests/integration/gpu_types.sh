#!/usr/bin/env bash
# synergyd on nodes of two GPU types, with real synergy-node processes and
# agent jobs on loopback: the nodes declare their types, every round plans
# by type (each lease on one node's type, weighted in the base type's
# service while it runs), a profile records the type it was measured on,
# and every job ends with the value of an uninterrupted run.
# usage: gpu_types.sh BUILD_DIR
BIN=$1
TEST=gpu_types
source "$(dirname "$0")/lib.sh"

POLICY=las start_daemon "type_choice: best-allocation"
# Memory as the zoo's profiles were measured with (a GPU's share of 500 GB
# is on their grid; a node short of memory starves every model's data
# pipeline, and a K80 is then as fast as a V100).
export NODE_MEMORY_GB=500
NODE_EXTRA="gpu_type: v100" start_node n1 2
NODE_EXTRA="gpu_type: k80" start_node n2 2
wait_for_nodes 2
ctl describe node n2 | grep -q "^GPU type: *k80" || { ctl describe node n2; fail "n2 does not show GPU type k80"; }
grep -q "node n2 registered: 2 GPUs k80" "$work/synergyd.log" || fail "synergyd did not log n2's type"

ids=()
ids+=("$(submit img1 1 res18 150)")
ids+=("$(submit lang1 1 gnmt 150)")
ids+=("$(submit img2 1 alexnet 120)")
ids+=("$(submit lang2 1 lstm 120)")
ids+=("$(submit img3 2 mobilenet 100)")
ids+=("$(submit_profiled res18)")
echo "submitted ${ids[*]}"

# While they run: each current lease's weight is its node's type's (1 on
# the V100s; on the K80s the model's rate there over the V100's, at most 1:
# a profile measured on a K80 below its CPU knee runs as fast on both). A
# lease granted while the K80 node was lent for profiling, on a round of
# V100s only, has none (1).
weights_seen=0
deadline=$((SECONDS + 120))
while ((SECONDS < deadline)); do
  out=$(ctl get jobs -o json | python3 -c "
import json, sys
bad, seen = [], 0
for j in json.load(sys.stdin).get('jobs', []):
    lease = j.get('lease')
    if not lease or lease.get('profiling'):
        continue
    nodes = {s['node'] for s in lease['slices']}
    if len(nodes) != 1:
        bad.append(f\"{j['id']} spans {sorted(nodes)}\")
    w = lease.get('service_weight') or 1
    if 'n1' in nodes and w != 1:
        bad.append(f\"{j['id']} on the V100 node weighs {w}\")
    if 'n2' in nodes and not 0 < w <= 1:
        bad.append(f\"{j['id']} on the K80 node weighs {w}\")
    seen += 1
print(seen, '; '.join(bad))
")
  read -r seen bad <<<"$out"
  [[ -n $bad ]] && fail "leases: $bad"
  weights_seen=$((weights_seen + seen))
  done_count=0
  for id in "${ids[@]}"; do
    case $(state_of "$id") in succeeded | failed | cancelled) done_count=$((done_count + 1)) ;; esac
  done
  ((done_count == ${#ids[@]})) && break
  sleep 0.5
done
((weights_seen > 0)) || fail "no lease was seen running"
# A K80 lease below 1, from the grants' record rather than a poll: a lease
# of 2 s on a slow (sanitized) build can fall between two polls.
grep -h "granted: n2 .*, service weight 0\.[0-9]*)" "$work/synergyd.log" | grep -vq "profiling lease" ||
  fail "no lease on the K80 node was granted weighing less than 1"
wait_until_done 5 "${ids[@]}"
ctl get jobs -o wide

for id in "${ids[@]}"; do
  [[ $(state_of "$id") == succeeded ]] || fail "$id is $(state_of "$id")"
  total=$(ctl get jobs -o json | python3 -c "import json,sys; j=[x for x in json.load(sys.stdin)['jobs'] if x['id']=='$id'][0]; print(j['spec']['iterations'])")
  [[ $(cat "$work/ckpt/$id.result") == "$(expected_state "$total")" ]] ||
    fail "$id ended with $(cat "$work/ckpt/$id.result"), an uninterrupted run gives $(expected_state "$total")"
done
# Some job ran on the K80 node, so the type choice had both types to use.
grep -h "granted: n2 " "$work/synergyd.log" | grep -vq "profiling lease" || fail "no lease was granted on the K80 node"

profiled=${ids[-1]}
line=$(ctl describe job "$profiled" | grep '^Profile:')
echo "$profiled: $line"
[[ $line =~ measured:\ [0-9]+\ points\ in\ .*,\ on\ (v100|k80)\) ]] || fail "$profiled's profile names no GPU type: $line"
type=${BASH_REMATCH[1]}
node=$(ctl describe job "$profiled" | awk '/profiling lease [0-9]* granted: / { print $0 }' | grep -o 'granted: n[12]' | head -1)
case "$node:$type" in
  "granted: n1:v100" | "granted: n2:k80") ;;
  *) fail "$profiled was profiled on '${node#granted: }' but its profile says $type" ;;
esac
echo "PASS"
