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
**   - DDL waits for the end too (CsTxn.pRemote): DROP TABLE deletes the
**     engine's table at COMMIT, after the writes are sent, and only if
**     its design record says the dropping table made it (cs_admin.c); a
**     CREATE makes its table at once (the statements after it use it),
**     and ROLLBACK, or a ROLLBACK TO before it, deletes it again.  A
**     dropped table is no longer SQLite's and gets no more calls, so the
**     DDL enlists the transaction table (CsTransport.zTxnModule:
**     widecol_bigtable_txn, widecol_hbase_txn), an eponymous table of
**     this module that holds nothing, in the transaction (a nested INSERT
**     into it):
**     its xSync, xCommit, xRollback and xRollbackTo come whatever else the
**     transaction touched.
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

/* DDL waiting for the end of the transaction (see the top). */
#define CS_REMOTE_DROP 1    /* DROP TABLE: delete it at COMMIT */
#define CS_REMOTE_MADE 2    /* CREATE: undo it at ROLLBACK */
struct CsRemote {
  CsRemote *pNext;
  int eWhat;            /* CS_REMOTE_* */
  CsTable *pTable;      /* The dropped table (no longer SQLite's), or a
                        ** stand-in for the one made (SQLite may disconnect
                        ** it before the ROLLBACK TO that undoes it) */
  int bMade;            /* CS_REMOTE_MADE: CreateTable made it, */
  int bClaimed;         /* and wrote its design record */
  int64_t iSeq;         /* CsTxn.iSeq when it happened, for savepoints */
};

static void remoteFree(CsRemote *pR){
  csTableFree(pR->pTable);
  sqlite3_free(pR);
}

/* Forgets the DDL that happened since iSeq (0: all of it), and if bUndo
** undoes each CREATE among it. */
static void remoteUndo(CsTxn *pTxn, int64_t iSeq, int bUndo){
  CsRemote **pp = &pTxn->pRemote;
  while( *pp ){
    CsRemote *pR = *pp;
    /* In the order the DDL came (remoteAdd()). */
    wcAssert( pR->pNext == 0 || pR->pNext->iSeq > pR->iSeq );
    if( pR->iSeq < iSeq ){
      pp = &pR->pNext;
      continue;
    }
    *pp = pR->pNext;
    if( bUndo && pR->eWhat == CS_REMOTE_MADE ){
      csUndoCreate(pR->pTable, pR->bMade, pR->bClaimed);
    }
    remoteFree(pR);
  }
}

