/*
** wc_decode.c: a row key read back into its fields (see wc_decode.h).
**
** Each element's bytes are found as the scanner finds them
** (wcElementSpan); a column element's transforms are undone in reverse
** order, SALT, BUCKET and TOKEN elements skipped (they are computed), and
** RANDOM's digits set aside.  Then the fields are written again and must
** make the very key read: that one comparison rules out every key the
** design could not have written, however it differs.
*/
#include "key/wc_decode.h"
#include "key/rk_bytes.h"

#include <string.h>

/* A decoded field while the bytes of others are still being added to the
** buffer: its value, its bytes at an offset. */
typedef struct Field Field;
struct Field {
  int iCol;
  int eType;
  int64_t i;
  double r;
  int64_t iOff, n;
};

/* WC_NOFIT, and why: zWhy, then the column it is about (if any). */
static int notKey(char **pzErr, const char *zWhy, const char *zCol){
  if( pzErr ){
    *pzErr = zCol ? sqlite3_mprintf("%s %s", zWhy, zCol)
                  : sqlite3_mprintf("%s", zWhy);
  }
  return WC_NOFIT;
}

/* A decimal integer, "-" allowed, as "%lld" writes it: *piOut; 0 if a is
** not one (leading zeros are the re-encoding's to judge). */
static int parseInteger(const unsigned char *a, int64_t n, int64_t *piOut){
  uint64_t u = 0;
  int64_t i = 0;
  int bNeg = n > 0 && a[0] == '-';
  if( bNeg ) i++;
  if( i >= n || n - i > 19 ) return 0;
  for(; i < n; i++){
    if( a[i] < '0' || a[i] > '9' ) return 0;
    u = u * 10 + (uint64_t)(a[i] - '0');
  }
  if( bNeg ? u > (uint64_t)INT64_MAX + 1 : u > (uint64_t)INT64_MAX ) return 0;
  *piOut = bNeg ? (int64_t)(0 - u) : (int64_t)u;
  return 1;
}

/* Undoes a TEXT-encoding column element's transforms on its bytes
** a[0..n), last first, into *pF (text bytes appended to pBuf).  An
** INTEGER column's value is an integer only until its first transform,
** which writes it as digits (PAD, DESC) or as text (REVERSE); every later
** one works on text.  WC_OK, WC_NOFIT or WC_NOMEM. */
static int decodeText(const WcSchema *pS, const WcElement *pElem,
                      const unsigned char *a, int64_t n, Field *pF,
                      WcBuf *pBuf){
  const WcColumn *pCol = &pS->aCol[pElem->iCol];
  int bIntCol = pCol->cAff == WC_AFF_INTEGER;
  WcBuf work[2];
  int i, rc = WC_OK;
  memset(work, 0, sizeof(work));
  for(i = pElem->nXform - 1; i >= 0 && rc == WC_OK; i--){
    const WcTransform *pX = &pElem->aXform[i];
    WcBuf *pW = &work[i & 1];
    int64_t v;
    pW->n = 0;
    if( pX->eOp == WC_XFORM_REVERSE ){
      if( wcBufReserve(pW, n) ){
        rc = WC_NOMEM;
        break;
      }
      if( pCol->cAff == WC_AFF_BLOB ){
        rkReverseBytes(a, n, pW->a);
      }else{
        rkReverseChars(a, n, pW->a);
      }
      pW->n = n;
      a = pW->a;
    }else if( pX->eOp == WC_XFORM_DESC && i == 0 && bIntCol ){
      /* max - value, in as many digits as max has. */
      if( n != rkDigitCount((uint64_t)pX->iArg) || !parseInteger(a, n, &v)
       || v < 0 || v > pX->iArg ){
        rc = WC_NOFIT;
      }else{
        pF->eType = SQLITE_INTEGER;
        pF->i = pX->iArg - v;
      }
    }else if( pX->eOp == WC_XFORM_DESC ){
      int64_t nUsed = 0, nOut;
      if( wcBufReserve(pW, n + 1) ){
        rc = WC_NOMEM;
        break;
      }
      nOut = rkDescDecode(a, n, pW->a, &nUsed);
      if( nOut < 0 || nUsed != n ){
        rc = WC_NOFIT;
      }else{
        pW->n = nOut;
        a = pW->a;
        n = nOut;
      }
    }else if( i == 0 && bIntCol ){
      /* PAD of an integer: its digits, zeros in front. */
      if( n == 0 || a[0] == '-' || !parseInteger(a, n, &v) ){
        rc = WC_NOFIT;
      }else{
        pF->eType = SQLITE_INTEGER;
        pF->i = v;
      }
    }else{
      /* PAD of text: the fill after it (no value ends with the fill). */
      int nFill = (int)strlen(pX->zFill);
      while( nFill > 0 && n >= nFill
          && memcmp(&a[n - nFill], pX->zFill, (size_t)nFill) == 0 ){
        n -= nFill;
      }
    }
  }
  if( rc == WC_OK && pF->eType != SQLITE_INTEGER ){
    if( bIntCol ){
      /* No transform, or REVERSE first: the integer's text. */
      if( parseInteger(a, n, &pF->i) ) pF->eType = SQLITE_INTEGER;
      else rc = WC_NOFIT;
    }else{
      pF->eType = pCol->cAff == WC_AFF_BLOB ? SQLITE_BLOB : SQLITE_TEXT;
      pF->iOff = pBuf->n;
      pF->n = n;
      wcBufAppend(pBuf, a, n);
      if( pBuf->bOom ) rc = WC_NOMEM;
    }
  }
  wcBufFree(&work[0]);
  wcBufFree(&work[1]);
  return rc;
}

