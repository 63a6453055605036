/*
** hb_rpc.c: the cell store's calls (bt_rpc.h) made on HBase, through its
** Thrift2 gateway (hb_thrift.h), for widecol_hbase.so.  The cell store
** above (ext/bigtable/) names its calls by Bigtable's methods and their
** messages; each becomes THBaseService calls here:
**
**   ReadRows           getScannerResults, a page at a time, each page a
**                      scan from where the last one ended (no scanner is
**                      left open on the server); a set of keys and ranges
**                      is read range by range in key order; descending
**                      reads are HBase's reversed scans.  The columns and
**                      versions the read's filter keeps are asked of HBase;
**                      the rest of the filter is applied to each row here
**                      (hb_filter.c).  Timestamps: HBase keeps milliseconds,
**                      the store microseconds in whole milliseconds.
**   MutateRows         putMultiple for rows that only set cells, mutateRow
**                      (atomic) for a row that deletes, up to HB_PIPELINE
**                      of those in flight over HB_LANES connections; each
**                      row's outcome is its call's
**   CheckAndMutateRow  checkAndMutate on the row marker (family "_", the
**                      empty qualifier): equal to a value, or absent.  A
**                      marker that must start with a value is read first
**                      and then checked equal to what was read: a row's
**                      marker is new with every write (its stamp), so the
**                      check fails if the row changed in between
**   SampleRowKeys      getAllRegionLocations: the regions' end keys, with
**                      offsets from a count of the rows of each region, up
**                      to HB_SAMPLE_ROWS a region
**   CreateTable        createTable with the families' VERSIONS and TTL and
**                      the split keys; a namespace is made if missing
**   GetTable           getTableDescriptor
**   DeleteTable        disableTable, then deleteTable
**
** Every family widecol makes has NEW_VERSION_BEHAVIOR: a delete hides the
** cells written before it and never the ones written after, whatever
** their timestamps (HBase's default lets a delete hide later puts with
** older timestamps until a major compaction), which is what Bigtable does.
**
** One connection per btConnOpen(), so that each widecol table's calls
** have a socket of their own, and HB_LANES - 1 more for a batch's
** mutateRow calls, opened when first used.  Calls in flight
** (btCallStart()) are pipelined: requests are sent at once, replies read
** in the order sent.
*/
#include "bigtable/bt_rpc.h"
#include "bt_wire.pb-c.h"
#include "hbase/hb_thrift.h"
#include "hbase/hb_filter.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The gateway, host:port, and the deadline of a call. */
#define HB_ENV "WIDECOL_HBASE"
#define HB_TIMEOUT_ENV "WIDECOL_HBASE_TIMEOUT_MS"
/* HBase's limits: a row key (Short.MAX_VALUE) and a cell
** (hbase.client.keyvalue.maxsize's default). */
#define HB_MAX_KEY  32767
#define HB_MAX_CELL (10 << 20)
/* Rows a page of a read asks for, at most. */
#define HB_PAGE 1000
/* Rows counted of each region to estimate its size. */
#define HB_SAMPLE_ROWS 10000
/* Versions asked for when a read keeps them all. */
#define HB_ALL_VERSIONS 0x7fffffff

/* Thrift2's enums and the family attribute widecol sets. */
#define HB_OP_EQUAL 2
#define HB_DELETE_COLUMN  0
#define HB_DELETE_COLUMNS 1
#define HB_DELETE_FAMILY  2
#define HB_FOREVER 0x7fffffff
/* The latest time a delete names: HBase's LATEST_TIMESTAMP (Long.MAX_VALUE)
** means "now" to it, so one less. */
#define HB_LATEST ((int64_t)0x7ffffffffffffffeLL)

/* Why a row's mutations cannot be sent: a delete of a column's versions
** between two times, which HBase has no delete for. */
static const char zNoRangeDelete[] = "HBase deletes the versions of a "
    "column before a time, or at one; not between two";

const BtEngine btEngine = {
  .zName = "HBase", .zKind = "HBASE", .zModule = "widecol_hbase",
  .zTxnModule = "widecol_hbase_txn", .zDocs = "docs/hbase.md",
  .nMaxKey = HB_MAX_KEY, .nMaxCell = HB_MAX_CELL, .bRowAtomic = 1,
  .nKeyByName = 16,
  .zListTables = "list, in the hbase shell",
  .zDropTable = "disable '%s' then drop it, in the hbase shell",
  .zListFamilies = "describe '%s', in the hbase shell",
  .zMakeFamily = "alter '%s', NAME => '%s', in the hbase shell",
  .zResourceForm = "'<table>' or '<namespace>:<table>' (letters, digits, "
      "_ - ., a table not starting with . or -)",
};

char *btRuleFix(const char *zId, const char *zFamily, int nVersions,
                int64_t nTtl){
  return nTtl > 0
      ? sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, TTL => "
                        "%lld, in the hbase shell", zId, zFamily, nVersions,
                        (long long)nTtl)
      : sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, in the "
                        "hbase shell", zId, zFamily, nVersions);
}

/* A name part HBase takes: [a-zA-Z0-9_.-], not starting with . or -. */
static int validPart(const char *z, size_t n){
  size_t i;
  if( n == 0 || n > 255 || z[0] == '.' || z[0] == '-' ) return 0;
  for(i = 0; i < n; i++){
    char c = z[i];
    if( !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.') ){
      return 0;
    }
  }
  return 1;
}

int btValidResource(const char *zRes){
  const char *zColon = strchr(zRes, ':');
  if( zColon == 0 ) return validPart(zRes, strlen(zRes));
  return validPart(zRes, (size_t)(zColon - zRes))
      && validPart(zColon + 1, strlen(zColon + 1));
}

/* ---- The connection ---- */

typedef struct HbReply HbReply;
struct HbReply {
  HbArena arena;
  HbVal *pBody;         /* The reply's struct */
  int eKind;            /* HB_MSG_* */
};

struct BtPending {
  BtConn *pConn;
  int32_t iSeq;
  int bRead;            /* The reply is in reply, or code says why not */
  int code;             /* BT_* of a failure to send or read */
  char *zErr;
  HbReply reply;
  BtPending *pNext;     /* The next reply to read, in order sent */
  BtWait wait;
  int64_t iUntilMs;
  /* What the reply becomes (btCallFinish()): */
  const char *zMethod;
  char *zTable;         /* The table a data call is about, or NULL */
  int bMatchedIfApplied;    /* checkAndMutate: predicate_matched = applied,
                            ** else = !applied */
  int bCheck;           /* A CheckAndMutateRow */
  int bNoCall;          /* Nothing was sent: the answer is bMatched */
  const ProtobufCMessage *pAdmin;   /* An admin call's request, made whole
                                    ** at btCallFinish() */
  int bMatched;
};

/* Connections to the gateway a batch of mutateRow calls is spread over:
** the gateway serves each on a thread of its own, so HBase applies them
** side by side and writes its log for several at once. */
#define HB_LANES 16

struct BtConn {
  char *zHost;
  int port;
  char *zEndpoint;
  int64_t nTimeoutMs;
  WcSock *pSock;        /* NULL until connected, and after a failure */
  int32_t iSeq;
  BtPending *pHead, *pTail;   /* Sent, reply not read yet */
  BtConn *apLane[HB_LANES - 1];   /* Lanes 1.. (lane 0 is this one), made
                                  ** when first used */
};

int btConnOpen(BtConn **ppConn, char **pzErr){
  const char *zGate = getenv(HB_ENV);
  const char *zColon;
  int64_t nTimeoutMs = btTimeoutFromEnv(HB_TIMEOUT_ENV, btEngine.zName, pzErr);
  BtConn *p;
  char *zEnd = 0;
  long port;
  *ppConn = 0;
  if( nTimeoutMs < 0 ) return BT_FAILED_PRECONDITION;
  zColon = zGate ? strrchr(zGate, ':') : 0;
  if( zColon ) port = strtol(zColon + 1, &zEnd, 10);
  if( zGate == 0 || zGate[0] == 0 || zColon == 0 || zColon == zGate
   || zEnd == zColon + 1 || *zEnd != 0 || port < 1 || port > 65535 ){
    *pzErr = zGate && zGate[0]
      ? sqlite3_mprintf(HB_ENV " must be host:port of HBase's Thrift2 "
                        "gateway; it is %Q", zGate)
      : sqlite3_mprintf("no HBase gateway: set " HB_ENV "=host:port to "
          "HBase's Thrift2 gateway (hbase thrift2 start -p 9090, then "
          HB_ENV "=127.0.0.1:9090; sh tests/servers/hbase.sh start prints "
          "it for the HBase of widecol's tests)");
    return BT_UNAVAILABLE;
  }
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ){
    *pzErr = sqlite3_mprintf("out of memory");
    return BT_INTERNAL;
  }
  memset(p, 0, sizeof(*p));
  p->zHost = sqlite3_mprintf("%.*s", (int)(zColon - zGate), zGate);
  p->port = (int)port;
  p->nTimeoutMs = nTimeoutMs;
  p->zEndpoint = sqlite3_mprintf("%s (HBase's Thrift2 gateway, named by "
                                 HB_ENV ")", zGate);
  if( p->zHost == 0 || p->zEndpoint == 0 ){
    btConnClose(p);
    *pzErr = sqlite3_mprintf("out of memory");
    return BT_INTERNAL;
  }
  *ppConn = p;
  return BT_OK;
}

/* Lane iLane of pConn (0: pConn itself), or NULL if out of memory. */
static BtConn *connLane(BtConn *pConn, int iLane){
  BtConn *p;
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
    if( p->zHost == 0 || p->zEndpoint == 0 ){
      btConnClose(p);
      return 0;
    }
    pConn->apLane[iLane - 1] = p;
  }
  return p;
}

static void pendingFree(BtPending *p){
  if( p == 0 ) return;
  hbArenaFree(&p->reply.arena);
  sqlite3_free(p->zErr);
  sqlite3_free(p->zTable);
  sqlite3_free(p);
}

/* Ends the socket after a failure: the replies not read fail with it. */
static void dropSocket(BtConn *pConn, int code, const char *zWhy){
  BtPending *p;
  for(p = pConn->pHead; p; p = p->pNext){
    p->bRead = 1;
    p->code = code;
    p->zErr = sqlite3_mprintf("%s", zWhy);
  }
  pConn->pHead = pConn->pTail = 0;
  wcSockClose(pConn->pSock);
  pConn->pSock = 0;
}

void btConnClose(BtConn *pConn){
  int i;
  if( pConn == 0 ) return;
  for(i = 0; i < HB_LANES - 1; i++) btConnClose(pConn->apLane[i]);
  dropSocket(pConn, BT_CANCELLED, "the connection closed");
  sqlite3_free(pConn->zHost);
  sqlite3_free(pConn->zEndpoint);
  sqlite3_free(pConn);
}

const char *btConnEndpoint(const BtConn *pConn){
  return pConn->zEndpoint;
}

