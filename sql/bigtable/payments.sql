-- The HBase blog's payments, moved from a local widecol table to Bigtable
-- with one INSERT ... SELECT, then the blog's two scans read from Bigtable.
-- Run it with `make bigtable-demo` (which starts the emulator), or against
-- a running one:
--   BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 sqlite3 :memory: < sql/bigtable/payments.sql
.load ./widecol
.load ./widecol_bigtable
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

-- The same design in Bigtable: the same CREATE, plus where the rows live.
CREATE VIRTUAL TABLE bt_payments USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9),
  FAMILY p(amount, mode),
  STORAGE BIGTABLE 'projects/demo/instances/widecol/tables/payments');
INSERT INTO bt_payments SELECT * FROM payments;

.print
.print "CustomerID_PaymentDateTime_PaymentID: Start Key Value '000123', End Key Value"
.print "'000123' ... will fetch all the payments for CustomerID 123: one row range."
SELECT CAST(rowkey AS TEXT) AS "row key in Bigtable", amount, mode
  FROM bt_payments WHERE customer_id = 123;
EXPLAIN QUERY PLAN SELECT * FROM bt_payments WHERE customer_id = 123;

-- The blog's other key, PaymentDateTime_CustomerID_PaymentID.
CREATE VIRTUAL TABLE bt_by_date USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9),
  STORAGE BIGTABLE 'projects/demo/instances/widecol/tables/payments_by_date');
INSERT INTO bt_by_date SELECT * FROM payments;

.print
.print "PaymentDateTime_CustomerID_PaymentID: Start Key Value '01-01-2017 00:00:00_000123',"
.print "End Key Value '01-01-2017 16:59:59_000123' ... it returns the rows of other"
.print "customers too:"
SELECT CAST(rowkey AS TEXT) AS "row key in Bigtable", customer_id
  FROM bt_by_date
 WHERE rowkey BETWEEN CAST('01-01-2017 00:00:00_000123' AS BLOB)
                  AND CAST('01-01-2017 16:59:59_000123' AS BLOB);

.print
.print "What the reads cost (widecol_stats):"
SELECT widecol_stats('bt_payments') AS "bt_payments";
