/*
** hb_load.c: a table's regions as their servers count them (the cell
** store's xRegionLoads, cs_transport.h), over HBase's own RPC
** (hb_native.h), for widecol_regions('<table>'): each region's server and
** the read and write requests that server counted on it since it opened
** it, from AdminService's GetRegionLoad, one call to each server holding
** a region of the table, all sent at once, matched to hbase:meta's
** regions by region name.  A region no server reports (moving, or opened
** since) has counts of -1.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <string.h>

/* The servers of regions aReg[0..nReg), each once, in *papServer
** (sqlite3_malloc); their number, or -1 on OOM. */
static int serversOf(const HbRegion *aReg, int nReg, HbServer ***papServer){
  HbServer **ap = sqlite3_malloc64(sizeof(HbServer*) * (size_t)(nReg + 1));
  int i, k, n = 0;
  *papServer = ap;
  if( ap == 0 ) return -1;
  for(i = 0; i < nReg; i++){
    if( aReg[i].pServer == 0 ) continue;
    for(k = 0; k < n && ap[k] != aReg[i].pServer; k++){}
    if( k == n ) ap[n++] = aReg[i].pServer;
  }
  return n;
}

/* The load region pReg's server reported in pResp, or NULL. */
static const Hbw__RegionLoad *loadOf(const HbRegion *pReg,
                                     const Hbw__GetRegionLoadResponse *pResp){
  size_t i;
  for(i = 0; pResp && i < pResp->n_region_loads; i++){
    const Hbw__RegionSpecifier *pSpec = pResp->region_loads[i]->region_specifier;
    if( pSpec && pSpec->type == HBW__REGION_SPECIFIER__TYPE__REGION_NAME
     && pSpec->value.len == pReg->name.n
     && memcmp(pSpec->value.data, pReg->name.a, pReg->name.n) == 0 ){
      return pResp->region_loads[i];
    }
  }
  return 0;
}

/* Hands each region of aReg[0..nReg) to xLoad, with the counts of the
** answer of its server (apServer[k]'s is apResp[k]). */
static int handLoads(const HbRegion *aReg, int nReg, HbServer **apServer,
                     Hbw__GetRegionLoadResponse **apResp, int nServer,
                     CsLoadFunc xLoad, void *pCtx, CsStatus *pSt){
  int i, k;
  for(i = 0; i < nReg; i++){
    CsRegionLoad load;
    const Hbw__RegionLoad *pL = 0;
    char *zServer = 0;
    for(k = 0; k < nServer && apServer[k] != aReg[i].pServer; k++){}
    if( k < nServer ) pL = loadOf(&aReg[i], apResp[k]);
    if( aReg[i].pServer ){
      zServer = sqlite3_mprintf("%s:%d", aReg[i].pServer->zHost,
                                aReg[i].pServer->port);
      if( zServer == 0 ){
        csStatusSet(pSt, CS_INTERNAL, "out of memory");
        return CS_INTERNAL;
      }
    }
    load.end = aReg[i].end;
    load.zServer = zServer;
    load.nRead = pL && pL->has_read_requests_count
               ? (int64_t)pL->read_requests_count : -1;
    load.nWrite = pL && pL->has_write_requests_count
                ? (int64_t)pL->write_requests_count : -1;
    xLoad(pCtx, &load);
    sqlite3_free(zServer);
  }
  return CS_OK;
}

int hbnRegionLoads(CsConn *pConn, const char *zTable, const CsWait *pWait,
                   CsLoadFunc xLoad, void *pCtx, CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  Hbw__GetRegionLoadRequest req = HBW__GET_REGION_LOAD_REQUEST__INIT;
  Hbw__TableName name = HBW__TABLE_NAME__INIT;
  const HbRegion *aReg = 0;
  HbServer **apServer = 0;
  HbRpc **apRpc = 0;
  Hbw__GetRegionLoadResponse **apResp = 0;
  int nReg = 0, nServer = 0, k, code;
  code = hbRegions(p, zTable, pWait, &aReg, &nReg, pSt);
  if( code == CS_OK ){
    nServer = serversOf(aReg, nReg, &apServer);
    apRpc = sqlite3_malloc64(sizeof(HbRpc*) * (size_t)(nServer + 1));
    apResp = sqlite3_malloc64(sizeof(void*) * (size_t)(nServer + 1));
    if( nServer < 0 || apRpc == 0 || apResp == 0 ){
      nServer = 0;
      code = CS_INTERNAL;
      csStatusSet(pSt, code, "out of memory");
    }
  }
  hbTableName(&name, zTable);
  req.table_name = &name;
  for(k = 0; k < nServer; k++){
    HbChan *pChan = hbChan(apServer[k], HB_SVC_ADMIN);
    apRpc[k] = pChan ? hbRpcSend(pChan, "GetRegionLoad", &req.base, pWait)
                     : 0;
    apResp[k] = 0;
  }
  for(k = 0; k < nServer && code == CS_OK; k++){
    code = hbRpcWait(apRpc[k], &hbw__get_region_load_response__descriptor,
                     (ProtobufCMessage**)&apResp[k], pSt);
  }
  if( code == CS_OK ){
    code = handLoads(aReg, nReg, apServer, apResp, nServer, xLoad, pCtx, pSt);
  }
  for(k = 0; k < nServer; k++) hbRpcFree(apRpc[k]);
  sqlite3_free(apServer);
  sqlite3_free(apRpc);
  sqlite3_free(apResp);
  if( code != CS_OK ) code = hbCallFailed(p, zTable, code, pWait, pSt);
  return code;
}
