/*
** hb_conn.c: the connection to HBase's Thrift2 gateway (hb_gateway.h):
** the gateway WIDECOL_HBASE names, calls sent and their answers read in
** the order sent (many may be in flight: a request goes at once, its
** answer is read when asked for), and what a failure means.
**
** One connection per table of the cell store (its CsConn), so that each
** widecol table's calls have a socket of their own, and HB_LANES - 1 more
** for a batch's mutateRow calls, opened when first used.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_gateway.h"

#include <stdlib.h>
#include <string.h>

/* A reply read: its values, in its own arena. */
typedef struct HbReply HbReply;
struct HbReply {
  WcArena arena;
  HbVal *pBody;         /* The reply's struct */
  int eKind;            /* HB_MSG_* */
};

struct HbCall {
  CsConn *pConn;
  int32_t iSeq;
  int bRead;            /* The reply is in reply, or code says why not */
  int code;             /* CS_* of a failure to send or read */
  char *zErr;
  HbReply reply;
  HbCall *pNext;        /* The next reply to read, in order sent */
  CsWait wait;
  int64_t iStartMs;     /* When it was sent (wcMonotonicMs()) */
  const char *zMethod;
  char *zTable;         /* The table a data call is about, or NULL */
};

struct CsConn {
  char *zHost;
  int port;
  char *zEndpoint;
  int64_t nTimeoutMs;
  WcSock *pSock;        /* NULL until connected, and after a failure */
  int bAnswered;        /* The gateway has answered on this connection: a
                        ** refused connect later is a restart, waited for */
  int32_t iSeq;
  HbCall *pHead, *pTail;      /* Sent, reply not read yet */
  CsConn *apLane[HB_LANES - 1];   /* Lanes 1.. (lane 0 is this one), made
                                  ** when first used */
};

int hbConnOpen(CsConn **ppConn, char **pzErr){
  const char *zGate = getenv(HB_ENV);
  int64_t nTimeoutMs = csTimeoutFromEnv(HB_TIMEOUT_ENV, "HBase", pzErr);
  CsConn *p;
  int nHost = 0, port = 0;
  *ppConn = 0;
  if( nTimeoutMs < 0 ) return CS_REFUSED;
  if( !wcSockAddress(zGate, &nHost, &port) ){
    *pzErr = zGate && zGate[0]
      ? sqlite3_mprintf(HB_ENV " must be host:port of HBase's Thrift2 "
                        "gateway; it is %Q", zGate)
      : sqlite3_mprintf("no HBase gateway: set " HB_ENV "=host:port to "
          "HBase's Thrift2 gateway (hbase thrift2 start -p 9090, then "
          HB_ENV "=127.0.0.1:9090; sh tests/servers/hbase.sh start prints "
          "it for the HBase of widecol's tests)");
    return CS_UNAVAILABLE;
  }
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return CS_INTERNAL;
  }
  memset(p, 0, sizeof(*p));
  p->zHost = sqlite3_mprintf("%.*s", nHost, zGate);
  p->port = port;
  p->nTimeoutMs = nTimeoutMs;
  p->zEndpoint = sqlite3_mprintf("%s (HBase's Thrift2 gateway, named by "
                                 HB_ENV ")", zGate);
  if( p->zHost == 0 || p->zEndpoint == 0 ){
    hbConnClose(p);
    *pzErr = sqlite3_mprintf("out of memory");
    return CS_INTERNAL;
  }
  *ppConn = p;
  return CS_OK;
}

CsConn *hbLane(CsConn *pConn, int iLane){
  CsConn *p;
  wcAssert( iLane >= 0 && iLane < HB_LANES );
  if( iLane == 0 ) return pConn;
  p = pConn->apLane[iLane - 1];
  if( p == 0 ){
    p = sqlite3_malloc(sizeof(*p));
    if( p == 0 ) return 0;
    memset(p, 0, sizeof(*p));
    p->zHost = sqlite3_mprintf("%s", pConn->zHost);
    p->zEndpoint = sqlite3_mprintf("%s", pConn->zEndpoint);
    p->port = pConn->port;
    p->nTimeoutMs = pConn->nTimeoutMs;
    p->bAnswered = pConn->bAnswered;
    if( p->zHost == 0 || p->zEndpoint == 0 ){
      hbConnClose(p);
      return 0;
    }
    pConn->apLane[iLane - 1] = p;
  }
  return p;
}

void hbCallFree(HbCall *p){
  if( p == 0 ) return;
  wcArenaFree(&p->reply.arena);
  sqlite3_free(p->zErr);
  sqlite3_free(p->zTable);
  sqlite3_free(p);
}

