/*
** cq_cluster.c: the Cassandra cluster a database's tables talk to, found
** from its contact points (WIDECOL_CASSANDRA=host:port[,host:port...])
** and followed.  One connection, the control connection, reads every
** node's CQL address, data center, rack and tokens (system.local and
** system.peers_v2, or system.peers before 4.0) and takes the server's
** events (REGISTER): a node that joins, leaves, moves, goes DOWN or comes
** UP is seen at the next call, without waiting (cqClusterReady() reads
** what has come, never waits for more).  A keyspace's replication
** (system_schema.keyspaces) and the ring give the replicas of a token as
** Cassandra places them (SimpleStrategy; NetworkTopologyStrategy, racks
** too); cqClusterPlan() orders the nodes a call may go to: the replicas
** of its token in the local data center first, each call starting at
** the next one so that they share the work, then the other nodes, nodes
** that failed last.  A node whose call failed is down until its wait
** (doubling from CQ_NODE_BACKOFF_MS) is over or the cluster says it is
** UP.  cq_conn.c opens the connections to the nodes and routes calls.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "util/wc_ask.h"

#include <stdlib.h>
#include <string.h>

#define CQ_NODE_BACKOFF_MS 1000
#define CQ_NODE_MAX_BACKOFF_MS 30000
#define CQ_MAX_TOKENS 4096    /* A node's tokens read, at most */
#define CQ_EVENT_POLL_MS 20   /* How often a call looks for events */

/* A keyspace's replication, as system_schema.keyspaces says. */
struct CqReplication {
  char *zKeyspace;
  int eClass;           /* CQ_REP_* */
  int nRf;              /* SimpleStrategy's replication_factor */
  int nDc;              /* NetworkTopologyStrategy: per data center */
  char **azDc;
  int *anRf;
  CqReplication *pNext;
};
#define CQ_REP_NONE   0   /* No such keyspace (yet): no replicas known */
#define CQ_REP_SIMPLE 1
#define CQ_REP_NTS    2
#define CQ_REP_ALL    3   /* Every node: LocalStrategy, EverywhereStrategy */

static int interrupted(void *pArg){
  return wcAskInterrupted((sqlite3_stmt*)pArg);
}

/* ---- Nodes ---- */

/* The node the cluster names zName:port, or -1. */
static int findNode(const CqCluster *pC, const char *zName, int port){
  int i;
  for(i = 0; i < pC->nNode; i++){
    const CqNode *pN = &pC->aNode[i];
    if( pN->zName && pN->namePort == port && strcmp(pN->zName, zName) == 0 ){
      return i;
    }
  }
  return -1;
}

/* A new node, reached at zHost:port: its index, or -1 (out of memory). */
static int addNode(CqCluster *pC, const char *zHost, int port){
  CqNode *pNode;
  if( (pC->nNode & (pC->nNode - 1)) == 0 ){
    CqNode *aNew = sqlite3_realloc64(pC->aNode, sizeof(CqNode)
                                     * (size_t)(pC->nNode ? pC->nNode * 2 : 4));
    if( aNew == 0 ) return -1;
    pC->aNode = aNew;
  }
  pNode = &pC->aNode[pC->nNode];
  memset(pNode, 0, sizeof(*pNode));
  pNode->zHost = sqlite3_mprintf("%s", zHost);
  pNode->port = port;
  pNode->zAt = sqlite3_mprintf("%s:%d", zHost, port);
  if( pNode->zHost == 0 || pNode->zAt == 0 ){
    sqlite3_free(pNode->zHost);
    sqlite3_free(pNode->zAt);
    return -1;
  }
  return pC->nNode++;
}

int cqClusterContacts(CqCluster *pC, const char *zList, char **pzErr){
  const char *z = zList;
  wcAssert( pC->nNode == 0 );
  while( z && *z ){
    const char *zEnd = strchr(z, ',');
    int n = zEnd ? (int)(zEnd - z) : (int)strlen(z), nHost = 0, port = 0;
    char *zOne = sqlite3_mprintf("%.*s", n, z), *zHost;
    if( zOne == 0 ) return SQLITE_NOMEM;
    if( !wcSockAddress(zOne, &nHost, &port) ){
      *pzErr = sqlite3_mprintf(CQ_ENV " must be host:port[,host:port...], "
          "each a node's CQL address (its native transport port, 9042 by "
          "default); %Q in it is not host:port", zOne);
      sqlite3_free(zOne);
      return SQLITE_CANTOPEN;
    }
    zHost = sqlite3_mprintf("%.*s", nHost, zOne);
    sqlite3_free(zOne);
    if( zHost == 0 || addNode(pC, zHost, port) < 0 ){
      sqlite3_free(zHost);
      return SQLITE_NOMEM;
    }
    pC->aNode[pC->nNode - 1].bContact = 1;
    sqlite3_free(zHost);
    z = zEnd ? zEnd + 1 : 0;
  }
  pC->zContacts = sqlite3_mprintf("%s", zList ? zList : "");
  if( pC->zContacts == 0 ) return SQLITE_NOMEM;
  wcAssert( pC->nNode >= 0 && pC->iControl < pC->nNode );
  if( pC->nNode == 0 ){
    *pzErr = sqlite3_mprintf("no Cassandra: set " CQ_ENV "=host:port to a "
        "node's CQL port (127.0.0.1:9042), or several, comma-separated; sh "
        "tests/servers/cassandra.sh start prints it for the Cassandra of "
        "widecol's tests");
    return SQLITE_CANTOPEN;
  }
  return SQLITE_OK;
}

