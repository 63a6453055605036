/*
** hb_rpc.c: a connection to one HBase server for one service, as HBase's
** own clients make it (hb_native.h):
**
**   the preamble    "HBas", version 0, SIMPLE authentication (0x50), then
**                   a ConnectionHeader (4-byte length, the message): the
**                   user, the service, and KeyValueCodec for cells, so
**                   that a read's cells come as one block after the
**                   message, not as a protobuf message each
**   a call          4-byte length, then a RequestHeader and the request,
**                   each preceded by its varint length
**   an answer       4-byte length, a ResponseHeader (its call id, an
**                   exception, the cells' length), the response, the
**                   cells
**
** Many calls are in flight on a connection; answers come in any order and
** are matched by call id.  An answer to a call given up on is read and
** dropped.  A connection that fails fails every call in flight on it; the
** next call connects again.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <stdlib.h>
#include <string.h>

/* The codec of the cells in a call's answer (HBase's class name). */
#define HB_CODEC "org.apache.hadoop.hbase.codec.KeyValueCodec"
/* An answer larger than this is not HBase's. */
#define HB_MAX_FRAME (512 * 1024 * 1024)

static const char *const azService[HB_NSVC] = {
  "ClientService", "MasterService", "ClientMetaService", "AdminService"
};

struct HbChan {
  HbServer *pServer;
  int eSvc;
  WcSock *pSock;        /* NULL until connected, and after a failure */
  uint32_t iNextId;
  HbRpc *pPending;      /* Sent, answer not read yet */
};

struct HbRpc {
  HbChan *pChan;
  uint32_t iId;
  const char *zMethod;
  int bSent;            /* The request went out whole */
  int bDone;            /* Answered, or failed (code, zErr) */
  int code;
  char *zErr;
  char *zException;     /* Its Java class, if the answer was one */
  WcBuf frame;          /* The answer's bytes */
  const unsigned char *aMsg;    /* The response, in frame */
  size_t nMsg;
  CsBytes cells;        /* The block of cells, in frame */
  ProtobufCMessage *pResp;
  CsWait wait;
  int64_t iStartMs;
  HbRpc *pNext;         /* In pChan->pPending */
};

HbChan *hbChan(HbServer *pServer, int eSvc){
  HbChan *p = pServer->apChan[eSvc];
  wcAssert( eSvc >= 0 && eSvc < HB_NSVC );
  if( p == 0 ){
    p = sqlite3_malloc(sizeof(*p));
    if( p == 0 ) return 0;
    memset(p, 0, sizeof(*p));
    p->pServer = pServer;
    p->eSvc = eSvc;
    pServer->apChan[eSvc] = p;
  }
  return p;
}

static void failCall(HbRpc *p, int code, const char *zWhy){
  p->bDone = 1;
  p->code = code;
  sqlite3_free(p->zErr);
  p->zErr = sqlite3_mprintf("%s", zWhy);
}

/* Ends the connection after a failure: the calls in flight fail with it. */
static void dropSock(HbChan *pChan, int code, const char *zWhy){
  HbRpc *p;
  while( (p = pChan->pPending) != 0 ){
    pChan->pPending = p->pNext;
    p->pNext = 0;
    failCall(p, code, zWhy);
  }
  wcSockClose(pChan->pSock);
  pChan->pSock = 0;
}

void hbChanClose(HbChan *p){
  if( p == 0 ) return;
  dropSock(p, CS_CANCELLED, "the connection closed");
  sqlite3_free(p);
}

static int interruptedCb(void *pArg){
  return csInterrupted((const CsWait*)pArg);
}

