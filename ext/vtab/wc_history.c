/*
** wc_history.c: what statements on this connection did with a widecol
** table, kept for widecol_lint() (see wc_history.h).
**
** Per column: whether a statement ranged over it, and the scans that did
** so without a key range for it, with the rows they read and returned, so
** that a finding states what happened rather than what might.  Per table:
** the writes that found their key taken.
*/
#include "vtab/wc_history.h"
#include "key/wc_codec.h"
#include "key/wc_cql.h"

#include <string.h>

typedef struct ColumnUse ColumnUse;
struct ColumnUse {
  int bRanged;          /* A statement constrained it by range */
  int bUnordered;       /* A key reached it (every field before it fixed
                        ** with '=') but its bytes are not in value order */
  int bMisplaced;       /* No key reached it: it is in none, or follows a
                        ** field the statement did not fix */
  int64_t nScan;        /* Scans of such a range without a key range */
  int64_t nRead;        /* Rows they read */
  int64_t nOut;         /* Rows they returned */
};

/* Distinct ways statements broke Cassandra's query rules, kept. */
#define WC_HISTORY_MAX_CQL 8

struct WcHistory {
  ColumnUse *aCol;      /* One per column of the table */
  int64_t nReplaced;    /* INSERT OR REPLACE (or UPDATE) that replaced a
                        ** row with the same key */
  int64_t nRefused;     /* Writes refused or ignored for a taken key */
  int nCql;             /* Cassandra's refusals: azCql[i], anCql[i] times */
  char *azCql[WC_HISTORY_MAX_CQL];
  int64_t anCql[WC_HISTORY_MAX_CQL];
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
  int i;
  for(i = 0; p && i < p->nCql; i++) sqlite3_free(p->azCql[i]);
  sqlite3_free(p);
}

/*
** Cassandra's query rules, for a table in its form (a leading TOKEN of
** the partition key, then the partition columns, then the clustering
** columns): what it refuses without ALLOW FILTERING, in its own words.
*/
#define CQL_EQ    1     /* = or IN (SQLite hands an IN over as =) */
#define CQL_RANGE 2     /* <, <=, >, >= */
#define CQL_OTHER 4     /* LIKE, GLOB, <>, IS NOT, ... */

static int cqlOp(int op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_EQ:
    case SQLITE_INDEX_CONSTRAINT_IS:
      return CQL_EQ;
    case SQLITE_INDEX_CONSTRAINT_GT:
    case SQLITE_INDEX_CONSTRAINT_GE:
    case SQLITE_INDEX_CONSTRAINT_LT:
    case SQLITE_INDEX_CONSTRAINT_LE:
      return CQL_RANGE;
    case SQLITE_INDEX_CONSTRAINT_LIMIT:
    case SQLITE_INDEX_CONSTRAINT_OFFSET:
      return 0;
  }
  return CQL_OTHER;
}

