/*
** wc_codec.c: writing row keys (see wc_codec.h and docs/encoding.md).
**
** TEXT encoding writes each field as the matching rk_* function would and
** joins the fields with the delimiter.  BINARY encoding writes typed,
** order-preserving bytes that need no delimiter.  Both refuse, with a
** message naming table, column and value, a value the field cannot hold.
*/
#include "util/wc_api.h"
#include "key/wc_codec.h"
#include "key/rk_bytes.h"
#include "key/rk_token.h"

#include <stddef.h>
#include <string.h>

/*
** Values.
*/
void wcValueFrom(sqlite3_value *pVal, WcValue *pOut){
  memset(pOut, 0, sizeof(*pOut));
  pOut->eType = sqlite3_value_type(pVal);
  switch( pOut->eType ){
    case SQLITE_INTEGER:
      pOut->i = sqlite3_value_int64(pVal);
      break;
    case SQLITE_FLOAT:
      pOut->r = sqlite3_value_double(pVal);
      break;
    case SQLITE_TEXT:
      pOut->a = sqlite3_value_text(pVal);
      pOut->n = sqlite3_value_bytes(pVal);
      break;
    case SQLITE_BLOB:
      pOut->a = sqlite3_value_blob(pVal);
      pOut->n = sqlite3_value_bytes(pVal);
      break;
  }
  if( pOut->a == 0 ) pOut->a = (const unsigned char*)"";
}

int wcValueSame(const WcValue *pA, const WcValue *pB){
  if( pA->eType != pB->eType ) return 0;
  switch( pA->eType ){
    case SQLITE_INTEGER: return pA->i == pB->i;
    case SQLITE_FLOAT:   return memcmp(&pA->r, &pB->r, sizeof(double)) == 0;
    case SQLITE_NULL:    return 1;
    default:
      return pA->n == pB->n
          && (pA->n == 0 || memcmp(pA->a, pB->a, (size_t)pA->n) == 0);
  }
}

static int valueRank(int eType){
  switch( eType ){
    case SQLITE_NULL:  return 0;
    case SQLITE_TEXT:  return 2;
    case SQLITE_BLOB:  return 3;
    default:           return 1;
  }
}

/* An integer against a double, exactly (no rounding of either). */
static int compareIntReal(int64_t i, double r){
  int64_t y;
  if( r < -9223372036854775808.0 ) return 1;
  if( r >= 9223372036854775808.0 ) return -1;
  y = (int64_t)r;
  if( i != y ) return i < y ? -1 : 1;
  return (double)y < r ? -1 : ((double)y > r ? 1 : 0);
}

int wcValueCompare(const WcValue *pA, const WcValue *pB){
  int rA = valueRank(pA->eType), rB = valueRank(pB->eType), c;
  int64_t n;
  if( rA != rB ) return rA < rB ? -1 : 1;
  switch( rA ){
    case 0:
      return 0;
    case 1:
      if( pA->eType == SQLITE_INTEGER && pB->eType == SQLITE_INTEGER ){
        return pA->i < pB->i ? -1 : pA->i > pB->i;
      }
      if( pA->eType == SQLITE_INTEGER ) return compareIntReal(pA->i, pB->r);
      if( pB->eType == SQLITE_INTEGER ) return -compareIntReal(pB->i, pA->r);
      return pA->r < pB->r ? -1 : pA->r > pB->r;
    default:
      n = pA->n < pB->n ? pA->n : pB->n;
      c = n ? memcmp(pA->a, pB->a, (size_t)n) : 0;
      if( c ) return c;
      return pA->n < pB->n ? -1 : pA->n > pB->n;
  }
}

/* SQLite's INTEGER and NUMERIC affinity turn a REAL with an exact integer
** value strictly inside the int64 range into an INTEGER. */
static void realToIntegerIfExact(WcValue *p){
  if( p->eType == SQLITE_FLOAT && p->r > -9223372036854775808.0
   && p->r < 9223372036854775808.0 ){
    int64_t i = (int64_t)p->r;
    if( (double)i == p->r && i > INT64_MIN && i < INT64_MAX ){
      p->eType = SQLITE_INTEGER;
      p->i = i;
    }
  }
}

