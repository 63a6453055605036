/*
** bt_write.c: writes and transactions of a widecol_bigtable table.
**
** Writes are batched: each row's mutations (atomic per row in Bigtable)
** wait in a MutateRows request that is sent when it holds BT_BATCH_ROWS
** rows, before any read of the table, and at COMMIT (xSync, so that a
** failure fails the COMMIT).  An INSERT that must not replace (every
** conflict mode but REPLACE) is one CheckAndMutateRow: the row is written
** only if its marker cell is absent, atomically, else the insert fails
** with SQLITE_CONSTRAINT_PRIMARYKEY; on a table given ASYNC_INSERTS up to
** BT_INFLIGHT of them are in flight, answered by the next btFlush().
** Transactions: see the comment above btBegin().
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_table.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/*
** Writes.
*/

static int64_t nowMicros(BtTable *p){
  struct timespec ts;
  int64_t t;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* Bigtable's default granularity is the millisecond. */
  t = ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * 1000;
  if( t <= p->iLastMicros ) t = p->iLastMicros + 1000;
  p->iLastMicros = t;
  return t;
}

static Wcbt__Mutation *newMutation(BtArena *pA){
  Wcbt__Mutation *pM = btArenaAlloc(pA, sizeof(*pM));
  if( pM ) wcbt__mutation__init(pM);
  return pM;
}

static Wcbt__Mutation *mutSetCell(BtArena *pA, const char *zFamily,
                                  const char *zQual, const unsigned char *a,
                                  size_t n, int64_t iMicros){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__SetCell *pS = btArenaAlloc(pA, sizeof(*pS));
  if( pM == 0 || pS == 0 ) return 0;
  wcbt__mutation__set_cell__init(pS);
  pS->family = (char*)zFamily;
  pS->qualifier.data = (uint8_t*)zQual;
  pS->qualifier.len = strlen(zQual);
  pS->micros = iMicros;
  pS->value.data = btArenaCopy(pA, a, n);
  pS->value.len = n;
  pM->kind_case = WCBT__MUTATION__KIND_SET_CELL;
  pM->set_cell = pS;
  return pS->value.data ? pM : 0;
}

/* Deletes the cells of a column, every one (iEnd 0) or those stamped from
** iStart up to iEnd (excluded). */
static Wcbt__Mutation *mutDeleteColumn(BtArena *pA, const char *zFamily,
                                       const char *zQual, int64_t iStart,
                                       int64_t iEnd){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__DeleteColumn *pD = btArenaAlloc(pA, sizeof(*pD));
  if( pM == 0 || pD == 0 ) return 0;
  wcbt__mutation__delete_column__init(pD);
  pD->family = (char*)zFamily;
  pD->qualifier.data = (uint8_t*)zQual;
  pD->qualifier.len = strlen(zQual);
  if( iEnd > 0 ){
    pD->range = btArenaAlloc(pA, sizeof(*pD->range));
    if( pD->range == 0 ) return 0;
    wcbt__time_range__init(pD->range);
    pD->range->start_micros = iStart;
    pD->range->end_micros = iEnd;
  }
  pM->kind_case = WCBT__MUTATION__KIND_DELETE_COLUMN;
  pM->delete_column = pD;
  return pM;
}

static Wcbt__Mutation *mutDeleteRow(BtArena *pA){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__DeleteRow *pD = btArenaAlloc(pA, sizeof(*pD));
  if( pM == 0 || pD == 0 ) return 0;
  wcbt__mutation__delete_row__init(pD);
  pM->kind_case = WCBT__MUTATION__KIND_DELETE_ROW;
  pM->delete_row = pD;
  return pM;
}

/* The timestamp of a row's cells: with ROWTIME the column's value, which
** must be one Bigtable takes (widecol makes only such), else now. */
static int rowMicros(BtTable *p, sqlite3_value *pTime, int64_t *piMicros){
  if( !p->bRowtime ){
    *piMicros = nowMicros(p);
    return SQLITE_OK;
  }
  *piMicros = sqlite3_value_int64(pTime);
  if( sqlite3_value_type(pTime) != SQLITE_INTEGER || *piMicros < 0
   || *piMicros % BT_TICK != 0 ){
    return btError(p, SQLITE_CONSTRAINT_CHECK, "%s: rowtime must be an "
        "integer number of microseconds in whole milliseconds (Bigtable's "
        "timestamp granularity), not %Q", p->zName,
        sqlite3_value_text(pTime));
  }
  return SQLITE_OK;
}

