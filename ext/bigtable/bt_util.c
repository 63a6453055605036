/*
** bt_util.c: what every file of the widecol_bigtable module uses (see
** bt_table.h): arenas, messages, a table's connection and the way its
** calls wait, keys for messages, stamps, read filters.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"
#include "util/wc_ask.h"
#include "util/wc_stamp.h"

#include <stdarg.h>
#include <string.h>

void *btArenaAlloc(BtArena *p, size_t n){
  BtBlock *pB = p->pHead;
  void *pRet;
  n = (n + 15) & ~(size_t)15;
  if( pB == 0 || pB->nUsed + n > pB->nSize ){
    size_t nSize = n > 65536 ? n : 65536;
    pB = sqlite3_malloc64(sizeof(BtBlock) + 16 + nSize);
    if( pB == 0 ){
      p->bOom = 1;
      return 0;
    }
    pB->nUsed = 0;
    pB->nSize = nSize;
    pB->pNext = p->pHead;
    p->pHead = pB;
  }
  pRet = (char*)pB + ((sizeof(BtBlock) + 15) & ~(size_t)15) + pB->nUsed;
  pB->nUsed += n;
  memset(pRet, 0, n);
  return pRet;
}

void *btArenaCopy(BtArena *p, const void *a, size_t n){
  void *pRet = btArenaAlloc(p, n ? n : 1);
  if( pRet && n ) memcpy(pRet, a, n);
  return pRet;
}

void btArenaFree(BtArena *p){
  while( p->pHead ){
    BtBlock *pB = p->pHead;
    p->pHead = pB->pNext;
    sqlite3_free(pB);
  }
  p->bOom = 0;
}

int btError(BtTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  sqlite3_free(p->base.zErrMsg);
  va_start(ap, zFormat);
  p->base.zErrMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  return p->base.zErrMsg ? rc : SQLITE_NOMEM;
}

int btRpcCode(int code){
  switch( code ){
    case BT_OK:                return SQLITE_OK;
    case BT_CANCELLED:         return SQLITE_INTERRUPT;
    case BT_UNAVAILABLE:
    case BT_DEADLINE_EXCEEDED: return SQLITE_IOERR;
    case BT_PERMISSION_DENIED:
    case BT_UNAUTHENTICATED:   return SQLITE_AUTH;
    default:                   return SQLITE_ERROR;
  }
}

char *btRpcDescribe(BtTable *p, const char *zDoing, int code,
                    const char *zMsg){
  const char *zHint = p->pConn ? btConnHint(p->pConn, code) : "";
  char *zRet = sqlite3_mprintf("%s %s at %s: %s%s", zDoing, p->zResource,
                         p->pConn ? btConnEndpoint(p->pConn) : "?",
                         zMsg ? zMsg : "failed", zHint);
  return zRet;
}

int btMaybeApplied(int rc){
  return rc == SQLITE_IOERR || rc == SQLITE_INTERRUPT;
}

int btRpcError(BtTable *p, const char *zDoing, const BtStatus *pStatus){
  char *z = btRpcDescribe(p, zDoing, pStatus->code, pStatus->zMsg);
  int rc;
  if( z == 0 ) return SQLITE_NOMEM;
  rc = btError(p, btRpcCode(pStatus->code), "widecol %s: %s", p->zTable, z);
  sqlite3_free(z);
  return rc;
}

/* The wait's interrupt check (util/wc_ask.h). */
static int probeInterrupted(void *pArg){
  return wcAskInterrupted(((BtTable*)pArg)->pProbe);
}

int btTableConnect(BtTable *p){
  char *zErr = 0;
  if( p->pConn ) return SQLITE_OK;
  if( btConnOpen(&p->pConn, &zErr) != BT_OK ){
    int rc = btError(p, SQLITE_ERROR, "%s", zErr ? zErr : "out of memory");
    sqlite3_free(zErr);
    return rc;
  }
  p->wait.nTimeoutMs = btConnTimeoutMs(p->pConn);
  p->wait.pCount = &p->count;
  p->wait.pArg = p;
  if( p->pProbe == 0
   && sqlite3_prepare_v2(p->db, "SELECT 1", -1, &p->pProbe, 0) == SQLITE_OK ){
    p->wait.xInterrupted = probeInterrupted;
  }
  return SQLITE_OK;
}

char *btDescribeKey(const unsigned char *a, size_t n){
  sqlite3_str *pStr = sqlite3_str_new(0);
  size_t i;
  int bText = 1;
  for(i = 0; i < n; i++) bText &= a[i] >= 0x20 && a[i] < 0x7F;
  if( bText ){
    sqlite3_str_appendf(pStr, "%.*Q", (int)n, (const char*)a);
  }else{
    sqlite3_str_appendall(pStr, "x'");
    for(i = 0; i < n && i < 64; i++) sqlite3_str_appendf(pStr, "%02x", a[i]);
    sqlite3_str_appendall(pStr, i < n ? "...'" : "'");
  }
  return sqlite3_str_finish(pStr);
}