int wcValueStore(char cAff, sqlite3_value *pVal, WcValue *pOut,
                 sqlite3_value **ppCopy){
  int eType = sqlite3_value_type(pVal);
  *ppCopy = 0;
  if( cAff == WC_AFF_TEXT && (eType == SQLITE_INTEGER || eType == SQLITE_FLOAT) ){
    /* The text SQLite itself would store, whatever format this SQLite
    ** version uses for REAL. */
    sqlite3_value *pCopy = sqlite3_value_dup(pVal);
    if( pCopy == 0 || sqlite3_value_text(pCopy) == 0 ){
      sqlite3_value_free(pCopy);
      return WC_NOMEM;
    }
    memset(pOut, 0, sizeof(*pOut));
    pOut->eType = SQLITE_TEXT;
    pOut->a = sqlite3_value_text(pCopy);
    pOut->n = sqlite3_value_bytes(pCopy);
    *ppCopy = pCopy;
    return WC_OK;
  }
  if( (cAff == WC_AFF_INTEGER || cAff == WC_AFF_NUMERIC || cAff == WC_AFF_REAL)
   && eType == SQLITE_TEXT ){
    sqlite3_value *pCopy = sqlite3_value_dup(pVal);
    if( pCopy == 0 ) return WC_NOMEM;
    if( sqlite3_value_numeric_type(pCopy) == SQLITE_TEXT ){
      sqlite3_value_free(pCopy);
      wcValueFrom(pVal, pOut);
      return WC_OK;
    }
    wcValueFrom(pCopy, pOut);
    sqlite3_value_free(pCopy);
  }else{
    wcValueFrom(pVal, pOut);
  }
  if( cAff == WC_AFF_REAL && pOut->eType == SQLITE_INTEGER ){
    pOut->eType = SQLITE_FLOAT;
    pOut->r = (double)pOut->i;
  }else if( cAff == WC_AFF_REAL && pOut->eType == SQLITE_FLOAT
         && pOut->r == 0.0 ){
    /* A REAL column keeps a whole number as an integer, so -0.0 reads
    ** back as 0.0: the Bigtable store, which keeps the double's bits,
    ** must be given what the column would hold. */
    pOut->r = 0.0;
  }else if( cAff == WC_AFF_INTEGER || cAff == WC_AFF_NUMERIC ){
    realToIntegerIfExact(pOut);
  }
  return WC_OK;
}

/* x'..' for the first bytes of a[0..n), "..." after it if cut short. */
static char *hexLiteral(const unsigned char *a, int64_t n){
  int nShow = n < 16 ? (int)n : 16;
  char zHex[32];
  rkHexEncode(a, nShow, zHex);
  return sqlite3_mprintf("x'%.*s'%s", 2 * nShow, zHex, nShow < n ? "..." : "");
}

char *wcValueDescribe(const WcValue *pVal, int bType){
  char *zShow, *zRet;
  const char *zType;
  switch( pVal->eType ){
    case SQLITE_INTEGER:
      zType = "INTEGER ";
      zShow = sqlite3_mprintf("%lld", pVal->i);
      break;
    case SQLITE_FLOAT:
      zType = "REAL ";
      zShow = sqlite3_mprintf("%!.15g", pVal->r);
      break;
    case SQLITE_TEXT: {
      int64_t nShow = rkCharBytes(pVal->a, pVal->n, 40);
      zType = "TEXT ";
      if( !rkIsUtf8(pVal->a, pVal->n) ){
        /* Shown as SQL that makes it: a message must be valid UTF-8, or
        ** a client cannot read it. */
        zShow = sqlite3_mprintf("CAST(%z AS TEXT)", hexLiteral(pVal->a,
                                                               pVal->n));
      }else{
        char *zPart = sqlite3_mprintf("%.*s", (int)nShow, pVal->a);
        zShow = sqlite3_mprintf("%Q%s", zPart, nShow < pVal->n ? "..." : "");
        sqlite3_free(zPart);
      }
      break;
    }
    case SQLITE_BLOB:
      zType = "BLOB ";
      zShow = hexLiteral(pVal->a, pVal->n);
      break;
    default:
      return sqlite3_mprintf("NULL");
  }
  if( zShow == 0 || !bType ) return zShow;
  zRet = sqlite3_mprintf("%s%s", zType, zShow);
  sqlite3_free(zShow);
  return zRet;
}

/*
** Errors.  A field that cannot hold a value reports it, if asked to.
*/
static int noFit(char **pzErr, const WcSchema *pS, int iCol,
                 const WcValue *pVal, const char *zProblem){
  if( pzErr ){
    char *zVal = wcValueDescribe(pVal, 1);
    *pzErr = sqlite3_mprintf("widecol %s: %s field %s, %s: %s",
                             pS->zTable, pS->zKeyName, pS->aCol[iCol].zName,
                             zVal ? zVal : "?", zProblem);
    sqlite3_free(zVal);
  }
  return WC_NOFIT;
}

static const char *typeWanted(char cAff){
  switch( cAff ){
    case WC_AFF_INTEGER: return "declared INTEGER, it holds only integers";
    case WC_AFF_REAL:    return "declared REAL, it holds only numbers";
    case WC_AFF_NUMERIC: return "declared NUMERIC, it holds only numbers";
    case WC_AFF_TEXT:    return "declared TEXT, it holds only text";
    default:             return "declared BLOB, it holds only blobs; "
                                "CAST the value AS BLOB";
  }
}

