/*
** rk_functions.c: the rk_* SQL functions, the row-key transformations the
** design guides teach (zero padding, max - value, md5 salts, modulo
** buckets, reversal, delimited composite keys) as scalar functions.
**
** Arguments are checked strictly: a value of the wrong type or out of
** range is an error that names the function, the argument, what is allowed
** and what was given; nothing is truncated or wrapped silently.  NULL in
** any argument gives NULL.  The byte work lives in rk_bytes.c and
** rk_hash.c, which the widecol key codec shares, so a key computed here
** matches the key a widecol table stores.  docs/functions.md is the
** user's reference for everything below.
*/
#include "key/rk_functions.h"
#include "key/rk_bytes.h"
#include "key/rk_hash.h"
#include "key/rk_token.h"
#include "key/wc_codec.h"

#include <stdarg.h>
#include <string.h>

#define RK_INT64_MAX ((int64_t)0x7FFFFFFFFFFFFFFFLL)

/*
** Error reporting.
*/

static void rkError(sqlite3_context *ctx, const char *zFormat, ...){
  va_list ap;
  char *zMsg;
  va_start(ap, zFormat);
  zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( zMsg == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, zMsg, -1);
  sqlite3_free(zMsg);
}

static char *describeValue(sqlite3_value *pVal, int bType){
  WcValue v;
  wcValueFrom(pVal, &v);
  return wcValueDescribe(&v, bType);
}

