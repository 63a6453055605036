/*
** cq_wire.c: Cassandra's native protocol v5 or v4 (see cq_wire.h),
** written from the protocol's specifications (native_protocol_v4.spec,
** native_protocol_v5.spec): a message is a 9-byte header (version, flags,
** stream, opcode, body length) and a body of big-endian integers,
** [string]s (a 16-bit length), [long string]s and [bytes] (a 32-bit
** length, -1 for NULL).  Each request has a stream id of its own
** (CQ_STREAMS of them), which its reply carries: the server answers
** requests in flight in any order.  v5 differs in its frames (once READY:
** cq_frame.c), its query flags (4 bytes, not 1), and a prepared
** statement's result metadata id, which an EXECUTE carries.
*/
#include "stores/cassandra/cq_wire.h"
#include "stores/cassandra/cq_frame.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <arpa/inet.h>
#include <string.h>

#define CQ_RESPONSE 0x80          /* a reply's version: 0x80 | version */
#define CQ_HEADER 9
#define CQ_MAX_BODY (256 << 20)   /* the protocol's largest frame */
#define CQ_STREAMS 1024           /* requests in flight on a connection */

#define CQ_OP_ERROR   0x00
#define CQ_OP_STARTUP 0x01
#define CQ_OP_READY   0x02
#define CQ_OP_AUTH    0x03
#define CQ_OP_QUERY   0x07
#define CQ_OP_RESULT  0x08
#define CQ_OP_PREPARE 0x09
#define CQ_OP_EXECUTE 0x0A
#define CQ_OP_REGISTER 0x0B
#define CQ_OP_EVENT   0x0C
#define CQ_OP_BATCH   0x0D

/* Query flags. */
#define CQ_FLAG_VALUES    0x01
#define CQ_FLAG_PAGE_SIZE 0x04
#define CQ_FLAG_PAGING    0x08
#define CQ_FLAG_SERIAL    0x10

/* A reply's flags: what precedes its message. */
#define CQ_FRAME_TRACING  0x02
#define CQ_FRAME_PAYLOAD  0x04
#define CQ_FRAME_WARNING  0x08

/* Rows metadata flags. */
#define CQ_META_GLOBAL    0x01
#define CQ_META_MORE      0x02
#define CQ_META_NONE      0x04
#define CQ_META_CHANGED   0x08    /* v5: a new result metadata id follows */

struct CqStmt {
  char *zCql;
  unsigned char *aId;
  int nId;
  unsigned char *aMetaId;   /* v5: its result metadata id */
  int nMetaId;
  int bStale;           /* A table it names was made or dropped since */
  int nPk;              /* Its partition key's columns bound, or 0 */
  int aiPk[CQ_MAX_PK];  /* ... each one's value among the statement's */
  CqStmt *pNext;
};

/* A request sent: its reply, once read (bDone). */
typedef struct CqPending CqPending;
struct CqPending {
  int bBusy;            /* Sent, its reply not yet taken by cqWait() */
  int bDone;            /* Its reply is in res, its failure in rc */
  int rc;
  CqResult res;
};

struct CqConn {
  WcSock *pSock;
  int iVersion;         /* The protocol spoken: 4 or 5 */
  int bFramed;          /* v5, READY: messages travel in frames */
  CqFramer framer;      /* The frames' payload read */
  WcBuf req;            /* The request being written */
  CqStmt *pStmts;       /* Prepared on this connection */
  CqPending *aPending;  /* CQ_STREAMS, by stream id */
  int nBusy;            /* Streams in use */
  int iNext;            /* Where the search for a free one starts */
  WcBuf events;         /* EVENTs come while a reply was awaited: each
                        ** a 4-byte length and its body */
};

/* ---- Writing ---- */

static void putString(WcBuf *p, const char *z){
  wcBufAppendBe(p, strlen(z), 2);
  wcBufAppend(p, z, (int64_t)strlen(z));
}

static void putLongString(WcBuf *p, const char *z){
  wcBufAppendBe(p, strlen(z), 4);
  wcBufAppend(p, z, (int64_t)strlen(z));
}

void cqPutBigint(WcBuf *p, int64_t v){ wcBufAppendBe(p, (uint64_t)v, 8); }

void cqPutInt(WcBuf *p, int32_t v){ wcBufAppendBe(p, (uint32_t)v, 4); }

void cqPutDouble(WcBuf *p, double r){
  uint64_t v;
  memcpy(&v, &r, 8);
  wcBufAppendBe(p, v, 8);
}

/* A varint: the fewest big-endian two's-complement bytes. */
void cqPutDecimal(WcBuf *p, int64_t iUnscaled, int32_t iScale){
  int n = 8;
  wcBufAppendBe(p, (uint32_t)iScale, 4);
  while( n > 1 ){
    int64_t iTop = iUnscaled >> ((n - 1) * 8 - 1);
    if( iTop != 0 && iTop != -1 ) break;
    n--;
  }
  wcBufAppendBe(p, (uint64_t)iUnscaled, n);
}