void cqNodeFailed(CqCluster *pC, int iNode, int bClose){
  CqNode *pNode = &pC->aNode[iNode];
  int64_t nWait = (int64_t)CQ_NODE_BACKOFF_MS << (pNode->nFail < 5
                                                  ? pNode->nFail : 5);
  wcAssert( iNode >= 0 && iNode < pC->nNode );
  if( bClose ){
    cqClose(pNode->pConn);
    pNode->pConn = 0;
  }
  if( nWait > CQ_NODE_MAX_BACKOFF_MS ) nWait = CQ_NODE_MAX_BACKOFF_MS;
  pNode->bDown = 1;
  pNode->nFail++;
  pNode->iRetryMs = wcMonotonicMs() + nWait;
  if( bClose && iNode == pC->iControl ){
    cqClose(pC->pControl);
    pC->pControl = 0;
    pC->iControl = -1;
  }
}

void cqNodeAnswered(CqCluster *pC, int iNode){
  CqNode *pNode = &pC->aNode[iNode];
  wcAssert( iNode >= 0 && iNode < pC->nNode );
  pNode->bDown = 0;
  pNode->nFail = 0;
  pNode->iRetryMs = 0;
}

/* The control connection closed (its node may be well: only the
** connection failed); the next call opens another. */
static void controlLost(CqCluster *pC){
  cqClose(pC->pControl);
  pC->pControl = 0;
  pC->iControl = -1;
}

/* ---- The ring ---- */

/* Sorts the ring's tokens, each with its node (an insertion sort would
** do for a few nodes; a cluster of hundreds has thousands of tokens). */
static int cmpToken(const void *pA, const void *pB){
  const CqRingToken *a = pA, *b = pB;
  return a->iToken < b->iToken ? -1 : a->iToken > b->iToken;
}

/* Adds node iNode's tokens, a set<text> cell, to the ring. */
static int addTokens(CqCluster *pC, int iNode, const unsigned char *a, int n){
  CqValue *aItem = sqlite3_malloc64(sizeof(CqValue) * CQ_MAX_TOKENS);
  int nItem, i;
  if( aItem == 0 ) return SQLITE_NOMEM;
  nItem = a ? cqCollection(a, n, 0, aItem, CQ_MAX_TOKENS) : 0;
  if( nItem > CQ_MAX_TOKENS ) nItem = CQ_MAX_TOKENS;
  if( nItem > 0 ){
    CqRingToken *aNew = sqlite3_realloc64(pC->aRing, sizeof(CqRingToken)
                                          * (size_t)(pC->nRing + nItem));
    if( aNew == 0 ){
      sqlite3_free(aItem);
      return SQLITE_NOMEM;
    }
    pC->aRing = aNew;
    for(i = 0; i < nItem; i++){
      char zNum[32];
      sqlite3_snprintf(sizeof(zNum), zNum, "%.*s",
                       aItem[i].n < 31 ? aItem[i].n : 31, aItem[i].a);
      pC->aRing[pC->nRing].iToken = strtoll(zNum, 0, 10);
      pC->aRing[pC->nRing++].iNode = iNode;
    }
  }
  sqlite3_free(aItem);
  return SQLITE_OK;
}

/* Index of the ring's first token >= iToken (its owner's range is
** (previous token, token]), wrapping to 0 past the last. */
static int firstTokenIndex(const CqCluster *pC, int64_t iToken){
  int lo = 0, hi = pC->nRing;
  wcAssert( pC->nRing > 0 );
  while( lo < hi ){
    int mid = (lo + hi) / 2;
    if( pC->aRing[mid].iToken < iToken ) lo = mid + 1;
    else hi = mid;
  }
  /* The first token >= iToken, or past them all. */
  wcAssert( lo == pC->nRing || pC->aRing[lo].iToken >= iToken );
  wcAssert( lo == 0 || pC->aRing[lo - 1].iToken < iToken );
  return lo == pC->nRing ? 0 : lo;
}

static int dcNodes(const CqCluster *pC, const char *zDc){
  int i, n = 0;
  for(i = 0; i < pC->nNode; i++){
    if( !pC->aNode[i].bGone && pC->aNode[i].zDc
     && strcmp(pC->aNode[i].zDc, zDc) == 0 ) n++;
  }
  return n;
}

static int inList(const int *ai, int n, int i){
  int k;
  for(k = 0; k < n; k++) if( ai[k] == i ) return 1;
  return 0;
}

