/*
** hb_gateway.h: HBase's transport of the cell store (cs_transport.h),
** through HBase's Thrift2 gateway: what its files share.  From the bottom
** up:
**   hb_thrift.c   Thrift's binary protocol over a socket (hb_thrift.h)
**   hb_conn.c     the connection to the gateway: calls in flight, their
**                 answers, what a failure means (the transport's CsConn)
**   hb_read.c     reads: scans a page at a time, a set of keys at once
**   hb_write.c    batches of rows, conditional writes
**   hb_admin.c    tables, and each region's size (the samples)
**   widecol_hbase.c  the transport's table of functions, the entry point
** Each cell store call becomes THBaseService calls (HBase's
** hbase-thrift/.../thrift2/hbase.thrift), said where each is made.
**
** Timestamps, the marker's qualifier and the environment's names are
** hb_common.h's.
*/
#ifndef WIDECOL_HB_GATEWAY_H
#define WIDECOL_HB_GATEWAY_H

#include "stores/hbase/hb_common.h"
#include "stores/hbase/hb_thrift.h"

/* A call sent, its answer to come (hbSend()), read in the order sent. */
typedef struct HbCall HbCall;

/* hb_conn.c: the connection's side of the transport table. */
int hbConnOpen(CsConn **ppConn, char **pzErr);
void hbConnClose(CsConn *pConn);
const char *hbConnEndpoint(const CsConn *pConn);
const char *hbConnHint(const CsConn *pConn, int code);
int64_t hbConnTimeoutMs(const CsConn *pConn);
void hbConnRetryNow(CsConn *pConn);

/* Lane iLane of pConn (0: pConn itself), another connection to the same
** gateway made when first used, or NULL if out of memory: the gateway
** serves each on a thread of its own. */
#define HB_LANES 16
CsConn *hbLane(CsConn *pConn, int iLane);

/* Sends request pReq (a whole message, hbWriteCall() first) as call
** zMethod about table zTable (NULL for none): the call, or NULL on OOM.
** Its deadline runs from now. */
HbCall *hbSend(CsConn *pConn, const char *zMethod, const char *zTable,
               WcBuf *pReq, const CsWait *pWait);
/* The call's result (field 0 of its reply; NULL for a call returning
** nothing) once its answer is read: CS_OK, or a code with *pSt set (an
** exception of HBase's: whether the table is gone or disabled is asked
** apart).  The result lives until hbCallFree(). */
int hbResult(HbCall *p, const HbVal **ppResult, CsStatus *pSt);
void hbCallFree(HbCall *p);
/* For a write the gateway may hold while HBase retries it (putMultiple
** on a disabled table waits out the whole deadline, where a single-row
** call is refused at once): if no answer to p has begun within
** HB_PROBE_MS, asks over another lane whether table zTable is disabled,
** and if so p fails at once with CS_DISABLED, saying so. */
#define HB_PROBE_MS 1000
void hbFailIfDisabled(HbCall *p, const char *zTable);
/* hbSend() and hbResult() at once; *ppCall to free. */
int hbInvoke(CsConn *pConn, const char *zMethod, const char *zTable,
             WcBuf *pReq, const CsWait *pWait, HbCall **ppCall,
             const HbVal **ppResult, CsStatus *pSt);

/* A qualifier field of family zFamily, as HBase keeps it (hbQualOut()). */
void hbWriteQual(WcBuf *p, int id, const char *zFamily, CsBytes qual);
/* A TTableName field of table zRes ("ns:t" or "t"). */
void hbWriteTableName(WcBuf *p, int id, const char *zRes);
/* Whether table zRes exists (*pbExists): CS_OK or a failure. */
int hbTableExists(CsConn *pConn, const char *zRes, const CsWait *pWait,
                  int *pbExists, CsStatus *pSt);

/* hb_read.c */
void hbReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                CsReader **ppReader);
int hbReadNext(CsReader *pReader, const CsRow **ppRow, CsStatus *pSt);
void hbReadClose(CsReader *pReader);

/* hb_write.c */
int hbMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                 int nEntry, const CsWait *pWait, CsStatus *pSt);
CsPending *hbCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                        const CsCheck *pCheck, const CsMutation *aMut,
                        int nMut, const CsWait *pWait);
int hbCheckFinish(CsPending *p, int *pbApplied, CsStatus *pSt);

/* hb_admin.c */
int hbSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                 CsSampleFunc xSample, void *pCtx, CsStatus *pSt);
int hbCreateTable(CsConn *pConn, const char *zTable, const CsTableSpec *pSpec,
                  const CsWait *pWait, CsStatus *pSt);
int hbGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
               const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt);
int hbDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsStatus *pSt);

#endif /* WIDECOL_HB_GATEWAY_H */