int64_t cqGetBigint(const unsigned char *a){
  return (int64_t)wcGetBe(a, 8);
}

double cqGetDouble(const unsigned char *a){
  uint64_t v = (uint64_t)cqGetBigint(a);
  double r;
  memcpy(&r, &v, 8);
  return r;
}

int cqGetDecimal(const unsigned char *a, int n, int64_t *piUnscaled,
                 int32_t *piScale){
  uint64_t v;
  int i;
  if( n < 5 || n > 12 ) return 1;
  *piScale = (int32_t)(uint32_t)wcGetBe(a, 4);
  v = (a[4] & 0x80) ? ~(uint64_t)0 : 0;
  for(i = 4; i < n; i++) v = (v << 8) | a[i];
  *piUnscaled = (int64_t)v;
  return 0;
}

/* Starts a request of opcode eOp in p->req; cqSend() fills in its length. */
static void beginRequest(CqConn *p, int eOp){
  wcBufClear(&p->req);
  wcBufAppendBe(&p->req, (uint64_t)p->iVersion, 1);
  wcBufAppendBe(&p->req, 0, 1);
  wcBufAppendBe(&p->req, 0, 2);
  wcBufAppendBe(&p->req, (uint64_t)eOp, 1);
  wcBufAppendBe(&p->req, 0, 4);
}

/* ---- Reading ---- */

/* A reader over a reply's body; any read past its end sets bBad. */
typedef struct Reader Reader;
struct Reader {
  const unsigned char *a;
  int64_t n, i;
  int bBad;
};

static uint64_t getBE(Reader *r, int nByte){
  uint64_t v;
  wcAssert( nByte >= 1 && nByte <= 8 && r->i >= 0 && r->i <= r->n );
  if( r->i + nByte > r->n ){
    r->bBad = 1;
    return 0;
  }
  v = wcGetBe(&r->a[r->i], nByte);
  r->i += nByte;
  return v;
}

static int32_t getInt(Reader *r){ return (int32_t)getBE(r, 4); }

/* A [string]'s bytes (*pn of them), or NULL past the end. */
static const unsigned char *getString(Reader *r, int *pn){
  int n = (int)getBE(r, 2);
  const unsigned char *a = r->a + r->i;
  if( r->bBad || r->i + n > r->n ){
    r->bBad = 1;
    return 0;
  }
  r->i += n;
  *pn = n;
  return a;
}

/* Skips a type [option], with the types nested in it. */
static void skipOption(Reader *r, int iDepth){
  int eType = (int)getBE(r, 2), n, i;
  if( iDepth > 16 ){
    r->bBad = 1;
    return;
  }
  switch( eType ){
    case 0x0000: getString(r, &n); break;                /* custom */
    case 0x0020: case 0x0022: skipOption(r, iDepth + 1); break;
    case 0x0021:
      skipOption(r, iDepth + 1);
      skipOption(r, iDepth + 1);
      break;
    case 0x0030:                                         /* UDT */
      getString(r, &n);
      getString(r, &n);
      n = (int)getBE(r, 2);
      for(i = 0; i < n && !r->bBad; i++){
        int m;
        getString(r, &m);
        skipOption(r, iDepth + 1);
      }
      break;
    case 0x0031:                                         /* tuple */
      n = (int)getBE(r, 2);
      for(i = 0; i < n && !r->bBad; i++) skipOption(r, iDepth + 1);
      break;
  }
}

void cqResultClear(CqResult *p){
  wcBufFree(&p->frame);
  sqlite3_free(p->aType);
  sqlite3_free(p->aCell);
  sqlite3_free(p->zError);
  sqlite3_free(p->zWriteType);
  memset(p, 0, sizeof(*p));
}

const unsigned char *cqCell(const CqResult *p, int64_t iRow, int iCol,
                            int *pnByte){
  int64_t iOff = p->aCell[iRow * p->nCol + iCol];
  if( iOff < 0 ){
    *pnByte = -1;
    return 0;
  }
  *pnByte = (int)(((uint32_t)p->frame.a[iOff] << 24)
                  | ((uint32_t)p->frame.a[iOff + 1] << 16)
                  | ((uint32_t)p->frame.a[iOff + 2] << 8)
                  | p->frame.a[iOff + 3]);
  return &p->frame.a[iOff + 4];
}

