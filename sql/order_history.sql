-- Versions (the Lindorm and GeminiDB guides' first question): the same row
-- key is several versions of one row, and a read returns the latest.  Here
-- an order, keyed [userid][orderid] so that each order is its own row, keeps
-- its last 5 versions as its status changes; reads see it now, as of an
-- earlier time, and with its history.  Times are microseconds since 1970,
-- the unit of Bigtable and of Cassandra's USING TIMESTAMP.  Run after `make`:
--   sqlite3 :memory: < sql/order_history.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE orders USING widecol(
  userid TEXT, orderid INTEGER, status TEXT, total REAL,
  ROWKEY(userid, orderid PAD 8), INDEX by_status(status), VERSIONS 5);

-- The clock is frozen so that the script prints the same every time:
-- 2023-11-14 22:13:20 UTC, then an hour (3,600,000,000 us) at a time.
SELECT widecol_clock(1700000000000000) AS clock;
INSERT INTO orders VALUES ('u1', 10000001, 'new', 25.0), ('u1', 10000002, 'new', 12.5),
                          ('u2', 10000003, 'new', 99.0);
SELECT widecol_clock(1700003600000000) AS clock;
UPDATE orders SET status = 'paid' WHERE userid = 'u1' AND orderid = 10000001;
SELECT widecol_clock(1700007200000000) AS clock;
UPDATE orders SET status = 'shipped' WHERE userid = 'u1' AND orderid = 10000001;
UPDATE orders SET status = 'paid' WHERE userid = 'u2';

.print
.print Now: each order's latest version.
SELECT userid, orderid, status, rowtime FROM orders;

.print
.print As of 2023-11-14 23:43:20 UTC (1700005400000000), between the two updates:
SELECT userid, orderid, status FROM orders WHERE asof = 1700005400000000;

.print
.print "Order 10000001's history, newest first (versions = 5):"
SELECT status, rowtime, datetime(rowtime / 1000000, 'unixepoch') AS at
  FROM orders WHERE userid = 'u1' AND orderid = 10000001 AND versions = 5;

.print
.print "The index holds the latest status: 'new' orders now, and then (asof reads"
.print "the row key's ranges, since a status of then may not be in the index):"
SELECT userid, orderid FROM orders WHERE status = 'new';
SELECT userid, orderid FROM orders WHERE status = 'new' AND asof = 1700000000000000;
EXPLAIN QUERY PLAN SELECT userid, orderid FROM orders WHERE status = 'new' AND asof = 1700000000000000;

.print
.print "A plain INSERT of a key in use still fails (UNIQUE): keys are unique unless you"
.print "mean versions.  INSERT OR IGNORE skips it; INSERT OR REPLACE adds a version."
INSERT OR IGNORE INTO orders VALUES ('u1', 10000001, 'lost', 0);
SELECT status FROM orders WHERE userid = 'u1' AND orderid = 10000001;

.print
.print "With a TTL, old versions expire: the same orders kept 2 hours (7,200 s)."
CREATE VIRTUAL TABLE recent USING widecol(
  userid TEXT, orderid INTEGER, status TEXT, total REAL,
  ROWKEY(userid, orderid PAD 8), VERSIONS 5, TTL 7200);
-- Every version, with its rowtime: the second of a key is a new version.
INSERT OR REPLACE INTO recent(userid, orderid, status, total, rowtime)
  SELECT userid, orderid, status, total, rowtime FROM orders WHERE versions = 5;
SELECT widecol_clock(1700010000000000) AS clock;
.print "At 1700010000000000 the versions from before 1700002800000000 have expired,"
.print "order 10000002 with its only version:"
SELECT userid, orderid, status, rowtime FROM recent WHERE versions = 5;
SELECT widecol_compact('recent') AS "removed by widecol_compact";
