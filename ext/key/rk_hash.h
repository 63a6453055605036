/*
** rk_hash.h: MD5 through OpenSSL's EVP API, and the two ways row keys use
** it: a hex salt prefix (rk_salt, SALT elements) and a bucket number for
** text and blobs (rk_bucket, BUCKET elements).  Both must agree byte for
** byte wherever they are computed, so they live here and nowhere else.
*/
#ifndef WIDECOL_RK_HASH_H
#define WIDECOL_RK_HASH_H

#include <stdint.h>

#define RK_MD5_BYTES 16
#define RK_MD5_HEX 32          /* hex digits in an MD5 digest */
#define RK_MAX_BUCKETS 65536   /* largest bucket count rk_bucket accepts */

/* A reusable digest context.  One per SQL function or table, never shared
** between connections: it is not thread-safe. */
typedef struct RkHasher RkHasher;

/* Returns NULL if OpenSSL cannot supply MD5 (for example in FIPS mode). */
RkHasher *rkHasherNew(void);
void rkHasherFree(void *pHasher);

/* MD5 of a[0..n) into aDigest.  Returns 0 on success, nonzero on failure. */
int rkMd5(RkHasher *pHasher, const void *a, int64_t n,
          unsigned char aDigest[RK_MD5_BYTES]);

/* Lowercase hex of a[0..n) into zOut (2*n bytes, no terminator). */
void rkHexEncode(const unsigned char *a, int n, char *zOut);

/* The salt of a[0..n): the first nDigit hex digits of its MD5 or, for a
** negative nDigit, the last -nDigit digits (1 <= |nDigit| <= 32), written
** to zOut without a terminator.  Returns 0 on success. */
int rkSalt(RkHasher *pHasher, const void *a, int64_t n, int nDigit,
           char *zOut);

/* The bucket of a text or blob key: the first 8 bytes of its MD5 read as a
** big-endian unsigned integer, modulo nBucket.  Returns -1 on failure. */
int64_t rkHashBucket(RkHasher *pHasher, const void *a, int64_t n,
                     int64_t nBucket);

#endif /* WIDECOL_RK_HASH_H */