/* A Rows result's metadata and cells. */
static int readRows(Reader *r, CqResult *pRes){
  int fFlags = getInt(r), i, n;
  int64_t iRow, nCell;
  pRes->nCol = getInt(r);
  if( r->bBad || pRes->nCol < 0 || pRes->nCol > 65535 ) return CQ_ERR_PROTOCOL;
  if( fFlags & CQ_META_MORE ){
    int32_t nPaging = getInt(r);
    if( nPaging >= 0 && r->i + nPaging <= r->n ){
      pRes->aPaging = r->a + r->i;
      pRes->nPaging = nPaging;
      r->i += nPaging;
    }
  }
  /* The metadata is sent whole with every page (widecol never asks to
  ** skip it), so a changed id needs no keeping. */
  if( fFlags & CQ_META_CHANGED ) getString(r, &n);
  pRes->aType = sqlite3_malloc64(sizeof(int) * ((size_t)pRes->nCol + 1));
  if( pRes->aType == 0 ) return WC_SOCK_NOMEM;
  if( !(fFlags & CQ_META_NONE) ){
    if( fFlags & CQ_META_GLOBAL ){
      getString(r, &n);
      getString(r, &n);
    }
    for(i = 0; i < pRes->nCol && !r->bBad; i++){
      if( !(fFlags & CQ_META_GLOBAL) ){
        getString(r, &n);
        getString(r, &n);
      }
      getString(r, &n);
      pRes->aType[i] = (int)getBE(r, 2);
      r->i -= 2;
      skipOption(r, 0);
    }
  }
  pRes->nRow = getInt(r);
  if( r->bBad || pRes->nRow < 0 ) return CQ_ERR_PROTOCOL;
  nCell = pRes->nRow * pRes->nCol;
  pRes->aCell = sqlite3_malloc64(sizeof(int64_t) * ((size_t)nCell + 1));
  if( pRes->aCell == 0 ) return WC_SOCK_NOMEM;
  for(iRow = 0; iRow < nCell && !r->bBad; iRow++){
    int64_t iOff = r->i;
    int32_t nByte = getInt(r);
    if( nByte < 0 ){
      pRes->aCell[iRow] = -1;
    }else if( r->i + nByte > r->n ){
      r->bBad = 1;
    }else{
      pRes->aCell[iRow] = iOff;
      r->i += nByte;
    }
  }
  return r->bBad ? CQ_ERR_PROTOCOL : 0;
}

/* An ERROR frame's code, message and the details widecol reports. */
static int readError(Reader *r, CqResult *pRes){
  const unsigned char *a;
  int n;
  pRes->iError = getInt(r);
  a = getString(r, &n);
  pRes->zError = sqlite3_mprintf("%.*s", a ? n : 0, a ? (const char*)a : "");
  switch( pRes->iError ){
    case CQ_UNAVAILABLE:
      /* <consistency><required><alive> */
      pRes->eLevel = (int)getBE(r, 2);
      pRes->nBlockFor = getInt(r);
      pRes->nReceived = getInt(r);
      break;
    case CQ_READ_TIMEOUT:
    case CQ_WRITE_TIMEOUT:
    case CQ_CAS_UNKNOWN:
      pRes->eLevel = (int)getBE(r, 2);
      pRes->nReceived = getInt(r);
      pRes->nBlockFor = getInt(r);
      if( pRes->iError == CQ_WRITE_TIMEOUT ){
        a = getString(r, &n);
        if( a ) pRes->zWriteType = sqlite3_mprintf("%.*s", n, (const char*)a);
      }
      break;
  }
  return pRes->zError ? CQ_ERR_SERVER : WC_SOCK_NOMEM;
}

/* What a reply's flags put before its message: a tracing id, the
** server's warnings (a [string list]: a partition past a size guardrail,
** say), a custom payload (a [bytes map]).  widecol asks for none of them
** but the warnings, which it does not show yet. */
static void skipPreamble(Reader *r, int fFlags){
  int nByte, i, n;
  if( fFlags & CQ_FRAME_TRACING ){
    getBE(r, 8);
    getBE(r, 8);
  }
  if( fFlags & CQ_FRAME_WARNING ){
    n = (int)getBE(r, 2);
    for(i = 0; i < n && !r->bBad; i++) getString(r, &nByte);
  }
  if( fFlags & CQ_FRAME_PAYLOAD ){
    n = (int)getBE(r, 2);
    for(i = 0; i < n && !r->bBad; i++){
      int32_t nValue;
      getString(r, &nByte);
      nValue = getInt(r);
      if( nValue > 0 && r->i + nValue > r->n ) r->bBad = 1;
      else if( nValue > 0 ) r->i += nValue;
    }
  }
}

/* Sends p->req on stream iStream. */
static int sendRequest(CqConn *p, int iStream, const WcDeadline *pWait){
  int64_t nBody;
  if( p->req.bOom ) return WC_SOCK_NOMEM;
  nBody = p->req.n - CQ_HEADER;
  /* beginRequest() wrote the header; the stream is one marked busy. */
  wcAssert( nBody >= 0 && iStream >= 0 && iStream < CQ_STREAMS
            && p->aPending[iStream].bBusy );
  p->req.a[2] = (unsigned char)(iStream >> 8);
  p->req.a[3] = (unsigned char)iStream;
  p->req.a[5] = (unsigned char)(nBody >> 24);
  p->req.a[6] = (unsigned char)(nBody >> 16);
  p->req.a[7] = (unsigned char)(nBody >> 8);
  p->req.a[8] = (unsigned char)nBody;
  if( p->bFramed ){
    return cqFrameSend(&p->framer, p->pSock, p->req.a, p->req.n, pWait);
  }
  return wcSockSend(p->pSock, p->req.a, p->req.n, pWait);
}

