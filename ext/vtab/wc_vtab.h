/*
** wc_vtab.h: the widecol virtual table's internals, shared by the files
** that implement the module:
**   wc_vtab.c   the sqlite3_module methods, lookups, widecol_stats()
**   wc_plan.c   xBestIndex: which constraints become byte ranges
**   wc_range.c  xFilter: the byte ranges themselves
**   wc_scan.c   cursors: walking the ranges, skip scans, merges
**   wc_write.c  writes (xUpdate): the row, its families and index entries
**   wc_store.c  the tables behind a widecol table (<name>_rows, _cf_<f>,
**               _idx_<i>): DDL and prepared statements
** The tools (wc_check.c, wc_lint.c) see only wc_table.h.
*/
#ifndef WIDECOL_WC_VTAB_H
#define WIDECOL_WC_VTAB_H

#include "util/wc_api.h"
#include "key/wc_schema.h"
#include "key/wc_codec.h"
#include "vtab/wc_table.h"
#include "vtab/wc_history.h"
#include "vtab/wc_versions.h"
#include "util/wc_stamp.h"

/* How a constraint handed to xFilter is used. */
#define WC_TERM_EQ     1    /* = or IS: one value */
#define WC_TERM_IN     2    /* IN (...), all values at once */
#define WC_TERM_GT     3
#define WC_TERM_GE     4
#define WC_TERM_LT     5
#define WC_TERM_LE     6
#define WC_TERM_LIKE   7    /* LIKE 'prefix%' */
#define WC_TERM_GLOB   8    /* GLOB 'prefix*' */
#define WC_TERM_LIMIT  9
#define WC_TERM_OFFSET 10
#define WC_TERM_VERSIONS 11 /* versions = n: the n newest versions of each
                            ** row (versioned tables) */
#define WC_TERM_ASOF   12   /* asof = t: each row as it was at time t */

/* The constraint op widecol_table(rowkey, ?) becomes (xFindFunction). */
#define WC_CONSTRAINT_FIND SQLITE_INDEX_CONSTRAINT_FUNCTION

/* Constraints one plan can take; SQLite omits only the first 16. */
#define WC_MAX_TERM 16

typedef struct WcTerm WcTerm;
struct WcTerm {
  int iCol;             /* Column, or nCol for rowkey */
  int eOp;              /* WC_TERM_* */
};

/* An ORDER BY term a plan may have to sort by itself (WcPlan.aSort). */
#define WC_MAX_SORT 8
typedef struct WcSortTerm WcSortTerm;
struct WcSortTerm {
  int iCol;             /* Column, or nCol for rowkey */
  int bDesc;
};

/* What xBestIndex decided.  It reaches xFilter in idxStr (wc_plan.c). */
typedef struct WcPlan WcPlan;
struct WcPlan {
  int nTerm;
  WcTerm aTerm[WC_MAX_TERM];   /* In xFilter argv order */
  int nSkip;            /* Leading elements whose values are found in the
                        ** data (skip scan), one prefix at a time */
  int bAllPrefixes;     /* The skipped elements are SALTs and BUCKETs of
                        ** a table dense enough that nearly every value
                        ** exists: visit each, computed, without probing */
  int bMerge;           /* Merge the prefixes' scans into key order */
  int nEqElem;          /* Elements after those fixed by EQ/IN terms */
  int iRangeElem;       /* Element narrowed by range terms, or -1 */
  int bDesc;            /* Scan keys in descending order */
  int64_t nEnumMax;     /* The skipped elements are SALTs and BUCKETs of
                        ** the INTEGER field after them: if its range
                        ** holds at most this many values, each value's
                        ** prefix is computed instead of probed for (0:
                        ** never) */
  int iPath;            /* What is scanned: 0 the row table, i > 0 the
                        ** table of index i - 1 */
  int bEmpty;           /* No row can match (a key field IS NULL) */
  int bFind;            /* A lookup of the table itself (wcTableLookup):
                        ** argv[0] is where to store it; no rows */
  int nSort;            /* The ORDER BY was consumed on the assumption that
                        ** an '=' on a TEXT field, whose value a
                        ** parameter or another table gives, narrows the
                        ** scan.  A number cannot (a numeric operand makes
                        ** '05' equal 5): then xFilter reads the wider
                        ** range and sorts its rows by aSort itself. */
  WcSortTerm aSort[WC_MAX_SORT];
  uint64_t colUsed;     /* Columns the statement reads (sqlite3_index_info's
                        ** colUsed: bit 63 stands for every column >= 63);
                        ** the key scanned is always read */
  int nUnserved;        /* Columns the statement ranges over that no key
                        ** could read as key ranges (wcHistoryQuery), for
                        ** widecol_lint()'s figures */
  int aiUnserved[WC_HISTORY_MAX_COLS];
};

