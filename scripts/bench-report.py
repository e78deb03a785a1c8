#!/usr/bin/python3
"""Turn results/bench.csv into results/bench.md and results/bench-stat.png.

Usage: bench-report.py CSV OUTDIR.  Uses run 1 of each kernel; gnuplot
(Debian's gnuplot-nox) draws stat cost against the number of extents.
"""
import csv
import subprocess
import sys
from collections import defaultdict

SIZES = [1, 2, 5, 6, 16, 64, 340, 1024, 4096]
NOISY = set()


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    data = defaultdict(dict)  # (workload, width) -> {(kernel, n): value}
    floor = {}
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
            key = (row["workload"], row["width"])
            data[key][(row["kernel"], int(row["extents"]))] = row["instructions"]

    def fmt(v):
        return "rejected" if v in (None, "rejected") else "%.0f" % float(v)

    lines = ["# Instructions per operation (QEMU -icount shift=0)", ""]
    lines.append("stat() in the initial namespace: stock %s, ours %s; on stock built with"
                 " CONFIG_USER_NS=n: %s." % (fmt(floor.get("stock")), fmt(floor.get("patched")),
                                              fmt(floor.get("nouserns"))))
    lines.append("")
    lines.append("| workload | ids | kernel | " + " | ".join("N=%d" % n for n in SIZES) + " |")
    lines.append("|---|---|---|" + "---|" * len(SIZES))
    for (work, width) in sorted(data):
        for kernel in ("stock", "patched"):
            vals = [fmt(data[(work, width)].get((kernel, n))) for n in SIZES]
            name = "ours" if kernel == "patched" else kernel
            label = work + (" (noisy)" if work in NOISY else "")
            lines.append("| %s | %s | %s | %s |" % (label, width, name, " | ".join(vals)))
    if NOISY:
        lines.append("")
        lines.append("(noisy): the cost is dominated by work other than the lookup and varies")
        lines.append("from boot to boot; see the last table.")
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

    # Plot: stat of a file whose owner is in the last extent, both widths.
    dat = outdir + "/bench-stat.dat"
    with open(dat, "w") as f:
        for n in SIZES:
            row = [str(n)]
            for kernel in ("stock", "patched"):
                for width in ("narrow", "wide"):
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
plot '%s' using 1:2 with linespoints title 'stock, narrow ids', \\
     '%s' using 1:3 with linespoints title 'stock, 10-digit ids', \\
     '%s' using 1:4 with linespoints title 'ours, narrow ids', \\
     '%s' using 1:5 with linespoints title 'ours, 10-digit ids'
""" % (outdir, dat, dat, dat, dat)
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


if __name__ == "__main__":
    main()
