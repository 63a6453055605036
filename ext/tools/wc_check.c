/*
** wc_check.c: SELECT * FROM widecol_check('<table>'), like PRAGMA
** integrity_check for the tables behind a widecol table.
**
** It returns one row, 'ok', or one row per problem found (the first
** WC_CHECK_MAX, in row order): a row key that is not the key its fields
** make (and RANDOM's number, on a design that has one; on an EXISTING
** table, whose fields are read from its keys, a key that is no key of
** the design), an index entry
** missing, pointing nowhere, under the wrong key or holding other values
** than the row, a family row without a row or with no value, and on a
** versioned table an older version without a row, not older than the
** row's latest, past VERSIONS, or whose fields make another key.  Writes
** through widecol keep all of this true; the check finds what writing to
** the tables directly, or a bug, broke.
**
** It reads at scan speed on every store, never a row at a time: one scan
** of the rows (in key order, with the older versions beside it in the
** same order), during which the index key each row makes goes into a
** private database of the check's own, sorted there; then each index's
** table is scanned in key order beside those keys, a merge of two sorted
** scans.  On Bigtable that is a few calls per 65,536 rows.
*/
#include "vtab/wc_table.h"
#include "tools/wc_tvf.h"
#include "util/wc_progress.h"
#include "key/wc_decode.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define WC_CHECK_MAX 100

/* Where a problem goes in the output: the rows' own problems and their
** index entries' (by row key, then index), entries that belong to no row
** (by index, then entry key), family rows (by family, then key), older
** versions, and their fields (by key). */
#define GROUP_ROW      0
#define GROUP_ENTRY    1
#define GROUP_FAMILY   2
#define GROUP_VERSIONS 3
#define GROUP_FIELDS   4

typedef struct Problem Problem;
struct Problem {
  int iGroup;
  unsigned char *aKey;  /* The row's key (an entry's, in GROUP_ENTRY) */
  int64_t nKey;
  int iIndex;           /* -1: the row itself */
  int iSeq;             /* The order it was found in */
  char *zText;
};

typedef struct Check Check;
struct Check {
  WcVtab *pTab;
  Problem *aProblem;
  int nProblem;
  int nAlloc;
  int rc;
  char *zErr;           /* Why the check itself failed, if not SQLite */
  sqlite3 *pPriv;       /* The index keys the rows make, one table each */
  sqlite3_stmt **apPut; /* INSERT INTO e<i>: an index key a row makes */
  WcProgress progress;
  int64_t nDone;        /* Rows and entries read */
};

/* True if an encoder's rc is the check's own failure (out of memory, no
** MD5), not a problem of the data; records it, taking *pzErr. */
static int encodeFailed(Check *p, int rc, char **pzErr){
  if( rc != WC_NOMEM && rc != WC_ERROR ) return 0;
  p->rc = rc == WC_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  if( p->zErr == 0 ){
    p->zErr = *pzErr;
    *pzErr = 0;
  }
  return 1;
}

/* Adds a problem of group iGroup about key aKey (index iIndex); the check
** stops adding after WC_CHECK_MAX. */
static void problem(Check *p, int iGroup, const unsigned char *aKey,
                    int64_t nKey, int iIndex, const char *zFormat, ...){
  va_list ap;
  Problem *pNew;
  if( p->rc != SQLITE_OK || p->nProblem >= WC_CHECK_MAX ) return;
  if( p->nProblem == p->nAlloc ){
    int nNew = p->nAlloc ? 2 * p->nAlloc : 8;
    Problem *aNew = sqlite3_realloc64(p->aProblem,
                                      sizeof(Problem) * (sqlite3_uint64)nNew);
    if( aNew == 0 ){
      p->rc = SQLITE_NOMEM;
      return;
    }
    p->aProblem = aNew;
    p->nAlloc = nNew;
  }
  pNew = &p->aProblem[p->nProblem];
  memset(pNew, 0, sizeof(*pNew));
  pNew->iGroup = iGroup;
  pNew->iIndex = iIndex;
  pNew->iSeq = p->nProblem;
  pNew->nKey = nKey;
  pNew->aKey = sqlite3_malloc64((sqlite3_uint64)nKey + 1);
  va_start(ap, zFormat);
  pNew->zText = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( pNew->aKey == 0 || pNew->zText == 0 ){
    sqlite3_free(pNew->aKey);
    sqlite3_free(pNew->zText);
    p->rc = SQLITE_NOMEM;
    return;
  }
  if( nKey > 0 ) memcpy(pNew->aKey, aKey, (size_t)nKey);
  p->nProblem++;
}

