-- eBay's likes as Cassandra tables (Cassandra data modeling, option 3 with
-- the time as a clustering key, newest first): Item_By_User and
-- User_By_Item, each keyed for its query, placed on a ring by the token of
-- its partition key.  One item goes viral.  Run after `make`:
--   sqlite3 :memory: < sql/cassandra_likes.sql
.load ./widecol
.headers on
.mode table

-- "Get all the items that a particular user likes", newest first.
CREATE VIRTUAL TABLE item_by_user USING widecol(
  user_id INTEGER, liked_at INTEGER, item_id INTEGER, item_title TEXT,
  PRIMARY KEY ((user_id), liked_at DESC, item_id));

-- "Get all the users who like a particular item", newest first.
CREATE VIRTUAL TABLE user_by_item USING widecol(
  item_id INTEGER, liked_at INTEGER, user_id INTEGER, user_name TEXT,
  PRIMARY KEY ((item_id), liked_at DESC, user_id));

-- One like a second from 1364248490: 2,999 users like 499 items (20,000
-- likes spread over the items, each user's of different items), and item
-- 7 goes viral: 100,000 other users (3000 and up) like it once each.
CREATE TEMP TABLE likes(user_id INTEGER, item_id INTEGER, liked_at INTEGER);
INSERT INTO likes WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 119999)
  SELECT CASE WHEN x % 6 = 0 THEN x * 7919 % 2999 ELSE 3000 + x END,
         CASE WHEN x % 6 = 0 THEN (x / 6) * 131 % 499 ELSE 7 END,
         1364248490 + x FROM i;
-- Each like is written to both tables, as the application would.
INSERT OR REPLACE INTO item_by_user SELECT user_id, liked_at, item_id, 'item ' || item_id FROM likes;
INSERT OR REPLACE INTO user_by_item SELECT item_id, liked_at, user_id, 'user ' || user_id FROM likes;

.print
.print The three items user 42 liked last: one partition, read newest first.
SELECT item_id, item_title, liked_at FROM item_by_user WHERE user_id = 42 LIMIT 3;
EXPLAIN QUERY PLAN SELECT item_id, item_title FROM item_by_user WHERE user_id = 42 LIMIT 3;

.print
.print The last two users to like item 131:
SELECT user_id, user_name, liked_at FROM user_by_item WHERE item_id = 131 LIMIT 2;

.print
.print "The ring: 6 nodes of 16 vnodes (Cassandra 4.0's num_tokens).  Item_By_User's"
.print "partitions are users, spread evenly; User_By_Item's are items, and the viral"
.print "one puts its 100,000 rows on one node (skew: rows over an even share)."
SELECT 'item_by_user' AS "table", node, partitions, rows, round(skew, 2) AS skew
  FROM widecol_ring('SELECT user_id FROM item_by_user', 6)
UNION ALL
SELECT 'user_by_item', node, partitions, rows, round(skew, 2)
  FROM widecol_ring('SELECT item_id FROM user_by_item', 6);

.print
.print "A query Cassandra refuses without ALLOW FILTERING: likes of the last minute,"
.print over every user.  widecol answers it with a full scan, and the lint says so.
SELECT count(*) AS likes_last_minute FROM item_by_user WHERE liked_at >= 1364248490 + 119940;

.print
.print "widecol_lint: the viral item's partition, and the query above."
.mode line
SELECT rule, element, finding FROM widecol_lint('user_by_item') WHERE rule = 'wide-partition';
SELECT rule, finding FROM widecol_lint('item_by_user') WHERE rule = 'allow-filtering';

.print
.print The tables as Cassandra's CREATE TABLE:
.mode list
.headers off
SELECT widecol_ddl('item_by_user', 'cql');
SELECT widecol_ddl('user_by_item', 'cql');
