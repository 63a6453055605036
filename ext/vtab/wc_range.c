/*
** wc_range.c: the byte ranges of row keys that an xFilter call scans.
**
** The plan (wc_plan.c) says which constraints fix leading key elements and
** which bound the next one.  Here their values become bytes: each value is
** first turned into what the key field can hold, the way SQLite would
** compare it (numeric affinity for numeric fields, exact integer / double
** comparisons, text below blobs), then encoded as the field is.  Elements
** whose bytes order like their values give exact bounds; text followed by
** a delimiter or PAD fill that sorts above some characters gives a widened
** upper bound, and SQLite filters the rest.  The ranges are computed once
** per xFilter, sorted and merged, so each row is visited once.
*/
#include "vtab/wc_range.h"
#include "key/rk_bytes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What a constraint value means for a field. */
#define BOUND_NONE  0     /* It does not narrow the field */
#define BOUND_EMPTY 1     /* No value of the field satisfies it */
#define BOUND_VALUE 2     /* The field's bound is a value */

/* The values of the xFilter arguments, gathered by column. */
typedef struct ColArgs ColArgs;
struct ColArgs {
  sqlite3_value **apEq;   /* Values of '=', IS or IN: &pOne, or allocated
                          ** when there are more */
  int nEq;
  int nAlloc;
  int bOwned;             /* apEq[] are copies (of IN values) to free */
  sqlite3_value *pOne;    /* The usual single '=' value, held in place */
};

typedef struct Builder Builder;
struct Builder {
  WcVtab *pTab;
  const WcSchema *pS;
  const WcPlan *pPlan;
  sqlite3_value **argv;
  ColArgs *aCol;           /* nCol entries */
  WcValue *aVal;           /* Row values for encoding an element */
  sqlite3_value **apCopy;  /* Converted copies behind aVal, one per column */
  WcRanges *pOut;          /* The ranges made, and the scratch */
  int rc;
};

/* An encoder's WC_ERROR: OpenSSL computed no MD5 for a SALT or BUCKET. */
static int hashFailed(WcVtab *pTab){
  return wcVtabError(&pTab->base, SQLITE_ERROR, "widecol %s: OpenSSL could not "
                     "compute the MD5 of a SALT or BUCKET", pTab->store.zName);
}

/* An encoder's failure that is the builder's, not the value's: out of
** memory, or no MD5.  True if rc is one. */
static int encodeFailed(Builder *b, int rc){
  if( rc == WC_NOMEM ){
    b->rc = SQLITE_NOMEM;
  }else if( rc == WC_ERROR ){
    b->rc = hashFailed(b->pTab);
  }
  return rc == WC_NOMEM || rc == WC_ERROR;
}

/*
** Bytes.
*/
static void bufCopy(WcBuf *pDest, const WcBuf *pSrc){
  pDest->n = 0;
  wcBufAppend(pDest, pSrc->a, pSrc->n);
}

/* pOut = the smallest key greater than every key starting with pKey.
** Returns 0 if there is none (pKey is empty or all 0xFF). */
static int prefixEnd(const WcBuf *pKey, WcBuf *pOut){
  int64_t n;
  pOut->n = 0;
  if( pKey->n == 0 || wcBufReserve(pOut, pKey->n) ) return 0;
  n = rkPrefixEnd(pKey->a, pKey->n, pOut->a);
  if( n < 0 ) return 0;
  /* No longer than the prefix, and above every key under it. */
  wcAssert( n >= 1 && n <= pKey->n );
  wcAssert( wcBytesCompare(pOut->a, n, pKey->a, pKey->n) > 0 );
  pOut->n = n;
  return 1;
}

/* pOut = the smallest key after every key that has element iElem equal to
** the one ending pKey: pKey + 0x00 if the element is last (nothing can
** follow it), else the prefix end.  Returns 0 for no bound. */
static int keyAfter(const WcSchema *pS, int iElem, const WcBuf *pKey,
                    WcBuf *pOut){
  if( wcElementIsLast(pS, iElem) ){
    static const unsigned char aZero[1] = { 0 };
    bufCopy(pOut, pKey);
    wcBufAppend(pOut, aZero, 1);
    return 1;
  }
  return prefixEnd(pKey, pOut);
}

/*
** Values.  Each function turns a constraint value into the field's own
** domain, as SQLite compares them.
*/

/* An integer field's bound: the smallest integer x with x > v (or >= v)
** for a lower bound, the largest with x < v (or <= v) for an upper one.
** v has had numeric affinity applied. */
static int integerBound(const WcValue *v, int bLower, int bIncl, int64_t *pi){
  switch( v->eType ){
    case SQLITE_INTEGER:
      *pi = v->i;
      if( !bIncl ){
        if( v->i == (bLower ? INT64_MAX : INT64_MIN) ) return BOUND_EMPTY;
        *pi += bLower ? 1 : -1;
      }
      return BOUND_VALUE;
    case SQLITE_FLOAT:
      if( bLower ){
        if( v->r >= 9223372036854775808.0 ) return BOUND_EMPTY;
        if( v->r < -9223372036854775808.0 ) return BOUND_NONE;
        *pi = (int64_t)ceil(v->r);
        if( !bIncl && (double)*pi == v->r ) (*pi)++;
      }else{
        if( v->r < -9223372036854775808.0 ) return BOUND_EMPTY;
        if( v->r >= 9223372036854775808.0 ) return BOUND_NONE;
        *pi = (int64_t)floor(v->r);
        if( !bIncl && (double)*pi == v->r ){
          if( *pi == INT64_MIN ) return BOUND_EMPTY;
          (*pi)--;
        }
      }
      return BOUND_VALUE;
    case SQLITE_NULL:
      return BOUND_EMPTY;
    default:
      /* Numbers sort below text and blobs. */
      return bLower ? BOUND_EMPTY : BOUND_NONE;
  }
}

/* A REAL field's bound: the double comparison equivalent to comparing
** with v exactly.  An integer no double equals lies between two doubles;
** the bound becomes the nearer one, inclusive or not as fits. */
static int realBound(const WcValue *v, int bLower, int bIncl, double *pr,
                     int *pbIncl){
  *pbIncl = bIncl;
  switch( v->eType ){
    case SQLITE_FLOAT:
      *pr = v->r;
      return BOUND_VALUE;
    case SQLITE_INTEGER: {
      double d = (double)v->i;
      int bAbove = d >= 9223372036854775808.0 || (int64_t)d > v->i;
      int bExact = !bAbove && (int64_t)d == v->i;
      *pr = d;
      if( !bExact ) *pbIncl = bLower ? bAbove : !bAbove;
      return BOUND_VALUE;
    }
    case SQLITE_NULL:
      return BOUND_EMPTY;
    default:
      return bLower ? BOUND_EMPTY : BOUND_NONE;
  }
}

