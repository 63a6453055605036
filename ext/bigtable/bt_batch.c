/*
** bt_batch.c: writes waiting to be sent, and sending them (bt_table.h).
**
** Each Bigtable table the connection writes has a batch: its writes in
** the order they were queued.  btTxnFlush() sends every batch in three
** phases, so that a failure anywhere leaves every row with its index
** entries:
**   1. index entries put (each under its write's stamp), MutateRows;
**   2. rows: blind writes in one MutateRows per table, then the
**      conditional ones (CheckAndMutateRow), BT_INFLIGHT in flight at
**      once; a row whose entries failed in phase 1 is not written;
**   3. the index entries the rows no longer have, deleted once their row
**      was written, and the entries of rows that were not written
**      (garbage, which reads ignore anyway).
** Bigtable applies the entries of one MutateRows in any order, even two
** of one row (googleapis bigtable.proto): so a second blind write of a key
** waiting is merged into the first (one entry, mutations in order), and a
** write queued behind a conditional one of its key first sends the batch.
**
** A conditional write whose call ended without an answer (UNAVAILABLE, a
** deadline) may have been applied: the row's marker tells (it carries the
** write's stamp if so), and the write is sent again if not.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"

#include <string.h>

struct BtBatch {
  char *zResource;
  BtArena arena;
  BtOp **apOp;          /* In the order queued */
  int nOp;
  int nAlloc;
  int *aiSlot;          /* Phase 2: key -> index in apOp + 1 of its last
                        ** write (open addressing) */
  int nSlot;            /* A power of two, or 0 */
  int nKey;
  const char *zTable;   /* The writing table's name and KEYS, in arena, */
  const char *zKeys;    /* as the last write queued gave them */
  BtBatch *pNext;
};

/*
** Batches.
*/

BtBatch *btBatchOf(BtTable *p, const char *zResource){
  BtTxn *pTxn = p->pTxn;
  BtBatch *pB;
  for(pB = pTxn->pBatches; pB; pB = pB->pNext){
    if( strcmp(pB->zResource, zResource) == 0 ) return pB;
  }
  pB = sqlite3_malloc(sizeof(*pB));
  if( pB == 0 ) return 0;
  memset(pB, 0, sizeof(*pB));
  pB->zResource = sqlite3_mprintf("%s", zResource);
  if( pB->zResource == 0 ){
    sqlite3_free(pB);
    return 0;
  }
  pB->pNext = pTxn->pBatches;
  pTxn->pBatches = pB;
  return pB;
}

static void batchClear(BtBatch *pB){
  btArenaFree(&pB->arena);
  pB->nOp = 0;
  if( pB->aiSlot ) memset(pB->aiSlot, 0, sizeof(int) * (size_t)pB->nSlot);
  pB->nKey = 0;
  pB->zTable = pB->zKeys = 0;
}

/* Names pOp's writer, p, in pB's arena (shared by its consecutive writes). */
static void nameWriter(BtTable *p, BtBatch *pB, BtOp *pOp){
  if( pB->zTable == 0 || strcmp(pB->zTable, p->zTable) != 0 ){
    pB->zTable = btArenaCopy(&pB->arena, p->zTable, strlen(p->zTable) + 1);
    pB->zKeys = p->zKeys ? btArenaCopy(&pB->arena, p->zKeys,
                                       strlen(p->zKeys) + 1) : 0;
  }
  pOp->zTable = pB->zTable;
  pOp->zKeys = pB->zKeys;
}

void btBatchFreeAll(BtTxn *pTxn){
  while( pTxn->pBatches ){
    BtBatch *pB = pTxn->pBatches;
    pTxn->pBatches = pB->pNext;
    batchClear(pB);
    sqlite3_free(pB->apOp);
    sqlite3_free(pB->aiSlot);
    sqlite3_free(pB->zResource);
    sqlite3_free(pB);
  }
  pTxn->nOp = pTxn->nByte = 0;
}

/* The slot of key aKey: holding its last write, or empty. */
static int *keySlot(BtBatch *pB, const unsigned char *aKey, size_t nKey){
  int i = (int)(wcBytesHash(aKey, (int64_t)nKey)
                & (uint32_t)(pB->nSlot - 1));
  for(;;){
    int *pSlot = &pB->aiSlot[i];
    if( *pSlot == 0 ) return pSlot;
    if( pB->apOp[*pSlot - 1]->nKey == nKey
     && memcmp(pB->apOp[*pSlot - 1]->aKey, aKey, nKey) == 0 ){
      return pSlot;
    }
    i = (i + 1) & (pB->nSlot - 1);
  }
}

/* Indexes write apOp[i] as its key's last; SQLITE_NOMEM on OOM. */
static int keyIndex(BtBatch *pB, int i){
  BtOp *pOp = pB->apOp[i];
  int *pSlot;
  if( 2 * (pB->nKey + 1) > pB->nSlot ){
    int nNew = pB->nSlot ? 2 * pB->nSlot : 64, k;
    int *aNew = sqlite3_malloc64(sizeof(int) * (size_t)nNew);
    int *aOld = pB->aiSlot;
    if( aNew == 0 ) return SQLITE_NOMEM;
    memset(aNew, 0, sizeof(int) * (size_t)nNew);
    pB->aiSlot = aNew;
    pB->nSlot = nNew;
    pB->nKey = 0;
    sqlite3_free(aOld);
    for(k = 0; k < pB->nOp; k++){
      BtOp *pK = pB->apOp[k];
      if( pK->iPhase == BT_PHASE_ROW ){
        pSlot = keySlot(pB, pK->aKey, pK->nKey);
        if( *pSlot == 0 ) pB->nKey++;
        *pSlot = k + 1;
      }
    }
  }
  pSlot = keySlot(pB, pOp->aKey, pOp->nKey);
  if( *pSlot == 0 ) pB->nKey++;
  *pSlot = i + 1;
  return SQLITE_OK;
}

/* The last row write of aKey waiting in pB, or 0. */
static BtOp *lastOf(BtBatch *pB, const unsigned char *aKey, size_t nKey){
  int *pSlot;
  if( pB->nSlot == 0 ) return 0;
  pSlot = keySlot(pB, aKey, nKey);
  return *pSlot ? pB->apOp[*pSlot - 1] : 0;
}

static BtBatch *findBatch(BtTxn *pTxn, const char *zResource){
  BtBatch *pB;
  for(pB = pTxn->pBatches; pB; pB = pB->pNext){
    if( strcmp(pB->zResource, zResource) == 0 ) return pB;
  }
  return 0;
}

BtOp *btOpWaiting(BtTxn *pTxn, const char *zResource,
                  const unsigned char *aKey, size_t nKey){
  BtBatch *pB = findBatch(pTxn, zResource);
  return pB ? lastOf(pB, aKey, nKey) : 0;
}

int btKeyWaiting(BtTxn *pTxn, const char *zResource,
                 const unsigned char *aKey, size_t nKey){
  return btOpWaiting(pTxn, zResource, aKey, nKey) != 0;
}

/*
** Writes.
*/

BtArena *btBatchArena(BtBatch *pB){
  return &pB->arena;
}

