/*
** widecol_bigtable.c: entry point of widecol_bigtable.so, widecol's
** Bigtable store: the cell store (stores/cells/) over Bigtable's transport,
** whose table of functions is here.
**
** A loadable library of its own, so that the core widecol.so keeps
** needing only SQLite and libcrypto: this one links gRPC's C core and
** protobuf-c.  Load both (`.load ./widecol` and `.load ./widecol_bigtable`);
** a widecol table with STORAGE BIGTABLE '<table>' then keeps its rows in
** Bigtable through the widecol_bigtable module registered here.
*/
#include "util/wc_api.h"
#include "stores/bigtable/bt_grpc.h"
#include "stores/cells/cs_store.h"

/* How a cbt user keeps nVersions versions of family zFamily of table zId,
** and under a TTL none older than nTtl seconds. */
static char *ruleFix(const char *zId, const char *zFamily, int nVersions,
                     int64_t nTtl){
  return nTtl > 0
      ? sqlite3_mprintf("cbt setgcpolicy %s %s 'maxversions=%d or "
                        "maxage=%llds'", zId, zFamily, nVersions,
                        (long long)nTtl)
      : sqlite3_mprintf("cbt setgcpolicy %s %s maxversions=%d", zId, zFamily,
                        nVersions);
}

static const CsTransport btTransport = {
  .pKind = &wcKindTable[WC_STORE_BIGTABLE],
  .zTxnModule = "widecol_bigtable_txn",
  .bRowAtomic = 0,
  .zListTables = "cbt ls",
  .zDropTable = "cbt deletetable %s",
  .zListFamilies = "cbt ls %s",
  .zMakeFamily = "cbt createfamily %s %s",
  .xRuleFix = ruleFix,
  .xOpen = btConnOpen,
  .xClose = btConnClose,
  .xEndpoint = btConnEndpoint,
  .xHint = btConnHint,
  .xTimeoutMs = btConnTimeoutMs,
  .xRetryNow = btConnRetryNow,
  .xReadOpen = btReadOpen,
  .xReadNext = btReadNext,
  .xReadClose = btReadClose,
  .xMutateRows = btMutateRows,
  .xCheckStart = btCheckStart,
  .xCheckFinish = btCheckFinish,
  .xSampleKeys = btSampleKeys,
  .xCreateTable = btCreateTable,
  .xGetTable = btGetTable,
  .xDeleteTable = btDeleteTable,
};

int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi);

WC_EXPORT int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                           const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return csRegister(db, pzErrMsg, &btTransport);
}