/* The bound a comparison "field OP value" puts on field column iCol, as a
** value the field's encoding can take.  pRhs is the constraint value. */
static int fieldBound(Builder *b, int iCol, int iElem, sqlite3_value *pRhs,
                      int bLower, int bIncl, WcValue *pOut, int *pbIncl,
                      sqlite3_value **ppCopy){
  const WcColumn *pCol = &b->pS->aCol[iCol];
  WcValue v;
  int eBound;
  *pbIncl = bIncl;
  memset(pOut, 0, sizeof(*pOut));
  if( pCol->cAff == WC_AFF_TEXT || pCol->cAff == WC_AFF_BLOB ){
    int eSame = pCol->cAff == WC_AFF_TEXT ? SQLITE_TEXT : SQLITE_BLOB;
    wcValueFrom(pRhs, pOut);
    if( pOut->eType == eSame ) return BOUND_VALUE;
    if( pOut->eType == SQLITE_NULL ) return BOUND_EMPTY;
    if( pCol->cAff == WC_AFF_TEXT ){
      /* Text sorts below blobs; a number might be compared under either
      ** affinity, so it does not narrow. */
      if( pOut->eType == SQLITE_BLOB ) return bLower ? BOUND_EMPTY : BOUND_NONE;
      return BOUND_NONE;
    }
    return bLower ? BOUND_NONE : BOUND_EMPTY;
  }
  if( wcValueStore(WC_AFF_NUMERIC, pRhs, &v, ppCopy) ){
    b->rc = SQLITE_NOMEM;
    return BOUND_EMPTY;
  }
  if( pCol->cAff == WC_AFF_NUMERIC ){
    if( v.eType == SQLITE_INTEGER || v.eType == SQLITE_FLOAT ){
      *pOut = v;
      return BOUND_VALUE;
    }
    if( v.eType == SQLITE_NULL ) return BOUND_EMPTY;
    return bLower ? BOUND_EMPTY : BOUND_NONE;
  }
  if( pCol->cAff == WC_AFF_REAL ){
    pOut->eType = SQLITE_FLOAT;
    return realBound(&v, bLower, bIncl, &pOut->r, pbIncl);
  }
  pOut->eType = SQLITE_INTEGER;
  eBound = integerBound(&v, bLower, bIncl, &pOut->i);
  *pbIncl = 1;
  if( eBound == BOUND_VALUE || eBound == BOUND_NONE ){
    /* Keep to what the element can hold: PAD n digits, 0..DESC max (a
    ** DESC without a max, which after PAD inverts the digits' bytes, adds
    ** no limit of its own). */
    const WcElement *pElem = &b->pS->aElem[iElem];
    int64_t iMin = INT64_MIN, iMax = INT64_MAX;
    int i;
    for(i = 0; i < pElem->nXform && b->pS->eEncoding == WC_ENCODING_TEXT;
        i++){
      const WcTransform *pX = &pElem->aXform[i];
      iMin = 0;
      if( pX->eOp == WC_XFORM_PAD && pX->iArg < RK_MAX_DIGITS - 1 ){
        int64_t iPow = 1;
        int k;
        for(k = 0; k < pX->iArg; k++) iPow *= 10;
        if( iPow - 1 < iMax ) iMax = iPow - 1;
      }else if( pX->eOp == WC_XFORM_DESC && pX->bArg && pX->iArg < iMax ){
        iMax = pX->iArg;
      }
    }
    if( eBound == BOUND_NONE ){
      pOut->i = bLower ? iMin : iMax;
    }else if( bLower ? pOut->i > iMax : pOut->i < iMin ){
      return BOUND_EMPTY;
    }else if( bLower ? pOut->i < iMin : pOut->i > iMax ){
      pOut->i = bLower ? iMin : iMax;
    }
    return BOUND_VALUE;
  }
  return eBound;
}

/* An '=' value as the field holds it, or WC_NOFIT if no field value
** equals it, or BOUND_NONE-like "cannot narrow": a number compared with a
** TEXT field. */
#define EQ_VALUE    0
#define EQ_NOMATCH  1
#define EQ_NONARROW 2

static int eqValue(Builder *b, int iCol, sqlite3_value *pRhs, WcValue *pOut,
                   sqlite3_value **ppCopy){
  const WcColumn *pCol = &b->pS->aCol[iCol];
  WcValue v;
  *ppCopy = 0;
  if( pCol->cAff == WC_AFF_TEXT || pCol->cAff == WC_AFF_BLOB ){
    wcValueFrom(pRhs, pOut);
    if( pOut->eType == SQLITE_INTEGER || pOut->eType == SQLITE_FLOAT ){
      return pCol->cAff == WC_AFF_TEXT ? EQ_NONARROW : EQ_NOMATCH;
    }
    return EQ_VALUE;    /* the encoder refuses the other types */
  }
  if( wcValueStore(WC_AFF_NUMERIC, pRhs, &v, ppCopy) ){
    b->rc = SQLITE_NOMEM;
    return EQ_NOMATCH;
  }
  *pOut = v;
  if( pCol->cAff == WC_AFF_REAL && v.eType == SQLITE_INTEGER ){
    double d = (double)v.i;
    if( d >= 9223372036854775808.0 || (int64_t)d != v.i ) return EQ_NOMATCH;
    pOut->eType = SQLITE_FLOAT;
    pOut->r = d;
  }
  return EQ_VALUE;
}

/*
** Prefixes: the leading elements fixed by '=' and IN.
*/
/* Adds column iCol to aiCol[0..*pn) unless it is there. */
static void addColumn(int *aiCol, int *pn, int iCol){
  int i;
  for(i = 0; i < *pn && aiCol[i] != iCol; i++){}
  if( i == *pn ) aiCol[(*pn)++] = iCol;
}

/* The columns element iElem is computed from, added to aiCol[0..*pn). */
static void elementColumns(const WcSchema *pS, int iElem, int *aiCol,
                           int *pn){
  const WcElement *pElem = &pS->aElem[iElem];
  int i;
  if( pElem->eKind == WC_ELEM_SALT ){
    for(i = 0; i < pElem->nSaltCol; i++){
      addColumn(aiCol, pn, pElem->aiSaltCol[i]);
    }
  }else{
    addColumn(aiCol, pn, pElem->iCol);
  }
}

/* True if some '=' value of column iCol cannot narrow its field: a
** number compared with a TEXT field might match text that is no
** encoding of it ('05' = 5 when the number has numeric affinity). */
static int columnNoNarrow(Builder *b, int iCol){
  const ColArgs *pArgs = &b->aCol[iCol];
  int i;
  if( b->pS->aCol[iCol].cAff != WC_AFF_TEXT ) return 0;
  for(i = 0; i < pArgs->nEq; i++){
    int eType = sqlite3_value_type(pArgs->apEq[i]);
    if( eType == SQLITE_INTEGER || eType == SQLITE_FLOAT ) return 1;
  }
  return 0;
}

