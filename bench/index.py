#!/usr/bin/env python3
"""Index benchmark: queries answered by a widecol INDEX against the same
queries on an ordinary SQLite table with an equivalent CREATE INDEX, and
the write cost of each index, in the same run.

N orders (order_id 0..N-1) of N/10 customers, keyed by the order:

  widecol:  orders USING widecol(order_id, customer_id, paid_at, payment_id,
              total, status, ROWKEY(order_id PAD 10 REVERSE),
              INDEX by_customer(customer_id PAD 8, payment_id PAD 10)
                INCLUDE (total),
              INDEX by_date(paid_at, payment_id PAD 10))
  ordinary: plain(order_id INTEGER PRIMARY KEY, ...) with
              CREATE INDEX plain_by_customer ON plain(customer_id,
                payment_id, total)   -- total stands in for INCLUDE
              CREATE INDEX plain_by_date ON plain(paid_at, payment_id)

Queries on 1% of the customers (1% of the rows):
  covered:   count(*), sum(total)          -- the index holds both
  lookup:    count(*), sum(length(status)) -- each hit reads its row

and the floor: the same rows read straight from the tables widecol keeps
(w2_idx_by_customer, joined to w2_rows for the lookup) with the key
bounds in SQL, no virtual table: what separates the floor from the
ordinary table is the layout (an encoded key beside the values); what
separates widecol from the floor is the virtual-table interface and
widecol itself.

Writes: N rows inserted in one transaction into each design with 0, 1
and 2 indexes; rows/s, and widecol's rate over the ordinary table's.
Each query runs R times; the median is reported.  Times are wall clock on
a shared machine: compare the ratios.

Usage: bench/index.py [--rows N] [--repeat R] [--extension ./widecol]
"""
import argparse
import os
import statistics
import tempfile
import time
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
import wctest  # noqa: E402


def timed(db, sql, repeat):
    """Median seconds of `repeat` runs of sql, and its result."""
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = db.execute(sql).fetchall()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result

COLUMNS = "order_id INTEGER, customer_id INTEGER, paid_at TEXT, payment_id INTEGER, total REAL, status TEXT"
INDEXES_W = [", INDEX by_customer(customer_id PAD 8, payment_id PAD 10) INCLUDE (total)",
             ", INDEX by_date(paid_at, payment_id PAD 10)"]
INDEXES_O = ["CREATE INDEX {t}_by_customer ON {t}(customer_id, payment_id, total)",
             "CREATE INDEX {t}_by_date ON {t}(paid_at, payment_id)"]


def source(n):
    """n orders: customer x % (n/10) so a customer's orders are spread
    over the whole table, as in a store keyed by order."""
    return ("WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < %d) "
            "SELECT x, x %% %d, printf('2017-01-%%02d %%02d:%%02d:00', 1 + x %% 28, x %% 24, x %% 60), "
            "x, (x %% 1000) / 10.0, CASE x %% 3 WHEN 0 THEN 'paid' WHEN 1 THEN 'open' ELSE 'void' END "
            "FROM i" % (n - 1, max(n // 10, 1)))


def load(db, name, create, n):
    """Creates a table and fills it in one transaction; seconds taken."""
    for sql in create:
        db.execute(sql)
    t0 = time.perf_counter()
    db.execute("BEGIN")
    db.execute("INSERT INTO %s %s" % (name, source(n)))
    db.execute("COMMIT")
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--repeat", type=int, default=11)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    n = args.rows

    with tempfile.TemporaryDirectory() as tmp:
        db = wctest.connect(args.extension, os.path.join(tmp, "bench.db"),
                            isolation_level=None)

        print("writes: %d rows in one transaction" % n)
        print("%-10s %14s %14s %8s" % ("indexes", "widecol rows/s", "ordinary rows/s", "ratio"))
        for k in range(3):
            tw = load(db, "w%d" % k, ["CREATE VIRTUAL TABLE w%d USING widecol(%s, "
                                      "ROWKEY(order_id PAD 10 REVERSE)%s)"
                                      % (k, COLUMNS, "".join(INDEXES_W[:k]))], n)
            to = load(db, "o%d" % k, ["CREATE TABLE o%d(%s)" % (k, COLUMNS.replace(
                "order_id INTEGER", "order_id INTEGER PRIMARY KEY"))]
                      + [s.format(t="o%d" % k) for s in INDEXES_O[:k]], n)
            print("%-10d %14.0f %14.0f %7.2fx" % (k, n / tw, n / to, to / tw))
            if k < 2:
                db.execute("DROP TABLE w%d" % k)
                db.execute("DROP TABLE o%d" % k)
        db.execute("ANALYZE")

        customers = max(n // 10, 1)
        lo = customers * 40 // 100
        hi = lo + max(customers // 100, 1) - 1
        where = " WHERE customer_id BETWEEN %d AND %d" % (lo, hi)
        print()
        print("1%% query on the index's leading field (customers %d..%d), median of %d runs:"
              % (lo, hi, args.repeat))
        # Keys of customers lo..hi start with rk_pad(lo, 8) .. rk_pad(hi, 8)
        # (then '_'), so they lie in [rk_pad(lo, 8), rk_pad(hi + 1, 8)).
        bounds = (" WHERE i.ikey >= CAST(rk_pad(%d, 8) AS BLOB)"
                  " AND i.ikey < CAST(rk_pad(%d, 8) AS BLOB)" % (lo, hi + 1))
        print("%-9s %-10s %10s %10s %10s %8s %8s %8s  %s" % (
            "query", "", "widecol", "floor", "ordinary", "w/floor", "w/ord",
            "goal", "widecol plan"))
        for label, agg, floor_from, goal in (
                ("covered", "count(*), sum(total)",
                 "w2_idx_by_customer AS i", 1.3),
                ("lookup", "count(*), sum(length(status))",
                 "w2_idx_by_customer AS i JOIN w2_rows AS r ON r.rowkey = i.rowkey",
                 1.5)):
            qw = "SELECT %s FROM w2%s" % (agg, where)
            qo = "SELECT %s FROM o2%s" % (agg, where)
            qf = "SELECT %s FROM %s%s" % (agg, floor_from, bounds)
            plan = db.execute("EXPLAIN QUERY PLAN " + qw).fetchall()[0][3]
            plan = plan[plan.index(":") + 1:]
            # Each repetition times the three in turn, so a slow moment of
            # the shared machine hits them alike.
            runs = {"w": [], "f": [], "o": []}
            for _ in range(args.repeat):
                for key, q in (("w", qw), ("f", qf), ("o", qo)):
                    t, r = timed(db, q, 1)
                    runs[key].append((t, r))
            tw, tf, to = (statistics.median(t for t, _ in runs[k]) for k in "wfo")
            rw, rf, ro = (runs[k][0][1] for k in "wfo")
            if not rw == rf == ro:
                raise SystemExit("results differ: widecol %r, floor %r, ordinary %r"
                                 % (rw, rf, ro))
            print("%-9s %-10s %8.3f ms %8.3f ms %8.3f ms %7.2fx %7.2fx %7.2fx  %s  %s" % (
                label, "%d rows" % rw[0][0], tw * 1e3, tf * 1e3, to * 1e3, tw / tf,
                tw / to, goal, "met" if tw / to <= goal else "NOT met", plan))
        oplan = db.execute("EXPLAIN QUERY PLAN SELECT count(*), sum(length(status)) FROM o2"
                           + where).fetchall()[0][3]
        print("ordinary plan (lookup): %s" % oplan)


if __name__ == "__main__":
    main()
