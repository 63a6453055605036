/*
** fuzz_codec.c: the row-key codec.  For a design the first byte picks,
** two rows of values from the input are encoded; whenever both fit:
**   - the key splits back into its elements (wcElementSpan), span by
**     span, to its last byte: every key can be taken apart again;
**   - when the first element claims an exact order (ASC or DESC), the
**     memcmp order of the two keys is the SQL order of the two first
**     fields (reversed for DESC) whenever those differ;
**   - when every column the key depends on is one of its fields, two rows
**     SQLite calls equal on those columns get equal keys, and two rows it
**     holds apart get different keys: a key stands for exactly one row,
**     as a primary key does ('ab ' and 'ab' under PAD once shared one);
**   - on a RANDOM(n) design, each key (the fields' key) followed by a
**     number below n from the input gives that number back, is a key its
**     fields make, and is one the other row's fields make exactly when
**     the two fields' keys are equal;
**   - when every column the key depends on is one of its fields, the key
**     decodes (wcDecodeKey) into values SQLite calls equal to the row's,
**     and the key with one byte changed, cut short or lengthened decodes
**     only into fields that make it again.
** SQL order and equality are SQLite's own comparison of the two values.
*/
#include "fuzz_common.h"
#include "key/wc_codec.h"
#include "key/wc_decode.h"

#include <math.h>
#include <string.h>

static const char *const azDesign[][5] = {
  { "a INTEGER", "ROWKEY(a PAD 6)" },
  { "a INTEGER", "ROWKEY(a DESC 999999)" },
  { "a INTEGER", "ROWKEY(a PAD 8 DESC)" },
  { "a INTEGER", "ROWKEY(a DESC)" },
  { "a INTEGER", "ROWKEY(a PAD 5 REVERSE)" },
  { "a TEXT", "ROWKEY(a DESC)" },
  { "a BLOB", "ROWKEY(a DESC)" },
  { "a TEXT", "ROWKEY(a)" },
  { "a TEXT", "ROWKEY(a PAD 4 '.')" },
  { "a INTEGER", "ROWKEY(a)", "ENCODING BINARY" },
  { "a REAL", "ROWKEY(a)", "ENCODING BINARY" },
  { "a NUMERIC", "ROWKEY(a DESC)", "ENCODING BINARY" },
  { "a TEXT", "ROWKEY(a)", "ENCODING BINARY" },
  { "a BLOB", "ROWKEY(a DESC)", "ENCODING BINARY" },
  { "a INTEGER", "b TEXT", "c BLOB", "ROWKEY(SALT(2, a), a PAD 5, b, c)" },
  { "a TEXT", "b INTEGER", "ROWKEY(a DESC, b PAD 3 REVERSE)" },
  { "a INTEGER", "b TEXT", "ROWKEY(BUCKET(7, b), a DESC 99999, b)", "DELIMITER '|'" },
  { "a INTEGER", "b TEXT", "ROWKEY(a, b DESC)", "ENCODING BINARY" },
  { "a REAL", "b NUMERIC", "ROWKEY(a DESC, b)", "ENCODING BINARY" },
  { "a INTEGER", "b INTEGER", "ROWKEY(a PAD 3, b PAD 3)", "DELIMITER ''" },
  { "a INTEGER", "b TEXT", "ROWKEY(a PAD 4, b PAD 3)" },
  { "a TEXT", "b TEXT", "ROWKEY(a PAD 3 '.', b)", "DELIMITER ''" },
  { "a TEXT", "b INTEGER", "ROWKEY(a, b PAD 2)" },
  { "a TEXT", "ROWKEY(a PAD 3 REVERSE)" },
  { "a BLOB", "b TEXT", "ROWKEY(a, b)", "DELIMITER '|'" },
  { "a TEXT", "b INTEGER", "ROWKEY(a, b PAD 3, RANDOM(100))" },
  { "a INTEGER", "b TEXT", "ROWKEY(a DESC, b, RANDOM(7))", "ENCODING BINARY" },
  { "a INTEGER", "ROWKEY(a PAD 4, RANDOM(10000))", "DELIMITER ''" },
};

#define N_DESIGN (sizeof(azDesign) / sizeof(azDesign[0]))

static WcSchema *apSchema[N_DESIGN];
static RkHasher *pHasher;

static WcSchema *design(unsigned i){
  if( apSchema[i] == 0 ){
    int nArg = 0;
    char *zErr = 0;
    while( nArg < 5 && azDesign[i][nArg] ) nArg++;
    apSchema[i] = wcSchemaParse("t", nArg, azDesign[i], 1, &zErr);
    if( apSchema[i] == 0 ) abort();
  }
  return apSchema[i];
}