/* n bytes of the replies received, at *pa (skip() consumes them): from
** the socket, or from the frames' payload.  A frame whose checksums fail
** is the protocol's failure. */
static int peek(CqConn *p, int64_t n, const WcDeadline *pWait,
                const unsigned char **pa){
  int rc;
  if( !p->bFramed ) return wcSockPeek(p->pSock, n, pWait, pa);
  rc = cqFramePeek(&p->framer, p->pSock, n, pWait, pa);
  return rc == CQ_FRAME_CORRUPT ? CQ_ERR_PROTOCOL : rc;
}

static void skip(CqConn *p, int64_t n){
  if( p->bFramed ) cqFrameSkip(&p->framer, n);
  else wcSockSkip(p->pSock, n);
}

/* Reads the next reply into *pRes (cleared first) and its stream into
** *piStream.  The reply's own failure (an ERROR frame, a body that does
** not parse) is its rc, kept with it; a failure of the connection is
** returned with *piStream -1. */
static int readReply(CqConn *p, const WcDeadline *pWait, int *piStream,
                     CqResult *pRes){
  const unsigned char *aHead, *aBody;
  int64_t nBody;
  int rc, eOp, fFlags;
  Reader r;
  memset(pRes, 0, sizeof(*pRes));
  *piStream = -1;
  rc = peek(p, CQ_HEADER, pWait, &aHead);
  if( rc ) return rc;
  if( aHead[0] != (CQ_RESPONSE | p->iVersion) ) return CQ_ERR_PROTOCOL;
  eOp = aHead[4];
  fFlags = aHead[1];
  nBody = ((int64_t)aHead[5] << 24) | (aHead[6] << 16) | (aHead[7] << 8)
        | aHead[8];
  if( nBody > CQ_MAX_BODY || (fFlags & 0x01) ) return CQ_ERR_PROTOCOL;
  *piStream = (int)(int16_t)((aHead[2] << 8) | aHead[3]);
  skip(p, CQ_HEADER);
  rc = peek(p, nBody, pWait, &aBody);
  if( rc ){
    *piStream = -1;
    return rc;
  }
  wcBufAppend(&pRes->frame, aBody, nBody);
  skip(p, nBody);
  if( pRes->frame.bOom ) return WC_SOCK_NOMEM;
  r.a = pRes->frame.a;
  r.n = pRes->frame.n;
  r.i = 0;
  r.bBad = 0;
  skipPreamble(&r, fFlags);
  if( eOp == CQ_OP_ERROR ) return readError(&r, pRes);
  if( eOp == CQ_OP_READY ) return 0;
  if( eOp == CQ_OP_EVENT ){
    /* Pushed by the server, on stream -1: its body is the caller's. */
    pRes->eKind = CQ_RESULT_EVENT;
    memmove(pRes->frame.a, pRes->frame.a + r.i, (size_t)(r.n - r.i));
    pRes->frame.n = r.n - r.i;
    return *piStream == -1 ? 0 : CQ_ERR_PROTOCOL;
  }
  if( eOp != CQ_OP_RESULT ) return CQ_ERR_PROTOCOL;
  pRes->eKind = getInt(&r);
  if( pRes->eKind == CQ_RESULT_ROWS ) return readRows(&r, pRes);
  return r.bBad ? CQ_ERR_PROTOCOL : 0;
}

/* Keeps an EVENT that came while a reply was awaited (cqNextEvent()). */
static void keepEvent(CqConn *p, CqResult *pRes){
  wcBufAppendBe(&p->events, (uint64_t)pRes->frame.n, 4);
  wcBufAppend(&p->events, pRes->frame.a, pRes->frame.n);
  cqResultClear(pRes);
}

int cqWait(CqConn *p, int iStream, const WcDeadline *pWait, CqResult *pRes){
  CqPending *pSlot = &p->aPending[iStream];
  int rc;
  memset(pRes, 0, sizeof(*pRes));
  while( !pSlot->bDone ){
    CqResult res;
    int iGot;
    rc = readReply(p, pWait, &iGot, &res);
    if( rc == 0 && res.eKind == CQ_RESULT_EVENT ){
      keepEvent(p, &res);
      continue;
    }
    if( iGot < 0 || iGot >= CQ_STREAMS || !p->aPending[iGot].bBusy ){
      cqResultClear(&res);
      return rc ? rc : CQ_ERR_PROTOCOL;
    }
    p->aPending[iGot].res = res;
    p->aPending[iGot].rc = rc;
    p->aPending[iGot].bDone = 1;
  }
  rc = pSlot->rc;
  *pRes = pSlot->res;
  memset(pSlot, 0, sizeof(*pSlot));
  wcAssert( p->nBusy > 0 );
  p->nBusy--;
  return rc;
}

/* A free stream, marked busy, or -1 if every one is. */
static int newStream(CqConn *p){
  int i;
  for(i = 0; i < CQ_STREAMS; i++){
    int iStream = (p->iNext + i) % CQ_STREAMS;
    if( !p->aPending[iStream].bBusy ){
      p->aPending[iStream].bBusy = 1;
      p->nBusy++;
      p->iNext = iStream + 1;
      return iStream;
    }
  }
  return -1;
}

