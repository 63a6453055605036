/*
** wc_store.c: the row table "<name>_rows" behind a widecol table.
**
** It is an ordinary WITHOUT ROWID table keyed by the encoded row key
** (rowkey BLOB PRIMARY KEY) holding every declared column, so its byte
** order is the key order an HBase region would have.  This file creates,
** checks, renames and drops it, and keeps its prepared statements: each
** kind is prepared once and reused, with a pool so that several cursors on
** one table (a self-join) each have their own.
*/
#include "wc_vtab.h"
#include "rk_bytes.h"

#include <string.h>

/* The quoted column list "c1", "c2", ... with a prefix per column. */
static void appendColumns(sqlite3_str *pStr, const WcSchema *pS,
                          const char *zBefore, const char *zAfter){
  int i;
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendf(pStr, "%s\"%w\"%s", zBefore, pS->aCol[i].zName,
                        zAfter);
  }
}

static char *tableSql(WcVtab *p, const char *zFormat){
  return sqlite3_mprintf(zFormat, p->zDb, p->zName);
}

int wcStoreCreate(WcVtab *p){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  const WcSchema *pS = p->pSchema;
  char *zSql;
  int i, rc;
  sqlite3_str_appendf(pStr, "CREATE TABLE \"%w\".\"%w_rows\"(rowkey BLOB "
                      "PRIMARY KEY", p->zDb, p->zName);
  for(i = 0; i < pS->nCol; i++){
    const WcColumn *pCol = &pS->aCol[i];
    sqlite3_str_appendf(pStr, ", \"%w\"", pCol->zName);
    if( pCol->zType[0] ) sqlite3_str_appendf(pStr, " %s", pCol->zType);
    if( pCol->zColl ) sqlite3_str_appendf(pStr, " COLLATE \"%w\"", pCol->zColl);
  }
  sqlite3_str_appendall(pStr, ") WITHOUT ROWID");
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

/* On reopening a database, the row table must still be there with every
** column, or nothing would make sense. */
int wcStoreCheck(WcVtab *p){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  sqlite3_str_appendall(pStr, "SELECT rowkey");
  appendColumns(pStr, p->pSchema, ", ", "");
  sqlite3_str_appendf(pStr, " FROM \"%w\".\"%w_rows\"", p->zDb, p->zName);
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  sqlite3_finalize(pStmt);
  if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = sqlite3_mprintf("widecol %s: its row table %s_rows is "
                                      "missing or lacks a column (%s)",
                                      p->zName, p->zName,
                                      sqlite3_errmsg(p->db));
  }
  return rc;
}