/* Reports "<zFunc>: <zArg> must be <zAllowed>, got <value>[; <zHint>]". */
static void rkBadValue(sqlite3_context *ctx, const char *zFunc,
                       const char *zArg, const char *zAllowed,
                       sqlite3_value *pVal, const char *zHint){
  char *zGot = describeValue(pVal, 1);
  if( zGot == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  rkError(ctx, "%s: %s must be %s, got %s%s%s", zFunc, zArg, zAllowed, zGot,
          zHint ? "; " : "", zHint ? zHint : "");
  sqlite3_free(zGot);
}

/*
** Argument readers.  Each returns 0 on success, or reports the problem
** and returns 1.
*/

/* An INTEGER argument in [iMin, iMax]. */
static int intArg(sqlite3_context *ctx, const char *zFunc, const char *zArg,
                  sqlite3_value *pVal, int64_t iMin, int64_t iMax,
                  int64_t *piOut){
  char *zAllowed;
  if( sqlite3_value_type(pVal) == SQLITE_INTEGER ){
    int64_t v = sqlite3_value_int64(pVal);
    if( v >= iMin && v <= iMax ){
      *piOut = v;
      return 0;
    }
  }
  zAllowed = sqlite3_mprintf("an INTEGER from %lld to %lld", iMin, iMax);
  if( zAllowed == 0 ){
    sqlite3_result_error_nomem(ctx);
    return 1;
  }
  rkBadValue(ctx, zFunc, zArg, zAllowed, pVal, 0);
  sqlite3_free(zAllowed);
  return 1;
}

/* The bytes of a key-like argument. */
typedef struct RkBytes RkBytes;
struct RkBytes {
  const unsigned char *a;   /* Never NULL, even when n is 0 */
  int64_t n;
  int bBlob;                /* True if the argument was a BLOB */
};

/* A key-like argument: TEXT or BLOB as stored, INTEGER as its decimal
** text.  REAL is refused because its text form is not a stable key. */
static int keyArg(sqlite3_context *ctx, const char *zFunc, const char *zArg,
                  sqlite3_value *pVal, RkBytes *pOut){
  int eType = sqlite3_value_type(pVal);
  if( eType == SQLITE_FLOAT ){
    rkBadValue(ctx, zFunc, zArg, "TEXT, BLOB or INTEGER", pVal,
               "REAL has no exact text form to build a key from, "
               "CAST it AS INTEGER or format it with printf()");
    return 1;
  }
  pOut->bBlob = eType == SQLITE_BLOB;
  pOut->a = pOut->bBlob ? sqlite3_value_blob(pVal) : sqlite3_value_text(pVal);
  pOut->n = sqlite3_value_bytes(pVal);
  if( pOut->a == 0 ){
    /* Only an empty blob has no pointer; text conversion failing is OOM. */
    if( !pOut->bBlob || pOut->n > 0 ){
      sqlite3_result_error_nomem(ctx);
      return 1;
    }
    pOut->a = (const unsigned char*)"";
  }
  return 0;
}

/* A TEXT argument (rkBytes with bBlob false), anything else refused. */
static int textArg(sqlite3_context *ctx, const char *zFunc, const char *zArg,
                   sqlite3_value *pVal, const char *zHint, RkBytes *pOut){
  if( sqlite3_value_type(pVal) != SQLITE_TEXT ){
    rkBadValue(ctx, zFunc, zArg, "TEXT", pVal, zHint);
    return 1;
  }
  return keyArg(ctx, zFunc, zArg, pVal, pOut);
}

static int anyNull(int argc, sqlite3_value **argv){
  int i;
  for(i = 0; i < argc; i++){
    if( sqlite3_value_type(argv[i]) == SQLITE_NULL ) return 1;
  }
  return 0;
}

/*
** Results.  Small results are built on the stack and copied by SQLite,
** which reuses the register's memory from row to row; larger ones are
** allocated once and handed over.
*/
typedef struct RkOut RkOut;
struct RkOut {
  unsigned char *a;
  unsigned char aSpace[256];
};

static unsigned char *outAlloc(sqlite3_context *ctx, const char *zFunc,
                               RkOut *pOut, int64_t n){
  int64_t nLimit = sqlite3_limit(sqlite3_context_db_handle(ctx),
                                 SQLITE_LIMIT_LENGTH, -1);
  pOut->a = 0;
  if( n > nLimit ){
    rkError(ctx, "%s: the result would be %lld bytes, more than this "
            "connection's SQLITE_LIMIT_LENGTH of %lld", zFunc, n, nLimit);
  }else if( n <= (int64_t)sizeof(pOut->aSpace) ){
    pOut->a = pOut->aSpace;
  }else{
    pOut->a = sqlite3_malloc64((sqlite3_uint64)n);
    if( pOut->a == 0 ) sqlite3_result_error_nomem(ctx);
  }
  return pOut->a;
}

static void outResult(sqlite3_context *ctx, RkOut *pOut, int64_t n,
                      int bBlob){
  void (*xDel)(void*) = pOut->a == pOut->aSpace ? SQLITE_TRANSIENT
                                                : sqlite3_free;
  if( bBlob ){
    sqlite3_result_blob64(ctx, pOut->a, (sqlite3_uint64)n, xDel);
  }else{
    sqlite3_result_text64(ctx, (const char*)pOut->a, (sqlite3_uint64)n,
                          xDel, SQLITE_UTF8);
  }
}

static void outDiscard(RkOut *pOut){
  if( pOut->a != pOut->aSpace ) sqlite3_free(pOut->a);
}

/* Part of a key argument as the result, with the key's type. */
static void resultSlice(sqlite3_context *ctx, const RkBytes *pKey,
                        int64_t iStart, int64_t iEnd){
  if( pKey->bBlob ){
    sqlite3_result_blob64(ctx, pKey->a + iStart,
                          (sqlite3_uint64)(iEnd - iStart), SQLITE_TRANSIENT);
  }else{
    sqlite3_result_text64(ctx, (const char*)pKey->a + iStart,
                          (sqlite3_uint64)(iEnd - iStart), SQLITE_TRANSIENT,
                          SQLITE_UTF8);
  }
}

/*
** rk_pad(x, width): non-negative integer as decimal text, left-padded with
** '0' to width digits.  rk_pad(text, width, fill): text right-padded with
** the one-character fill to width characters.
*/
static void padInteger(sqlite3_context *ctx, const char *zFunc,
                       sqlite3_value *pX, int nWidth){
  char zDigits[RK_PAD_MAX_WIDTH];
  int64_t v;
  int nDigit;
  if( sqlite3_value_type(pX) != SQLITE_INTEGER
   || (v = sqlite3_value_int64(pX)) < 0 ){
    rkBadValue(ctx, zFunc, "x", "a non-negative INTEGER", pX,
               sqlite3_value_type(pX) == SQLITE_TEXT
                 ? "CAST it AS INTEGER, or pad text with "
                   "rk_pad(text, width, fill)"
                 : 0);
    return;
  }
  nDigit = rkDigitCount((uint64_t)v);
  if( nDigit > nWidth ){
    rkError(ctx, "%s: x = %lld has %d digits, more than width %d",
            zFunc, v, nDigit, nWidth);
    return;
  }
  rkPadDecimal((uint64_t)v, nWidth, zDigits);
  sqlite3_result_text(ctx, zDigits, nWidth, SQLITE_TRANSIENT);
}

static void padText(sqlite3_context *ctx, const char *zFunc,
                    sqlite3_value *pText, int nWidth, sqlite3_value *pFill){
  RkBytes text, fill;
  RkOut out;
  int64_t nChar, nFillChar, i, iOut;
  if( textArg(ctx, zFunc, "text", pText,
              sqlite3_value_type(pText) == SQLITE_INTEGER
                ? "pad integers with rk_pad(x, width)" : 0, &text)
   || textArg(ctx, zFunc, "fill", pFill, 0, &fill) ){
    return;
  }
  nFillChar = rkCharCount(fill.a, fill.n);
  if( nFillChar != 1 ){
    rkBadValue(ctx, zFunc, "fill", "exactly one character", pFill, 0);
    return;
  }
  nChar = rkCharCount(text.a, text.n);
  if( nChar > nWidth ){
    char *zGot = describeValue(pText, 0);
    rkError(ctx, "%s: text %s has %lld characters, more than width %d",
            zFunc, zGot ? zGot : "", nChar, nWidth);
    sqlite3_free(zGot);
    return;
  }
  if( !outAlloc(ctx, zFunc, &out, text.n + (nWidth - nChar) * fill.n) ){
    return;
  }
  memcpy(out.a, text.a, (size_t)text.n);
  iOut = text.n;
  for(i = nChar; i < nWidth; i++){
    memcpy(&out.a[iOut], fill.a, (size_t)fill.n);
    iOut += fill.n;
  }
  outResult(ctx, &out, iOut, 0);
}

void rkPadFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zFunc = argc == 2 ? "rk_pad(x, width)"
                                : "rk_pad(text, width, fill)";
  int64_t nWidth;
  if( anyNull(argc, argv) ) return;
  if( intArg(ctx, zFunc, "width", argv[1], 1, RK_PAD_MAX_WIDTH, &nWidth) ){
    return;
  }
  if( argc == 2 ){
    padInteger(ctx, zFunc, argv[0], (int)nWidth);
  }else{
    padText(ctx, zFunc, argv[0], (int)nWidth, argv[2]);
  }
}