/* Sends p->req on a new stream: 0 and the stream in *piStream, or an
** error (the stream freed). */
static int sendNew(CqConn *p, const WcDeadline *pWait, int *piStream){
  int iStream = newStream(p), rc;
  *piStream = -1;
  if( iStream < 0 ) return CQ_ERR_BUSY;
  rc = sendRequest(p, iStream, pWait);
  if( rc ){
    memset(&p->aPending[iStream], 0, sizeof(p->aPending[iStream]));
    p->nBusy--;
    return rc;
  }
  *piStream = iStream;
  return 0;
}

/* Sends p->req and waits for its reply. */
static int roundTrip(CqConn *p, const WcDeadline *pWait, CqResult *pRes){
  int iStream, rc = sendNew(p, pWait, &iStream);
  memset(pRes, 0, sizeof(*pRes));
  return rc ? rc : cqWait(p, iStream, pWait, pRes);
}

/* ---- Calls ---- */

/* Opens a connection speaking version iVersion: 0, or an error, with
** *pzErr set where the server answered. */
static int openVersion(CqConn **pp, const char *zHost, int port, int iVersion,
                       const WcDeadline *pWait, char **pzErr){
  CqConn *p = sqlite3_malloc(sizeof(*p));
  CqResult res;
  int rc;
  *pp = 0;
  if( p == 0 ) return WC_SOCK_NOMEM;
  memset(p, 0, sizeof(*p));
  p->iVersion = iVersion;
  p->aPending = sqlite3_malloc64(sizeof(CqPending) * CQ_STREAMS);
  if( p->aPending == 0 ){
    sqlite3_free(p);
    return WC_SOCK_NOMEM;
  }
  memset(p->aPending, 0, sizeof(CqPending) * CQ_STREAMS);
  rc = wcSockOpen(&p->pSock, zHost, port, pWait, pzErr);
  if( rc ){
    sqlite3_free(p->aPending);
    sqlite3_free(p);
    return rc;
  }
  beginRequest(p, CQ_OP_STARTUP);
  wcBufAppendBe(&p->req, 1, 2);
  putString(&p->req, "CQL_VERSION");
  putString(&p->req, "3.0.0");
  rc = roundTrip(p, pWait, &res);
  if( rc == CQ_ERR_SERVER ){
    *pzErr = sqlite3_mprintf("%s:%d refused CQL's STARTUP: %s", zHost, port,
                             res.zError);
  }else if( rc == CQ_ERR_PROTOCOL ){
    *pzErr = sqlite3_mprintf("%s:%d does not speak CQL's native protocol v%d "
                             "(is it Cassandra's native_transport_port?)",
                             zHost, port, iVersion);
  }
  cqResultClear(&res);
  if( rc ){
    cqClose(p);
    return rc;
  }
  /* v5: every message after READY travels in frames. */
  p->bFramed = iVersion >= 5;
  *pp = p;
  return 0;
}

int cqOpen(CqConn **pp, const char *zHost, int port, int iVersion,
           const WcDeadline *pWait, char **pzErr){
  int rc = openVersion(pp, zHost, port, iVersion ? iVersion : 5, pWait,
                       pzErr);
  if( iVersion == 0 && (rc == CQ_ERR_PROTOCOL || rc == CQ_ERR_SERVER) ){
    /* A server before v5 refuses it, in its own version's words. */
    sqlite3_free(*pzErr);
    *pzErr = 0;
    rc = openVersion(pp, zHost, port, 4, pWait, pzErr);
  }
  return rc;
}

void cqClose(CqConn *p){
  int i;
  if( p == 0 ) return;
  for(i = 0; i < CQ_STREAMS; i++) cqResultClear(&p->aPending[i].res);
  sqlite3_free(p->aPending);
  while( p->pStmts ){
    CqStmt *pNext = p->pStmts->pNext;
    sqlite3_free(p->pStmts->zCql);
    sqlite3_free(p->pStmts->aId);
    sqlite3_free(p->pStmts->aMetaId);
    sqlite3_free(p->pStmts);
    p->pStmts = pNext;
  }
  cqFramerFree(&p->framer);
  wcSockClose(p->pSock);
  wcBufFree(&p->req);
  wcBufFree(&p->events);
  sqlite3_free(p);
}

/* A statement's values: their count, then each as [bytes] (NULL -1,
** unset -2). */
static void putValues(WcBuf *pReq, const CqValue *aVal, int nVal){
  int i;
  wcBufAppendBe(pReq, (uint64_t)nVal, 2);
  for(i = 0; i < nVal; i++){
    wcBufAppendBe(pReq, (uint32_t)(aVal[i].n < CQ_UNSET ? -1 : aVal[i].n), 4);
    if( aVal[i].n > 0 ) wcBufAppend(pReq, aVal[i].a, aVal[i].n);
  }
}

/* A query's flags: a byte in v4, an [int] in v5. */
static void putFlags(CqConn *p, int fFlags){
  wcBufAppendBe(&p->req, (uint64_t)fFlags, p->iVersion >= 5 ? 4 : 1);
}

