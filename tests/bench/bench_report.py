#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py - the report of tests/bench/peerbench.sh's TSV.

usage: bench_report.py [--meta META.txt] [--json OUT.json] BENCH.tsv > bench.md

BENCH.tsv: lower, config, run, workload, unit, value, status, note (one line
per measurement; see peerbench.sh).  META.txt: "key<TAB>value" lines (date,
machine, sizes...), printed at the top.

For every lower and workload: each configuration's time (median over the
runs, with min-max), then the ratios time(config) / time(reference) with
the reference "default" (the lower with default options) and "tmpfs" (the
local limit).  A ratio is computed within each run (the configurations of
one run ran interleaved, minutes apart at most) and the median over the
runs is shown with the runs' min-max.  Below 1 = faster than the
reference.  Failed or not-run measurements are never shown as numbers.
"""
import argparse
import json
import statistics
import sys

ORDER = ["default", "tuned", "mergerfs", "rclone", "metacache", "mc-60s", "tmpfs"]
UNITS = {"s": "s", "us": "us/op"}


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_ratio(v):
    if v >= 10:
        return "%.0f" % v
    if v >= 1:
        return "%.1f" % v
    if v >= 0.1:
        return "%.2f" % v
    return "%.3f" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--meta")
    ap.add_argument("--json")
    ap.add_argument("tsv")
    a = ap.parse_args()

    meta = []
    if a.meta:
        with open(a.meta) as f:
            for line in f:
                if "\t" in line:
                    k, v = line.rstrip("\n").split("\t", 1)
                    meta.append((k, v))

    lowers = {}     # lower -> dict
    with open(a.tsv) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 7:
                continue
            lower, cfg, run, wl, unit, val, status = p[:7]
            note = p[7] if len(p) > 7 else ""
            L = lowers.setdefault(lower, {"configs": [], "workloads": [], "cells": {},
                                          "notrun": {}, "skipped": {}, "runs": set()})
            if cfg not in L["configs"]:
                L["configs"].append(cfg)
            if wl == "*":
                if status == "notrun":
                    L["notrun"][cfg] = note
                elif status == "skipped":
                    L["skipped"].setdefault(cfg, []).append(int(run))
                continue
            L["runs"].add(int(run))
            if wl not in L["workloads"]:
                L["workloads"].append(wl)
            c = L["cells"].setdefault((wl, cfg), {"unit": unit, "runs": {}, "notes": [],
                                                   "lower": {}})
            if status == "ok":
                c["runs"][int(run)] = float(val)
                if note.startswith("lower/op "):
                    c["lower"][int(run)] = float(note.split()[1])
            else:
                c["notes"].append("%s (run %s): %s" % (status, run, note))

    out = {"meta": dict(meta), "lowers": {}}
    md = ["# metacache against the peers (`make bench`)", ""]
    for k, v in meta:
        md.append("- %s: %s" % (k, v))
    md += ["",
           "Emulated machine: absolute times mean little; compare the ratios, measured in one boot "
           "with the configurations interleaved in every run. Times: median over the runs "
           "(min-max). Ratios: time of the configuration / time of the reference, computed per run, "
           "median (min-max) over the runs; below 1 = faster than the reference. "
           "`md_*` rows are mdbench phases in microseconds per operation; the others are whole "
           "programs in seconds (a process start is in every one of them). `_cold` = after sync, "
           "drop_caches and every metacache mount's flush (and rclone's vfs/forget).",
           ""]
    for lower in sorted(lowers, key=lambda x: ["nfs", "cifs"].index(x) if x in ("nfs", "cifs") else 9):
        L = lowers[lower]
        cfgs = sorted(L["configs"], key=lambda c: ORDER.index(c) if c in ORDER else 99)
        J = {"configs": cfgs, "not_run": L["notrun"], "skipped_runs": L["skipped"],
             "workloads": {}}
        out["lowers"][lower] = J
        md += ["## %s" % lower, ""]
        for c, why in L["notrun"].items():
            md.append("- **%s: not run**: %s" % (c, why))
        for c, rs in L["skipped"].items():
            md.append("- %s: run(s) %s skipped (time budget)" % (c, ",".join(map(str, rs))))
        ran = [c for c in cfgs if c not in L["notrun"]]
        runs = sorted(L["runs"])
        md.append("- runs: %s" % (", ".join(map(str, runs)) or "none"))
        md.append("")
        notes = []

        def cell(wl, cfg):
            return L["cells"].get((wl, cfg))

        def ratios(wl, cfg, ref):
            c, r = cell(wl, cfg), cell(wl, ref)
            if not c or not r:
                return []
            return [c["runs"][n] / r["runs"][n] for n in runs
                    if n in c["runs"] and n in r["runs"] and r["runs"][n] > 0]

        # Times.
        md.append("### %s: time per configuration" % lower)
        md.append("")
        md.append("| workload | unit | " + " | ".join(ran) + " |")
        md.append("|---|---|" + "---:|" * len(ran))
        for wl in L["workloads"]:
            row = []
            unit = "?"
            jw = J["workloads"].setdefault(wl, {"configs": {}, "ratio_vs_default": {},
                                                 "ratio_vs_tmpfs": {}})
            for cfg in ran:
                c = cell(wl, cfg)
                if not c:
                    row.append("not run")
                    continue
                unit = UNITS.get(c["unit"], c["unit"])
                jw["unit"] = unit
                vals = [c["runs"][n] for n in sorted(c["runs"])]
                jc = {"values": vals, "notes": c["notes"]}
                if vals:
                    jc.update(median=statistics.median(vals), min=min(vals), max=max(vals))
                    s = fmt(statistics.median(vals))
                    if len(vals) > 1:
                        s += " (%s-%s)" % (fmt(min(vals)), fmt(max(vals)))
                elif c["notes"] and all(n.startswith(("skipped", "notrun")) for n in c["notes"]):
                    s = "not run"
                else:
                    s = "failed"
                if c["notes"]:
                    notes.append("%s %s: %s" % (wl, cfg, "; ".join(c["notes"])))
                    s += " [%d]" % len(notes)
                jw["configs"][cfg] = jc
                row.append(s)
            md.append("| %s | %s | %s |" % (wl, unit, " | ".join(row)))
        md.append("")
        for ref, title in (("default", "vs the lower with default options"),
                           ("tmpfs", "vs tmpfs (1 = local speed)")):
            if ref not in ran:
                md += ["(no ratios %s: %s not run)" % (title, ref), ""]
                continue
            others = [c for c in ran if c != ref]
            md.append("### %s: ratio %s" % (lower, title))
            md.append("")
            md.append("| workload | " + " | ".join(others) + " |")
            md.append("|---|" + "---:|" * len(others))
            for wl in L["workloads"]:
                row = []
                for cfg in others:
                    rs = ratios(wl, cfg, ref)
                    if not rs:
                        row.append("-")
                        continue
                    med = statistics.median(rs)
                    J["workloads"][wl]["ratio_vs_" + ref][cfg] = {
                        "median": med, "min": min(rs), "max": max(rs), "per_run": rs}
                    s = fmt_ratio(med)
                    if len(rs) > 1:
                        s += " (%s-%s)" % (fmt_ratio(min(rs)), fmt_ratio(max(rs)))
                    row.append(s)
                md.append("| %s | %s |" % (wl, " | ".join(row)))
            md.append("")
        # metacache against the best peer of each run (the fastest of the
        # tuned client, mergerfs and rclone on that workload in that run).
        peers = [c for c in ("tuned", "mergerfs", "rclone") if c in ran]
        mcs = [c for c in ("metacache", "mc-60s") if c in ran]
        if peers and mcs:
            md.append("### %s: metacache vs the best peer (%s)" % (lower, ", ".join(peers)))
            md.append("")
            md.append("Per run, the fastest peer on that workload is the reference; "
                      "below 1 = metacache faster than every peer.")
            md.append("")
            md.append("| workload | best peer (runs) | " +
                      " | ".join("%s / best peer" % c for c in mcs) + " |")
            md.append("|---|---|" + "---:|" * len(mcs))
            for wl in L["workloads"]:
                best = {}
                for n in runs:
                    cand = [(cell(wl, p)["runs"][n], p) for p in peers
                            if cell(wl, p) and n in cell(wl, p)["runs"]]
                    if cand:
                        best[n] = min(cand)
                if not best:
                    continue
                names = sorted(set(b[1] for b in best.values()))
                row = []
                for c in mcs:
                    x = cell(wl, c)
                    rs = [x["runs"][n] / best[n][0] for n in runs
                          if x and n in x["runs"] and n in best and best[n][0] > 0]
                    if not rs:
                        row.append("-")
                        continue
                    med = statistics.median(rs)
                    J["workloads"][wl].setdefault("ratio_vs_best_peer", {})[c] = {
                        "median": med, "min": min(rs), "max": max(rs), "per_run": rs,
                        "best_peer": [best[n][1] for n in sorted(best)]}
                    s = fmt_ratio(med)
                    if len(rs) > 1:
                        s += " (%s-%s)" % (fmt_ratio(min(rs)), fmt_ratio(max(rs)))
                    row.append(s)
                md.append("| %s | %s | %s |" % (wl, ", ".join(names), " | ".join(row)))
            md.append("")
        # Lower calls per operation on the metacache mounts (mdbench reads
        # them from debugfs): 0 = served from the cache.
        lw = [wl for wl in L["workloads"]
              if any(cell(wl, c) and cell(wl, c)["lower"] for c in mcs)]
        if lw:
            md.append("### %s: metacache's calls to the lower per operation (mdbench)" % lower)
            md.append("")
            md.append("| workload | " + " | ".join(mcs) + " |")
            md.append("|---|" + "---:|" * len(mcs))
            for wl in lw:
                row = []
                for c in mcs:
                    x = cell(wl, c)
                    v = sorted(x["lower"].values()) if x else []
                    if x and v:
                        J["workloads"][wl]["configs"][c]["lower_calls_per_op"] = v
                    row.append("%.2f" % statistics.median(v) if v else "-")
                md.append("| %s | %s |" % (wl, " | ".join(row)))
            md.append("")
        if notes:
            md.append("Notes:")
            md.append("")
            for i, n in enumerate(notes, 1):
                md.append("%d. %s" % (i, n))
            md.append("")
    sys.stdout.write("\n".join(md) + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
