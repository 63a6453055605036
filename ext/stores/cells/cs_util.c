/*
** cs_util.c: what every file of the cell store uses (see cs_table.h):
** messages, a table's connection and the way its calls wait,
** keys for messages, stamps, engine table names, reads read whole and
** calls made again.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"
#include "util/wc_ask.h"
#include "util/wc_stamp.h"

#include <stdarg.h>
#include <string.h>

int csError(CsTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  sqlite3_free(p->base.zErrMsg);
  va_start(ap, zFormat);
  p->base.zErrMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  return p->base.zErrMsg ? rc : SQLITE_NOMEM;
}

int csRpcCode(int code){
  switch( code ){
    case CS_OK:          return SQLITE_OK;
    case CS_CANCELLED:   return SQLITE_INTERRUPT;
    case CS_UNAVAILABLE:
    case CS_DEADLINE:    return SQLITE_IOERR;
    case CS_DENIED:      return SQLITE_AUTH;
    default:             return SQLITE_ERROR;
  }
}

char *csRpcDescribe(CsTable *p, const char *zDoing, int code,
                    const char *zMsg){
  const char *zHint = p->pConn ? p->pT->xHint(p->pConn, code) : "";
  return sqlite3_mprintf("%s %s at %s: %s%s", zDoing, p->args.zResource,
                         p->pConn ? p->pT->xEndpoint(p->pConn) : "?",
                         zMsg ? zMsg : "failed", zHint);
}

int csMaybeApplied(int rc){
  return rc == SQLITE_IOERR || rc == SQLITE_INTERRUPT;
}

int csRpcError(CsTable *p, const char *zDoing, const CsStatus *pStatus){
  char *z = csRpcDescribe(p, zDoing, pStatus->code, pStatus->zMsg);
  int rc;
  if( z == 0 ) return SQLITE_NOMEM;
  rc = csError(p, csRpcCode(pStatus->code), "widecol %s: %s", p->zTable, z);
  sqlite3_free(z);
  return rc;
}

/* The wait's interrupt check (util/wc_ask.h). */
static int probeInterrupted(void *pArg){
  return wcAskInterrupted(((CsTable*)pArg)->pProbe);
}

int csTableConnect(CsTable *p){
  char *zErr = 0;
  if( p->pConn ) return SQLITE_OK;
  if( p->pT->xOpen(&p->pConn, &zErr) != CS_OK ){
    int rc = csError(p, SQLITE_ERROR, "%s", zErr ? zErr : "out of memory");
    sqlite3_free(zErr);
    wcAssert( p->pConn == 0 );
    return rc;
  }
  p->wait.nTimeoutMs = p->pT->xTimeoutMs(p->pConn);
  p->wait.pCount = &p->count;
  p->wait.pArg = p;
  if( p->pProbe == 0
   && sqlite3_prepare_v2(p->db, "SELECT 1", -1, &p->pProbe, 0) == SQLITE_OK ){
    p->wait.xInterrupted = probeInterrupted;
  }
  return SQLITE_OK;
}

char *csDescribeKey(const unsigned char *a, size_t n){
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

CsTable *csTableOn(CsTxn *pTxn, const char *zResource){
  CsTable *pT;
  for(pT = pTxn->pTables; pT; pT = pT->pNextTable){
    if( strcmp(pT->args.zResource, zResource) == 0 ) return pT;
  }
  return 0;
}

void csNewStamp(unsigned char *aOut){
  wcStampNew(aOut);
}

void csVersionKey(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                  int64_t iMicros){
  unsigned char a[8];
  int i;
  for(i = 0; i < 8; i++){
    a[i] = (unsigned char)((uint64_t)iMicros >> (56 - 8 * i));
  }
  wcBufAppend(pOut, aKey, nKey);
  wcBufAppend(pOut, a, 8);
}

const char *csResourceId(const CsTable *p, const char *zRes){
  return wcKindTableId(p->pT->pKind, zRes);
}

char *csResourceSibling(const CsTable *p, const char *zRes, const char *zId){
  return sqlite3_mprintf("%.*s%s", (int)(csResourceId(p, zRes) - zRes), zRes,
                         zId);
}

const CsColumn csMarkerColumn = {
  WC_DEFAULT_FAMILY, { (const unsigned char*)"", 0 }
};

/* One attempt of csReadAll(). */
static int readOnce(CsTable *p, const CsRead *pRead, const CsWait *pWait,
                    const CsRowSink *pSink, CsStatus *pSt){
  CsReader *pReader = 0;
  const CsRow *pRow;
  int r;
  pSink->xBegin(pSink->pCtx);
  p->pT->xReadOpen(p->pConn, pRead, pWait, &pReader);
  while( (r = p->pT->xReadNext(pReader, &pRow, pSt)) == 1 ){
    pSink->xRow(pSink->pCtx, pRow);
  }
  p->pT->xReadClose(pReader);
  return r < 0 ? pSt->code : CS_OK;
}

int csReadAll(CsTable *p, const CsRead *pRead, const CsWait *pWait,
              const CsRowSink *pSink, CsStatus *pSt){
  int64_t iStart = wcMonotonicMs();
  CsWait w = csRetryWait(pWait, iStart);
  int code, nAttempt = 0;
  while( (code = readOnce(p, pRead, &w, pSink, pSt)) != CS_OK
      && csRetryable(code)
      && csBackoff(pWait, ++nAttempt, iStart) == CS_OK ){
    csStatusClear(pSt);
    p->pT->xRetryNow(p->pConn);
  }
  return code;
}

int csRetry(CsTable *p, const CsWait *pWait,
            int (*xAttempt)(CsTable*, void*, const CsWait*, CsStatus*),
            void *pArg, CsStatus *pSt){
  int64_t iStart = wcMonotonicMs();
  CsWait w = csRetryWait(pWait, iStart);
  int nAttempt = 0, code;
  for(;;){
    code = xAttempt(p, pArg, &w, pSt);
    if( !csRetryable(code) || csBackoff(pWait, ++nAttempt, iStart) != CS_OK ){
      return code;
    }
    csStatusClear(pSt);
    p->pT->xRetryNow(p->pConn);
  }
}
