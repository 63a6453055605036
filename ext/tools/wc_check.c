/*
** wc_check.c: SELECT * FROM widecol_check('<table>'), like PRAGMA
** integrity_check for the tables behind a widecol table.
**
** It returns one row, 'ok', or one row per problem found (at most
** WC_CHECK_MAX): a row key that is not the key its fields make (and
** RANDOM's number, on a design that has one), an index
** entry missing, pointing nowhere, under the wrong key or holding other
** values than the row, a family row without a row or with no value, and
** on a versioned table an older version without a row, not older than
** the row's latest, past VERSIONS, or whose fields make another key.
** Writes through widecol keep all of this true; the check finds what
** writing to the tables directly, or a bug, broke.
*/
#include "vtab/wc_table.h"
#include "tools/wc_tvf.h"

#include <stdarg.h>
#include <string.h>

#define WC_CHECK_MAX 100

typedef struct Check Check;
struct Check {
  WcVtab *pTab;
  char **azProblem;
  int nProblem;
  int nAlloc;
  int rc;
  char *zErr;           /* Why the check itself failed, if not SQLite */
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

/* Adds a problem; the check stops adding after WC_CHECK_MAX. */
static void problem(Check *p, const char *zFormat, ...){
  va_list ap;
  char *z;
  if( p->rc != SQLITE_OK || p->nProblem >= WC_CHECK_MAX ) return;
  va_start(ap, zFormat);
  z = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( z && p->nProblem == p->nAlloc ){
    int nNew = p->nAlloc ? 2 * p->nAlloc : 8;
    char **azNew = sqlite3_realloc64(p->azProblem,
                                     sizeof(char*) * (sqlite3_uint64)nNew);
    if( azNew == 0 ){
      sqlite3_free(z);
      z = 0;
    }else{
      p->azProblem = azNew;
      p->nAlloc = nNew;
    }
  }
  if( z == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  p->azProblem[p->nProblem++] = z;
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

static sqlite3_stmt *prepare(Check *p, sqlite3_str *pStr){
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  p->rc = sqlite3_prepare_v2(wcTableDb(p->pTab), zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  return pStmt;
}

/* SELECT rowkey, every column FROM the row table with its families. */
static sqlite3_stmt *prepareRows(Check *p, int bOne){
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(p->pTab));
  wcStoreAppendRowsSelect(pStr, wcTableStore(p->pTab), 0);
  sqlite3_str_appendall(pStr, bOne ? " WHERE r.rowkey = ?1" : "");
  return prepare(p, pStr);
}

/* SELECT ikey, rowkey, the columns it holds (and under a TTL rowtime)
** FROM index iIndex's table. */
static sqlite3_stmt *prepareIndex(Check *p, int iIndex, int bOne){
  const WcSchema *pS = wcTableSchema(p->pTab);
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(p->pTab));
  int i;
  sqlite3_str_appendall(pStr, "SELECT ikey, rowkey");
  for(i = 0; i < pS->nCol; i++){
    if( pS->aIndex[iIndex].abStored[i] ){
      sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
    }
  }
  if( pS->nTtl > 0 ) sqlite3_str_appendall(pStr, ", rowtime");
  sqlite3_str_appendall(pStr, " FROM ");
  wcStoreAppendTable(pStr, wcTableStore(p->pTab), -1, iIndex);
  sqlite3_str_appendall(pStr, bOne ? " WHERE ikey = ?1" : "");
  return prepare(p, pStr);
}

static void valuesOf(sqlite3_stmt *pStmt, int iFirst, int nCol,
                     WcValue *aVal){
  int i;
  for(i = 0; i < nCol; i++){
    wcValueFrom(sqlite3_column_value(pStmt, iFirst + i), &aVal[i]);
  }
}

/* Checks one row (its key and values in pRow, from prepareRows()) against
** its key and its entry in each index (apEntry, prepareIndex(bOne)). */
static void checkRow(Check *p, sqlite3_stmt *pRow, sqlite3_stmt **apEntry,
                     WcValue *aVal, WcBuf *pBuf){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  const unsigned char *aKey = sqlite3_column_blob(pRow, 0);
  int64_t nKey = sqlite3_column_bytes(pRow, 0);
  char *zKey = keyText(aKey, nKey), *zErr = 0;
  int i, j, rc;
  valuesOf(pRow, 1, pS->nCol, aVal);
  rc = wcEncodeKey(pS, wcTableHasher(pTab), aVal, pBuf, &zErr);
  if( encodeFailed(p, rc, &zErr) ){
    /* the check stops */
  }else if( rc != WC_OK ){
    problem(p, "row %s: its fields make no row key: %s", zKey, zErr);
  }else if( !wcKeyIsMade(pS, pBuf, aKey, nKey) ){
    char *zWant = keyText(pBuf->a, pBuf->n);
    problem(p, "row %s: its fields make the row key %s%s", zKey, zWant,
            pS->nRandom ? " followed by RANDOM's number" : "");
    sqlite3_free(zWant);
  }
  sqlite3_free(zErr);
  for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
    const WcIndex *pIdx = &pS->aIndex[i];
    sqlite3_stmt *pEntry = apEntry[i];
    zErr = 0;
    rc = wcIndexKey(pTab, i, aVal, aKey, nKey, pBuf, &zErr);
    if( rc != WC_OK ){
      if( !encodeFailed(p, rc, &zErr) ){
        problem(p, "row %s: it has no INDEX %s key: %s", zKey, pIdx->zName,
                zErr);
      }
      sqlite3_free(zErr);
      continue;
    }
    sqlite3_reset(pEntry);
    sqlite3_bind_blob64(pEntry, 1, pBuf->n ? pBuf->a : (const void*)"",
                        (sqlite3_uint64)pBuf->n, SQLITE_STATIC);
    if( sqlite3_step(pEntry) != SQLITE_ROW ){
      problem(p, "row %s: INDEX %s has no entry for it", zKey, pIdx->zName);
      continue;
    }
    if( sqlite3_column_bytes(pEntry, 1) != nKey
     || (nKey && memcmp(sqlite3_column_blob(pEntry, 1), aKey, (size_t)nKey)) ){
      char *zTo = keyText(sqlite3_column_blob(pEntry, 1),
                          sqlite3_column_bytes(pEntry, 1));
      problem(p, "row %s: its INDEX %s entry points to row %s", zKey,
              pIdx->zName, zTo);
      sqlite3_free(zTo);
    }
    for(j = 0, rc = 2; j < pS->nCol; j++){
      WcValue v;
      char *zHas, *zWant;
      if( !pIdx->abStored[j] ) continue;
      wcValueFrom(sqlite3_column_value(pEntry, rc++), &v);
      if( wcValueSame(&v, &aVal[j]) ) continue;
      zHas = wcValueDescribe(&v, 1);
      zWant = wcValueDescribe(&aVal[j], 1);
      problem(p, "row %s: INDEX %s holds %s = %s, the row %s", zKey,
              pIdx->zName, pS->aCol[j].zName, zHas, zWant);
      sqlite3_free(zHas);
      sqlite3_free(zWant);
    }
    /* Under a TTL the entry is filtered by the row's rowtime (last in
    ** both). */
    if( pS->nTtl > 0 && sqlite3_column_int64(pEntry, rc)
                        != sqlite3_column_int64(pRow, 1 + pS->nCol) ){
      problem(p, "row %s: INDEX %s holds rowtime %lld, the row %lld", zKey,
              pIdx->zName, sqlite3_column_int64(pEntry, rc),
              sqlite3_column_int64(pRow, 1 + pS->nCol));
    }
  }
  sqlite3_free(zKey);
}

/* Every entry of index iIndex must be the entry of an existing row. */
static void checkEntries(Check *p, int iIndex, sqlite3_stmt *pOne,
                         WcValue *aVal, WcBuf *pBuf){
  WcVtab *pTab = p->pTab;
  const WcIndex *pIdx = &wcTableSchema(pTab)->aIndex[iIndex];
  sqlite3_stmt *pAll = prepareIndex(p, iIndex, 0);
  while( p->rc == SQLITE_OK && sqlite3_step(pAll) == SQLITE_ROW ){
    const unsigned char *aIKey = sqlite3_column_blob(pAll, 0);
    int64_t nIKey = sqlite3_column_bytes(pAll, 0);
    const unsigned char *aKey = sqlite3_column_blob(pAll, 1);
    int64_t nKey = sqlite3_column_bytes(pAll, 1);
    char *zIKey = keyText(aIKey, nIKey), *zKey = keyText(aKey, nKey);
    sqlite3_reset(pOne);
    sqlite3_bind_blob64(pOne, 1, nKey ? aKey : (const void*)"",
                        (sqlite3_uint64)nKey, SQLITE_STATIC);
    if( sqlite3_step(pOne) != SQLITE_ROW ){
      problem(p, "INDEX %s: entry %s is for row %s, which does not exist",
              pIdx->zName, zIKey, zKey);
    }else{
      char *zErr = 0;
      int rc;
      valuesOf(pOne, 1, wcTableSchema(pTab)->nCol, aVal);
      rc = wcIndexKey(pTab, iIndex, aVal, aKey, nKey, pBuf, &zErr);
      if( encodeFailed(p, rc, &zErr) ){
        /* the check stops */
      }else if( rc != WC_OK || pBuf->n != nIKey
             || (nIKey && memcmp(pBuf->a, aIKey, (size_t)nIKey)) ){
        problem(p, "INDEX %s: entry %s is not the index key of row %s",
                pIdx->zName, zIKey, zKey);
      }
      sqlite3_free(zErr);
    }
    sqlite3_free(zIKey);
    sqlite3_free(zKey);
  }
  sqlite3_finalize(pAll);
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
    char *zKey = keyText(sqlite3_column_blob(pStmt, 0),
                         sqlite3_column_bytes(pStmt, 0));
    if( sqlite3_column_int(pStmt, 1) ){
      problem(p, "FAMILY %s: a row for key %s, which is not in %s_rows",
              pFam->zName, zKey, wcTableName(pTab));
    }else if( sqlite3_column_int(pStmt, 2) ){
      problem(p, "FAMILY %s: the row for key %s holds no value (an empty "
              "family has no row)", pFam->zName, zKey);
    }
    sqlite3_free(zKey);
  }
  sqlite3_finalize(pStmt);
}