int wcStoreDrop(WcVtab *p){
  char *zSql = tableSql(p, "DROP TABLE IF EXISTS \"%w\".\"%w_rows\"");
  int rc;
  if( zSql == 0 ) return SQLITE_NOMEM;
  wcStoreClose(p);
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

int wcStoreRename(WcVtab *p, const char *zNew){
  char *zSql = sqlite3_mprintf("ALTER TABLE \"%w\".\"%w_rows\" RENAME TO "
                               "\"%w_rows\"", p->zDb, p->zName, zNew);
  char *zName = sqlite3_mprintf("%s", zNew);
  int rc;
  if( zSql == 0 || zName == 0 ){
    sqlite3_free(zSql);
    sqlite3_free(zName);
    return SQLITE_NOMEM;
  }
  wcStoreClose(p);
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if( rc == SQLITE_OK ){
    sqlite3_free(p->zName);
    p->zName = zName;
    sqlite3_free(p->pSchema->zTable);
    p->pSchema->zTable = sqlite3_mprintf("%s", zNew);
    if( p->pSchema->zTable == 0 ) rc = SQLITE_NOMEM;
  }else{
    sqlite3_free(zName);
  }
  return rc;
}

static int columnUsed(uint64_t colUsed, int iCol){
  return ((colUsed >> (iCol < 63 ? iCol : 63)) & 1) != 0;
}

/* Where each column (and rowkey, column nCol) is in the result of a scan
** selecting colUsed: its index, or -1.  Returns the number selected. */
int wcStoreScanColumns(const WcSchema *pS, uint64_t colUsed, int *aiStmtCol){
  int i, n = 0;
  for(i = 0; i <= pS->nCol; i++){
    aiStmtCol[i] = columnUsed(colUsed, i) ? n++ : -1;
  }
  return n;
}

static char *statementSql(WcVtab *p, int eStmt, uint64_t colUsed){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  const WcSchema *pS = p->pSchema;
  int i;
  switch( eStmt ){
    case WC_STMT_INSERT:
    case WC_STMT_REPLACE:
      sqlite3_str_appendf(pStr, "INSERT %sINTO \"%w\".\"%w_rows\"(rowkey",
                          eStmt == WC_STMT_REPLACE ? "OR REPLACE " : "",
                          p->zDb, p->zName);
      appendColumns(pStr, pS, ", ", "");
      sqlite3_str_appendall(pStr, ") VALUES(?");
      for(i = 0; i < pS->nCol; i++) sqlite3_str_appendall(pStr, ", ?");
      sqlite3_str_appendall(pStr, ")");
      break;
    case WC_STMT_DELETE:
      sqlite3_str_appendf(pStr, "DELETE FROM \"%w\".\"%w_rows\" WHERE "
                          "rowkey = ?1", p->zDb, p->zName);
      break;
    case WC_STMT_UPDATE:
      sqlite3_str_appendf(pStr, "UPDATE \"%w\".\"%w_rows\" SET", p->zDb,
                          p->zName);
      for(i = 0; i < pS->nCol; i++){
        sqlite3_str_appendf(pStr, "%s \"%w\" = ?%d", i ? "," : "",
                            pS->aCol[i].zName, i + 2);
      }
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1");
      break;
    default: {
      /* Only the columns the query reads: the rest need not be decoded
      ** from the row on each step. */
      int bHi = (eStmt - WC_STMT_SCAN) & 1;
      int bDesc = (eStmt - WC_STMT_SCAN) & 2;
      int nSel = 0;
      sqlite3_str_appendall(pStr, "SELECT ");
      for(i = 0; i <= pS->nCol; i++){
        if( !columnUsed(colUsed, i) ) continue;
        if( i == pS->nCol ){
          sqlite3_str_appendf(pStr, "%srowkey", nSel++ ? ", " : "");
        }else{
          sqlite3_str_appendf(pStr, "%s\"%w\"", nSel++ ? ", " : "",
                              pS->aCol[i].zName);
        }
      }
      if( nSel == 0 ) sqlite3_str_appendall(pStr, "NULL");
      sqlite3_str_appendf(pStr, " FROM \"%w\".\"%w_rows\" WHERE rowkey >= ?1"
                          "%s ORDER BY rowkey%s", p->zDb, p->zName,
                          bHi ? " AND rowkey < ?2" : "",
                          bDesc ? " DESC" : "");
      break;
    }
  }
  return sqlite3_str_finish(pStr);
}

static WcStmtPool *findPool(WcVtab *p, int eStmt, uint64_t colUsed){
  WcStmtPool *pPool;
  if( eStmt < WC_STMT_SCAN ) colUsed = 0;
  for(pPool = p->pPool; pPool; pPool = pPool->pNext){
    if( pPool->eStmt == eStmt && pPool->colUsed == colUsed ) return pPool;
  }
  return 0;
}

int wcStoreAcquire(WcVtab *p, int eStmt, uint64_t colUsed,
                   sqlite3_stmt **ppStmt){
  WcStmtPool *pPool = findPool(p, eStmt, colUsed);
  char *zSql;
  int rc;
  if( pPool && pPool->n > 0 ){
    *ppStmt = pPool->ap[--pPool->n];
    return SQLITE_OK;
  }
  zSql = statementSql(p, eStmt, colUsed);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, ppStmt,
                          0);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = sqlite3_mprintf("widecol %s: %s", p->zName,
                                      sqlite3_errmsg(p->db));
  }
  return rc;
}

