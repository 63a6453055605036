/*
** widecol_hbase.c: entry point of widecol_hbase.so, widecol's HBase store:
** the cell store (stores/cells/) over HBase's transport, whose table of
** functions is here (hb_gateway.h: HBase's Thrift2 gateway).
**
** A library of its own, as the Bigtable store is; it needs nothing more
** than widecol.so does.  Load both (`.load ./widecol` and `.load
** ./widecol_hbase`); a widecol table with STORAGE HBASE '<table>' then
** keeps its rows in HBase, at the gateway WIDECOL_HBASE names.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_gateway.h"
#include "stores/cells/cs_store.h"

/* How an hbase shell user keeps nVersions versions of family zFamily of
** table zId, and under a TTL none older than nTtl seconds. */
static char *ruleFix(const char *zId, const char *zFamily, int nVersions,
                     int64_t nTtl){
  return nTtl > 0
      ? sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, TTL => "
                        "%lld, in the hbase shell", zId, zFamily, nVersions,
                        (long long)nTtl)
      : sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, in the "
                        "hbase shell", zId, zFamily, nVersions);
}

static const CsTransport hbTransport = {
  .pKind = &wcKindTable[WC_STORE_HBASE],
  .zTxnModule = "widecol_hbase_txn",
  .bRowAtomic = 1,
  .zListTables = "list, in the hbase shell",
  .zDropTable = "disable '%s' then drop it, in the hbase shell",
  .zListFamilies = "describe '%s', in the hbase shell",
  .zMakeFamily = "alter '%s', NAME => '%s', in the hbase shell",
  .xRuleFix = ruleFix,
  .xOpen = hbConnOpen,
  .xClose = hbConnClose,
  .xEndpoint = hbConnEndpoint,
  .xHint = hbConnHint,
  .xTimeoutMs = hbConnTimeoutMs,
  .xRetryNow = hbConnRetryNow,
  .xReadOpen = hbReadOpen,
  .xReadNext = hbReadNext,
  .xReadClose = hbReadClose,
  .xMutateRows = hbMutateRows,
  .xCheckStart = hbCheckStart,
  .xCheckFinish = hbCheckFinish,
  .xSampleKeys = hbSampleKeys,
  .xCreateTable = hbCreateTable,
  .xGetTable = hbGetTable,
  .xDeleteTable = hbDeleteTable,
};

int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                              const sqlite3_api_routines *pApi);

WC_EXPORT int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                                        const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return csRegister(db, pzErrMsg, &hbTransport);
}
