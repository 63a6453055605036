/*
** wc_vtab.c: the widecol virtual table module.
**
**   CREATE VIRTUAL TABLE payments USING widecol(
**     customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL,
**     ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9));
**
** Rows live in payments_rows keyed by the encoded row key (wc_store.c);
** the hidden column rowkey shows it.  INDEX and FAMILY add tables of
** their own.  Queries on leading key fields scan byte ranges of the row
** table or of an index table (wc_plan.c, wc_range.c, wc_scan.c); writes
** keep them all in step (wc_write.c).  The tools find a table through SQL
** (wcTableLookup), so nothing here keeps a list of tables.
*/
#include "vtab/wc_plan.h"
#include "vtab/wc_scan.h"
#include "vtab/wc_write.h"
#include "vtab/wc_module.h"
#include "store/wc_contract.h"
#include "key/rk_bytes.h"

#include <string.h>

/*
** Connecting.
*/
static void vtabFree(WcVtab *p){
  int i;
  if( p == 0 ) return;
  wcScanFreeSpare(p);
  wcStoreFree(&p->store);
  wcHistoryFree(p->pHistory);
  if( p->pSchema ) wcWriteFree(p);
  for(i = 0; i < p->nPath; i++) sqlite3_free(p->aPath[i].aPrefixCount);
  sqlite3_free(p->aPath);
  wcSchemaFree(p->pSchema);
  rkHasherFree(p->pHasher);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

static int needsHasher(const WcSchema *pS){
  int i;
  for(i = 0; i < pS->nElem; i++){
    if( pS->aElem[i].eKind != WC_ELEM_COLUMN ) return 1;
  }
  for(i = 0; i < pS->nIndex; i++){
    if( needsHasher(pS->aIndex[i].pKey) ) return 1;
  }
  return 0;
}

/* The row table, then each index table: what a scan can read. */
static int pathsInit(WcVtab *p){
  const WcSchema *pS = p->pSchema;
  int i, k;
  p->aPath = sqlite3_malloc64(sizeof(WcPath)
                              * (sqlite3_uint64)(pS->nIndex + 1));
  if( p->aPath == 0 ) return SQLITE_NOMEM;
  memset(p->aPath, 0, sizeof(WcPath) * (size_t)(pS->nIndex + 1));
  p->nPath = pS->nIndex + 1;
  for(i = 0; i < p->nPath; i++){
    WcPath *pPath = &p->aPath[i];
    pPath->pIndex = i ? &pS->aIndex[i - 1] : 0;
    pPath->pKey = wcSchemaPathKey(pS, i);
    /* Path 0 is the row key's; path i the key of index i - 1. */
    wcAssert( pPath->pKey != 0
              && (i == 0 ? pPath->pKey == pS : pPath->pKey
                                               == pS->aIndex[i - 1].pKey) );
    pPath->aPrefixCount = sqlite3_malloc64(sizeof(int64_t)
                               * (sqlite3_uint64)(pPath->pKey->nElem + 1));
    if( pPath->aPrefixCount == 0 ) return SQLITE_NOMEM;
    for(k = 0; k <= pPath->pKey->nElem; k++) pPath->aPrefixCount[k] = -1;
  }
  return SQLITE_OK;
}

static int vtabInit(sqlite3 *db, WcClock *pClock, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr, int bCreate){
  WcVtab *p;
  const WcStoreCaps *pCaps;
  char *zDecl;
  int rc;
  *ppVtab = 0;
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pClock = pClock;
  p->nRowEst = -1;
  p->pSchema = wcSchemaParse(argv[2], argc - 3, argv + 3, bCreate, pzErr);
  if( p->pSchema == 0 ){
    vtabFree(p);
    return SQLITE_ERROR;
  }
  if( wcStoreInit(&p->store, db, argv[1], argv[2], p->pSchema, &p->base) ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  p->pHistory = wcHistoryNew(p->pSchema->nCol);
  if( p->pHistory == 0 || wcWriteInit(p) != SQLITE_OK
   || pathsInit(p) != SQLITE_OK ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  if( needsHasher(p->pSchema) && (p->pHasher = rkHasherNew()) == 0 ){
    *pzErr = sqlite3_mprintf("widecol %s: OpenSSL could not provide MD5 for "
                             "SALT and BUCKET (is it in FIPS mode?)", argv[2]);
    vtabFree(p);
    return SQLITE_ERROR;
  }
  /* Rows that carry stamps show them in _stamp, unless an older table has
  ** a column of that name (a new one may not). */
  pCaps = wcStoreCaps(&p->store);
  if( pCaps->bStamps ){
    if( wcSchemaColumn(p->pSchema, WC_STAMP_COLUMN) < 0 ){
      p->store.iStampCol = WC_COL_STAMP(p->pSchema);
    }else if( bCreate ){
      *pzErr = sqlite3_mprintf("widecol %s: a table whose rows are in "
          "%s cannot have a column named " WC_STAMP_COLUMN ": that is "
          "the hidden column of each row's stamps (%s); rename the column",
          argv[2], pCaps->pKind->zEngine, pCaps->pKind->zDocs);
      vtabFree(p);
      return SQLITE_ERROR;
    }
  }
  /* _stamp is shown where the store's rows carry stamps, and only there. */
  wcAssert( p->store.iStampCol < 0 || pCaps->bStamps );
  zDecl = wcSchemaDeclaration(p->pSchema, p->store.iStampCol >= 0);
  rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    rc = bCreate ? wcStoreCreate(&p->store) : wcStoreCheck(&p->store);
  }
  if( rc != SQLITE_OK ){
    *pzErr = p->base.zErrMsg ? sqlite3_mprintf("%s", p->base.zErrMsg)
                             : sqlite3_mprintf("widecol %s: %s", argv[2],
                                               sqlite3_errmsg(db));
    vtabFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int wcCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                    sqlite3_vtab **ppVtab, char **pzErr){
  return vtabInit(db, (WcClock*)pAux, argc, argv, ppVtab, pzErr, 1);
}

static int wcConnect(sqlite3 *db, void *pAux, int argc,
                     const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr){
  return vtabInit(db, (WcClock*)pAux, argc, argv, ppVtab, pzErr, 0);
}

static int wcDisconnect(sqlite3_vtab *pVtab){
  vtabFree((WcVtab*)pVtab);
  return SQLITE_OK;
}

static int wcDestroy(sqlite3_vtab *pVtab){
  int rc = wcStoreDrop(&((WcVtab*)pVtab)->store);
  if( rc == SQLITE_OK ) vtabFree((WcVtab*)pVtab);
  return rc;
}

static int wcRename(sqlite3_vtab *pVtab, const char *zNew){
  return wcStoreRename(&((WcVtab*)pVtab)->store, zNew);
}

/* SQLite protects <name>_rows, _versions, _cf_* and _idx_* from direct
** changes in defensive mode. */
static int wcShadowName(const char *zName){
  return sqlite3_stricmp(zName, "rows") == 0
      || sqlite3_stricmp(zName, "versions") == 0
      || sqlite3_strnicmp(zName, "cf_", 3) == 0
      || sqlite3_strnicmp(zName, "idx_", 4) == 0;
}

static int wcBestIndexMethod(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  return wcBestIndex((WcVtab*)pVtab, pInfo);
}

/* widecol_table(rowkey, ?) on a widecol table is a constraint its
** xBestIndex turns into a table lookup (WC_CONSTRAINT_FIND). */
static int wcFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                          void (**pxFunc)(sqlite3_context*, int,
                                          sqlite3_value**),
                          void **ppArg){
  (void)pVtab;
  if( nArg != 2 || sqlite3_stricmp(zName, WC_TABLE_FUNC) != 0 ) return 0;
  *pxFunc = wcTableFunc;
  *ppArg = 0;
  return WC_CONSTRAINT_FIND;
}

const sqlite3_module wcModule = {
  3,                    /* iVersion: xShadowName */
  wcCreate,
  wcConnect,
  wcBestIndexMethod,
  wcDisconnect,
  wcDestroy,
  wcScanOpen,
  wcScanClose,
  wcScanFilter,
  wcScanNext,
  wcScanEof,
  wcScanColumn,
  wcScanRowid,
  wcWriteUpdate,
  wcWriteBegin,         /* xBegin: forgets rows read ahead */
  0,                    /* xSync */
  wcWriteEnd,           /* xCommit: ends the writes' progress lines */
  wcWriteEnd,           /* xRollback */
  wcFindFunction,
  wcRename,
  0,                    /* xSavepoint */
  0,                    /* xRelease */
  0,                    /* xRollbackTo */
  wcShadowName,
};

/*
** Finding a table by schema and name (wc_table.h).
*/

/* "schema.name" splits only if the schema exists, so that a table named
** "a.b" in main is found as it is. */
static void splitName(sqlite3 *db, const char *zArg, char **pzSchema,
                      char **pzName){
  const char *zDot = strchr(zArg, '.');
  *pzSchema = 0;
  if( zDot ){
    char *zSchema = sqlite3_mprintf("%.*s", (int)(zDot - zArg), zArg);
    if( zSchema && sqlite3_txn_state(db, zSchema) >= 0 ){
      *pzSchema = zSchema;
      *pzName = sqlite3_mprintf("%s", zDot + 1);
      return;
    }
    sqlite3_free(zSchema);
  }
  *pzName = sqlite3_mprintf("%s", zArg);
}

/* "the widecol tables of <schema> are 'a', 'b'" or "<schema> has no
** widecol table", for a message; *pbListed tells whether zName is one of
** them. */
static char *tablesOf(sqlite3 *db, const char *zSchema, const char *zName,
                      int *pbListed){
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("SELECT name FROM \"%w\".sqlite_schema WHERE "
      "type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%%USING widecol%%' "
      "ORDER BY name", zSchema);
  int n = 0;
  *pbListed = 0;
  if( zSql && sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK ){
    while( sqlite3_step(pStmt) == SQLITE_ROW ){
      const char *zTable = (const char*)sqlite3_column_text(pStmt, 0);
      if( zTable && sqlite3_stricmp(zTable, zName) == 0 ) *pbListed = 1;
      if( n++ < 8 ){
        sqlite3_str_appendf(pStr, "%s%Q", n > 1 ? ", " : "", zTable);
      }
    }
  }
  if( n > 8 ) sqlite3_str_appendf(pStr, " and %d more", n - 8);
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  if( n == 0 ){
    sqlite3_free(sqlite3_str_finish(pStr));
    return sqlite3_mprintf("%s has no widecol table", zSchema);
  }
  return sqlite3_mprintf("the widecol tables of %s are %z", zSchema,
                         sqlite3_str_finish(pStr));
}

int wcTableLookup(sqlite3 *db, const char *zArg, const char *zFunc,
                  WcVtab **ppTab, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  char *zSchema = 0, *zName = 0, *zSql = 0;
  int rc;
  *ppTab = 0;
  *pzErr = 0;
  splitName(db, zArg, &zSchema, &zName);
  if( zName ){
    zSql = zSchema
      ? sqlite3_mprintf("SELECT 1 FROM \"%w\".\"%w\" WHERE "
                        WC_TABLE_FUNC "(rowkey, ?1)", zSchema, zName)
      : sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE " WC_TABLE_FUNC
                        "(rowkey, ?1)", zName);
  }
  /* Preparing connects the table if need be; stepping runs its xFilter,
  ** which stores it in *ppTab (any other table fails in the step). */
  rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
  if( rc == SQLITE_OK ){
    sqlite3_bind_pointer(pStmt, 1, (void*)ppTab, WC_TABLE_FUNC, 0);
    sqlite3_step(pStmt);
    rc = sqlite3_finalize(pStmt);
  }
  /* xFilter stores the table only for a widecol table. */
  wcAssert( *ppTab == 0 || (*ppTab)->pSchema != 0 );
  if( *ppTab ){
    rc = SQLITE_OK;
  }else if( rc != SQLITE_NOMEM ){
    /* A widecol table that cannot be opened is not "not a widecol
    ** table": say what SQLite said when it tried. */
    char *zWhy = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    int bListed;
    char *zList = tablesOf(db, zSchema ? zSchema : "main", zName, &bListed);
    if( bListed ){
      *pzErr = sqlite3_mprintf("%s: the widecol table %Q could not be "
                               "opened: %s", zFunc, zArg,
                               zWhy ? zWhy : "out of memory");
    }else{
      *pzErr = sqlite3_mprintf("%s: %Q is not a widecol table (%s); name "
                               "one as 'table' or 'schema.table'", zFunc,
                               zArg, zList ? zList : "out of memory");
      rc = SQLITE_ERROR;
    }
    sqlite3_free(zWhy);
    sqlite3_free(zList);
  }
  sqlite3_free(zSql);
  sqlite3_free(zSchema);
  sqlite3_free(zName);
  return rc;
}

void wcTableFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_error(ctx, WC_TABLE_FUNC "(rowkey, ?) is how widecol's "
                       "functions find a widecol table; it does nothing "
                       "anywhere else", -1);
}

