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