/* NetworkTopologyStrategy's replicas: one walk clockwise from the token;
** a data center takes min(RF, its nodes); a node counts where its rack
** is new in its data center, or as one of the (RF - racks) repeats it
** allows, in walk order; the walk stops once every data center is full. */
static int ntsReplicas(const CqCluster *pC, const CqReplication *pR, int iFirst,
                       int *aiOut, int nMax){
  int *anWant = sqlite3_malloc64(sizeof(int) * 3 * (size_t)pR->nDc + 1);
  int *anHave, *anRepeat, nOut = 0, nFull = 0, k, d;
  char **azRack;
  int nRack = 0;
  if( anWant == 0 ) return 0;
  azRack = sqlite3_malloc64(sizeof(char*) * (size_t)pC->nNode * 2 + 1);
  if( azRack == 0 ){
    sqlite3_free(anWant);
    return 0;
  }
  anHave = &anWant[pR->nDc];
  anRepeat = &anWant[2 * pR->nDc];
  for(d = 0; d < pR->nDc; d++){
    int nNodes = dcNodes(pC, pR->azDc[d]), nRacks = 0, i, j;
    /* Racks of this DC, to know how many repeats it allows. */
    for(i = 0; i < pC->nNode; i++){
      const CqNode *pN = &pC->aNode[i];
      int bSeen = 0;
      if( pN->bGone || !pN->zDc || strcmp(pN->zDc, pR->azDc[d]) ) continue;
      for(j = 0; j < i && !bSeen; j++){
        const CqNode *pM = &pC->aNode[j];
        bSeen = !pM->bGone && pM->zDc && pM->zRack && pN->zRack
             && strcmp(pM->zDc, pN->zDc) == 0 && strcmp(pM->zRack, pN->zRack) == 0;
      }
      nRacks += !bSeen;
    }
    anWant[d] = pR->anRf[d] < nNodes ? pR->anRf[d] : nNodes;
    anHave[d] = 0;
    anRepeat[d] = pR->anRf[d] - nRacks > 0 ? pR->anRf[d] - nRacks : 0;
    if( anWant[d] == 0 ) nFull++;
  }
  for(k = 0; k < pC->nRing && nFull < pR->nDc && nOut < nMax; k++){
    int iNode = pC->aRing[(iFirst + k) % pC->nRing].iNode, r, bRackSeen = 0;
    const CqNode *pN = &pC->aNode[iNode];
    if( inList(aiOut, nOut, iNode) || pN->zDc == 0 ) continue;
    for(d = 0; d < pR->nDc && strcmp(pR->azDc[d], pN->zDc); d++){}
    if( d == pR->nDc || anHave[d] >= anWant[d] ) continue;
    for(r = 0; r < nRack && !bRackSeen; r++){
      bRackSeen = strcmp(azRack[2 * r], pN->zDc) == 0 && pN->zRack
               && strcmp(azRack[2 * r + 1], pN->zRack) == 0;
    }
    if( bRackSeen ){
      if( anRepeat[d] == 0 ) continue;
      anRepeat[d]--;
    }else if( pN->zRack ){
      azRack[2 * nRack] = pN->zDc;
      azRack[2 * nRack++ + 1] = pN->zRack;
    }
    aiOut[nOut++] = iNode;
    if( ++anHave[d] == anWant[d] ) nFull++;
    wcAssert( anHave[d] <= anWant[d] && nFull <= pR->nDc );
  }
  sqlite3_free(azRack);
  sqlite3_free(anWant);
  return nOut;
}

int cqReplicas(const CqCluster *pC, const CqReplication *pR, int64_t iToken,
               int *aiOut, int nMax){
  int iFirst, k, nOut = 0;
  if( pR == 0 || pR->eClass == CQ_REP_NONE || pC->nRing == 0 ) return 0;
  iFirst = firstTokenIndex(pC, iToken);
  if( pR->eClass == CQ_REP_NTS ) return ntsReplicas(pC, pR, iFirst, aiOut, nMax);
  for(k = 0; k < pC->nRing && nOut < nMax; k++){
    int iNode = pC->aRing[(iFirst + k) % pC->nRing].iNode;
    if( pR->eClass == CQ_REP_SIMPLE && nOut >= pR->nRf ) break;
    if( !inList(aiOut, nOut, iNode) ) aiOut[nOut++] = iNode;
  }
  /* Each replica a node of the cluster, once. */
  wcAssert( nOut <= nMax && nOut <= pC->nNode );
  wcAssert( nOut == 0 || (aiOut[0] >= 0 && aiOut[0] < pC->nNode) );
  return nOut;
}

/* pRep's replicas of ring token k, sorted, into ai (nNode of room). */
static int replicaSet(const CqCluster *pC, const CqReplication *pRep, int k,
                      int *ai){
  int n = cqReplicas(pC, pRep, pC->aRing[k].iToken, ai, pC->nNode), i, j;
  for(i = 1; i < n; i++){
    for(j = i; j > 0 && ai[j - 1] > ai[j]; j--){
      int t = ai[j];
      ai[j] = ai[j - 1];
      ai[j - 1] = t;
    }
  }
  return n;
}