/* The mutations that write a row's columns argv[0..nCol) (an UPDATE's
** unchanged ones skipped), after a delete of the row if bReplace, with
** the marker, all stamped iMicros; in *papMut (arena memory), their
** number returned.  With ROWTIME a NULL is a cell too, and a row table
** that keeps one version drops the cells before.  On failure a negated
** SQLite code: -SQLITE_NOMEM, or -SQLITE_TOOBIG for a value too large
** (message set). */
static int rowMutations(BtTable *p, BtArena *pA, sqlite3_value **argv,
                        int bReplace, int bUpdate, int64_t iMicros,
                        Wcbt__Mutation ***papMut){
  Wcbt__Mutation **ap = btArenaAlloc(pA, sizeof(*ap)
                                         * (size_t)(2 * p->nCol + 3));
  int bDropOlder = p->bRowtime && !p->bOlder && p->nVersions == 1
                && !bReplace && iMicros > 0;
  static const unsigned char aNull[1] = { BT_CELL_NULL };
  WcBuf cell;
  int i, n = 0;
  if( ap == 0 ) return -SQLITE_NOMEM;
  memset(&cell, 0, sizeof(cell));
  if( bReplace ) ap[n++] = mutDeleteRow(pA);
  ap[n++] = mutSetCell(pA, BT_DEFAULT_FAMILY, "", 0, 0, iMicros);
  if( bDropOlder ) ap[n++] = mutDeleteColumn(pA, BT_DEFAULT_FAMILY, "", 0,
                                             iMicros);
  for(i = 0; i < p->nCol; i++){
    sqlite3_value *pVal = argv[i];
    if( bUpdate && sqlite3_value_nochange(pVal) ) continue;
    if( bDropOlder ){
      ap[n++] = mutDeleteColumn(pA, p->aCol[i].zFamily, p->aCol[i].zName, 0,
                                iMicros);
    }
    if( sqlite3_value_type(pVal) == SQLITE_NULL ){
      if( p->bRowtime ){
        ap[n++] = mutSetCell(pA, p->aCol[i].zFamily, p->aCol[i].zName, aNull,
                             1, iMicros);
      }else if( !bReplace ){
        ap[n++] = mutDeleteColumn(pA, p->aCol[i].zFamily, p->aCol[i].zName,
                                  0, 0);
      }
      continue;
    }
    cell.n = 0;
    btCellEncode(pVal, &cell);
    if( cell.bOom ){
      wcBufFree(&cell);
      return -SQLITE_NOMEM;
    }
    if( cell.n > BT_MAX_CELL ){
      int64_t nCell = cell.n;
      wcBufFree(&cell);
      return -btError(p, SQLITE_TOOBIG, "%s: the value of column %s is %lld "
              "bytes, more than a Bigtable cell may hold (100 MiB)", p->zName,
              p->aCol[i].zName, (long long)nCell);
    }
    ap[n++] = mutSetCell(pA, p->aCol[i].zFamily, p->aCol[i].zName, cell.a,
                         (size_t)cell.n, iMicros);
  }
  wcBufFree(&cell);
  for(i = 0; i < n; i++) if( ap[i] == 0 ) return -SQLITE_NOMEM;
  if( pA->bOom ) return -SQLITE_NOMEM;
  *papMut = ap;
  return n;
}

