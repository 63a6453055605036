-- GeminiDB's and Lindorm's cure for hot users: the key
-- [md5(userid).subStr(0,4)][userId][orderid] spreads users over 65,536
-- salts, and a user's orders stay together.  Run after `make`:
--   sqlite3 :memory: < sql/gemini_salted.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE orders USING widecol(
  userid TEXT, orderid INTEGER, total REAL,
  ROWKEY(SALT(4, userid), userid, orderid PAD 8));

-- 5,000 orders of 50 users.
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 4999)
INSERT INTO orders SELECT printf('user%06d', x % 50), 10000000 + x, (x % 500) / 10.0 FROM i;

.print
.print The salt is md5(userid)'s first 4 hex digits, as rk_salt computes it:
SELECT userid, CAST(rowkey AS TEXT) AS row_key, rk_salt(userid, 4) AS rk_salt
  FROM orders WHERE userid = 'user000001' LIMIT 2;

.output /dev/null
SELECT widecol_stats('orders', 1);
.output
.print
.print "A user's latest orders: the salt is computed from userid, one range, read backwards."
SELECT orderid, total FROM orders WHERE userid = 'user000001' ORDER BY orderid DESC LIMIT 3;
EXPLAIN QUERY PLAN
SELECT orderid, total FROM orders WHERE userid = 'user000001' ORDER BY orderid DESC LIMIT 3;
SELECT widecol_stats('orders', 1) AS "counters: 1 seek, 3 rows read";

.print
.print Several users: one seek each, under each one's own salt.
SELECT userid, count(*) AS orders FROM orders
 WHERE userid IN ('user000001', 'user000042', 'user000049') GROUP BY userid;
SELECT widecol_stats('orders', 1) AS "counters: 3 seeks";

.print
.print "An order by its number alone: the 50 salt+user prefixes are probed for,"
.print "two seeks each, and only the matching row is read."
SELECT userid, orderid, total FROM orders WHERE orderid = 10001234;
EXPLAIN QUERY PLAN SELECT userid, orderid, total FROM orders WHERE orderid = 10001234;
SELECT widecol_stats('orders', 1) AS "counters: 50 prefixes, 101 seeks, 1 row read";

.print
.print "Orders by number across users: each user's scan, merged into orderid order."
SELECT orderid, userid FROM orders WHERE orderid BETWEEN 10002000 AND 10002004 ORDER BY orderid;
EXPLAIN QUERY PLAN
SELECT orderid, userid FROM orders WHERE orderid BETWEEN 10002000 AND 10002004 ORDER BY orderid;