/* The deadline of call p: its wait's time from when it was sent, and no
** later than the first attempt's deadline. */
static WcDeadline deadlineOf(const HbRpc *p){
  WcDeadline d;
  d.iUntilMs = p->iStartMs + (p->wait.nTimeoutMs > 0 ? p->wait.nTimeoutMs
                                                    : CS_DEFAULT_TIMEOUT_MS);
  if( p->wait.iUntilMs > 0 && p->wait.iUntilMs < d.iUntilMs ){
    d.iUntilMs = p->wait.iUntilMs;
  }
  d.xInterrupted = p->wait.xInterrupted ? interruptedCb : 0;
  d.pArg = (void*)&p->wait;
  return d;
}

static int codeOfIo(int rc){
  switch( rc ){
    case WC_SOCK_TIMEOUT:   return CS_DEADLINE;
    case WC_SOCK_CANCELLED: return CS_CANCELLED;
    case WC_SOCK_NOMEM:     return CS_INTERNAL;
    default:                return CS_UNAVAILABLE;
  }
}

static const char *whyOfIo(int rc){
  switch( rc ){
    case WC_SOCK_TIMEOUT:   return "no answer within the deadline";
    case WC_SOCK_CANCELLED: return "interrupted";
    case WC_SOCK_NOMEM:     return "out of memory";
    default:                return "the connection failed";
  }
}

static void putVarint(WcBuf *p, uint64_t v){
  unsigned char a[10];
  int n = 0;
  do{
    a[n] = (unsigned char)(v & 0x7f);
    v >>= 7;
    if( v ) a[n] |= 0x80;
    n++;
  }while( v );
  wcBufAppend(p, a, n);
}

/* Appends message pMsg packed, preceded by its varint length when
** bDelimited. */
static void putMessage(WcBuf *p, const ProtobufCMessage *pMsg,
                       int bDelimited){
  size_t n = protobuf_c_message_get_packed_size(pMsg);
  if( bDelimited ) putVarint(p, n);
  if( wcBufReserve(p, (int64_t)n) ) return;
  protobuf_c_message_pack(pMsg, p->a + p->n);
  p->n += (int64_t)n;
}

/* The preamble and the ConnectionHeader of a connection for pChan's
** service. */
static void writePreamble(WcBuf *p, const HbChan *pChan){
  static const unsigned char aMagic[6] = { 'H', 'B', 'a', 's', 0, 0x50 };
  Hbw__UserInformation user = HBW__USER_INFORMATION__INIT;
  Hbw__ConnectionHeader hdr = HBW__CONNECTION_HEADER__INIT;
  Hbw__VersionInfo version = HBW__VERSION_INFO__INIT;
  const char *zUser = getenv("USER");
  /* The protocol level widecol speaks: HBase 2's. */
  version.version = "2.0.0-widecol-" WIDECOL_VERSION;
  version.url = version.revision = version.date = version.src_checksum = "";
  version.user = "widecol";
  version.has_version_major = version.has_version_minor = 1;
  version.version_major = 2;
  version.version_minor = 0;
  hdr.version_info = &version;
  user.effective_user = (char*)(zUser && zUser[0] ? zUser : "widecol");
  hdr.user_info = &user;
  hdr.service_name = (char*)azService[pChan->eSvc];
  hdr.cell_block_codec_class = HB_CODEC;
  wcBufAppend(p, aMagic, 6);
  wcBufAppendBe(p, protobuf_c_message_get_packed_size(&hdr.base), 4);
  putMessage(p, &hdr.base, 0);
}

/* Connects pChan: 0, or WC_SOCK_* with *pzErr. */
static int connectChan(HbChan *pChan, const WcDeadline *pD, char **pzErr){
  WcBuf pre = {0, 0, 0, 0};
  int rc = wcSockOpen(&pChan->pSock, pChan->pServer->zHost,
                      pChan->pServer->port, pD, pzErr);
  if( rc ){
    pChan->pServer->bDown = 1;
    return rc;
  }
  writePreamble(&pre, pChan);
  rc = pre.bOom ? WC_SOCK_NOMEM : wcSockSend(pChan->pSock, pre.a, pre.n, pD);
  wcBufFree(&pre);
  if( rc ){
    wcSockClose(pChan->pSock);
    pChan->pSock = 0;
  }
  return rc;
}

