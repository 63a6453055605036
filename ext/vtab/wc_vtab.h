/*
** wc_vtab.h: the widecol virtual table's internals, shared by the files
** that implement the module:
**   wc_vtab.c   the sqlite3_module methods, lookups, widecol_stats()
**   wc_plan.c   xBestIndex: which constraints become byte ranges
**   wc_range.c  xFilter: the byte ranges themselves
**   wc_scan.c   cursors: walking the ranges, skip scans, merges
**   wc_write.c  writes (xUpdate): the row, its families and index entries
** The tables behind a widecol table are the store's (store/wc_store.h),
** part of the table as WcVtab.store.  The tools see only wc_table.h.
*/
#ifndef WIDECOL_WC_VTAB_H
#define WIDECOL_WC_VTAB_H

#include "util/wc_api.h"
#include "key/wc_schema.h"
#include "key/wc_codec.h"
#include "vtab/wc_table.h"
#include "vtab/wc_history.h"
#include "vtab/wc_clock.h"
#include "util/wc_stamp.h"
#include "util/wc_error.h"
#include "store/wc_store.h"

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
  WcSchema *pSchema;
  /* The store: its names (store.zDb, store.zName), its connection
  ** (store.db), its statements, and on a store whose rows carry stamps
  ** the hidden column _stamp (store.iStampCol), the stamps of the row as a
  ** scan read it.  SQLite hands an UPDATE every column of the row it read,
  ** so the write acts on that row only (see wc_write.c); -1 where there is
  ** none. */
  WcStore store;
  RkHasher *pHasher;    /* For SALT and BUCKET */
  int64_t nRowEst;      /* Rows, for costs; -1 until counted */
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
  unsigned nScanBegun;  /* Scans begun (xFilter); a write that sees a new
                        ** one is a new statement's (wc_write.c), */
  unsigned nScanSeen;   /* as of the last write */
  int64_t nRandomMade;  /* RANDOM: when this write chose the number, the
                        ** bytes of p->key before it; else -1 */
  const unsigned char *aScanKey;    /* An UPDATE's row: its key, and the */
  int nScanKey;
  sqlite3_value *pScanStamps;       /* stamps its scan read (_stamp), or
                                    ** NULL (during xUpdate only) */
  struct WcCursor *pSpare;  /* A closed cursor kept for the next xOpen */
};

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

/* wc_vtab.c: the module, and widecol_stats('<table>' [, reset]). */
extern const sqlite3_module wcModule;
void wcStatsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_VTAB_H */
