#!/usr/bin/env python3
"""Summary of a femint timeline (the CSV of --timeline: worker,kind,codelet,order,cells,start_s,
end_s,batch,ready_s): the span from the first start to the last end, each worker's busy time, and
per worker and codelet the tasks, their mean run time (start to end), their mean wait from ready
to start, and the mean gap since the end of the task before on the same worker.

    tools/timeline-summary.py FILE.csv
"""
import collections
import csv
import sys


def main(path):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        sys.exit(f"{path}: no tasks")
    for r in rows:
        for k in ("start_s", "end_s", "ready_s"):
            r[k] = float(r[k])
    rows.sort(key=lambda r: r["start_s"])
    span = max(r["end_s"] for r in rows) - min(r["start_s"] for r in rows)
    print(f"{path}: {len(rows)} tasks, span {span:.4f} s")
    stats = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for w in sorted({int(r["worker"]) for r in rows}):
        on = [r for r in rows if int(r["worker"]) == w]
        busy = sum(r["end_s"] - r["start_s"] for r in on)
        print(f"  worker {w} ({on[0]['kind']}): busy {busy:.4f} s of {span:.4f}")
        prev = None
        for r in on:
            s = stats[(w, r["codelet"])]
            s[0] += 1
            s[1] += r["end_s"] - r["start_s"]
            s[2] += r["start_s"] - r["ready_s"]
            s[3] += r["start_s"] - prev["end_s"] if prev else 0.0
            prev = r
    print("  worker codelet            tasks   run_us  wait_us   gap_us")
    for (w, name), (n, run, wait, gap) in sorted(stats.items()):
        print(f"  {w:6d} {name:18s} {n:6d} {1e6 * run / n:8.1f} {1e6 * wait / n:8.1f} "
              f"{1e6 * gap / n:8.1f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