BtOp *btOpNew(BtArena *pA, int iPhase, const unsigned char *aKey,
              size_t nKey, int nMutMax){
  BtOp *pOp = btArenaAlloc(pA, sizeof(*pOp));
  if( pOp == 0 ) return 0;
  pOp->pArena = pA;
  pOp->iPhase = iPhase;
  pOp->aKey = btArenaCopy(pA, aKey, nKey);
  pOp->nKey = nKey;
  pOp->nMutAlloc = nMutMax > 0 ? nMutMax : 1;
  pOp->apMut = btArenaAlloc(pA, sizeof(Wcbt__Mutation*)
                                * (size_t)pOp->nMutAlloc);
  if( pOp->aKey == 0 || pOp->apMut == 0 ) return 0;
  return pOp;
}

Wcbt__Mutation *btOpAdd(BtOp *pOp, Wcbt__Mutation *pM){
  if( pM == 0 ) return 0;
  if( pOp->nMut == pOp->nMutAlloc ){
    int nNew = pOp->nMutAlloc * 2;
    Wcbt__Mutation **apNew = btArenaAlloc(pOp->pArena,
                                  sizeof(Wcbt__Mutation*) * (size_t)nNew);
    if( apNew == 0 ) return 0;
    memcpy(apNew, pOp->apMut, sizeof(Wcbt__Mutation*) * (size_t)pOp->nMut);
    pOp->apMut = apNew;
    pOp->nMutAlloc = nNew;
  }
  pOp->apMut[pOp->nMut++] = pM;
  return pM;
}

/* Roughly what a write adds to a request, for the batch's size. */
static int64_t opBytes(const BtOp *pOp){
  int64_t n = (int64_t)pOp->nKey + 16;
  int i;
  for(i = 0; i < pOp->nMut; i++){
    const Wcbt__Mutation *pM = pOp->apMut[i];
    n += 16;
    if( pM->kind_case == WCBT__MUTATION__KIND_SET_CELL ){
      n += (int64_t)pM->set_cell->value.len
         + (int64_t)pM->set_cell->qualifier.len;
    }
  }
  return n;
}

static int appendOp(BtBatch *pB, BtOp *pOp){
  if( pB->nOp == pB->nAlloc ){
    int nNew = pB->nAlloc ? 2 * pB->nAlloc : 64;
    BtOp **apNew = sqlite3_realloc64(pB->apOp, sizeof(BtOp*) * (size_t)nNew);
    if( apNew == 0 ) return SQLITE_NOMEM;
    pB->apOp = apNew;
    pB->nAlloc = nNew;
  }
  pB->apOp[pB->nOp++] = pOp;
  return pOp->iPhase == BT_PHASE_ROW ? keyIndex(pB, pB->nOp - 1) : SQLITE_OK;
}

int btOpRoom(BtTable *p, BtBatch *pB, int iPhase, const unsigned char *aKey,
             size_t nKey){
  BtTxn *pTxn = p->pTxn;
  BtOp *pLast;
  /* A full batch goes first; never between a row's write and the deletes
  ** of its old index entries (phase 3), which follow it. */
  if( iPhase != BT_PHASE_DELETE
   && (pTxn->nOp >= BT_BATCH_ROWS || pTxn->nByte >= BT_BATCH_BYTES) ){
    return btTxnFlush(p, 0, 0);
  }
  /* A write behind a conditional one of its key: that one goes first, so
  ** that their order holds. */
  pLast = iPhase == BT_PHASE_ROW ? lastOf(pB, aKey, nKey) : 0;
  if( pLast && pLast->eCond != BT_COND_NONE ) return btTxnFlush(p, 0, 0);
  return SQLITE_OK;
}

int btOpQueue(BtTable *p, BtBatch *pB, BtOp *pOp){
  BtTxn *pTxn = p->pTxn;
  int rc;
  if( pB->arena.bOom ) return SQLITE_NOMEM;
  pOp->pBatch = pB;
  nameWriter(p, pB, pOp);
  if( pB->arena.bOom ) return SQLITE_NOMEM;
  if( pOp->iPhase == BT_PHASE_ROW ){
    BtOp *pLast = lastOf(pB, pOp->aKey, pOp->nKey);
    if( pLast && pLast->eCond == BT_COND_NONE && pOp->eCond == BT_COND_NONE ){
      /* One entry per key: the mutations of both, in order. */
      int i;
      for(i = 0; i < pOp->nMut; i++){
        if( btOpAdd(pLast, pOp->apMut[i]) == 0 ) return SQLITE_NOMEM;
      }
      memcpy(pLast->aStamp, pOp->aStamp, sizeof(pOp->aStamp));
      pTxn->nByte += opBytes(pOp);
      return SQLITE_OK;
    }
  }
  pOp->iSeq = pTxn->iSeq++;
  rc = appendOp(pB, pOp);
  if( rc != SQLITE_OK ) return rc;
  pTxn->nOp++;
  pTxn->nByte += opBytes(pOp);
  return SQLITE_OK;
}

void btTxnDrop(BtTxn *pTxn, int64_t iSeq){
  BtBatch *pB;
  for(pB = pTxn->pBatches; pB; pB = pB->pNext){
    int i = pB->nOp;
    while( i > 0 && pB->apOp[i - 1]->iSeq >= iSeq ) i--;
    pTxn->nOp -= pB->nOp - i;
    if( i == 0 ){
      batchClear(pB);
    }else if( i < pB->nOp ){
      /* A merged write that began before the mark keeps what was merged
      ** into it: that is the price of one entry per key, and only a
      ** ROLLBACK TO inside a statement of blind writes meets it. */
      int k;
      pB->nOp = i;
      if( pB->aiSlot ) memset(pB->aiSlot, 0, sizeof(int) * (size_t)pB->nSlot);
      pB->nKey = 0;
      for(k = 0; k < pB->nOp; k++){
        if( pB->apOp[k]->iPhase == BT_PHASE_ROW ) keyIndex(pB, k);
      }
    }
  }
  if( pTxn->nOp <= 0 ){
    pTxn->nOp = 0;
    pTxn->nByte = 0;
  }
}

void btTxnKeepFailure(BtTxn *pTxn, int rc, const char *zMsg){
  if( pTxn->zFailed == 0 ){
    pTxn->rcFailed = rc;
    pTxn->zFailed = sqlite3_mprintf("%s", zMsg);
    if( pTxn->zFailed == 0 ) pTxn->rcFailed = SQLITE_NOMEM;
  }else if( strlen(pTxn->zFailed) < 4000 ){
    char *z = sqlite3_mprintf("%s; then %s", pTxn->zFailed, zMsg);
    if( z ){
      sqlite3_free(pTxn->zFailed);
      pTxn->zFailed = z;
    }
  }
}

/*
** Sending.
*/

