/*
** wc_prefetch.c: the rows a statement's writes replace, read ahead in key
** order (see wc_prefetch.h).
**
** One window at a time: the rows from key lo on, at most nWindow of them,
** read by one WC_STMT_READ_AHEAD.  Fewer than asked means the table ends
** in the window, so it covers every key from lo on; else it covers lo up
** to the last key read.  A key it covers is answered from it (a row, or
** none), unless the statement wrote it since.  The window grows four-fold
** (up to the store's nReadAhead) after one that answered more than the
** key it was read for, and shrinks four-fold after one that did not, so
** that writes in key order, dense or sparse, read a call per many keys,
** and writes in no order read about a row a call, as reads by key do,
** except into a table that was empty when the statement began (one more
** read tells, where the first window finds nothing), which read nothing
** more.
*/
#include "vtab/wc_prefetch.h"
#include "util/wc_keyset.h"

#include <string.h>

/* The first window's rows. */
#define WC_PREFETCH_FIRST 16

struct WcPrefetch {
  int bValid;           /* A window has been read since the reset */
  WcBuf lo;             /* Its first key, */
  WcBuf hi;             /* and its last row's, unless bToEnd */
  int bToEnd;           /* It reaches the end of the table */
  int nCol;             /* Values a row holds (WC_STMT_READ's columns) */
  int nRow;             /* Rows held, in key order, */
  int nRowAlloc;
  WcBuf *aKey;          /* their keys, */
  sqlite3_value **apVal;   /* and values, nCol a row */
  WcHashSet dirty;      /* Keys written since the window was read */
  int nWindow;          /* Rows the next read asks for */
  int nAnswered;        /* Keys the window answered */
  int bRead;            /* A window was read in this statement */
};

WcPrefetch *wcPrefetchNew(void){
  WcPrefetch *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->nWindow = WC_PREFETCH_FIRST;
  }
  return p;
}

/* Drops the rows held, keeping the arrays. */
static void windowClear(WcPrefetch *p){
  int i;
  for(i = 0; i < p->nRow * p->nCol; i++){
    sqlite3_value_free(p->apVal[i]);
    p->apVal[i] = 0;
  }
  p->nRow = 0;
  p->bValid = 0;
  wcHashSetClear(&p->dirty);
}

void wcPrefetchReset(WcPrefetch *p){
  if( p ){
    windowClear(p);
    p->bRead = 0;
  }
}

void wcPrefetchFree(WcPrefetch *p){
  int i;
  if( p == 0 ) return;
  windowClear(p);
  for(i = 0; i < p->nRowAlloc; i++) wcBufFree(&p->aKey[i]);
  sqlite3_free(p->aKey);
  sqlite3_free(p->apVal);
  wcBufFree(&p->lo);
  wcBufFree(&p->hi);
  wcHashSetFree(&p->dirty);
  sqlite3_free(p);
}

/* True if the window read covers key aKey. */
static int windowCovers(const WcPrefetch *p, const unsigned char *aKey,
                        int64_t nKey){
  return p->bValid && wcBytesCompare(aKey, nKey, p->lo.a, p->lo.n) >= 0
      && (p->bToEnd || wcBytesCompare(aKey, nKey, p->hi.a, p->hi.n) <= 0);
}

/* Room for nRow rows of nCol values. */
static int windowReserve(WcPrefetch *p, int nRow, int nCol){
  if( nRow > p->nRowAlloc || nCol != p->nCol ){
    int nAlloc = nRow > p->nRowAlloc ? nRow : p->nRowAlloc;
    WcBuf *aKey = sqlite3_realloc64(p->aKey, sizeof(WcBuf) * (size_t)nAlloc);
    sqlite3_value **apVal;
    if( aKey == 0 ) return SQLITE_NOMEM;
    memset(&aKey[p->nRowAlloc], 0,
           sizeof(WcBuf) * (size_t)(nAlloc - p->nRowAlloc));
    p->aKey = aKey;
    p->nRowAlloc = nAlloc;
    apVal = sqlite3_realloc64(p->apVal, sizeof(sqlite3_value*)
                                        * (size_t)nAlloc * (size_t)nCol);
    if( apVal == 0 ) return SQLITE_NOMEM;
    memset(apVal, 0, sizeof(sqlite3_value*) * (size_t)nAlloc * (size_t)nCol);
    p->apVal = apVal;
    p->nCol = nCol;
  }
  return SQLITE_OK;
}

