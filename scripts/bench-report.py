#!/usr/bin/python3
"""Turn results/bench.csv into results/bench.md and results/bench-stat.png.

Usage: bench-report.py CSV OUTDIR.  Uses run 1 of each kernel; gnuplot
(Debian's gnuplot-nox) draws stat cost against the number of extents.
"""
import csv
import subprocess
import sys
from collections import defaultdict

NOISY = set()
KERNELS = (("stock", "stock"), ("patched", "ours"), ("nouserns", "CONFIG_USER_NS=n"))


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    data = defaultdict(dict)  # (workload, width) -> {(kernel, n): value}
    mem = defaultdict(dict)  # (width, n) -> {kernel: bytes}
    floor = {}
    initial = defaultdict(dict)  # workload -> {kernel: value}, N=0 rows
    runs = defaultdict(dict)  # (kernel, workload, n, width) -> {run: value}
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            if row["instructions"] != "rejected":
                runs[(row["kernel"], row["workload"], row["extents"], row["width"])][
                    row["run"]] = float(row["instructions"])
            if row["run"] != "1":
                continue
            if row["workload"] == "stat_init_ns":
                floor[row["kernel"]] = row["instructions"]
                continue
            if row["workload"] == "mem_per_map":
                mem[(row["width"], int(row["extents"]))][row["kernel"]] = row["instructions"]
                continue
            if row["extents"] == "0":
                initial[row["workload"]][row["kernel"]] = row["instructions"]
                continue
            key = (row["workload"], row["width"])
            data[key][(row["kernel"], int(row["extents"]))] = row["instructions"]

    def fmt(v):
        return "rejected" if v in (None, "rejected") else "%.0f" % float(v)

    # The sizes measured (all of them, in a full run).
    sizes = sorted({n for cells in data.values() for (_, n) in cells})

    lines = ["# Instructions per operation (QEMU -icount shift=0)", ""]
    lines.append("stat() in the initial namespace: stock %s, ours %s; on stock built with"
                 " CONFIG_USER_NS=n: %s." % (fmt(floor.get("stock")), fmt(floor.get("patched")),
                                              fmt(floor.get("nouserns"))
                                              if "nouserns" in floor else "not measured"))
    lines.append("")
    lines.append("Shapes (bench/shapes.h): narrow and wide are evenly spread; clustered, bimodal,")
    lines.append("random and worst (our index's worst, found by search) run the main workloads.")
    lines.append("")
    lines.append("| workload | shape | kernel | " + " | ".join("N=%d" % n for n in sizes) + " |")
    lines.append("|---|---|---|" + "---|" * len(sizes))
    for (work, width) in sorted(data):
        for kernel in ("stock", "patched"):
            vals = [fmt(data[(work, width)].get((kernel, n))) for n in sizes]
            name = "ours" if kernel == "patched" else kernel
            label = work + (" (noisy)" if work in NOISY else "")
            lines.append("| %s | %s | %s | %s |" % (label, width, name, " | ".join(vals)))
    if NOISY:
        lines.append("")
        lines.append("(noisy): the cost is dominated by work other than the lookup and varies")
        lines.append("from boot to boot; see the last table.")
    rows = sorted(w for w in initial if w != "mem_per_ns")
    if rows:
        lines.append("")
        lines.append("In the initial namespace, where nearly every process lives (path walks:")
        lines.append("below a directory's fd; execve: this static program execs itself):")
        lines.append("")
        lines.append("| workload | " + " | ".join(label for _, label in KERNELS) + " |")
        lines.append("|---|" + "---|" * len(KERNELS))
        for work in rows:
            lines.append("| %s | %s |" % (work, " | ".join(
                fmt(initial[work][k]) if k in initial[work] else "-" for k, _ in KERNELS)))
    if "mem_per_ns" in initial:
        lines.append("")
        lines.append("Memory per namespace without maps (bytes of MemFree, 1000 namespaces): %s." % ", ".join(
            "%s %s" % (label, initial["mem_per_ns"][k]) for k, label in KERNELS if k in initial["mem_per_ns"]))
    if mem:
        lines.append("")
        lines.append("Memory per map (bytes): MemFree before and after 1000 namespaces with one")
        lines.append("uid_map each, less the same with one-extent maps.  Our bound: 60 N + 32,")
        lines.append("in whole pages beyond two pages; unprivileged writers: 8 KiB.  The")
        lines.append("guest's other allocations move MemFree by about 3 KB per map: small maps")
        lines.append("are not resolved (KUnit checks their exact size).")
        lines.append("")
        lines.append("| shape | N | stock | ours | our bound, in pages |")
        lines.append("|---|---|---|---|---|")
        for (width, n) in sorted(mem, key=lambda k: (k[0], k[1])):
            bound = 60 * n + 32
            pages = (bound + 4095) // 4096 * 4096 if bound > 8192 else bound
            if width.endswith("-unprivileged"):
                pages = min(pages, 8192)  # stock's two 4 KiB arrays
            lines.append("| %s | %d | %s | %s | %d |" % (
                width, n, mem[(width, n)].get("stock", "-"), mem[(width, n)].get("patched", "-"), pages))
    # Run to run: the largest relative difference per workload.
    spread = defaultdict(float)
    for (kernel, work, n, width), byrun in runs.items():
        if "1" in byrun and "2" in byrun and byrun["1"]:
            d = abs(byrun["1"] - byrun["2"]) / byrun["1"]
            spread[work] = max(spread[work], d)
    if spread:
        lines.append("")
        lines.append("Two boots of each kernel, largest difference between them per workload:")
        lines.append("")
        lines.append("| workload | run 1 vs run 2 |")
        lines.append("|---|---|")
        for work in sorted(spread):
            lines.append("| %s | %.3f %% |" % (work, 100 * spread[work]))
    with open(outdir + "/bench.md", "w") as f:
        f.write("\n".join(lines) + "\n")

    # Plot: stat of a file whose owner is in the target extent, every shape.
    dat = outdir + "/bench-stat.dat"
    curves = [("stock", "narrow"), ("stock", "wide"), ("stock", "clustered")] + [
        ("patched", w) for w in ("narrow", "wide", "clustered", "bimodal", "random", "worst")]
    with open(dat, "w") as f:
        for n in sizes:
            row = [str(n)]
            for kernel, width in curves:
                v = data[("stat_last", width)].get((kernel, n), "rejected")
                row.append("NaN" if v == "rejected" else v)
            f.write(" ".join(row) + "\n")
    script = """
set terminal png size 900,560 noenhanced
set output '%s/bench-stat.png'
set title 'stat() of a file owned by an id of the last extent (uid and gid maps of N extents)'
set xlabel 'extents in uid_map and gid_map (N)'
set ylabel 'guest instructions per stat()'
set logscale x 2
set grid
set key top left
plot %s
""" % (outdir, ", \\\n     ".join(
        "'%s' using 1:%d with linespoints title '%s, %s'" % (
            dat, i + 2, "ours" if k == "patched" else k, w) for i, (k, w) in enumerate(curves)))
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


if __name__ == "__main__":
    main()
