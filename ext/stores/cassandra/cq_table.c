/*
** cq_table.c: the virtual-table module widecol_cassandra, which keeps the
** rows of a widecol table in Cassandra, as the CQL table its design means:
** the partition key, the clustering columns in their order, the other
** columns, each of the CQL type its affinity maps to.  It accepts the
** statements of the store contract (store/README.md) on tables of rows
** keyed by their encoded row key: this file takes the arguments (read by
** stores/contract/; the design, from DESIGN, parsed by key/wc_schema.c),
** describes the CQL table, plans, and registers the module; cq_read.c
** reads, cq_write.c writes, cq_schema.c makes and drops the CQL table,
** cq_conn.c talks to Cassandra through cq_wire.c.
*/
#include "stores/cassandra/cq_table.h"
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/wc_cql.h"
#include "key/wc_decode.h"
#include "util/wc_ask.h"

#include <stdlib.h>
#include <string.h>

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

/* Reads the module arguments (store/README.md, read by
** stores/contract/): the CQL table, its design and owner, what else the
** table is; *pnCol the columns named. */
static char *parseArgs(CqTable *p, int argc, const char *const *argv,
                       int *pnCol){
  ScArgs a;
  char *zErr = scArgsRead(&a, wcKind(WC_STORE_CASSANDRA), argc, argv);
  const char *zDot;
  *pnCol = a.nCol;
  if( zErr == 0 && (a.bExisting || a.bOlder) ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: %s is not kept on "
                           "Cassandra", p->zName,
                           a.bExisting ? WC_ARG_EXISTING : WC_ARG_OLDER);
  }
  if( zErr == 0 && (a.zDesign == 0 || a.zOwner == 0) ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: a table on Cassandra is "
        "made by a widecol table (its DESIGN and OWNER); make it with "
        "CREATE VIRTUAL TABLE ... USING widecol(..., STORAGE CASSANDRA "
        "'keyspace.table')", p->zName);
  }
  if( zErr == 0 ){
    zDot = strchr(a.zResource, '.');
    wcAssert( zDot != 0 );
    p->zKeyspace = sqlite3_mprintf("%.*s", (int)(zDot - a.zResource),
                                   a.zResource);
    p->zCqlTable = sqlite3_mprintf("%s", zDot + 1);
    p->zCqlName = sqlite3_mprintf("\"%w\".\"%w\"", p->zKeyspace,
                                  p->zCqlTable);
    p->zSuffix = sqlite3_mprintf("%s", a.zSuffix ? a.zSuffix : "");
    p->zOwner = sqlite3_mprintf("%s", a.zOwner);
    p->bExternal = a.bExternal;
    p->bRowtime = a.bRowtime;
    p->nTtl = a.nTtl;
    p->iIndex = a.iEntry;
    if( a.zEntriesOf ){
      const char *zRowDot = strchr(a.zEntriesOf, '.');
      char *zRowKs;
      wcAssert( zRowDot != 0 );
      zRowKs = sqlite3_mprintf("%.*s", (int)(zRowDot - a.zEntriesOf),
                               a.zEntriesOf);
      p->zRowTable = zRowKs ? sqlite3_mprintf("\"%w\".\"%w\"", zRowKs,
                                              zRowDot + 1) : 0;
      sqlite3_free(zRowKs);
    }
    if( !p->zKeyspace || !p->zCqlTable || !p->zCqlName || !p->zSuffix
     || !p->zOwner || (a.zEntriesOf && !p->zRowTable) ){
      zErr = sqlite3_mprintf("out of memory");
    }
  }
  if( zErr == 0 ) zErr = parseDesign(p, a.zDesign);
  if( zErr == 0 && p->iIndex >= p->pS->nIndex ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: the design has no INDEX "
                           "%d", p->zName, p->iIndex);
  }
  scArgsClear(&a);
  return zErr;
}