/*
** rk_desc(x, max): max - x for integers 0 <= x <= max.
** rk_desc(x): 9223372036854775807 - x for a non-negative integer (Java's
** Long.MAX_VALUE - timestamp), or the descending byte encoding of a text
** or blob (rk_bytes.h), a BLOB that sorts in exactly the reverse order.
*/
void rkDescFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zFunc = argc == 2 ? "rk_desc(x, max)" : "rk_desc(x)";
  int eType = sqlite3_value_type(argv[0]);
  int64_t x, iMax = RK_INT64_MAX;
  if( anyNull(argc, argv) ) return;
  if( argc == 1 && (eType == SQLITE_TEXT || eType == SQLITE_BLOB) ){
    RkBytes in;
    RkOut out;
    if( keyArg(ctx, zFunc, "x", argv[0], &in)
     || !outAlloc(ctx, zFunc, &out, RK_DESC_MAX(in.n)) ){
      return;
    }
    outResult(ctx, &out, rkDescEncode(in.a, in.n, out.a), 1);
    return;
  }
  if( eType != SQLITE_INTEGER || (x = sqlite3_value_int64(argv[0])) < 0 ){
    if( argc == 2 ){
      rkBadValue(ctx, zFunc, "x", "a non-negative INTEGER", argv[0],
                 eType == SQLITE_TEXT || eType == SQLITE_BLOB
                   ? "rk_desc(x) without max inverts text and blobs" : 0);
    }else{
      rkBadValue(ctx, zFunc, "x", "a non-negative INTEGER, a TEXT or a BLOB",
                 argv[0], 0);
    }
    return;
  }
  if( argc == 2 ){
    if( intArg(ctx, zFunc, "max", argv[1], 0, RK_INT64_MAX, &iMax) ) return;
    if( x > iMax ){
      rkError(ctx, "%s: x = %lld is greater than max %lld", zFunc, x, iMax);
      return;
    }
  }
  sqlite3_result_int64(ctx, iMax - x);
}

