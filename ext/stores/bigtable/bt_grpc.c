/*
** bt_grpc.c: gRPC calls to Bigtable (see bt_grpc.h).
**
** gRPC's C core is used directly: each call has its own completion queue
** that the caller plucks, so a call blocks the statement that made it and
** nothing else, and no thread of ours is needed.  Messages are packed and
** unpacked with protobuf-c.  Channels are made once per endpoint and
** shared, since making one (a TCP connection, an HTTP/2 handshake) costs
** far more than a call.
**
** Waiting is done in slices of CS_POLL_MS: between them a call checks its
** deadline and whether its statement was interrupted, and cancels itself
** if so.  A call made while the server is away waits for a connection
** within its deadline (wait-for-ready), so a server back after a restart
** serves it as soon as gRPC reconnects (100 ms, then up to every 2 s);
** btConnRetryNow() lets a retry connect at once.  Channels send keepalive
** pings (every 30 s, 10 s to answer: the figures of Google's own C++
** client), so that a connection that died while idle is noticed.
*/
#include "util/wc_api.h"
#include "stores/bigtable/bt_grpc.h"

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Entries of initial metadata every call sends (requestOps()). */
#define BT_CALL_METADATA 2

/* Keepalive pings, as google-cloud-cpp's Bigtable client sends them
** (google/cloud/bigtable/internal/defaults.cc). */
#define BT_KEEPALIVE_MS         30000
#define BT_KEEPALIVE_TIMEOUT_MS 10000
/* gRPC's own reconnection attempts, which a call waits for
** (GRPC_INITIAL_METADATA_WAIT_FOR_READY), from 100 ms to the longest
** backoff of retries (CS_MAX_BACKOFF_MS, cs_transport.h). */
#define BT_FIRST_RECONNECT_MS 100

struct CsConn {
  char *zKey;           /* Endpoint and token: what makes it shareable */
  char *zEndpoint;      /* For messages */
  int bEmulator;
  grpc_channel *pData;  /* google.bigtable.v2 */
  grpc_channel *pAdmin; /* google.bigtable.admin.v2 (== pData on the
                        ** emulator) */
  int64_t nTimeoutMs;   /* BT_TIMEOUT_ENV, read when the connection opened */
  int nRef;
  CsConn *pNext;
};

struct BtStream {
  grpc_completion_queue *pCq;
  grpc_call *pCall;
  grpc_channel *pChannel;
  grpc_metadata_array initial;
  grpc_metadata_array trailing;
  grpc_status_code status;
  grpc_slice details;
  int bDone;            /* The status has been received */
  const char *zMethod;  /* The method called (a BT_* constant) */
  CsWait wait;
};

static pthread_mutex_t connMutex = PTHREAD_MUTEX_INITIALIZER;
static CsConn *pConnList = 0;

static void intArg(grpc_arg *pArg, const char *zKey, int iValue){
  pArg->type = GRPC_ARG_INTEGER;
  pArg->key = (char*)zKey;
  pArg->value.integer = iValue;
}

static grpc_channel *makeChannel(const char *zTarget, const char *zToken){
  grpc_arg aArg[6];
  grpc_channel_args args;
  grpc_channel_credentials *pCred;
  grpc_channel *pChannel;
  /* Rows and cells may be large: no limit but Bigtable's own. */
  intArg(&aArg[0], GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, -1);
  intArg(&aArg[1], GRPC_ARG_MAX_SEND_MESSAGE_LENGTH, -1);
  intArg(&aArg[2], GRPC_ARG_KEEPALIVE_TIME_MS, BT_KEEPALIVE_MS);
  intArg(&aArg[3], GRPC_ARG_KEEPALIVE_TIMEOUT_MS, BT_KEEPALIVE_TIMEOUT_MS);
  /* A server back after a restart is found within the retries' pace,
  ** not after gRPC's default backoff (1 s growing to 120 s). */
  intArg(&aArg[4], GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
         BT_FIRST_RECONNECT_MS);
  intArg(&aArg[5], GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, CS_MAX_BACKOFF_MS);
  args.num_args = 6;
  args.args = aArg;
  if( zToken == 0 ){
    pCred = grpc_insecure_credentials_create();
  }else{
    grpc_channel_credentials *pTls = grpc_ssl_credentials_create(0, 0, 0, 0);
    grpc_call_credentials *pToken =
        grpc_access_token_credentials_create(zToken, 0);
    pCred = grpc_composite_channel_credentials_create(pTls, pToken, 0);
    grpc_channel_credentials_release(pTls);
    grpc_call_credentials_release(pToken);
  }
  pChannel = grpc_channel_create(zTarget, pCred, &args);
  grpc_channel_credentials_release(pCred);
  return pChannel;
}

