/*
** wc_keyset.h: a set of byte strings (row keys), by open addressing on
** their FNV-1a hash (wc_buf.h).  The writer keeps in one the keys an
** UPDATE displaced, the prefetcher the keys a statement wrote since it
** read them.  The set owns copies of its keys; a zeroed WcKeySet is an
** empty one.
*/
#ifndef WIDECOL_WC_KEYSET_H
#define WIDECOL_WC_KEYSET_H

#include "util/wc_buf.h"

typedef struct WcKeySet WcKeySet;
struct WcKeySet {
  WcBuf *aSlot;         /* A slot with no bytes (a == 0) is empty; an empty
                        ** key marks its slot with a one-byte buffer */
  int nSlot;            /* A power of two, or 0 */
  int nUsed;
};

/* Adds a copy of aKey[0..n): SQLITE_OK or SQLITE_NOMEM (the set as it
** was). */
int wcKeySetAdd(WcKeySet *pSet, const unsigned char *aKey, int64_t n);
int wcKeySetHas(const WcKeySet *pSet, const unsigned char *aKey, int64_t n);
/* Empties the set, keeping its slots for the next keys. */
void wcKeySetClear(WcKeySet *pSet);
void wcKeySetFree(WcKeySet *pSet);

#endif /* WIDECOL_WC_KEYSET_H */
