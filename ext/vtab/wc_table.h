/*
** wc_table.h: what the tools (widecol_check, widecol_lint, widecol_stats)
** may ask of a widecol table.
**
** WcVtab is opaque here.  A tool finds a table by schema and name through
** SQL, as any statement does (wcTableLookup), and then reads it through
** these calls: the module keeps no registry of connected tables, so a
** table found is one that SQLite itself has connected, whatever loaded
** the extension and however often.
*/
#ifndef WIDECOL_WC_TABLE_H
#define WIDECOL_WC_TABLE_H

#include "util/wc_api.h"
#include "key/wc_schema.h"
#include "key/wc_codec.h"
#include "store/wc_store.h"
#include "vtab/wc_clock.h"

typedef struct WcVtab WcVtab;
typedef struct WcHistory WcHistory;

/* The SQL function a lookup runs, and the pointer type it passes:
**   SELECT 1 FROM "<schema>"."<name>" WHERE widecol_table(rowkey, ?1)
** with ?1 bound by sqlite3_bind_pointer() to a WcVtab* of type
** WC_TABLE_FUNC.  A widecol table overloads the function (xFindFunction)
** as a constraint, so its xFilter receives the pointer and stores itself
** there; on any other table the global function below runs and fails. */
#define WC_TABLE_FUNC "widecol_table"

/* Finds the widecol table zArg names: "name" or "schema.name" (a name
** holding a '.' is read as a schema only if that schema exists).  zFunc
** names the caller for messages.  Returns SQLITE_OK with *ppTab set, or
** an error code with *pzErr from sqlite3_mprintf() (NULL on OOM). */
int wcTableLookup(sqlite3 *db, const char *zArg, const char *zFunc,
                  WcVtab **ppTab, char **pzErr);

/* widecol_table(x, y) anywhere but a lookup: an error saying what it is. */
void wcTableFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

sqlite3 *wcTableDb(const WcVtab *p);
const char *wcTableName(const WcVtab *p);
const WcSchema *wcTableSchema(const WcVtab *p);
RkHasher *wcTableHasher(const WcVtab *p);
WcHistory *wcTableHistory(const WcVtab *p);

/* A tool watching what scans read (widecol_report): xRow is called with
** the row key of every row a scan of the table reads, whichever key it
** scans (an index's entry gives its row's key; under VERSIONS each older
** version read is a row), as widecol_stats() counts rows_read.  One
** watcher at a time; xRow NULL stops watching. */
typedef void (*WcWatchRow)(void *pArg, const void *aKey, int nKey);
void wcTableWatch(WcVtab *p, WcWatchRow xRow, void *pArg);

/* The store behind the table, for the tools that read its tables
** directly (wc_store.h). */
const WcStore *wcTableStore(const WcVtab *p);

/* The index key of index iIndex for a row with row key aKey[0..nKey) and
** values aVal, in *pOut.  WC_OK, WC_NOFIT or WC_NULL (with *pzErr), or
** WC_ERROR or WC_NOMEM. */
int wcIndexKey(WcVtab *p, int iIndex, const WcValue *aVal,
               const unsigned char *aKey, int64_t nKey, WcBuf *pOut,
               char **pzErr);

/* widecol_compact(): removes the versions of the table that its TTL has
** expired (and any past its VERSIONS), as HBase's major compaction does.
** *pnRow is set to the row keys removed whole, *pnVersion to the versions
** removed in all (theirs included).  SQLITE_OK, or an error code with the
** table's message set. */
int wcTableCompact(WcVtab *p, int64_t *pnRow, int64_t *pnVersion);
/* Now, by the connection's clock (widecol_clock). */
int64_t wcTableNow(const WcVtab *p);
/* Pins the connection's clock at iMicros (widecol_now() reads it), the
** state before kept in *pSaved, and puts that back. */
void wcTablePinClock(WcVtab *p, int64_t iMicros, WcClockState *pSaved);
void wcTableRestoreClock(WcVtab *p, const WcClockState *pSaved);
/* The table's error message, after a call that failed. */
const char *wcTableErrmsg(const WcVtab *p);

#endif /* WIDECOL_WC_TABLE_H */