int btConnOpen(CsConn **ppConn, char **pzErr){
  const char *zHost = getenv("BIGTABLE_EMULATOR_HOST");
  const char *zToken = 0;
  int64_t nTimeoutMs = csTimeoutFromEnv(BT_TIMEOUT_ENV, "Bigtable", pzErr);
  char *zKey;
  CsConn *p;
  *ppConn = 0;
  if( nTimeoutMs < 0 ) return CS_REFUSED;
  if( zHost && zHost[0] == 0 ) zHost = 0;
  if( zHost == 0 ){
    zToken = getenv(BT_TOKEN_ENV);
    if( zToken == 0 || zToken[0] == 0 ){
      *pzErr = sqlite3_mprintf("no Bigtable endpoint: set "
          "BIGTABLE_EMULATOR_HOST=host:port for an emulator (cbtemulator "
          "-host 127.0.0.1 -port 8086), or " BT_TOKEN_ENV " to an access "
          "token (export " BT_TOKEN_ENV "=$(gcloud auth "
          "print-access-token)) for Google's endpoint");
      return CS_DENIED;
    }
  }
  /* Connections with another deadline are not shared. */
  zKey = zHost ? sqlite3_mprintf("emulator %s %lld", zHost,
                                 (long long)nTimeoutMs)
               : sqlite3_mprintf("google %s %lld", zToken,
                                 (long long)nTimeoutMs);
  if( zKey == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return CS_INTERNAL;
  }
  pthread_mutex_lock(&connMutex);
  for(p = pConnList; p && strcmp(p->zKey, zKey) != 0; p = p->pNext){}
  if( p ){
    p->nRef++;
    sqlite3_free(zKey);
  }else{
    p = sqlite3_malloc(sizeof(*p));
    if( p ) memset(p, 0, sizeof(*p));
    if( p ){
      grpc_init();
      p->zKey = zKey;
      p->bEmulator = zHost != 0;
      p->nTimeoutMs = nTimeoutMs;
      p->zEndpoint = zHost
          ? sqlite3_mprintf("%s (the emulator named by "
                            "BIGTABLE_EMULATOR_HOST)", zHost)
          : sqlite3_mprintf("Google's endpoints (bigtable.googleapis.com and "
                            "bigtableadmin.googleapis.com:443, TLS, token "
                            "from " BT_TOKEN_ENV ")");
      p->pData = makeChannel(zHost ? zHost : "bigtable.googleapis.com:443",
                             zToken);
      p->pAdmin = zHost ? p->pData
                        : makeChannel("bigtableadmin.googleapis.com:443",
                                      zToken);
      p->nRef = 1;
      p->pNext = pConnList;
      pConnList = p;
    }else{
      sqlite3_free(zKey);
    }
  }
  pthread_mutex_unlock(&connMutex);
  if( p == 0 || p->zEndpoint == 0 || p->pData == 0 || p->pAdmin == 0 ){
    if( p ) btConnClose(p);
    *pzErr = sqlite3_mprintf("out of memory, or gRPC could not make a "
                             "channel");
    return CS_INTERNAL;
  }
  *ppConn = p;
  return CS_OK;
}

void btConnClose(CsConn *pConn){
  CsConn **pp;
  if( pConn == 0 ) return;
  pthread_mutex_lock(&connMutex);
  wcAssert( pConn->nRef > 0 );
  if( --pConn->nRef > 0 ){
    pthread_mutex_unlock(&connMutex);
    return;
  }
  for(pp = &pConnList; *pp && *pp != pConn; pp = &(*pp)->pNext){}
  if( *pp ) *pp = pConn->pNext;
  pthread_mutex_unlock(&connMutex);
  if( pConn->pAdmin && pConn->pAdmin != pConn->pData ){
    grpc_channel_destroy(pConn->pAdmin);
  }
  if( pConn->pData ) grpc_channel_destroy(pConn->pData);
  sqlite3_free(pConn->zKey);
  sqlite3_free(pConn->zEndpoint);
  sqlite3_free(pConn);
  grpc_shutdown();
}

