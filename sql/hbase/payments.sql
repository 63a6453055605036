-- The HBase blog's payments, moved from a local widecol table to HBase
-- with one INSERT ... SELECT, then the blog's two scans read from HBase.
-- Run it with `make bigtable-demo` (which starts the emulator), or against
-- a running one:
--   BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 sqlite3 :memory: < sql/bigtable/payments.sql
.load ./widecol
.load ./widecol_hbase
.mode table
.headers on

-- The design, tried locally first.
CREATE VIRTUAL TABLE payments USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9));
INSERT INTO payments VALUES
  (123, '01-01-2017 09:00:00', 12345678, 10.50, 'card'),
  (156, '01-01-2017 09:00:30', 12345679, 20.00, 'cash'),
  (129, '01-01-2017 09:00:40', 12345680,  7.25, 'card'),
  (163, '01-01-2017 09:05:00', 12345681,  3.00, 'card'),
  (123, '01-01-2017 16:06:30', 12345682, 99.00, 'wire'),
  (23,  '01-01-2017 09:07:00', 12345683,  1.00, 'cash');

-- The same design in HBase: the same CREATE, plus where the rows live.
CREATE VIRTUAL TABLE hb_payments USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9),
  FAMILY p(amount, mode),
  STORAGE HBASE 'demo:payments');
INSERT INTO hb_payments SELECT * FROM payments;

.print
.print "CustomerID_PaymentDateTime_PaymentID: Start Key Value '000123', End Key Value"
.print "'000123' ... will fetch all the payments for CustomerID 123: one row range."
SELECT CAST(rowkey AS TEXT) AS "row key in HBase", amount, mode
  FROM hb_payments WHERE customer_id = 123;
EXPLAIN QUERY PLAN SELECT * FROM hb_payments WHERE customer_id = 123;

-- The blog's other key, PaymentDateTime_CustomerID_PaymentID.
CREATE VIRTUAL TABLE hb_by_date USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9),
  STORAGE HBASE 'demo:payments_by_date');
INSERT INTO hb_by_date SELECT * FROM payments;

.print
.print "PaymentDateTime_CustomerID_PaymentID: Start Key Value '01-01-2017 00:00:00_000123',"
.print "End Key Value '01-01-2017 16:59:59_000123' ... it returns the rows of other"
.print "customers too:"
SELECT CAST(rowkey AS TEXT) AS "row key in HBase", customer_id
  FROM hb_by_date
 WHERE rowkey BETWEEN CAST('01-01-2017 00:00:00_000123' AS BLOB)
                  AND CAST('01-01-2017 16:59:59_000123' AS BLOB);

.print
.print "What the reads cost (widecol_stats):"
SELECT widecol_stats('hb_payments') AS "hb_payments";

-- Lindorm's logs: [hostname][log-event][timestamp], the newest first by a
-- descending read (HBase's reversed scan), 3 of them.
CREATE VIRTUAL TABLE hb_logs USING widecol(
  hostname TEXT, event TEXT, ts INTEGER, detail TEXT,
  ROWKEY(hostname, event, ts PAD 10),
  STORAGE HBASE 'demo:logs');
INSERT INTO hb_logs VALUES
  ('web1', 'load', 1364248490, 'a'), ('web1', 'load', 1364248500, 'b'),
  ('web1', 'load', 1364248495, 'c'), ('web1', 'load', 1364248510, 'd'),
  ('web2', 'load', 1364248520, 'e');
.print
.print "The newest 3 load events of web1 (a reversed scan):"
SELECT ts, detail FROM hb_logs
 WHERE hostname = 'web1' AND event = 'load' ORDER BY ts DESC LIMIT 3;

-- GeminiDB's salted users: md5(userid).subStr(0,4) + userid spreads them
-- over the regions; a range of users is one scan per salt, merged.
CREATE VIRTUAL TABLE hb_users USING widecol(
  userid TEXT, name TEXT,
  ROWKEY(SALT(4, userid), userid),
  STORAGE HBASE 'demo:users');
INSERT INTO hb_users VALUES ('user000001', 'ann'), ('user000002', 'bob'),
  ('user000003', 'cy'), ('user000004', 'di');
.print
.print "Users 000002 to 000003, read across the salts:"
SELECT CAST(rowkey AS TEXT) AS "row key in HBase", userid, name
  FROM hb_users WHERE userid BETWEEN 'user000002' AND 'user000003' ORDER BY userid;