BtTable *btTableOn(BtTxn *pTxn, const char *zResource){
  BtTable *pT;
  for(pT = pTxn->pTables; pT; pT = pT->pNextTable){
    if( strcmp(pT->zResource, zResource) == 0 ) return pT;
  }
  return 0;
}

void btNewStamp(unsigned char *aOut){
  wcStampNew(aOut);
}

void btVersionKey(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                  int64_t iMicros){
  unsigned char a[8];
  int i;
  for(i = 0; i < 8; i++){
    a[i] = (unsigned char)((uint64_t)iMicros >> (56 - 8 * i));
  }
  wcBufAppend(pOut, aKey, nKey);
  wcBufAppend(pOut, a, 8);
}

void btColumnFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange,
                    const char *zFamily, const char *zQualifier, size_t n){
  wcbt__column_range__init(pRange);
  pRange->family = (char*)zFamily;
  pRange->start_case = WCBT__COLUMN_RANGE__START_START_CLOSED;
  pRange->start_closed.data = (uint8_t*)zQualifier;
  pRange->start_closed.len = n;
  pRange->end_case = WCBT__COLUMN_RANGE__END_END_CLOSED;
  pRange->end_closed = pRange->start_closed;
  wcbt__filter__init(pOut);
  pOut->kind_case = WCBT__FILTER__KIND_COLUMN_RANGE;
  pOut->column_range = pRange;
}

void btMarkerFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange){
  btColumnFilter(pOut, pRange, BT_DEFAULT_FAMILY, "", 0);
}

static int readOnce(BtTable *p, const char *zRes, Wcbt__ReadRowsRequest *pReq,
                    const BtWait *pWait, const BtChunkSink *pSink,
                    BtStatus *pSt){
  BtStream *pStream = 0;
  ProtobufCMessage *pMsg = 0;
  int r;
  pSink->xBegin(pSink->pCtx);
  btStreamOpen(p->pConn, M_READROWS, zRes, &pReq->base, &pStream, pSt, pWait);
  while( (r = btStreamNext(pStream, &wcbt__read_rows_response__descriptor,
                           &pMsg, pSt)) == 1 ){
    Wcbt__ReadRowsResponse *pResp = (Wcbt__ReadRowsResponse*)pMsg;
    size_t c;
    for(c = 0; c < pResp->n_chunks; c++){
      pSink->xChunk(pSink->pCtx, pResp->chunks[c]);
    }
    protobuf_c_message_free_unpacked(pMsg, 0);
  }
  btStreamClose(pStream);
  return r;
}

int btReadAll(BtTable *p, const char *zRes, Wcbt__ReadRowsRequest *pReq,
              const BtWait *pWait, const BtChunkSink *pSink, BtStatus *pSt){
  int64_t iStart = btNowMs();
  BtWait w = btRetryWait(pWait, iStart);
  int r, nAttempt = 0;
  while( (r = readOnce(p, zRes, pReq, &w, pSink, pSt)) < 0
      && btRetryable(pSt->code)
      && btBackoff(pWait, ++nAttempt, iStart) == BT_OK ){
    btStatusClear(pSt);
    btConnRetryNow(p->pConn);
  }
  return r;
}

void btFilterOf(Wcbt__Filter *pOut, int bChain, Wcbt__Filter__List *pList,
                Wcbt__Filter **apPart, int nPart){
  wcbt__filter__list__init(pList);
  pList->n_filters = (size_t)nPart;
  pList->filters = apPart;
  wcbt__filter__init(pOut);
  if( bChain ){
    pOut->kind_case = WCBT__FILTER__KIND_CHAIN;
    pOut->chain = pList;
  }else{
    pOut->kind_case = WCBT__FILTER__KIND_INTERLEAVE;
    pOut->interleave = pList;
  }
}

int btCall(BtConn *pConn, const char *zMethod, const char *zTable,
           const ProtobufCMessage *pReq,
           const ProtobufCMessageDescriptor *pRespDesc,
           ProtobufCMessage **ppResp, BtStatus *pStatus,
           const BtWait *pWait){
  BtPending *p = btCallStart(pConn, zMethod, zTable, pReq, pWait);
  if( p == 0 ){
    *ppResp = 0;
    btStatusSet(pStatus, BT_INTERNAL, "out of memory");
    return BT_INTERNAL;
  }
  return btCallFinish(p, pRespDesc, ppResp, pStatus);
}

int btCallIdempotent(BtConn *pConn, const char *zMethod, const char *zTable,
                     const ProtobufCMessage *pReq,
                     const ProtobufCMessageDescriptor *pRespDesc,
                     ProtobufCMessage **ppResp, BtStatus *pStatus,
                     const BtWait *pWait){
  int64_t iStart = btNowMs();
  BtWait w = btRetryWait(pWait, iStart);
  int nAttempt = 0, code;
  for(;;){
    code = btCall(pConn, zMethod, zTable, pReq, pRespDesc, ppResp, pStatus,
                  &w);
    if( !btRetryable(code) || btBackoff(pWait, ++nAttempt, iStart) != BT_OK ){
      return code;
    }
    btStatusClear(pStatus);
    btConnRetryNow(pConn);
  }
}
