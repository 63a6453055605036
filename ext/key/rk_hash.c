/*
** rk_hash.c: MD5 salts and hash buckets through OpenSSL's EVP API
** (see rk_hash.h).
*/
#include "key/rk_hash.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

struct RkHasher {
  EVP_MD_CTX *pCtx;
  EVP_MD *pMd;         /* Fetched once: OpenSSL 3 re-fetches EVP_md5() per use */
};

RkHasher *rkHasherNew(void){
  RkHasher *p = calloc(1, sizeof(*p));
  if( p == 0 ) return 0;
  p->pCtx = EVP_MD_CTX_new();
  p->pMd = EVP_MD_fetch(NULL, "MD5", NULL);
  if( p->pCtx == 0 || p->pMd == 0 ){
    rkHasherFree(p);
    return 0;
  }
  return p;
}

void rkHasherFree(void *pHasher){
  RkHasher *p = (RkHasher*)pHasher;
  if( p == 0 ) return;
  EVP_MD_CTX_free(p->pCtx);
  EVP_MD_free(p->pMd);
  free(p);
}

int rkMd5(RkHasher *pHasher, const void *a, int64_t n,
          unsigned char aDigest[RK_MD5_BYTES]){
  unsigned int nDigest = 0;
  if( EVP_DigestInit_ex(pHasher->pCtx, pHasher->pMd, NULL) != 1 ) return 1;
  if( n > 0 && EVP_DigestUpdate(pHasher->pCtx, a, (size_t)n) != 1 ) return 1;
  if( EVP_DigestFinal_ex(pHasher->pCtx, aDigest, &nDigest) != 1 ) return 1;
  return nDigest != RK_MD5_BYTES;
}

void rkHexEncode(const unsigned char *a, int n, char *zOut){
  static const char aHexDigit[] = "0123456789abcdef";
  int i;
  for(i = 0; i < n; i++){
    zOut[2 * i] = aHexDigit[a[i] >> 4];
    zOut[2 * i + 1] = aHexDigit[a[i] & 0x0F];
  }
}

int rkSalt(RkHasher *pHasher, const void *a, int64_t n, int nDigit,
           char *zOut){
  unsigned char aDigest[RK_MD5_BYTES];
  char zHex[RK_MD5_HEX];
  if( rkMd5(pHasher, a, n, aDigest) ) return 1;
  rkHexEncode(aDigest, RK_MD5_BYTES, zHex);
  if( nDigit > 0 ){
    memcpy(zOut, zHex, (size_t)nDigit);
  }else{
    memcpy(zOut, &zHex[RK_MD5_HEX + nDigit], (size_t)-nDigit);
  }
  return 0;
}

int64_t rkHashBucket(RkHasher *pHasher, const void *a, int64_t n,
                     int64_t nBucket){
  unsigned char aDigest[RK_MD5_BYTES];
  uint64_t v = 0;
  int i;
  if( rkMd5(pHasher, a, n, aDigest) ) return -1;
  for(i = 0; i < 8; i++) v = (v << 8) | aDigest[i];
  return (int64_t)(v % (uint64_t)nBucket);
}