/* The CQL table's columns and key, each column's CQL type, and the CQL
** fragments the calls use.  The key is the one the design means
** (key/wc_cql.h): the partition key's columns, then the clustering
** columns; an index's table's ends with its entry's row key as a blob,
** "rowkey" (the pseudo-column pS->nCol, first of its columns), so that
** the entries of one index key sort by the row key's bytes, as widecol's
** index keys do. */
static int describeRowKey(CqTable *p);
static int describeKey(CqTable *p){
  const WcSchema *pS = p->pS;
  const WcSchema *pKey = p->iIndex >= 0 ? pS->aIndex[p->iIndex].pKey : pS;
  sqlite3_str *pCols = sqlite3_str_new(0), *pWhere = sqlite3_str_new(0);
  sqlite3_str *pPart = sqlite3_str_new(0), *pTokArgs = sqlite3_str_new(0);
  WcCqlKey key;
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
  p->aType[CQ_STAMP(pS)] = CQ_TYPE_BLOB;
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
  p->aiCqlPos[CQ_STAMP(pS)] = p->nCqlCol;
  p->aiCqlCol[p->nCqlCol++] = CQ_STAMP(pS);
  for(i = 0; i < p->nCqlCol; i++){
    sqlite3_str_appendf(pCols, "%s\"%w\"", i ? ", " : "",
                        cqColumnName(p, p->aiCqlCol[i]));
  }
  if( wcCqlKey(pS, p->iIndex, WC_CQL_ROW_BYTES, &key) != SQLITE_OK ){
    return SQLITE_NOMEM;
  }
  p->nPart = key.nPart;
  for(i = 0; i < key.nCol; i++){
    wcAssert( key.aiCol[i] >= 0 || key.aiCol[i] == WC_CQL_ROWKEY );
    p->aiKey[p->nKey++] = key.aiCol[i] < 0 ? CQ_ROWKEY(pS) : key.aiCol[i];
  }
  wcCqlKeyFree(&key);
  p->nKeyRead = p->nKey;
  if( p->iIndex >= 0 ){
    /* Each write's entries apart: the stamp ends the key. */
    p->aiKey[p->nKey++] = CQ_STAMP(pS);
  }
  if( p->nKey > CQ_MAX_ARGS ){
    cqTableError(p, SQLITE_TOOBIG, "a key of %d columns; a table on Cassandra "
               "has at most %d", p->nKey, CQ_MAX_ARGS);
    return SQLITE_TOOBIG;
  }
  for(i = 0; i < p->nKey; i++){
    const char *zCol = cqColumnName(p, p->aiKey[i]);
    p->abKey[p->aiKey[i]] = 1;
    sqlite3_str_appendf(pWhere, "%s\"%w\" = ?", i ? " AND " : "", zCol);
    if( i + 1 == p->nKeyRead ){
      p->zReadWhere = sqlite3_mprintf("%s", sqlite3_str_value(pWhere));
    }
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
  if( !p->zColumns || !p->zKeyWhere || !p->zReadWhere || !p->zPartWhere
   || !p->zToken || !p->pHasher ){
    return SQLITE_NOMEM;
  }
  return p->iIndex >= 0 ? describeRowKey(p) : SQLITE_OK;
}

/* An index's table: the read of an entry's row's _stamp, which the entry
** is checked against (cq_read.c), and the row key's columns it binds. */
static int describeRowKey(CqTable *p){
  sqlite3_str *pStr = sqlite3_str_new(0);
  WcCqlKey key;
  int i;
  if( wcCqlKey(p->pS, -1, WC_CQL_ROW_BYTES, &key) != SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(pStr));
    return SQLITE_NOMEM;
  }
  p->aiRowKey = sqlite3_malloc64(sizeof(int) * ((size_t)key.nCol + 1));
  sqlite3_str_appendf(pStr, "SELECT \"" WC_STAMP_COLUMN "\" FROM %s WHERE ",
                      p->zRowTable);
  for(i = 0; i < key.nCol && p->aiRowKey; i++){
    /* A row table's key is the design's columns alone. */
    wcAssert( key.aiCol[i] >= 0 );
    sqlite3_str_appendf(pStr, "%s\"%w\" = ?", i ? " AND " : "",
                        cqColumnName(p, key.aiCol[i]));
    p->aiRowKey[p->nRowKey++] = key.aiCol[i];
  }
  wcCqlKeyFree(&key);
  p->zRowCql = sqlite3_str_finish(pStr);
  return p->zRowCql && p->aiRowKey ? SQLITE_OK : SQLITE_NOMEM;
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
  sqlite3_free(p->zReadWhere);
  sqlite3_free(p->zRowTable);
  sqlite3_free(p->zRowCql);
  sqlite3_free(p->aiRowKey);
  wcBufFree(&p->seenKey);
  wcBufFree(&p->seenStamp);
  sqlite3_free(p->zPartWhere);
  sqlite3_free(p->zToken);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/*
** DDL at the end of the transaction (stores/contract/sc_txn.c): CQL's
** CREATE and DROP happen at once, so a CREATE's table is dropped again at
** ROLLBACK (or a ROLLBACK TO before it), and a DROP TABLE's at COMMIT,
** after the writes were answered.
*/

/* Puts the transaction table in the transaction. */
static int enlist(CqTable *p){
  char *zErr = 0;
  int rc = scTxnEnlist(p->pShared->db, CQ_TXN_MODULE,
                       wcKind(WC_STORE_CASSANDRA)->zEngine, &zErr);
  if( rc != SQLITE_OK ) rc = cqTableError(p, rc, "%s", zErr ? zErr : "?");
  sqlite3_free(zErr);
  return rc;
}

/* A table waiting for the end (ScDdlOps). */
static int dropNow(void *pObj, int *pbKept){
  return cqDropRemote((CqTable*)pObj, pbKept);
}
static void undoNow(void *pObj){
  CqTable *p = (CqTable*)pObj;
  int bKept;
  if( cqDropRemote(p, &bKept) != SQLITE_OK ){
    /* Undoing cannot fail the ROLLBACK that asked for it. */
    sqlite3_log(SQLITE_WARNING, "%s: undoing its CREATE",
                p->base.zErrMsg ? p->base.zErrMsg : "?");
  }
}
static void ddlFree(void *pObj){ tableFree((CqTable*)pObj); }
static const char *tableName(void *pObj){ return ((CqTable*)pObj)->zName; }
static const char *tableResource(void *pObj){
  return ((CqTable*)pObj)->zCqlName;
}
static const ScDdlOps ddlOps = {
  dropNow, undoNow, ddlFree, tableName, tableResource
};

/* A copy of p with what dropping its CQL table needs: SQLite may
** disconnect p before the ROLLBACK TO that drops it. */
static CqTable *standIn(const CqTable *p){
  CqTable *pNew = sqlite3_malloc(sizeof(*pNew));
  if( pNew == 0 ) return 0;
  memset(pNew, 0, sizeof(*pNew));
  pNew->pShared = p->pShared;
  pNew->zName = sqlite3_mprintf("%s", p->zName);
  pNew->zSuffix = sqlite3_mprintf("%s", p->zSuffix);
  pNew->zKeyspace = sqlite3_mprintf("%s", p->zKeyspace);
  pNew->zCqlTable = sqlite3_mprintf("%s", p->zCqlTable);
  pNew->zCqlName = sqlite3_mprintf("%s", p->zCqlName);
  pNew->zOwner = sqlite3_mprintf("%s", p->zOwner);
  if( !pNew->zName || !pNew->zSuffix || !pNew->zKeyspace || !pNew->zCqlTable
   || !pNew->zCqlName || !pNew->zOwner ){
    tableFree(pNew);
    return 0;
  }
  return pNew;
}

/* The CREATE made p's CQL table: dropped again at ROLLBACK (on a failure
** here, at once, as it cannot be then). */
static int madeLater(CqTable *p){
  CqShared *pSh = p->pShared;
  CqTable *pCopy;
  int rc = enlist(p), bKept;
  pCopy = rc == SQLITE_OK ? standIn(p) : 0;
  if( pCopy ){
    rc = scDdlAdd(&pSh->ddl, SC_DDL_MADE, pCopy, &ddlOps, pSh->iDdlSeq++);
    if( rc != SQLITE_OK ) tableFree(pCopy);
  }else if( rc == SQLITE_OK ){
    rc = SQLITE_NOMEM;
  }
  if( rc != SQLITE_OK ) cqDropRemote(p, &bKept);
  return rc;
}

static int dropLater(CqTable *p){
  CqShared *pSh = p->pShared;
  int rc = enlist(p);
  if( rc != SQLITE_OK ) return rc;
  return scDdlAdd(&pSh->ddl, SC_DDL_DROP, p, &ddlOps, pSh->iDdlSeq++);
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
  /* An index's table's arguments name its rowkey too ("rowkey _"), a
  ** versioned table's its rowtime apart (ROWTIME). */
  if( rc == SQLITE_OK && nCol + p->bRowtime + 1 != p->nCqlCol ){
    *pzErr = sqlite3_mprintf("widecol_cassandra %s: %d columns, where the "
                             "design's table has %d", p->zName, nCol,
                             p->nCqlCol - 1 - p->bRowtime);
    tableFree(p);
    return SQLITE_ERROR;
  }
  pDecl = sqlite3_str_new(0);
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(%s BLOB PRIMARY KEY",
                      p->iIndex >= 0 ? "ikey" : "rowkey");
  for(i = 0; i < p->nCqlCol; i++){
    /* _stamp is widecol's, hidden as on every store with stamps. */
    sqlite3_str_appendf(pDecl, ", \"%w\"%s", cqColumnName(p, p->aiCqlCol[i]),
                        p->aiCqlCol[i] == CQ_STAMP(p->pS) ? " BLOB HIDDEN" : "");
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  zDecl = sqlite3_str_finish(pDecl);
  if( rc == SQLITE_OK ){
    rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  }
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    int bMade = 0;
    if( bCreate ) rc = cqCreateRemote(p, &bMade);
    if( rc == SQLITE_OK && bMade ) rc = madeLater(p);
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

/* DROP TABLE: the CQL table is dropped at COMMIT (dropLater(), which
** takes p); an EXTERNAL one is kept. */
static int cqDestroy(sqlite3_vtab *pVtab){
  CqTable *p = (CqTable*)pVtab;
  if( !p->bExternal ) return dropLater(p);
  tableFree(p);
  return SQLITE_OK;
}

static int cqRename(sqlite3_vtab *pVtab, const char *zNew){
  CqTable *p = (CqTable*)pVtab;
  char *zName = sqlite3_mprintf("%s", zNew);
  if( zName == 0 ) return SQLITE_NOMEM;
  sqlite3_free(p->zName);
  p->zName = zName;
  return SQLITE_OK;
}

/* Planning: the contract's constraints (sc_plan.c): rowkey's bounds, a
** LIMIT the read stops at (where SQLite leaves it nothing else to do),
** the order; idxStr the columns used, which the read selects alone (and
** the key's, to make each row's key).  Rows come in key order, or in
** descending key order (a partition's slice read reversed, token ranges
** held and walked back: cq_read.c).  With key = ?, _stamp = ? (and on an
** index's table rowkey = ?) names the row a write that follows acts on,
** which is not read at all. */
static int cqBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  CqTable *p = (CqTable*)pVtab;
  ScPlanCaps caps;
  memset(&caps, 0, sizeof(caps));
  /* SQLite's columns: the key, then the CQL table's. */
  caps.iStampCol = 1 + p->aiCqlPos[CQ_STAMP(p->pS)];
  caps.iRowkeyCol = p->iIndex >= 0 ? 1 + p->aiCqlPos[CQ_ROWKEY(p->pS)] : -1;
  caps.iNewestFirst = -1;
  caps.bOneRowPerKey = 1;
  caps.bDescending = 1;
  caps.bLimitCaps = 1;
  return scBestIndex(pInfo, &caps);
}

static const sqlite3_module cqModule = {
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
  scFindFunction,
  cqRename,
  cqSavepoint,
  cqRelease,
  cqRollbackTo,
  0                     /* xShadowName */
};

/* The transaction table (stores/contract/sc_txn.c): a table of the
** module with no rows, which DDL puts in the transaction so that its end
** comes here. */
static int txnConnect(sqlite3 *db, void *pAux, int argc,
                      const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr){
  CqTable *p = sqlite3_malloc(sizeof(*p));
  int rc;
  (void)argc;
  (void)argv;
  (void)pzErr;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pShared = (CqShared*)pAux;
  p->zName = sqlite3_mprintf("%s", CQ_TXN_MODULE);
  p->zSuffix = sqlite3_mprintf("");
  rc = p->zName && p->zSuffix ? sqlite3_declare_vtab(db, scTxnDeclaration)
                              : SQLITE_NOMEM;
  if( rc != SQLITE_OK ){
    tableFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static const sqlite3_module cqTxnModule = SC_TXN_MODULE(txnConnect,
    cqDisconnect, cqBegin, cqSync, cqCommit, cqRollback, cqSavepoint,
    cqRelease, cqRollbackTo);

/* The module's client data, counted: one reference each module holds. */
static void sharedRef(void *pArg){
  ((CqShared*)pArg)->nRef++;
}

/* The module's destructor: the connection, and what its writes kept,
** with the last reference. */
static void sharedUnref(void *pArg){
  CqShared *p = (CqShared*)pArg;
  if( --p->nRef > 0 ) return;
  scDdlUndo(&p->ddl, 0, 0);
  cqWritesFree(p);
  cqClusterFree(&p->cluster);
  sqlite3_free(p);
}

int cqRegister(sqlite3 *db, char **pzErrMsg){
  const WcKind *pKind = wcKind(WC_STORE_CASSANDRA);
  CqShared *pShared;
  ScModule aModule[3];
  pShared = sqlite3_malloc(sizeof(*pShared));
  if( pShared == 0 ) return SQLITE_NOMEM;
  memset(pShared, 0, sizeof(*pShared));
  pShared->db = db;
  pShared->nRef = 1;
  pShared->cluster.iControl = -1;
  aModule[0].zName = pKind->zModule;
  aModule[0].pModule = &cqModule;
  aModule[1].zName = CQ_TXN_MODULE;
  aModule[1].pModule = &cqTxnModule;
  aModule[2].zName = CQ_NODES_MODULE;
  aModule[2].pModule = &cqNodesModule;
  return scRegister(db, pzErrMsg, pKind, aModule, 3, pShared, sharedRef,
                    sharedUnref);
}
