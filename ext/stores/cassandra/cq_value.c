/*
** cq_value.c: SQLite's values as the CQL columns of a table hold them,
** and back, and a key's columns decoded from it.  A column's CQL type is its affinity's (INTEGER bigint, TEXT
** text, REAL double, NUMERIC decimal, BLOB or none blob), as
** widecol_ddl(t, 'cql') writes it; a value the column cannot hold is a
** constraint failure naming the column, the value and the type.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/wc_cql.h"
#include "key/wc_decode.h"

#include <stdlib.h>
#include <string.h>

/* The protocol's type of each CQL type a design's column may have
** (key/wc_cql.h names them). */
static const struct { const char *zName; int eType; } aCqlType[] = {
  { "bigint", CQ_TYPE_BIGINT }, { "text", CQ_TYPE_VARCHAR },
  { "double", CQ_TYPE_DOUBLE }, { "decimal", CQ_TYPE_DECIMAL },
  { "blob", CQ_TYPE_BLOB },
};

int cqColumnType(char cAff){
  const char *zType = wcCqlType(cAff);
  size_t i;
  for(i = 0; i < sizeof(aCqlType) / sizeof(aCqlType[0]); i++){
    if( strcmp(aCqlType[i].zName, zType) == 0 ) return aCqlType[i].eType;
  }
  wcAssert( 0 );
  return CQ_TYPE_BLOB;
}

const char *cqColumnTypeName(int eType){
  size_t i;
  for(i = 0; i < sizeof(aCqlType) / sizeof(aCqlType[0]); i++){
    if( aCqlType[i].eType == eType ) return aCqlType[i].zName;
  }
  return "blob";
}

/* A REAL as a decimal: the digits of its shortest exact-enough form. */
static int realDecimal(double r, int64_t *piUnscaled, int32_t *piScale){
  char z[64], zDigits[40];
  int nDigit = 0, iExp = 0, i, bNeg = r < 0;
  const char *zE;
  sqlite3_snprintf(sizeof(z), z, "%!.17g", r < 0 ? -r : r);
  for(i = 0; z[i] && z[i] != 'e'; i++){
    if( z[i] >= '0' && z[i] <= '9' ) zDigits[nDigit++] = z[i];
    if( z[i] == '.' ) iExp = -(int)(strlen(z) - i - 1 - (strchr(z, 'e')
                                   ? strlen(strchr(z, 'e')) : 0));
  }
  zE = strchr(z, 'e');
  if( zE ) iExp += atoi(zE + 1);
  while( nDigit > 1 && zDigits[nDigit - 1] == '0' && iExp < 0 ){
    nDigit--;
    iExp++;
  }
  if( nDigit > 18 ) return 1;
  zDigits[nDigit] = 0;
  *piUnscaled = strtoll(zDigits, 0, 10) * (bNeg ? -1 : 1);
  *piScale = -iExp;
  return 0;
}