static int problemCompare(const void *pA, const void *pB){
  const Problem *a = (const Problem*)pA, *b = (const Problem*)pB;
  int64_t n = a->nKey < b->nKey ? a->nKey : b->nKey;
  int c;
  if( a->iGroup != b->iGroup ) return a->iGroup < b->iGroup ? -1 : 1;
  if( (a->iGroup == GROUP_ENTRY || a->iGroup == GROUP_FAMILY)
   && a->iIndex != b->iIndex ){
    return a->iIndex < b->iIndex ? -1 : 1;
  }
  c = n > 0 ? memcmp(a->aKey, b->aKey, (size_t)n) : 0;
  if( c == 0 && a->nKey != b->nKey ) c = a->nKey < b->nKey ? -1 : 1;
  if( c ) return c;
  if( a->iIndex != b->iIndex ) return a->iIndex < b->iIndex ? -1 : 1;
  return a->iSeq < b->iSeq ? -1 : a->iSeq > b->iSeq;
}

/* A key for a message, as x'...' or readable text. */
static char *keyText(const unsigned char *a, int64_t n){
  WcValue v;
  memset(&v, 0, sizeof(v));
  v.eType = SQLITE_BLOB;
  v.a = a ? a : (const unsigned char*)"";
  v.n = n;
  return wcValueDescribe(&v, 0);
}

/* Prepares the SQL built in pStr on db (the table's connection, or the
** check's own). */
static sqlite3_stmt *prepareOn(Check *p, sqlite3 *db, sqlite3_str *pStr){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  p->rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( p->rc != SQLITE_OK && db == p->pPriv && p->zErr == 0 ){
    p->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_free(zSql);
  return pStmt;
}

static sqlite3_stmt *prepare(Check *p, sqlite3_str *pStr){
  return prepareOn(p, wcTableDb(p->pTab), pStr);
}

/* Runs SQL on the check's own database. */
static void privExec(Check *p, const char *zSql){
  if( p->rc == SQLITE_OK ){
    p->rc = sqlite3_exec(p->pPriv, zSql, 0, 0, 0);
    if( p->rc != SQLITE_OK && p->zErr == 0 ){
      p->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(p->pPriv));
    }
  }
}

static void valuesOf(sqlite3_stmt *pStmt, int iFirst, int nCol,
                     WcValue *aVal){
  int i;
  for(i = 0; i < nCol; i++){
    wcValueFrom(sqlite3_column_value(pStmt, iFirst + i), &aVal[i]);
  }
}

static void step(Check *p){
  wcProgressStep(&p->progress, ++p->nDone);
}

/*
** The index keys the rows make, in the check's own database: for index
** i, table e<i>(ikey, rowkey, the columns the index holds[, rowtime]),
** and b<i>(rowkey), the rows that make no key of index i.
*/

/* The number of values an entry of index iIndex holds after its keys:
** the columns it stores, and under a TTL the rowtime. */
static int entryValues(const WcSchema *pS, int iIndex){
  int i, n = pS->nTtl > 0;
  for(i = 0; i < pS->nCol; i++) n += pS->aIndex[iIndex].abStored[i];
  return n;
}

static void expectedOpen(Check *p){
  const WcSchema *pS = wcTableSchema(p->pTab);
  int i, j;
  p->rc = sqlite3_open_v2("", &p->pPriv,
                          SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0);
  if( p->rc != SQLITE_OK ){
    p->zErr = sqlite3_mprintf("cannot open a database of its own: %s",
                              p->pPriv ? sqlite3_errmsg(p->pPriv)
                                       : "out of memory");
    return;
  }
  /* A sorter, not a database to keep: in memory up to 64 MiB, in one
  ** transaction (a commit a row would walk the page cache each time),
  ** gone when closed. */
  privExec(p, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
              "PRAGMA cache_size = -65536; BEGIN");
  p->apPut = sqlite3_malloc64(sizeof(sqlite3_stmt*)
                              * (sqlite3_uint64)(pS->nIndex + 1));
  if( p->apPut == 0 ){
    if( p->rc == SQLITE_OK ) p->rc = SQLITE_NOMEM;
    return;
  }
  memset(p->apPut, 0, sizeof(sqlite3_stmt*) * (size_t)(pS->nIndex + 1));
  for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
    int nVal = entryValues(pS, i);
    sqlite3_str *pStr = sqlite3_str_new(0);
    sqlite3_str_appendf(pStr, "CREATE TABLE e%d(ikey BLOB PRIMARY KEY, rowkey "
                        "BLOB NOT NULL", i);
    for(j = 0; j < nVal; j++) sqlite3_str_appendf(pStr, ", v%d", j);
    sqlite3_str_appendf(pStr, ") WITHOUT ROWID; CREATE TABLE b%d(rowkey BLOB "
                        "PRIMARY KEY) WITHOUT ROWID", i);
    {
      char *zSql = sqlite3_str_finish(pStr);
      if( zSql == 0 ){
        p->rc = SQLITE_NOMEM;
        return;
      }
      privExec(p, zSql);
      sqlite3_free(zSql);
    }
    pStr = sqlite3_str_new(0);
    sqlite3_str_appendf(pStr, "INSERT INTO e%d VALUES (?1, ?2", i);
    for(j = 0; j < nVal; j++) sqlite3_str_appendf(pStr, ", ?%d", j + 3);
    sqlite3_str_appendall(pStr, ")");
    if( p->rc == SQLITE_OK ) p->apPut[i] = prepareOn(p, p->pPriv, pStr);
    else sqlite3_free(sqlite3_str_finish(pStr));
  }
}