const char *btConnHint(const BtConn *pConn, int code){
  (void)pConn;
  switch( code ){
    case BT_UNAVAILABLE:
      return "; is HBase's Thrift2 gateway running there? (hbase thrift2 "
             "start -p N, with " HB_ENV "=host:N)";
    case BT_DEADLINE_EXCEEDED:
      return "; is HBase up and reachable? (" HB_TIMEOUT_ENV " sets another "
             "deadline)";
    case BT_CANCELLED:
      return "; the statement was interrupted";
    case BT_NOT_FOUND:
      return "; the HBase table is gone (dropped outside widecol?): DROP "
             "TABLE and CREATE the widecol table again to make it";
    default:
      return "";
  }
}

int64_t btConnTimeoutMs(const BtConn *pConn){
  return pConn->nTimeoutMs;
}

void btConnRetryNow(BtConn *pConn){
  (void)pConn;   /* A call after a failure connects again at once. */
}

/* ---- Calls ---- */

static int interruptedCb(void *pArg){
  return btInterrupted((const BtWait*)pArg);
}

static WcDeadline deadlineOf(const BtWait *pWait, int64_t iStart){
  WcDeadline d;
  int64_t n = pWait->nTimeoutMs > 0 ? pWait->nTimeoutMs : BT_DEFAULT_TIMEOUT_MS;
  d.iUntilMs = iStart + n;
  if( pWait->iUntilMs > 0 && pWait->iUntilMs < d.iUntilMs ){
    d.iUntilMs = pWait->iUntilMs;
  }
  d.xInterrupted = pWait->xInterrupted ? interruptedCb : 0;
  d.pArg = (void*)pWait;
  return d;
}

static int codeOfIo(int rc){
  switch( rc ){
    case HB_ERR_TIMEOUT:   return BT_DEADLINE_EXCEEDED;
    case HB_ERR_CANCELLED: return BT_CANCELLED;
    case HB_ERR_NOMEM:     return BT_INTERNAL;
    default:               return BT_UNAVAILABLE;
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

/* Sends request pReq (a whole message) as call zMethod; the BtPending to
** finish, or NULL on OOM. */
static BtPending *sendCall(BtConn *pConn, const char *zMethod,
                           const char *zTable, WcBuf *pReq,
                           const BtWait *pWait){
  BtPending *p = sqlite3_malloc(sizeof(*p));
  WcDeadline d;
  int rc = 0;
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->zMethod = zMethod;
  p->zTable = zTable ? sqlite3_mprintf("%s", zTable) : 0;
  p->wait = *pWait;
  p->iUntilMs = btNowMs();
  d = deadlineOf(pWait, p->iUntilMs);
  if( pReq->bOom ){
    p->bRead = 1;
    p->code = BT_INTERNAL;
    p->zErr = sqlite3_mprintf("out of memory");
    return p;
  }
  if( pConn->pSock == 0 ){
    char *zErr = 0;
    rc = wcSockOpen(&pConn->pSock, pConn->zHost, pConn->port, &d, &zErr);
    if( rc ){
      p->bRead = 1;
      p->code = codeOfIo(rc);
      p->zErr = zErr ? zErr : sqlite3_mprintf("%s", whyOfIo(rc));
      return p;
    }
  }
  /* The sequence number sits after the version and the method's name. */
  p->iSeq = ++pConn->iSeq;
  {
    size_t nName = strlen(zMethod);
    unsigned char *a = &pReq->a[8 + nName];
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
static void readUntil(BtConn *pConn, BtPending *pTarget){
  while( !pTarget->bRead ){
    BtPending *p = pConn->pHead;
    WcDeadline d = deadlineOf(&pTarget->wait, pTarget->iUntilMs);
    int32_t iSeq = 0;
    int64_t nBefore = wcSockBytesIn(pConn->pSock);
    int rc = hbReadReply(pConn->pSock, &p->reply.arena, &d, &p->reply.eKind,
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
    pConn->pHead = p->pNext;
    if( pConn->pHead == 0 ) pConn->pTail = 0;
    p->pNext = 0;
  }
}

static int tableExists(BtConn *pConn, const char *zRes, const BtWait *pWait,
                       int *pbExists, BtStatus *pStatus);
static int tableCall(BtConn *pConn, const char *zMethod, const char *zRes,
                     const BtWait *pWait, BtPending **ppDone,
                     const HbVal **ppRes, BtStatus *pStatus);

/* What became of table zRes after a call on it failed: BT_NOT_FOUND if it
** is gone, BT_FAILED_PRECONDITION if disabled, else BT_INTERNAL. */
static int tableState(BtConn *pConn, const char *zRes, const BtWait *pWait){
  BtStatus st = {0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int bExists = 1, code = BT_INTERNAL;
  if( tableExists(pConn, zRes, pWait, &bExists, &st) == BT_OK && !bExists ){
    code = BT_NOT_FOUND;
  }else if( bExists
         && tableCall(pConn, "isTableEnabled", zRes, pWait, &pDone, &pRes,
                      &st) == BT_OK
         && pRes && !pRes->i ){
    code = BT_FAILED_PRECONDITION;
  }
  pendingFree(pDone);
  btStatusClear(&st);
  return code;
}

/* The result of pending call p once read (field 0 of its reply; NULL for
** a call returning nothing), or a failure: BT_OK or a BT_* code with
** *pStatus set. */
static int resultOf(BtPending *p, const HbVal **ppResult, BtStatus *pStatus){
  const HbVal *pBody, *pEx;
  readUntil(p->pConn, p);
  *ppResult = 0;
  if( p->code ){
    btStatusSet(pStatus, p->code, "%s: %s", p->zMethod,
                p->zErr ? p->zErr : "failed");
    return p->code;
  }
  pBody = p->reply.pBody;
  if( p->reply.eKind == HB_MSG_EXCEPTION ){
    const HbVal *pMsg = hbField(pBody, 1);
    btStatusSet(pStatus, BT_INTERNAL, "the gateway could not run %s: %.*s",
                p->zMethod, pMsg ? (int)pMsg->n : 6,
                pMsg ? (const char*)pMsg->a : "failed");
    return BT_INTERNAL;
  }
  /* Field 1: TIOError, 2: TIllegalArgument, each with a message and no
  ** code: whether the table is gone or disabled is asked apart. */
  if( (pEx = hbField(pBody, 1)) != 0 || (pEx = hbField(pBody, 2)) != 0 ){
    const HbVal *pMsg = hbField(pEx, 1);
    int code = p->zTable ? tableState(p->pConn, p->zTable, &p->wait)
                         : BT_INTERNAL;
    btStatusSet(pStatus, code, "HBase refused %s: %.*s%s%s", p->zMethod,
                pMsg ? (int)pMsg->n : 6,
                pMsg ? (const char*)pMsg->a : "failed",
                code == BT_NOT_FOUND ? " (there is no such table)" : "",
                code == BT_FAILED_PRECONDITION ? " (the table is disabled: "
                "enable it, in the hbase shell: enable 'table')" : "");
    return code;
  }
  *ppResult = hbField(pBody, 0);
  return BT_OK;
}

/* A call made and answered at once. */
static int invoke(BtConn *pConn, const char *zMethod, const char *zTable,
                  WcBuf *pReq, const BtWait *pWait, BtPending **ppDone,
                  const HbVal **ppResult, BtStatus *pStatus){
  BtPending *p = sendCall(pConn, zMethod, zTable, pReq, pWait);
  *ppDone = p;
  if( p == 0 ){
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return BT_INTERNAL;
  }
  return resultOf(p, ppResult, pStatus);
}

/* ---- Requests ---- */

/*
** The row marker's qualifier.  The cell store's marker is "_:" (family
** "_", the empty qualifier); on HBase it is written "_:\x00" and read back
** as the empty qualifier.  HBase 2.6's NEW_VERSION_BEHAVIOR, which every
** family widecol makes has, mistakes a column with the empty qualifier
** that follows a family's delete marker for the column before it: the
** marker of a deleted row would show through, and a delete of it fails
** scans with a NullPointerException (NewVersionBehaviorTracker.isEmpty).
*/
static const unsigned char aMarkerQual[1] = { 0x00 };

static int isMarkerFamily(const char *zFamily, size_t nFamily){
  return nFamily == 1 && zFamily[0] == '_';
}

/* A qualifier field of family zFamily, as HBase keeps it. */
static void writeQual(WcBuf *p, int id, const char *zFamily,
                      const uint8_t *a, size_t n){
  if( n == 0 && isMarkerFamily(zFamily, strlen(zFamily)) ){
    a = aMarkerQual;
    n = 1;
  }
  hbWriteBinaryField(p, id, a, (int64_t)n);
}


/* HBase's name of table zRes ("ns:t" or "t"), bytes of zRes itself. */
static void writeTableName(WcBuf *p, int id, const char *zRes){
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

static int64_t msOf(int64_t iMicros){ return iMicros / 1000; }

/* A TPut of the cells that mutations apM[i..] set in a row, up to the
** first that is no set, with its stop: returns the index after it. */
static size_t writePut(WcBuf *p, const ProtobufCBinaryData *pRow,
                       Wcbt__Mutation **apM, size_t i, size_t n){
  size_t j, nCell = 0;
  for(j = i; j < n && apM[j]->kind_case == WCBT__MUTATION__KIND_SET_CELL; j++){
    nCell++;
  }
  hbWriteBinaryField(p, 1, pRow->data, (int64_t)pRow->len);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, (int32_t)nCell);
  for(j = i; j < i + nCell; j++){
    const Wcbt__Mutation__SetCell *pS = apM[j]->set_cell;
    hbWriteBinaryField(p, 1, pS->family, (int64_t)strlen(pS->family));
    writeQual(p, 2, pS->family, pS->qualifier.data, pS->qualifier.len);
    hbWriteBinaryField(p, 3, pS->value.data, (int64_t)pS->value.len);
    if( pS->micros >= 0 ) hbWriteI64Field(p, 4, msOf(pS->micros));
    hbWriteStop(p);
  }
  hbWriteStop(p);
  return i + nCell;
}

/* A TDelete of mutation pM, with its stop; 0, or 1 if HBase cannot
** delete what it asks (a time range other than "before t" or "at t").
** A delete of every version is one of the versions at or before iAll:
** HBase's delete without a time is one at its clock's now, which spares
** cells of later times (Bigtable deletes them too). */
static int writeDelete(WcBuf *p, const ProtobufCBinaryData *pRow,
                       const Wcbt__Mutation *pM, int64_t iAll){
  hbWriteBinaryField(p, 1, pRow->data, (int64_t)pRow->len);
  switch( pM->kind_case ){
    case WCBT__MUTATION__KIND_DELETE_COLUMN: {
      const Wcbt__Mutation__DeleteColumn *pD = pM->delete_column;
      const Wcbt__TimeRange *pR = pD->range;
      int eType = HB_DELETE_COLUMNS;
      int64_t iTs = iAll;
      if( pR && pR->end_micros > 0 ){
        if( pR->start_micros == 0 ){
          iTs = msOf(pR->end_micros) - 1;      /* every version before */
        }else if( pR->end_micros - pR->start_micros == 1000 ){
          iTs = msOf(pR->start_micros);        /* the version at */
          eType = HB_DELETE_COLUMN;
        }else{
          return 1;
        }
      }
      hbWriteField(p, HB_LIST, 2);
      hbWriteListBegin(p, HB_STRUCT, 1);
      hbWriteBinaryField(p, 1, pD->family, (int64_t)strlen(pD->family));
      writeQual(p, 2, pD->family, pD->qualifier.data, pD->qualifier.len);
      hbWriteI64Field(p, 3, iTs);
      hbWriteStop(p);
      hbWriteI32Field(p, 4, eType);
      break;
    }
    case WCBT__MUTATION__KIND_DELETE_FAMILY:
      hbWriteField(p, HB_LIST, 2);
      hbWriteListBegin(p, HB_STRUCT, 1);
      hbWriteBinaryField(p, 1, pM->delete_family->family,
                         (int64_t)strlen(pM->delete_family->family));
      hbWriteI64Field(p, 3, iAll);
      hbWriteStop(p);
      hbWriteI32Field(p, 4, HB_DELETE_FAMILY);
      break;
    default:     /* the whole row */
      hbWriteI64Field(p, 3, iAll);
      break;
  }
  hbWriteStop(p);
  return 0;
}

/* The time a delete of every version takes in a row's mutations apM: the
** latest HBase keeps, or, where the mutations also put cells, the
** millisecond before the first of them.  HBase applies a row's mutations
** at once, and NEW_VERSION_BEHAVIOR lets a delete hide the cells written
** with it (the same sequence number) up to its time; Bigtable applies
** them in order, the puts after the delete. */
static int64_t deleteTime(Wcbt__Mutation **apM, size_t n){
  int64_t iMin = HB_LATEST;
  size_t i;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL
     && apM[i]->set_cell->micros >= 0
     && msOf(apM[i]->set_cell->micros) - 1 < iMin ){
      iMin = msOf(apM[i]->set_cell->micros) - 1;
    }
  }
  return iMin;
}

/* A TRowMutations (field id) of a row's mutations, in order. */
static int writeRowMutations(WcBuf *p, int id, const ProtobufCBinaryData *pRow,
                             Wcbt__Mutation **apM, size_t n){
  size_t i, nGroup = 0;
  int64_t iAll = deleteTime(apM, n);
  for(i = 0; i < n; nGroup++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ){
      while( i < n && apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ) i++;
    }else{
      i++;
    }
  }
  hbWriteField(p, HB_STRUCT, id);
  hbWriteBinaryField(p, 1, pRow->data, (int64_t)pRow->len);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, (int32_t)nGroup);
  for(i = 0; i < n; ){
    /* A TMutation: a union of a put (1) and a delete (2). */
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ){
      hbWriteField(p, HB_STRUCT, 1);
      i = writePut(p, pRow, apM, i, n);
    }else{
      hbWriteField(p, HB_STRUCT, 2);
      if( writeDelete(p, pRow, apM[i], iAll) ) return 1;
      i++;
    }
    hbWriteStop(p);
  }
  hbWriteStop(p);
  return 0;
}

/* A whole mutateRow request of a row's mutations; 0, or 1 (nothing
** usable written) if HBase cannot delete what they ask. */
static int writeMutateRow(WcBuf *p, const char *zTable,
                          const ProtobufCBinaryData *pRow,
                          Wcbt__Mutation **apM, size_t n){
  hbWriteCall(p, "mutateRow", 0);
  hbWriteBinaryField(p, 1, zTable, (int64_t)strlen(zTable));
  if( writeRowMutations(p, 2, pRow, apM, n) ) return 1;
  hbWriteStop(p);
  return 0;
}

static int allSets(Wcbt__Mutation **apM, size_t n){
  size_t i;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case != WCBT__MUTATION__KIND_SET_CELL ) return 0;
  }
  return n > 0;
}

