-- Lindorm's and GeminiDB's time-series key when time is the only
-- dimension: long bucket = timestamp % numBuckets;
-- [bucket][timestamp][hostname][log-event].  Writes spread over 16
-- buckets; a time range reads every bucket and merges them back into time
-- order.  Run after `make`:
--   sqlite3 :memory: < sql/lindorm_buckets.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE logs USING widecol(
  ts INTEGER, hostname TEXT, event TEXT, value REAL,
  ROWKEY(BUCKET(16, ts), ts PAD 10, hostname, event));

-- A reading a second for a day, from four hosts in turn.
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 86399)
INSERT INTO logs SELECT 1364248490 + x, 'web' || (x % 4), 'load', (x % 97) / 10.0 FROM i;

.print
.print "The bucket is ts % 16, two digits, as rk_bucket computes it:"
SELECT ts, CAST(rowkey AS TEXT) AS row_key, rk_bucket(ts, 16) AS bucket
  FROM logs WHERE ts BETWEEN 1364248490 AND 1364248492;

.output /dev/null
SELECT widecol_stats('logs', 1);
.output
.print
.print "An hour, oldest first: 16 bucket scans merged in time order; LIMIT stops"
.print "the merge after 5 rows."
SELECT ts, hostname, value FROM logs
 WHERE ts >= 1364252090 AND ts < 1364255690 ORDER BY ts LIMIT 5;
EXPLAIN QUERY PLAN SELECT ts, hostname, value FROM logs
 WHERE ts >= 1364252090 AND ts < 1364255690 ORDER BY ts LIMIT 5;
.print "Counters: every bucket exists, so each is computed and sought: 16 seeks;"
.print "a row from each bucket, then one more per row handed out but the last."
SELECT widecol_stats('logs', 1) AS counters;

.print
.print "The whole hour, per host: rows read = rows returned."
SELECT hostname, count(*) AS readings, round(avg(value), 2) AS avg_load FROM logs
 WHERE ts >= 1364252090 AND ts < 1364255690 GROUP BY hostname;
.mode line
SELECT widecol_stats('logs', 1) AS counters;
.mode table

.print
.print One second: its bucket is computed, a single range.
SELECT * FROM logs WHERE ts = 1364252090;
EXPLAIN QUERY PLAN SELECT * FROM logs WHERE ts = 1364252090;
