-- eBay's "like" relationship between users and items (Cassandra data
-- modeling, option 3): one table per query, each keyed for it, with the
-- title and user name de-normalised into the index tables.  Run after `make`:
--   sqlite3 :memory: < sql/likes.sql
.load ./widecol
.headers on
.mode table

-- Get all the items that a particular user likes (with titles).
CREATE VIRTUAL TABLE item_by_user USING widecol(
  user_id INTEGER, liked_at INTEGER, item_id INTEGER, item_title TEXT,
  ROWKEY(user_id PAD 10, liked_at DESC 9999999999, item_id PAD 10));

-- Get all the users who like a particular item (with names).
CREATE VIRTUAL TABLE user_by_item USING widecol(
  item_id INTEGER, liked_at INTEGER, user_id INTEGER, user_name TEXT,
  ROWKEY(item_id PAD 10, liked_at DESC 9999999999, user_id PAD 10));

CREATE TABLE user(user_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE item(item_id INTEGER PRIMARY KEY, title TEXT);
INSERT INTO user VALUES (1, 'alice'), (2, 'bob'), (3, 'carol');
INSERT INTO item VALUES (10, 'red bicycle'), (11, 'camera'), (12, 'kettle');

-- Each like is written to both tables, as the application would.
CREATE TEMP TABLE likes(user_id, item_id, liked_at);
INSERT INTO likes VALUES (1, 10, 1364248490), (1, 11, 1364248590), (2, 10, 1364248690),
                         (3, 10, 1364248790), (3, 12, 1364248890);
INSERT INTO item_by_user SELECT l.user_id, l.liked_at, l.item_id, i.title
  FROM likes l JOIN item i USING (item_id);
INSERT INTO user_by_item SELECT l.item_id, l.liked_at, l.user_id, u.name
  FROM likes l JOIN user u USING (user_id);

.print
.print Items alice likes, most recent first: one prefix, no join.
SELECT item_id, item_title, liked_at FROM item_by_user WHERE user_id = 1 ORDER BY liked_at DESC;
EXPLAIN QUERY PLAN SELECT item_id, item_title FROM item_by_user WHERE user_id = 1 ORDER BY liked_at DESC;

.print
.print Users who like the red bicycle, most recent first:
SELECT user_id, user_name, liked_at FROM user_by_item WHERE item_id = 10 ORDER BY liked_at DESC;

.print
.print The two most recent likers of the red bicycle: the scan stops after two rows.
SELECT user_name FROM user_by_item WHERE item_id = 10 ORDER BY liked_at DESC LIMIT 2;
EXPLAIN QUERY PLAN SELECT user_name FROM user_by_item WHERE item_id = 10 ORDER BY liked_at DESC LIMIT 2;

.print
.print "One widecol table can keep both: the row key serves Item_By_User, an INDEX"
.print "serves User_By_Item, and every write keeps the two in step."
CREATE VIRTUAL TABLE likes_kept USING widecol(
  user_id INTEGER, item_id INTEGER, liked_at INTEGER, item_title TEXT, user_name TEXT,
  ROWKEY(user_id PAD 10, liked_at DESC 9999999999, item_id PAD 10),
  INDEX user_by_item(item_id PAD 10, liked_at DESC 9999999999) INCLUDE (user_name),
  FAMILY d(item_title, user_name));
INSERT INTO likes_kept SELECT l.user_id, l.item_id, l.liked_at, i.title, u.name
  FROM likes l JOIN item i USING (item_id) JOIN user u USING (user_id);

.print
.print Items alice likes, most recent first (the row key):
SELECT item_id, item_title, liked_at FROM likes_kept WHERE user_id = 1 ORDER BY liked_at DESC;
.print Users who like the red bicycle, most recent first (the index holds all it needs):
SELECT user_id, user_name, liked_at FROM likes_kept WHERE item_id = 10 ORDER BY liked_at DESC;
EXPLAIN QUERY PLAN SELECT user_id, user_name, liked_at FROM likes_kept WHERE item_id = 10 ORDER BY liked_at DESC;

.print
.print bob un-likes the bicycle; the index entry goes with the row:
DELETE FROM likes_kept WHERE user_id = 2 AND item_id = 10;
SELECT user_id, user_name FROM likes_kept WHERE item_id = 10 ORDER BY liked_at DESC;
SELECT * FROM widecol_check('likes_kept');
