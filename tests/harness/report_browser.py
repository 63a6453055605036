#!/usr/bin/env python3
"""widecol_report's pages in a real browser: Debian's Chromium, headless,
renders the report of several designs, and for each page

  - no console message (a script error is one) and no request of the
    page's but for its own file;
  - every section has something in it (an empty one fails);
  - the numbers in the DOM after the scripts ran are the SQL functions'
    for the same table: count(*) over the buckets, widecol_regions'
    regions for the call the page quotes, widecol_lint's rules, the ring
    of widecol_ring, and, per workload statement, what widecol_stats()
    counts when the test runs it itself;
  - the heatmap's hottest cell is where the data puts it: a timestamp-first
    key writes its last column into its last bucket, under a hotspot
    warning; the same rows with a salt in front spread the last column's
    writes over most buckets, without one;
  - a screenshot is taken (--screenshot; `make report-screenshots` takes
    the README's, docs/report/report.png, and one of each section for
    docs/design-tools.md, with --sections docs/report).

The checks are tried on broken pages first (a script error, a request to
the network, an empty section): each must fail, or the test does.

    tests/harness/report_browser.py --extension ./widecol [--screenshot FILE.png]
        [--sections docs/report]
"""
import argparse
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import wctest  # noqa: E402
import reportpage  # noqa: E402
from reportpage import Page  # noqa: E402

ROWS = 20000
SECTIONS = ["designs", "anatomy", "heatmap", "regions", "sizes", "findings"]

failures = []
checks = 0


def expect(where, ok, detail):
    global checks
    checks += 1
    if not ok:
        failures.append("%s: %s" % (where, detail))


def load(db):
    """The designs: one row set (a payment every 3 seconds), keyed by time
    first, salted, by customer, in Cassandra's form, and versioned."""
    db.executescript("""
      CREATE TABLE src(ts INTEGER, customer INTEGER, id INTEGER, amount REAL);
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
      INSERT INTO src SELECT 1700000000 + 3 * i, (i * 7919) %% 500, i, i %% 100 FROM n;
      CREATE VIRTUAL TABLE by_time USING widecol(ts INTEGER, customer INTEGER,
        id INTEGER, amount REAL, ROWKEY(ts PAD 10, id PAD 6));
      CREATE VIRTUAL TABLE salted USING widecol(ts INTEGER, customer INTEGER,
        id INTEGER, amount REAL, ROWKEY(SALT(1, ts), ts PAD 10, id PAD 6));
      CREATE VIRTUAL TABLE by_customer USING widecol(ts INTEGER, customer INTEGER,
        id INTEGER, amount REAL, ROWKEY(customer PAD 4, ts PAD 10, id PAD 6));
      CREATE VIRTUAL TABLE likes USING widecol(customer TEXT, ts INTEGER, id INTEGER,
        amount REAL, PRIMARY KEY ((customer), ts DESC, id));
      CREATE VIRTUAL TABLE metrics USING widecol(host TEXT, metric TEXT, value REAL,
        ROWKEY(host, metric), VERSIONS 5);
      INSERT INTO by_time SELECT * FROM src;
      INSERT INTO salted SELECT * FROM src;
      INSERT INTO by_customer SELECT * FROM src;
      INSERT INTO likes SELECT 'c' || customer, ts, id, amount FROM src;
      CREATE TABLE workload(sql TEXT, weight REAL);
      INSERT INTO workload VALUES
        ('SELECT * FROM by_time WHERE customer = ?1', 10),
        ('SELECT * FROM by_time WHERE ts BETWEEN ?1 AND ?2', 5),
        ('SELECT count(*) FROM by_time WHERE ts >= 1700059000', 1),
        ('INSERT INTO by_time VALUES (1, 2, 3, 4)', 1);
    """ % (ROWS - 1))
    for k in range(4):
        db.execute("INSERT OR REPLACE INTO metrics(host, metric, value, rowtime) "
                   "SELECT 'h' || (id % 40), 'cpu', amount, (ts + ?) * 1000000 FROM src "
                   "WHERE id < 400", (k * 3600,))