/* What one flush found. */
#define BT_LISTED 5
typedef struct Flush Flush;
struct Flush {
  BtTable *p;           /* The table that asked for it */
  int rc;               /* The first failure's code */
  const char *zTable;   /* The widecol table of the first failure, */
  const char *zKeys;    /* what its row key is made from (or 0) */
  int nNotWritten;      /* Rows not written */
  int nUnique;          /* ... of them, inserts whose key was in use */
  int nMaybe;           /* ... of them, sent without an answer: Bigtable
                        ** may yet apply them */
  int nWritten;         /* Rows written */
  int nListed;          /* The first few, and why */
  char *azKey[BT_LISTED];
  char *azWhy[BT_LISTED];
  const char *azTable[BT_LISTED];
  WcBuf failedStamps;   /* Writes (8 bytes each) not applied in full */
  char *zPutFailure;    /* Why phase 1 failed, if it did */
};

/* True if a write carries no stamp: an EXISTING table's, which has no
** marker. */
static int stampNone(const unsigned char *aStamp){
  static const unsigned char aZero[BT_STAMP] = {0};
  return memcmp(aStamp, aZero, BT_STAMP) == 0;
}

static int stampIn(const WcBuf *pSet, const unsigned char *aStamp){
  int64_t i;
  if( stampNone(aStamp) ) return 0;
  for(i = 0; i + BT_STAMP <= pSet->n; i += BT_STAMP){
    if( memcmp(pSet->a + i, aStamp, BT_STAMP) == 0 ) return 1;
  }
  return 0;
}

/* The table whose connection, deadline and counters serve batch pB. */
static BtTable *tableOf(Flush *pF, BtBatch *pB){
  BtTable *pT = btTableOn(pF->p->pTxn, pB->zResource);
  return pT ? pT : pF->p;
}

/* Records that row write pOp was not applied, and why (eOutcome;
** zWhy for a failure). */
static void notWritten(Flush *pF, BtTable *pT, BtOp *pOp, int eOutcome,
                       int rc, const char *zWhy){
  int i;
  pOp->eOutcome = eOutcome;
  wcBufAppend(&pF->failedStamps, pOp->aStamp, BT_STAMP);
  pF->nNotWritten++;
  if( eOutcome == BT_OUT_FAILED && btMaybeApplied(rc) ) pF->nMaybe++;
  if( eOutcome == BT_OUT_CONFLICT && pOp->eCond == BT_COND_ABSENT ){
    pF->nUnique++;
    rc = SQLITE_CONSTRAINT_UNIQUE;
  }else if( eOutcome == BT_OUT_CONFLICT ){
    rc = SQLITE_BUSY_SNAPSHOT;
  }
  if( pF->zTable == 0 ){
    pF->zTable = pOp->zTable ? pOp->zTable : pT->zTable;
    pF->zKeys = pOp->zTable ? pOp->zKeys : pT->zKeys;
  }
  if( pF->rc == SQLITE_OK ) pF->rc = rc;
  if( pF->nListed >= BT_LISTED ) return;
  i = pF->nListed++;
  pF->azTable[i] = pOp->zTable ? pOp->zTable : pT->zTable;
  pF->azKey[i] = btDescribeKey(pOp->aKey, pOp->nKey);
  switch( eOutcome ){
    case BT_OUT_CONFLICT:
      pF->azWhy[i] = sqlite3_mprintf("%s", pOp->eCond == BT_COND_ABSENT
          ? "a row with this key exists"
          : "another client changed or deleted the row after this statement "
            "read it (run the statement again to act on the row as it is "
            "now)");
      break;
    case BT_OUT_SKIPPED:
      pF->azWhy[i] = sqlite3_mprintf("its index entries could not be written "
          "first (%s)", pF->zPutFailure ? pF->zPutFailure : "?");
      break;
    default:
      pF->azWhy[i] = sqlite3_mprintf("%s", zWhy ? zWhy : "failed");
      break;
  }
}

/* The rows listed, those with the same reason together: "rows 'a', 'b':
** reason; in t2, row 'c': reason". */
static char *listedRows(Flush *pF){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i, j;
  for(i = 0; i < pF->nListed; i = j){
    for(j = i + 1; j < pF->nListed; j++){
      if( strcmp(pF->azTable[j], pF->azTable[i]) != 0
       || !pF->azWhy[j] || !pF->azWhy[i]
       || strcmp(pF->azWhy[j], pF->azWhy[i]) != 0 ){
        break;
      }
    }
    sqlite3_str_appendall(pStr, i ? "; " : "");
    if( strcmp(pF->azTable[i], pF->zTable) != 0 ){
      sqlite3_str_appendf(pStr, "in %s, ", pF->azTable[i]);
    }
    sqlite3_str_appendall(pStr, j - i > 1 ? "rows " : "row ");
    {
      int k;
      for(k = i; k < j; k++){
        sqlite3_str_appendf(pStr, "%s%s", k > i ? ", " : "",
                            pF->azKey[k] ? pF->azKey[k] : "?");
      }
    }
    if( j == pF->nListed && pF->nNotWritten > pF->nListed ){
      sqlite3_str_appendall(pStr, ", ...");
    }
    sqlite3_str_appendf(pStr, ": %s", pF->azWhy[i] ? pF->azWhy[i] : "?");
  }
  return sqlite3_str_finish(pStr);
}