static void expectedClose(Check *p){
  int i;
  if( p->apPut ){
    for(i = 0; i < wcTableSchema(p->pTab)->nIndex; i++){
      sqlite3_finalize(p->apPut[i]);
    }
  }
  sqlite3_free(p->apPut);
  sqlite3_close(p->pPriv);
}

/* Records that the row of key aKey (its values in pRow from iFirst, its
** rowtime at iTime) makes index key pIKey of index iIndex. */
static void expectedPut(Check *p, int iIndex, const WcBuf *pIKey,
                        const unsigned char *aKey, int64_t nKey,
                        sqlite3_stmt *pRow, int iFirst, int iTime){
  const WcSchema *pS = wcTableSchema(p->pTab);
  sqlite3_stmt *pPut = p->apPut[iIndex];
  int j, k = 3;
  sqlite3_bind_blob64(pPut, 1, pIKey->n ? pIKey->a : (const void*)"",
                      (sqlite3_uint64)pIKey->n, SQLITE_STATIC);
  sqlite3_bind_blob64(pPut, 2, nKey ? aKey : (const void*)"",
                      (sqlite3_uint64)nKey, SQLITE_STATIC);
  for(j = 0; j < pS->nCol; j++){
    if( pS->aIndex[iIndex].abStored[j] ){
      sqlite3_bind_value(pPut, k++, sqlite3_column_value(pRow, iFirst + j));
    }
  }
  if( pS->nTtl > 0 ){
    sqlite3_bind_value(pPut, k, sqlite3_column_value(pRow, iTime));
  }
  sqlite3_step(pPut);
  p->rc = sqlite3_reset(pPut);
  if( p->rc != SQLITE_OK && p->zErr == 0 ){
    p->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(p->pPriv));
  }
}

/* Records that the row of key aKey makes no key of index iIndex. */
static void expectedNone(Check *p, int iIndex, const unsigned char *aKey,
                         int64_t nKey){
  char *zSql = sqlite3_mprintf("INSERT OR IGNORE INTO b%d VALUES (?1)",
                               iIndex);
  sqlite3_stmt *pStmt = 0;
  if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  p->rc = sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( p->rc == SQLITE_OK ){
    sqlite3_bind_blob64(pStmt, 1, nKey ? aKey : (const void*)"",
                        (sqlite3_uint64)nKey, SQLITE_STATIC);
    sqlite3_step(pStmt);
    p->rc = sqlite3_finalize(pStmt);
  }
}

/*
** The rows, with their older versions beside them.
*/

