/*
** hb_locate.c: the HBase cluster the native transport talks to (its
** CsConn, hb_native.h), found as HBase 2.5+'s own clients find it without
** ZooKeeper:
**
**   bootstrap     WIDECOL_HBASE_NODES names masters or region servers;
**                 each serves the connection registry (ClientMetaService)
**   hbase:meta    GetMetaRegionLocations: where the catalog region is
**   the master    GetActiveMaster: where tables are made and dropped
**   regions       a table's rows of hbase:meta ("<table>,<start>,<id>..."),
**                 scanned whole when the table is first used and again
**                 after any call about it failed for a region's or a
**                 server's reason; each region's start and end key, name
**                 and server (its info:regioninfo and info:server)
**
** Servers are kept by host and port, each with its connections; a
** region's server is one of them.  WIDECOL_HBASE_NAT maps the names
** servers go by in HBase (hbase:meta, the registry) to addresses reachable
** from here, for a cluster behind NAT or in containers (as ioredis's
** natMap does for Redis Cluster); a server is kept under the address
** connected to.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <stdlib.h>
#include <string.h>

/* The meta rows read per call. */
#define HB_META_PAGE 1000
/* The magic before a RegionInfo in info:regioninfo. */
#define HB_PBUF "PBUF"

/* A table's regions, in key order, in one arena. */
typedef struct HbTable HbTable;
struct HbTable {
  char *zTable;
  int nRegion;
  HbRegion *aRegion;
  WcArena arena;
  HbTable *pNext;
};

/* A name a server goes by, and the address it is reached at. */
typedef struct HbRoute HbRoute;
struct HbRoute {
  char *zFrom, *zTo;    /* host:port each, in one allocation (zFrom's) */
  int nFromHost, fromPort;
  int nToHost, toPort;
};

struct HbCluster {
  char *zNodes;         /* WIDECOL_HBASE_NODES */
  int nRoute;
  HbRoute *aRoute;      /* WIDECOL_HBASE_NAT */
  char *zEndpoint;
  int64_t nTimeoutMs;
  int nBoot;
  HbServer **apBoot;    /* The bootstrap nodes */
  HbServer *pServers;   /* Every server known */
  int bAnswered;        /* A bootstrap node has answered */
  HbServer *pMaster;    /* The active master, once asked */
  HbServer *pMetaServer;    /* Where hbase:meta is, once asked */
  HbRegion meta;
  HbTable *pTables;
};

HbCluster *hbCluster(CsConn *pConn){
  return (HbCluster*)pConn;
}

/* The server host:port (nHost bytes of zHost), known or added, at the
** address WIDECOL_HBASE_NAT maps it to if it does; NULL on OOM. */
static HbServer *serverAt(HbCluster *p, const char *zHost, int nHost,
                          int port){
  HbServer *pS;
  int i;
  for(i = 0; i < p->nRoute; i++){
    const HbRoute *pR = &p->aRoute[i];
    if( pR->fromPort == port && pR->nFromHost == nHost
     && sqlite3_strnicmp(pR->zFrom, zHost, nHost) == 0 ){
      zHost = pR->zTo;
      nHost = pR->nToHost;
      port = pR->toPort;
      break;
    }
  }
  for(pS = p->pServers; pS; pS = pS->pNext){
    if( pS->port == port && (int)strlen(pS->zHost) == nHost
     && memcmp(pS->zHost, zHost, (size_t)nHost) == 0 ){
      return pS;
    }
  }
  pS = sqlite3_malloc(sizeof(*pS));
  if( pS == 0 ) return 0;
  memset(pS, 0, sizeof(*pS));
  pS->zHost = sqlite3_mprintf("%.*s", nHost, zHost);
  pS->port = port;
  if( pS->zHost == 0 ){
    sqlite3_free(pS);
    return 0;
  }
  pS->pNext = p->pServers;
  p->pServers = pS;
  return pS;
}

