/*
** hb_native.h: HBase's transport of the cell store (cs_transport.h) over
** HBase's own RPC protocol, as HBase's Java client speaks it: no gateway
** between widecol and the region servers.  What its files share, from the
** bottom up:
**   hb_rpc.c      a connection to one server for one service: the
**                 preamble and header, calls in flight by call id, their
**                 answers (a protobuf message and a block of cells)
**   hb_locate.c   the cluster (the CsConn): its bootstrap nodes, the
**                 connection registry (ClientMetaService), the master, and
**                 each table's regions read from hbase:meta and cached
**   hb_scan.c     reads: scanners over each range, region by region (the
**                 ranges in one region by one, with MultiRowRangeFilter);
**                 keys by Multi gets, each server's at once
**   hb_mutate.c   batches of rows as Multi calls, a server's at once;
**                 conditional writes as a Multi's atomic region action
**                 with a Condition
**   hb_master.c   tables and namespaces (MasterService), the samples
**   hb_load.c     each region's server and request counts (AdminService)
** Messages are our own hb_wire.proto, with HBase 2.x's field numbers.
**
** Failures.  An exception names its Java class; hbRpcWait() maps the
** class to a CS_* code (by the name, the engine's code, never by its
** message): a region that moved, is opening or closing, or a server that
** is busy or gone is CS_AGAIN, after which the table's regions are read
** again from hbase:meta and the call is made again while its deadline
** lasts.
*/
#ifndef WIDECOL_HB_NATIVE_H
#define WIDECOL_HB_NATIVE_H

#include "stores/hbase/hb_common.h"
#include "stores/common/wc_sock.h"
#include "stores/common/wc_arena.h"
#include "util/wc_buf.h"
#include "hb_wire.pb-c.h"

/* A server's services, each a connection of its own. */
#define HB_SVC_CLIENT 0         /* ClientService: a region's data */
#define HB_SVC_MASTER 1         /* MasterService: tables */
#define HB_SVC_META   2         /* ClientMetaService: the registry */
#define HB_SVC_ADMIN  3         /* AdminService: a server's regions' load */
#define HB_NSVC       4

typedef struct HbServer HbServer;
typedef struct HbChan HbChan;
typedef struct HbRpc HbRpc;
typedef struct HbCluster HbCluster;
typedef struct HbRegion HbRegion;

/* A server: host and port, a connection per service, made when first
** used. */
struct HbServer {
  char *zHost;
  int port;
  int bDown;            /* A connect was refused since it last answered */
  HbChan *apChan[HB_NSVC];
  HbServer *pNext;
};

/* A region of a table, as hbase:meta says: keys [start, end) (an empty
** end: the table's end), its name (the row of hbase:meta), where it is
** served (NULL: nowhere, in transition). */
struct HbRegion {
  CsBytes start, end, name;
  HbServer *pServer;
};

/*
** hb_rpc.c
*/
/* The connection to pServer for service eSvc (HB_SVC_*), made when first
** used; NULL on OOM. */
HbChan *hbChan(HbServer *pServer, int eSvc);
void hbChanClose(HbChan *p);
/* Sends call zMethod with request pReq (and nothing else) on pChan, its
** deadline from now under pWait: the call, or NULL on OOM.  A call that
** could not be sent fails when waited for. */
HbRpc *hbRpcSend(HbChan *pChan, const char *zMethod,
                 const ProtobufCMessage *pReq, const CsWait *pWait);
/* The same with a block of cells after the request (KeyValueCodec's, as
** hbKvPut() writes them), which its mutations' associated_cell_count
** take in order. */
HbRpc *hbRpcSendCells(HbChan *pChan, const char *zMethod,
                      const ProtobufCMessage *pReq, const WcBuf *pCells,
                      const CsWait *pWait);
/* Waits for call p's answer: CS_OK and *ppResp (its message, unpacked as
** pDesc; freed by hbRpcFree()), or a code with *pSt. */
int hbRpcWait(HbRpc *p, const ProtobufCMessageDescriptor *pDesc,
              ProtobufCMessage **ppResp, CsStatus *pSt);
/* The block of cells that came with the answer (KeyValueCodec's), and the
** Java class of the exception it was, or NULL. */
CsBytes hbRpcCells(const HbRpc *p);
const char *hbRpcException(const HbRpc *p);
/* Whether the call reached the server: 0 if it failed before it was sent
** (nothing was applied). */
int hbRpcSent(const HbRpc *p);
void hbRpcFree(HbRpc *p);
/* hbRpcSend() then hbRpcWait(). */
int hbRpcCall(HbChan *pChan, const char *zMethod, const ProtobufCMessage *pReq,
              const ProtobufCMessageDescriptor *pDesc, const CsWait *pWait,
              HbRpc **ppRpc, ProtobufCMessage **ppResp, CsStatus *pSt);
/* The CS_* code of an exception of Java class zClass. */
int hbExceptionCode(const char *zClass);
/* What an exception pair of a Multi's answer says: the first line of the
** server's words in its value, or its class (sqlite3_mprintf()). */
char *hbExceptionWhy(const Hbw__NameBytesPair *pEx);