/* Older versions (<name>_versions) belong to a row, are older than its
** latest, number at most VERSIONS - 1 and make their row's key. */
static void checkVersions(Check *p, WcValue *aVal, WcBuf *pBuf){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  sqlite3_str *pStr = sqlite3_str_new(wcTableDb(pTab));
  sqlite3_stmt *pStmt;
  int i;
  sqlite3_str_appendall(pStr, "SELECT v.rowkey, count(*), max(v.rowtime), "
                              "r.rowkey IS NULL, r.rowtime FROM ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), WC_TABLE_VERSIONS, -1);
  sqlite3_str_appendall(pStr, " AS v LEFT JOIN ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), -1, -1);
  sqlite3_str_appendall(pStr, " AS r ON r.rowkey = v.rowkey GROUP BY v.rowkey");
  pStmt = prepare(p, pStr);
  while( p->rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    char *zKey = keyText(sqlite3_column_blob(pStmt, 0),
                         sqlite3_column_bytes(pStmt, 0));
    int64_t nOld = sqlite3_column_int64(pStmt, 1);
    if( sqlite3_column_int(pStmt, 3) ){
      problem(p, "VERSIONS: %lld older version(s) of key %s, which is not in "
              "%s_rows", nOld, zKey, wcTableName(pTab));
    }else if( sqlite3_column_int64(pStmt, 2)
              >= sqlite3_column_int64(pStmt, 4) ){
      problem(p, "row %s: an older version is stamped %lld, not before its "
              "latest (%lld)", zKey, sqlite3_column_int64(pStmt, 2),
              sqlite3_column_int64(pStmt, 4));
    }
    if( nOld > pS->nVersions - 1 ){
      problem(p, "row %s: %lld older versions, more than the %d that VERSIONS "
              "%d keeps besides the latest", zKey, nOld, pS->nVersions - 1,
              pS->nVersions);
    }
    sqlite3_free(zKey);
  }
  sqlite3_finalize(pStmt);
  if( p->rc != SQLITE_OK ) return;
  pStr = sqlite3_str_new(wcTableDb(pTab));
  sqlite3_str_appendall(pStr, "SELECT rowkey, rowtime");
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
  }
  sqlite3_str_appendall(pStr, " FROM ");
  wcStoreAppendTable(pStr, wcTableStore(pTab), WC_TABLE_VERSIONS, -1);
  pStmt = prepare(p, pStr);
  while( p->rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    const unsigned char *aKey = sqlite3_column_blob(pStmt, 0);
    int64_t nKey = sqlite3_column_bytes(pStmt, 0);
    char *zErr = 0;
    int rc;
    valuesOf(pStmt, 2, pS->nCol, aVal);
    rc = wcEncodeKey(pS, wcTableHasher(pTab), aVal, pBuf, &zErr);
    if( !encodeFailed(p, rc, &zErr)
     && (rc != WC_OK || !wcKeyIsMade(pS, pBuf, aKey, nKey)) ){
      char *zKey = keyText(aKey, nKey);
      problem(p, "row %s: its version stamped %lld has fields that make "
              "another row key", zKey, sqlite3_column_int64(pStmt, 1));
      sqlite3_free(zKey);
    }
    sqlite3_free(zErr);
  }
  sqlite3_finalize(pStmt);
}

static void checkTable(Check *p){
  WcVtab *pTab = p->pTab;
  const WcSchema *pS = wcTableSchema(pTab);
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * (sqlite3_uint64)pS->nCol);
  sqlite3_stmt **apEntry = sqlite3_malloc64(sizeof(sqlite3_stmt*)
                                            * (sqlite3_uint64)(pS->nIndex + 1));
  sqlite3_stmt *pRows = 0, *pOne = 0;
  WcBuf buf;
  int i, nFamilyTable;
  memset(&buf, 0, sizeof(buf));
  if( aVal == 0 || apEntry == 0 ){
    p->rc = SQLITE_NOMEM;
  }else{
    memset(apEntry, 0, sizeof(sqlite3_stmt*) * (size_t)(pS->nIndex + 1));
    for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
      apEntry[i] = prepareIndex(p, i, 1);
    }
    if( p->rc == SQLITE_OK ) pRows = prepareRows(p, 0);
    while( p->rc == SQLITE_OK && sqlite3_step(pRows) == SQLITE_ROW ){
      checkRow(p, pRows, apEntry, aVal, &buf);
    }
    if( p->rc == SQLITE_OK && pS->nIndex > 0 ) pOne = prepareRows(p, 1);
    for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
      checkEntries(p, i, pOne, aVal, &buf);
    }
    /* Where families live in the row there are no family tables. */
    nFamilyTable = wcStoreCaps(wcTableStore(pTab))->bRowFamilies ? 0
                                                                 : pS->nFamily;
    for(i = 0; i < nFamilyTable && p->rc == SQLITE_OK; i++){
      checkFamily(p, i);
    }
    if( p->rc == SQLITE_OK && pS->nVersions > 1 ){
      checkVersions(p, aVal, &buf);
    }
    for(i = 0; i < pS->nIndex; i++) sqlite3_finalize(apEntry[i]);
  }
  sqlite3_finalize(pRows);
  sqlite3_finalize(pOne);
  sqlite3_free(aVal);
  sqlite3_free(apEntry);
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
  for(i = 0; i < check.nProblem; i++){
    if( rc == SQLITE_OK ) rc = wcTvfAddRow(pRows, "t", check.azProblem[i]);
    sqlite3_free(check.azProblem[i]);
  }
  sqlite3_free(check.azProblem);
  sqlite3_free(check.zErr);
  return rc;
}

const WcTvfDef wcCheckDef = {
  "widecol_check", "problem TEXT", "tbl", 1,
  "name the table, as in SELECT * FROM widecol_check('orders') or "
  "widecol_check('aux.orders')", checkFill
};