/* Appends column iCol's value pVal (as the column's affinity stores it)
** to pBuf in CQL's form; *pn its length (-1: NULL).  SQLITE_OK, or
** SQLITE_CONSTRAINT_DATATYPE (a value the CQL column cannot hold, the
** message set), or SQLITE_NOMEM. */
int cqPutValue(CqTable *p, int iCol, sqlite3_value *pVal, WcBuf *pBuf,
                    int *pn){
  int eType = p->aType[iCol];
  const WcColumn *pCol;
  if( iCol == CQ_ROWKEY(p->pS) || iCol == CQ_STAMP(p->pS) ){
    /* An index entry's rowkey, as widecol made it; a write's stamps. */
    if( sqlite3_value_type(pVal) == SQLITE_NULL ){
      *pn = -1;
      return SQLITE_OK;
    }
    *pn = sqlite3_value_bytes(pVal);
    wcBufAppend(pBuf, sqlite3_value_blob(pVal), *pn);
    return pBuf->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  if( iCol == CQ_ROWTIME(p->pS) ){
    /* A version's rowtime: microseconds, as the core gives it. */
    *pn = 8;
    cqPutBigint(pBuf, sqlite3_value_int64(pVal));
    return pBuf->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  pCol = &p->pS->aCol[iCol];
  sqlite3_value *pCopy = 0;
  int64_t n0 = pBuf->n;
  WcValue v;
  if( wcValueStore(pCol->cAff, pVal, &v, &pCopy) != WC_OK ) return SQLITE_NOMEM;
  *pn = -1;
  if( v.eType == SQLITE_NULL ){
    sqlite3_value_free(pCopy);
    return SQLITE_OK;
  }
  if( eType == CQ_TYPE_BIGINT && v.eType == SQLITE_INTEGER ){
    cqPutBigint(pBuf, v.i);
  }else if( eType == CQ_TYPE_DOUBLE && (v.eType == SQLITE_FLOAT
                                        || v.eType == SQLITE_INTEGER) ){
    cqPutDouble(pBuf, v.eType == SQLITE_FLOAT ? v.r : (double)v.i);
  }else if( eType == CQ_TYPE_VARCHAR && v.eType == SQLITE_TEXT ){
    wcBufAppend(pBuf, v.a, v.n);
  }else if( eType == CQ_TYPE_BLOB && v.eType == SQLITE_BLOB ){
    wcBufAppend(pBuf, v.a, v.n);
  }else if( eType == CQ_TYPE_DECIMAL && v.eType == SQLITE_INTEGER ){
    cqPutDecimal(pBuf, v.i, 0);
  }else{
    int64_t iUnscaled;
    int32_t iScale;
    if( eType == CQ_TYPE_DECIMAL && v.eType == SQLITE_FLOAT
     && realDecimal(v.r, &iUnscaled, &iScale) == 0 ){
      cqPutDecimal(pBuf, iUnscaled, iScale);
    }else{
      char *zVal = wcValueDescribe(&v, 1);
      sqlite3_value_free(pCopy);
      cqTableError(p, SQLITE_CONSTRAINT_DATATYPE, "column %s is %s in "
          "Cassandra, which cannot hold %s; give it a value of that type "
          "(a widecol table on Cassandra keeps one type per column, as CQL "
          "does)", pCol->zName, cqColumnTypeName(eType), zVal ? zVal : "it");
      sqlite3_free(zVal);
      return SQLITE_CONSTRAINT_DATATYPE;
    }
  }
  sqlite3_value_free(pCopy);
  *pn = (int)(pBuf->n - n0);
  return pBuf->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* A key column's value from a key decoded (wc_decode.h), in CQL's form. */
void cqPutKeyValue(CqTable *p, int iCol, const WcValue *pV, WcBuf *pBuf,
                        int *pn){
  int64_t n0 = pBuf->n;
  switch( p->aType[iCol] ){
    case CQ_TYPE_BIGINT: cqPutBigint(pBuf, pV->i); break;
    case CQ_TYPE_DOUBLE:
      cqPutDouble(pBuf, pV->eType == SQLITE_FLOAT ? pV->r : (double)pV->i);
      break;
    case CQ_TYPE_DECIMAL: {
      int64_t iUnscaled = pV->i;
      int32_t iScale = 0;
      if( pV->eType == SQLITE_FLOAT ) realDecimal(pV->r, &iUnscaled, &iScale);
      cqPutDecimal(pBuf, iUnscaled, iScale);
      break;
    }
    default: wcBufAppend(pBuf, pV->a, pV->n); break;
  }
  *pn = (int)(pBuf->n - n0);
}

/* Cell a[0..n) of a column of type eType as a value for the codec; text
** and blobs point into the cell.  0, or 1 if the cell is no such value. */
int cqCellValue(int eType, const unsigned char *a, int n, WcValue *pV){
  memset(pV, 0, sizeof(*pV));
  pV->a = (const unsigned char*)"";
  if( n < 0 ){
    pV->eType = SQLITE_NULL;
    return 0;
  }
  switch( eType ){
    case CQ_TYPE_BIGINT:
      if( n != 8 ) return 1;
      pV->eType = SQLITE_INTEGER;
      pV->i = cqGetBigint(a);
      return 0;
    case CQ_TYPE_DOUBLE:
      if( n != 8 ) return 1;
      pV->eType = SQLITE_FLOAT;
      pV->r = cqGetDouble(a);
      return 0;
    case CQ_TYPE_DECIMAL: {
      int64_t iUnscaled;
      int32_t iScale;
      if( cqGetDecimal(a, n, &iUnscaled, &iScale) ) return 1;
      if( iScale == 0 ){
        pV->eType = SQLITE_INTEGER;
        pV->i = iUnscaled;
      }else{
        char z[48];
        sqlite3_snprintf(sizeof(z), z, "%lldE%d", (long long)iUnscaled,
                         -iScale);
        pV->eType = SQLITE_FLOAT;
        pV->r = strtod(z, 0);
      }
      return 0;
    }
    case CQ_TYPE_VARCHAR:
      pV->eType = SQLITE_TEXT;
      break;
    default:
      pV->eType = SQLITE_BLOB;
  }
  pV->a = n ? a : (const unsigned char*)"";
  pV->n = n;
  return 0;
}

const char *cqColumnName(const CqTable *p, int iCol){
  return iCol == CQ_ROWKEY(p->pS) ? WC_CQL_ROWKEY_NAME
       : iCol == CQ_ROWTIME(p->pS) ? WC_CQL_ROWTIME_NAME
       : iCol == CQ_STAMP(p->pS) ? WC_STAMP_COLUMN : p->pS->aCol[iCol].zName;
}

int cqKeyDesc(const CqTable *p, int iCol){
  const WcSchema *apKey[2];
  int k, i;
  apKey[0] = p->pKeyS;
  apKey[1] = p->pS;
  for(k = 0; k < 2; k++){
    for(i = 1; i < apKey[k]->nElem; i++){
      const WcElement *pE = &apKey[k]->aElem[i];
      if( pE->eKind == WC_ELEM_COLUMN && pE->iCol == iCol ){
        return pE->eOrder == WC_ORDER_DESC;
      }
    }
  }
  return 0;
}

int cqDecodeKey(CqTable *p, const unsigned char *a, int64_t n, WcValue *aVal,
                WcBuf *pBuf){
  WcValue *pRow = &aVal[CQ_ROWKEY(p->pS)];
  int nElem = 0, rc;
  int64_t nUsed = 0;
  if( p->iIndex < 0 ) return wcDecodeKey(p->pS, p->pHasher, a, n, aVal, pBuf, 0);
  rc = wcDecodePrefix(p->pKeyS, a, n, p->pKeyS->nElem, aVal, pBuf, &nElem,
                      &nUsed);
  if( rc != WC_OK ) return rc;
  if( nElem < p->pKeyS->nElem || nUsed >= n ) return WC_NOFIT;
  memset(pRow, 0, sizeof(*pRow));
  pRow->eType = SQLITE_BLOB;
  pRow->a = a + nUsed;
  pRow->n = n - nUsed;
  return WC_OK;
}

int64_t cqPartitionBytes(const CqTable *p, const unsigned char *a, int64_t n){
  int64_t nPart = 0;
  int i;
  for(i = 0; i <= p->nPart && nPart < n; i++){
    int64_t nElem = wcElementSpan(p->pKeyS, i, a + nPart, n - nPart);
    if( nElem < 0 ) break;
    nPart += nElem;
  }
  return nPart;
}