/* Parses zNodes, "host:port[,host:port...]", into the bootstrap nodes: 0,
** or 1 with *pzErr. */
static int parseNodes(HbCluster *p, const char *zNodes, char **pzErr){
  const char *z = zNodes;
  int nMax = 1;
  for(z = zNodes; *z; z++) nMax += *z == ',';
  p->apBoot = sqlite3_malloc64(sizeof(HbServer*) * (size_t)nMax);
  if( p->apBoot == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return 1;
  }
  for(z = zNodes; *z; ){
    const char *zEnd = strchr(z, ',');
    int n = zEnd ? (int)(zEnd - z) : (int)strlen(z), nHost = 0, port = 0;
    char *zOne = sqlite3_mprintf("%.*s", n, z);
    HbServer *pS = 0;
    if( zOne && wcSockAddress(zOne, &nHost, &port) ){
      pS = serverAt(p, zOne, nHost, port);
    }else if( zOne ){
      *pzErr = sqlite3_mprintf(HB_NODES_ENV " must be host:port[,host:port"
                               "...] of HBase's masters or region servers; "
                               "%Q is not host:port", zOne);
      sqlite3_free(zOne);
      return 1;
    }
    sqlite3_free(zOne);
    if( pS == 0 ){
      *pzErr = sqlite3_mprintf("out of memory");
      return 1;
    }
    p->apBoot[p->nBoot++] = pS;
    z += n;
    if( *z == ',' ) z++;
  }
  return 0;
}

/* Parses zNat, "host:port=host:port[,...]" (a server's name in HBase =
** where to reach it), into p's routes: 0, or 1 with *pzErr. */
static int parseRoutes(HbCluster *p, const char *zNat, char **pzErr){
  const char *z;
  int nMax = 1;
  for(z = zNat; *z; z++) nMax += *z == ',';
  p->aRoute = sqlite3_malloc64(sizeof(HbRoute) * (size_t)nMax);
  if( p->aRoute == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return 1;
  }
  for(z = zNat; *z; ){
    const char *zEnd = strchr(z, ',');
    int n = zEnd ? (int)(zEnd - z) : (int)strlen(z);
    HbRoute *pR = &p->aRoute[p->nRoute];
    char *zEq;
    memset(pR, 0, sizeof(*pR));
    pR->zFrom = sqlite3_mprintf("%.*s", n, z);
    if( pR->zFrom == 0 ){
      *pzErr = sqlite3_mprintf("out of memory");
      return 1;
    }
    p->nRoute++;
    zEq = strchr(pR->zFrom, '=');
    if( zEq ) pR->zTo = zEq + 1;
    if( zEq ) *zEq = 0;
    if( zEq == 0 || !wcSockAddress(pR->zFrom, &pR->nFromHost, &pR->fromPort)
     || !wcSockAddress(pR->zTo, &pR->nToHost, &pR->toPort) ){
      if( zEq ) *zEq = '=';
      *pzErr = sqlite3_mprintf(HB_NAT_ENV " must be name=address[,...]: "
          "a server's host:port as HBase names it (in hbase:meta), then the "
          "host:port it is reached at from here; %Q is not", pR->zFrom);
      return 1;
    }
    z += n;
    if( *z == ',' ) z++;
  }
  return 0;
}

