-- Log and time-series rows keyed [hostname][log-event][Long.MAX_VALUE -
-- timestamp] (Lindorm, GeminiDB): the newest reading of a host and event
-- comes first, so "the latest N" reads N rows.  Run after `make`:
--   sqlite3 :memory: < sql/logs.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE metrics USING widecol(
  hostname TEXT, event TEXT, ts INTEGER, value REAL,
  ROWKEY(hostname, event, ts DESC 9999999999));

-- A reading every 10 seconds for an hour, on three hosts.
WITH RECURSIVE t(ts) AS (SELECT 1364248490 UNION ALL SELECT ts + 10 FROM t WHERE ts < 1364252080)
INSERT INTO metrics
  SELECT h.host, 'load', ts, (ts % 97) / 10.0 FROM t, (SELECT 'web1' AS host UNION ALL SELECT 'web2' UNION ALL SELECT 'web12') AS h;
.print
.print The keys: host, event, then 9999999999 - ts, so newest first.
SELECT CAST(rowkey AS TEXT) AS row_key, ts FROM metrics WHERE hostname = 'web1' LIMIT 3;

.print
.print The three latest load readings of web1: a forward scan that stops after 3 rows.
SELECT ts, value FROM metrics
 WHERE hostname = 'web1' AND event = 'load' ORDER BY ts DESC LIMIT 3;
EXPLAIN QUERY PLAN SELECT ts, value FROM metrics
 WHERE hostname = 'web1' AND event = 'load' ORDER BY ts DESC LIMIT 3;

.print
.print "A time window, oldest first: the same range read backwards."
SELECT ts, value FROM metrics
 WHERE hostname = 'web1' AND event = 'load' AND ts BETWEEN 1364248490 AND 1364248520 ORDER BY ts;
EXPLAIN QUERY PLAN SELECT ts, value FROM metrics
 WHERE hostname = 'web1' AND event = 'load' AND ts BETWEEN 1364248490 AND 1364248520 ORDER BY ts;

.print
.print "hostname = 'web1' reads the prefix web1_ and never web12's rows (Lindorm's host1/host12):"
SELECT hostname, count(*) AS readings FROM metrics WHERE hostname = 'web1' GROUP BY hostname;
