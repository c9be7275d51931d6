#!/usr/bin/env python3
"""scripts/demo-examples' poller and table.

  watch SYNERGYCTL SAMPLES   samples `synergyctl get jobs -o json` every
                             second into SAMPLES (one JSON object per line,
                             the sample time in "t"), shows the wide table
                             every 5 s, returns when every job has ended
                             (exit 1 after 10 minutes)
  profiles SYNERGYCTL OUT    waits until every job has a measured profile
                             (exit 1 after 5 minutes), writes them to OUT
                             by job name
  points PROFILES NAME       one job's points from OUT, as a YAML (JSON)
                             list for a job spec's profile_points
  report PROFILES PROP TUNE  per job and mechanism: the CPUs of its training
                             leases, its throughput (median of the agent's
                             1-second reports while it trained), its training
                             time (first training lease to the end), its JCT;
                             and the profile both runs were scheduled from
"""
import json
import statistics
import subprocess
import sys
import time

DONE = ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED")


def watch(ctl, path):
    start = time.time()
    with open(path, "a") as out:
        n = 0
        while time.time() - start < 600:
            sample = json.loads(subprocess.run([ctl, "get", "jobs", "-o", "json"], check=True,
                                               capture_output=True, text=True).stdout or "{}")
            sample["t"] = time.time()
            out.write(json.dumps(sample) + "\n")
            jobs = sample.get("jobs", [])
            done = bool(jobs) and all(j["state"] in DONE for j in jobs)
            if done or n % 5 == 0:
                table = subprocess.run([ctl, "get", "jobs", "-o", "wide"], capture_output=True, text=True).stdout
                print("".join("   " + line + "\n" for line in table.splitlines()), end="", flush=True)
            if done:
                return 0
            n += 1
            time.sleep(1)
    return 1


def get_jobs(ctl):
    return json.loads(subprocess.run([ctl, "get", "jobs", "-o", "json"], check=True,
                                     capture_output=True, text=True).stdout or "{}").get("jobs", [])


def profiles(ctl, path):
    start = time.time()
    while time.time() - start < 300:
        jobs = get_jobs(ctl)
        if jobs and all(j.get("measured_profile", {}).get("points") for j in jobs):
            with open(path, "w") as out:
                json.dump({j["spec"].get("name", j["id"]): j["measured_profile"] for j in jobs}, out)
            return 0
        if any(j["state"] in DONE for j in jobs):
            return 1
        time.sleep(1)
    return 1


def points(path, name):
    keys = ("cpus", "mem_gb", "throughput")
    print(json.dumps([{k: p.get(k, 0) for k in keys} for p in json.load(open(path))[name]["points"]]))
    return 0


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
                s.setdefault("train_start", sample["t"])
                cpus = sum(len(sl.get("cpu_ids", [])) for sl in lease.get("slices", []))
                if cpus not in s["cpus"]:
                    s["cpus"].append(cpus)
                if j.get("throughput", 0) > 0:
                    s["throughput"].append(j["throughput"])
    out = {}
    for name, s in jobs.items():
        j = s["job"]
        out[name] = {
            "state": j["state"].replace("JOB_STATE_", "").lower(),
            "cpus": s["cpus"],
            "throughput": statistics.median(s["throughput"]) if s["throughput"] else 0.0,
            "jct": (int(j.get("finished_unix_ms", 0)) - int(j["submitted_unix_ms"])) / 1000.0
            if int(j.get("finished_unix_ms", 0)) > 0 else float("nan"),
            "train": int(j.get("finished_unix_ms", 0)) / 1000.0 - s["train_start"]
            if int(j.get("finished_unix_ms", 0)) > 0 and "train_start" in s else float("nan"),
        }
    return out


def cpu_list(run):
    """The CPUs of a job's training leases in one run, in the order held."""
    return ",".join(str(c) for c in run["cpus"]) or "-"


def report(profiles_path, proportional, tune):
    measured = json.load(open(profiles_path))
    runs = {"proportional": summarise(proportional), "tune": summarise(tune)}
    print()
    print(f"{'JOB':<10} {'MECHANISM':<13} {'STATE':<10} {'CPUS':>5} {'IT/S':>7} {'TRAIN S':>8} {'JCT S':>7}  "
          "PROFILE (CPUs:it/s, measured once, seconds)")
    names = sorted(set(runs["proportional"]) | set(runs["tune"]))
    for name in names:
        for mechanism, run in runs.items():
            r = run.get(name)
            if r is None:
                continue
            cpus = cpu_list(r)
            profile = measured.get(name, {})
            best = {}
            for p in profile.get("points", []):
                best[p.get("cpus", 0)] = max(best.get(p.get("cpus", 0), 0), p.get("throughput", 0))
            prof = " ".join(f"{c:g}:{t:.0f}" for c, t in sorted(best.items()))
            prof += f" ({profile.get('seconds', 0):.1f} s)" if best else "-"
            print(f"{name:<10} {mechanism:<13} {r['state']:<10} {cpus:>5} {r['throughput']:>7.1f} {r['train']:>8.1f} "
                  f"{r['jct']:>7.1f}  {prof}")
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
        print(f"{name}: TUNE {speed:.2f}x the throughput of PROPORTIONAL (CPUs {cpu_list(p)} -> {cpu_list(t)}); "
              f"training {p['train']:.1f} s -> "
              f"{t['train']:.1f} s, JCT {p['jct']:.1f} s -> {t['jct']:.1f} s ({change:+.1f}%)")
    verdict = "no job slower" if worst <= 0 else (
        "within this machine's run-to-run noise of a few %" if worst < 5 else "a job is slower")
    print(f"largest JCT change under TUNE: {worst:+.1f}% ({verdict})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "watch":
        sys.exit(watch(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "profiles":
        sys.exit(profiles(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "points":
        sys.exit(points(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 5 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2], sys.argv[3], sys.argv[4]))
    sys.exit("usage: demo_examples_report.py watch SYNERGYCTL SAMPLES | profiles SYNERGYCTL OUT | "
             "points PROFILES NAME | report PROFILES PROP_SAMPLES TUNE_SAMPLES")