/* Ends the socket after a failure: the replies not read fail with it. */
static void dropSocket(CsConn *pConn, int code, const char *zWhy){
  HbCall *p;
  for(p = pConn->pHead; p; p = p->pNext){
    p->bRead = 1;
    p->code = code;
    p->zErr = sqlite3_mprintf("%s", zWhy);
  }
  pConn->pHead = pConn->pTail = 0;
  wcSockClose(pConn->pSock);
  pConn->pSock = 0;
}

void hbConnClose(CsConn *pConn){
  int i;
  if( pConn == 0 ) return;
  for(i = 0; i < HB_LANES - 1; i++) hbConnClose(pConn->apLane[i]);
  dropSocket(pConn, CS_CANCELLED, "the connection closed");
  sqlite3_free(pConn->zHost);
  sqlite3_free(pConn->zEndpoint);
  sqlite3_free(pConn);
}

const char *hbConnEndpoint(const CsConn *pConn){
  return pConn->zEndpoint;
}

const char *hbConnHint(const CsConn *pConn, int code){
  (void)pConn;
  if( code == CS_UNAVAILABLE ){
    return "; is HBase's Thrift2 gateway running there? (hbase thrift2 "
           "start -p N, with " HB_ENV "=host:N)";
  }
  return hbHint(code);
}

int64_t hbConnTimeoutMs(const CsConn *pConn){
  return pConn->nTimeoutMs;
}

void hbConnRetryNow(CsConn *pConn){
  (void)pConn;   /* A call after a failure connects again at once. */
}

/*
** Calls.
*/

static int interruptedCb(void *pArg){
  return csInterrupted((const CsWait*)pArg);
}

/* The deadline of a call under *pWait sent at iStart. */
static WcDeadline deadlineOf(const CsWait *pWait, int64_t iStart){
  WcDeadline d;
  d.iUntilMs = iStart + (pWait->nTimeoutMs > 0 ? pWait->nTimeoutMs
                                               : CS_DEFAULT_TIMEOUT_MS);
  if( pWait->iUntilMs > 0 && pWait->iUntilMs < d.iUntilMs ){
    d.iUntilMs = pWait->iUntilMs;
  }
  d.xInterrupted = pWait->xInterrupted ? interruptedCb : 0;
  d.pArg = (void*)pWait;
  return d;
}

static int codeOfIo(int rc){
  switch( rc ){
    case HB_ERR_TIMEOUT:   return CS_DEADLINE;
    case HB_ERR_CANCELLED: return CS_CANCELLED;
    case HB_ERR_NOMEM:     return CS_INTERNAL;
    default:               return CS_UNAVAILABLE;
  }
}

static const char *whyOfIo(int rc){
  switch( rc ){
    case HB_ERR_TIMEOUT:   return "no answer within the deadline";
    case HB_ERR_CANCELLED: return "interrupted";
    case HB_ERR_NOMEM:     return "out of memory";
    case HB_ERR_PROTOCOL:  return "the gateway's answer is not Thrift's "
                                  "binary protocol (is it a Thrift2 gateway, "
                                  "unframed?)";
    default:               return "the connection to the gateway failed";
  }
}

/* A call that fails as soon as it is made: finishing it reports zWhy. */
static HbCall *failedCall(CsConn *pConn, const char *zMethod, int code,
                          const char *zWhy){
  HbCall *p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->zMethod = zMethod;
  p->bRead = 1;
  p->code = code;
  p->zErr = sqlite3_mprintf("%s", zWhy);
  return p;
}

