/*
** bt_data.c: the cell store's data calls (cs_transport.h) as Bigtable's:
**
**   a read           ReadRows, with a filter keeping the columns and
**                    versions asked for; the streamed chunks put together
**                    into whole rows
**   a batch of rows  MutateRows, in requests of at most BT_MAX_MUTATIONS
**                    mutations (Bigtable's limit)
**   a conditional    CheckAndMutateRow, its predicate a filter on the
**   write            cell the condition names
**   samples          SampleRowKeys
**
** Requests are built as bt_wire.proto's messages in an arena of the
** call's, freed once the call has sent them (bt_grpc.c packs a request
** when it starts the call).
*/
#include "util/wc_api.h"
#include "stores/bigtable/bt_grpc.h"
#include "stores/common/wc_arena.h"
#include "util/wc_buf.h"

#include <string.h>

/* Mutations in one MutateRows request, at most (Bigtable's limit). */
#define BT_MAX_MUTATIONS 100000
/* The largest read filter sent; Bigtable refuses one over 4,096 bytes. */
#define BT_MAX_FILTER 4000

/*
** Messages.
*/

static Wcbt__Mutation *mutationOf(WcArena *pA, const CsMutation *pM){
  Wcbt__Mutation *pOut = wcArenaAlloc(pA, sizeof(*pOut));
  if( pOut == 0 ) return 0;
  wcbt__mutation__init(pOut);
  switch( pM->eOp ){
    case CS_SET_CELL: {
      Wcbt__Mutation__SetCell *pS = wcArenaAlloc(pA, sizeof(*pS));
      if( pS == 0 ) return 0;
      wcbt__mutation__set_cell__init(pS);
      pS->family = (char*)pM->zFamily;
      pS->qualifier.data = (uint8_t*)pM->qual.a;
      pS->qualifier.len = pM->qual.n;
      pS->micros = pM->iMicros;
      pS->value.data = (uint8_t*)pM->value.a;
      pS->value.len = pM->value.n;
      pOut->kind_case = WCBT__MUTATION__KIND_SET_CELL;
      pOut->set_cell = pS;
      break;
    }
    case CS_DELETE_CELLS: {
      Wcbt__Mutation__DeleteColumn *pD = wcArenaAlloc(pA, sizeof(*pD));
      if( pD == 0 ) return 0;
      wcbt__mutation__delete_column__init(pD);
      pD->family = (char*)pM->zFamily;
      pD->qualifier.data = (uint8_t*)pM->qual.a;
      pD->qualifier.len = pM->qual.n;
      if( pM->iTo > 0 ){
        pD->range = wcArenaAlloc(pA, sizeof(*pD->range));
        if( pD->range == 0 ) return 0;
        wcbt__time_range__init(pD->range);
        pD->range->start_micros = pM->iFrom;
        pD->range->end_micros = pM->iTo;
      }
      pOut->kind_case = WCBT__MUTATION__KIND_DELETE_COLUMN;
      pOut->delete_column = pD;
      break;
    }
    case CS_DELETE_FAMILY: {
      Wcbt__Mutation__DeleteFamily *pD = wcArenaAlloc(pA, sizeof(*pD));
      if( pD == 0 ) return 0;
      wcbt__mutation__delete_family__init(pD);
      pD->family = (char*)pM->zFamily;
      pOut->kind_case = WCBT__MUTATION__KIND_DELETE_FAMILY;
      pOut->delete_family = pD;
      break;
    }
    default: {
      Wcbt__Mutation__DeleteRow *pD = wcArenaAlloc(pA, sizeof(*pD));
      wcAssert( pM->eOp == CS_DELETE_ROW );
      if( pD == 0 ) return 0;
      wcbt__mutation__delete_row__init(pD);
      pOut->kind_case = WCBT__MUTATION__KIND_DELETE_ROW;
      pOut->delete_row = pD;
      break;
    }
  }
  return pOut;
}

/* aMut[0..nMut) as Bigtable's mutations, in pA; NULL on OOM. */
static Wcbt__Mutation **mutationsOf(WcArena *pA, const CsMutation *aMut,
                                    int nMut){
  Wcbt__Mutation **ap = wcArenaAlloc(pA, sizeof(*ap) * (size_t)(nMut + 1));
  int i;
  for(i = 0; ap && i < nMut; i++){
    ap[i] = mutationOf(pA, &aMut[i]);
    if( ap[i] == 0 ) return 0;
  }
  return ap;
}