/* Checks that a stored value has the type its key column holds. */
static int checkType(const WcSchema *pS, int iCol, const WcValue *pVal,
                     char **pzErr){
  const WcColumn *pCol = &pS->aCol[iCol];
  int bOk;
  if( pVal->eType == SQLITE_NULL ){
    if( pzErr ){
      *pzErr = sqlite3_mprintf("NOT NULL constraint failed: %s.%s (every "
                               "column the %s is made of needs a value)",
                               pS->zTable, pCol->zName, pS->zKeyName);
    }
    return WC_NULL;
  }
  switch( pCol->cAff ){
    case WC_AFF_INTEGER: bOk = pVal->eType == SQLITE_INTEGER; break;
    case WC_AFF_REAL:    bOk = pVal->eType == SQLITE_FLOAT; break;
    case WC_AFF_NUMERIC: bOk = pVal->eType == SQLITE_INTEGER
                            || pVal->eType == SQLITE_FLOAT; break;
    case WC_AFF_TEXT:    bOk = pVal->eType == SQLITE_TEXT; break;
    default:             bOk = pVal->eType == SQLITE_BLOB; break;
  }
  return bOk ? WC_OK : noFit(pzErr, pS, iCol, pVal, typeWanted(pCol->cAff));
}

/*
** BINARY encoding of single values.
*/

/* Integers: a header byte 0x14 for zero, 0x14+n for a positive value of n
** big-endian bytes, 0x14-n for a negative one whose n bytes are the ones'
** complement of its magnitude. */
static void encodeInteger(int64_t v, WcBuf *pOut){
  unsigned char a[9];
  uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  int n = 0, i;
  uint64_t t;
  for(t = m; t; t >>= 8) n++;
  if( v < 0 ) m = ~m;
  a[0] = (unsigned char)(v < 0 ? 0x14 - n : 0x14 + n);
  for(i = 0; i < n; i++) a[n - i] = (unsigned char)(m >> (8 * i));
  wcBufAppend(pOut, a, n + 1);
}

/* Doubles: IEEE 754 bits, big-endian, with the sign bit flipped for
** positive values and every bit inverted for negative ones; -0.0 is 0.0. */
static void encodeDouble(double r, WcBuf *pOut){
  unsigned char a[8];
  uint64_t u;
  int i;
  if( r == 0.0 ) r = 0.0;
  memcpy(&u, &r, sizeof(u));
  u = (u >> 63) ? ~u : u | ((uint64_t)1 << 63);
  for(i = 0; i < 8; i++) a[i] = (unsigned char)(u >> (56 - 8 * i));
  wcBufAppend(pOut, a, 8);
}

/* NUMERIC values, integers and reals in one order: the double nearest the
** value, then 0x80 if that double is the exact value, or 0x81 / 0x7F and
** two bytes of the (small) amount an integer lies above / below it. */
static void encodeNumeric(const WcValue *pVal, WcBuf *pOut){
  unsigned char a[3];
  int64_t iDiff = 0;
  double r = pVal->r;
  int n = 1;
  if( pVal->eType == SQLITE_INTEGER ){
    r = (double)pVal->i;
    iDiff = r >= 9223372036854775808.0 ? (pVal->i - INT64_MAX) - 1
                                        : pVal->i - (int64_t)r;
  }
  encodeDouble(r, pOut);
  if( iDiff == 0 ){
    a[0] = 0x80;
  }else{
    uint16_t u = (uint16_t)(iDiff > 0 ? iDiff : iDiff + 65536);
    a[0] = iDiff > 0 ? 0x81 : 0x7F;
    a[1] = (unsigned char)(u >> 8);
    a[2] = (unsigned char)u;
    n = 3;
  }
  wcBufAppend(pOut, a, n);
}

/* Text and blobs: each 0x00 as 00 FF, then 00 00 to end the value. */
static void encodeEscaped(const unsigned char *a, int64_t n, WcBuf *pOut){
  static const unsigned char aZero[2] = { 0x00, 0xFF };
  static const unsigned char aEnd[2] = { 0x00, 0x00 };
  int64_t i, iStart = 0;
  for(i = 0; i < n; i++){
    if( a[i] == 0x00 ){
      wcBufAppend(pOut, &a[iStart], i - iStart);
      wcBufAppend(pOut, aZero, 2);
      iStart = i + 1;
    }
  }
  wcBufAppend(pOut, &a[iStart], n - iStart);
  wcBufAppend(pOut, aEnd, 2);
}

static int encodeBinaryColumn(const WcSchema *pS, const WcElement *pElem,
                              const WcValue *pVal, WcBuf *pOut, char **pzErr){
  int64_t iStart = pOut->n, i;
  int rc = checkType(pS, pElem->iCol, pVal, pzErr);
  if( rc ) return rc;
  switch( pS->aCol[pElem->iCol].cAff ){
    case WC_AFF_INTEGER: encodeInteger(pVal->i, pOut); break;
    case WC_AFF_REAL:    encodeDouble(pVal->r, pOut); break;
    case WC_AFF_NUMERIC: encodeNumeric(pVal, pOut); break;
    default:             encodeEscaped(pVal->a, pVal->n, pOut); break;
  }
  if( pElem->eOrder == WC_ORDER_DESC && !pOut->bOom ){
    for(i = iStart; i < pOut->n; i++) pOut->a[i] = (unsigned char)~pOut->a[i];
  }
  return pOut->bOom ? WC_NOMEM : WC_OK;
}

