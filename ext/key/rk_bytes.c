/*
** rk_bytes.c: byte-level row-key transforms (see rk_bytes.h).
*/
#include "key/rk_bytes.h"

#include <string.h>

#define IS_CONTINUATION(b) (((b) & 0xC0) == 0x80)

int64_t rkCharCount(const unsigned char *z, int64_t n){
  int64_t i, nChar = 0;
  for(i = 0; i < n; i++){
    if( !IS_CONTINUATION(z[i]) ) nChar++;
  }
  return nChar;
}

int64_t rkCharBytes(const unsigned char *z, int64_t n, int64_t nChar){
  int64_t i, iChar = 0;
  for(i = 0; i < n; i++){
    if( !IS_CONTINUATION(z[i]) ){
      if( iChar == nChar ) return i;
      iChar++;
    }
  }
  return n;
}

int rkDigitCount(uint64_t v){
  int nDigit = 1;
  while( v >= 10 ){
    v /= 10;
    nDigit++;
  }
  return nDigit;
}

void rkPadDecimal(uint64_t v, int nWidth, char *zOut){
  int i = nWidth;
  do{
    zOut[--i] = (char)('0' + v % 10);
    v /= 10;
  }while( v > 0 );
  memset(zOut, '0', (size_t)i);
}

void rkReverseChars(const unsigned char *z, int64_t n, unsigned char *zOut){
  int64_t i = 0;
  while( i < n ){
    int64_t nUnit = 1;
    while( i + nUnit < n && IS_CONTINUATION(z[i + nUnit]) ) nUnit++;
    memcpy(&zOut[n - i - nUnit], &z[i], (size_t)nUnit);
    i += nUnit;
  }
}

void rkReverseBytes(const unsigned char *z, int64_t n, unsigned char *zOut){
  int64_t i;
  for(i = 0; i < n; i++) zOut[n - 1 - i] = z[i];
}

int64_t rkDescEncode(const unsigned char *a, int64_t n, unsigned char *aOut){
  int64_t i, j = 0;
  for(i = 0; i < n; i++){
    if( a[i] == 0x00 ){
      aOut[j++] = 0xFF;
      aOut[j++] = 0x00;
    }else{
      aOut[j++] = (unsigned char)~a[i];
    }
  }
  aOut[j++] = 0xFF;
  aOut[j++] = 0xFF;
  return j;
}

int64_t rkDescDecode(const unsigned char *a, int64_t n,
                     unsigned char *aOut, int64_t *pnUsed){
  int64_t i = 0, j = 0;
  while( i < n ){
    if( a[i] != 0xFF ){
      aOut[j++] = (unsigned char)~a[i++];
    }else if( i + 1 >= n ){
      break;
    }else if( a[i + 1] == 0x00 ){
      aOut[j++] = 0x00;
      i += 2;
    }else if( a[i + 1] == 0xFF ){
      *pnUsed = i + 2;
      return j;
    }else{
      *pnUsed = i + 1;
      return -1;
    }
  }
  *pnUsed = n;
  return -1;
}

int64_t rkPrefixEnd(const unsigned char *a, int64_t n, unsigned char *aOut){
  while( n > 0 && a[n - 1] == 0xFF ) n--;
  if( n == 0 ) return -1;
  memcpy(aOut, a, (size_t)n);
  aOut[n - 1]++;
  return n;
}

int64_t rkFind(const unsigned char *a, int64_t n, int64_t iFrom,
               const unsigned char *aNeedle, int64_t nNeedle){
  int64_t i;
  for(i = iFrom; i + nNeedle <= n; i++){
    if( a[i] == aNeedle[0] && memcmp(&a[i], aNeedle, (size_t)nNeedle) == 0 ){
      return i;
    }
  }
  return -1;
}

/* True if z[0..n) is valid UTF-8, and with bPrintable also free of
** control characters. */
/* The bytes of the valid UTF-8 character at z[0..n), or 0 if none
** starts there (printable ASCII only, where bPrintable). */
static int utf8CharLen(const unsigned char *z, int64_t n, int bPrintable){
  unsigned char c = z[0];
  int nCont, k;
  uint32_t cp;
  if( c < 0x80 ) return bPrintable && (c < 0x20 || c == 0x7F) ? 0 : 1;
  if( c >= 0xC2 && c <= 0xDF ){ nCont = 1; cp = c & 0x1F; }
  else if( c >= 0xE0 && c <= 0xEF ){ nCont = 2; cp = c & 0x0F; }
  else if( c >= 0xF0 && c <= 0xF4 ){ nCont = 3; cp = c & 0x07; }
  else return 0;
  for(k = 1; k <= nCont; k++){
    if( k >= n || !IS_CONTINUATION(z[k]) ) return 0;
    cp = (cp << 6) | (z[k] & 0x3F);
  }
  /* Overlong forms, surrogates and values past U+10FFFF. */
  if( (nCont == 2 && cp < 0x800) || (nCont == 3 && cp < 0x10000)
   || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF ){
    return 0;
  }
  return nCont + 1;
}

static int isUtf8(const unsigned char *z, int64_t n, int bPrintable){
  int64_t i = 0;
  while( i < n ){
    int nChar = utf8CharLen(&z[i], n - i, bPrintable);
    if( nChar == 0 ) return 0;
    i += nChar;
  }
  return 1;
}

int64_t rkUtf8Bytes(const unsigned char *z, int64_t n, int64_t nChar){
  int64_t i = 0, k;
  for(k = 0; k < nChar; k++){
    int nLen = i < n ? utf8CharLen(&z[i], n - i, 0) : 0;
    if( nLen == 0 ) return -1;
    i += nLen;
  }
  return i;
}

int rkIsPrintableUtf8(const unsigned char *z, int64_t n){
  return isUtf8(z, n, 1);
}

int rkIsUtf8(const unsigned char *z, int64_t n){
  return isUtf8(z, n, 0);
}