const char *btConnHint(const CsConn *pConn, int code){
  switch( code ){
    case CS_UNAVAILABLE:
      return pConn->bEmulator
        ? "; is the emulator running? (cbtemulator -host 127.0.0.1 -port N, "
          "with BIGTABLE_EMULATOR_HOST=127.0.0.1:N)"
        : "; check the network and the endpoint";
    case CS_DEADLINE:
      return "; is the server up and reachable? (" BT_TIMEOUT_ENV
             " sets another deadline)";
    case CS_CANCELLED:
      return "; the statement was interrupted";
    case CS_NOT_FOUND:
      return "; the Bigtable table is gone (deleted outside widecol?): "
             "DROP TABLE and CREATE the widecol table again to make it";
    case CS_DENIED:
      return "; give the account Bigtable access, or renew the token "
             "(export " BT_TOKEN_ENV "=$(gcloud auth print-access-token))";
    default:
      return "";
  }
}

const char *btConnEndpoint(const CsConn *pConn){
  return pConn->zEndpoint;
}

int64_t btConnTimeoutMs(const CsConn *pConn){
  return pConn->nTimeoutMs;
}

void btConnRetryNow(CsConn *pConn){
  grpc_channel_reset_connect_backoff(pConn->pData);
  if( pConn->pAdmin != pConn->pData ){
    grpc_channel_reset_connect_backoff(pConn->pAdmin);
  }
}

