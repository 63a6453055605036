/*
** sc_plan.c: what a store's xBestIndex takes of a statement's
** constraints on its table, and how its xFilter finds their values
** (sc_contract.h): the store contract's scans (store/README.md) decoded
** once for every store.
*/
#include "util/wc_api.h"
#include "stores/contract/sc_contract.h"

#include <stdlib.h>
#include <string.h>

/* The key bounds in the order their values come in argv, by their bits:
** SC_EQ, SC_GE, SC_GT, SC_LT, SC_LE. */
#define SC_NBOUND 5

/* The bound of key constraint op, as an index into SC_NBOUND's order, or
** -1. */
static int boundOf(int op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_EQ: return 0;
    case SQLITE_INDEX_CONSTRAINT_GE: return 1;
    case SQLITE_INDEX_CONSTRAINT_GT: return 2;
    case SQLITE_INDEX_CONSTRAINT_LT: return 3;
    case SQLITE_INDEX_CONSTRAINT_LE: return 4;
    default:                         return -1;
  }
}

/* True if SQLite leaves no term of the WHERE and no ORDER BY to itself:
** then a LIMIT (without an OFFSET) is the rows the read gives at most. */
static int limitCaps(const sqlite3_index_info *pInfo){
  int i;
  if( pInfo->nOrderBy > 0 && !pInfo->orderByConsumed ) return 0;
  for(i = 0; i < pInfo->nConstraint; i++){
    int op = pInfo->aConstraint[i].op;
    if( op == SQLITE_INDEX_CONSTRAINT_OFFSET ) return 0;
    if( op != SQLITE_INDEX_CONSTRAINT_LIMIT
     && !pInfo->aConstraintUsage[i].omit ){
      return 0;
    }
  }
  return 1;
}

/* Takes constraint i as the next value of argv; omitted if bOmit. */
static void take(sqlite3_index_info *pInfo, int i, int *pnArg, int bOmit){
  wcAssert( i >= 0 && i < pInfo->nConstraint );
  pInfo->aConstraintUsage[i].argvIndex = ++*pnArg;
  pInfo->aConstraintUsage[i].omit = (unsigned char)bOmit;
}

/* The order rows come in, if it is the statement's: consumed, and
** SC_DESC added to *pIdxNum for descending keys. */
static void orderBy(sqlite3_index_info *pInfo, const ScPlanCaps *pCaps,
                    int *pIdxNum){
  const struct sqlite3_index_orderby *aOrder = pInfo->aOrderBy;
  if( pInfo->nOrderBy < 1 || aOrder[0].iColumn != 0 ) return;
  if( !aOrder[0].desc
   && (pInfo->nOrderBy == 1 || (pInfo->nOrderBy == 2
       && pCaps->iNewestFirst >= 0
       && aOrder[1].iColumn == pCaps->iNewestFirst && aOrder[1].desc)) ){
    pInfo->orderByConsumed = 1;
  }else if( pInfo->nOrderBy == 1 && aOrder[0].desc && pCaps->bDescending ){
    pInfo->orderByConsumed = 1;
    *pIdxNum |= SC_DESC;
  }
}

