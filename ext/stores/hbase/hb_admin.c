/*
** hb_admin.c: the cell store's table calls (cs_transport.h) on HBase's
** Thrift2 gateway (hb_gateway.h), and its samples:
**
**   make a table     tableExists, createNamespace (a namespace missing is
**                    made; one another client made meanwhile is used),
**                    createTable with the families' VERSIONS, TTL and
**                    NEW_VERSION_BEHAVIOR, and the split keys (a table
**                    another client made meanwhile is CS_EXISTS, asked
**                    with tableExists, not read from the error's text)
**   read a table     tableExists, getTableDescriptor
**   delete a table   isTableEnabled, disableTable, deleteTable
**   samples          getAllRegionLocations: the regions' end keys, with
**                    the bytes up to each from a count of the rows of each
**                    region, up to HB_SAMPLE_ROWS a region
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_gateway.h"

#include <string.h>

/* Rows counted of each region to estimate its size. */
#define HB_SAMPLE_ROWS 10000

/* A call whose one argument is table zRes's TTableName. */
static int tableCall(CsConn *pConn, const char *zMethod, const char *zRes,
                     const CsWait *pWait, HbCall **ppCall,
                     const HbVal **ppRes, CsStatus *pSt){
  WcBuf req = {0, 0, 0, 0};
  int code;
  hbWriteCall(&req, zMethod, 0);
  hbWriteTableName(&req, 1, zRes);
  hbWriteStop(&req);
  code = hbInvoke(pConn, zMethod, 0, &req, pWait, ppCall, ppRes, pSt);
  wcBufFree(&req);
  return code;
}

