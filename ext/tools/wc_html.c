/*
** wc_html.c: HTML text for widecol_report's page (wc_html.h).  The page
** is UTF-8: text that is not (a key's bytes, values in findings) is
** written with its bytes as \xHH.
*/
#include "tools/wc_html.h"

#include <string.h>

/* The length of the valid UTF-8 character at z[0..n), or 0. */
static int utf8Length(const unsigned char *z, int64_t n){
  int nLen, i;
  if( z[0] < 0x80 ) return 1;
  if( z[0] >= 0xC2 && z[0] <= 0xDF ) nLen = 2;
  else if( z[0] >= 0xE0 && z[0] <= 0xEF ) nLen = 3;
  else if( z[0] >= 0xF0 && z[0] <= 0xF4 ) nLen = 4;
  else return 0;
  if( nLen > n ) return 0;
  for(i = 1; i < nLen; i++) if( (z[i] & 0xC0) != 0x80 ) return 0;
  /* Overlong forms, surrogates and code points past U+10FFFF. */
  if( (z[0] == 0xE0 && z[1] < 0xA0) || (z[0] == 0xED && z[1] >= 0xA0)
   || (z[0] == 0xF0 && z[1] < 0x90) || (z[0] == 0xF4 && z[1] >= 0x90) ){
    return 0;
  }
  return nLen;
}

void wcHtmlTextN(sqlite3_str *pOut, const char *z, int64_t n){
  const unsigned char *a = (const unsigned char*)z;
  int64_t i = 0;
  if( z == 0 ) return;
  while( i < n ){
    int nChar = utf8Length(a + i, n - i);
    switch( nChar ? a[i] : 0 ){
      case '&':  sqlite3_str_appendall(pOut, "&amp;");  break;
      case '<':  sqlite3_str_appendall(pOut, "&lt;");   break;
      case '>':  sqlite3_str_appendall(pOut, "&gt;");   break;
      case '"':  sqlite3_str_appendall(pOut, "&quot;"); break;
      case '\'': sqlite3_str_appendall(pOut, "&#39;");  break;
      case 0:
        /* Not UTF-8 (or a NUL): the page says which byte it was. */
        sqlite3_str_appendf(pOut, "\\x%02x", a[i]);
        nChar = 1;
        break;
      default:   sqlite3_str_append(pOut, z + i, nChar); break;
    }
    i += nChar;
  }
}

void wcHtmlText(sqlite3_str *pOut, const char *z){
  if( z ) wcHtmlTextN(pOut, z, (int64_t)strlen(z));
}

void wcHtmlWrap(sqlite3_str *pOut, const char *zOpen, const char *z,
                const char *zClose){
  sqlite3_str_appendall(pOut, zOpen);
  wcHtmlText(pOut, z);
  sqlite3_str_appendall(pOut, zClose);
}

void wcHtmlBytes(sqlite3_str *pOut, const unsigned char *a, int64_t n){
  int64_t i;
  for(i = 0; i < n; i++){
    if( a[i] >= 0x20 && a[i] < 0x7F && a[i] != '\\' ){
      wcHtmlTextN(pOut, (const char*)&a[i], 1);
    }else{
      sqlite3_str_appendf(pOut, "\\x%02x", a[i]);
    }
  }
}

void wcHtmlHex(sqlite3_str *pOut, const unsigned char *a, int64_t n){
  int64_t i;
  for(i = 0; i < n; i++) sqlite3_str_appendf(pOut, "%02x", a[i]);
}

void wcHtmlInt(sqlite3_str *pOut, int64_t v){
  char zDigits[32];
  int n, i;
  if( v < 0 ){
    sqlite3_str_appendchar(pOut, 1, '-');
    v = v == INT64_MIN ? INT64_MAX : -v;
  }
  n = (int)strlen(sqlite3_snprintf(sizeof(zDigits), zDigits, "%lld",
                                   (long long)v));
  for(i = 0; i < n; i++){
    if( i > 0 && (n - i) % 3 == 0 ) sqlite3_str_appendchar(pOut, 1, ',');
    sqlite3_str_appendchar(pOut, 1, zDigits[i]);
  }
}

void wcHtmlSize(sqlite3_str *pOut, int64_t n){
  static const char *const azUnit[] = { "KiB", "MiB", "GiB", "TiB" };
  double r = (double)n;
  int i = -1;
  if( n < 1024 ){
    sqlite3_str_appendf(pOut, "%lld B", (long long)n);
    return;
  }
  while( r >= 1024.0 && i < 3 ){
    r /= 1024.0;
    i++;
  }
  sqlite3_str_appendf(pOut, "%.1f %s", r, azUnit[i]);
}
