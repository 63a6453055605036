/*
** widecol_hbase.c: entry point of widecol_hbase.so, widecol's HBase store:
** the cell store (stores/cells/) over one of HBase's two transports, whose
** tables of functions are here:
**   native   HBase's own RPC protocol to its masters and region servers
**            (hb_native.h), the default: WIDECOL_HBASE_NODES names them
**   thrift   HBase's Thrift2 gateway (hb_gateway.h), for sites that
**            expose only a gateway: WIDECOL_HBASE names it
** The transport is chosen when the library is loaded on a connection:
** native if WIDECOL_HBASE_NODES is set, else Thrift2 if WIDECOL_HBASE is;
** WIDECOL_HBASE_TRANSPORT=native|thrift chooses where both are set.
**
** A library of its own, as the Bigtable store is.  Load both (`.load
** ./widecol` and `.load ./widecol_hbase`); a widecol table with STORAGE
** HBASE '<table>' then keeps its rows in HBase.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"
#include "stores/hbase/hb_gateway.h"
#include "stores/cells/cs_store.h"

#include <stdlib.h>
#include <string.h>

/* What both transports tell a user, as hbase shell commands. */
#define HB_SHELL_FIELDS \
  .pKind = &wcKindTable[WC_STORE_HBASE], \
  .zTxnModule = "widecol_hbase_txn", \
  .bRowAtomic = 1, \
  .zListTables = "list, in the hbase shell", \
  .zDropTable = "disable '%s' then drop it, in the hbase shell", \
  .zListFamilies = "describe '%s', in the hbase shell", \
  .zMakeFamily = "alter '%s', NAME => '%s', in the hbase shell", \
  .xRuleFix = hbRuleFix

static const CsTransport hbNative = {
  HB_SHELL_FIELDS,
  .xOpen = hbnOpen,
  .xClose = hbnClose,
  .xEndpoint = hbnEndpoint,
  .xHint = hbnHint,
  .xTimeoutMs = hbnTimeoutMs,
  .xRetryNow = hbnRetryNow,
  .xReadOpen = hbnReadOpen,
  .xReadNext = hbnReadNext,
  .xReadClose = hbnReadClose,
  .xMutateRows = hbnMutateRows,
  .xCheckStart = hbnCheckStart,
  .xCheckFinish = hbnCheckFinish,
  .xSampleKeys = hbnSampleKeys,
  .xRegionLoads = hbnRegionLoads,
  .xCreateTable = hbnCreateTable,
  .xGetTable = hbnGetTable,
  .xDeleteTable = hbnDeleteTable,
};

static const CsTransport hbThrift = {
  HB_SHELL_FIELDS,
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

/* The transport the environment chooses, or NULL with *pzErr. */
static const CsTransport *chosen(char **pzErr){
  const char *zWhich = getenv(HB_TRANSPORT_ENV);
  const char *zNodes = getenv(HB_NODES_ENV);
  const char *zGate = getenv(HB_ENV);
  if( zWhich && zWhich[0] ){
    if( strcmp(zWhich, "native") == 0 ) return &hbNative;
    if( strcmp(zWhich, "thrift") == 0 ) return &hbThrift;
    *pzErr = sqlite3_mprintf(HB_TRANSPORT_ENV " must be native (HBase's own "
                             "protocol, to " HB_NODES_ENV ") or thrift (its "
                             "Thrift2 gateway, at " HB_ENV "); it is %Q",
                             zWhich);
    return 0;
  }
  if( (zNodes == 0 || zNodes[0] == 0) && zGate && zGate[0] ) return &hbThrift;
  return &hbNative;
}

int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                              const sqlite3_api_routines *pApi);

WC_EXPORT int sqlite3_widecolhbase_init(sqlite3 *db, char **pzErrMsg,
                                        const sqlite3_api_routines *pApi){
  const CsTransport *pT;
  char *zErr = 0;
  SQLITE_EXTENSION_INIT2(pApi);
  pT = chosen(&zErr);
  if( pT == 0 ){
    if( pzErrMsg ) *pzErrMsg = zErr; else sqlite3_free(zErr);
    return SQLITE_ERROR;
  }
  return csRegister(db, pzErrMsg, pT);
}
