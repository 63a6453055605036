/*
** bt_grpc.h: calls to Bigtable over gRPC's C core, carrying bt_wire.proto's
** messages: the bottom of the Bigtable transport, which bt_data.c and
** bt_admin.c make the cell store's calls (stores/cells/cs_transport.h)
** with.  Nothing here knows SQLite's tables or the cell store's rows.
**
** A connection (the transport's CsConn) is the way to one Bigtable
** endpoint: BIGTABLE_EMULATOR_HOST when it is set (plain gRPC, no
** credentials, as every official client does), else Google's endpoints
** over TLS with the access token in WIDECOL_BIGTABLE_TOKEN.  Connections
** are shared by endpoint within a process and counted.  Each call returns
** a CS_* code (Bigtable's gRPC status mapped, btCodeOf()) and, failing,
** fills a CsStatus whose text says what Bigtable said, gRPC status
** included.
**
** Every call waits under a CsWait: a deadline (a unary call's whole time,
** a stream's wait for its next message; BT_TIMEOUT_ENV, default
** CS_DEFAULT_TIMEOUT_MS) and a callback that says whether the statement
** was interrupted (sqlite3_interrupt()), asked every CS_POLL_MS while the
** call waits.  Either ends the call: CS_DEADLINE or CS_CANCELLED.
*/
#ifndef WIDECOL_BT_GRPC_H
#define WIDECOL_BT_GRPC_H

#include <stdint.h>
#include <protobuf-c/protobuf-c.h>
#include "stores/cells/cs_transport.h"
#include "bt_wire.pb-c.h"

typedef struct BtStream BtStream;
typedef struct BtPending BtPending;

/* The environment variable holding the access token for Google's
** endpoints (e.g. export WIDECOL_BIGTABLE_TOKEN=$(gcloud auth
** print-access-token)). */
#define BT_TOKEN_ENV "WIDECOL_BIGTABLE_TOKEN"
/* The environment variable setting the deadline, in milliseconds. */
#define BT_TIMEOUT_ENV "WIDECOL_BIGTABLE_TIMEOUT_MS"

/* The methods called. */
#define BT_READ_ROWS  "/google.bigtable.v2.Bigtable/ReadRows"
#define BT_MUTATE_ROWS "/google.bigtable.v2.Bigtable/MutateRows"
#define BT_CHECK_AND_MUTATE "/google.bigtable.v2.Bigtable/CheckAndMutateRow"
#define BT_SAMPLE_ROW_KEYS "/google.bigtable.v2.Bigtable/SampleRowKeys"
#define BT_CREATE_TABLE \
  "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable"
#define BT_GET_TABLE "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable"
#define BT_DELETE_TABLE \
  "/google.bigtable.admin.v2.BigtableTableAdmin/DeleteTable"

/* The cell store's code (CS_*) of a gRPC status code. */
int btCodeOf(int code);

/* The connection's side of the transport table (cs_transport.h). */
int btConnOpen(CsConn **ppConn, char **pzErr);
void btConnClose(CsConn *pConn);
const char *btConnEndpoint(const CsConn *pConn);
const char *btConnHint(const CsConn *pConn, int code);
int64_t btConnTimeoutMs(const CsConn *pConn);
void btConnRetryNow(CsConn *pConn);

/* A unary call: zMethod one of the BT_* methods above, zTable the
** resource the call is about (its routing header).  btCallStart() sends
** the request (NULL on OOM); btCallFinish() waits for its response
** (*ppResp, to free with protobuf_c_message_free_unpacked()), returns a
** CS_* code, and frees the BtPending.  The deadline runs from
** btCallStart(), so that several calls can be in flight. */
BtPending *btCallStart(CsConn *pConn, const char *zMethod, const char *zTable,
                       const ProtobufCMessage *pReq, const CsWait *pWait);
int btCallFinish(BtPending *p, const ProtobufCMessageDescriptor *pRespDesc,
                 ProtobufCMessage **ppResp, CsStatus *pStatus);
/* Both halves at once. */
int btCall(CsConn *pConn, const char *zMethod, const char *zTable,
           const ProtobufCMessage *pReq,
           const ProtobufCMessageDescriptor *pRespDesc,
           ProtobufCMessage **ppResp, CsStatus *pStatus, const CsWait *pWait);

/* A call that streams responses (ReadRows, MutateRows, SampleRowKeys).
** btStreamOpen() sends the request (*ppStream NULL on OOM; a failure to
** start is reported by the first btStreamNext()).  btStreamNext() gives
** the next response in *ppMsg and returns 1, or returns 0 at the end of a
** stream that ended well, or -1 with *pStatus set.  btStreamClose()
** cancels a stream not read to its end.  pWait must outlive the
** stream. */
void btStreamOpen(CsConn *pConn, const char *zMethod, const char *zTable,
                  const ProtobufCMessage *pReq, BtStream **ppStream,
                  const CsWait *pWait);
int btStreamNext(BtStream *pStream, const ProtobufCMessageDescriptor *pDesc,
                 ProtobufCMessage **ppMsg, CsStatus *pStatus);
void btStreamClose(BtStream *pStream);

/* bt_data.c and bt_admin.c: the transport's calls (cs_transport.h). */
void btReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                CsReader **ppReader);
int btReadNext(CsReader *pReader, const CsRow **ppRow, CsStatus *pSt);
void btReadClose(CsReader *pReader);
int btMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                 int nEntry, const CsWait *pWait, CsStatus *pSt);
CsPending *btCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                        const CsCheck *pCheck, const CsMutation *aMut,
                        int nMut, const CsWait *pWait);
int btCheckFinish(CsPending *p, int *pbApplied, CsStatus *pSt);
int btSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                 CsSampleFunc xSample, void *pCtx, CsStatus *pSt);
int btCreateTable(CsConn *pConn, const char *zTable, const CsTableSpec *pSpec,
                  const CsWait *pWait, CsStatus *pSt);
int btGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
               const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt);
int btDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsStatus *pSt);

#endif /* WIDECOL_BT_GRPC_H */
