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
**     [, TTL seconds] [, ROWTIME [, OLDER]] [, STAMPS n]
**     [, ENTRIES OF '<row table>' i] [, SUFFIX '<s>'] [, KEYS '<text>']
**     [, OWNER '<id>'] [, DESIGN '<text>'] [, EXTERNAL])
**
** declares x(<key column> BLOB PRIMARY KEY, <column>, ..., _stamp HIDDEN)
** WITHOUT ROWID.  A row is a Bigtable row with that key; each column a
** cell in its family, qualifier the column's name, value as bt_cell.h
** writes it; every row has a marker cell "_:" (family "_", empty
** qualifier) holding its stamps (bt_cell.h), so that a row whose columns
** are all NULL exists and a write can be conditional on what it read.
** STAMPS n: the rows carry the stamps of n indexes' entries; ENTRIES OF:
** the table holds index i's entries of that row table (bt_table.h,
** BT_ENTRIES).  VERSIONS and TTL are the families' GC rule.  ROWTIME adds
** the column rowtime: the timestamp a row's cells are written with (whole
** milliseconds), read back from its latest marker cell; a NULL is then a
** cell too (bt_cell.h), since each version writes every column.  OLDER
** makes the table show, of the Bigtable table another (ROWTIME) table
** made, the versions before each row's latest: a row per version, keyed
** by the hidden column vkey (row key and timestamp), added by INSERT and
** dropped by DELETE; widecol's <name>_versions.  SUFFIX and KEYS are for
** messages: the widecol table's name is x less SUFFIX, and its row key
** is made from KEYS.
**
** xCreate makes the Bigtable table, or takes over the one there if its
** design record (DESIGN, bt_catalog.c) and GC rules agree; OWNER is the
** CREATE's id, which the record keeps.  xDestroy deletes the Bigtable
** table at COMMIT if the record says this table's CREATE made it, never
** under EXTERNAL (bt_txn.c).
*/
#ifndef WIDECOL_BT_STORE_H
#define WIDECOL_BT_STORE_H

#include <sqlite3ext.h>

/* The family of the marker cell and of columns in no FAMILY. */
#define BT_DEFAULT_FAMILY "_"

extern const sqlite3_module btModule;

/* widecol_bigtable_counters(key, ?): registered so that statements naming
** it prepare; the module overloads it (wc_remote.h), and anywhere else it is
** an error. */
void btCountersFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* The module's client data: what the connection's transaction has sent
** and what waits (bt_txn.c).  btTxnNew() gives one reference; btTxnUnref() is the
** module's destructor. */
typedef struct BtTxn BtTxn;
BtTxn *btTxnNew(void);
void btTxnRef(BtTxn *p);
void btTxnUnref(void *pTxn);

/* widecol_bigtable_txn (btEngine.zTxnModule): an eponymous table of this
** module, holding nothing, that its DDL puts in the transaction so that
** the DDL's remote part happens at COMMIT or ROLLBACK (bt_txn.c).
** Registered with the same client data as btModule. */
extern const sqlite3_module btTxnModule;

/* Registers the store's modules and function on db, named as btEngine
** says: what a library's entry point does (widecol_bigtable.c,
** ext/hbase/widecol_hbase.c).  zPython: how Python loads the library. */
int btRegister(sqlite3 *db, char **pzErrMsg, const char *zPython);

#endif /* WIDECOL_BT_STORE_H */