/* Sends the writes apOp[0..nOp) of one table in MutateRows requests of
** at most 100,000 mutations (Bigtable's limit); rows failing with a status
** worth retrying are sent again until the deadline.  Each write's
** outcome is set; on a failure *pzWhy (if 0) says why. */
static void sendBlind(BtTable *pT, const char *zResource, BtOp **apOp,
                      int nOp, char **pzWhy, int *pCodeWhy){
  Wcbt__MutateRowsRequest req = WCBT__MUTATE_ROWS_REQUEST__INIT;
  Wcbt__MutateRowsRequest__Entry *aEntry, **apEntry;
  BtStatus st = {0, 0};
  int iFirst = 0, i;
  aEntry = sqlite3_malloc64(sizeof(*aEntry) * (size_t)(nOp ? nOp : 1));
  apEntry = sqlite3_malloc64(sizeof(*apEntry) * (size_t)(nOp ? nOp : 1));
  if( aEntry == 0 || apEntry == 0 ){
    for(i = 0; i < nOp; i++) apOp[i]->eOutcome = BT_OUT_FAILED;
    if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
    *pCodeWhy = BT_INTERNAL;
    sqlite3_free(aEntry);
    sqlite3_free(apEntry);
    return;
  }
  for(i = 0; i < nOp; i++){
    wcbt__mutate_rows_request__entry__init(&aEntry[i]);
    aEntry[i].row_key.data = (uint8_t*)apOp[i]->aKey;
    aEntry[i].row_key.len = apOp[i]->nKey;
    aEntry[i].n_mutations = (size_t)apOp[i]->nMut;
    aEntry[i].mutations = apOp[i]->apMut;
    apOp[i]->eOutcome = BT_OUT_WAIT;
  }
  while( iFirst < nOp ){
    /* The next request: at most 100,000 mutations. */
    int nIn = 0, nTodo, nAttempt = 0, k;
    size_t nMut = 0;
    int *aiTodo;
    int64_t iStart = btNowMs();
    BtWait w = btRetryWait(&pT->wait, iStart);
    while( iFirst + nIn < nOp
        && (nIn == 0 || nMut + (size_t)apOp[iFirst + nIn]->nMut <= 100000) ){
      nMut += (size_t)apOp[iFirst + nIn]->nMut;
      nIn++;
    }
    aiTodo = sqlite3_malloc64(sizeof(int) * (size_t)nIn);
    if( aiTodo == 0 ){
      for(k = 0; k < nIn; k++) apOp[iFirst + k]->eOutcome = BT_OUT_FAILED;
      if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
      *pCodeWhy = BT_INTERNAL;
      iFirst += nIn;
      continue;
    }
    for(k = 0; k < nIn; k++) aiTodo[k] = iFirst + k;
    nTodo = nIn;
    for(;;){
      BtStream *pStream = 0;
      ProtobufCMessage *pMsg = 0;
      int r, bRetry = 1, nLeft = 0;
      for(k = 0; k < nTodo; k++) apEntry[k] = &aEntry[aiTodo[k]];
      req.table_name = (char*)zResource;
      req.n_entries = (size_t)nTodo;
      req.entries = apEntry;
      btStatusClear(&st);
      btStreamOpen(pT->pConn, M_MUTATEROWS, zResource, &req.base, &pStream,
                   &st, &w);
      while( (r = btStreamNext(pStream, &wcbt__mutate_rows_response__descriptor,
                               &pMsg, &st)) == 1 ){
        Wcbt__MutateRowsResponse *pResp = (Wcbt__MutateRowsResponse*)pMsg;
        size_t e;
        for(e = 0; e < pResp->n_entries; e++){
          Wcbt__MutateRowsResponse__Entry *pE = pResp->entries[e];
          int code = pE->status ? pE->status->code : 0;
          BtOp *pOp;
          if( pE->index < 0 || pE->index >= nTodo ) continue;
          pOp = apOp[aiTodo[pE->index]];
          if( code == 0 ){
            pOp->eOutcome = BT_OUT_OK;
            continue;
          }
          pOp->eOutcome = BT_OUT_FAILED;
          if( !btRetryable(code) ) bRetry = 0;
          if( *pzWhy == 0 ){
            *pzWhy = sqlite3_mprintf("MutateRows refused the row: %s (gRPC "
                "status %d)", pE->status->message ? pE->status->message : "",
                code);
            *pCodeWhy = code;
          }
        }
        protobuf_c_message_free_unpacked(pMsg, 0);
      }
      btStreamClose(pStream);
      if( r < 0 && !btRetryable(st.code) ) bRetry = 0;
      if( r < 0 && st.code == BT_CANCELLED ) bRetry = 0;
      /* Rows without an answer, or refused for a while, go again. */
      for(k = 0; k < nTodo; k++){
        BtOp *pOp = apOp[aiTodo[k]];
        if( pOp->eOutcome != BT_OUT_OK ) aiTodo[nLeft++] = aiTodo[k];
      }
      nTodo = nLeft;
      if( nTodo == 0 ) break;
      if( bRetry ){
        int code = btBackoff(&pT->wait, ++nAttempt, iStart);
        if( code == BT_CANCELLED ){
          sqlite3_free(*pzWhy);
          *pzWhy = sqlite3_mprintf("interrupted while waiting to send again");
          *pCodeWhy = BT_CANCELLED;
          r = 0;
          bRetry = 0;
        }else if( code != BT_OK ){
          bRetry = 0;
        }
      }
      if( !bRetry ){
        for(k = 0; k < nTodo; k++) apOp[aiTodo[k]]->eOutcome = BT_OUT_FAILED;
        if( r < 0 ){
          sqlite3_free(*pzWhy);
          *pzWhy = sqlite3_mprintf("%s", st.zMsg ? st.zMsg : "failed");
          *pCodeWhy = st.code;
        }
        break;
      }
      btConnRetryNow(pT->pConn);
    }
    sqlite3_free(aiTodo);
    iFirst += nIn;
  }
  btStatusClear(&st);
  sqlite3_free(aEntry);
  sqlite3_free(apEntry);
}

/* The predicate of a conditional write, built in pA: NULL for
** BT_COND_ABSENT (unset: "the row has any cell"); else the row's latest
** marker, with its value compared for BT_COND_MARKER and _PREFIX. */
static Wcbt__Filter *predicateOf(BtOp *pOp, BtArena *pA){
  Wcbt__Filter *pTop, *aPart, **apPart;
  Wcbt__Filter__List *pList;
  Wcbt__ColumnRange *pRange;
  Wcbt__ValueRange *pValue;
  unsigned char *aEnd;
  size_t nEnd;
  if( pOp->eCond == BT_COND_ABSENT ) return 0;
  pTop = btArenaAlloc(pA, sizeof(*pTop));
  aPart = btArenaAlloc(pA, sizeof(*aPart) * 3);
  apPart = btArenaAlloc(pA, sizeof(*apPart) * 3);
  pList = btArenaAlloc(pA, sizeof(*pList));
  pRange = btArenaAlloc(pA, sizeof(*pRange));
  pValue = btArenaAlloc(pA, sizeof(*pValue));
  if( pA->bOom ) return 0;
  btMarkerFilter(&aPart[0], pRange);
  if( pOp->eCond == BT_COND_NOMARK ) return &aPart[0];
  wcbt__filter__init(&aPart[1]);
  aPart[1].kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
  aPart[1].cells_per_column_limit = 1;
  wcbt__value_range__init(pValue);
  pValue->start_case = WCBT__VALUE_RANGE__START_START_CLOSED;
  pValue->start_closed.data = (uint8_t*)pOp->aExpect;
  pValue->start_closed.len = pOp->nExpect;
  if( pOp->eCond == BT_COND_MARKER ){
    pValue->end_case = WCBT__VALUE_RANGE__END_END_CLOSED;
    pValue->end_closed = pValue->start_closed;
  }else{
    /* Values starting with aExpect: below its prefix end.  A stamp always
    ** has one (its first byte, BT_MARKER_V2, is no 0xFF). */
    aEnd = btArenaCopy(pA, pOp->aExpect, pOp->nExpect);
    nEnd = pOp->nExpect;
    if( aEnd == 0 ) return 0;
    while( nEnd > 0 && aEnd[nEnd - 1] == 0xFF ) nEnd--;
    if( nEnd > 0 ) aEnd[nEnd - 1]++;
    pValue->end_case = WCBT__VALUE_RANGE__END_END_OPEN;
    pValue->end_open.data = aEnd;
    pValue->end_open.len = nEnd;
  }
  wcbt__filter__init(&aPart[2]);
  aPart[2].kind_case = WCBT__FILTER__KIND_VALUE_RANGE;
  aPart[2].value_range = pValue;
  apPart[0] = &aPart[0];
  apPart[1] = &aPart[1];
  apPart[2] = &aPart[2];
  btFilterOf(pTop, 1, pList, apPart, 3);
  return pTop;
}

