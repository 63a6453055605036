/*
** wc_store.h: the storage layer, what the widecol module asks of the store
** behind a table: the tables it keeps (made, checked, renamed, dropped),
** their prepared statements, and what the store can do (WcStoreCaps).
**
** The statements below are the whole contract between the core and a
** store: the local store prepares them on SQLite's own tables, a remote
** store accepts them on the virtual tables its library registers
** (ext/store/README.md lists them with their row formats).  A store is
** described by its capabilities, chosen by the table's STORAGE kind, and
** never named above this layer.
**
** Ownership: a WcStore is part of its table (WcVtab.store).  It owns its
** names and its statement pools; the schema is the table's, borrowed.
*/
#ifndef WIDECOL_WC_STORE_H
#define WIDECOL_WC_STORE_H

#include "util/wc_api.h"
#include "util/wc_stamp.h"
#include "key/wc_schema.h"
#include "store/wc_contract.h"

/* Statements.  Parameters: ?1 is the row key, ?(i + 2) column i, and
** ?(nCol + 2) an index key.  Those on a family or an index, and scans,
** are made for one of them (iObj). */
#define WC_STMT_INSERT      0   /* <name>_rows */
#define WC_STMT_REPLACE     1
#define WC_STMT_DELETE      2
#define WC_STMT_UPDATE      3
#define WC_STMT_SCAN        4   /* path iObj: + 1 with an upper bound,
                                ** + 2 descending; [?1, ?2), at most ?3
                                ** rows (WC_PARAM_SCAN_ROWS) */
#define WC_STMT_READ        8   /* every column of row ?1 */
#define WC_STMT_FAMILY_PUT  9   /* family iObj */
#define WC_STMT_FAMILY_DEL 10
#define WC_STMT_INDEX_PUT  11   /* index iObj */
#define WC_STMT_INDEX_DEL  12   /* index iObj, the entry ?(nCol + 2) */
#define WC_STMT_VERSION_PUT  13 /* <name>_versions: row ?1 at ?(nCol + 3) */
#define WC_STMT_VERSION_DROP 14 /* every older version of row ?1 */
#define WC_STMT_VERSION_TRIM 15 /* row ?1's versions older than ?2 or past
                                ** the ?3 newest */
#define WC_STMT_VERSION_READ 16 /* older versions of rows from ?1 on, in
                                ** key order, a key's newest first:
                                ** rowkey, rowtime, columns */
#define WC_STMT_INSERT_NOW   17 /* Bigtable: INSERT OR FAIL, whose check the
                                ** store answers at once (an INSERT OR
                                ** IGNORE or OR FAIL must know at its row) */
#define WC_STMT_SCAN_SET     18 /* Bigtable: path iObj, ascending, over the
                                ** set of ranges ?1 (wc_contract.h), at most
                                ** ?3 rows */
#define WC_STMT_UPDATE_NOW   19 /* Bigtable: UPDATE OR FAIL, answered at
                                ** once (SQLITE_BUSY_SNAPSHOT: the row
                                ** changed since it was read) */
#define WC_STMT_READ_AHEAD   20 /* the rows from key ?1 on, at most ?2 of
                                ** them, in key order: WC_STMT_READ's
                                ** columns, then rowkey */

/* A scan's LIMIT: the rows its caller can use at most, or -1.  A remote
** store sizes its first call by it (SQLite hands a LIMIT to xBestIndex
** where the store takes every term of the WHERE and the ORDER BY), so a
** probe or a LIMIT 3 reads a row or three, not a page. */
#define WC_PARAM_SCAN_ROWS 3

/* The rowtime parameter of writes on a versioned table. */
#define WC_PARAM_ROWTIME(pS) ((pS)->nCol + 3)
/* On a store whose rows carry stamps (WcStoreCaps.bStamps): the row's new
** stamps (its write's, then each index entry's: 8 bytes each), the stamps
** the write is conditional on (NULL: the store reads the row itself),
** and an index entry's group (its write's stamp; for a delete, the old
** entry's). */
#define WC_PARAM_STAMPS(pS)  ((pS)->nCol + 4)
#define WC_PARAM_EXPECT(pS)  ((pS)->nCol + 5)
#define WC_PARAM_GROUP(pS)   ((pS)->nCol + 6)
#define WC_STAMP WC_STAMP_SIZE