/* A merge keeps a live statement for up to this many prefixes; beyond
** that each prefix holds its next row and fetches the one after with a
** seek (wc_scan.c), which the planner weighs against letting SQLite sort. */
#define WC_MERGE_LIVE 64

/* A byte range [lo, hi) of row keys; bHi is 0 for no upper bound. */
typedef struct WcRange WcRange;
struct WcRange {
  WcBuf lo;
  WcBuf hi;
  int bHi;
};

/* Ranges whose buffers are reused from one prefix to the next: every
** slot up to nAlloc owns its buffers, those past n are spare. */
typedef struct WcRangeList WcRangeList;
struct WcRangeList {
  WcRange *a;
  int n;
  int nAlloc;
};

/* What wcRangesBuild() makes, and the scratch it makes it in.  A cursor
** keeps one from one xFilter call to the next (a join's inner loop calls
** xFilter per outer row; a closed cursor is kept for the next execution),
** so that a warm lookup allocates nothing. */
typedef struct WcRanges WcRanges;
struct WcRanges {
  WcRangeList rel;      /* The plan's ranges after the skipped prefix */
  WcRange win;          /* What the rowkey constraints allow */
  WcRangeList prefixes; /* Scratch: the fixed elements' prefixes, in lo */
  WcBuf key;            /* Scratch: a key being encoded, */
  WcBuf after;          /* and the key after it */
  WcBuf cols;           /* Scratch: the builder's per-column arrays */
};

/* Statements.  Parameters: ?1 is the row key, ?(i + 2) column i, and
** ?(nCol + 2) an index key.  Those on a family or an index, and scans,
** are made for one of them (iObj). */
#define WC_STMT_INSERT      0   /* <name>_rows */
#define WC_STMT_REPLACE     1
#define WC_STMT_DELETE      2
#define WC_STMT_UPDATE      3
#define WC_STMT_SCAN        4   /* path iObj: + 1 with an upper bound,
                                ** + 2 descending */
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
                                ** set of ranges ?1 (wc_rpc.h) */
#define WC_STMT_UPDATE_NOW   19 /* Bigtable: UPDATE OR FAIL, answered at
                                ** once (SQLITE_BUSY_SNAPSHOT: the row
                                ** changed since it was read) */

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
  const char *zModule;  /* The virtual-table module its tables use (another
                        ** library's), or NULL: SQLite's own tables */
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
  int nMaxKey;          /* The longest row key it keeps, or 0 */
  int64_t iTimeStep;    /* Its timestamps' granularity, microseconds */
  /* What reading costs there, for the planner: */
  double rCallRows;     /* A call, in rows of a full scan (0: no calls) */
  int bRangeSets;       /* An ascending scan's ranges are read together,
                        ** WC_SET_MAX to a call (WC_STMT_SCAN_SET) */
  int nPrefixProbes;    /* Distinct prefixes of a field counted, by probing,
                        ** for skip scans; past it, too many to skip */
  int64_t nCountMax;    /* Rows counted for planning (0: all); a table with
                        ** more is taken to hold WC_UNCOUNTED_ROWS */
};
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

/* What scans of a table have done since it was connected, for
** widecol_stats(): how close rows read stay to rows returned. */
typedef struct WcStats WcStats;
struct WcStats {
  int64_t nSeek;        /* Positionings of a scan: range starts, probes */
  int64_t nRowRead;     /* Rows read from <name>_rows */
  int64_t nRowOut;      /* Rows returned to SQLite */
  int64_t nPrefix;      /* Salt, bucket or field prefixes found by probing */
};

