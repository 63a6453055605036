/*
** wc_ring.c: SELECT * FROM widecol_ring('<query>', nodes [, vnodes
** [, seed]]) places partitions on a Cassandra ring, as widecol_regions()
** splits HBase regions; widecol_ring('<query>', '<tokens>') on a ring
** whose tokens are given, a cluster's own ("t, t, ...; t, ...": each
** node's tokens, nodes apart by ';'), as system.local and system.peers
** list them.
**
** The query returns one row per write, in write order: the partition
** key's values (hashed as rk_token() hashes them), or a single column
** named token holding tokens already.  The ring has nodes * vnodes tokens
** drawn at random (splitmix64 from seed, node 1's vnodes first), so that
** a seed gives the same ring every time, as a cluster keeps its tokens.  A
** node owns the range (previous ring token, its token]; the range past
** the highest ring token wraps round to the node of the lowest, as in
** Cassandra.  Each node is one result row: its ranges, the share of the
** token space they cover, the partitions and rows it holds, how many of
** the last tenth of the writes went to it, and its rows against an even
** share (skew 1.0: even).
*/
#include "tools/wc_tvf.h"
#include "key/rk_token.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A token of the ring: the node that owns the range up to it. */
typedef struct RingToken RingToken;
struct RingToken {
  int64_t iToken;
  int iNode;
};

/* The most nodes and vnodes a ring may have. */
#define WC_RING_MAX_NODES  10000
#define WC_RING_MAX_VNODES 4096
/* Ring tokens in all (16 bytes each). */
#define WC_RING_MAX_TOKENS 1048576
/* Cassandra's num_tokens since 4.0. */
#define WC_RING_VNODES     16