/* A filter of kind eKind (a limit or a flag, set to iValue), in pA. */
static Wcbt__Filter *flagFilter(WcArena *pA, int eKind, int iValue){
  Wcbt__Filter *p = wcArenaAlloc(pA, sizeof(*p));
  if( p == 0 ) return 0;
  wcbt__filter__init(p);
  p->kind_case = eKind;
  switch( eKind ){
    case WCBT__FILTER__KIND_CELLS_PER_ROW_LIMIT:
      p->cells_per_row_limit = iValue;
      break;
    case WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT:
      p->cells_per_column_limit = iValue;
      break;
    default:
      wcAssert( eKind == WCBT__FILTER__KIND_STRIP_VALUE );
      p->strip_value = iValue;
      break;
  }
  return p;
}

/* A filter passing only the cells of column *pCol.  A column range, not
** a regular expression: Bigtable's emulator compiles a filter's
** expressions again for every cell it looks at. */
static Wcbt__Filter *columnFilter(WcArena *pA, const CsColumn *pCol){
  Wcbt__Filter *p = wcArenaAlloc(pA, sizeof(*p));
  Wcbt__ColumnRange *pRange = wcArenaAlloc(pA, sizeof(*pRange));
  if( p == 0 || pRange == 0 ) return 0;
  wcbt__column_range__init(pRange);
  pRange->family = (char*)pCol->zFamily;
  pRange->start_case = WCBT__COLUMN_RANGE__START_START_CLOSED;
  pRange->start_closed.data = (uint8_t*)pCol->qual.a;
  pRange->start_closed.len = pCol->qual.n;
  pRange->end_case = WCBT__COLUMN_RANGE__END_END_CLOSED;
  pRange->end_closed = pRange->start_closed;
  wcbt__filter__init(p);
  p->kind_case = WCBT__FILTER__KIND_COLUMN_RANGE;
  p->column_range = pRange;
  return p;
}

/* A chain (bChain) or interleave of apPart[0..nPart), in pA; the part
** itself if it is one (an interleave of one filter is an error to
** Bigtable). */
static Wcbt__Filter *filterOf(WcArena *pA, int bChain, Wcbt__Filter **apPart,
                              int nPart){
  Wcbt__Filter *p;
  Wcbt__Filter__List *pList;
  int i;
  for(i = 0; i < nPart; i++){
    if( apPart[i] == 0 ) return 0;
  }
  if( nPart == 1 ) return apPart[0];
  p = wcArenaAlloc(pA, sizeof(*p));
  pList = wcArenaAlloc(pA, sizeof(*pList));
  if( p == 0 || pList == 0 ) return 0;
  wcbt__filter__list__init(pList);
  pList->n_filters = (size_t)nPart;
  pList->filters = apPart;
  wcbt__filter__init(p);
  if( bChain ){
    p->kind_case = WCBT__FILTER__KIND_CHAIN;
    p->chain = pList;
  }else{
    p->kind_case = WCBT__FILTER__KIND_INTERLEAVE;
    p->interleave = pList;
  }
  return p;
}

/* The filter of a read that keeps every column: each one's newest cell
** (bLatest), or all (no filter).  *pbOom set on OOM. */
static Wcbt__Filter *everyColumn(WcArena *pA, int bLatest, int *pbOom){
  Wcbt__Filter *p;
  if( !bLatest ) return 0;
  p = flagFilter(pA, WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT, 1);
  if( p == 0 ) *pbOom = 1;
  return p;
}