int hbnOpen(CsConn **ppConn, char **pzErr){
  const char *zNodes = getenv(HB_NODES_ENV);
  const char *zNat = getenv(HB_NAT_ENV);
  int64_t nTimeoutMs = csTimeoutFromEnv(HB_TIMEOUT_ENV, "HBase", pzErr);
  HbCluster *p;
  *ppConn = 0;
  if( nTimeoutMs < 0 ) return CS_REFUSED;
  if( zNodes == 0 || zNodes[0] == 0 ){
    *pzErr = sqlite3_mprintf("no HBase cluster: set " HB_NODES_ENV
        "=host:port[,host:port...] to HBase's masters or region servers "
        "(their RPC ports: 16000 and 16020 by default), or " HB_ENV
        "=host:port to a Thrift2 gateway; sh tests/servers/hbase.sh start "
        "prints them for the HBase of widecol's tests");
    return CS_UNAVAILABLE;
  }
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return CS_INTERNAL;
  }
  memset(p, 0, sizeof(*p));
  p->nTimeoutMs = nTimeoutMs;
  p->zNodes = sqlite3_mprintf("%s", zNodes);
  p->zEndpoint = sqlite3_mprintf("%s (HBase's servers, named by "
                                 HB_NODES_ENV ")", zNodes);
  if( p->zNodes == 0 || p->zEndpoint == 0 ){
    hbnClose((CsConn*)p);
    *pzErr = sqlite3_mprintf("out of memory");
    return CS_INTERNAL;
  }
  if( (zNat && parseRoutes(p, zNat, pzErr)) || parseNodes(p, zNodes, pzErr) ){
    hbnClose((CsConn*)p);
    return CS_REFUSED;
  }
  *ppConn = (CsConn*)p;
  return CS_OK;
}

static void tableFree(HbTable *pT){
  sqlite3_free(pT->aRegion);
  wcArenaFree(&pT->arena);
  sqlite3_free(pT->zTable);
  sqlite3_free(pT);
}

void hbnClose(CsConn *pConn){
  HbCluster *p = hbCluster(pConn);
  HbServer *pS;
  HbTable *pT;
  if( p == 0 ) return;
  while( (pT = p->pTables) != 0 ){
    p->pTables = pT->pNext;
    tableFree(pT);
  }
  while( (pS = p->pServers) != 0 ){
    int i;
    p->pServers = pS->pNext;
    for(i = 0; i < HB_NSVC; i++) hbChanClose(pS->apChan[i]);
    sqlite3_free(pS->zHost);
    sqlite3_free(pS);
  }
  hbRegionFree(&p->meta);
  while( p->nRoute > 0 ) sqlite3_free(p->aRoute[--p->nRoute].zFrom);
  sqlite3_free(p->aRoute);
  sqlite3_free(p->apBoot);
  sqlite3_free(p->zNodes);
  sqlite3_free(p->zEndpoint);
  sqlite3_free(p);
}

const char *hbnEndpoint(const CsConn *pConn){
  return ((const HbCluster*)pConn)->zEndpoint;
}

const char *hbnHint(const CsConn *pConn, int code){
  (void)pConn;
  if( code == CS_UNAVAILABLE ){
    return "; is HBase running, and are its masters' and region servers' "
           "RPC ports reachable from here? (" HB_NODES_ENV " names them)";
  }
  return hbHint(code);
}

int64_t hbnTimeoutMs(const CsConn *pConn){
  return ((const HbCluster*)pConn)->nTimeoutMs;
}

void hbnRetryNow(CsConn *pConn){
  (void)pConn;   /* A call after a failure connects again at once. */
}

/*
** The registry.
*/

/* Asks the bootstrap nodes, one after another, registry call zMethod
** (request pReq, answer pDesc) until one answers: CS_OK with *ppRpc and
** *ppResp, or the last failure.  Nodes that refuse when none has ever
** answered are not there: CS_REFUSED at once, with the reason. */
static int askRegistry(HbCluster *p, const char *zMethod,
                       const ProtobufCMessage *pReq,
                       const ProtobufCMessageDescriptor *pDesc,
                       const CsWait *pWait, HbRpc **ppRpc,
                       ProtobufCMessage **ppResp, CsStatus *pSt){
  int i, code = CS_UNAVAILABLE, bAllRefused = 1;
  *ppRpc = 0;
  for(i = 0; i < p->nBoot; i++){
    HbChan *pChan = hbChan(p->apBoot[i], HB_SVC_META);
    if( pChan == 0 ){
      csStatusSet(pSt, CS_INTERNAL, "out of memory");
      return CS_INTERNAL;
    }
    csStatusClear(pSt);
    code = hbRpcCall(pChan, zMethod, pReq, pDesc, pWait, ppRpc, ppResp, pSt);
    if( code == CS_OK ){
      p->bAnswered = 1;
      return CS_OK;
    }
    if( code != CS_UNAVAILABLE || hbRpcSent(*ppRpc) ) bAllRefused = 0;
    hbRpcFree(*ppRpc);
    *ppRpc = 0;
    if( code == CS_CANCELLED || code == CS_INTERNAL ) return code;
  }
  if( bAllRefused && !p->bAnswered ){
    char *z = sqlite3_mprintf("no HBase server answers at %s: %s%s",
                              p->zNodes, pSt->zMsg ? pSt->zMsg : "refused",
                              hbnHint((CsConn*)p, CS_UNAVAILABLE));
    csStatusClear(pSt);
    csStatusSet(pSt, CS_REFUSED, "%s", z ? z : "out of memory");
    sqlite3_free(z);
    return CS_REFUSED;
  }
  return code;
}

