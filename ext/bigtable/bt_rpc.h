/*
** bt_rpc.h: the calls of widecol's cell store (the stores of HBase and
** Bigtable), and the transports that make them.  The bottom of the store:
** nothing here knows SQLite's tables.
**
** Calls are named by Bigtable's methods and carry bt_wire.proto's
** messages, whose shapes (rows of cells in families, conditional
** mutations, read filters) are what both engines keep.  Each library
** links one transport: bt_rpc.c sends them to Bigtable over gRPC's C core
** (widecol_bigtable.so); ext/hbase/hb_rpc.c makes them HBase Thrift2 calls
** (widecol_hbase.so).  btEngine says which engine a library talks to and
** its limits.  Below both, bt_wait.c: statuses, the clock, backoff.
**
** On Bigtable:
** A BtConn is the way to one Bigtable endpoint: BIGTABLE_EMULATOR_HOST
** when it is set (plain gRPC, no credentials, as every official client
** does), else Google's endpoints over TLS with the access token in the
** environment variable WIDECOL_BIGTABLE_TOKEN.  Connections are shared by
** endpoint within a process and counted.  Messages are protobuf-c messages
** of bt_wire.proto; each call returns a gRPC status code (0: OK) and, when
** it is not OK, fills a BtStatus whose text says what Bigtable said.
**
** Every call waits under a BtWait: a deadline (a unary call's whole
** time, a stream's wait for its next message; BT_TIMEOUT_ENV, default
** BT_DEFAULT_TIMEOUT_MS) and a callback that says whether the statement
** was interrupted (sqlite3_interrupt()), asked every BT_POLL_MS while
** the call waits.  Either ends the call: DEADLINE_EXCEEDED or CANCELLED.
*/
#ifndef WIDECOL_BT_RPC_H
#define WIDECOL_BT_RPC_H

#include <stdint.h>
#include <protobuf-c/protobuf-c.h>
#include "store/wc_remote.h"

typedef struct BtConn BtConn;
typedef struct BtStream BtStream;
typedef struct BtPending BtPending;

/* gRPC status codes widecol treats apart. */
#define BT_OK                 0
#define BT_CANCELLED          1
#define BT_DEADLINE_EXCEEDED  4
#define BT_NOT_FOUND          5
#define BT_ALREADY_EXISTS     6
#define BT_PERMISSION_DENIED  7
#define BT_FAILED_PRECONDITION 9
#define BT_ABORTED           10
#define BT_INTERNAL          13
#define BT_UNAVAILABLE       14
#define BT_UNAUTHENTICATED   16

/* Retries of idempotent calls wait 50 ms, then twice as long each time,
** up to this. */
#define BT_MAX_BACKOFF_MS 2000

/*
** The engine a library's transport talks to: its name and limits, and
** how its users do what widecol's messages advise (each a printf format
** taking one %s, the engine's table).
*/
typedef struct BtEngine BtEngine;
struct BtEngine {
  const char *zName;        /* "Bigtable", "HBase" */
  const char *zKind;        /* Its STORAGE kind: "BIGTABLE" */
  const char *zModule;      /* The store's module: "widecol_bigtable" */
  const char *zTxnModule;   /* Its transaction table (bt_store.h) */
  const char *zDocs;        /* "docs/bigtable.md" */
  int nMaxKey;              /* The longest row key, in bytes, */
  int nKeyByName;           /* less the table's name and this many if not
                            ** 0 (HBase finds a row's region in hbase:meta
                            ** by "<table>,<key>,<14 digits>", itself a
                            ** row key) */
  int64_t nMaxCell;         /* The largest cell value, in bytes */
  int bRowAtomic;           /* A row's mutations are applied all or none
                            ** wherever the engine runs (Bigtable's
                            ** emulator applies them one by one) */
  const char *zListTables;  /* "cbt ls" */
  const char *zDropTable;   /* "cbt deletetable %s" */
  const char *zListFamilies;   /* "cbt ls %s" */
  const char *zResourceForm;   /* How a table is named, for messages */
  const char *zMakeFamily;  /* Two %s: table id, family: "cbt createfamily
                            ** %s %s" */
};
extern const BtEngine btEngine;

/* How a user changes family zFamily of table zId to keep nVersions
** versions and cells younger than nTtl seconds (0: no TTL), for
** messages; from sqlite3_mprintf(). */
char *btRuleFix(const char *zId, const char *zFamily, int nVersions,
                int64_t nTtl);

/* True if zRes names a table as the engine does (BtEngine.zResourceForm
** says how). */
int btValidResource(const char *zRes);

/*
** Resource names.  A table's is its parent's (Bigtable:
** projects/<p>/instances/<i>; HBase: its namespace, or none), a
** separator ("/tables/", ":") and the table's id; these read either form.
*/
/* The table's id in zRes (a pointer into it). */
const char *btResourceId(const char *zRes);
/* The parent of zRes, from sqlite3_mprintf() ("" if it has none). */
char *btResourceParent(const char *zRes);
/* The table zId beside zRes (same parent), from sqlite3_mprintf(). */
char *btResourceSibling(const char *zRes, const char *zId);

/* The environment variable holding the access token for Google's
** endpoints (e.g. export WIDECOL_BIGTABLE_TOKEN=$(gcloud auth
** print-access-token)). */
#define BT_TOKEN_ENV "WIDECOL_BIGTABLE_TOKEN"

/* The environment variable setting the deadline, in milliseconds. */
#define BT_TIMEOUT_ENV "WIDECOL_BIGTABLE_TIMEOUT_MS"
#define BT_DEFAULT_TIMEOUT_MS 30000
/* How often a waiting call asks whether it was interrupted. */
#define BT_POLL_MS 50

