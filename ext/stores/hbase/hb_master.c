/*
** hb_master.c: the cell store's table calls (cs_transport.h) over HBase's
** own RPC (hb_native.h), to the active master's MasterService, and the
** samples:
**
**   make a table     GetTableDescriptors (is it there?), CreateNamespace
**                    (one made meanwhile is used), CreateTable with the
**                    families' VERSIONS, TTL and NEW_VERSION_BEHAVIOR and
**                    the split keys; its procedure waited for
**                    (GetProcedureResult)
**   read a table     GetTableDescriptors
**   delete a table   GetTableState, DisableTable, DeleteTable, each
**                    procedure waited for
**   samples          the regions from hbase:meta, the bytes of each counted
**                    with a scan of keys and value lengths (KeyOnlyFilter
**                    with lenAsVal), up to HB_SAMPLE_ROWS rows a region,
**                    each asked again on a connection lost under it
**
** A master call that fails for the master's reason (gone, not active) is
** asked of the active master again once, as the registry names it then.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Rows counted of each region to estimate its size. */
#define HB_SAMPLE_ROWS 10000
/* Times a region's count is asked for on a connection lost under it. */
#define HB_SAMPLE_TRIES 8
/* How often a procedure's end is asked for. */
#define HB_PROC_POLL_MS 50

/* Master call zMethod: to the active master, asked again once if it was
** not (or is gone). */
static int masterCall(HbCluster *p, const char *zMethod,
                      const ProtobufCMessage *pReq,
                      const ProtobufCMessageDescriptor *pDesc,
                      const CsWait *pWait, HbRpc **ppRpc,
                      ProtobufCMessage **ppResp, CsStatus *pSt){
  int nTry, code = CS_OK;
  *ppRpc = 0;
  for(nTry = 0; nTry < 2; nTry++){
    HbChan *pChan = 0;
    csStatusClear(pSt);
    code = hbMasterChan(p, pWait, &pChan, pSt);
    if( code != CS_OK ) return code;
    code = hbRpcCall(pChan, zMethod, pReq, pDesc, pWait, ppRpc, ppResp, pSt);
    if( code == CS_OK || !csRetryable(code) ) return code;
    hbMasterFailed(p, code);
    hbRpcFree(*ppRpc);
    *ppRpc = 0;
  }
  return code;
}

/* Waits for master procedure iProc to end: CS_OK, or its failure. */
static int procedureDone(HbCluster *p, uint64_t iProc, const CsWait *pWait,
                         CsStatus *pSt){
  int64_t iUntil = csDeadline(pWait);
  for(;;){
    Hbw__GetProcedureResultRequest req = HBW__GET_PROCEDURE_RESULT_REQUEST__INIT;
    Hbw__GetProcedureResultResponse *pResp = 0;
    HbRpc *pRpc = 0;
    int code, bRunning;
    req.proc_id = iProc;
    code = masterCall(p, "getProcedureResult", &req.base,
                      &hbw__get_procedure_result_response__descriptor, pWait,
                      &pRpc, (ProtobufCMessage**)&pResp, pSt);
    if( code != CS_OK ){
      hbRpcFree(pRpc);
      return code;
    }
    bRunning = pResp->state
            == HBW__GET_PROCEDURE_RESULT_RESPONSE__STATE__RUNNING;
    if( !bRunning && pResp->exception && pResp->exception->generic_exception ){
      const Hbw__GenericExceptionMessage *pEx =
          pResp->exception->generic_exception;
      code = hbExceptionCode(pEx->class_name);
      csStatusSet(pSt, code, "%s: %s", pEx->class_name ? pEx->class_name : "",
                  pEx->message ? pEx->message : "failed");
    }
    hbRpcFree(pRpc);
    if( !bRunning ) return code;
    if( csInterrupted(pWait) ){
      csStatusSet(pSt, CS_CANCELLED, "interrupted");
      return CS_CANCELLED;
    }
    if( wcMonotonicMs() + HB_PROC_POLL_MS > iUntil ){
      csStatusSet(pSt, CS_DEADLINE, "HBase's master did not finish within "
                  "the deadline (it may still)");
      return CS_DEADLINE;
    }
    {
      struct timespec ts = { 0, HB_PROC_POLL_MS * 1000000L };
      nanosleep(&ts, 0);
    }
  }
}