def check_page(db, where, path, text, designs):
    """The checks every page gets; returns the parsed DOM."""
    open(path, "w", encoding="utf-8").write(text)
    r = reportpage.render(path)
    expect(where, not r.console, "console messages: %r" % r.console[:3])
    expect(where, not r.requests, "the page requested %r" % r.requests[:3])
    page = Page(r.dom)
    page.dom = r.dom
    for s in SECTIONS:
        expect(where, s in page.sections, "no section %s" % s)
        expect(where, page.shapes.get(s, 0) > 0, "section %s is empty" % s)
    for t in designs:
        n = db.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0]
        rows = sum(int(a["data-rows"]) for a in page.attrs("heatmap", t, "data-bucket"))
        expect(where, rows == n, "%s: the buckets hold %d rows, count(*) is %d" % (t, rows, n))
        m = re.match(r"SELECT \* FROM widecol_regions\('(.*)', (\d+)\)$",
                     page.calls("regions", t)[0], re.S)
        want = db.execute("SELECT region, rows, recent_writes FROM widecol_regions(?, ?)",
                          (m.group(1).replace("''", "'"), int(m.group(2)))).fetchall()
        got = [(int(a["data-region"]), int(a["data-rows"]), int(a["data-recent"]))
               for a in page.attrs("regions", t, "data-region")]
        expect(where, got == want, "%s: regions %r, widecol_regions %r" % (t, got[:3], want[:3]))
        want = [r[0] for r in db.execute("SELECT rule FROM widecol_lint(?)", (t,))]
        got = [a["data-rule"] for a in page.attrs("findings", t, "data-rule")]
        expect(where, got == want, "%s: findings %r, widecol_lint %r" % (t, got, want))
    return page


def heat(page, t):
    svg = page.attrs("heatmap", t, "data-hot-bucket")[0]
    buckets = page.attrs("heatmap", t, "data-bucket")
    return int(svg["data-hot-bucket"]), int(svg["data-buckets"]), buckets


def check_hotspots(db, tmp):
    text = db.execute("SELECT widecol_report('by_time')").fetchone()[0]
    page = check_page(db, "by_time", os.path.join(tmp, "by_time.html"), text, ["by_time"])
    hot, n, buckets = heat(page, "by_time")
    expect("by_time", hot == n, "the hottest cell is in bucket %d of %d, not the last" % (hot, n))
    svg = page.attrs("heatmap", "by_time", "data-hot-column")[0]
    expect("by_time", svg["data-hot-column"] == svg["data-columns"],
           "the hottest cell is in column %s of %s, not the last"
           % (svg["data-hot-column"], svg["data-columns"]))
    by_time = sum(1 for b in buckets if float(b["data-recent"]) > 0)
    expect("by_time", by_time <= 2, "the last column's writes fall in %d buckets, not "
           "the last one or two" % by_time)
    warns = page.attrs("heatmap", "by_time", "data-warn")
    expect("by_time", len(warns) == 1, "%d warnings over the map, not the hotspot's 1" % len(warns))
    text = db.execute("SELECT widecol_report('salted')").fetchone()[0]
    page = check_page(db, "salted", os.path.join(tmp, "salted.html"), text, ["salted"])
    hot, n, buckets = heat(page, "salted")
    spread = sum(1 for b in buckets if float(b["data-recent"]) > 0)
    expect("salted", spread >= 16,
           "the last column's writes fall in %d of %d buckets, not the 16 salt ranges'"
           % (spread, n))
    expect("salted", not page.attrs("heatmap", "salted", "data-warn"), "a warning over the map")