/* A value of column affinity cAff (or, at random, of another type). */
static void readValue(FuzzInput *p, char cAff, WcValue *pVal){
  unsigned k = fuzzByte(p);
  int64_t i;
  memset(pVal, 0, sizeof(*pVal));
  pVal->a = (const unsigned char*)"";
  switch( (k & 0x80) ? k % 4 : (cAff == 'D' ? 0 : cAff == 'E' ? 1
                                : cAff == 'B' ? 2 : cAff == 'A' ? 3 : k % 2) ){
    case 0:
      pVal->eType = SQLITE_INTEGER;
      pVal->i = (k & 0x40) ? fuzzInt(p) : (int8_t)fuzzByte(p);
      break;
    case 1:
      i = fuzzInt(p);
      pVal->eType = SQLITE_FLOAT;
      memcpy(&pVal->r, &i, sizeof(double));
      if( isnan(pVal->r) ) pVal->r = 0.0;     /* SQLite stores NaN as NULL */
      break;
    case 2:
    case 3: {
      size_t n;
      pVal->eType = ((k & 0x80) ? k % 4 : cAff == 'A' ? 3 : 2) == 2
                    ? SQLITE_TEXT : SQLITE_BLOB;
      pVal->a = fuzzBytes(p, 12, &n);
      pVal->n = (int64_t)n;
      break;
    }
  }
}

