/*
** wc_keyset.h: a set of byte strings (row keys), by open addressing on
** their FNV-1a hash (wc_buf.h).  The writer keeps in one the keys an
** UPDATE displaced.  The set owns copies of its keys; a zeroed WcKeySet
** is an empty one.  Below it, a set that keeps hashes, not keys.
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

/* A set of byte strings known by their 64-bit hashes alone (8 bytes a
** slot, half the slots used at most): wcHashSetMay() is true for every
** key added, and for another only if its hash equals one added's (about
** one chance in 2^64 a pair).  The prefetcher keeps the keys a statement
** wrote in one: a false yes costs it a read, and a load of millions of
** rows would hold millions of copies in a WcKeySet.  A zeroed WcHashSet
** is an empty one. */
typedef struct WcHashSet WcHashSet;
struct WcHashSet {
  uint64_t *aSlot;      /* 0: empty (a hash of 0 is kept as 1) */
  int nSlot;            /* A power of two, or 0 */
  int nUsed;
};

/* SQLITE_OK or SQLITE_NOMEM (the set as it was). */
int wcHashSetAdd(WcHashSet *pSet, const unsigned char *aKey, int64_t n);
int wcHashSetMay(const WcHashSet *pSet, const unsigned char *aKey, int64_t n);
/* Empties the set, keeping its slots. */
void wcHashSetClear(WcHashSet *pSet);
void wcHashSetFree(WcHashSet *pSet);

#endif /* WIDECOL_WC_KEYSET_H */