/* The rule a statement with restrictions aUse[] (CQL_* per column), with
** an ORDER BY where bOrderBy, breaks on the CQL table of design pS
** (iIndex -1) or of its INDEX iIndex (key/wc_cql.h), or 0;
** from sqlite3_mprintf().  The rules are checked in the order Cassandra
** 5.0 checks them, so that the message quoted is the one it gives
** (tests/stores/cassandra/rules.py finds both by asking it). */
static char *cqlRefusal(const WcSchema *pS, int iIndex,
                        const unsigned char *aUse, int bOrderBy){
  static const char zFilter[] = "Cannot execute this query as it might "
      "involve data filtering and thus may have unpredictable performance. "
      "If you want to execute this query despite the performance "
      "unpredictability, use ALLOW FILTERING";
  WcCqlKey key;
  const char *zPrev = 0, *zMissing = 0, *zRanged = 0;
  char *zRule = 0;
  int i, nFixed = 0, nPartUsed = 0, bAny = 0;
  for(i = 0; i < pS->nCol; i++) bAny |= aUse[i] != 0;
  if( !bAny && !bOrderBy ) return 0;     /* a whole-table read: allowed */
  if( wcCqlKey(pS, iIndex, WC_CQL_ROW_FIELDS, &key) != SQLITE_OK ) return 0;
  /* RANDOM's number, last, is no column a statement restricts. */
  while( key.nCol > key.nPart && key.aiCol[key.nCol - 1] < 0 ) key.nCol--;
  for(i = 0; i < key.nCol; i++) wcAssert( key.aiCol[i] >= 0 );
  for(i = 0; i < key.nPart; i++){
    int iCol = key.aiCol[i];
    nPartUsed += aUse[iCol] != 0;
    if( aUse[iCol] == CQL_EQ ){
      nFixed++;
    }else if( aUse[iCol] == 0 ){
      if( zMissing == 0 ) zMissing = pS->aCol[iCol].zName;
    }else if( zRanged == 0 ){
      zRanged = pS->aCol[iCol].zName;
    }
  }
  /* A clustering column restricted after a range on one before it
  ** (Cassandra names the pair in the WHERE clause's order; this, the
  ** first in key order). */
  for(i = key.nPart; i < key.nCol && zRule == 0; i++){
    const char *zCol = pS->aCol[key.aiCol[i]].zName;
    if( aUse[key.aiCol[i]] && zPrev ){
      zRule = sqlite3_mprintf("restricts %s after a range on %s: "
          "\"Clustering column \"%s\" cannot be restricted (preceding "
          "column \"%s\" is restricted by a non-EQ relation)\"", zCol,
          zPrev, zCol, zPrev);
    }
    if( aUse[key.aiCol[i]] & CQL_RANGE ) zPrev = zCol;
  }
  /* The partition key ranged over, or fixed in part. */
  if( zRule == 0 && nPartUsed > 0 && zMissing ){
    zRule = sqlite3_mprintf("fixes part of the partition key, not %s: "
                            "\"%s\"", zMissing, zFilter);
  }else if( zRule == 0 && zRanged ){
    zRule = sqlite3_mprintf("restricts the partition key column %s other "
                            "than by = or IN: \"%s\"", zRanged, zFilter);
  }
  /* A clustering column restricted while one before it is not: Cassandra
  ** names the first that is not. */
  for(i = key.nPart, zPrev = 0; i < key.nCol && zRule == 0; i++){
    const char *zCol = pS->aCol[key.aiCol[i]].zName;
    if( aUse[key.aiCol[i]] && zPrev ){
      zRule = sqlite3_mprintf("restricts %s but not %s before it: \"PRIMARY "
          "KEY column \"%s\" cannot be restricted as preceding column "
          "\"%s\" is not restricted\"", zCol, zPrev, zCol, zPrev);
    }
    if( !aUse[key.aiCol[i]] && zPrev == 0 ) zPrev = zCol;
  }
  for(i = key.nPart; i < key.nCol && zRule == 0; i++){
    if( aUse[key.aiCol[i]] & CQL_OTHER ){
      zRule = sqlite3_mprintf("restricts the clustering column %s other "
          "than by =, IN or a range: \"%s\"", pS->aCol[key.aiCol[i]].zName,
          zFilter);
    }
  }
  for(i = 0; i < pS->nCol && zRule == 0; i++){
    int j;
    for(j = 0; j < key.nCol && key.aiCol[j] != i; j++){}
    if( aUse[i] && j == key.nCol ){
      zRule = sqlite3_mprintf("restricts %s, which is not in the primary "
                              "key: \"%s\"", pS->aCol[i].zName, zFilter);
    }
  }
  if( zRule == 0 && bOrderBy && nFixed < key.nPart ){
    zRule = sqlite3_mprintf("orders rows without fixing the partition key "
        "with = or IN: \"ORDER BY is only supported when the partition key "
        "is restricted by an EQ or an IN.\"");
  }
  if( zRule == 0 && nFixed < key.nPart ){
    zRule = sqlite3_mprintf("does not fix the partition key with = or IN: "
                            "\"%s\"", zFilter);
  }
  wcCqlKeyFree(&key);
  return zRule;
}