int scBestIndex(sqlite3_index_info *pInfo, const ScPlanCaps *pCaps){
  int aiBound[SC_NBOUND] = {-1, -1, -1, -1, -1};
  int iStamp = -1, iRowkey = -1, iLimit = -1, iSet = -1;
  int i, idxNum = 0, nArg = 0;
  double cost;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( !pC->usable ) continue;
    if( pC->op == SC_COUNTERS_OP ){
      take(pInfo, i, &nArg, 1);
      pInfo->idxNum = SC_COUNTERS;
      pInfo->estimatedCost = 1;
      pInfo->estimatedRows = 1;
      return SQLITE_OK;
    }
    if( pC->op == SQLITE_INDEX_CONSTRAINT_MATCH && pC->iColumn == 0
     && pCaps->bRangeSets && iSet < 0 ){
      iSet = i;
    }
  }
  if( iSet >= 0 ){
    /* A set of ranges comes alone. */
    take(pInfo, iSet, &nArg, 1);
    idxNum = SC_SET;
  }
  for(i = 0; i < pInfo->nConstraint && iSet < 0; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int k;
    if( !pC->usable ) continue;
    if( pC->op == SQLITE_INDEX_CONSTRAINT_EQ ){
      if( pC->iColumn == pCaps->iStampCol && iStamp < 0 ) iStamp = i;
      if( pC->iColumn == pCaps->iRowkeyCol && iRowkey < 0 ) iRowkey = i;
    }
    if( pC->op == SQLITE_INDEX_CONSTRAINT_LIMIT ) iLimit = i;
    if( pC->iColumn != 0 ) continue;
    k = boundOf(pC->op);
    if( k >= 0 && aiBound[k] < 0 ) aiBound[k] = i;
  }
  if( aiBound[0] >= 0 ){
    aiBound[1] = aiBound[2] = aiBound[3] = aiBound[4] = -1;
  }else{
    /* _stamp = ? names the state of one row: with key = ? only. */
    iStamp = iRowkey = -1;
  }
  if( aiBound[1] >= 0 ) aiBound[2] = -1;
  if( aiBound[3] >= 0 ) aiBound[4] = -1;
  for(i = 0; i < SC_NBOUND; i++){
    if( aiBound[i] < 0 ) continue;
    idxNum |= 1 << i;
    take(pInfo, aiBound[i], &nArg, 1);
  }
  if( iStamp >= 0 ){
    idxNum |= SC_STAMPEQ;
    take(pInfo, iStamp, &nArg, 1);
    if( iRowkey >= 0 ){
      idxNum |= SC_ROWKEYEQ;
      take(pInfo, iRowkey, &nArg, 1);
    }
  }
  if( idxNum & SC_EQ ){
    /* With _stamp = ?, no call at all. */
    cost = (idxNum & SC_STAMPEQ) ? 1 : 10;
    pInfo->estimatedRows = 1;
    if( pCaps->bOneRowPerKey ) pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    cost = (idxNum & (SC_GE|SC_GT)) && (idxNum & (SC_LT|SC_LE)) ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)cost;
  }else{
    cost = 1e6;
    pInfo->estimatedRows = 1000000;
  }
  pInfo->estimatedCost = cost;
  orderBy(pInfo, pCaps, &idxNum);
  /* A LIMIT never with key = ?, which reads one row anyway.  SQLite
  ** applies it still (it is not omitted). */
  if( iLimit >= 0 && (idxNum & SC_EQ) == 0
   && (!pCaps->bLimitCaps || limitCaps(pInfo)) ){
    idxNum |= SC_LIMIT;
    take(pInfo, iLimit, &nArg, 0);
  }
  pInfo->idxNum = idxNum;
  pInfo->idxStr = sqlite3_mprintf("%llx", (unsigned long long)pInfo->colUsed);
  if( pInfo->idxStr == 0 ) return SQLITE_NOMEM;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

void scFilterArgs(int idxNum, const char *idxStr, int argc,
                  sqlite3_value **argv, ScFilter *p){
  int iArg = 0;
  memset(p, 0, sizeof(*p));
  p->colUsed = idxStr ? strtoull(idxStr, 0, 16) : ~(uint64_t)0;
  p->bDesc = (idxNum & SC_DESC) != 0;
  if( idxNum & SC_COUNTERS ){
    wcAssert( idxNum == SC_COUNTERS && argc == 1 );
    p->pCounters = sqlite3_value_pointer(argv[0], WC_RPC_COUNTERS);
    return;
  }
  if( idxNum & SC_SET ){
    wcAssert( (idxNum & (SC_EQ|SC_GE|SC_GT|SC_LT|SC_LE|SC_STAMPEQ)) == 0 );
    p->pSet = argv[iArg++];
  }
  if( idxNum & SC_EQ ) p->pEq = argv[iArg++];
  if( idxNum & (SC_GE|SC_GT) ){
    wcAssert( (idxNum & (SC_GE|SC_GT)) != (SC_GE|SC_GT) );
    p->bLoOpen = (idxNum & SC_GT) != 0;
    p->pLo = argv[iArg++];
  }
  if( idxNum & (SC_LT|SC_LE) ){
    wcAssert( (idxNum & (SC_LT|SC_LE)) != (SC_LT|SC_LE) );
    p->bHiOpen = (idxNum & SC_LT) != 0;
    p->pHi = argv[iArg++];
  }
  if( idxNum & SC_STAMPEQ ){
    wcAssert( idxNum & SC_EQ );
    p->pStamp = argv[iArg++];
  }
  if( idxNum & SC_ROWKEYEQ ){
    wcAssert( idxNum & SC_STAMPEQ );
    p->pRowkey = argv[iArg++];
  }
  if( idxNum & SC_LIMIT ) p->pLimit = argv[iArg++];
  /* Every value scBestIndex() took, in the order it took them. */
  wcAssert( iArg == argc );
  (void)argc;
}

int scColumnUsed(uint64_t colUsed, int iCol){
  /* Column 0 is the key; bit 63 stands for every column from 63 on. */
  int iBit = iCol + 1;
  return ((colUsed >> (iBit < 63 ? iBit : 63)) & 1) != 0;
}