/* Older versions (<name>_versions) of one row key, read beside the rows:
** they belong to a row, are older than its latest, number at most
** VERSIONS - 1 and make their row's key.  pVer is on the first version of
** its key; on return it is past that key's versions (*pbMore 0 at the
** end).  pRow is the row of that key, or NULL if it has none. */
static void checkVersionsOf(Check *p, sqlite3_stmt *pVer, sqlite3_stmt *pRow,
                            WcValue *aVal, WcBuf *pBuf, int *pbMore){
  const WcSchema *pS = wcTableSchema(p->pTab);
  WcBuf key;
  int64_t nOld = 0, iMax = INT64_MIN;
  char *zKey;
  memset(&key, 0, sizeof(key));
  wcBufAppend(&key, sqlite3_column_blob(pVer, 0), sqlite3_column_bytes(pVer, 0));
  if( key.bOom ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  do{
    const unsigned char *aKey = sqlite3_column_blob(pVer, 0);
    int64_t nKey = sqlite3_column_bytes(pVer, 0), iTime;
    char *zErr = 0;
    int rc;
    if( nKey != key.n || (nKey && memcmp(aKey, key.a, (size_t)nKey)) ) break;
    step(p);
    nOld++;
    iTime = sqlite3_column_int64(pVer, 1);
    if( iTime > iMax ) iMax = iTime;
    valuesOf(pVer, 2, pS->nCol, aVal);
    rc = wcEncodeKey(pS, wcTableHasher(p->pTab), aVal, pBuf, &zErr);
    if( !encodeFailed(p, rc, &zErr)
     && (rc != WC_OK || !wcKeyIsMade(pS, pBuf, key.a, key.n)) ){
      zKey = keyText(key.a, key.n);
      problem(p, GROUP_FIELDS, key.a, key.n, -1, "row %s: its version stamped "
              "%lld has fields that make another row key", zKey,
              (long long)iTime);
      sqlite3_free(zKey);
    }
    sqlite3_free(zErr);
    *pbMore = sqlite3_step(pVer) == SQLITE_ROW;
  }while( *pbMore && p->rc == SQLITE_OK );
  zKey = keyText(key.a, key.n);
  if( pRow == 0 ){
    problem(p, GROUP_VERSIONS, key.a, key.n, -1, "VERSIONS: %lld older "
            "version(s) of key %s, which is not in %s_rows", (long long)nOld,
            zKey, wcTableName(p->pTab));
  }else if( iMax >= sqlite3_column_int64(pRow, 1 + pS->nCol) ){
    problem(p, GROUP_VERSIONS, key.a, key.n, -1, "row %s: an older version is "
            "stamped %lld, not before its latest (%lld)", zKey,
            (long long)iMax,
            (long long)sqlite3_column_int64(pRow, 1 + pS->nCol));
  }
  if( nOld > pS->nVersions - 1 ){
    problem(p, GROUP_VERSIONS, key.a, key.n, -1, "row %s: %lld older versions, "
            "more than the %d that VERSIONS %d keeps besides the latest", zKey,
            (long long)nOld, pS->nVersions - 1, pS->nVersions);
  }
  sqlite3_free(zKey);
  wcBufFree(&key);
}

/* Compares two keys as bytes. */
/* One row (its key and values in pRow, from the rows' scan): its key, and
** the index keys it makes, recorded for the entries' merge. */
static void checkRow(Check *p, sqlite3_stmt *pRow, WcValue *aVal,
                     WcBuf *pBuf){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  const unsigned char *aKey = sqlite3_column_blob(pRow, 0);
  int64_t nKey = sqlite3_column_bytes(pRow, 0);
  char *zKey = keyText(aKey, nKey), *zErr = 0;
  int i, rc;
  valuesOf(pRow, 1, pS->nCol, aVal);
  rc = wcEncodeKey(pS, wcTableHasher(pTab), aVal, pBuf, &zErr);
  if( encodeFailed(p, rc, &zErr) ){
    /* the check stops */
  }else if( rc != WC_OK ){
    problem(p, GROUP_ROW, aKey, nKey, -1, "row %s: its fields make no row "
            "key: %s", zKey, zErr);
  }else if( !wcKeyIsMade(pS, pBuf, aKey, nKey) ){
    char *zWant = keyText(pBuf->a, pBuf->n);
    problem(p, GROUP_ROW, aKey, nKey, -1, "row %s: its fields make the row "
            "key %s%s", zKey, zWant,
            pS->nRandom ? " followed by RANDOM's number" : "");
    sqlite3_free(zWant);
  }
  sqlite3_free(zErr);
  for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
    zErr = 0;
    rc = wcIndexKey(pTab, i, aVal, aKey, nKey, pBuf, &zErr);
    if( rc != WC_OK ){
      if( !encodeFailed(p, rc, &zErr) ){
        problem(p, GROUP_ROW, aKey, nKey, i, "row %s: it has no INDEX %s key: "
                "%s", zKey, pS->aIndex[i].zName, zErr);
        expectedNone(p, i, aKey, nKey);
      }
      sqlite3_free(zErr);
      continue;
    }
    expectedPut(p, i, pBuf, aKey, nKey, pRow, 1, 1 + pS->nCol);
  }
  sqlite3_free(zKey);
}