/* The routing header Bigtable's front end reads: the table's resource
** name, percent-encoded. */
static char *routingParams(const char *zTable){
  static const char hex[] = "0123456789ABCDEF";
  sqlite3_str *pStr = sqlite3_str_new(0);
  const unsigned char *z;
  sqlite3_str_appendall(pStr, strncmp(zTable, "projects/", 9) == 0
      && strstr(zTable, "/tables/") ? "table_name=" : "name=");
  for(z = (const unsigned char*)zTable; *z; z++){
    if( (*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z')
     || (*z >= '0' && *z <= '9') || *z == '-' || *z == '_' || *z == '.'
     || *z == '~' ){
      sqlite3_str_appendchar(pStr, 1, (char)*z);
    }else{
      sqlite3_str_appendf(pStr, "%%%c%c", hex[*z >> 4], hex[*z & 15]);
    }
  }
  return sqlite3_str_finish(pStr);
}

static grpc_byte_buffer *packMessage(const ProtobufCMessage *pMsg,
                                     WcRpcStats *pCount){
  size_t n = protobuf_c_message_get_packed_size(pMsg);
  grpc_slice slice = grpc_slice_malloc(n);
  grpc_byte_buffer *pBuf;
  protobuf_c_message_pack(pMsg, GRPC_SLICE_START_PTR(slice));
  pBuf = grpc_raw_byte_buffer_create(&slice, 1);
  grpc_slice_unref(slice);
  if( pCount ) pCount->nByteOut += (int64_t)n;
  return pBuf;
}

static ProtobufCMessage *unpackMessage(grpc_byte_buffer *pBuf,
                                       const ProtobufCMessageDescriptor *pDesc,
                                       WcRpcStats *pCount){
  grpc_byte_buffer_reader reader;
  grpc_slice slice;
  ProtobufCMessage *pMsg = 0;
  if( !grpc_byte_buffer_reader_init(&reader, pBuf) ) return 0;
  slice = grpc_byte_buffer_reader_readall(&reader);
  grpc_byte_buffer_reader_destroy(&reader);
  pMsg = protobuf_c_message_unpack(pDesc, 0, GRPC_SLICE_LENGTH(slice),
                                   GRPC_SLICE_START_PTR(slice));
  if( pCount ){
    pCount->nMsgIn++;
    pCount->nByteIn += (int64_t)GRPC_SLICE_LENGTH(slice);
  }
  grpc_slice_unref(slice);
  return pMsg;
}

/* Waits for the batch tagged pTag of pCall to complete, until iDeadline
** (wcMonotonicMs(); 0: no deadline) and unless the statement is interrupted:
** then the call is cancelled with the reason as its status.  True if the
** batch completed well. */
static int waitFor(grpc_completion_queue *pCq, void *pTag, grpc_call *pCall,
                   grpc_channel *pChannel, const CsWait *pWait,
                   int64_t iDeadline){
  grpc_event ev;
  /* A call's batches: 1 the request and its answer, 2 the status, 3 a
  ** stream's next message; each waited for by the call that made it. */
  wcAssert( pTag == (void*)1 || pTag == (void*)2 || pTag == (void*)3 );
  wcAssert( pCall != 0 && pChannel != 0 );
  for(;;){
    int64_t nSlice = CS_POLL_MS;
    if( iDeadline > 0 ){
      int64_t nLeft = iDeadline - wcMonotonicMs();
      if( nLeft < nSlice ) nSlice = nLeft > 0 ? nLeft : 0;
    }
    ev = grpc_completion_queue_pluck(pCq, pTag,
        gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                     gpr_time_from_millis(nSlice, GPR_TIMESPAN)), 0);
    if( ev.type != GRPC_QUEUE_TIMEOUT ) break;
    if( iDeadline > 0 && wcMonotonicMs() >= iDeadline ){
      /* Calls wait for a connection (GRPC_INITIAL_METADATA_WAIT_FOR_READY):
      ** one still waiting when the deadline comes found no server, which
      ** is said as gRPC says it when it fails fast. */
      int bConnected = grpc_channel_check_connectivity_state(pChannel, 0)
                       == GRPC_CHANNEL_READY;
      char zWhy[160];
      sqlite3_snprintf(sizeof(zWhy), zWhy, "no %s within the deadline, "
          "%lld ms (" BT_TIMEOUT_ENV ")",
          bConnected ? "answer" : "connection to the server",
          (long long)(pWait && pWait->nTimeoutMs > 0 ? pWait->nTimeoutMs
                                                     : CS_DEFAULT_TIMEOUT_MS));
      grpc_call_cancel_with_status(pCall, bConnected
          ? GRPC_STATUS_DEADLINE_EXCEEDED : GRPC_STATUS_UNAVAILABLE, zWhy, 0);
      ev = grpc_completion_queue_pluck(pCq, pTag,
                                       gpr_inf_future(GPR_CLOCK_REALTIME), 0);
      break;
    }
    if( csInterrupted(pWait) ){
      grpc_call_cancel_with_status(pCall, GRPC_STATUS_CANCELLED,
                                   "interrupted", 0);
      ev = grpc_completion_queue_pluck(pCq, pTag,
                                       gpr_inf_future(GPR_CLOCK_REALTIME), 0);
      break;
    }
  }
  return ev.type == GRPC_OP_COMPLETE && ev.success;
}

static void destroyQueue(grpc_completion_queue *pCq){
  grpc_completion_queue_shutdown(pCq);
  grpc_completion_queue_destroy(pCq);
}

/* A call on the channel its service is served from. */
static grpc_call *startCall(CsConn *pConn, const char *zMethod,
                            gpr_timespec deadline,
                            grpc_completion_queue *pCq,
                            grpc_channel **ppChannel){
  grpc_channel *pChannel = strncmp(zMethod, "/google.bigtable.admin.", 23)
                           ? pConn->pData : pConn->pAdmin;
  grpc_slice method = grpc_slice_from_copied_string(zMethod);
  grpc_call *pCall;
  *ppChannel = pChannel;
  pCall = grpc_channel_create_call(pChannel, 0,
                         GRPC_PROPAGATE_DEFAULTS, pCq, method, 0, deadline, 0);
  grpc_slice_unref(method);
  return pCall;
}

int btCodeOf(int code){
  switch( code ){
    case GRPC_STATUS_OK:                return CS_OK;
    case GRPC_STATUS_CANCELLED:         return CS_CANCELLED;
    case GRPC_STATUS_DEADLINE_EXCEEDED: return CS_DEADLINE;
    case GRPC_STATUS_NOT_FOUND:         return CS_NOT_FOUND;
    case GRPC_STATUS_ALREADY_EXISTS:    return CS_EXISTS;
    case GRPC_STATUS_PERMISSION_DENIED:
    case GRPC_STATUS_UNAUTHENTICATED:   return CS_DENIED;
    case GRPC_STATUS_ABORTED:           return CS_AGAIN;
    case GRPC_STATUS_UNAVAILABLE:       return CS_UNAVAILABLE;
    default:                            return CS_REFUSED;
  }
}

