#!/usr/bin/env python3
"""The Python agent's cost per iteration: `for x in agent.wrap(it)` against
the bare `for x in it`, and agent.step() alone (one call into C++, the GIL
released and taken back, two relaxed atomics). Prints nanoseconds per
iteration, the best of --repeat runs of --n iterations each.

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python_wrap_bench.py
"""
import argparse
import os
import time

for k in [k for k in os.environ if k.startswith("SYNERGY_")]:
    del os.environ[k]  # standalone: the loop's cost is the same under a lease

import synergy  # noqa: E402


def best_ns(fn, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        fn(n)
        best = min(best, (time.perf_counter_ns() - t0) / n)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1_000_000)
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    agent = synergy.Agent.from_environment()

    def bare(n):
        for _ in range(n):
            pass

    def wrapped(n):
        for _ in agent.wrap(range(n)):
            pass

    def steps(n):
        step = agent.step
        for _ in range(n):
            step()

    b, w, s = (best_ns(f, a.n, a.repeat) for f in (bare, wrapped, steps))
    print(f"bare loop      {b:8.1f} ns/iteration")
    print(f"agent.wrap     {w:8.1f} ns/iteration ({w - b:.1f} ns over the bare loop)")
    print(f"agent.step()   {s:8.1f} ns/call (with its loop)")


if __name__ == "__main__":
    main()
