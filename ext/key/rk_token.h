/*
** rk_token.h: Cassandra's partition token (Murmur3Partitioner), for
** rk_token() (rk_functions.c).
**
** Cassandra places a row by the token of its partition key: the first 64
** bits of MurmurHash3 x64 128 (seed 0) of the key's bytes, as a signed
** number, with Long.MIN_VALUE taken as Long.MAX_VALUE.  Its MurmurHash3
** reads the last, partial block's bytes as signed (Java's byte), so a
** byte of 0x80 or more there is sign-extended into the block: the tokens
** differ from the reference MurmurHash3's for such keys, and Cassandra's
** are the ones computed here.
**
** A partition key of several columns is hashed in Cassandra's composite
** form: per component a 2-byte big-endian length, its bytes, a 0x00.  One
** column is hashed as its bytes alone.
*/
#ifndef WIDECOL_RK_TOKEN_H
#define WIDECOL_RK_TOKEN_H

#include "util/wc_api.h"
#include "util/wc_buf.h"

#include <stdint.h>

/* The most bytes a partition key (or a component of one) may have. */
#define RK_TOKEN_MAX_KEY 65535

/* The token of the partition key bytes a[0..n). */
int64_t rkToken(const unsigned char *a, int64_t n);

/* One value of a partition key: its storage class (SQLITE_INTEGER,
** _FLOAT, _TEXT or _BLOB) and content. */
typedef struct RkTokenPart RkTokenPart;
struct RkTokenPart {
  int eType;
  int64_t i;
  double r;
  const void *a;        /* TEXT and BLOB bytes */
  int64_t n;
};

/* The bytes of the partition key aPart[0..nPart), appended to pKey: TEXT
** as UTF-8, INTEGER as a bigint (8 bytes big-endian), REAL as a double
** (8 bytes big-endian), BLOB as it is; several values in the composite
** form.  Returns 0, or 1 + the index of a value over RK_TOKEN_MAX_KEY
** bytes.  Out of memory sets pKey->bOom. */
int rkTokenKeyOf(const RkTokenPart *aPart, int nPart, WcBuf *pKey);

/* rkTokenKeyOf() of SQL values (none NULL). */
int rkTokenKey(sqlite3_value **apVal, int nVal, WcBuf *pKey);

#endif /* WIDECOL_RK_TOKEN_H */