static void bindValue(sqlite3_stmt *pStmt, int iParam, const WcValue *pVal){
  switch( pVal->eType ){
    case SQLITE_INTEGER: sqlite3_bind_int64(pStmt, iParam, pVal->i); break;
    case SQLITE_FLOAT:   sqlite3_bind_double(pStmt, iParam, pVal->r); break;
    case SQLITE_TEXT:
      sqlite3_bind_text(pStmt, iParam, (const char*)pVal->a, (int)pVal->n,
                        SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_blob(pStmt, iParam, pVal->a, (int)pVal->n, SQLITE_STATIC);
      break;
  }
}

/* SQLite's order of two values: -1, 0 or 1. */
static int sqlOrder(const WcValue *pA, const WcValue *pB){
  static sqlite3_stmt *pStmt = 0;
  int c;
  if( pStmt == 0 && sqlite3_prepare_v2(fuzzDb(), "SELECT (?1 > ?2) - (?1 < ?2)",
                                       -1, &pStmt, 0) != SQLITE_OK ){
    abort();
  }
  bindValue(pStmt, 1, pA);
  bindValue(pStmt, 2, pB);
  if( sqlite3_step(pStmt) != SQLITE_ROW ) abort();
  c = sqlite3_column_int(pStmt, 0);
  sqlite3_reset(pStmt);
  return c;
}

static void checkSpans(const WcSchema *pS, const WcBuf *pKey){
  const unsigned char *a = pKey->a ? pKey->a : (const unsigned char*)"";
  int64_t nAt = 0;
  int i;
  for(i = 0; i < pS->nElem; i++){
    int64_t n = wcElementSpan(pS, i, a + nAt, pKey->n - nAt);
    if( n < 0 ) abort();
    nAt += n;
  }
  if( nAt != pKey->n ) abort();
}

static int sign(int c){
  return (c > 0) - (c < 0);
}

/* True if the key has a field for every column it depends on. */
static int keyHoldsColumns(const WcSchema *pS){
  int i;
  for(i = 0; i < pS->nCol; i++){
    if( pS->aCol[i].bKey && pS->aCol[i].iElem < 0 ) return 0;
  }
  return 1;
}

/* Equal keys for rows SQLite calls equal on the key's columns, different
** keys for rows it holds apart. */
static void checkOneKeyOneRow(const WcSchema *pS, WcValue aRow[2][4],
                              const WcBuf *aKey){
  int bSameRow = 1, bSameKey, i;
  for(i = 0; i < pS->nCol; i++){
    if( pS->aCol[i].bKey && sqlOrder(&aRow[0][i], &aRow[1][i]) != 0 ){
      bSameRow = 0;
    }
  }
  bSameKey = aKey[0].n == aKey[1].n
          && (aKey[0].n == 0 || memcmp(aKey[0].a, aKey[1].a, (size_t)aKey[0].n) == 0);
  if( bSameRow != bSameKey ) abort();
}

/* RANDOM(n): the numbers from the input after both fields' keys. */
static void checkRandom(const WcSchema *pS, FuzzInput *pIn, const WcBuf *aMade){
  WcBuf aFull[2];
  int i, bSameMade = aMade[0].n == aMade[1].n
      && (aMade[0].n == 0 || memcmp(aMade[0].a, aMade[1].a, (size_t)aMade[0].n) == 0);
  memset(aFull, 0, sizeof(aFull));
  for(i = 0; i < 2; i++){
    int64_t iValue = (int64_t)((uint64_t)fuzzInt(pIn) % (uint64_t)pS->nRandom);
    wcBufAppend(&aFull[i], aMade[i].a, aMade[i].n);
    wcRandomSet(pS, aMade[i].n, iValue, &aFull[i]);
    if( aFull[i].bOom ) abort();
    if( aFull[i].n != aMade[i].n + pS->nRandomDigit ) abort();
    if( wcRandomOf(pS, aFull[i].a, aFull[i].n) != iValue ) abort();
    if( !wcKeyIsMade(pS, &aMade[i], aFull[i].a, aFull[i].n) ) abort();
    if( wcKeyIsMade(pS, &aMade[1 - i], aFull[i].a, aFull[i].n) != bSameMade ){
      abort();
    }
  }
  wcBufFree(&aFull[0]);
  wcBufFree(&aFull[1]);
}

/* The key (with RANDOM's digits, 0s, where the design has them) decodes
** into the row's key fields; a mutation of it decodes only into fields
** that make the mutated key. */
static void checkDecode(const WcSchema *pS, FuzzInput *pIn, WcValue *aRow,
                        const WcBuf *pKey){
  WcValue aOut[4];
  WcBuf full, buf, made;
  int i, rc;
  unsigned k = fuzzByte(pIn);
  memset(&full, 0, sizeof(full));
  memset(&buf, 0, sizeof(buf));
  memset(&made, 0, sizeof(made));
  wcBufAppend(&full, pKey->a, pKey->n);
  if( pS->nRandom ) wcRandomSet(pS, pKey->n, 0, &full);
  if( full.bOom ) abort();
  memcpy(aOut, aRow, sizeof(aOut));
  rc = wcDecodeKey(pS, pHasher, full.a, full.n, aOut, &buf, 0);
  if( rc != WC_OK ) abort();
  for(i = 0; i < pS->nCol; i++){
    if( pS->aCol[i].iElem >= 0 && sqlOrder(&aRow[i], &aOut[i]) != 0 ) abort();
  }
  /* One byte changed, the last dropped, or a byte added. */
  if( full.n > 0 && (k & 3) == 0 ){
    full.a[fuzzByte(pIn) % full.n] ^= (unsigned char)(1 + fuzzByte(pIn) % 255);
  }else if( full.n > 0 && (k & 3) == 1 ){
    full.n--;
  }else{
    unsigned char c = (unsigned char)fuzzByte(pIn);
    wcBufAppend(&full, &c, 1);
  }
  if( full.bOom ) abort();
  if( wcDecodeKey(pS, pHasher, full.n ? full.a : (const unsigned char*)"",
                  full.n, aOut, &buf, 0) == WC_OK ){
    if( wcEncodeKey(pS, pHasher, aOut, &made, 0) != WC_OK
     || !wcKeyIsMade(pS, &made, full.a, full.n) ){
      abort();
    }
  }
  wcBufFree(&full);
  wcBufFree(&buf);
  wcBufFree(&made);
}

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n){
  FuzzInput in;
  WcSchema *pS;
  WcValue aRow[2][4];
  WcBuf aKey[2];
  int i, j, rc[2];
  fuzzDb();
  if( pHasher == 0 && (pHasher = rkHasherNew()) == 0 ) abort();
  in.a = a;
  in.n = n;
  pS = design(fuzzByte(&in) % N_DESIGN);
  memset(aKey, 0, sizeof(aKey));
  for(i = 0; i < 2; i++){
    for(j = 0; j < pS->nCol; j++) readValue(&in, pS->aCol[j].cAff, &aRow[i][j]);
    rc[i] = wcEncodeKey(pS, pHasher, aRow[i], &aKey[i], 0);
    if( rc[i] == WC_OK ) checkSpans(pS, &aKey[i]);
  }
  if( rc[0] == WC_OK && rc[1] == WC_OK ){
    const WcElement *pFirst = &pS->aElem[0];
    if( pFirst->eKind == WC_ELEM_COLUMN
     && (pFirst->eOrder == WC_ORDER_ASC || pFirst->eOrder == WC_ORDER_DESC) ){
      int iCol = pFirst->iCol;
      int c = sqlOrder(&aRow[0][iCol], &aRow[1][iCol]);
      int64_t nMin = aKey[0].n < aKey[1].n ? aKey[0].n : aKey[1].n;
      int k = nMin ? memcmp(aKey[0].a, aKey[1].a, (size_t)nMin) : 0;
      if( k == 0 ) k = (aKey[0].n > aKey[1].n) - (aKey[0].n < aKey[1].n);
      if( pFirst->eOrder == WC_ORDER_DESC ) c = -c;
      if( c != 0 && sign(k) != c ) abort();
    }
    if( keyHoldsColumns(pS) ) checkOneKeyOneRow(pS, aRow, aKey);
    if( pS->nRandom ) checkRandom(pS, &in, aKey);
    if( keyHoldsColumns(pS) ){
      checkDecode(pS, &in, aRow[0], &aKey[0]);
      checkDecode(pS, &in, aRow[1], &aKey[1]);
    }
  }
  wcBufFree(&aKey[0]);
  wcBufFree(&aKey[1]);
  return 0;
}
