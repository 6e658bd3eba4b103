#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""headline.py - the short table of one `make bench` run, for the README.

    python3 tests/bench/headline.py results/<date-time>/report.json

From report.json (tests/bench/bench_report.py --json) prints, per lower, a
markdown table of the workloads users ask about first: per workload the
median of the lower with default options, of the best peer (the fastest of
the tuned client, mergerfs and rclone in that workload), of metacache with
its defaults and with 60 s TTLs, and of tmpfs; then metacache (60 s) against
the lower and against the best peer, as speed-ups (x > 1: metacache is
faster).  Workloads a configuration did not run show "-".  The header says
when and where it was measured, and that the machine was emulated.
"""
import json
import signal
import sys

# (workload, what users call it)
ROWS = [
    ("md_stat", "stat, warm (us/op)"),
    ("md_neg", "stat of a missing name, warm (us/op)"),
    ("md_open", "open+close, first (us/op)"),
    ("md_open_warm", "open+close, again (us/op)"),
    ("md_walk", "path walk, 8 deep, warm (us/op)"),
    ("md_ls", "ls -l per entry, warm (us/op)"),
    ("md_ls_cold", "ls -l per entry, cold (us/op)"),
    ("md_create", "create (us/op)"),
    ("gen_mdtest_stat", "generator stat (us/op)"),
    ("gen_mdtest_stat-missing", "generator stat missing (us/op)"),
    ("gen_mdtest_open", "generator open+close (us/op)"),
    ("gen_randrw_all", "generator 4 KiB random I/O (us/op)"),
    ("git_status", "git status, warm (s)"),
    ("find_ls", "find -ls, warm (s)"),
    ("du_s", "du -s, warm (s)"),
    ("tar_x", "tar -x (s)"),
    ("make_j2", "make -j2 (s)"),
]
PEERS = ("tuned", "mergerfs", "rclone")


def med(w, cfg):
    c = w["configs"].get(cfg)
    return c.get("median") if c else None


def fmt(v):
    if v is None:
        return "-"
    return "%.3g" % v if v < 100 else "%.0f" % v


def main():
    if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: headline.py REPORT.json (results/<date-time>/report.json)")
    try:
        with open(sys.argv[1]) as f:
            doc = json.load(f)
        doc["lowers"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit("headline.py: %s: not a make bench report.json (%s)" % (sys.argv[1], e))
    meta = doc.get("meta", {})
    print("Measured %s on %s, %s; rtt %s. Emulated machine (QEMU TCG): the "
          "absolute figures mean little, the ratios measured in one boot do."
          % (meta.get("date", "?"), meta.get("host", "?"),
             meta.get("guest", "?"), meta.get("rtt", "?")))
    for lower, L in doc["lowers"].items():
        wls = L["workloads"]
        print("\n%s | default | best peer | metacache | metacache 60 s | tmpfs "
              "| 60 s vs default | 60 s vs best peer" % lower)
        print("---|---:|---:|---:|---:|---:|---:|---:")
        for name, label in ROWS:
            w = wls.get(name)
            if not w:
                continue
            d, m, m60, t = (med(w, c) for c in ("default", "metacache", "mc-60s", "tmpfs"))
            peers = [(med(w, p), p) for p in PEERS if med(w, p) is not None]
            best = min(peers) if peers else (None, None)
            sp = lambda a, b: "-" if a is None or b is None or not b else "%.2gx" % (a / b)
            print("%s | %s | %s | %s | %s | %s | %s | %s" % (
                label, fmt(d), fmt(best[0]) + (" (%s)" % best[1] if best[1] else ""),
                fmt(m), fmt(m60), fmt(t), sp(d, m60), sp(best[0], m60)))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    main()
