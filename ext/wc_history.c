/*
** wc_history.c: what statements on this connection did with a widecol
** table, kept for widecol_lint() (see wc_history.h).
**
** Per column: whether a statement ranged over it, and the scans that did
** so without a key range for it, with the rows they read and returned, so
** that a finding states what happened rather than what might.  Per table:
** the writes that found their key taken.
*/
#include "wc_history.h"

#include <string.h>

typedef struct ColumnUse ColumnUse;
struct ColumnUse {
  int bRanged;          /* A statement constrained it by range */
  int64_t nScan;        /* Scans of such a range without a key range */
  int64_t nRead;        /* Rows they read */
  int64_t nOut;         /* Rows they returned */
};

struct WcHistory {
  ColumnUse *aCol;      /* One per column of the table */
  int64_t nReplaced;    /* INSERT OR REPLACE (or UPDATE) that replaced a
                        ** row with the same key */
  int64_t nRefused;     /* Writes refused or ignored for a taken key */
};

WcHistory *wcHistoryNew(int nCol){
  WcHistory *p = sqlite3_malloc64(sizeof(WcHistory)
                                  + sizeof(ColumnUse) * (sqlite3_uint64)nCol);
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(WcHistory) + sizeof(ColumnUse) * (size_t)nCol);
  p->aCol = (ColumnUse*)&p[1];
  return p;
}

void wcHistoryFree(WcHistory *p){
  sqlite3_free(p);
}

/* True if key pKey can read a range on column iCol as key ranges in a
** statement that fixes the columns abEq[] with '=': iCol is an ordered
** element, and those before it are salts or buckets (a skip scan visits
** each) or fixed. */
static int rangeServable(const WcSchema *pKey, int iCol,
                         const unsigned char *abEq){
  int i;
  for(i = 0; i < pKey->nElem; i++){
    const WcElement *pE = &pKey->aElem[i];
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    if( pE->iCol == iCol ) return pE->eOrder != WC_ORDER_NONE;
    if( !abEq[pE->iCol] ) return 0;
  }
  return 0;
}

static int isRangeOp(int op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_GT:
    case SQLITE_INDEX_CONSTRAINT_GE:
    case SQLITE_INDEX_CONSTRAINT_LT:
    case SQLITE_INDEX_CONSTRAINT_LE:
    case SQLITE_INDEX_CONSTRAINT_LIKE:
    case SQLITE_INDEX_CONSTRAINT_GLOB:
      return 1;
  }
  return 0;
}

int wcHistoryQuery(WcHistory *p, const WcSchema *pS,
                   const sqlite3_index_info *pInfo, int *aiOut){
  unsigned char *abEq;
  int i, j, n = 0;
  if( p == 0 ) return 0;
  abEq = sqlite3_malloc64((sqlite3_uint64)pS->nCol + 1);
  if( abEq == 0 ) return 0;
  memset(abEq, 0, (size_t)pS->nCol + 1);
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->usable && pC->iColumn >= 0 && pC->iColumn < pS->nCol
     && (pC->op == SQLITE_INDEX_CONSTRAINT_EQ
         || pC->op == SQLITE_INDEX_CONSTRAINT_IS) ){
      abEq[pC->iColumn] = 1;
    }
  }
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int iCol = pC->iColumn, bServed;
    if( iCol < 0 || iCol >= pS->nCol || !isRangeOp(pC->op) ) continue;
    p->aCol[iCol].bRanged = 1;
    if( !pC->usable ) continue;
    bServed = rangeServable(pS, iCol, abEq);
    for(j = 0; j < pS->nIndex && !bServed; j++){
      bServed = rangeServable(pS->aIndex[j].pKey, iCol, abEq);
    }
    for(j = 0; j < n && aiOut[j] != iCol; j++){}
    if( !bServed && j == n && n < WC_HISTORY_MAX_COLS ) aiOut[n++] = iCol;
  }
  sqlite3_free(abEq);
  return n;
}

void wcHistoryScan(WcHistory *p, const int *aiCol, int nCol, int64_t nRead,
                   int64_t nOut){
  int i;
  for(i = 0; p && i < nCol; i++){
    ColumnUse *pUse = &p->aCol[aiCol[i]];
    pUse->nScan++;
    pUse->nRead += nRead;
    pUse->nOut += nOut;
  }
}

void wcHistoryKeyTaken(WcHistory *p, int bReplaced){
  if( p == 0 ) return;
  if( bReplaced ) p->nReplaced++; else p->nRefused++;
}

int wcHistoryRanged(const WcHistory *p, int iCol){
  return p->aCol[iCol].bRanged;
}

int64_t wcHistoryUnserved(const WcHistory *p, int iCol, int64_t *pnRead,
                          int64_t *pnOut){
  *pnRead = p->aCol[iCol].nRead;
  *pnOut = p->aCol[iCol].nOut;
  return p->aCol[iCol].nScan;
}

int64_t wcHistoryReplaced(const WcHistory *p){
  return p->nReplaced;
}

int64_t wcHistoryRefused(const WcHistory *p){
  return p->nRefused;
}
