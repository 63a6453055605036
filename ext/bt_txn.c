/*
** bt_txn.c: transactions of the widecol_bigtable module (bt_table.h), and
** the connection state (BtTxn) they live in.
**
** Bigtable applies each row's mutations atomically and no more, so a
** transaction here is a promise about what is sent and what is reported:
**   - Writes wait in batches (bt_batch.c) until a read needs them sent, a
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
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_table.h"

#include <string.h>

BtTxn *btTxnNew(void){
  BtTxn *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->nRef = 1;
  }
  return p;
}

void btTxnRef(BtTxn *p){
  p->nRef++;
}

void btTxnUnref(void *pArg){
  BtTxn *p = (BtTxn*)pArg;
  if( p && --p->nRef == 0 ){
    btBatchFreeAll(p);
    sqlite3_free(p->zFailed);
    sqlite3_free(p);
  }
}

int btAutocommit(const BtTable *p){
  return sqlite3_get_autocommit(p->db);
}

/* Forgets the transaction: what waits, what failed. */
static void txnEnd(BtTxn *pTxn){
  btTxnDrop(pTxn, 0);
  sqlite3_free(pTxn->zFailed);
  pTxn->zFailed = 0;
  pTxn->rcFailed = SQLITE_OK;
  pTxn->bOpen = 0;
  pTxn->nSavepoint = 0;
}

int btBegin(sqlite3_vtab *pVtab){
  BtTxn *pTxn = ((BtTable*)pVtab)->pTxn;
  if( !pTxn->bOpen ){
    pTxn->bOpen = 1;
    pTxn->iBegin = pTxn->nSent;
    pTxn->nSavepoint = 0;
  }
  return SQLITE_OK;
}

/* The end of an autocommit statement, or COMMIT: every table of the
** connection is asked; the first sends what waits. */
int btSync(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( pTxn->zFailed ){
    return btError(p, pTxn->rcFailed, "%s%s", pTxn->zFailed,
                   pTxn->nOp > 0 ? "; what was written after that was not "
                   "sent" : "");
  }
  return btTxnFlush(p, 1, 0);
}

int btCommit(sqlite3_vtab *pVtab){
  txnEnd(((BtTable*)pVtab)->pTxn);
  return SQLITE_OK;
}

int btRollback(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( pTxn->nOp > 0 && pTxn->zFailed == 0 && pTxn->nSent != pTxn->iBegin ){
    /* Rows whole rather than undone in part; a ROLLBACK cannot fail, so
    ** what fails now is logged. */
    if( btTxnFlush(p, 0, 0) != SQLITE_OK || pTxn->zFailed ){
      sqlite3_log(SQLITE_WARNING, "widecol %s: at ROLLBACK, writes sent to "
                  "complete rows already written failed: %s", p->zTable,
                  pTxn->zFailed ? pTxn->zFailed : "?");
    }
  }
  txnEnd(pTxn);
  return SQLITE_OK;
}

int btSavepoint(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( iSavepoint >= BT_MAX_SAVEPOINT ){
    return btError(p, SQLITE_ERROR, "widecol %s: more than %d nested "
                   "savepoints", p->zTable, BT_MAX_SAVEPOINT);
  }
  /* The first table to open a savepoint says where it began. */
  while( pTxn->nSavepoint <= iSavepoint ){
    pTxn->aiSent[pTxn->nSavepoint] = pTxn->nSent;
    pTxn->aiSeq[pTxn->nSavepoint] = pTxn->iSeq;
    pTxn->nSavepoint++;
  }
  return SQLITE_OK;
}

int btRelease(sqlite3_vtab *pVtab, int iSavepoint){
  BtTxn *pTxn = ((BtTable*)pVtab)->pTxn;
  if( iSavepoint < pTxn->nSavepoint ) pTxn->nSavepoint = iSavepoint;
  return SQLITE_OK;
}

int btRollbackTo(sqlite3_vtab *pVtab, int iSavepoint){
  BtTxn *pTxn = ((BtTable*)pVtab)->pTxn;
  if( iSavepoint < pTxn->nSavepoint
   && pTxn->nSent == pTxn->aiSent[iSavepoint] ){
    btTxnDrop(pTxn, pTxn->aiSeq[iSavepoint]);
  }
  /* Else what waits stays, to be sent whole with the rest. */
  return SQLITE_OK;
}
