/*
** wc_write.c: xUpdate for widecol tables.
**
** A row is written to <name>_rows under its encoded key, its family
** columns to <name>_cf_<f> (a row there only when one of them has a
** value), and an entry to each <name>_idx_<i> keyed by the index key
** followed by the row key.  Every key is encoded and checked before the
** first write, so a row that fails leaves nothing behind; the row table
** is written first, so a duplicate key (which SQLite may IGNORE) stops the
** write before any family or index is touched.  To remove a row's index
** entries its old values are read back: xUpdate is given only its key.
**
** On a versioned table (VERSIONS, TTL) a write to a row key in use is a
** new version of that row (versionedPut): the latest goes to
** <name>_versions and the new one takes its place, or, stamped older than
** the latest, the new one goes to its place in history.  Versions past
** VERSIONS and those the TTL has expired are dropped as the row is
** written; a row whose latest version has expired is gone for every read,
** so a write finds it absent and removes it whole first.
*/
#include "vtab/wc_write.h"
#include "vtab/wc_prefetch.h"
#include "key/rk_bytes.h"
#include "util/wc_stamp.h"
#include "util/wc_keyset.h"
#include "util/wc_progress.h"

#include <string.h>

/*
** Keys an UPDATE OR REPLACE took from rows it still had to update
** (WcWriter.displaced).
**
** SQLite runs an UPDATE of a virtual table in two passes: it reads every
** row and computes its new values, then calls xUpdate for each.  When a
** row moves onto the key of a row that comes later, REPLACE removes that
** row, and its xUpdate still arrives, with values computed from the row
** that is gone.  An ordinary table would compute them from the row now
** there.  Neither is what the values say, so the statement stops: the
** xUpdate of a key in this set fails.  The set lives for one statement:
** its first pass calls xFilter before any xUpdate, and the scanner counts
** the scans it starts (WcVtab.nScanBegun), so the first write after a new
** scan begins a new set.
*/

/* xUpdate's scratch, kept from one call to the next so that a write
** allocates nothing once warm. */
struct WcWriter {
  WcBuf key;            /* The new row's key, */
  WcValue *aVal;        /* its stored values, */
  sqlite3_value **apCopy;  /* and the converted copies behind them; */
  WcBuf *aIdxKey;       /* its index keys, */
  WcBuf *aOldIdxKey;    /* and those of the row it replaces, */
  WcValue *aOldVal;     /* whose values are these, */
  sqlite3_value **apOld;   /* copied from the row table */
  sqlite3_value **apRead;  /* A row as readRow() gives it (WC_STMT_READ's
                           ** columns, unprotected) */
  WcKeySet displaced;   /* Keys this UPDATE took from rows still to come */
  WcPrefetch *pPrefetch;   /* Rows read ahead of the keys written, on a
                           ** store whose reads are calls (or NULL) */
  WcProgress progress;  /* Rows written since the transaction began (in
                        ** autocommit, by the statement), for the lines a
                        ** long load prints */
  int64_t nWritten;
  int64_t iTime;        /* Versioned tables: the new version's rowtime, */
  int64_t iOldTime;     /* and that of the row it replaces (readOld) */
  /* Stores whose rows carry stamps (WcStoreCaps.bStamps): */
  unsigned char aWrite[WC_STAMP];   /* this write's stamp, */
  WcBuf newStamps;      /* the row's stamps once written, */
  WcBuf oldStamps;      /* those readOld() read (n 0: none read, or a row
                        ** without them) */
  int nMoved;           /* Rows moved by the UPDATE running (since its scan
                        ** began), for the message if one cannot move */
  unsigned nScanSeen;   /* WcVtab.nScanBegun as of the last write */
  int64_t nRandomMade;  /* RANDOM: when this write chose the number, the
                        ** bytes of key before it; else -1 */
  const unsigned char *aScanKey;    /* An UPDATE's row: its key, and the */
  int nScanKey;
  sqlite3_value *pScanStamps;       /* stamps its scan read (_stamp), or
                                    ** NULL (during xUpdate only) */
  int bActive;          /* Inside xUpdate, which is never re-entered */
};

/* A scan began since the last write: this write is a new statement's. */
static void writeStatementBegins(WcVtab *p){
  WcWriter *pW = p->pWriter;
  if( pW->nScanSeen != p->nScanBegun ){
    pW->nScanSeen = p->nScanBegun;
    wcKeySetClear(&pW->displaced);
    pW->nMoved = 0;
  }
}

int wcWriteBegin(sqlite3_vtab *pVtab){
  WcVtab *p = (WcVtab*)pVtab;
  if( p->pWriter ){
    wcPrefetchReset(p->pWriter->pPrefetch);
    wcProgressEnd(&p->pWriter->progress);
    p->pWriter->nWritten = 0;
  }
  return SQLITE_OK;
}

int wcWriteEnd(sqlite3_vtab *pVtab){
  WcVtab *p = (WcVtab*)pVtab;
  if( p->pWriter ) wcProgressEnd(&p->pWriter->progress);
  return SQLITE_OK;
}

int wcWriteInit(WcVtab *p){
  const WcSchema *pS = p->pSchema;
  size_t nCol = (size_t)pS->nCol, nIdx = (size_t)pS->nIndex;
  WcWriter *pW = p->pWriter = sqlite3_malloc64(sizeof(WcWriter));
  if( pW == 0 ) return SQLITE_NOMEM;
  memset(pW, 0, sizeof(*pW));
  pW->aVal = sqlite3_malloc64(sizeof(WcValue) * nCol);
  pW->apCopy = sqlite3_malloc64(sizeof(sqlite3_value*) * nCol);
  pW->aOldVal = sqlite3_malloc64(sizeof(WcValue) * nCol);
  pW->apOld = sqlite3_malloc64(sizeof(sqlite3_value*) * nCol);
  pW->aIdxKey = sqlite3_malloc64(sizeof(WcBuf) * (nIdx + 1));
  pW->aOldIdxKey = sqlite3_malloc64(sizeof(WcBuf) * (nIdx + 1));
  pW->apRead = sqlite3_malloc64(sizeof(sqlite3_value*) * (nCol + 2));
  if( pW->aVal == 0 || pW->apCopy == 0 || pW->aOldVal == 0 || pW->apOld == 0
   || pW->aIdxKey == 0 || pW->aOldIdxKey == 0 || pW->apRead == 0 ){
    return SQLITE_NOMEM;
  }
  if( wcStoreCaps(&p->store)->nReadAhead > 0
   && (pW->pPrefetch = wcPrefetchNew()) == 0 ){
    return SQLITE_NOMEM;
  }
  memset(pW->apCopy, 0, sizeof(sqlite3_value*) * nCol);
  memset(pW->apOld, 0, sizeof(sqlite3_value*) * nCol);
  memset(pW->aIdxKey, 0, sizeof(WcBuf) * (nIdx + 1));
  memset(pW->aOldIdxKey, 0, sizeof(WcBuf) * (nIdx + 1));
  return SQLITE_OK;
}

void wcWriteFree(WcVtab *p){
  WcWriter *pW = p->pWriter;
  int i;
  if( pW == 0 ) return;
  for(i = 0; i < p->pSchema->nIndex; i++){
    if( pW->aIdxKey ) wcBufFree(&pW->aIdxKey[i]);
    if( pW->aOldIdxKey ) wcBufFree(&pW->aOldIdxKey[i]);
  }
  wcKeySetFree(&pW->displaced);
  wcPrefetchFree(pW->pPrefetch);
  wcBufFree(&pW->key);
  wcBufFree(&pW->newStamps);
  wcBufFree(&pW->oldStamps);
  sqlite3_free(pW->aVal);
  sqlite3_free(pW->apCopy);
  sqlite3_free(pW->aOldVal);
  sqlite3_free(pW->apOld);
  sqlite3_free(pW->aIdxKey);
  sqlite3_free(pW->aOldIdxKey);
  sqlite3_free(pW->apRead);
  sqlite3_free(pW);
  p->pWriter = 0;
}

/* A key for a message: readable text if it is printable, else hex. */
static char *describeKey(const unsigned char *a, int64_t n){
  if( rkIsPrintableUtf8(a, n) ){
    return sqlite3_mprintf("'%.*q'", (int)n, (const char*)a);
  }else{
    char *zHex = sqlite3_malloc64((sqlite3_uint64)(2 * n + 1));
    char *zRet;
    if( zHex == 0 ) return 0;
    rkHexEncode(a, (int)n, zHex);
    zHex[2 * n] = 0;
    zRet = sqlite3_mprintf("x'%s'", zHex);
    sqlite3_free(zHex);
    return zRet;
  }
}

/* An encoder's result as an SQLite result code, with its message. */
static int encodeResult(WcVtab *p, int rc, char *zErr){
  int rcSql;
  switch( rc ){
    case WC_OK:    rcSql = SQLITE_OK; break;
    case WC_NOMEM: rcSql = SQLITE_NOMEM; break;
    case WC_NULL:  rcSql = SQLITE_CONSTRAINT_NOTNULL; break;
    case WC_NOFIT: rcSql = SQLITE_CONSTRAINT_CHECK; break;
    default:       rcSql = SQLITE_ERROR; break;
  }
  if( zErr && rcSql != SQLITE_OK && rcSql != SQLITE_NOMEM ){
    rcSql = wcVtabError(&p->base, rcSql, "%s", zErr);
  }
  sqlite3_free(zErr);
  return rcSql;
}