/* Adds a row's mutations to the batch. */
static int queueRow(BtTable *p, const unsigned char *aKey, size_t nKey,
                    Wcbt__Mutation **apMut, int nMut){
  Wcbt__MutateRowsRequest__Entry *pE = btArenaAlloc(&p->arena, sizeof(*pE));
  if( pE == 0 ) return SQLITE_NOMEM;
  wcbt__mutate_rows_request__entry__init(pE);
  pE->row_key.data = btArenaCopy(&p->arena, aKey, nKey);
  pE->row_key.len = nKey;
  pE->n_mutations = (size_t)nMut;
  pE->mutations = apMut;
  if( p->nEntry == p->nEntryAlloc ){
    int nNew = p->nEntryAlloc ? p->nEntryAlloc * 2 : 64;
    Wcbt__MutateRowsRequest__Entry **apNew = sqlite3_realloc64(p->apEntry,
        sizeof(*apNew) * (size_t)nNew);
    if( apNew == 0 ) return SQLITE_NOMEM;
    p->apEntry = apNew;
    p->nEntryAlloc = nNew;
  }
  p->apEntry[p->nEntry++] = pE;
  p->nBatchByte += nKey + 64;
  return p->arena.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

static int retryable(int code){
  return code == BT_UNAVAILABLE || code == BT_DEADLINE_EXCEEDED
      || code == 10 /* ABORTED */;
}

/* Sends the batch.  Rows that fail with a status worth retrying are sent
** again (a few times, with a pause); any that still fail make the whole
** flush an error naming how many rows were not written and why. */
static int sendBatch(BtTable *p){
  Wcbt__MutateRowsRequest req = WCBT__MUTATE_ROWS_REQUEST__INIT;
  Wcbt__MutateRowsRequest__Entry **apTodo = p->apEntry;
  int nTodo = p->nEntry, nAttempt, rc = SQLITE_OK, i;
  unsigned char *abFailed = 0;
  BtStatus st = {0, 0};
  if( p->nEntry == 0 ) return SQLITE_OK;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  abFailed = sqlite3_malloc64((size_t)nTodo);
  if( abFailed == 0 ) return SQLITE_NOMEM;
  for(nAttempt = 0; nTodo > 0 && nAttempt < BT_ATTEMPTS; nAttempt++){
    BtStream *pStream = 0;
    ProtobufCMessage *pMsg = 0;
    int r, nFailed = 0, bRetry = 1;
    if( nAttempt > 0 ) usleep(100000u << (2 * (nAttempt - 1)));
    btStatusClear(&st);
    memset(abFailed, 0, (size_t)nTodo);
    req.table_name = p->zResource;
    req.n_entries = (size_t)nTodo;
    req.entries = apTodo;
    btStreamOpen(p->pConn, M_MUTATEROWS, p->zResource, &req.base, &pStream,
                 &st, &p->count);
    /* Every row is failed until Bigtable says it was written. */
    memset(abFailed, 1, (size_t)nTodo);
    while( (r = btStreamNext(pStream, &wcbt__mutate_rows_response__descriptor,
                             &pMsg, &st)) == 1 ){
      Wcbt__MutateRowsResponse *pResp = (Wcbt__MutateRowsResponse*)pMsg;
      size_t k;
      for(k = 0; k < pResp->n_entries; k++){
        Wcbt__MutateRowsResponse__Entry *pE = pResp->entries[k];
        int code = pE->status ? pE->status->code : 0;
        if( pE->index < 0 || pE->index >= nTodo ) continue;
        abFailed[pE->index] = code != 0;
        if( code != 0 && !retryable(code) ) bRetry = 0;
        if( code != 0 && st.code == 0 ){
          st.code = code;
          st.zMsg = sqlite3_mprintf("MutateRows failed for a row: %s (gRPC "
              "status %d)", pE->status->message ? pE->status->message : "",
              code);
        }
      }
      protobuf_c_message_free_unpacked(pMsg, 0);
    }
    btStreamClose(pStream);
    if( r < 0 && !retryable(st.code) ) bRetry = 0;
    /* Keep the failed rows, in order, for the next attempt. */
    for(i = 0; i < nTodo; i++){
      if( abFailed[i] ) apTodo[nFailed++] = apTodo[i];
    }
    nTodo = nFailed;
    if( !bRetry ) break;
  }
  if( nTodo > 0 ){
    char *zDoing = sqlite3_mprintf("could not write %d of the %d rows of "
                                   "a batch (the others were written) to",
                                   nTodo, p->nEntry);
    rc = zDoing ? btRpcError(p, zDoing, &st) : SQLITE_NOMEM;
    sqlite3_free(zDoing);
  }
  p->pTxn->nSent += p->nEntry - nTodo;
  p->nEntry = 0;
  p->nBatchByte = 0;
  btArenaFree(&p->arena);
  for(i = 0; i < p->nSavepoint; i++) p->aiSavepoint[i] = 0;
  btStatusClear(&st);
  sqlite3_free(abFailed);
  return rc;
}

void btColumnFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange,
                    const char *zFamily, const char *zQualifier, size_t n){
  wcbt__column_range__init(pRange);
  pRange->family = (char*)zFamily;
  pRange->start_case = WCBT__COLUMN_RANGE__START_START_CLOSED;
  pRange->start_closed.data = (uint8_t*)zQualifier;
  pRange->start_closed.len = n;
  pRange->end_case = WCBT__COLUMN_RANGE__END_END_CLOSED;
  pRange->end_closed = pRange->start_closed;
  wcbt__filter__init(pOut);
  pOut->kind_case = WCBT__FILTER__KIND_COLUMN_RANGE;
  pOut->column_range = pRange;
}