/* rk_undesc(x): the bytes rk_desc(text_or_blob) encoded, as a BLOB. */
void rkUndescFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_undesc(x)";
  RkBytes in;
  RkOut out;
  int64_t nOut, nUsed = 0;
  (void)argc;
  if( anyNull(1, argv) ) return;
  if( sqlite3_value_type(argv[0]) != SQLITE_BLOB ){
    rkBadValue(ctx, zFunc, "x", "a BLOB made by rk_desc(text_or_blob)",
               argv[0], 0);
    return;
  }
  if( keyArg(ctx, zFunc, "x", argv[0], &in)
   || !outAlloc(ctx, zFunc, &out, in.n) ){
    return;
  }
  nOut = rkDescDecode(in.a, in.n, out.a, &nUsed);
  if( nOut < 0 || nUsed != in.n ){
    char *zGot = describeValue(argv[0], 0);
    if( nOut >= 0 ){
      rkError(ctx, "%s: %s continues for %lld byte%s after the end of its "
              "rk_desc encoding", zFunc, zGot ? zGot : "", in.n - nUsed,
              in.n - nUsed == 1 ? "" : "s");
    }else if( nUsed == in.n ){
      rkError(ctx, "%s: %s ends before the FF FF that closes an rk_desc "
              "encoding", zFunc, zGot ? zGot : "");
    }else{
      rkError(ctx, "%s: %s is not an rk_desc encoding: byte %lld follows "
              "an FF with neither 00 nor FF", zFunc, zGot ? zGot : "",
              nUsed + 1);
    }
    sqlite3_free(zGot);
    outDiscard(&out);
    return;
  }
  outResult(ctx, &out, nOut, 1);
}

/* The MD5 context registered with the function, or an error if OpenSSL
** could not supply one when the extension was loaded. */
static RkHasher *hasherOf(sqlite3_context *ctx, const char *zFunc){
  RkHasher *pHasher = (RkHasher*)sqlite3_user_data(ctx);
  if( pHasher == 0 ){
    rkError(ctx, "%s: OpenSSL could not provide MD5 when widecol was loaded "
            "(is OpenSSL in FIPS mode?)", zFunc);
  }
  return pHasher;
}

/* The arguments rk_salt and rk_unsalt share: the key, the signed digit
** count n and the connection's MD5 context; *pnSalt is |n|. */
static int saltArgs(sqlite3_context *ctx, const char *zFunc,
                    sqlite3_value **argv, RkBytes *pKey, int *pnDigit,
                    int *pnSalt, RkHasher **ppHasher){
  int64_t v = 0;
  if( keyArg(ctx, zFunc, "key", argv[0], pKey) ) return 1;
  if( sqlite3_value_type(argv[1]) == SQLITE_INTEGER ){
    v = sqlite3_value_int64(argv[1]);
  }
  if( v == 0 || v < -RK_MD5_HEX || v > RK_MD5_HEX ){
    rkBadValue(ctx, zFunc, "n", "an INTEGER from 1 to 32 (the first n hex "
               "digits of md5) or from -32 to -1 (the last -n digits)",
               argv[1], 0);
    return 1;
  }
  *pnDigit = (int)v;
  *pnSalt = (int)(v < 0 ? -v : v);
  return (*ppHasher = hasherOf(ctx, zFunc)) == 0;
}