/*
** TEXT encoding of a column element: the value goes through the
** element's transforms as through the rk_* functions of the same names.
*/
typedef struct Field Field;
struct Field {
  int bInt;                     /* The value is still the integer i */
  int64_t i;
  const unsigned char *a;       /* Otherwise its bytes */
  int64_t n;
  int bDescBytes;               /* a[] is an rk_desc encoding */
  WcBuf aWork[2];               /* Where transforms write */
  int iWork;
  char zDigits[RK_PAD_MAX_WIDTH + RK_MAX_DIGITS];
};

static WcBuf *fieldWork(Field *pF){
  WcBuf *p = &pF->aWork[pF->iWork];
  pF->iWork ^= 1;
  p->n = 0;
  return p;
}

static void fieldSetDigits(Field *pF, uint64_t v, int nWidth){
  rkPadDecimal(v, nWidth, pF->zDigits);
  pF->a = (const unsigned char*)pF->zDigits;
  pF->n = nWidth;
  pF->bInt = 0;
}

static void fieldToText(Field *pF){
  if( pF->bInt ){
    sqlite3_snprintf(sizeof(pF->zDigits), pF->zDigits, "%lld", pF->i);
    pF->a = (const unsigned char*)pF->zDigits;
    pF->n = (int64_t)strlen(pF->zDigits);
    pF->bInt = 0;
  }
}

static int applyPad(const WcSchema *pS, int iCol, const WcTransform *pX,
                    const WcValue *pVal, int bBound, Field *pF, char **pzErr){
  int nWidth = (int)pX->iArg;
  if( pF->bInt ){
    char zMsg[120];
    if( pF->i < 0 ){
      return noFit(pzErr, pS, iCol, pVal, "it is negative, and PAD writes "
                   "non-negative integers");
    }
    if( rkDigitCount((uint64_t)pF->i) > nWidth ){
      sqlite3_snprintf(sizeof(zMsg), zMsg, "it has %d digits, more than "
                       "PAD %d allows", rkDigitCount((uint64_t)pF->i), nWidth);
      return noFit(pzErr, pS, iCol, pVal, zMsg);
    }
    fieldSetDigits(pF, (uint64_t)pF->i, nWidth);
  }else{
    int64_t nChar = rkCharCount(pF->a, pF->n), k;
    int nFill = (int)strlen(pX->zFill);
    WcBuf *pW;
    /* PAD counts characters, and the key is read back by counting them
    ** (WC_SPAN_CHARS): bytes that belong to no character would let the
    ** field's end move into the next field, two rows sharing one key. */
    if( !bBound && pS->aCol[iCol].cAff == WC_AFF_TEXT
     && !rkIsUtf8(pF->a, pF->n) ){
      return noFit(pzErr, pS, iCol, pVal, "it is not valid UTF-8, and PAD "
                   "counts characters, which only valid UTF-8 has; declare "
                   "the column BLOB, or CAST the value to valid text");
    }
    if( nChar > nWidth ){
      char zMsg[120];
      sqlite3_snprintf(sizeof(zMsg), zMsg, "it has %lld characters, more "
                       "than PAD %d allows", nChar, nWidth);
      return noFit(pzErr, pS, iCol, pVal, zMsg);
    }
    /* Even at full width: 'ab ' stored unpadded would be the key of 'ab'
    ** padded, two values SQLite holds apart under one key. */
    if( !bBound && pF->n >= nFill
     && memcmp(&pF->a[pF->n - nFill], pX->zFill, nFill) == 0 ){
      char *zMsg = sqlite3_mprintf("it ends with the PAD fill character "
                                   "'%s', so its key would be the key of "
                                   "the value without it; strip the fill "
                                   "or choose a PAD fill the values never "
                                   "end with", pX->zFill);
      int rc = noFit(pzErr, pS, iCol, pVal, zMsg ? zMsg : "it ends with the "
                     "PAD fill character");
      sqlite3_free(zMsg);
      return rc;
    }
    pW = fieldWork(pF);
    wcBufAppend(pW, pF->a, pF->n);
    for(k = nChar; k < nWidth; k++) wcBufAppend(pW, pX->zFill, nFill);
    pF->a = pW->a;
    pF->n = pW->n;
  }
  return WC_OK;
}

static int applyDesc(const WcSchema *pS, int iCol, const WcTransform *pX,
                     const WcValue *pVal, Field *pF, char **pzErr){
  if( pF->bInt ){
    if( pF->i < 0 || pF->i > pX->iArg ){
      char *zMsg = sqlite3_mprintf("DESC writes max - value, so it must be "
                                   "from 0 to %lld", pX->iArg);
      int rc = noFit(pzErr, pS, iCol, pVal, zMsg ? zMsg : "it is out of "
                     "DESC's range");
      sqlite3_free(zMsg);
      return rc;
    }
    fieldSetDigits(pF, (uint64_t)(pX->iArg - pF->i),
                   rkDigitCount((uint64_t)pX->iArg));
  }else{
    WcBuf *pW = fieldWork(pF);
    if( wcBufReserve(pW, RK_DESC_MAX(pF->n)) ) return WC_NOMEM;
    pW->n = rkDescEncode(pF->a, pF->n, pW->a);
    pF->a = pW->a;
    pF->n = pW->n;
    pF->bDescBytes = 1;
  }
  return WC_OK;
}