void wcStoreRelease(WcVtab *p, int eStmt, uint64_t colUsed,
                    sqlite3_stmt *pStmt){
  WcStmtPool *pPool;
  if( pStmt == 0 ) return;
  sqlite3_reset(pStmt);
  pPool = findPool(p, eStmt, colUsed);
  if( pPool == 0 ){
    pPool = sqlite3_malloc(sizeof(*pPool));
    if( pPool == 0 ){
      sqlite3_finalize(pStmt);
      return;
    }
    memset(pPool, 0, sizeof(*pPool));
    pPool->eStmt = eStmt;
    pPool->colUsed = eStmt < WC_STMT_SCAN ? 0 : colUsed;
    pPool->pNext = p->pPool;
    p->pPool = pPool;
  }
  if( pPool->n == pPool->nAlloc ){
    int nNew = pPool->nAlloc ? pPool->nAlloc * 2 : 2;
    sqlite3_stmt **apNew = sqlite3_realloc64(pPool->ap,
                               sizeof(sqlite3_stmt*) * (sqlite3_uint64)nNew);
    if( apNew == 0 ){
      sqlite3_finalize(pStmt);
      return;
    }
    pPool->ap = apNew;
    pPool->nAlloc = nNew;
  }
  pPool->ap[pPool->n++] = pStmt;
}

void wcStoreClose(WcVtab *p){
  while( p->pPool ){
    WcStmtPool *pPool = p->pPool;
    int i;
    p->pPool = pPool->pNext;
    for(i = 0; i < pPool->n; i++) sqlite3_finalize(pPool->ap[i]);
    sqlite3_free(pPool->ap);
    sqlite3_free(pPool);
  }
}

/* The row count from ANALYZE's sqlite_stat1 if it has one, else counted. */
int64_t wcStoreRowCount(WcVtab *p){
  sqlite3_stmt *pStmt = 0;
  int64_t nRow = -1;
  char *zSql = sqlite3_mprintf("SELECT CAST(stat AS INTEGER) FROM "
                               "\"%w\".sqlite_stat1 WHERE tbl = '%q_rows' "
                               "LIMIT 1", p->zDb, p->zName);
  if( zSql && sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) == SQLITE_OK
   && sqlite3_step(pStmt) == SQLITE_ROW ){
    nRow = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if( nRow < 0 ){
    pStmt = 0;
    zSql = tableSql(p, "SELECT count(*) FROM \"%w\".\"%w_rows\"");
    if( zSql && sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) == SQLITE_OK
     && sqlite3_step(pStmt) == SQLITE_ROW ){
      nRow = sqlite3_column_int64(pStmt, 0);
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  return nRow < 0 ? 0 : nRow;
}

/* How many distinct prefixes the first nElem elements take in the data,
** counted by seeking from one to the next, up to nMax + 1.  For planning
** skip scans over fields, whose number of values nothing else tells. */
int64_t wcStorePrefixCount(WcVtab *p, int nElem, int64_t nMax){
  const WcSchema *pS = p->pSchema;
  uint64_t keyOnly = (uint64_t)1 << (pS->nCol < 63 ? pS->nCol : 63);
  sqlite3_stmt *pStmt = 0;
  WcBuf next;
  int64_t nFound = 0;
  memset(&next, 0, sizeof(next));
  if( wcStoreAcquire(p, WC_STMT_SCAN, keyOnly, &pStmt) != SQLITE_OK ){
    return nMax + 1;
  }
  while( nFound <= nMax ){
    const unsigned char *aKey;
    int64_t nKey, nPrefix = 0, n;
    int i;
    sqlite3_reset(pStmt);
    sqlite3_bind_blob(pStmt, 1, next.n ? next.a : (const unsigned char*)"",
                      (int)next.n, SQLITE_STATIC);
    if( sqlite3_step(pStmt) != SQLITE_ROW ) break;
    aKey = sqlite3_column_blob(pStmt, 0);
    nKey = sqlite3_column_bytes(pStmt, 0);
    for(i = 0; i < nElem && nPrefix >= 0; i++){
      n = wcElementSpan(pS, i, aKey + nPrefix, nKey - nPrefix);
      nPrefix = n < 0 ? -1 : nPrefix + n;
    }
    nFound++;
    if( nPrefix <= 0 || wcBufReserve(&next, nPrefix) ) break;
    n = rkPrefixEnd(aKey, nPrefix, next.a);
    if( n < 0 ) break;
    next.n = n;
  }
  wcStoreRelease(p, WC_STMT_SCAN, keyOnly, pStmt);
  wcBufFree(&next);
  return nFound;
}