void btMarkerFilter(Wcbt__Filter *pOut, Wcbt__ColumnRange *pRange){
  btColumnFilter(pOut, pRange, BT_DEFAULT_FAMILY, "", 0);
}

void btFilterOf(Wcbt__Filter *pOut, int bChain, Wcbt__Filter__List *pList,
                Wcbt__Filter **apPart, int nPart){
  wcbt__filter__list__init(pList);
  pList->n_filters = (size_t)nPart;
  pList->filters = apPart;
  wcbt__filter__init(pOut);
  if( bChain ){
    pOut->kind_case = WCBT__FILTER__KIND_CHAIN;
    pOut->chain = pList;
  }else{
    pOut->kind_case = WCBT__FILTER__KIND_INTERLEAVE;
    pOut->interleave = pList;
  }
}

/* A key for a message: 'text' when it is printable, else x'hex'. */
static char *describeKey(const unsigned char *a, size_t n){
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

/* The result of a conditional insert of key aKey: SQLITE_OK if written,
** else an error (a key in use: UNIQUE, with the code given). */
static int insertResult(BtTable *p, int code, BtStatus *pSt,
                        Wcbt__CheckAndMutateRowResponse *pResp,
                        const unsigned char *aKey, size_t nKey, int rcUnique){
  int rc = SQLITE_OK;
  if( code != BT_OK ){
    rc = btRpcError(p, "could not write to", pSt);
  }else if( pResp->predicate_matched ){
    char *zKey = describeKey(aKey, nKey);
    rc = btError(p, rcUnique, "UNIQUE constraint failed: %s.rowkey (a row "
                 "with key %s exists)", p->zName, zKey ? zKey : "?");
    sqlite3_free(zKey);
  }
  if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
  return rc;
}

/* Waits for the oldest conditional insert in flight: SQLITE_OK if it
** wrote its row, else the error (a key found in use:
** SQLITE_CONSTRAINT_UNIQUE, since the statement has gone on to later rows
** meanwhile). */
static int finishOldest(BtTable *p){
  BtInflight *pI = &p->aInflight[p->iInflight];
  Wcbt__CheckAndMutateRowResponse *pResp = 0;
  BtStatus st = {0, 0};
  int code = btCallFinish(pI->pCall,
                          &wcbt__check_and_mutate_row_response__descriptor,
                          (ProtobufCMessage**)&pResp, &st);
  int rc = insertResult(p, code, &st, pResp, pI->key.a, (size_t)pI->key.n,
                        SQLITE_CONSTRAINT_UNIQUE);
  btStatusClear(&st);
  wcBufFree(&pI->key);
  p->iInflight = (p->iInflight + 1) % BT_INFLIGHT;
  p->nInflight--;
  return rc;
}

/* Waits for every conditional insert in flight; the first that failed
** gives the result. */
static int drainInserts(BtTable *p){
  int rc = SQLITE_OK;
  while( p->nInflight > 0 ){
    int rcOne = finishOldest(p);
    if( rc == SQLITE_OK ) rc = rcOne;
  }
  return rc;
}

int btFlush(BtTable *p){
  int rc = drainInserts(p);
  int rc2 = sendBatch(p);
  return rc != SQLITE_OK ? rc : rc2;
}

/* True if p and pOther are on the same Bigtable table. */
static int sameTable(const BtTable *p, const BtTable *pOther){
  return p == pOther || strcmp(p->zResource, pOther->zResource) == 0;
}

int btFlushTable(BtTable *p){
  BtTable *pT;
  int rc = SQLITE_OK;
  for(pT = p->pTxn->pTables; pT; pT = pT->pNextTable){
    if( sameTable(p, pT) ){
      int rc2 = btFlush(pT);
      if( rc == SQLITE_OK ) rc = rc2;
    }
  }
  return rc;
}

/* Sends the batches of every table of the connection on p's Bigtable
** table (the conditional inserts in flight may wait). */
static int sendTable(BtTable *p){
  BtTable *pT;
  int rc = SQLITE_OK;
  for(pT = p->pTxn->pTables; pT && rc == SQLITE_OK; pT = pT->pNextTable){
    if( sameTable(p, pT) ) rc = sendBatch(pT);
  }
  return rc;
}

void btVersionKey(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                  int64_t iMicros){
  unsigned char a[8];
  int i;
  for(i = 0; i < 8; i++){
    a[i] = (unsigned char)((uint64_t)iMicros >> (56 - 8 * i));
  }
  wcBufAppend(pOut, aKey, nKey);
  wcBufAppend(pOut, a, 8);
}

/* INSERT that must not replace: written only if the row has no marker,
** atomically (CheckAndMutateRow).  With bAsyncInsert the call is left in
** flight (up to BT_INFLIGHT of them) and its answer read by the next
** btFlush(), before a read or at COMMIT, or when it is the oldest of a
** full window; but
** not for INSERT OR FAIL, which widecol uses when its own statement must
** know at the row (OR IGNORE, OR FAIL). */
static int insertNew(BtTable *p, const unsigned char *aKey, size_t nKey,
                     sqlite3_value **argv){
  Wcbt__CheckAndMutateRowRequest req = WCBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
  Wcbt__CheckAndMutateRowResponse *pResp = 0;
  Wcbt__Filter pred;
  Wcbt__ColumnRange marker;
  Wcbt__Mutation **apMut;
  BtArena arena;
  BtStatus st = {0, 0};
  int64_t iMicros;
  int nMut, code, rc;
  memset(&arena, 0, sizeof(arena));
  rc = rowMicros(p, p->bRowtime ? argv[p->nCol] : 0, &iMicros);
  if( rc != SQLITE_OK ) return rc;
  /* A full window waits for its oldest call only, so that the others
  ** stay in flight.  Puts waiting in the batches go first: a write of
  ** this key among them must be seen by the check. */
  rc = p->nInflight == BT_INFLIGHT ? finishOldest(p) : SQLITE_OK;
  if( rc == SQLITE_OK ) rc = sendTable(p);
  if( rc != SQLITE_OK ) return rc;
  nMut = rowMutations(p, &arena, argv, 0, 0, iMicros, &apMut);
  if( nMut < 0 ){
    btArenaFree(&arena);
    return -nMut;
  }
  btMarkerFilter(&pred, &marker);
  req.table_name = p->zResource;
  req.row_key.data = (uint8_t*)aKey;
  req.row_key.len = nKey;
  req.predicate = &pred;
  req.n_false_mutations = (size_t)nMut;
  req.false_mutations = apMut;
  p->pTxn->nSent++;
  if( p->bAsyncInsert && sqlite3_vtab_on_conflict(p->db) != SQLITE_FAIL ){
    BtInflight *pI = &p->aInflight[(p->iInflight + p->nInflight)
                                   % BT_INFLIGHT];
    memset(pI, 0, sizeof(*pI));
    wcBufAppend(&pI->key, aKey, (int64_t)nKey);
    pI->pCall = btCallStart(p->pConn, M_CHECKANDMUTATE, p->zResource,
                            &req.base, &p->count);
    btArenaFree(&arena);
    if( pI->pCall == 0 || pI->key.bOom ){
      wcBufFree(&pI->key);
      return SQLITE_NOMEM;
    }
    p->nInflight++;
    return SQLITE_OK;
  }
  code = btCall(p->pConn, M_CHECKANDMUTATE, p->zResource, &req.base,
                &wcbt__check_and_mutate_row_response__descriptor,
                (ProtobufCMessage**)&pResp, &st, &p->count);
  rc = insertResult(p, code, &st, pResp, aKey, nKey,
                    SQLITE_CONSTRAINT_PRIMARYKEY);
  btStatusClear(&st);
  btArenaFree(&arena);
  return rc;
}

static int checkKey(BtTable *p, sqlite3_value *pKey){
  int n = sqlite3_value_bytes(pKey);
  if( sqlite3_value_type(pKey) == SQLITE_NULL || n == 0 ){
    return btError(p, SQLITE_CONSTRAINT_NOTNULL, "%s: a Bigtable row key "
                   "cannot be empty", p->zName);
  }
  if( n > BT_MAX_KEY ){
    return btError(p, SQLITE_TOOBIG, "%s: the row key is %d bytes; Bigtable "
                   "takes at most 4096", p->zName, n);
  }
  return SQLITE_OK;
}

/* Queues a delete of one row: all of it, or (OLDER, given a version key)
** the version's cells. */
static int queueDelete(BtTable *p, const unsigned char *aKey, int64_t nKey){
  Wcbt__Mutation **apMut = btArenaAlloc(&p->arena,
                                        sizeof(*apMut) * (size_t)(p->nCol + 1));
  int64_t iMicros = 0;
  int i, nMut = 0;
  if( apMut == 0 ) return SQLITE_NOMEM;
  if( !p->bOlder ){
    apMut[nMut++] = mutDeleteRow(&p->arena);
  }else{
    if( nKey < 8 ) return SQLITE_OK;    /* no version has such a key */
    for(i = 0; i < 8; i++) iMicros = (int64_t)(((uint64_t)iMicros << 8)
                                               | aKey[nKey - 8 + i]);
    nKey -= 8;
    apMut[nMut++] = mutDeleteColumn(&p->arena, BT_DEFAULT_FAMILY, "", iMicros,
                                    iMicros + BT_TICK);
    for(i = 0; i < p->nCol; i++){
      apMut[nMut++] = mutDeleteColumn(&p->arena, p->aCol[i].zFamily,
                                      p->aCol[i].zName, iMicros,
                                      iMicros + BT_TICK);
    }
  }
  for(i = 0; i < nMut; i++) if( apMut[i] == 0 ) return SQLITE_NOMEM;
  return queueRow(p, aKey, (size_t)nKey, apMut, nMut);
}

int btUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                    sqlite3_int64 *pRowid){
  BtTable *p = (BtTable*)pVtab;
  Wcbt__Mutation **apMut;
  int nMut, rc;
  (void)pRowid;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  if( argc == 1 ){
    rc = queueDelete(p, sqlite3_value_blob(argv[0]),
                     sqlite3_value_bytes(argv[0]));
  }else if( p->bOlder && sqlite3_value_type(argv[0]) != SQLITE_NULL ){
    /* widecol only adds and drops versions. */
    return btError(p, SQLITE_MISUSE, "%s: a version is added (INSERT) or "
                   "dropped (DELETE), never changed", p->zName);
  }else{
    sqlite3_value *pKey = argv[2];
    int bInsert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
    int bMoved = !bInsert && (sqlite3_value_bytes(argv[0])
        != sqlite3_value_bytes(pKey) || memcmp(sqlite3_value_blob(argv[0]),
        sqlite3_value_blob(pKey), (size_t)sqlite3_value_bytes(pKey)) != 0);
    int bReplace = sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE;
    int64_t iMicros;
    rc = checkKey(p, pKey);
    if( rc == SQLITE_OK ){
      rc = rowMicros(p, p->bRowtime ? argv[3 + p->nCol] : 0, &iMicros);
    }
    if( rc != SQLITE_OK ) return rc;
    /* A version is put blind: widecol puts only versions it means to. */
    if( (bInsert || bMoved) && !bReplace && !p->bOlder ){
      rc = insertNew(p, sqlite3_value_blob(pKey),
                     (size_t)sqlite3_value_bytes(pKey), &argv[3]);
    }else{
      nMut = rowMutations(p, &p->arena, &argv[3],
                          (bInsert || bMoved) && !p->bOlder,
                          !bInsert && !bMoved, iMicros, &apMut);
      if( nMut < 0 ) return -nMut;
      rc = queueRow(p, sqlite3_value_blob(pKey),
                    (size_t)sqlite3_value_bytes(pKey), apMut, nMut);
    }
    if( rc == SQLITE_OK && bMoved ){
      rc = queueDelete(p, sqlite3_value_blob(argv[0]),
                       sqlite3_value_bytes(argv[0]));
    }
  }
  if( rc == SQLITE_OK && (p->nEntry >= BT_BATCH_ROWS
                          || p->nBatchByte >= BT_BATCH_BYTES) ){
    rc = btFlush(p);
  }
  return rc;
}