/* The elements from nSkip on that '=' values can fix: up to iLast, and
** before the first that depends on a column whose values cannot narrow. */
static int narrowableEnd(Builder *b, int iLast){
  int aiCol[WC_MAX_SALT_COL + 1];
  int iElem, i;
  for(iElem = b->pPlan->nSkip; iElem < iLast; iElem++){
    int nCol = 0;
    elementColumns(b->pS, iElem, aiCol, &nCol);
    for(i = 0; i < nCol; i++){
      if( columnNoNarrow(b, aiCol[i]) ) return iElem;
    }
  }
  return iLast;
}

/* The next slot of pList, its buffers emptied (kept from earlier use). */
static WcRange *nextSlot(Builder *b, WcRangeList *pList){
  WcRange *pSlot;
  wcAssert( pList->n >= 0 && pList->n <= pList->nAlloc );
  if( pList->n == pList->nAlloc ){
    int nNew = pList->nAlloc ? pList->nAlloc * 2 : 8;
    WcRange *aNew = sqlite3_realloc64(pList->a, sizeof(WcRange)
                                      * (sqlite3_uint64)nNew);
    if( aNew == 0 ){
      b->rc = SQLITE_NOMEM;
      return 0;
    }
    memset(&aNew[pList->nAlloc], 0, sizeof(WcRange)
           * (size_t)(nNew - pList->nAlloc));
    pList->a = aNew;
    pList->nAlloc = nNew;
  }
  pSlot = &pList->a[pList->n++];
  pSlot->lo.n = pSlot->hi.n = 0;
  pSlot->bHi = 0;
  return pSlot;
}

/* Appends a copy of pKey to the prefixes. */
static void addPrefix(Builder *b, const WcBuf *pKey){
  WcRange *pNew = nextSlot(b, &b->pOut->prefixes);
  if( pNew == 0 ) return;
  bufCopy(&pNew->lo, pKey);
  if( pNew->lo.bOom ) b->rc = SQLITE_NOMEM;
}

/* The prefixes elements [nSkip, iEnd) take: one for each combination of
** the '=' and IN values of the columns they are computed from, so that a
** SALT and the field it hashes always take the same value (an element at
** a time, IN lists would multiply: every salt with every value). */
#define WC_STACK_COLS 16

static void buildPrefixes(Builder *b, int iEnd){
  const WcSchema *pS = b->pS;
  int aiStack[2 * WC_STACK_COLS];
  int *aiCol, *aIdx, nCol = 0, i, iElem;
  WcBuf *pKey = &b->pOut->key;
  b->pOut->prefixes.n = 0;
  pKey->n = 0;
  if( b->pPlan->nSkip == iEnd ){
    addPrefix(b, pKey);
    return;
  }
  aiCol = pS->nCol <= WC_STACK_COLS ? aiStack
        : sqlite3_malloc64(sizeof(int) * 2 * (sqlite3_uint64)pS->nCol);
  if( aiCol == 0 ){
    b->rc = SQLITE_NOMEM;
    return;
  }
  aIdx = &aiCol[pS->nCol];
  wcAssert( b->pPlan->nSkip >= 0 && b->pPlan->nSkip < iEnd
            && iEnd <= pS->nElem );
  for(iElem = b->pPlan->nSkip; iElem < iEnd; iElem++){
    elementColumns(pS, iElem, aiCol, &nCol);
  }
  /* Each column once (addColumn()), so aiCol[] and aIdx[] fit. */
  wcAssert( nCol <= pS->nCol );
  for(i = 0; i < nCol; i++){
    aIdx[i] = 0;
    if( b->aCol[aiCol[i]].nEq == 0 ) nCol = -1;   /* '=' NULL: no rows */
  }
  /* Odometer over the columns' values. */
  while( nCol > 0 && b->rc == SQLITE_OK ){
    sqlite3_value **apCopy = b->apCopy;
    int bUse = 1;
    for(i = 0; i < nCol; i++){
      apCopy[i] = 0;
      if( bUse ){
        bUse = eqValue(b, aiCol[i], b->aCol[aiCol[i]].apEq[aIdx[i]],
                       &b->aVal[aiCol[i]], &apCopy[i]) == EQ_VALUE;
      }
    }
    pKey->n = 0;
    for(iElem = b->pPlan->nSkip; iElem < iEnd && bUse; iElem++){
      int rc = wcEncodeElement(pS, b->pTab->pHasher, iElem, b->aVal, 0,
                               pKey, 0);
      encodeFailed(b, rc);
      bUse = rc == WC_OK;
      wcAppendSeparator(pS, iElem, pKey);
    }
    if( pKey->bOom ) b->rc = SQLITE_NOMEM;
    if( bUse && b->rc == SQLITE_OK ) addPrefix(b, pKey);
    for(i = 0; i < nCol; i++) sqlite3_value_free(apCopy[i]);
    for(i = nCol - 1; i >= 0; i--){
      if( ++aIdx[i] < b->aCol[aiCol[i]].nEq ) break;
      aIdx[i] = 0;
    }
    if( i < 0 ) break;
  }
  if( aiCol != aiStack ) sqlite3_free(aiCol);
}

/*
** Ranges.
*/
static WcRange *newRange(Builder *b){
  return nextSlot(b, &b->pOut->rel);
}

/* Raises the range's lower bound to pLo if that is higher. */
static void raiseLo(WcRange *pRange, const WcBuf *pLo){
  if( wcBufCompare(pLo, &pRange->lo) > 0 ) bufCopy(&pRange->lo, pLo);
  wcAssert( pRange->lo.bOom || wcBufCompare(pLo, &pRange->lo) <= 0 );
}

/* Lowers the range's upper bound to pHi if that is lower. */
static void lowerHi(WcRange *pRange, const WcBuf *pHi){
  if( !pRange->bHi || wcBufCompare(pHi, &pRange->hi) < 0 ){
    bufCopy(&pRange->hi, pHi);
    pRange->bHi = 1;
  }
  wcAssert( pRange->hi.bOom || wcBufCompare(&pRange->hi, pHi) <= 0 );
}

/* Applies one bound on the range element, whose bytes order exactly as
** its values (or in reverse), to a range within prefix P. */
static void applyBound(Builder *b, WcRange *pRange, const WcBuf *pP,
                       int iElem, const WcValue *pVal, int bLower, int bIncl){
  const WcSchema *pS = b->pS;
  const WcElement *pElem = &pS->aElem[iElem];
  int bByteLower = bLower == (pElem->eOrder == WC_ORDER_ASC);
  WcBuf *pKey = &b->pOut->key, *pAfter = &b->pOut->after;
  int rc;
  wcAssert( iElem >= 0 && iElem < pS->nElem && pElem->iCol >= 0 );
  bufCopy(pKey, pP);
  b->aVal[pElem->iCol] = *pVal;
  rc = wcEncodeElement(pS, b->pTab->pHasher, iElem, b->aVal, 1, pKey, 0);
  encodeFailed(b, rc);
  if( rc == WC_OK ){
    /* An inclusive value bound keeps keys equal to it: the byte lower
    ** bound is the key itself, the byte upper bound the key after it.
    ** An exclusive one is the reverse. */
    int bAfter = bByteLower ? !bIncl : bIncl;
    if( !bAfter ){
      if( bByteLower ) raiseLo(pRange, pKey); else lowerHi(pRange, pKey);
    }else if( keyAfter(pS, iElem, pKey, pAfter) ){
      if( bByteLower ) raiseLo(pRange, pAfter); else lowerHi(pRange, pAfter);
    }else if( bByteLower ){
      pRange->bHi = 1;     /* nothing is after an all-0xFF key: empty */
      pRange->hi.n = 0;
    }
  }
  if( pKey->bOom || pAfter->bOom ) b->rc = SQLITE_NOMEM;
}

