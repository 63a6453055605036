/*
** wc_anatomy.c: a stored key taken apart for widecol_report's key
** anatomy.  The parts come from the codec's own spans (wcElementSpan);
** the SQL of an element follows the codec's steps (key/wc_codec.c) with
** the rk_* function that does each one, so that a user can make the same
** bytes in an application.  tests/harness/report_check.py evaluates the
** SQL on rows of every example design and compares it with the keys.
*/
#include "tools/wc_anatomy.h"
#include "key/wc_codec.h"
#include "key/rk_bytes.h"

#include <string.h>

/* The names of the columns pE reads, as SQL arguments: "a, b". */
static void appendColumns(sqlite3_str *pStr, const WcSchema *pS,
                          const WcElement *pE){
  int i;
  for(i = 0; i < pE->nSaltCol; i++){
    sqlite3_str_appendall(pStr, i ? ", " : "");
    wcAppendName(pStr, pS->aCol[pE->aiSaltCol[i]].zName);
  }
}

/* TOKEN(...): the token with its sign bit flipped, as 16 hex digits.
** Adding 2^63 flips it; the CASE keeps the sum inside 64 bits. */
static char *tokenSql(const WcSchema *pS, const WcElement *pE){
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zTok;
  appendColumns(pStr, pS, pE);
  zTok = sqlite3_str_finish(pStr);
  if( zTok == 0 ) return 0;
  return sqlite3_mprintf("printf('%%016x', CASE WHEN rk_token(%s) < 0 "
                         "THEN rk_token(%s) + 9223372036854775807 + 1 ELSE "
                         "rk_token(%s) - 9223372036854775807 - 1 END)",
                         zTok, zTok, zTok);
}

/* SALT(n, ...): the first |n| characters of rk_salt() of the columns'
** text joined by the delimiter. */
static char *saltSql(const WcSchema *pS, const WcElement *pE){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int nDigit = pE->nSaltDigit < 0 ? -pE->nSaltDigit : pE->nSaltDigit;
  sqlite3_str_appendall(pStr, "substr(rk_salt(");
  if( pE->nSaltCol > 1 ){
    sqlite3_str_appendf(pStr, "rk_join(%Q, ", pS->zDelim);
    appendColumns(pStr, pS, pE);
    sqlite3_str_appendall(pStr, ")");
  }else{
    appendColumns(pStr, pS, pE);
  }
  sqlite3_str_appendf(pStr, ", %d), 1, %d)", pE->nSaltDigit, nDigit);
  return sqlite3_str_finish(pStr);
}

/* A column field: each transform in turn, as encodeTextColumn applies
** them; an integer not yet written as digits ends as its decimal text. */
static char *columnSql(const WcSchema *pS, const WcElement *pE){
  const WcColumn *pCol = &pS->aCol[pE->iCol];
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zExpr;
  int bInt = pCol->cAff == WC_AFF_INTEGER || pCol->cAff == WC_AFF_NUMERIC;
  int i;
  wcAppendName(pStr, pCol->zName);
  zExpr = sqlite3_str_finish(pStr);
  for(i = 0; zExpr && i < pE->nXform; i++){
    const WcTransform *pX = &pE->aXform[i];
    if( pX->eOp == WC_XFORM_PAD ){
      zExpr = bInt ? sqlite3_mprintf("rk_pad(%z, %lld)", zExpr, pX->iArg)
                   : sqlite3_mprintf("rk_pad(%z, %lld, %Q)", zExpr, pX->iArg,
                                     pX->zFill);
      bInt = 0;
    }else if( pX->eOp == WC_XFORM_DESC ){
      zExpr = !bInt ? sqlite3_mprintf("rk_desc(%z)", zExpr)
            : sqlite3_mprintf("rk_pad(rk_desc(%z, %lld), %d)", zExpr,
                              pX->iArg,
                              rkDigitCount((uint64_t)pX->iArg));
      bInt = 0;
    }else{
      zExpr = sqlite3_mprintf(bInt ? "rk_reverse(CAST(%z AS TEXT))"
                                   : "rk_reverse(%z)", zExpr);
      bInt = 0;
    }
  }
  if( zExpr && bInt ) zExpr = sqlite3_mprintf("CAST(%z AS TEXT)", zExpr);
  return zExpr;
}

char *wcElementSql(const WcSchema *pS, int iElem, int *pbOom){
  const WcElement *pE = &pS->aElem[iElem];
  char *z;
  if( pS->eEncoding != WC_ENCODING_TEXT ) return 0;
  if( pE->eKind == WC_ELEM_BUCKET ){
    sqlite3_str *pStr = sqlite3_str_new(0);
    sqlite3_str_appendall(pStr, "rk_pad(rk_bucket(");
    wcAppendName(pStr, pS->aCol[pE->iCol].zName);
    sqlite3_str_appendf(pStr, ", %lld), %d)", (long long)pE->nBucket,
                        rkDigitCount((uint64_t)(pE->nBucket - 1)));
    z = sqlite3_str_finish(pStr);
  }else if( pE->eKind == WC_ELEM_SALT ){
    z = pE->bToken ? tokenSql(pS, pE) : saltSql(pS, pE);
  }else{
    z = columnSql(pS, pE);
  }
  if( z == 0 ) *pbOom = 1;
  return z;
}

char *wcRandomSql(const WcSchema *pS){
  return sqlite3_mprintf("rk_pad(abs(random()) %% %lld, %d)",
                         (long long)pS->nRandom, pS->nRandomDigit);
}

int wcKeyParts(const WcSchema *pS, const unsigned char *aKey, int64_t nKey,
               WcKeyPart *aPart, int nMax){
  int64_t nAt = 0, nEnd = nKey;
  int i, nPart = 0;
  if( pS->nRandom > 0 && nKey >= pS->nRandomDigit ){
    nEnd = nKey - pS->nRandomDigit;
  }
  for(i = 0; i < pS->nElem && nPart + 2 < nMax; i++){
    int64_t nSpan = wcElementSpan(pS, i, aKey + nAt, nEnd - nAt);
    int64_t nSep = pS->eEncoding == WC_ENCODING_TEXT
                && !wcElementIsLast(pS, i) && pS->nDelim > 0 ? pS->nDelim : 0;
    if( nSpan < 0 ) break;
    aPart[nPart].eKind = WC_PART_ELEMENT;
    aPart[nPart].iElem = i;
    aPart[nPart++].n = nSpan - nSep;
    if( nSep ){
      aPart[nPart].eKind = WC_PART_DELIMITER;
      aPart[nPart].iElem = i;
      aPart[nPart++].n = nSep;
    }
    nAt += nSpan;
  }
  if( nAt < nEnd && nPart < nMax ){
    aPart[nPart].eKind = WC_PART_REST;
    aPart[nPart].iElem = -1;
    aPart[nPart++].n = nEnd - nAt;
  }
  if( nEnd < nKey && nPart < nMax ){
    aPart[nPart].eKind = WC_PART_RANDOM;
    aPart[nPart].iElem = -1;
    aPart[nPart++].n = nKey - nEnd;
  }
  return nPart;
}