/* The server of ServerName pName; NULL on OOM. */
static HbServer *serverOf(HbCluster *p, const Hbw__ServerName *pName){
  return serverAt(p, pName->host_name, (int)strlen(pName->host_name),
                  (int)pName->port);
}

int hbMasterChan(HbCluster *p, const CsWait *pWait, HbChan **ppChan,
                 CsStatus *pSt){
  *ppChan = 0;
  if( p->pMaster == 0 ){
    Hbw__GetActiveMasterRequest req = HBW__GET_ACTIVE_MASTER_REQUEST__INIT;
    Hbw__GetActiveMasterResponse *pResp = 0;
    HbRpc *pRpc = 0;
    int code = askRegistry(p, "GetActiveMaster", &req.base,
                           &hbw__get_active_master_response__descriptor,
                           pWait, &pRpc, (ProtobufCMessage**)&pResp, pSt);
    if( code == CS_OK ){
      if( pResp->server_name == 0 ){
        code = CS_AGAIN;
        csStatusSet(pSt, code, "HBase has no active master yet");
      }else if( (p->pMaster = serverOf(p, pResp->server_name)) == 0 ){
        code = CS_INTERNAL;
        csStatusSet(pSt, code, "out of memory");
      }
    }
    hbRpcFree(pRpc);
    if( code != CS_OK ) return code;
  }
  *ppChan = hbChan(p->pMaster, HB_SVC_MASTER);
  if( *ppChan == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return CS_OK;
}

void hbMasterFailed(HbCluster *p, int code){
  if( code == CS_UNAVAILABLE || code == CS_AGAIN ) p->pMaster = 0;
}

void hbRegionFree(HbRegion *pRegion){
  sqlite3_free((void*)pRegion->name.a);
  memset(pRegion, 0, sizeof(*pRegion));
}

/* *pTo as a copy of *pFrom, its bytes in one allocation: 0, or 1 on OOM. */
static int regionCopy(HbRegion *pTo, const HbRegion *pFrom){
  size_t n = pFrom->start.n + pFrom->end.n + pFrom->name.n + 1;
  unsigned char *a = sqlite3_malloc64(n);
  memset(pTo, 0, sizeof(*pTo));
  if( a == 0 ) return 1;
  if( pFrom->name.n ) memcpy(a, pFrom->name.a, pFrom->name.n);
  if( pFrom->start.n ) memcpy(a + pFrom->name.n, pFrom->start.a,
                              pFrom->start.n);
  if( pFrom->end.n ) memcpy(a + pFrom->name.n + pFrom->start.n, pFrom->end.a,
                            pFrom->end.n);
  pTo->name.a = a;
  pTo->name.n = pFrom->name.n;
  pTo->start.a = a + pFrom->name.n;
  pTo->start.n = pFrom->start.n;
  pTo->end.a = a + pFrom->name.n + pFrom->start.n;
  pTo->end.n = pFrom->end.n;
  pTo->pServer = pFrom->pServer;
  return 0;
}

/* Where hbase:meta is (p->meta), asked of the registry. */
static int locateMeta(HbCluster *p, const CsWait *pWait, CsStatus *pSt){
  Hbw__GetMetaRegionLocationsRequest req =
      HBW__GET_META_REGION_LOCATIONS_REQUEST__INIT;
  Hbw__GetMetaRegionLocationsResponse *pResp = 0;
  HbRpc *pRpc = 0;
  size_t i;
  int code = askRegistry(p, "GetMetaRegionLocations", &req.base,
                         &hbw__get_meta_region_locations_response__descriptor,
                         pWait, &pRpc, (ProtobufCMessage**)&pResp, pSt);
  if( code != CS_OK ) return code;
  code = CS_AGAIN;
  for(i = 0; i < pResp->n_meta_locations; i++){
    const Hbw__RegionLocation *pLoc = pResp->meta_locations[i];
    const Hbw__RegionInfo *pInfo = pLoc->region_info;
    HbRegion r;
    char *zName;
    if( pInfo->replica_id > 0 || pLoc->server_name == 0 ) continue;
    /* The catalog's region name: "hbase:meta,<start>,<id>" (its region
    ** has the old form, with no encoded name after it). */
    zName = sqlite3_mprintf("%.*s:%.*s,%.*s,%llu",
                            (int)pInfo->table_name->namespace_.len,
                            pInfo->table_name->namespace_.data,
                            (int)pInfo->table_name->qualifier.len,
                            pInfo->table_name->qualifier.data,
                            (int)(pInfo->has_start_key ? pInfo->start_key.len : 0),
                            pInfo->start_key.data,
                            (unsigned long long)pInfo->region_id);
    memset(&r, 0, sizeof(r));
    r.name.a = (const unsigned char*)zName;
    r.name.n = zName ? strlen(zName) : 0;
    r.pServer = serverOf(p, pLoc->server_name);
    hbRegionFree(&p->meta);
    if( zName == 0 || r.pServer == 0 || regionCopy(&p->meta, &r) ){
      sqlite3_free(zName);
      code = CS_INTERNAL;
      break;
    }
    sqlite3_free(zName);
    p->pMetaServer = r.pServer;
    code = CS_OK;
    break;
  }
  hbRpcFree(pRpc);
  if( code == CS_AGAIN ){
    csStatusSet(pSt, code, "hbase:meta is not assigned to a server yet");
  }else if( code == CS_INTERNAL ){
    csStatusSet(pSt, code, "out of memory");
  }
  return code;
}

void hbTableName(Hbw__TableName *pName, const char *zRes){
  const char *zColon = strchr(zRes, ':');
  if( zColon ){
    pName->namespace_.data = (uint8_t*)zRes;
    pName->namespace_.len = (size_t)(zColon - zRes);
    pName->qualifier.data = (uint8_t*)zColon + 1;
    pName->qualifier.len = strlen(zColon + 1);
  }else{
    pName->namespace_.data = (uint8_t*)"default";
    pName->namespace_.len = 7;
    pName->qualifier.data = (uint8_t*)zRes;
    pName->qualifier.len = strlen(zRes);
  }
}

void hbRegionSpec(Hbw__RegionSpecifier *pSpec, const HbRegion *pRegion){
  pSpec->type = HBW__REGION_SPECIFIER__TYPE__REGION_NAME;
  pSpec->value.data = (uint8_t*)pRegion->name.a;
  pSpec->value.len = pRegion->name.n;
}

/* Region *pR from meta row (key, its cells aKv[0..nKv)), its bytes in
** pT's arena: 1, or 0 if the row is no region to use (a split parent, an
** offline region, a replica), or -1 on OOM. */
static int regionOfRow(HbCluster *p, HbTable *pT, CsBytes key,
                       const HbKv *aKv, int nKv, HbRegion *pR){
  Hbw__RegionInfo *pInfo = 0;
  int i, rc = 1;
  memset(pR, 0, sizeof(*pR));
  for(i = 0; i < nKv; i++){
    const HbKv *pKv = &aKv[i];
    if( pKv->qual.n == 10 && memcmp(pKv->qual.a, "regioninfo", 10) == 0
     && pKv->value.n >= 4 && memcmp(pKv->value.a, HB_PBUF, 4) == 0
     && pInfo == 0 ){
      pInfo = hbw__region_info__unpack(0, pKv->value.n - 4,
                                       pKv->value.a + 4);
    }else if( pKv->qual.n == 6 && memcmp(pKv->qual.a, "server", 6) == 0 ){
      char *zAddr = sqlite3_mprintf("%.*s", (int)pKv->value.n,
                                    pKv->value.a);
      int nHost = 0, port = 0;
      if( zAddr == 0 ) rc = -1;
      else if( wcSockAddress(zAddr, &nHost, &port) ){
        pR->pServer = serverAt(p, zAddr, nHost, port);
        if( pR->pServer == 0 ) rc = -1;
      }
      sqlite3_free(zAddr);
    }
  }
  if( pInfo == 0 || rc < 0 ){
    if( pInfo ) hbw__region_info__free_unpacked(pInfo, 0);
    return rc < 0 ? -1 : 0;
  }
  if( pInfo->offline || pInfo->split || pInfo->replica_id > 0 ){
    rc = 0;
  }else{
    pR->start.a = wcArenaCopy(&pT->arena, pInfo->start_key.data,
                              pInfo->has_start_key ? pInfo->start_key.len : 0);
    pR->start.n = pInfo->has_start_key ? pInfo->start_key.len : 0;
    pR->end.a = wcArenaCopy(&pT->arena, pInfo->end_key.data,
                            pInfo->has_end_key ? pInfo->end_key.len : 0);
    pR->end.n = pInfo->has_end_key ? pInfo->end_key.len : 0;
    pR->name.a = wcArenaCopy(&pT->arena, key.a, key.n);
    pR->name.n = key.n;
    if( pT->arena.bOom ) rc = -1;
  }
  hbw__region_info__free_unpacked(pInfo, 0);
  return rc;
}

static int cmpBytes(CsBytes a, CsBytes b){
  return wcBytesCompare(a.a, (int64_t)a.n, b.a, (int64_t)b.n);
}

static int cmpRegion(const void *pA, const void *pB){
  return cmpBytes(((const HbRegion*)pA)->start, ((const HbRegion*)pB)->start);
}

/* Adds the regions of one answer of the meta scan (its cells, a row at a
** time by cells_per_result) to pT, *pnAlloc the room of pT->aRegion: 0,
** or 1 on OOM or an answer not understood (*pSt). */
static int addMetaRows(HbCluster *p, HbTable *pT, int *pnAlloc,
                       const Hbw__ScanResponse *pResp, CsBytes cells,
                       CsStatus *pSt){
  size_t r;
  HbKv aKv[16];
  for(r = 0; r < pResp->n_cells_per_result; r++){
    uint32_t c, nCell = pResp->cells_per_result[r];
    int nKv = 0, rc;
    CsBytes key = {0, 0};
    for(c = 0; c < nCell; c++){
      HbKv kv;
      if( hbKvNext(&cells, &kv) <= 0 ){
        csStatusSet(pSt, CS_INTERNAL, "HBase's hbase:meta could not be read");
        return 1;
      }
      key = kv.row;
      if( nKv < (int)(sizeof(aKv) / sizeof(aKv[0])) ) aKv[nKv++] = kv;
    }
    if( pT->nRegion >= *pnAlloc ){
      int nNew = *pnAlloc ? *pnAlloc * 2 : 16;
      HbRegion *aNew = sqlite3_realloc64(pT->aRegion,
                                         sizeof(HbRegion) * (size_t)nNew);
      if( aNew == 0 ){
        csStatusSet(pSt, CS_INTERNAL, "out of memory");
        return 1;
      }
      pT->aRegion = aNew;
      *pnAlloc = nNew;
    }
    rc = regionOfRow(p, pT, key, aKv, nKv, &pT->aRegion[pT->nRegion]);
    if( rc < 0 ){
      csStatusSet(pSt, CS_INTERNAL, "out of memory");
      return 1;
    }
    pT->nRegion += rc;
  }
  return 0;
}

/* Reads table zTable's regions from hbase:meta into a new *ppT. */
static int loadTable(HbCluster *p, const char *zTable, const CsWait *pWait,
                     HbTable **ppT, CsStatus *pSt){
  HbTable *pT = sqlite3_malloc(sizeof(*pT));
  Hbw__ScanRequest req = HBW__SCAN_REQUEST__INIT;
  Hbw__Scan scan = HBW__SCAN__INIT;
  Hbw__RegionSpecifier spec = HBW__REGION_SPECIFIER__INIT;
  Hbw__Column col = HBW__COLUMN__INIT;
  Hbw__Column *apCol[1];
  /* hbase:meta orders its rows by table, then start key, then id (its own
  ** comparator, not bytewise): a table's rows are those from "<table>,,"
  ** to "<table> ,,", as HBase's own client scans them. */
  char *zStart = sqlite3_mprintf("%s,,", zTable);
  char *zStop = sqlite3_mprintf("%s ,,", zTable);
  int nAlloc = 0, code = CS_OK;
  uint64_t iSeq = 0;
  *ppT = 0;
  if( pT ) memset(pT, 0, sizeof(*pT));
  if( pT == 0 || zStart == 0 || zStop == 0
   || (pT->zTable = sqlite3_mprintf("%s", zTable)) == 0 ){
    sqlite3_free(zStart);
    sqlite3_free(zStop);
    if( pT ) tableFree(pT);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  if( p->pMetaServer == 0 ) code = locateMeta(p, pWait, pSt);
  if( code == CS_OK ){
    hbRegionSpec(&spec, &p->meta);
    col.family.data = (uint8_t*)"info";
    col.family.len = 4;
    apCol[0] = &col;
    scan.n_column = 1;
    scan.column = apCol;
    scan.has_start_row = scan.has_stop_row = 1;
    scan.start_row.data = (uint8_t*)zStart;
    scan.start_row.len = strlen(zStart);
    scan.stop_row.data = (uint8_t*)zStop;
    scan.stop_row.len = strlen(zStop);
    req.region = &spec;
    req.scan = &scan;
  }
  req.has_number_of_rows = 1;
  req.number_of_rows = HB_META_PAGE;
  while( code == CS_OK ){
    Hbw__ScanResponse *pResp = 0;
    HbRpc *pRpc = 0;
    HbChan *pChan = hbChan(p->pMetaServer, HB_SVC_CLIENT);
    if( pChan == 0 ){
      code = CS_INTERNAL;
      csStatusSet(pSt, code, "out of memory");
      break;
    }
    code = hbRpcCall(pChan, "Scan", &req.base,
                     &hbw__scan_response__descriptor, pWait, &pRpc,
                     (ProtobufCMessage**)&pResp, pSt);
    if( code == CS_OK
     && addMetaRows(p, pT, &nAlloc, pResp, hbRpcCells(pRpc), pSt) ){
      code = pSt->code;
    }
    if( code == CS_OK ){
      int bMore = (!pResp->has_more_results || pResp->more_results)
               && (!pResp->has_more_results_in_region
                   || pResp->more_results_in_region);
      req.region = 0;
      req.scan = 0;
      req.has_scanner_id = 1;
      req.scanner_id = pResp->scanner_id;
      req.has_next_call_seq = 1;
      req.next_call_seq = iSeq++;
      hbRpcFree(pRpc);
      if( !bMore ) break;
    }else{
      hbRpcFree(pRpc);
      /* hbase:meta moved, or its server is gone: asked again next time. */
      if( csRetryable(code) ) p->pMetaServer = 0;
    }
  }
  sqlite3_free(zStart);
  sqlite3_free(zStop);
  if( code != CS_OK ){
    tableFree(pT);
    return code;
  }
  if( pT->nRegion == 0 ){
    tableFree(pT);
    csStatusSet(pSt, CS_NOT_FOUND, "there is no HBase table %s", zTable);
    return CS_NOT_FOUND;
  }
  qsort(pT->aRegion, (size_t)pT->nRegion, sizeof(HbRegion), cmpRegion);
  *ppT = pT;
  return CS_OK;
}

/* Table zTable's regions, cached or read. */
static int tableOf(HbCluster *p, const char *zTable, const CsWait *pWait,
                   HbTable **ppT, CsStatus *pSt){
  HbTable *pT;
  int code;
  for(pT = p->pTables; pT; pT = pT->pNext){
    if( strcmp(pT->zTable, zTable) == 0 ){
      *ppT = pT;
      return CS_OK;
    }
  }
  code = loadTable(p, zTable, pWait, &pT, pSt);
  if( code == CS_OK ){
    pT->pNext = p->pTables;
    p->pTables = pT;
  }
  *ppT = pT;
  return code;
}

int hbRegions(HbCluster *p, const char *zTable, const CsWait *pWait,
              const HbRegion **paRegion, int *pnRegion, CsStatus *pSt){
  HbTable *pT = 0;
  int code = tableOf(p, zTable, pWait, &pT, pSt);
  *paRegion = code == CS_OK ? pT->aRegion : 0;
  *pnRegion = code == CS_OK ? pT->nRegion : 0;
  return code;
}

void hbForget(HbCluster *p, const char *zTable, int code){
  HbTable **pp = &p->pTables;
  if( code != CS_AGAIN && code != CS_UNAVAILABLE && code != CS_NOT_FOUND
   && code != CS_DEADLINE && code != CS_DISABLED ){
    return;
  }
  while( *pp ){
    HbTable *pT = *pp;
    if( strcmp(pT->zTable, zTable) == 0 ){
      *pp = pT->pNext;
      tableFree(pT);
    }else{
      pp = &pT->pNext;
    }
  }
  if( code == CS_UNAVAILABLE ) p->pMetaServer = 0;
}

int hbRegionOf(const HbRegion *aRegion, int nRegion, CsBytes key,
               int bBefore){
  int lo = 0, hi = nRegion - 1;
  const HbRegion *pR;
  int bIn;
  if( nRegion == 0 ) return -1;
  /* The last region starting at or before key (bBefore: before key). */
  if( bBefore && key.n == 0 ){
    lo = hi;
  }else{
    while( lo < hi ){
      int mid = (lo + hi + 1) / 2;
      int c = cmpBytes(aRegion[mid].start, key);
      if( c < 0 || (c == 0 && !bBefore) ) lo = mid; else hi = mid - 1;
    }
  }
  pR = &aRegion[lo];
  if( bBefore ){
    bIn = key.n == 0 ? pR->end.n == 0
                     : (pR->end.n == 0 || cmpBytes(key, pR->end) <= 0);
  }else{
    bIn = pR->end.n == 0 || cmpBytes(key, pR->end) < 0;
  }
  return bIn && pR->pServer ? lo : -1;
}

int hbNoRegion(HbCluster *p, const char *zTable, CsStatus *pSt){
  /* A hole in hbase:meta (a region splitting, merging, or not yet
  ** assigned): found again once HBase has settled. */
  hbForget(p, zTable, CS_AGAIN);
  csStatusSet(pSt, CS_AGAIN, "no region of HBase table %s is served for "
              "that key yet", zTable);
  return CS_AGAIN;
}

int hbLocate(HbCluster *p, const char *zTable, CsBytes key, int bBefore,
             const CsWait *pWait, HbRegion *pRegion, CsStatus *pSt){
  HbTable *pT = 0;
  int code = tableOf(p, zTable, pWait, &pT, pSt);
  int i;
  memset(pRegion, 0, sizeof(*pRegion));
  if( code != CS_OK ) return code;
  i = hbRegionOf(pT->aRegion, pT->nRegion, key, bBefore);
  if( i < 0 ) return hbNoRegion(p, zTable, pSt);
  if( regionCopy(pRegion, &pT->aRegion[i]) ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return CS_OK;
}