int wcIndexKey(WcVtab *p, int iIndex, const WcValue *aVal,
               const unsigned char *aKey, int64_t nKey, WcBuf *pOut,
               char **pzErr){
  const WcSchema *pKey;
  int rc;
  wcAssert( iIndex >= 0 && iIndex < p->pSchema->nIndex );
  pKey = p->pSchema->aIndex[iIndex].pKey;
  rc = wcEncodeKey(pKey, p->pHasher, aVal, pOut, pzErr);
  if( rc != WC_OK ) return rc;
  wcBufAppend(pOut, aKey, nKey);
  if( pOut->bOom ) return WC_NOMEM;
  if( pOut->n > WC_MAX_KEY_BYTES ){
    if( pzErr ){
      *pzErr = sqlite3_mprintf("widecol %s: the %s followed by the row key "
                               "would be %lld bytes, more than the %d "
                               "allowed (%s's row key limit)",
                               p->store.zName, pKey->zKeyName, pOut->n,
                               WC_MAX_KEY_BYTES,
                               wcKindKeyLimitOwner(wcKind(p->pSchema->eStore)));
    }
    return WC_NOFIT;
  }
  return WC_OK;
}

/* The index keys of a row whose key is aKey[0..nKey), in aOut. */
static int indexKeys(WcVtab *p, const WcValue *aVal, const unsigned char *aKey,
                     int64_t nKey, WcBuf *aOut){
  int i, rc = SQLITE_OK;
  for(i = 0; i < p->pSchema->nIndex && rc == SQLITE_OK; i++){
    char *zErr = 0;
    int rcEnc = wcIndexKey(p, i, aVal, aKey, nKey, &aOut[i], &zErr);
    rc = encodeResult(p, rcEnc, zErr);
  }
  return rc;
}

/* The stored values of the row in xUpdate's argv, in pW->aVal, and its
** key, in pW->key.  xUpdate is never re-entered for one table (nothing it
** runs writes to a widecol table), so these live in the table object;
** rowRelease() frees the converted copies. */
static void valuesFree(WcVtab *p, sqlite3_value **apVal){
  int i;
  for(i = 0; i < p->pSchema->nCol; i++){
    sqlite3_value_free(apVal[i]);
    apVal[i] = 0;
  }
}

static void rowRelease(WcVtab *p){
  WcWriter *pW = p->pWriter;
  valuesFree(p, pW->apCopy);
}

/* A store may keep no empty row key, and none past a length (on
** Bigtable 4 KiB): a row whose key (or an index key) is one cannot be
** stored. */
static int storeKey(WcVtab *p, const WcBuf *pKey, const char *zWhat){
  const WcStoreCaps *pCaps = wcStoreCaps(&p->store);
  const WcKind *pKind = pCaps->pKind;
  if( pKey->n == 0 && pCaps->bNoEmptyKey ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: the "
        "%s is empty (every field in it is empty text), and %s keeps no "
        "row under an empty key (STORAGE %s); give a field a value",
        p->store.zName, zWhat, pKind->zEngine, pKind->zWord);
  }
  if( pKind->nMaxKey > 0 && pKey->n > pKind->nMaxKey ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: the "
        "%s is %lld bytes, and %s keeps no row key over %d bytes (STORAGE "
        "%s); shorten the fields", p->store.zName, zWhat,
        (long long)pKey->n, pKind->zEngine, pKind->nMaxKey, pKind->zWord);
  }
  return SQLITE_OK;
}

static int storeKeys(WcVtab *p){
  WcWriter *pW = p->pWriter;
  int i, rc = storeKey(p, &pW->key, "row key");
  for(i = 0; i < p->pSchema->nIndex && rc == SQLITE_OK; i++){
    rc = storeKey(p, &pW->aIdxKey[i], "index key");
  }
  return rc;
}

/* The values of the row in argv (pW->aVal) and the key its fields make
** (pW->key; on a RANDOM design without the number, see randomKey()). */
static int rowEncode(WcVtab *p, sqlite3_value **apArg){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  char *zErr = 0;
  int i, rc;
  for(i = 0; i < pS->nCol; i++){
    if( wcValueStore(pS->aCol[i].cAff, apArg[i], &pW->aVal[i],
                     &pW->apCopy[i]) ){
      return SQLITE_NOMEM;
    }
  }
  rc = wcEncodeKey(pS, p->pHasher, pW->aVal, &pW->key, &zErr);
  return encodeResult(p, rc, zErr);
}

/* The row's index keys, once its key is whole, and its store's limits. */
static int rowKeys(WcVtab *p){
  WcWriter *pW = p->pWriter;
  int rc = indexKeys(p, pW->aVal, pW->key.a, pW->key.n, pW->aIdxKey);
  if( rc == SQLITE_OK ) rc = storeKeys(p);
  return rc;
}

/* The bytes of a rowkey value, as they are stored (text as UTF-8). */
static const void *givenBytes(sqlite3_value *pGiven, int *pn){
  const void *a = sqlite3_value_type(pGiven) == SQLITE_BLOB
                ? sqlite3_value_blob(pGiven)
                : (const void*)sqlite3_value_text(pGiven);
  *pn = sqlite3_value_bytes(pGiven);
  return a;
}

/* A rowkey the user gave must be the key the fields make. */
static int checkGivenKey(WcVtab *p, sqlite3_value *pGiven){
  WcWriter *pW = p->pWriter;
  const void *a;
  int n;
  if( sqlite3_value_type(pGiven) == SQLITE_NULL ) return SQLITE_OK;
  a = givenBytes(pGiven, &n);
  if( n == pW->key.n && (n == 0 || memcmp(a, pW->key.a, (size_t)n) == 0) ){
    return SQLITE_OK;
  }
  if( p->pSchema->nRandom ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: rowkey is "
        "made from the ROWKEY fields followed by RANDOM(%lld)'s %d digits; "
        "leave it out of INSERT and UPDATE and set the fields, or give a "
        "rowkey read from a table of the same design (the fields' key and a "
        "number below %lld)", p->store.zName, (long long)p->pSchema->nRandom,
        p->pSchema->nRandomDigit, (long long)p->pSchema->nRandom);
  }
  return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: rowkey is made "
                     "from the ROWKEY fields; leave it out of INSERT and "
                     "UPDATE and set the fields instead", p->store.zName);
}

