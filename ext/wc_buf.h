/*
** wc_buf.h: a growable byte string, shared by widecol's files and by its
** Bigtable store (which links this file alone of the core).
*/
#ifndef WIDECOL_WC_BUF_H
#define WIDECOL_WC_BUF_H

#include <stdint.h>

/* A growable byte string.  After an allocation failure bOom is set and
** further appends do nothing. */
typedef struct WcBuf WcBuf;
struct WcBuf {
  unsigned char *a;
  int64_t n;
  int64_t nAlloc;
  int bOom;
};

void wcBufAppend(WcBuf *p, const void *a, int64_t n);
int wcBufReserve(WcBuf *p, int64_t n);     /* room for n more; 1 if OOM */
void wcBufFree(WcBuf *p);

#endif /* WIDECOL_WC_BUF_H */
