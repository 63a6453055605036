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
** keep them all in step (wc_write.c).
*/
#include "wc_vtab.h"
#include "rk_bytes.h"

#include <string.h>

/*
** Connecting.
*/
static void vtabFree(WcVtab *p){
  int i;
  if( p == 0 ) return;
  if( p->pRegistry ){
    WcVtab **pp = &p->pRegistry->pFirst;
    while( *pp && *pp != p ) pp = &(*pp)->pNext;
    if( *pp ) *pp = p->pNext;
  }
  wcStoreClose(p);
  wcPlanFreeAll(p);
  if( p->pSchema ) wcWriteFree(p);
  for(i = 0; i < p->nPath; i++) sqlite3_free(p->aPath[i].aPrefixCount);
  sqlite3_free(p->aPath);
  wcSchemaFree(p->pSchema);
  rkHasherFree(p->pHasher);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
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
    pPath->pKey = i ? pS->aIndex[i - 1].pKey : pS;
    pPath->aPrefixCount = sqlite3_malloc64(sizeof(int64_t)
                               * (sqlite3_uint64)(pPath->pKey->nElem + 1));
    if( pPath->aPrefixCount == 0 ) return SQLITE_NOMEM;
    for(k = 0; k <= pPath->pKey->nElem; k++) pPath->aPrefixCount[k] = -1;
  }
  return SQLITE_OK;
}

