/*
** cs_txn.c: transactions of the cell store's module (cs_table.h), and
** the connection state (CsTxn) they live in.
**
** Bigtable and HBase apply each row's mutations atomically and no more,
** so a transaction here is a promise about what is sent and what is
** reported:
**   - Writes wait in batches (cs_batch.c) until a read needs them sent, a
**     batch is full, or the transaction ends: at COMMIT (xSync) they are
**     sent and any failure fails the COMMIT; a statement in autocommit is
**     its own transaction.
**   - A failure found before then (a read sent the batch) is kept: in
**     autocommit it is the running statement's, which fails with it; in a
**     transaction the statements that made the writes have returned, so
**     it waits for COMMIT, and the transaction sends nothing more (a
**     statement that would send fails, saying so) until ROLLBACK.
**   - ROLLBACK (and a failed statement's ROLLBACK TO) drops the writes
**     waiting if nothing was sent since the transaction (or statement)
**     began: then nothing happened.  Once something was sent it cannot
**     be taken back, and dropping the rest could leave a moved row at
**     both keys: the rest is sent instead, so every row is written whole,
**     unless a failure was kept (then nothing more is sent).
**   - DDL waits for the end too (CsTxn.ddl, stores/contract/sc_txn.c):
**     DROP TABLE deletes the engine's table at COMMIT, after the writes
**     are sent, and only if its design record says the dropping table
**     made it (cs_admin.c); a CREATE makes its table at once (the
**     statements after it use it), and ROLLBACK, or a ROLLBACK TO before
**     it, deletes it again.  The DDL enlists the transaction table
**     (CsTransport.zTxnModule: widecol_bigtable_txn, widecol_hbase_txn),
**     whose transaction methods are this file's.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

CsTxn *csTxnNew(const CsTransport *pT){
  CsTxn *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->nRef = 1;
    p->pT = pT;
  }
  return p;
}

void csTxnRef(void *pTxn){
  CsTxn *p = (CsTxn*)pTxn;
  wcAssert( p->nRef > 0 );
  p->nRef++;
}

void csTxnUnref(void *pArg){
  CsTxn *p = (CsTxn*)pArg;
  wcAssert( p == 0 || p->nRef > 0 );
  if( p && --p->nRef == 0 ){
    wcAssert( p->pTables == 0 );     /* each table held a reference */
    scDdlUndo(&p->ddl, 0, 0);
    csBatchFreeAll(p);
    sqlite3_free(p->zFailed);
    sqlite3_free(p);
  }
}