/* The rows in key order, with the older versions beside them. */
static void checkRows(Check *p, WcValue *aVal, WcBuf *pBuf){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(pTab));
  sqlite3_stmt *pRows, *pVer = 0;
  int bMore = 0, i;
  wcStoreAppendRowsSelect(pStr, wcTableStore(pTab), 0);
  sqlite3_str_appendall(pStr, " ORDER BY r.rowkey");
  pRows = prepare(p, pStr);
  if( p->rc == SQLITE_OK && pS->nVersions > 1 ){
    pStr = sqlite3_str_new(wcTableDb(pTab));
    sqlite3_str_appendall(pStr, "SELECT rowkey, rowtime");
    for(i = 0; i < pS->nCol; i++){
      sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
    }
    sqlite3_str_appendall(pStr, " FROM ");
    wcStoreAppendTable(pStr, wcTableStore(pTab), WC_TABLE_VERSIONS, -1);
    sqlite3_str_appendall(pStr, " ORDER BY rowkey, rowtime DESC");
    pVer = prepare(p, pStr);
    bMore = p->rc == SQLITE_OK && sqlite3_step(pVer) == SQLITE_ROW;
  }
  while( p->rc == SQLITE_OK && sqlite3_step(pRows) == SQLITE_ROW ){
    const unsigned char *aKey = sqlite3_column_blob(pRows, 0);
    int64_t nKey = sqlite3_column_bytes(pRows, 0);
    step(p);
    /* Versions of keys before this one have no row. */
    while( bMore && p->rc == SQLITE_OK
        && wcBytesCompare(sqlite3_column_blob(pVer, 0),
                      sqlite3_column_bytes(pVer, 0), aKey, nKey) < 0 ){
      checkVersionsOf(p, pVer, 0, aVal, pBuf, &bMore);
    }
    if( bMore && p->rc == SQLITE_OK
     && wcBytesCompare(sqlite3_column_blob(pVer, 0),
                       sqlite3_column_bytes(pVer, 0), aKey, nKey) == 0 ){
      checkVersionsOf(p, pVer, pRows, aVal, pBuf, &bMore);
    }
    if( p->rc == SQLITE_OK ) checkRow(p, pRows, aVal, pBuf);
  }
  if( p->rc == SQLITE_OK && pRows ){
    int rc = sqlite3_reset(pRows);
    if( rc != SQLITE_OK ) p->rc = rc;
  }
  while( bMore && p->rc == SQLITE_OK ){
    checkVersionsOf(p, pVer, 0, aVal, pBuf, &bMore);
  }
  if( p->rc == SQLITE_OK && pVer ){
    int rc = sqlite3_reset(pVer);
    if( rc != SQLITE_OK ) p->rc = rc;
  }
  sqlite3_finalize(pRows);
  sqlite3_finalize(pVer);
}

/*
** Each index's entries, merged with the keys the rows make.
*/

/* What the check's own database knows of the row of key aKey for index
** iIndex: 1 if it makes index key *pIKey (set), 2 if it makes none, 0 if
** there is no such row. */
static int expectedOf(Check *p, int iIndex, const unsigned char *aKey,
                      int64_t nKey, WcBuf *pIKey){
  char *zSql;
  sqlite3_stmt *pStmt = 0;
  int r = 0;
  zSql = sqlite3_mprintf("CREATE INDEX IF NOT EXISTS e%d_rowkey ON "
                         "e%d(rowkey)", iIndex, iIndex);
  if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  privExec(p, zSql);
  sqlite3_free(zSql);
  zSql = sqlite3_mprintf("SELECT ikey, 1 FROM e%d WHERE rowkey = ?1 UNION ALL "
                         "SELECT NULL, 2 FROM b%d WHERE rowkey = ?1",
                         iIndex, iIndex);
  if( p->rc == SQLITE_OK && zSql ){
    p->rc = sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0);
  }else if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
  }
  sqlite3_free(zSql);
  if( p->rc != SQLITE_OK ) return 0;
  sqlite3_bind_blob64(pStmt, 1, nKey ? aKey : (const void*)"",
                      (sqlite3_uint64)nKey, SQLITE_STATIC);
  if( sqlite3_step(pStmt) == SQLITE_ROW ){
    r = sqlite3_column_int(pStmt, 1);
    pIKey->n = 0;
    wcBufAppend(pIKey, sqlite3_column_blob(pStmt, 0),
                sqlite3_column_bytes(pStmt, 0));
    if( pIKey->bOom ) p->rc = SQLITE_NOMEM;
  }
  if( p->rc == SQLITE_OK ) p->rc = sqlite3_finalize(pStmt);
  else sqlite3_finalize(pStmt);
  return r;
}

/* An entry (ikey, rowkey, in pIdx) must be the entry of a row that makes
** that index key. */
static void checkEntryRow(Check *p, int iIndex, sqlite3_stmt *pIdx,
                          WcBuf *pBuf){
  const WcIndex *pI = &wcTableSchema(p->pTab)->aIndex[iIndex];
  const unsigned char *aIKey = sqlite3_column_blob(pIdx, 0);
  int64_t nIKey = sqlite3_column_bytes(pIdx, 0);
  const unsigned char *aKey = sqlite3_column_blob(pIdx, 1);
  int64_t nKey = sqlite3_column_bytes(pIdx, 1);
  int r = expectedOf(p, iIndex, aKey, nKey, pBuf);
  char *zIKey, *zKey;
  if( p->rc != SQLITE_OK ) return;
  if( r == 1 && wcBytesCompare(pBuf->a, pBuf->n, aIKey, nIKey) == 0 ) return;
  zIKey = keyText(aIKey, nIKey);
  zKey = keyText(aKey, nKey);
  if( r == 0 ){
    problem(p, GROUP_ENTRY, aIKey, nIKey, iIndex, "INDEX %s: entry %s is for "
            "row %s, which does not exist", pI->zName, zIKey, zKey);
  }else{
    problem(p, GROUP_ENTRY, aIKey, nIKey, iIndex, "INDEX %s: entry %s is not "
            "the index key of row %s", pI->zName, zIKey, zKey);
  }
  sqlite3_free(zIKey);
  sqlite3_free(zKey);
}

