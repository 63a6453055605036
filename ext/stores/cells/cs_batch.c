/*
** cs_batch.c: writes waiting to be sent, and sending them (cs_table.h).
**
** Each engine table the connection writes has a batch: its writes in the
** order they were queued.  csTxnFlush() sends every batch in three
** phases, so that a failure anywhere leaves every row with its index
** entries:
**   1. index entries put (each under its write's stamp), in batches of
**      rows (the transport's xMutateRows);
**   2. rows: blind writes in batches per table, then the conditional ones
**      (xCheckStart), CS_INFLIGHT in flight at once; a row whose entries
**      failed in phase 1 is not written;
**   3. the index entries the rows no longer have, deleted once their row
**      was written, and the entries of rows that were not written
**      (garbage, which reads ignore anyway).
** An engine applies the rows of one batch in any order, even two of one
** row (Bigtable's MutateRows: googleapis bigtable.proto): so a second
** blind write of a key waiting is merged into the first (one entry,
** mutations in order), and a write queued behind a conditional one of its
** key first sends the batch.
**
** A conditional write whose call ended without an answer (the connection
** lost, a deadline) may have been applied: the row's marker tells (it
** carries the write's stamp if so), and the write is sent again if not.
** One the engine refused to apply for now (CS_AGAIN: a region splitting)
** is sent again unread.  The writes to send again go together, after one
** backoff, so that a split under a load of writes costs one pause, not
** one a write in flight.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

struct CsBatch {
  char *zResource;
  WcArena arena;
  CsOp **apOp;          /* In the order queued */
  int nOp;
  int nAlloc;
  int *aiSlot;          /* Phase 2: key -> index in apOp + 1 of its last
                        ** write (open addressing) */
  int nSlot;            /* A power of two, or 0 */
  int nKey;
  const char *zTable;   /* The writing table's name and KEYS, in arena, */
  const char *zKeys;    /* as the last write queued gave them */
  CsBatch *pNext;
};

/*
** Batches.
*/