/* The filter of read *pRead, in pA (NULL: none, every cell); *pbOom set on
** OOM. */
static Wcbt__Filter *readFilter(WcArena *pA, const CsRead *pRead,
                                int *pbOom){
  Wcbt__Filter **apPart, *pTop;
  int i;
  if( pRead->bKeysOnly ){
    /* One cell a row, its value stripped: the keys alone. */
    apPart = wcArenaAlloc(pA, sizeof(*apPart) * 2);
    if( apPart ){
      apPart[0] = flagFilter(pA, WCBT__FILTER__KIND_CELLS_PER_ROW_LIMIT, 1);
      apPart[1] = flagFilter(pA, WCBT__FILTER__KIND_STRIP_VALUE, 1);
    }
    pTop = apPart ? filterOf(pA, 1, apPart, 2) : 0;
    if( pTop == 0 ) *pbOom = 1;
    return pTop;
  }
  if( pRead->nColumn == 0 ) return everyColumn(pA, pRead->bLatest, pbOom);
  apPart = wcArenaAlloc(pA, sizeof(*apPart) * (size_t)pRead->nColumn);
  for(i = 0; apPart && i < pRead->nColumn; i++){
    apPart[i] = columnFilter(pA, &pRead->aColumn[i]);
  }
  pTop = apPart ? filterOf(pA, 0, apPart, pRead->nColumn) : 0;
  if( pTop && pRead->bLatest ){
    apPart = wcArenaAlloc(pA, sizeof(*apPart) * 2);
    if( apPart ){
      apPart[0] = pTop;
      apPart[1] = flagFilter(pA, WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT,
                             1);
    }
    pTop = apPart ? filterOf(pA, 1, apPart, 2) : 0;
  }
  if( pTop == 0 ){
    *pbOom = 1;
    return 0;
  }
  /* Bigtable refuses a filter over 4,096 bytes: then every column is read
  ** (the cell store ignores the others). */
  if( protobuf_c_message_get_packed_size(&pTop->base) > BT_MAX_FILTER ){
    return everyColumn(pA, pRead->bLatest, pbOom);
  }
  return pTop;
}

/* The keys and ranges of *pRead as a KeySet, in pA; NULL on OOM. */
static Wcbt__KeySet *keySetOf(WcArena *pA, const CsRead *pRead){
  Wcbt__KeySet *pSet = wcArenaAlloc(pA, sizeof(*pSet));
  int i;
  if( pSet == 0 ) return 0;
  wcbt__key_set__init(pSet);
  pSet->keys = wcArenaAlloc(pA, sizeof(ProtobufCBinaryData)
                                * (size_t)(pRead->nKey + 1));
  pSet->ranges = wcArenaAlloc(pA, sizeof(Wcbt__KeyRange*)
                                  * (size_t)(pRead->nRange + 1));
  if( pSet->keys == 0 || pSet->ranges == 0 ) return 0;
  for(i = 0; i < pRead->nKey; i++){
    pSet->keys[i].data = (uint8_t*)pRead->aKey[i].a;
    pSet->keys[i].len = pRead->aKey[i].n;
  }
  pSet->n_keys = (size_t)pRead->nKey;
  for(i = 0; i < pRead->nRange; i++){
    const CsRange *pR = &pRead->aRange[i];
    Wcbt__KeyRange *pK = wcArenaAlloc(pA, sizeof(*pK));
    if( pK == 0 ) return 0;
    wcbt__key_range__init(pK);
    if( pR->eStart != CS_UNBOUNDED ){
      pK->start_case = pR->eStart == CS_OPEN
                     ? WCBT__KEY_RANGE__START_START_OPEN
                     : WCBT__KEY_RANGE__START_START_CLOSED;
      /* start_open and start_closed share their place (a oneof). */
      pK->start_closed.data = (uint8_t*)pR->start.a;
      pK->start_closed.len = pR->start.n;
    }
    if( pR->eEnd != CS_UNBOUNDED ){
      pK->end_case = pR->eEnd == CS_OPEN ? WCBT__KEY_RANGE__END_END_OPEN
                                         : WCBT__KEY_RANGE__END_END_CLOSED;
      pK->end_open.data = (uint8_t*)pR->end.a;
      pK->end_open.len = pR->end.n;
    }
    pSet->ranges[i] = pK;
  }
  pSet->n_ranges = (size_t)pRead->nRange;
  return pSet;
}

/*
** Reads: ReadRows's chunks put together into rows.  A chunk starts a row
** when it names a key (a server may repeat the key on every chunk of a
** row), a cell when it names a qualifier (then its family, if it names
** one, else the last family), or another, older cell of the same column
** when it names neither and the last cell's value was whole; a value may
** come in pieces (value_size set while more comes).  reset_row drops what
** came of the row; commit_row ends it.
*/

/* A cell being put together: offsets into CsReader.bytes. */
typedef struct BtCellAt BtCellAt;
struct BtCellAt {
  int64_t iFamily;
  int64_t iQual, nQual;
  int64_t iMicros;
  int64_t iValue, nValue;
};