sqlite3 *wcTableDb(const WcVtab *p){
  return p->store.db;
}

const char *wcTableName(const WcVtab *p){
  return p->store.zName;
}

const WcStore *wcTableStore(const WcVtab *p){
  return &p->store;
}

const WcSchema *wcTableSchema(const WcVtab *p){
  return p->pSchema;
}

RkHasher *wcTableHasher(const WcVtab *p){
  return p->pHasher;
}

void wcTableWatch(WcVtab *p, WcWatchRow xRow, void *pArg){
  p->xWatch = xRow;
  p->pWatchArg = pArg;
}

WcHistory *wcTableHistory(const WcVtab *p){
  return p->pHistory;
}

int64_t wcTableNow(const WcVtab *p){
  return wcClockNow(p->pClock);
}

void wcTablePinClock(WcVtab *p, int64_t iMicros, WcClockState *pSaved){
  wcClockPin(p->pClock, iMicros, pSaved);
}

void wcTableRestoreClock(WcVtab *p, const WcClockState *pSaved){
  wcClockRestore(p->pClock, pSaved);
}

const char *wcTableErrmsg(const WcVtab *p){
  return p->base.zErrMsg ? p->base.zErrMsg : "unknown error";
}

/* Adds the call counters of each remote table behind p (the rows, each
** index, the older versions) into *pRpc, through the store's own lookup
** (wc_contract.h). */
static int rpcCounters(WcVtab *p, WcRpcStats *pRpc){
  int i, rc = SQLITE_OK;
  for(i = -1; rc == SQLITE_OK && i < p->pSchema->nIndex; i++){
    rc = wcStoreRemoteStats(&p->store, -1, i, pRpc);
  }
  if( rc == SQLITE_OK && p->pSchema->bVersioned ){
    rc = wcStoreRemoteStats(&p->store, WC_TABLE_VERSIONS, -1, pRpc);
  }
  return rc;
}

