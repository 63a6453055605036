/*
** wc_vtab.c: the widecol virtual table module.
**
**   CREATE VIRTUAL TABLE payments USING widecol(
**     customer_id INTEGER, paid_at TEXT, payment_id INTEGER, amount REAL,
**     ROWKEY(customer_id PAD 6, paid_at, payment_id PAD 9));
**
** Rows live in payments_rows keyed by the encoded row key (wc_store.c);
** the hidden column rowkey shows it.  Queries on leading key fields scan
** byte ranges of that table (wc_plan.c, wc_range.c).  Writes encode the
** key from the row (wc_codec.c), refuse a row whose key fields cannot be
** encoded, and honour the statement's ON CONFLICT clause for duplicate
** keys.  Every check comes before the first write, so a failing row
** leaves nothing behind.
*/
#include "wc_vtab.h"
#include "rk_bytes.h"

#include <string.h>

/*
** Connecting.
*/
static void vtabFree(WcVtab *p){
  if( p == 0 ) return;
  if( p->pRegistry ){
    WcVtab **pp = &p->pRegistry->pFirst;
    while( *pp && *pp != p ) pp = &(*pp)->pNext;
    if( *pp ) *pp = p->pNext;
  }
  wcStoreClose(p);
  wcPlanFreeAll(p);
  wcSchemaFree(p->pSchema);
  rkHasherFree(p->pHasher);
  wcBufFree(&p->key);
  sqlite3_free(p->aVal);
  sqlite3_free(p->apCopy);
  sqlite3_free(p->aPrefixCount);
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
  return 0;
}

