"""GPU clocks, power, temperature and clock-event reasons over a time window, from the CSV that
run-on-gpu.sh records with nvidia-smi (read-only queries, every 200 ms).
Usage: telemetry.py CSV START END (epoch seconds); prints one table cell group:
  SM MHz min-max | memory MHz | power W mean (max) | temperature C max | reasons seen"""
import datetime
import sys

rows = []
for line in open(sys.argv[1], errors="replace"):
    cells = [c.strip() for c in line.split(",")]
    try:
        at = datetime.datetime.strptime(cells[0], "%Y/%m/%d %H:%M:%S.%f").timestamp()
    except (ValueError, IndexError):
        continue
    rows.append((at, cells[1:]))
start, end = float(sys.argv[2]), float(sys.argv[3])
window = [c for at, c in rows if start <= at <= end]
if not window:
    print("- | - | - | - | no samples")
    sys.exit()


def numbers(i):
    out = []
    for c in window:
        try:
            out.append(float(c[i]))
        except (ValueError, IndexError):
            pass
    return out


sm, mem, power, temp = numbers(0), numbers(1), numbers(2), numbers(3)
reasons = sorted({c[4] for c in window if len(c) > 4})
fmt = lambda v, f: f(v) if v else "-"
print(
    f"{fmt(sm, lambda v: f'{min(v):.0f}-{max(v):.0f}')} | {fmt(mem, lambda v: f'{min(v):.0f}')} | "
    f"{fmt(power, lambda v: f'{sum(v) / len(v):.0f} ({max(v):.0f})')} | {fmt(temp, lambda v: f'{max(v):.0f}')} | "
    f"{' '.join(reasons) or '-'} ({len(window)} samples)"
)
