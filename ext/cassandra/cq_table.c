/*
** cq_table.c: the virtual-table module widecol_cassandra, which keeps the
** rows of a widecol table in Cassandra, as the CQL table its design means:
** the partition key, the clustering columns in their order, the other
** columns, each of the CQL type its affinity maps to.  It accepts the
** statements of the store contract (ext/store/README.md) on tables of
** rows keyed by their encoded row key: this file reads the arguments (the
** design, from DESIGN, parsed by key/wc_schema.c), plans, and registers
** the module; cq_read.c reads, cq_write.c writes, cq_schema.c makes and
** drops the CQL table, cq_conn.c talks to Cassandra through cq_wire.c.
*/
#include "cassandra/cq_table.h"
#include "cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/wc_decode.h"
#include "util/wc_ask.h"

#include <stdlib.h>
#include <string.h>

/* The next word of *pz (a quoted one unquoted), or NULL at the end. */
static char *nextWord(const char **pz){
  const char *z = *pz;
  sqlite3_str *pStr;
  while( *z == ' ' || *z == '\t' || *z == '\n' ) z++;
  if( *z == 0 ) return 0;
  pStr = sqlite3_str_new(0);
  if( *z == '\'' || *z == '"' ){
    char q = *z++;
    for(; *z; z++){
      if( *z == q && z[1] == q ){
        sqlite3_str_appendchar(pStr, 1, q);
        z++;
      }else if( *z == q ){
        z++;
        break;
      }else{
        sqlite3_str_appendchar(pStr, 1, *z);
      }
    }
  }else{
    while( *z && *z != ' ' && *z != '\t' && *z != '\n' ){
      sqlite3_str_appendchar(pStr, 1, *z++);
    }
  }
  *pz = z;
  return sqlite3_str_finish(pStr);
}

/* The design's arguments, one a line, parsed into p->pS. */
static char *parseDesign(CqTable *p, const char *zDesign){
  char **azArg, *zCopy = sqlite3_mprintf("%s", zDesign), *zLine, *zErr = 0;
  int nArg = 0, nAlloc = 1;
  const char *z;
  for(z = zDesign; *z; z++) nAlloc += *z == '\n';
  azArg = sqlite3_malloc64(sizeof(char*) * (size_t)nAlloc);
  if( azArg == 0 || zCopy == 0 ){
    sqlite3_free(azArg);
    sqlite3_free(zCopy);
    return sqlite3_mprintf("out of memory");
  }
  for(zLine = zCopy; zLine; ){
    char *zNl = strchr(zLine, '\n');
    if( zNl ) *zNl = 0;
    azArg[nArg++] = zLine;
    zLine = zNl ? zNl + 1 : 0;
  }
  p->pS = wcSchemaParse(p->zName, nArg, (const char *const*)azArg, 0, &zErr);
  sqlite3_free(azArg);
  sqlite3_free(zCopy);
  return p->pS ? 0 : zErr;
}

