/*
** rk_token.c: Cassandra's Murmur3Partitioner token (see rk_token.h),
** written from MurmurHash3's published algorithm (x64, 128 bits, seed 0)
** with Cassandra's reading of the tail, and checked against the DataStax
** Python driver's implementation (tests/harness/token_check.py).
*/
#include "key/rk_token.h"

#include <string.h>

#define RK_C1 UINT64_C(0x87c37b91114253d5)
#define RK_C2 UINT64_C(0x4cf5ad432745937f)

static uint64_t rotl(uint64_t x, int r){
  return (x << r) | (x >> (64 - r));
}

static uint64_t fmix(uint64_t k){
  k ^= k >> 33;
  k *= UINT64_C(0xff51afd7ed558ccd);
  k ^= k >> 33;
  k *= UINT64_C(0xc4ceb9fe1a85ec53);
  k ^= k >> 33;
  return k;
}

/* Eight bytes little-endian. */
static uint64_t block(const unsigned char *a){
  uint64_t v = 0;
  int i;
  for(i = 7; i >= 0; i--) v = (v << 8) | a[i];
  return v;
}

/* Byte i of the tail shifted to place s, read as Java reads a byte:
** signed, so that 0x80 and above carry ones into the bits above it. */
static uint64_t tailByte(const unsigned char *a, int i, int s){
  return (uint64_t)(int64_t)(signed char)a[i] << s;
}

int64_t rkToken(const unsigned char *a, int64_t n){
  uint64_t h1 = 0, h2 = 0, k1 = 0, k2 = 0;
  int64_t nBlock = n / 16, i;
  const unsigned char *aTail = a + nBlock * 16;
  int nTail = (int)(n % 16), j;
  for(i = 0; i < nBlock; i++){
    k1 = block(a + i * 16);
    k2 = block(a + i * 16 + 8);
    k1 *= RK_C1;
    k1 = rotl(k1, 31);
    k1 *= RK_C2;
    h1 ^= k1;
    h1 = rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= RK_C2;
    k2 = rotl(k2, 33);
    k2 *= RK_C1;
    h2 ^= k2;
    h2 = rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }
  k1 = k2 = 0;
  if( nTail > 8 ){
    for(j = nTail - 1; j >= 8; j--) k2 ^= tailByte(aTail, j, (j - 8) * 8);
    k2 *= RK_C2;
    k2 = rotl(k2, 33);
    k2 *= RK_C1;
    h2 ^= k2;
  }
  if( nTail > 0 ){
    for(j = (nTail < 8 ? nTail : 8) - 1; j >= 0; j--){
      k1 ^= tailByte(aTail, j, j * 8);
    }
    k1 *= RK_C1;
    k1 = rotl(k1, 31);
    k1 *= RK_C2;
    h1 ^= k1;
  }
  h1 ^= (uint64_t)n;
  h2 ^= (uint64_t)n;
  h1 += h2;
  h2 += h1;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 += h2;
  /* Long.MIN_VALUE is no token: Cassandra takes it as Long.MAX_VALUE. */
  return h1 == (UINT64_C(1) << 63) ? INT64_MAX : (int64_t)h1;
}

/* Appends the bytes of one value; returns their number. */
static int64_t appendPart(WcBuf *pKey, const RkTokenPart *pPart){
  unsigned char a[8];
  uint64_t u;
  int i;
  if( pPart->eType == SQLITE_INTEGER ){
    u = (uint64_t)pPart->i;
  }else if( pPart->eType == SQLITE_FLOAT ){
    memcpy(&u, &pPart->r, 8);
  }else{
    wcBufAppend(pKey, pPart->a, pPart->n);
    return pPart->n;
  }
  for(i = 0; i < 8; i++) a[i] = (unsigned char)(u >> (56 - 8 * i));
  wcBufAppend(pKey, a, 8);
  return 8;
}

int rkTokenKeyOf(const RkTokenPart *aPart, int nPart, WcBuf *pKey){
  int i;
  for(i = 0; i < nPart; i++){
    int64_t iLen = pKey->n, n;
    if( nPart > 1 ) wcBufAppend(pKey, "\0\0", 2);
    n = appendPart(pKey, &aPart[i]);
    if( n > RK_TOKEN_MAX_KEY ) return i + 1;
    if( nPart > 1 && !pKey->bOom ){
      pKey->a[iLen] = (unsigned char)(n >> 8);
      pKey->a[iLen + 1] = (unsigned char)n;
      wcBufAppend(pKey, "\0", 1);
    }
  }
  return 0;
}

int rkTokenKey(sqlite3_value **apVal, int nVal, WcBuf *pKey){
  RkTokenPart aPart[8], *a = aPart;
  int i, rc;
  memset(aPart, 0, sizeof(aPart));
  if( nVal > 8 ){
    a = sqlite3_malloc64(sizeof(RkTokenPart) * (size_t)nVal);
    if( a == 0 ){
      pKey->bOom = 1;
      return 0;
    }
  }
  for(i = 0; i < nVal; i++){
    sqlite3_value *pVal = apVal[i];
    a[i].eType = sqlite3_value_type(pVal);
    a[i].i = sqlite3_value_int64(pVal);
    a[i].r = sqlite3_value_double(pVal);
    a[i].a = a[i].eType == SQLITE_BLOB ? sqlite3_value_blob(pVal)
                                       : (const void*)sqlite3_value_text(pVal);
    a[i].n = sqlite3_value_bytes(pVal);
  }
  rc = rkTokenKeyOf(a, nVal, pKey);
  if( a != aPart ) sqlite3_free(a);
  return rc;
}
