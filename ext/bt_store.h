/*
** bt_store.h: the widecol_bigtable module, one Bigtable table seen as an
** SQLite table (bt_store.c).
**
** widecol keeps its rows in tables it reads and writes with SQL (the
** statements of wc_store.c: range scans on rowkey, reads of one key,
** inserts, replaces, updates and deletes of one row).  With STORAGE
** BIGTABLE those tables are virtual tables of this module instead of
** ordinary SQLite tables, so the statements are the storage interface and
** this module is its second implementation:
**
**   CREATE VIRTUAL TABLE x USING widecol_bigtable(
**     '<projects/p/instances/i/tables/t>', <key column>,
**     <column> <family>, ...  [, SPLITS x'..' x'..' ...] [, VERSIONS n]
**     [, TTL seconds] [, ROWTIME [, OLDER]] [, ASYNC_INSERTS])
**
** declares x(<key column> BLOB PRIMARY KEY, <column>, ...) WITHOUT ROWID.
** A row is a Bigtable row with that key; each column a cell in its family,
** qualifier the column's name, value as bt_cell.h writes it; every row has
** an empty cell "_:" (family "_", empty qualifier) so that a row whose
** columns are all NULL exists.  xCreate makes the Bigtable table (or takes
** the one already there when it has the families), xDestroy deletes it.
** VERSIONS and TTL are the families' GC rule.  ROWTIME adds the column
** rowtime: the timestamp a row's cells are written with (whole
** milliseconds), read back from its latest marker cell; a NULL is then a
** cell too (bt_cell.h), since each version writes every column.  OLDER
** makes the table show, of the Bigtable table another (ROWTIME) table
** made, the versions before each row's latest: a row per version, keyed
** by the hidden column vkey (row key and timestamp), added by INSERT and
** dropped by DELETE; widecol's <name>_versions.
** ASYNC_INSERTS lets conditional inserts (plain INSERTs) be answered later
** (bt_write.c): widecol gives it to a row table that has no index, where
** nothing else is written from a row that turns out to be a duplicate.
*/
#ifndef WIDECOL_BT_STORE_H
#define WIDECOL_BT_STORE_H

#include <sqlite3ext.h>

/* The family of the marker cell and of columns in no FAMILY. */
#define BT_DEFAULT_FAMILY "_"

extern const sqlite3_module btModule;

/* widecol_bigtable_counters(key, ?): registered so that statements naming
** it prepare; the module overloads it (wc_rpc.h), and anywhere else it is
** an error. */
void btCountersFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* The module's client data: what the connection's transaction has sent
** (bt_store.c).  btTxnNew() gives one reference; btTxnUnref() is the
** module's destructor. */
typedef struct BtTxn BtTxn;
BtTxn *btTxnNew(void);
void btTxnUnref(void *pTxn);

#endif /* WIDECOL_BT_STORE_H */