int64_t cqRunEnd(const CqCluster *pC, const CqReplication *pRep,
                 int64_t iFrom, int64_t iHi){
  int *aiA, *aiB, nA, k, j;
  int64_t iEnd;
  if( pRep == 0 || pRep->eClass == CQ_REP_NONE || pC->nRing == 0
   || iFrom >= iHi || iFrom > pC->aRing[pC->nRing - 1].iToken ){
    /* No ring known, or the range that wraps round: the rest at once. */
    return iHi;
  }
  aiA = sqlite3_malloc64(sizeof(int) * 2 * (size_t)(pC->nNode + 1));
  if( aiA == 0 ) return iHi;
  aiB = &aiA[pC->nNode + 1];
  k = firstTokenIndex(pC, iFrom);
  nA = replicaSet(pC, pRep, k, aiA);
  iEnd = pC->aRing[k].iToken;
  for(j = k + 1; j < pC->nRing && iEnd < iHi; j++){
    int nB = replicaSet(pC, pRep, j, aiB);
    if( nB != nA || memcmp(aiA, aiB, sizeof(int) * (size_t)nA) ) break;
    iEnd = pC->aRing[j].iToken;
  }
  sqlite3_free(aiA);
  /* The run holds iFrom: its first range's token is at or above it. */
  wcAssert( iEnd >= iFrom );
  return iEnd < iHi ? iEnd : iHi;
}

/* ---- What the control connection reads ---- */

/* Names node iNode as the cluster does: zName:port. */
static int nameNode(CqCluster *pC, int iNode, const char *zName, int port){
  CqNode *pNode = &pC->aNode[iNode];
  wcAssert( iNode >= 0 && iNode < pC->nNode );
  sqlite3_free(pNode->zName);
  pNode->zName = sqlite3_mprintf("%s", zName);
  pNode->namePort = port;
  return pNode->zName ? SQLITE_OK : SQLITE_NOMEM;
}

/* The name (address and port) that a row's inet cell iCol and port cell
** iCol + 1 give (a NULL port: port), into zName: 1, or 0 where the row
** names no address a client can reach (none, or every address). */
static int rowName(const CqResult *pRes, int64_t iRow, int iCol, int port,
                   char *zName, int nName, int *pPort){
  int n;
  const unsigned char *a = cqCell(pRes, iRow, iCol, &n);
  if( a == 0 || (n != 4 && n != 16) ) return 0;
  cqInetText(a, n, zName, nName);
  if( strcmp(zName, "0.0.0.0") == 0 || strcmp(zName, "::") == 0 ) return 0;
  a = cqCell(pRes, iRow, iCol + 1, &n);
  *pPort = a && n == 4 ? (int)wcGetBe(a, 4) : port;
  return 1;
}

/* Text of a cell (sqlite3_malloc), or NULL. */
static char *cellText(const CqResult *pRes, int64_t iRow, int iCol){
  int n;
  const unsigned char *a = cqCell(pRes, iRow, iCol, &n);
  return a ? sqlite3_mprintf("%.*s", n, a) : 0;
}

/* Node data from a row of system.local (node iNode's) or of a peers
** table (iNode -1: the node it names, added if new): columns 0 and 1
** the address (inet) and port (int; NULL: port), 2 data center, 3 rack,
** 4 tokens. */
static int topologyRow(CqCluster *pC, const CqResult *pRes, int64_t iRow,
                       int iNode, int port){
  char zName[64];
  int n, namePort = port;
  const unsigned char *a;
  CqNode *pNode;
  if( iNode < 0 ){
    if( !rowName(pRes, iRow, 0, port, zName, (int)sizeof(zName), &namePort) ){
      return SQLITE_OK;
    }
    iNode = findNode(pC, zName, namePort);
    if( iNode < 0 ){
      iNode = addNode(pC, zName, namePort);
      if( iNode < 0 || nameNode(pC, iNode, zName, namePort) ) return SQLITE_NOMEM;
    }
  }
  pNode = &pC->aNode[iNode];
  pNode->bGone = 0;
  pNode->bTopology = 1;
  sqlite3_free(pNode->zDc);
  sqlite3_free(pNode->zRack);
  pNode->zDc = cellText(pRes, iRow, 2);
  pNode->zRack = cellText(pRes, iRow, 3);
  a = cqCell(pRes, iRow, 4, &n);
  return addTokens(pC, iNode, a, n);
}

