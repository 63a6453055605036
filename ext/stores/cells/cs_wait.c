/*
** cs_wait.c: how the cell store's calls wait (cs_transport.h): statuses,
** deadlines, and the backoff between attempts of a call.  The
** bottom of the cell store, under the transports too (they use it, and it
** calls neither).
*/
#include "util/wc_api.h"
#include "stores/cells/cs_transport.h"

#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

void csStatusClear(CsStatus *p){
  sqlite3_free(p->zMsg);
  p->zMsg = 0;
  p->code = CS_OK;
}

void csStatusSet(CsStatus *p, int code, const char *zFormat, ...){
  va_list ap;
  if( p == 0 ) return;
  wcAssert( code >= CS_OK && code <= CS_INTERNAL );
  sqlite3_free(p->zMsg);
  va_start(ap, zFormat);
  p->zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  p->code = code;
}

int64_t csNowMicros(const WcKind *pKind){
  int64_t t = wcWallMicros() / pKind->iTimeStep * pKind->iTimeStep;
  wcAssert( pKind->iTimeStep > 0 && t % pKind->iTimeStep == 0 );
  return t;
}

int csInterrupted(const CsWait *pWait){
  return pWait && pWait->xInterrupted && pWait->xInterrupted(pWait->pArg);
}

int csRetryable(int code){
  return code == CS_UNAVAILABLE || code == CS_AGAIN;
}

int64_t csDeadline(const CsWait *pWait){
  int64_t iDeadline = wcMonotonicMs() + (pWait && pWait->nTimeoutMs > 0
                                   ? pWait->nTimeoutMs : CS_DEFAULT_TIMEOUT_MS);
  if( pWait && pWait->iUntilMs > 0 && pWait->iUntilMs < iDeadline ){
    iDeadline = pWait->iUntilMs;
  }
  return iDeadline;
}

int csBackoff(const CsWait *pWait, int nAttempt, int64_t iStartMs){
  int64_t nDelay = 50, iUntil;
  wcAssert( nAttempt >= 1 );
  if( csInterrupted(pWait) ) return CS_CANCELLED;
  while( --nAttempt > 0 && nDelay < CS_MAX_BACKOFF_MS ) nDelay *= 2;
  if( nDelay > CS_MAX_BACKOFF_MS ) nDelay = CS_MAX_BACKOFF_MS;
  iUntil = wcMonotonicMs() + nDelay;
  if( iUntil > iStartMs + pWait->nTimeoutMs ) return CS_DEADLINE;
  while( wcMonotonicMs() < iUntil ){
    struct timespec ts;
    int64_t n = iUntil - wcMonotonicMs();
    if( n > CS_POLL_MS ) n = CS_POLL_MS;
    if( n <= 0 ) break;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)n * 1000000L;
    nanosleep(&ts, 0);
    if( csInterrupted(pWait) ) return CS_CANCELLED;
  }
  if( pWait->pCount ) pWait->pCount->nRetry++;
  return CS_OK;
}

CsWait csRetryWait(const CsWait *pWait, int64_t iStartMs){
  CsWait w = *pWait;
  w.iUntilMs = iStartMs + (pWait->nTimeoutMs > 0 ? pWait->nTimeoutMs
                                                 : CS_DEFAULT_TIMEOUT_MS);
  return w;
}

int64_t csTimeoutFromEnv(const char *zEnv, const char *zEngine,
                         char **pzErr){
  const char *z = getenv(zEnv);
  char *zEnd = 0;
  long long n;
  if( z == 0 || z[0] == 0 ) return CS_DEFAULT_TIMEOUT_MS;
  n = strtoll(z, &zEnd, 10);
  if( zEnd == z || *zEnd != 0 || n < 1 || n > 86400000 ){
    *pzErr = sqlite3_mprintf("%s must be the deadline of a call to %s in "
        "milliseconds, from 1 to 86400000 (a day); it is %Q", zEnv, zEngine,
        z);
    return -1;
  }
  return n;
}
