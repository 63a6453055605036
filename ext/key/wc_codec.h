/*
** wc_codec.h: writing row keys.
**
** Values arrive as SQLite values; wcValueStore() gives each the type an
** ordinary table column of the same declared type would store.  The key is
** then written element by element (wcEncodeKey), or one element alone for
** a scan bound (wcEncodeField).  docs/encoding.md describes every byte.
*/
#ifndef WIDECOL_WC_CODEC_H
#define WIDECOL_WC_CODEC_H

#include "key/wc_schema.h"
#include "key/rk_hash.h"
#include "util/wc_buf.h"

/* A value as the codec sees it.  a[0..n) belongs to someone else. */
typedef struct WcValue WcValue;
struct WcValue {
  int eType;                    /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB, _NULL */
  int64_t i;
  double r;
  const unsigned char *a;       /* TEXT and BLOB bytes, never NULL */
  int64_t n;
};


/* Result codes of the encoders.  Each maps to one SQLite code, chosen by
** value: a value the user gave that a key cannot hold is a constraint
** violation; the codec's own failures never are. */
#define WC_OK     0
#define WC_NOFIT  1   /* The value cannot be stored in that key field
                      ** (SQLITE_CONSTRAINT_CHECK) */
#define WC_NOMEM  2
#define WC_NULL   3   /* A key field is NULL (SQLITE_CONSTRAINT_NOTNULL) */
#define WC_ERROR  4   /* OpenSSL could not compute an MD5 (SQLITE_ERROR) */

/* Fills *pOut with pVal as a column of affinity cAff stores it.  If the
** value had to be converted through a copy, *ppCopy is set to it and the
** caller frees it with sqlite3_value_free() once *pOut is no longer used;
** otherwise *ppCopy is NULL.  Returns WC_OK or WC_NOMEM. */
int wcValueStore(char cAff, sqlite3_value *pVal, WcValue *pOut,
                 sqlite3_value **ppCopy);

/* Fills *pOut with pVal as it is, with no conversion. */
void wcValueFrom(sqlite3_value *pVal, WcValue *pOut);

/* True if two stored values are the same: same type and bytes (a REAL
** bit for bit).  An UPDATE rewrites an index entry, and widecol_check
** reports one, when a value it holds is not the row's. */
int wcValueSame(const WcValue *pA, const WcValue *pB);

/* <0, 0 or >0 as pA sorts before, with or after pB in SQLite's ORDER BY
** with the BINARY collation: NULL, numbers by value, text, blobs. */
int wcValueCompare(const WcValue *pA, const WcValue *pB);

/* Appends the bytes of element iElem to pOut, given the stored values of
** all columns (aVal[iCol]).  Returns one of the codes above; for any but
** WC_OK and WC_NOMEM, if pzErr is not NULL, *pzErr is a message naming
** table, column, value and what the field accepts.  With bBound set the value is
** a scan bound, never stored, so the checks that keep stored keys
** decodable (no delimiter inside, no trailing PAD fill) are skipped. */
int wcEncodeElement(const WcSchema *pS, RkHasher *pHasher, int iElem,
                    const WcValue *aVal, int bBound, WcBuf *pOut,
                    char **pzErr);

/* The whole row key: the elements with delimiters between them (TEXT
** encoding).  Same codes as wcEncodeElement; a key longer than
** WC_MAX_KEY_BYTES is WC_NOFIT. */
int wcEncodeKey(const WcSchema *pS, RkHasher *pHasher, const WcValue *aVal,
                WcBuf *pKey, char **pzErr);

/* RANDOM(n) (WcSchema.nRandom), after the key wcEncodeKey() made.
** wcRandomSet: pKey becomes its first nMade bytes followed by the digits
** of iValue (pKey->bOom on failure).  wcRandomOf: the number a stored
** key ends in, or -1 if it does not end in RANDOM's digits below n.
** wcKeyIsMade: true if the stored key aKey[0..nKey) is the key pMade
** (wcEncodeKey's) and, on a RANDOM design, a number after it: the fields
** the row holds made it. */
void wcRandomSet(const WcSchema *pS, int64_t nMade, int64_t iValue,
                 WcBuf *pKey);
int64_t wcRandomOf(const WcSchema *pS, const unsigned char *aKey,
                   int64_t nKey);
int wcKeyIsMade(const WcSchema *pS, const WcBuf *pMade,
                const unsigned char *aKey, int64_t nKey);

/* The values a SALT or BUCKET element iElem can take (0 if more than
** 2^60), and the bytes of the iValue-th of them in byte order: bucket
** iValue, or the salt whose hex digits spell iValue (of a TOKEN, which
** takes 2^64, the token whose sign-flipped bits are iValue).  A skip scan
** over a dense table visits every one instead of probing for them. */
uint64_t wcDerivedCount(const WcSchema *pS, int iElem);
/* The same count as a double, however large (a TOKEN's is 2^64), and the
** element's name: "TOKEN", "SALT" or "BUCKET". */
double wcDerivedDomain(const WcSchema *pS, int iElem);
const char *wcDerivedName(const WcElement *pElem);
/* True if column iCol is one of the partition key's in Cassandra's form:
** the key's leading TOKEN is computed from it. */
int wcPartitionColumn(const WcSchema *pS, int iCol);
int wcEncodeDerived(const WcSchema *pS, int iElem, uint64_t iValue,
                    WcBuf *pOut);

/* Appends what follows element iElem in a key: the delimiter, unless the
** element is last or the encoding or width makes one unnecessary. */
void wcAppendSeparator(const WcSchema *pS, int iElem, WcBuf *pOut);

/* The bytes element iElem takes at the start of a[0..n) of a stored key,
** with the delimiter after it, or -1 if a does not start with one.  The
** key's first k elements are a[0..sum of the first k spans). */
int64_t wcElementSpan(const WcSchema *pS, int iElem, const unsigned char *a,
                      int64_t n);

/* A value for an error message, bounded in length, preceded by its type
** when bType is set: "INTEGER 5", "TEXT 'abc'", "BLOB x'00ff'".  From
** sqlite3_mprintf(); NULL on OOM. */
char *wcValueDescribe(const WcValue *pVal, int bType);

#endif /* WIDECOL_WC_CODEC_H */
