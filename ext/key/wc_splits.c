/*
** wc_splits.c: a design's split points (see wc_splits.h), computed from
** its key alone: for widecol_ddl() and for a store that pre-splits a
** table when it makes it (Bigtable's CreateTable, wc_store.c).
*/
#include "util/wc_api.h"
#include "key/wc_splits.h"

#include <string.h>

void wcSplitsFree(WcSplits *p){
  int i;
  for(i = 0; i < p->n; i++) wcBufFree(&p->a[i]);
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

int wcSplitsAdd(WcSplits *p, const unsigned char *a, int64_t n){
  WcBuf *aNew = sqlite3_realloc64(p->a, sizeof(WcBuf) * (size_t)(p->n + 1));
  if( aNew == 0 ) return SQLITE_NOMEM;
  p->a = aNew;
  memset(&p->a[p->n], 0, sizeof(WcBuf));
  wcBufAppend(&p->a[p->n], a, n);
  return p->a[p->n++].bOom ? SQLITE_NOMEM : SQLITE_OK;
}

int wcDesignSplits(const WcSchema *pS, WcSplits *pOut){
  uint64_t nValue, i;
  int k, rc = SQLITE_OK;
  WcBuf key;
  for(k = 0; k < pS->nSplit && rc == SQLITE_OK; k++){
    rc = wcSplitsAdd(pOut, pS->aSplit[k].a, pS->aSplit[k].n);
  }
  if( pS->nSplit > 0 || pS->aElem[0].eKind == WC_ELEM_COLUMN ) return rc;
  nValue = wcDerivedCount(pS, 0);
  memset(&key, 0, sizeof(key));
  /* A TOKEN: WC_MAX_SPLITS even parts of the token space, as a ring's
  ** evenly spaced tokens. */
  for(i = 1; pS->aElem[0].bToken && rc == SQLITE_OK && i < WC_MAX_SPLITS;
      i++){
    key.n = 0;
    rc = wcEncodeDerived(pS, 0, i * (UINT64_MAX / WC_MAX_SPLITS), &key)
         == WC_OK ? wcSplitsAdd(pOut, key.a, key.n) : SQLITE_NOMEM;
  }
  for(i = 1; rc == SQLITE_OK && nValue >= 2
          && i < (nValue < WC_MAX_SPLITS ? nValue : WC_MAX_SPLITS); i++){
    uint64_t iValue = nValue <= WC_MAX_SPLITS ? i
        : (uint64_t)((double)i * (double)nValue / WC_MAX_SPLITS);
    key.n = 0;
    rc = wcEncodeDerived(pS, 0, iValue, &key) == WC_OK
         ? wcSplitsAdd(pOut, key.a, key.n) : SQLITE_NOMEM;
  }
  wcBufFree(&key);
  return rc;
}
