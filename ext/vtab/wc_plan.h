/*
** wc_plan.h: the plan xBestIndex makes (wc_plan.c) and xFilter reads back:
** how each constraint is used, what is skipped, merged or sorted, which
** columns are read.  Seen by the module (wc_vtab.c), the planner, the
** range builder (wc_range.c) and the scanner (wc_scan.c).
*/
#ifndef WIDECOL_WC_PLAN_H
#define WIDECOL_WC_PLAN_H

#include "vtab/wc_vtab.h"

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
#define WC_TERM_WINDOW 13   /* A LIMIT SQLite applies itself (no ORDER BY
                            ** handed over): the rows the scan reads
                            ** first, more read if SQLite takes more */

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
  int bInterrupted;     /* Made without the store's figures, its call for
                        ** them interrupted (WcVtab.bPlanInterrupted) */
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

/* xBestIndex, and the plan it hands xFilter in idxStr.
** wcPlanDecode() reads that plan back; SQLITE_OK, or SQLITE_INTERNAL with
** the table's error message set. */
int wcBestIndex(WcVtab *p, sqlite3_index_info *pInfo);
int wcPlanDecode(WcVtab *p, const char *idxStr, WcPlan *pPlan);

#endif /* WIDECOL_WC_PLAN_H */
