/*
** wc_arena.c: an arena (wc_arena.h): blocks of 64 KiB or more, each
** piece carved from the newest.
*/
#include "util/wc_api.h"
#include "stores/common/wc_arena.h"

#include <string.h>

#define WC_ARENA_BLOCK 65536

struct WcBlock {
  WcBlock *pNext;
  size_t nUsed, nSize;
  /* data follows, at WC_BLOCK_DATA */
};
#define WC_BLOCK_DATA ((sizeof(WcBlock) + 15) & ~(size_t)15)

void *wcArenaAlloc(WcArena *p, size_t n){
  WcBlock *pB = p->pHead;
  void *pRet;
  n = (n + 15) & ~(size_t)15;
  if( pB == 0 || pB->nUsed + n > pB->nSize ){
    size_t nSize = n > WC_ARENA_BLOCK ? n : WC_ARENA_BLOCK;
    pB = sqlite3_malloc64(WC_BLOCK_DATA + nSize);
    if( pB == 0 ){
      p->bOom = 1;
      return 0;
    }
    pB->nUsed = 0;
    pB->nSize = nSize;
    pB->pNext = p->pHead;
    p->pHead = pB;
  }
  wcAssert( pB->nUsed + n <= pB->nSize );
  pRet = (char*)pB + WC_BLOCK_DATA + pB->nUsed;
  pB->nUsed += n;
  memset(pRet, 0, n);
  return pRet;
}

void *wcArenaCopy(WcArena *p, const void *a, size_t n){
  void *pRet = wcArenaAlloc(p, n ? n : 1);
  if( pRet && n ) memcpy(pRet, a, n);
  return pRet;
}

void wcArenaFree(WcArena *p){
  while( p->pHead ){
    WcBlock *pB = p->pHead;
    p->pHead = pB->pNext;
    sqlite3_free(pB);
  }
  p->bOom = 0;
}