/* LIKE 'abc%' and GLOB 'abc*': the literal prefix of the pattern gives
** the value range [lo, hi).  LIKE ignores the case of ASCII letters, so lo
** has them upper-case and hi is past their lower-case form. */
static void patternRange(sqlite3_value *pPattern, int bLike, WcBuf *pLo,
                         WcBuf *pHi, int *pbHi){
  const unsigned char *z = sqlite3_value_text(pPattern);
  int64_t n = sqlite3_value_bytes(pPattern), i;
  const char *zWild = bLike ? "%_" : "*?[";
  WcBuf hiText;
  memset(&hiText, 0, sizeof(hiText));
  *pbHi = 0;
  if( z == 0 ) return;
  for(i = 0; i < n && !strchr(zWild, z[i]); i++){
    unsigned char cLo = z[i], cHi = z[i];
    if( bLike && cLo >= 'a' && cLo <= 'z' ) cLo -= 'a' - 'A';
    if( bLike && cHi >= 'A' && cHi <= 'Z' ) cHi += 'a' - 'A';
    wcBufAppend(pLo, &cLo, 1);
    wcBufAppend(&hiText, &cHi, 1);
  }
  if( i > 0 ) *pbHi = prefixEnd(&hiText, pHi);
  wcBufFree(&hiText);
}

/*
** Exact ranges of an element whose bytes sort as its values except around
** prefixes (WC_ORDER_PREFIX): text followed by a delimiter, or padded.
**
** A key holds P + E(x) + ..., E(x) being the value x followed by what
** ends it (fill, delimiter).  For a value x that is neither a bound nor a
** prefix of one, the raw bytes decide as the values do: x < v exactly when
** P + E(x)... < P + v.  Only the bounds and their prefixes can land on the
** wrong side: 'host1' + '_' sorts after 'host10' when '_' > '0'.  So the
** ranges are [P + lo, P + hi) less the keys of every such value the
** bounds exclude, plus the keys of every such value they include: at most
** one narrow range per prefix of a bound, and no row read that is not
** returned.
*/
typedef struct ValueBounds ValueBounds;
struct ValueBounds {
  int bEmpty;           /* No value satisfies them */
  int bLo, bLoIncl;     /* A lower bound: its bytes, inclusive or not */
  WcBuf lo;
  int bHi, bHiIncl;     /* An upper bound */
  WcBuf hi;
};

/* Narrows the bounds by value v (bytes, as the field compares them). */
static void boundsNarrow(ValueBounds *p, const unsigned char *a, int64_t n,
                         int bLower, int bIncl){
  int *pbHas = bLower ? &p->bLo : &p->bHi;
  int *pbIncl = bLower ? &p->bLoIncl : &p->bHiIncl;
  WcBuf *pBuf = bLower ? &p->lo : &p->hi;
  int c = *pbHas ? wcBytesCompare(a, n, pBuf->a, pBuf->n) : 0;
  if( !*pbHas || (bLower ? c > 0 : c < 0) || (c == 0 && !bIncl) ){
    pBuf->n = 0;
    wcBufAppend(pBuf, a, n);
    *pbHas = 1;
    *pbIncl = bIncl;
  }
}

/* Calls xBound(b, pCtx, pVal, bLower, bIncl) for each bound the plan's
** range terms put on element iElem: one per comparison, two for a LIKE or
** GLOB prefix; pVal NULL when no value of the field satisfies the term. */
typedef void (*BoundFn)(Builder *b, void *pCtx, const WcValue *pVal,
                        int bLower, int bIncl);

static void forEachBound(Builder *b, int iElem, BoundFn xBound, void *pCtx){
  const WcPlan *pPlan = b->pPlan;
  int iCol = b->pS->aElem[iElem].iCol, i;
  for(i = 0; i < pPlan->nTerm && b->rc == SQLITE_OK; i++){
    const WcTerm *pTerm = &pPlan->aTerm[i];
    WcValue v;
    if( pTerm->iCol != iCol ) continue;
    if( pTerm->eOp == WC_TERM_LIKE || pTerm->eOp == WC_TERM_GLOB ){
      WcBuf lo, hi;
      int bHi = 0;
      memset(&lo, 0, sizeof(lo));
      memset(&hi, 0, sizeof(hi));
      memset(&v, 0, sizeof(v));
      v.eType = SQLITE_TEXT;
      patternRange(b->argv[i], pTerm->eOp == WC_TERM_LIKE, &lo, &hi, &bHi);
      if( lo.bOom || hi.bOom ){
        b->rc = SQLITE_NOMEM;
      }else{
        if( lo.n > 0 ){
          v.a = lo.a;
          v.n = lo.n;
          xBound(b, pCtx, &v, 1, 1);
        }
        if( bHi ){
          v.a = hi.a;
          v.n = hi.n;
          xBound(b, pCtx, &v, 0, 0);
        }
      }
      wcBufFree(&lo);
      wcBufFree(&hi);
    }else if( pTerm->eOp >= WC_TERM_GT && pTerm->eOp <= WC_TERM_LE ){
      int bLower = pTerm->eOp == WC_TERM_GT || pTerm->eOp == WC_TERM_GE;
      int bIncl = pTerm->eOp == WC_TERM_GE || pTerm->eOp == WC_TERM_LE;
      sqlite3_value *pCopy = 0;
      int eBound = fieldBound(b, iCol, iElem, b->argv[i], bLower, bIncl, &v,
                              &bIncl, &pCopy);
      if( eBound == BOUND_EMPTY ) xBound(b, pCtx, 0, bLower, bIncl);
      if( eBound == BOUND_VALUE ) xBound(b, pCtx, &v, bLower, bIncl);
      sqlite3_value_free(pCopy);
    }
  }
}

static void boundsNarrowBy(Builder *b, void *pCtx, const WcValue *pVal,
                           int bLower, int bIncl){
  ValueBounds *p = (ValueBounds*)pCtx;
  (void)b;
  if( pVal == 0 ){
    p->bEmpty = 1;
  }else{
    boundsNarrow(p, pVal->a, pVal->n, bLower, bIncl);
  }
}

