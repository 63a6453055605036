/*
** cs_cell.c: cell values and the row marker (see cs_cell.h).
*/
#include "util/wc_api.h"
#include "stores/cells/cs_cell.h"

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

void csCellEncode(sqlite3_value *pVal, WcBuf *pOut){
  unsigned char a[9];
  wcAssert( sqlite3_value_type(pVal) != SQLITE_NULL );
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_INTEGER:
      a[0] = CS_CELL_INTEGER;
      putBigEndian(&a[1], (uint64_t)sqlite3_value_int64(pVal));
      wcBufAppend(pOut, a, 9);
      break;
    case SQLITE_FLOAT: {
      double r = sqlite3_value_double(pVal);
      uint64_t u;
      memcpy(&u, &r, 8);
      a[0] = CS_CELL_REAL;
      putBigEndian(&a[1], u);
      wcBufAppend(pOut, a, 9);
      break;
    }
    case SQLITE_BLOB:
      a[0] = CS_CELL_BLOB;
      wcBufAppend(pOut, a, 1);
      wcBufAppend(pOut, sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal));
      break;
    default: {
      const unsigned char *z = sqlite3_value_text(pVal);
      int n = sqlite3_value_bytes(pVal);
      if( n > 0 && z[0] >= 0xF8 ){
        a[0] = CS_CELL_TEXT;
        wcBufAppend(pOut, a, 1);
      }
      wcBufAppend(pOut, z, n);
      break;
    }
  }
}