/* An escaped text or blob (00 FF for 00, ended by 00 00), its bytes
** appended to pBuf. */
static int unescape(const unsigned char *a, int64_t n, Field *pF, WcBuf *pBuf){
  int64_t i;
  pF->iOff = pBuf->n;
  for(i = 0; i + 1 < n; i++){
    if( a[i] != 0x00 ){
      wcBufAppend(pBuf, &a[i], 1);
    }else if( a[i + 1] == 0xFF ){
      wcBufAppend(pBuf, &a[i], 1);
      i++;
    }else{
      break;
    }
  }
  pF->n = pBuf->n - pF->iOff;
  return pBuf->bOom ? WC_NOMEM : WC_OK;
}

static double doubleOf(const unsigned char *a){
  uint64_t u = 0;
  double r;
  int i;
  for(i = 0; i < 8; i++) u = (u << 8) | a[i];
  u = (u >> 63) ? u ^ ((uint64_t)1 << 63) : ~u;
  memcpy(&r, &u, sizeof(r));
  return r;
}

/* Undoes a BINARY-encoding column element on its bytes a[0..n) (inverted
** back first when DESC). */
static int decodeBinary(const WcSchema *pS, const WcElement *pElem,
                        const unsigned char *a, int64_t n, Field *pF,
                        WcBuf *pBuf){
  unsigned char aBuf[11];
  WcBuf inv;
  int64_t i;
  int rc = WC_OK;
  memset(&inv, 0, sizeof(inv));
  if( pElem->eOrder == WC_ORDER_DESC ){
    for(i = 0; i < n; i++) wcBufAppend(&inv, &a[i], 1);
    if( inv.bOom ) return WC_NOMEM;
    for(i = 0; i < n; i++) inv.a[i] = (unsigned char)~inv.a[i];
    a = inv.a;
  }
  switch( pS->aCol[pElem->iCol].cAff ){
    case WC_AFF_INTEGER: {
      int nByte = a[0] >= 0x14 ? a[0] - 0x14 : 0x14 - a[0];
      uint64_t m = 0;
      for(i = 1; i <= nByte; i++) m = (m << 8) | a[i];
      if( a[0] < 0x14 ){
        m = ~m;
        if( nByte < 8 ) m &= ((uint64_t)1 << (8 * nByte)) - 1;
        pF->i = (int64_t)(0 - m);
      }else{
        pF->i = (int64_t)m;
      }
      pF->eType = SQLITE_INTEGER;
      break;
    }
    case WC_AFF_REAL:
      pF->r = doubleOf(a);
      pF->eType = SQLITE_FLOAT;
      break;
    case WC_AFF_NUMERIC: {
      double r = doubleOf(a);
      memcpy(aBuf, a, n < 11 ? (size_t)n : 11);
      if( aBuf[8] == 0x80 ){
        if( r > -9223372036854775808.0 && r < 9223372036854775808.0
         && (double)(int64_t)r == r ){
          pF->eType = SQLITE_INTEGER;
          pF->i = (int64_t)r;
        }else{
          pF->eType = SQLITE_FLOAT;
          pF->r = r;
        }
      }else{
        int64_t iDiff = ((int64_t)aBuf[9] << 8) | aBuf[10];
        if( aBuf[8] == 0x7F ) iDiff -= 65536;
        pF->eType = SQLITE_INTEGER;
        pF->i = r >= 9223372036854775808.0 ? INT64_MAX + (iDiff + 1)
              : (int64_t)r + iDiff;
      }
      break;
    }
    default:
      pF->eType = pS->aCol[pElem->iCol].cAff == WC_AFF_TEXT ? SQLITE_TEXT
                                                            : SQLITE_BLOB;
      rc = unescape(a, n, pF, pBuf);
      break;
  }
  wcBufFree(&inv);
  return rc;
}

