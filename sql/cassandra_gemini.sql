-- GeminiDB's primary-key designs as Cassandra tables (GeminiDB for
-- Cassandra, "Primary key designs for log data and time series data"),
-- with their rings and what widecol_lint says.  Run after `make`:
--   sqlite3 :memory: < sql/cassandra_gemini.sql
.load ./widecol
.headers on
.mode table

-- "To query the most recent records of a metric":
-- [hostname][log-event][timestamp DESC].
CREATE VIRTUAL TABLE metric_logs USING widecol(
  hostname TEXT, event TEXT, ts INTEGER, v REAL,
  PRIMARY KEY ((hostname, event), ts DESC));

-- "To query data that contains only the time dimension": long bucket =
-- timestamp % numBuckets; [bucket][timestamp][hostname][log-event].
-- Cassandra has no computed column: the bucket is written with the row.
CREATE VIRTUAL TABLE time_logs USING widecol(
  bucket INTEGER, ts INTEGER, hostname TEXT, event TEXT, v REAL,
  PRIMARY KEY ((bucket), ts, hostname, event));

-- 60,000 readings: 20 hosts, 3 events each, one reading a second.
CREATE TEMP TABLE readings(hostname TEXT, event TEXT, ts INTEGER, v REAL);
INSERT INTO readings WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 59999)
  SELECT 'web' || (x % 20), CASE x / 20 % 3 WHEN 0 THEN 'load' WHEN 1 THEN 'cpu' ELSE 'disk' END,
         1364248490 + x, (x % 97) / 10.0 FROM i;
INSERT INTO metric_logs SELECT hostname, event, ts, v FROM readings;
INSERT INTO time_logs SELECT rk_bucket(ts, 16), ts, hostname, event, v FROM readings;

.print
.print "The latest load readings of web3: one partition, newest first."
SELECT ts, v FROM metric_logs WHERE hostname = 'web3' AND event = 'load' LIMIT 3;
EXPLAIN QUERY PLAN SELECT ts, v FROM metric_logs WHERE hostname = 'web3' AND event = 'load' LIMIT 3;

.print
.print "A minute of every host's readings: 16 buckets, each a partition (IN),"
.print "where metric_logs would need ALLOW FILTERING."
SELECT count(*) AS readings FROM time_logs
 WHERE bucket IN (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
   AND ts >= 1364248490 + 600 AND ts < 1364248490 + 660;
SELECT count(*) AS readings FROM metric_logs WHERE ts >= 1364248490 + 600 AND ts < 1364248490 + 660;

.print
.print "The rings, 6 nodes of 16 vnodes: 60 (host, event) partitions against 16"
.print "buckets.  Fewer partitions spread less evenly."
SELECT 'metric_logs' AS "table", node, partitions, rows, round(skew, 2) AS skew
  FROM widecol_ring('SELECT hostname, event FROM metric_logs', 6)
UNION ALL
SELECT 'time_logs', node, partitions, rows, round(skew, 2)
  FROM widecol_ring('SELECT bucket FROM time_logs', 6);

.print
.print "widecol_lint on metric_logs: the query of every host's minute."
.mode line
SELECT rule, finding FROM widecol_lint('metric_logs') WHERE rule = 'allow-filtering';

.print
.print The tables as Cassandra's CREATE TABLE:
.mode list
.headers off
SELECT widecol_ddl('metric_logs', 'cql');
SELECT widecol_ddl('time_logs', 'cql');