static int vtabInit(sqlite3 *db, WcRegistry *pRegistry, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr, int bCreate){
  WcVtab *p;
  char *zDecl;
  int rc, i;
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
  p->pSchema = wcSchemaParse(argv[2], argc - 3, argv + 3, pzErr);
  if( p->pSchema == 0 ){
    vtabFree(p);
    return SQLITE_ERROR;
  }
  p->aVal = sqlite3_malloc64(sizeof(WcValue) * (sqlite3_uint64)p->pSchema->nCol);
  p->apCopy = sqlite3_malloc64(sizeof(sqlite3_value*)
                               * (sqlite3_uint64)p->pSchema->nCol);
  if( p->aVal == 0 || p->apCopy == 0 ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  memset(p->apCopy, 0, sizeof(sqlite3_value*) * (size_t)p->pSchema->nCol);
  p->aPrefixCount = sqlite3_malloc64(sizeof(int64_t)
                                     * (sqlite3_uint64)(p->pSchema->nElem + 1));
  if( p->aPrefixCount == 0 ){
    vtabFree(p);
    return SQLITE_NOMEM;
  }
  for(i = 0; i <= p->pSchema->nElem; i++) p->aPrefixCount[i] = -1;
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

/* SQLite protects <name>_rows from direct changes in defensive mode. */
static int wcShadowName(const char *zName){
  return sqlite3_stricmp(zName, "rows") == 0;
}

static int wcBestIndexMethod(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  return wcBestIndex((WcVtab*)pVtab, pInfo);
}

/*
** Writes.
*/
static int setError(WcVtab *p, int rc, char *zMsg){
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = zMsg;
  return zMsg ? rc : SQLITE_NOMEM;
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

/* The stored values of the row in xUpdate's argv, in p->aVal, and its
** key, in p->key.  xUpdate is never re-entered for one table (nothing it
** runs writes to a widecol table), so these live in the table object;
** rowRelease() frees the converted copies. */
static void rowRelease(WcVtab *p){
  int i;
  for(i = 0; i < p->pSchema->nCol; i++){
    sqlite3_value_free(p->apCopy[i]);
    p->apCopy[i] = 0;
  }
}

static int rowEncode(WcVtab *p, sqlite3_value **apArg){
  const WcSchema *pS = p->pSchema;
  char *zErr = 0;
  int i, rc;
  for(i = 0; i < pS->nCol; i++){
    if( wcValueStore(pS->aCol[i].cAff, apArg[i], &p->aVal[i],
                     &p->apCopy[i]) ){
      return SQLITE_NOMEM;
    }
  }
  rc = wcEncodeKey(pS, p->pHasher, p->aVal, &p->key, &zErr);
  if( rc == WC_NOMEM ) return SQLITE_NOMEM;
  if( rc == WC_NOFIT ){
    int bNull = zErr && strncmp(zErr, "NOT NULL", 8) == 0;
    return setError(p, bNull ? SQLITE_CONSTRAINT_NOTNULL
                             : SQLITE_CONSTRAINT_CHECK, zErr);
  }
  return SQLITE_OK;
}

/* A rowkey the user gave must be the key the fields make. */
static int checkGivenKey(WcVtab *p, sqlite3_value *pGiven){
  int eType = sqlite3_value_type(pGiven);
  const void *a;
  int n;
  if( eType == SQLITE_NULL ) return SQLITE_OK;
  a = eType == SQLITE_BLOB ? sqlite3_value_blob(pGiven)
                           : (const void*)sqlite3_value_text(pGiven);
  n = sqlite3_value_bytes(pGiven);
  if( n == p->key.n && (n == 0 || memcmp(a, p->key.a, (size_t)n) == 0) ){
    return SQLITE_OK;
  }
  return setError(p, SQLITE_CONSTRAINT_CHECK, sqlite3_mprintf(
      "widecol %s: rowkey is made from the ROWKEY fields; leave it out of "
      "INSERT and UPDATE and set the fields instead", p->zName));
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

/* Runs a write statement whose ?1 is a key, the others row values. */
static int runWrite(WcVtab *p, int eStmt, const unsigned char *aKey,
                    int64_t nKey, int bRow){
  sqlite3_stmt *pStmt = 0;
  int rc = wcStoreAcquire(p, eStmt, 0, &pStmt), i;
  if( rc != SQLITE_OK ) return rc;
  sqlite3_bind_blob64(pStmt, 1, nKey ? aKey : (const unsigned char*)"",
                      (sqlite3_uint64)nKey, SQLITE_STATIC);
  for(i = 0; bRow && i < p->pSchema->nCol; i++){
    bindValue(pStmt, i + 2, &p->aVal[i]);
  }
  rc = sqlite3_step(pStmt);
  rc = rc == SQLITE_DONE ? SQLITE_OK : sqlite3_reset(pStmt);
  if( (rc & 0xFF) == SQLITE_CONSTRAINT ){
    char *zKey = describeKey(aKey, nKey);
    sqlite3_str *pFields = sqlite3_str_new(0);
    int j;
    for(j = 0; j < p->pSchema->nCol; j++){
      if( p->pSchema->aCol[j].bKey ){
        sqlite3_str_appendf(pFields, "%s%s", sqlite3_str_length(pFields)
                            ? ", " : "", p->pSchema->aCol[j].zName);
      }
    }
    rc = setError(p, SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3_mprintf(
        "UNIQUE constraint failed: %s.rowkey (a row with key %s exists; the "
        "key is made from %s)", p->zName, zKey ? zKey : "?",
        sqlite3_str_value(pFields) ? sqlite3_str_value(pFields) : "?"));
    sqlite3_free(zKey);
    sqlite3_free(sqlite3_str_finish(pFields));
  }else if( rc != SQLITE_OK ){
    setError(p, rc, sqlite3_mprintf("widecol %s: %s", p->zName,
                                    sqlite3_errmsg(p->db)));
  }
  wcStoreRelease(p, eStmt, 0, pStmt);
  return rc;
}

static int wcUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                    sqlite3_int64 *pRowid){
  WcVtab *p = (WcVtab*)pVtab;
  int nCol = p->pSchema->nCol;
  int eInsert = sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE
                ? WC_STMT_REPLACE : WC_STMT_INSERT;
  const unsigned char *aOld;
  int nOld, rc;
  (void)pRowid;
  if( argc == 1 ){
    rc = runWrite(p, WC_STMT_DELETE, sqlite3_value_blob(argv[0]),
                  sqlite3_value_bytes(argv[0]), 0);
    if( rc == SQLITE_OK && p->nRowEst > 0 ) p->nRowEst--;
    return rc;
  }
  rc = rowEncode(p, &argv[2]);
  if( rc == SQLITE_OK && sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    rc = checkGivenKey(p, argv[2 + nCol]);
    if( rc == SQLITE_OK ) rc = runWrite(p, eInsert, p->key.a, p->key.n, 1);
    if( rc == SQLITE_OK && p->nRowEst >= 0 ) p->nRowEst++;
  }else if( rc == SQLITE_OK ){
    aOld = sqlite3_value_blob(argv[0]);
    nOld = sqlite3_value_bytes(argv[0]);
    /* argv[1] is the new rowkey: the old one unless the UPDATE sets it. */
    if( sqlite3_value_bytes(argv[1]) != nOld
     || (nOld && memcmp(sqlite3_value_blob(argv[1]), aOld, (size_t)nOld)) ){
      rc = checkGivenKey(p, argv[1]);
    }
    if( rc == SQLITE_OK ){
      if( p->key.n == nOld && (nOld == 0 || memcmp(p->key.a, aOld,
                                                   (size_t)nOld) == 0) ){
        rc = runWrite(p, WC_STMT_UPDATE, aOld, nOld, 1);
      }else{
        /* A new key: insert under it first, so a conflict changes
        ** nothing, then drop the old row. */
        rc = runWrite(p, eInsert, p->key.a, p->key.n, 1);
        if( rc == SQLITE_OK ) rc = runWrite(p, WC_STMT_DELETE, aOld, nOld, 0);
      }
    }
  }
  rowRelease(p);
  return rc;
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
  wcUpdate,
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
static void statsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  WcRegistry *pRegistry = (WcRegistry*)sqlite3_user_data(ctx);
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  char *zJson;
  WcVtab *p;
  if( zName == 0 ) return;
  for(p = pRegistry->pFirst; p; p = p->pNext){
    if( sqlite3_stricmp(p->zName, zName) == 0 ) break;
  }
  if( p == 0 ){
    char *zMsg = sqlite3_mprintf("widecol_stats(table): no widecol table "
                                 "named %Q is open on this connection (it "
                                 "is opened by its first use)", zName);
    sqlite3_result_error(ctx, zMsg ? zMsg : "out of memory", -1);
    sqlite3_free(zMsg);
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
  /* The module owns the registry; tables unlink themselves first. */
  return sqlite3_create_module_v2(db, "widecol", &widecolModule, pRegistry,
                                  sqlite3_free);
}