HbRpc *hbRpcSend(HbChan *pChan, const char *zMethod,
                 const ProtobufCMessage *pReq, const CsWait *pWait){
  return hbRpcSendCells(pChan, zMethod, pReq, 0, pWait);
}

HbRpc *hbRpcSendCells(HbChan *pChan, const char *zMethod,
                      const ProtobufCMessage *pReq, const WcBuf *pCells,
                      const CsWait *pWait){
  Hbw__RequestHeader hdr = HBW__REQUEST_HEADER__INIT;
  Hbw__CellBlockMeta meta = HBW__CELL_BLOCK_META__INIT;
  WcBuf req = {0, 0, 0, 0};
  WcDeadline d;
  HbRpc *p = sqlite3_malloc(sizeof(*p));
  int rc = 0;
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pChan = pChan;
  p->zMethod = zMethod;
  p->wait = *pWait;
  p->iStartMs = wcMonotonicMs();
  d = deadlineOf(p);
  if( pChan->pSock == 0 ){
    char *zErr = 0;
    rc = connectChan(pChan, &d, &zErr);
    if( rc ){
      char *z = sqlite3_mprintf("%s:%d: %s", pChan->pServer->zHost,
                                pChan->pServer->port,
                                zErr ? zErr : whyOfIo(rc));
      failCall(p, codeOfIo(rc), z ? z : "out of memory");
      sqlite3_free(z);
      sqlite3_free(zErr);
      return p;
    }
  }
  p->iId = ++pChan->iNextId;
  hdr.has_call_id = 1;
  hdr.call_id = p->iId;
  hdr.method_name = (char*)zMethod;
  hdr.has_request_param = 1;
  hdr.request_param = 1;
  if( d.iUntilMs > p->iStartMs ){
    hdr.has_timeout = 1;
    hdr.timeout = (uint32_t)(d.iUntilMs - p->iStartMs);
  }
  if( pCells && pCells->n > 0 ){
    meta.has_length = 1;
    meta.length = (uint32_t)pCells->n;
    hdr.cell_block_meta = &meta;
  }
  wcBufAppendBe(&req, 0, 4);
  putMessage(&req, &hdr.base, 1);
  putMessage(&req, pReq, 1);
  if( hdr.cell_block_meta ) wcBufAppend(&req, pCells->a, pCells->n);
  if( req.bOom ){
    wcBufFree(&req);
    failCall(p, CS_INTERNAL, "out of memory");
    return p;
  }
  req.a[0] = (unsigned char)((req.n - 4) >> 24);
  req.a[1] = (unsigned char)((req.n - 4) >> 16);
  req.a[2] = (unsigned char)((req.n - 4) >> 8);
  req.a[3] = (unsigned char)(req.n - 4);
  rc = wcSockSend(pChan->pSock, req.a, req.n, &d);
  if( pWait->pCount ){
    pWait->pCount->nRpc++;
    pWait->pCount->nByteOut += req.n;
  }
  wcBufFree(&req);
  p->bSent = 1;
  if( rc ){
    dropSock(pChan, codeOfIo(rc), whyOfIo(rc));
    failCall(p, codeOfIo(rc), whyOfIo(rc));
    return p;
  }
  p->pNext = pChan->pPending;
  pChan->pPending = p;
  return p;
}

/* Reads a varint at *pa (n bytes left): its value, *pa moved past it; or
** -1 if it is cut off. */
static int64_t getVarint(const unsigned char **pa, size_t *pn){
  uint64_t v = 0;
  int s = 0;
  while( *pn > 0 && s < 64 ){
    unsigned char c = **pa;
    (*pa)++;
    (*pn)--;
    v |= (uint64_t)(c & 0x7f) << s;
    if( (c & 0x80) == 0 ) return v > (uint64_t)HB_MAX_FRAME ? -1 : (int64_t)v;
    s += 7;
  }
  return -1;
}