/* Consistency, flags and the paging fields of a QUERY or an EXECUTE. */
static void putParameters(CqConn *p, const CqValue *aVal, int nVal,
                          int eConsistency, int nPage,
                          const unsigned char *aPaging, int nPaging){
  WcBuf *pReq = &p->req;
  int fFlags = 0;
  if( nVal > 0 ) fFlags |= CQ_FLAG_VALUES;
  if( nPage > 0 ) fFlags |= CQ_FLAG_PAGE_SIZE;
  if( aPaging ) fFlags |= CQ_FLAG_PAGING;
  wcBufAppendBe(pReq, (uint64_t)eConsistency, 2);
  putFlags(p, fFlags);
  if( nVal > 0 ) putValues(pReq, aVal, nVal);
  if( nPage > 0 ) wcBufAppendBe(pReq, (uint64_t)nPage, 4);
  if( aPaging ){
    wcBufAppendBe(pReq, (uint64_t)nPaging, 4);
    wcBufAppend(pReq, aPaging, nPaging);
  }
}

int cqQuery(CqConn *p, const char *zCql, int eConsistency,
            const WcDeadline *pWait, CqResult *pRes){
  beginRequest(p, CQ_OP_QUERY);
  putLongString(&p->req, zCql);
  putParameters(p, 0, 0, eConsistency, 0, 0, 0);
  return roundTrip(p, pWait, pRes);
}

/* Prepares pStmt->zCql (again), keeping its new id. */
static int prepareText(CqConn *p, CqStmt *pStmt, const WcDeadline *pWait,
                       CqResult *pRes){
  Reader r;
  const unsigned char *aId;
  int rc, nId, i;
  beginRequest(p, CQ_OP_PREPARE);
  putLongString(&p->req, pStmt->zCql);
  /* v5: the PREPARE's flags (no keyspace given). */
  if( p->iVersion >= 5 ) putFlags(p, 0);
  rc = roundTrip(p, pWait, pRes);
  if( rc ) return rc;
  if( pRes->eKind != CQ_RESULT_PREPARED ) return CQ_ERR_PROTOCOL;
  r.a = pRes->frame.a;
  r.n = pRes->frame.n;
  r.i = 4;
  r.bBad = 0;
  aId = getString(&r, &nId);
  if( aId == 0 ) return CQ_ERR_PROTOCOL;
  sqlite3_free(pStmt->aId);
  pStmt->aId = sqlite3_malloc(nId > 0 ? nId : 1);
  if( pStmt->aId == 0 ) return WC_SOCK_NOMEM;
  memcpy(pStmt->aId, aId, (size_t)nId);
  pStmt->nId = nId;
  if( p->iVersion >= 5 ){
    aId = getString(&r, &nId);
    if( aId == 0 ) return CQ_ERR_PROTOCOL;
    sqlite3_free(pStmt->aMetaId);
    pStmt->aMetaId = sqlite3_malloc(nId > 0 ? nId : 1);
    if( pStmt->aMetaId == 0 ) return WC_SOCK_NOMEM;
    memcpy(pStmt->aMetaId, aId, (size_t)nId);
    pStmt->nMetaId = nId;
  }
  /* The bound values' metadata: <flags><columns><pk_count><pk_index>...,
  ** which values make the partition key (a request's routing). */
  getInt(&r);
  getInt(&r);
  pStmt->nPk = getInt(&r);
  if( r.bBad || pStmt->nPk < 0 || pStmt->nPk > CQ_MAX_PK ) pStmt->nPk = 0;
  for(i = 0; i < pStmt->nPk; i++) pStmt->aiPk[i] = (int)getBE(&r, 2);
  if( r.bBad ) pStmt->nPk = 0;
  return 0;
}

int cqPrepare(CqConn *p, const char *zCql, const WcDeadline *pWait,
              CqStmt **ppStmt, CqResult *pRes){
  CqStmt *pStmt;
  int rc;
  memset(pRes, 0, sizeof(*pRes));
  for(pStmt = p->pStmts; pStmt && strcmp(pStmt->zCql, zCql); pStmt = pStmt->pNext){}
  if( pStmt && pStmt->bStale ){
    rc = prepareText(p, pStmt, pWait, pRes);
    if( rc ) return rc;
    cqResultClear(pRes);
    pStmt->bStale = 0;
  }
  if( pStmt ){
    *ppStmt = pStmt;
    return 0;
  }
  pStmt = sqlite3_malloc(sizeof(*pStmt));
  if( pStmt == 0 ) return WC_SOCK_NOMEM;
  memset(pStmt, 0, sizeof(*pStmt));
  pStmt->zCql = sqlite3_mprintf("%s", zCql);
  rc = pStmt->zCql ? prepareText(p, pStmt, pWait, pRes) : WC_SOCK_NOMEM;
  if( rc ){
    sqlite3_free(pStmt->zCql);
    sqlite3_free(pStmt->aId);
    sqlite3_free(pStmt->aMetaId);
    sqlite3_free(pStmt);
    return rc;
  }
  cqResultClear(pRes);
  pStmt->pNext = p->pStmts;
  p->pStmts = pStmt;
  *ppStmt = pStmt;
  return 0;
}

