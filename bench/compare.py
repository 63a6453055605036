#!/usr/bin/python3
"""Three row-key designs for the same orders, side by side (`make compare`).

The guides' trade-off in numbers: a key that starts with the time serves
'the last hour' with one short scan but sends every write to the last region
(a hotspot); reversing or salting the key spreads the writes, and costs the
scans ("hashing makes subrange scans inefficient", the MapR guide).

1,000,000 synthetic orders (one every 3 seconds, 10,000 customers) are
written in order_id order into three widecol tables:

  sequential  ROWKEY(order_ts, order_id PAD 10)
  reversed    ROWKEY(order_id PAD 10 REVERSE)            (the HBase blog)
  salted      ROWKEY(SALT(1, order_id), order_ts, order_id PAD 10)   (MapR)

For each it prints
  - write skew: where the last 1% of writes land among 16 regions holding
    equal shares of the rows (a balanced 16-region cluster), and what
    widecol_regions() finds replaying the writes through HBase's splitting;
  - scan cost of 'one customer's orders last week' and 'all orders in the
    last hour': seeks and rows read (widecol_stats), rows returned, median
    time, plan;
  - what widecol_lint() finds in each design.
Every query's result must be the same on the three tables; the script
stops otherwise.  With --svg it draws the writes per region (docs/regions.svg).
"""
import argparse
import json
import os
import statistics
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402

DESIGNS = [
    ("sequential", "ROWKEY(order_ts, order_id PAD 10)"),
    ("reversed", "ROWKEY(order_id PAD 10 REVERSE)"),
    ("salted", "ROWKEY(SALT(1, order_id), order_ts, order_id PAD 10)"),
]
REGIONS = 16
SECONDS_APART = 3
CUSTOMERS = 10000
START = "2026-01-01 00:00:00"


def connect(extension):
    db = wctest.connect(extension, isolation_level=None)
    db.execute("PRAGMA cache_size = -500000")
    return db


def make_orders(db, rows):
    """The source rows, in write order; customers drawn by a fixed hash."""
    db.execute("CREATE TABLE src(order_id INTEGER PRIMARY KEY, customer_id "
               "INTEGER, order_ts TEXT, cents INTEGER)")
    db.execute("""
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO src SELECT i, 1 + (i * 2654435761 % 4294967296) % ?,
          datetime(?, '+' || (i * ?) || ' seconds'), i % 10000 FROM n""",
               (rows, CUSTOMERS, START, SECONDS_APART))


def load(db, name, rowkey):
    db.execute(f"CREATE VIRTUAL TABLE {name} USING widecol(order_id INTEGER, "
               f"customer_id INTEGER, order_ts TEXT, cents INTEGER, {rowkey})")
    t0 = time.perf_counter()
    db.execute("BEGIN")
    db.execute(f"INSERT INTO {name} SELECT * FROM src ORDER BY order_id")
    db.execute("COMMIT")
    return time.perf_counter() - t0


def balanced_regions(db, name, recent, rows):
    """Recent writes in each of 16 regions holding equal shares of rows."""
    counts = [0] * REGIONS
    for region, n in db.execute(f"""
            SELECT r, count(*) FILTER (WHERE order_id > ?) FROM
              (SELECT order_id, ntile({REGIONS}) OVER (ORDER BY rowkey) AS r
                 FROM {name}_rows)
            GROUP BY r""", (rows - recent,)):
        counts[region - 1] = n
    return counts