/* An entry found under the index key a row makes (in pExp): it points to
** that row and holds its values. */
static void checkEntryValues(Check *p, int iIndex, sqlite3_stmt *pIdx,
                             sqlite3_stmt *pExp, WcBuf *pBuf){
  const WcSchema *pS = wcTableSchema(p->pTab);
  const WcIndex *pI = &pS->aIndex[iIndex];
  const unsigned char *aKey = sqlite3_column_blob(pExp, 1);
  int64_t nKey = sqlite3_column_bytes(pExp, 1);
  char *zKey = keyText(aKey, nKey);
  int j, k = 2;
  if( wcBytesCompare(sqlite3_column_blob(pIdx, 1),
                     sqlite3_column_bytes(pIdx, 1), aKey, nKey) != 0 ){
    char *zTo = keyText(sqlite3_column_blob(pIdx, 1),
                        sqlite3_column_bytes(pIdx, 1));
    problem(p, GROUP_ROW, aKey, nKey, iIndex, "row %s: its INDEX %s entry "
            "points to row %s", zKey, pI->zName, zTo);
    sqlite3_free(zTo);
    checkEntryRow(p, iIndex, pIdx, pBuf);
  }
  for(j = 0; j < pS->nCol && p->rc == SQLITE_OK; j++){
    WcValue has, want;
    char *zHas, *zWant;
    if( !pI->abStored[j] ) continue;
    wcValueFrom(sqlite3_column_value(pIdx, k), &has);
    wcValueFrom(sqlite3_column_value(pExp, k), &want);
    k++;
    if( wcValueSame(&has, &want) ) continue;
    zHas = wcValueDescribe(&has, 1);
    zWant = wcValueDescribe(&want, 1);
    problem(p, GROUP_ROW, aKey, nKey, iIndex, "row %s: INDEX %s holds %s = %s, "
            "the row %s", zKey, pI->zName, pS->aCol[j].zName, zHas, zWant);
    sqlite3_free(zHas);
    sqlite3_free(zWant);
  }
  /* Under a TTL the entry is filtered by the row's rowtime (last in
  ** both). */
  if( pS->nTtl > 0 && sqlite3_column_int64(pIdx, k)
                      != sqlite3_column_int64(pExp, k) ){
    problem(p, GROUP_ROW, aKey, nKey, iIndex, "row %s: INDEX %s holds rowtime "
            "%lld, the row %lld", zKey, pI->zName,
            (long long)sqlite3_column_int64(pIdx, k),
            (long long)sqlite3_column_int64(pExp, k));
  }
  sqlite3_free(zKey);
}

/* Index iIndex: its table and the keys the rows make, both in index key
** order, side by side. */
static void checkIndex(Check *p, int iIndex, WcBuf *pBuf){
  const WcSchema *pS = wcTableSchema(p->pTab);
  const WcIndex *pI = &pS->aIndex[iIndex];
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(p->pTab));
  sqlite3_stmt *pIdx, *pExp = 0;
  int bIdx, bExp, i;
  sqlite3_str_appendall(pStr, "SELECT ikey, rowkey");
  for(i = 0; i < pS->nCol; i++){
    if( pI->abStored[i] ){
      sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
    }
  }
  if( pS->nTtl > 0 ) sqlite3_str_appendall(pStr, ", rowtime");
  sqlite3_str_appendall(pStr, " FROM ");
  wcStoreAppendTable(pStr, wcTableStore(p->pTab), -1, iIndex);
  sqlite3_str_appendall(pStr, " ORDER BY ikey");
  pIdx = prepare(p, pStr);
  if( p->rc == SQLITE_OK ){
    pStr = sqlite3_str_new(0);
    sqlite3_str_appendf(pStr, "SELECT * FROM e%d ORDER BY ikey", iIndex);
    pExp = prepareOn(p, p->pPriv, pStr);
  }
  bIdx = p->rc == SQLITE_OK && sqlite3_step(pIdx) == SQLITE_ROW;
  bExp = p->rc == SQLITE_OK && sqlite3_step(pExp) == SQLITE_ROW;
  while( p->rc == SQLITE_OK && (bIdx || bExp) ){
    int c = !bIdx ? 1 : !bExp ? -1
          : wcBytesCompare(sqlite3_column_blob(pIdx, 0),
                       sqlite3_column_bytes(pIdx, 0),
                       sqlite3_column_blob(pExp, 0),
                       sqlite3_column_bytes(pExp, 0));
    if( c < 0 ){
      checkEntryRow(p, iIndex, pIdx, pBuf);
    }else if( c > 0 ){
      char *zKey = keyText(sqlite3_column_blob(pExp, 1),
                           sqlite3_column_bytes(pExp, 1));
      problem(p, GROUP_ROW, sqlite3_column_blob(pExp, 1),
              sqlite3_column_bytes(pExp, 1), iIndex, "row %s: INDEX %s has "
              "no entry for it", zKey, pI->zName);
      sqlite3_free(zKey);
    }else{
      checkEntryValues(p, iIndex, pIdx, pExp, pBuf);
    }
    if( c <= 0 ){
      step(p);
      bIdx = sqlite3_step(pIdx) == SQLITE_ROW;
    }
    if( c >= 0 ) bExp = sqlite3_step(pExp) == SQLITE_ROW;
  }
  if( p->rc == SQLITE_OK ){
    int rc = sqlite3_reset(pIdx);
    if( rc != SQLITE_OK ) p->rc = rc;
  }
  sqlite3_finalize(pIdx);
  sqlite3_finalize(pExp);
}

