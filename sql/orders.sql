-- The HBase blog's CustomerOrder keyed Reverse(Pad(OrderID,'0')): sequential
-- order ids are spread over the key space instead of all landing at its end
-- (one hot region).  Run after `make`:
--   sqlite3 :memory: < sql/orders.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE customer_order USING widecol(
  order_id INTEGER, customer_id INTEGER, order_ts TEXT, total REAL, status TEXT,
  ROWKEY(order_id PAD 10 REVERSE));

WITH RECURSIVE o(id) AS (SELECT 12345678 UNION ALL SELECT id + 1 FROM o WHERE id < 12345777)
INSERT INTO customer_order
  SELECT id, 100 + id % 7, '01-01-2017 09:' || printf('%02d', id % 60) || ':00', id % 50, 'new' FROM o;

.print
.print Consecutive orders get keys that start with their last digit:
SELECT order_id, CAST(rowkey AS TEXT) AS row_key FROM customer_order
 WHERE order_id BETWEEN 12345678 AND 12345682 ORDER BY order_id;

.print
.print "Where 100 sequential orders land, by the first digit of their key (a region each):"
SELECT substr(CAST(rowkey AS TEXT), 1, 1) AS first_digit, count(*) AS orders
  FROM customer_order GROUP BY 1;

.print
.print An order by id is still a single lookup:
SELECT * FROM customer_order WHERE order_id = 12345700;
EXPLAIN QUERY PLAN SELECT * FROM customer_order WHERE order_id = 12345700;

.print
.print The price: a range of order ids is no longer a range of keys.
EXPLAIN QUERY PLAN SELECT * FROM customer_order WHERE order_id BETWEEN 12345700 AND 12345709;