/* What the store behind a table can do, for the writer and the planner:
** a store is described by this, never named. */
typedef struct WcStoreCaps WcStoreCaps;
struct WcStoreCaps {
  const WcKind *pKind;  /* The engine's facts (util/wc_kind.h): what
                        ** STORAGE names it, its name, its library and
                        ** module (zModule NULL: SQLite's own tables), its
                        ** docs, its longest key and timestamp step */
  int bTransactional;   /* Multi-row transactions: a statement that fails
                        ** leaves nothing of what it wrote */
  int bStamps;          /* Rows carry stamps: updates and deletes are
                        ** conditional on the stamps read, an index entry
                        ** is written under its write's stamp before its
                        ** row and the old one deleted after it */
  int bCellVersions;    /* A row's older versions are its own older cells:
                        ** a new latest version leaves the old one in place,
                        ** and deleting a row deletes its versions */
  int bRowFamilies;     /* FAMILY columns live in the row, not in tables of
                        ** their own */
  int bLateChecks;      /* A plain INSERT's key check may be answered after
                        ** its row, unless the write asks now (INSERT OR
                        ** FAIL); an INSERT OR REPLACE does not say whether
                        ** it replaced a row */
  int bStoreMessages;   /* Its errors name the widecol table: passed on as
                        ** they are */
  int bNoEmptyKey;      /* Keeps no row under an empty key */
  /* What reading costs there, for the planner: */
  double rCallRows;     /* A call, in rows of a full scan (0: no calls) */
  int bRangeSets;       /* An ascending scan's ranges are read together,
                        ** WC_SET_MAX to a call (WC_STMT_SCAN_SET) */
  int nReadAhead;       /* The rows a write may read ahead of the key it
                        ** needs, in one call (WC_STMT_READ_AHEAD), so
                        ** that writes in key order read a call per that
                        ** many rows (0: a read per row) */
  int bReverseReads;    /* A call reads keys in descending order (a scan
                        ** ORDER BY key DESC is read from the end, in
                        ** pages); WC_REVERSE_PARTITION: within one
                        ** partition only, a range across partitions read
                        ** whole by the store; 0: a remote store's
                        ** descending scan is read whole and sorted */
  int nPrefixProbes;    /* Distinct prefixes of a field counted, by probing,
                        ** for skip scans; past it, too many to skip */
  int bRowEstimates;    /* Estimates its rows for planning in one call
                        ** (wcStoreRemoteStats), instead of a count */
  int bRegionLoads;     /* May tell each region's server and request
                        ** counts (WcRpcStats.bLoads), as HBase's own
                        ** protocol does; 0: never asked for them */
  int64_t nCountMax;    /* Rows counted for planning (0: all); a table with
                        ** more is taken to hold WC_UNCOUNTED_ROWS.  Where
                        ** rows are estimated, prefixes are probed only in
                        ** a table estimated at most this large */
  int bRpcCounters;     /* Counts its calls for widecol_stats()
                        ** (WC_RPC_COUNTERS, wc_contract.h) */
};

#define WC_REVERSE_PARTITION 2

/* The capabilities of store kind eStore (WC_STORE_*, util/wc_kind.h):
** the table of kinds, store/wc_kinds.c. */
const WcStoreCaps *wcStoreKind(int eStore);
#define WC_UNCOUNTED_ROWS 1000000

/* Prepared statements of one kind (and, for scans, one set of columns)
** that are not in use. */
typedef struct WcStmtPool WcStmtPool;
struct WcStmtPool {
  int eStmt;
  int iObj;
  uint64_t colUsed;     /* Scans: the columns selected */
  sqlite3_stmt **ap;
  int n;
  int nAlloc;
  WcStmtPool *pNext;
};

typedef struct WcStore WcStore;
struct WcStore {
  sqlite3 *db;
  char *zDb;            /* Database holding the table: "main", ... */
  char *zName;          /* The widecol table's name */
  WcSchema *pSchema;    /* The table's (borrowed) */
  const WcStoreCaps *pCaps;
  sqlite3_vtab *pVtab;  /* Whose error message the store's errors set */
  /* On a store whose rows carry stamps: the hidden column _stamp (see
  ** WcVtab), or -1. */
  int iStampCol;
  WcStmtPool *pPool;    /* List of pools */
};

/* Fills p for table zName of database zDb: SQLITE_OK or SQLITE_NOMEM.
** wcStoreFree() frees what it holds (after a failed init too);
** wcStoreClose() its statements alone. */
int wcStoreInit(WcStore *p, sqlite3 *db, const char *zDb, const char *zName,
                WcSchema *pSchema, sqlite3_vtab *pVtab);
void wcStoreFree(WcStore *p);

const WcStoreCaps *wcStoreCaps(const WcStore *p);
/* Reports what SQLite said of a statement on a table behind the table that failed
** with rc: the store's own words where they name the widecol table, else
** prefixed with its name. */
int wcStoreError(WcStore *p, int rc);
int wcStoreCreate(WcStore *p);
int wcStoreCheck(WcStore *p);
int wcStoreDrop(WcStore *p);
int wcStoreRename(WcStore *p, const char *zNew);
int wcStoreAcquire(WcStore *p, int eStmt, int iObj, uint64_t colUsed,
                   sqlite3_stmt **ppStmt);
void wcStoreRelease(WcStore *p, int eStmt, int iObj, uint64_t colUsed,
                    sqlite3_stmt *pStmt);
