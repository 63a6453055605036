-- The design guides' checklists as queries: widecol_lint() on designs the guides
-- warn about, each with the key it suggests, and widecol_regions() on the
-- HBase blog's sequential and reversed order ids.  Run after `make`:
--   sqlite3 :memory: < sql/design_tools.sql
.load ./widecol
.headers on
.mode line

.print The Lindorm guide's scan question: [hostname][log-event][time], hostname
.print variable-width before the _ delimiter.
CREATE VIRTUAL TABLE logs USING widecol(host TEXT, event TEXT, ts INTEGER,
  ROWKEY(host, event, ts PAD 10));
INSERT INTO logs VALUES ('host1', 'boot', 1364248490), ('host12', 'boot', 1364248491),
  ('host2', 'boot', 1364248492);
SELECT severity, rule, element, finding, fix FROM widecol_lint('logs');

.print
.print The HBase blog's PaymentsByDate: dates day first, date leading.
CREATE VIRTUAL TABLE payments_by_date USING widecol(customer_id INTEGER, paid_at TEXT,
  payment_id INTEGER, ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9));
INSERT INTO payments_by_date VALUES (123, '01-01-2017 09:00:00', 12345678),
  (156, '01-01-2017 09:00:30', 12345679), (129, '01-01-2017 09:00:40', 12345680);
SELECT severity, rule, element, fix FROM widecol_lint('payments_by_date');

.print
.print The blog's key for uniqueness without the payment id, [customer][time],
.print loaded with puts that overwrite (INSERT OR REPLACE).
CREATE VIRTUAL TABLE by_customer USING widecol(customer_id INTEGER, paid_at TEXT,
  payment_id INTEGER, ROWKEY(customer_id PAD 6, paid_at));
INSERT OR REPLACE INTO by_customer VALUES (123, '2017-01-01 09:00:00', 12345678),
  (123, '2017-01-01 09:00:00', 12345679);
SELECT severity, rule, finding, fix FROM widecol_lint('by_customer');

.print
.print Orders 1..1000 written in order, regions split at 100 rows, the last 50
.print writes: sequential keys put them all in the last region...
.mode table
CREATE VIRTUAL TABLE seq USING widecol(order_id INTEGER, ROWKEY(order_id PAD 10));
CREATE VIRTUAL TABLE rev USING widecol(order_id INTEGER, ROWKEY(order_id PAD 10 REVERSE));
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
INSERT INTO seq SELECT i FROM n;
INSERT INTO rev SELECT order_id FROM seq;
SELECT count(*) AS regions, max(recent_writes) AS hottest, max(skew) AS skew
  FROM widecol_regions('SELECT rowkey FROM seq_rows ORDER BY order_id', 100, 50);
.print ...the blog's Reverse(Pad(OrderID)) spreads them:
SELECT count(*) AS regions, max(recent_writes) AS hottest, round(max(skew), 2) AS skew
  FROM widecol_regions('SELECT rowkey FROM rev_rows ORDER BY order_id', 100, 50);
