-- GeminiDB's and Lindorm's "add random numbers": [userId][orderid] =>
-- [userId][orderid][random(100)].  Without the number, every write of an
-- order's row replaces the last one; with it, up to 100 rows share an
-- (userId, orderid), and reads by the fields still range.  Run after `make`:
--   sqlite3 :memory: < sql/gemini_random.sql
.load ./widecol
.headers on
.mode table

-- 800 events: 20 orders of 4 users, 40 status events each.
CREATE TEMP TABLE feed(userid TEXT, orderid INTEGER, ts INTEGER, status TEXT);
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 799)
INSERT INTO feed SELECT printf('user%02d', x % 4), 1000 + x % 20,
  1364248490 + x, CASE x % 3 WHEN 0 THEN 'paid' WHEN 1 THEN 'packed' ELSE 'sent' END
  FROM i;

-- [userId][orderid]: a put of the same key overwrites, as in HBase.
CREATE VIRTUAL TABLE events_plain USING widecol(
  userid TEXT, orderid INTEGER, ts INTEGER, status TEXT,
  ROWKEY(userid, orderid PAD 8));
INSERT OR REPLACE INTO events_plain SELECT * FROM feed;

-- [userId][orderid][random(100)]: each event a row of its own.
CREATE VIRTUAL TABLE events USING widecol(
  userid TEXT, orderid INTEGER, ts INTEGER, status TEXT,
  ROWKEY(userid, orderid PAD 8, RANDOM(100)));
INSERT INTO events SELECT * FROM feed;

.print
.print Rows kept of 800 events: the plain key keeps one per order.
SELECT (SELECT count(*) FROM events_plain) AS "[userId][orderid]",
       (SELECT count(*) FROM events) AS "[userId][orderid][random(100)]";

.print
.print Keys: the fields, then two digits chosen at INSERT.
SELECT CAST(rowkey AS TEXT) AS row_key, ts, status FROM events
 WHERE userid = 'user01' AND orderid = 1001 LIMIT 3;

.output /dev/null
SELECT widecol_stats('events', 1);
.output
.print
.print "An order's events: the fields fix a range, the number is never named."
SELECT count(*) AS events, min(ts) AS first, max(ts) AS last FROM events
 WHERE userid = 'user01' AND orderid = 1001;
EXPLAIN QUERY PLAN SELECT * FROM events WHERE userid = 'user01' AND orderid = 1001;
SELECT widecol_stats('events', 1) AS "counters: 1 seek, 40 rows read";

.print
.print What widecol_lint says of each design:
SELECT 'events_plain' AS "table", rule, finding FROM widecol_lint('events_plain')
 WHERE rule = 'not-unique'
UNION ALL
SELECT 'events', rule, finding FROM widecol_lint('events')
 WHERE rule LIKE 'random%';
SELECT fix AS "the random-suffix fix: ts tells the events apart" FROM widecol_lint('events')
 WHERE rule = 'random-suffix';