/* Every node's address, data center, rack and tokens, read on the
** control connection (system.local is the node that answers, so the two
** tables must come from one node). */
static int readTopology(CqCluster *pC, sqlite3_stmt *pProbe, char **pzErr){
  CqNode *pCtl = &pC->aNode[pC->iControl];
  char *zCtlHost = sqlite3_mprintf("%s", pCtl->zHost);
  int ctlPort = pCtl->port, rc, e, i, bV2 = 1;
  CqResult res;
  WcDeadline d = cqWaitFor(pProbe, pC->nWaitMs);
  if( zCtlHost == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < pC->nNode; i++) pC->aNode[i].bTopology = 0;
  pC->nRing = 0;
  e = cqQuery(pC->pControl, "SELECT rpc_address, rpc_port, data_center, rack, "
              "tokens FROM system.local", CQ_ONE, &d, &res);
  rc = e ? SQLITE_IOERR : SQLITE_OK;
  if( rc == SQLITE_OK && res.nRow == 1 && res.nCol == 5 ){
    /* The node answering: the control connection's, named when reached. */
    rc = topologyRow(pC, &res, 0, pC->iControl, ctlPort);
    sqlite3_free(pC->zLocalDc);
    pC->zLocalDc = getenv(CQ_DC_ENV) && getenv(CQ_DC_ENV)[0]
                 ? sqlite3_mprintf("%s", getenv(CQ_DC_ENV))
                 : cellText(&res, 0, 2);
  }
  cqResultClear(&res);
  if( rc == SQLITE_OK ){
    e = cqQuery(pC->pControl, "SELECT native_address, native_port, "
                "data_center, rack, tokens FROM system.peers_v2", CQ_ONE, &d,
                &res);
    if( e == CQ_ERR_SERVER && res.iError == CQ_INVALID ){
      /* Before 4.0: system.peers, the control connection's port. */
      cqResultClear(&res);
      bV2 = 0;
      e = cqQuery(pC->pControl, "SELECT rpc_address, NULL, data_center, "
                  "rack, tokens FROM system.peers", CQ_ONE, &d, &res);
    }
    rc = e ? SQLITE_IOERR : SQLITE_OK;
    for(i = 0; rc == SQLITE_OK && i < res.nRow; i++){
      rc = topologyRow(pC, &res, i, -1, bV2 ? 0 : ctlPort);
    }
    cqResultClear(&res);
  }
  if( rc == SQLITE_IOERR ){
    *pzErr = sqlite3_mprintf("Cassandra at %s:%d did not say which nodes the "
                             "cluster has (system.local, system.peers_v2)",
                             zCtlHost, ctlPort);
  }
  sqlite3_free(zCtlHost);
  if( rc != SQLITE_OK ) return rc;
  /* Contact points the cluster does not name are other names of its
  ** nodes, or not its nodes: calls go to the nodes it names. */
  for(i = 0; i < pC->nNode; i++){
    if( !pC->aNode[i].bTopology ) pC->aNode[i].bGone = 1;
  }
  qsort(pC->aRing, (size_t)pC->nRing, sizeof(CqRingToken), cmpToken);
  /* The ring in token order, each token a node's. */
  for(i = 1; i < pC->nRing; i++){
    wcAssert( pC->aRing[i - 1].iToken <= pC->aRing[i].iToken );
  }
  for(i = 0; i < pC->nRing; i++){
    wcAssert( pC->aRing[i].iNode >= 0 && pC->aRing[i].iNode < pC->nNode );
  }
  pC->bStale = 0;
  return SQLITE_OK;
}

/* Names contact point iNode: connects to it (the connection kept as
** the node's) and asks system.local what the cluster calls it, so that a
** contact point reached through a proxy or a translated address keeps
** being reached so.  A second contact point for a node is dropped. */
static int probeContact(CqCluster *pC, int iNode, sqlite3_stmt *pProbe,
                        int iVersion, char **pzWhy){
  CqNode *pN = &pC->aNode[iNode];
  WcDeadline d = cqWaitFor(pProbe, pC->nWaitMs);
  CqResult res;
  char zName[64];
  int namePort = pN->port, e, iSame;
  wcAssert( pN->bContact && pN->zName == 0 && pN->pConn == 0 );
  e = cqOpen(&pN->pConn, pN->zHost, pN->port, iVersion, &d, pzWhy);
  if( e ) return e;
  pN->iGen++;
  e = cqQuery(pN->pConn, "SELECT rpc_address, rpc_port FROM system.local",
              CQ_ONE, &d, &res);
  if( e == 0 ){
    if( res.nRow != 1 || !rowName(&res, 0, 0, pN->port, zName,
                                  (int)sizeof(zName), &namePort) ){
      sqlite3_snprintf(sizeof(zName), zName, "%s", pN->zHost);
    }
    iSame = findNode(pC, zName, namePort);
    if( iSame >= 0 ){
      pN->bGone = 1;
    }else if( nameNode(pC, iNode, zName, namePort) ){
      e = WC_SOCK_NOMEM;
    }
  }else{
    *pzWhy = sqlite3_mprintf("%s", res.zError ? res.zError
                                              : "system.local was not read");
  }
  cqResultClear(&res);
  if( e ){
    cqClose(pN->pConn);
    pN->pConn = 0;
  }
  return e;
}