/* Text is reversed by characters, which only valid UTF-8 has: bytes
** that belong to no character would go where they fit, and two values
** could reverse to the same key ('\xb2\xb2 0' and '\xb2 0\xb2'). */
static int applyReverse(const WcSchema *pS, int iCol, const WcValue *pVal,
                        int bBound, Field *pF, char **pzErr){
  WcBuf *pW;
  int bText = pS->aCol[iCol].cAff != WC_AFF_BLOB;
  if( bText && !pF->bInt && !bBound && !rkIsUtf8(pF->a, pF->n) ){
    return noFit(pzErr, pS, iCol, pVal, "it is not valid UTF-8, and "
                 "REVERSE reverses characters, which only valid UTF-8 has; "
                 "declare the column BLOB to reverse bytes");
  }
  pW = fieldWork(pF);
  fieldToText(pF);
  if( wcBufReserve(pW, pF->n) ) return WC_NOMEM;
  pW->n = pF->n;
  if( bText ){
    rkReverseChars(pF->a, pF->n, pW->a);
  }else{
    rkReverseBytes(pF->a, pF->n, pW->a);
  }
  pF->a = pW->a;
  pF->n = pW->n;
  return WC_OK;
}

static int encodeTextColumn(const WcSchema *pS, const WcElement *pElem,
                            const WcValue *pVal, int bBound, WcBuf *pOut,
                            char **pzErr){
  Field f;
  int iCol = pElem->iCol, i, rc;
  rc = checkType(pS, iCol, pVal, pzErr);
  if( rc ) return rc;
  memset(&f, 0, offsetof(Field, zDigits));
  f.bInt = pVal->eType == SQLITE_INTEGER;
  f.i = pVal->i;
  f.a = pVal->a;
  f.n = pVal->n;
  for(i = 0; i < pElem->nXform && rc == WC_OK; i++){
    const WcTransform *pX = &pElem->aXform[i];
    if( pX->eOp == WC_XFORM_PAD ){
      rc = applyPad(pS, iCol, pX, pVal, bBound, &f, pzErr);
    }else if( pX->eOp == WC_XFORM_DESC ){
      rc = applyDesc(pS, iCol, pX, pVal, &f, pzErr);
    }else{
      rc = applyReverse(pS, iCol, pVal, bBound, &f, pzErr);
    }
    if( rc == WC_OK && (f.aWork[0].bOom || f.aWork[1].bOom) ) rc = WC_NOMEM;
  }
  if( rc == WC_OK ){
    fieldToText(&f);
    if( !bBound && pS->nDelim && !f.bDescBytes
     && rkFind(f.a, f.n, 0, (const unsigned char*)pS->zDelim, pS->nDelim) >= 0 ){
      char *zMsg = sqlite3_mprintf("it contains the delimiter %Q, so the key "
                                   "could not be split back into its fields; "
                                   "choose another DELIMITER", pS->zDelim);
      rc = noFit(pzErr, pS, iCol, pVal, zMsg ? zMsg : "it contains the "
                 "delimiter");
      sqlite3_free(zMsg);
    }else{
      wcBufAppend(pOut, f.a, f.n);
    }
  }
  wcBufFree(&f.aWork[0]);
  wcBufFree(&f.aWork[1]);
  if( rc == WC_OK && pOut->bOom ) rc = WC_NOMEM;
  return rc;
}

/*
** SALT and BUCKET elements.
*/

/* The text a salt or bucket is computed from: the source values' text
** (integers in decimal) joined by the delimiter, as rk_join would. */
static int saltSource(const WcSchema *pS, const WcElement *pElem,
                      const WcValue *aVal, WcBuf *pSrc, char **pzErr){
  int i;
  for(i = 0; i < pElem->nSaltCol; i++){
    int iCol = pElem->aiSaltCol[i];
    const WcValue *pVal = &aVal[iCol];
    int rc = checkType(pS, iCol, pVal, pzErr);
    if( rc ) return rc;
    if( i > 0 ) wcBufAppend(pSrc, pS->zDelim, pS->nDelim);
    if( pVal->eType == SQLITE_INTEGER ){
      char zNum[RK_MAX_DIGITS + 2];
      sqlite3_snprintf(sizeof(zNum), zNum, "%lld", pVal->i);
      wcBufAppend(pSrc, zNum, (int64_t)strlen(zNum));
    }else{
      wcBufAppend(pSrc, pVal->a, pVal->n);
    }
  }
  return pSrc->bOom ? WC_NOMEM : WC_OK;
}