/* A CheckAndMutateRow of write pOp, built in pA. */
static Wcbt__CheckAndMutateRowRequest *conditionalRequest(const char *zRes,
                                                          BtOp *pOp,
                                                          BtArena *pA){
  Wcbt__CheckAndMutateRowRequest *pReq = btArenaAlloc(pA, sizeof(*pReq));
  if( pReq == 0 ) return 0;
  wcbt__check_and_mutate_row_request__init(pReq);
  pReq->table_name = (char*)zRes;
  pReq->row_key.data = (uint8_t*)pOp->aKey;
  pReq->row_key.len = pOp->nKey;
  pReq->predicate = predicateOf(pOp, pA);
  if( pA->bOom ) return 0;
  if( pOp->eCond == BT_COND_ABSENT || pOp->eCond == BT_COND_NOMARK ){
    pReq->n_false_mutations = (size_t)pOp->nMut;
    pReq->false_mutations = pOp->apMut;
  }else{
    pReq->n_true_mutations = (size_t)pOp->nMut;
    pReq->true_mutations = pOp->apMut;
  }
  return pReq;
}

/* What settleUnknown() reads of a row: whether it has any cell (bRow),
** and its latest marker (bMarker, marker).  For a write with no marker
** (pCells: an EXISTING table's), how many of its cells the row holds as
** written (nSame), and the cell being read: its family, qualifier, time
** and value so far (a value may come in pieces, the chunks after the
** first naming nothing). */
typedef struct MarkerRead MarkerRead;
struct MarkerRead {
  int bRow;
  int bMarker;
  WcBuf marker;
  const BtOp *pCells;
  int nSame;
  WcBuf family, qual, value;
  int64_t iMicros;
  int bPartial;
};

static void markerBegin(void *pCtx){
  MarkerRead *pR = (MarkerRead*)pCtx;
  pR->bRow = pR->bMarker = 0;
  pR->marker.n = 0;
  pR->nSame = 0;
  pR->family.n = pR->qual.n = pR->value.n = 0;
  pR->bPartial = 0;
}

/* True if cell mutation pS is the cell *pR has read whole. */
static int sameCell(const MarkerRead *pR, const Wcbt__Mutation__SetCell *pS){
  size_t nFamily = strlen(pS->family);
  return pS->micros == pR->iMicros
      && (int64_t)nFamily == pR->family.n
      && memcmp(pS->family, pR->family.a, nFamily) == 0
      && (int64_t)pS->qualifier.len == pR->qual.n
      && (pS->qualifier.len == 0
          || memcmp(pS->qualifier.data, pR->qual.a, pS->qualifier.len) == 0)
      && (int64_t)pS->value.len == pR->value.n
      && (pS->value.len == 0
          || memcmp(pS->value.data, pR->value.a, pS->value.len) == 0);
}

static void markerChunk(void *pCtx, const Wcbt__Chunk *pC){
  MarkerRead *pR = (MarkerRead*)pCtx;
  int i;
  pR->bRow = 1;
  if( pC->qualifier && pC->qualifier->value.len == 0
   && pC->family && strcmp(pC->family->value, BT_DEFAULT_FAMILY) == 0
   && !pR->bMarker ){
    pR->bMarker = 1;
    wcBufAppend(&pR->marker, pC->value.data, (int64_t)pC->value.len);
  }
  if( pR->pCells == 0 ) return;
  if( pC->family ){
    pR->family.n = 0;
    wcBufAppend(&pR->family, pC->family->value, strlen(pC->family->value));
  }
  if( pC->qualifier ){
    pR->qual.n = 0;
    wcBufAppend(&pR->qual, pC->qualifier->value.data,
                (int64_t)pC->qualifier->value.len);
  }
  if( !pR->bPartial ){
    pR->iMicros = pC->micros;
    pR->value.n = 0;
  }
  wcBufAppend(&pR->value, pC->value.data, (int64_t)pC->value.len);
  pR->bPartial = pC->value_size > 0;
  if( pR->bPartial ) return;
  for(i = 0; i < pR->pCells->nMut; i++){
    const Wcbt__Mutation *pM = pR->pCells->apMut[i];
    if( pM->kind_case == WCBT__MUTATION__KIND_SET_CELL
     && sameCell(pR, pM->set_cell) ){
      pR->nSame++;
      break;
    }
  }
}

