-- MapR's salted timestamps: 1364248490 is stored as ffe51364248490, the
-- last 4 hex digits of its MD5 in front, so that consecutive writes land
-- on different regions.  Run after `make`:
--   sqlite3 :memory: < sql/mapr_salted.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE events USING widecol(
  ts INTEGER, payload TEXT,
  ROWKEY(SALT(-4, ts), ts PAD 10), DELIMITER '');

-- An event a second for a day.
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 86399)
INSERT INTO events SELECT 1364248490 + x, 'event ' || x FROM i;

.print
.print "MapR-DB's key, and rk_unsalt gives the timestamp back:"
SELECT ts, CAST(rowkey AS TEXT) AS row_key, rk_unsalt(CAST(rowkey AS TEXT), -4) AS unsalted
  FROM events WHERE ts = 1364248490;

.print
.print Consecutive seconds are far apart in key order:
SELECT CAST(rowkey AS TEXT) AS row_key FROM events
 WHERE ts BETWEEN 1364248490 AND 1364248494 ORDER BY rowkey;

.output /dev/null
SELECT widecol_stats('events', 1);
.output
.print
.print "A minute of events, in time order: each second's salt is computed and"
.print "sought, 60 seeks for 60 rows, no sorting."
SELECT ts, payload FROM events WHERE ts >= 1364248500 AND ts < 1364248560 ORDER BY ts LIMIT 5;
EXPLAIN QUERY PLAN
SELECT ts, payload FROM events WHERE ts >= 1364248500 AND ts < 1364248560 ORDER BY ts;
SELECT widecol_stats('events', 1) AS "counters: 5 seeks for 5 rows";
SELECT count(*) AS events FROM events WHERE ts >= 1364248500 AND ts < 1364248560;
SELECT widecol_stats('events', 1) AS "counters: 60 seeks for 60 rows";

.print
.print "The latest 3 events of that minute: 3 seeks."
SELECT ts FROM events WHERE ts >= 1364248500 AND ts < 1364248560 ORDER BY ts DESC LIMIT 3;
SELECT widecol_stats('events', 1) AS "counters: 3 seeks";