const CqStmt *cqFindPrepared(const CqConn *p, const char *zCql){
  const CqStmt *pStmt;
  for(pStmt = p->pStmts; pStmt && strcmp(pStmt->zCql, zCql); pStmt = pStmt->pNext){}
  return pStmt && !pStmt->bStale ? pStmt : 0;
}

void cqPreparedStale(CqConn *p){
  CqStmt *pStmt;
  for(pStmt = p ? p->pStmts : 0; pStmt; pStmt = pStmt->pNext){
    pStmt->bStale = 1;
  }
}

/* Writes an EXECUTE of pStmt into p->req. */
static void executeRequest(CqConn *p, CqStmt *pStmt, const CqValue *aVal,
                           int nVal, int eConsistency, int nPage,
                           const unsigned char *aPaging, int nPaging){
  beginRequest(p, CQ_OP_EXECUTE);
  wcBufAppendBe(&p->req, (uint64_t)pStmt->nId, 2);
  wcBufAppend(&p->req, pStmt->aId, pStmt->nId);
  if( p->iVersion >= 5 ){
    wcBufAppendBe(&p->req, (uint64_t)pStmt->nMetaId, 2);
    wcBufAppend(&p->req, pStmt->aMetaId, pStmt->nMetaId);
  }
  putParameters(p, aVal, nVal, eConsistency, nPage, aPaging, nPaging);
}

int cqExecute(CqConn *p, CqStmt *pStmt, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const WcDeadline *pWait, CqResult *pRes){
  int rc, nTry;
  for(nTry = 0; ; nTry++){
    executeRequest(p, pStmt, aVal, nVal, eConsistency, nPage, aPaging,
                   nPaging);
    rc = roundTrip(p, pWait, pRes);
    if( rc != CQ_ERR_SERVER || pRes->iError != CQ_UNPREPARED || nTry > 0 ){
      return rc;
    }
    /* The server forgot it (a restart, its cache full): once more. */
    cqResultClear(pRes);
    rc = prepareText(p, pStmt, pWait, pRes);
    if( rc ) return rc;
    cqResultClear(pRes);
  }
}

int cqSend(CqConn *p, CqStmt *pStmt, const CqValue *aVal, int nVal,
           int eConsistency, int nPage, const unsigned char *aPaging,
           int nPaging, const WcDeadline *pWait, int *piStream){
  executeRequest(p, pStmt, aVal, nVal, eConsistency, nPage, aPaging, nPaging);
  return sendNew(p, pWait, piStream);
}

void cqBatchAdd(WcBuf *pQueries, const CqStmt *pStmt, const CqValue *aVal,
                int nVal){
  wcBufAppendBe(pQueries, 1, 1);
  wcBufAppendBe(pQueries, (uint64_t)pStmt->nId, 2);
  wcBufAppend(pQueries, pStmt->aId, pStmt->nId);
  putValues(pQueries, aVal, nVal);
}

int cqSendBatch(CqConn *p, int bLogged, const WcBuf *pQueries, int nQuery,
                int eConsistency, int eSerial, const WcDeadline *pWait,
                int *piStream){
  beginRequest(p, CQ_OP_BATCH);
  wcBufAppendBe(&p->req, bLogged ? 0 : 1, 1);
  wcBufAppendBe(&p->req, (uint64_t)nQuery, 2);
  wcBufAppend(&p->req, pQueries->a, pQueries->n);
  wcBufAppendBe(&p->req, (uint64_t)eConsistency, 2);
  putFlags(p, eSerial ? CQ_FLAG_SERIAL : 0);
  if( eSerial ) wcBufAppendBe(&p->req, (uint64_t)eSerial, 2);
  if( pQueries->bOom ) p->req.bOom = 1;
  return sendNew(p, pWait, piStream);
}

int64_t cqRequestBytes(const CqConn *p){
  return p->req.n;
}

int cqRoutingKey(const CqStmt *pStmt, const CqValue *aVal, int nVal,
                 WcBuf *pKey){
  int i;
  wcAssert( pStmt->nPk >= 0 && pStmt->nPk <= CQ_MAX_PK );
  if( pStmt->nPk == 0 ) return 0;
  for(i = 0; i < pStmt->nPk; i++){
    const CqValue *pV = pStmt->aiPk[i] < nVal ? &aVal[pStmt->aiPk[i]] : 0;
    if( pV == 0 || pV->n < 0 || pV->n > 65535 ) return 0;
    if( pStmt->nPk == 1 ){
      wcBufAppend(pKey, pV->a, pV->n);
    }else{
      /* The composite form: a 2-byte length, the bytes, a 0. */
      wcBufAppendBe(pKey, (uint64_t)pV->n, 2);
      wcBufAppend(pKey, pV->a, pV->n);
      wcBufAppendBe(pKey, 0, 1);
    }
  }
  return !pKey->bOom;
}