/* widecol_stats('<table>' [, reset]): what scans of the table have done
** since it was connected or last reset, as JSON {"seeks":..,"rows_read":..,
** "rows_returned":..,"prefixes":..}, and on a store that counts its calls
** (WcStoreCaps.bRpcCounters) what the calls of this connection to its
** tables cost: "rpcs", "rows_in" (rows received whole), "messages_in",
** "bytes_in", "bytes_out", "retries" (calls made again after a passing
** failure).  With reset 1 the counters start again from
** zero once read, so a call after each query shows that query. */
void wcStatsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zFunc[] = "widecol_stats(table [, reset])";
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  char *zJson, *zErr = 0;
  int bReset = 0, rc;
  WcVtab *p;
  if( zName == 0 ) return;
  if( argc > 1 ){
    if( sqlite3_value_numeric_type(argv[1]) != SQLITE_INTEGER
     || (sqlite3_value_int64(argv[1]) != 0
         && sqlite3_value_int64(argv[1]) != 1) ){
      zErr = sqlite3_mprintf("%s: reset must be 0 (keep counting) or 1 "
                             "(start again from zero), not %Q", zFunc,
                             sqlite3_value_text(argv[1]));
      sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
      sqlite3_free(zErr);
      return;
    }
    bReset = sqlite3_value_int(argv[1]);
  }
  rc = wcTableLookup(sqlite3_context_db_handle(ctx), zName, zFunc, &p, &zErr);
  if( rc != SQLITE_OK ){
    if( zErr ) sqlite3_result_error(ctx, zErr, -1);
    else sqlite3_result_error_code(ctx, rc);
    sqlite3_free(zErr);
    return;
  }
  wcAssert( bReset == 0 || bReset == 1 );
  if( wcStoreCaps(&p->store)->bRpcCounters ){
    WcRpcStats rpc;
    memset(&rpc, 0, sizeof(rpc));
    rpc.bReset = bReset;
    rc = rpcCounters(p, &rpc);
    if( rc != SQLITE_OK ){
      sqlite3_result_error(ctx, sqlite3_errmsg(p->store.db), -1);
      return;
    }
    sqlite3_str *pJson = sqlite3_str_new(0);
    sqlite3_str_appendf(pJson, "{\"seeks\":%lld,\"rows_read\":%lld,"
        "\"rows_returned\":%lld,\"prefixes\":%lld,\"rpcs\":%lld,"
        "\"rows_in\":%lld,\"messages_in\":%lld,\"bytes_in\":%lld,"
        "\"bytes_out\":%lld,\"retries\":%lld",
        p->stats.nSeek, p->stats.nRowRead, p->stats.nRowOut,
        p->stats.nPrefix, rpc.nRpc, rpc.nRowIn, rpc.nMsgIn, rpc.nByteIn,
        rpc.nByteOut, rpc.nRetry);
    /* An EXISTING table's rows whose keys are no keys of the design. */
    if( p->pSchema->bExisting ){
      sqlite3_str_appendf(pJson, ",\"undecodable\":%lld",
                          p->stats.nUndecodable);
    }
    sqlite3_str_appendall(pJson, "}");
    zJson = sqlite3_str_finish(pJson);
  }else{
    zJson = sqlite3_mprintf("{\"seeks\":%lld,\"rows_read\":%lld,"
        "\"rows_returned\":%lld,\"prefixes\":%lld}", p->stats.nSeek,
        p->stats.nRowRead, p->stats.nRowOut, p->stats.nPrefix);
  }
  if( zJson == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, zJson, -1, sqlite3_free);
  if( bReset ) memset(&p->stats, 0, sizeof(p->stats));
}
