-- A write to a table another application made is refused (STORAGE ...
-- EXISTING opens it read only; EXISTING WRITABLE would write).  Run by
-- sql/bigtable/existing.sh on the database existing.sql made, which
-- expects this error and says so.
.load ./widecol
.load ./widecol_bigtable
INSERT INTO old_payments VALUES (1, '01-03-2017 10:00:00', 1, 5, 'card');
