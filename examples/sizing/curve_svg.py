"""The sizing report's picture: p99 (and p50) service time against the slice's SMs, one line per
model, the deadline as a dashed line, as a standalone SVG (no plotting library needed, so it is
drawn wherever the rows are). A row measured on the whole GPU ("all") is drawn at the right edge.
"""

from xml.sax.saxutils import escape

W, H = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 40, 50
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


def _ticks(top, count=5):
    """Round tick values from 0 to at least top."""
    raw = top / count
    step = 1
    while step * 10 <= raw:
        step *= 10
    for m in (1, 2, 5, 10):
        if step * m >= raw:
            step *= m
            break
    return [step * i for i in range(int(top // step) + 2)]


def draw(rows, deadline_ms):
    sized = [r for r in rows if isinstance(r["sms"], int) and r.get("p99_us") is not None]
    if not sized:
        raise ValueError("no rows with an SM count and a p99 to draw")
    widest = max(r["sms"] for r in sized)
    x_max = widest + max(8, widest // 8)  # room for the whole-GPU point
    y_top = max([r["p99_us"] for r in rows if r.get("p99_us")] + [deadline_ms * 1000]) * 1.1
    yt = _ticks(y_top)
    y_max = yt[-1]

    def x(sms):
        return LEFT + (W - LEFT - RIGHT) * sms / x_max

    def y(us):
        return H - BOTTOM - (H - TOP - BOTTOM) * us / y_max

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14">p99 service time against slice size</text>' % LEFT]
    for v in yt:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                   % (LEFT, W - RIGHT, y(v), y(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%g</text>' % (LEFT - 6, y(v) + 4, v))
    for sms in sorted({r["sms"] for r in sized}):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>'
                   % (x(sms), H - BOTTOM + 16, sms))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">SMs in the slice</text>'
               % ((LEFT + W - RIGHT) / 2, H - 12))
    out.append('<text x="16" y="%.1f" transform="rotate(-90 16 %.1f)" text-anchor="middle">'
               'microseconds</text>' % ((TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2))
    dy = y(deadline_ms * 1000)
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="6,4"/>'
               % (LEFT, W - RIGHT, dy, dy))
    out.append('<text x="%d" y="%.1f" text-anchor="end">deadline %g ms</text>'
               % (W - RIGHT, dy - 4, deadline_ms))
    for i, model in enumerate(sorted({r["model"] for r in rows})):
        colour = COLOURS[i % len(COLOURS)]
        mine = sorted((r for r in sized if r["model"] == model), key=lambda r: r["sms"])
        for key, dash in (("p99_us", ""), ("p50_us", ' stroke-dasharray="2,3"')):
            pts = " ".join("%.1f,%.1f" % (x(r["sms"]), y(r[key])) for r in mine if r.get(key))
            out.append('<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>'
                       % (pts, colour, dash))
        for r in mine:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>'
                       % (x(r["sms"]), y(r["p99_us"]), colour))
        whole = [r for r in rows if r["model"] == model and r["sms"] == "all" and r.get("p99_us")]
        if whole:
            out.append('<rect x="%.1f" y="%.1f" width="6" height="6" fill="%s"/>'
                       % (x(x_max) - 9, y(whole[0]["p99_us"]) - 3, colour))
        out.append('<text x="%d" y="%d" fill="%s">%s (p99 solid, p50 dotted%s)</text>'
                   % (LEFT + 10, TOP + 16 * (i + 1), colour, escape(model),
                      ", square: whole GPU" if whole else ""))
    out.append("</svg>")
    return "\n".join(out) + "\n"