struct CsReader {
  BtStream *pStream;
  Wcbt__ReadRowsResponse *pResp;
  size_t iChunk;
  int bInRow;           /* Chunks of a row not yet committed came */
  int bMore;            /* The last cell's value continues */
  int64_t iFamily;      /* The family of the last cell, in bytes, or -1 */
  WcBuf key;            /* The row's key */
  WcBuf bytes;          /* Its families (with their NUL), qualifiers and
                        ** values */
  WcBuf cells;          /* BtCellAt[] */
  int nCell;
  WcBuf out;            /* CsCell[nCell], the row given */
  CsRow row;
};

void btReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                CsReader **ppReader){
  CsReader *p = sqlite3_malloc(sizeof(*p));
  Wcbt__ReadRowsRequest req = WCBT__READ_ROWS_REQUEST__INIT;
  WcArena arena;
  int bOom = 0;
  *ppReader = p;
  if( p == 0 ) return;
  memset(p, 0, sizeof(*p));
  memset(&arena, 0, sizeof(arena));
  wcAssert( pRead->nKey + pRead->nRange > 0 );
  req.table_name = (char*)pRead->zTable;
  req.rows = keySetOf(&arena, pRead);
  req.filter = readFilter(&arena, pRead, &bOom);
  req.rows_limit = pRead->nLimit;
  req.reversed = pRead->bReversed;
  /* A request not made leaves no stream: btReadNext() says so. */
  if( req.rows && !bOom ){
    btStreamOpen(pConn, BT_READ_ROWS, pRead->zTable, &req.base, &p->pStream,
                 pWait);
  }
  wcArenaFree(&arena);
}

/* Starts a row (its key) or a cell of chunk pC. */
static void chunkBegins(CsReader *p, const Wcbt__Chunk *pC){
  BtCellAt cell;
  if( pC->row_key.len > 0 && !p->bInRow ){
    p->bInRow = 1;
    p->key.n = p->bytes.n = p->cells.n = 0;
    p->nCell = 0;
    p->iFamily = -1;
    p->bMore = 0;
    wcBufAppend(&p->key, pC->row_key.data, (int64_t)pC->row_key.len);
  }
  if( p->bMore || pC->status_case == WCBT__CHUNK__STATUS_RESET_ROW ) return;
  memset(&cell, 0, sizeof(cell));
  if( pC->family ){
    p->iFamily = p->bytes.n;
    wcBufAppend(&p->bytes, pC->family->value, (int64_t)strlen(pC->family->value)
                + 1);
  }
  if( pC->qualifier ){
    cell.iQual = p->bytes.n;
    cell.nQual = (int64_t)pC->qualifier->value.len;
    wcBufAppend(&p->bytes, pC->qualifier->value.data, cell.nQual);
  }else if( p->nCell > 0 ){
    /* An older cell of the same column. */
    const BtCellAt *pLast = &((const BtCellAt*)p->cells.a)[p->nCell - 1];
    cell.iQual = pLast->iQual;
    cell.nQual = pLast->nQual;
  }
  cell.iFamily = p->iFamily;
  cell.iMicros = pC->micros;
  cell.iValue = p->bytes.n;
  wcBufAppend(&p->cells, &cell, (int64_t)sizeof(cell));
  p->nCell++;
}

