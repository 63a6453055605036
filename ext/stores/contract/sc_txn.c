/*
** sc_txn.c: DDL that waits for the end of the transaction, for stores
** whose engine's DDL is not transactional (Bigtable, HBase, Cassandra):
** a DROP TABLE deletes the engine's table at COMMIT, and a CREATE, which
** makes it at once (the statements after it use it), is undone by a
** ROLLBACK or a ROLLBACK TO a savepoint before it.
**
** The waiting DDL is a list in the order it came (ScDdl), each item a
** store's object with what COMMIT and ROLLBACK do to it (ScDdlOps).  A
** dropped table is no longer SQLite's and gets no more calls, so the DDL
** puts the store's transaction table in the transaction (scTxnEnlist():
** a nested INSERT into it), an eponymous table of the store's that holds
** nothing and whose transaction methods are the store's: its xSync,
** xCommit, xRollback and xRollbackTo come whatever else the transaction
** touched.  This file has the rest of that table's methods.
*/
#include "util/wc_api.h"
#include "stores/contract/sc_contract.h"

#include <string.h>

struct ScDdlItem {
  ScDdlItem *pNext;
  int eWhat;            /* SC_DDL_DROP or SC_DDL_MADE */
  void *pObj;           /* The store's, freed by pOps->xFree */
  const ScDdlOps *pOps;
  int64_t iSeq;         /* The store's sequence number, for savepoints */
};

static void itemFree(ScDdlItem *p){
  p->pOps->xFree(p->pObj);
  sqlite3_free(p);
}

int scDdlAdd(ScDdl *p, int eWhat, void *pObj, const ScDdlOps *pOps,
             int64_t iSeq){
  ScDdlItem *pItem = sqlite3_malloc(sizeof(*pItem)), **pp;
  wcAssert( eWhat == SC_DDL_DROP || eWhat == SC_DDL_MADE );
  if( pItem == 0 ) return SQLITE_NOMEM;
  memset(pItem, 0, sizeof(*pItem));
  pItem->eWhat = eWhat;
  pItem->pObj = pObj;
  pItem->pOps = pOps;
  pItem->iSeq = iSeq;
  for(pp = &p->pFirst; *pp; pp = &(*pp)->pNext){
    /* In the order the DDL came. */
    wcAssert( (*pp)->iSeq <= iSeq );
  }
  *pp = pItem;
  return SQLITE_OK;
}

void scDdlUndo(ScDdl *p, int64_t iSeq, int bUndo){
  ScDdlItem **pp = &p->pFirst;
  while( *pp ){
    ScDdlItem *pItem = *pp;
    wcAssert( pItem->pNext == 0 || pItem->pNext->iSeq >= pItem->iSeq );
    if( pItem->iSeq < iSeq ){
      pp = &pItem->pNext;
      continue;
    }
    *pp = pItem->pNext;
    if( bUndo && pItem->eWhat == SC_DDL_MADE ) pItem->pOps->xUndo(pItem->pObj);
    itemFree(pItem);
  }
}

int scDdlCommit(ScDdl *p, char **pzErr){
  sqlite3_str *pDone = sqlite3_str_new(0);
  int nDone = 0, rc = SQLITE_OK;
  *pzErr = 0;
  while( p->pFirst && rc == SQLITE_OK ){
    ScDdlItem *pItem = p->pFirst;
    int bKept = 1;
    if( pItem->eWhat == SC_DDL_DROP ){
      rc = pItem->pOps->xDrop(pItem->pObj, &bKept);
      if( rc != SQLITE_OK ){
        const char *zErr = ((sqlite3_vtab*)pItem->pObj)->zErrMsg;
        char *zDone = sqlite3_str_finish(pDone);
        pDone = 0;
        *pzErr = sqlite3_mprintf("%s; so the COMMIT failed and the "
            "transaction is rolled back, DROP TABLE %s with it%s%s: run the "
            "DROP again", zErr ? zErr : sqlite3_errstr(rc),
            pItem->pOps->xTable(pItem->pObj),
            nDone ? "; deleted before that: " : "", nDone ? zDone : "");
        sqlite3_free(zDone);
        break;
      }
      if( !bKept ){
        sqlite3_str_appendf(pDone, "%s%s", nDone++ ? ", " : "",
                            pItem->pOps->xResource(pItem->pObj));
      }
    }
    p->pFirst = pItem->pNext;
    itemFree(pItem);
  }
  if( pDone ) sqlite3_free(sqlite3_str_finish(pDone));
  return rc;
}

int scDdlDropping(const ScDdl *p, const char *zResource){
  const ScDdlItem *pItem;
  for(pItem = p->pFirst; pItem; pItem = pItem->pNext){
    if( pItem->eWhat == SC_DDL_DROP
     && strcmp(pItem->pOps->xResource(pItem->pObj), zResource) == 0 ){
      return 1;
    }
  }
  return 0;
}

int scTxnEnlist(sqlite3 *db, const char *zModule, const char *zEngine,
                char **pzErr){
  char *zSql = sqlite3_mprintf("INSERT INTO main.\"%w\" VALUES (NULL)",
                               zModule);
  int rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  *pzErr = rc == SQLITE_OK ? 0 : sqlite3_mprintf("could not put its %s DDL "
      "in the transaction: %s", zEngine, sqlite3_errmsg(db));
  return rc;
}

/*
** The transaction table's methods beside the store's: no rows, an INSERT
** that does nothing but put it in the transaction.
*/
const char scTxnDeclaration[] = "CREATE TABLE x(ddl)";

int scTxnBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  pInfo->estimatedCost = 1;
  pInfo->estimatedRows = 0;
  return SQLITE_OK;
}

int scTxnOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  sqlite3_vtab_cursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCur = pCur;
  return SQLITE_OK;
}

int scTxnClose(sqlite3_vtab_cursor *pCur){
  sqlite3_free(pCur);
  return SQLITE_OK;
}

int scTxnFilter(sqlite3_vtab_cursor *pCur, int idxNum, const char *idxStr,
                int argc, sqlite3_value **argv){
  (void)pCur;
  (void)idxNum;
  (void)idxStr;
  (void)argc;
  (void)argv;
  return SQLITE_OK;
}

int scTxnNext(sqlite3_vtab_cursor *pCur){
  (void)pCur;
  return SQLITE_OK;
}

int scTxnEof(sqlite3_vtab_cursor *pCur){
  (void)pCur;
  return 1;
}

int scTxnColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int iCol){
  (void)pCur;
  (void)iCol;
  sqlite3_result_null(ctx);
  return SQLITE_OK;
}

int scTxnRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *pRowid){
  (void)pCur;
  *pRowid = 0;
  return SQLITE_OK;
}

int scTxnUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                sqlite3_int64 *pRowid){
  (void)pVtab;
  (void)argc;
  (void)argv;
  *pRowid = 0;
  return SQLITE_OK;
}
