/*
** sc_module.c: what every store's module has beside its own methods
** (sc_contract.h): the counters function and the xFindFunction that
** turns it into a constraint, and registering a store's modules once
** widecol is loaded.
*/
#include "util/wc_api.h"
#include "stores/contract/sc_contract.h"
#include "util/wc_ask.h"

/* WC_RPC_COUNTERS(key, ?) anywhere but a store table's lookup of
** wc_contract.h: registered so that statements naming it prepare. */
static void countersFunc(sqlite3_context *ctx, int argc,
                         sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_error(ctx, WC_RPC_COUNTERS_MISUSE, -1);
}

int scFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                   void (**pxFunc)(sqlite3_context*, int, sqlite3_value**),
                   void **ppArg){
  (void)pVtab;
  if( nArg != 2 || sqlite3_stricmp(zName, WC_RPC_COUNTERS) != 0 ) return 0;
  *pxFunc = countersFunc;
  *ppArg = 0;
  return SC_COUNTERS_OP;
}

void scCountersHand(WcRpcStats *pOut, WcRpcStats *pCount){
  if( pOut == 0 ) return;
  pOut->nRpc += pCount->nRpc;
  pOut->nRowIn += pCount->nRowIn;
  pOut->nMsgIn += pCount->nMsgIn;
  pOut->nByteIn += pCount->nByteIn;
  pOut->nByteOut += pCount->nByteOut;
  pOut->nRetry += pCount->nRetry;
  if( pOut->bReset ){
    pCount->nRpc = pCount->nRowIn = pCount->nMsgIn = 0;
    pCount->nByteIn = pCount->nByteOut = pCount->nRetry = 0;
  }
}

int scRegister(sqlite3 *db, char **pzErrMsg, const WcKind *pKind,
               const ScModule *aModule, int nModule,
               void *pAux, void (*xRef)(void*), void (*xUnref)(void*)){
  int i, rc;
  if( !wcWidecolLoaded(db) ){
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("%s is the %s store of widecol tables "
          "and needs widecol loaded first: .load widecol, then .load %s%s%s%s",
          pKind->zModule, pKind->zEngine, pKind->zModule,
          pKind->zPython ? " (Python: " : "",
          pKind->zPython ? pKind->zPython : "", pKind->zPython ? ")" : "");
    }
    xUnref(pAux);
    return SQLITE_ERROR;
  }
  rc = sqlite3_create_function_v2(db, WC_RPC_COUNTERS, 2,
                                  SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                  countersFunc, 0, 0, 0);
  /* Each module holds a reference; the caller's is given up at the end. */
  for(i = 0; rc == SQLITE_OK && i < nModule; i++){
    xRef(pAux);
    rc = sqlite3_create_module_v2(db, aModule[i].zName, aModule[i].pModule,
                                  pAux, xUnref);
  }
  xUnref(pAux);
  return rc;
}