/* Opens the control connection on node i: REGISTERed for events, the
** topology read on it. */
static int controlOn(CqCluster *pC, int i, sqlite3_stmt *pProbe, int iVersion,
                     char **pzWhy){
  CqNode *pNode = &pC->aNode[i];
  WcDeadline d = cqWaitFor(pProbe, pC->nWaitMs);
  CqResult res;
  int e = cqOpen(&pC->pControl, pNode->zHost, pNode->port, iVersion, &d, pzWhy);
  if( e == 0 ){
    e = cqListen(pC->pControl, &d, &res);
    cqResultClear(&res);
  }
  if( e == 0 ){
    int rc;
    pC->iControl = i;
    rc = readTopology(pC, pProbe, pzWhy);
    if( rc != SQLITE_OK ) e = rc == SQLITE_NOMEM ? WC_SOCK_NOMEM : WC_SOCK_IO;
  }
  if( e ){
    cqClose(pC->pControl);
    pC->pControl = 0;
    pC->iControl = -1;
  }
  return e;
}

/* Adds why pNode did not answer: zWhy, or what failure e was. */
static void addWhy(sqlite3_str *pWhy, int nTried, const CqNode *pNode, int e,
                   const char *zWhy){
  sqlite3_str_appendf(pWhy, "%s%s:%d (%s)", nTried ? ", " : "", pNode->zHost,
      pNode->port, zWhy ? zWhy : e == WC_SOCK_TIMEOUT
      ? "no answer within the deadline" : e == WC_SOCK_IO
      ? "the connection failed or was closed" : "it does not answer");
}

/* The control connection, opened on the first node that answers (the
** contact points named first), and the topology read on it. */
static int openControl(CqCluster *pC, sqlite3_stmt *pProbe, int iVersion,
                       char **pzErr){
  sqlite3_str *pWhy = sqlite3_str_new(0);
  int i, e = 0, nTried = 0, bDown;
  for(i = 0; i < pC->nNode; i++){
    CqNode *pNode = &pC->aNode[i];
    char *zWhy = 0;
    if( !pNode->bContact || pNode->zName || pNode->bGone ) continue;
    e = probeContact(pC, i, pProbe, iVersion, &zWhy);
    if( e ) addWhy(pWhy, nTried++, pNode, e, zWhy);
    sqlite3_free(zWhy);
    if( e == WC_SOCK_CANCELLED || e == WC_SOCK_NOMEM ) break;
  }
  /* Nodes up first, then those down. */
  for(bDown = 0; bDown < 2 && pC->pControl == 0; bDown++){
    for(i = 0; i < pC->nNode && pC->pControl == 0; i++){
      CqNode *pNode = &pC->aNode[i];
      char *zWhy = 0;
      if( e == WC_SOCK_CANCELLED || e == WC_SOCK_NOMEM ) break;
      if( pNode->zName == 0 || pNode->bGone || pNode->bDown != bDown ) continue;
      e = controlOn(pC, i, pProbe, iVersion, &zWhy);
      if( e ){
        addWhy(pWhy, nTried++, pNode, e, zWhy);
        cqNodeFailed(pC, i, 1);
      }
      sqlite3_free(zWhy);
    }
  }
  if( pC->pControl ){
    sqlite3_free(sqlite3_str_finish(pWhy));
    return SQLITE_OK;
  }
  if( e == WC_SOCK_CANCELLED || e == WC_SOCK_NOMEM ){
    sqlite3_free(sqlite3_str_finish(pWhy));
    return e == WC_SOCK_NOMEM ? SQLITE_NOMEM : SQLITE_INTERRUPT;
  }
  {
    char *zWhy = sqlite3_str_finish(pWhy);
    *pzErr = sqlite3_mprintf("no Cassandra at %s (" CQ_ENV "): no node of "
        "the cluster answered: %s; start it, or set " CQ_ENV " to nodes' CQL "
        "ports (host:port, comma-separated)", pC->zContacts,
        zWhy ? zWhy : "?");
    sqlite3_free(zWhy);
  }
  return SQLITE_CANTOPEN;
}

/* ---- Events ---- */

void cqForgetReplication(CqCluster *pC, const char *zKeyspace){
  CqReplication **pp = &pC->pReps;
  while( *pp ){
    CqReplication *pR = *pp;
    if( zKeyspace == 0 || strcmp(pR->zKeyspace, zKeyspace) == 0 ){
      int i;
      *pp = pR->pNext;
      for(i = 0; i < pR->nDc; i++) sqlite3_free(pR->azDc[i]);
      sqlite3_free(pR->azDc);
      sqlite3_free(pR->anRf);
      sqlite3_free(pR->zKeyspace);
      sqlite3_free(pR);
    }else{
      pp = &pR->pNext;
    }
  }
}

static void dropConnection(CqCluster *pC, int iNode){
  cqClose(pC->aNode[iNode].pConn);
  pC->aNode[iNode].pConn = 0;
}