static int vtabInit(sqlite3 *db, WcRegistry *pRegistry, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr, int bCreate){
  WcVtab *p;
  char *zDecl;
  int rc;
  *ppVtab = 0;
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->nRowEst = -1;
  p->zDb = sqlite3_mprintf("%s", argv[1]);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  if( p->zDb == 0 || p->zName == 0 ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  p->pSchema = wcSchemaParse(argv[2], argc - 3, argv + 3, bCreate, pzErr);
  if( p->pSchema == 0 ){
    vtabFree(p);
    return SQLITE_ERROR;
  }
  if( wcWriteInit(p) != SQLITE_OK || pathsInit(p) != SQLITE_OK ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  if( needsHasher(p->pSchema) && (p->pHasher = rkHasherNew()) == 0 ){
    *pzErr = sqlite3_mprintf("widecol %s: OpenSSL could not provide MD5 for "
                             "SALT and BUCKET (is it in FIPS mode?)", argv[2]);
    vtabFree(p);
    return SQLITE_ERROR;
  }
  zDecl = wcSchemaDeclaration(p->pSchema);
  rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    rc = bCreate ? wcStoreCreate(p) : wcStoreCheck(p);
  }
  if( rc != SQLITE_OK ){
    *pzErr = p->base.zErrMsg ? sqlite3_mprintf("%s", p->base.zErrMsg)
                             : sqlite3_mprintf("widecol %s: %s", argv[2],
                                               sqlite3_errmsg(db));
    vtabFree(p);
    return rc;
  }
  p->pRegistry = pRegistry;
  p->pNext = pRegistry->pFirst;
  pRegistry->pFirst = p;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int wcCreate(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                    sqlite3_vtab **ppVtab, char **pzErr){
  return vtabInit(db, (WcRegistry*)pAux, argc, argv, ppVtab, pzErr, 1);
}

static int wcConnect(sqlite3 *db, void *pAux, int argc,
                     const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr){
  return vtabInit(db, (WcRegistry*)pAux, argc, argv, ppVtab, pzErr, 0);
}

static int wcDisconnect(sqlite3_vtab *pVtab){
  vtabFree((WcVtab*)pVtab);
  return SQLITE_OK;
}

static int wcDestroy(sqlite3_vtab *pVtab){
  int rc = wcStoreDrop((WcVtab*)pVtab);
  if( rc == SQLITE_OK ) vtabFree((WcVtab*)pVtab);
  return rc;
}

static int wcRename(sqlite3_vtab *pVtab, const char *zNew){
  return wcStoreRename((WcVtab*)pVtab, zNew);
}

/* SQLite protects <name>_rows, _cf_* and _idx_* from direct changes in
** defensive mode. */
static int wcShadowName(const char *zName){
  return sqlite3_stricmp(zName, "rows") == 0
      || sqlite3_strnicmp(zName, "cf_", 3) == 0
      || sqlite3_strnicmp(zName, "idx_", 4) == 0;
}

static int wcBestIndexMethod(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  return wcBestIndex((WcVtab*)pVtab, pInfo);
}

static sqlite3_module widecolModule = {
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
  0,                    /* xBegin: rows are in an ordinary table */
  0,                    /* xSync */
  0,                    /* xCommit */
  0,                    /* xRollback */
  0,                    /* xFindFunction */
  wcRename,
  0,                    /* xSavepoint */
  0,                    /* xRelease */
  0,                    /* xRollbackTo */
  wcShadowName,
};

/* widecol_stats('<table>' [, reset]): what scans of the table have done
** since it was connected or last reset, as JSON {"seeks":..,"rows_read":..,
** "rows_returned":..,"prefixes":..}.  With reset true the counters start
** again from zero once read, so a call after each query shows that query. */
static WcVtab *registryFind(WcRegistry *pRegistry, const char *zName){
  WcVtab *p;
  for(p = pRegistry->pFirst; p; p = p->pNext){
    if( sqlite3_stricmp(p->zName, zName) == 0 ) return p;
  }
  return 0;
}

WcVtab *wcVtabFind(sqlite3 *db, WcRegistry *pRegistry, const char *zName,
                   const char *zFunc, char **pzErr){
  WcVtab *p = registryFind(pRegistry, zName);
  if( p == 0 ){
    /* Preparing a statement on the table connects it. */
    char *zSql = sqlite3_mprintf("SELECT 1 FROM \"%w\" LIMIT 0", zName);
    sqlite3_stmt *pStmt = 0;
    if( zSql ) sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
    p = registryFind(pRegistry, zName);
  }
  if( p == 0 ){
    *pzErr = sqlite3_mprintf("%s: %Q is not a widecol table of this "
                             "database", zFunc, zName);
  }
  return p;
}

static void statsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  WcRegistry *pRegistry = (WcRegistry*)sqlite3_user_data(ctx);
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  char *zJson, *zErr = 0;
  WcVtab *p;
  if( zName == 0 ) return;
  p = wcVtabFind(sqlite3_context_db_handle(ctx), pRegistry, zName,
                 "widecol_stats(table)", &zErr);
  if( p == 0 ){
    sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
    sqlite3_free(zErr);
    return;
  }
  zJson = sqlite3_mprintf("{\"seeks\":%lld,\"rows_read\":%lld,"
      "\"rows_returned\":%lld,\"prefixes\":%lld}", p->stats.nSeek,
      p->stats.nRowRead, p->stats.nRowOut, p->stats.nPrefix);
  if( zJson == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, zJson, -1, sqlite3_free);
  if( argc > 1 && sqlite3_value_int(argv[1]) ){
    memset(&p->stats, 0, sizeof(p->stats));
  }
}

int widecolRegisterModule(sqlite3 *db){
  WcRegistry *pRegistry = sqlite3_malloc(sizeof(*pRegistry));
  int rc;
  if( pRegistry == 0 ) return SQLITE_NOMEM;
  pRegistry->pFirst = 0;
  rc = sqlite3_create_function_v2(db, "widecol_stats", 1, SQLITE_UTF8,
                                  pRegistry, statsFunc, 0, 0, 0);
  if( rc == SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "widecol_stats", 2, SQLITE_UTF8,
                                    pRegistry, statsFunc, 0, 0, 0);
  }
  if( rc != SQLITE_OK ){
    sqlite3_free(pRegistry);
    return rc;
  }
  rc = wcCheckRegister(db, pRegistry);
  if( rc == SQLITE_OK ) rc = wcLintRegister(db, pRegistry);
  if( rc == SQLITE_OK ) rc = wcRegionsRegister(db);
  if( rc != SQLITE_OK ){
    sqlite3_free(pRegistry);
    return rc;
  }
  /* The module owns the registry; tables unlink themselves first. */
  return sqlite3_create_module_v2(db, "widecol", &widecolModule, pRegistry,
                                  sqlite3_free);
}