void csCellResult(sqlite3_context *ctx, const unsigned char *a, int64_t n){
  if( n == 1 && a[0] == CS_CELL_NULL ) return;
  if( n == 9 && a[0] == CS_CELL_INTEGER ){
    sqlite3_result_int64(ctx, (sqlite3_int64)getBigEndian(&a[1]));
  }else if( n == 9 && a[0] == CS_CELL_REAL ){
    uint64_t u = getBigEndian(&a[1]);
    double r;
    memcpy(&r, &u, 8);
    sqlite3_result_double(ctx, r);
  }else if( n >= 1 && a[0] == CS_CELL_BLOB ){
    sqlite3_result_blob64(ctx, a + 1, (sqlite3_uint64)(n - 1),
                          SQLITE_TRANSIENT);
  }else if( n >= 1 && a[0] == CS_CELL_TEXT ){
    sqlite3_result_text64(ctx, (const char*)a + 1, (sqlite3_uint64)(n - 1),
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }else{
    /* Plain text, or bytes another application wrote: read as text. */
    sqlite3_result_text64(ctx, n ? (const char*)a : "", (sqlite3_uint64)n,
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }
}

int csCellEncodeAs(int eLayout, sqlite3_value *pVal, WcBuf *pOut){
  int eType = sqlite3_value_type(pVal);
  unsigned char a[8];
  /* A value that is not NULL, of a column that has a cell. */
  wcAssert( eType != SQLITE_NULL );
  wcAssert( eLayout >= CS_LAYOUT_TAGGED && eLayout <= CS_LAYOUT_BYTES );
  switch( eLayout ){
    case CS_LAYOUT_LONG: {
      double r = sqlite3_value_double(pVal);
      if( eType == SQLITE_FLOAT
       && !(r > -9223372036854775808.0 && r < 9223372036854775808.0
            && (double)(int64_t)r == r) ){
        return SQLITE_MISMATCH;
      }
      if( eType != SQLITE_INTEGER && eType != SQLITE_FLOAT ){
        return SQLITE_MISMATCH;
      }
      putBigEndian(a, (uint64_t)(eType == SQLITE_FLOAT ? (int64_t)r
                                 : sqlite3_value_int64(pVal)));
      wcBufAppend(pOut, a, 8);
      return SQLITE_OK;
    }
    case CS_LAYOUT_DOUBLE: {
      double r = sqlite3_value_double(pVal);
      uint64_t u;
      if( eType != SQLITE_INTEGER && eType != SQLITE_FLOAT ){
        return SQLITE_MISMATCH;
      }
      /* An integer a double cannot hold exactly would read back another. */
      if( eType == SQLITE_INTEGER
       && !(r > -9223372036854775808.0 && r < 9223372036854775808.0
            && (int64_t)r == sqlite3_value_int64(pVal)) ){
        return SQLITE_MISMATCH;
      }
      memcpy(&u, &r, 8);
      putBigEndian(a, u);
      wcBufAppend(pOut, a, 8);
      return SQLITE_OK;
    }
    /* Each cell reads back as one storage class (the column's affinity
    ** aside): a value of another would not come back as it was written. */
    case CS_LAYOUT_BYTES:
      if( eType != SQLITE_BLOB ) return SQLITE_MISMATCH;
      wcBufAppend(pOut, sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal));
      return SQLITE_OK;
    case CS_LAYOUT_STRING:
      if( eType == SQLITE_BLOB ) return SQLITE_MISMATCH;
      wcBufAppend(pOut, sqlite3_value_text(pVal), sqlite3_value_bytes(pVal));
      return SQLITE_OK;
    default:
      csCellEncode(pVal, pOut);
      return SQLITE_OK;
  }
}

int csCellResultAs(sqlite3_context *ctx, int eLayout, const unsigned char *a,
                   int64_t n){
  wcAssert( eLayout >= CS_LAYOUT_TAGGED && eLayout <= CS_LAYOUT_BYTES );
  wcAssert( n >= 0 && (a != 0 || n == 0) );
  switch( eLayout ){
    case CS_LAYOUT_LONG:
      if( n != 8 ) return SQLITE_MISMATCH;
      sqlite3_result_int64(ctx, (sqlite3_int64)getBigEndian(a));
      return SQLITE_OK;
    case CS_LAYOUT_DOUBLE: {
      uint64_t u;
      double r;
      if( n != 8 ) return SQLITE_MISMATCH;
      u = getBigEndian(a);
      memcpy(&r, &u, 8);
      sqlite3_result_double(ctx, r);
      return SQLITE_OK;
    }
    case CS_LAYOUT_BYTES:
      sqlite3_result_blob64(ctx, n ? a : (const unsigned char*)"",
                            (sqlite3_uint64)n, SQLITE_TRANSIENT);
      return SQLITE_OK;
    case CS_LAYOUT_STRING:
      sqlite3_result_text64(ctx, n ? (const char*)a : "", (sqlite3_uint64)n,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
      return SQLITE_OK;
    default:
      csCellResult(ctx, a, n);
      return SQLITE_OK;
  }
}

void csMarkerEncode(WcBuf *pOut, const unsigned char *aStamps, int nStamp,
                    const unsigned char *abHas, int nCol){
  unsigned char c = CS_MARKER_V2;
  int64_t nStart = pOut->n;
  int i;
  wcAssert( nStamp >= 0 && nCol >= 0 );
  wcAssert( nCol == 0 || abHas != 0 );
  wcBufAppend(pOut, &c, 1);
  wcBufAppend(pOut, aStamps, CS_STAMPS_SIZE(nStamp));
  for(i = 0; i < nCol; i += 8){
    int k;
    c = 0;
    for(k = 0; k < 8 && i + k < nCol; k++){
      wcAssert( abHas[i + k] == 0 || abHas[i + k] == 1 );
      if( abHas[i + k] ) c |= (unsigned char)(1 << k);
    }
    wcBufAppend(pOut, &c, 1);
  }
  /* Exactly what csMarkerParse() takes. */
  wcAssert( pOut->bOom || pOut->n - nStart
            == 1 + CS_STAMPS_SIZE(nStamp) + (nCol + 7) / 8 );
  (void)nStart;
}

int csMarkerParse(const unsigned char *a, size_t n, int nStamp, int nCol,
                  const unsigned char **paStamps,
                  const unsigned char **paBits){
  size_t nWant = 1 + CS_STAMPS_SIZE(nStamp) + (size_t)(nCol + 7) / 8;
  wcAssert( nStamp >= 0 && nCol >= 0 );
  if( n != nWant || a[0] != CS_MARKER_V2 ) return 0;
  *paStamps = a + 1;
  *paBits = a + 1 + CS_STAMPS_SIZE(nStamp);
  return 1;
}

int csMarkerHas(const unsigned char *aBits, int iCol){
  wcAssert( iCol >= 0 );
  return (aBits[iCol / 8] >> (iCol % 8)) & 1;
}

const unsigned char *csMarkerEntryStamp(const unsigned char *a, size_t n,
                                        int iIndex){
  static const unsigned char aZero[CS_STAMP] = {0};
  size_t iOff = 1 + (size_t)CS_STAMP * (size_t)(1 + iIndex);
  wcAssert( iIndex >= 0 );
  if( n == 0 ) return aZero;
  if( a[0] != CS_MARKER_V2 || n < iOff + CS_STAMP ) return 0;
  return a + iOff;
}
