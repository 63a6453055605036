/*
** bt_cell.c: cell values (see bt_cell.h).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_cell.h"

#include <string.h>

static void putBigEndian(unsigned char *a, uint64_t v){
  int i;
  for(i = 7; i >= 0; i--){
    a[i] = (unsigned char)(v & 0xFF);
    v >>= 8;
  }
}

static uint64_t getBigEndian(const unsigned char *a){
  uint64_t v = 0;
  int i;
  for(i = 0; i < 8; i++) v = (v << 8) | a[i];
  return v;
}

void btCellEncode(sqlite3_value *pVal, WcBuf *pOut){
  unsigned char a[9];
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_INTEGER:
      a[0] = BT_CELL_INTEGER;
      putBigEndian(&a[1], (uint64_t)sqlite3_value_int64(pVal));
      wcBufAppend(pOut, a, 9);
      break;
    case SQLITE_FLOAT: {
      double r = sqlite3_value_double(pVal);
      uint64_t u;
      memcpy(&u, &r, 8);
      a[0] = BT_CELL_REAL;
      putBigEndian(&a[1], u);
      wcBufAppend(pOut, a, 9);
      break;
    }
    case SQLITE_BLOB:
      a[0] = BT_CELL_BLOB;
      wcBufAppend(pOut, a, 1);
      wcBufAppend(pOut, sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal));
      break;
    default: {
      const unsigned char *z = sqlite3_value_text(pVal);
      int n = sqlite3_value_bytes(pVal);
      if( n > 0 && z[0] >= 0xF8 ){
        a[0] = BT_CELL_TEXT;
        wcBufAppend(pOut, a, 1);
      }
      wcBufAppend(pOut, z, n);
      break;
    }
  }
}

void btCellResult(sqlite3_context *ctx, const unsigned char *a, int64_t n){
  if( n == 1 && a[0] == BT_CELL_NULL ) return;
  if( n == 9 && a[0] == BT_CELL_INTEGER ){
    sqlite3_result_int64(ctx, (sqlite3_int64)getBigEndian(&a[1]));
  }else if( n == 9 && a[0] == BT_CELL_REAL ){
    uint64_t u = getBigEndian(&a[1]);
    double r;
    memcpy(&r, &u, 8);
    sqlite3_result_double(ctx, r);
  }else if( n >= 1 && a[0] == BT_CELL_BLOB ){
    sqlite3_result_blob64(ctx, a + 1, (sqlite3_uint64)(n - 1),
                          SQLITE_TRANSIENT);
  }else if( n >= 1 && a[0] == BT_CELL_TEXT ){
    sqlite3_result_text64(ctx, (const char*)a + 1, (sqlite3_uint64)(n - 1),
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }else{
    /* Plain text, or bytes another application wrote: read as text. */
    sqlite3_result_text64(ctx, n ? (const char*)a : "", (sqlite3_uint64)n,
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }
}