/* The cells write pOp sets (a write with no marker). */
static int cellsSet(const BtOp *pOp){
  int i, n = 0;
  for(i = 0; i < pOp->nMut; i++){
    n += pOp->apMut[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL;
  }
  return n;
}

/* True if the marker read is the one pOp expects (or begins with it, for
** BT_COND_PREFIX). */
static int expectHolds(const BtOp *pOp, const MarkerRead *pR){
  return pR->bMarker && pR->marker.n >= (int64_t)pOp->nExpect
      && (pOp->nExpect == 0
          || memcmp(pR->marker.a, pOp->aExpect, pOp->nExpect) == 0)
      && (pOp->eCond == BT_COND_PREFIX
          || pR->marker.n == (int64_t)pOp->nExpect);
}

/* After a conditional write's call ended without an answer: reads the
** row's marker.  BT_OUT_OK if the write was applied (the marker carries
** its stamp; a delete: no marker; a write with no marker, an EXISTING
** table's: the row holds each of its cells, at its time), BT_OUT_WAIT if
** its condition still holds (send it again), BT_OUT_CONFLICT if not;
** BT_OUT_FAILED if the read failed too. */
static int settleUnknown(BtTable *pT, const char *zRes, BtOp *pOp,
                         int bDeletes){
  Wcbt__ReadRowsRequest req = WCBT__READ_ROWS_REQUEST__INIT;
  Wcbt__KeySet set = WCBT__KEY_SET__INIT;
  ProtobufCBinaryData key;
  Wcbt__Filter filter;
  Wcbt__ColumnRange range;
  BtStatus st = {0, 0};
  MarkerRead rd;
  BtChunkSink sink;
  int r, eOut, nCell = 0;
  memset(&rd, 0, sizeof(rd));
  if( !bDeletes && stampNone(pOp->aStamp) ){
    nCell = cellsSet(pOp);
    if( nCell > 0 ) rd.pCells = pOp;
  }
  key.data = (uint8_t*)pOp->aKey;
  key.len = pOp->nKey;
  set.n_keys = 1;
  set.keys = &key;
  btMarkerFilter(&filter, &range);
  req.table_name = (char*)zRes;
  req.rows = &set;
  req.filter = pOp->eCond == BT_COND_ABSENT ? 0 : &filter;
  sink.xBegin = markerBegin;
  sink.xChunk = markerChunk;
  sink.pCtx = &rd;
  /* The connection that lost the write's answer may lose this one too:
  ** btReadAll() sends it again. */
  r = btReadAll(pT, zRes, &req, &pT->wait, &sink, &st);
  if( r < 0 || rd.marker.bOom || rd.family.bOom || rd.qual.bOom
   || rd.value.bOom ){
    eOut = BT_OUT_FAILED;
  }else if( bDeletes ){
    /* A delete is done when the marker is gone. */
    eOut = !rd.bMarker ? BT_OUT_OK
         : (pOp->eCond == BT_COND_MARKER || pOp->eCond == BT_COND_PREFIX)
           && expectHolds(pOp, &rd) ? BT_OUT_WAIT : BT_OUT_CONFLICT;
  }else if( rd.pCells && rd.nSame == nCell ){
    eOut = BT_OUT_OK;
  }else if( rd.bMarker && rd.marker.n >= 1 + BT_STAMP
         && memcmp(rd.marker.a + 1, pOp->aStamp, BT_STAMP) == 0 ){
    eOut = BT_OUT_OK;
  }else if( pOp->eCond == BT_COND_ABSENT ){
    eOut = rd.bRow ? BT_OUT_CONFLICT : BT_OUT_WAIT;
  }else if( pOp->eCond == BT_COND_NOMARK ){
    eOut = rd.bMarker ? BT_OUT_CONFLICT : BT_OUT_WAIT;
  }else{
    eOut = expectHolds(pOp, &rd) ? BT_OUT_WAIT : BT_OUT_CONFLICT;
  }
  btStatusClear(&st);
  wcBufFree(&rd.marker);
  wcBufFree(&rd.family);
  wcBufFree(&rd.qual);
  wcBufFree(&rd.value);
  return eOut;
}

/* True if write pOp leaves no row (it begins with DeleteFromRow and sets
** nothing after). */
static int opDeletesRow(const BtOp *pOp){
  int i;
  if( pOp->nMut == 0
   || pOp->apMut[0]->kind_case != WCBT__MUTATION__KIND_DELETE_ROW ){
    return 0;
  }
  for(i = 1; i < pOp->nMut; i++){
    if( pOp->apMut[i]->kind_case == WCBT__MUTATION__KIND_SET_CELL ) return 0;
  }
  return 1;
}

/* The answer of one conditional write's call: its outcome, and on a
** failure the message in *pzWhy (if 0). */
static int conditionalOutcome(BtTable *pT, const char *zRes, BtOp *pOp,
                              int code, BtStatus *pSt,
                              Wcbt__CheckAndMutateRowResponse *pResp,
                              char **pzWhy, int *pCodeWhy){
  int bApplied;
  if( code == BT_OK ){
    bApplied = (pOp->eCond == BT_COND_ABSENT || pOp->eCond == BT_COND_NOMARK)
             ? !pResp->predicate_matched : pResp->predicate_matched;
    return bApplied ? BT_OUT_OK : BT_OUT_CONFLICT;
  }
  if( btRetryable(code) || code == BT_DEADLINE_EXCEEDED ){
    int eOut;
    btConnRetryNow(pT->pConn);
    eOut = settleUnknown(pT, zRes, pOp, opDeletesRow(pOp));
    if( eOut == BT_OUT_CONFLICT && pOp->eCond != BT_COND_ABSENT ){
      /* No answer, and the row has changed since it was read: this write
      ** applied and then another client's, or another client's alone;
      ** a row's next write replaces it whole, so nothing read tells which.
      ** Not a conflict, then: a write that may have been applied. */
      if( *pzWhy == 0 ){
        *pzWhy = sqlite3_mprintf("no answer came, and the row has changed "
                                 "since: this write may have been applied "
                                 "and then another client's");
        *pCodeWhy = code;
      }
      return BT_OUT_FAILED;
    }
    if( eOut != BT_OUT_FAILED ) return eOut;
  }
  if( *pzWhy == 0 ){
    *pzWhy = sqlite3_mprintf("%s", pSt->zMsg ? pSt->zMsg : "failed");
    *pCodeWhy = code;
  }
  return BT_OUT_FAILED;
}

/* Write pOp's condition still holds and nothing answered: it is sent
** again, alone, until an answer comes or the deadline (from now) passes. */
static void resendAlone(BtTable *pT, const char *zResource, BtOp *pOp,
                        BtArena *pArena, char **pzWhy, int *pCodeWhy){
  int64_t iStart = btNowMs();
  BtWait w = btRetryWait(&pT->wait, iStart);
  int nAttempt = 0;
  while( pOp->eOutcome == BT_OUT_WAIT ){
    Wcbt__CheckAndMutateRowRequest *pReq;
    Wcbt__CheckAndMutateRowResponse *pResp = 0;
    BtStatus st = {0, 0};
    int code = btBackoff(&pT->wait, ++nAttempt, iStart);
    if( code != BT_OK ){
      pOp->eOutcome = BT_OUT_FAILED;
      if( *pzWhy == 0 ){
        *pzWhy = sqlite3_mprintf(code == BT_CANCELLED
            ? "interrupted while waiting to send again"
            : "CheckAndMutateRow: no answer, and no time left within the "
              "deadline to ask again");
        *pCodeWhy = code;
      }
      return;
    }
    pReq = conditionalRequest(zResource, pOp, pArena);
    code = pReq ? btCall(pT->pConn, M_CHECKANDMUTATE, zResource, &pReq->base,
                         &wcbt__check_and_mutate_row_response__descriptor,
                         (ProtobufCMessage**)&pResp, &st, &w)
                : BT_INTERNAL;
    pOp->eOutcome = conditionalOutcome(pT, zResource, pOp, code, &st, pResp,
                                       pzWhy, pCodeWhy);
    if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
    btStatusClear(&st);
  }
}

/* Sends the conditional writes apOp[0..nOp) of one table, BT_INFLIGHT
** calls in flight at once; each write's outcome is set. */
static void sendConditional(BtTable *pT, const char *zResource, BtOp **apOp,
                            int nOp, char **pzWhy, int *pCodeWhy){
  BtPending *apCall[BT_INFLIGHT];
  int aiOp[BT_INFLIGHT];
  BtArena arena;
  int iNext = 0, nFly = 0, iOld = 0;
  memset(&arena, 0, sizeof(arena));
  while( iNext < nOp || nFly > 0 ){
    if( iNext < nOp && nFly < BT_INFLIGHT ){
      BtOp *pOp = apOp[iNext];
      Wcbt__CheckAndMutateRowRequest *pReq;
      int iSlot = (iOld + nFly) % BT_INFLIGHT;
      pReq = conditionalRequest(zResource, pOp, &arena);
      apCall[iSlot] = pReq ? btCallStart(pT->pConn, M_CHECKANDMUTATE,
                                         zResource, &pReq->base, &pT->wait)
                           : 0;
      if( apCall[iSlot] == 0 ){
        pOp->eOutcome = BT_OUT_FAILED;
        if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
        *pCodeWhy = BT_INTERNAL;
      }else{
        aiOp[iSlot] = iNext;
        nFly++;
      }
      iNext++;
      continue;
    }
    {
      Wcbt__CheckAndMutateRowResponse *pResp = 0;
      BtStatus st = {0, 0};
      BtOp *pOp = apOp[aiOp[iOld]];
      int code = btCallFinish(apCall[iOld],
                              &wcbt__check_and_mutate_row_response__descriptor,
                              (ProtobufCMessage**)&pResp, &st);
      pOp->eOutcome = conditionalOutcome(pT, zResource, pOp, code, &st, pResp,
                                         pzWhy, pCodeWhy);
      if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
      btStatusClear(&st);
      iOld = (iOld + 1) % BT_INFLIGHT;
      nFly--;
      resendAlone(pT, zResource, pOp, &arena, pzWhy, pCodeWhy);
    }
  }
  btArenaFree(&arena);
}

/* The writes of phase iPhase waiting in pB that are to go, in *papOp
** (sqlite3_malloc); their number, or -1 on OOM. */
static int collect(BtBatch *pB, int iPhase, int eCondSet, BtOp ***papOp){
  BtOp **ap = sqlite3_malloc64(sizeof(BtOp*) * (size_t)(pB->nOp + 1));
  int i, n = 0;
  if( ap == 0 ) return -1;
  for(i = 0; i < pB->nOp; i++){
    BtOp *pOp = pB->apOp[i];
    if( pOp->iPhase != iPhase || pOp->eOutcome != BT_OUT_WAIT ) continue;
    if( eCondSet >= 0 && (pOp->eCond != BT_COND_NONE) != eCondSet ) continue;
    ap[n++] = pOp;
  }
  *papOp = ap;
  return n;
}

/* Phase 1: every batch's index entries put.  A write whose entries fail
** is noted in failedStamps: its row is not written. */
static void flushPuts(Flush *pF){
  BtBatch *pB;
  for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
    BtTable *pT = tableOf(pF, pB);
    BtOp **apOp = 0;
    char *zWhy = 0;
    int n = collect(pB, BT_PHASE_PUT, -1, &apOp), i, codeWhy = BT_INTERNAL;
    if( n > 0 && btTableConnect(pT) == SQLITE_OK ){
      sendBlind(pT, pB->zResource, apOp, n, &zWhy, &codeWhy);
    }else{
      for(i = 0; i < n; i++) apOp[i]->eOutcome = BT_OUT_FAILED;
    }
    for(i = 0; i < n; i++){
      if( apOp[i]->eOutcome == BT_OUT_OK ) continue;
      wcBufAppend(&pF->failedStamps, apOp[i]->aStamp, BT_STAMP);
      if( pF->zPutFailure == 0 ){
        pF->zPutFailure = btRpcDescribe(pT, "could not write the entries to",
                                        codeWhy, zWhy);
      }
    }
    pF->p->pTxn->nSent += n > 0 ? n : 0;
    sqlite3_free(zWhy);
    sqlite3_free(apOp);
  }
}