def check_workload(db, tmp, screenshot, sections):
    text = db.execute("SELECT widecol_report('by_time', 'SELECT sql, weight FROM workload', "
                      "'{\"compare\": [\"salted\", \"by_customer\"], \"buckets\": 50}')").fetchone()[0]
    path = os.path.join(tmp, "compare.html")
    page = check_page(db, "compare", path, text, ["by_time", "salted", "by_customer"])
    expect("compare", "queries" in page.sections, "no per-query section")
    for t in ("by_time", "salted", "by_customer"):
        stmts = page.attrs("queries", t, "data-stmt")
        expect("compare", len(stmts) == 4, "%s: %d statements, not 4" % (t, len(stmts)))
        for a in stmts:
            if a["data-skipped"] == "1":
                continue
            sql = re.search(r"<pre>(.*?)</pre>", text[text.index('data-stmt="%s"' % a["data-stmt"],
                            text.index('data-design="%s"' % t, text.index('id="queries"'))):],
                            re.S).group(1)
            sql = sql.replace("&#39;", "'").replace("&quot;", '"').replace("&amp;", "&") \
                     .replace("&lt;", "<").replace("&gt;", ">")
            db.execute("SELECT widecol_stats(?, 1)", (t,))
            result = len(db.execute(sql).fetchall())
            seeks, read, out = db.execute(
                "SELECT json_extract(j, '$.seeks'), json_extract(j, '$.rows_read'), "
                "json_extract(j, '$.rows_returned') FROM (SELECT widecol_stats(?) AS j)",
                (t,)).fetchone()
            got = (int(a["data-seeks"]), int(a["data-read"]), int(a["data-returned"]),
                   int(a["data-result"]))
            expect("compare", got == (seeks, read, out, result),
                   "%s statement %s: the page says (seeks, read, returned, result) %r, "
                   "widecol_stats %r" % (t, a["data-stmt"], got, (seeks, read, out, result)))
        skipped = [a["data-stmt"] for a in stmts if a["data-skipped"] == "1"]
        expect("compare", skipped == ["4"], "%s: skipped %r, not the INSERT" % (t, skipped))
    check_readable(page)
    flagged = {t: [a["data-stmt"] for a in page.attrs("queries", t, "data-flagged")
                   if a["data-flagged"] == "1"] for t in ("by_time", "by_customer")}
    expect("compare", "1" in flagged["by_time"] and "1" not in flagged["by_customer"],
           "a customer's rows by time key read everything (flagged), by customer key "
           "they do not: flagged %r" % flagged)
    if screenshot:
        reportpage.render(path, screenshot=screenshot, size=(1280, 2400))
        expect("screenshot", os.path.getsize(screenshot) > 10000, "the screenshot is empty")
    if sections:
        pngs = reportpage.section_screenshots(text, sections)
        expect("screenshots", len(pngs) == len(page.sections),
               "%d section screenshots for %d sections" % (len(pngs), len(page.sections)))


def check_readable(page):
    """Issue 46's page fixes, in the DOM Chromium rendered: axis labels a
    prefix of the key they stand for (the whole key on hover), up to the
    element that varies; a statement with parameters run once per draw,
    the median shown inside its spread; a fix labelled with what it
    replaces; the designs stacked below 600 px each."""
    labels = re.findall(r'<div class="axkey" style="[^"]*" title="([^"]*)">([^<]*)</div>',
                        page.dom)
    expect("readable", len(labels) >= 8 and all(full.startswith(lab) and lab
                                                 for full, lab in labels),
           "axis labels not prefixes of their keys: %r" % labels[:4])
    expect("readable", any(len(lab) < len(full) for full, lab in labels),
           "no label shorter than its key (by_customer's keys are customer_ts_id)")
    for t in ("by_time", "salted", "by_customer"):
        for a in page.attrs("queries", t, "data-stmt"):
            if a["data-skipped"] == "1":
                continue
            draws = int(a["data-draws"])
            lo, mid, hi = (int(a[k]) for k in ("data-read-min", "data-read", "data-read-max"))
            expect("readable", draws == (5 if a["data-stmt"] in ("1", "2") else 1)
                   and lo <= mid <= hi,
                   "%s statement %s: %d draws, rows read %d <= %d <= %d"
                   % (t, a["data-stmt"], draws, lo, mid, hi))
    expect("readable", "Fix, in place of the ROWKEY(...) clause:" in page.dom,
           "no fix labelled as replacing the ROWKEY clause")
    expect("readable", "@media (max-width:%dpx)" % (3 * 600 + 48) in page.dom,
           "three designs do not stack below 600 px each")