/* ---- Responses ---- */

/* pMsg, built on the stack or in an arena, as a message of its own from
** malloc(), which the caller frees with protobuf_c_message_free_unpacked()
** as it frees gRPC's; NULL on OOM. */
static ProtobufCMessage *ownMessage(const ProtobufCMessage *pMsg){
  size_t n = protobuf_c_message_get_packed_size(pMsg);
  uint8_t *a = malloc(n ? n : 1);
  ProtobufCMessage *pOut;
  if( a == 0 ) return 0;
  protobuf_c_message_pack(pMsg, a);
  pOut = protobuf_c_message_unpack(pMsg->descriptor, 0, n, a);
  free(a);
  return pOut;
}

/* ---- CheckAndMutateRow ---- */

/* The cell and the value a predicate checks: the shape the cell store
** sends (bt_batch.c, bt_catalog.c): a chain of an exact column, a
** one-version limit and a value range (equal: bPrefix 0; starting with:
** bPrefix 1), or an exact column alone (the cell exists). */
typedef struct Check Check;
struct Check {
  const char *zFamily;
  ProtobufCBinaryData qual;
  int bValue;           /* A value is compared (else: the cell exists) */
  int bPrefix;
  ProtobufCBinaryData value;
};

static int exactColumn(const Wcbt__Filter *pF, Check *pC){
  const Wcbt__ColumnRange *pR;
  if( pF->kind_case != WCBT__FILTER__KIND_COLUMN_RANGE ) return 0;
  pR = pF->column_range;
  if( pR->start_case != WCBT__COLUMN_RANGE__START_START_CLOSED
   || pR->end_case != WCBT__COLUMN_RANGE__END_END_CLOSED
   || pR->start_closed.len != pR->end_closed.len
   || (pR->start_closed.len
       && memcmp(pR->start_closed.data, pR->end_closed.data,
                 pR->start_closed.len)) ){
    return 0;
  }
  pC->zFamily = pR->family;
  pC->qual = pR->start_closed;
  return 1;
}

static int checkOf(const Wcbt__Filter *pF, Check *pC){
  size_t k;
  memset(pC, 0, sizeof(*pC));
  if( pF == 0 ) return 0;
  if( exactColumn(pF, pC) ) return 1;
  if( pF->kind_case != WCBT__FILTER__KIND_CHAIN || pF->chain->n_filters < 2
   || !exactColumn(pF->chain->filters[0], pC) ){
    return 0;
  }
  for(k = 1; k < pF->chain->n_filters; k++){
    const Wcbt__Filter *pK = pF->chain->filters[k];
    if( pK->kind_case == WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT
     && pK->cells_per_column_limit == 1 ){
      continue;
    }
    if( pK->kind_case != WCBT__FILTER__KIND_VALUE_RANGE || pC->bValue ) return 0;
    if( pK->value_range->start_case != WCBT__VALUE_RANGE__START_START_CLOSED ){
      return 0;
    }
    pC->bValue = 1;
    pC->value = pK->value_range->start_closed;
    if( pK->value_range->end_case == WCBT__VALUE_RANGE__END_END_OPEN ){
      pC->bPrefix = 1;
    }else if( pK->value_range->end_case != WCBT__VALUE_RANGE__END_END_CLOSED
           || pK->value_range->end_closed.len != pC->value.len
           || (pC->value.len && memcmp(pK->value_range->end_closed.data,
                                       pC->value.data, pC->value.len)) ){
      return 0;
    }
  }
  return pC->bValue;
}

/* The latest value of a cell: 1 and *pValue (in pDone's reply) if there
** is one, 0 if none, or < 0 on a failure (*pStatus). */
static int readCell(BtConn *pConn, const char *zTable,
                    const ProtobufCBinaryData *pRow, const Check *pC,
                    const BtWait *pWait, BtPending **ppDone,
                    ProtobufCBinaryData *pValue, BtStatus *pStatus){
  WcBuf req = {0, 0, 0, 0};
  const HbVal *pRes = 0, *pCols;
  int code;
  hbWriteCall(&req, "get", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  hbWriteBinaryField(&req, 1, pRow->data, (int64_t)pRow->len);
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, 1);
  hbWriteBinaryField(&req, 1, pC->zFamily, (int64_t)strlen(pC->zFamily));
  writeQual(&req, 2, pC->zFamily, pC->qual.data, pC->qual.len);
  hbWriteStop(&req);
  hbWriteI32Field(&req, 5, 1);
  hbWriteStop(&req);
  hbWriteStop(&req);
  code = invoke(pConn, "get", zTable, &req, pWait, ppDone, &pRes, pStatus);
  wcBufFree(&req);
  if( code != BT_OK ) return -1;
  pCols = hbField(pRes, 2);
  if( pCols == 0 || pCols->n == 0 ) return 0;
  {
    const HbVal *pV = hbField(&pCols->aChild[0], 3);
    pValue->data = pV ? (uint8_t*)pV->a : (uint8_t*)"";
    pValue->len = pV ? (size_t)pV->n : 0;
  }
  return 1;
}

/* A call that failed before it was sent: finishing it reports zWhy. */
static BtPending *failedPending(BtConn *pConn, const char *zMethod, int code,
                                const char *zWhy){
  BtPending *p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->zMethod = zMethod;
  p->bRead = 1;
  p->code = code;
  p->zErr = sqlite3_mprintf("%s", zWhy);
  return p;
}

static int hasSet(Wcbt__Mutation **apM, size_t n){
  size_t i;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ) return 1;
  }
  return 0;
}

/* The fields of a TPut of every cell that mutations apM set, deletes
** left out (the struct's stop is the caller's). */
static void writeSets(WcBuf *p, const ProtobufCBinaryData *pRow,
                      Wcbt__Mutation **apM, size_t n){
  size_t i, nCell = 0;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ) nCell++;
  }
  hbWriteBinaryField(p, 1, pRow->data, (int64_t)pRow->len);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, (int32_t)nCell);
  for(i = 0; i < n; i++){
    const Wcbt__Mutation__SetCell *pS;
    if( apM[i]->kind_case != WCBT__MUTATION__KIND_SET_CELL ) continue;
    pS = apM[i]->set_cell;
    hbWriteBinaryField(p, 1, pS->family, (int64_t)strlen(pS->family));
    writeQual(p, 2, pS->family, pS->qualifier.data, pS->qualifier.len);
    hbWriteBinaryField(p, 3, pS->value.data, (int64_t)pS->value.len);
    if( pS->micros >= 0 ) hbWriteI64Field(p, 4, msOf(pS->micros));
    hbWriteStop(p);
  }
}

