/*
** cq_conn.c: the connection a database's tables share (opened at the
** first call, from WIDECOL_CASSANDRA, WIDECOL_CASSANDRA_CONSISTENCY and
** WIDECOL_CASSANDRA_PROTOCOL),
** each call's deadline, and what a failed call becomes: an SQLite code
** chosen by what failed, and a message naming the table, the endpoint and
** what to do.  A call whose connection failed under it (CqShared.bLost)
** is made again on a new one, where that is safe (reads, schema calls
** that say IF [NOT] EXISTS), up to CQ_ATTEMPTS times in all, further
** apart each time (cqRetry()); cq_write.c settles writes so.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "util/wc_ask.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int interrupted(void *pArg){
  return wcAskInterrupted((sqlite3_stmt*)pArg);
}

/* A call's deadline; pProbe tells whether the statement was interrupted. */
static WcDeadline deadline(sqlite3_stmt *pProbe){
  WcDeadline d;
  d.iUntilMs = wcMonotonicMs() + CQ_TIMEOUT_MS;
  d.xInterrupted = interrupted;
  d.pArg = pProbe;
  return d;
}

static const struct { const char *zName; int e; } aConsistency[] = {
  { "ONE", CQ_ONE }, { "QUORUM", CQ_QUORUM }, { "ALL", CQ_ALL },
  { "LOCAL_QUORUM", CQ_LOCAL_QUORUM }, { "LOCAL_ONE", CQ_LOCAL_ONE },
};

/* Connects p, if it is not: SQLITE_OK, or an error with *pzErr set. */
static int sharedConnect(CqShared *p, sqlite3_stmt *pProbe, char **pzErr){
  const char *zAt = getenv(CQ_ENV), *zLevel = getenv(CQ_CONSISTENCY_ENV);
  const char *zProtocol = getenv(CQ_PROTOCOL_ENV);
  int iVersion = 0, nHost = 0, port = 0;
  char *zHost;
  size_t i;
  int rc;
  WcDeadline d;
  if( p->pConn ) return SQLITE_OK;
  p->bLost = 0;
  if( !wcSockAddress(zAt, &nHost, &port) ){
    *pzErr = zAt && zAt[0]
      ? sqlite3_mprintf(CQ_ENV " must be host:port of Cassandra's native "
                        "transport (its CQL port, 9042 by default); it is %Q",
                        zAt)
      : sqlite3_mprintf("no Cassandra: set " CQ_ENV "=host:port to a node's "
          "CQL port (127.0.0.1:9042; sh tests/servers/cassandra.sh start "
          "prints it for the Cassandra of widecol's tests)");
    return SQLITE_CANTOPEN;
  }
  p->eConsistency = CQ_ONE;
  if( zLevel && zLevel[0] ){
    for(i = 0; i < sizeof(aConsistency) / sizeof(aConsistency[0]); i++){
      if( sqlite3_stricmp(zLevel, aConsistency[i].zName) == 0 ) break;
    }
    if( i == sizeof(aConsistency) / sizeof(aConsistency[0]) ){
      *pzErr = sqlite3_mprintf(CQ_CONSISTENCY_ENV " is %Q; it may be ONE "
          "(the default), QUORUM, ALL, LOCAL_QUORUM or LOCAL_ONE", zLevel);
      return SQLITE_ERROR;
    }
    p->eConsistency = aConsistency[i].e;
  }
  if( zProtocol && zProtocol[0] ){
    if( strcmp(zProtocol, "4") && strcmp(zProtocol, "5") ){
      *pzErr = sqlite3_mprintf(CQ_PROTOCOL_ENV " is %Q; it may be 4 or 5 (the "
          "native protocol's version; unset: 5 where the node speaks it, "
          "else 4)", zProtocol);
      return SQLITE_ERROR;
    }
    iVersion = zProtocol[0] - '0';
  }
  sqlite3_free(p->zEndpoint);
  p->zEndpoint = sqlite3_mprintf("%s", zAt);
  zHost = sqlite3_mprintf("%.*s", nHost, zAt);
  if( p->zEndpoint == 0 || zHost == 0 ){
    sqlite3_free(zHost);
    return SQLITE_NOMEM;
  }
  d = deadline(pProbe);
  rc = cqOpen(&p->pConn, zHost, port, iVersion, &d, pzErr);
  p->iConn++;
  p->bLost = rc == WC_SOCK_IO;
  sqlite3_free(zHost);
  if( rc == WC_SOCK_NOMEM ) return SQLITE_NOMEM;
  if( rc ){
    char *zWhy = *pzErr;
    *pzErr = sqlite3_mprintf("no Cassandra at %s (" CQ_ENV "): %s; start "
        "it, or set " CQ_ENV " to a node's CQL port", zAt,
        zWhy ? zWhy : "it does not answer");
    sqlite3_free(zWhy);
    return rc == WC_SOCK_CANCELLED ? SQLITE_INTERRUPT : SQLITE_CANTOPEN;
  }
  return SQLITE_OK;
}