/* A cell of a block of cells. */
typedef struct HbKv HbKv;
struct HbKv {
  CsBytes row, family, qual, value;
  int64_t iMillis;      /* HB_NOW_MILLIS: the server's time */
  int eType;            /* HB_KV_PUT: a put */
};
#define HB_KV_PUT 4
/* HBase's LATEST_TIMESTAMP: a put's cell of this time is stamped with the
** server's clock. */
#define HB_NOW_MILLIS ((int64_t)0x7fffffffffffffffLL)
/* The next cell of block *pBlock, consumed: 1, 0 at its end, -1 if it is
** not KeyValueCodec's. */
int hbKvNext(CsBytes *pBlock, HbKv *pKv);
/* Appends cell *pKv to block *p, as KeyValueCodec writes it (p->bOom on
** OOM). */
void hbKvPut(WcBuf *p, const HbKv *pKv);

/*
** hb_locate.c: the cluster, the transport's CsConn.
*/
int hbnOpen(CsConn **ppConn, char **pzErr);
void hbnClose(CsConn *pConn);
const char *hbnEndpoint(const CsConn *pConn);
const char *hbnHint(const CsConn *pConn, int code);
int64_t hbnTimeoutMs(const CsConn *pConn);
void hbnRetryNow(CsConn *pConn);

HbCluster *hbCluster(CsConn *pConn);
/* The active master's connection (asked of the registry once, and again
** after a failure): CS_OK and *ppChan, or a code with *pSt. */
int hbMasterChan(HbCluster *p, const CsWait *pWait, HbChan **ppChan,
                 CsStatus *pSt);
/* After a master call failed with code: asks for the master again. */
void hbMasterFailed(HbCluster *p, int code);
/* The region of table zTable that holds key (bytes; for a reversed read
** bBefore asks for the region holding the keys just below key, an empty
** key: the table's last), its regions read from hbase:meta when not
** cached: CS_OK and *pRegion (a copy the caller frees with
** hbRegionFree()), or a code with *pSt. */
int hbLocate(HbCluster *p, const char *zTable, CsBytes key, int bBefore,
             const CsWait *pWait, HbRegion *pRegion, CsStatus *pSt);
void hbRegionFree(HbRegion *pRegion);
/* Every region of zTable, in key order (*paRegion, *pnRegion: the cache's,
** valid until the next call on p). */
int hbRegions(HbCluster *p, const char *zTable, const CsWait *pWait,
              const HbRegion **paRegion, int *pnRegion, CsStatus *pSt);
/* The index in aRegion[0..nRegion) (in key order) of the region holding
** key (bBefore: as for hbLocate()), or -1 if no region served holds it. */
int hbRegionOf(const HbRegion *aRegion, int nRegion, CsBytes key,
               int bBefore);
/* The failure of a key no region served holds: CS_AGAIN, zTable's regions
** forgotten. */
int hbNoRegion(HbCluster *p, const char *zTable, CsStatus *pSt);
/* After a call about zTable failed with code, where the code may mean a
** region moved or a server went (CS_AGAIN, CS_UNAVAILABLE, ...): the
** table's regions are read again before the next use. */
void hbForget(HbCluster *p, const char *zTable, int code);
/* A RegionSpecifier naming region pRegion. */
void hbRegionSpec(Hbw__RegionSpecifier *pSpec, const HbRegion *pRegion);
/* A TableName of table zRes ("ns:t" or "t": namespace "default"). */
void hbTableName(Hbw__TableName *pName, const char *zRes);

/*
** hb_scan.c
*/
void hbnReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                 CsReader **ppReader);
int hbnReadNext(CsReader *pReader, const CsRow **ppRow, CsStatus *pSt);
void hbnReadClose(CsReader *pReader);
/* The columns of a read as Column messages in arena pArena (*paCol,
** *pnCol): families with their qualifiers.  0, or 1 on OOM. */
int hbReadColumns(const CsRead *pRead, WcArena *pArena, Hbw__Column ***paCol,
                  size_t *pnCol);

/*
** hb_mutate.c
*/
int hbnMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                  int nEntry, const CsWait *pWait, CsStatus *pSt);
CsPending *hbnCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                         const CsCheck *pCheck, const CsMutation *aMut,
                         int nMut, const CsWait *pWait);
int hbnCheckFinish(CsPending *p, int *pbApplied, CsStatus *pSt);

/*
** hb_master.c
*/
int hbnSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsSampleFunc xSample, void *pCtx, CsStatus *pSt);
int hbnCreateTable(CsConn *pConn, const char *zTable,
                   const CsTableSpec *pSpec, const CsWait *pWait,
                   CsStatus *pSt);
int hbnGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
                const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt);
int hbnDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                   CsStatus *pSt);
/* After a call about zTable failed with code (*pSt): its regions
** forgotten, and a region not served because the table is disabled said
** so (CS_DISABLED, *pSt telling how to enable it).  The code to report. */
int hbCallFailed(HbCluster *p, const char *zTable, int code,
                 const CsWait *pWait, CsStatus *pSt);
/* Whether table zTable is disabled or disabling (*pbDisabled; one enabling
** is not): CS_OK or a failure. */
int hbTableDisabled(HbCluster *p, const char *zTable, const CsWait *pWait,
                    int *pbDisabled, CsStatus *pSt);

/*
** hb_load.c
*/
int hbnRegionLoads(CsConn *pConn, const char *zTable, const CsWait *pWait,
                   CsLoadFunc xLoad, void *pCtx, CsStatus *pSt);

#endif /* WIDECOL_HB_NATIVE_H */