static void bindValue(sqlite3_stmt *pStmt, int iParam, const WcValue *pVal){
  switch( pVal->eType ){
    case SQLITE_INTEGER:
      sqlite3_bind_int64(pStmt, iParam, pVal->i);
      break;
    case SQLITE_FLOAT:
      sqlite3_bind_double(pStmt, iParam, pVal->r);
      break;
    case SQLITE_TEXT:
      sqlite3_bind_text64(pStmt, iParam, (const char*)pVal->a,
                          (sqlite3_uint64)pVal->n, SQLITE_STATIC, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob64(pStmt, iParam, pVal->a, (sqlite3_uint64)pVal->n,
                          SQLITE_STATIC);
      break;
    default:
      sqlite3_bind_null(pStmt, iParam);
      break;
  }
}

static void bindKey(sqlite3_stmt *pStmt, int iParam, const unsigned char *a,
                    int64_t n){
  sqlite3_bind_blob64(pStmt, iParam, n ? a : (const unsigned char*)"",
                      (sqlite3_uint64)n, SQLITE_STATIC);
}

/* The message for a duplicate row key. */
static int duplicateKey(WcVtab *p, const unsigned char *aKey, int64_t nKey){
  char *zKey = describeKey(aKey, nKey);
  char *zFields = wcKeyFields(p->pSchema);
  int rc = wcVtabError(&p->base, SQLITE_CONSTRAINT_PRIMARYKEY, "UNIQUE constraint "
      "failed: %s.rowkey (a row with key %s exists; the key is made from "
      "%s)", p->store.zName, zKey ? zKey : "?", zFields ? zFields : "?");
  sqlite3_free(zKey);
  sqlite3_free(zFields);
  return rc;
}

/* True if eStmt writes a row of <name>_rows. */
static int writesRow(int eStmt){
  switch( eStmt ){
    case WC_STMT_INSERT: case WC_STMT_INSERT_NOW: case WC_STMT_REPLACE:
    case WC_STMT_UPDATE: case WC_STMT_UPDATE_NOW: case WC_STMT_DELETE:
      return 1;
    default:
      return 0;
  }
}

/* Binds the stamps a write statement takes on a store whose rows carry
** them: a row's new stamps and those it is conditional on; an index
** entry's group (a put: the write's stamp; a delete: the old entry's,
** index iObj's stamp of the row read, 0s for none). */
static void bindStamps(WcVtab *p, sqlite3_stmt *pStmt, int eStmt, int iObj){
  WcWriter *pW = p->pWriter;
  static const unsigned char aZero[WC_STAMP] = {0};
  const WcSchema *pS = p->pSchema;
  /* A row's stamps: the write's, then one per index entry. */
  wcAssert( !writesRow(eStmt) || eStmt == WC_STMT_DELETE
            || (pW->newStamps.n == (int64_t)WC_STAMP * (1 + pS->nIndex)
                && memcmp(pW->newStamps.a, pW->aWrite, WC_STAMP) == 0) );
  wcAssert( pW->oldStamps.n == 0 || pW->oldStamps.n >= WC_STAMP );
  switch( eStmt ){
    case WC_STMT_INSERT:
    case WC_STMT_INSERT_NOW:
    case WC_STMT_REPLACE:
      sqlite3_bind_blob64(pStmt, WC_PARAM_STAMPS(pS), pW->newStamps.a,
                          (sqlite3_uint64)pW->newStamps.n, SQLITE_STATIC);
      break;
    case WC_STMT_UPDATE:
    case WC_STMT_UPDATE_NOW:
      sqlite3_bind_blob64(pStmt, WC_PARAM_STAMPS(pS), pW->newStamps.a,
                          (sqlite3_uint64)pW->newStamps.n, SQLITE_STATIC);
      /* fall through */
    case WC_STMT_DELETE:
      if( pW->oldStamps.n > 0 ){
        sqlite3_bind_blob64(pStmt, WC_PARAM_EXPECT(pS), pW->oldStamps.a,
                            (sqlite3_uint64)pW->oldStamps.n, SQLITE_STATIC);
      }else{
        sqlite3_bind_null(pStmt, WC_PARAM_EXPECT(pS));
      }
      break;
    case WC_STMT_INDEX_PUT:
      sqlite3_bind_blob(pStmt, WC_PARAM_GROUP(pS), pW->aWrite, WC_STAMP,
                        SQLITE_STATIC);
      break;
    case WC_STMT_INDEX_DEL: {
      int64_t iOff = (int64_t)WC_STAMP * (1 + iObj);
      wcAssert( iObj >= 0 && iObj < pS->nIndex );
      sqlite3_bind_blob(pStmt, WC_PARAM_GROUP(pS),
                        pW->oldStamps.n >= iOff + WC_STAMP
                        ? pW->oldStamps.a + iOff : aZero, WC_STAMP,
                        SQLITE_STATIC);
      break;
    }
    default:
      break;
  }
}

/* Runs a write statement: ?1 the row key aKey, ?(i + 2) the values aVal
** (if given), ?(nCol + 2) the index key pIdxKey (if given), on a
** versioned table's row (and under a TTL its index entries) the rowtime
** pW->iTime, and the stamps (bindStamps()).  Returns SQLite's extended
** result code (whether or not the application turned extended codes on),
** with no message. */
static int execWrite(WcVtab *p, int eStmt, int iObj, const unsigned char *aKey,
                     int64_t nKey, const WcValue *aVal, const WcBuf *pIdxKey){
  WcWriter *pW = p->pWriter;
  sqlite3_stmt *pStmt = 0;
  int nCol = p->pSchema->nCol, i;
  int rc;
  wcAssert( iObj >= 0 && (aKey != 0 || nKey == 0) );
  wcAssert( !writesRow(eStmt) || iObj == 0 );
  /* A row written (or tried) is no longer as read ahead. */
  if( pW->pPrefetch && writesRow(eStmt) ){
    rc = wcPrefetchDirty(pW->pPrefetch, aKey, nKey);
    if( rc != SQLITE_OK ) return rc;
  }
  rc = wcStoreAcquire(&p->store, eStmt, iObj, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  bindKey(pStmt, 1, aKey, nKey);
  for(i = 0; aVal && i < nCol; i++) bindValue(pStmt, i + 2, &aVal[i]);
  if( pIdxKey ) bindKey(pStmt, nCol + 2, pIdxKey->a, pIdxKey->n);
  if( (p->pSchema->bVersioned && (eStmt == WC_STMT_INSERT
   || eStmt == WC_STMT_INSERT_NOW
   || eStmt == WC_STMT_REPLACE || eStmt == WC_STMT_UPDATE
   || eStmt == WC_STMT_UPDATE_NOW))
   || (p->pSchema->nTtl > 0 && eStmt == WC_STMT_INDEX_PUT) ){
    sqlite3_bind_int64(pStmt, WC_PARAM_ROWTIME(p->pSchema), pW->iTime);
  }
  if( wcStoreCaps(&p->store)->bStamps ) bindStamps(p, pStmt, eStmt, iObj);
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_DONE ){
    rc = SQLITE_OK;
  }else{
    sqlite3_reset(pStmt);
    rc = sqlite3_extended_errcode(p->store.db);
  }
  wcStoreRelease(&p->store, eStmt, iObj, 0, pStmt);
  return rc;
}

/* Reports what SQLite said about a write to a table behind p that failed
** with rc.  A constraint there is no constraint of the user's: the tables
** behind p have only their keys, which p's writes keep unique; but a
** store that checks keys itself names the table in its own words. */
static int writeError(WcVtab *p, int rc){
  if( (rc & 0xFF) == SQLITE_CONSTRAINT && !wcStoreCaps(&p->store)->bStoreMessages ){
    return wcVtabError(&p->base, SQLITE_ERROR, "widecol %s: a table behind it "
                       "refused a write (%s); was it changed directly? run "
                       "SELECT * FROM widecol_check(%Q)", p->store.zName,
                       sqlite3_errmsg(p->store.db), p->store.zName);
  }
  return wcStoreError(&p->store, rc);
}

/* A new write on a store with stamps: its stamp, and the row's new stamps
** (the write's, then each entry's: the old row's when bKeep, else 0s
** until stampEntry()). */
static void stampsBegin(WcVtab *p, int bKeep){
  WcWriter *pW = p->pWriter;
  static const unsigned char aZero[WC_STAMP] = {0};
  int i;
  wcStampNew(pW->aWrite);
  pW->newStamps.n = 0;
  wcBufAppend(&pW->newStamps, pW->aWrite, WC_STAMP);
  for(i = 0; i < p->pSchema->nIndex; i++){
    int64_t iOff = (int64_t)WC_STAMP * (1 + i);
    wcBufAppend(&pW->newStamps, bKeep && pW->oldStamps.n >= iOff + WC_STAMP
                               ? pW->oldStamps.a + iOff : aZero, WC_STAMP);
  }
  wcAssert( pW->newStamps.bOom || pW->newStamps.n
                                   == (int64_t)WC_STAMP
                                      * (1 + p->pSchema->nIndex) );
}

/* Index iIndex's entry is written again, under this write's stamp. */
static void stampEntry(WcVtab *p, int iIndex){
  WcWriter *pW = p->pWriter;
  int64_t iOff = (int64_t)WC_STAMP * (1 + iIndex);
  wcAssert( iIndex >= 0 && iIndex < p->pSchema->nIndex );
  if( pW->newStamps.n >= iOff + WC_STAMP ){
    memcpy(pW->newStamps.a + iOff, pW->aWrite, WC_STAMP);
  }
}

/* execWrite(), with the message for an error: the row key taken (the
** primary key of <name>_rows, which widecol_lint() counts) or what SQLite
** said. */
static int runWrite(WcVtab *p, int eStmt, int iObj, const unsigned char *aKey,
                    int64_t nKey, const WcValue *aVal, const WcBuf *pIdxKey){
  int rc = execWrite(p, eStmt, iObj, aKey, nKey, aVal, pIdxKey);
  if( rc == SQLITE_CONSTRAINT_PRIMARYKEY
   && (eStmt == WC_STMT_INSERT || eStmt == WC_STMT_INSERT_NOW
       || eStmt == WC_STMT_REPLACE) ){
    wcHistoryKeyTaken(p->pHistory, 0);
    rc = duplicateKey(p, aKey, nKey);
  }else if( rc != SQLITE_OK ){
    rc = writeError(p, rc);
  }
  return rc;
}

/* The row of key aKey as WC_STMT_READ reads it: from the rows read ahead
** where the store's reads are calls and each statement is its own
** transaction (xBegin starts each one, so none answers from another's
** reads), else read now.  *papRow: its columns, NULL if there is none;
** valid until the next read, or until *ppStmt (to release) is. */
static int readRow(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                   sqlite3_value ***papRow, sqlite3_stmt **ppStmt){
  WcWriter *pW = p->pWriter;
  int rc, i, bKnown = 0;
  *papRow = 0;
  *ppStmt = 0;
  if( pW->pPrefetch && sqlite3_get_autocommit(p->store.db) ){
    rc = wcPrefetchFind(pW->pPrefetch, &p->store, aKey, nKey, papRow,
                        &bKnown);
    if( rc != SQLITE_OK || bKnown ) return rc;
  }
  rc = wcStoreAcquire(&p->store, WC_STMT_READ, 0, 0, ppStmt);
  if( rc != SQLITE_OK ) return rc;
  bindKey(*ppStmt, 1, aKey, nKey);
  rc = sqlite3_step(*ppStmt);
  /* The columns, rowtime if versioned, _stamp if stamped: apRead's room. */
  wcAssert( sqlite3_column_count(*ppStmt) <= p->pSchema->nCol + 2 );
  if( rc == SQLITE_ROW ){
    for(i = 0; i < sqlite3_column_count(*ppStmt); i++){
      pW->apRead[i] = sqlite3_column_value(*ppStmt, i);
    }
    *papRow = pW->apRead;
    return SQLITE_OK;
  }
  return rc == SQLITE_DONE ? SQLITE_OK
                          : wcStoreError(&p->store, sqlite3_reset(*ppStmt));
}

/* Ends readRow(). */
static void readRowEnd(WcVtab *p, sqlite3_stmt *pStmt){
  if( pStmt ) wcStoreRelease(&p->store, WC_STMT_READ, 0, 0, pStmt);
}

/*
** RANDOM(n).  The key the fields make is followed by a number: the one
** the statement gives in rowkey; on an UPDATE the row's own, unless
** another row holds the key it makes with the new fields; else a free one,
** tried from a random start upward.  A row never lands on another's key:
** an ordinary table holding the same rows has no key for it to collide
** on, so neither does the design, up to n rows per prefix.
*/

/* *pbUsed: a row holds key pW->key (on a versioned table, one whose latest
** version the TTL has not expired: a write removes that one). */
static int keyInUse(WcVtab *p, int *pbUsed){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  sqlite3_stmt *pStmt = 0;
  sqlite3_value **apRow = 0;
  int rc = readRow(p, pW->key.a, pW->key.n, &apRow, &pStmt);
  *pbUsed = rc == SQLITE_OK && apRow
         && (pS->nTtl == 0 || sqlite3_value_int64(apRow[pS->nCol])
                              >= wcClockCutoff(p->pClock, pS->nTtl));
  readRowEnd(p, pStmt);
  return rc;
}

/* Ends pW->key (its first nMade bytes made by the fields) in the first
** free number from iFirst on, wrapping around. */
static int randomFree(WcVtab *p, int64_t nMade, int64_t iFirst){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  char *zKey;
  int64_t k;
  int rc;
  wcAssert( pS->nRandom > 0 && iFirst >= 0 && iFirst < pS->nRandom );
  wcAssert( nMade <= pW->key.n );
  for(k = 0; k < pS->nRandom; k++){
    int bUsed;
    wcRandomSet(pS, nMade, (iFirst + k) % pS->nRandom, &pW->key);
    if( pW->key.bOom ) return SQLITE_NOMEM;
    rc = keyInUse(p, &bUsed);
    if( rc != SQLITE_OK || !bUsed ) return rc;
  }
  zKey = describeKey(pW->key.a, nMade);
  rc = wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: all %lld numbers "
      "of RANDOM(%lld) are taken after the key %s: the design holds at most "
      "%lld rows with the same fields before RANDOM; give RANDOM a larger "
      "n, or add a field that tells these rows apart", p->store.zName,
      (long long)pS->nRandom, (long long)pS->nRandom, zKey ? zKey : "?",
      (long long)pS->nRandom);
  sqlite3_free(zKey);
  return rc;
}