/* The bounds the plan's range terms put on element iElem. */
static void boundsGather(Builder *b, int iElem, ValueBounds *p){
  forEachBound(b, iElem, boundsNarrowBy, p);
  if( p->lo.bOom || p->hi.bOom ) b->rc = SQLITE_NOMEM;
  if( p->bLo && p->bHi ){
    int c = wcBytesCompare(p->lo.a, p->lo.n, p->hi.a, p->hi.n);
    if( c > 0 || (c == 0 && !(p->bLoIncl && p->bHiIncl)) ) p->bEmpty = 1;
  }
}

static int boundsAllow(const ValueBounds *p, const unsigned char *a,
                       int64_t n){
  int c;
  if( p->bLo ){
    c = wcBytesCompare(a, n, p->lo.a, p->lo.n);
    if( c < 0 || (c == 0 && !p->bLoIncl) ) return 0;
  }
  if( p->bHi ){
    c = wcBytesCompare(a, n, p->hi.a, p->hi.n);
    if( c > 0 || (c == 0 && !p->bHiIncl) ) return 0;
  }
  return 1;
}

/* The keys under prefix P whose element iElem is exactly a[0..n), in
** *pOut.  0 if no stored value can be it (the field refuses it: too
** long, the delimiter inside, the fill at its end) or on an error. */
static int valueKeys(Builder *b, const WcBuf *pP, int iElem,
                     const unsigned char *a, int64_t n, WcRange *pOut){
  const WcSchema *pS = b->pS;
  int iCol = pS->aElem[iElem].iCol, rc;
  WcValue *pV = &b->aVal[iCol];
  memset(pV, 0, sizeof(*pV));
  pV->eType = pS->aCol[iCol].cAff == WC_AFF_BLOB ? SQLITE_BLOB : SQLITE_TEXT;
  pV->a = n ? a : (const unsigned char*)"";
  pV->n = n;
  bufCopy(&pOut->lo, pP);
  rc = wcEncodeElement(pS, b->pTab->pHasher, iElem, b->aVal, 0, &pOut->lo, 0);
  if( encodeFailed(b, rc) || rc != WC_OK ) return 0;
  wcAppendSeparator(pS, iElem, &pOut->lo);
  pOut->bHi = keyAfter(pS, iElem, &pOut->lo, &pOut->hi);
  if( pOut->lo.bOom || pOut->hi.bOom ){
    b->rc = SQLITE_NOMEM;
    return 0;
  }
  return 1;
}

static int rangeInside(const WcRange *pIn, const WcRange *pOut){
  return wcBufCompare(&pIn->lo, &pOut->lo) >= 0
      && (!pOut->bHi || (pIn->bHi && wcBufCompare(&pIn->hi, &pOut->hi) <= 0));
}

static int rangesMeet(const WcRange *pA, const WcRange *pB){
  return (!pA->bHi || wcBufCompare(&pB->lo, &pA->hi) < 0)
      && (!pB->bHi || wcBufCompare(&pA->lo, &pB->hi) < 0);
}

/* Appends [pLo, pHi) (pHi NULL: unbounded) to the builder's ranges. */
static void addRange(Builder *b, const WcBuf *pLo, const WcBuf *pHi){
  WcRange *pNew = newRange(b);
  if( pNew == 0 ) return;
  bufCopy(&pNew->lo, pLo);
  pNew->bHi = pHi != 0;
  if( pHi ) bufCopy(&pNew->hi, pHi);
}

static int compareRanges(const void *pA, const void *pB);

static void exactRanges(Builder *b, const WcBuf *pP, int iElem,
                        const ValueBounds *pB){
  WcRange main, cand, *aHole = 0;
  WcBuf cur;
  int nHole = 0, iSrc, i;
  int64_t nCommon = 0, n;
  memset(&main, 0, sizeof(main));
  memset(&cand, 0, sizeof(cand));
  memset(&cur, 0, sizeof(cur));
  bufCopy(&main.lo, pP);
  if( pB->bLo ) wcBufAppend(&main.lo, pB->lo.a, pB->lo.n);
  if( pB->bHi ){
    bufCopy(&main.hi, pP);
    wcBufAppend(&main.hi, pB->hi.a, pB->hi.n);
    main.bHi = 1;
  }else{
    main.bHi = prefixEnd(pP, &main.hi);
  }
  if( pB->bLo && pB->bHi ){
    while( nCommon < pB->lo.n && nCommon < pB->hi.n
        && pB->lo.a[nCommon] == pB->hi.a[nCommon] ){
      nCommon++;
    }
  }
  /* The values that may land on the wrong side: each bound and its
  ** prefixes; a prefix of hi that lo shares was taken with lo's. */
  for(iSrc = 0; iSrc < 2 && b->rc == SQLITE_OK; iSrc++){
    const WcBuf *pSrc = iSrc ? &pB->hi : &pB->lo;
    if( !(iSrc ? pB->bHi : pB->bLo) ) continue;
    for(n = 0; n <= pSrc->n && b->rc == SQLITE_OK; n++){
      int bWant;
      if( iSrc && pB->bLo && n <= nCommon ) continue;
      if( !valueKeys(b, pP, iElem, pSrc->a, n, &cand) ) continue;
      bWant = boundsAllow(pB, pSrc->a, n);
      if( bWant && !rangeInside(&cand, &main) ){
        addRange(b, &cand.lo, cand.bHi ? &cand.hi : 0);
      }else if( !bWant && rangesMeet(&cand, &main) ){
        WcRange *aNew = sqlite3_realloc64(aHole, sizeof(WcRange)
                                          * (sqlite3_uint64)(nHole + 1));
        if( aNew == 0 ){
          b->rc = SQLITE_NOMEM;
          break;
        }
        aHole = aNew;
        aHole[nHole++] = cand;
        memset(&cand, 0, sizeof(cand));
      }
    }
  }
  /* main less the holes, which are disjoint (one value each). */
  if( nHole > 1 ) qsort(aHole, (size_t)nHole, sizeof(WcRange), compareRanges);
  bufCopy(&cur, &main.lo);
  for(i = 0; i < nHole && b->rc == SQLITE_OK; i++){
    if( wcBufCompare(&aHole[i].lo, &cur) > 0 ){
      int bCut = main.bHi && wcBufCompare(&aHole[i].lo, &main.hi) > 0;
      addRange(b, &cur, bCut ? &main.hi : &aHole[i].lo);
    }
    if( !aHole[i].bHi ) break;
    if( wcBufCompare(&aHole[i].hi, &cur) > 0 ) bufCopy(&cur, &aHole[i].hi);
  }
  if( b->rc == SQLITE_OK && i == nHole ){
    addRange(b, &cur, main.bHi ? &main.hi : 0);
  }
  if( cur.bOom || main.lo.bOom || main.hi.bOom ) b->rc = SQLITE_NOMEM;
  for(i = 0; i < nHole; i++) wcRangeFree(&aHole[i]);
  sqlite3_free(aHole);
  wcRangeFree(&cand);
  wcRangeFree(&main);
  wcBufFree(&cur);
}

