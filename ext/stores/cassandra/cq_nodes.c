/*
** cq_nodes.c: SELECT * FROM widecol_cassandra_nodes, the cluster as this
** database's Cassandra store sees it (cq_cluster.c): a row per node, its
** address, the name the cluster gives it, data center, rack, state, its
** tokens (as widecol_ring takes a node's: "t, t, ..."), the requests sent
** to it, and whether it holds the control connection.  Reading it opens
** the cluster (from WIDECOL_CASSANDRA) if no table has yet, and takes the
** events that have come, so it shows a node's DOWN or UP at once:
**
**   SELECT * FROM widecol_ring('SELECT user_id FROM likes',
**     (SELECT group_concat(tokens, '; ') FROM widecol_cassandra_nodes));
**
** places a design's partitions on the cluster's own ring.  An eponymous
** table, read-only; it reaches the network, so it is direct-only.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

#define CQ_NODES_NODE     0
#define CQ_NODES_ADDRESS  1
#define CQ_NODES_NAME     2
#define CQ_NODES_DC       3
#define CQ_NODES_RACK     4
#define CQ_NODES_STATE    5
#define CQ_NODES_TOKENS   6
#define CQ_NODES_REQUESTS 7
#define CQ_NODES_CONTROL  8

typedef struct CqNodesTable CqNodesTable;
struct CqNodesTable {
  sqlite3_vtab base;
  CqShared *pShared;
};

typedef struct CqNodesCursor CqNodesCursor;
struct CqNodesCursor {
  sqlite3_vtab_cursor base;
  int iNode;
};

static int nodesConnect(sqlite3 *db, void *pAux, int argc,
                        const char *const *argv, sqlite3_vtab **ppVtab,
                        char **pzErr){
  CqNodesTable *p;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(node INTEGER, address "
      "TEXT, name TEXT, dc TEXT, rack TEXT, state TEXT, tokens TEXT, "
      "requests INTEGER, control INTEGER)");
  (void)argc;
  (void)argv;
  (void)pzErr;
  if( rc != SQLITE_OK ) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pShared = (CqShared*)pAux;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int nodesDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int nodesBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  pInfo->estimatedCost = 10;
  pInfo->estimatedRows = 10;
  return SQLITE_OK;
}

static int nodesOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  CqNodesCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static int nodesClose(sqlite3_vtab_cursor *pCur){
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* The cursor's node, or the next one the cluster has (gone nodes are
** not shown). */
static void skipGone(CqNodesCursor *pCur){
  const CqCluster *pC = &((CqNodesTable*)pCur->base.pVtab)->pShared->cluster;
  while( pCur->iNode < pC->nNode && pC->aNode[pCur->iNode].bGone ){
    pCur->iNode++;
  }
}

static int nodesFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                       const char *idxStr, int argc, sqlite3_value **argv){
  CqNodesCursor *pCur = (CqNodesCursor*)pCursor;
  CqNodesTable *p = (CqNodesTable*)pCursor->pVtab;
  char *zErr = 0;
  int rc;
  (void)idxNum;
  (void)idxStr;
  (void)argc;
  (void)argv;
  /* The events that came, whenever the last look was. */
  p->pShared->cluster.iPolledMs = 0;
  rc = cqSharedOpen(p->pShared, 0, &zErr);
  if( rc != SQLITE_OK ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = sqlite3_mprintf("widecol_cassandra_nodes: %s",
                                      zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
    return rc;
  }
  pCur->iNode = 0;
  skipGone(pCur);
  return SQLITE_OK;
}

static int nodesNext(sqlite3_vtab_cursor *pCursor){
  CqNodesCursor *pCur = (CqNodesCursor*)pCursor;
  wcAssert( pCur->iNode < ((CqNodesTable*)pCursor->pVtab)->pShared->cluster.nNode );
  pCur->iNode++;
  skipGone(pCur);
  return SQLITE_OK;
}

static int nodesEof(sqlite3_vtab_cursor *pCursor){
  CqNodesCursor *pCur = (CqNodesCursor*)pCursor;
  return pCur->iNode >= ((CqNodesTable*)pCursor->pVtab)->pShared->cluster.nNode;
}

/* Node iNode's tokens, in token order, apart by ", " (the ring is kept
** sorted). */
static char *nodeTokens(const CqCluster *pC, int iNode){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i, n = 0;
  for(i = 0; i < pC->nRing; i++){
    if( pC->aRing[i].iNode != iNode ) continue;
    sqlite3_str_appendf(pStr, "%s%lld", n++ ? ", " : "",
                        (long long)pC->aRing[i].iToken);
  }
  return sqlite3_str_finish(pStr);
}

static int nodesColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx,
                       int iCol){
  CqNodesCursor *pCur = (CqNodesCursor*)pCursor;
  const CqCluster *pC = &((CqNodesTable*)pCursor->pVtab)->pShared->cluster;
  const CqNode *pN = &pC->aNode[pCur->iNode];
  wcAssert( pCur->iNode >= 0 && pCur->iNode < pC->nNode && !pN->bGone );
  switch( iCol ){
    case CQ_NODES_NODE:
      sqlite3_result_int(ctx, pCur->iNode + 1);
      break;
    case CQ_NODES_ADDRESS:
      sqlite3_result_text(ctx, pN->zAt, -1, SQLITE_TRANSIENT);
      break;
    case CQ_NODES_NAME:
      if( pN->zName ){
        sqlite3_result_text(ctx, sqlite3_mprintf("%s:%d", pN->zName,
                            pN->namePort), -1, sqlite3_free);
      }
      break;
    case CQ_NODES_DC:
      if( pN->zDc ) sqlite3_result_text(ctx, pN->zDc, -1, SQLITE_TRANSIENT);
      break;
    case CQ_NODES_RACK:
      if( pN->zRack ) sqlite3_result_text(ctx, pN->zRack, -1, SQLITE_TRANSIENT);
      break;
    case CQ_NODES_STATE:
      sqlite3_result_text(ctx, pN->bDown ? "down" : "up", -1, SQLITE_STATIC);
      break;
    case CQ_NODES_TOKENS:
      sqlite3_result_text(ctx, nodeTokens(pC, pCur->iNode), -1, sqlite3_free);
      break;
    case CQ_NODES_REQUESTS:
      sqlite3_result_int64(ctx, pN->nRequest);
      break;
    case CQ_NODES_CONTROL:
      sqlite3_result_int(ctx, pCur->iNode == pC->iControl);
      break;
  }
  return SQLITE_OK;
}

static int nodesRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *piRowid){
  *piRowid = ((CqNodesCursor*)pCursor)->iNode + 1;
  return SQLITE_OK;
}

const sqlite3_module cqNodesModule = {
  0,                    /* iVersion */
  0,                    /* xCreate: eponymous only */
  nodesConnect,
  nodesBestIndex,
  nodesDisconnect,
  0,                    /* xDestroy */
  nodesOpen,
  nodesClose,
  nodesFilter,
  nodesNext,
  nodesEof,
  nodesColumn,
  nodesRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};