/* The first line of a Java stack trace: "class: message". */
static char *firstLine(const char *z){
  const char *zEnd = z ? strchr(z, '\n') : 0;
  if( z == 0 ) return sqlite3_mprintf("an exception");
  return zEnd ? sqlite3_mprintf("%.*s", (int)(zEnd - z), z)
              : sqlite3_mprintf("%s", z);
}

/* Answer frame a[0..n) (after its length) for the call it names, if one
** is in flight on pChan: parsed into it.  0, or 1 if the frame is not
** HBase's. */
static int takeFrame(HbChan *pChan, const unsigned char *a, size_t n){
  Hbw__ResponseHeader *pHdr;
  const unsigned char *z = a;
  size_t nLeft = n;
  int64_t nHdr = getVarint(&z, &nLeft);
  HbRpc **pp, *p;
  if( nHdr < 0 || (size_t)nHdr > nLeft ) return 1;
  pHdr = hbw__response_header__unpack(0, (size_t)nHdr, z);
  if( pHdr == 0 ) return 1;
  z += nHdr;
  nLeft -= (size_t)nHdr;
  for(pp = &pChan->pPending; *pp && (*pp)->iId != pHdr->call_id;
      pp = &(*pp)->pNext){}
  p = *pp;
  if( p == 0 ){
    hbw__response_header__free_unpacked(pHdr, 0);
    return 0;           /* a call given up on */
  }
  *pp = p->pNext;
  p->pNext = 0;
  p->bDone = 1;
  if( pHdr->exception ){
    const char *zClass = pHdr->exception->exception_class_name;
    p->zException = sqlite3_mprintf("%s", zClass ? zClass : "");
    p->code = hbExceptionCode(zClass);
    p->zErr = firstLine(pHdr->exception->stack_trace
                        ? pHdr->exception->stack_trace : zClass);
  }else{
    int64_t nMsg = getVarint(&z, &nLeft);
    size_t nCells = pHdr->cell_block_meta && pHdr->cell_block_meta->has_length
                  ? pHdr->cell_block_meta->length : 0;
    if( nMsg < 0 || (size_t)nMsg + nCells > nLeft ){
      hbw__response_header__free_unpacked(pHdr, 0);
      failCall(p, CS_INTERNAL, "an answer of HBase's could not be read");
      return 1;
    }
    wcBufAppend(&p->frame, z, (int64_t)((size_t)nMsg + nCells));
    if( p->frame.bOom ){
      failCall(p, CS_INTERNAL, "out of memory");
    }else{
      p->aMsg = p->frame.a;
      p->nMsg = (size_t)nMsg;
      p->cells.a = p->frame.a + nMsg;
      p->cells.n = nCells;
    }
  }
  hbw__response_header__free_unpacked(pHdr, 0);
  return 0;
}

/* Reads answers on p's connection until p's. */
static void readUntil(HbRpc *p){
  HbChan *pChan = p->pChan;
  while( !p->bDone ){
    WcDeadline d = deadlineOf(p);
    const unsigned char *a = 0;
    int64_t nBefore = wcSockBytesIn(pChan->pSock);
    uint32_t n;
    int rc = wcSockPeek(pChan->pSock, 4, &d, &a);
    if( rc == 0 ){
      n = (uint32_t)wcGetBe(a, 4);
      if( n > HB_MAX_FRAME ){
        dropSock(pChan, CS_INTERNAL, "an answer of HBase's could not be read");
        return;
      }
      rc = wcSockPeek(pChan->pSock, 4 + (int64_t)n, &d, &a);
    }
    if( rc ){
      dropSock(pChan, codeOfIo(rc), whyOfIo(rc));
      return;
    }
    if( takeFrame(pChan, a + 4, n) ){
      dropSock(pChan, CS_INTERNAL, "an answer of HBase's could not be read");
      return;
    }
    wcSockSkip(pChan->pSock, 4 + (int64_t)n);
    pChan->pServer->bDown = 0;
    if( p->wait.pCount ){
      p->wait.pCount->nMsgIn++;
      p->wait.pCount->nByteIn += wcSockBytesIn(pChan->pSock) - nBefore;
    }
  }
}