/* A TOKEN element's bytes for u, the token with its sign bit flipped: 8
** bytes big-endian in BINARY encoding, 16 lowercase hex digits in TEXT. */
static int appendTokenBytes(const WcSchema *pS, uint64_t u, WcBuf *pOut){
  unsigned char aByte[8];
  char zHex[16];
  int i;
  if( pS->eEncoding == WC_ENCODING_BINARY ){
    for(i = 0; i < 8; i++) aByte[i] = (unsigned char)(u >> (56 - 8 * i));
    wcBufAppend(pOut, aByte, 8);
  }else{
    for(i = 15; i >= 0; i--){
      zHex[i] = "0123456789abcdef"[u & 0x0F];
      u >>= 4;
    }
    wcBufAppend(pOut, zHex, 16);
  }
  return pOut->bOom ? WC_NOMEM : WC_OK;
}

/* TOKEN(columns): Cassandra's token of the columns' values, its sign bit
** flipped so that byte order is token order: 8 bytes big-endian in
** BINARY encoding, 16 lowercase hex digits in TEXT. */
static int encodeToken(const WcSchema *pS, const WcElement *pElem,
                       const WcValue *aVal, WcBuf *pOut, char **pzErr){
  RkTokenPart aPart[WC_MAX_SALT_COL];
  WcBuf key;
  uint64_t u;
  int i, iLong, rc = WC_OK;
  for(i = 0; i < pElem->nSaltCol; i++){
    int iCol = pElem->aiSaltCol[i];
    const WcValue *pVal = &aVal[iCol];
    rc = checkType(pS, iCol, pVal, pzErr);
    if( rc ) return rc;
    aPart[i].eType = pVal->eType;
    aPart[i].i = pVal->i;
    aPart[i].r = pVal->r;
    aPart[i].a = pVal->a;
    aPart[i].n = pVal->n;
  }
  memset(&key, 0, sizeof(key));
  iLong = rkTokenKeyOf(aPart, pElem->nSaltCol, &key);
  if( key.bOom ){
    rc = WC_NOMEM;
  }else if( iLong || key.n == 0 ){
    int iCol = pElem->aiSaltCol[iLong ? iLong - 1 : 0];
    char zLong[80];
    sqlite3_snprintf(sizeof(zLong), zLong, "a Cassandra partition key "
                     "column holds at most %d bytes", RK_TOKEN_MAX_KEY);
    rc = noFit(pzErr, pS, iCol, &aVal[iCol], iLong ? zLong
               : "Cassandra refuses an empty partition key");
  }else{
    u = (uint64_t)rkToken(key.a, key.n) ^ (UINT64_C(1) << 63);
    rc = appendTokenBytes(pS, u, pOut);
  }
  wcBufFree(&key);
  return rc;
}

static int encodeSalt(const WcSchema *pS, RkHasher *pHasher,
                      const WcElement *pElem, const WcValue *aVal,
                      WcBuf *pOut, char **pzErr){
  WcBuf src;
  char zSalt[RK_MD5_HEX];
  int rc;
  if( pElem->bToken ) return encodeToken(pS, pElem, aVal, pOut, pzErr);
  memset(&src, 0, sizeof(src));
  rc = saltSource(pS, pElem, aVal, &src, pzErr);
  if( rc == WC_OK ){
    if( pHasher == 0 || rkSalt(pHasher, src.a ? src.a : (unsigned char*)"",
                               src.n, pElem->nSaltDigit, zSalt) ){
      if( pzErr ){
        *pzErr = sqlite3_mprintf("widecol %s: OpenSSL could not compute the "
                                 "MD5 for SALT", pS->zTable);
      }
      rc = WC_ERROR;
    }else{
      wcBufAppend(pOut, zSalt, pElem->nSaltDigit < 0 ? -pElem->nSaltDigit
                                                     : pElem->nSaltDigit);
    }
  }
  wcBufFree(&src);
  return rc;
}

static int encodeBucket(const WcSchema *pS, RkHasher *pHasher,
                        const WcElement *pElem, const WcValue *aVal,
                        WcBuf *pOut, char **pzErr){
  const WcValue *pVal = &aVal[pElem->iCol];
  char zDigits[RK_MAX_DIGITS];
  int64_t iBucket;
  int rc = checkType(pS, pElem->iCol, pVal, pzErr);
  if( rc ) return rc;
  if( pVal->eType == SQLITE_INTEGER ){
    if( pVal->i < 0 ){
      return noFit(pzErr, pS, pElem->iCol, pVal, "BUCKET takes non-negative "
                   "integers (value % buckets), text or blobs");
    }
    iBucket = pVal->i % pElem->nBucket;
  }else if( pHasher == 0
         || (iBucket = rkHashBucket(pHasher, pVal->a, pVal->n,
                                    pElem->nBucket)) < 0 ){
    if( pzErr ){
      *pzErr = sqlite3_mprintf("widecol %s: OpenSSL could not compute the "
                               "MD5 for BUCKET", pS->zTable);
    }
    return WC_ERROR;
  }
  rkPadDecimal((uint64_t)iBucket, rkDigitCount((uint64_t)(pElem->nBucket - 1)),
               zDigits);
  wcBufAppend(pOut, zDigits, rkDigitCount((uint64_t)(pElem->nBucket - 1)));
  return pOut->bOom ? WC_NOMEM : WC_OK;
}