/* Master call zMethod on table zTable whose answer names a procedure
** (CreateTable aside), waited for. */
static int tableProcedure(HbCluster *p, const char *zMethod,
                          const char *zTable, const CsWait *pWait,
                          CsStatus *pSt){
  Hbw__TableNameRequest req = HBW__TABLE_NAME_REQUEST__INIT;
  Hbw__TableName name = HBW__TABLE_NAME__INIT;
  Hbw__ProcedureResponse *pResp = 0;
  HbRpc *pRpc = 0;
  int code;
  hbTableName(&name, zTable);
  req.table_name = &name;
  code = masterCall(p, zMethod, &req.base, &hbw__procedure_response__descriptor,
                    pWait, &pRpc, (ProtobufCMessage**)&pResp, pSt);
  if( code == CS_OK && pResp->has_proc_id ){
    code = procedureDone(p, pResp->proc_id, pWait, pSt);
  }
  hbRpcFree(pRpc);
  return code;
}

/* Table zTable's schema: CS_OK and *ppSchema (in *ppRpc's answer),
** CS_NOT_FOUND, or a failure. */
static int tableSchema(HbCluster *p, const char *zTable, const CsWait *pWait,
                       HbRpc **ppRpc, const Hbw__TableSchema **ppSchema,
                       CsStatus *pSt){
  Hbw__GetTableDescriptorsRequest req = HBW__GET_TABLE_DESCRIPTORS_REQUEST__INIT;
  Hbw__GetTableDescriptorsResponse *pResp = 0;
  Hbw__TableName name = HBW__TABLE_NAME__INIT;
  Hbw__TableName *apName[1];
  int code;
  *ppSchema = 0;
  hbTableName(&name, zTable);
  apName[0] = &name;
  req.n_table_names = 1;
  req.table_names = apName;
  code = masterCall(p, "GetTableDescriptors", &req.base,
                    &hbw__get_table_descriptors_response__descriptor, pWait,
                    ppRpc, (ProtobufCMessage**)&pResp, pSt);
  if( code == CS_OK && pResp->n_table_schema == 0 ) code = CS_NOT_FOUND;
  if( code == CS_NOT_FOUND ){
    csStatusClear(pSt);
    csStatusSet(pSt, code, "there is no HBase table %s", zTable);
  }
  if( code == CS_OK ) *ppSchema = pResp->table_schema[0];
  return code;
}

/* An attribute pair naming zName with value zValue, in arena pA. */
static Hbw__BytesBytesPair *attribute(WcArena *pA, const char *zName,
                                      const char *zValue){
  Hbw__BytesBytesPair *pPair = wcArenaAlloc(pA, sizeof(*pPair));
  char *zCopy = wcArenaCopy(pA, zValue, strlen(zValue) + 1);
  if( pPair == 0 || zCopy == 0 ) return 0;
  hbw__bytes_bytes_pair__init(pPair);
  pPair->first.data = (uint8_t*)zName;
  pPair->first.len = strlen(zName);
  pPair->second.data = (uint8_t*)zCopy;
  pPair->second.len = strlen(zCopy);
  return pPair;
}

/* Makes namespace zNs (nNs bytes) if it is missing. */
static int makeNamespace(HbCluster *p, const char *zNs, size_t nNs,
                         const CsWait *pWait, CsStatus *pSt){
  Hbw__CreateNamespaceRequest req = HBW__CREATE_NAMESPACE_REQUEST__INIT;
  Hbw__NamespaceDescriptor ns = HBW__NAMESPACE_DESCRIPTOR__INIT;
  Hbw__ProcedureResponse *pResp = 0;
  HbRpc *pRpc = 0;
  int code;
  ns.name.data = (uint8_t*)zNs;
  ns.name.len = nNs;
  req.namespace_descriptor = &ns;
  code = masterCall(p, "CreateNamespace", &req.base,
                    &hbw__procedure_response__descriptor, pWait, &pRpc,
                    (ProtobufCMessage**)&pResp, pSt);
  if( code == CS_OK && pResp->has_proc_id ){
    code = procedureDone(p, pResp->proc_id, pWait, pSt);
  }
  hbRpcFree(pRpc);
  if( code == CS_EXISTS ){
    csStatusClear(pSt);
    code = CS_OK;       /* made by another client meanwhile */
  }
  return code;
}