CsBatch *csBatchOf(CsTable *p, const char *zResource){
  CsTxn *pTxn = p->pTxn;
  CsBatch *pB;
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

static void batchClear(CsBatch *pB){
  wcArenaFree(&pB->arena);
  pB->nOp = 0;
  if( pB->aiSlot ) memset(pB->aiSlot, 0, sizeof(int) * (size_t)pB->nSlot);
  pB->nKey = 0;
  pB->zTable = pB->zKeys = 0;
}

/* Names pOp's writer, p, in pB's arena (shared by its consecutive writes). */
static void nameWriter(CsTable *p, CsBatch *pB, CsOp *pOp){
  if( pB->zTable == 0 || strcmp(pB->zTable, p->zTable) != 0 ){
    pB->zTable = wcArenaCopy(&pB->arena, p->zTable, strlen(p->zTable) + 1);
    pB->zKeys = p->args.zKeys ? wcArenaCopy(&pB->arena, p->args.zKeys,
                                       strlen(p->args.zKeys) + 1) : 0;
  }
  pOp->zTable = pB->zTable;
  pOp->zKeys = pB->zKeys;
}

void csBatchFreeAll(CsTxn *pTxn){
  while( pTxn->pBatches ){
    CsBatch *pB = pTxn->pBatches;
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
static int *keySlot(CsBatch *pB, const unsigned char *aKey, size_t nKey){
  int i = (int)(wcBytesHash(aKey, (int64_t)nKey)
                & (uint32_t)(pB->nSlot - 1));
  /* A power of two, at most half full: a free slot ends every probe. */
  wcAssert( pB->nSlot > 0 && (pB->nSlot & (pB->nSlot - 1)) == 0
            && 2 * pB->nKey <= pB->nSlot );
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
static int keyIndex(CsBatch *pB, int i){
  CsOp *pOp = pB->apOp[i];
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
      CsOp *pK = pB->apOp[k];
      if( pK->iPhase == CS_PHASE_ROW ){
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
static CsOp *lastOf(CsBatch *pB, const unsigned char *aKey, size_t nKey){
  int *pSlot;
  if( pB->nSlot == 0 ) return 0;
  pSlot = keySlot(pB, aKey, nKey);
  return *pSlot ? pB->apOp[*pSlot - 1] : 0;
}

static CsBatch *findBatch(CsTxn *pTxn, const char *zResource){
  CsBatch *pB;
  for(pB = pTxn->pBatches; pB; pB = pB->pNext){
    if( strcmp(pB->zResource, zResource) == 0 ) return pB;
  }
  return 0;
}

CsOp *csOpWaiting(CsTxn *pTxn, const char *zResource,
                  const unsigned char *aKey, size_t nKey){
  CsBatch *pB = findBatch(pTxn, zResource);
  return pB ? lastOf(pB, aKey, nKey) : 0;
}

int csKeyWaiting(CsTxn *pTxn, const char *zResource,
                 const unsigned char *aKey, size_t nKey){
  return csOpWaiting(pTxn, zResource, aKey, nKey) != 0;
}

/*
** Writes.
*/

WcArena *csBatchArena(CsBatch *pB){
  return &pB->arena;
}

CsOp *csOpNew(WcArena *pA, int iPhase, const unsigned char *aKey,
              size_t nKey, int nMutMax){
  CsOp *pOp = wcArenaAlloc(pA, sizeof(*pOp));
  if( pOp == 0 ) return 0;
  pOp->pArena = pA;
  pOp->iPhase = iPhase;
  pOp->aKey = wcArenaCopy(pA, aKey, nKey);
  pOp->nKey = nKey;
  pOp->nMutAlloc = nMutMax > 0 ? nMutMax : 1;
  pOp->aMut = wcArenaAlloc(pA, sizeof(CsMutation) * (size_t)pOp->nMutAlloc);
  if( pOp->aKey == 0 || pOp->aMut == 0 ) return 0;
  return pOp;
}

/* Appends *pM to pOp's mutations, its bytes as they are (in the same
** arena, or outliving the write). */
int csOpAdd(CsOp *pOp, const CsMutation *pM){
  wcAssert( pOp->nMut <= pOp->nMutAlloc );
  if( pOp->nMut == pOp->nMutAlloc ){
    int nNew = pOp->nMutAlloc * 2;
    CsMutation *aNew = wcArenaAlloc(pOp->pArena,
                                    sizeof(CsMutation) * (size_t)nNew);
    if( aNew == 0 ) return SQLITE_NOMEM;
    memcpy(aNew, pOp->aMut, sizeof(CsMutation) * (size_t)pOp->nMut);
    pOp->aMut = aNew;
    pOp->nMutAlloc = nNew;
  }
  pOp->aMut[pOp->nMut++] = *pM;
  return SQLITE_OK;
}

/* A mutation of a cell of column (zFamily, aQual), the qualifier copied
** into pOp's arena; the family's name outlives the write (a table's). */
static int opAddCell(CsOp *pOp, CsMutation *pM, const char *zFamily,
                     const unsigned char *aQual, size_t nQual){
  pM->zFamily = zFamily;
  pM->qual.a = wcArenaCopy(pOp->pArena, aQual, nQual);
  pM->qual.n = nQual;
  return pM->qual.a ? csOpAdd(pOp, pM) : SQLITE_NOMEM;
}

int csOpSet(CsOp *pOp, const char *zFamily, const unsigned char *aQual,
            size_t nQual, const unsigned char *a, size_t n, int64_t iMicros){
  CsMutation m;
  memset(&m, 0, sizeof(m));
  m.eOp = CS_SET_CELL;
  m.iMicros = iMicros;
  m.value.a = wcArenaCopy(pOp->pArena, a, n);
  m.value.n = n;
  if( m.value.a == 0 ) return SQLITE_NOMEM;
  return opAddCell(pOp, &m, zFamily, aQual, nQual);
}

int csOpDeleteCells(CsOp *pOp, const char *zFamily, const unsigned char *aQual,
                    size_t nQual, int64_t iFrom, int64_t iTo){
  CsMutation m;
  memset(&m, 0, sizeof(m));
  m.eOp = CS_DELETE_CELLS;
  m.iFrom = iFrom;
  m.iTo = iTo;
  return opAddCell(pOp, &m, zFamily, aQual, nQual);
}

int csOpDeleteRow(CsOp *pOp){
  CsMutation m;
  memset(&m, 0, sizeof(m));
  m.eOp = CS_DELETE_ROW;
  return csOpAdd(pOp, &m);
}

/* Roughly what a write adds to a request, for the batch's size. */
static int64_t opBytes(const CsOp *pOp){
  int64_t n = (int64_t)pOp->nKey + 16;
  int i;
  for(i = 0; i < pOp->nMut; i++){
    const CsMutation *pM = &pOp->aMut[i];
    n += 16 + (int64_t)pM->qual.n + (int64_t)pM->value.n;
  }
  return n;
}

static int appendOp(CsBatch *pB, CsOp *pOp){
  if( pB->nOp == pB->nAlloc ){
    int nNew = pB->nAlloc ? 2 * pB->nAlloc : 64;
    CsOp **apNew = sqlite3_realloc64(pB->apOp, sizeof(CsOp*) * (size_t)nNew);
    if( apNew == 0 ) return SQLITE_NOMEM;
    pB->apOp = apNew;
    pB->nAlloc = nNew;
  }
  pB->apOp[pB->nOp++] = pOp;
  return pOp->iPhase == CS_PHASE_ROW ? keyIndex(pB, pB->nOp - 1) : SQLITE_OK;
}

int csOpRoom(CsTable *p, CsBatch *pB, int iPhase, const unsigned char *aKey,
             size_t nKey){
  CsTxn *pTxn = p->pTxn;
  CsOp *pLast;
  /* A full batch goes first; never between a row's write and the deletes
  ** of its old index entries (phase 3), which follow it. */
  if( iPhase != CS_PHASE_DELETE
   && (pTxn->nOp >= CS_BATCH_ROWS || pTxn->nByte >= CS_BATCH_BYTES) ){
    return csTxnFlush(p, 0, 0);
  }
  /* A write behind a conditional one of its key: that one goes first, so
  ** that their order holds. */
  pLast = iPhase == CS_PHASE_ROW ? lastOf(pB, aKey, nKey) : 0;
  if( pLast && pLast->eCond != CS_COND_NONE ) return csTxnFlush(p, 0, 0);
  return SQLITE_OK;
}

int csOpQueue(CsTable *p, CsBatch *pB, CsOp *pOp){
  CsTxn *pTxn = p->pTxn;
  int rc;
  wcAssert( pOp->iPhase >= CS_PHASE_PUT && pOp->iPhase <= CS_PHASE_DELETE );
  wcAssert( pOp->eCond >= CS_COND_NONE && pOp->eCond <= CS_COND_NOMARK );
  /* Only a row is conditional; only an old entry's delete follows a row;
  ** only a blind write keeps no expected marker. */
  wcAssert( pOp->eCond == CS_COND_NONE || pOp->iPhase == CS_PHASE_ROW );
  wcAssert( pOp->pRow == 0 || pOp->iPhase == CS_PHASE_DELETE );
  wcAssert( (pOp->eCond == CS_COND_NONE || pOp->eCond == CS_COND_ABSENT)
            || pOp->aExpect != 0 );
  wcAssert( pOp->pArena == &pB->arena && pOp->nMut <= pOp->nMutAlloc );
  if( pB->arena.bOom ) return SQLITE_NOMEM;
  pOp->pBatch = pB;
  nameWriter(p, pB, pOp);
  if( pB->arena.bOom ) return SQLITE_NOMEM;
  if( pOp->iPhase == CS_PHASE_ROW ){
    CsOp *pLast = lastOf(pB, pOp->aKey, pOp->nKey);
    if( pLast && pLast->eCond == CS_COND_NONE && pOp->eCond == CS_COND_NONE ){
      /* One entry per key: the mutations of both, in order. */
      int i;
      for(i = 0; i < pOp->nMut; i++){
        if( csOpAdd(pLast, &pOp->aMut[i]) ) return SQLITE_NOMEM;
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

void csTxnDrop(CsTxn *pTxn, int64_t iSeq){
  CsBatch *pB;
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
        if( pB->apOp[k]->iPhase == CS_PHASE_ROW ) keyIndex(pB, k);
      }
    }
  }
  if( pTxn->nOp <= 0 ){
    pTxn->nOp = 0;
    pTxn->nByte = 0;
  }
}

void csTxnKeepFailure(CsTxn *pTxn, int rc, const char *zMsg){
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
#define CS_LISTED 5
typedef struct Flush Flush;
struct Flush {
  CsTable *p;           /* The table that asked for it */
  int rc;               /* The first failure's code */
  const char *zTable;   /* The widecol table of the first failure, */
  const char *zKeys;    /* what its row key is made from (or 0) */
  int nNotWritten;      /* Rows not written */
  int nUnique;          /* ... of them, inserts whose key was in use */
  int nMaybe;           /* ... of them, sent without an answer: the engine
                        ** may yet apply them */
  int nWritten;         /* Rows written */
  int nListed;          /* The first few, and why */
  char *azKey[CS_LISTED];
  char *azWhy[CS_LISTED];
  const char *azTable[CS_LISTED];
  WcBuf failedStamps;   /* Writes (8 bytes each) not applied in full */
  char *zPutFailure;    /* Why phase 1 failed, if it did */
};

/* True if a write carries no stamp: an EXISTING table's, which has no
** marker. */
static int stampNone(const unsigned char *aStamp){
  static const unsigned char aZero[CS_STAMP] = {0};
  return memcmp(aStamp, aZero, CS_STAMP) == 0;
}

static int stampIn(const WcBuf *pSet, const unsigned char *aStamp){
  int64_t i;
  if( stampNone(aStamp) ) return 0;
  for(i = 0; i + CS_STAMP <= pSet->n; i += CS_STAMP){
    if( memcmp(pSet->a + i, aStamp, CS_STAMP) == 0 ) return 1;
  }
  return 0;
}

/* The table whose connection, deadline and counters serve batch pB. */
static CsTable *tableOf(Flush *pF, CsBatch *pB){
  CsTable *pT = csTableOn(pF->p->pTxn, pB->zResource);
  return pT ? pT : pF->p;
}

/* Why an insert onto another program's cells (CS_OUT_FOREIGN) was not
** written, and what to do; sqlite3_free() it. */
static char *foreignWhy(const CsTable *pT){
  return sqlite3_mprintf("the key holds cells another program wrote "
      "without widecol's marker, which no statement reads as a row (%s, "
      "Tables another application wrote to); an INSERT does not write over "
      "them: INSERT OR REPLACE replaces them with the row, or delete them "
      "first", pT->pT->pKind->zDocs);
}

/* Records that row write pOp was not applied, and why (eOutcome;
** zWhy for a failure). */
static void notWritten(Flush *pF, CsTable *pT, CsOp *pOp, int eOutcome,
                       int rc, const char *zWhy){
  int i;
  pOp->eOutcome = eOutcome;
  wcBufAppend(&pF->failedStamps, pOp->aStamp, CS_STAMP);
  pF->nNotWritten++;
  if( eOutcome == CS_OUT_FAILED && csMaybeApplied(rc) ) pF->nMaybe++;
  if( eOutcome == CS_OUT_CONFLICT && pOp->eCond == CS_COND_ABSENT ){
    pF->nUnique++;
    rc = SQLITE_CONSTRAINT_UNIQUE;
  }else if( eOutcome == CS_OUT_CONFLICT ){
    rc = SQLITE_BUSY_SNAPSHOT;
  }else if( eOutcome == CS_OUT_FOREIGN ){
    rc = SQLITE_CONSTRAINT;
  }
  if( pF->zTable == 0 ){
    pF->zTable = pOp->zTable ? pOp->zTable : pT->zTable;
    pF->zKeys = pOp->zTable ? pOp->zKeys : pT->args.zKeys;
  }
  if( pF->rc == SQLITE_OK ) pF->rc = rc;
  if( pF->nListed >= CS_LISTED ) return;
  i = pF->nListed++;
  pF->azTable[i] = pOp->zTable ? pOp->zTable : pT->zTable;
  pF->azKey[i] = csDescribeKey(pOp->aKey, pOp->nKey);
  switch( eOutcome ){
    case CS_OUT_CONFLICT:
      pF->azWhy[i] = sqlite3_mprintf("%s", pOp->eCond == CS_COND_ABSENT
          ? "a row with this key exists"
          : "another client changed or deleted the row after this statement "
            "read it (run the statement again to act on the row as it is "
            "now)");
      break;
    case CS_OUT_SKIPPED:
      pF->azWhy[i] = sqlite3_mprintf("its index entries could not be written "
          "first (%s)", pF->zPutFailure ? pF->zPutFailure : "?");
      break;
    case CS_OUT_FOREIGN:
      pF->azWhy[i] = foreignWhy(pT);
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

/* Sends the writes apOp[0..nOp) of one table (the transport's
** xMutateRows); rows refused with a code worth a retry, or left without an
** answer by a call that is, are sent again until the deadline.  Each
** write's outcome is set; on a failure *pzWhy (if 0) says why. */
static void sendBlind(CsTable *pT, const char *zResource, CsOp **apOp,
                      int nOp, char **pzWhy, int *pCodeWhy){
  CsEntry *aEntry = sqlite3_malloc64(sizeof(CsEntry) * (size_t)(nOp + 1));
  int *aiTodo = sqlite3_malloc64(sizeof(int) * (size_t)(nOp + 1));
  CsStatus st = {0, 0};
  int64_t iStart = wcMonotonicMs();
  CsWait w = csRetryWait(&pT->wait, iStart);
  int nTodo = nOp, nAttempt = 0, k;
  if( aEntry == 0 || aiTodo == 0 ){
    for(k = 0; k < nOp; k++) apOp[k]->eOutcome = CS_OUT_FAILED;
    if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
    *pCodeWhy = CS_INTERNAL;
    nTodo = 0;
  }
  for(k = 0; k < nTodo; k++){
    aiTodo[k] = k;
    apOp[k]->eOutcome = CS_OUT_WAIT;
  }
  while( nTodo > 0 ){
    int code, bRetry = 1, nLeft = 0;
    for(k = 0; k < nTodo; k++){
      const CsOp *pOp = apOp[aiTodo[k]];
      aEntry[k].key.a = pOp->aKey;
      aEntry[k].key.n = pOp->nKey;
      aEntry[k].nMut = pOp->nMut;
      aEntry[k].aMut = pOp->aMut;
      aEntry[k].code = CS_UNAVAILABLE;
    }
    csStatusClear(&st);
    code = pT->pT->xMutateRows(pT->pConn, zResource, aEntry, nTodo, &w, &st);
    for(k = 0; k < nTodo; k++){
      CsOp *pOp = apOp[aiTodo[k]];
      wcAssert( code == CS_OK || aEntry[k].code != CS_UNAVAILABLE
                || code == CS_UNAVAILABLE || aEntry[k].code == code );
      if( aEntry[k].code == CS_OK ){
        pOp->eOutcome = CS_OUT_OK;
        continue;
      }
      if( !csRetryable(aEntry[k].code) ) bRetry = 0;
      if( code == CS_OK && *pzWhy == 0 ){
        /* Refused, the row alone: the transport said why. */
        *pzWhy = sqlite3_mprintf("%s", st.zMsg ? st.zMsg : "refused");
        *pCodeWhy = aEntry[k].code;
      }
      aiTodo[nLeft++] = aiTodo[k];
    }
    nTodo = nLeft;
    if( nTodo == 0 ) break;
    if( bRetry ){
      int c = csBackoff(&pT->wait, ++nAttempt, iStart);
      if( c == CS_CANCELLED ){
        sqlite3_free(*pzWhy);
        *pzWhy = sqlite3_mprintf("interrupted while waiting to send again");
        *pCodeWhy = CS_CANCELLED;
        code = CS_OK;
        bRetry = 0;
      }else if( c != CS_OK ){
        bRetry = 0;
      }
    }
    if( !bRetry ){
      for(k = 0; k < nTodo; k++) apOp[aiTodo[k]]->eOutcome = CS_OUT_FAILED;
      if( code != CS_OK ){
        sqlite3_free(*pzWhy);
        *pzWhy = sqlite3_mprintf("%s", st.zMsg ? st.zMsg : "failed");
        *pCodeWhy = code;
      }
      break;
    }
    pT->pT->xRetryNow(pT->pConn);
  }
  csStatusClear(&st);
  sqlite3_free(aEntry);
  sqlite3_free(aiTodo);
}

/* True if write pOp sets the row marker: then every row it writes has
** one, the cell a condition on the whole row can be checked on. */
static int opSetsMarker(const CsOp *pOp){
  int i;
  for(i = 0; i < pOp->nMut; i++){
    const CsMutation *pM = &pOp->aMut[i];
    if( pM->eOp == CS_SET_CELL && pM->qual.n == 0
     && strcmp(pM->zFamily, WC_DEFAULT_FAMILY) == 0 ){
      return 1;
    }
  }
  return 0;
}

/* The condition of conditional write pOp, on its row's marker, in pA;
** NULL on OOM. */
static const CsCheck *checkOf(CsOp *pOp, WcArena *pA){
  CsCheck *pCheck = wcArenaAlloc(pA, sizeof(*pCheck));
  if( pCheck == 0 ) return 0;
  pCheck->zFamily = csMarkerColumn.zFamily;
  pCheck->qual = csMarkerColumn.qual;
  pCheck->value.a = pOp->aExpect;
  pCheck->value.n = pOp->nExpect;
  switch( pOp->eCond ){
    case CS_COND_ABSENT:
      pCheck->eCond = CS_ROW_ABSENT;
      if( !opSetsMarker(pOp) ) pCheck->zFamily = 0;
      break;
    case CS_COND_MARKER: pCheck->eCond = CS_CELL_EQUAL;  break;
    case CS_COND_PREFIX: pCheck->eCond = CS_CELL_PREFIX; break;
    default:
      wcAssert( pOp->eCond == CS_COND_NOMARK );
      pCheck->eCond = CS_CELL_ABSENT;
      break;
  }
  return pCheck;
}

/* Starts conditional write pOp (its condition made in pA); NULL on OOM. */
static CsPending *checkStart(CsTable *pT, const char *zRes, CsOp *pOp,
                             WcArena *pA, const CsWait *pWait){
  const CsCheck *pCheck = checkOf(pOp, pA);
  CsBytes key;
  if( pCheck == 0 ) return 0;
  key.a = pOp->aKey;
  key.n = pOp->nKey;
  return pT->pT->xCheckStart(pT->pConn, zRes, key, pCheck, pOp->aMut,
                             pOp->nMut, pWait);
}

/* What settleUnknown() reads of a row: whether it has any cell (bRow),
** and its latest marker (bMarker, marker); for a write with no marker
** (pCells: an EXISTING table's), how many of its cells the row holds as
** written (nSame). */
typedef struct MarkerRead MarkerRead;
struct MarkerRead {
  int bRow;
  int bMarker;
  WcBuf marker;
  const CsOp *pCells;
  int nSame;
};

static void markerBegin(void *pCtx){
  MarkerRead *pR = (MarkerRead*)pCtx;
  pR->bRow = pR->bMarker = 0;
  pR->marker.n = 0;
  pR->nSame = 0;
}

/* True if mutation pM sets the cell pC read. */
static int sameCell(const CsCell *pC, const CsMutation *pM){
  return pM->eOp == CS_SET_CELL && pM->iMicros == pC->iMicros
      && strcmp(pM->zFamily, pC->zFamily) == 0
      && pM->qual.n == pC->qual.n
      && (pM->qual.n == 0 || memcmp(pM->qual.a, pC->qual.a, pM->qual.n) == 0)
      && pM->value.n == pC->value.n
      && (pM->value.n == 0
          || memcmp(pM->value.a, pC->value.a, pM->value.n) == 0);
}

static void markerRow(void *pCtx, const CsRow *pRow){
  MarkerRead *pR = (MarkerRead*)pCtx;
  int i, k;
  pR->bRow = 1;
  for(i = 0; i < pRow->nCell; i++){
    const CsCell *pC = &pRow->aCell[i];
    if( pC->qual.n == 0 && strcmp(pC->zFamily, WC_DEFAULT_FAMILY) == 0
     && !pR->bMarker ){
      pR->bMarker = 1;
      wcBufAppend(&pR->marker, pC->value.a, (int64_t)pC->value.n);
    }
    for(k = 0; pR->pCells && k < pR->pCells->nMut; k++){
      if( sameCell(pC, &pR->pCells->aMut[k]) ){
        pR->nSame++;
        break;
      }
    }
  }
}

/* The cells write pOp sets (a write with no marker). */
static int cellsSet(const CsOp *pOp){
  int i, n = 0;
  for(i = 0; i < pOp->nMut; i++) n += pOp->aMut[i].eOp == CS_SET_CELL;
  return n;
}

/* True if the marker read is the one pOp expects (or begins with it, for
** CS_COND_PREFIX). */
static int expectHolds(const CsOp *pOp, const MarkerRead *pR){
  return pR->bMarker && pR->marker.n >= (int64_t)pOp->nExpect
      && (pOp->nExpect == 0
          || memcmp(pR->marker.a, pOp->aExpect, pOp->nExpect) == 0)
      && (pOp->eCond == CS_COND_PREFIX
          || pR->marker.n == (int64_t)pOp->nExpect);
}

/* Reads write pOp's row into *pRd (its marker alone where bMarkerOnly,
** else whole): CS_OK or the read's failure.  The connection that lost a
** write's answer may lose this one too: csReadAll() sends it again. */
static int readRowOf(CsTable *pT, const char *zRes, const CsOp *pOp,
                     int bMarkerOnly, MarkerRead *pRd){
  CsStatus st = {0, 0};
  CsRead read;
  CsBytes key;
  CsRowSink sink;
  int code;
  memset(&read, 0, sizeof(read));
  key.a = pOp->aKey;
  key.n = pOp->nKey;
  read.zTable = zRes;
  read.nKey = 1;
  read.aKey = &key;
  if( bMarkerOnly ){
    read.nColumn = 1;
    read.aColumn = &csMarkerColumn;
  }
  sink.xBegin = markerBegin;
  sink.xRow = markerRow;
  sink.pCtx = pRd;
  code = csReadAll(pT, &read, &pT->wait, &sink, &st);
  csStatusClear(&st);
  return code == CS_OK && pRd->marker.bOom ? CS_INTERNAL : code;
}

/* After a conditional write's call ended without an answer: reads the
** row's marker.  CS_OUT_OK if the write was applied (the marker carries
** its stamp; a delete: no marker; a write with no marker, an EXISTING
** table's: the row holds each of its cells, at its time), CS_OUT_WAIT if
** its condition still holds (send it again), CS_OUT_CONFLICT if not;
** CS_OUT_FAILED if the read failed too. */
static int settleUnknown(CsTable *pT, const char *zRes, CsOp *pOp,
                         int bDeletes){
  MarkerRead rd;
  int eOut, nCell = 0;
  memset(&rd, 0, sizeof(rd));
  if( !bDeletes && stampNone(pOp->aStamp) ){
    nCell = cellsSet(pOp);
    if( nCell > 0 ) rd.pCells = pOp;
  }
  if( readRowOf(pT, zRes, pOp, pOp->eCond != CS_COND_ABSENT, &rd) != CS_OK ){
    eOut = CS_OUT_FAILED;
  }else if( bDeletes ){
    /* A delete is done when the marker is gone. */
    eOut = !rd.bMarker ? CS_OUT_OK
         : (pOp->eCond == CS_COND_MARKER || pOp->eCond == CS_COND_PREFIX)
           && expectHolds(pOp, &rd) ? CS_OUT_WAIT : CS_OUT_CONFLICT;
  }else if( rd.pCells && rd.nSame == nCell ){
    eOut = CS_OUT_OK;
  }else if( rd.bMarker && rd.marker.n >= 1 + CS_STAMP
         && memcmp(rd.marker.a + 1, pOp->aStamp, CS_STAMP) == 0 ){
    eOut = CS_OUT_OK;
  }else if( pOp->eCond == CS_COND_ABSENT ){
    eOut = rd.bRow ? CS_OUT_CONFLICT : CS_OUT_WAIT;
  }else if( pOp->eCond == CS_COND_NOMARK ){
    eOut = rd.bMarker ? CS_OUT_CONFLICT : CS_OUT_WAIT;
  }else{
    eOut = expectHolds(pOp, &rd) ? CS_OUT_WAIT : CS_OUT_CONFLICT;
  }
  wcBufFree(&rd.marker);
  return eOut;
}

/* True if write pOp leaves no row (it begins with a delete of the row and
** sets nothing after). */
static int opDeletesRow(const CsOp *pOp){
  int i;
  if( pOp->nMut == 0 || pOp->aMut[0].eOp != CS_DELETE_ROW ) return 0;
  for(i = 1; i < pOp->nMut; i++){
    if( pOp->aMut[i].eOp == CS_SET_CELL ) return 0;
  }
  return 1;
}

/* True if an insert found its key in use by cells without a marker
** (another program's, written past widecol): read whole, the row has
** cells and no marker.  A write without a stamp (an EXISTING table's,
** which has no marker) never is. */
static int foreignCells(CsTable *pT, const char *zRes, const CsOp *pOp){
  MarkerRead rd;
  int bForeign;
  if( stampNone(pOp->aStamp) ) return 0;
  memset(&rd, 0, sizeof(rd));
  bForeign = readRowOf(pT, zRes, pOp, 0, &rd) == CS_OK
          && rd.bRow && !rd.bMarker;
  wcBufFree(&rd.marker);
  return bForeign;
}

/* The answer of one conditional write's call: its outcome, and on a
** failure the message in *pzWhy (if 0). */
static int conditionalOutcome(CsTable *pT, const char *zRes, CsOp *pOp,
                              int code, CsStatus *pSt, int bApplied,
                              char **pzWhy, int *pCodeWhy){
  if( code == CS_OK ){
    if( bApplied ) return CS_OUT_OK;
    if( pOp->eCond == CS_COND_ABSENT && foreignCells(pT, zRes, pOp) ){
      return CS_OUT_FOREIGN;
    }
    return CS_OUT_CONFLICT;
  }
  if( code == CS_AGAIN ){
    /* Not applied (cs_transport.h): the row need not be read. */
    pT->pT->xRetryNow(pT->pConn);
    return CS_OUT_WAIT;
  }
  if( csRetryable(code) || code == CS_DEADLINE ){
    int eOut;
    pT->pT->xRetryNow(pT->pConn);
    eOut = settleUnknown(pT, zRes, pOp, opDeletesRow(pOp));
    if( eOut == CS_OUT_CONFLICT && pOp->eCond != CS_COND_ABSENT ){
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
      return CS_OUT_FAILED;
    }
    if( eOut != CS_OUT_FAILED ) return eOut;
  }
  if( *pzWhy == 0 ){
    *pzWhy = sqlite3_mprintf("%s", pSt->zMsg ? pSt->zMsg : "failed");
    *pCodeWhy = code;
  }
  return CS_OUT_FAILED;
}

/* One round of sendConditional(): the writes apOp[0..nOp) sent, CS_INFLIGHT
** in flight at once, each with pWait; each write's outcome is set.  Those
** to be sent again (CS_OUT_WAIT) are moved to the front of apOp, in order,
** and counted in the return; the engine's words of the last that it asked
** to send again are in *pzAgain. */
static int sendRound(CsTable *pT, const char *zResource, CsOp **apOp,
                     int nOp, const CsWait *pWait, char **pzAgain,
                     char **pzWhy, int *pCodeWhy){
  CsPending *apCall[CS_INFLIGHT];
  int aiOp[CS_INFLIGHT];
  WcArena arena;
  int iNext = 0, nFly = 0, iOld = 0, nLeft = 0;
  memset(&arena, 0, sizeof(arena));
  while( iNext < nOp || nFly > 0 ){
    wcAssert( nFly >= 0 && nFly <= CS_INFLIGHT );
    if( iNext < nOp && nFly < CS_INFLIGHT ){
      CsOp *pOp = apOp[iNext];
      int iSlot = (iOld + nFly) % CS_INFLIGHT;
      apCall[iSlot] = checkStart(pT, zResource, pOp, &arena, pWait);
      if( apCall[iSlot] == 0 ){
        pOp->eOutcome = CS_OUT_FAILED;
        if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
        *pCodeWhy = CS_INTERNAL;
      }else{
        aiOp[iSlot] = iNext;
        nFly++;
      }
      iNext++;
      continue;
    }
    {
      CsStatus st = {0, 0};
      CsOp *pOp = apOp[aiOp[iOld]];
      int bApplied = 0;
      int code = pT->pT->xCheckFinish(apCall[iOld], &bApplied, &st);
      pOp->eOutcome = conditionalOutcome(pT, zResource, pOp, code, &st,
                                         bApplied, pzWhy, pCodeWhy);
      if( pOp->eOutcome == CS_OUT_WAIT ){
        /* Answers come in the order sent, so slot nLeft was sent before
        ** this one and is no longer needed. */
        wcAssert( nLeft <= aiOp[iOld] );
        apOp[nLeft++] = pOp;
        if( code == CS_AGAIN && st.zMsg ){
          sqlite3_free(*pzAgain);
          *pzAgain = sqlite3_mprintf("%s", st.zMsg);
        }
      }
      csStatusClear(&st);
      iOld = (iOld + 1) % CS_INFLIGHT;
      nFly--;
    }
  }
  wcArenaFree(&arena);
  return nLeft;
}

/* Sends the conditional writes apOp[0..nOp) of one table; each write's
** outcome is set.  The writes to be sent again (no answer came and their
** condition still holds, or the engine asked: a region moving or
** splitting, say) go again together, after one backoff a round rather
** than one a write, until each has an answer or the deadline (from the
** first failure) passes. */
static void sendConditional(CsTable *pT, const char *zResource, CsOp **apOp,
                            int nOp, char **pzWhy, int *pCodeWhy){
  CsOp **apTodo = sqlite3_malloc64(sizeof(CsOp*) * (size_t)(nOp + 1));
  char *zAgain = 0;
  int64_t iStart = 0;
  CsWait w = pT->wait;
  int nTodo = nOp, nAttempt = 0, k;
  if( apTodo == 0 ){
    for(k = 0; k < nOp; k++) apOp[k]->eOutcome = CS_OUT_FAILED;
    if( *pzWhy == 0 ) *pzWhy = sqlite3_mprintf("out of memory");
    *pCodeWhy = CS_INTERNAL;
    return;
  }
  memcpy(apTodo, apOp, sizeof(CsOp*) * (size_t)nOp);
  while( nTodo > 0 ){
    if( nAttempt > 0 ){
      int code = csBackoff(&pT->wait, nAttempt, iStart);
      if( code != CS_OK ){
        for(k = 0; k < nTodo; k++) apTodo[k]->eOutcome = CS_OUT_FAILED;
        if( *pzWhy == 0 ){
          *pzWhy = code == CS_CANCELLED
            ? sqlite3_mprintf("interrupted while waiting to send again")
            : zAgain
            ? sqlite3_mprintf("the conditional write was not applied "
                              "within the deadline: %s", zAgain)
            : sqlite3_mprintf("the conditional write had no answer, and no "
                              "time was left within the deadline to ask "
                              "again");
          *pCodeWhy = code;
        }
        break;
      }
    }
    nTodo = sendRound(pT, zResource, apTodo, nTodo, &w, &zAgain, pzWhy,
                      pCodeWhy);
    if( nTodo > 0 && nAttempt++ == 0 ){
      iStart = wcMonotonicMs();
      w = csRetryWait(&pT->wait, iStart);
    }
  }
  sqlite3_free(zAgain);
  sqlite3_free(apTodo);
}

/* The writes of phase iPhase waiting in pB that are to go, in *papOp
** (sqlite3_malloc); their number, or -1 on OOM. */
static int collect(CsBatch *pB, int iPhase, int eCondSet, CsOp ***papOp){
  CsOp **ap = sqlite3_malloc64(sizeof(CsOp*) * (size_t)(pB->nOp + 1));
  int i, n = 0;
  wcAssert( eCondSet >= -1 && eCondSet <= 1 );
  if( ap == 0 ) return -1;
  for(i = 0; i < pB->nOp; i++){
    CsOp *pOp = pB->apOp[i];
    if( pOp->iPhase != iPhase || pOp->eOutcome != CS_OUT_WAIT ) continue;
    if( eCondSet >= 0 && (pOp->eCond != CS_COND_NONE) != eCondSet ) continue;
    ap[n++] = pOp;
  }
  *papOp = ap;
  return n;
}

/* Phase 1: every batch's index entries put.  A write whose entries fail
** is noted in failedStamps: its row is not written. */
static void flushPuts(Flush *pF){
  CsBatch *pB;
  for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
    CsTable *pT = tableOf(pF, pB);
    CsOp **apOp = 0;
    char *zWhy = 0;
    int n = collect(pB, CS_PHASE_PUT, -1, &apOp), i, codeWhy = CS_INTERNAL;
    if( n > 0 && csTableConnect(pT) == SQLITE_OK ){
      sendBlind(pT, pB->zResource, apOp, n, &zWhy, &codeWhy);
    }else{
      for(i = 0; i < n; i++) apOp[i]->eOutcome = CS_OUT_FAILED;
    }
    for(i = 0; i < n; i++){
      if( apOp[i]->eOutcome == CS_OUT_OK ) continue;
      wcBufAppend(&pF->failedStamps, apOp[i]->aStamp, CS_STAMP);
      if( pF->zPutFailure == 0 ){
        pF->zPutFailure = csRpcDescribe(pT, "could not write the entries to",
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
  CsBatch *pB;
  int bCond;
  for(bCond = 0; bCond <= 1; bCond++){
    for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
      CsTable *pT = tableOf(pF, pB);
      CsOp **apOp = 0;
      char *zWhy = 0;
      int n = collect(pB, CS_PHASE_ROW, bCond, &apOp), i, nGo = 0;
      int codeWhy = CS_INTERNAL;
      if( n < 0 ){
        if( pF->rc == SQLITE_OK ) pF->rc = SQLITE_NOMEM;
        continue;
      }
      for(i = 0; i < n; i++){
        if( stampIn(&pF->failedStamps, apOp[i]->aStamp) ){
          notWritten(pF, pT, apOp[i], CS_OUT_SKIPPED, SQLITE_ERROR, 0);
        }else{
          apOp[nGo++] = apOp[i];
        }
      }
      if( nGo > 0 && csTableConnect(pT) != SQLITE_OK ){
        for(i = 0; i < nGo; i++){
          notWritten(pF, pT, apOp[i], CS_OUT_FAILED, SQLITE_ERROR,
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
        if( apOp[i]->eOutcome == CS_OUT_OK ){
          pF->nWritten++;
        }else{
          char *zAt = csRpcDescribe(pT, "could not write to", codeWhy, zWhy);
          notWritten(pF, pT, apOp[i], apOp[i]->eOutcome, csRpcCode(codeWhy),
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
  CsBatch *pB;
  for(pB = pF->p->pTxn->pBatches; pB; pB = pB->pNext){
    CsTable *pT = tableOf(pF, pB);
    CsOp **apOp = sqlite3_malloc64(sizeof(CsOp*) * (size_t)(pB->nOp + 1));
    char *zWhy = 0;
    int n = 0, i, k, codeWhy = CS_INTERNAL;
    if( apOp == 0 ) continue;
    for(i = 0; i < pB->nOp; i++){
      CsOp *pOp = pB->apOp[i];
      if( pOp->iPhase == CS_PHASE_DELETE ){
        if( pOp->pRow && pOp->pRow->eOutcome != CS_OUT_OK ) continue;
        apOp[n++] = pOp;
      }else if( pOp->iPhase == CS_PHASE_PUT && pOp->eOutcome == CS_OUT_OK
             && stampIn(&pF->failedStamps, pOp->aStamp) ){
        /* Undo the put: delete what it set (its group's cells). */
        CsOp *pUndo = csOpNew(&pB->arena, CS_PHASE_DELETE, pOp->aKey,
                              pOp->nKey, pOp->nMut);
        for(k = 0; pUndo && k < pOp->nMut; k++){
          CsMutation del;
          if( pOp->aMut[k].eOp != CS_SET_CELL ) continue;
          memset(&del, 0, sizeof(del));
          del.eOp = CS_DELETE_CELLS;
          del.zFamily = pOp->aMut[k].zFamily;
          del.qual = pOp->aMut[k].qual;
          if( csOpAdd(pUndo, &del) ) break;
        }
        if( pUndo && pUndo->nMut > 0 ) apOp[n++] = pUndo;
      }
    }
    if( n > 0 && csTableConnect(pT) == SQLITE_OK ){
      sendBlind(pT, pB->zResource, apOp, n, &zWhy, &codeWhy);
      for(i = 0; i < n; i++){
        if( apOp[i]->eOutcome != CS_OUT_OK ){
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
  const CsTable *p = pF->p;
  const char *zTable = pF->zTable ? pF->zTable : p->zTable;
  char *zWhy, *zMsg, *zOthers;
  if( pF->nNotWritten == 0 ){
    return sqlite3_mprintf("widecol %s: out of memory while writing to %s",
                           zTable, p->pT->pKind->zEngine);
  }
  zOthers = sqlite3_mprintf("; the other rows sent with them were written: "
      "%s has no multi-row transactions (%s, What a statement guarantees)",
      p->pT->pKind->zEngine, p->pT->pKind->zDocs);
  if( zOthers == 0 ) return 0;
  zWhy = listedRows(pF);
  if( pF->nMaybe == pF->nNotWritten ){
    zMsg = sqlite3_mprintf("widecol %s: %d row%s may not have been written "
        "to %s: no answer came (%s), so %s "
        "may yet apply them; read them to know%s", zTable, pF->nNotWritten,
        pF->nNotWritten == 1 ? "" : "s", p->pT->pKind->zEngine,
        zWhy ? zWhy : "", p->pT->pKind->zEngine,
        pF->nWritten ? zOthers : "");
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
        pF->nNotWritten == 1 ? " was" : "s were", p->pT->pKind->zEngine,
        zWhy ? zWhy : "", pF->nWritten ? zOthers : "");
  }
  sqlite3_free(zWhy);
  sqlite3_free(zOthers);
  return zMsg;
}

/* A transaction whose writes failed sends nothing more: the error of a
** statement that would (cs_txn.c). */
static int failedBefore(CsTable *p){
  CsTxn *pTxn = p->pTxn;
  if( sqlite3_get_autocommit(p->db) ){
    /* The failure is this statement's own. */
    return csError(p, pTxn->rcFailed, "%s", pTxn->zFailed);
  }
  return csError(p, SQLITE_ERROR, "widecol %s: this statement would send "
      "writes to %s, but earlier writes of the transaction were not "
      "taken (%s), so it sends nothing more and COMMIT will fail: ROLLBACK, "
      "then run the transaction again", p->zTable, p->pT->pKind->zEngine,
      pTxn->zFailed);
}

int csTxnFlush(CsTable *p, int bReport, const unsigned char *aMine){
  CsTxn *pTxn = p->pTxn;
  Flush f;
  CsBatch *pB;
  int rc = SQLITE_OK, rcMine = SQLITE_OK;
  if( pTxn->zFailed && !bReport && (pTxn->nOp > 0 || aMine) ){
    return failedBefore(p);
  }
  if( pTxn->nOp == 0 ) return SQLITE_OK;
  memset(&f, 0, sizeof(f));
  f.p = p;
  flushPuts(&f);
  if( aMine && stampIn(&f.failedStamps, aMine) ){
    rcMine = csError(p, SQLITE_ERROR, "the row's index entries could not be "
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
      rc = csError(p, rc, "%s", zMsg);
    }else{
      /* Kept: in autocommit the running statement's failure, which it
      ** reports now and at its end (should a caller drop it); in a
      ** transaction the failure of statements that have returned. */
      csTxnKeepFailure(pTxn, rc, zMsg);
      rc = sqlite3_get_autocommit(p->db) ? csError(p, rc, "%s", zMsg)
                                         : SQLITE_OK;
    }
    sqlite3_free(zMsg);
  }
  for(pB = pTxn->pBatches; pB; pB = pB->pNext){
    int i;
    /* Every entry and row sent has its outcome (but where memory ran
    ** out before it could be sent). */
    for(i = 0; i < pB->nOp; i++){
      wcAssert( pB->apOp[i]->eOutcome != CS_OUT_WAIT
                || pB->apOp[i]->iPhase == CS_PHASE_DELETE
                || f.rc == SQLITE_NOMEM );
    }
    batchClear(pB);
  }
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

int csOpSendNow(CsTable *p, CsOp *pOp){
  char *zWhy = 0;
  int codeWhy = CS_INTERNAL, rc;
  /* What waits goes first: this row's index entries, and any write of its
  ** key, which the condition must see. */
  rc = csTxnFlush(p, 0, pOp->aStamp);
  if( rc != SQLITE_OK ) return rc;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  sendConditional(p, p->args.zResource, &pOp, 1, &zWhy, &codeWhy);
  p->pTxn->nSent++;
  switch( pOp->eOutcome ){
    case CS_OUT_OK:
      rc = SQLITE_OK;
      break;
    case CS_OUT_CONFLICT: {
      char *zKey = csDescribeKey(pOp->aKey, pOp->nKey);
      if( pOp->eCond == CS_COND_ABSENT ){
        rc = csError(p, SQLITE_CONSTRAINT_PRIMARYKEY, "UNIQUE constraint "
                     "failed: %s.rowkey (a row with key %s exists)",
                     p->zTable, zKey ? zKey : "?");
      }else{
        rc = csError(p, SQLITE_BUSY_SNAPSHOT, "another client changed or "
                     "deleted the row with key %s after this statement read "
                     "it; run the statement again to act on the row as it is "
                     "now", zKey ? zKey : "?");
      }
      sqlite3_free(zKey);
      break;
    }
    case CS_OUT_FOREIGN: {
      char *zKey = csDescribeKey(pOp->aKey, pOp->nKey);
      char *zForeign = foreignWhy(p);
      rc = csError(p, SQLITE_CONSTRAINT, "widecol %s: key %s: %s", p->zTable,
                   zKey ? zKey : "?", zForeign ? zForeign : "out of memory");
      sqlite3_free(zForeign);
      sqlite3_free(zKey);
      break;
    }
    default: {
      char *z = csRpcDescribe(p, "could not write to", codeWhy, zWhy);
      rc = csRpcCode(codeWhy);
      rc = z ? csError(p, rc, "widecol %s: %s%s%s%s", p->zTable, z,
                       csMaybeApplied(rc) ? "; the row was sent, but no "
                       "answer came, so " : "",
                       csMaybeApplied(rc) ? p->pT->pKind->zEngine : "",
                       csMaybeApplied(rc) ? " may yet apply it: read it "
                       "to know" : "")
             : SQLITE_NOMEM;
      sqlite3_free(z);
      break;
    }
  }
  sqlite3_free(zWhy);
  return rc;
}
