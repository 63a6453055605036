/*
** wc_buf.c: the growable byte string of wc_buf.h.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "util/wc_buf.h"

#include <string.h>

int wcBufGrow(WcBuf *p, int64_t n){
  int64_t nNew = p->nAlloc ? p->nAlloc * 2 : 64;
  unsigned char *aNew;
  while( nNew < p->n + n ) nNew *= 2;
  aNew = sqlite3_realloc64(p->a, (sqlite3_uint64)nNew);
  if( aNew == 0 ){
    p->bOom = 1;
    return 1;
  }
  p->a = aNew;
  p->nAlloc = nNew;
  return 0;
}

void wcBufFree(WcBuf *p){
  sqlite3_free(p->a);
  memset(p, 0, sizeof(*p));
}

void wcBufClear(WcBuf *p){
  if( p->bOom ) wcBufFree(p);
  p->n = 0;
}

uint32_t wcBytesHash(const unsigned char *a, int64_t n){
  uint32_t h = 2166136261u;
  int64_t i;
  for(i = 0; i < n; i++) h = (h ^ a[i]) * 16777619u;
  return h;
}

int wcBytesCompare(const unsigned char *a, int64_t nA,
                   const unsigned char *b, int64_t nB){
  int64_t n = nA < nB ? nA : nB;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0;
  return c ? c : (nA < nB ? -1 : nA > nB);
}

int wcBufCompare(const WcBuf *pA, const WcBuf *pB){
  return wcBytesCompare(pA->a, pA->n, pB->a, pB->n);
}