HbCall *hbSend(CsConn *pConn, const char *zMethod, const char *zTable,
               WcBuf *pReq, const CsWait *pWait){
  HbCall *p;
  WcDeadline d;
  int rc = 0;
  if( pReq->bOom ) return failedCall(pConn, zMethod, CS_INTERNAL,
                                     "out of memory");
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->zMethod = zMethod;
  p->zTable = zTable ? sqlite3_mprintf("%s", zTable) : 0;
  p->wait = *pWait;
  p->iStartMs = wcMonotonicMs();
  d = deadlineOf(&p->wait, p->iStartMs);
  if( pConn->pSock == 0 ){
    char *zErr = 0;
    rc = wcSockOpen(&pConn->pSock, pConn->zHost, pConn->port, &d, &zErr);
    if( rc ){
      p->bRead = 1;
      p->code = codeOfIo(rc);
      /* A gateway that never answered and refuses (or cannot be reached
      ** or resolved) is not there: said at once, not retried until the
      ** deadline as a gateway that answered before and is restarting. */
      if( rc == WC_SOCK_IO && !pConn->bAnswered ) p->code = CS_REFUSED;
      p->zErr = zErr ? zErr : sqlite3_mprintf("%s", whyOfIo(rc));
      if( p->code == CS_REFUSED && p->zErr ){
        char *z = sqlite3_mprintf("%s%s", p->zErr,
                                  hbConnHint(pConn, CS_UNAVAILABLE));
        sqlite3_free(p->zErr);
        p->zErr = z;
      }
      return p;
    }
  }
  /* The sequence number sits after the version and the method's name. */
  p->iSeq = ++pConn->iSeq;
  {
    size_t nName = strlen(zMethod);
    unsigned char *a = &pReq->a[8 + nName];
    wcAssert( pReq->n >= (int64_t)(12 + nName) );
    a[0] = (unsigned char)(p->iSeq >> 24);
    a[1] = (unsigned char)(p->iSeq >> 16);
    a[2] = (unsigned char)(p->iSeq >> 8);
    a[3] = (unsigned char)p->iSeq;
  }
  rc = wcSockSend(pConn->pSock, pReq->a, pReq->n, &d);
  if( pWait->pCount ){
    pWait->pCount->nRpc++;
    pWait->pCount->nByteOut += pReq->n;
  }
  if( rc ){
    dropSocket(pConn, codeOfIo(rc), whyOfIo(rc));
    p->bRead = 1;
    p->code = codeOfIo(rc);
    p->zErr = sqlite3_mprintf("%s", whyOfIo(rc));
    return p;
  }
  if( pConn->pTail ) pConn->pTail->pNext = p; else pConn->pHead = p;
  pConn->pTail = p;
  return p;
}

/* Reads replies in order until pTarget's. */
static void readUntil(CsConn *pConn, HbCall *pTarget){
  while( !pTarget->bRead ){
    HbCall *p = pConn->pHead;
    WcDeadline d = deadlineOf(&pTarget->wait, pTarget->iStartMs);
    int32_t iSeq = 0;
    int64_t nBefore = wcSockBytesIn(pConn->pSock);
    int rc;
    wcAssert( p != 0 );
    rc = hbReadReply(pConn->pSock, &p->reply.arena, &d, &p->reply.eKind,
                     &iSeq, &p->reply.pBody);
    if( rc == 0 && iSeq != p->iSeq ) rc = HB_ERR_PROTOCOL;
    if( rc ){
      dropSocket(pConn, codeOfIo(rc), whyOfIo(rc));
      return;
    }
    if( p->wait.pCount ){
      p->wait.pCount->nMsgIn++;
      p->wait.pCount->nByteIn += wcSockBytesIn(pConn->pSock) - nBefore;
    }
    p->bRead = 1;
    pConn->bAnswered = 1;
    pConn->pHead = p->pNext;
    if( pConn->pHead == 0 ) pConn->pTail = 0;
    p->pNext = 0;
  }
}