int cqListen(CqConn *p, const WcDeadline *pWait, CqResult *pRes){
  static const char *azEvent[] = {
    "TOPOLOGY_CHANGE", "STATUS_CHANGE", "SCHEMA_CHANGE"
  };
  int i;
  beginRequest(p, CQ_OP_REGISTER);
  wcBufAppendBe(&p->req, 3, 2);
  for(i = 0; i < 3; i++) putString(&p->req, azEvent[i]);
  return roundTrip(p, pWait, pRes);
}

int cqNextEvent(CqConn *p, const WcDeadline *pWait, WcBuf *pEvent){
  static const WcDeadline now = { 0, 0, 0 };
  const unsigned char *aHead;
  int rc;
  wcBufClear(pEvent);
  while( p->events.n == 0 ){
    CqResult res;
    int iGot;
    /* A reply's header already here, or nothing to read. */
    if( peek(p, CQ_HEADER, &now, &aHead) == WC_SOCK_TIMEOUT ) return 0;
    rc = readReply(p, pWait, &iGot, &res);
    if( rc == 0 && res.eKind == CQ_RESULT_EVENT ){
      keepEvent(p, &res);
    }else if( iGot >= 0 && iGot < CQ_STREAMS && p->aPending[iGot].bBusy ){
      p->aPending[iGot].res = res;
      p->aPending[iGot].rc = rc;
      p->aPending[iGot].bDone = 1;
    }else{
      cqResultClear(&res);
      return rc ? rc : CQ_ERR_PROTOCOL;
    }
  }
  {
    int64_t n = (int64_t)wcGetBe(p->events.a, 4);
    wcAssert( 4 + n <= p->events.n );
    wcBufAppend(pEvent, p->events.a + 4, n);
    memmove(p->events.a, p->events.a + 4 + n, (size_t)(p->events.n - 4 - n));
    p->events.n -= 4 + n;
  }
  return pEvent->bOom ? WC_SOCK_NOMEM : 0;
}

/* An [inet] (a byte of length, 4 or 16 address bytes, an int port) as
** text into zHost, and its port. */
static int getInet(Reader *r, char *zHost, int nHost, int *pPort){
  int n = (int)getBE(r, 1);
  if( r->bBad || (n != 4 && n != 16) || r->i + n > r->n ) return 1;
  cqInetText(r->a + r->i, n, zHost, nHost);
  r->i += n;
  *pPort = getInt(r);
  return r->bBad;
}

int cqParseEvent(const unsigned char *a, int64_t n, CqEvent *pEv){
  Reader r;
  const unsigned char *z;
  int nz;
  memset(pEv, 0, sizeof(*pEv));
  r.a = a;
  r.n = n;
  r.i = 0;
  r.bBad = 0;
  z = getString(&r, &nz);
  if( z == 0 ) return 1;
  if( nz == 15 && memcmp(z, "TOPOLOGY_CHANGE", 15) == 0 ){
    pEv->eType = CQ_EVENT_TOPOLOGY;
  }else if( nz == 13 && memcmp(z, "STATUS_CHANGE", 13) == 0 ){
    pEv->eType = CQ_EVENT_STATUS;
  }else{
    pEv->eType = CQ_EVENT_SCHEMA;
  }
  z = getString(&r, &nz);
  if( z == 0 ) return 1;
  sqlite3_snprintf(sizeof(pEv->zChange), pEv->zChange, "%.*s", nz, z);
  if( pEv->eType == CQ_EVENT_SCHEMA ){
    /* KEYSPACE, TABLE, ...: then the keyspace. */
    if( getString(&r, &nz) == 0 ) return 1;
    z = getString(&r, &nz);
    if( z == 0 ) return 1;
    sqlite3_snprintf(sizeof(pEv->zKeyspace), pEv->zKeyspace, "%.*s", nz, z);
    return 0;
  }
  return getInet(&r, pEv->zHost, (int)sizeof(pEv->zHost), &pEv->port);
}

void cqInetText(const unsigned char *a, int n, char *zHost, int nHost){
  if( n == 4 ){
    sqlite3_snprintf(nHost, zHost, "%d.%d.%d.%d", a[0], a[1], a[2], a[3]);
  }else if( n != 16 || inet_ntop(AF_INET6, a, zHost, (socklen_t)nHost) == 0 ){
    sqlite3_snprintf(nHost, zHost, "?");
  }
}

int cqCollection(const unsigned char *a, int n, int bMap, CqValue *aItem,
                 int nMax){
  Reader r;
  int nItem, i;
  r.a = a;
  r.n = n;
  r.i = 0;
  r.bBad = 0;
  nItem = getInt(&r) * (bMap ? 2 : 1);
  if( r.bBad || nItem < 0 ) return -1;
  for(i = 0; i < nItem; i++){
    int32_t nByte = getInt(&r);
    if( r.bBad || nByte < 0 || r.i + nByte > r.n ) return -1;
    if( i < nMax ){
      aItem[i].a = r.a + r.i;
      aItem[i].n = nByte;
    }
    r.i += nByte;
  }
  return nItem;
}
