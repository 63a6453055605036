/*
** widecol_bigtable.c: entry point of widecol_bigtable.so, widecol's
** Bigtable store.
**
** A second loadable library, so that the core widecol.so keeps needing
** only SQLite and libcrypto: this one links gRPC's C core and protobuf-c.
** Load both (`.load ./widecol` and `.load ./widecol_bigtable`); a widecol
** table with STORAGE BIGTABLE '<table>' then keeps its rows in Bigtable
** through the widecol_bigtable module registered here (bt_store.h).
*/
#include "util/wc_api.h"
#include "bigtable/bt_store.h"
#include "store/wc_remote.h"
#include "util/wc_ask.h"

int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi);

/* False if the connection has no widecol module: the Bigtable store is
** reached only through it (where the pragma cannot say, assumed there). */
static int widecolLoaded(sqlite3 *db){
  return wcAskRow(db, "SELECT 1 FROM pragma_module_list WHERE name = ?1",
                  "widecol", 1);
}

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi){
  BtTxn *pTxn;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  if( !widecolLoaded(db) ){
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("widecol_bigtable is the Bigtable store of "
          "widecol tables and needs widecol loaded first: .load widecol, "
          "then .load widecol_bigtable (Python: widecol.load(db, "
          "bigtable=True))");
    }
    return SQLITE_ERROR;
  }
  /* Tables already connected keep the state they share; a second load
  ** gives the tables connected after it a new one. */
  pTxn = btTxnNew();
  if( pTxn == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_create_function_v2(db, WC_RPC_COUNTERS, 2,
                                  SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                  btCountersFunc, 0, 0, 0);
  if( rc != SQLITE_OK ){
    btTxnUnref(pTxn);
    return rc;
  }
  btTxnRef(pTxn);
  rc = sqlite3_create_module_v2(db, "widecol_bigtable", &btModule, pTxn,
                                btTxnUnref);
  if( rc != SQLITE_OK ){
    btTxnUnref(pTxn);
    return rc;
  }
  return sqlite3_create_module_v2(db, BT_TXN_MODULE, &btTxnModule, pTxn,
                                  btTxnUnref);
}