uint64_t wcDerivedCount(const WcSchema *pS, int iElem){
  const WcElement *pElem = &pS->aElem[iElem];
  int nDigit = pElem->nSaltDigit < 0 ? -pElem->nSaltDigit : pElem->nSaltDigit;
  if( pElem->eKind == WC_ELEM_BUCKET ) return (uint64_t)pElem->nBucket;
  return nDigit < 16 ? (uint64_t)1 << (4 * nDigit) : 0;
}

double wcDerivedDomain(const WcSchema *pS, int iElem){
  const WcElement *pElem = &pS->aElem[iElem];
  double r = 1.0;
  int i;
  if( pElem->eKind == WC_ELEM_BUCKET ) return (double)pElem->nBucket;
  if( pElem->bToken ) return 18446744073709551616.0;
  for(i = 0; i < pElem->nSpan; i++) r *= 16.0;
  return r;
}

const char *wcDerivedName(const WcElement *pElem){
  return pElem->bToken ? "TOKEN"
       : pElem->eKind == WC_ELEM_SALT ? "SALT" : "BUCKET";
}

int wcPartitionColumn(const WcSchema *pS, int iCol){
  const WcElement *pTok = &pS->aElem[0];
  int i;
  for(i = 0; pS->nElem > 0 && pTok->bToken && i < pTok->nSaltCol; i++){
    if( pTok->aiSaltCol[i] == iCol ) return 1;
  }
  return 0;
}

int wcEncodeDerived(const WcSchema *pS, int iElem, uint64_t iValue,
                    WcBuf *pOut){
  static const char aHexDigit[] = "0123456789abcdef";
  const WcElement *pElem = &pS->aElem[iElem];
  char z[RK_MD5_HEX];
  int n, i;
  if( pElem->bToken ){
    /* iValue is the token with its sign bit flipped: the key's order. */
    return appendTokenBytes(pS, iValue, pOut);
  }
  if( pElem->eKind == WC_ELEM_BUCKET ){
    n = rkDigitCount((uint64_t)(pElem->nBucket - 1));
    rkPadDecimal(iValue, n, z);
  }else{
    n = pElem->nSaltDigit < 0 ? -pElem->nSaltDigit : pElem->nSaltDigit;
    for(i = n - 1; i >= 0; i--){
      z[i] = aHexDigit[iValue & 0x0F];
      iValue >>= 4;
    }
  }
  wcBufAppend(pOut, z, n);
  return pOut->bOom ? WC_NOMEM : WC_OK;
}

/*
** Keys.
*/
int wcEncodeElement(const WcSchema *pS, RkHasher *pHasher, int iElem,
                    const WcValue *aVal, int bBound, WcBuf *pOut,
                    char **pzErr){
  const WcElement *pElem = &pS->aElem[iElem];
  switch( pElem->eKind ){
    case WC_ELEM_SALT:
      return encodeSalt(pS, pHasher, pElem, aVal, pOut, pzErr);
    case WC_ELEM_BUCKET:
      return encodeBucket(pS, pHasher, pElem, aVal, pOut, pzErr);
    default:
      if( pS->eEncoding == WC_ENCODING_BINARY ){
        return encodeBinaryColumn(pS, pElem, &aVal[pElem->iCol], pOut, pzErr);
      }
      return encodeTextColumn(pS, pElem, &aVal[pElem->iCol], bBound, pOut,
                              pzErr);
  }
}

void wcAppendSeparator(const WcSchema *pS, int iElem, WcBuf *pOut){
  if( pS->eEncoding == WC_ENCODING_TEXT && !wcElementIsLast(pS, iElem) ){
    wcBufAppend(pOut, pS->zDelim, pS->nDelim);
  }
}

int wcEncodeKey(const WcSchema *pS, RkHasher *pHasher, const WcValue *aVal,
                WcBuf *pKey, char **pzErr){
  int i, rc = WC_OK;
  pKey->n = 0;
  for(i = 0; i < pS->nElem && rc == WC_OK; i++){
    rc = wcEncodeElement(pS, pHasher, i, aVal, 0, pKey, pzErr);
    wcAppendSeparator(pS, i, pKey);
  }
  if( rc == WC_OK && pKey->bOom ) rc = WC_NOMEM;
  if( rc == WC_OK && pKey->n + pS->nRandomDigit > WC_MAX_KEY_BYTES ){
    if( pzErr ){
      *pzErr = sqlite3_mprintf("widecol %s: the %s would be %lld bytes, "
                               "more than the %d allowed (%s's row key "
                               "limit)", pS->zTable, pS->zKeyName,
                               pKey->n + pS->nRandomDigit, WC_MAX_KEY_BYTES,
                               wcKindKeyLimitOwner(wcKind(pS->eStore)));
    }
    rc = WC_NOFIT;
  }
  return rc;
}