typedef struct BtStatus BtStatus;
struct BtStatus {
  int code;             /* gRPC status code */
  char *zMsg;           /* From sqlite3_mprintf(), or NULL */
};
void btStatusClear(BtStatus *p);
void btStatusSet(BtStatus *p, int code, const char *zFormat, ...);

/* What the calls cost, for widecol_stats() (wc_remote.h). */
typedef WcRpcStats BtCounters;

/* How a call waits (see above).  xInterrupted may be NULL. */
typedef struct BtWait BtWait;
struct BtWait {
  int64_t nTimeoutMs;
  int (*xInterrupted)(void*);
  void *pArg;
  BtCounters *pCount;   /* Added to; may be NULL */
  int64_t iUntilMs;     /* If not 0 (btNowMs()), the first answer must come
                        ** by then, whatever nTimeoutMs leaves: a retry
                        ** ends with the deadline its first attempt had */
};

/* Opens (or shares) the connection for this process's environment.
** Returns 0, or a gRPC code with *pzErr set (sqlite3_mprintf()). */
int btConnOpen(BtConn **ppConn, char **pzErr);
void btConnClose(BtConn *pConn);
/* "127.0.0.1:8086 (the emulator, BIGTABLE_EMULATOR_HOST)", for messages. */
const char *btConnEndpoint(const BtConn *pConn);
/* What a user can do about a failed call's status code: "; is the
** emulator running? ..." or "". */
const char *btConnHint(const BtConn *pConn, int code);
/* The deadline environment variable zEnv sets for calls to engine
** zEngine, in milliseconds (BT_DEFAULT_TIMEOUT_MS if unset), or -1 and
** *pzErr if it is not a number of milliseconds (bt_wait.c). */
int64_t btTimeoutFromEnv(const char *zEnv, const char *zEngine,
                         char **pzErr);
/* The deadline the environment sets (BT_TIMEOUT_ENV), in milliseconds. */
int64_t btConnTimeoutMs(const BtConn *pConn);
/* Ends the wait for a reconnection: after a server came back, the next
** call connects at once instead of after gRPC's growing backoff. */
void btConnRetryNow(BtConn *pConn);

/* True for a status after which an idempotent call may be tried again. */
int btRetryable(int code);
/* Sleeps before attempt nAttempt (1, 2, ...) of a call begun at
** iStartMs (btNowMs()), growing from 50 ms up to 2 s: BT_OK to go again,
** BT_DEADLINE_EXCEEDED if the wait's deadline leaves no room for it,
** BT_CANCELLED if the statement was interrupted. */
int btBackoff(const BtWait *pWait, int nAttempt, int64_t iStartMs);
/* *pWait for the attempts of a call first made at iStartMs: they end
** when the first attempt's deadline does. */
BtWait btRetryWait(const BtWait *pWait, int64_t iStartMs);
int64_t btNowMs(void);
/* True if the statement pWait waits for was interrupted. */
int btInterrupted(const BtWait *pWait);

/* A unary call (bt_util.c, over btCallStart() and btCallFinish(), which
** each transport defines): zMethod is the full method path
** ("/google.bigtable.v2.Bigtable/CheckAndMutateRow"), zTable the
** resource the call is about (routing header).  On success *ppResp is the
** response, to free with protobuf_c_message_free_unpacked(). */
int btCall(BtConn *pConn, const char *zMethod, const char *zTable,
           const ProtobufCMessage *pReq,
           const ProtobufCMessageDescriptor *pRespDesc,
           ProtobufCMessage **ppResp, BtStatus *pStatus,
           const BtWait *pWait);

/* btCall(), tried again while it fails with a status worth retrying,
** with backoff, until the deadline: for calls that may be repeated
** (GetTable; CreateTable and DeleteTable, whose repeat says
** ALREADY_EXISTS or NOT_FOUND). */
int btCallIdempotent(BtConn *pConn, const char *zMethod, const char *zTable,
                     const ProtobufCMessage *pReq,
                     const ProtobufCMessageDescriptor *pRespDesc,
                     ProtobufCMessage **ppResp, BtStatus *pStatus,
                     const BtWait *pWait);

/* The same call in two halves, so that several can be in flight:
** btCallStart() sends the request (NULL on OOM); btCallFinish() waits for
** its response, returns as btCall() does, and frees the BtPending.  The
** deadline runs from btCallStart(). */
BtPending *btCallStart(BtConn *pConn, const char *zMethod, const char *zTable,
                       const ProtobufCMessage *pReq, const BtWait *pWait);
int btCallFinish(BtPending *p, const ProtobufCMessageDescriptor *pRespDesc,
                 ProtobufCMessage **ppResp, BtStatus *pStatus);

/* A call that streams responses (ReadRows, MutateRows, SampleRowKeys).
** btStreamNext() gives the next response in *ppMsg and returns 1, or
** returns 0 at the end of a stream that ended well, or -1 with *pStatus
** set.  btStreamClose() cancels a stream not read to its end.  pWait
** must outlive the stream. */
int btStreamOpen(BtConn *pConn, const char *zMethod, const char *zTable,
                 const ProtobufCMessage *pReq, BtStream **ppStream,
                 BtStatus *pStatus, const BtWait *pWait);
int btStreamNext(BtStream *pStream, const ProtobufCMessageDescriptor *pDesc,
                 ProtobufCMessage **ppMsg, BtStatus *pStatus);
void btStreamClose(BtStream *pStream);

#endif /* WIDECOL_BT_RPC_H */
