-- widecol demo: the row-key transformations of the design guides, one
-- example each, with the guides' own values.
-- Run it with `make demo`, or after `make` with:
--   sqlite3 :memory: < sql/demo.sql
.load ./widecol
.mode table
.headers on

.print
.print 1. Padding (HBase row-key blog): row keys sort byte by byte, so ids need
.print    zero padding to sort as numbers.
WITH id(raw) AS (VALUES ('1'), ('09'), ('005'), ('2'), ('3'), ('22'), ('11'))
SELECT 'as stored' AS "keys", group_concat(k, ',') AS "byte order"
  FROM (SELECT raw AS k FROM id ORDER BY k)
UNION ALL
SELECT 'rk_pad(id, 4)', group_concat(k, ',')
  FROM (SELECT rk_pad(CAST(raw AS INTEGER), 4) AS k FROM id ORDER BY k);

SELECT rk_pad(123, 6) AS "CustomerID 123 padded to 6";

.print
.print 2. Descending order: Max Value - ID Value, and Long.MAX_VALUE - timestamp
.print    so the newest row of a host and event comes first.
SELECT rk_desc(123, 999999) AS "999999 - 123", rk_desc(100, 999999) AS "999999 - 100";

WITH reading(host, event, ts) AS (
  VALUES ('web1', 'load', 1364248490), ('web1', 'load', 1364248500),
         ('web1', 'load', 1364248495))
SELECT rk_join('_', host, event, rk_pad(rk_desc(ts), 19)) AS "[hostname][log-event][Long.MAX_VALUE - timestamp]",
       ts
  FROM reading ORDER BY 1;

.print
.print 3. Salted keys against hotspotting: a hash prefix (MapR, GeminiDB, Lindorm)
.print    or a modulo bucket spreads sequential keys over the cluster.
SELECT rk_salt('1364248490', -4) AS "MapR: last 4 md5 digits + ts",
       rk_salt('user000001', 4) AS "md5(userid).subStr(0,4) + userid",
       rk_unsalt('ffe51364248490', -4) AS "unsalted again";

WITH RECURSIVE second(ts) AS (
  SELECT 1364248492 UNION ALL SELECT ts + 1 FROM second WHERE ts < 1364248499)
SELECT rk_join('_', rk_pad(rk_bucket(ts, 16), 2), ts, 'web1', 'load')
         AS "[bucket][timestamp][hostname][log-event]"
  FROM second ORDER BY 1;

.print
.print 4. Reversed ids: Reverse(Pad(OrderID,'0')) puts sequential orders far apart.
WITH RECURSIVE ord(order_id) AS (
  SELECT 12345678 UNION ALL SELECT order_id + 1 FROM ord WHERE order_id < 12345682)
SELECT order_id, rk_reverse(rk_pad(order_id, 10)) AS "row key"
  FROM ord ORDER BY 2;

.print
.print 5. Composite keys: CustomerID_PaymentDateTime_PaymentID answers one
.print    customer's payments with a prefix scan (start row, stop row).
WITH payment(customer_id, paid_at, payment_id) AS (
  VALUES (123, '01-01-2017 09:00:00', 12345678), (156, '01-01-2017 09:00:30', 12345679),
         (123, '01-01-2017 16:06:30', 12345682), (23, '01-01-2017 09:07:00', 12345683)),
keyed(k) AS (
  SELECT rk_join('_', rk_pad(customer_id, 6), paid_at, rk_pad(payment_id, 9)) FROM payment)
SELECT k AS "row key", rk_prefix_end('000123') AS "stop row for prefix 000123"
  FROM keyed
 WHERE k >= '000123' AND k < rk_prefix_end('000123')
 ORDER BY k;