void wcRandomSet(const WcSchema *pS, int64_t nMade, int64_t iValue,
                 WcBuf *pKey){
  pKey->n = nMade;
  if( wcBufReserve(pKey, pS->nRandomDigit) ) return;
  rkPadDecimal((uint64_t)iValue, pS->nRandomDigit, (char*)&pKey->a[nMade]);
  pKey->n = nMade + pS->nRandomDigit;
}

int64_t wcRandomOf(const WcSchema *pS, const unsigned char *aKey,
                   int64_t nKey){
  int64_t iValue = 0, i;
  if( nKey < pS->nRandomDigit ) return -1;
  for(i = nKey - pS->nRandomDigit; i < nKey; i++){
    if( aKey[i] < '0' || aKey[i] > '9' ) return -1;
    iValue = iValue * 10 + (aKey[i] - '0');
  }
  return iValue < pS->nRandom ? iValue : -1;
}

int wcKeyIsMade(const WcSchema *pS, const WcBuf *pMade,
                const unsigned char *aKey, int64_t nKey){
  if( nKey != pMade->n + pS->nRandomDigit
   || (pMade->n && memcmp(pMade->a, aKey, (size_t)pMade->n)) ){
    return 0;
  }
  return pS->nRandom == 0 || wcRandomOf(pS, aKey, nKey) >= 0;
}

/*
** Reading keys: where an element ends.
*/

/* The end of an escaped TEXT/BLOB encoding (00 -> 00 FF, ends 00 00),
** inverted when bDesc; -1 if a[0..n) does not hold a complete one. */
static int64_t escapedSpan(const unsigned char *a, int64_t n, int bDesc){
  unsigned char cZero = bDesc ? 0xFF : 0x00;
  int64_t i = 0;
  while( i < n ){
    if( a[i] != cZero ){
      i++;
    }else if( i + 1 >= n ){
      return -1;
    }else if( a[i + 1] == cZero ){
      return i + 2;
    }else if( a[i + 1] == (unsigned char)~cZero ){
      i += 2;
    }else{
      return -1;
    }
  }
  return -1;
}

static int64_t binarySpan(const WcSchema *pS, const WcElement *pElem,
                          const unsigned char *a, int64_t n){
  int bDesc = pElem->eOrder == WC_ORDER_DESC;
  unsigned char c0 = n > 0 ? (unsigned char)(bDesc ? ~a[0] : a[0]) : 0;
  int64_t nSpan;
  if( n == 0 ) return -1;
  switch( pS->aCol[pElem->iCol].cAff ){
    case WC_AFF_INTEGER:
      if( c0 < 0x0C || c0 > 0x1C ) return -1;
      nSpan = 1 + (c0 >= 0x14 ? c0 - 0x14 : 0x14 - c0);
      break;
    case WC_AFF_REAL:
      nSpan = 8;
      break;
    case WC_AFF_NUMERIC: {
      unsigned char cMark;
      if( n < 9 ) return -1;
      cMark = (unsigned char)(bDesc ? ~a[8] : a[8]);
      if( cMark != 0x80 && cMark != 0x81 && cMark != 0x7F ) return -1;
      nSpan = cMark == 0x80 ? 9 : 11;
      break;
    }
    default:
      return escapedSpan(a, n, bDesc);
  }
  return nSpan <= n ? nSpan : -1;
}

int64_t wcElementSpan(const WcSchema *pS, int iElem, const unsigned char *a,
                      int64_t n){
  const WcElement *pElem = &pS->aElem[iElem];
  int bSep = pS->eEncoding == WC_ENCODING_TEXT && !wcElementIsLast(pS, iElem)
          && pS->nDelim > 0;
  int64_t nSpan;
  if( pS->eEncoding == WC_ENCODING_BINARY && pElem->eKind == WC_ELEM_COLUMN ){
    return binarySpan(pS, pElem, a, n);
  }
  switch( pElem->eSpan ){
    case WC_SPAN_BYTES:
      nSpan = pElem->nSpan;
      break;
    case WC_SPAN_CHARS:
      /* PAD takes valid UTF-8 only, so the field is that many whole
      ** characters, not followed by bytes that would continue the last. */
      nSpan = rkUtf8Bytes(a, n, pElem->nSpan);
      if( nSpan < 0 ) return -1;
      break;
    case WC_SPAN_DESC:
      /* rk_desc bytes are the escaped encoding, inverted. */
      nSpan = escapedSpan(a, n, 1);
      if( nSpan < 0 ) return -1;
      break;
    default:
      if( !bSep ) return n;
      nSpan = rkFind(a, n, 0, (const unsigned char*)pS->zDelim, pS->nDelim);
      if( nSpan < 0 ) return -1;
      break;
  }
  if( nSpan > n ) return -1;
  if( bSep ){
    if( nSpan + pS->nDelim > n
     || memcmp(&a[nSpan], pS->zDelim, (size_t)pS->nDelim) != 0 ){
      return -1;
    }
    nSpan += pS->nDelim;
  }
  return nSpan;
}