/* The row put together, as the cell store reads one: *ppRow. */
static int rowDone(CsReader *p, const CsRow **ppRow, CsStatus *pSt){
  const BtCellAt *aAt = (const BtCellAt*)p->cells.a;
  CsCell *aCell;
  int i;
  p->out.n = 0;
  if( wcBufReserve(&p->out, (int64_t)sizeof(CsCell) * (p->nCell + 1))
   || p->key.bOom || p->bytes.bOom || p->cells.bOom ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  aCell = (CsCell*)p->out.a;
  for(i = 0; i < p->nCell; i++){
    aCell[i].zFamily = aAt[i].iFamily >= 0
                     ? (const char*)p->bytes.a + aAt[i].iFamily : "";
    aCell[i].qual.a = p->bytes.a + aAt[i].iQual;
    aCell[i].qual.n = (size_t)aAt[i].nQual;
    aCell[i].iMicros = aAt[i].iMicros;
    aCell[i].value.a = p->bytes.a + aAt[i].iValue;
    aCell[i].value.n = (size_t)aAt[i].nValue;
  }
  p->row.key.a = p->key.a;
  p->row.key.n = (size_t)p->key.n;
  p->row.nCell = p->nCell;
  p->row.aCell = aCell;
  *ppRow = &p->row;
  return 1;
}

int btReadNext(CsReader *p, const CsRow **ppRow, CsStatus *pSt){
  *ppRow = 0;
  if( p == 0 || p->pStream == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  for(;;){
    const Wcbt__Chunk *pC;
    if( p->pResp == 0 || p->iChunk >= p->pResp->n_chunks ){
      ProtobufCMessage *pMsg = 0;
      int r;
      if( p->pResp ) protobuf_c_message_free_unpacked(&p->pResp->base, 0);
      p->pResp = 0;
      r = btStreamNext(p->pStream, &wcbt__read_rows_response__descriptor,
                       &pMsg, pSt);
      if( r <= 0 ) return r;
      p->pResp = (Wcbt__ReadRowsResponse*)pMsg;
      p->iChunk = 0;
      continue;
    }
    pC = p->pResp->chunks[p->iChunk++];
    chunkBegins(p, pC);
    if( p->bInRow && p->nCell > 0 && pC->value.len > 0 ){
      wcBufAppend(&p->bytes, pC->value.data, (int64_t)pC->value.len);
      ((BtCellAt*)p->cells.a)[p->nCell - 1].nValue
          += (int64_t)pC->value.len;
    }
    p->bMore = pC->value_size > 0;
    if( pC->status_case == WCBT__CHUNK__STATUS_RESET_ROW ){
      p->bInRow = 0;
      p->bMore = 0;
    }else if( pC->status_case == WCBT__CHUNK__STATUS_COMMIT_ROW ){
      p->bInRow = 0;
      p->bMore = 0;
      return rowDone(p, ppRow, pSt);
    }
  }
}

void btReadClose(CsReader *p){
  if( p == 0 ) return;
  btStreamClose(p->pStream);
  if( p->pResp ) protobuf_c_message_free_unpacked(&p->pResp->base, 0);
  wcBufFree(&p->key);
  wcBufFree(&p->bytes);
  wcBufFree(&p->cells);
  wcBufFree(&p->out);
  sqlite3_free(p);
}

/*
** Batches of rows.
*/

/* One MutateRows of aEntry[0..nEntry): each entry's code set from its
** answer, or to the call's code where none came.  The call's code. */
static int mutateOnce(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                      int nEntry, const CsWait *pWait, CsStatus *pSt){
  Wcbt__MutateRowsRequest req = WCBT__MUTATE_ROWS_REQUEST__INIT;
  Wcbt__MutateRowsRequest__Entry *aE, **apE;
  BtStream *pStream = 0;
  ProtobufCMessage *pMsg = 0;
  CsStatus st = {0, 0};
  WcArena arena;
  int i, r, code = CS_OK, bRefused = 0;
  memset(&arena, 0, sizeof(arena));
  aE = wcArenaAlloc(&arena, sizeof(*aE) * (size_t)nEntry);
  apE = wcArenaAlloc(&arena, sizeof(*apE) * (size_t)nEntry);
  for(i = 0; aE && apE && i < nEntry; i++){
    wcbt__mutate_rows_request__entry__init(&aE[i]);
    aE[i].row_key.data = (uint8_t*)aEntry[i].key.a;
    aE[i].row_key.len = aEntry[i].key.n;
    aE[i].n_mutations = (size_t)aEntry[i].nMut;
    aE[i].mutations = mutationsOf(&arena, aEntry[i].aMut, aEntry[i].nMut);
    apE[i] = &aE[i];
    aEntry[i].code = CS_UNAVAILABLE;
  }
  if( arena.bOom ){
    wcArenaFree(&arena);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    for(i = 0; i < nEntry; i++) aEntry[i].code = CS_INTERNAL;
    return CS_INTERNAL;
  }
  req.table_name = (char*)zTable;
  req.n_entries = (size_t)nEntry;
  req.entries = apE;
  btStreamOpen(pConn, BT_MUTATE_ROWS, zTable, &req.base, &pStream, pWait);
  wcArenaFree(&arena);
  while( (r = btStreamNext(pStream, &wcbt__mutate_rows_response__descriptor,
                           &pMsg, &st)) == 1 ){
    Wcbt__MutateRowsResponse *pResp = (Wcbt__MutateRowsResponse*)pMsg;
    size_t e;
    for(e = 0; e < pResp->n_entries; e++){
      Wcbt__MutateRowsResponse__Entry *pE = pResp->entries[e];
      int iCode = pE->status ? pE->status->code : 0;
      if( pE->index < 0 || pE->index >= nEntry ) continue;
      aEntry[pE->index].code = btCodeOf(iCode);
      if( iCode != 0 && !bRefused ){
        /* The first row refused says why. */
        bRefused = 1;
        csStatusSet(pSt, btCodeOf(iCode), "MutateRows refused the row: %s "
                    "(gRPC status %d)", pE->status->message
                    ? pE->status->message : "", iCode);
      }
    }
    protobuf_c_message_free_unpacked(pMsg, 0);
  }
  btStreamClose(pStream);
  if( r < 0 ){
    /* The rows without an answer carry the call's code. */
    code = st.code;
    for(i = 0; i < nEntry; i++){
      if( aEntry[i].code == CS_UNAVAILABLE ) aEntry[i].code = code;
    }
    csStatusClear(pSt);
    *pSt = st;
  }else{
    csStatusClear(&st);
  }
  return code;
}

int btMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                 int nEntry, const CsWait *pWait, CsStatus *pSt){
  CsStatus st = {0, 0};
  int iFirst = 0, code = CS_OK;
  while( iFirst < nEntry ){
    int nIn = 0, c;
    int64_t nMut = 0;
    while( iFirst + nIn < nEntry
        && (nIn == 0 || nMut + aEntry[iFirst + nIn].nMut <= BT_MAX_MUTATIONS) ){
      nMut += aEntry[iFirst + nIn].nMut;
      nIn++;
    }
    c = mutateOnce(pConn, zTable, &aEntry[iFirst], nIn, pWait, &st);
    if( (c != CS_OK || (st.zMsg && pSt->zMsg == 0)) && pSt->zMsg == 0 ){
      *pSt = st;
    }else{
      csStatusClear(&st);
    }
    memset(&st, 0, sizeof(st));
    iFirst += nIn;
    if( c != CS_OK ){
      /* The rows not sent carry the call's code. */
      int i;
      code = c;
      for(i = iFirst; i < nEntry && !csRetryable(c); i++) aEntry[i].code = c;
      if( !csRetryable(c) ) break;
    }
  }
  return code;
}

/*
** Conditional writes.
*/

struct CsPending {
  BtPending *pCall;
  int bAppliedIfMatched;    /* Applied when the predicate matched (the
                            ** true mutations), else when it did not */
};

/* The first key after every key starting with a[0..n), in pA: a with its
** trailing 0xFF bytes dropped and its last byte then incremented.  A
** stamp always has one (its first byte, CS_MARKER_V2, is no 0xFF). */
static ProtobufCBinaryData prefixEnd(WcArena *pA, CsBytes v){
  ProtobufCBinaryData d;
  unsigned char *a = wcArenaCopy(pA, v.a, v.n);
  size_t n = v.n;
  while( a && n > 0 && a[n - 1] == 0xFF ) n--;
  if( a && n > 0 ) a[n - 1]++;
  d.data = a;
  d.len = a ? n : 0;
  return d;
}

/* The predicate of condition *pCheck, in pA: NULL for none ("the row has
** any cell"); *pbOom set on OOM. */
static Wcbt__Filter *predicateOf(WcArena *pA, const CsCheck *pCheck,
                                 int *pbOom){
  Wcbt__Filter **apPart, *pValue, *pTop;
  Wcbt__ValueRange *pRange;
  CsColumn col;
  if( pCheck->eCond == CS_ALWAYS || pCheck->eCond == CS_ROW_ABSENT ) return 0;
  col.zFamily = pCheck->zFamily;
  col.qual = pCheck->qual;
  if( pCheck->eCond == CS_CELL_ABSENT ){
    pTop = columnFilter(pA, &col);
    if( pTop == 0 ) *pbOom = 1;
    return pTop;
  }
  apPart = wcArenaAlloc(pA, sizeof(*apPart) * 3);
  pValue = wcArenaAlloc(pA, sizeof(*pValue));
  pRange = wcArenaAlloc(pA, sizeof(*pRange));
  if( apPart == 0 || pValue == 0 || pRange == 0 ){
    *pbOom = 1;
    return 0;
  }
  wcbt__value_range__init(pRange);
  pRange->start_case = WCBT__VALUE_RANGE__START_START_CLOSED;
  pRange->start_closed.data = (uint8_t*)pCheck->value.a;
  pRange->start_closed.len = pCheck->value.n;
  if( pCheck->eCond == CS_CELL_EQUAL ){
    pRange->end_case = WCBT__VALUE_RANGE__END_END_CLOSED;
    pRange->end_closed = pRange->start_closed;
  }else{
    wcAssert( pCheck->eCond == CS_CELL_PREFIX );
    pRange->end_case = WCBT__VALUE_RANGE__END_END_OPEN;
    pRange->end_open = prefixEnd(pA, pCheck->value);
  }
  wcbt__filter__init(pValue);
  pValue->kind_case = WCBT__FILTER__KIND_VALUE_RANGE;
  pValue->value_range = pRange;
  apPart[0] = columnFilter(pA, &col);
  apPart[1] = flagFilter(pA, WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT, 1);
  apPart[2] = pValue;
  pTop = filterOf(pA, 1, apPart, 3);
  if( pTop == 0 || pA->bOom ) *pbOom = 1;
  return pTop;
}

CsPending *btCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                        const CsCheck *pCheck, const CsMutation *aMut,
                        int nMut, const CsWait *pWait){
  Wcbt__CheckAndMutateRowRequest req =
      WCBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
  CsPending *p = sqlite3_malloc(sizeof(*p));
  Wcbt__Mutation **apMut;
  WcArena arena;
  int bOom = 0;
  if( p == 0 ) return 0;
  memset(&arena, 0, sizeof(arena));
  req.table_name = (char*)zTable;
  req.row_key.data = (uint8_t*)key.a;
  req.row_key.len = key.n;
  req.predicate = predicateOf(&arena, pCheck, &bOom);
  apMut = mutationsOf(&arena, aMut, nMut);
  /* Where the predicate finds nothing (ROW_ABSENT: no filter, "the row
  ** has a cell"; CELL_ABSENT: the cell), the false mutations apply. */
  p->bAppliedIfMatched = pCheck->eCond != CS_ROW_ABSENT
                      && pCheck->eCond != CS_CELL_ABSENT;
  if( p->bAppliedIfMatched || pCheck->eCond == CS_ALWAYS ){
    req.n_true_mutations = (size_t)nMut;
    req.true_mutations = apMut;
  }
  if( !p->bAppliedIfMatched || pCheck->eCond == CS_ALWAYS ){
    req.n_false_mutations = (size_t)nMut;
    req.false_mutations = apMut;
  }
  p->pCall = bOom || apMut == 0 ? 0
           : btCallStart(pConn, BT_CHECK_AND_MUTATE, zTable, &req.base, pWait);
  wcArenaFree(&arena);
  if( p->pCall == 0 ){
    sqlite3_free(p);
    return 0;
  }
  if( pCheck->eCond == CS_ALWAYS ) p->bAppliedIfMatched = -1;
  return p;
}