/*
** rk_salt(key, n): key prefixed by the first n (or last -n) hex digits of
** md5(key), as GeminiDB's md5(userid).subStr(0,4) + userid or MapR's
** ffe5 + 1364248490.  rk_unsalt(key, n) checks and strips that prefix.
*/
void rkSaltFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_salt(key, n)";
  RkHasher *pHasher;
  RkBytes key;
  RkOut out;
  int nDigit, nSalt;
  (void)argc;
  if( anyNull(2, argv)
   || saltArgs(ctx, zFunc, argv, &key, &nDigit, &nSalt, &pHasher)
   || !outAlloc(ctx, zFunc, &out, nSalt + key.n) ) return;
  if( rkSalt(pHasher, key.a, key.n, nDigit, (char*)out.a) ){
    rkError(ctx, "%s: OpenSSL failed to compute MD5", zFunc);
    outDiscard(&out);
    return;
  }
  memcpy(&out.a[nSalt], key.a, (size_t)key.n);
  outResult(ctx, &out, nSalt + key.n, key.bBlob);
}

void rkUnsaltFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_unsalt(key, n)";
  RkHasher *pHasher;
  RkBytes key;
  char zSalt[RK_MD5_HEX];
  int nDigit, nSalt;
  (void)argc;
  if( anyNull(2, argv)
   || saltArgs(ctx, zFunc, argv, &key, &nDigit, &nSalt, &pHasher) ){
    return;
  }
  if( key.n < nSalt ){
    char *zGot = describeValue(argv[0], 0);
    rkError(ctx, "%s: key %s is shorter than its %d-digit salt",
            zFunc, zGot ? zGot : "", nSalt);
    sqlite3_free(zGot);
    return;
  }
  if( rkSalt(pHasher, key.a + nSalt, key.n - nSalt, nDigit, zSalt) ){
    rkError(ctx, "%s: OpenSSL failed to compute MD5", zFunc);
    return;
  }
  if( sqlite3_strnicmp((const char*)key.a, zSalt, nSalt) != 0 ){
    char *zGot = describeValue(argv[0], 0);
    rkError(ctx, "%s: key %s does not start with the salt of the rest of "
            "the key ('%.*s' with n = %d); was it salted with another n?",
            zFunc, zGot ? zGot : "", nSalt, zSalt, nDigit);
    sqlite3_free(zGot);
    return;
  }
  resultSlice(ctx, &key, nSalt, key.n);
}

/*
** rk_bucket(key, buckets): key % buckets for a non-negative integer (the
** design guides' timestamp % numBuckets), and for text or a blob the first
** 8 bytes of its md5 as a big-endian unsigned integer, modulo buckets.
*/
void rkBucketFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_bucket(key, buckets)";
  int eType = sqlite3_value_type(argv[0]);
  RkHasher *pHasher;
  RkBytes key;
  int64_t nBucket, iBucket;
  (void)argc;
  if( anyNull(2, argv) ) return;
  if( eType == SQLITE_FLOAT
   || (eType == SQLITE_INTEGER && sqlite3_value_int64(argv[0]) < 0) ){
    rkBadValue(ctx, zFunc, "key", "a non-negative INTEGER, a TEXT or a BLOB",
               argv[0], eType == SQLITE_INTEGER
                 ? "to bucket signed integers, hash their text with "
                   "rk_bucket(CAST(key AS TEXT), buckets)" : 0);
    return;
  }
  if( intArg(ctx, zFunc, "buckets", argv[1], 1, RK_MAX_BUCKETS, &nBucket) ){
    return;
  }
  if( eType == SQLITE_INTEGER ){
    sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]) % nBucket);
    return;
  }
  if( keyArg(ctx, zFunc, "key", argv[0], &key)
   || (pHasher = hasherOf(ctx, zFunc)) == 0 ){
    return;
  }
  iBucket = rkHashBucket(pHasher, key.a, key.n, nBucket);
  if( iBucket < 0 ){
    rkError(ctx, "%s: OpenSSL failed to compute MD5", zFunc);
    return;
  }
  sqlite3_result_int64(ctx, iBucket);
}