/* Makes namespace zNs if it is missing (a namespace made already is an
** error of the gateway's, and harmless). */
static void makeNamespace(CsConn *pConn, const char *zNs, size_t nNs,
                          const CsWait *pWait){
  WcBuf req = {0, 0, 0, 0};
  CsStatus st = {0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  hbWriteCall(&req, "createNamespace", 0);
  hbWriteField(&req, HB_STRUCT, 1);
  hbWriteBinaryField(&req, 1, zNs, (int64_t)nNs);
  hbWriteStop(&req);
  hbWriteStop(&req);
  hbInvoke(pConn, "createNamespace", 0, &req, pWait, &pDone, &pRes, &st);
  csStatusClear(&st);
  hbCallFree(pDone);
  wcBufFree(&req);
}

int hbCreateTable(CsConn *pConn, const char *zTable, const CsTableSpec *pSpec,
                  const CsWait *pWait, CsStatus *pSt){
  const char *zColon = strchr(zTable, ':');
  WcBuf req = {0, 0, 0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int i, code, bExists = 0;
  code = hbTableExists(pConn, zTable, pWait, &bExists, pSt);
  if( code == CS_OK && bExists ){
    csStatusSet(pSt, CS_EXISTS, "the HBase table %s exists", zTable);
    return CS_EXISTS;
  }
  if( code != CS_OK ) return code;
  if( zColon ) makeNamespace(pConn, zTable, (size_t)(zColon - zTable), pWait);
  hbWriteCall(&req, "createTable", 0);
  hbWriteField(&req, HB_STRUCT, 1);
  hbWriteTableName(&req, 1, zTable);
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, pSpec->nFamily);
  for(i = 0; i < pSpec->nFamily; i++){
    const char *zFamily = pSpec->azFamily[i];
    hbWriteBinaryField(&req, 1, zFamily, (int64_t)strlen(zFamily));
    hbWriteField(&req, HB_MAP, 2);
    hbWriteMapBegin(&req, HB_STRING, HB_STRING, 1);
    hbWriteBinary(&req, "NEW_VERSION_BEHAVIOR", 20);
    hbWriteBinary(&req, "true", 4);
    hbWriteI32Field(&req, 10, pSpec->nVersions > 0 ? pSpec->nVersions
                                                   : HB_ALL_VERSIONS);
    if( pSpec->nTtl > 0 ){
      hbWriteI32Field(&req, 13, pSpec->nTtl < HB_FOREVER
                                ? (int32_t)pSpec->nTtl : HB_FOREVER);
    }
    hbWriteStop(&req);
  }
  hbWriteStop(&req);
  if( pSpec->nSplit ){
    hbWriteField(&req, HB_LIST, 2);
    hbWriteListBegin(&req, HB_STRING, pSpec->nSplit);
    for(i = 0; i < pSpec->nSplit; i++){
      hbWriteBinary(&req, pSpec->aSplit[i].a, (int64_t)pSpec->aSplit[i].n);
    }
  }
  hbWriteStop(&req);
  code = hbInvoke(pConn, "createTable", 0, &req, pWait, &pDone, &pRes, pSt);
  hbCallFree(pDone);
  wcBufFree(&req);
  if( code == CS_REFUSED
   && hbTableExists(pConn, zTable, pWait, &bExists, pSt) == CS_OK && bExists ){
    /* Another client made it between the check and the create: it is
    ** there, as CS_EXISTS says, whoever made it. */
    csStatusClear(pSt);
    csStatusSet(pSt, CS_EXISTS, "the HBase table %s exists", zTable);
    code = CS_EXISTS;
  }
  return code;
}

/* *ppInfo from getTableDescriptor's TTableDescriptor pDesc. */
static int tableInfo(const HbVal *pDesc, const CsTableSpec *pKeep,
                     CsTableInfo **ppInfo){
  const HbVal *pCols = hbField(pDesc, 2);
  int64_t i, n = pCols ? pCols->n : 0;
  const char **azName = sqlite3_malloc64(sizeof(char*) * (size_t)(n + 1));
  size_t *anName = sqlite3_malloc64(sizeof(size_t) * (size_t)(n + 1));
  int64_t *anVersions = sqlite3_malloc64(sizeof(int64_t) * (size_t)(n + 1));
  int64_t *anTtl = sqlite3_malloc64(sizeof(int64_t) * (size_t)(n + 1));
  int code = CS_INTERNAL;
  *ppInfo = 0;
  if( azName && anName && anVersions && anTtl ){
    for(i = 0; i < n; i++){
      const HbVal *pFam = &pCols->aChild[i], *pName = hbField(pFam, 1);
      azName[i] = pName ? (const char*)pName->a : "";
      anName[i] = pName ? (size_t)pName->n : 0;
      anVersions[i] = hbFieldInt(pFam, 10, 1);
      anTtl[i] = hbFieldInt(pFam, 13, HB_FOREVER);
    }
    code = hbTableInfo((int)n, azName, anName, anVersions, anTtl, pKeep,
                       ppInfo);
  }
  sqlite3_free(azName);
  sqlite3_free(anName);
  sqlite3_free(anVersions);
  sqlite3_free(anTtl);
  return code;
}

/* CS_OK if table zTable is there, CS_NOT_FOUND (*pSt says so) if not,
** or the failure of asking. */
static int tableThere(CsConn *pConn, const char *zTable, const CsWait *pWait,
                      CsStatus *pSt){
  int bExists = 0;
  int code = hbTableExists(pConn, zTable, pWait, &bExists, pSt);
  if( code == CS_OK && !bExists ){
    csStatusSet(pSt, CS_NOT_FOUND, "there is no HBase table %s", zTable);
    code = CS_NOT_FOUND;
  }
  return code;
}

int hbGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
               const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt){
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int code;
  *ppInfo = 0;
  code = tableThere(pConn, zTable, pWait, pSt);
  if( code != CS_OK ) return code;
  code = tableCall(pConn, "getTableDescriptor", zTable, pWait, &pDone, &pRes,
                   pSt);
  if( code == CS_OK ){
    code = tableInfo(pRes, pKeep, ppInfo);
    if( code != CS_OK ) csStatusSet(pSt, code, "out of memory");
  }
  hbCallFree(pDone);
  return code;
}

int hbDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsStatus *pSt){
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int code = tableThere(pConn, zTable, pWait, pSt);
  if( code == CS_OK ){
    code = tableCall(pConn, "isTableEnabled", zTable, pWait, &pDone, &pRes,
                     pSt);
    if( code == CS_OK && pRes && pRes->i ){
      hbCallFree(pDone);
      pDone = 0;
      code = tableCall(pConn, "disableTable", zTable, pWait, &pDone, &pRes,
                       pSt);
    }
    hbCallFree(pDone);
    pDone = 0;
  }
  if( code == CS_OK ){
    code = tableCall(pConn, "deleteTable", zTable, pWait, &pDone, &pRes, pSt);
    hbCallFree(pDone);
  }
  return code;
}

/* The bytes of a region's rows (up to HB_SAMPLE_ROWS of them, counted
** with keys only): their cells' values, as Bigtable counts a table's
** size. */
static int countRegion(CsConn *pConn, const char *zTable, const HbVal *pStart,
                       const HbVal *pEnd, const CsWait *pWait,
                       int64_t *pnByte, CsStatus *pSt){
  static const char zKeys[] = "KeyOnlyFilter(true)";
  WcBuf req = {0, 0, 0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int64_t r, c, nByte = 0;
  int code;
  hbWriteCall(&req, "getScannerResults", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  if( pStart && pStart->n ) hbWriteBinaryField(&req, 1, pStart->a, pStart->n);
  if( pEnd && pEnd->n ) hbWriteBinaryField(&req, 2, pEnd->a, pEnd->n);
  hbWriteI32Field(&req, 4, HB_SAMPLE_ROWS);
  hbWriteBinaryField(&req, 7, zKeys, (int64_t)sizeof(zKeys) - 1);
  hbWriteStop(&req);
  hbWriteI32Field(&req, 3, HB_SAMPLE_ROWS);
  hbWriteStop(&req);
  code = hbInvoke(pConn, "getScannerResults", zTable, &req, pWait, &pDone,
                  &pRes, pSt);
  wcBufFree(&req);
  for(r = 0; code == CS_OK && pRes && r < pRes->n; r++){
    const HbVal *pCols = hbField(&pRes->aChild[r], 2);
    for(c = 0; pCols && c < pCols->n; c++){
      /* With KeyOnlyFilter(true) a value is its length, 4 bytes. */
      const HbVal *pV = hbField(&pCols->aChild[c], 3);
      if( pV && pV->n == 4 ){
        nByte += (int64_t)wcGetBe(pV->a, 4);
      }
    }
  }
  hbCallFree(pDone);
  *pnByte = nByte;
  return code;
}

int hbSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                 CsSampleFunc xSample, void *pCtx, CsStatus *pSt){
  WcBuf req = {0, 0, 0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int64_t i, n, nTotal = 0;
  int code;
  hbWriteCall(&req, "getAllRegionLocations", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteStop(&req);
  code = hbInvoke(pConn, "getAllRegionLocations", zTable, &req, pWait,
                  &pDone, &pRes, pSt);
  wcBufFree(&req);
  n = code == CS_OK && pRes ? pRes->n : 0;
  for(i = 0; i < n && code == CS_OK; i++){
    const HbVal *pInfo = hbField(&pRes->aChild[i], 2);
    const HbVal *pS = hbField(pInfo, 3), *pE = hbField(pInfo, 4);
    int64_t nByte = 0;
    CsBytes end;
    code = countRegion(pConn, zTable, pS, pE, pWait, &nByte, pSt);
    if( code != CS_OK ) break;
    nTotal += nByte;
    end.a = pE ? pE->a : (const unsigned char*)"";
    end.n = pE ? (size_t)pE->n : 0;
    xSample(pCtx, end, nTotal);
  }
  hbCallFree(pDone);
  return code;
}
