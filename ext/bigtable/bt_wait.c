/*
** bt_wait.c: what every transport of the cell store shares (bt_rpc.h):
** statuses, the clock, the backoff between attempts of a call, and
** resource names.  Below
** the transports (bt_rpc.c, gRPC to Bigtable; ext/hbase/hb_rpc.c, Thrift
** to HBase), so that they use it and it calls neither.
*/
#include "bigtable/bt_rpc.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void btStatusClear(BtStatus *p){
  sqlite3_free(p->zMsg);
  p->zMsg = 0;
  p->code = 0;
}

void btStatusSet(BtStatus *p, int code, const char *zFormat, ...){
  va_list ap;
  if( p == 0 ) return;
  sqlite3_free(p->zMsg);
  va_start(ap, zFormat);
  p->zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  p->code = code;
}

int64_t btNowMs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int btInterrupted(const BtWait *pWait){
  return pWait && pWait->xInterrupted && pWait->xInterrupted(pWait->pArg);
}

int btRetryable(int code){
  return code == BT_UNAVAILABLE || code == BT_ABORTED;
}

int btBackoff(const BtWait *pWait, int nAttempt, int64_t iStartMs){
  int64_t nDelay = 50, iUntil;
  if( btInterrupted(pWait) ) return BT_CANCELLED;
  while( --nAttempt > 0 && nDelay < BT_MAX_BACKOFF_MS ) nDelay *= 2;
  if( nDelay > BT_MAX_BACKOFF_MS ) nDelay = BT_MAX_BACKOFF_MS;
  iUntil = btNowMs() + nDelay;
  if( iUntil > iStartMs + pWait->nTimeoutMs ) return BT_DEADLINE_EXCEEDED;
  while( btNowMs() < iUntil ){
    struct timespec ts;
    int64_t n = iUntil - btNowMs();
    if( n > BT_POLL_MS ) n = BT_POLL_MS;
    if( n <= 0 ) break;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)n * 1000000L;
    nanosleep(&ts, 0);
    if( btInterrupted(pWait) ) return BT_CANCELLED;
  }
  return BT_OK;
}

BtWait btRetryWait(const BtWait *pWait, int64_t iStartMs){
  BtWait w = *pWait;
  w.iUntilMs = iStartMs + (pWait->nTimeoutMs > 0 ? pWait->nTimeoutMs
                                                 : BT_DEFAULT_TIMEOUT_MS);
  return w;
}


/* Where the table's id starts in zRes, and the separator's length. */
static const char *idOf(const char *zRes, size_t *pnSep){
  const char *z = strstr(zRes, "/tables/");
  if( z ){
    *pnSep = 8;
    return z + 8;
  }
  z = strchr(zRes, ':');
  *pnSep = z ? 1 : 0;
  return z ? z + 1 : zRes;
}

const char *btResourceId(const char *zRes){
  size_t nSep;
  return idOf(zRes, &nSep);
}

char *btResourceParent(const char *zRes){
  size_t nSep;
  const char *zId = idOf(zRes, &nSep);
  return sqlite3_mprintf("%.*s", (int)(zId - zRes - (int)nSep), zRes);
}

char *btResourceSibling(const char *zRes, const char *zId){
  return sqlite3_mprintf("%.*s%s", (int)(btResourceId(zRes) - zRes), zRes,
                         zId);
}

int64_t btTimeoutFromEnv(const char *zEnv, const char *zEngine,
                         char **pzErr){
  const char *z = getenv(zEnv);
  char *zEnd = 0;
  long long n;
  if( z == 0 || z[0] == 0 ) return BT_DEFAULT_TIMEOUT_MS;
  n = strtoll(z, &zEnd, 10);
  if( zEnd == z || *zEnd != 0 || n < 1 || n > 86400000 ){
    *pzErr = sqlite3_mprintf("%s must be the deadline of a call to %s in "
        "milliseconds, from 1 to 86400000 (a day); it is %Q", zEnv, zEngine,
        z);
    return -1;
  }
  return n;
}