/* *pStatus from a call's gRPC status: the cell store's code, and the
** text with the method, the details and the status's number. */
static int statusFrom(CsStatus *pStatus, grpc_status_code code,
                      grpc_slice details, const char *zMethod){
  char *zDetail = grpc_slice_to_c_string(details);
  const char *zShort = strrchr(zMethod, '/');
  csStatusSet(pStatus, btCodeOf(code), "%s failed: %s (gRPC status %d)",
              zShort ? zShort + 1 : zMethod,
              zDetail && zDetail[0] ? zDetail : "no details", (int)code);
  gpr_free(zDetail);
  return btCodeOf(code);
}

/* The features this client declares on every call: Bigtable's
** FeatureFlags message (googleapis google/bigtable/v2/feature_flags.proto)
** with reverse_scans (field 1) true, serialized (0x08 0x01) and
** base64url-encoded, under the metadata key Google's clients use.  The
** service answers a reversed ReadRows only for a client that declares it. */
#define BT_FEATURES_KEY   "bigtable-features"
#define BT_FEATURES_VALUE "CAE="

/* The first four operations of every call: initial metadata (the
** routing header zParams and the features, in aMd[0..1]), the request,
** the half-close, and the response's initial metadata into *pInitial. */
static void requestOps(grpc_op *aOp, grpc_metadata *aMd, const char *zParams,
                       grpc_byte_buffer *pSend, grpc_metadata_array *pInitial){
  memset(aOp, 0, sizeof(grpc_op) * 4);
  memset(aMd, 0, sizeof(*aMd) * BT_CALL_METADATA);
  aMd[0].key = grpc_slice_from_static_string("x-goog-request-params");
  aMd[0].value = grpc_slice_from_copied_string(zParams ? zParams : "");
  aMd[1].key = grpc_slice_from_static_string(BT_FEATURES_KEY);
  aMd[1].value = grpc_slice_from_static_string(BT_FEATURES_VALUE);
  aOp[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  aOp[0].data.send_initial_metadata.count = BT_CALL_METADATA;
  aOp[0].data.send_initial_metadata.metadata = aMd;
  /* A call made while the server is away waits for it (within its
  ** deadline) instead of failing at once: the wait polls the connection
  ** attempts, which otherwise progress only while some call polls. */
  aOp[0].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY;
  aOp[1].op = GRPC_OP_SEND_MESSAGE;
  aOp[1].data.send_message.send_message = pSend;
  aOp[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  aOp[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  aOp[3].data.recv_initial_metadata.recv_initial_metadata = pInitial;
}

/* A unary call in flight: everything the batch writes into must live
** until it completes. */
struct BtPending {
  grpc_completion_queue *pCq;
  grpc_call *pCall;
  grpc_channel *pChannel;
  grpc_metadata_array initial;
  grpc_metadata_array trailing;
  grpc_byte_buffer *pSend;
  grpc_byte_buffer *pRecv;
  grpc_status_code code;
  grpc_slice details;
  grpc_metadata aMd[BT_CALL_METADATA];
  char *zParams;
  char *zMethod;
  int bStarted;
  int64_t iDeadline;
  CsWait wait;
};

BtPending *btCallStart(CsConn *pConn, const char *zMethod, const char *zTable,
                       const ProtobufCMessage *pReq, const CsWait *pWait){
  BtPending *p = sqlite3_malloc(sizeof(*p));
  grpc_op aOp[6];
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  if( pWait ) p->wait = *pWait;
  p->iDeadline = csDeadline(pWait);
  p->pCq = grpc_completion_queue_create_for_pluck(0);
  /* gRPC enforces the deadline too, a little later, so that waitFor()
  ** is the one that says why it passed. */
  p->pCall = startCall(pConn, zMethod,
      gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(
          p->iDeadline - wcMonotonicMs() + 4 * CS_POLL_MS, GPR_TIMESPAN)),
      p->pCq, &p->pChannel);
  p->pSend = packMessage(pReq, p->wait.pCount);
  p->code = GRPC_STATUS_UNKNOWN;
  p->details = grpc_empty_slice();
  p->zParams = routingParams(zTable);
  p->zMethod = sqlite3_mprintf("%s", zMethod);
  grpc_metadata_array_init(&p->initial);
  grpc_metadata_array_init(&p->trailing);
  requestOps(aOp, p->aMd, p->zParams, p->pSend, &p->initial);
  memset(&aOp[4], 0, sizeof(grpc_op) * 2);
  aOp[4].op = GRPC_OP_RECV_MESSAGE;
  aOp[4].data.recv_message.recv_message = &p->pRecv;
  aOp[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  aOp[5].data.recv_status_on_client.trailing_metadata = &p->trailing;
  aOp[5].data.recv_status_on_client.status = &p->code;
  aOp[5].data.recv_status_on_client.status_details = &p->details;
  if( p->wait.pCount ) p->wait.pCount->nRpc++;
  p->bStarted = grpc_call_start_batch(p->pCall, aOp, 6, (void*)1, 0)
                == GRPC_CALL_OK;
  return p;
}

int btCall(CsConn *pConn, const char *zMethod, const char *zTable,
           const ProtobufCMessage *pReq,
           const ProtobufCMessageDescriptor *pRespDesc,
           ProtobufCMessage **ppResp, CsStatus *pStatus, const CsWait *pWait){
  BtPending *p = btCallStart(pConn, zMethod, zTable, pReq, pWait);
  if( p == 0 ){
    *ppResp = 0;
    csStatusSet(pStatus, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return btCallFinish(p, pRespDesc, ppResp, pStatus);
}

int btCallFinish(BtPending *p, const ProtobufCMessageDescriptor *pRespDesc,
                 ProtobufCMessage **ppResp, CsStatus *pStatus){
  const char *zMethod = p->zMethod ? p->zMethod : "?";
  int rc;
  *ppResp = 0;
  wcAssert( p->pCq != 0 && p->pCall != 0 );
  if( !p->bStarted ){
    csStatusSet(pStatus, CS_INTERNAL, "gRPC could not run the call %s",
              zMethod);
    rc = CS_INTERNAL;
  }else{
    /* A failed batch still has its status: the cancel's reason, or why
    ** the server or the transport ended the call. */
    waitFor(p->pCq, (void*)1, p->pCall, p->pChannel, &p->wait, p->iDeadline);
    if( p->code != GRPC_STATUS_OK ){
      rc = statusFrom(pStatus, p->code, p->details, zMethod);
    }else if( p->pRecv == 0 || (*ppResp = unpackMessage(p->pRecv, pRespDesc,
                                                 p->wait.pCount)) == 0 ){
      csStatusSet(pStatus, CS_INTERNAL, "%s: the response could not be read",
                zMethod);
      rc = CS_INTERNAL;
    }else{
      rc = CS_OK;
    }
  }
  grpc_slice_unref(p->aMd[0].value);
  grpc_slice_unref(p->details);
  grpc_metadata_array_destroy(&p->initial);
  grpc_metadata_array_destroy(&p->trailing);
  grpc_byte_buffer_destroy(p->pSend);
  if( p->pRecv ) grpc_byte_buffer_destroy(p->pRecv);
  grpc_call_unref(p->pCall);
  destroyQueue(p->pCq);
  sqlite3_free(p->zParams);
  sqlite3_free(p->zMethod);
  sqlite3_free(p);
  return rc;
}

void btStreamOpen(CsConn *pConn, const char *zMethod, const char *zTable,
                  const ProtobufCMessage *pReq, BtStream **ppStream,
                  const CsWait *pWait){
  BtStream *p = sqlite3_malloc(sizeof(*p));
  grpc_byte_buffer *pSend;
  grpc_metadata aMd[BT_CALL_METADATA];
  grpc_op aOp[4];
  char *zParams;
  *ppStream = 0;
  if( p == 0 ) return;
  memset(p, 0, sizeof(*p));
  p->zMethod = zMethod;
  if( pWait ) p->wait = *pWait;
  p->pCq = grpc_completion_queue_create_for_pluck(0);
  /* No deadline on the whole stream (a long scan is no hang): each wait
  ** for its next message has one instead. */
  p->pCall = startCall(pConn, zMethod, gpr_inf_future(GPR_CLOCK_REALTIME),
                       p->pCq, &p->pChannel);
  p->details = grpc_empty_slice();
  grpc_metadata_array_init(&p->initial);
  grpc_metadata_array_init(&p->trailing);
  zParams = routingParams(zTable);
  pSend = packMessage(pReq, p->wait.pCount);
  requestOps(aOp, aMd, zParams, pSend, &p->initial);
  if( p->wait.pCount ) p->wait.pCount->nRpc++;
  /* A start that fails (an endpoint that is down, a server that does not
  ** answer) ends the call, and btStreamNext() reports the status it
  ** ended with. */
  if( grpc_call_start_batch(p->pCall, aOp, 4, (void*)1, 0) == GRPC_CALL_OK ){
    waitFor(p->pCq, (void*)1, p->pCall, p->pChannel, &p->wait,
            csDeadline(&p->wait));
  }
  grpc_slice_unref(aMd[0].value);
  grpc_byte_buffer_destroy(pSend);
  sqlite3_free(zParams);
  *ppStream = p;
}

/* Receives the final status; returns it. */
static int streamStatus(BtStream *p, CsStatus *pStatus, const char *zWhat){
  grpc_op op;
  if( !p->bDone ){
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op.data.recv_status_on_client.trailing_metadata = &p->trailing;
    op.data.recv_status_on_client.status = &p->status;
    op.data.recv_status_on_client.status_details = &p->details;
    p->status = GRPC_STATUS_UNKNOWN;
    if( grpc_call_start_batch(p->pCall, &op, 1, (void*)2, 0) == GRPC_CALL_OK ){
      waitFor(p->pCq, (void*)2, p->pCall, p->pChannel, &p->wait,
              csDeadline(&p->wait));
    }
    p->bDone = 1;
  }
  wcAssert( p->bDone );
  if( p->status != GRPC_STATUS_OK ){
    return statusFrom(pStatus, p->status, p->details, zWhat);
  }
  return CS_OK;
}

int btStreamNext(BtStream *p, const ProtobufCMessageDescriptor *pDesc,
                 ProtobufCMessage **ppMsg, CsStatus *pStatus){
  grpc_byte_buffer *pRecv = 0;
  grpc_op op;
  *ppMsg = 0;
  if( p == 0 ){
    csStatusSet(pStatus, CS_INTERNAL, "out of memory");
    return -1;
  }
  if( p->bDone ){
    return streamStatus(p, pStatus, p->zMethod) == CS_OK ? 0 : -1;
  }
  memset(&op, 0, sizeof(op));
  op.op = GRPC_OP_RECV_MESSAGE;
  op.data.recv_message.recv_message = &pRecv;
  if( grpc_call_start_batch(p->pCall, &op, 1, (void*)3, 0) != GRPC_CALL_OK
   || !waitFor(p->pCq, (void*)3, p->pCall, p->pChannel, &p->wait,
               csDeadline(&p->wait))
   || pRecv == 0 ){
    if( pRecv ) grpc_byte_buffer_destroy(pRecv);
    return streamStatus(p, pStatus, p->zMethod) == CS_OK ? 0 : -1;
  }
  *ppMsg = unpackMessage(pRecv, pDesc, p->wait.pCount);
  grpc_byte_buffer_destroy(pRecv);
  wcAssert( !p->bDone );
  /* An answer came: the next waits for theirs as long as any. */
  p->wait.iUntilMs = 0;
  if( *ppMsg == 0 ){
    csStatusSet(pStatus, CS_INTERNAL, "an answer to %s from Bigtable could "
                "not be read", p->zMethod);
    return -1;
  }
  return 1;
}

void btStreamClose(BtStream *p){
  if( p == 0 ) return;
  if( !p->bDone ){
    CsStatus ignored = {0, 0};
    grpc_call_cancel(p->pCall, 0);
    streamStatus(p, &ignored, "");
    csStatusClear(&ignored);
  }
  /* The call's status received: no batch of it is left in the queue. */
  wcAssert( p->bDone );
  grpc_slice_unref(p->details);
  grpc_metadata_array_destroy(&p->initial);
  grpc_metadata_array_destroy(&p->trailing);
  grpc_call_unref(p->pCall);
  destroyQueue(p->pCq);
  sqlite3_free(p);
}