/* rk_md5(x): the md5 of a text, blob or integer's decimal text, as 32
** lowercase hex digits (the md5(userid) of the design guides). */
void rkMd5Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_md5(x)";
  RkHasher *pHasher;
  RkBytes in;
  unsigned char aDigest[RK_MD5_BYTES];
  char zHex[RK_MD5_HEX];
  (void)argc;
  if( anyNull(1, argv) ) return;
  if( keyArg(ctx, zFunc, "x", argv[0], &in)
   || (pHasher = hasherOf(ctx, zFunc)) == 0 ){
    return;
  }
  if( rkMd5(pHasher, in.a, in.n, aDigest) ){
    rkError(ctx, "%s: OpenSSL failed to compute MD5", zFunc);
    return;
  }
  rkHexEncode(aDigest, RK_MD5_BYTES, zHex);
  sqlite3_result_text(ctx, zHex, RK_MD5_HEX, SQLITE_TRANSIENT);
}

/* rk_token(v, ...): Cassandra's token() of a partition key of one or more
** values (rk_token.h): one value as its bytes, several in Cassandra's
** composite form (per value a 2-byte length, the bytes, a 0x00). */
void rkTokenFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  WcBuf key;
  int iLong;
  if( argc == 0 ){
    rkError(ctx, "rk_token(v, ...): give the partition key's values, one "
            "per column of the key");
    return;
  }
  if( anyNull(argc, argv) ) return;
  memset(&key, 0, sizeof(key));
  iLong = rkTokenKey(argv, argc, &key);
  if( key.bOom ){
    sqlite3_result_error_nomem(ctx);
  }else if( iLong ){
    rkError(ctx, "rk_token(v, ...): value %d is %d bytes; Cassandra keeps "
            "at most %d in a partition key column", iLong,
            sqlite3_value_bytes(argv[iLong - 1]), RK_TOKEN_MAX_KEY);
  }else if( key.n == 0 ){
    rkError(ctx, "rk_token(v, ...): the partition key is empty, which "
            "Cassandra refuses (\"Key may not be empty\"); an empty value is "
            "a key only as a part of a composite one");
  }else{
    sqlite3_result_int64(ctx, rkToken(key.a, key.n));
  }
  wcBufFree(&key);
}

/* rk_reverse(x): text reversed by character, a blob by byte, an integer's
** decimal text by digit (the Reverse(Pad(OrderID,'0')) of the guides). */
void rkReverseFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_reverse(x)";
  RkBytes in;
  RkOut out;
  (void)argc;
  if( anyNull(1, argv) ) return;
  if( keyArg(ctx, zFunc, "x", argv[0], &in)
   || !outAlloc(ctx, zFunc, &out, in.n) ){
    return;
  }
  if( in.bBlob ){
    rkReverseBytes(in.a, in.n, out.a);
  }else{
    rkReverseChars(in.a, in.n, out.a);
  }
  outResult(ctx, &out, in.n, in.bBlob);
}