/* Completes pW->key for the row of xUpdate's argv. */
static int randomKey(WcVtab *p, sqlite3_value **argv){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int64_t nMade = pW->key.n, iOwn;
  int bInsert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
  sqlite3_value *pGiven = bInsert ? argv[2 + pS->nCol] : argv[1];
  const unsigned char *aOld = bInsert ? 0 : sqlite3_value_blob(argv[0]);
  int nOld = bInsert ? 0 : sqlite3_value_bytes(argv[0]);
  uint32_t iRandom;
  int bUsed, rc;
  wcAssert( pS->nRandom > 0 );
  if( !bInsert && (sqlite3_value_bytes(argv[1]) != nOld || (nOld
      && memcmp(sqlite3_value_blob(argv[1]), aOld, (size_t)nOld))) ){
    bInsert = 1;        /* the UPDATE sets rowkey: as an INSERT's */
  }
  if( bInsert && sqlite3_value_type(pGiven) != SQLITE_NULL ){
    int n;
    const void *a = givenBytes(pGiven, &n);
    /* checkGivenKey() reports a key the fields do not make. */
    if( wcKeyIsMade(pS, &pW->key, a, n) ){
      pW->key.n = 0;
      wcBufAppend(&pW->key, a, n);
    }
    return pW->key.bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  sqlite3_randomness(sizeof(iRandom), &iRandom);
  pW->nRandomMade = nMade;
  if( bInsert ) return randomFree(p, nMade, iRandom % (uint64_t)pS->nRandom);
  iOwn = wcRandomOf(pS, aOld, nOld);
  if( iOwn < 0 ) return randomFree(p, nMade, iRandom % (uint64_t)pS->nRandom);
  wcRandomSet(pS, nMade, iOwn, &pW->key);
  if( pW->key.bOom ) return SQLITE_NOMEM;
  if( pW->key.n == nOld && memcmp(pW->key.a, aOld, (size_t)nOld) == 0 ){
    return SQLITE_OK;
  }
  rc = keyInUse(p, &bUsed);
  if( rc != SQLITE_OK || !bUsed ) return rc;
  return randomFree(p, nMade, iRandom % (uint64_t)pS->nRandom);
}

/*
** Families and indexes.
*/

/* Puts a row's family columns: a family row where one has a value, none
** where all are NULL. */
static int writeFamilies(WcVtab *p, const unsigned char *aKey, int64_t nKey){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int i, j, rc = SQLITE_OK;
  /* On a store whose families live in the row, they were written with it. */
  for(i = 0; i < pS->nFamily && !wcStoreCaps(&p->store)->bRowFamilies
              && rc == SQLITE_OK; i++){
    const WcFamily *pFam = &pS->aFamily[i];
    int bAny = 0;
    for(j = 0; j < pFam->nCol; j++){
      bAny |= pW->aVal[pFam->aiCol[j]].eType != SQLITE_NULL;
    }
    rc = runWrite(p, bAny ? WC_STMT_FAMILY_PUT : WC_STMT_FAMILY_DEL, i, aKey,
                  nKey, pW->aVal, 0);
  }
  return rc;
}

/* Reads the row with key aKey into pW->aOldVal (copies in pW->apOld), its
** index keys into pW->aOldIdxKey, versioned, its rowtime into pW->iOldTime,
** and on a store with stamps, its stamps into pW->oldStamps.  *pbFound is
** 0 if there is none. */
static int readOld(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                   int *pbFound){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  sqlite3_stmt *pStmt = 0;
  sqlite3_value **apRow = 0;
  int rc, i;
  *pbFound = 0;
  pW->oldStamps.n = 0;
  rc = readRow(p, aKey, nKey, &apRow, &pStmt);
  if( rc == SQLITE_OK && apRow ){
    for(i = 0; i < pS->nCol && rc == SQLITE_OK; i++){
      pW->apOld[i] = sqlite3_value_dup(apRow[i]);
      if( pW->apOld[i] == 0 ){
        rc = SQLITE_NOMEM;
      }else{
        wcValueFrom(pW->apOld[i], &pW->aOldVal[i]);
      }
    }
    if( pS->bVersioned ) pW->iOldTime = sqlite3_value_int64(apRow[pS->nCol]);
    if( wcStoreCaps(&p->store)->bStamps ){
      int iStamp = pS->nCol + (pS->bVersioned ? 1 : 0);
      wcBufAppend(&pW->oldStamps, sqlite3_value_blob(apRow[iStamp]),
                  sqlite3_value_bytes(apRow[iStamp]));
      if( pW->oldStamps.bOom ) rc = SQLITE_NOMEM;
    }
    *pbFound = 1;
  }
  readRowEnd(p, pStmt);
  if( rc == SQLITE_OK && *pbFound ){
    rc = indexKeys(p, pW->aOldVal, aKey, nKey, pW->aOldIdxKey);
    if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
      rc = wcVtabError(&p->base, SQLITE_CORRUPT, "widecol %s: a stored row's index "
          "key cannot be made again; run SELECT * FROM widecol_check(%Q)",
          p->store.zName, p->store.zName);
    }
  }
  return rc;
}

static void oldRelease(WcVtab *p){
  WcWriter *pW = p->pWriter;
  valuesFree(p, pW->apOld);
}

/* True if index i's entry for the old row equals the new row's (under
** a TTL the entry holds the row's rowtime too). */
static int sameEntry(WcVtab *p, int iIndex){
  WcWriter *pW = p->pWriter;
  const WcIndex *pIdx = &p->pSchema->aIndex[iIndex];
  const WcBuf *pOld = &pW->aOldIdxKey[iIndex], *pNew = &pW->aIdxKey[iIndex];
  int i;
  wcAssert( iIndex >= 0 && iIndex < p->pSchema->nIndex );
  if( pOld->n != pNew->n || memcmp(pOld->a, pNew->a, (size_t)pNew->n) ){
    return 0;
  }
  if( p->pSchema->nTtl > 0 && pW->iOldTime != pW->iTime ) return 0;
  for(i = 0; i < p->pSchema->nCol; i++){
    if( pIdx->abStored[i] && !wcValueSame(&pW->aOldVal[i], &pW->aVal[i]) ){
      return 0;
    }
  }
  return 1;
}

/* An UPDATE's row, read again (readOld(): found bFound, stamps in
** pW->oldStamps) before it is written: it must still be the row the
** UPDATE's scan read (SQLite computed the new values from that one), or
** another client changed or deleted it in between, and the UPDATE fails
** rather than undo that change. */
static int checkScanned(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                        int bFound){
  WcWriter *pW = p->pWriter;
  int n;
  char *zKey;
  int rc;
  if( pW->pScanStamps == 0 || nKey != pW->nScanKey
   || (nKey && memcmp(aKey, pW->aScanKey, (size_t)nKey)) ){
    return SQLITE_OK;
  }
  n = sqlite3_value_bytes(pW->pScanStamps);
  if( bFound && pW->oldStamps.n == n
   && (n == 0 || memcmp(pW->oldStamps.a, sqlite3_value_blob(pW->pScanStamps),
                        (size_t)n) == 0) ){
    return SQLITE_OK;
  }
  zKey = describeKey(aKey, nKey);
  rc = wcVtabError(&p->base, SQLITE_BUSY_SNAPSHOT, "widecol %s: another client "
      "changed or deleted the row with key %s after this statement read it; "
      "run the statement again to act on the row as it is now", p->store.zName,
      zKey ? zKey : "?");
  sqlite3_free(zKey);
  return rc;
}

/* The stamps a write of row aKey is conditional on, where it does not
** read the row first: those its UPDATE's scan read, if it is that row
** (else none: the store goes by what it read last). */
static void expectScanned(WcVtab *p, const unsigned char *aKey, int64_t nKey){
  WcWriter *pW = p->pWriter;
  pW->oldStamps.n = 0;
  if( pW->pScanStamps && nKey == pW->nScanKey
   && (nKey == 0 || memcmp(aKey, pW->aScanKey, (size_t)nKey) == 0) ){
    wcBufAppend(&pW->oldStamps, sqlite3_value_blob(pW->pScanStamps),
                sqlite3_value_bytes(pW->pScanStamps));
  }
}