/* Decodes the elements of aKey[0..nBody) from the first, up to nElem of
** them, into aOut (as wcDecodeKey() does), and the bytes they take into
** *pnUsed.  With bPrefix an element cut short ends the decoding (WC_OK,
** *pnElem elements decoded); without it, it is WC_NOFIT. */
static int decodeElements(const WcSchema *pS, const unsigned char *aKey,
                          int64_t nBody, int nElem, int bPrefix,
                          WcValue *aOut, WcBuf *pBuf, int *pnElem,
                          int64_t *pnUsed, char **pzErr){
  Field *aField;
  int64_t iOff = 0;
  int i, nField = 0, rc = WC_OK;
  pBuf->n = 0;
  if( nElem > pS->nElem ) nElem = pS->nElem;
  aField = sqlite3_malloc64(sizeof(Field) * (sqlite3_uint64)(pS->nElem + 1));
  if( aField == 0 ) return WC_NOMEM;
  for(i = 0; i < nElem && rc == WC_OK; i++){
    const WcElement *pElem = &pS->aElem[i];
    int64_t nSpan = wcElementSpan(pS, i, aKey + iOff, nBody - iOff), nVal;
    int bSep = pS->eEncoding == WC_ENCODING_TEXT && !wcElementIsLast(pS, i)
            && pS->nDelim > 0;
    if( nSpan < 0 && bPrefix ) break;
    if( nSpan < 0 ){
      rc = notKey(pzErr, "its bytes do not end where the design's "
                  "element ends:", pElem->eKind == WC_ELEM_COLUMN
                  ? pS->aCol[pElem->iCol].zName : wcDerivedName(pElem));
      break;
    }
    nVal = nSpan - (bSep ? pS->nDelim : 0);
    if( pElem->eKind == WC_ELEM_COLUMN ){
      Field *pF = &aField[nField++];
      memset(pF, 0, sizeof(*pF));
      pF->iCol = pElem->iCol;
      rc = pS->eEncoding == WC_ENCODING_BINARY
         ? decodeBinary(pS, pElem, aKey + iOff, nVal, pF, pBuf)
         : decodeText(pS, pElem, aKey + iOff, nVal, pF, pBuf);
      if( rc == WC_NOFIT ){
        notKey(pzErr, "its bytes are no value of",
               pS->aCol[pElem->iCol].zName);
      }
    }
    iOff += nSpan;
  }
  if( rc == WC_OK ){
    int k;
    for(k = 0; k < nField; k++){
      WcValue *pV = &aOut[aField[k].iCol];
      memset(pV, 0, sizeof(*pV));
      pV->eType = aField[k].eType;
      pV->i = aField[k].i;
      pV->r = aField[k].r;
      pV->a = pBuf->n ? pBuf->a + aField[k].iOff : (const unsigned char*)"";
      pV->n = aField[k].n;
    }
    *pnElem = i;
    *pnUsed = iOff;
  }
  sqlite3_free(aField);
  return rc;
}

int wcDecodePrefix(const WcSchema *pS, const unsigned char *aKey,
                   int64_t nKey, int nElem, WcValue *aOut, WcBuf *pBuf,
                   int *pnElem, int64_t *pnUsed){
  return decodeElements(pS, aKey, nKey, nElem, 1, aOut, pBuf, pnElem,
                        pnUsed, 0);
}

int wcDecodeKey(const WcSchema *pS, RkHasher *pHasher,
                const unsigned char *aKey, int64_t nKey, WcValue *aOut,
                WcBuf *pBuf, char **pzErr){
  WcBuf made;
  int64_t nBody = nKey - pS->nRandomDigit, nUsed = 0;
  int nDone = 0, rc;
  if( nBody < 0 ) return notKey(pzErr, "it is shorter than RANDOM's "
                                "digits", 0);
  rc = decodeElements(pS, aKey, nBody, pS->nElem, 0, aOut, pBuf, &nDone,
                      &nUsed, pzErr);
  if( rc == WC_OK && nUsed != nBody ){
    rc = notKey(pzErr, "bytes follow the design's last element", 0);
  }
  if( rc != WC_OK ) return rc;
  /* The fields must make this very key. */
  memset(&made, 0, sizeof(made));
  rc = wcEncodeKey(pS, pHasher, aOut, &made, 0);
  if( rc == WC_OK && !wcKeyIsMade(pS, &made, aKey, nKey) ) rc = WC_NOFIT;
  if( rc == WC_NOFIT ){
    notKey(pzErr, "its fields, written again, make another key (not "
           "the design's way of writing them)", 0);
  }
  wcBufFree(&made);
  return rc;
}