/*
** rk_join(delimiter, value, ...): the values joined by the delimiter, as a
** composite key.  A value that contains the delimiter is refused: the key
** could not be split back into its fields and a prefix scan for one value
** would match others.  The result is a BLOB if any value is a BLOB.
*/
void rkJoinFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_join(delimiter, value, ...)";
  RkBytes delim, value;
  RkOut out;
  char zArg[32];
  int64_t nOut = 0;
  int i, bBlob = 0;
  if( argc < 2 ){
    rkError(ctx, "%s: needs a delimiter and at least one value, got %d "
            "argument%s", zFunc, argc, argc == 1 ? "" : "s");
    return;
  }
  if( anyNull(argc, argv) ) return;
  if( textArg(ctx, zFunc, "delimiter", argv[0], 0, &delim) ) return;
  for(i = 1; i < argc; i++){
    sqlite3_snprintf(sizeof(zArg), zArg, "value %d", i);
    if( keyArg(ctx, zFunc, zArg, argv[i], &value) ) return;
    if( delim.n > 0 && rkFind(value.a, value.n, 0, delim.a, delim.n) >= 0 ){
      char *zGot = describeValue(argv[i], 0);
      rkError(ctx, "%s: %s %s contains the delimiter %Q, so the key could "
              "not be split back into its fields; choose a delimiter that "
              "no value contains, or pad the fields to a fixed width and "
              "join them with ''", zFunc, zArg, zGot ? zGot : "",
              (const char*)delim.a);
      sqlite3_free(zGot);
      return;
    }
    nOut += value.n + (i > 1 ? delim.n : 0);
    bBlob |= value.bBlob;
  }
  if( !outAlloc(ctx, zFunc, &out, nOut) ) return;
  nOut = 0;
  for(i = 1; i < argc; i++){
    keyArg(ctx, zFunc, "value", argv[i], &value);
    if( i > 1 ){
      memcpy(&out.a[nOut], delim.a, (size_t)delim.n);
      nOut += delim.n;
    }
    memcpy(&out.a[nOut], value.a, (size_t)value.n);
    nOut += value.n;
  }
  outResult(ctx, &out, nOut, bBlob);
}

/* rk_part(key, delimiter, n): field n of a delimited key, counting from 1,
** or from the end for negative n (-1 is the last field). */
void rkPartFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_part(key, delimiter, n)";
  RkBytes key, delim;
  int64_t iField, nField = 1, iStart = 0, iEnd, i;
  (void)argc;
  if( anyNull(3, argv) ) return;
  if( keyArg(ctx, zFunc, "key", argv[0], &key)
   || textArg(ctx, zFunc, "delimiter", argv[1], 0, &delim) ){
    return;
  }
  if( delim.n == 0 ){
    rkBadValue(ctx, zFunc, "delimiter", "a non-empty TEXT", argv[1], 0);
    return;
  }
  if( sqlite3_value_type(argv[2]) != SQLITE_INTEGER
   || (iField = sqlite3_value_int64(argv[2])) == 0 ){
    rkBadValue(ctx, zFunc, "n", "a non-zero INTEGER (1 is the first field, "
               "-1 the last)", argv[2], 0);
    return;
  }
  for(i = rkFind(key.a, key.n, 0, delim.a, delim.n); i >= 0;
      i = rkFind(key.a, key.n, i + delim.n, delim.a, delim.n)){
    nField++;
  }
  if( iField < 0 ) iField += nField + 1;
  if( iField < 1 || iField > nField ){
    char *zGot = describeValue(argv[0], 0);
    rkError(ctx, "%s: key %s has %lld field%s split by %Q, so field %lld "
            "does not exist", zFunc, zGot ? zGot : "", nField,
            nField == 1 ? "" : "s", (const char*)delim.a,
            sqlite3_value_int64(argv[2]));
    sqlite3_free(zGot);
    return;
  }
  for(i = 1; i < iField; i++){
    iStart = rkFind(key.a, key.n, iStart, delim.a, delim.n) + delim.n;
  }
  iEnd = rkFind(key.a, key.n, iStart, delim.a, delim.n);
  if( iEnd < 0 ) iEnd = key.n;
  resultSlice(ctx, &key, iStart, iEnd);
}

/* rk_prefix_end(prefix): the HBase stop row of a prefix scan, the smallest
** key greater than every key that starts with prefix; NULL if none exists
** (empty prefix or all 0xFF bytes: scan to the end of the table). */
void rkPrefixEndFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "rk_prefix_end(prefix)";
  RkBytes prefix;
  RkOut out;
  int64_t nOut;
  (void)argc;
  if( anyNull(1, argv) ) return;
  if( keyArg(ctx, zFunc, "prefix", argv[0], &prefix)
   || !outAlloc(ctx, zFunc, &out, prefix.n) ){
    return;
  }
  nOut = rkPrefixEnd(prefix.a, prefix.n, out.a);
  if( nOut < 0 ){
    outDiscard(&out);
    return;
  }
  outResult(ctx, &out, nOut, prefix.bBlob);
}

void rkVersionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, WIDECOL_VERSION, -1, SQLITE_STATIC);
}
