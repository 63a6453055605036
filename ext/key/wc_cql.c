/*
** wc_cql.c: the CQL table a design means (wc_cql.h).
*/
#include "util/wc_api.h"
#include "key/wc_cql.h"

#include <string.h>

/* Adds column iCol to pK's key, descending if bDesc, unless there. */
static void keyAdd(WcCqlKey *pK, int iCol, int bDesc){
  int i;
  for(i = 0; i < pK->nCol && pK->aiCol[i] != iCol; i++){}
  if( i < pK->nCol ) return;
  pK->abDesc[pK->nCol] = (unsigned char)bDesc;
  pK->aiCol[pK->nCol++] = iCol;
}

/* True if element pE sorts descending (DESC, with or without a max). */
static int elementDesc(const WcElement *pE){
  int k;
  for(k = 0; k < pE->nXform; k++){
    if( pE->aXform[k].eOp == WC_XFORM_DESC ) return 1;
  }
  return 0;
}

/* Adds key pKey's fields, in key order. */
static void keyFields(WcCqlKey *pK, const WcSchema *pKey){
  int i;
  for(i = 0; i < pKey->nElem; i++){
    const WcElement *pE = &pKey->aElem[i];
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    keyAdd(pK, pE->iCol, elementDesc(pE));
    if( pK->nPart == 0 ) pK->nPart = 1;
  }
}

int wcCqlKey(const WcSchema *pS, int iIndex, int eRow, WcCqlKey *pOut){
  const WcSchema *pKey = iIndex >= 0 ? pS->aIndex[iIndex].pKey : pS;
  const WcElement *pTok = &pKey->aElem[0];
  size_t nMax = (size_t)pS->nCol + 2;
  int i;
  wcAssert( iIndex < pS->nIndex );
  memset(pOut, 0, sizeof(*pOut));
  pOut->aiCol = sqlite3_malloc64(sizeof(int) * nMax);
  pOut->abDesc = sqlite3_malloc64(nMax);
  if( pOut->aiCol == 0 || pOut->abDesc == 0 ){
    wcCqlKeyFree(pOut);
    return SQLITE_NOMEM;
  }
  if( pKey->nElem > 0 && pTok->bToken ){
    for(i = 0; i < pTok->nSaltCol; i++) keyAdd(pOut, pTok->aiSaltCol[i], 0);
    pOut->nPart = pOut->nCol;
  }
  keyFields(pOut, pKey);
  if( iIndex >= 0 && eRow == WC_CQL_ROW_BYTES ){
    keyAdd(pOut, WC_CQL_ROWKEY, 0);
  }else if( iIndex >= 0 ){
    keyFields(pOut, pS);
  }else if( pS->nRandom ){
    keyAdd(pOut, WC_CQL_RANDOM, 0);
  }
  wcAssert( pOut->nPart <= pOut->nCol && (size_t)pOut->nCol <= nMax );
  return SQLITE_OK;
}

void wcCqlKeyFree(WcCqlKey *p){
  sqlite3_free(p->aiCol);
  sqlite3_free(p->abDesc);
  memset(p, 0, sizeof(*p));
}

const char *wcCqlType(char cAff){
  switch( cAff ){
    case WC_AFF_INTEGER: return "bigint";
    case WC_AFF_REAL:    return "double";
    case WC_AFF_TEXT:    return "text";
    case WC_AFF_NUMERIC: return "decimal";
    default:             return "blob";
  }
}

/* True if the Cassandra store's table iIndex of pS keeps each row's write
** time: a versioned row table, an index table under a TTL (as the store
** layer passes ROWTIME, store/wc_store.c). */
static int cqlRowtime(const WcSchema *pS, int iIndex){
  return iIndex >= 0 ? pS->nTtl > 0 : pS->bVersioned;
}

static void appendKeyName(sqlite3_str *pStr, const WcSchema *pS, int iCol){
  sqlite3_str_appendf(pStr, "\"%w\"", iCol == WC_CQL_ROWKEY
                      ? WC_CQL_ROWKEY_NAME : pS->aCol[iCol].zName);
}

int wcCqlCreate(sqlite3_str *pStr, const WcSchema *pS, int iIndex,
                const char *zName, const char *zComment){
  WcCqlKey key;
  int i, nClust;
  if( wcCqlKey(pS, iIndex, WC_CQL_ROW_BYTES, &key) != SQLITE_OK ){
    return SQLITE_NOMEM;
  }
  /* A column a line, as a user reads it; the server takes it so too. */
  sqlite3_str_appendf(pStr, "CREATE TABLE IF NOT EXISTS %s (\n", zName);
  if( iIndex >= 0 ){
    sqlite3_str_appendall(pStr, "  \"" WC_CQL_ROWKEY_NAME "\" blob,\n");
  }
  for(i = 0; i < pS->nCol; i++){
    if( iIndex >= 0 && !pS->aIndex[iIndex].abStored[i] ) continue;
    sqlite3_str_appendf(pStr, "  \"%w\" %s,\n", pS->aCol[i].zName,
                        wcCqlType(pS->aCol[i].cAff));
  }
  if( cqlRowtime(pS, iIndex) ){
    sqlite3_str_appendall(pStr, "  \"" WC_CQL_ROWTIME_NAME "\" bigint,\n");
  }
  sqlite3_str_appendall(pStr, "  \"" WC_STAMP_COLUMN "\" blob,\n"
                        "  PRIMARY KEY ((");
  for(i = 0; i < key.nCol; i++){
    wcAssert( key.aiCol[i] >= 0 || key.aiCol[i] == WC_CQL_ROWKEY );
    if( i == key.nPart ) sqlite3_str_appendall(pStr, ")");
    sqlite3_str_appendall(pStr, i ? ", " : "");
    appendKeyName(pStr, pS, key.aiCol[i]);
  }
  if( key.nCol == key.nPart ) sqlite3_str_appendall(pStr, ")");
  /* Each write's entries apart: an index key ends with the stamps. */
  if( iIndex >= 0 ) sqlite3_str_appendall(pStr, ", \"" WC_STAMP_COLUMN "\"");
  sqlite3_str_appendall(pStr, ")\n)");
  nClust = key.nCol - key.nPart + (iIndex >= 0);
  for(i = key.nPart; i < key.nCol; i++){
    sqlite3_str_appendall(pStr, i == key.nPart
                                ? " WITH CLUSTERING ORDER BY (" : ", ");
    appendKeyName(pStr, pS, key.aiCol[i]);
    sqlite3_str_appendall(pStr, key.abDesc[i] ? " DESC" : " ASC");
  }
  if( iIndex >= 0 ){
    sqlite3_str_appendf(pStr, "%s\"" WC_STAMP_COLUMN "\" ASC",
                        key.nCol > key.nPart ? ", "
                                             : " WITH CLUSTERING ORDER BY (");
  }
  if( nClust > 0 ) sqlite3_str_appendall(pStr, ")");
  if( zComment ){
    sqlite3_str_appendf(pStr, " %s comment = %s", nClust > 0 ? "AND" : "WITH",
                        zComment);
  }
  if( pS->nTtl > 0 ){
    sqlite3_str_appendf(pStr, " %s default_time_to_live = %lld",
                        nClust > 0 || zComment ? "AND" : "WITH",
                        (long long)pS->nTtl);
  }
  wcCqlKeyFree(&key);
  return SQLITE_OK;
}