/* Family rows need a row, and a value. */
static void checkFamily(Check *p, int iFamily){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  const WcFamily *pFam = &pS->aFamily[iFamily];
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(pTab));
  sqlite3_stmt *pStmt;
  int i;
  sqlite3_str_appendall(pStr, "SELECT f.rowkey, NOT EXISTS(SELECT 1 FROM ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), -1, -1);
  sqlite3_str_appendall(pStr, " AS r WHERE r.rowkey = f.rowkey), ");
  for(i = 0; i < pFam->nCol; i++){
    sqlite3_str_appendf(pStr, "%sf.\"%w\" IS NULL", i ? " AND " : "",
                        pS->aCol[pFam->aiCol[i]].zName);
  }
  sqlite3_str_appendall(pStr, " FROM ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), iFamily, -1);
  sqlite3_str_appendall(pStr, " AS f");
  pStmt = prepare(p, pStr);
  while( p->rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    const unsigned char *aKey = sqlite3_column_blob(pStmt, 0);
    int64_t nKey = sqlite3_column_bytes(pStmt, 0);
    char *zKey = keyText(aKey, nKey);
    if( sqlite3_column_int(pStmt, 1) ){
      problem(p, GROUP_FAMILY, aKey, nKey, iFamily, "FAMILY %s: a row for key "
              "%s, which is not in %s_rows", pFam->zName, zKey,
              wcTableName(pTab));
    }else if( sqlite3_column_int(pStmt, 2) ){
      problem(p, GROUP_FAMILY, aKey, nKey, iFamily, "FAMILY %s: the row for "
              "key %s holds no value (an empty family has no row)",
              pFam->zName, zKey);
    }
    sqlite3_free(zKey);
  }
  sqlite3_finalize(pStmt);
}

/* Examples of keys that do not decode an EXISTING table's check lists,
** before the count of them all. */
#define WC_CHECK_UNDECODABLE 20

/* An EXISTING table (made by another application): every key must be a
** key of the design, whose fields widecol reads from it; a read skips
** one that is not (widecol_stats counts them), the check lists them. */
static void checkExistingKeys(Check *p){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(pTab));
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * (sqlite3_uint64)pS->nCol);
  WcBuf buf;
  sqlite3_stmt *pRows;
  int64_t nRow = 0, nBad = 0;
  memset(&buf, 0, sizeof(buf));
  if( aVal == 0 ){
    sqlite3_free(sqlite3_str_finish(pStr));
    p->rc = SQLITE_NOMEM;
    return;
  }
  sqlite3_str_appendall(pStr, "SELECT rowkey FROM ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), -1, -1);
  sqlite3_str_appendall(pStr, " ORDER BY rowkey");
  pRows = prepare(p, pStr);
  while( p->rc == SQLITE_OK && sqlite3_step(pRows) == SQLITE_ROW ){
    const unsigned char *aKey = sqlite3_column_blob(pRows, 0);
    int64_t nKey = sqlite3_column_bytes(pRows, 0);
    char *zWhy = 0;
    int rc;
    step(p);
    nRow++;
    rc = wcDecodeKey(pS, wcTableHasher(pTab), aKey ? aKey
                     : (const unsigned char*)"", nKey, aVal, &buf, &zWhy);
    if( rc == WC_NOFIT ){
      if( ++nBad <= WC_CHECK_UNDECODABLE ){
        char *zKey = keyText(aKey, nKey);
        problem(p, GROUP_ROW, aKey, nKey, -1, "row %s: its key is no key of "
                "the design: %s", zKey, zWhy ? zWhy : "?");
        sqlite3_free(zKey);
      }
    }else if( encodeFailed(p, rc, &zWhy) ){
      /* the check stops */
    }
    sqlite3_free(zWhy);
  }
  if( p->rc == SQLITE_OK && pRows ){
    int rc = sqlite3_reset(pRows);
    if( rc != SQLITE_OK ) p->rc = rc;
  }
  sqlite3_finalize(pRows);
  if( p->rc == SQLITE_OK && nBad > 0 ){
    /* After every listed row (the last key, a group of its own). */
    problem(p, GROUP_FIELDS, (const unsigned char*)"\xff\xff\xff\xff", 4, -1,
            "%lld of the %lld rows %s no key of the design (reads skip "
            "%s; %s): is the design the one the application writes its keys "
            "with?", (long long)nBad, (long long)nRow,
            nBad == 1 ? "has a key that is" : "have keys that are",
            nBad == 1 ? "it" : "them",
            nBad <= WC_CHECK_UNDECODABLE ? "listed above"
                                         : "the first 20 are listed above");
  }
  sqlite3_free(aVal);
  wcBufFree(&buf);
}

