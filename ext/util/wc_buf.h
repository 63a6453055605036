/*
** wc_buf.h: a growable byte string, shared by widecol's files and by its
** Bigtable store (which links this file alone of the core).
*/
#ifndef WIDECOL_WC_BUF_H
#define WIDECOL_WC_BUF_H

#include "util/wc_api.h"

#include <stdint.h>
#include <string.h>

/* A growable byte string.  After an allocation failure bOom is set and
** further appends do nothing. */
typedef struct WcBuf WcBuf;
struct WcBuf {
  unsigned char *a;
  int64_t n;
  int64_t nAlloc;
  int bOom;
};

/* Grows p->a to hold n more bytes; 1 if OOM (bOom set). */
int wcBufGrow(WcBuf *p, int64_t n);
void wcBufFree(WcBuf *p);
/* Empties p, keeping its buffer for reuse unless an allocation failed. */
void wcBufClear(WcBuf *p);
/* FNV-1a of bytes a[0..n): the hash of the key sets of a statement's
** writes (vtab/wc_write.c, stores/cells/cs_batch.c). */
uint32_t wcBytesHash(const unsigned char *a, int64_t n);
/* Compares byte strings as row keys are ordered (bytewise, a prefix
** first): < 0, 0 or > 0; and two WcBufs so. */
int wcBytesCompare(const unsigned char *a, int64_t nA,
                   const unsigned char *b, int64_t nB);
int wcBufCompare(const WcBuf *pA, const WcBuf *pB);

/* Inline: the key encoders append a few bytes at a time, per field. */
static inline int wcBufReserve(WcBuf *p, int64_t n){  /* 1 if OOM */
  wcAssert( n >= 0 && p->n >= 0 && p->n <= p->nAlloc );
  if( p->bOom ) return 1;
  return p->n + n > p->nAlloc ? wcBufGrow(p, n) : 0;
}

static inline void wcBufAppend(WcBuf *p, const void *a, int64_t n){
  if( n <= 0 || wcBufReserve(p, n) ) return;
  memcpy(&p->a[p->n], a, (size_t)n);
  p->n += n;
}

/* Big-endian integers, as the stores' wire protocols and the cell store's
** own entries write them: v's low nByte bytes appended (1 to 8), and the
** value of nByte bytes at a. */
static inline void wcBufAppendBe(WcBuf *p, uint64_t v, int nByte){
  unsigned char a[8];
  int i;
  wcAssert( nByte >= 1 && nByte <= 8 );
  for(i = nByte - 1; i >= 0; i--){
    a[i] = (unsigned char)(v & 0xFF);
    v >>= 8;
  }
  wcBufAppend(p, a, nByte);
}
static inline uint64_t wcGetBe(const unsigned char *a, int nByte){
  uint64_t v = 0;
  int i;
  wcAssert( nByte >= 1 && nByte <= 8 );
  for(i = 0; i < nByte; i++) v = (v << 8) | a[i];
  return v;
}

#endif /* WIDECOL_WC_BUF_H */