int hbRpcWait(HbRpc *p, const ProtobufCMessageDescriptor *pDesc,
              ProtobufCMessage **ppResp, CsStatus *pSt){
  *ppResp = 0;
  if( p == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  if( !p->bDone ) readUntil(p);
  wcAssert( p->bDone );
  if( p->code == CS_OK && p->pResp == 0 ){
    p->pResp = protobuf_c_message_unpack(pDesc, 0, p->nMsg, p->aMsg);
    if( p->pResp == 0 ){
      failCall(p, CS_INTERNAL, "an answer of HBase's could not be read");
    }
  }
  if( p->code != CS_OK ){
    csStatusSet(pSt, p->code, "%s", p->zErr ? p->zErr : "failed");
    return p->code;
  }
  *ppResp = p->pResp;
  return CS_OK;
}

CsBytes hbRpcCells(const HbRpc *p){
  return p->cells;
}

const char *hbRpcException(const HbRpc *p){
  return p ? p->zException : 0;
}

int hbRpcSent(const HbRpc *p){
  return p && p->bSent;
}

void hbRpcFree(HbRpc *p){
  if( p == 0 ) return;
  if( !p->bDone ){
    HbRpc **pp;
    for(pp = &p->pChan->pPending; *pp && *pp != p; pp = &(*pp)->pNext){}
    if( *pp ) *pp = p->pNext;
  }
  if( p->pResp ) protobuf_c_message_free_unpacked(p->pResp, 0);
  wcBufFree(&p->frame);
  sqlite3_free(p->zErr);
  sqlite3_free(p->zException);
  sqlite3_free(p);
}

int hbRpcCall(HbChan *pChan, const char *zMethod, const ProtobufCMessage *pReq,
              const ProtobufCMessageDescriptor *pDesc, const CsWait *pWait,
              HbRpc **ppRpc, ProtobufCMessage **ppResp, CsStatus *pSt){
  *ppRpc = hbRpcSend(pChan, zMethod, pReq, pWait);
  return hbRpcWait(*ppRpc, pDesc, ppResp, pSt);
}

/* Exceptions of calls the server did not carry out (CS_AGAIN), which may
** be made again on the region's new server once the region is found
** again: a region moved, opening, closing or busy, a server starting,
** stopping or busy. */
static const char *const azAgain[] = {
  "NotServingRegionException", "RegionMovedException",
  "RegionOpeningException", "RegionTooBusyException",
  "CallQueueTooBigException", "ServerNotRunningYetException",
  "RetryImmediatelyException", "PleaseHoldException",
  "RegionServerStoppedException", "RegionServerAbortedException",
  "CallDroppedException", "ServerTooBusyException",
  "MultiActionResultTooLarge", "UnknownScannerException",
  "OutOfOrderScannerNextException", "ScannerResetException",
  "LeaseException", "MasterNotRunningException",
  "NotAllMetaRegionsOnlineException",
  "RegionOfflineException", "NoServerForRegionException",
};

int hbExceptionCode(const char *zClass){
  const char *zName;
  size_t i;
  if( zClass == 0 ) return CS_REFUSED;
  zName = strrchr(zClass, '.');
  zName = zName ? zName + 1 : zClass;
  if( strcmp(zName, "TableNotFoundException") == 0
   || strcmp(zName, "NamespaceNotFoundException") == 0 ){
    return CS_NOT_FOUND;
  }
  if( strcmp(zName, "TableExistsException") == 0
   || strcmp(zName, "NamespaceExistException") == 0 ){
    return CS_EXISTS;
  }
  if( strcmp(zName, "TableNotEnabledException") == 0 ) return CS_DISABLED;
  if( strcmp(zName, "AccessDeniedException") == 0 ) return CS_DENIED;
  if( strcmp(zName, "CallTimeoutException") == 0 ) return CS_DEADLINE;
  for(i = 0; i < sizeof(azAgain) / sizeof(azAgain[0]); i++){
    if( strcmp(zName, azAgain[i]) == 0 ) return CS_AGAIN;
  }
  return CS_REFUSED;
}

/* The message of an exception pair (its class and, in its value, the
** server's words). */
char *hbExceptionWhy(const Hbw__NameBytesPair *pEx){
  const char *zVal = pEx->has_value ? (const char*)pEx->value.data : 0;
  size_t n = pEx->has_value ? pEx->value.len : 0, i;
  for(i = 0; i < n && zVal[i] != '\n'; i++){}
  return n ? sqlite3_mprintf("%.*s", (int)i, zVal)
           : sqlite3_mprintf("%s", pEx->name);
}


void hbKvPut(WcBuf *p, const HbKv *pKv){
  size_t nKey = 2 + pKv->row.n + 1 + pKv->family.n + pKv->qual.n + 8 + 1;
  wcAssert( pKv->row.n <= 0x7fff && pKv->family.n <= 0x7f );
  wcBufAppendBe(p, 8 + nKey + pKv->value.n, 4);
  wcBufAppendBe(p, nKey, 4);
  wcBufAppendBe(p, pKv->value.n, 4);
  wcBufAppendBe(p, pKv->row.n, 2);
  wcBufAppend(p, pKv->row.a, (int64_t)pKv->row.n);
  wcBufAppendBe(p, pKv->family.n, 1);
  wcBufAppend(p, pKv->family.a, (int64_t)pKv->family.n);
  wcBufAppend(p, pKv->qual.a, (int64_t)pKv->qual.n);
  wcBufAppendBe(p, (uint64_t)pKv->iMillis, 8);
  wcBufAppendBe(p, (uint64_t)pKv->eType, 1);
  wcBufAppend(p, pKv->value.a, (int64_t)pKv->value.n);
}

int hbKvNext(CsBytes *pBlock, HbKv *pKv){
  const unsigned char *a = pBlock->a;
  size_t n = pBlock->n, nCell, nKey, nVal, nRow, nFam, nQual;
  if( n == 0 ) return 0;
  if( n < 12 ) return -1;
  nCell = (size_t)wcGetBe(a, 4);
  nKey = (size_t)wcGetBe(a + 4, 4);
  nVal = (size_t)wcGetBe(a + 8, 4);
  /* A key: row length (2), row, family length (1), family, qualifier,
  ** timestamp (8), type (1). */
  if( nCell > n - 4 || nCell < 8 + nKey + nVal || nKey < 12 ) return -1;
  a += 12;
  nRow = (size_t)wcGetBe(a, 2);
  if( nRow + 2 + 1 > nKey - 9 ) return -1;
  nFam = a[2 + nRow];
  if( 2 + nRow + 1 + nFam + 9 > nKey ) return -1;
  nQual = nKey - (2 + nRow + 1 + nFam + 9);
  pKv->row.a = a + 2;
  pKv->row.n = nRow;
  pKv->family.a = a + 3 + nRow;
  pKv->family.n = nFam;
  pKv->qual.a = a + 3 + nRow + nFam;
  pKv->qual.n = nQual;
  pKv->iMillis = (int64_t)wcGetBe(a + nKey - 9, 8);
  pKv->eType = a[nKey - 1];
  pKv->value.a = a + nKey;
  pKv->value.n = nVal;
  pBlock->a += 4 + nCell;
  pBlock->n -= 4 + nCell;
  return 1;
}