/* Phase 2: every batch's rows, the blind writes then the conditional
** ones. */
static void flushRows(Flush *pF){
  BtBatch *pB;
  int bCond;
  for(bCond = 0; bCond <= 1; bCond++){
    for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
      BtTable *pT = tableOf(pF, pB);
      BtOp **apOp = 0;
      char *zWhy = 0;
      int n = collect(pB, BT_PHASE_ROW, bCond, &apOp), i, nGo = 0;
      int codeWhy = BT_INTERNAL;
      if( n < 0 ){
        if( pF->rc == SQLITE_OK ) pF->rc = SQLITE_NOMEM;
        continue;
      }
      for(i = 0; i < n; i++){
        if( stampIn(&pF->failedStamps, apOp[i]->aStamp) ){
          notWritten(pF, pT, apOp[i], BT_OUT_SKIPPED, SQLITE_ERROR, 0);
        }else{
          apOp[nGo++] = apOp[i];
        }
      }
      if( nGo > 0 && btTableConnect(pT) != SQLITE_OK ){
        for(i = 0; i < nGo; i++){
          notWritten(pF, pT, apOp[i], BT_OUT_FAILED, SQLITE_ERROR,
                     pT->base.zErrMsg);
        }
        nGo = 0;
      }
      if( nGo > 0 ){
        if( bCond ){
          sendConditional(pT, pB->zResource, apOp, nGo, &zWhy, &codeWhy);
        }else{
          sendBlind(pT, pB->zResource, apOp, nGo, &zWhy, &codeWhy);
        }
        pF->p->pTxn->nSent += nGo;
      }
      for(i = 0; i < nGo; i++){
        if( apOp[i]->eOutcome == BT_OUT_OK ){
          pF->nWritten++;
        }else{
          char *zAt = btRpcDescribe(pT, "could not write to", codeWhy, zWhy);
          notWritten(pF, pT, apOp[i], apOp[i]->eOutcome, btRpcCode(codeWhy),
                     zAt ? zAt : zWhy);
          sqlite3_free(zAt);
        }
      }
      sqlite3_free(zWhy);
      sqlite3_free(apOp);
    }
  }
}

/* Phase 3: old index entries of rows written, and the entries of rows
** that were not (garbage: no read returns them).  A failure here leaves
** only entries no read returns, so it is logged, not reported. */
static void flushDeletes(Flush *pF){
  BtBatch *pB;
  for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
    BtTable *pT = tableOf(pF, pB);
    BtOp **apOp = sqlite3_malloc64(sizeof(BtOp*) * (size_t)(pB->nOp + 1));
    char *zWhy = 0;
    int n = 0, i, k, codeWhy = BT_INTERNAL;
    if( apOp == 0 ) continue;
    for(i = 0; i < pB->nOp; i++){
      BtOp *pOp = pB->apOp[i];
      if( pOp->iPhase == BT_PHASE_DELETE ){
        if( pOp->pRow && pOp->pRow->eOutcome != BT_OUT_OK ) continue;
        apOp[n++] = pOp;
      }else if( pOp->iPhase == BT_PHASE_PUT && pOp->eOutcome == BT_OUT_OK
             && stampIn(&pF->failedStamps, pOp->aStamp) ){
        /* Undo the put: delete what it set (its group's cells). */
        BtOp *pUndo = btOpNew(&pB->arena, BT_PHASE_DELETE, pOp->aKey,
                              pOp->nKey, pOp->nMut);
        for(k = 0; pUndo && k < pOp->nMut; k++){
          Wcbt__Mutation *pM = pOp->apMut[k];
          Wcbt__Mutation *pD;
          Wcbt__Mutation__DeleteColumn *pDC;
          if( pM->kind_case != WCBT__MUTATION__KIND_SET_CELL ) continue;
          pD = btArenaAlloc(&pB->arena, sizeof(*pD));
          pDC = btArenaAlloc(&pB->arena, sizeof(*pDC));
          if( pD == 0 || pDC == 0 ) break;
          wcbt__mutation__init(pD);
          wcbt__mutation__delete_column__init(pDC);
          pDC->family = pM->set_cell->family;
          pDC->qualifier = pM->set_cell->qualifier;
          pD->kind_case = WCBT__MUTATION__KIND_DELETE_COLUMN;
          pD->delete_column = pDC;
          btOpAdd(pUndo, pD);
        }
        if( pUndo && pUndo->nMut > 0 ) apOp[n++] = pUndo;
      }
    }
    if( n > 0 && btTableConnect(pT) == SQLITE_OK ){
      sendBlind(pT, pB->zResource, apOp, n, &zWhy, &codeWhy);
      for(i = 0; i < n; i++){
        if( apOp[i]->eOutcome != BT_OUT_OK ){
          sqlite3_log(SQLITE_WARNING, "widecol %s: old index entries could "
              "not be deleted from %s (%s); no read returns them",
              pT->zTable, pB->zResource, zWhy ? zWhy : "failed");
          break;
        }
      }
    }
    sqlite3_free(zWhy);
    sqlite3_free(apOp);
  }
}

