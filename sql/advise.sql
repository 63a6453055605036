-- widecol_advise on the HBase blog's payments: "one customer's payments
-- for a date range" (frequent) and "all payments in a date range" (rare).
-- The advisor builds each candidate design on the rows, runs both queries
-- on it, and ranks what it measured.  Run after `make`:
--   sqlite3 :memory: < sql/advise.sql
.load ./widecol

-- 100,000 payments: 2,000 customers, one payment every 5 minutes.
CREATE TABLE payments(customer_id INTEGER, paid_at TEXT,
                      payment_id INTEGER PRIMARY KEY, amount REAL);
WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < 99999)
INSERT INTO payments SELECT 100000 + (x * 7919) % 2000,
  datetime(1483228800 + x * 300, 'unixepoch'), 100000000 + x, (x % 5000) / 10.0 FROM i;

CREATE TABLE workload(sql TEXT, weight REAL);
INSERT INTO workload VALUES
  ('SELECT * FROM payments WHERE customer_id = ?1 AND paid_at BETWEEN ?2 AND ?3', 100),
  ('SELECT * FROM payments WHERE paid_at BETWEEN ?1 AND ?2', 5);

.print
.print The designs, best first (score: cost per statement; reads: rows read per call):
.mode line
SELECT rank, ddl, round(score, 1) AS score, round(reads, 1) AS reads,
       round(key_bytes, 1) AS key_bytes, why
  FROM widecol_advise('payments', 'SELECT sql, weight FROM workload',
                      '{"candidates": 3}');