int btCheckFinish(CsPending *p, int *pbApplied, CsStatus *pSt){
  Wcbt__CheckAndMutateRowResponse *pResp = 0;
  int code = btCallFinish(p->pCall,
                          &wcbt__check_and_mutate_row_response__descriptor,
                          (ProtobufCMessage**)&pResp, pSt);
  *pbApplied = 0;
  if( code == CS_OK ){
    *pbApplied = p->bAppliedIfMatched < 0 ? 1
               : (pResp->predicate_matched != 0) == p->bAppliedIfMatched;
  }
  if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
  sqlite3_free(p);
  return code;
}

/*
** Samples.
*/

int btSampleKeys(CsConn *pConn, const char *zTable, const CsWait *pWait,
                 CsSampleFunc xSample, void *pCtx, CsStatus *pSt){
  Wcbt__SampleRowKeysRequest req = WCBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
  BtStream *pStream = 0;
  ProtobufCMessage *pMsg = 0;
  int r;
  req.table_name = (char*)zTable;
  btStreamOpen(pConn, BT_SAMPLE_ROW_KEYS, zTable, &req.base, &pStream, pWait);
  while( (r = btStreamNext(pStream, &wcbt__sample_row_keys_response__descriptor,
                           &pMsg, pSt)) == 1 ){
    Wcbt__SampleRowKeysResponse *pResp = (Wcbt__SampleRowKeysResponse*)pMsg;
    CsBytes key;
    key.a = pResp->row_key.data;
    key.n = pResp->row_key.len;
    xSample(pCtx, key, pResp->offset_bytes);
    protobuf_c_message_free_unpacked(pMsg, 0);
  }
  btStreamClose(pStream);
  return r < 0 ? pSt->code : CS_OK;
}