/* A table's memory; its link in the connection's list, and its
** reference to the connection's state. */
void csTableFree(CsTable *p){
  if( p == 0 ) return;
  scArgsClear(&p->args);
  sqlite3_free(p->aCol);
  sqlite3_free(p->aiSorted);
  sqlite3_free(p->azFamily);
  if( p->pTxn ){
    CsTable **pp = &p->pTxn->pTables;
    while( *pp && *pp != p ) pp = &(*pp)->pNextTable;
    if( *pp ) *pp = p->pNextTable;
    csTxnUnref(p->pTxn);
  }
  sqlite3_finalize(p->pProbe);
  wcBufFree(&p->seenKey);
  wcBufFree(&p->seenMarker);
  wcBufFree(&p->seenRowkey);
  sqlite3_free(p->zName);
  sqlite3_free(p->zTable);
  if( p->pConn ) p->pT->xClose(p->pConn);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

int csAutocommit(const CsTable *p){
  return sqlite3_get_autocommit(p->db);
}

/* Forgets the transaction: what waits, what failed. */
static void txnEnd(CsTxn *pTxn){
  scDdlUndo(&pTxn->ddl, 0, 0);
  csTxnDrop(pTxn, 0);
  sqlite3_free(pTxn->zFailed);
  pTxn->zFailed = 0;
  pTxn->rcFailed = SQLITE_OK;
  pTxn->bOpen = 0;
  pTxn->nSavepoint = 0;
}

int csBegin(sqlite3_vtab *pVtab){
  CsTxn *pTxn = ((CsTable*)pVtab)->pTxn;
  wcAssert( pTxn->iBegin <= pTxn->nSent );
  if( !pTxn->bOpen ){
    pTxn->bOpen = 1;
    pTxn->iBegin = pTxn->nSent;
    pTxn->nSavepoint = 0;
  }
  return SQLITE_OK;
}

/* The end of an autocommit statement, or COMMIT: every table of the
** connection is asked; the first sends what waits, then deletes what
** was dropped. */
int csSync(sqlite3_vtab *pVtab){
  CsTable *p = (CsTable*)pVtab;
  CsTxn *pTxn = p->pTxn;
  int rc;
  if( pTxn->zFailed ){
    return csError(p, pTxn->rcFailed, "%s%s", pTxn->zFailed,
                   pTxn->nOp > 0 ? "; what was written after that was not "
                   "sent" : "");
  }
  rc = csTxnFlush(p, 1, 0);
  if( rc == SQLITE_OK && pTxn->ddl.pFirst ){
    /* COMMIT's DROPs, after the writes; a failure fails the COMMIT, which
    ** SQLite then rolls back, so the message says what was deleted. */
    char *zErr = 0;
    rc = scDdlCommit(&pTxn->ddl, &zErr);
    if( rc != SQLITE_OK ) rc = csError(p, rc, "%s", zErr ? zErr : "?");
    sqlite3_free(zErr);
  }
  return rc;
}

int csCommit(sqlite3_vtab *pVtab){
  txnEnd(((CsTable*)pVtab)->pTxn);
  return SQLITE_OK;
}

int csRollback(sqlite3_vtab *pVtab){
  CsTable *p = (CsTable*)pVtab;
  CsTxn *pTxn = p->pTxn;
  wcAssert( pTxn->iBegin <= pTxn->nSent );
  scDdlUndo(&pTxn->ddl, 0, 1);
  if( pTxn->nOp > 0 && pTxn->zFailed == 0 && pTxn->nSent != pTxn->iBegin ){
    /* Rows whole rather than undone in part; a ROLLBACK cannot fail, so
    ** what fails now is logged. */
    if( csTxnFlush(p, 0, 0) != SQLITE_OK || pTxn->zFailed ){
      sqlite3_log(SQLITE_WARNING, "widecol %s: at ROLLBACK, writes sent to "
                  "complete rows already written failed: %s", p->zTable,
                  pTxn->zFailed ? pTxn->zFailed : "?");
    }
  }
  txnEnd(pTxn);
  return SQLITE_OK;
}

int csSavepoint(sqlite3_vtab *pVtab, int iSavepoint){
  CsTable *p = (CsTable*)pVtab;
  CsTxn *pTxn = p->pTxn;
  wcAssert( iSavepoint >= 0 && pTxn->nSavepoint <= CS_MAX_SAVEPOINT );
  if( iSavepoint >= CS_MAX_SAVEPOINT ){
    return csError(p, SQLITE_ERROR, "widecol %s: more than %d nested "
                   "savepoints", p->zTable, CS_MAX_SAVEPOINT);
  }
  /* The first table to open a savepoint says where it began. */
  while( pTxn->nSavepoint <= iSavepoint ){
    pTxn->aiSent[pTxn->nSavepoint] = pTxn->nSent;
    pTxn->aiSeq[pTxn->nSavepoint] = pTxn->iSeq;
    pTxn->nSavepoint++;
  }
  return SQLITE_OK;
}

int csRelease(sqlite3_vtab *pVtab, int iSavepoint){
  CsTxn *pTxn = ((CsTable*)pVtab)->pTxn;
  if( iSavepoint < pTxn->nSavepoint ) pTxn->nSavepoint = iSavepoint;
  return SQLITE_OK;
}

int csRollbackTo(sqlite3_vtab *pVtab, int iSavepoint){
  CsTxn *pTxn = ((CsTable*)pVtab)->pTxn;
  wcAssert( iSavepoint >= 0 && pTxn->nSavepoint <= CS_MAX_SAVEPOINT );
  if( iSavepoint < pTxn->nSavepoint ){
    scDdlUndo(&pTxn->ddl, pTxn->aiSeq[iSavepoint], 1);
  }
  if( iSavepoint < pTxn->nSavepoint
   && pTxn->nSent == pTxn->aiSent[iSavepoint] ){
    csTxnDrop(pTxn, pTxn->aiSeq[iSavepoint]);
  }
  /* Else what waits stays, to be sent whole with the rest. */
  return SQLITE_OK;
}

/*
** DDL (see the top).
*/

/* Puts the transaction table in the transaction, so that its end comes
** to this module whatever else the transaction holds. */
static int enlist(CsTable *p){
  char *zErr = 0;
  int rc = scTxnEnlist(p->db, p->pT->zTxnModule, p->pT->pKind->zEngine,
                       &zErr);
  if( rc != SQLITE_OK ){
    rc = csError(p, rc, "widecol %s: %s", p->zTable, zErr ? zErr : "?");
  }
  sqlite3_free(zErr);
  return rc;
}

/* A dropped table, waiting for COMMIT (ScDdlOps). */
static int dropNow(void *pObj, int *pbKept){
  return csDropRemote((CsTable*)pObj, pbKept);
}
static void tableFree(void *pObj){ csTableFree((CsTable*)pObj); }
static const char *tableName(void *pObj){ return ((CsTable*)pObj)->zTable; }
static const char *tableResource(void *pObj){
  return ((CsTable*)pObj)->args.zResource;
}
static void noUndo(void *pObj){ (void)pObj; }
static const ScDdlOps dropOps = {
  dropNow, noUndo, tableFree, tableName, tableResource
};

/* A table made in the transaction, and what its CREATE did, waiting for
** a ROLLBACK to undo it (ScDdlOps). */
typedef struct CsMade CsMade;
struct CsMade {
  CsTable *pTable;      /* A stand-in: SQLite may disconnect the table
                        ** before the ROLLBACK TO that undoes it */
  int bMade;            /* CreateTable made it, */
  int bClaimed;         /* and wrote its design record */
};
static int madeNoDrop(void *pObj, int *pbKept){
  (void)pObj;
  (void)pbKept;
  return SQLITE_OK;
}
static void madeUndo(void *pObj){
  CsMade *pMade = (CsMade*)pObj;
  csUndoCreate(pMade->pTable, pMade->bMade, pMade->bClaimed);
}
static void madeFree(void *pObj){
  csTableFree(((CsMade*)pObj)->pTable);
  sqlite3_free(pObj);
}
static const char *madeName(void *pObj){
  return ((CsMade*)pObj)->pTable->zTable;
}
static const char *madeResource(void *pObj){
  return ((CsMade*)pObj)->pTable->args.zResource;
}
static const ScDdlOps madeOps = {
  madeNoDrop, madeUndo, madeFree, madeName, madeResource
};

int csTxnDropLater(CsTable *p){
  CsTxn *pTxn = p->pTxn;
  CsTable **pp;
  int rc = enlist(p);
  if( rc == SQLITE_OK ){
    rc = scDdlAdd(&pTxn->ddl, SC_DDL_DROP, p, &dropOps, pTxn->iSeq++);
  }
  /* Not taken: SQLite keeps the table, whose DROP failed. */
  if( rc != SQLITE_OK ) return rc;
  /* No longer one of the connection's tables: no read finds it, and it
  ** holds no reference to their state. */
  for(pp = &pTxn->pTables; *pp && *pp != p; pp = &(*pp)->pNextTable){}
  if( *pp ) *pp = p->pNextTable;
  p->pTxn = 0;
  csTxnUnref(pTxn);
  return SQLITE_OK;
}

/* A copy of p with what making and deleting its engine table needs. */
static CsTable *standIn(const CsTable *p){
  CsTable *pNew = sqlite3_malloc(sizeof(*pNew));
  if( pNew == 0 ) return 0;
  memset(pNew, 0, sizeof(*pNew));
  pNew->db = p->db;
  pNew->pT = p->pT;
  pNew->eKind = p->eKind;
  pNew->args.bExternal = p->args.bExternal;
  pNew->zName = sqlite3_mprintf("%s", p->zName);
  pNew->zTable = sqlite3_mprintf("%s", p->zTable);
  pNew->args.zResource = sqlite3_mprintf("%s", p->args.zResource);
  pNew->args.zOwner = p->args.zOwner
                     ? sqlite3_mprintf("%s", p->args.zOwner) : 0;
  pNew->args.zDesign = p->args.zDesign
                      ? sqlite3_mprintf("%s", p->args.zDesign) : 0;
  if( !pNew->zName || !pNew->zTable || !pNew->args.zResource
   || (p->args.zOwner && !pNew->args.zOwner)
   || (p->args.zDesign && !pNew->args.zDesign) ){
    csTableFree(pNew);
    return 0;
  }
  return pNew;
}

int csTxnMade(CsTable *p, int bMade, int bClaimed){
  CsMade *pMade;
  int rc;
  if( !bMade && !bClaimed ) return SQLITE_OK;
  rc = enlist(p);
  pMade = rc == SQLITE_OK ? sqlite3_malloc(sizeof(*pMade)) : 0;
  if( pMade ){
    pMade->pTable = standIn(p);
    pMade->bMade = bMade;
    pMade->bClaimed = bClaimed;
    if( pMade->pTable == 0 ){
      sqlite3_free(pMade);
      pMade = 0;
    }
  }
  if( pMade == 0 ){
    csUndoCreate(p, bMade, bClaimed);
    return rc == SQLITE_OK ? SQLITE_NOMEM : rc;
  }
  rc = scDdlAdd(&p->pTxn->ddl, SC_DDL_MADE, pMade, &madeOps, p->pTxn->iSeq++);
  if( rc != SQLITE_OK ){
    /* Not added: undone now, as it cannot be later. */
    madeFree(pMade);
    csUndoCreate(p, bMade, bClaimed);
  }
  return rc;
}

int csTxnDropping(CsTxn *pTxn, const char *zResource){
  return scDdlDropping(&pTxn->ddl, zResource);
}

/*
** The transaction table: eponymous, no rows (stores/contract/sc_txn.c);
** an INSERT does nothing but put it in the transaction.
*/
static int txnConnect(sqlite3 *db, void *pAux, int argc,
                      const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr){
  CsTable *p = sqlite3_malloc(sizeof(*p));
  int rc;
  (void)argc;
  (void)argv;
  (void)pzErr;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pTxn = (CsTxn*)pAux;
  p->pT = p->pTxn->pT;
  csTxnRef(p->pTxn);
  p->zName = sqlite3_mprintf("%s", p->pT->zTxnModule);
  p->zTable = sqlite3_mprintf("%s", p->pT->zTxnModule);
  rc = p->zName && p->zTable
     ? sqlite3_declare_vtab(db, scTxnDeclaration) : SQLITE_NOMEM;
  if( rc != SQLITE_OK ){
    csTableFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int txnDisconnect(sqlite3_vtab *pVtab){
  csTableFree((CsTable*)pVtab);
  return SQLITE_OK;
}

const sqlite3_module csTxnModule = SC_TXN_MODULE(txnConnect, txnDisconnect,
    csBegin, csSync, csCommit, csRollback, csSavepoint, csRelease,
    csRollbackTo);