int hbnCreateTable(CsConn *pConn, const char *zTable, const CsTableSpec *pSpec,
                   const CsWait *pWait, CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  const char *zColon = strchr(zTable, ':');
  Hbw__CreateTableRequest req = HBW__CREATE_TABLE_REQUEST__INIT;
  Hbw__TableSchema schema = HBW__TABLE_SCHEMA__INIT;
  Hbw__TableName name = HBW__TABLE_NAME__INIT;
  Hbw__ProcedureResponse *pResp = 0;
  const Hbw__TableSchema *pOld = 0;
  WcArena a = {0, 0};
  HbRpc *pRpc = 0;
  int i, code;
  code = tableSchema(p, zTable, pWait, &pRpc, &pOld, pSt);
  hbRpcFree(pRpc);
  pRpc = 0;
  if( code == CS_OK ){
    csStatusSet(pSt, CS_EXISTS, "the HBase table %s exists", zTable);
    return CS_EXISTS;
  }
  if( code != CS_NOT_FOUND ) return code;
  csStatusClear(pSt);
  if( zColon ){
    code = makeNamespace(p, zTable, (size_t)(zColon - zTable), pWait, pSt);
    if( code != CS_OK ) return code;
  }
  hbTableName(&name, zTable);
  schema.table_name = &name;
  schema.column_families = wcArenaAlloc(&a, sizeof(void*)
                                            * (size_t)(pSpec->nFamily + 1));
  for(i = 0; schema.column_families && i < pSpec->nFamily; i++){
    Hbw__ColumnFamilySchema *pF = wcArenaAlloc(&a, sizeof(*pF));
    Hbw__BytesBytesPair **apAttr = wcArenaAlloc(&a, sizeof(void*) * 3);
    char zN[32];
    if( pF == 0 || apAttr == 0 ) break;
    hbw__column_family_schema__init(pF);
    pF->name.data = (uint8_t*)pSpec->azFamily[i];
    pF->name.len = strlen(pSpec->azFamily[i]);
    pF->attributes = apAttr;
    apAttr[pF->n_attributes++] = attribute(&a, "NEW_VERSION_BEHAVIOR", "true");
    sqlite3_snprintf(sizeof(zN), zN, "%d", pSpec->nVersions > 0
                                           ? pSpec->nVersions : HB_ALL_VERSIONS);
    apAttr[pF->n_attributes++] = attribute(&a, "VERSIONS", zN);
    if( pSpec->nTtl > 0 ){
      sqlite3_snprintf(sizeof(zN), zN, "%lld", (long long)(
          pSpec->nTtl < HB_FOREVER ? pSpec->nTtl : HB_FOREVER));
      apAttr[pF->n_attributes++] = attribute(&a, "TTL", zN);
    }
    schema.column_families[schema.n_column_families++] = pF;
  }
  req.table_schema = &schema;
  req.n_split_keys = (size_t)pSpec->nSplit;
  req.split_keys = wcArenaAlloc(&a, sizeof(ProtobufCBinaryData)
                                    * (size_t)(pSpec->nSplit + 1));
  for(i = 0; req.split_keys && i < pSpec->nSplit; i++){
    req.split_keys[i].data = (uint8_t*)pSpec->aSplit[i].a;
    req.split_keys[i].len = pSpec->aSplit[i].n;
  }
  if( a.bOom ){
    wcArenaFree(&a);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  code = masterCall(p, "CreateTable", &req.base,
                    &hbw__procedure_response__descriptor, pWait, &pRpc,
                    (ProtobufCMessage**)&pResp, pSt);
  wcArenaFree(&a);
  if( code == CS_OK && pResp->has_proc_id ){
    code = procedureDone(p, pResp->proc_id, pWait, pSt);
  }
  hbRpcFree(pRpc);
  if( code == CS_EXISTS ){
    /* Another client made it between the check and the create: it is
    ** there, as CS_EXISTS says, whoever made it. */
    csStatusClear(pSt);
    csStatusSet(pSt, CS_EXISTS, "the HBase table %s exists", zTable);
  }
  hbForget(p, zTable, CS_NOT_FOUND);
  return code;
}

/* Attribute zName of pairs aAttr[0..n) as a number, or iDefault. */
static int64_t attrInt(Hbw__BytesBytesPair **aAttr, size_t n,
                       const char *zName, int64_t iDefault){
  size_t i, nName = strlen(zName);
  for(i = 0; i < n; i++){
    if( aAttr[i]->first.len == nName
     && memcmp(aAttr[i]->first.data, zName, nName) == 0 ){
      char zNum[32];
      size_t nNum = aAttr[i]->second.len < sizeof(zNum) - 1
                  ? aAttr[i]->second.len : sizeof(zNum) - 1;
      memcpy(zNum, aAttr[i]->second.data, nNum);
      zNum[nNum] = 0;
      return strcmp(zNum, "FOREVER") == 0 ? HB_FOREVER : atoll(zNum);
    }
  }
  return iDefault;
}

int hbnGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
                const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  const Hbw__TableSchema *pSchema = 0;
  HbRpc *pRpc = 0;
  int code = tableSchema(p, zTable, pWait, &pRpc, &pSchema, pSt);
  *ppInfo = 0;
  if( code == CS_OK ){
    size_t i, n = pSchema->n_column_families;
    const char **azName = sqlite3_malloc64(sizeof(char*) * (n + 1));
    size_t *anName = sqlite3_malloc64(sizeof(size_t) * (n + 1));
    int64_t *anVersions = sqlite3_malloc64(sizeof(int64_t) * (n + 1));
    int64_t *anTtl = sqlite3_malloc64(sizeof(int64_t) * (n + 1));
    code = CS_INTERNAL;
    if( azName && anName && anVersions && anTtl ){
      for(i = 0; i < n; i++){
        const Hbw__ColumnFamilySchema *pF = pSchema->column_families[i];
        azName[i] = (const char*)pF->name.data;
        anName[i] = pF->name.len;
        anVersions[i] = attrInt(pF->attributes, pF->n_attributes, "VERSIONS",
                                1);
        anTtl[i] = attrInt(pF->attributes, pF->n_attributes, "TTL",
                           HB_FOREVER);
      }
      code = hbTableInfo((int)n, azName, anName, anVersions, anTtl, pKeep,
                         ppInfo);
    }
    if( code != CS_OK ) csStatusSet(pSt, code, "out of memory");
    sqlite3_free(azName);
    sqlite3_free(anName);
    sqlite3_free(anVersions);
    sqlite3_free(anTtl);
  }
  hbRpcFree(pRpc);
  return code;
}