/* A table a scan can read keys from: the row table or an index's. */
typedef struct WcPath WcPath;
struct WcPath {
  const WcSchema *pKey; /* Its key's elements */
  const WcIndex *pIndex;   /* NULL for the row table */
  int64_t *aPrefixCount;   /* Distinct prefixes of the first k elements,
                           ** counted by probing, -1 until counted */
};

typedef struct WcKeySet WcKeySet;

struct WcVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  char *zDb;            /* Database holding the table: "main", ... */
  char *zName;          /* Table name */
  WcSchema *pSchema;
  /* On a store whose rows carry stamps: the hidden column _stamp, the
  ** stamps of the row as a scan read it.  SQLite hands an UPDATE every
  ** column of the row it read, so the write acts on that row only (see
  ** wc_write.c); -1 where there is none. */
  int iStampCol;
  RkHasher *pHasher;    /* For SALT and BUCKET */
  int64_t nRowEst;      /* Rows, for costs; -1 until counted */
  WcStmtPool *pPool;    /* List of pools */
  WcPath *aPath;        /* The row table, then each index */
  int nPath;
  WcStats stats;
  WcHistory *pHistory;
  WcClock *pClock;      /* The connection's clock (widecol_clock) */
  WcBuf key;            /* xUpdate's scratch: the new row's key, */
  WcValue *aVal;        /* its stored values, */
  sqlite3_value **apCopy;  /* and the converted copies behind them; */
  WcBuf *aIdxKey;       /* its index keys, */
  WcBuf *aOldIdxKey;    /* and those of the row it replaces, */
  WcValue *aOldVal;     /* whose values are these, */
  sqlite3_value **apOld;   /* copied from the row table */
  WcKeySet *pDisplaced; /* Keys this UPDATE took from rows still to come */
  int64_t iTime;        /* Versioned tables: the new version's rowtime, */
  int64_t iOldTime;     /* and that of the row it replaces (readOld) */
  /* Stores whose rows carry stamps (WcStoreCaps.bStamps): */
  unsigned char aWrite[WC_STAMP];   /* this write's stamp, */
  WcBuf newStamps;      /* the row's stamps once written, */
  WcBuf oldStamps;      /* those readOld() read (n 0: none read, or a row
                        ** without them) */
  int nMoved;           /* Rows moved by the UPDATE running (since its scan
                        ** began), for the message if one cannot move */
  int64_t nRandomMade;  /* RANDOM: when this write chose the number, the
                        ** bytes of p->key before it; else -1 */
  const unsigned char *aScanKey;    /* An UPDATE's row: its key, and the */
  int nScanKey;
  sqlite3_value *pScanStamps;       /* stamps its scan read (_stamp), or
                                    ** NULL (during xUpdate only) */
  struct WcCursor *pSpare;  /* A closed cursor kept for the next xOpen */
};

/* Sets the table's error message (formatted, as sqlite3_mprintf) and
** returns rc, or SQLITE_NOMEM if the message could not be made. */
int wcVtabError(WcVtab *p, int rc, const char *zFormat, ...);

/* wc_store.c */
const WcStoreCaps *wcStoreCaps(const WcVtab *p);
/* Reports what SQLite said of a statement on a table behind p that failed
** with rc: the store's own words where they name the widecol table, else
** prefixed with its name. */
int wcStoreError(WcVtab *p, int rc);
int wcStoreCreate(WcVtab *p);
int wcStoreCheck(WcVtab *p);
int wcStoreDrop(WcVtab *p);
int wcStoreRename(WcVtab *p, const char *zNew);
int wcStoreAcquire(WcVtab *p, int eStmt, int iObj, uint64_t colUsed,
                   sqlite3_stmt **ppStmt);
void wcStoreRelease(WcVtab *p, int eStmt, int iObj, uint64_t colUsed,
                    sqlite3_stmt *pStmt);
/* Where each column is in a scan of path iPath selecting colUsed: its
** index or -1; aiStmtCol[nCol] is the key scanned (rowkey, or an index
** key), aiStmtCol[nCol + 1] the row key, aiStmtCol[nCol + 2] rowtime
** (-1 unless the table is versioned and colUsed has WC_COL_ROWTIME's
** bit) and aiStmtCol[nCol + 3] the stamps (-1 unless colUsed has
** iStampCol's).  Returns the number selected. */
int wcStoreScanColumns(const WcVtab *p, int iPath, uint64_t colUsed,
                       int *aiStmtCol);