/*
** Transactions.  Bigtable applies each row's mutations atomically and no
** more.  So a ROLLBACK, or a statement that fails, drops the writes still
** in the batches if no table of the connection has sent any since the
** transaction (or the statement) began: then nothing happened.  Once one
** was sent, dropping the rest could leave a row without its index entries
** (or entries of a row that moved): every table sends what it holds
** instead, so each row written is written whole, and the ROLLBACK undoes
** nothing (docs/bigtable.md, Transactions).
*/
int btBegin(sqlite3_vtab *pVtab){
  BtTxn *pTxn = ((BtTable*)pVtab)->pTxn;
  if( !pTxn->bOpen ){
    pTxn->bOpen = 1;
    pTxn->iBegin = pTxn->nSent;
    pTxn->nSavepoint = 0;
  }
  return SQLITE_OK;
}

int btSync(sqlite3_vtab *pVtab){
  return btFlush((BtTable*)pVtab);
}

int btCommit(sqlite3_vtab *pVtab){
  ((BtTable*)pVtab)->pTxn->bOpen = 0;
  return SQLITE_OK;
}

/* Drops the rows of the batch from entry iFrom on. */
static void dropFrom(BtTable *p, int iFrom){
  if( iFrom >= 0 && iFrom < p->nEntry ) p->nEntry = iFrom;
  if( p->nEntry == 0 ){
    btArenaFree(&p->arena);
    p->nBatchByte = 0;
  }
}

