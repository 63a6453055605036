-- The HBase row-key blog's CustomerOrder with its two access tables,
-- PaymentsByDate (PaymentDateTime_CustomerID_PaymentID) and
-- PaymentsByCustomer (CustomerID_PaymentDateTime_PaymentID), whose value is
-- the order's row key Reverse(Pad(OrderID,'0')), and its column families:
-- one widecol table keeps all of them.  Run after `make`:
--   sqlite3 :memory: < sql/customer_order.sql
.load ./widecol
.headers on
.mode table

CREATE VIRTUAL TABLE customer_order USING widecol(
  order_id INTEGER, customer_id INTEGER, order_ts TEXT, payment_ts TEXT, payment_id INTEGER,
  first_name TEXT, last_name TEXT, total REAL, status TEXT,
  ROWKEY(order_id PAD 10 REVERSE),
  INDEX payments_by_date(payment_ts, customer_id PAD 6, payment_id PAD 9),
  INDEX payments_by_customer(customer_id PAD 6, payment_ts, payment_id PAD 9) INCLUDE (total),
  FAMILY c(first_name, last_name), FAMILY o(order_ts, total, status));

-- The blog's six payments, one order each.
INSERT INTO customer_order VALUES
  (1, 123, '01-01-2017 08:59:00', '01-01-2017 09:00:00', 12345678, 'Ann', 'Lee', 10.0, 'paid'),
  (2, 156, '01-01-2017 09:00:00', '01-01-2017 09:00:30', 12345679, 'Bob', 'Ng', 20.0, 'paid'),
  (3, 129, '01-01-2017 09:00:10', '01-01-2017 09:00:40', 12345680, 'Cy', NULL, 30.0, 'paid'),
  (4, 163, '01-01-2017 09:04:00', '01-01-2017 09:05:00', 12345681, NULL, NULL, 40.0, 'open'),
  (5, 123, '01-01-2017 16:00:00', '01-01-2017 16:06:30', 12345682, 'Ann', 'Lee', 50.0, 'paid'),
  (6, 23, NULL, '01-01-2017 09:07:00', 12345683, 'Di', 'Ho', 60.0, NULL);

.print
.print The tables behind it: rows, one per family, one per index.
SELECT name FROM sqlite_master WHERE name LIKE 'customer_order_%' ORDER BY name;

.print
.print "PaymentsByDate's keys, each followed by the order's row key (its value):"
SELECT CAST(ikey AS TEXT) AS row_key, CAST(rowkey AS TEXT) AS order_row_key
  FROM customer_order_idx_payments_by_date;

.print
.print "Customer 123's payments between 00:00:00 and 16:59:59: a range of"
.print "PaymentsByCustomer; the names come from family c by the order's row key."
SELECT order_id, payment_ts, payment_id, first_name, total FROM customer_order
 WHERE customer_id = 123 AND payment_ts BETWEEN '01-01-2017 00:00:00' AND '01-01-2017 16:59:59';
EXPLAIN QUERY PLAN SELECT order_id, payment_ts, payment_id, first_name, total FROM customer_order
 WHERE customer_id = 123 AND payment_ts BETWEEN '01-01-2017 00:00:00' AND '01-01-2017 16:59:59';

.print
.print Asking only for what PaymentsByCustomer holds (total is INCLUDEd) reads the index alone:
SELECT payment_id, total FROM customer_order WHERE customer_id = 123;
EXPLAIN QUERY PLAN SELECT payment_id, total FROM customer_order WHERE customer_id = 123;

.print
.print "Payments from 09:00:00 to 09:05:59, all customers: PaymentsByDate."
SELECT order_id, customer_id, payment_ts FROM customer_order
 WHERE payment_ts >= '01-01-2017 09:00:00' AND payment_ts < '01-01-2017 09:06:00';
EXPLAIN QUERY PLAN SELECT order_id, customer_id, payment_ts FROM customer_order
 WHERE payment_ts >= '01-01-2017 09:00:00' AND payment_ts < '01-01-2017 09:06:00';

.print
.print Writes keep every table in step: a payment moves to another customer,
.print an order is cancelled, and widecol_check agrees.
UPDATE customer_order SET customer_id = 124 WHERE order_id = 5;
DELETE FROM customer_order WHERE order_id = 2;
SELECT CAST(ikey AS TEXT) AS payments_by_customer FROM customer_order_idx_payments_by_customer;
SELECT * FROM widecol_check('customer_order');
