/*
** cq_conn.c: calls routed to the nodes of the cluster (cq_cluster.c) a
** database's tables share, read at the first call from WIDECOL_CASSANDRA
** (contact points), WIDECOL_CASSANDRA_CONSISTENCY, _SERIAL_CONSISTENCY,
** _PROTOCOL and _TIMEOUT_MS; each request's deadline; and what a failed
** call becomes: an SQLite code chosen by what failed, and a message
** naming the table, the node and what to do.
**
** A call with a partition goes to a replica of its token (the token of
** the values its PREPARED metadata says make the partition key; the
** first call of a statement, before any node prepared it, goes to any
** node).  A connection per node, opened at its first call; many requests
** in flight on each.  A call whose node failed under it (its connection
** closed or timed out, or the node answered that it is overloaded or
** starting, or that too few replicas answered in time: CqShared.bLost)
** is made again on the next node of its plan where that is safe (reads,
** schema calls that say IF [NOT] EXISTS), up to CQ_ATTEMPTS times in all,
** waiting only where every node is down (cqRetry()); cq_write.c settles
** writes so.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/rk_token.h"
#include "util/wc_ask.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Schema agreement after DDL: asked this often, for this long at most. */
#define CQ_AGREE_POLL_MS 200
#define CQ_AGREE_MS 30000
#define CQ_AGREE_ASK_MS 5000  /* A node's schema version: its wait */
#define CQ_AGREE_TRIES 3      /* Failures to answer before it is skipped */

static const struct { const char *zName; int e; } aConsistency[] = {
  { "LOCAL_QUORUM", CQ_LOCAL_QUORUM }, { "QUORUM", CQ_QUORUM },
  { "ALL", CQ_ALL }, { "ONE", CQ_ONE }, { "LOCAL_ONE", CQ_LOCAL_ONE },
  { "LOCAL_SERIAL", CQ_LOCAL_SERIAL }, { "SERIAL", CQ_SERIAL },
};
#define CQ_N_LEVEL 5      /* aConsistency[0..5) are reads' and writes' */

const char *cqLevelName(int eLevel){
  size_t i;
  for(i = 0; i < sizeof(aConsistency) / sizeof(aConsistency[0]); i++){
    if( aConsistency[i].e == eLevel ) return aConsistency[i].zName;
  }
  return "?";
}

/* The level environment variable zEnv names among aConsistency[iFirst..
** iLast), or eDefault where it is unset: SQLITE_OK, or an error. */
static int levelFromEnv(const char *zEnv, size_t iFirst, size_t iLast,
                        int eDefault, int *peLevel, char **pzErr){
  const char *z = getenv(zEnv);
  size_t i;
  sqlite3_str *pAllowed;
  wcAssert( iFirst < iLast
            && iLast <= sizeof(aConsistency) / sizeof(aConsistency[0]) );
  *peLevel = eDefault;
  if( z == 0 || z[0] == 0 ) return SQLITE_OK;
  for(i = iFirst; i < iLast; i++){
    if( sqlite3_stricmp(z, aConsistency[i].zName) == 0 ){
      *peLevel = aConsistency[i].e;
      return SQLITE_OK;
    }
  }
  pAllowed = sqlite3_str_new(0);
  for(i = iFirst; i < iLast; i++){
    sqlite3_str_appendf(pAllowed, "%s%s%s", i > iFirst ? (i + 1 < iLast
                        ? ", " : " or ") : "", aConsistency[i].zName,
                        i == iFirst ? " (the default)" : "");
  }
  *pzErr = sqlite3_mprintf("%s is %Q; it may be %z", zEnv, z,
                           sqlite3_str_finish(pAllowed));
  return SQLITE_ERROR;
}