/* Keeps the rule a statement on a table in Cassandra's form broke, unless
** the CQL table of one of its INDEXes (eBay's User_By_Item beside
** Item_By_User) takes the statement. */
static void cqlRecord(WcHistory *p, const WcSchema *pS,
                      const sqlite3_index_info *pInfo){
  unsigned char *aUse;
  char *zRule;
  int i;
  if( pS->nElem == 0 || !pS->aElem[0].bToken ) return;
  aUse = sqlite3_malloc64((sqlite3_uint64)pS->nCol + 1);
  if( aUse == 0 ) return;
  memset(aUse, 0, (size_t)pS->nCol + 1);
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->iColumn >= 0 && pC->iColumn < pS->nCol ){
      aUse[pC->iColumn] |= (unsigned char)cqlOp(pC->op);
    }
  }
  zRule = cqlRefusal(pS, -1, aUse, pInfo->nOrderBy > 0);
  for(i = 0; zRule && i < pS->nIndex; i++){
    char *zIndex = cqlRefusal(pS, i, aUse, pInfo->nOrderBy > 0);
    if( zIndex == 0 ){
      sqlite3_free(zRule);
      zRule = 0;
    }
    sqlite3_free(zIndex);
  }
  sqlite3_free(aUse);
  if( zRule == 0 ) return;
  for(i = 0; i < p->nCql && strcmp(p->azCql[i], zRule) != 0; i++){}
  if( i < p->nCql ){
    p->anCql[i]++;
    sqlite3_free(zRule);
  }else if( p->nCql < WC_HISTORY_MAX_CQL ){
    p->azCql[p->nCql] = zRule;
    p->anCql[p->nCql++] = 1;
  }else{
    sqlite3_free(zRule);
  }
}

/* True if key pKey can read a range on column iCol as key ranges in a
** statement that fixes the columns abEq[] with '=': iCol is an ordered
** element, and those before it are salts or buckets (a skip scan visits
** each) or fixed. */
/* 1 if key pKey reads a range over iCol as key ranges, with the columns
** abEq flags fixed by '='; -1 if it reaches iCol but its bytes are
** unordered there (an unpadded integer); 0 if it does not reach it. */
static int rangeServable(const WcSchema *pKey, int iCol,
                         const unsigned char *abEq){
  int i;
  for(i = 0; i < pKey->nElem; i++){
    const WcElement *pE = &pKey->aElem[i];
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    if( pE->iCol == iCol ) return pE->eOrder != WC_ORDER_NONE ? 1 : -1;
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
  cqlRecord(p, pS, pInfo);
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
    int iCol = pC->iColumn, bServed, bReached;
    if( iCol < 0 || iCol >= pS->nCol || !isRangeOp(pC->op) ) continue;
    p->aCol[iCol].bRanged = 1;
    if( !pC->usable ) continue;
    bServed = rangeServable(pS, iCol, abEq);
    bReached = bServed < 0;
    for(j = 0; j < pS->nIndex && bServed <= 0; j++){
      bServed = rangeServable(pS->aIndex[j].pKey, iCol, abEq);
      bReached |= bServed < 0;
    }
    if( bServed > 0 ) continue;
    if( bReached ) p->aCol[iCol].bUnordered = 1;
    else p->aCol[iCol].bMisplaced = 1;
    for(j = 0; j < n && aiOut[j] != iCol; j++){}
    if( j == n && n < WC_HISTORY_MAX_COLS ) aiOut[n++] = iCol;
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

int wcHistoryUnservedWhy(const WcHistory *p, int iCol){
  return (p->aCol[iCol].bUnordered ? WC_UNSERVED_UNORDERED : 0)
       | (p->aCol[iCol].bMisplaced ? WC_UNSERVED_MISPLACED : 0);
}

int64_t wcHistoryReplaced(const WcHistory *p){
  return p->nReplaced;
}

int64_t wcHistoryRefused(const WcHistory *p){
  return p->nRefused;
}

int wcHistoryCqlCount(const WcHistory *p){
  return p->nCql;
}

const char *wcHistoryCql(const WcHistory *p, int i, int64_t *pnSeen){
  *pnSeen = p->anCql[i];
  return p->azCql[i];
}