/* Reads the module arguments (ext/store/README.md): the resource, the key
** column, then options and columns. */
static char *parseArgs(CqTable *p, int argc, const char *const *argv,
                       int *pnCol){
  const char *z, *zDot;
  char *zDesign = 0, *zErr = 0;
  int i;
  *pnCol = 0;
  if( argc < 5 ){
    return sqlite3_mprintf("widecol_cassandra %s: arguments are the "
        "Cassandra table and the key column, then the columns", p->zName);
  }
  z = argv[3];
  p->zKeyspace = nextWord(&z);
  zDot = p->zKeyspace ? strchr(p->zKeyspace, '.') : 0;
  if( zDot == 0 ){
    return sqlite3_mprintf("widecol_cassandra %s: %s is not keyspace.table",
                           p->zName, argv[3]);
  }
  p->zCqlTable = sqlite3_mprintf("%s", zDot + 1);
  p->zKeyspace[zDot - p->zKeyspace] = 0;
  p->zCqlName = sqlite3_mprintf("\"%w\".\"%w\"", p->zKeyspace, p->zCqlTable);
  p->zSuffix = sqlite3_mprintf("");
  p->iIndex = -1;
  for(i = 5; i < argc && zErr == 0; i++){
    char *zWord;
    z = argv[i];
    zWord = nextWord(&z);
    if( zWord == 0 ) continue;
    if( argv[i][0] == '"' ){
      (*pnCol)++;
    }else if( sqlite3_stricmp(zWord, "OWNER") == 0 ){
      sqlite3_free(p->zOwner);
      p->zOwner = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "DESIGN") == 0 ){
      sqlite3_free(zDesign);
      zDesign = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "SUFFIX") == 0 ){
      sqlite3_free(p->zSuffix);
      p->zSuffix = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "EXTERNAL") == 0 ){
      p->bExternal = 1;
    }else if( sqlite3_stricmp(zWord, "ENTRIES") == 0 ){
      /* ENTRIES OF '<the row table>' <i>: INDEX i's entries. */
      char *zOf = nextWord(&z), *zOn = nextWord(&z), *zI = nextWord(&z);
      p->iIndex = zI ? atoi(zI) : -1;
      if( zI == 0 || p->iIndex < 0 ){
        zErr = sqlite3_mprintf("widecol_cassandra %s: ENTRIES OF names the "
                               "row table and an INDEX's number", p->zName);
      }
      sqlite3_free(zOf);
      sqlite3_free(zOn);
      sqlite3_free(zI);
    }else if( sqlite3_stricmp(zWord, "ROWTIME") == 0 ){
      p->bRowtime = 1;
    }else if( sqlite3_stricmp(zWord, "TTL") == 0 ){
      char *zN = nextWord(&z);
      p->nTtl = zN ? atoll(zN) : 0;
      sqlite3_free(zN);
    }else if( sqlite3_stricmp(zWord, "EXISTING") == 0
           || sqlite3_stricmp(zWord, "OLDER") == 0 ){
      zErr = sqlite3_mprintf("widecol_cassandra %s: %s is not kept on "
                             "Cassandra", p->zName, zWord);
    }
    sqlite3_free(zWord);
  }
  if( zErr == 0 && (zDesign == 0 || p->zOwner == 0) ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: a table on Cassandra is "
        "made by a widecol table (its DESIGN and OWNER); make it with "
        "CREATE VIRTUAL TABLE ... USING widecol(..., STORAGE CASSANDRA "
        "'keyspace.table')", p->zName);
  }
  if( zErr == 0 ) zErr = parseDesign(p, zDesign);
  sqlite3_free(zDesign);
  if( zErr == 0 && p->iIndex >= p->pS->nIndex ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: the design has no INDEX "
                           "%d", p->zName, p->iIndex);
  }
  return zErr;
}

/* Adds column iCol to the key's columns, once. */
static void keyAdd(CqTable *p, int iCol){
  int i;
  for(i = 0; i < p->nKey && p->aiKey[i] != iCol; i++){}
  if( i == p->nKey ) p->aiKey[p->nKey++] = iCol;
}

