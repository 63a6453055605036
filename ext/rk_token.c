/*
** rk_token.c: Cassandra's Murmur3Partitioner token (see rk_token.h),
** written from MurmurHash3's published algorithm (x64, 128 bits, seed 0)
** with Cassandra's reading of the tail, and checked against the DataStax
** Python driver's implementation (tests/token_check.py).
*/
#include "rk_token.h"

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