/* One event, as the Java driver takes them: hints.  A node UP is tried
** again at once, on a new connection; DOWN is down, its connection
** closed; a topology change reads the nodes again
** (at the next call); a schema change forgets the keyspace's
** replication. */
static void takeEvent(CqCluster *pC, const CqEvent *pEv){
  int iNode = pEv->eType == CQ_EVENT_SCHEMA ? -1
            : findNode(pC, pEv->zHost, pEv->port);
  wcAssert( iNode >= -1 && iNode < pC->nNode );
  switch( pEv->eType ){
    case CQ_EVENT_TOPOLOGY:
      pC->bStale = 1;
      break;
    case CQ_EVENT_STATUS:
      if( iNode < 0 ){
        pC->bStale = 1;
      }else if( strcmp(pEv->zChange, "UP") == 0 ){
        /* Back from a restart: a connection opened before is dead. */
        if( pC->aNode[iNode].bDown ) dropConnection(pC, iNode);
        cqNodeAnswered(pC, iNode);
      }else{
        /* Requests in flight on it are made again elsewhere by their
        ** waiters (cqLinked() no longer gives the connection). */
        dropConnection(pC, iNode);
        pC->aNode[iNode].bDown = 1;
        pC->aNode[iNode].iRetryMs = wcMonotonicMs() + CQ_NODE_BACKOFF_MS;
      }
      break;
    default:
      cqForgetReplication(pC, pEv->zKeyspace);
      break;
  }
}

/* Takes the events that have come, without waiting for more. */
static void takeEvents(CqCluster *pC, sqlite3_stmt *pProbe){
  WcDeadline d = cqWaitFor(pProbe, pC->nWaitMs);
  for(;;){
    CqEvent ev;
    int e = cqNextEvent(pC->pControl, &d, &pC->event);
    if( e ){
      /* The control connection failed: another is opened at the next
      ** call. */
      controlLost(pC);
      return;
    }
    if( pC->event.n == 0 ) return;
    if( cqParseEvent(pC->event.a, pC->event.n, &ev) == 0 ) takeEvent(pC, &ev);
  }
}

int cqClusterReady(CqCluster *pC, sqlite3_stmt *pProbe, int iVersion,
                   char **pzErr){
  int rc = SQLITE_OK;
  int64_t iNow = wcMonotonicMs();
  /* Every CQ_EVENT_POLL_MS at most: a load makes a call a row. */
  if( pC->pControl && iNow - pC->iPolledMs >= CQ_EVENT_POLL_MS ){
    pC->iPolledMs = iNow;
    takeEvents(pC, pProbe);
  }
  if( pC->pControl == 0 ){
    rc = openControl(pC, pProbe, iVersion, pzErr);
  }else if( pC->bStale ){
    rc = readTopology(pC, pProbe, pzErr);
    if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
      sqlite3_free(*pzErr);
      *pzErr = 0;
      controlLost(pC);
      rc = openControl(pC, pProbe, iVersion, pzErr);
    }
  }
  return rc;
}

/* ---- Replication ---- */

/* A keyspace's replication map (class and factors) into pR. */
static int parseReplication(CqReplication *pR, const unsigned char *a, int n){
  CqValue aItem[2 * 64];
  int nItem = cqCollection(a, n, 1, aItem, 2 * 64), i;
  pR->eClass = CQ_REP_NONE;
  if( nItem < 0 ) return SQLITE_OK;
  if( nItem > 2 * 64 ) nItem = 2 * 64;
  pR->azDc = sqlite3_malloc64(sizeof(char*) * (size_t)(nItem / 2 + 1));
  pR->anRf = sqlite3_malloc64(sizeof(int) * (size_t)(nItem / 2 + 1));
  if( pR->azDc == 0 || pR->anRf == 0 ) return SQLITE_NOMEM;
  for(i = 0; i + 1 < nItem; i += 2){
    char *zKey = sqlite3_mprintf("%.*s", aItem[i].n, aItem[i].a);
    char *zVal = sqlite3_mprintf("%.*s", aItem[i + 1].n, aItem[i + 1].a);
    if( zKey == 0 || zVal == 0 ){
      sqlite3_free(zKey);
      sqlite3_free(zVal);
      return SQLITE_NOMEM;
    }
    if( strcmp(zKey, "class") == 0 ){
      const char *zDot = strrchr(zVal, '.');
      const char *zClass = zDot ? zDot + 1 : zVal;
      pR->eClass = strcmp(zClass, "SimpleStrategy") == 0 ? CQ_REP_SIMPLE
                 : strcmp(zClass, "NetworkTopologyStrategy") == 0 ? CQ_REP_NTS
                 : CQ_REP_ALL;
      sqlite3_free(zKey);
    }else if( strcmp(zKey, "replication_factor") == 0 ){
      /* "3", or "3/1" (one of them transient): its replicas, 3. */
      pR->nRf = atoi(zVal);
      sqlite3_free(zKey);
    }else{
      wcAssert( pR->nDc <= nItem / 2 );
      pR->azDc[pR->nDc] = zKey;
      pR->anRf[pR->nDc++] = atoi(zVal);
    }
    sqlite3_free(zVal);
  }
  return SQLITE_OK;
}