def check_cassandra_and_versions(db, tmp):
    text = db.execute("SELECT widecol_report('likes', NULL, '{\"nodes\": 4}')").fetchone()[0]
    page = check_page(db, "likes", os.path.join(tmp, "likes.html"), text, ["likes"])
    want = db.execute("SELECT node, rows, partitions FROM widecol_ring("
                      "'SELECT customer FROM \"main\".\"likes\" ORDER BY ts', 4)").fetchall()
    got = [(int(a["data-node"]), int(a["data-rows"]), int(a["data-partitions"]))
           for a in page.attrs("regions", "likes", "data-node")]
    expect("likes", got == want, "ring %r, widecol_ring %r" % (got, want))
    arcs = page.attrs("regions", "likes", "data-arcs")
    ranges = sum(r[0].count("(") for r in db.execute(
        "SELECT ranges FROM widecol_ring('SELECT customer FROM \"main\".\"likes\" "
        "ORDER BY ts', 4)"))
    expect("likes", arcs and int(arcs[0]["data-arcs"]) == ranges,
           "the ring draws %r arcs, widecol_ring lists %d ranges" % (arcs, ranges))
    parts = page.attrs("sizes", "likes", "data-partition-count")
    n = db.execute("SELECT count(DISTINCT customer) FROM likes").fetchone()[0]
    expect("likes", parts and int(parts[0]["data-partition-count"]) == n,
           "partitions %r, count(DISTINCT customer) %d" % (parts, n))
    text = db.execute("SELECT widecol_report('metrics')").fetchone()[0]
    page = check_page(db, "metrics", os.path.join(tmp, "metrics.html"), text, ["metrics"])
    writes = sum(float(a["data-writes"]) for a in page.attrs("heatmap", "metrics", "data-bucket"))
    n = db.execute("SELECT count(*) FROM metrics WHERE versions = 5").fetchone()[0]
    expect("metrics", writes == n, "%s writes on the map, %d versions" % (writes, n))


def self_test(tmp):
    """Broken pages: each check must fail on its own."""
    base = failures[:]
    good = "<section id=\"%s\"><table><tr><td>x</td></tr></table></section>"
    cases = {
        "a script error": "<script>nothere();</script>",
        "a request": "<img src=\"http://127.0.0.1:9/x.png\">",
        "an empty section": "",
    }
    caught = 0
    for what, extra in cases.items():
        body = "".join(good % s for s in SECTIONS if not (what == "an empty section"
                                                          and s == "sizes"))
        if what == "an empty section":
            body += "<section id=\"sizes\"><h2>Sizes</h2></section>"
        path = os.path.join(tmp, "broken.html")
        before = len(failures)
        check_page(None, what, path, "<!DOCTYPE html><html><body>%s%s</body></html>"
                   % (body, extra), [])
        caught += len(failures) > before
    del failures[:]
    failures.extend(base)
    expect("self-test", caught == len(cases), "%d of %d broken pages caught" % (caught, len(cases)))
    return caught


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--screenshot", help="where the compare page's screenshot goes")
    ap.add_argument("--sections", help="a directory for a screenshot of each of the "
                    "compare page's sections (docs/report/)")
    a = ap.parse_args()
    if not reportpage.chromium():
        print("report browser: no chromium on the PATH (apt-get install chromium): 1 failed")
        return 1
    tmp = tempfile.mkdtemp(prefix="wc-report-")
    caught = self_test(tmp)
    db = wctest.connect(a.extension, isolation_level=None)
    load(db)
    check_hotspots(db, tmp)
    check_workload(db, tmp, a.screenshot, a.sections)
    check_cassandra_and_versions(db, tmp)
    for f in failures[:20]:
        print("report browser: " + f)
    print("report browser: 5 pages rendered by Chromium, %d broken pages caught, %d checks: "
          "%d failed" % (caught, checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
