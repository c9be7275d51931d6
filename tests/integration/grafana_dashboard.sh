#!/usr/bin/env bash
# docs/grafana/synergy-dashboard.json against the real thing: a synergyd and
# a synergy-node serve /metrics; every metric the dashboard's queries name
# is one of theirs; every query (Grafana's variables put in) is PromQL that
# promtool parses (`promtool check rules`); panels have unique ids, a query
# each and do not overlap on the grid.
# usage: grafana_dashboard.sh BUILD_DIR
BIN=$1
TEST=grafana_dashboard
source "$(dirname "$0")/lib.sh"
dashboard=$(cd "$(dirname "$0")/../../docs/grafana" && pwd)/synergy-dashboard.json
promtool=$(command -v promtool || true)
[[ -z $promtool && -x $(dirname "$0")/../../.tools/bin/promtool ]] && promtool=$(dirname "$0")/../../.tools/bin/promtool
METRICS_PORT=$(free_port)
NODE_METRICS_PORT=$(free_port)
start_daemon
NODE_EXTRA="metrics_listen: 127.0.0.1:$NODE_METRICS_PORT" start_node n1 1
wait_for_nodes 1
fetch() { python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:$1/metrics').read().decode())"; }
{ fetch "$METRICS_PORT"; fetch "$NODE_METRICS_PORT"; } >"$work/metrics.txt" || fail "cannot read /metrics"
python3 - "$dashboard" "$work/metrics.txt" "$work/rules.yml" <<'PY' || fail "the dashboard does not match the metrics"
import json, re, sys
dash = json.load(open(sys.argv[1]))
exported = set()
for line in open(sys.argv[2]):
    if line.startswith("# TYPE "):
        name, kind = line.split()[2:4]
        exported.add(name)
        if kind == "histogram":
            exported.update({name + "_bucket", name + "_sum", name + "_count"})
variables = {v["name"] for v in dash["templating"]["list"]}
exprs = [v["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
ids, cells = set(), set()
for p in dash["panels"]:
    assert p["id"] not in ids, f"panel id {p['id']} twice"
    ids.add(p["id"])
    g = p["gridPos"]
    for x in range(g["x"], g["x"] + g["w"]):
        for y in range(g["y"], g["y"] + g["h"]):
            assert (x, y) not in cells, f"panel {p['title']} overlaps another at {(x, y)}"
            cells.add((x, y))
    assert g["x"] + g["w"] <= 24, f"panel {p['title']} is wider than the grid"
    assert p["targets"] and all(t["expr"].strip() for t in p["targets"]), f"panel {p['title']} has no query"
    exprs += [t["expr"] for t in p["targets"]]
rules = []
for i, e in enumerate(exprs):
    for var in re.findall(r"\$(\w+)", e):
        assert var in variables or var.startswith("__"), f"{e}: ${var} is not a dashboard variable"
    for name in re.findall(r"\b(synergy_[a-z0-9_]+)", e):
        assert name in exported, f"{e}: {name} is not exported by synergyd or synergy-node"
    promql = e.replace("$__rate_interval", "5m").replace("$node_job", ".*").replace("$job", ".*")
    if promql.startswith("label_values("):
        promql = re.sub(r"label_values\((\w+),.*\)", r"\1", promql)
    rules.append(f"      - record: dashboard:query_{i}\n        expr: {json.dumps(promql)}\n")
open(sys.argv[3], "w").write("groups:\n  - name: synergy-dashboard\n    rules:\n" + "".join(rules))
print(f"ok   {len(dash['panels'])} panels, {len(exprs)} queries, every metric exported")
PY
if [[ -n $promtool ]]; then
  out=$("$promtool" check rules "$work/rules.yml" 2>&1) || fail "promtool check rules (the dashboard's queries): $out"
  echo "ok   promtool parses every query"
else
  echo "note promtool not installed: the queries' syntax is not checked"
fi
echo "ok grafana_dashboard"
