#!/usr/bin/env bash
# Tenants' GPU quotas through a real synergyd and a node on loopback
# (issue 44, item 5): a node of 2 GPUs; vision (alice) may hold 1 GPU and
# not borrow, nlp (bob) 1 and borrow.
#  1. nlp's two agent jobs both run: one on the GPU vision leaves unused;
#  2. vision's job arrives: at the next round one of nlp's leases ends
#     (its agent checkpoints) and vision's job runs: the borrowed GPU is
#     returned; nlp's job waits;
#  3. vision's second job waits, saying its tenant is at its quota, while
#     nlp's job waits for a GPU; /metrics shows each tenant's GPUs and quota;
#  4. submissions outside the tenants are refused: a user to another
#     tenant, an admin to one not configured.
# usage: tenant_quotas.sh BUILD_DIR
BIN=$1
TEST=tenant_quotas
source "$(dirname "$0")/lib.sh"
POLICY=fifo
METRICS_PORT=$(free_port)
start_daemon "  tenants: [{name: vision, gpus: 1}, {name: nlp, gpus: 1, borrow: true}]"
start_node n1 2
wait_for_nodes 1

job_field() {
  ctl get job "$1" -o json | python3 -c "import json, sys; print(json.load(sys.stdin)['jobs'][0].get('$2', ''))"
}
holds_lease() { [[ $(job_field "$1" state) == JOB_STATE_RUNNING ]]; }
tenant_gpus() { metric "synergy_tenant_gpus_allocated{tenant=\"$1\"}"; }

# ---- 1. nlp borrows
nlp1=$(SYNERGY_TOKEN=$BOB_TOKEN submit nlp-a 1 gnmt 1000000) || fail "bob's first job refused"
nlp2=$(SYNERGY_TOKEN=$BOB_TOKEN submit nlp-b 1 gnmt 1000000) || fail "bob's second job refused"
wait_for 20 "both of nlp's jobs running" eval 'holds_lease "$nlp1" && holds_lease "$nlp2"'
[[ $(tenant_gpus nlp) == 2 ]] || fail "nlp holds $(tenant_gpus nlp) GPUs, not 2 (1 borrowed)"
echo "ok   nlp holds 2 GPUs with a quota of 1 (borrowing)"

# ---- 2. vision's job takes its GPU back at the next round
vision1=$(SYNERGY_TOKEN=$ALICE_TOKEN submit vision-a 1 res18 1000000) || fail "alice's job refused"
wait_for 30 "vision's job running" holds_lease "$vision1"
[[ $(tenant_gpus vision) == 1 && $(tenant_gpus nlp) == 1 ]] ||
  fail "vision $(tenant_gpus vision), nlp $(tenant_gpus nlp) GPUs after the round, not 1 and 1"
preempted=$nlp2
holds_lease "$nlp2" && preempted=$nlp1
ctl describe job "$preempted" | grep -q "checkpoint" || fail "$preempted's lease ended without a checkpoint"
echo "ok   the borrowed GPU went back to vision; $preempted checkpointed and waits"

# ---- 3. vision at its quota
vision2=$(SYNERGY_TOKEN=$ALICE_TOKEN submit vision-b 1 res18 1000000) || fail "alice's second job refused"
wait_for_metric_rise synergy_rounds_total 2 30 "two rounds after vision's second job"
holds_lease "$vision2" && fail "vision's second job runs past its tenant's quota"
[[ $(job_field "$vision2" reason) == "waiting: tenant vision holds 1 of its quota of 1 GPUs" ]] ||
  fail "vision's second job says: $(job_field "$vision2" reason)"
[[ $(metric 'synergy_tenant_gpu_quota{tenant="vision"}') == 1 ]] || fail "no vision quota on /metrics"
[[ $(metric 'synergy_tenant_jobs_waiting{tenant="vision"}') == 1 ]] || fail "vision's waiting job not on /metrics"
echo "ok   vision's second job waits at its quota"

# ---- 4. tenants are not a free label
printf 'name: x\ngpus: 1\ntenant: vision\ncommand: ["/bin/true"]\n' >"$work/other.yaml"
out=$(SYNERGY_TOKEN=$BOB_TOKEN ctl submit -f "$work/other.yaml" 2>&1) && fail "bob submitted to vision: $out"
grep -q "submits to tenant 'nlp' only" <<<"$out" || fail "bob's refusal: $out"
printf 'name: x\ngpus: 1\ntenant: speech\ncommand: ["/bin/true"]\n' >"$work/unknown.yaml"
out=$(ctl submit -f "$work/unknown.yaml" 2>&1) && fail "an admin submitted to an unknown tenant: $out"
grep -q "'speech' is not a tenant of this cluster (auth.tenants: vision, nlp)" <<<"$out" || fail "the refusal: $out"
echo "ok tenant_quotas: a borrowed GPU returned at the next round, a quota held, tenants checked"