/* The CQL table's columns and key, each column's CQL type, and the CQL
** fragments the calls use.  The row table's key: the partition key's
** columns, then the clustering columns.  An index's table: the index
** key's, then its entry's row key as a blob, "rowkey" (the pseudo-column
** pS->nCol, first of its columns), so that the entries of one index key
** sort by the row key's bytes, as widecol's index keys do. */
static int describeKey(CqTable *p){
  const WcSchema *pS = p->pS;
  const WcSchema *pKey = p->iIndex >= 0 ? pS->aIndex[p->iIndex].pKey : pS;
  sqlite3_str *pCols = sqlite3_str_new(0), *pWhere = sqlite3_str_new(0);
  sqlite3_str *pPart = sqlite3_str_new(0), *pTokArgs = sqlite3_str_new(0);
  int i;
  p->pKeyS = pKey;
  p->aType = sqlite3_malloc64(sizeof(int) * CQ_NCOL(pS));
  p->aiCqlCol = sqlite3_malloc64(sizeof(int) * CQ_NCOL(pS));
  p->aiCqlPos = sqlite3_malloc64(sizeof(int) * CQ_NCOL(pS));
  p->abKey = sqlite3_malloc64(CQ_NCOL(pS));
  p->aiKey = sqlite3_malloc64(sizeof(int) * CQ_NCOL(pS));
  if( !p->aType || !p->aiCqlCol || !p->aiCqlPos || !p->abKey || !p->aiKey ){
    return SQLITE_NOMEM;
  }
  memset(p->abKey, 0, CQ_NCOL(pS));
  p->aType[CQ_ROWKEY(pS)] = CQ_TYPE_BLOB;
  p->aType[CQ_ROWTIME(pS)] = CQ_TYPE_BIGINT;
  p->aiCqlPos[CQ_ROWKEY(pS)] = p->aiCqlPos[CQ_ROWTIME(pS)] = -1;
  if( p->iIndex >= 0 ){
    p->aiCqlPos[CQ_ROWKEY(pS)] = 0;
    p->aiCqlCol[p->nCqlCol++] = CQ_ROWKEY(pS);
  }
  for(i = 0; i < pS->nCol; i++){
    p->aType[i] = cqColumnType(pS->aCol[i].cAff);
    p->aiCqlPos[i] = -1;
    if( p->iIndex >= 0 && !pS->aIndex[p->iIndex].abStored[i] ) continue;
    p->aiCqlPos[i] = p->nCqlCol;
    p->aiCqlCol[p->nCqlCol++] = i;
  }
  if( p->bRowtime ){
    /* Last, as the virtual table declares it. */
    p->aiCqlPos[CQ_ROWTIME(pS)] = p->nCqlCol;
    p->aiCqlCol[p->nCqlCol++] = CQ_ROWTIME(pS);
  }
  for(i = 0; i < p->nCqlCol; i++){
    sqlite3_str_appendf(pCols, "%s\"%w\"", i ? ", " : "",
                        cqColumnName(p, p->aiCqlCol[i]));
  }
  p->nPart = pKey->aElem[0].nSaltCol;
  for(i = 1; i < pKey->nElem; i++) keyAdd(p, pKey->aElem[i].iCol);
  if( p->iIndex >= 0 ) keyAdd(p, CQ_ROWKEY(pS));
  if( p->nKey > CQ_MAX_ARGS ){
    cqTableError(p, SQLITE_TOOBIG, "a key of %d columns; a table on Cassandra "
               "has at most %d", p->nKey, CQ_MAX_ARGS);
    return SQLITE_TOOBIG;
  }
  for(i = 0; i < p->nKey; i++){
    const char *zCol = cqColumnName(p, p->aiKey[i]);
    p->abKey[p->aiKey[i]] = 1;
    sqlite3_str_appendf(pWhere, "%s\"%w\" = ?", i ? " AND " : "", zCol);
    if( i < p->nPart ){
      sqlite3_str_appendf(pPart, "%s\"%w\" = ?", i ? " AND " : "", zCol);
      sqlite3_str_appendf(pTokArgs, "%s\"%w\"", i ? ", " : "", zCol);
    }
  }
  p->zColumns = sqlite3_str_finish(pCols);
  p->zKeyWhere = sqlite3_str_finish(pWhere);
  p->zPartWhere = sqlite3_str_finish(pPart);
  {
    char *zArgs = sqlite3_str_finish(pTokArgs);
    p->zToken = zArgs ? sqlite3_mprintf("token(%s)", zArgs) : 0;
    sqlite3_free(zArgs);
  }
  p->pHasher = rkHasherNew();
  if( !p->zColumns || !p->zKeyWhere || !p->zPartWhere || !p->zToken
   || !p->pHasher ){
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static void tableFree(CqTable *p){
  if( p == 0 ) return;
  /* Its writes, in flight or in a group not yet sent, name it: they are
  ** sent and waited for first. */
  if( p->pShared->nWrite > 0 || cqGroupPending(p->pShared) ){
    cqWritesForget(p->pShared);
  }
  sqlite3_finalize(p->pProbe);
  sqlite3_free(p->zName);
  sqlite3_free(p->zSuffix);
  sqlite3_free(p->zKeyspace);
  sqlite3_free(p->zCqlTable);
  sqlite3_free(p->zCqlName);
  sqlite3_free(p->zOwner);
  wcSchemaFree(p->pS);
  rkHasherFree(p->pHasher);
  sqlite3_free(p->aType);
  sqlite3_free(p->aiCqlCol);
  sqlite3_free(p->aiCqlPos);
  sqlite3_free(p->abKey);
  sqlite3_free(p->aiKey);
  sqlite3_free(p->zColumns);
  sqlite3_free(p->zKeyWhere);
  sqlite3_free(p->zPartWhere);
  sqlite3_free(p->zToken);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

static int cqInit(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                  sqlite3_vtab **ppVtab, char **pzErr, int bCreate){
  CqTable *p = sqlite3_malloc(sizeof(*p));
  sqlite3_str *pDecl;
  char *zDecl, *zErr;
  int rc, i, nCol = 0;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pShared = (CqShared*)pAux;
  sqlite3_prepare_v2(db, "SELECT 1", -1, &p->pProbe, 0);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  zErr = p->zName ? parseArgs(p, argc, argv, &nCol)
                  : sqlite3_mprintf("out of memory");
  if( zErr ){
    *pzErr = zErr;
    tableFree(p);
    return SQLITE_ERROR;
  }
  rc = describeKey(p);
  /* An index's table's arguments name its rowkey apart ("rowkey _"), a
  ** versioned table's its rowtime (ROWTIME). */
  if( rc == SQLITE_OK
   && nCol + (p->iIndex >= 0) + p->bRowtime != p->nCqlCol ){
    *pzErr = sqlite3_mprintf("widecol_cassandra %s: %d columns, where the "
                             "design's table has %d", p->zName, nCol,
                             p->nCqlCol);
    tableFree(p);
    return SQLITE_ERROR;
  }
  pDecl = sqlite3_str_new(0);
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(%s BLOB PRIMARY KEY",
                      p->iIndex >= 0 ? "ikey" : "rowkey");
  for(i = 0; i < p->nCqlCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", cqColumnName(p, p->aiCqlCol[i]));
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  zDecl = sqlite3_str_finish(pDecl);
  if( rc == SQLITE_OK ) rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    if( bCreate ) rc = cqCreateRemote(p);
    if( rc != SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg
                                                     : sqlite3_errmsg(db));
    }
  }
  if( rc != SQLITE_OK ){
    tableFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int cqCreate(sqlite3 *db, void *pAux, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr){
  return cqInit(db, pAux, argc, argv, ppVtab, pzErr, 1);
}

static int cqConnect(sqlite3 *db, void *pAux, int argc,
                     const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr){
  return cqInit(db, pAux, argc, argv, ppVtab, pzErr, 0);
}

static int cqDisconnect(sqlite3_vtab *pVtab){
  tableFree((CqTable*)pVtab);
  return SQLITE_OK;
}

static int cqDestroy(sqlite3_vtab *pVtab){
  CqTable *p = (CqTable*)pVtab;
  int rc = p->bExternal ? SQLITE_OK : cqDropRemote(p);
  if( rc == SQLITE_OK ) tableFree(p);
  return rc;
}

static int cqRename(sqlite3_vtab *pVtab, const char *zNew){
  CqTable *p = (CqTable*)pVtab;
  char *zName = sqlite3_mprintf("%s", zNew);
  if( zName == 0 ) return SQLITE_NOMEM;
  sqlite3_free(p->zName);
  p->zName = zName;
  return SQLITE_OK;
}

/* The constraint op widecol_bigtable_counters() becomes (wc_remote.h). */
#define CQ_COUNTERS_OP SQLITE_INDEX_CONSTRAINT_FUNCTION

/* True if SQLite leaves no term of the WHERE and no ORDER BY to itself:
** then a LIMIT (without an OFFSET) is the rows the read gives at most. */
static int limitUsable(const sqlite3_index_info *pInfo){
  int i;
  if( pInfo->nOrderBy > 0 && !pInfo->orderByConsumed ) return 0;
  for(i = 0; i < pInfo->nConstraint; i++){
    int op = pInfo->aConstraint[i].op;
    if( op == SQLITE_INDEX_CONSTRAINT_OFFSET ) return 0;
    if( op != SQLITE_INDEX_CONSTRAINT_LIMIT
     && !pInfo->aConstraintUsage[i].omit ){
      return 0;
    }
  }
  return 1;
}

/* Planning: idxNum (cq_store.h) says which bounds of rowkey argv holds,
** whether a LIMIT follows them and the order, idxStr the columns used
** (sqlite3_index_info.colUsed, in hex).  Rows come in key order, or in
** descending key order (a partition's slice read reversed, token ranges
** held and walked back: cq_read.c). */
static int cqBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int aiCons[5] = {-1, -1, -1, -1, -1};
  static const int aeBit[5] = { CQ_EQ, CQ_GE, CQ_GT, CQ_LE, CQ_LT };
  int i, idxNum = 0, nArg = 0, iLimit = -1;
  (void)pVtab;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->usable && pC->op == CQ_COUNTERS_OP ){
      pInfo->aConstraintUsage[i].argvIndex = 1;
      pInfo->aConstraintUsage[i].omit = 1;
      pInfo->idxNum = CQ_COUNTERS;
      pInfo->estimatedCost = 1;
      pInfo->estimatedRows = 1;
      return SQLITE_OK;
    }
  }
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int k = -1;
    if( pC->usable && pC->op == SQLITE_INDEX_CONSTRAINT_LIMIT ) iLimit = i;
    if( !pC->usable || pC->iColumn != 0 ) continue;
    switch( pC->op ){
      case SQLITE_INDEX_CONSTRAINT_EQ: k = 0; break;
      case SQLITE_INDEX_CONSTRAINT_GE: k = 1; break;
      case SQLITE_INDEX_CONSTRAINT_GT: k = 2; break;
      case SQLITE_INDEX_CONSTRAINT_LE: k = 3; break;
      case SQLITE_INDEX_CONSTRAINT_LT: k = 4; break;
    }
    if( k >= 0 && aiCons[k] < 0 ) aiCons[k] = i;
  }
  if( aiCons[0] >= 0 ) aiCons[1] = aiCons[2] = aiCons[3] = aiCons[4] = -1;
  if( aiCons[1] >= 0 ) aiCons[2] = -1;
  if( aiCons[3] >= 0 ) aiCons[4] = -1;
  for(i = 0; i < 5; i++){
    if( aiCons[i] < 0 ) continue;
    idxNum |= aeBit[i];
    pInfo->aConstraintUsage[aiCons[i]].argvIndex = ++nArg;
    pInfo->aConstraintUsage[aiCons[i]].omit = 1;
  }
  if( idxNum & CQ_EQ ){
    pInfo->estimatedCost = 10;
    pInfo->estimatedRows = 1;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    pInfo->estimatedCost = (idxNum & (CQ_GE|CQ_GT)) && (idxNum & (CQ_LE|CQ_LT))
                         ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)pInfo->estimatedCost;
  }else{
    pInfo->estimatedCost = 1e6;
    pInfo->estimatedRows = 1000000;
  }
  if( pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0 ){
    pInfo->orderByConsumed = 1;
    if( pInfo->aOrderBy[0].desc ) idxNum |= CQ_DESC;
  }
  if( iLimit >= 0 && (idxNum & CQ_EQ) == 0 && limitUsable(pInfo) ){
    idxNum |= CQ_LIMIT;
    pInfo->aConstraintUsage[iLimit].argvIndex = ++nArg;
  }
  pInfo->idxNum = idxNum;
  /* The columns the statement reads: the read selects those alone (and
  ** the key's, to make each row's key). */
  pInfo->idxStr = sqlite3_mprintf("%llx", (unsigned long long)pInfo->colUsed);
  if( pInfo->idxStr == 0 ) return SQLITE_NOMEM;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

