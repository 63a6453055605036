/*
** wc_keyset.c: sets of byte strings, exact and by hash (see wc_keyset.h).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "util/wc_keyset.h"

#include <string.h>

/* The slot holding aKey, or the empty one where it would go. */
static WcBuf *keySlot(const WcKeySet *pSet, const unsigned char *aKey,
                      int64_t n){
  int i = (int)(wcBytesHash(aKey, n) & (uint32_t)(pSet->nSlot - 1));
  for(;;){
    WcBuf *pSlot = &pSet->aSlot[i];
    if( pSlot->a == 0 ) return pSlot;
    if( pSlot->n == n && (n == 0 || memcmp(pSlot->a, aKey, (size_t)n) == 0) ){
      return pSlot;
    }
    i = (i + 1) & (pSet->nSlot - 1);
  }
}

int wcKeySetHas(const WcKeySet *pSet, const unsigned char *aKey, int64_t n){
  return pSet->nUsed > 0 && keySlot(pSet, aKey, n)->a != 0;
}

/* Doubles the slots (16 at first), keeping the keys. */
static int keySetGrow(WcKeySet *pSet){
  WcKeySet grown;
  int i;
  grown.nSlot = pSet->nSlot ? 2 * pSet->nSlot : 16;
  grown.nUsed = pSet->nUsed;
  grown.aSlot = sqlite3_malloc64(sizeof(WcBuf) * (sqlite3_uint64)grown.nSlot);
  if( grown.aSlot == 0 ) return SQLITE_NOMEM;
  memset(grown.aSlot, 0, sizeof(WcBuf) * (size_t)grown.nSlot);
  for(i = 0; i < pSet->nSlot; i++){
    if( pSet->aSlot[i].a ){
      *keySlot(&grown, pSet->aSlot[i].a, pSet->aSlot[i].n) = pSet->aSlot[i];
    }
  }
  sqlite3_free(pSet->aSlot);
  *pSet = grown;
  return SQLITE_OK;
}

int wcKeySetAdd(WcKeySet *pSet, const unsigned char *aKey, int64_t n){
  static const unsigned char aEmpty[1] = { 0 };
  WcBuf *pSlot;
  if( 2 * (pSet->nUsed + 1) > pSet->nSlot && keySetGrow(pSet) ){
    return SQLITE_NOMEM;
  }
  pSlot = keySlot(pSet, aKey, n);
  if( pSlot->a ) return SQLITE_OK;
  wcBufAppend(pSlot, n ? aKey : aEmpty, n ? n : 1);
  if( pSlot->bOom ){
    wcBufFree(pSlot);
    return SQLITE_NOMEM;
  }
  pSlot->n = n;
  pSet->nUsed++;
  return SQLITE_OK;
}

void wcKeySetClear(WcKeySet *pSet){
  int i;
  if( pSet->nUsed == 0 ) return;
  for(i = 0; i < pSet->nSlot; i++) wcBufFree(&pSet->aSlot[i]);
  pSet->nUsed = 0;
}

void wcKeySetFree(WcKeySet *pSet){
  wcKeySetClear(pSet);
  sqlite3_free(pSet->aSlot);
  memset(pSet, 0, sizeof(*pSet));
}

/* FNV-1a, 64 bits; 0 is the empty slot's, so such a hash is kept as 1. */
static uint64_t hash64(const unsigned char *a, int64_t n){
  uint64_t h = 0xcbf29ce484222325ULL;
  int64_t i;
  for(i = 0; i < n; i++){
    h ^= a[i];
    h *= 0x100000001b3ULL;
  }
  return h ? h : 1;
}

/* The slot holding hash h, or the empty one where it would go. */
static uint64_t *hashSlot(const WcHashSet *pSet, uint64_t h){
  int i = (int)(h & (uint64_t)(pSet->nSlot - 1));
  while( pSet->aSlot[i] != 0 && pSet->aSlot[i] != h ){
    i = (i + 1) & (pSet->nSlot - 1);
  }
  return &pSet->aSlot[i];
}

int wcHashSetMay(const WcHashSet *pSet, const unsigned char *aKey, int64_t n){
  return pSet->nUsed > 0 && *hashSlot(pSet, hash64(aKey, n)) != 0;
}

int wcHashSetAdd(WcHashSet *pSet, const unsigned char *aKey, int64_t n){
  uint64_t h = hash64(aKey, n);
  uint64_t *pSlot;
  if( 2 * (pSet->nUsed + 1) > pSet->nSlot ){
    WcHashSet grown;
    int i;
    grown.nSlot = pSet->nSlot ? 2 * pSet->nSlot : 16;
    grown.nUsed = pSet->nUsed;
    grown.aSlot = sqlite3_malloc64(sizeof(uint64_t) * (sqlite3_uint64)grown.nSlot);
    if( grown.aSlot == 0 ) return SQLITE_NOMEM;
    memset(grown.aSlot, 0, sizeof(uint64_t) * (size_t)grown.nSlot);
    for(i = 0; i < pSet->nSlot; i++){
      if( pSet->aSlot[i] ) *hashSlot(&grown, pSet->aSlot[i]) = pSet->aSlot[i];
    }
    sqlite3_free(pSet->aSlot);
    *pSet = grown;
  }
  pSlot = hashSlot(pSet, h);
  if( *pSlot == 0 ){
    *pSlot = h;
    pSet->nUsed++;
  }
  wcAssert( pSet->nUsed * 2 <= pSet->nSlot );
  return SQLITE_OK;
}

void wcHashSetClear(WcHashSet *pSet){
  if( pSet->nUsed == 0 ) return;
  memset(pSet->aSlot, 0, sizeof(uint64_t) * (size_t)pSet->nSlot);
  pSet->nUsed = 0;
}

void wcHashSetFree(WcHashSet *pSet){
  sqlite3_free(pSet->aSlot);
  memset(pSet, 0, sizeof(*pSet));
}