static uint64_t splitmix64(uint64_t *pState){
  uint64_t z = (*pState += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static int ringTokenCmp(const void *pA, const void *pB){
  const RingToken *a = (const RingToken*)pA, *b = (const RingToken*)pB;
  if( a->iToken != b->iToken ) return a->iToken < b->iToken ? -1 : 1;
  return a->iNode - b->iNode;
}

static int int64Cmp(const void *pA, const void *pB){
  int64_t a = *(const int64_t*)pA, b = *(const int64_t*)pB;
  return a < b ? -1 : a > b;
}

/* The index in the sorted ring aRing[0..n) of the token that owns iToken:
** the first one at or above it, or the lowest (the range that wraps). */
static int ownerOf(const RingToken *aRing, int n, int64_t iToken){
  int lo = 0, hi = n;
  while( lo < hi ){
    int mid = lo + (hi - lo) / 2;
    if( aRing[mid].iToken < iToken ) lo = mid + 1; else hi = mid;
  }
  return lo == n ? 0 : lo;
}

/* A growable array of the writes' tokens. */
typedef struct Writes Writes;
struct Writes {
  int64_t *a;
  int64_t n, nAlloc;
};

static int writesAdd(Writes *p, int64_t iToken){
  if( p->n == p->nAlloc ){
    int64_t nNew = p->nAlloc ? p->nAlloc * 2 : 1024;
    int64_t *aNew = sqlite3_realloc64(p->a, sizeof(int64_t) * (size_t)nNew);
    if( aNew == 0 ) return SQLITE_NOMEM;
    p->a = aNew;
    p->nAlloc = nNew;
  }
  p->a[p->n++] = iToken;
  return SQLITE_OK;
}

/* The token of the query's current row (write iWrite, for messages). */
static int rowToken(sqlite3_stmt *pStmt, sqlite3_value **apVal, int nCol,
                    int bToken, WcBuf *pKey, int64_t iWrite,
                    int64_t *piToken, char **pzErr){
  int i, iLong;
  for(i = 0; i < nCol; i++){
    apVal[i] = sqlite3_column_value(pStmt, i);
    if( sqlite3_value_type(apVal[i]) == SQLITE_NULL ){
      *pzErr = sqlite3_mprintf("widecol_ring: write %lld has NULL in column "
          "%s; a partition key has no NULL", (long long)iWrite,
          sqlite3_column_name(pStmt, i));
      return SQLITE_ERROR;
    }
  }
  if( bToken ){
    if( sqlite3_value_type(apVal[0]) != SQLITE_INTEGER ){
      *pzErr = sqlite3_mprintf("widecol_ring: write %lld: the column token "
          "must hold tokens (INTEGER), not %Q; to hash keys, name the "
          "column otherwise", (long long)iWrite,
          sqlite3_value_text(apVal[0]));
      return SQLITE_ERROR;
    }
    *piToken = sqlite3_value_int64(apVal[0]);
    return SQLITE_OK;
  }
  pKey->n = 0;
  iLong = rkTokenKey(apVal, nCol, pKey);
  if( pKey->bOom ) return SQLITE_NOMEM;
  if( iLong ){
    *pzErr = sqlite3_mprintf("widecol_ring: write %lld: column %s is over "
        "%d bytes, more than Cassandra keeps in a partition key column",
        (long long)iWrite, sqlite3_column_name(pStmt, iLong - 1),
        RK_TOKEN_MAX_KEY);
    return SQLITE_ERROR;
  }
  if( pKey->n == 0 ){
    *pzErr = sqlite3_mprintf("widecol_ring: write %lld: the partition key "
        "is empty, which Cassandra refuses", (long long)iWrite);
    return SQLITE_ERROR;
  }
  *piToken = rkToken(pKey->a, pKey->n);
  return SQLITE_OK;
}

/* Runs zSql and adds each row's token to pW: the partition key's values
** hashed, or a single column named token as it is. */
static int readTokens(sqlite3 *db, const char *zSql, Writes *pW,
                      char **pzErr){
  sqlite3_stmt *pStmt = 0;
  sqlite3_value **apVal = 0;
  WcBuf key;
  int nCol, bToken;
  int rc = wcTvfPrepareQuery(db, "widecol_ring", zSql, "the partition keys' "
      "values (or tokens, as a column named token) in write order, as in "
      "widecol_ring('SELECT user_id FROM likes', 6)", &pStmt, pzErr);
  if( rc != SQLITE_OK ) return rc;
  memset(&key, 0, sizeof(key));
  nCol = sqlite3_column_count(pStmt);
  bToken = nCol == 1
        && sqlite3_stricmp(sqlite3_column_name(pStmt, 0), "token") == 0;
  apVal = sqlite3_malloc64(sizeof(sqlite3_value*) * (size_t)nCol);
  if( apVal == 0 ){
    sqlite3_finalize(pStmt);
    return SQLITE_NOMEM;
  }
  while( (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    int64_t iToken = 0;
    rc = rowToken(pStmt, apVal, nCol, bToken, &key, pW->n + 1, &iToken,
                  pzErr);
    if( rc == SQLITE_OK ) rc = writesAdd(pW, iToken);
    if( rc != SQLITE_OK ) break;
  }
  if( rc == SQLITE_DONE ){
    rc = SQLITE_OK;
  }else if( rc != SQLITE_NOMEM && *pzErr == 0 ){
    *pzErr = sqlite3_mprintf("widecol_ring: the query failed: %s",
                             sqlite3_errmsg(db));
  }
  sqlite3_free(apVal);
  wcBufFree(&key);
  sqlite3_finalize(pStmt);
  return rc;
}

/* An integer argument from iMin to iMax, or an error naming it. */
static int intArg(sqlite3_value *pArg, const char *zArg, int64_t iMin,
                  int64_t iMax, const char *zWhat, int64_t *piOut,
                  char **pzErr){
  if( sqlite3_value_numeric_type(pArg) != SQLITE_INTEGER
   || sqlite3_value_int64(pArg) < iMin || sqlite3_value_int64(pArg) > iMax ){
    *pzErr = sqlite3_mprintf("widecol_ring: %s (%s) must be an integer from "
                             "%lld to %lld; got %Q", zArg, zWhat,
                             (long long)iMin, (long long)iMax,
                             sqlite3_value_text(pArg));
    return SQLITE_ERROR;
  }
  *piOut = sqlite3_value_int64(pArg);
  return SQLITE_OK;
}

/* The per-node figures. */
typedef struct RingNode RingNode;
struct RingNode {
  double rOwned;        /* Share of the token space */
  int64_t nToken, nPartition, nRow, nRecent;
  sqlite3_str *pRanges; /* "(a, b], ..." in token order */
};

/* Counts the writes aW[0..nW) (the last nRecent of them recent) into the
** nodes of the sorted ring aRing[0..nRing). */
static int countWrites(const RingToken *aRing, int nRing, const Writes *pW,
                       int64_t nRecent, RingNode *aNode){
  int64_t *aSorted, i;
  for(i = 0; i < pW->n; i++){
    RingNode *pN = &aNode[aRing[ownerOf(aRing, nRing, pW->a[i])].iNode];
    pN->nRow++;
    if( i >= pW->n - nRecent ) pN->nRecent++;
  }
  /* Partitions: the distinct tokens.  (Two keys that share a token are
  ** counted once; at 64 bits that is as rare as in Cassandra.) */
  aSorted = sqlite3_malloc64(sizeof(int64_t) * (size_t)(pW->n + 1));
  if( aSorted == 0 ) return SQLITE_NOMEM;
  if( pW->n ) memcpy(aSorted, pW->a, sizeof(int64_t) * (size_t)pW->n);
  qsort(aSorted, (size_t)pW->n, sizeof(int64_t), int64Cmp);
  for(i = 0; i < pW->n; i++){
    if( i > 0 && aSorted[i] == aSorted[i - 1] ) continue;
    aNode[aRing[ownerOf(aRing, nRing, aSorted[i])].iNode].nPartition++;
  }
  sqlite3_free(aSorted);
  return SQLITE_OK;
}

/* Each ring token's range, (previous token, it], to its node. */
static void ownRanges(const RingToken *aRing, int nRing, RingNode *aNode){
  int i;
  for(i = 0; i < nRing; i++){
    int64_t iPrev = aRing[i ? i - 1 : nRing - 1].iToken;
    uint64_t nWidth = (uint64_t)aRing[i].iToken - (uint64_t)iPrev;
    RingNode *pN = &aNode[aRing[i].iNode];
    pN->nToken++;
    /* A ring of one token owns everything. */
    pN->rOwned += nRing == 1 ? 1.0 : (double)nWidth / 18446744073709551616.0;
    sqlite3_str_appendf(pN->pRanges, "%s(%lld, %lld]",
                        sqlite3_str_length(pN->pRanges) ? ", " : "",
                        (long long)iPrev, (long long)aRing[i].iToken);
  }
}

/* The ring written as text, "t, t, ...; t, ...", into aRing (allocated,
** sorted) and its node count; tokens apart by commas or spaces. */
static int parseTokens(const char *z, RingToken **paRing, int *pnRing,
                       int64_t *pnNode, char **pzErr){
  RingToken *aRing = 0;
  int nRing = 0, nAlloc = 0, iNode = 0, nInNode = 0, i;
  const char *zStart = z;
  for(;;){
    while( *z == ' ' || *z == ',' || *z == '\t' || *z == '\n' ) z++;
    if( *z == ';' || *z == 0 ){
      if( nInNode == 0 ){
        *pzErr = sqlite3_mprintf("widecol_ring: node %d of the ring %Q has "
            "no tokens; write each node's tokens, nodes apart by ';', as in "
            "'-9000, 12; 4000, 8000'", iNode + 1, zStart);
        sqlite3_free(aRing);
        return SQLITE_ERROR;
      }
      if( *z == 0 ) break;
      z++;
      iNode++;
      nInNode = 0;
      continue;
    }else{
      char *zEnd;
      long long v;
      errno = 0;
      v = strtoll(z, &zEnd, 10);
      if( zEnd == z || errno == ERANGE
       || (*zEnd && strchr(" ,;\t\n", *zEnd) == 0) ){
        *pzErr = sqlite3_mprintf("widecol_ring: the ring %Q has %.*Q where a "
            "token belongs: tokens are integers from -2^63 to 2^63 - 1, "
            "each node's apart by commas, nodes by ';'", zStart,
            (int)strcspn(z, " ,;\t\n"), z);
        sqlite3_free(aRing);
        return SQLITE_ERROR;
      }
      if( nRing == WC_RING_MAX_TOKENS ){
        *pzErr = sqlite3_mprintf("widecol_ring: the ring has more than the "
                                 "%d tokens a ring here may have",
                                 WC_RING_MAX_TOKENS);
        sqlite3_free(aRing);
        return SQLITE_ERROR;
      }
      if( nRing == nAlloc ){
        RingToken *aNew;
        nAlloc = nAlloc ? nAlloc * 2 : 64;
        aNew = sqlite3_realloc64(aRing, sizeof(RingToken) * (size_t)nAlloc);
        if( aNew == 0 ){
          sqlite3_free(aRing);
          return SQLITE_NOMEM;
        }
        aRing = aNew;
      }
      aRing[nRing].iToken = v;
      aRing[nRing++].iNode = iNode;
      nInNode++;
      z = zEnd;
    }
  }
  qsort(aRing, (size_t)nRing, sizeof(RingToken), ringTokenCmp);
  for(i = 1; i < nRing; i++){
    if( aRing[i].iToken == aRing[i - 1].iToken ){
      *pzErr = sqlite3_mprintf("widecol_ring: token %lld is in the ring "
          "twice (nodes %d and %d); a ring's tokens are distinct",
          (long long)aRing[i].iToken, aRing[i - 1].iNode + 1,
          aRing[i].iNode + 1);
      sqlite3_free(aRing);
      return SQLITE_ERROR;
    }
  }
  *paRing = aRing;
  *pnRing = nRing;
  *pnNode = iNode + 1;
  return SQLITE_OK;
}

/* The ring of nNode nodes of nVnode random tokens from iSeed, sorted. */
static int randomRing(int64_t nNode, int64_t nVnode, int64_t iSeed,
                      RingToken **paRing, int *pnRing){
  uint64_t iState = (uint64_t)iSeed;
  int nRing = (int)(nNode * nVnode), i;
  RingToken *aRing = sqlite3_malloc64(sizeof(RingToken) * (size_t)nRing);
  if( aRing == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < nRing; i++){
    aRing[i].iToken = (int64_t)splitmix64(&iState);
    aRing[i].iNode = (int)(i / nVnode);
  }
  qsort(aRing, (size_t)nRing, sizeof(RingToken), ringTokenCmp);
  *paRing = aRing;
  *pnRing = nRing;
  return SQLITE_OK;
}

/* The ring the arguments describe: given tokens, or nodes, vnodes, seed. */
static int ringArgs(sqlite3_value **apArg, RingToken **paRing, int *pnRing,
                    int64_t *pnNode, char **pzErr){
  int64_t nNode = 0, nVnode = WC_RING_VNODES, iSeed = 0;
  int rc;
  if( sqlite3_value_type(apArg[1]) == SQLITE_TEXT ){
    if( apArg[2] || apArg[3] ){
      *pzErr = sqlite3_mprintf("widecol_ring: a ring given by its tokens "
          "takes no vnodes or seed; give either the tokens, as in "
          "widecol_ring(sql, '-9000, 12; 4000, 8000'), or nodes[, vnodes[, "
          "seed]]");
      return SQLITE_ERROR;
    }
    return parseTokens((const char*)sqlite3_value_text(apArg[1]), paRing,
                       pnRing, pnNode, pzErr);
  }
  rc = intArg(apArg[1], "nodes", 1, WC_RING_MAX_NODES, "the ring's nodes",
              &nNode, pzErr);
  if( rc == SQLITE_OK && apArg[2] ){
    rc = intArg(apArg[2], "vnodes", 1, WC_RING_MAX_VNODES, "tokens per "
                "node, Cassandra's num_tokens", &nVnode, pzErr);
  }
  if( rc == SQLITE_OK && nNode * nVnode > WC_RING_MAX_TOKENS ){
    *pzErr = sqlite3_mprintf("widecol_ring: %lld nodes of %lld vnodes are "
        "%lld ring tokens, more than the %d a ring here may have",
        (long long)nNode, (long long)nVnode, (long long)(nNode * nVnode),
        WC_RING_MAX_TOKENS);
    rc = SQLITE_ERROR;
  }
  if( rc == SQLITE_OK && apArg[3] ){
    rc = intArg(apArg[3], "seed", INT64_MIN, INT64_MAX, "the ring's random "
                "tokens", &iSeed, pzErr);
  }
  if( rc == SQLITE_OK ) rc = randomRing(nNode, nVnode, iSeed, paRing, pnRing);
  *pnNode = nNode;
  return rc;
}

static int ringFill(sqlite3 *db, sqlite3_value **apArg, WcTvfRows *pRows,
                    char **pzErr){
  int64_t nNode = 0, nRecent;
  Writes w;
  RingToken *aRing = 0;
  RingNode *aNode = 0;
  int nRing = 0, i, rc;
  memset(&w, 0, sizeof(w));
  if( sqlite3_value_type(apArg[0]) != SQLITE_TEXT ){
    *pzErr = sqlite3_mprintf("widecol_ring: the first argument must be the "
        "text of a query returning partition keys (or tokens, as a column "
        "named token) in write order, as in widecol_ring('SELECT user_id "
        "FROM likes', 6)");
    return SQLITE_ERROR;
  }
  rc = ringArgs(apArg, &aRing, &nRing, &nNode, pzErr);
  if( rc == SQLITE_OK ){
    rc = readTokens(db, (const char*)sqlite3_value_text(apArg[0]), &w,
                    pzErr);
  }
  if( rc == SQLITE_OK ){
    aNode = sqlite3_malloc64(sizeof(RingNode) * (size_t)nNode);
    if( aNode ) memset(aNode, 0, sizeof(RingNode) * (size_t)nNode);
    if( aNode == 0 ) rc = SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK ){
    for(i = 0; i < nNode; i++) aNode[i].pRanges = sqlite3_str_new(0);
    nRecent = w.n >= 10 ? w.n / 10 : w.n;
    rc = countWrites(aRing, nRing, &w, nRecent, aNode);
  }
  if( rc == SQLITE_OK ){
    ownRanges(aRing, nRing, aNode);
    for(i = 0; i < nNode && rc == SQLITE_OK; i++){
      RingNode *pN = &aNode[i];
      char *zRanges = sqlite3_str_finish(pN->pRanges);
      pN->pRanges = 0;
      if( zRanges == 0 ){
        rc = SQLITE_NOMEM;
        break;
      }
      rc = wcTvfAddRow(pRows, "iimriiir", (sqlite3_int64)i + 1,
                       (sqlite3_int64)pN->nToken, zRanges, pN->rOwned,
                       (sqlite3_int64)pN->nPartition, (sqlite3_int64)pN->nRow,
                       (sqlite3_int64)pN->nRecent,
                       w.n ? (double)pN->nRow * (double)nNode / (double)w.n
                           : 0.0);
    }
  }
  for(i = 0; aNode && i < nNode; i++){
    sqlite3_free(sqlite3_str_finish(aNode[i].pRanges));
  }
  sqlite3_free(aNode);
  sqlite3_free(aRing);
  sqlite3_free(w.a);
  return rc;
}

const WcTvfDef wcRingDef = {
  "widecol_ring",
  "node INTEGER, tokens INTEGER, ranges TEXT, owns REAL, partitions INTEGER, "
  "rows INTEGER, recent_writes INTEGER, skew REAL",
  "sql, nodes, vnodes, seed", 2,
  "give the query of partition keys in write order and the number of "
  "nodes, as in SELECT * FROM widecol_ring('SELECT user_id FROM likes', 6), "
  "or the ring's tokens, as in widecol_ring('SELECT user_id FROM likes', "
  "'-9000, 12; 4000, 8000')",
  ringFill
};
