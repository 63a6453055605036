-- The HBase row-key blog's "Fetch list of Customer Payments", keyed both
-- ways, as two widecol tables.  Run after `make`:
--   sqlite3 :memory: < sql/payments.sql
.load ./widecol
.headers on
.mode table

-- PaymentDateTime_CustomerID_PaymentID
CREATE VIRTUAL TABLE payments_by_date USING widecol(
  paid_at TEXT, customer_id INTEGER, payment_id INTEGER, amount REAL,
  ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9));

-- CustomerID_PaymentDateTime_PaymentID
CREATE VIRTUAL TABLE payments_by_customer USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL,
  ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9));

-- The blog's six payments.
INSERT INTO payments_by_date(customer_id, paid_at, payment_id, amount) VALUES
  (123, '01-01-2017 09:00:00', 12345678, 10.0),
  (156, '01-01-2017 09:00:30', 12345679, 20.0),
  (129, '01-01-2017 09:00:40', 12345680, 30.0),
  (163, '01-01-2017 09:05:00', 12345681, 40.0),
  (123, '01-01-2017 16:06:30', 12345682, 50.0),
  (23,  '01-01-2017 09:07:00', 12345683, 60.0);
INSERT INTO payments_by_customer(customer_id, paid_at, payment_id, amount)
  SELECT customer_id, paid_at, payment_id, amount FROM payments_by_date;

.print
.print "A scan from start key '01-01-2017 00:00:00_000123' to '01-01-2017 16:59:59_000123'"
.print "on PaymentDateTime_CustomerID_PaymentID returns other customers' payments too"
.print (the blog lists five rows; byte order puts the 09:07:00 payment inside as well):
SELECT CAST(rowkey AS TEXT) AS row_key FROM payments_by_date
 WHERE rowkey BETWEEN '01-01-2017 00:00:00_000123' AND '01-01-2017 16:59:59_000123';

.print
.print "The same scan on CustomerID_PaymentDateTime_PaymentID returns only customer 123's:"
SELECT CAST(rowkey AS TEXT) AS row_key FROM payments_by_customer
 WHERE rowkey BETWEEN '000123_01-01-2017 00:00:00' AND '000123_01-01-2017 16:59:59';

.print
.print In SQL, both tables give the right answer; the key decides what it costs.
.print On the customer-first key it is a range under the prefix 000123_:
SELECT customer_id, paid_at, payment_id, amount FROM payments_by_customer
 WHERE customer_id = 123 AND paid_at BETWEEN '01-01-2017 00:00:00' AND '01-01-2017 16:59:59';
EXPLAIN QUERY PLAN SELECT * FROM payments_by_customer
 WHERE customer_id = 123 AND paid_at BETWEEN '01-01-2017 00:00:00' AND '01-01-2017 16:59:59';

.print
.print On the date-first key, the date range is scanned and every row in it is checked:
EXPLAIN QUERY PLAN SELECT * FROM payments_by_date
 WHERE customer_id = 123 AND paid_at BETWEEN '01-01-2017 00:00:00' AND '01-01-2017 16:59:59';

.print
.print "All of customer 123's payments: Start Key Value '000123' to the end of that prefix."
SELECT CAST(rowkey AS TEXT) AS row_key FROM payments_by_customer
 WHERE rowkey >= '000123' AND rowkey < rk_prefix_end('000123');
