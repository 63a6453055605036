/*
** cs_store.h: the cell store's module, one engine table seen as an SQLite
** table (cs_store.c); what a library's entry point calls.
**
** widecol keeps its rows in tables it reads and writes with SQL (the
** statements of store/wc_store.c: range scans on rowkey, reads of one
** key, inserts, replaces, updates and deletes of one row).  With STORAGE
** BIGTABLE or HBASE those tables are virtual tables of this module,
** registered as the engine's (widecol_bigtable, widecol_hbase), so the
** statements are the storage interface and this module answers them:
**
**   CREATE VIRTUAL TABLE x USING widecol_bigtable(
**     '<projects/p/instances/i/tables/t>', <key column>,
**     <column> <family>, ...  [, SPLITS x'..' x'..' ...] [, VERSIONS n]
**     [, TTL seconds] [, ROWTIME [, OLDER]] [, STAMPS n]
**     [, ENTRIES OF '<row table>' i] [, SUFFIX '<s>'] [, KEYS '<text>']
**     [, OWNER '<id>'] [, DESIGN '<text>'] [, EXTERNAL])
**
** (stores/contract/ reads them) declares x(<key column> BLOB PRIMARY KEY,
** <column>, ..., _stamp HIDDEN) WITHOUT ROWID.  A row is an engine row
** with that key; each column a cell in its family, qualifier the
** column's name, value as cs_cell.h writes it; every row has a marker
** cell "_:" (family "_", empty qualifier) holding its stamps (cs_cell.h),
** so that a row whose columns are all NULL exists and a write can be
** conditional on what it read.  STAMPS n: the rows carry the stamps of n
** indexes' entries; ENTRIES OF: the table holds index i's entries of that
** row table (cs_table.h, CS_ENTRIES).  VERSIONS and TTL are the families'
** rule of what the engine keeps.  ROWTIME adds the column rowtime: the
** timestamp a row's cells are written with (whole milliseconds), read
** back from its latest marker cell; a NULL is then a cell too
** (cs_cell.h), since each version writes every column.  OLDER makes the
** table show, of the engine table another (ROWTIME) table made, the
** versions before each row's latest: a row per version, keyed by the
** hidden column vkey (row key and timestamp), added by INSERT and dropped
** by DELETE; widecol's <name>_versions.  SUFFIX and KEYS are for
** messages: the widecol table's name is x less SUFFIX, and its row key
** is made from KEYS.
**
** xCreate makes the engine's table, or takes over the one there if its
** design record (DESIGN, cs_catalog.c) and rules agree; OWNER is the
** CREATE's id, which the record keeps.  xDestroy deletes the engine's
** table at COMMIT if the record says this table's CREATE made it, never
** under EXTERNAL (cs_txn.c).
*/
#ifndef WIDECOL_CS_STORE_H
#define WIDECOL_CS_STORE_H

#include <sqlite3ext.h>
#include "stores/cells/cs_transport.h"

/* Registers the cell store's modules over transport pT on db, named as
** pT's STORAGE kind says (widecol_bigtable, widecol_bigtable_txn): what a
** library's entry point does (stores/bigtable/widecol_bigtable.c,
** stores/hbase/widecol_hbase.c). */
int csRegister(sqlite3 *db, char **pzErrMsg, const CsTransport *pT);

#endif /* WIDECOL_CS_STORE_H */