/* Where each column is in a scan of path iPath selecting colUsed: its
** index or -1; aiStmtCol[nCol] is the key scanned (rowkey, or an index
** key), aiStmtCol[nCol + 1] the row key, aiStmtCol[nCol + 2] rowtime
** (-1 unless the table is versioned and colUsed has WC_COL_ROWTIME's
** bit) and aiStmtCol[nCol + 3] the stamps (-1 unless colUsed has
** iStampCol's).  Returns the number selected. */
int wcStoreScanColumns(const WcStore *p, int iPath, uint64_t colUsed,
                       int *aiStmtCol);
/* True if an index table holds every column in colUsed. */
int wcStoreCovers(const WcStore *p, int iPath, uint64_t colUsed);
void wcStoreClose(WcStore *p);
/* The calls reading nRows rows as one read costs on the store (0 where
** reads make no calls): its pages as the kind reads them (util/wc_kind.h,
** WcReads), the first nFirst rows where a LIMIT sizes it (0: the kind's
** first page), and where the store reads each range alone, a call for
** each of the nRanges read together.  For the planner's costs and the
** calls EXPLAIN tells. */
double wcStoreReadCalls(const WcStore *p, double nRows, double nRanges,
                        double nFirst);
/* The calls checking nEntries index entries against their rows adds. */
double wcStoreVerifyCalls(const WcStore *p, double nEntries);
/* The table's rows, for planning, in *pnRow: sqlite_stat1's figure, else
** the store's estimate (bRowEstimates), else counted (see nCountMax);
** SQLITE_OK, or the error of the read (message set). */
int wcStoreRowCount(WcStore *p, int64_t *pnRow);
/* Adds what a remote store's calls to one table behind the widecol table
** cost into *pRpc (wc_contract.h): the row table (iFamily and iIndex -1),
** <name>_versions (iFamily WC_TABLE_VERSIONS) or index iIndex's table;
** with the row table's estimate if pRpc->bEstimate.  SQLITE_OK, or the
** store's error (message in the connection). */
int wcStoreRemoteStats(WcStore *p, int iFamily, int iIndex, WcRpcStats *pRpc);
/* The sample at aSample[*piOff] (WcRpcStats.aSample's format): its key in
** *paKey, *pnKey (empty: the end), the bytes before it in *pnBefore; then
** *piOff moves past it.  0 at the end of aSample. */
int wcStoreSampleNext(const unsigned char *aSample, int64_t nSample,
                      int64_t *piOff, const unsigned char **paKey,
                      int64_t *pnKey, int64_t *pnBefore);
/* A region's load, as wcStoreLoadNext() reads it from WcRpcStats.aLoad:
** pointers into aLoad. */
typedef struct WcRegionLoad WcRegionLoad;
struct WcRegionLoad {
  const unsigned char *aEnd;    /* The key it ends at; nEnd 0: the end */
  int64_t nEnd;
  const char *zServer;          /* Its server's name, nServer bytes */
  int64_t nServer;
  int64_t nRead, nWrite;        /* Requests counted; -1: not told */
};
/* The region at aLoad[*piOff] in *pOut; then *piOff moves past it.  0 at
** the end of aLoad. */
int wcStoreLoadNext(const unsigned char *aLoad, int64_t nLoad, int64_t *piOff,
                    WcRegionLoad *pOut);
/* The distinct prefixes of the first nElem elements of path iPath's key,
** in *pnFound, by the store's probe policy (in a table of nRowEst rows):
** counted up to WcStoreCaps.nPrefixProbes, and more than that is
** nPrefixProbes + 1; SQLITE_OK or the error of the read. */
int wcStorePrefixCount(WcStore *p, int iPath, int nElem, int64_t nRowEst,
                       int64_t *pnFound);

/* wcStoreAppendTable()'s iFamily for <name>_versions. */
#define WC_TABLE_VERSIONS (-2)

/* Appends "db"."<name>_rows" (iFamily and iIndex -1), a family's or an
** index's table name, or <name>_versions (iFamily WC_TABLE_VERSIONS),
** quoted. */
void wcStoreAppendTable(sqlite3_str *pStr, const WcStore *p, int iFamily,
                        int iIndex);
/* Appends "SELECT r.rowkey AS rowkey, <every column AS its name>[,
** r.rowtime AS rowtime] FROM <name>_rows AS r LEFT JOIN <each family>":
** the table's rows as the virtual table shows them (rowtime last, on a
** versioned table), read from the tables behind it (an EXISTING table's
** from the widecol table itself, which reads its key fields from its
** keys and leaves out the rows whose keys do not decode).  With zRuns,
** a FROM item of two columns (first and last row key of a run, as in
** VALUES (?1, ?2), ...), only the rows of those runs of keys. */
void wcStoreAppendRowsSelect(sqlite3_str *pStr, const WcStore *p,
                             const char *zRuns);

#endif /* WIDECOL_WC_STORE_H */
