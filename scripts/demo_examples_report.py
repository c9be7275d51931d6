#!/usr/bin/env python3
"""The table of scripts/demo-examples: per job and mechanism, the CPUs of its
training leases, its throughput (median of the agent's 1-second reports while
it trained), its JCT and its profiling cost, from `synergyctl get jobs -o
json` samples (one JSON object per line, with the sample time in "t")."""
import json
import statistics
import sys

DONE = ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED")


def summarise(path):
    jobs = {}
    for line in open(path):
        sample = json.loads(line)
        for j in sample.get("jobs", []):
            name = j["spec"].get("name", j["id"])
            s = jobs.setdefault(name, {"cpus": [], "throughput": [], "job": j})
            s["job"] = j
            lease = j.get("lease")
            if j["state"] == "JOB_STATE_RUNNING" and lease and not lease.get("profiling"):
                cpus = sum(len(sl.get("cpu_ids", [])) for sl in lease.get("slices", []))
                if cpus not in s["cpus"]:
                    s["cpus"].append(cpus)
                if j.get("throughput", 0) > 0:
                    s["throughput"].append(j["throughput"])
    out = {}
    for name, s in jobs.items():
        j = s["job"]
        profile = j.get("measured_profile", {})
        out[name] = {
            "state": j["state"].replace("JOB_STATE_", "").lower(),
            "cpus": s["cpus"],
            "throughput": statistics.median(s["throughput"]) if s["throughput"] else 0.0,
            "jct": (int(j.get("finished_unix_ms", 0)) - int(j["submitted_unix_ms"])) / 1000.0
            if int(j.get("finished_unix_ms", 0)) > 0 else float("nan"),
            "profile": profile,
        }
    return out


def main():
    runs = {"proportional": summarise(sys.argv[1]), "tune": summarise(sys.argv[2])}
    print()
    print(f"{'JOB':<10} {'MECHANISM':<13} {'STATE':<10} {'CPUS':>5} {'IT/S':>7} {'JCT S':>7}  PROFILE (CPU points, it/s)")
    names = sorted(set(runs["proportional"]) | set(runs["tune"]))
    for name in names:
        for mechanism, run in runs.items():
            r = run.get(name)
            if r is None:
                continue
            cpus = ",".join(str(c) for c in r["cpus"]) or "-"
            points = {}
            for p in r["profile"].get("points", []):
                points[p.get("cpus", 0)] = max(points.get(p.get("cpus", 0), 0), p.get("throughput", 0))
            prof = " ".join(f"{c:g}:{t:.0f}" for c, t in sorted(points.items()))
            prof += f" ({r['profile'].get('seconds', 0):.1f} s)" if points else "-"
            print(f"{name:<10} {mechanism:<13} {r['state']:<10} {cpus:>5} {r['throughput']:>7.1f} {r['jct']:>7.1f}  {prof}")
    print()
    worst = 0.0
    for name in names:
        p, t = runs["proportional"].get(name), runs["tune"].get(name)
        if not p or not t or not (p["jct"] > 0 and t["jct"] > 0):
            print(f"{name}: did not finish in both runs")
            continue
        speed = t["throughput"] / p["throughput"] if p["throughput"] > 0 else float("nan")
        change = (t["jct"] - p["jct"]) / p["jct"] * 100
        worst = max(worst, change)
        print(f"{name}: TUNE {speed:.2f}x the throughput of PROPORTIONAL, JCT {p['jct']:.1f} s -> {t['jct']:.1f} s ({change:+.1f}%)")
    print(f"slowest change under TUNE: {worst:+.1f}% JCT" +
          (" (no job slower)" if worst <= 0 else " (within measurement noise?)" if worst < 5 else " (a job is slower)"))


if __name__ == "__main__":
    main()