int hbTableExists(CsConn *pConn, const char *zRes, const CsWait *pWait,
                  int *pbExists, CsStatus *pSt){
  WcBuf req = {0, 0, 0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int code;
  hbWriteCall(&req, "tableExists", 0);
  hbWriteTableName(&req, 1, zRes);
  hbWriteStop(&req);
  code = hbInvoke(pConn, "tableExists", 0, &req, pWait, &pDone, &pRes, pSt);
  *pbExists = pRes && pRes->i;
  hbCallFree(pDone);
  wcBufFree(&req);
  return code;
}

/* What became of table zRes after a call on it failed: CS_NOT_FOUND if it
** is gone, CS_DISABLED if disabled, else CS_REFUSED. */
static int tableState(CsConn *pConn, const char *zRes, const CsWait *pWait){
  CsStatus st = {0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  WcBuf req = {0, 0, 0, 0};
  int bExists = 1, code = CS_REFUSED;
  if( hbTableExists(pConn, zRes, pWait, &bExists, &st) == CS_OK && !bExists ){
    code = CS_NOT_FOUND;
  }else if( bExists ){
    hbWriteCall(&req, "isTableEnabled", 0);
    hbWriteTableName(&req, 1, zRes);
    hbWriteStop(&req);
    if( hbInvoke(pConn, "isTableEnabled", 0, &req, pWait, &pDone, &pRes,
                 &st) == CS_OK && pRes && !pRes->i ){
      code = CS_DISABLED;
    }
  }
  wcBufFree(&req);
  hbCallFree(pDone);
  csStatusClear(&st);
  return code;
}

/* What a disabled table's failure adds, naming the table (bLong: said
** on its own, with what the gateway does with rows it holds). */
static char *disabledHint(const char *zRes, int bLong){
  return bLong
    ? sqlite3_mprintf("the HBase table %s is disabled: enable it, in the "
        "hbase shell: enable '%s'; HBase's gateway holds the rows sent and "
        "retries them until its own timeout, so they may yet be written once "
        "it is enabled", zRes, zRes)
    : sqlite3_mprintf(" (the table is disabled: enable it, in the hbase "
                      "shell: enable '%s')", zRes);
}

void hbFailIfDisabled(HbCall *p, const char *zTable){
  CsConn *pConn = p->pConn;
  WcDeadline d;
  const unsigned char *a;
  CsConn *pLane;
  char *zWhy;
  if( p->bRead || pConn->pHead != p || pConn->pSock == 0 ) return;
  d = deadlineOf(&p->wait, p->iStartMs);
  if( d.iUntilMs > wcMonotonicMs() + HB_PROBE_MS ){
    d.iUntilMs = wcMonotonicMs() + HB_PROBE_MS;
  }
  if( wcSockPeek(pConn->pSock, 1, &d, &a) != WC_SOCK_TIMEOUT ) return;
  pLane = hbLane(pConn, HB_LANES - 1);
  if( pLane == 0 || tableState(pLane, zTable, &p->wait) != CS_DISABLED ) return;
  zWhy = disabledHint(zTable, 1);
  dropSocket(pConn, CS_DISABLED, zWhy ? zWhy : "out of memory");
  sqlite3_free(zWhy);
}

/* The length of the first line of an exception's message (pMsg, or
** "failed" if none): the gateway sends HBase's whole Java stack trace
** after it, which says nothing a user can act on. */
static int firstLine(const HbVal *pMsg){
  const unsigned char *zNl;
  if( pMsg == 0 ) return 6;
  zNl = memchr(pMsg->a, '\n', (size_t)pMsg->n);
  return zNl ? (int)(zNl - pMsg->a) : (int)pMsg->n;
}

int hbResult(HbCall *p, const HbVal **ppResult, CsStatus *pSt){
  const HbVal *pBody, *pEx;
  readUntil(p->pConn, p);
  *ppResult = 0;
  if( p->code ){
    csStatusSet(pSt, p->code, "%s: %s", p->zMethod,
                p->zErr ? p->zErr : "failed");
    return p->code;
  }
  pBody = p->reply.pBody;
  if( p->reply.eKind == HB_MSG_EXCEPTION ){
    const HbVal *pMsg = hbField(pBody, 1);
    csStatusSet(pSt, CS_REFUSED, "the gateway could not run %s: %.*s",
                p->zMethod, firstLine(pMsg), pMsg ? (const char*)pMsg->a
                                                  : "failed");
    return CS_REFUSED;
  }
  /* Field 1: TIOError, 2: TIllegalArgument, each with a message and no
  ** code: whether the table is gone or disabled is asked apart. */
  if( (pEx = hbField(pBody, 1)) != 0 || (pEx = hbField(pBody, 2)) != 0 ){
    const HbVal *pMsg = hbField(pEx, 1);
    int code = p->zTable ? tableState(p->pConn, p->zTable, &p->wait)
                         : CS_REFUSED;
    char *zHint = code == CS_DISABLED ? disabledHint(p->zTable, 0) : 0;
    csStatusSet(pSt, code, "HBase refused %s: %.*s%s%s", p->zMethod,
                firstLine(pMsg), pMsg ? (const char*)pMsg->a : "failed",
                code == CS_NOT_FOUND ? " (there is no such table)" : "",
                zHint ? zHint : "");
    sqlite3_free(zHint);
    return code;
  }
  *ppResult = hbField(pBody, 0);
  return CS_OK;
}

int hbInvoke(CsConn *pConn, const char *zMethod, const char *zTable,
             WcBuf *pReq, const CsWait *pWait, HbCall **ppCall,
             const HbVal **ppResult, CsStatus *pSt){
  HbCall *p = hbSend(pConn, zMethod, zTable, pReq, pWait);
  *ppCall = p;
  *ppResult = 0;
  if( p == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return hbResult(p, ppResult, pSt);
}

/*
** Names.
*/

void hbWriteQual(WcBuf *p, int id, const char *zFamily, CsBytes qual){
  qual = hbQualOut(zFamily, qual);
  hbWriteBinaryField(p, id, qual.a, (int64_t)qual.n);
}

void hbWriteTableName(WcBuf *p, int id, const char *zRes){
  const char *zColon = strchr(zRes, ':');
  hbWriteField(p, HB_STRUCT, id);
  if( zColon ){
    hbWriteBinaryField(p, 1, zRes, zColon - zRes);
    hbWriteBinaryField(p, 2, zColon + 1, (int64_t)strlen(zColon + 1));
  }else{
    hbWriteBinaryField(p, 2, zRes, (int64_t)strlen(zRes));
  }
  hbWriteStop(p);
}
