/*
** widecol_hbase.c: entry point of widecol_hbase.so, widecol's HBase store.
**
** A library of its own, as the Bigtable store is: the cell store of
** ext/bigtable/ (its upper layers: tables, batches, transactions, reads,
** writes) with ext/hbase/'s transport under it, which makes its calls on
** HBase's Thrift2 gateway (hb_rpc.c).  It needs protobuf-c (the cell
** store's messages) and no gRPC.  Load both (`.load ./widecol` and
** `.load ./widecol_hbase`); a widecol table with STORAGE HBASE '<table>'
** then keeps its rows in HBase, at the gateway WIDECOL_HBASE names.
*/
#include "util/wc_api.h"
#include "bigtable/bt_store.h"

int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                              const sqlite3_api_routines *pApi);

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                              const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return btRegister(db, pzErrMsg, "widecol.load(db, hbase=True)");
}