int cqWidecolNameLen(const CqTable *p){
  int n = (int)strlen(p->zName), nSuffix = (int)strlen(p->zSuffix);
  return n > nSuffix ? n - nSuffix : n;
}

/* Sets the table's error message; returns rc. */
int cqTableError(CqTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  char *zMsg;
  va_start(ap, zFormat);
  zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = sqlite3_mprintf("widecol %.*s: %z", cqWidecolNameLen(p),
                                    p->zName, zMsg);
  return rc;
}

/* What a failed call becomes: an SQLite code chosen by what failed, and a
** message naming the table, the endpoint and what to do.  A failure of
** the connection closes it (the next call opens another). */
int cqCallError(CqTable *p, int rc, CqResult *pRes, const char *zDoing){
  CqShared *pSh = p->pShared;
  const char *zAt = pSh->zEndpoint ? pSh->zEndpoint : "?";
  int rcSql;
  if( rc == WC_SOCK_NOMEM ) return SQLITE_NOMEM;
  if( rc != CQ_ERR_SERVER ){
    cqClose(pSh->pConn);
    pSh->pConn = 0;
  }
  pSh->bLost = rc == WC_SOCK_IO;
  switch( rc ){
    case WC_SOCK_CANCELLED:
      return cqTableError(p, SQLITE_INTERRUPT, "%s was interrupted; Cassandra "
                        "at %s may have done it", zDoing, zAt);
    case WC_SOCK_TIMEOUT:
      return cqTableError(p, SQLITE_BUSY, "Cassandra at %s did not answer %s "
                        "within %d s; if it was a write, it may have been "
                        "applied: read the row back before writing it again",
                        zAt, zDoing, CQ_TIMEOUT_MS / 1000);
    case WC_SOCK_IO:
      return cqTableError(p, SQLITE_IOERR, "the connection to Cassandra at %s "
                        "failed during %s (is the node up?); if it was a "
                        "write, it may have been applied", zAt, zDoing);
    case CQ_ERR_PROTOCOL:
      return cqTableError(p, SQLITE_PROTOCOL, "Cassandra at %s answered %s "
                        "with what CQL's native protocol does not allow (a "
                        "frame whose checksum failed, say)", zAt, zDoing);
  }
  switch( pRes->iError ){
    case CQ_UNAVAILABLE:
    case CQ_OVERLOADED:
    case CQ_READ_TIMEOUT:
    case CQ_READ_FAILURE:
      rcSql = SQLITE_BUSY;
      break;
    case CQ_WRITE_TIMEOUT:
      return cqTableError(p, SQLITE_IOERR, "Cassandra at %s timed out on %s "
          "(a %s write, %d of %d replicas answered): it may have been "
          "applied; read the row back before writing it again: %s", zAt,
          zDoing, pRes->zWriteType ? pRes->zWriteType : "?",
          pRes->nReceived, pRes->nBlockFor, pRes->zError);
    case CQ_WRITE_FAILURE:
      rcSql = SQLITE_IOERR;
      break;
    default:
      rcSql = SQLITE_ERROR;
  }
  return cqTableError(p, rcSql, "Cassandra at %s refused %s: %s%s", zAt,
                    zDoing, pRes->zError ? pRes->zError : "",
                    rcSql == SQLITE_BUSY ? " (start the nodes that are down, "
                    "or set " CQ_CONSISTENCY_ENV " to a level they can meet)"
                    : "");
}

int cqConnection(CqTable *p, CqConn **ppConn){
  char *zErr = 0;
  int rc = sharedConnect(p->pShared, p->pProbe, &zErr);
  *ppConn = p->pShared->pConn;
  if( rc != SQLITE_OK && zErr ) cqTableError(p, rc, "%z", zErr);
  return rc;
}

WcDeadline cqDeadline(CqTable *p){
  return deadline(p->pProbe);
}