/* The fields of a TDelete of the cell a check reads. */
static void writeCellDelete(WcBuf *p, const ProtobufCBinaryData *pRow,
                            const Check *pC){
  hbWriteBinaryField(p, 1, pRow->data, (int64_t)pRow->len);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, 1);
  hbWriteBinaryField(p, 1, pC->zFamily, (int64_t)strlen(pC->zFamily));
  writeQual(p, 2, pC->zFamily, pC->qual.data, pC->qual.len);
  hbWriteStop(p);
  hbWriteI32Field(p, 4, HB_DELETE_COLUMNS);
}

/* The first cell mutations apM set, or NULL. */
static const Wcbt__Mutation__SetCell *firstSet(Wcbt__Mutation **apM,
                                               size_t n){
  size_t i;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ){
      return apM[i]->set_cell;
    }
  }
  return 0;
}

/* True if mutations apM set the row marker. */
static int setsMarker(Wcbt__Mutation **apM, size_t n){
  size_t i;
  for(i = 0; i < n; i++){
    if( apM[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL
     && apM[i]->set_cell->qualifier.len == 0
     && isMarkerFamily(apM[i]->set_cell->family,
                       strlen(apM[i]->set_cell->family)) ){
      return 1;
    }
  }
  return 0;
}

/* 1 if row pRow of zTable has a cell, 0 if none, -1 on a failure. */
static int rowExists(BtConn *pConn, const char *zTable,
                     const ProtobufCBinaryData *pRow, const BtWait *pWait,
                     BtStatus *pStatus){
  WcBuf req = {0, 0, 0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int code, bExists;
  hbWriteCall(&req, "exists", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  hbWriteBinaryField(&req, 1, pRow->data, (int64_t)pRow->len);
  hbWriteStop(&req);
  hbWriteStop(&req);
  code = invoke(pConn, "exists", zTable, &req, pWait, &pDone, &pRes, pStatus);
  wcBufFree(&req);
  bExists = code == BT_OK && pRes && pRes->i;
  pendingFree(pDone);
  if( code != BT_OK ) return -1;
  return bExists;
}

/* Starts a CheckAndMutateRow: the marker read first if the check is of a
** prefix (see the top of this file). */
static BtPending *startCheckAndMutate(BtConn *pConn,
                                      const Wcbt__CheckAndMutateRowRequest *pReq,
                                      const BtWait *pWait){
  Check check;
  WcBuf req = {0, 0, 0, 0};
  BtPending *p, *pRead = 0;
  Wcbt__Mutation **apM;
  size_t nM;
  int bMatchedIfApplied;
  ProtobufCBinaryData seen = {0, 0};
  BtStatus st = {0, 0};
  const char *zCall = "checkAndMutate";
  if( pReq->predicate == 0 && pReq->n_true_mutations
   && pReq->true_mutations == pReq->false_mutations
   && pReq->n_true_mutations == pReq->n_false_mutations ){
    /* The same mutations whatever the row holds: a plain mutateRow, whose
    ** answer says nothing (the store reads none of such a write). */
    if( writeMutateRow(&req, pReq->table_name, &pReq->row_key,
                       pReq->true_mutations, pReq->n_true_mutations) ){
      wcBufFree(&req);
      return failedPending(pConn, "mutateRow", BT_INTERNAL, zNoRangeDelete);
    }
    p = sendCall(pConn, "mutateRow", pReq->table_name, &req, pWait);
    wcBufFree(&req);
    if( p ) p->bMatchedIfApplied = 1;
    return p;
  }
  if( pReq->predicate == 0 ){
    /* "The row has a cell".  A row the store makes has a marker, and a
    ** write that sets one checks that it is absent.  A row of a table
    ** another application made (EXISTING) has none: it is looked for
    ** whole, then written on the check that the first cell it sets is
    ** still absent, which is all one HBase call can check (docs/hbase.md:
    ** another writer adding the row with other cells in between is not
    ** seen). */
    const Wcbt__Mutation__SetCell *pFirst = firstSet(pReq->false_mutations,
                                                     pReq->n_false_mutations);
    memset(&check, 0, sizeof(check));
    check.zFamily = "_";
    check.qual.data = (uint8_t*)"";
    if( pFirst && !setsMarker(pReq->false_mutations,
                              pReq->n_false_mutations) ){
      int r = rowExists(pConn, pReq->table_name, &pReq->row_key, pWait, &st);
      if( r != 0 ){
        p = failedPending(pConn, "exists", r < 0 ? st.code : BT_OK,
                          r < 0 && st.zMsg ? st.zMsg : "failed");
        btStatusClear(&st);
        if( p && r > 0 ){
          p->bNoCall = 1;
          p->bMatched = 1;
        }
        return p;
      }
      check.zFamily = pFirst->family;
      check.qual = pFirst->qualifier;
    }
  }else if( !checkOf(pReq->predicate, &check) ){
    return failedPending(pConn, "checkAndMutate", BT_INTERNAL, "HBase's "
                         "checkAndMutate compares one cell; this condition "
                         "is not one it can check");
  }
  if( check.bValue ){
    apM = pReq->true_mutations;
    nM = pReq->n_true_mutations;
    bMatchedIfApplied = 1;
  }else{
    apM = pReq->false_mutations;
    nM = pReq->n_false_mutations;
    bMatchedIfApplied = 0;
  }
  if( check.bPrefix ){
    int r = readCell(pConn, pReq->table_name, &pReq->row_key, &check, pWait,
                     &pRead, &seen, &st);
    if( r < 0 || r == 0 || seen.len < check.value.len
     || memcmp(seen.data, check.value.data, check.value.len) != 0 ){
      /* Failed, or the marker is not as expected: nothing to write. */
      pendingFree(pRead);
      p = failedPending(pConn, "get", r < 0 ? st.code : BT_OK,
                        r < 0 && st.zMsg ? st.zMsg : "failed");
      btStatusClear(&st);
      if( p && r >= 0 ){
        p->bNoCall = 1;
        p->bMatched = 0;
      }
      return p;
    }
    check.value = seen;
  }
  if( nM == 0 ){
    wcBufFree(&req);
    pendingFree(pRead);
    return failedPending(pConn, "checkAndMutate", BT_INTERNAL,
                         "a conditional write with nothing to write");
  }
  if( !check.bValue ){
    /* The gateway's checkAndMutate cannot check that a cell is absent
    ** (it fails on a missing value); checkAndPut and checkAndDelete can.
    ** A row without the cell is one the store never wrote, so its deletes
    ** change nothing: its puts alone are sent, or with none, a delete of
    ** the cell checked. */
    zCall = hasSet(apM, nM) ? "checkAndPut" : "checkAndDelete";
  }
  hbWriteCall(&req, zCall, 0);
  hbWriteBinaryField(&req, 1, pReq->table_name,
                     (int64_t)strlen(pReq->table_name));
  hbWriteBinaryField(&req, 2, pReq->row_key.data, (int64_t)pReq->row_key.len);
  hbWriteBinaryField(&req, 3, check.zFamily, (int64_t)strlen(check.zFamily));
  writeQual(&req, 4, check.zFamily, check.qual.data, check.qual.len);
  if( !check.bValue ){
    hbWriteField(&req, HB_STRUCT, 6);
    if( strcmp(zCall, "checkAndPut") == 0 ){
      writeSets(&req, &pReq->row_key, apM, nM);
    }else{
      writeCellDelete(&req, &pReq->row_key, &check);
    }
    hbWriteStop(&req);
  }else{
    hbWriteI32Field(&req, 5, HB_OP_EQUAL);
    hbWriteBinaryField(&req, 6, check.value.data, (int64_t)check.value.len);
    if( writeRowMutations(&req, 7, &pReq->row_key, apM, nM) ){
      wcBufFree(&req);
      pendingFree(pRead);
      return failedPending(pConn, zCall, BT_INTERNAL, zNoRangeDelete);
    }
  }
  hbWriteStop(&req);
  p = sendCall(pConn, zCall, pReq->table_name, &req, pWait);
  wcBufFree(&req);
  pendingFree(pRead);
  if( p ) p->bMatchedIfApplied = bMatchedIfApplied;
  return p;
}

static int finishCheckAndMutate(BtPending *p, ProtobufCMessage **ppResp,
                                BtStatus *pStatus){
  Wcbt__CheckAndMutateRowResponse resp =
      WCBT__CHECK_AND_MUTATE_ROW_RESPONSE__INIT;
  const HbVal *pRes = 0;
  int code;
  if( p->bNoCall && p->code == BT_OK ){
    resp.predicate_matched = p->bMatched;
  }else{
    code = resultOf(p, &pRes, pStatus);
    if( code != BT_OK ) return code;
    resp.predicate_matched = (pRes && pRes->i) == p->bMatchedIfApplied;
  }
  *ppResp = ownMessage(&resp.base);
  if( *ppResp == 0 ){
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return BT_INTERNAL;
  }
  return BT_OK;
}

/* ---- Admin ---- */

static int tableExists(BtConn *pConn, const char *zRes, const BtWait *pWait,
                       int *pbExists, BtStatus *pStatus){
  WcBuf req = {0, 0, 0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int code;
  hbWriteCall(&req, "tableExists", 0);
  writeTableName(&req, 1, zRes);
  hbWriteStop(&req);
  code = invoke(pConn, "tableExists", 0, &req, pWait, &pDone, &pRes, pStatus);
  wcBufFree(&req);
  *pbExists = pRes && pRes->i;
  pendingFree(pDone);
  return code;
}

/* A call whose one argument is table zRes's TTableName. */
static int tableCall(BtConn *pConn, const char *zMethod, const char *zRes,
                     const BtWait *pWait, BtPending **ppDone,
                     const HbVal **ppRes, BtStatus *pStatus){
  WcBuf req = {0, 0, 0, 0};
  int code;
  hbWriteCall(&req, zMethod, 0);
  writeTableName(&req, 1, zRes);
  hbWriteStop(&req);
  code = invoke(pConn, zMethod, 0, &req, pWait, ppDone, ppRes, pStatus);
  wcBufFree(&req);
  return code;
}

/* The VERSIONS and TTL a GC rule keeps (HBase keeps both limits at once,
** as a union of rules deletes by either). */
static void ruleLimits(const Wcbt__GcRule *pRule, int *pnVersions,
                       int64_t *pnTtl){
  size_t k;
  if( pRule == 0 ) return;
  switch( pRule->rule_case ){
    case WCBT__GC_RULE__RULE_MAX_VERSIONS:
      *pnVersions = pRule->max_versions;
      break;
    case WCBT__GC_RULE__RULE_MAX_AGE:
      if( pRule->max_age ) *pnTtl = pRule->max_age->seconds;
      break;
    case WCBT__GC_RULE__RULE_UNION:
      for(k = 0; k < pRule->union_->n_rules; k++){
        ruleLimits(pRule->union_->rules[k], pnVersions, pnTtl);
      }
      break;
    default:
      break;
  }
}

static int createTable(BtConn *pConn, const Wcbt__CreateTableRequest *pReq,
                       const BtWait *pWait, ProtobufCMessage **ppResp,
                       BtStatus *pStatus){
  char *zRes = pReq->parent && pReq->parent[0]
      ? sqlite3_mprintf("%s:%s", pReq->parent, pReq->table_id)
      : sqlite3_mprintf("%s", pReq->table_id);
  Wcbt__Table table = WCBT__TABLE__INIT;
  WcBuf req = {0, 0, 0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  size_t i, nFam = pReq->table ? pReq->table->n_families : 0;
  int code, bExists = 0;
  if( zRes == 0 ){
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return BT_INTERNAL;
  }
  code = tableExists(pConn, zRes, pWait, &bExists, pStatus);
  if( code == BT_OK && bExists ){
    btStatusSet(pStatus, BT_ALREADY_EXISTS, "the HBase table %s exists", zRes);
    code = BT_ALREADY_EXISTS;
  }
  if( code == BT_OK && pReq->parent && pReq->parent[0] ){
    /* Its namespace, made if missing (a namespace made already is an
    ** error here, and harmless). */
    WcBuf ns = {0, 0, 0, 0};
    BtStatus stNs = {0, 0};
    hbWriteCall(&ns, "createNamespace", 0);
    hbWriteField(&ns, HB_STRUCT, 1);
    hbWriteBinaryField(&ns, 1, pReq->parent, (int64_t)strlen(pReq->parent));
    hbWriteStop(&ns);
    hbWriteStop(&ns);
    invoke(pConn, "createNamespace", 0, &ns, pWait, &pDone, &pRes, &stNs);
    btStatusClear(&stNs);
    wcBufFree(&ns);
    pendingFree(pDone);
    pDone = 0;
  }
  if( code == BT_OK ){
    hbWriteCall(&req, "createTable", 0);
    hbWriteField(&req, HB_STRUCT, 1);
    writeTableName(&req, 1, zRes);
    hbWriteField(&req, HB_LIST, 2);
    hbWriteListBegin(&req, HB_STRUCT, (int32_t)nFam);
    for(i = 0; i < nFam; i++){
      const Wcbt__Table__FamiliesEntry *pE = pReq->table->families[i];
      int nVersions = HB_ALL_VERSIONS;
      int64_t nTtl = 0;
      ruleLimits(pE->value ? pE->value->gc_rule : 0, &nVersions, &nTtl);
      hbWriteBinaryField(&req, 1, pE->key, (int64_t)strlen(pE->key));
      hbWriteField(&req, HB_MAP, 2);
      hbWriteMapBegin(&req, HB_STRING, HB_STRING, 1);
      hbWriteBinary(&req, "NEW_VERSION_BEHAVIOR", 20);
      hbWriteBinary(&req, "true", 4);
      hbWriteI32Field(&req, 10, nVersions);
      if( nTtl > 0 ){
        hbWriteI32Field(&req, 13, nTtl < HB_FOREVER ? (int32_t)nTtl
                                                    : HB_FOREVER);
      }
      hbWriteStop(&req);
    }
    hbWriteStop(&req);
    if( pReq->n_splits ){
      hbWriteField(&req, HB_LIST, 2);
      hbWriteListBegin(&req, HB_STRING, (int32_t)pReq->n_splits);
      for(i = 0; i < pReq->n_splits; i++){
        hbWriteBinary(&req, pReq->splits[i]->key.data,
                      (int64_t)pReq->splits[i]->key.len);
      }
    }
    hbWriteStop(&req);
    code = invoke(pConn, "createTable", 0, &req, pWait, &pDone, &pRes, pStatus);
    pendingFree(pDone);
  }
  wcBufFree(&req);
  if( code == BT_OK ){
    table.name = zRes;
    *ppResp = ownMessage(&table.base);
    if( *ppResp == 0 ){
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
      code = BT_INTERNAL;
    }
  }
  sqlite3_free(zRes);
  return code;
}

/* GetTable: the families, each with a GC rule of its VERSIONS and TTL. */
static int getTable(BtConn *pConn, const Wcbt__GetTableRequest *pReq,
                    const BtWait *pWait, ProtobufCMessage **ppResp,
                    BtStatus *pStatus){
  Wcbt__Table table = WCBT__TABLE__INIT;
  BtPending *pDone = 0;
  const HbVal *pRes = 0, *pCols;
  int code, bExists = 0;
  int64_t i, nFam;
  code = tableExists(pConn, pReq->name, pWait, &bExists, pStatus);
  if( code == BT_OK && !bExists ){
    btStatusSet(pStatus, BT_NOT_FOUND, "there is no HBase table %s",
                pReq->name);
    return BT_NOT_FOUND;
  }
  if( code != BT_OK ) return code;
  code = tableCall(pConn, "getTableDescriptor", pReq->name, pWait, &pDone,
                   &pRes, pStatus);
  if( code != BT_OK ){
    pendingFree(pDone);
    return code;
  }
  pCols = hbField(pRes, 2);
  nFam = pCols ? pCols->n : 0;
  {
    Wcbt__Table__FamiliesEntry *aE = sqlite3_malloc64(sizeof(*aE) * (size_t)(nFam + 1));
    Wcbt__Table__FamiliesEntry **apE = sqlite3_malloc64(sizeof(*apE) * (size_t)(nFam + 1));
    Wcbt__ColumnFamily *aF = sqlite3_malloc64(sizeof(*aF) * (size_t)(nFam + 1));
    Wcbt__GcRule *aRule = sqlite3_malloc64(sizeof(*aRule) * (size_t)(3 * nFam + 1));
    Wcbt__GcRule **apRule = sqlite3_malloc64(sizeof(*apRule) * (size_t)(2 * nFam + 1));
    Wcbt__GcRule__List *aList = sqlite3_malloc64(sizeof(*aList) * (size_t)(nFam + 1));
    Wcbt__Duration *aAge = sqlite3_malloc64(sizeof(*aAge) * (size_t)(nFam + 1));
    char **azName = sqlite3_malloc64(sizeof(char*) * (size_t)(nFam + 1));
    if( !aE || !apE || !aF || !aRule || !apRule || !aList || !aAge || !azName ){
      code = BT_INTERNAL;
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    }
    for(i = 0; code == BT_OK && i < nFam; i++){
      const HbVal *pFam = &pCols->aChild[i], *pName = hbField(pFam, 1);
      int64_t nVersions = hbFieldInt(pFam, 10, 1);
      int64_t nTtl = hbFieldInt(pFam, 13, HB_FOREVER);
      azName[i] = pName ? (char*)pName->a : (char*)"";
      wcbt__table__families_entry__init(&aE[i]);
      wcbt__column_family__init(&aF[i]);
      wcbt__gc_rule__init(&aRule[3 * i]);
      wcbt__gc_rule__init(&aRule[3 * i + 1]);
      wcbt__gc_rule__init(&aRule[3 * i + 2]);
      aRule[3 * i + 1].rule_case = WCBT__GC_RULE__RULE_MAX_VERSIONS;
      aRule[3 * i + 1].max_versions = (int32_t)nVersions;
      if( nTtl > 0 && nTtl < HB_FOREVER ){
        wcbt__duration__init(&aAge[i]);
        aAge[i].seconds = nTtl;
        aRule[3 * i + 2].rule_case = WCBT__GC_RULE__RULE_MAX_AGE;
        aRule[3 * i + 2].max_age = &aAge[i];
        wcbt__gc_rule__list__init(&aList[i]);
        apRule[2 * i] = &aRule[3 * i + 1];
        apRule[2 * i + 1] = &aRule[3 * i + 2];
        aList[i].n_rules = 2;
        aList[i].rules = &apRule[2 * i];
        aRule[3 * i].rule_case = WCBT__GC_RULE__RULE_UNION;
        aRule[3 * i].union_ = &aList[i];
        aF[i].gc_rule = &aRule[3 * i];
      }else{
        aF[i].gc_rule = &aRule[3 * i + 1];
      }
      aE[i].key = azName[i];
      aE[i].value = &aF[i];
      apE[i] = &aE[i];
    }
    if( code == BT_OK ){
      table.name = pReq->name;
      table.n_families = (size_t)nFam;
      table.families = apE;
      *ppResp = ownMessage(&table.base);
      if( *ppResp == 0 ){
        btStatusSet(pStatus, BT_INTERNAL, "out of memory");
        code = BT_INTERNAL;
      }
    }
    sqlite3_free(aE);
    sqlite3_free(apE);
    sqlite3_free(aF);
    sqlite3_free(aRule);
    sqlite3_free(apRule);
    sqlite3_free(aList);
    sqlite3_free(aAge);
    sqlite3_free(azName);
  }
  pendingFree(pDone);
  return code;
}

static int deleteTable(BtConn *pConn, const Wcbt__DeleteTableRequest *pReq,
                       const BtWait *pWait, ProtobufCMessage **ppResp,
                       BtStatus *pStatus){
  Wcbt__Empty empty = WCBT__EMPTY__INIT;
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int code, bExists = 0;
  code = tableExists(pConn, pReq->name, pWait, &bExists, pStatus);
  if( code == BT_OK && !bExists ){
    btStatusSet(pStatus, BT_NOT_FOUND, "there is no HBase table %s",
                pReq->name);
    return BT_NOT_FOUND;
  }
  if( code == BT_OK ){
    code = tableCall(pConn, "isTableEnabled", pReq->name, pWait, &pDone,
                     &pRes, pStatus);
    if( code == BT_OK && pRes && pRes->i ){
      pendingFree(pDone);
      pDone = 0;
      code = tableCall(pConn, "disableTable", pReq->name, pWait, &pDone,
                       &pRes, pStatus);
    }
    pendingFree(pDone);
    pDone = 0;
  }
  if( code == BT_OK ){
    code = tableCall(pConn, "deleteTable", pReq->name, pWait, &pDone, &pRes,
                     pStatus);
    pendingFree(pDone);
  }
  if( code == BT_OK ){
    *ppResp = ownMessage(&empty.base);
    if( *ppResp == 0 ){
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
      code = BT_INTERNAL;
    }
  }
  return code;
}

/* ---- Unary calls ---- */

#define M_SUFFIX(zMethod, zName) \
  (strlen(zMethod) > strlen(zName) \
   && strcmp(zMethod + strlen(zMethod) - strlen(zName), zName) == 0)

BtPending *btCallStart(BtConn *pConn, const char *zMethod, const char *zTable,
                       const ProtobufCMessage *pReq, const BtWait *pWait){
  BtPending *p;
  (void)zTable;
  if( M_SUFFIX(zMethod, "/CheckAndMutateRow") ){
    p = startCheckAndMutate(pConn,
        (const Wcbt__CheckAndMutateRowRequest*)pReq, pWait);
    if( p ) p->bCheck = 1;
    return p;
  }
  /* The admin calls are made whole at btCallFinish(): keep the request. */
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->zMethod = zMethod;
  p->wait = *pWait;
  p->bNoCall = 1;
  p->pAdmin = pReq;
  p->bRead = 1;
  return p;
}

int btCallFinish(BtPending *p, const ProtobufCMessageDescriptor *pRespDesc,
                 ProtobufCMessage **ppResp, BtStatus *pStatus){
  const char *zMethod = p->zMethod;
  int code;
  (void)pRespDesc;
  *ppResp = 0;
  if( p->bCheck ){
    code = finishCheckAndMutate(p, ppResp, pStatus);
  }else{
    const ProtobufCMessage *pReq = p->pAdmin;
    if( M_SUFFIX(zMethod, "/CreateTable") ){
      code = createTable(p->pConn, (const Wcbt__CreateTableRequest*)pReq,
                         &p->wait, ppResp, pStatus);
    }else if( M_SUFFIX(zMethod, "/GetTable") ){
      code = getTable(p->pConn, (const Wcbt__GetTableRequest*)pReq, &p->wait,
                      ppResp, pStatus);
    }else if( M_SUFFIX(zMethod, "/DeleteTable") ){
      code = deleteTable(p->pConn, (const Wcbt__DeleteTableRequest*)pReq,
                         &p->wait, ppResp, pStatus);
    }else{
      btStatusSet(pStatus, BT_INTERNAL, "%s is no call the HBase store "
                  "makes", zMethod);
      code = BT_INTERNAL;
    }
  }
  pendingFree(p);
  return code;
}

/* ---- Streams ---- */

#define HB_STREAM_READ   1
#define HB_STREAM_MUTATE 2
#define HB_STREAM_SAMPLE 3

/* A range of a read, in the direction read: keys from lo to hi. */
typedef struct HbRange HbRange;
struct HbRange {
  ProtobufCBinaryData lo, hi;   /* hi.len 0 and !bHi: no upper bound */
  int bLoOpen;          /* lo excluded */
  int bHi, bHiClosed;   /* an upper bound; included */
};

struct BtStream {
  BtConn *pConn;
  int eKind;
  BtWait wait;
  const ProtobufCMessage *pReq;
  int bBegun;           /* streamBegin() has run */
  int bDone;            /* Every response given */
  /* ReadRows: the ranges left, in the order read, and where the last
  ** page ended (the next starts after it). */
  HbRange *aRange;
  int nRange, iRange;
  WcBuf after;          /* The last key given of range iRange */
  int bAfter;
  int64_t nLeft;        /* Rows still to give (rows_limit), or -1 */
  HbColumns cols;
  /* MutateRows and SampleRowKeys: the answer, made whole at open. */
  ProtobufCMessage *pAnswer;
  ProtobufCMessage **apAnswer;
  int nAnswer, iAnswer;
};

static int cmpData(const ProtobufCBinaryData *a, const ProtobufCBinaryData *b){
  size_t n = a->len < b->len ? a->len : b->len;
  int c = n ? memcmp(a->data, b->data, n) : 0;
  if( c ) return c;
  return a->len < b->len ? -1 : a->len > b->len;
}

static int cmpRange(const void *pA, const void *pB){
  const HbRange *a = pA, *b = pB;
  int c = cmpData(&a->lo, &b->lo);
  if( c ) return c;
  return a->bLoOpen - b->bLoOpen;
}

/* The request's keys and ranges as ranges in key order. */
static int readRanges(BtStream *p, const Wcbt__ReadRowsRequest *pReq){
  const Wcbt__KeySet *pSet = pReq->rows;
  size_t i, n = pSet ? pSet->n_keys + pSet->n_ranges : 0;
  int nOut = 0;
  if( pSet == 0 ){
    n = 1;
  }
  p->aRange = sqlite3_malloc64(sizeof(HbRange) * (n ? n : 1));
  if( p->aRange == 0 ) return 1;
  memset(p->aRange, 0, sizeof(HbRange) * (n ? n : 1));
  if( pSet == 0 ){
    p->nRange = 1;     /* the whole table */
    return 0;
  }
  for(i = 0; i < pSet->n_keys; i++){
    HbRange *pR = &p->aRange[nOut++];
    pR->lo = pR->hi = pSet->keys[i];
    pR->bHi = pR->bHiClosed = 1;
  }
  for(i = 0; i < pSet->n_ranges; i++){
    const Wcbt__KeyRange *pK = pSet->ranges[i];
    HbRange *pR = &p->aRange[nOut++];
    if( pK->start_case == WCBT__KEY_RANGE__START_START_CLOSED ){
      pR->lo = pK->start_closed;
    }else if( pK->start_case == WCBT__KEY_RANGE__START_START_OPEN ){
      pR->lo = pK->start_open;
      pR->bLoOpen = 1;
    }
    if( pK->end_case == WCBT__KEY_RANGE__END_END_OPEN ){
      pR->hi = pK->end_open;
      pR->bHi = 1;
    }else if( pK->end_case == WCBT__KEY_RANGE__END_END_CLOSED ){
      pR->hi = pK->end_closed;
      pR->bHi = pR->bHiClosed = 1;
    }
  }
  /* Ranges the store sends are disjoint; sorted, they read in order. */
  qsort(p->aRange, (size_t)nOut, sizeof(HbRange), cmpRange);
  if( pReq->reversed ){
    int a = 0, b = nOut - 1;
    while( a < b ){
      HbRange t = p->aRange[a];
      p->aRange[a++] = p->aRange[b];
      p->aRange[b--] = t;
    }
  }
  p->nRange = nOut;
  return 0;
}

/* key + "\0": the first key after key. */
static void writeSuccessor(WcBuf *p, int id, const unsigned char *a, size_t n){
  hbWriteField(p, HB_STRING, id);
  hbWriteI32(p, (int32_t)n + 1);
  wcBufAppend(p, a, (int64_t)n);
  wcBufAppend(p, "", 1);
}

/* The getScannerResults of the next page of range pR. */
static void writePage(BtStream *p, const HbRange *pR, int reversed,
                      int nPage, WcBuf *pReq){
  const Wcbt__ReadRowsRequest *pRead = (const Wcbt__ReadRowsRequest*)p->pReq;
  int i;
  hbWriteCall(pReq, "getScannerResults", 0);
  hbWriteBinaryField(pReq, 1, pRead->table_name,
                     (int64_t)strlen(pRead->table_name));
  hbWriteField(pReq, HB_STRUCT, 2);
  if( !reversed ){
    /* start: after the last key given, or lo; stop: hi (exclusive). */
    if( p->bAfter ){
      writeSuccessor(pReq, 1, p->after.a, (size_t)p->after.n);
    }else if( pR->bLoOpen ){
      writeSuccessor(pReq, 1, pR->lo.data, pR->lo.len);
    }else if( pR->lo.len ){
      hbWriteBinaryField(pReq, 1, pR->lo.data, (int64_t)pR->lo.len);
    }
    if( pR->bHi && pR->bHiClosed ){
      writeSuccessor(pReq, 2, pR->hi.data, pR->hi.len);
    }else if( pR->bHi ){
      hbWriteBinaryField(pReq, 2, pR->hi.data, (int64_t)pR->hi.len);
    }
  }else{
    /* From the top down: start at the last key given (skipped when it
    ** comes again) or hi (skipped when open); stop at lo, exclusive
    ** (an open lo), else at no key: the rows below a closed lo are cut
    ** here. */
    if( p->bAfter ){
      hbWriteBinaryField(pReq, 1, p->after.a, p->after.n);
    }else if( pR->bHi ){
      hbWriteBinaryField(pReq, 1, pR->hi.data, (int64_t)pR->hi.len);
    }
    if( pR->bLoOpen ){
      hbWriteBinaryField(pReq, 2, pR->lo.data, (int64_t)pR->lo.len);
    }
    hbWriteBoolField(pReq, 11, 1);
  }
  if( !p->cols.bAll && p->cols.nColumn ){
    hbWriteField(pReq, HB_LIST, 3);
    hbWriteListBegin(pReq, HB_STRUCT, p->cols.nColumn);
    for(i = 0; i < p->cols.nColumn; i++){
      hbWriteBinaryField(pReq, 1, p->cols.azFamily[i],
                         (int64_t)strlen(p->cols.azFamily[i]));
      if( p->cols.aaQual[i] ){
        writeQual(pReq, 2, p->cols.azFamily[i], p->cols.aaQual[i],
                  (size_t)p->cols.anQual[i]);
      }
      hbWriteStop(pReq);
    }
  }
  hbWriteI32Field(pReq, 4, nPage);
  hbWriteI32Field(pReq, 5, p->cols.nVersions > 0 ? p->cols.nVersions
                                                  : HB_ALL_VERSIONS);
  if( p->cols.bKeysOnly ){
    static const char zKeys[] = "FirstKeyOnlyFilter() AND KeyOnlyFilter()";
    hbWriteBinaryField(pReq, 7, zKeys, (int64_t)sizeof(zKeys) - 1);
  }
  hbWriteStop(pReq);
  hbWriteI32Field(pReq, 3, nPage);
  hbWriteStop(pReq);
}

/* Where key k stands to range pR: -1 before it (in the order read), 0 in
** it, 1 past it. */
static int placeOf(const HbRange *pR, const ProtobufCBinaryData *k,
                   int reversed){
  int cLo = cmpData(k, &pR->lo);
  int bBelow = cLo < 0 || (cLo == 0 && pR->bLoOpen);
  int bAbove = 0;
  if( pR->bHi ){
    int cHi = cmpData(k, &pR->hi);
    bAbove = cHi > 0 || (cHi == 0 && !pR->bHiClosed);
  }
  if( !reversed ) return bBelow ? -1 : bAbove ? 1 : 0;
  return bAbove ? -1 : bBelow ? 1 : 0;
}

/* Chunks of one row's cells (filtered), appended to the response being
** built in pA; their count added to *pnChunk. */
typedef struct ChunkBuild ChunkBuild;
struct ChunkBuild {
  Wcbt__Chunk **apChunk;
  size_t nChunk, nAlloc;
  HbArena *pArena;
  int bOom;
};

static void *buildAlloc(ChunkBuild *pB, size_t n){
  void *p = hbArenaAlloc(pB->pArena, n);
  if( p == 0 ) pB->bOom = 1;
  return p;
}

static void rowChunks(ChunkBuild *pB, const ProtobufCBinaryData *pKey,
                      const HbCell *aCell, int nCell){
  int i;
  if( pB->nChunk + (size_t)nCell > pB->nAlloc ){
    size_t nNew = (pB->nAlloc + (size_t)nCell) * 2;
    Wcbt__Chunk **apNew = buildAlloc(pB, sizeof(*apNew) * nNew);
    if( apNew == 0 ) return;
    if( pB->nChunk ) memcpy(apNew, pB->apChunk, sizeof(*apNew) * pB->nChunk);
    pB->apChunk = apNew;
    pB->nAlloc = nNew;
  }
  for(i = 0; i < nCell; i++){
    Wcbt__Chunk *pC = buildAlloc(pB, sizeof(*pC));
    const HbCell *pCell = &aCell[i];
    if( pC == 0 ) return;
    wcbt__chunk__init(pC);
    if( i == 0 ) pC->row_key = *pKey;
    if( i == 0 || pCell->aFamily != aCell[i - 1].aFamily
     || pCell->nFamily != aCell[i - 1].nFamily
     || memcmp(pCell->aFamily, aCell[i - 1].aFamily, (size_t)pCell->nFamily) ){
      Wcbt__OptString *pF = buildAlloc(pB, sizeof(*pF));
      char *z = buildAlloc(pB, (size_t)pCell->nFamily + 1);
      if( pF == 0 || z == 0 ) return;
      wcbt__opt_string__init(pF);
      memcpy(z, pCell->aFamily, (size_t)pCell->nFamily);
      z[pCell->nFamily] = 0;
      pF->value = z;
      pC->family = pF;
    }
    {
      Wcbt__OptBytes *pQ = buildAlloc(pB, sizeof(*pQ));
      if( pQ == 0 ) return;
      wcbt__opt_bytes__init(pQ);
      pQ->value.data = (uint8_t*)pCell->aQual;
      pQ->value.len = (size_t)pCell->nQual;
      pC->qualifier = pQ;
    }
    pC->micros = pCell->iMicros;
    pC->value.data = (uint8_t*)pCell->aValue;
    pC->value.len = (size_t)pCell->nValue;
    if( i == nCell - 1 ){
      pC->status_case = WCBT__CHUNK__STATUS_COMMIT_ROW;
      pC->commit_row = 1;
    }
    pB->apChunk[pB->nChunk++] = pC;
  }
}

/* The cells of TResult pRes, in aCell (room for them), filtered: their
** count, or < 0 (-1 OOM, -2 a filter not known). */
static int resultCells(const HbVal *pRes, const Wcbt__Filter *pFilter,
                       HbCell *aCell){
  const HbVal *pCols = hbField(pRes, 2);
  int64_t i, n = pCols ? pCols->n : 0;
  for(i = 0; i < n; i++){
    const HbVal *pCV = &pCols->aChild[i];
    const HbVal *pF = hbField(pCV, 1), *pQ = hbField(pCV, 2);
    const HbVal *pV = hbField(pCV, 3);
    aCell[i].aFamily = pF ? pF->a : (const unsigned char*)"";
    aCell[i].nFamily = pF ? pF->n : 0;
    aCell[i].aQual = pQ ? pQ->a : (const unsigned char*)"";
    aCell[i].nQual = pQ ? pQ->n : 0;
    if( aCell[i].nQual == 1 && aCell[i].aQual[0] == aMarkerQual[0]
     && pF && isMarkerFamily((const char*)pF->a, (size_t)pF->n) ){
      aCell[i].nQual = 0;
    }
    aCell[i].aValue = pV ? pV->a : (const unsigned char*)"";
    aCell[i].nValue = pV ? pV->n : 0;
    aCell[i].iMicros = hbFieldInt(pCV, 4, 0) * 1000;
  }
  hbCellSort(aCell, (int)n);
  return hbFilterApply(pFilter, aCell, (int)n);
}

/* The next page of a read: a ReadRowsResponse in *ppMsg (1), the end (0),
** or a failure (-1, *pStatus). */
static int readNext(BtStream *p, ProtobufCMessage **ppMsg, BtStatus *pStatus){
  const Wcbt__ReadRowsRequest *pRead = (const Wcbt__ReadRowsRequest*)p->pReq;
  while( p->iRange < p->nRange && p->nLeft != 0 ){
    const HbRange *pR = &p->aRange[p->iRange];
    int nPage = HB_PAGE, code, bEnd = 0;
    int64_t r, nRow;
    WcBuf req = {0, 0, 0, 0};
    BtPending *pDone = 0;
    const HbVal *pRes = 0;
    HbArena arena = {0};
    ChunkBuild build;
    HbCell *aCell = 0;
    int nCellAlloc = 0;
    Wcbt__ReadRowsResponse resp = WCBT__READ_ROWS_RESPONSE__INIT;
    if( pR->bHi && pR->bHiClosed && cmpData(&pR->lo, &pR->hi) == 0 ){
      nPage = 1;        /* one key */
    }else if( p->nLeft > 0 && p->nLeft < nPage ){
      /* One more than asked: a row this end skips (reversed) may come. */
      nPage = (int)p->nLeft + 1;
    }
    writePage(p, pR, pRead->reversed, nPage, &req);
    code = invoke(p->pConn, "getScannerResults", pRead->table_name, &req,
                  &p->wait, &pDone, &pRes, pStatus);
    wcBufFree(&req);
    if( code != BT_OK ){
      pendingFree(pDone);
      return -1;
    }
    nRow = pRes ? pRes->n : 0;
    memset(&build, 0, sizeof(build));
    build.pArena = &arena;
    for(r = 0; r < nRow && p->nLeft != 0; r++){
      const HbVal *pOne = &pRes->aChild[r], *pKey = hbField(pOne, 1);
      const HbVal *pCols = hbField(pOne, 2);
      ProtobufCBinaryData key;
      int place, nCell;
      if( pKey == 0 ) continue;
      key.data = (uint8_t*)pKey->a;
      key.len = (size_t)pKey->n;
      if( p->bAfter && p->after.n == (int64_t)key.len
       && memcmp(p->after.a, key.data, key.len) == 0 ){
        continue;       /* given by the last page (reversed) */
      }
      place = placeOf(pR, &key, pRead->reversed);
      if( place < 0 ) continue;
      if( place > 0 ){
        bEnd = 1;
        break;
      }
      p->after.n = 0;
      wcBufAppend(&p->after, key.data, (int64_t)key.len);
      p->bAfter = 1;
      if( pCols && pCols->n > nCellAlloc ){
        nCellAlloc = (int)pCols->n * 2;
        aCell = hbArenaAlloc(&arena, sizeof(HbCell) * (size_t)nCellAlloc);
        if( aCell == 0 ){
          build.bOom = 1;
          break;
        }
      }
      nCell = pCols ? resultCells(pOne, pRead->filter, aCell) : 0;
      if( nCell < 0 ){
        build.bOom = nCell == -1;
        if( nCell == -2 ){
          btStatusSet(pStatus, BT_INTERNAL, "a read filter the HBase store "
                      "does not know");
          hbArenaFree(&arena);
          pendingFree(pDone);
          return -1;
        }
        break;
      }
      if( nCell == 0 ) continue;
      rowChunks(&build, &key, aCell, nCell);
      if( p->nLeft > 0 ) p->nLeft--;
    }
    if( p->after.bOom ) build.bOom = 1;
    if( bEnd || nRow < nPage ){
      p->iRange++;
      p->bAfter = 0;
      p->after.n = 0;
    }
    if( build.bOom ){
      hbArenaFree(&arena);
      pendingFree(pDone);
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
      return -1;
    }
    if( build.nChunk ){
      resp.n_chunks = build.nChunk;
      resp.chunks = build.apChunk;
      *ppMsg = ownMessage(&resp.base);
    }
    hbArenaFree(&arena);
    pendingFree(pDone);
    if( build.nChunk ){
      if( *ppMsg == 0 ){
        btStatusSet(pStatus, BT_INTERNAL, "out of memory");
        return -1;
      }
      return 1;
    }
  }
  return 0;
}

/* mutateRow calls in flight at once, over HB_LANES connections: no call
** waits for the round trip of the one before, and HBase applies those of
** different lanes side by side (Thrift2 has no call that mutates several
** rows, so a row that deletes is a call of its own). */
#define HB_PIPELINE 256

/* Entries i..j-1 (at most HB_PIPELINE), each a mutateRow, sent back to
** back, each row on the lane its key hashes to (so that two writes of one
** row keep their order), then answered in order: each entry's status set
** in aSt, a message of a failure in azMsg. */
static void mutateRowsPipelined(BtStream *p, size_t i, size_t j,
                                Wcbt__Status *aSt, char **azMsg){
  const Wcbt__MutateRowsRequest *pReq = (const Wcbt__MutateRowsRequest*)p->pReq;
  BtPending *apSent[HB_PIPELINE];
  size_t k;
  wcAssert( j > i && j - i <= HB_PIPELINE );
  for(k = i; k < j; k++){
    const Wcbt__MutateRowsRequest__Entry *pE = pReq->entries[k];
    WcBuf req = {0, 0, 0, 0};
    apSent[k - i] = 0;
    aSt[k].code = BT_INTERNAL;
    if( writeMutateRow(&req, pReq->table_name, &pE->row_key, pE->mutations,
                       pE->n_mutations) ){
      azMsg[k] = sqlite3_mprintf("%s", zNoRangeDelete);
    }else{
      BtConn *pLane = connLane(p->pConn, (int)(wcBytesHash(pE->row_key.data,
                                   (int64_t)pE->row_key.len) % HB_LANES));
      apSent[k - i] = pLane ? sendCall(pLane, "mutateRow", pReq->table_name,
                                       &req, &p->wait) : 0;
    }
    wcBufFree(&req);
  }
  for(k = i; k < j; k++){
    if( apSent[k - i] ){
      BtStatus st = {0, 0};
      const HbVal *pRes = 0;
      aSt[k].code = resultOf(apSent[k - i], &pRes, &st);
      if( aSt[k].code != BT_OK ){
        azMsg[k] = sqlite3_mprintf("%s", st.zMsg ? st.zMsg : "failed");
      }
      btStatusClear(&st);
      pendingFree(apSent[k - i]);
    }
    if( aSt[k].code != BT_OK ){
      aSt[k].message = azMsg[k] ? azMsg[k] : (char*)"out of memory";
    }
  }
}

/* Entries i..j-1, each only setting cells, in one putMultiple. */
static void putRun(BtStream *p, size_t i, size_t j, Wcbt__Status *aSt,
                   char **azMsg){
  const Wcbt__MutateRowsRequest *pReq = (const Wcbt__MutateRowsRequest*)p->pReq;
  WcBuf req = {0, 0, 0, 0};
  BtStatus st = {0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  size_t k;
  int code;
  hbWriteCall(&req, "putMultiple", 0);
  hbWriteBinaryField(&req, 1, pReq->table_name,
                     (int64_t)strlen(pReq->table_name));
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, (int32_t)(j - i));
  for(k = i; k < j; k++){
    const Wcbt__MutateRowsRequest__Entry *pK = pReq->entries[k];
    writePut(&req, &pK->row_key, pK->mutations, 0, pK->n_mutations);
  }
  hbWriteStop(&req);
  code = invoke(p->pConn, "putMultiple", pReq->table_name, &req, &p->wait,
                &pDone, &pRes, &st);
  wcBufFree(&req);
  pendingFree(pDone);
  for(k = i; k < j; k++){
    aSt[k].code = code;
    if( code != BT_OK ){
      azMsg[k] = sqlite3_mprintf("%s", st.zMsg ? st.zMsg : "failed");
      aSt[k].message = azMsg[k] ? azMsg[k] : (char*)"out of memory";
    }
  }
  btStatusClear(&st);
}

/* MutateRows: runs of entries that only set cells, one putMultiple each;
** the others mutateRow calls, pipelined; the answer made whole. */
static int mutateAll(BtStream *p, BtStatus *pStatus){
  const Wcbt__MutateRowsRequest *pReq = (const Wcbt__MutateRowsRequest*)p->pReq;
  size_t n = pReq->n_entries, i = 0, k;
  Wcbt__MutateRowsResponse resp = WCBT__MUTATE_ROWS_RESPONSE__INIT;
  Wcbt__MutateRowsResponse__Entry *aE = sqlite3_malloc64(sizeof(*aE) * (n + 1));
  Wcbt__MutateRowsResponse__Entry **apE = sqlite3_malloc64(sizeof(*apE) * (n + 1));
  Wcbt__Status *aSt = sqlite3_malloc64(sizeof(*aSt) * (n + 1));
  char **azMsg = sqlite3_malloc64(sizeof(char*) * (n + 1));
  int rc = 0;
  if( !aE || !apE || !aSt || !azMsg ){
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    rc = -1;
    n = 0;
  }
  for(k = 0; k < n; k++){
    wcbt__mutate_rows_response__entry__init(&aE[k]);
    wcbt__status__init(&aSt[k]);
    aE[k].index = (int64_t)k;
    aE[k].status = &aSt[k];
    apE[k] = &aE[k];
    azMsg[k] = 0;
  }
  while( i < n ){
    const Wcbt__MutateRowsRequest__Entry *pE = pReq->entries[i];
    int bSets = allSets(pE->mutations, pE->n_mutations);
    size_t j = i + 1;
    while( j < n && (bSets || j - i < HB_PIPELINE)
        && allSets(pReq->entries[j]->mutations,
                   pReq->entries[j]->n_mutations) == bSets ){
      j++;
    }
    if( bSets ){
      putRun(p, i, j, aSt, azMsg);
    }else{
      mutateRowsPipelined(p, i, j, aSt, azMsg);
    }
    i = j;
  }
  if( rc == 0 ){
    resp.n_entries = n;
    resp.entries = apE;
    p->pAnswer = ownMessage(&resp.base);
    if( p->pAnswer == 0 ){
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
      rc = -1;
    }
  }
  for(k = 0; k < n; k++) sqlite3_free(azMsg[k]);
  sqlite3_free(aE);
  sqlite3_free(apE);
  sqlite3_free(aSt);
  sqlite3_free(azMsg);
  return rc;
}

/* The rows of a region (up to HB_SAMPLE_ROWS), counted with keys only,
** and their cells' value bytes as Bigtable counts a table's size. */
static int countRegion(BtStream *p, const char *zTable,
                       const ProtobufCBinaryData *pStart,
                       const ProtobufCBinaryData *pEnd, int64_t *pnByte,
                       BtStatus *pStatus){
  static const char zKeys[] = "KeyOnlyFilter(true)";
  WcBuf req = {0, 0, 0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int64_t r, c, nByte = 0;
  int code;
  hbWriteCall(&req, "getScannerResults", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  if( pStart->len ) hbWriteBinaryField(&req, 1, pStart->data, (int64_t)pStart->len);
  if( pEnd->len ) hbWriteBinaryField(&req, 2, pEnd->data, (int64_t)pEnd->len);
  hbWriteI32Field(&req, 4, HB_SAMPLE_ROWS);
  hbWriteBinaryField(&req, 7, zKeys, (int64_t)sizeof(zKeys) - 1);
  hbWriteStop(&req);
  hbWriteI32Field(&req, 3, HB_SAMPLE_ROWS);
  hbWriteStop(&req);
  code = invoke(p->pConn, "getScannerResults", zTable, &req, &p->wait,
                &pDone, &pRes, pStatus);
  wcBufFree(&req);
  for(r = 0; code == BT_OK && pRes && r < pRes->n; r++){
    const HbVal *pCols = hbField(&pRes->aChild[r], 2);
    for(c = 0; pCols && c < pCols->n; c++){
      /* With KeyOnlyFilter(true) a value is its length, 4 bytes. */
      const HbVal *pV = hbField(&pCols->aChild[c], 3);
      if( pV && pV->n == 4 ){
        nByte += ((int64_t)pV->a[0] << 24) | ((int64_t)pV->a[1] << 16)
               | ((int64_t)pV->a[2] << 8) | pV->a[3];
      }
    }
  }
  pendingFree(pDone);
  *pnByte = nByte;
  return code;
}

/* SampleRowKeys: each region's end key (the last region's, the empty key)
** and the bytes up to it. */
static int sampleAll(BtStream *p, BtStatus *pStatus){
  const Wcbt__SampleRowKeysRequest *pReq =
      (const Wcbt__SampleRowKeysRequest*)p->pReq;
  WcBuf req = {0, 0, 0, 0};
  BtPending *pDone = 0;
  const HbVal *pRes = 0;
  int64_t i, n, nTotal = 0;
  int code, rc = 0;
  hbWriteCall(&req, "getAllRegionLocations", 0);
  hbWriteBinaryField(&req, 1, pReq->table_name,
                     (int64_t)strlen(pReq->table_name));
  hbWriteStop(&req);
  code = invoke(p->pConn, "getAllRegionLocations", pReq->table_name, &req,
                &p->wait, &pDone, &pRes, pStatus);
  wcBufFree(&req);
  if( code != BT_OK ){
    pendingFree(pDone);
    return -1;
  }
  n = pRes ? pRes->n : 0;
  p->apAnswer = sqlite3_malloc64(sizeof(ProtobufCMessage*) * (size_t)(n + 1));
  if( p->apAnswer == 0 ){
    pendingFree(pDone);
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return -1;
  }
  for(i = 0; i < n && rc == 0; i++){
    const HbVal *pInfo = hbField(&pRes->aChild[i], 2);
    const HbVal *pS = hbField(pInfo, 3), *pE = hbField(pInfo, 4);
    Wcbt__SampleRowKeysResponse one = WCBT__SAMPLE_ROW_KEYS_RESPONSE__INIT;
    ProtobufCBinaryData start = {0, 0}, end = {0, 0};
    int64_t nByte = 0;
    if( pS ){
      start.data = (uint8_t*)pS->a;
      start.len = (size_t)pS->n;
    }
    if( pE ){
      end.data = (uint8_t*)pE->a;
      end.len = (size_t)pE->n;
    }
    if( countRegion(p, pReq->table_name, &start, &end, &nByte, pStatus)
        != BT_OK ){
      rc = -1;
      break;
    }
    nTotal += nByte;
    one.row_key = end;
    one.offset_bytes = nTotal;
    p->apAnswer[p->nAnswer] = ownMessage(&one.base);
    if( p->apAnswer[p->nAnswer] == 0 ){
      btStatusSet(pStatus, BT_INTERNAL, "out of memory");
      rc = -1;
    }else{
      p->nAnswer++;
    }
  }
  pendingFree(pDone);
  return rc;
}

int btStreamOpen(BtConn *pConn, const char *zMethod, const char *zTable,
                 const ProtobufCMessage *pReq, BtStream **ppStream,
                 BtStatus *pStatus, const BtWait *pWait){
  BtStream *p = sqlite3_malloc(sizeof(*p));
  (void)zTable;
  (void)pStatus;
  *ppStream = p;
  if( p == 0 ) return BT_INTERNAL;
  memset(p, 0, sizeof(*p));
  p->pConn = pConn;
  p->wait = *pWait;
  p->pReq = pReq;
  p->nLeft = -1;
  if( M_SUFFIX(zMethod, "/ReadRows") ){
    const Wcbt__ReadRowsRequest *pRead = (const Wcbt__ReadRowsRequest*)pReq;
    p->eKind = HB_STREAM_READ;
    if( pRead->rows_limit > 0 ) p->nLeft = pRead->rows_limit;
  }else if( M_SUFFIX(zMethod, "/MutateRows") ){
    p->eKind = HB_STREAM_MUTATE;
  }else if( M_SUFFIX(zMethod, "/SampleRowKeys") ){
    p->eKind = HB_STREAM_SAMPLE;
  }
  return BT_OK;
}

/* Builds what a stream gives, at its first btStreamNext(), so that its
** failures are reported where the caller reads them. */
static int streamBegin(BtStream *p, BtStatus *pStatus){
  switch( p->eKind ){
    case HB_STREAM_READ:
      if( readRanges(p, (const Wcbt__ReadRowsRequest*)p->pReq)
       || hbFilterColumns(((const Wcbt__ReadRowsRequest*)p->pReq)->filter,
                          &p->cols) ){
        btStatusSet(pStatus, BT_INTERNAL, "out of memory");
        return -1;
      }
      return 0;
    case HB_STREAM_MUTATE:
      return mutateAll(p, pStatus);
    case HB_STREAM_SAMPLE:
      return sampleAll(p, pStatus);
    default:
      btStatusSet(pStatus, BT_INTERNAL, "a stream the HBase store does not "
                  "make");
      return -1;
  }
}

int btStreamNext(BtStream *p, const ProtobufCMessageDescriptor *pDesc,
                 ProtobufCMessage **ppMsg, BtStatus *pStatus){
  (void)pDesc;
  *ppMsg = 0;
  if( p == 0 ){
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return -1;
  }
  if( p->bDone ) return 0;
  if( !p->bBegun ){
    p->bBegun = 1;
    if( streamBegin(p, pStatus) ){
      p->bDone = 1;
      return -1;
    }
  }
  switch( p->eKind ){
    case HB_STREAM_READ: {
      int r = readNext(p, ppMsg, pStatus);
      if( r <= 0 ) p->bDone = 1;
      return r;
    }
    case HB_STREAM_MUTATE:
      p->bDone = 1;
      *ppMsg = p->pAnswer;
      p->pAnswer = 0;
      return *ppMsg ? 1 : 0;
    default:
      if( p->iAnswer < p->nAnswer ){
        *ppMsg = p->apAnswer[p->iAnswer];
        p->apAnswer[p->iAnswer++] = 0;
        return 1;
      }
      p->bDone = 1;
      return 0;
  }
}

void btStreamClose(BtStream *p){
  int i;
  if( p == 0 ) return;
  sqlite3_free(p->aRange);
  wcBufFree(&p->after);
  hbColumnsFree(&p->cols);
  if( p->pAnswer ) protobuf_c_message_free_unpacked(p->pAnswer, 0);
  for(i = p->iAnswer; i < p->nAnswer; i++){
    if( p->apAnswer[i] ) protobuf_c_message_free_unpacked(p->apAnswer[i], 0);
  }
  sqlite3_free(p->apAnswer);
  sqlite3_free(p);
}