/* *pbEmpty: whether the store's table holds no row. */
static int tableEmpty(WcStore *pStore, int *pbEmpty){
  sqlite3_stmt *pStmt = 0;
  int rc = wcStoreAcquire(pStore, WC_STMT_READ_AHEAD, 0, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  sqlite3_bind_blob64(pStmt, 1, "", 0, SQLITE_STATIC);
  sqlite3_bind_int(pStmt, 2, 1);
  rc = sqlite3_step(pStmt);
  *pbEmpty = rc == SQLITE_DONE;
  rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK
     : wcStoreError(pStore, sqlite3_reset(pStmt));
  wcStoreRelease(pStore, WC_STMT_READ_AHEAD, 0, 0, pStmt);
  return rc;
}

/* Reads the window from aKey on; the next window's size follows from how
** many keys this one answered. */
static int windowRead(WcPrefetch *p, WcStore *pStore, const unsigned char *aKey,
                      int64_t nKey){
  const WcStoreCaps *pCaps = wcStoreCaps(pStore);
  sqlite3_stmt *pStmt = 0;
  int rc, nCol;
  if( p->bValid ){
    if( p->nAnswered > 1 ){
      p->nWindow *= 4;
      if( p->nWindow > pCaps->nReadAhead ) p->nWindow = pCaps->nReadAhead;
    }else{
      p->nWindow = p->nWindow / 4 > 0 ? p->nWindow / 4 : 1;
    }
  }
  windowClear(p);
  p->nAnswered = 0;
  rc = wcStoreAcquire(pStore, WC_STMT_READ_AHEAD, 0, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  nCol = sqlite3_column_count(pStmt) - 1;
  rc = windowReserve(p, p->nWindow, nCol);
  sqlite3_bind_blob64(pStmt, 1, nKey ? aKey : (const unsigned char*)"",
                      (sqlite3_uint64)nKey, SQLITE_STATIC);
  sqlite3_bind_int(pStmt, 2, p->nWindow);
  while( rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    WcBuf *pKey = &p->aKey[p->nRow];
    int i;
    /* The statement asks for nWindow rows at most, in key order. */
    wcAssert( p->nRow < p->nWindow && p->nRow < p->nRowAlloc );
    rc = SQLITE_OK;
    pKey->n = 0;
    wcBufAppend(pKey, sqlite3_column_blob(pStmt, nCol),
                sqlite3_column_bytes(pStmt, nCol));
    if( pKey->bOom ) rc = SQLITE_NOMEM;
    for(i = 0; i < nCol && rc == SQLITE_OK; i++){
      sqlite3_value **ppVal = &p->apVal[p->nRow * nCol + i];
      *ppVal = sqlite3_value_dup(sqlite3_column_value(pStmt, i));
      if( *ppVal == 0 ) rc = SQLITE_NOMEM;
    }
    wcAssert( p->nRow == 0 || rc != SQLITE_OK
              || wcBufCompare(&p->aKey[p->nRow - 1], pKey) < 0 );
    p->nRow++;
  }
  if( rc == SQLITE_DONE ){
    rc = SQLITE_OK;
  }else if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
    rc = wcStoreError(pStore, sqlite3_reset(pStmt));
  }
  wcStoreRelease(pStore, WC_STMT_READ_AHEAD, 0, 0, pStmt);
  if( rc != SQLITE_OK ){
    windowClear(p);
    return rc;
  }
  p->lo.n = 0;
  wcBufAppend(&p->lo, aKey, nKey);
  p->bToEnd = p->nRow < p->nWindow;
  p->hi.n = 0;
  if( !p->bToEnd ){
    wcBufAppend(&p->hi, p->aKey[p->nRow - 1].a, p->aKey[p->nRow - 1].n);
  }
  if( p->lo.bOom || p->hi.bOom ) return SQLITE_NOMEM;
  p->bValid = 1;
  /* The statement's first window found nothing from its first key on:
  ** if nothing comes before it either, the table was empty, and every key
  ** is answered (a load in no key order then reads nothing more). */
  if( !p->bRead && p->nRow == 0 && nKey > 0 ){
    rc = tableEmpty(pStore, &p->bValid);
    if( rc != SQLITE_OK ) return rc;
    if( p->bValid ) p->lo.n = 0; else p->bValid = 1;
  }
  p->bRead = 1;
  return SQLITE_OK;
}

int wcPrefetchFind(WcPrefetch *p, WcStore *pStore, const unsigned char *aKey,
                   int64_t nKey, sqlite3_value ***papRow, int *pbKnown){
  int lo = 0, hi;
  *papRow = 0;
  *pbKnown = 0;
  if( wcHashSetMay(&p->dirty, aKey, nKey) ) return SQLITE_OK;
  if( !windowCovers(p, aKey, nKey) ){
    int rc = windowRead(p, pStore, aKey, nKey);
    if( rc != SQLITE_OK ) return rc;
  }
  *pbKnown = 1;
  p->nAnswered++;
  wcAssert( windowCovers(p, aKey, nKey) && p->nRow <= p->nRowAlloc );
  hi = p->nRow - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    int c = wcBytesCompare(p->aKey[mid].a, p->aKey[mid].n, aKey, nKey);
    if( c == 0 ){
      *papRow = &p->apVal[mid * p->nCol];
      return SQLITE_OK;
    }
    if( c < 0 ) lo = mid + 1; else hi = mid - 1;
  }
  return SQLITE_OK;
}

int wcPrefetchDirty(WcPrefetch *p, const unsigned char *aKey, int64_t nKey){
  if( !windowCovers(p, aKey, nKey) ) return SQLITE_OK;
  return wcHashSetAdd(&p->dirty, aKey, nKey);
}
