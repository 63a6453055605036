-- A Bigtable table another application made, read in place.  Run by
-- sql/bigtable/existing.sh, which starts the emulator and makes the table,
-- in a database file that existing_write.sql then opens.
.load ./widecol
.load ./widecol_bigtable
.headers on
.mode box

-- The key as the application builds it, its cells (text, as it wrote them).
CREATE VIRTUAL TABLE old_payments USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9),
  CELLS(amount 'cf:amount' STRING, mode 'cf:mode' STRING),
  STORAGE BIGTABLE 'projects/demo/instances/widecol/tables/payments' EXISTING);

-- Customer 123's payments: one row range on Bigtable.
EXPLAIN QUERY PLAN SELECT * FROM old_payments WHERE customer_id = 123;
SELECT * FROM old_payments WHERE customer_id = 123;

-- The rows in SQL: the amounts are numbers, a missing cell is NULL.
SELECT mode, typeof(mode) AS type, count(*) AS payments, round(sum(amount), 2) AS total
  FROM old_payments WHERE customer_id < 1000 GROUP BY mode ORDER BY total DESC;

-- The probe row's key is not of the design: reads skip it and count it,
-- widecol_check lists it.
SELECT count(*) AS payments,
       json_extract(widecol_stats('old_payments'), '$.undecodable') AS undecodable
  FROM old_payments;
SELECT * FROM widecol_check('old_payments');

-- The design judged on the real rows, and designs ranked for a workload
-- that reads mostly by date.
SELECT severity, rule, substr(finding, 1, 100) AS finding FROM widecol_lint('old_payments');
CREATE TEMP TABLE workload(sql TEXT, weight REAL);
INSERT INTO workload VALUES
  ('SELECT * FROM old_payments WHERE paid_at >= ''06-01-2018'' AND paid_at < ''06-02-2018''', 9),
  ('SELECT * FROM old_payments WHERE customer_id = 123', 1);
SELECT rank, ddl FROM widecol_advise('old_payments', 'SELECT sql, weight FROM workload') LIMIT 2;

-- The table's regions as Bigtable samples them (the emulator samples
-- about a row in a hundred; Cloud Bigtable gives its tablets' boundaries).
SELECT count(*) AS regions, sum(rows) AS rows_estimated FROM widecol_regions('old_payments');
SELECT * FROM widecol_regions('old_payments') LIMIT 3;

-- (A write is refused: the table is the other application's;
-- existing_write.sql shows it.)

-- The real rows under a new design, in a local table: keyed by date.
CREATE VIRTUAL TABLE payments_by_day USING widecol(
  customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL, mode TEXT,
  ROWKEY(paid_at, customer_id PAD 6, payment_id PAD 9));
INSERT INTO payments_by_day SELECT * FROM old_payments;
SELECT paid_at, customer_id, amount, mode FROM payments_by_day
 WHERE paid_at >= '01-01-2017' AND paid_at < '01-01-2018';