/* widecol_bigtable_counters(key, ?) anywhere but the lookup of
** wc_remote.h. */
static void cqCountersFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_error(ctx, WC_RPC_COUNTERS_MISUSE, -1);
}

static int cqFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                          void (**pxFunc)(sqlite3_context*, int,
                                          sqlite3_value**),
                          void **ppArg){
  (void)pVtab;
  if( nArg != 2 || sqlite3_stricmp(zName, WC_RPC_COUNTERS) != 0 ) return 0;
  *pxFunc = cqCountersFunc;
  *ppArg = 0;
  return CQ_COUNTERS_OP;
}

static sqlite3_module cqModule = {
  2,                    /* iVersion */
  cqCreate,
  cqConnect,
  cqBestIndex,
  cqDisconnect,
  cqDestroy,
  cqOpenCursor,
  cqCloseCursor,
  cqFilter,
  cqNext,
  cqEof,
  cqColumn,
  cqRowid,
  cqUpdate,
  cqBegin,
  cqSync,
  cqCommit,
  cqRollback,
  cqFindFunction,
  cqRename,
  0, 0, 0,              /* xSavepoint, xRelease, xRollbackTo */
  0                     /* xShadowName */
};

/* The module's destructor: the connection, and what its writes kept. */
static void sharedFree(void *pArg){
  CqShared *p = (CqShared*)pArg;
  cqWritesFree(p);
  cqClose(p->pConn);
  sqlite3_free(p->zEndpoint);
  sqlite3_free(p);
}

int cqRegister(sqlite3 *db, char **pzErrMsg){
  CqShared *pShared;
  int rc;
  if( !wcWidecolLoaded(db) ){
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("widecol_cassandra is the Cassandra store "
          "of widecol tables and needs widecol loaded first: .load widecol, "
          "then .load widecol_cassandra");
    }
    return SQLITE_ERROR;
  }
  rc = sqlite3_create_function_v2(db, WC_RPC_COUNTERS, 2,
                                  SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                  cqCountersFunc, 0, 0, 0);
  if( rc != SQLITE_OK ) return rc;
  pShared = sqlite3_malloc(sizeof(*pShared));
  if( pShared == 0 ) return SQLITE_NOMEM;
  memset(pShared, 0, sizeof(*pShared));
  pShared->db = db;
  return sqlite3_create_module_v2(db, "widecol_cassandra", &cqModule, pShared,
                                  sharedFree);
}