/* True if an index table holds every column in colUsed. */
int wcStoreCovers(const WcVtab *p, int iPath, uint64_t colUsed);
void wcStoreClose(WcVtab *p);
/* The table's rows, for planning, in *pnRow (see WcStoreCaps.nCountMax);
** SQLITE_OK, or the error of the read (message set). */
int wcStoreRowCount(WcVtab *p, int64_t *pnRow);
/* The distinct prefixes of the first nElem elements, counted up to
** nMax + 1, in *pnFound; SQLITE_OK or the error of the read. */
int wcStorePrefixCount(WcVtab *p, int iPath, int nElem, int64_t nMax,
                       int64_t *pnFound);

/* wc_plan.c: xBestIndex, and the plan it hands xFilter in idxStr.
** wcPlanDecode() reads that plan back; SQLITE_OK, or SQLITE_INTERNAL with
** the table's error message set. */
int wcBestIndex(WcVtab *p, sqlite3_index_info *pInfo);
int wcPlanDecode(WcVtab *p, const char *idxStr, WcPlan *pPlan);

/* wc_range.c.  wcRangesBuild() makes in pOut->rel the ranges of a plan
** for xFilter's argv, sorted and merged in scan order, relative to the
** prefix of the skipped elements (empty when nothing is skipped), and in
** pOut->win the window the rowkey constraints allow; *pbWidened is set if an '=' value could not
** narrow its field (a number against a TEXT field), so the ranges hold
** more than the plan assumed.  wcRangesCompose() puts a prefix in front of
** them and clips them to the window.  Both return SQLITE_OK or an error
** code. */
int wcRangesBuild(WcVtab *p, const WcPlan *pPlan, sqlite3_value **argv,
                  WcRanges *pOut, int *pbWidened);
int wcRangesCompose(const WcRangeList *pRel, const WcRange *pWindow,
                    const unsigned char *aBase, int64_t nBase,
                    WcRangeList *pOut);
/* Enumeration, for plans with nEnumMax: wcRangesEnumBounds() gives the
** integers [*piLo, *piHi] the range terms allow on the field after the
** skipped elements (lo > hi when none); wcRangesEnumCompose() the ranges
** of one of them, under the prefix it makes, in pOut. */
int wcRangesEnumBounds(WcVtab *p, const WcPlan *pPlan, sqlite3_value **argv,
                       int64_t *piLo, int64_t *piHi);
int wcRangesEnumCompose(WcVtab *p, const WcPlan *pPlan, int64_t iValue,
                        const WcRangeList *pRel, const WcRange *pWindow,
                        WcRangeList *pOut);
/* Appends copies of pIn's ranges to pOut. */
int wcRangeListAppend(WcRangeList *pOut, const WcRangeList *pIn);
void wcRangeListFree(WcRangeList *pList);
/* Empties the list, keeping its slots' buffers. */
void wcRangeListClear(WcRangeList *pList);
void wcRangeFree(WcRange *pRange);
void wcRangesFree(WcRanges *pRanges);

/* wc_scan.c: the cursor methods */
int wcScanOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int wcScanClose(sqlite3_vtab_cursor *pCur);
int wcScanFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                 int argc, sqlite3_value **argv);
int wcScanNext(sqlite3_vtab_cursor *pCur);
int wcScanEof(sqlite3_vtab_cursor *pCur);
int wcScanColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int i);
int wcScanRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid);
/* Frees the closed cursor the table keeps for its next xOpen. */
void wcScanFreeSpare(WcVtab *p);

/* wc_write.c */
int wcWriteInit(WcVtab *p);
void wcWriteFree(WcVtab *p);
int wcWriteUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                  sqlite3_int64 *pRowid);
/* A scan of the table starts: the statement that writes next, if any, is
** a new one (see WcKeySet in wc_write.c). */
void wcWriteScanStarted(WcVtab *p);

/* wc_vtab.c: the module, and widecol_stats('<table>' [, reset]). */
extern const sqlite3_module wcModule;
void wcStatsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_VTAB_H */