/* removeRow() on a store with stamps: the row deleted if it still has
** the stamps read (without an index, as the store reads it), then its
** entries; its versions go with it. */
static int removeStamped(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                         int *pbFound){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int bFound = 1, rc = SQLITE_OK, i;
  wcAssert( wcStoreCaps(&p->store)->bStamps );
  if( pS->nIndex > 0 ){
    rc = readOld(p, aKey, nKey, &bFound);
    if( rc == SQLITE_OK ) rc = checkScanned(p, aKey, nKey, bFound);
  }else{
    expectScanned(p, aKey, nKey);
  }
  if( rc == SQLITE_OK && bFound ){
    rc = runWrite(p, WC_STMT_DELETE, 0, aKey, nKey, 0, 0);
    bFound = rc == SQLITE_OK && sqlite3_changes(p->store.db) > 0;
  }
  for(i = 0; i < pS->nIndex && rc == SQLITE_OK && bFound; i++){
    rc = runWrite(p, WC_STMT_INDEX_DEL, i, aKey, nKey, 0, &pW->aOldIdxKey[i]);
  }
  oldRelease(p);
  if( pbFound ) *pbFound = bFound;
  return rc;
}

/* Removes the row with key aKey from every table, if it exists, with its
** older versions. */
static int removeRow(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                     int *pbFound){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int bFound = 1, rc = SQLITE_OK, i;
  if( wcStoreCaps(&p->store)->bStamps ) return removeStamped(p, aKey, nKey, pbFound);
  if( pS->nIndex > 0 ) rc = readOld(p, aKey, nKey, &bFound);
  for(i = 0; i < pS->nIndex && rc == SQLITE_OK && bFound; i++){
    rc = runWrite(p, WC_STMT_INDEX_DEL, i, aKey, nKey, 0, &pW->aOldIdxKey[i]);
  }
  oldRelease(p);
  for(i = 0; i < pS->nFamily && rc == SQLITE_OK && bFound; i++){
    rc = runWrite(p, WC_STMT_FAMILY_DEL, i, aKey, nKey, 0, 0);
  }
  if( rc == SQLITE_OK && bFound ){
    rc = runWrite(p, WC_STMT_DELETE, 0, aKey, nKey, 0, 0);
    bFound = rc == SQLITE_OK && sqlite3_changes(p->store.db) > 0;
  }
  if( rc == SQLITE_OK && bFound && pS->nVersions > 1 ){
    rc = runWrite(p, WC_STMT_VERSION_DROP, 0, aKey, nKey, 0, 0);
  }
  if( pbFound ) *pbFound = bFound;
  return rc;
}

/* Puts the new row's entries under this write's stamp: every index's, or
** (bOld: a row read is being replaced) those that differ from its. */
static int putEntries(WcVtab *p, int bOld){
  WcWriter *pW = p->pWriter;
  int i, rc = SQLITE_OK;
  for(i = 0; i < p->pSchema->nIndex && rc == SQLITE_OK; i++){
    if( bOld && sameEntry(p, i) ) continue;
    stampEntry(p, i);
    rc = runWrite(p, WC_STMT_INDEX_PUT, i, pW->key.a, pW->key.n, pW->aVal,
                  &pW->aIdxKey[i]);
  }
  return rc;
}

/* Deletes the old row's entries that the new row's replace: those that
** differ from its, or (bAll) every one, where the new row's entries were
** all put under its own stamp. */
static int deleteOldEntries(WcVtab *p, int bAll){
  WcWriter *pW = p->pWriter;
  int i, rc = SQLITE_OK;
  for(i = 0; i < p->pSchema->nIndex && rc == SQLITE_OK; i++){
    if( !bAll && sameEntry(p, i) ) continue;
    rc = runWrite(p, WC_STMT_INDEX_DEL, i, pW->key.a, pW->key.n, 0,
                  &pW->aOldIdxKey[i]);
  }
  return rc;
}