/* Reads the settings, once: SQLITE_OK, or an error with *pzErr set. */
static int readSettings(CqShared *p, char **pzErr){
  const char *zProtocol = getenv(CQ_PROTOCOL_ENV);
  const char *zTimeout = getenv(CQ_TIMEOUT_ENV);
  int rc;
  if( p->bSet ) return SQLITE_OK;
  rc = cqClusterContacts(&p->cluster, getenv(CQ_ENV), pzErr);
  if( rc == SQLITE_OK ){
    rc = levelFromEnv(CQ_CONSISTENCY_ENV, 0, CQ_N_LEVEL, CQ_LOCAL_QUORUM,
                      &p->eConsistency, pzErr);
  }
  if( rc == SQLITE_OK ){
    rc = levelFromEnv(CQ_SERIAL_ENV, CQ_N_LEVEL, CQ_N_LEVEL + 2,
                      CQ_LOCAL_SERIAL, &p->eSerial, pzErr);
  }
  if( rc == SQLITE_OK && zProtocol && zProtocol[0] ){
    if( strcmp(zProtocol, "4") && strcmp(zProtocol, "5") ){
      *pzErr = sqlite3_mprintf(CQ_PROTOCOL_ENV " is %Q; it may be 4 or 5 (the "
          "native protocol's version; unset: 5 where the node speaks it, "
          "else 4)", zProtocol);
      rc = SQLITE_ERROR;
    }
    p->iVersion = zProtocol[0] - '0';
  }
  p->nTimeoutMs = CQ_REQUEST_MS;
  if( rc == SQLITE_OK && zTimeout && zTimeout[0] ){
    char *zEnd = 0;
    long long n = strtoll(zTimeout, &zEnd, 10);
    if( zEnd == zTimeout || *zEnd || n < 1 || n > 3600000 ){
      *pzErr = sqlite3_mprintf(CQ_TIMEOUT_ENV " is %Q; it must be the "
          "milliseconds a request waits for a node's answer before the node "
          "is taken as down, 1 to 3600000 (unset: %d)", zTimeout,
          CQ_REQUEST_MS);
      rc = SQLITE_ERROR;
    }
    p->nTimeoutMs = n;
  }
  if( rc != SQLITE_OK ){
    cqClusterFree(&p->cluster);
    return rc;
  }
  p->cluster.nWaitMs = p->nTimeoutMs;
  p->bSet = 1;
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

const char *cqNodeName(CqTable *p, const CqLink *pLink){
  const CqCluster *pC = &p->pShared->cluster;
  return pLink && pLink->iNode >= 0 && pLink->iNode < pC->nNode
       ? pC->aNode[pLink->iNode].zAt : "?";
}

/* Whether a server's error says the node (not the statement) failed, so
** that another node may do: it is overloaded or still starting, or too
** few replicas answered it in time (a write's outcome is then unknown:
** cq_write.c settles it). */
static int nodeFailure(int iError){
  return iError == CQ_OVERLOADED || iError == CQ_BOOTSTRAPPING
      || iError == CQ_READ_TIMEOUT || iError == CQ_WRITE_TIMEOUT
      || iError == CQ_CAS_UNKNOWN;
}

/* Unavailable: too few replicas alive for the consistency asked. */
static int unavailable(CqTable *p, const CqLink *pLink, CqResult *pRes,
                       const char *zDoing){
  return cqTableError(p, SQLITE_BUSY, "Cassandra at %s refused %s: "
      "consistency %s needs %d replica%s alive and the node knows of %d "
      "(start the nodes that are down, or set " CQ_CONSISTENCY_ENV " to a "
      "level they can meet: ONE needs one)", cqNodeName(p, pLink), zDoing,
      cqLevelName(pRes->eLevel), pRes->nBlockFor,
      pRes->nBlockFor == 1 ? "" : "s", pRes->nReceived);
}

/* What a failed call becomes: an SQLite code chosen by what failed, and a
** message naming the table, the node and what to do.  A failure of the
** connection closes it (the next call opens another) and takes its node
** as down for a while. */
int cqCallError(CqTable *p, const CqLink *pLink, int rc, CqResult *pRes,
                const char *zDoing){
  CqShared *pSh = p->pShared;
  const char *zAt = cqNodeName(p, pLink);
  int rcSql, iNode = pLink ? pLink->iNode : -1;
  wcAssert( iNode >= -1 && iNode < pSh->cluster.nNode );
  if( rc == WC_SOCK_NOMEM ) return SQLITE_NOMEM;
  pSh->bLost = rc == WC_SOCK_IO || rc == WC_SOCK_TIMEOUT
            || (rc == CQ_ERR_SERVER && nodeFailure(pRes->iError));
  if( iNode >= 0 && cqLinked(p, pLink) ){
    if( rc != CQ_ERR_SERVER ){
      cqNodeFailed(&pSh->cluster, iNode, 1);
    }else if( pRes->iError == CQ_OVERLOADED
           || pRes->iError == CQ_BOOTSTRAPPING ){
      cqNodeFailed(&pSh->cluster, iNode, 0);
    }
  }
  switch( rc ){
    case WC_SOCK_CANCELLED:
      return cqTableError(p, SQLITE_INTERRUPT, "%s was interrupted; Cassandra "
                        "at %s may have done it", zDoing, zAt);
    case WC_SOCK_TIMEOUT:
      return cqTableError(p, SQLITE_BUSY, "Cassandra at %s did not answer %s "
                        "within %lld ms (" CQ_TIMEOUT_ENV "); if it was a "
                        "write, it may have been applied: read the row back "
                        "before writing it again", zAt, zDoing,
                        (long long)pSh->nTimeoutMs);
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
      return unavailable(p, pLink, pRes, zDoing);
    case CQ_OVERLOADED:
    case CQ_BOOTSTRAPPING:
    case CQ_READ_TIMEOUT:
    case CQ_READ_FAILURE:
      rcSql = SQLITE_BUSY;
      break;
    case CQ_WRITE_TIMEOUT:
      return cqTableError(p, SQLITE_IOERR, "Cassandra at %s timed out on %s "
          "(a %s write at %s, %d of %d replicas answered): it may have been "
          "applied; read the row back before writing it again: %s", zAt,
          zDoing, pRes->zWriteType ? pRes->zWriteType : "?",
          cqLevelName(pRes->eLevel), pRes->nReceived, pRes->nBlockFor,
          pRes->zError);
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

WcDeadline cqDeadline(CqTable *p){
  return cqWaitFor(p->pProbe, p->pShared->nTimeoutMs);
}

int cqSharedOpen(CqShared *pSh, sqlite3_stmt *pProbe, char **pzErr){
  int rc = readSettings(pSh, pzErr);
  pSh->bLost = 0;
  if( rc == SQLITE_OK ){
    rc = cqClusterReady(&pSh->cluster, pProbe, pSh->iVersion, pzErr);
    pSh->bLost = rc == SQLITE_CANTOPEN;
  }
  return rc;
}

int cqClusterOpen(CqTable *p){
  char *zErr = 0;
  int rc = cqSharedOpen(p->pShared, p->pProbe, &zErr);
  if( rc != SQLITE_OK && zErr ) cqTableError(p, rc, "%z", zErr);
  return rc;
}

CqConn *cqLinked(CqTable *p, const CqLink *pLink){
  const CqCluster *pC = &p->pShared->cluster;
  const CqNode *pNode;
  if( pLink->iNode < 0 || pLink->iNode >= pC->nNode ) return 0;
  pNode = &pC->aNode[pLink->iNode];
  /* A link is to a connection that was opened: its number or an older. */
  wcAssert( pLink->iGen <= pNode->iGen );
  return pNode->iGen == pLink->iGen ? pNode->pConn : 0;
}

/* Node iNode's connection, opened if it is not: 0, or WC_SOCK_* (the
** node taken as down) with *pzErr set. */
static int nodeConnection(CqTable *p, int iNode, CqLink *pLink,
                          CqConn **ppConn, char **pzErr){
  CqShared *pSh = p->pShared;
  CqNode *pNode = &pSh->cluster.aNode[iNode];
  int e = 0;
  wcAssert( iNode >= 0 && iNode < pSh->cluster.nNode && !pNode->bGone );
  if( pNode->pConn == 0 ){
    WcDeadline d = cqDeadline(p);
    e = cqOpen(&pNode->pConn, pNode->zHost, pNode->port, pSh->iVersion, &d,
               pzErr);
    pNode->iGen++;
    if( e == 0 ){
      cqNodeAnswered(&pSh->cluster, iNode);
    }else if( e != WC_SOCK_CANCELLED && e != WC_SOCK_NOMEM ){
      cqNodeFailed(&pSh->cluster, iNode, 1);
    }
  }
  pLink->iNode = iNode;
  pLink->iGen = pNode->iGen;
  *ppConn = pNode->pConn;
  return e;
}

int cqPreparedOn(CqTable *p, const CqLink *pLink, const char *zCql,
                 CqStmt **ppStmt){
  WcDeadline d = cqDeadline(p);
  CqConn *pConn = cqLinked(p, pLink);
  CqResult res;
  int e;
  memset(&res, 0, sizeof(res));
  e = pConn ? cqPrepare(pConn, zCql, &d, ppStmt, &res) : WC_SOCK_IO;
  e = e ? cqCallError(p, pLink, e, &res, "preparing a statement") : SQLITE_OK;
  cqResultClear(&res);
  return e;
}

/* One attempt of cqConnectFor(): the first node of the plan whose
** connection opens and takes the statements; node iPrefer (-1: none)
** alone, down or not, where it is one. */
static int connectOnce(CqTable *p, int bToken, int64_t iToken,
                       const char *const *azCql, int nCql, int iPrefer,
                       CqLink *pLink, CqConn **ppConn){
  CqShared *pSh = p->pShared;
  CqCluster *pC = &pSh->cluster;
  CqReplication *pRep = 0;
  sqlite3_str *pWhy;
  int *aiNode, nPlan, k, rc = cqClusterOpen(p);
  if( rc != SQLITE_OK ) return rc;
  if( bToken ) rc = cqReplication(pC, p->pProbe, p->zKeyspace, &pRep);
  aiNode = sqlite3_malloc64(sizeof(int) * (size_t)(pC->nNode + 1));
  if( rc != SQLITE_OK || aiNode == 0 ){
    sqlite3_free(aiNode);
    return SQLITE_NOMEM;
  }
  nPlan = cqClusterPlan(pC, pRep, bToken, iToken, aiNode, pC->nNode);
  wcAssert( nPlan >= 0 && nPlan <= pC->nNode );
  if( iPrefer >= 0 && iPrefer < pC->nNode && !pC->aNode[iPrefer].bGone ){
    aiNode[0] = iPrefer;
    nPlan = 1;
  }
  pWhy = sqlite3_str_new(0);
  rc = SQLITE_CANTOPEN;
  for(k = 0; k < nPlan; k++){
    char *zWhy = 0;
    int e = nodeConnection(p, aiNode[k], pLink, ppConn, &zWhy), i;
    if( e == 0 ){
      for(i = 0, rc = SQLITE_OK; i < nCql && rc == SQLITE_OK; i++){
        CqStmt *pStmt;
        rc = cqPreparedOn(p, pLink, azCql[i], &pStmt);
      }
      if( rc == SQLITE_OK || !pSh->bLost ) break;
      sqlite3_str_appendf(pWhy, "%s%s (%s)", sqlite3_str_length(pWhy) ? ", "
                          : "", cqNodeName(p, pLink), p->base.zErrMsg);
      continue;
    }
    if( e == WC_SOCK_CANCELLED || e == WC_SOCK_NOMEM ){
      sqlite3_free(zWhy);
      rc = e == WC_SOCK_NOMEM ? SQLITE_NOMEM : SQLITE_INTERRUPT;
      break;
    }
    sqlite3_str_appendf(pWhy, "%s%s (%s)", sqlite3_str_length(pWhy) ? ", " : "",
                        pC->aNode[aiNode[k]].zAt, zWhy ? zWhy : "no answer");
    sqlite3_free(zWhy);
  }
  sqlite3_free(aiNode);
  if( rc == SQLITE_CANTOPEN ){
    char *zWhy = sqlite3_str_finish(pWhy);
    pSh->bLost = 1;
    cqTableError(p, rc, "no node of the Cassandra cluster at %s (" CQ_ENV ") "
        "answered: %s; start it, or set " CQ_ENV " to nodes' CQL ports",
        pC->zContacts, zWhy && zWhy[0] ? zWhy : "none is known");
    sqlite3_free(zWhy);
  }else{
    sqlite3_free(sqlite3_str_finish(pWhy));
  }
  return rc;
}

int cqConnectFor(CqTable *p, int bToken, int64_t iToken,
                 const char *const *azCql, int nCql, CqLink *pLink,
                 CqConn **ppConn){
  int nAttempt = 1, rc;
  while( (rc = connectOnce(p, bToken, iToken, azCql, nCql, -1, pLink, ppConn))
         != SQLITE_OK && cqRetry(p, nAttempt++) ){}
  return rc;
}

const CqStmt *cqKnownStatement(CqTable *p, const char *zCql){
  const CqCluster *pC = &p->pShared->cluster;
  int i;
  for(i = 0; i < pC->nNode; i++){
    const CqStmt *pStmt = pC->aNode[i].pConn
                        ? cqFindPrepared(pC->aNode[i].pConn, zCql) : 0;
    if( pStmt ) return pStmt;
  }
  return 0;
}

int cqTokenOf(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int64_t *piToken){
  const CqStmt *pStmt = cqKnownStatement(p, zCql);
  WcBuf key;
  int bKnown;
  memset(&key, 0, sizeof(key));
  bKnown = pStmt && cqRoutingKey(pStmt, aVal, nVal, &key);
  if( bKnown ) *piToken = rkToken(key.a, key.n);
  wcBufFree(&key);
  return bKnown;
}

int cqReady(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
            CqLink *pLink, CqConn **ppConn, CqStmt **ppStmt){
  int64_t iToken = 0;
  int bToken = cqTokenOf(p, zCql, aVal, nVal, &iToken);
  int rc = cqConnectFor(p, bToken, iToken, &zCql, 1, pLink, ppConn);
  if( rc == SQLITE_OK ) rc = cqPreparedOn(p, pLink, zCql, ppStmt);
  return rc;
}

int cqRetry(CqTable *p, int nAttempt){
  CqCluster *pC = &p->pShared->cluster;
  int64_t nDelay = (int64_t)CQ_FIRST_BACKOFF_MS << (nAttempt - 1), iUntil;
  int i, bUp = 0;
  wcAssert( nAttempt >= 1 );
  if( !p->pShared->bLost || nAttempt >= CQ_ATTEMPTS ) return 0;
  for(i = 0; i < pC->nNode && !bUp; i++){
    bUp = !pC->aNode[i].bGone && !pC->aNode[i].bDown;
  }
  /* Another node up: at once.  Else a wait, longer each time. */
  if( nDelay > CQ_MAX_BACKOFF_MS ) nDelay = CQ_MAX_BACKOFF_MS;
  iUntil = bUp ? 0 : wcMonotonicMs() + nDelay;
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

void cqCountRequest(CqTable *p, const CqLink *pLink, const CqConn *pConn){
  CqCluster *pC = &p->pShared->cluster;
  p->count.nRpc++;
  p->count.nByteOut += cqRequestBytes(pConn);
  if( pLink->iNode >= 0 && pLink->iNode < pC->nNode ){
    pC->aNode[pLink->iNode].nRequest++;
  }
}

void cqCountReply(CqTable *p, const CqLink *pLink, const CqResult *pRes){
  CqCluster *pC = &p->pShared->cluster;
  if( pLink && pLink->iNode >= 0 && pLink->iNode < pC->nNode ){
    cqNodeAnswered(pC, pLink->iNode);
  }
  p->count.nMsgIn++;
  p->count.nByteIn += CQ_REPLY_BYTES(pRes);
  if( pRes->eKind == CQ_RESULT_ROWS ) p->count.nRowIn += pRes->nRow;
}

/* Node iNode's schema version (system.local's) into a[0..16), asked
** with a wait of CQ_AGREE_ASK_MS at most: 1, or 0 where it did not say. */
static int schemaVersion(CqTable *p, int iNode, unsigned char *a){
  CqConn *pConn;
  CqLink link;
  CqResult res;
  char *zWhy = 0;
  int n = 0, bGot = 0;
  if( nodeConnection(p, iNode, &link, &pConn, &zWhy) == 0 ){
    WcDeadline d = cqWaitFor(p->pProbe, CQ_AGREE_ASK_MS < p->pShared->nTimeoutMs
                                        ? CQ_AGREE_ASK_MS
                                        : p->pShared->nTimeoutMs);
    const unsigned char *aV;
    int e = cqQuery(pConn, "SELECT schema_version FROM system.local", CQ_ONE,
                    &d, &res);
    if( e == 0 && res.nRow == 1 && (aV = cqCell(&res, 0, 0, &n)) != 0
     && n == 16 ){
      memcpy(a, aV, 16);
      bGot = 1;
      cqNodeAnswered(&p->pShared->cluster, iNode);
    }else if( e && e != CQ_ERR_SERVER ){
      cqNodeFailed(&p->pShared->cluster, iNode, 1);
    }
    cqResultClear(&res);
  }
  sqlite3_free(zWhy);
  return bGot;
}

/* After DDL on node iNode: waits until every node says the schema
** version iNode says (asked of each node itself, since a node's view of
** the others' lags), CQ_AGREE_MS at most, as drivers do.  Each node is
** asked, down or not: a connection that failed (severed, say) is no node
** down, and a node that does not have the change yet refuses the next
** statement ("unconfigured table") or makes the table again with an id of
** its own.  A node that fails to answer CQ_AGREE_TRIES times here is
** taken as down (it takes the schema when it is back); one that answers
** with another version is asked again.  The statements prepared are
** prepared again when next used (Cassandra forgets those of a table
** dropped, and a BATCH of one it forgot is refused whole). */
static void awaitAgreement(CqTable *p, int iNode){
  CqCluster *pC = &p->pShared->cluster;
  int64_t iUntil = wcMonotonicMs() + CQ_AGREE_MS;
  unsigned char aWant[16], aHas[16];
  unsigned char *anFail = sqlite3_malloc64((size_t)pC->nNode + 1);
  int i, bAgree = 0, nTry = 0;
  wcAssert( iNode >= 0 && iNode < pC->nNode );
  for(i = 0; i < pC->nNode; i++) cqPreparedStale(pC->aNode[i].pConn);
  cqForgetReplication(pC, 0);
  if( anFail == 0 ) return;
  while( !schemaVersion(p, iNode, aWant) ){
    if( ++nTry >= CQ_AGREE_TRIES || wcAskInterrupted(p->pProbe) ){
      sqlite3_free(anFail);
      return;
    }
  }
  memset(anFail, 0, (size_t)pC->nNode + 1);
  while( !bAgree && wcMonotonicMs() < iUntil && !wcAskInterrupted(p->pProbe) ){
    bAgree = 1;
    for(i = 0; i < pC->nNode; i++){
      if( i == iNode || pC->aNode[i].bGone || anFail[i] >= CQ_AGREE_TRIES ){
        continue;
      }
      if( !schemaVersion(p, i, aHas) ){
        anFail[i]++;
        bAgree = 0;
      }else if( memcmp(aHas, aWant, 16) ){
        bAgree = 0;
      }
    }
    if( !bAgree ){
      struct timespec ts;
      ts.tv_sec = 0;
      ts.tv_nsec = CQ_AGREE_POLL_MS * 1000000L;
      nanosleep(&ts, 0);
    }
  }
  sqlite3_free(anFail);
}

/* One attempt of cqRunCql(), on node *piNode first where it is one (the
** node of the attempt before), which *piNode is then. */
static int runCqlOnce(CqTable *p, const char *zCql, const char *zDoing,
                      CqResult *pRes, int *piNode){
  CqConn *pConn;
  CqLink link;
  WcDeadline d;
  int rc = connectOnce(p, 0, 0, 0, 0, *piNode, &link, &pConn);
  if( rc == SQLITE_OK ) *piNode = link.iNode;
  memset(pRes, 0, sizeof(*pRes));
  if( rc != SQLITE_OK ) return rc;
  d = cqWaitFor(p->pProbe, CQ_TIMEOUT_MS > p->pShared->nTimeoutMs
                           ? CQ_TIMEOUT_MS : p->pShared->nTimeoutMs);
  rc = cqQuery(pConn, zCql, p->pShared->eConsistency, &d, pRes);
  cqCountRequest(p, &link, pConn);
  if( rc == 0 ) cqCountReply(p, &link, pRes);
  /* DDL, whether it changed the schema or (IF [NOT] EXISTS, made again
  ** after its answer was lost) found it changed: every node must have it
  ** before the next statement. */
  if( rc == 0 && (pRes->eKind == CQ_RESULT_SCHEMA
                  || sqlite3_strnicmp(zCql, "SELECT", 6) != 0) ){
    awaitAgreement(p, link.iNode);
  }
  return rc ? cqCallError(p, &link, rc, pRes, zDoing) : SQLITE_OK;
}

int cqRunCql(CqTable *p, const char *zCql, const char *zDoing,
             CqResult *pRes, int *piNode){
  int nAttempt = 1, rc, iNode = piNode ? *piNode : -1;
  /* DDL made again goes to the node that had it first, and to it alone:
  ** another node may not have its change yet, and would make the table
  ** again, with an id of its own (the cluster then holds two, and refuses
  ** writes to it as INCOMPATIBLE_SCHEMA). */
  while( (rc = runCqlOnce(p, zCql, zDoing, pRes, &iNode)) != SQLITE_OK
      && cqRetry(p, nAttempt++) ){
    cqResultClear(pRes);
  }
  if( piNode ) *piNode = iNode;
  return rc;
}

/* One attempt of a read or a write: prepares and runs zCql with aVal (a
** page of nPage rows from aPaging) on a replica of piRoute's token (NULL:
** of the statement's partition). */
static int runPrepared(CqTable *p, const int64_t *piRoute, const char *zCql,
                       const CqValue *aVal, int nVal, int eConsistency,
                       int nPage, const unsigned char *aPaging, int nPaging,
                       const char *zDoing, CqResult *pRes, CqLink *pLink){
  CqConn *pConn;
  CqStmt *pStmt = 0;
  CqLink link;
  WcDeadline d;
  int rc;
  memset(pRes, 0, sizeof(*pRes));
  if( piRoute ){
    rc = cqConnectFor(p, 1, *piRoute, &zCql, 1, &link, &pConn);
    if( rc == SQLITE_OK ) rc = cqPreparedOn(p, &link, zCql, &pStmt);
  }else{
    rc = cqReady(p, zCql, aVal, nVal, &link, &pConn, &pStmt);
  }
  if( pLink ) *pLink = link;
  if( rc != SQLITE_OK ) return rc;
  d = cqDeadline(p);
  if( eConsistency == CQ_LEVEL_SET ) eConsistency = p->pShared->eConsistency;
  wcAssert( eConsistency > 0 && pStmt != 0 );
  rc = cqExecute(pConn, pStmt, aVal, nVal, eConsistency, nPage, aPaging,
                 nPaging, &d, pRes);
  cqCountRequest(p, &link, pConn);
  if( rc == 0 ) cqCountReply(p, &link, pRes);
  return rc ? cqCallError(p, &link, rc, pRes, zDoing) : SQLITE_OK;
}

int cqRunPrepared(CqTable *p, const char *zCql, const CqValue *aVal,
                  int nVal, int eConsistency, int nPage,
                  const unsigned char *aPaging, int nPaging,
                  const char *zDoing, CqResult *pRes, CqLink *pLink){
  return runPrepared(p, 0, zCql, aVal, nVal, eConsistency, nPage, aPaging,
                     nPaging, zDoing, pRes, pLink);
}

/* A read, made again on another node where its node failed. */
static int runRead(CqTable *p, const int64_t *piRoute, const char *zCql,
                   const CqValue *aVal, int nVal, int eConsistency, int nPage,
                   const unsigned char *aPaging, int nPaging,
                   const char *zDoing, CqResult *pRes, CqLink *pLink){
  int nAttempt = 1, rc;
  while( (rc = runPrepared(p, piRoute, zCql, aVal, nVal, eConsistency, nPage,
                           aPaging, nPaging, zDoing, pRes, pLink))
         != SQLITE_OK && cqRetry(p, nAttempt++) ){
    cqResultClear(pRes);
  }
  return rc;
}

int cqRunRead(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const char *zDoing, CqResult *pRes, CqLink *pLink){
  return runRead(p, 0, zCql, aVal, nVal, eConsistency, nPage, aPaging,
                 nPaging, zDoing, pRes, pLink);
}

int cqRunReadAt(CqTable *p, int64_t iToken, const char *zCql,
                const CqValue *aVal, int nVal, int nPage,
                const unsigned char *aPaging, int nPaging, CqResult *pRes,
                CqLink *pLink){
  return runRead(p, &iToken, zCql, aVal, nVal, CQ_LEVEL_SET, nPage, aPaging,
                 nPaging, "a read", pRes, pLink);
}

int64_t cqSpanEnd(CqTable *p, int64_t iFrom, int64_t iHi){
  CqReplication *pRep = 0;
  char *zErr = 0;
  /* Not known now (the cluster not reached yet): one part; the read
  ** that follows says why. */
  if( cqSharedOpen(p->pShared, p->pProbe, &zErr) != SQLITE_OK
   || cqReplication(&p->pShared->cluster, p->pProbe, p->zKeyspace, &pRep)
      != SQLITE_OK ){
    sqlite3_free(zErr);
    return iHi;
  }
  return cqRunEnd(&p->pShared->cluster, pRep, iFrom, iHi);
}