int btRollback(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  int rc = SQLITE_OK;
  if( p->pTxn->nSent == p->pTxn->iBegin ){
    dropFrom(p, 0);
  }else{
    rc = btFlush(p);
  }
  p->pTxn->bOpen = 0;
  p->nSavepoint = 0;
  return rc;
}

int btSavepoint(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( iSavepoint >= BT_MAX_SAVEPOINT ){
    return btError(p, SQLITE_ERROR, "%s: more than %d nested savepoints",
                   p->zName, BT_MAX_SAVEPOINT);
  }
  if( iSavepoint >= p->nSavepoint ){
    int *aNew = sqlite3_realloc64(p->aiSavepoint,
                                  sizeof(int) * (size_t)(iSavepoint + 1));
    if( aNew == 0 ) return SQLITE_NOMEM;
    p->aiSavepoint = aNew;
  }
  while( p->nSavepoint <= iSavepoint ) p->aiSavepoint[p->nSavepoint++] = 0;
  p->aiSavepoint[iSavepoint] = p->nEntry;
  p->nSavepoint = iSavepoint + 1;
  /* The first table to open a savepoint says where it began. */
  while( pTxn->nSavepoint <= iSavepoint ){
    pTxn->aiSavepoint[pTxn->nSavepoint++] = pTxn->nSent;
  }
  return SQLITE_OK;
}

int btRelease(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  if( iSavepoint < p->nSavepoint ) p->nSavepoint = iSavepoint;
  if( iSavepoint < p->pTxn->nSavepoint ) p->pTxn->nSavepoint = iSavepoint;
  return SQLITE_OK;
}

int btRollbackTo(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( iSavepoint >= pTxn->nSavepoint
   || pTxn->nSent != pTxn->aiSavepoint[iSavepoint] ){
    return btFlush(p);
  }
  if( iSavepoint < p->nSavepoint ) dropFrom(p, p->aiSavepoint[iSavepoint]);
  return SQLITE_OK;
}