/* One range of prefix P, narrowed bound by bound (forEachBound). */
typedef struct RangeCtx RangeCtx;
struct RangeCtx {
  WcRange *pRange;
  const WcBuf *pP;
  int iElem;
};

static void rangeNarrowBy(Builder *b, void *pCtx, const WcValue *pVal,
                          int bLower, int bIncl){
  RangeCtx *p = (RangeCtx*)pCtx;
  if( pVal == 0 ){
    p->pRange->bHi = 1;       /* empty */
    p->pRange->hi.n = 0;
  }else{
    applyBound(b, p->pRange, p->pP, p->iElem, pVal, bLower, bIncl);
  }
}

/* The range of one prefix, narrowed by the range terms on iElem. */
static void rangeOfPrefix(Builder *b, const WcBuf *pP, int iElem){
  RangeCtx ctx;
  if( iElem >= 0 && b->pS->aElem[iElem].eOrder == WC_ORDER_PREFIX ){
    ValueBounds vb;
    memset(&vb, 0, sizeof(vb));
    boundsGather(b, iElem, &vb);
    if( !vb.bEmpty && b->rc == SQLITE_OK ) exactRanges(b, pP, iElem, &vb);
    wcBufFree(&vb.lo);
    wcBufFree(&vb.hi);
    return;
  }
  memset(&ctx, 0, sizeof(ctx));
  ctx.pRange = newRange(b);
  if( ctx.pRange == 0 ) return;
  bufCopy(&ctx.pRange->lo, pP);
  ctx.pRange->bHi = prefixEnd(pP, &ctx.pRange->hi);
  if( iElem < 0 ) return;
  ctx.pP = pP;
  ctx.iElem = iElem;
  forEachBound(b, iElem, rangeNarrowBy, &ctx);
}

/* rowkey compared as bytes with TEXT or BLOB values; a number sorts
** below every blob.  Fills the window [lo, hi); returns 0 if empty. */
static int rowkeyWindow(Builder *b, WcRange *pWin){
  static const unsigned char aZero[1] = { 0 };
  const WcPlan *pPlan = b->pPlan;
  int i;
  for(i = 0; i < pPlan->nTerm; i++){
    const WcTerm *pTerm = &pPlan->aTerm[i];
    int eType;
    WcBuf key;
    if( pTerm->iCol != b->pS->nCol || pTerm->eOp > WC_TERM_LE ) continue;
    eType = sqlite3_value_type(b->argv[i]);
    if( eType == SQLITE_NULL ) return 0;
    if( eType != SQLITE_TEXT && eType != SQLITE_BLOB ){
      if( pTerm->eOp == WC_TERM_GT || pTerm->eOp == WC_TERM_GE ) continue;
      return 0;
    }
    memset(&key, 0, sizeof(key));
    wcBufAppend(&key, eType == SQLITE_TEXT ? sqlite3_value_text(b->argv[i])
                      : sqlite3_value_blob(b->argv[i]),
                sqlite3_value_bytes(b->argv[i]));
    if( pTerm->eOp == WC_TERM_EQ || pTerm->eOp == WC_TERM_GE ){
      raiseLo(pWin, &key);
    }
    if( pTerm->eOp == WC_TERM_LT ) lowerHi(pWin, &key);
    wcBufAppend(&key, aZero, 1);
    if( pTerm->eOp == WC_TERM_GT ) raiseLo(pWin, &key);
    if( pTerm->eOp == WC_TERM_EQ || pTerm->eOp == WC_TERM_LE ){
      lowerHi(pWin, &key);
    }
    if( key.bOom ) b->rc = SQLITE_NOMEM;
    wcBufFree(&key);
  }
  return 1;
}

static int compareRanges(const void *pA, const void *pB){
  return wcBufCompare(&((const WcRange*)pA)->lo, &((const WcRange*)pB)->lo);
}

static void swapRanges(WcRange *pA, WcRange *pB){
  WcRange t = *pA;
  *pA = *pB;
  *pB = t;
}

/* Drops empty ranges, sorts the rest and merges overlaps so that no row
** is visited twice.  Ranges move by swapping, so that every slot keeps
** buffers of its own for the next call. */
static void finishRanges(Builder *b){
  WcRangeList *pRel = &b->pOut->rel;
  int i, n = 0;
  for(i = 0; i < pRel->n; i++){
    WcRange *pR = &pRel->a[i];
    if( !pR->bHi || wcBufCompare(&pR->lo, &pR->hi) < 0 ){
      swapRanges(&pRel->a[n++], pR);
    }
  }
  pRel->n = n;
  if( n > 1 ) qsort(pRel->a, (size_t)n, sizeof(WcRange), compareRanges);
  for(i = 1, n = pRel->n ? 1 : 0; i < pRel->n; i++){
    WcRange *pLast = &pRel->a[n - 1], *pR = &pRel->a[i];
    if( !pLast->bHi || wcBufCompare(&pR->lo, &pLast->hi) <= 0 ){
      /* Overlapping or touching: pLast grows to cover pR. */
      if( !pR->bHi ){
        pLast->bHi = 0;
      }else if( pLast->bHi && wcBufCompare(&pR->hi, &pLast->hi) > 0 ){
        bufCopy(&pLast->hi, &pR->hi);
      }
    }else{
      swapRanges(&pRel->a[n++], pR);
    }
  }
  pRel->n = n;
  /* Sorted, non-empty, and apart: each ends before the next begins. */
  for(i = 0; i < n; i++){
    wcAssert( !pRel->a[i].bHi
              || wcBufCompare(&pRel->a[i].lo, &pRel->a[i].hi) < 0 );
    wcAssert( i + 1 == n || (pRel->a[i].bHi
              && wcBufCompare(&pRel->a[i].hi, &pRel->a[i + 1].lo) < 0) );
  }
  if( b->pPlan->bDesc ){
    for(i = 0; i < n / 2; i++) swapRanges(&pRel->a[i], &pRel->a[n - 1 - i]);
  }
}