int cqRetry(CqTable *p, int nAttempt){
  int64_t nDelay = (int64_t)CQ_FIRST_BACKOFF_MS << (nAttempt - 1), iUntil;
  wcAssert( nAttempt >= 1 );
  if( !p->pShared->bLost || nAttempt >= CQ_ATTEMPTS ) return 0;
  if( nDelay > CQ_MAX_BACKOFF_MS ) nDelay = CQ_MAX_BACKOFF_MS;
  iUntil = wcMonotonicMs() + nDelay;
  while( wcMonotonicMs() < iUntil ){
    struct timespec ts;
    int64_t n = iUntil - wcMonotonicMs();
    if( wcAskInterrupted(p->pProbe) ) return 0;
    if( n > WC_SOCK_POLL_MS ) n = WC_SOCK_POLL_MS;
    if( n <= 0 ) break;
    ts.tv_sec = 0;
    ts.tv_nsec = (long)n * 1000000L;
    nanosleep(&ts, 0);
  }
  p->count.nRetry++;
  /* The failure is forgotten: the next attempt's is reported. */
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = 0;
  return 1;
}

int cqPrepared(CqTable *p, const char *zCql, CqStmt **ppStmt, CqResult *pRes){
  WcDeadline d = deadline(p->pProbe);
  int rc = cqPrepare(p->pShared->pConn, zCql, &d, ppStmt, pRes);
  return rc ? cqCallError(p, rc, pRes, "preparing a statement") : SQLITE_OK;
}

int cqReady(CqTable *p, const char *zCql, CqConn **ppConn, CqStmt **ppStmt){
  int nAttempt = 1, rc;
  do{
    CqResult res;
    memset(&res, 0, sizeof(res));
    rc = cqConnection(p, ppConn);
    if( rc == SQLITE_OK ) rc = cqPrepared(p, zCql, ppStmt, &res);
    cqResultClear(&res);
  }while( rc != SQLITE_OK && cqRetry(p, nAttempt++) );
  return rc;
}

void cqCountRequest(CqTable *p, const CqConn *pConn){
  p->count.nRpc++;
  p->count.nByteOut += cqRequestBytes(pConn);
}

void cqCountReply(CqTable *p, const CqResult *pRes){
  p->count.nMsgIn++;
  p->count.nByteIn += CQ_REPLY_BYTES(pRes);
  if( pRes->eKind == CQ_RESULT_ROWS ) p->count.nRowIn += pRes->nRow;
}

/* One attempt of cqRunCql(). */
static int runCqlOnce(CqTable *p, const char *zCql, const char *zDoing,
                      CqResult *pRes){
  CqConn *pConn;
  WcDeadline d;
  int rc = cqConnection(p, &pConn);
  memset(pRes, 0, sizeof(*pRes));
  if( rc != SQLITE_OK ) return rc;
  d = deadline(p->pProbe);
  rc = cqQuery(pConn, zCql, p->pShared->eConsistency, &d, pRes);
  cqCountRequest(p, pConn);
  if( rc == 0 ) cqCountReply(p, pRes);
  return rc ? cqCallError(p, rc, pRes, zDoing) : SQLITE_OK;
}

int cqRunCql(CqTable *p, const char *zCql, const char *zDoing,
             CqResult *pRes){
  int nAttempt = 1, rc;
  while( (rc = runCqlOnce(p, zCql, zDoing, pRes)) != SQLITE_OK
      && cqRetry(p, nAttempt++) ){
    cqResultClear(pRes);
  }
  return rc;
}

/* Prepares and runs zCql with aVal (a page of nPage rows from aPaging). */
int cqRunPrepared(CqTable *p, const char *zCql, const CqValue *aVal,
                  int nVal, int eConsistency, int nPage,
                  const unsigned char *aPaging, int nPaging,
                  const char *zDoing, CqResult *pRes){
  CqConn *pConn;
  CqStmt *pStmt = 0;
  WcDeadline d;
  int rc = cqConnection(p, &pConn);
  memset(pRes, 0, sizeof(*pRes));
  if( rc == SQLITE_OK ) rc = cqPrepared(p, zCql, &pStmt, pRes);
  if( rc != SQLITE_OK ) return rc;
  d = deadline(p->pProbe);
  if( eConsistency == CQ_LEVEL_SET ) eConsistency = p->pShared->eConsistency;
  rc = cqExecute(pConn, pStmt, aVal, nVal, eConsistency, nPage, aPaging,
                 nPaging, &d, pRes);
  cqCountRequest(p, pConn);
  if( rc == 0 ) cqCountReply(p, pRes);
  return rc ? cqCallError(p, rc, pRes, zDoing) : SQLITE_OK;
}

int cqRunRead(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const char *zDoing, CqResult *pRes){
  int nAttempt = 1, rc;
  while( (rc = cqRunPrepared(p, zCql, aVal, nVal, eConsistency, nPage,
                             aPaging, nPaging, zDoing, pRes)) != SQLITE_OK
      && cqRetry(p, nAttempt++) ){
    cqResultClear(pRes);
  }
  return rc;
}
