#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py - the report of tests/bench/peerbench.sh's TSV.

usage: bench_report.py [--meta META.txt] [--json OUT.json] [--plots DIR [--md-dir DIR]]
                       BENCH.tsv > bench.md

BENCH.tsv: lower, config, run, workload, unit, value, status, note (one line
per measurement; see peerbench.sh).  META.txt: "key<TAB>value" lines (date,
machine, sizes...), printed at the top.

For every lower and workload: each configuration's time (median over the
runs, with min-max), then the ratios time(config) / time(reference) with
the reference "default" (the lower with default options) and "tmpfs" (the
local limit), latency percentiles (p50, p99) and operations per second
where the rows carry them, metacache against the best peer, issue 8's goals checked
(met / not met, and the workloads that miss each), and metacache's gain
in Azure's terms (latency reduction %, IOPS increase %).  A ratio is computed within each run (the configurations of
one run ran interleaved, minutes apart at most) and the median over the
runs is shown with the runs' min-max.  Below 1 = faster than the
reference.  Failed or not-run measurements are never shown as numbers.

--plots DIR: PNG plots made with gnuplot (an external program; without it
the plots are skipped with a message and the report says so), per lower:
  LOWER-mdbench-ops.png   mdbench phases: operations per second (1e6 /
                          mean us per op) per configuration, log scale
  LOWER-programs-rate.png whole-program workloads: 1 / time (runs per
                          second) per configuration, log scale
  LOWER-programs-ratio.png whole-program workloads: time / time of the lower
                          with default options, log scale (1 = same)
  LOWER-mdbench-latency.png mdbench phases: mean latency per operation (us)
  LOWER-mdbench-p99.png   mdbench phases: p99 latency per operation (us),
                          when the TSV's notes carry it (runs from
                          2026-11-30 20:00 on); the generator's the same
Bars: median over the runs, error bars: min-max over the runs.  Next to
every PNG are its gnuplot script (NAME.gp) and data (NAME.dat): "cd DIR &&
gnuplot NAME.gp" redraws it.  bench.md links the PNGs relative to --md-dir
(the directory bench.md is written to; default: the current directory).
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
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


# What peerbench.sh keeps in a row's note: "p50 X us, p99 Y us, Z ops/s"
# (mdbench and the generator; older runs: the generator's p99 and ops/s
# only) and ", lower/op W" (calls metacache made to the lower per op).
NOTE_FIGURES = (("p50", r"p50 ([0-9.]+) us"), ("p99", r"p99 ([0-9.]+) us"),
                ("ops_per_s", r"([0-9.]+) ops/s"), ("lower", r"lower/op ([0-9.]+)"))


def note_figures(note):
    out = {}
    for key, rx in NOTE_FIGURES:
        m = re.search(rx, note)
        if m:
            out[key] = float(m.group(1))
    return out


def fmt_ratio(v):
    if v >= 10:
        return "%.0f" % v
    if v >= 1:
        return "%.1f" % v
    if v >= 0.1:
        return "%.2f" % v
    return "%.3f" % v


def gp_str(s):
    """A gnuplot single-quoted string."""
    return "'" + s.replace("'", "''") + "'"