/* Gathers the '=' and IN values of each column from argv. */
static void gatherArgs(Builder *b){
  const WcPlan *pPlan = b->pPlan;
  int i;
  for(i = 0; i < pPlan->nTerm && b->rc == SQLITE_OK; i++){
    const WcTerm *pTerm = &pPlan->aTerm[i];
    ColArgs *pArgs;
    sqlite3_value *pVal = 0;
    int rc;
    if( pTerm->iCol >= b->pS->nCol ) continue;
    if( pTerm->eOp != WC_TERM_EQ && pTerm->eOp != WC_TERM_IN ) continue;
    pArgs = &b->aCol[pTerm->iCol];
    rc = pTerm->eOp == WC_TERM_IN ? sqlite3_vtab_in_first(b->argv[i], &pVal)
                                  : (pVal = b->argv[i], SQLITE_OK);
    while( rc == SQLITE_OK && pVal ){
      if( sqlite3_value_type(pVal) != SQLITE_NULL ){
        if( pArgs->nAlloc == 0 ){
          pArgs->apEq = &pArgs->pOne;
          pArgs->nAlloc = 1;
        }else if( pArgs->nEq == pArgs->nAlloc ){
          int nNew = pArgs->nAlloc * 2 + 2;
          sqlite3_value **apNew = sqlite3_malloc64(sizeof(sqlite3_value*)
                                                   * (sqlite3_uint64)nNew);
          if( apNew == 0 ){
            b->rc = SQLITE_NOMEM;
            return;
          }
          memcpy(apNew, pArgs->apEq, sizeof(sqlite3_value*)
                                     * (size_t)pArgs->nEq);
          if( pArgs->apEq != &pArgs->pOne ) sqlite3_free(pArgs->apEq);
          pArgs->apEq = apNew;
          pArgs->nAlloc = nNew;
        }
        /* sqlite3_vtab_in_next() may reuse one value object. */
        if( pTerm->eOp == WC_TERM_IN ){
          pVal = sqlite3_value_dup(pVal);
          if( pVal == 0 ){
            b->rc = SQLITE_NOMEM;
            return;
          }
          pArgs->bOwned = 1;
        }
        pArgs->apEq[pArgs->nEq++] = pVal;
      }
      rc = pTerm->eOp == WC_TERM_IN ? sqlite3_vtab_in_next(b->argv[i], &pVal)
                                    : (pVal = 0, SQLITE_OK);
    }
    if( rc != SQLITE_OK && rc != SQLITE_DONE ) b->rc = rc;
  }
}

/* Points the builder's per-column arrays into pOut->cols. */
static void builderColumns(Builder *b){
  int64_t nCol = b->pS->nCol;
  int64_t nByte = (int64_t)(sizeof(ColArgs) + sizeof(WcValue)
                            + sizeof(sqlite3_value*)) * nCol;
  WcBuf *pCols = &b->pOut->cols;
  pCols->n = 0;
  if( wcBufReserve(pCols, nByte) ){
    b->rc = SQLITE_NOMEM;
    return;
  }
  /* sqlite3_malloc() aligns for any type, and each array's size is a
  ** multiple of its element's, which holds a pointer or an int64. */
  b->aCol = (ColArgs*)pCols->a;
  memset(b->aCol, 0, (sizeof(ColArgs) + sizeof(WcValue)) * (size_t)nCol);
  b->aVal = (WcValue*)&b->aCol[nCol];
  b->apCopy = (sqlite3_value**)&b->aVal[nCol];
}

int wcRangesBuild(WcVtab *p, const WcPlan *pPlan, sqlite3_value **argv,
                  WcRanges *pOut, int *pbWidened){
  Builder b;
  int i, iElem, iLast = pPlan->nSkip + pPlan->nEqElem;
  WcRange *pWindow = &pOut->win;
  memset(&b, 0, sizeof(b));
  *pbWidened = 0;
  b.pTab = p;
  b.pS = p->aPath[pPlan->iPath].pKey;
  b.pPlan = pPlan;
  b.argv = argv;
  b.pOut = pOut;
  builderColumns(&b);
  wcRangeListClear(&pOut->rel);
  wcBufClear(&pWindow->lo);
  wcBufClear(&pWindow->hi);
  pWindow->bHi = 0;
  if( b.rc == SQLITE_OK && !pPlan->bEmpty && rowkeyWindow(&b, pWindow) ){
    gatherArgs(&b);
    /* A number compared with a TEXT field stops the narrowing. */
    iElem = narrowableEnd(&b, iLast);
    *pbWidened = iElem < iLast;
    buildPrefixes(&b, iElem);
    for(i = 0; i < pOut->prefixes.n && b.rc == SQLITE_OK; i++){
      const WcBuf *pPrefix = &pOut->prefixes.a[i].lo;
      if( iElem == b.pS->nElem ){
        /* The whole key is fixed: the range holds that key alone (an
        ** index key and the row keys after it; when it is all 0xFF
        ** bytes, nothing bounds it above). */
        WcRange *pRange = newRange(&b);
        if( pRange ){
          bufCopy(&pRange->lo, pPrefix);
          pRange->bHi = keyAfter(b.pS, iElem - 1, pPrefix, &pRange->hi);
        }
      }else{
        rangeOfPrefix(&b, pPrefix, iElem == iLast ? pPlan->iRangeElem : -1);
      }
    }
    if( b.rc == SQLITE_OK ) finishRanges(&b);
  }
  if( b.aCol ){
    for(i = 0; i < b.pS->nCol; i++){
      int j;
      for(j = 0; b.aCol[i].bOwned && j < b.aCol[i].nEq; j++){
        sqlite3_value_free(b.aCol[i].apEq[j]);
      }
      if( b.aCol[i].apEq != &b.aCol[i].pOne ) sqlite3_free(b.aCol[i].apEq);
    }
  }
  for(i = 0; i < pOut->rel.n && b.rc == SQLITE_OK; i++){
    if( pOut->rel.a[i].lo.bOom || pOut->rel.a[i].hi.bOom ) b.rc = SQLITE_NOMEM;
  }
  if( pWindow->lo.bOom || pWindow->hi.bOom ) b.rc = SQLITE_NOMEM;
  if( b.rc != SQLITE_OK ) wcRangesFree(pOut);
  return b.rc;
}

int wcRangesEnumBounds(WcVtab *p, const WcPlan *pPlan, sqlite3_value **argv,
                       int64_t *piLo, int64_t *piHi){
  Builder b;
  int iElem = pPlan->nSkip;
  int iCol = p->aPath[pPlan->iPath].pKey->aElem[pPlan->nSkip].iCol;
  int i, bEmpty = 0;
  memset(&b, 0, sizeof(b));
  b.pTab = p;
  b.pS = p->aPath[pPlan->iPath].pKey;
  b.pPlan = pPlan;
  *piLo = INT64_MIN;
  *piHi = INT64_MAX;
  for(i = 0; i < pPlan->nTerm && b.rc == SQLITE_OK; i++){
    const WcTerm *pTerm = &pPlan->aTerm[i];
    int bLower = pTerm->eOp == WC_TERM_GT || pTerm->eOp == WC_TERM_GE;
    int bIncl = pTerm->eOp == WC_TERM_GE || pTerm->eOp == WC_TERM_LE;
    sqlite3_value *pCopy = 0;
    WcValue v;
    int eBound;
    if( pTerm->iCol != iCol || pTerm->eOp < WC_TERM_GT
     || pTerm->eOp > WC_TERM_LE ){
      continue;
    }
    eBound = fieldBound(&b, iCol, iElem, argv[i], bLower, bIncl, &v, &bIncl,
                        &pCopy);
    if( eBound == BOUND_EMPTY ) bEmpty = 1;
    if( eBound == BOUND_VALUE && v.eType == SQLITE_INTEGER ){
      if( bLower && v.i > *piLo ) *piLo = v.i;
      if( !bLower && v.i < *piHi ) *piHi = v.i;
    }
    sqlite3_value_free(pCopy);
  }
  if( bEmpty ){
    *piLo = 1;
    *piHi = 0;
  }
  return b.rc;
}