int cqReplication(CqCluster *pC, sqlite3_stmt *pProbe, const char *zKeyspace,
                  CqReplication **ppRep){
  CqReplication *pR;
  CqResult res;
  WcDeadline d;
  char *zCql;
  int e, rc = SQLITE_OK;
  *ppRep = 0;
  for(pR = pC->pReps; pR; pR = pR->pNext){
    if( strcmp(pR->zKeyspace, zKeyspace) == 0 ){
      *ppRep = pR;
      return SQLITE_OK;
    }
  }
  if( pC->pControl == 0 ) return SQLITE_OK;
  pR = sqlite3_malloc(sizeof(*pR));
  zCql = sqlite3_mprintf("SELECT replication FROM system_schema.keyspaces "
                         "WHERE keyspace_name = '%q'", zKeyspace);
  if( pR == 0 || zCql == 0 ){
    sqlite3_free(pR);
    sqlite3_free(zCql);
    return SQLITE_NOMEM;
  }
  memset(pR, 0, sizeof(*pR));
  d = cqWaitFor(pProbe, pC->nWaitMs);
  e = cqQuery(pC->pControl, zCql, CQ_ONE, &d, &res);
  sqlite3_free(zCql);
  pR->zKeyspace = sqlite3_mprintf("%s", zKeyspace);
  if( pR->zKeyspace == 0 ) rc = SQLITE_NOMEM;
  if( rc == SQLITE_OK && e == 0 && res.nRow == 1 && res.nCol == 1 ){
    int n;
    const unsigned char *a = cqCell(&res, 0, 0, &n);
    if( a ) rc = parseReplication(pR, a, n);
  }
  cqResultClear(&res);
  pR->pNext = pC->pReps;
  pC->pReps = pR;
  if( e && e != CQ_ERR_SERVER ){
    /* Not known: asked again at the next call. */
    cqForgetReplication(pC, zKeyspace);
    controlLost(pC);
    return rc;
  }
  *ppRep = pR;
  return rc;
}

/* ---- Plans ---- */

/* True if node i is in the local data center (or none is known). */
static int isLocal(const CqCluster *pC, int i){
  return pC->zLocalDc == 0 || pC->aNode[i].zDc == 0
      || strcmp(pC->aNode[i].zDc, pC->zLocalDc) == 0;
}

/* Where node i goes in a plan: 0 first (a local replica up), then 1
** (another local node up), 2 (a remote node up), 3 (a node down whose
** wait is over), 4 (down and waiting); -1 never (gone). */
static int planRank(const CqCluster *pC, int i, const int *aiRep, int nRep,
                    int64_t iNow){
  const CqNode *pN = &pC->aNode[i];
  if( pN->bGone ) return -1;
  if( pN->bDown ) return iNow >= pN->iRetryMs ? 3 : 4;
  if( !isLocal(pC, i) ) return 2;
  return inList(aiRep, nRep, i) ? 0 : 1;
}

int cqClusterPlan(CqCluster *pC, const CqReplication *pRep, int bToken,
                  int64_t iToken, int *aiNode, int nMax){
  int *aiRep = sqlite3_malloc64(sizeof(int) * (size_t)(pC->nNode + 1));
  int nRep = 0, nOut = 0, eRank;
  unsigned int iTurn = pC->iTurn++;
  int64_t iNow = wcMonotonicMs();
  if( aiRep == 0 ) return 0;
  if( bToken ) nRep = cqReplicas(pC, pRep, iToken, aiRep, pC->nNode);
  for(eRank = 0; eRank <= 4; eRank++){
    int k;
    /* Each call starts at another node of a rank: they share the work. */
    for(k = 0; k < pC->nNode && nOut < nMax; k++){
      int i = (int)((iTurn + (unsigned)k) % (unsigned)pC->nNode);
      if( planRank(pC, i, aiRep, nRep, iNow) == eRank ) aiNode[nOut++] = i;
    }
  }
  /* A node once at most: each has one rank. */
  wcAssert( nOut <= pC->nNode && nOut <= nMax );
  sqlite3_free(aiRep);
  return nOut;
}

int cqClusterSize(const CqCluster *pC){
  int i, n = 0;
  for(i = 0; i < pC->nNode; i++) n += !pC->aNode[i].bGone;
  return n;
}

void cqClusterFree(CqCluster *pC){
  int i;
  for(i = 0; i < pC->nNode; i++){
    cqClose(pC->aNode[i].pConn);
    sqlite3_free(pC->aNode[i].zHost);
    sqlite3_free(pC->aNode[i].zName);
    sqlite3_free(pC->aNode[i].zAt);
    sqlite3_free(pC->aNode[i].zDc);
    sqlite3_free(pC->aNode[i].zRack);
  }
  cqClose(pC->pControl);
  cqForgetReplication(pC, 0);
  sqlite3_free(pC->aNode);
  sqlite3_free(pC->aRing);
  sqlite3_free(pC->zLocalDc);
  sqlite3_free(pC->zContacts);
  wcBufFree(&pC->event);
  memset(pC, 0, sizeof(*pC));
  pC->iControl = -1;
}

WcDeadline cqWaitFor(sqlite3_stmt *pProbe, int64_t nMs){
  WcDeadline d;
  d.iUntilMs = wcMonotonicMs() + nMs;
  d.xInterrupted = interrupted;
  d.pArg = pProbe;
  return d;
}