static void checkTable(Check *p){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  const WcStore *pStore = wcTableStore(pTab);
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * (sqlite3_uint64)pS->nCol);
  WcBuf buf;
  int64_t nRow = -1;
  int i, nFamilyTable;
  memset(&buf, 0, sizeof(buf));
  if( aVal == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  /* Where the store estimates its rows in a call, the progress lines say
  ** how far the check is. */
  if( wcStoreCaps(pStore)->bRowEstimates
   && wcStoreRowCount((WcStore*)pStore, &nRow) != SQLITE_OK ){
    nRow = -1;
  }
  wcProgressBegin(&p->progress, "rows and entries read",
                  nRow >= 0 ? nRow * (1 + pS->nIndex) : -1,
                  "widecol_check(%s)", wcTableName(pTab));
  if( pS->bExisting ){
    checkExistingKeys(p);
    wcProgressEnd(&p->progress);
    sqlite3_free(aVal);
    return;
  }
  if( pS->nIndex > 0 ) expectedOpen(p);
  if( p->rc == SQLITE_OK ) checkRows(p, aVal, &buf);
  for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
    checkIndex(p, i, &buf);
  }
  /* Where families live in the row there are no family tables. */
  nFamilyTable = wcStoreCaps(pStore)->bRowFamilies ? 0 : pS->nFamily;
  for(i = 0; i < nFamilyTable && p->rc == SQLITE_OK; i++){
    checkFamily(p, i);
  }
  if( pS->nIndex > 0 ) expectedClose(p);
  wcProgressEnd(&p->progress);
  sqlite3_free(aVal);
  wcBufFree(&buf);
}

/* widecol_check(tbl): 'ok', or one row per problem. */
static int checkFill(sqlite3 *db, sqlite3_value **apArg, WcTvfRows *pRows,
                     char **pzErr){
  const char *zName = (const char*)sqlite3_value_text(apArg[0]);
  Check check;
  int i, rc;
  memset(&check, 0, sizeof(check));
  if( zName == 0 ){
    *pzErr = sqlite3_mprintf("widecol_check: the table name is NULL");
    return SQLITE_ERROR;
  }
  rc = wcTableLookup(db, zName, "widecol_check", &check.pTab, pzErr);
  if( rc != SQLITE_OK ) return rc;
  checkTable(&check);
  if( check.rc != SQLITE_OK ){
    *pzErr = check.rc == SQLITE_NOMEM ? 0
           : sqlite3_mprintf("widecol_check(%Q): %s", zName,
                             check.zErr ? check.zErr : sqlite3_errmsg(db));
    rc = check.rc;
  }else if( check.nProblem == 0 ){
    rc = wcTvfAddRow(pRows, "t", "ok");
  }
  if( check.nProblem > 1 ){
    qsort(check.aProblem, (size_t)check.nProblem, sizeof(Problem),
          problemCompare);
  }
  for(i = 0; i < check.nProblem; i++){
    if( rc == SQLITE_OK ) rc = wcTvfAddRow(pRows, "t", check.aProblem[i].zText);
    sqlite3_free(check.aProblem[i].zText);
    sqlite3_free(check.aProblem[i].aKey);
  }
  sqlite3_free(check.aProblem);
  sqlite3_free(check.zErr);
  return rc;
}

const WcTvfDef wcCheckDef = {
  "widecol_check", "problem TEXT", "tbl", 1,
  "name the table, as in SELECT * FROM widecol_check('orders') or "
  "widecol_check('aux.orders')", checkFill
};
