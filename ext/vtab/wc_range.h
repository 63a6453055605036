/*
** wc_range.h: the byte ranges of row (or index) keys a plan reads, built
** from xFilter's values (wc_range.c) for the planner's estimates and the
** scanner's cursors.
*/
#ifndef WIDECOL_WC_RANGE_H
#define WIDECOL_WC_RANGE_H

#include "vtab/wc_plan.h"

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

/* wcRangesBuild() makes in pOut->rel the ranges of a plan for xFilter's
** argv, sorted and merged in scan order, relative to the prefix of the
** skipped elements (empty when nothing is skipped), and in pOut->win the
** window the rowkey constraints allow; *pbWidened is set if an '=' value
** could not narrow its field (a number against a TEXT field), so the
** ranges hold more than the plan assumed.  wcRangesCompose() puts a
** prefix in front of them and clips them to the window.  Both return
** SQLITE_OK or an error code. */
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

#endif /* WIDECOL_WC_RANGE_H */
