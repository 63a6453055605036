/*
** wc_keyset.c: a set of byte strings (see wc_keyset.h).
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