int hbTableDisabled(HbCluster *p, const char *zTable, const CsWait *pWait,
                    int *pbDisabled, CsStatus *pSt){
  Hbw__TableNameRequest req = HBW__TABLE_NAME_REQUEST__INIT;
  Hbw__TableName name = HBW__TABLE_NAME__INIT;
  Hbw__GetTableStateResponse *pResp = 0;
  HbRpc *pRpc = 0;
  int code;
  hbTableName(&name, zTable);
  req.table_name = &name;
  code = masterCall(p, "GetTableState", &req.base,
                    &hbw__get_table_state_response__descriptor, pWait, &pRpc,
                    (ProtobufCMessage**)&pResp, pSt);
  /* A table ENABLING (one just made, its regions opening) is coming up:
  ** not disabled, waited for. */
  *pbDisabled = code == CS_OK
      && (pResp->table_state->state == HBW__TABLE_STATE__STATE__DISABLED
          || pResp->table_state->state == HBW__TABLE_STATE__STATE__DISABLING);
  hbRpcFree(pRpc);
  return code;
}

int hbCallFailed(HbCluster *p, const char *zTable, int code,
                 const CsWait *pWait, CsStatus *pSt){
  hbForget(p, zTable, code);
  if( code == CS_AGAIN ){
    /* A region that is not served may be one of a table disabled outside
    ** widecol: said so, not waited for until the deadline. */
    CsStatus st = {0, 0};
    int bDisabled = 0;
    if( hbTableDisabled(p, zTable, pWait, &bDisabled, &st) == CS_OK
     && bDisabled ){
      code = CS_DISABLED;
      csStatusClear(pSt);
      csStatusSet(pSt, code, "the HBase table %s is disabled: enable it, in "
                  "the hbase shell: enable '%s'", zTable, zTable);
    }
    csStatusClear(&st);
  }
  return code;
}

int hbnDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                   CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  int bDisabled = 0;
  int code = hbTableDisabled(p, zTable, pWait, &bDisabled, pSt);
  if( code == CS_OK && !bDisabled ){
    code = tableProcedure(p, "DisableTable", zTable, pWait, pSt);
  }
  if( code == CS_OK || code == CS_DISABLED ){
    csStatusClear(pSt);
    code = tableProcedure(p, "DeleteTable", zTable, pWait, pSt);
  }
  hbForget(p, zTable, CS_NOT_FOUND);
  return code;
}

/* The bytes of region pR's rows (up to HB_SAMPLE_ROWS of them, counted
** with keys and values' lengths): their cells' values, as Bigtable counts
** a table's size. */
static int countRegion(const HbRegion *pR, const CsWait *pWait,
                       int64_t *pnByte, CsStatus *pSt){
  Hbw__ScanRequest req = HBW__SCAN_REQUEST__INIT;
  Hbw__Scan scan = HBW__SCAN__INIT;
  Hbw__RegionSpecifier spec = HBW__REGION_SPECIFIER__INIT;
  Hbw__KeyOnlyFilter keys = HBW__KEY_ONLY_FILTER__INIT;
  Hbw__Filter filter = HBW__FILTER__INIT;
  Hbw__ScanResponse *pResp = 0;
  unsigned char aKeys[8];
  HbRpc *pRpc = 0;
  HbChan *pChan = hbChan(pR->pServer, HB_SVC_CLIENT);
  int code;
  *pnByte = 0;
  if( pChan == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  keys.len_as_val = 1;
  filter.name = "org.apache.hadoop.hbase.filter.KeyOnlyFilter";
  filter.has_serialized_filter = 1;
  filter.serialized_filter.data = aKeys;
  filter.serialized_filter.len = protobuf_c_message_pack(&keys.base, aKeys);
  hbRegionSpec(&spec, pR);
  scan.has_start_row = 1;
  scan.start_row.data = (uint8_t*)pR->start.a;
  scan.start_row.len = pR->start.n;
  scan.has_stop_row = 1;
  scan.stop_row.data = (uint8_t*)pR->end.a;
  scan.stop_row.len = pR->end.n;
  scan.filter = &filter;
  req.region = &spec;
  req.scan = &scan;
  req.has_number_of_rows = 1;
  req.number_of_rows = HB_SAMPLE_ROWS;
  req.has_close_scanner = 1;
  req.close_scanner = 1;
  code = hbRpcCall(pChan, "Scan", &req.base, &hbw__scan_response__descriptor,
                   pWait, &pRpc, (ProtobufCMessage**)&pResp, pSt);
  if( code == CS_OK ){
    CsBytes block = hbRpcCells(pRpc);
    HbKv kv;
    /* With KeyOnlyFilter(true) a value is its length, 4 bytes. */
    while( hbKvNext(&block, &kv) > 0 ){
      if( kv.value.n == 4 ){
        *pnByte += (int64_t)wcGetBe(kv.value.a, 4);
      }
    }
  }
  hbRpcFree(pRpc);
  return code;
}

/* countRegion(), asked again on a connection lost (it changes nothing):
** a sample of many regions, each a large answer, is not begun again for
** one lost answer. */
static int countRegionAgain(const HbRegion *pR, const CsWait *pWait,
                            int64_t *pnByte, CsStatus *pSt){
  int nTry = 0, code;
  for(;;){
    code = countRegion(pR, pWait, pnByte, pSt);
    if( code != CS_UNAVAILABLE || ++nTry >= HB_SAMPLE_TRIES
     || csInterrupted(pWait) ){
      return code;
    }
    csStatusClear(pSt);
  }
}

int hbnSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsSampleFunc xSample, void *pCtx, CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  const HbRegion *aReg = 0;
  int nReg = 0, i, code;
  int64_t nTotal = 0;
  code = hbRegions(p, zTable, pWait, &aReg, &nReg, pSt);
  for(i = 0; i < nReg && code == CS_OK; i++){
    int64_t nByte = 0;
    if( aReg[i].pServer == 0 ){
      code = hbNoRegion(p, zTable, pSt);
      break;
    }
    code = countRegionAgain(&aReg[i], pWait, &nByte, pSt);
    if( code != CS_OK ) break;
    nTotal += nByte;
    xSample(pCtx, aReg[i].end, nTotal);
  }
  if( code != CS_OK ) code = hbCallFailed(p, zTable, code, pWait, pSt);
  return code;
}