/* The message of a flush that did not write every row. */
static char *flushMessage(Flush *pF){
  const char *zTable = pF->zTable ? pF->zTable : pF->p->zTable;
  char *zWhy, *zMsg, *zOthers;
  if( pF->nNotWritten == 0 ){
    return sqlite3_mprintf("widecol %s: out of memory while writing to %s",
                           zTable, btEngine.zName);
  }
  zOthers = sqlite3_mprintf("; the other rows sent with them were written: "
      "%s has no multi-row transactions (%s, What a statement guarantees)",
      btEngine.zName, btEngine.zDocs);
  if( zOthers == 0 ) return 0;
  zWhy = listedRows(pF);
  if( pF->nMaybe == pF->nNotWritten ){
    zMsg = sqlite3_mprintf("widecol %s: %d row%s may not have been written "
        "to %s: no answer came (%s), so %s "
        "may yet apply them; read them to know%s", zTable, pF->nNotWritten,
        pF->nNotWritten == 1 ? "" : "s", btEngine.zName, zWhy ? zWhy : "",
        btEngine.zName, pF->nWritten ? zOthers : "");
  }else if( pF->nUnique == pF->nNotWritten ){
    /* As widecol words a key in use, with what the key is made from. */
    const char *zKeys = pF->zKeys;
    if( pF->nNotWritten == 1 ){
      zMsg = sqlite3_mprintf("UNIQUE constraint failed: %s.rowkey (a row "
          "with key %s exists%s%s)%s", zTable,
          pF->azKey[0] ? pF->azKey[0] : "?",
          zKeys ? "; the key is made from " : "", zKeys ? zKeys : "",
          pF->nWritten ? zOthers : "");
    }else{
      zMsg = sqlite3_mprintf("UNIQUE constraint failed: %s.rowkey (%d rows "
          "were not written, their keys in use: %s%s%s)%s", zTable,
          pF->nNotWritten, zWhy ? zWhy : "",
          zKeys ? "; the key is made from " : "", zKeys ? zKeys : "",
          pF->nWritten ? zOthers : "");
    }
  }else{
    zMsg = sqlite3_mprintf("widecol %s: %d row%s not written to %s "
        "(%s)%s", zTable, pF->nNotWritten,
        pF->nNotWritten == 1 ? " was" : "s were", btEngine.zName,
        zWhy ? zWhy : "", pF->nWritten ? zOthers : "");
  }
  sqlite3_free(zWhy);
  sqlite3_free(zOthers);
  return zMsg;
}

/* A transaction whose writes failed sends nothing more: the error of a
** statement that would (bt_txn.c). */
static int failedBefore(BtTable *p){
  BtTxn *pTxn = p->pTxn;
  if( sqlite3_get_autocommit(p->db) ){
    /* The failure is this statement's own. */
    return btError(p, pTxn->rcFailed, "%s", pTxn->zFailed);
  }
  return btError(p, SQLITE_ERROR, "widecol %s: this statement would send "
      "writes to %s, but earlier writes of the transaction were not "
      "taken (%s), so it sends nothing more and COMMIT will fail: ROLLBACK, "
      "then run the transaction again", p->zTable, btEngine.zName,
      pTxn->zFailed);
}

int btTxnFlush(BtTable *p, int bReport, const unsigned char *aMine){
  BtTxn *pTxn = p->pTxn;
  Flush f;
  BtBatch *pB;
  int rc = SQLITE_OK, rcMine = SQLITE_OK;
  if( pTxn->zFailed && !bReport && (pTxn->nOp > 0 || aMine) ){
    return failedBefore(p);
  }
  if( pTxn->nOp == 0 ) return SQLITE_OK;
  memset(&f, 0, sizeof(f));
  f.p = p;
  flushPuts(&f);
  if( aMine && stampIn(&f.failedStamps, aMine) ){
    rcMine = btError(p, SQLITE_ERROR, "the row's index entries could not be "
                     "written (%s), so neither was the row",
                     f.zPutFailure ? f.zPutFailure : "?");
  }
  flushRows(&f);
  flushDeletes(&f);
  if( f.nNotWritten > 0 || f.rc != SQLITE_OK ){
    char *zMsg = flushMessage(&f);
    rc = f.rc != SQLITE_OK ? f.rc : SQLITE_ERROR;
    if( zMsg == 0 ){
      rc = SQLITE_NOMEM;
    }else if( bReport ){
      rc = btError(p, rc, "%s", zMsg);
    }else{
      /* Kept: in autocommit the running statement's failure, which it
      ** reports now and at its end (should a caller drop it); in a
      ** transaction the failure of statements that have returned. */
      btTxnKeepFailure(pTxn, rc, zMsg);
      rc = sqlite3_get_autocommit(p->db) ? btError(p, rc, "%s", zMsg)
                                         : SQLITE_OK;
    }
    sqlite3_free(zMsg);
  }
  for(pB = pTxn->pBatches; pB; pB = pB->pNext) batchClear(pB);
  pTxn->nOp = 0;
  pTxn->nByte = 0;
  {
    int i;
    for(i = 0; i < f.nListed; i++){
      sqlite3_free(f.azKey[i]);
      sqlite3_free(f.azWhy[i]);
    }
  }
  wcBufFree(&f.failedStamps);
  sqlite3_free(f.zPutFailure);
  return rcMine != SQLITE_OK ? rcMine : rc;
}

int btOpSendNow(BtTable *p, BtOp *pOp){
  char *zWhy = 0;
  int codeWhy = BT_INTERNAL, rc;
  /* What waits goes first: this row's index entries, and any write of its
  ** key, which the condition must see. */
  rc = btTxnFlush(p, 0, pOp->aStamp);
  if( rc != SQLITE_OK ) return rc;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  sendConditional(p, p->zResource, &pOp, 1, &zWhy, &codeWhy);
  p->pTxn->nSent++;
  switch( pOp->eOutcome ){
    case BT_OUT_OK:
      rc = SQLITE_OK;
      break;
    case BT_OUT_CONFLICT: {
      char *zKey = btDescribeKey(pOp->aKey, pOp->nKey);
      if( pOp->eCond == BT_COND_ABSENT ){
        rc = btError(p, SQLITE_CONSTRAINT_PRIMARYKEY, "UNIQUE constraint "
                     "failed: %s.rowkey (a row with key %s exists)",
                     p->zTable, zKey ? zKey : "?");
      }else{
        rc = btError(p, SQLITE_BUSY_SNAPSHOT, "another client changed or "
                     "deleted the row with key %s after this statement read "
                     "it; run the statement again to act on the row as it is "
                     "now", zKey ? zKey : "?");
      }
      sqlite3_free(zKey);
      break;
    }
    default: {
      char *z = btRpcDescribe(p, "could not write to", codeWhy, zWhy);
      rc = btRpcCode(codeWhy);
      rc = z ? btError(p, rc, "widecol %s: %s%s%s%s", p->zTable, z,
                       btMaybeApplied(rc) ? "; the row was sent, but no "
                       "answer came, so " : "",
                       btMaybeApplied(rc) ? btEngine.zName : "",
                       btMaybeApplied(rc) ? " may yet apply it: read it "
                       "to know" : "")
             : SQLITE_NOMEM;
      sqlite3_free(z);
      break;
    }
  }
  sqlite3_free(zWhy);
  return rc;
}