int wcRangesEnumCompose(WcVtab *p, const WcPlan *pPlan, int64_t iValue,
                        const WcRangeList *pRel, const WcRange *pWindow,
                        WcRangeList *pOut){
  const WcSchema *pS = p->aPath[pPlan->iPath].pKey;
  int iField = pPlan->nSkip, iElem, rc = WC_OK;
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * (sqlite3_uint64)pS->nCol);
  WcBuf base, point;
  WcRange win;
  memset(&base, 0, sizeof(base));
  memset(&point, 0, sizeof(point));
  memset(&win, 0, sizeof(win));
  pOut->n = 0;
  if( aVal == 0 ) return SQLITE_NOMEM;
  memset(aVal, 0, sizeof(WcValue) * (size_t)pS->nCol);
  aVal[pS->aElem[iField].iCol].eType = SQLITE_INTEGER;
  aVal[pS->aElem[iField].iCol].i = iValue;
  for(iElem = 0; iElem < iField && rc == WC_OK; iElem++){
    rc = wcEncodeElement(pS, p->pHasher, iElem, aVal, 0, &base, 0);
    wcAppendSeparator(pS, iElem, &base);
  }
  bufCopy(&point, &base);
  if( rc == WC_OK ){
    rc = wcEncodeElement(pS, p->pHasher, iField, aVal, 0, &point, 0);
  }
  sqlite3_free(aVal);
  if( rc == WC_OK ){
    /* The keys whose field holds iValue, within the rowkey window. */
    wcAppendSeparator(pS, iField, &point);
    bufCopy(&win.lo, &point);
    win.bHi = keyAfter(pS, iField, &point, &win.hi);
    raiseLo(&win, &pWindow->lo);
    if( pWindow->bHi ) lowerHi(&win, &pWindow->hi);
  }
  if( rc == WC_NOMEM || base.bOom || point.bOom || win.lo.bOom
   || win.hi.bOom ){
    rc = SQLITE_NOMEM;
  }else if( rc == WC_ERROR ){
    rc = hashFailed(p);
  }else if( rc == WC_OK ){
    rc = wcRangesCompose(pRel, &win, base.a, base.n, pOut);
  }else{
    rc = SQLITE_OK;     /* a value the field cannot hold: no keys */
  }
  wcBufFree(&base);
  wcBufFree(&point);
  wcRangeFree(&win);
  return rc;
}

int wcRangesCompose(const WcRangeList *pRel, const WcRange *pWindow,
                    const unsigned char *aBase, int64_t nBase,
                    WcRangeList *pOut){
  WcBuf base;
  int i;
  memset(&base, 0, sizeof(base));
  base.a = (unsigned char*)aBase;
  base.n = nBase;
  if( pOut->nAlloc < pRel->n ){
    WcRange *aNew = sqlite3_realloc64(pOut->a, sizeof(WcRange)
                                      * (sqlite3_uint64)pRel->n);
    if( aNew == 0 ) return SQLITE_NOMEM;
    memset(&aNew[pOut->nAlloc], 0, sizeof(WcRange)
           * (size_t)(pRel->n - pOut->nAlloc));
    pOut->a = aNew;
    pOut->nAlloc = pRel->n;
  }
  pOut->n = 0;
  for(i = 0; i < pRel->n; i++){
    const WcRange *pR = &pRel->a[i];
    WcRange *pNew = &pOut->a[pOut->n];
    pNew->lo.n = 0;
    wcBufAppend(&pNew->lo, aBase, nBase);
    wcBufAppend(&pNew->lo, pR->lo.a, pR->lo.n);
    if( pR->bHi ){
      pNew->hi.n = 0;
      wcBufAppend(&pNew->hi, aBase, nBase);
      wcBufAppend(&pNew->hi, pR->hi.a, pR->hi.n);
      pNew->bHi = 1;
    }else{
      /* No bound after the prefix: the end of the prefix. */
      pNew->bHi = prefixEnd(&base, &pNew->hi);
    }
    raiseLo(pNew, &pWindow->lo);
    if( pWindow->bHi ) lowerHi(pNew, &pWindow->hi);
    if( pNew->lo.bOom || pNew->hi.bOom ) return SQLITE_NOMEM;
    if( !pNew->bHi || wcBufCompare(&pNew->lo, &pNew->hi) < 0 ) pOut->n++;
  }
  wcAssert( pOut->n <= pRel->n && pOut->n <= pOut->nAlloc );
  return SQLITE_OK;
}

int wcRangeListAppend(WcRangeList *pOut, const WcRangeList *pIn){
  int i;
  if( pOut->nAlloc < pOut->n + pIn->n ){
    int nNew = pOut->n + pIn->n;
    WcRange *aNew = sqlite3_realloc64(pOut->a, sizeof(WcRange)
                                      * (sqlite3_uint64)nNew);
    if( aNew == 0 ) return SQLITE_NOMEM;
    memset(&aNew[pOut->nAlloc], 0, sizeof(WcRange)
           * (size_t)(nNew - pOut->nAlloc));
    pOut->a = aNew;
    pOut->nAlloc = nNew;
  }
  for(i = 0; i < pIn->n; i++){
    WcRange *pNew = &pOut->a[pOut->n++];
    pNew->lo.n = pNew->hi.n = 0;
    wcBufAppend(&pNew->lo, pIn->a[i].lo.a, pIn->a[i].lo.n);
    wcBufAppend(&pNew->hi, pIn->a[i].hi.a, pIn->a[i].hi.n);
    pNew->bHi = pIn->a[i].bHi;
    if( pNew->lo.bOom || pNew->hi.bOom ) return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

void wcRangeFree(WcRange *pRange){
  wcBufFree(&pRange->lo);
  wcBufFree(&pRange->hi);
  pRange->bHi = 0;
}

void wcRangeListFree(WcRangeList *pList){
  int i;
  for(i = 0; i < pList->nAlloc; i++) wcRangeFree(&pList->a[i]);
  sqlite3_free(pList->a);
  memset(pList, 0, sizeof(*pList));
}

void wcRangeListClear(WcRangeList *pList){
  int i;
  for(i = 0; i < pList->nAlloc; i++){
    if( pList->a[i].lo.bOom || pList->a[i].hi.bOom ) wcRangeFree(&pList->a[i]);
  }
  pList->n = 0;
}

void wcRangesFree(WcRanges *pRanges){
  wcRangeListFree(&pRanges->rel);
  wcRangeFree(&pRanges->win);
  wcRangeListFree(&pRanges->prefixes);
  wcBufFree(&pRanges->key);
  wcBufFree(&pRanges->after);
  wcBufFree(&pRanges->cols);
}