/* The new row by eInsert (a plain INSERT), which succeeds unless the key
** is taken, and only then (*pbFound) by a replace. */
static int insertElseReplace(WcVtab *p, int eInsert, int *pbFound){
  WcWriter *pW = p->pWriter;
  int rc = execWrite(p, eInsert, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  if( rc == SQLITE_CONSTRAINT_PRIMARYKEY ){
    *pbFound = 1;
    rc = runWrite(p, WC_STMT_REPLACE, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }else if( rc != SQLITE_OK ){
    rc = writeError(p, rc);
  }
  return rc;
}

/* insertRow() on a store with stamps: the entries first (a row never goes
** without them), then the row, then the old row's entries that are no
** longer its. */
static int insertStamped(WcVtab *p, int eInsert, int bKnow, int *pbReplaced){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int rc = SQLITE_OK, bFound = 0;
  wcAssert( wcStoreCaps(&p->store)->bStamps );
  pW->oldStamps.n = 0;
  if( eInsert == WC_STMT_REPLACE && pS->nIndex > 0 ){
    /* What it replaces, for the entries that go.  The put is blind, so it
    ** keeps no entry of the row read: another client's write in between
    ** may have deleted that one.  Every entry goes under this write's
    ** stamp, then every old one is deleted. */
    rc = readOld(p, pW->key.a, pW->key.n, &bFound);
    stampsBegin(p, 0);
    if( rc == SQLITE_OK ) rc = putEntries(p, 0);
    if( rc == SQLITE_OK ){
      rc = runWrite(p, WC_STMT_REPLACE, 0, pW->key.a, pW->key.n, pW->aVal, 0);
    }
    if( rc == SQLITE_OK && bFound ) rc = deleteOldEntries(p, 1);
    oldRelease(p);
  }else if( eInsert == WC_STMT_REPLACE && !bKnow ){
    /* A blind put, as HBase's is: it waits in the batch, where finding
    ** out whether it overwrote would cost a call per row.  An UPDATE that
    ** moves a row must know (bKnow): see WcKeySet. */
    stampsBegin(p, 0);
    rc = runWrite(p, WC_STMT_REPLACE, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }else if( eInsert == WC_STMT_REPLACE ){
    stampsBegin(p, 0);
    rc = insertElseReplace(p, WC_STMT_INSERT_NOW, &bFound);
  }else{
    stampsBegin(p, 0);
    rc = putEntries(p, 0);
    if( rc == SQLITE_OK ){
      rc = runWrite(p, eInsert, 0, pW->key.a, pW->key.n, pW->aVal, 0);
    }
  }
  if( rc == SQLITE_OK && bFound ) wcHistoryKeyTaken(p->pHistory, 1);
  *pbReplaced = rc == SQLITE_OK && bFound;
  return rc;
}

/* Inserts the new row (pW->aVal, pW->key, pW->aIdxKey) into every table.  A
** row it replaces (eInsert WC_STMT_REPLACE) is removed from them first,
** and counted: an overwrite, what an HBase put does to a key in use.
** *pbReplaced tells whether there was one (on a store whose put does not
** tell, only when bKnow asks for it). */
static int insertRow(WcVtab *p, int eInsert, int bKnow, int *pbReplaced){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int rc = SQLITE_OK, bFound = 0, i;
  wcAssert( eInsert == WC_STMT_INSERT || eInsert == WC_STMT_INSERT_NOW
            || eInsert == WC_STMT_REPLACE );
  if( wcStoreCaps(&p->store)->bStamps ){
    return insertStamped(p, eInsert, bKnow, pbReplaced);
  }
  if( eInsert == WC_STMT_REPLACE && pS->nIndex > 0 ){
    rc = removeRow(p, pW->key.a, pW->key.n, &bFound);
    if( rc == SQLITE_OK ){
      rc = runWrite(p, eInsert, 0, pW->key.a, pW->key.n, pW->aVal, 0);
    }
  }else if( eInsert == WC_STMT_REPLACE && !bKnow
         && wcStoreCaps(&p->store)->bLateChecks ){
    /* A blind put, as on a store with stamps: a store that answers late
    ** does not say whether it overwrote (an UPDATE that moves a row must
    ** know: bKnow). */
    rc = runWrite(p, WC_STMT_REPLACE, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }else if( eInsert == WC_STMT_REPLACE ){
    /* Without indexes there is nothing to read first. */
    rc = insertElseReplace(p, wcStoreCaps(&p->store)->bLateChecks
                              ? WC_STMT_INSERT_NOW : WC_STMT_INSERT, &bFound);
  }else{
    /* Without stamps an index entry cannot be told from its row's: a row
    ** whose key check would come late is answered before its entries go,
    ** so that an INSERT refused leaves no entry behind. */
    int eRow = eInsert == WC_STMT_INSERT && pS->nIndex > 0
            && wcStoreCaps(&p->store)->bLateChecks ? WC_STMT_INSERT_NOW
                                                   : eInsert;
    rc = runWrite(p, eRow, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }
  if( rc == SQLITE_OK && bFound ) wcHistoryKeyTaken(p->pHistory, 1);
  *pbReplaced = rc == SQLITE_OK && bFound;
  if( rc == SQLITE_OK ) rc = writeFamilies(p, pW->key.a, pW->key.n);
  for(i = 0; i < pS->nIndex && rc == SQLITE_OK; i++){
    rc = runWrite(p, WC_STMT_INDEX_PUT, i, pW->key.a, pW->key.n, pW->aVal,
                  &pW->aIdxKey[i]);
  }
  return rc;
}

/* updateRow() on a store with stamps: the changed entries first, the row
** if it still has the stamps read (without an index, as the store reads
** it), then the old entries. */
static int updateStamped(WcVtab *p, int bOldRead, int eUpdate){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int bFound = 1, rc = SQLITE_OK;
  wcAssert( wcStoreCaps(&p->store)->bStamps );
  if( pS->nIndex > 0 && !bOldRead ){
    rc = readOld(p, pW->key.a, pW->key.n, &bFound);
    if( rc == SQLITE_OK ) rc = checkScanned(p, pW->key.a, pW->key.n, bFound);
  }else if( !bOldRead ){
    expectScanned(p, pW->key.a, pW->key.n);
  }
  stampsBegin(p, 1);
  if( rc == SQLITE_OK && bFound && pS->nIndex > 0 ) rc = putEntries(p, 1);
  if( rc == SQLITE_OK ){
    rc = runWrite(p, eUpdate, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }
  if( rc == SQLITE_OK && bFound && pS->nIndex > 0 ) rc = deleteOldEntries(p, 0);
  oldRelease(p);
  return rc;
}

/* Rewrites the row with key pW->key in place: its key does not change.
** bOldRead: readOld() has read the row already.  eUpdate: WC_STMT_UPDATE,
** or WC_STMT_UPDATE_NOW to know at once whether the row was still as
** read. */
static int updateRow(WcVtab *p, int bOldRead, int eUpdate){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int bFound = 1, rc = SQLITE_OK, i;
  wcAssert( eUpdate == WC_STMT_UPDATE || eUpdate == WC_STMT_UPDATE_NOW );
  /* Only a versioned write reads the row before it updates it. */
  wcAssert( !bOldRead || pS->bVersioned );
  if( wcStoreCaps(&p->store)->bStamps ){
    return updateStamped(p, bOldRead, eUpdate);
  }
  if( pS->nIndex > 0 && !bOldRead ){
    rc = readOld(p, pW->key.a, pW->key.n, &bFound);
  }
  for(i = 0; i < pS->nIndex && rc == SQLITE_OK && bFound; i++){
    if( sameEntry(p, i) ) continue;
    rc = runWrite(p, WC_STMT_INDEX_DEL, i, pW->key.a, pW->key.n, 0,
                  &pW->aOldIdxKey[i]);
    if( rc == SQLITE_OK ){
      rc = runWrite(p, WC_STMT_INDEX_PUT, i, pW->key.a, pW->key.n, pW->aVal,
                    &pW->aIdxKey[i]);
    }
  }
  oldRelease(p);
  if( rc == SQLITE_OK ){
    rc = runWrite(p, WC_STMT_UPDATE, 0, pW->key.a, pW->key.n, pW->aVal, 0);
  }
  if( rc == SQLITE_OK ) rc = writeFamilies(p, pW->key.a, pW->key.n);
  return rc;
}

/*
** Versions.
*/

/* Puts a version of row aKey into <name>_versions: values aVal, stamped
** iTime (one already there with that stamp is replaced). */
static int putVersion(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                      const WcValue *aVal, int64_t iTime){
  sqlite3_stmt *pStmt = 0;
  int i, rc = wcStoreAcquire(&p->store, WC_STMT_VERSION_PUT, 0, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  bindKey(pStmt, 1, aKey, nKey);
  for(i = 0; i < p->pSchema->nCol; i++) bindValue(pStmt, i + 2, &aVal[i]);
  sqlite3_bind_int64(pStmt, WC_PARAM_ROWTIME(p->pSchema), iTime);
  rc = sqlite3_step(pStmt);
  rc = rc == SQLITE_DONE ? SQLITE_OK : writeError(p, sqlite3_reset(pStmt));
  wcStoreRelease(&p->store, WC_STMT_VERSION_PUT, 0, 0, pStmt);
  return rc;
}

/* Drops row aKey's older versions that the TTL has expired (older than
** iCutoff) or that are past VERSIONS (the latest counts as one). */
static int trimVersions(WcVtab *p, const unsigned char *aKey, int64_t nKey,
                        int64_t iCutoff){
  sqlite3_stmt *pStmt = 0;
  int rc;
  if( p->pSchema->nVersions <= 1 ) return SQLITE_OK;
  rc = wcStoreAcquire(&p->store, WC_STMT_VERSION_TRIM, 0, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  bindKey(pStmt, 1, aKey, nKey);
  sqlite3_bind_int64(pStmt, 2, iCutoff);
  sqlite3_bind_int64(pStmt, 3, p->pSchema->nVersions - 1);
  rc = sqlite3_step(pStmt);
  rc = rc == SQLITE_DONE ? SQLITE_OK : writeError(p, sqlite3_reset(pStmt));
  wcStoreRelease(&p->store, WC_STMT_VERSION_TRIM, 0, 0, pStmt);
  return rc;
}

/* The step between rowtimes: the store's timestamp granularity (Bigtable
** keeps whole milliseconds, so on it a rowtime is a multiple of 1,000
** microseconds and the clock is read to the millisecond). */
static int64_t rowtimeStep(const WcVtab *p){
  return wcStoreCaps(&p->store)->pKind->iTimeStep;
}

/* The rowtime an INSERT or UPDATE gives, in *piTime; *pbGiven is 0 when
** it gives none (NULL, or an UPDATE that does not set it). */
static int givenTime(WcVtab *p, sqlite3_value *pTime, int64_t *piTime,
                     int *pbGiven){
  *pbGiven = 0;
  if( sqlite3_value_nochange(pTime) || sqlite3_value_type(pTime) == SQLITE_NULL ){
    return SQLITE_OK;
  }
  *piTime = sqlite3_value_int64(pTime);
  if( sqlite3_value_numeric_type(pTime) != SQLITE_INTEGER
   || *piTime < 0 || *piTime > WC_MAX_ROWTIME ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: rowtime must "
        "be an integer, microseconds since 1970-01-01 00:00:00 UTC, from 0 "
        "to %lld (9999-12-31), or NULL for the time of the write; not %Q",
        p->store.zName, (long long)WC_MAX_ROWTIME, sqlite3_value_text(pTime));
  }
  if( *piTime % rowtimeStep(p) != 0 ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: rowtime must "
        "be a whole number of milliseconds on %s (its timestamp "
        "granularity), a multiple of %lld microseconds; not %lld",
        p->store.zName, wcStoreCaps(&p->store)->pKind->zEngine,
        (long long)rowtimeStep(p), (long long)*piTime);
  }
  *pbGiven = 1;
  return SQLITE_OK;
}

/* One attempt of versionedPut(); bNow: the write is answered at once
** (its key check, or whether the row was still as read). */
static int versionedAttempt(WcVtab *p, int eInsert, int bGiven,
                            int64_t iGiven, int bNow, int *pbReplaced){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int64_t iStep = rowtimeStep(p);
  int64_t iNow = wcClockNow(p->pClock) / iStep * iStep;
  int64_t iCutoff = wcClockCutoff(p->pClock, pS->nTtl);
  int bFound = 0, rc;
  *pbReplaced = 0;
  rc = readOld(p, pW->key.a, pW->key.n, &bFound);
  if( rc == SQLITE_OK && wcStoreCaps(&p->store)->bStamps ){
    rc = checkScanned(p, pW->key.a, pW->key.n, bFound);
  }
  if( rc == SQLITE_OK && bFound && pW->iOldTime < iCutoff ){
    /* Expired: no read sees it, so nothing is in the way. */
    oldRelease(p);
    bFound = 0;
    rc = removeRow(p, pW->key.a, pW->key.n, 0);
  }
  if( rc != SQLITE_OK || !bFound ){
    oldRelease(p);
    if( rc != SQLITE_OK ) return rc;
    pW->iTime = bGiven ? iGiven : iNow;
    return insertRow(p, bNow ? WC_STMT_INSERT_NOW : WC_STMT_INSERT, 0,
                     pbReplaced);
  }
  if( eInsert != WC_STMT_REPLACE ){
    oldRelease(p);
    wcHistoryKeyTaken(p->pHistory, 0);
    return duplicateKey(p, pW->key.a, pW->key.n);
  }
  /* A new version is what VERSIONS n > 1 is for, not an overwrite:
  ** widecol_lint judges those keys on their versions (versions-mask). */
  if( pS->nVersions == 1 ) wcHistoryKeyTaken(p->pHistory, 1);
  *pbReplaced = 1;
  if( !bGiven ){
    if( pW->iOldTime > WC_MAX_ROWTIME - iStep ){
      oldRelease(p);
      return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: the row's "
          "latest version is stamped %lld, the last rowtime there is, so a "
          "later version cannot be written; give rowtime explicitly",
          p->store.zName, (long long)pW->iOldTime);
    }
    iGiven = iNow > pW->iOldTime ? iNow : pW->iOldTime + iStep;
  }
  pW->iTime = iGiven;
  wcAssert( !bGiven || iGiven % iStep == 0 );
  wcAssert( iGiven > pW->iOldTime || bGiven );
  if( iGiven >= pW->iOldTime ){
    /* The new latest: the old one goes to history, unless it is the same
    ** version written again (or the store keeps it there by itself). */
    if( iGiven > pW->iOldTime && pS->nVersions > 1
     && !wcStoreCaps(&p->store)->bCellVersions ){
      rc = putVersion(p, pW->key.a, pW->key.n, pW->aOldVal, pW->iOldTime);
    }
    if( rc == SQLITE_OK ){
      rc = updateRow(p, 1, bNow ? WC_STMT_UPDATE_NOW : WC_STMT_UPDATE);
    }else{
      oldRelease(p);
    }
  }else{
    oldRelease(p);
    if( pS->nVersions > 1 ){
      rc = putVersion(p, pW->key.a, pW->key.n, pW->aVal, iGiven);
    }
  }
  if( rc == SQLITE_OK ) rc = trimVersions(p, pW->key.a, pW->key.n, iCutoff);
  return rc;
}

/* Attempts of an INSERT OR REPLACE that loses races before it fails. */
#define WC_MAX_RACES 50

/* Writes the row in pW->aVal, pW->key as a version stamped iGiven (bGiven)
** or now.  A key in use takes a new version when eInsert is
** WC_STMT_REPLACE (an UPDATE's own row always), else it fails as a
** duplicate; *pbReplaced tells whether it was in use.  bFresh: the values
** do not come from the row (an INSERT, not an UPDATE).
**
** On a store that answers writes late, another client may write the key
** between the read and the write: an INSERT OR REPLACE is then answered
** at once, and when it lost such a race (a row appeared where there was
** none, or the row changed), it reads the row again and writes a version
** after the other's, so that no acknowledged version is overwritten.  An
** UPDATE fails instead: its values came from the row it read. */
static int versionedPut(WcVtab *p, int eInsert, int bGiven, int64_t iGiven,
                        int bFresh, int *pbReplaced){
  WcWriter *pW = p->pWriter;
  int bRaces = bFresh && eInsert == WC_STMT_REPLACE
            && wcStoreCaps(&p->store)->bLateChecks;
  int nTry, rc = SQLITE_OK;
  for(nTry = 0; nTry < WC_MAX_RACES; nTry++){
    rc = versionedAttempt(p, eInsert, bGiven, iGiven,
                          bRaces || eInsert == WC_STMT_INSERT_NOW, pbReplaced);
    if( !bRaces || (rc != SQLITE_CONSTRAINT_PRIMARYKEY
                    && rc != SQLITE_BUSY_SNAPSHOT) ){
      return rc;
    }
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = 0;
  }
  {
    char *zKey = describeKey(pW->key.a, pW->key.n);
    rc = wcVtabError(&p->base, SQLITE_BUSY, "widecol %s: INSERT OR REPLACE of key "
        "%s lost %d races in a row to other clients writing that key (each "
        "time, another version came between reading the row and writing "
        "it); run it again", p->store.zName, zKey ? zKey : "?", WC_MAX_RACES);
    sqlite3_free(zKey);
  }
  return rc;
}

int wcTableCompact(WcVtab *p, int64_t *pnRow, int64_t *pnVersion){
  const WcSchema *pS = p->pSchema;
  int64_t iCutoff = wcClockCutoff(p->pClock, pS->nTtl);
  sqlite3_stmt *pNext = 0, *pCount = 0;
  sqlite3_str *pSql;
  char *zSql;
  WcBuf key;
  WcProgress progress;
  int rc;
  *pnRow = *pnVersion = 0;
  if( !pS->bVersioned || pS->nTtl == 0 ) return SQLITE_OK;
  memset(&key, 0, sizeof(key));
  wcProgressBegin(&progress, "expired rows removed", -1, "widecol_compact(%s)",
                  p->store.zName);
  /* The next row, past the last one removed, whose latest has expired;
  ** nothing stays open while rows are removed. */
  pSql = sqlite3_str_new(p->store.db);
  sqlite3_str_appendall(pSql, "SELECT rowkey FROM ");
  wcStoreAppendTable(pSql, &p->store, -1, -1);
  sqlite3_str_appendall(pSql, " WHERE rowkey >= ?1 AND rowtime < ?2 "
                              "ORDER BY rowkey LIMIT 1");
  zSql = sqlite3_str_finish(pSql);
  rc = zSql ? sqlite3_prepare_v2(p->store.db, zSql, -1, &pNext, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc == SQLITE_OK && pS->nVersions > 1 ){
    pSql = sqlite3_str_new(p->store.db);
    sqlite3_str_appendall(pSql, "SELECT count(*) FROM ");
    wcStoreAppendTable(pSql, &p->store, WC_TABLE_VERSIONS, -1);
    sqlite3_str_appendall(pSql, " WHERE rowkey = ?1");
    zSql = sqlite3_str_finish(pSql);
    rc = zSql ? sqlite3_prepare_v2(p->store.db, zSql, -1, &pCount, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if( rc == SQLITE_OK ) sqlite3_bind_int64(pNext, 2, iCutoff);
  while( rc == SQLITE_OK ){
    bindKey(pNext, 1, key.a, key.n);
    rc = sqlite3_step(pNext);
    if( rc != SQLITE_ROW ){
      rc = rc == SQLITE_DONE ? SQLITE_OK : writeError(p, sqlite3_reset(pNext));
      break;
    }
    key.n = 0;
    wcBufAppend(&key, sqlite3_column_blob(pNext, 0),
                sqlite3_column_bytes(pNext, 0));
    sqlite3_reset(pNext);
    if( key.bOom ){
      rc = SQLITE_NOMEM;
      break;
    }
    rc = SQLITE_OK;
    (*pnVersion)++;
    if( pCount ){
      bindKey(pCount, 1, key.a, key.n);
      if( sqlite3_step(pCount) == SQLITE_ROW ){
        *pnVersion += sqlite3_column_int64(pCount, 0);
      }
      rc = sqlite3_reset(pCount);
      if( rc != SQLITE_OK ) rc = writeError(p, rc);
    }
    if( rc == SQLITE_OK ) rc = removeRow(p, key.a, key.n, 0);
    wcProgressStep(&progress, ++(*pnRow));
  }
  wcProgressEnd(&progress);
  sqlite3_finalize(pNext);
  sqlite3_finalize(pCount);
  wcBufFree(&key);
  if( rc == SQLITE_OK && pS->nVersions > 1 ){
    pSql = sqlite3_str_new(p->store.db);
    sqlite3_str_appendall(pSql, "DELETE FROM ");
    wcStoreAppendTable(pSql, &p->store, WC_TABLE_VERSIONS, -1);
    sqlite3_str_appendf(pSql, " WHERE rowtime < %lld", (long long)iCutoff);
    zSql = sqlite3_str_finish(pSql);
    rc = zSql ? sqlite3_exec(p->store.db, zSql, 0, 0, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if( rc == SQLITE_OK ) *pnVersion += sqlite3_changes(p->store.db);
    else if( rc != SQLITE_NOMEM ) rc = writeError(p, rc);
  }
  return rc;
}

/* Writes the new row (pW->aVal, pW->key, pW->aIdxKey), where no row was
** (bMoved 1: an INSERT; 2: an UPDATE moved it here, and *pbReplaced must
** say whether it replaced a row) or over its own old version. */
static int putRow(WcVtab *p, int eInsert, int bMoved,
                  sqlite3_value *pTime, int *pbReplaced){
  int64_t iGiven = 0;
  int bGiven = 0, rc;
  wcAssert( bMoved >= 0 && bMoved <= 2 );
  *pbReplaced = 0;
  if( !p->pSchema->bVersioned ){
    return bMoved ? insertRow(p, eInsert, bMoved == 2, pbReplaced)
                  : updateRow(p, 0, WC_STMT_UPDATE);
  }
  rc = givenTime(p, pTime, &iGiven, &bGiven);
  if( rc != SQLITE_OK ) return rc;
  return versionedPut(p, bMoved ? eInsert : WC_STMT_REPLACE, bGiven, iGiven,
                      bMoved == 1, pbReplaced);
}

/* An INSERT's row.  Where this write chose its RANDOM number (found
** free) and the store answers inserts late, another client may take the
** number before the row is written: the insert is then answered at once
** (even an INSERT OR REPLACE: the number was chosen to be free, not to
** replace a row), and one that lost the number tries the next free one. */
static int insertNew(WcVtab *p, int eInsert, sqlite3_value *pTime,
                     int *pbReplaced){
  WcWriter *pW = p->pWriter;
  const WcSchema *pS = p->pSchema;
  int64_t nTry;
  int rc;
  if( pW->nRandomMade < 0 || !wcStoreCaps(&p->store)->bLateChecks ){
    return putRow(p, eInsert, 1, pTime, pbReplaced);
  }
  for(nTry = 1; ; nTry++){
    int64_t iLost = wcRandomOf(pS, pW->key.a, (int)pW->key.n);
    rc = putRow(p, WC_STMT_INSERT_NOW, 1, pTime, pbReplaced);
    if( rc != SQLITE_CONSTRAINT_PRIMARYKEY || nTry >= pS->nRandom ) break;
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = 0;
    rc = randomFree(p, pW->nRandomMade, (iLost + 1) % pS->nRandom);
    if( rc == SQLITE_OK ) rc = rowKeys(p);
    if( rc != SQLITE_OK ) break;
  }
  return rc;
}

/* A row of an UPDATE could not move, after others did: on a store without
** multi-row transactions those stay moved, and the message says so. */
static int movedBefore(WcVtab *p, int rc){
  WcWriter *pW = p->pWriter;
  char *zMsg;
  wcAssert( pW->nMoved > 0 );
  zMsg = sqlite3_mprintf("%s; the %d row%s this UPDATE moved before "
      "it stay%s moved: the store has no multi-row transactions "
      "(%s, What a statement guarantees)", p->base.zErrMsg,
      pW->nMoved, pW->nMoved == 1 ? "" : "s", pW->nMoved == 1 ? "s" : "",
      wcStoreCaps(&p->store)->pKind->zDocs);
  if( zMsg == 0 ) return SQLITE_NOMEM;
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = zMsg;
  return rc;
}

/* pW->pScanStamps: on an UPDATE, the stamps (_stamp) of the row as its
** scan read it, which the write then acts on only; an INSERT may not give
** them. */
static int scanStamps(WcVtab *p, int argc, sqlite3_value **argv){
  WcWriter *pW = p->pWriter;
  sqlite3_value *pStamps;
  wcAssert( p->store.iStampCol < 0 || wcStoreCaps(&p->store)->bStamps );
  pW->pScanStamps = 0;
  if( argc == 1 || p->store.iStampCol < 0 ) return SQLITE_OK;
  pStamps = argv[2 + p->store.iStampCol];
  if( sqlite3_value_type(pStamps) == SQLITE_NULL ) return SQLITE_OK;
  if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: "
        WC_STAMP_COLUMN " is the stamps of a row's last write, which widecol "
        "gives; an INSERT cannot set it", p->store.zName);
  }
  pW->pScanStamps = pStamps;
  pW->aScanKey = sqlite3_value_blob(argv[0]);
  pW->nScanKey = sqlite3_value_bytes(argv[0]);
  return SQLITE_OK;
}

/* A versioned table's versions and asof (argv[2 + nCol + 2..3]) are
** parameters of reads: an INSERT may not give them, nor an UPDATE set
** them.  An UPDATE whose rows come from a read of older versions gets
** them from its scan (wcScanColumn): it would write each version read
** as a new latest one, so it is refused, saying how to pick rows by
** their history instead. */
static int checkReadParams(WcVtab *p, sqlite3_value **argv){
  int nCol = p->pSchema->nCol, i;
  for(i = 2; i <= 3; i++){
    sqlite3_value *pParam = argv[2 + nCol + i];
    const char *zParam = i == 2 ? "versions" : "asof";
    const char *zTerm = i == 2 ? "versions = n" : "asof = t";
    if( sqlite3_value_nochange(pParam)
     || sqlite3_value_type(pParam) == SQLITE_NULL ){
      continue;
    }
    if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
      return wcVtabError(&p->base, SQLITE_CONSTRAINT_CHECK, "widecol %s: %s is a "
          "parameter of reads (WHERE %s), not a column to write; set "
          "rowtime to write a version stamped with a time (it was given "
          "%Q)", p->store.zName, zParam, zTerm, sqlite3_value_text(pParam));
    }
    return wcVtabError(&p->base, SQLITE_ERROR, "widecol %s: an UPDATE writes the "
        "latest version of each row it picks; %s is a parameter of reads "
        "(WHERE %s), which an UPDATE can neither set nor pick its rows by "
        "(it would write each older version read as a new one). To update "
        "the rows whose older versions match, pick them in a subquery: "
        "UPDATE \"%w\" SET ... WHERE rowkey IN (SELECT rowkey FROM \"%w\" "
        "WHERE %s AND ...)", p->store.zName, zParam, zTerm, p->store.zName, p->store.zName,
        zTerm);
  }
  return SQLITE_OK;
}

static int writeUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv){
  WcVtab *p = (WcVtab*)pVtab;
  WcWriter *pW = p->pWriter;
  int nCol = p->pSchema->nCol;
  int eConflict = sqlite3_vtab_on_conflict(p->store.db);
  const WcStoreCaps *pCaps = wcStoreCaps(&p->store);
  /* A store may answer a plain INSERT's check after the row; OR IGNORE
  ** and OR FAIL must know at the row. */
  int eInsert = eConflict == SQLITE_REPLACE ? WC_STMT_REPLACE
      : pCaps->bLateChecks && (eConflict == SQLITE_IGNORE
                               || eConflict == SQLITE_FAIL)
      ? WC_STMT_INSERT_NOW : WC_STMT_INSERT;
  sqlite3_value *pTime;
  const unsigned char *aOld;
  int nOld, rc, bReplaced = 0;
  /* A DELETE's key alone, or the old key, the new one, every column and
  ** the hidden ones after them. */
  wcAssert( argc == 1 || argc > 2 + nCol );
  pW->oldStamps.n = 0;
  rc = scanStamps(p, argc, argv);
  if( rc != SQLITE_OK ) return rc;
  if( argc == 1 ){
    rc = removeRow(p, sqlite3_value_blob(argv[0]),
                   sqlite3_value_bytes(argv[0]), 0);
    if( rc == SQLITE_OK && p->nRowEst > 0 ) p->nRowEst--;
    return rc;
  }
  /* A versioned table's rowtime, after rowkey. */
  pTime = p->pSchema->bVersioned ? argv[2 + nCol + 1] : 0;
  if( pTime ){
    rc = checkReadParams(p, argv);
    if( rc != SQLITE_OK ) return rc;
  }
  rc = rowEncode(p, &argv[2]);
  pW->nRandomMade = -1;
  if( rc == SQLITE_OK && p->pSchema->nRandom ) rc = randomKey(p, argv);
  if( rc == SQLITE_OK ) rc = rowKeys(p);
  if( rc == SQLITE_OK && sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    rc = checkGivenKey(p, argv[2 + nCol]);
    if( rc == SQLITE_OK ) rc = insertNew(p, eInsert, pTime, &bReplaced);
    if( rc == SQLITE_OK && p->nRowEst >= 0 ) p->nRowEst++;
  }else if( rc == SQLITE_OK ){
    aOld = sqlite3_value_blob(argv[0]);
    nOld = sqlite3_value_bytes(argv[0]);
    if( wcKeySetHas(&pW->displaced, aOld, nOld) ){
      char *zKey = describeKey(aOld, nOld);
      rowRelease(p);
      rc = wcVtabError(&p->base, SQLITE_ERROR,
          "widecol %s: UPDATE OR REPLACE moved a row onto key %s, replacing "
          "a row the statement still had to update; SQLite computed that "
          "row's new values before it was replaced, so they no longer "
          "describe the row under that key, and the statement stops "
          "(%s%s%s).  Update such rows in an order that "
          "does not move one onto a row still to come (for a key that "
          "grows, from the largest down, in steps), or in two statements "
          "through a table of the new values (docs/widecol.md, Differences "
          "from an ordinary table)", p->store.zName, zKey ? zKey : "?",
          pCaps->bTransactional ? "nothing it wrote is kept" : "the rows it "
          "moved before stay moved: the store has no multi-row "
          "transactions (", pCaps->bTransactional ? "" : pCaps->pKind->zDocs,
          pCaps->bTransactional ? "" : ", What a statement guarantees)");
      sqlite3_free(zKey);
      return rc;
    }
    /* argv[1] is the new rowkey: the old one unless the UPDATE sets it. */
    if( sqlite3_value_bytes(argv[1]) != nOld
     || (nOld && memcmp(sqlite3_value_blob(argv[1]), aOld, (size_t)nOld)) ){
      rc = checkGivenKey(p, argv[1]);
    }
    if( rc == SQLITE_OK ){
      if( pW->key.n == nOld && (nOld == 0 || memcmp(pW->key.a, aOld,
                                                   (size_t)nOld) == 0) ){
        rc = putRow(p, eInsert, 0, pTime, &bReplaced);
      }else{
        /* A new key: insert under it first, so a conflict changes
        ** nothing, then drop the old row (with its versions).  A store
        ** that may answer the insert's check late is asked at once,
        ** before the delete is queued. */
        rc = putRow(p, eInsert == WC_STMT_INSERT && pCaps->bLateChecks
                       ? WC_STMT_INSERT_NOW : eInsert, 2, pTime, &bReplaced);
        if( rc == SQLITE_OK ) rc = removeRow(p, aOld, nOld, 0);
        if( rc == SQLITE_OK && bReplaced ){
          rc = wcKeySetAdd(&pW->displaced, pW->key.a, pW->key.n);
        }
        if( rc == SQLITE_OK ){
          pW->nMoved++;
        }else if( (rc & 0xFF) == SQLITE_CONSTRAINT && pW->nMoved > 0
               && !pCaps->bTransactional ){
          rc = movedBefore(p, rc);
        }
      }
    }
  }
  rowRelease(p);
  return rc;
}

/* xUpdate.  The scan's stamps point into argv: they are forgotten when
** it returns, whatever it returned, so that nothing after (a compaction,
** say) acts on them. */
int wcWriteUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                  sqlite3_int64 *pRowid){
  WcVtab *p = (WcVtab*)pVtab;
  WcWriter *pW = p->pWriter;
  int rc;
  (void)pRowid;
  if( p->pSchema->bExisting && !p->pSchema->bWritable ){
    return wcVtabError(&p->base, SQLITE_READONLY, "widecol %s: its rows are "
        "a %s table another application made, opened read only (STORAGE "
        "... EXISTING); add WRITABLE after EXISTING to write its cells as "
        "CELLS lays them out, or copy the rows into a table of your design: "
        "INSERT INTO <new> SELECT * FROM %s", p->store.zName,
        wcStoreCaps(&p->store)->pKind->zEngine, p->store.zName);
  }
  writeStatementBegins(p);
  if( !pW->progress.bStarted ){
    wcProgressBegin(&pW->progress, "rows written", -1, "widecol %s",
                    p->store.zName);
  }
  wcProgressStep(&pW->progress, ++pW->nWritten);
  wcAssert( !pW->bActive && pW->pScanStamps == 0 );
  pW->bActive = 1;
  rc = writeUpdate(pVtab, argc, argv);
  pW->bActive = 0;
  pW->pScanStamps = 0;
  return rc;
}