def gnuplot_terminal(gp):
    """pngcairo if this gnuplot has it, else png (libgd); None if neither."""
    try:
        r = subprocess.run([gp, "-e", "set terminal"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL,
                           timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "gnuplot failed to run: %s" % e
    names = set(l.split()[0] for l in (r.stdout + r.stderr).splitlines() if l.strip())
    if "pngcairo" in names:
        return 'pngcairo size 900,500 noenhanced font "sans,10"', None
    if "png" in names:
        return "png size 900,500 noenhanced", None
    return None, "gnuplot has neither the pngcairo nor the png terminal"


def bar_plot(d, term, name, title, ylabel, rows, cfgs, logy=True, hline=None):
    """Grouped bars: one group per row (label, {cfg: (median, min, max)}),
    one bar per configuration, min-max error bars.  Writes NAME.dat,
    NAME.gp and (by running gnuplot in D) NAME.png; returns the PNG's name."""
    cfgs = [c for c in cfgs if any(c in v for _, v in rows)]
    with open(os.path.join(d, name + ".dat"), "w") as f:
        f.write("# %s\n# %s\n" % (title, ylabel))
        f.write("# columns: label, then per configuration median min max "
                "(over the runs; NaN = no value)\n")
        f.write("# label\t" + "\t".join("%s\t%s_min\t%s_max" % (c, c, c) for c in cfgs) + "\n")
        for label, v in rows:
            cols = []
            for c in cfgs:
                cols += ["%.6g" % x for x in v[c]] if c in v else ["NaN"] * 3
            f.write(label + "\t" + "\t".join(cols) + "\n")
    gp = ["# %s.gp: made by tests/bench/bench_report.py; redraw: gnuplot %s.gp" % (name, name),
          "set terminal " + term,
          "set output " + gp_str(name + ".png"),
          "set title " + gp_str(title),
          "set ylabel " + gp_str(ylabel),
          "set style data histogram",
          "set style histogram errorbars gap 1 lw 1",
          "set style fill solid 0.8 border -1",
          "set boxwidth 0.9",
          "set key outside right top",
          "set grid ytics",
          "set xtics rotate by -30 nomirror",
          "set datafile separator '\\t'",
          "set datafile missing 'NaN'"]
    if logy:
        gp.append("set logscale y")
    if hline is not None:
        gp.append("set arrow from graph 0, first %g to graph 1, first %g nohead dt 2 lw 1.5"
                  % (hline, hline))
    plots = []
    for i, c in enumerate(cfgs):
        k = 2 + 3 * i
        plots.append("%s using %d:%d:%d%s title %s" % (
            gp_str(name + ".dat") if i == 0 else "''", k, k + 1, k + 2,
            ":xtic(1)" if i == 0 else "", gp_str(c)))
    gp.append("plot " + ", \\\n     ".join(plots))
    with open(os.path.join(d, name + ".gp"), "w") as f:
        f.write("\n".join(gp) + "\n")
    # Generous timeouts: under the test bed's software emulation a gnuplot
    # start is seconds, not milliseconds.
    r = subprocess.run(["gnuplot", name + ".gp"], cwd=d, capture_output=True, text=True,
                       stdin=subprocess.DEVNULL,
                       timeout=300)
    png = os.path.join(d, name + ".png")
    if r.returncode != 0 or not os.path.exists(png):
        raise RuntimeError("gnuplot %s.gp (in %s) failed (exit %d): %s"
                           % (name, d, r.returncode, r.stderr.strip()))
    return name + ".png"


def mmm(vals):
    return (statistics.median(vals), min(vals), max(vals))


def make_plots(out, d, md_dir):
    """The plots of the report OUT (its JSON form) into D; returns the
    markdown lines linking them (or saying why there are none)."""
    gp = shutil.which("gnuplot")
    if not gp:
        print("bench_report: plots: skipped: gnuplot not installed "
              "(apt-get install gnuplot-nox, or make deps)", file=sys.stderr)
        out["plots"] = {"skipped": "gnuplot not installed"}
        return ["## Plots", "", "plots: skipped: gnuplot not installed", ""]
    term, why = gnuplot_terminal(gp)
    if not term:
        print("bench_report: plots: skipped: " + why, file=sys.stderr)
        out["plots"] = {"skipped": why}
        return ["## Plots", "", "plots: skipped: " + why, ""]
    os.makedirs(d, exist_ok=True)
    rel = os.path.relpath(d, md_dir)
    md = ["## Plots", "",
          "Made with gnuplot (%s); bars: median over the runs, error bars: min-max over "
          "the runs. The gnuplot script (`.gp`) and data (`.dat`) of each plot are next "
          "to it in `%s/`." % (term.split()[0], rel), ""]
    made = []
    for lower, J in out["lowers"].items():
        cfgs = J["configs"]
        wls = J["workloads"]
        md_wl = [w for w in wls if wls[w].get("unit") == "us/op" and not w.startswith("gen_")]
        gen_wl = [w for w in wls if wls[w].get("unit") == "us/op" and w.startswith("gen_")]
        prog_wl = [w for w in wls if wls[w].get("unit") == "s"]

        def rows(wlist, f, key="values"):
            r = []
            for w in wlist:
                v = {}
                for c, jc in wls[w]["configs"].items():
                    xs = [f(x) for x in jc.get(key, []) if x > 0]
                    if xs:
                        v[c] = mmm(xs)
                r.append((w, v))
            return r

        # The tail of the latency distribution (p99 per run, from the rows'
        # notes), where the rows carry it.
        def p99_plot(key, title, wlist):
            wlist = [w for w in wlist
                     if any(jc.get("p99_runs") for jc in wls[w]["configs"].values())]
            if not wlist:
                return []
            return [(bar_plot(d, term, "%s-%s-p99" % (lower, key),
                              "%s: %s, p99 latency per operation" % (lower, title),
                              "p99 us per operation (log scale)",
                              rows(wlist, lambda x: x, "p99_runs"), cfgs),
                     "%s: p99 latency per operation (table 4 has p50 and p99)" % title)]

        # Per-operation figures (mean us per op): ops/s and mean latency.
        def per_op(key, title, wlist, latency_note):
            if not wlist:
                return []
            return [(bar_plot(d, term, "%s-%s-ops" % (lower, key),
                              "%s: %s, operations per second per operation" % (lower, title),
                              "ops/s (1e6 / mean us per op; log scale)",
                              rows(wlist, lambda x: 1e6 / x), cfgs),
                     "%s: operations per second per operation and configuration" % title),
                    (bar_plot(d, term, "%s-%s-latency" % (lower, key),
                              "%s: %s, mean latency per operation" % (lower, title),
                              "mean us per operation (log scale)",
                              rows(wlist, lambda x: x), cfgs),
                     "%s: mean latency per operation (%s)" % (title, latency_note))]

        md_plots = per_op("mdbench", "mdbench", md_wl, "p50 and p99 in table 4")
        plots = md_plots[:1]
        if prog_wl:
            plots.append((bar_plot(
                d, term, "%s-programs-rate" % lower,
                "%s: whole-program workloads, runs per second" % lower,
                "1 / time (runs/s; log scale)",
                rows(prog_wl, lambda x: 1 / x), cfgs),
                "whole-program workloads: 1 / time per configuration"))
            rr = []
            for w in prog_wl:
                rv = wls[w].get("ratio_vs_default", {})
                rr.append((w, {c: (x["median"], x["min"], x["max"]) for c, x in rv.items()}))
            if any(v for _, v in rr):
                plots.append((bar_plot(
                    d, term, "%s-programs-ratio" % lower,
                    "%s: whole-program workloads, time / time with the lower's default "
                    "options (below 1 = faster)" % lower,
                    "time / time(default) (per run; log scale)",
                    rr, [c for c in cfgs if c != "default"], hline=1),
                    "whole-program workloads: time relative to the lower with default options"))
        plots += md_plots[1:]
        plots += p99_plot("mdbench", "mdbench", md_wl)
        plots += per_op("generator", "the in-kernel generator (gen_<workload>_<op>)", gen_wl,
                        "p50 and p99 in table 4")
        plots += p99_plot("generator", "the in-kernel generator", gen_wl)
        if plots:
            md += ["### %s" % lower, ""]
            for png, what in plots:
                md += ["%s:" % what, "", "![%s](%s)" % (png[:-4], rel + "/" + png), ""]
                made.append(png)
    out["plots"] = {"dir": d, "files": made}
    if not made:
        md += ["(no measurements to plot)", ""]
    return md


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--meta")
    ap.add_argument("--json")
    ap.add_argument("--plots", metavar="DIR", help="write PNG plots (gnuplot) into DIR")
    ap.add_argument("--md-dir", default=".", metavar="DIR",
                    help="where bench.md goes: its image links are relative to it")
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
                                                   "lower": {}, "p50": {}, "p99": {},
                                                   "ops_per_s": {}})
            if status == "ok":
                c["runs"][int(run)] = float(val)
                for key, v in note_figures(note).items():
                    c[key][int(run)] = v
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
        # Latency percentiles and ops/s (per-operation workloads whose rows
        # carry them: mdbench and the generator), median over the runs.
        pw = [wl for wl in L["workloads"]
              if any(cell(wl, c) and cell(wl, c)["p99"] for c in ran)]
        if pw:
            md.append("### %s: latency percentiles and operations per second" % lower)
            md.append("")
            md.append("Per operation: p50 / p99 in us, and ops/s (one process, one "
                      "operation at a time); medians over the runs.")
            md.append("")
            md.append("| workload | " + " | ".join(ran) + " |")
            md.append("|---|" + "---:|" * len(ran))
            for wl in pw:
                row = []
                for cfg in ran:
                    x = cell(wl, cfg)
                    fig = {k: statistics.median(x[k].values()) for k in ("p50", "p99", "ops_per_s")
                           if x and x[k]}
                    if x and fig:
                        jc = J["workloads"][wl]["configs"][cfg]
                        jc.update(fig)
                        for k in fig:
                            jc[k + "_runs"] = [x[k][n] for n in sorted(x[k])]
                    row.append("%s / %s (%s)" % (fmt(fig.get("p50")), fmt(fig.get("p99")),
                                                 fmt(fig.get("ops_per_s"))) if fig else "-")
                md.append("| %s | %s |" % (wl, " | ".join(row)))
            md.append("")
        # Issue 8's goals, checked on the run's own ratios (medians over
        # the runs), for metacache with the peers' 60 s TTLs (its defaults
        # if that was not run); and its gain in Azure's terms.
        mc = "mc-60s" if "mc-60s" in ran else ("metacache" if "metacache" in ran else None)
        if mc:
            def med_ratio(wl, ref):
                rs = ratios(wl, mc, ref)
                return statistics.median(rs) if rs else None

            def best_ratio(wl):
                r = J["workloads"].get(wl, {}).get("ratio_vs_best_peer", {}).get(mc)
                return r["median"] if r else None

            cached = ["md_stat", "md_neg", "md_open_warm", "md_ls"]
            peer_rt = ["md_open", "md_open_warm", "md_neg", "md_ls", "md_ls_cold"]
            allw = [wl for wl in L["workloads"] if wl in J["workloads"]]
            goals = [
                ("cached metadata ops within 2x of tmpfs", cached,
                 lambda wl: med_ratio(wl, "tmpfs"), lambda r: r <= 2.0),
                ("cached metadata ops at least 20x faster than the lower", cached,
                 lambda wl: med_ratio(wl, "default"), lambda r: r <= 0.05),
                ("at least 2x faster than the best peer where it round-trips", peer_rt,
                 best_ratio, lambda r: r <= 0.5),
                ("never slower than the best peer", allw, best_ratio, lambda r: r <= 1.0),
                ("no workload more than 5% slower than the lower", allw,
                 lambda wl: med_ratio(wl, "default"), lambda r: r <= 1.05),
                ("git status and find -ls warm at least 10x faster than the lower",
                 ["git_status", "find_ls"], lambda wl: med_ratio(wl, "default"),
                 lambda r: r <= 0.1),
            ]
            md.append("### %s: issue 8's goals (%s)" % (lower, mc))
            md.append("")
            md.append("Each goal on the medians of the ratios above; a workload not "
                      "measured counts neither way.")
            md.append("")
            md.append("| goal | met | workloads that miss it (ratio) |")
            md.append("|---|---|---|")
            J["goals"] = []
            for title, wls, get, ok in goals:
                vals = [(wl, get(wl)) for wl in wls]
                vals = [(wl, v) for wl, v in vals if v is not None]
                miss = [(wl, v) for wl, v in vals if not ok(v)]
                met = "-" if not vals else ("no" if miss else "yes")
                J["goals"].append({"goal": title, "config": mc, "met": met,
                                   "checked": [wl for wl, _ in vals],
                                   "missed": {wl: v for wl, v in miss}})
                md.append("| %s | %s | %s |" % (
                    title, met, ", ".join("%s (%.2f)" % (wl, v) for wl, v in miss)
                    or ("none" if vals else "not measured")))
            md.append("")
            refs = [c for c in ran if c != mc and c != "metacache"]
            md.append("### %s: %s's gain in Azure's terms" % (lower, mc))
            md.append("")
            md.append("Per workload and system: latency reduction (1 - ratio) and IOPS "
                      "increase (1 / ratio - 1) of %s against it, from the median ratio; "
                      "negative = %s is slower." % (mc, mc))
            md.append("")
            md.append("| workload | " + " | ".join(refs) + " |")
            md.append("|---|" + "---:|" * len(refs))
            for wl in allw:
                row = []
                for ref in refs:
                    r = med_ratio(wl, ref)
                    if not r:
                        row.append("-")
                        continue
                    J["workloads"][wl].setdefault("azure", {}).setdefault(mc, {})[ref] = {
                        "latency_reduction_pct": (1 - r) * 100,
                        "iops_increase_pct": (1 / r - 1) * 100}
                    row.append("%+.0f%% / %+.0f%%" % ((1 - r) * 100, (1 / r - 1) * 100))
                md.append("| %s | %s |" % (wl, " | ".join(row)))
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
    if a.plots:
        try:
            md += make_plots(out, a.plots, a.md_dir)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
            print("bench_report: plots failed: %s" % e, file=sys.stderr)
            out["plots"] = {"failed": str(e)}
            md += ["## Plots", "", "plots: failed: %s" % e, ""]
            sys.stdout.write("\n".join(md) + "\n")
            if a.json:
                with open(a.json, "w") as f:
                    json.dump(out, f, indent=1)
                    f.write("\n")
            sys.exit(1)
    sys.stdout.write("\n".join(md) + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