void csTxnUnref(void *pArg){
  CsTxn *p = (CsTxn*)pArg;
  wcAssert( p == 0 || p->nRef > 0 );
  if( p && --p->nRef == 0 ){
    wcAssert( p->pTables == 0 );     /* each table held a reference */
    remoteUndo(p, 0, 0);
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
  remoteUndo(pTxn, 0, 0);
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

/* COMMIT's DROPs, in the order they came: each engine table deleted
** (if the dropped table made it).  The first failure fails the COMMIT,
** which SQLite then rolls back, so the message says what was deleted. */
static int remoteDrops(CsTable *p){
  CsTxn *pTxn = p->pTxn;
  sqlite3_str *pDone = sqlite3_str_new(0);
  int nDone = 0, rc = SQLITE_OK;
  char *zDone;
  while( pTxn->pRemote && rc == SQLITE_OK ){
    CsRemote *pR = pTxn->pRemote;
    CsTable *pT = pR->pTable;
    int bKept = 1;
    wcAssert( pR->eWhat == CS_REMOTE_DROP || pR->eWhat == CS_REMOTE_MADE );
    if( pR->eWhat == CS_REMOTE_DROP ){
      rc = csDropRemote(pT, &bKept);
      if( rc != SQLITE_OK ){
        zDone = sqlite3_str_finish(pDone);
        pDone = 0;
        rc = csError(p, rc, "%s; so the COMMIT failed and the transaction "
            "is rolled back, DROP TABLE %s with it%s%s: run the DROP again",
            pT->base.zErrMsg ? pT->base.zErrMsg : "?", pT->zTable,
            nDone ? "; deleted before that: " : "", nDone ? zDone : "");
        sqlite3_free(zDone);
        break;
      }
      if( !bKept ){
        sqlite3_str_appendf(pDone, "%s%s", nDone++ ? ", " : "",
                            pT->args.zResource);
      }
    }
    pTxn->pRemote = pR->pNext;
    remoteFree(pR);
  }
  if( pDone ) sqlite3_free(sqlite3_str_finish(pDone));
  return rc;
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
  if( rc == SQLITE_OK && pTxn->pRemote ) rc = remoteDrops(p);
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
  remoteUndo(pTxn, 0, 1);
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
    remoteUndo(pTxn, pTxn->aiSeq[iSavepoint], 1);
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
  char *zSql = sqlite3_mprintf("INSERT INTO main.\"%w\" VALUES (NULL)",
                               p->pT->zTxnModule);
  int rc = zSql ? sqlite3_exec(p->db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    rc = csError(p, rc, "widecol %s: could not put its %s DDL in the "
                 "transaction: %s", p->zTable, p->pT->pKind->zEngine,
                 sqlite3_errmsg(p->db));
  }
  return rc;
}

/* A new DDL entry for pT (owned from now), or NULL (pT freed). */
static CsRemote *remoteAdd(CsTxn *pTxn, int eWhat, CsTable *pT){
  CsRemote *pR = sqlite3_malloc(sizeof(*pR)), **pp;
  if( pR == 0 ){
    csTableFree(pT);
    return 0;
  }
  /* No longer one of the connection's tables (see CsRemote.pTable). */
  wcAssert( pT->pTxn == 0 );
  memset(pR, 0, sizeof(*pR));
  pR->eWhat = eWhat;
  pR->pTable = pT;
  pR->iSeq = pTxn->iSeq++;
  for(pp = &pTxn->pRemote; *pp; pp = &(*pp)->pNext){}
  *pp = pR;
  return pR;
}

int csTxnDropLater(CsTable *p){
  CsTxn *pTxn = p->pTxn;
  CsTable **pp;
  int rc = enlist(p);
  if( rc != SQLITE_OK ) return rc;
  /* No longer one of the connection's tables: no read finds it, and it
  ** holds no reference to their state. */
  for(pp = &pTxn->pTables; *pp && *pp != p; pp = &(*pp)->pNextTable){}
  if( *pp ) *pp = p->pNextTable;
  p->pTxn = 0;
  rc = remoteAdd(pTxn, CS_REMOTE_DROP, p) ? SQLITE_OK : SQLITE_NOMEM;
  csTxnUnref(pTxn);
  return rc;
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
  CsTable *pCopy;
  CsRemote *pR;
  int rc;
  if( !bMade && !bClaimed ) return SQLITE_OK;
  rc = enlist(p);
  pCopy = rc == SQLITE_OK ? standIn(p) : 0;
  pR = pCopy ? remoteAdd(p->pTxn, CS_REMOTE_MADE, pCopy) : 0;
  if( pR == 0 ){
    csUndoCreate(p, bMade, bClaimed);
    return rc == SQLITE_OK ? SQLITE_NOMEM : rc;
  }
  pR->bMade = bMade;
  pR->bClaimed = bClaimed;
  return SQLITE_OK;
}

int csTxnDropping(CsTxn *pTxn, const char *zResource){
  CsRemote *pR;
  for(pR = pTxn->pRemote; pR; pR = pR->pNext){
    if( pR->eWhat == CS_REMOTE_DROP
     && strcmp(pR->pTable->args.zResource, zResource) == 0 ){
      return 1;
    }
  }
  return 0;
}

/*
** The transaction table: eponymous, no rows; an INSERT does nothing but
** put it in the transaction.
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
     ? sqlite3_declare_vtab(db, "CREATE TABLE x(ddl)") : SQLITE_NOMEM;
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

static int txnBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  pInfo->estimatedCost = 1;
  pInfo->estimatedRows = 0;
  return SQLITE_OK;
}

static int txnOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  sqlite3_vtab_cursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCur = pCur;
  return SQLITE_OK;
}

static int txnClose(sqlite3_vtab_cursor *pCur){
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int txnFilter(sqlite3_vtab_cursor *pCur, int idxNum,
                     const char *idxStr, int argc, sqlite3_value **argv){
  (void)pCur;
  (void)idxNum;
  (void)idxStr;
  (void)argc;
  (void)argv;
  return SQLITE_OK;
}

static int txnNext(sqlite3_vtab_cursor *pCur){
  (void)pCur;
  return SQLITE_OK;
}

static int txnEof(sqlite3_vtab_cursor *pCur){
  (void)pCur;
  return 1;
}

static int txnColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx,
                     int iCol){
  (void)pCur;
  (void)iCol;
  sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int txnRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  (void)pCur;
  *pRowid = 0;
  return SQLITE_OK;
}

static int txnUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                     sqlite3_int64 *pRowid){
  (void)pVtab;
  (void)argc;
  (void)argv;
  *pRowid = 0;
  return SQLITE_OK;
}

const sqlite3_module csTxnModule = {
  2,                    /* iVersion: savepoints */
  0,                    /* xCreate: eponymous only */
  txnConnect,
  txnBestIndex,
  txnDisconnect,
  0,
  txnOpen,
  txnClose,
  txnFilter,
  txnNext,
  txnEof,
  txnColumn,
  txnRowid,
  txnUpdate,
  csBegin,
  csSync,
  csCommit,
  csRollback,
  0,                    /* xFindFunction */
  0,                    /* xRename */
  csSavepoint,
  csRelease,
  csRollbackTo,
  0                     /* xShadowName */
};