def split_regions(db, name, rows, recent):
    """widecol_regions(): HBase's splitting, replayed."""
    return db.execute(
        "SELECT count(*), max(recent_writes), max(skew), "
        "sum(recent_writes > 0) FROM widecol_regions(?, ?, ?)",
        (f"SELECT rowkey FROM {name}_rows ORDER BY order_id",
         rows // (REGIONS // 2), recent)).fetchone()


def stats(db, name):
    """widecol_stats() of the table since the last call, which resets it."""
    return json.loads(db.execute("SELECT widecol_stats(?, 1)",
                                 (name,)).fetchone()[0])


def run_query(db, name, sql, params, repeat):
    stats(db, name)
    result = db.execute(sql.format(t=name), params).fetchall()
    counters = stats(db, name)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        db.execute(sql.format(t=name), params).fetchall()
        times.append(time.perf_counter() - t0)
    # "SCAN t VIRTUAL TABLE INDEX n:RANGE ..." -> "RANGE ..."
    plan = " / ".join(r[3].split(":", 1)[-1] for r in db.execute(
        "EXPLAIN QUERY PLAN " + sql.format(t=name), params))
    return result, counters, statistics.median(times), plan


def svg_chart(path, per_design, recent):
    """Bars: share of the last writes per region, one panel per design."""
    width, panel_h, top, left, gap = 720, 150, 40, 60, 30
    height = top + len(per_design) * (panel_h + gap) + 10
    bar_w = (width - left - 20) / REGIONS
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="14" font-weight="bold">'
           f'Where the last {recent:,} writes land: {REGIONS} regions of '
           f'equal rows</text>',
           f'<text x="{left}" y="{height - 10}" fill="#2471a3">dashed line: '
           f'an even share, {1 / REGIONS:.2%} of the writes per region</text>']
    for k, (name, rowkey, counts) in enumerate(per_design):
        y0 = top + k * (panel_h + gap)
        base = y0 + panel_h - 20
        scale = (panel_h - 40) / recent
        out.append(f'<text x="{left}" y="{y0 + 12}" font-weight="bold">'
                   f'{name}</text><text x="{left + 90}" y="{y0 + 12}" '
                   f'fill="#555">{rowkey}</text>')
        out.append(f'<text x="{width - 20}" y="{y0 + 12}" text-anchor="end">'
                   f'hottest region: {max(counts) / recent:.0%} of the '
                   f'writes</text>')
        out.append(f'<line x1="{left}" y1="{base}" x2="{width - 20}" '
                   f'y2="{base}" stroke="#333"/>')
        for frac in (0.5, 1.0):
            y = base - frac * recent * scale
            out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 20}" '
                       f'y2="{y:.1f}" stroke="#ddd"/><text x="{left - 6}" '
                       f'y="{y + 4:.1f}" text-anchor="end">{int(frac * 100)}%'
                       f'</text>')
        even = base - recent / REGIONS * scale
        for i, n in enumerate(counts):
            h = n * scale
            x = left + i * bar_w + 2
            out.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" '
                       f'width="{bar_w - 4:.1f}" height="{h:.1f}" '
                       f'fill="#c0392b" fill-opacity="0.85"/>')
            out.append(f'<text x="{x + (bar_w - 4) / 2:.1f}" y="{base + 14}" '
                       f'text-anchor="middle" fill="#555">{i + 1}</text>')
        out.append(f'<line x1="{left}" y1="{even:.1f}" x2="{width - 20}" '
                   f'y2="{even:.1f}" stroke="#2471a3" stroke-dasharray="4 3"/>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--svg", help="write the writes-per-region chart here")
    args = ap.parse_args()
    if args.rows < 10 * REGIONS * 10:
        sys.exit(f"compare: --rows must be at least {10 * REGIONS * 10}")
    rows, recent = args.rows, max(1, args.rows // 100)

    db = connect(args.extension)
    make_orders(db, rows)
    last_ts, last_customer = db.execute(
        "SELECT order_ts, customer_id FROM src ORDER BY order_id DESC "
        "LIMIT 1").fetchone()
    week_ago = db.execute("SELECT datetime(?, '-7 days')",
                          (last_ts,)).fetchone()[0]
    hour_ago = db.execute("SELECT datetime(?, '-1 hour')",
                          (last_ts,)).fetchone()[0]
    queries = [
        (f"one customer's orders, last week (customer {last_customer})",
         "SELECT count(*), sum(cents) FROM {t} WHERE customer_id = ? "
         "AND order_ts > ?", (last_customer, week_ago)),
        ("all orders, last hour",
         "SELECT count(*), sum(cents) FROM {t} WHERE order_ts > ?",
         (hour_ago,)),
    ]

    print(f"widecol: {rows:,} orders, one every {SECONDS_APART} s from "
          f"{START} to {last_ts}, {CUSTOMERS:,} customers, written in "
          f"order_id order\n")
    print(f"{'design':<11} {'key':<55} {'insert rows/s':>13}")
    for name, rowkey in DESIGNS:
        seconds = load(db, name, rowkey)
        print(f"{name:<11} {rowkey:<55} {rows / seconds:>13,.0f}")

    print(f"\nWrite skew: the last {recent:,} writes (1%) over {REGIONS} "
          f"regions of {rows // REGIONS:,} rows each (a balanced cluster);\n"
          f"skew = the hottest region's writes over an even share. Then "
          f"widecol_regions(): the writes replayed through\nHBase splitting "
          f"at {rows // (REGIONS // 2):,} rows per region.\n")
    print(f"{'design':<11} {'hottest':>8} {'regions':>8} {'skew':>6}   "
          f"{'split: regions':>14} {'written':>8} {'skew':>6}")
    per_design = []
    for name, rowkey in DESIGNS:
        counts = balanced_regions(db, name, recent, rows)
        per_design.append((name, rowkey, counts))
        n_split, _, split_skew, split_written = split_regions(
            db, name, rows, recent)
        print(f"{name:<11} {max(counts) / recent:>8.1%} "
              f"{sum(1 for c in counts if c):>8} "
              f"{max(counts) * REGIONS / recent:>6.2f}   {n_split:>14} "
              f"{split_written:>8} {split_skew:>6.2f}")

    print(f"\nScan cost: seeks and rows read in the row table "
          f"(widecol_stats), rows returned, median time of {args.repeat} "
          f"runs, the plan.\n")
    for title, sql, params in queries:
        print(title)
        reference = None
        for name, _ in DESIGNS:
            result, counters, seconds, plan = run_query(
                db, name, sql, params, args.repeat)
            if reference is None:
                reference = result
            elif result != reference:
                sys.exit(f"compare: {name} answered {result}, "
                         f"{DESIGNS[0][0]} {reference}")
            print(f"  {name:<11} {counters['seeks']:>6,} seeks "
                  f"{counters['rows_read']:>10,} read {result[0][0]:>6,} "
                  f"returned {seconds * 1000:>9.2f} ms   {plan}")
    print("\nwidecol_lint() on each design, after those queries:")
    for name, _ in DESIGNS:
        findings = db.execute("SELECT severity, rule, element, fix FROM "
                              "widecol_lint(?)", (name,)).fetchall()
        for severity, rule, element, fix in findings:
            print(f"  {name:<11} {severity} {rule} on "
                  f"{element or 'the key'}: {fix}")
        if not findings:
            print(f"  {name:<11} no finding")
    if args.svg:
        os.makedirs(os.path.dirname(args.svg) or ".", exist_ok=True)
        svg_chart(args.svg, per_design, recent)
        print(f"\nchart: {args.svg}")


if __name__ == "__main__":
    main()
