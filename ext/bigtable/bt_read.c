/*
** bt_read.c: cursors of the widecol_bigtable module (bt_table.h).
**
** xFilter sends what waits first (a read sees its connection's writes),
** then makes a ReadRows over the key, the keys or the ranges, in pages,
** with a filter that returns only the latest cell of the columns the
** statement uses (and the marker); rows are put together from the
** streamed chunks as xNext asks for them.  A stream that breaks with a
** status worth retrying (UNAVAILABLE) is opened again after the last row
** it delivered, with backoff, until the deadline.
**
** Row tables: the marker gives the hidden column _stamp, and its column
** bits: a column asked for whose bit is set and that has no cell went
** missing (its family deleted), which is an error, never a NULL.  A scan
** of one key remembers what it found (BtTable.seen*): the next write of
** that key is conditional on it.  A scan of one key given _stamp = ? is
** not read at all: the row is taken to be there, and the write that
** follows is conditional on that stamp (widecol read the row just
** before).
**
** Index tables (BT_ENTRIES): an entry's row holds a group of cells per
** write; rows are read a batch at a time, the markers of their rows are
** read in one more ReadRows, and each entry is returned with the group
** its row's marker names, or not at all.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A cell of an OLDER or BT_ENTRIES row: column (BT_MARKER: the marker),
** timestamp, qualifier (BT_ENTRIES) and value in BtCursor.cellVal. */
typedef struct BtCell BtCell;
struct BtCell {
  int iCol;
  int64_t iMicros;
  int64_t iQual, nQual;
  int64_t iOff, n;
};
#define BT_MARKER (-3)

/* Entry rows read before their rows' markers are read for them. */
#define BT_VERIFY_ROWS 256

/* A marker read for verification (BT_ENTRIES). */
typedef struct BtSeen BtSeen;
struct BtSeen {
  int64_t iKey, nKey;     /* in BtCursor.markers */
  int64_t iVal, nVal;
};

typedef struct BtCursor BtCursor;
struct BtCursor {
  sqlite3_vtab_cursor base;
  BtStream *pStream;
  Wcbt__ReadRowsResponse *pResp;
  size_t iChunk;
  int bEof;
  WcBuf key;            /* The row being read */
  WcBuf *aVal;          /* Its cells' values, per column */
  unsigned char *abHave;   /* Column has a value in this row */
  int iCol;             /* Column the current cell belongs to: -1 none,
                        ** -2 a column not asked for, BT_MARKER */
  int bInRow;           /* Chunks of a row not yet committed came */
  int bMore;            /* The current cell's value continues */
  int bSkipCell;        /* The current cell is an older one: ignore */
  char *zFamily;        /* Family of the current cell */
  WcBuf marker;         /* The row's latest marker value, */
  int bMarker;          /* if it has one */
  int bMarkerCell;      /* The current cell is that marker */
  uint64_t colUsed;     /* Columns the statement reads */
  /* The read, in pages: a scan asks for BT_FIRST_PAGE rows, then for
  ** BT_PAGE_GROWTH times more after the last key of a full page (up to
  ** BT_MAX_PAGE), so that a probe or a LIMIT reads about what it uses and
  ** a long scan takes few calls. */
  BtArena reqArena;     /* The request's filter and bounds */
  Wcbt__ReadRowsRequest req;
  Wcbt__KeySet set;
  Wcbt__KeyRange range;
  Wcbt__KeyRange *apRange1[1];
  ProtobufCBinaryData aKey[1];
  WcBuf lastKey;        /* Key of the last row delivered */
  int bLast;            /* lastKey is set */
  int bReversed;        /* Rows come in descending key order */
  int64_t nPage;        /* Rows the page asks for (0: no limit) */
  int64_t nPageRows;    /* Rows of the page delivered */
  int64_t iRetryStart;  /* When the wait for the message that did not
                        ** come began (btNowMs()) */
  int nRetry;
  int64_t iRowtime;     /* ROWTIME: the version's timestamp */
  int bHaveTime;        /* iRowtime was set from the row's marker */
  /* OLDER: every cell of the row (values in cellVal), and the timestamps
  ** of its versions, newest first; the cursor is on version iVer. */
  WcBuf cells;          /* BtCell[], as wc_buf.h grows it */
  int nCell;
  WcBuf cellVal;
  int bCollect;         /* The current cell is in cells */
  WcBuf vers;           /* int64_t[] */
  int nVer, iVer;
  /* BT_ENTRIES: entry rows read (ents: key length, key, cell count, then
  ** per cell its timestamp, qualifier and value, lengths first), the
  ** markers of their rows (seen: BtSeen[] sorted by key, bytes in
  ** markers), and where the next is. */
  WcBuf ents;
  int64_t iEnt;
  int nEnt, iEntRow;
  WcBuf seen;
  int nSeen;
  WcBuf markers;
  WcBuf group;          /* The stamp of the entry's group served */
  int bStreamDone;      /* The entries' stream has ended */
  /* A row taken to be there (_stamp = ?): returned once, unread. */
  int bPretend;
};

#define BT_FIRST_PAGE  2
#define BT_PAGE_GROWTH 8
#define BT_MAX_PAGE    65536

static BtCell *cursorCells(const BtCursor *pCur){
  return (BtCell*)pCur->cells.a;
}
static int64_t *cursorVers(const BtCursor *pCur){
  return (int64_t*)pCur->vers.a;
}

int btFindColumn(const BtTable *p, const char *zFamily,
                 const unsigned char *aQual, size_t nQual){
  int lo = 0, hi = p->nSorted - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    const BtColumn *pCol = &p->aCol[p->aiSorted[mid]];
    int c = strcmp(pCol->zFamily, zFamily);
    if( c == 0 ){
      size_t nName = strlen(pCol->zQual);
      size_t nMin = nName < nQual ? nName : nQual;
      c = nMin ? memcmp(pCol->zQual, aQual, nMin) : 0;
      if( c == 0 ) c = nName < nQual ? -1 : nName > nQual ? 1 : 0;
    }
    if( c == 0 ) return p->aiSorted[mid];
    if( c < 0 ) lo = mid + 1; else hi = mid - 1;
  }
  return -2;
}

static int columnUsed(uint64_t colUsed, int iCol){
  /* Column 0 is the key; bit 63 stands for every column from 63 on. */
  int iBit = iCol + 1;
  return ((colUsed >> (iBit < 63 ? iBit : 63)) & 1) != 0;
}

/* True if a column with cells is in colUsed. */
static int anyColumnUsed(const BtTable *p, uint64_t colUsed){
  int i;
  for(i = 0; i < p->nCol; i++){
    if( columnUsed(colUsed, i) && p->aCol[i].eLayout != BT_LAYOUT_KEY ){
      return 1;
    }
  }
  return 0;
}

/* A filter passing one cell of each row, its value stripped: the keys
** alone.  In pA; 0 on OOM. */
static Wcbt__Filter *keysFilter(BtArena *pA){
  Wcbt__Filter *pTop = btArenaAlloc(pA, sizeof(*pTop));
  Wcbt__Filter__List *pList = btArenaAlloc(pA, sizeof(*pList));
  Wcbt__Filter **ap = btArenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
  Wcbt__Filter *aPart = btArenaAlloc(pA, sizeof(Wcbt__Filter) * 2);
  if( pTop == 0 || pList == 0 || ap == 0 || aPart == 0 ) return 0;
  wcbt__filter__init(&aPart[0]);
  aPart[0].kind_case = WCBT__FILTER__KIND_CELLS_PER_ROW_LIMIT;
  aPart[0].cells_per_row_limit = 1;
  wcbt__filter__init(&aPart[1]);
  aPart[1].kind_case = WCBT__FILTER__KIND_STRIP_VALUE;
  aPart[1].strip_value = 1;
  ap[0] = &aPart[0];
  ap[1] = &aPart[1];
  btFilterOf(pTop, 1, pList, ap, 2);
  return pTop;
}

/* The read filter: the cells of each column used, and the marker; only
** the latest of each but in an OLDER table; every cell of an index's
** entry (its groups).  Built in pA. */
static Wcbt__Filter *readFilter(BtTable *p, uint64_t colUsed, BtArena *pA){
  Wcbt__Filter *pTop = btArenaAlloc(pA, sizeof(*pTop));
  Wcbt__Filter__List *pTopList = btArenaAlloc(pA, sizeof(*pTopList));
  Wcbt__Filter **apTop = btArenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
  Wcbt__Filter *pMix = btArenaAlloc(pA, sizeof(*pMix));
  Wcbt__Filter__List *pMixList = btArenaAlloc(pA, sizeof(*pMixList));
  /* One filter for each column used, and the marker's. */
  Wcbt__Filter *aPick = btArenaAlloc(pA, sizeof(Wcbt__Filter)
                                        * (size_t)(p->nCol + 1));
  Wcbt__ColumnRange *aRange = btArenaAlloc(pA, sizeof(Wcbt__ColumnRange)
                                               * (size_t)(p->nCol + 1));
  Wcbt__Filter **apMix = btArenaAlloc(pA, sizeof(Wcbt__Filter*)
                                        * (size_t)(p->nCol + 1));
  Wcbt__Filter *pLimit = btArenaAlloc(pA, sizeof(*pLimit));
  int i, nMix = 0, bAll = 1;
  if( pA->bOom ) return 0;
  for(i = 0; i < p->nCol; i++) bAll &= columnUsed(colUsed, i);
  wcbt__filter__init(pLimit);
  if( p->eKind == BT_OLDER ){
    pLimit->kind_case = WCBT__FILTER__KIND_PASS_ALL;
    pLimit->pass_all = 1;
  }else{
    pLimit->kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
    pLimit->cells_per_column_limit = 1;
  }
  /* An EXISTING table has no marker to show that a row holding none of
  ** the columns read is a row: the latest cell of every column is read,
  ** or, where none is read (its keys), one cell a row, its value
  ** stripped. */
  if( p->bExisting && !anyColumnUsed(p, colUsed) ){
    return keysFilter(pA);
  }
  if( bAll || p->eKind == BT_ENTRIES || p->bExisting ) return pLimit;
  btMarkerFilter(&aPick[nMix], &aRange[nMix]);
  apMix[nMix] = &aPick[nMix];
  nMix++;
  for(i = 0; i < p->nCol; i++){
    if( !columnUsed(colUsed, i) || p->aCol[i].eLayout == BT_LAYOUT_KEY ) continue;
    btColumnFilter(&aPick[nMix], &aRange[nMix], p->aCol[i].zFamily,
                   p->aCol[i].zQual, strlen(p->aCol[i].zQual));
    apMix[nMix] = &aPick[nMix];
    nMix++;
  }
  btFilterOf(pMix, 0, pMixList, apMix, nMix);
  /* An interleave of one filter is an error to Bigtable. */
  apTop[0] = nMix == 1 ? apMix[0] : pMix;
  if( p->eKind == BT_OLDER ){
    pTop = apTop[0];
  }else{
    apTop[1] = pLimit;
    btFilterOf(pTop, 1, pTopList, apTop, 2);
  }
  /* Bigtable refuses a filter over 4,096 bytes: then every column is read
  ** (the latest cell of each), which SQLite trims. */
  if( protobuf_c_message_get_packed_size(&pTop->base) > BT_MAX_FILTER ){
    return pLimit;
  }
  return pTop;
}

int btOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  BtTable *p = (BtTable*)pVtab;
  BtCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->aVal = sqlite3_malloc64(sizeof(WcBuf) * (size_t)(p->nCol + 1));
  pCur->abHave = sqlite3_malloc64((size_t)(p->nCol + 1));
  if( pCur->aVal == 0 || pCur->abHave == 0 ){
    sqlite3_free(pCur->aVal);
    sqlite3_free(pCur->abHave);
    sqlite3_free(pCur);
    return SQLITE_NOMEM;
  }
  memset(pCur->aVal, 0, sizeof(WcBuf) * (size_t)(p->nCol + 1));
  memset(pCur->abHave, 0, (size_t)(p->nCol + 1));
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static void cursorReset(BtCursor *pCur){
  btStreamClose(pCur->pStream);
  pCur->pStream = 0;
  if( pCur->pResp ) protobuf_c_message_free_unpacked(&pCur->pResp->base, 0);
  pCur->pResp = 0;
  pCur->iChunk = 0;
  pCur->bInRow = 0;
  sqlite3_free(pCur->zFamily);
  pCur->zFamily = 0;
}

int btClose(sqlite3_vtab_cursor *pCursor){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  int i;
  cursorReset(pCur);
  btArenaFree(&pCur->reqArena);
  wcBufFree(&pCur->lastKey);
  for(i = 0; i <= p->nCol; i++) wcBufFree(&pCur->aVal[i]);
  wcBufFree(&pCur->key);
  wcBufFree(&pCur->marker);
  wcBufFree(&pCur->cellVal);
  wcBufFree(&pCur->cells);
  wcBufFree(&pCur->vers);
  wcBufFree(&pCur->ents);
  wcBufFree(&pCur->seen);
  wcBufFree(&pCur->markers);
  wcBufFree(&pCur->group);
  sqlite3_free(pCur->aVal);
  sqlite3_free(pCur->abHave);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static void rowStart(BtCursor *pCur, int nCol){
  int i;
  pCur->key.n = 0;
  for(i = 0; i < nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)nCol);
  pCur->iCol = -1;
  pCur->bMore = 0;
  pCur->bSkipCell = 0;
  pCur->bHaveTime = 0;
  pCur->iRowtime = 0;
  pCur->marker.n = 0;
  pCur->bMarker = 0;
  pCur->bMarkerCell = 0;
  pCur->nCell = 0;
  pCur->cells.n = 0;
  pCur->cellVal.n = 0;
  pCur->bCollect = 0;
}

/* OLDER, BT_ENTRIES: starts a cell of column iCol (qualifier aQual) in
** cells. */
static int cellStart(BtCursor *pCur, int iCol, int64_t iMicros,
                     const unsigned char *aQual, size_t nQual){
  BtCell cell;
  cell.iCol = iCol;
  cell.iMicros = iMicros;
  cell.iQual = pCur->cellVal.n;
  cell.nQual = (int64_t)nQual;
  wcBufAppend(&pCur->cellVal, aQual, (int64_t)nQual);
  cell.iOff = pCur->cellVal.n;
  cell.n = 0;
  wcBufAppend(&pCur->cells, &cell, (int64_t)sizeof(cell));
  if( pCur->cells.bOom || pCur->cellVal.bOom ) return SQLITE_NOMEM;
  pCur->nCell++;
  return SQLITE_OK;
}

/* OLDER: the timestamps of the row's versions (its marker's cells, which
** come newest first) into vers. */
static int versionsOfRow(BtCursor *pCur){
  int i;
  pCur->nVer = 0;
  pCur->iVer = 0;
  pCur->vers.n = 0;
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iCol != BT_MARKER ) continue;
    wcBufAppend(&pCur->vers, &pCell->iMicros, (int64_t)sizeof(int64_t));
    if( pCur->vers.bOom ) return SQLITE_NOMEM;
    pCur->nVer++;
  }
  return SQLITE_OK;
}

/* A row's columns asked for that its marker says have cells, checked
** against the cells that came: one missing went with its family (or was
** deleted outside widecol).  aMarker may be 0 (no marker). */
static int checkColumns(BtTable *p, BtCursor *pCur,
                        const unsigned char *aMarker, size_t nMarker,
                        int64_t iMicros){
  const unsigned char *aStamps, *aBits;
  int i;
  if( aMarker == 0
   || !btMarkerParse(aMarker, nMarker, p->nStamp, p->nCol, &aStamps, &aBits) ){
    return SQLITE_OK;
  }
  /* A version Bigtable's GC is collecting may have lost some cells and not
  ** yet the others: past the TTL, nothing is checked. */
  if( p->nTtl > 0 ){
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if( iMicros < ((int64_t)ts.tv_sec - p->nTtl) * 1000000 ) return SQLITE_OK;
  }
  for(i = 0; i < p->nCol; i++){
    if( btMarkerHas(aBits, i) && !pCur->abHave[i]
     && columnUsed(pCur->colUsed, i) ){
      return btMissingColumn(p, i, pCur->key.a, (size_t)pCur->key.n);
    }
  }
  return SQLITE_OK;
}

/* OLDER: puts version iVer's cells in aVal. */
static int versionLoad(BtTable *p, BtCursor *pCur){
  int64_t iMicros = cursorVers(pCur)[pCur->iVer];
  const unsigned char *aMarker = 0;
  size_t nMarker = 0;
  int i;
  for(i = 0; i < p->nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)p->nCol);
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iMicros != iMicros ) continue;
    if( pCell->iCol == BT_MARKER ){
      aMarker = pCur->cellVal.a + pCell->iOff;
      nMarker = (size_t)pCell->n;
      continue;
    }
    if( pCell->iCol < 0 ) continue;
    pCur->abHave[pCell->iCol] = 1;
    if( pCell->n == 0 ) continue;
    wcBufAppend(&pCur->aVal[pCell->iCol], pCur->cellVal.a + pCell->iOff,
                pCell->n);
    if( pCur->aVal[pCell->iCol].bOom ) return SQLITE_NOMEM;
  }
  pCur->iRowtime = iMicros;
  return checkColumns(p, pCur, aMarker, nMarker, iMicros);
}

/* Compares byte strings as Bigtable orders keys. */
static int keyCompare(const unsigned char *a, size_t nA,
                      const unsigned char *b, size_t nB){
  size_t n = nA < nB ? nA : nB;
  int c = n ? memcmp(a, b, n) : 0;
  return c ? c : nA < nB ? -1 : nA > nB;
}

/* True if a range holds no key: Bigtable refuses such a range. */
static int emptyRange(const Wcbt__KeyRange *pRange){
  int c;
  if( pRange->start_case == WCBT__KEY_RANGE__START__NOT_SET
   || pRange->end_case == WCBT__KEY_RANGE__END__NOT_SET ){
    return 0;
  }
  c = keyCompare(pRange->start_closed.data, pRange->start_closed.len,
                 pRange->end_open.data, pRange->end_open.len);
  return c > 0 || (c == 0
      && (pRange->start_case == WCBT__KEY_RANGE__START_START_OPEN
          || pRange->end_case == WCBT__KEY_RANGE__END_END_OPEN));
}

/* skipDelivered() of a reversed read, whose rows come from the end:
** drops the keys and ranges at or after the last row delivered, and the
** range it is in ends before it. */
static int skipDeliveredReversed(BtCursor *pCur){
  Wcbt__KeySet *pSet = &pCur->set;
  Wcbt__KeyRange *pRange;
  const unsigned char *aLast = pCur->lastKey.a;
  size_t nLast = (size_t)pCur->lastKey.n;
  while( pSet->n_keys > 0
      && keyCompare(pSet->keys[pSet->n_keys - 1].data,
                    pSet->keys[pSet->n_keys - 1].len, aLast, nLast) >= 0 ){
    pSet->n_keys--;
  }
  while( pSet->n_ranges > 0 ){
    pRange = pSet->ranges[pSet->n_ranges - 1];
    if( pRange->start_case == WCBT__KEY_RANGE__START__NOT_SET
     || keyCompare(pRange->start_closed.data, pRange->start_closed.len,
                   aLast, nLast) < 0 ){
      break;
    }
    pSet->n_ranges--;
  }
  if( pSet->n_ranges > 0 ){
    pRange = pSet->ranges[pSet->n_ranges - 1];
    if( pRange->end_case == WCBT__KEY_RANGE__END__NOT_SET
     || keyCompare(pRange->end_open.data, pRange->end_open.len,
                   aLast, nLast) >= 0 ){
      pRange->end_case = WCBT__KEY_RANGE__END_END_OPEN;
      pRange->end_open.data = btArenaCopy(&pCur->reqArena, aLast, nLast);
      pRange->end_open.len = nLast;
      if( pRange->end_open.data == 0 ) return 0;
    }
  }
  return pSet->n_keys > 0 || pSet->n_ranges > 0;
}

/* Drops from the request what lies at or before the last row delivered:
** keys, and ranges that end there; the range it is in starts after it (a
** copy in the request's arena: lastKey changes as rows come).  True if
** anything is left to read; SQLITE_NOMEM is not told apart (the arena
** notes it). */
static int skipDelivered(BtCursor *pCur){
  Wcbt__KeySet *pSet = &pCur->set;
  Wcbt__KeyRange *pRange;
  const unsigned char *aLast = pCur->lastKey.a;
  size_t nLast = (size_t)pCur->lastKey.n;
  if( !pCur->bLast ) return pSet->n_keys > 0 || pSet->n_ranges > 0;
  if( pCur->bReversed ) return skipDeliveredReversed(pCur);
  while( pSet->n_keys > 0
      && keyCompare(pSet->keys[0].data, pSet->keys[0].len, aLast, nLast) <= 0 ){
    pSet->keys++;
    pSet->n_keys--;
  }
  while( pSet->n_ranges > 0
      && pSet->ranges[0]->end_case != WCBT__KEY_RANGE__END__NOT_SET
      && keyCompare(pSet->ranges[0]->end_open.data,
                    pSet->ranges[0]->end_open.len, aLast, nLast) <= 0 ){
    pSet->ranges++;
    pSet->n_ranges--;
  }
  if( pSet->n_ranges > 0 ){
    pRange = pSet->ranges[0];
    if( pRange->start_case == WCBT__KEY_RANGE__START__NOT_SET
     || keyCompare(pRange->start_closed.data, pRange->start_closed.len,
                   aLast, nLast) <= 0 ){
      pRange->start_case = WCBT__KEY_RANGE__START_START_OPEN;
      pRange->start_open.data = btArenaCopy(&pCur->reqArena, aLast, nLast);
      pRange->start_open.len = nLast;
      if( pRange->start_open.data == 0 ) return 0;
    }
  }
  return pSet->n_keys > 0 || pSet->n_ranges > 0;
}

/* The cursor begins to wait for its next row (xFilter, xNext, or a row
** read within one): retries of the calls it makes for it, if they fail,
** end with the deadline counted from now, not from the failure (a call,
** or a page's open, may fail only at its own deadline). */
static void waitBegins(BtCursor *pCur){
  if( pCur->nRetry == 0 ) pCur->iRetryStart = btNowMs();
}

/* Opens the ReadRows of the cursor's next page: the first (bNext 0), or
** the one after the last key delivered, BT_PAGE_GROWTH times larger.  No
** stream (the end) if nothing is left. */
static void readPage(BtTable *p, BtCursor *pCur, int bNext){
  BtStatus st = {0, 0};
  if( bNext ){
    if( !skipDelivered(pCur) ) return;
    pCur->nPage *= BT_PAGE_GROWTH;
    if( pCur->nPage > BT_MAX_PAGE ) pCur->nPage = BT_MAX_PAGE;
  }
  pCur->req.rows_limit = pCur->nPage;
  pCur->nPageRows = 0;
  btStreamOpen(p->pConn, M_READROWS, p->zResource, &pCur->req.base,
               &pCur->pStream, &st, &p->wait);
  btStatusClear(&st);
}

/* The stream broke with pSt: opens it again after the last row delivered,
** if its status is worth a retry and the deadline leaves time.  SQLITE_OK
** if it did (or nothing was left to read: pStream 0), else the error. */
static int readResume(BtTable *p, BtCursor *pCur, BtStatus *pSt){
  BtStatus st = {0, 0};
  int code;
  if( !btRetryable(pSt->code) ) return btRpcError(p, "could not read", pSt);
  code = btBackoff(&p->wait, ++pCur->nRetry, pCur->iRetryStart);
  if( code == BT_CANCELLED ){
    return btError(p, SQLITE_INTERRUPT, "widecol %s: interrupted while "
                   "waiting to read %s again", p->zTable, p->zResource);
  }
  if( code != BT_OK ){
    return btRpcError(p, "could not read (retried until the deadline)", pSt);
  }
  btConnRetryNow(p->pConn);
  cursorReset(pCur);
  if( !skipDelivered(pCur) ){
    return pCur->reqArena.bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  if( pCur->nPage > 0 ){
    pCur->req.rows_limit = pCur->nPage - pCur->nPageRows;
  }
  {
    BtWait w = btRetryWait(&p->wait, pCur->iRetryStart);
    btStreamOpen(p->pConn, M_READROWS, p->zResource, &pCur->req.base,
                 &pCur->pStream, &st, &w);
  }
  btStatusClear(&st);
  return SQLITE_OK;
}

/* A cell's qualifier: its column (-2 none), the marker, and whether the
** cell is to be collected. */
static int cellBegins(BtTable *p, BtCursor *pCur, Wcbt__Chunk *pC){
  const unsigned char *aQual = pC->qualifier->value.data;
  size_t nQual = pC->qualifier->value.len;
  int bDefault = pCur->zFamily && strcmp(pCur->zFamily, BT_DEFAULT_FAMILY) == 0;
  pCur->bMarkerCell = 0;
  if( p->eKind == BT_ENTRIES || p->eKind == BT_PLAIN ){
    pCur->iCol = -2;
    if( p->eKind == BT_PLAIN ){
      pCur->iCol = btFindColumn(p, pCur->zFamily ? pCur->zFamily : "", aQual,
                                nQual);
    }
    pCur->bSkipCell = pCur->iCol >= 0 && pCur->abHave[pCur->iCol];
    pCur->bCollect = p->eKind == BT_ENTRIES;
    if( pCur->bCollect ) return cellStart(pCur, -2, pC->micros, aQual, nQual);
    return SQLITE_OK;
  }
  pCur->iCol = btFindColumn(p, pCur->zFamily ? pCur->zFamily : "", aQual,
                            nQual);
  if( pCur->iCol == -2 && nQual == 0 && bDefault ) pCur->iCol = BT_MARKER;
  pCur->bSkipCell = pCur->iCol >= 0 && pCur->abHave[pCur->iCol];
  if( pCur->iCol == BT_MARKER && !pCur->bHaveTime ){
    pCur->bHaveTime = 1;
    pCur->iRowtime = pC->micros;
    pCur->bMarker = 1;
    pCur->bMarkerCell = 1;
  }
  pCur->bCollect = p->eKind == BT_OLDER
      && (pCur->iCol >= 0 || pCur->iCol == BT_MARKER);
  if( pCur->bCollect ) return cellStart(pCur, pCur->iCol, pC->micros, 0, 0);
  return SQLITE_OK;
}

/* Reads chunks until a row is complete (or the stream ends). */
static int readRow(BtCursor *pCur){
  BtTable *p = (BtTable*)pCur->base.pVtab;
  BtStatus st = {0, 0};
  for(;;){
    Wcbt__Chunk *pC;
    if( pCur->pStream == 0 ){
      pCur->bEof = 1;
      return SQLITE_OK;
    }
    if( pCur->pResp == 0 || pCur->iChunk >= pCur->pResp->n_chunks ){
      ProtobufCMessage *pMsg = 0;
      int r;
      if( pCur->pResp ){
        protobuf_c_message_free_unpacked(&pCur->pResp->base, 0);
        pCur->pResp = 0;
      }
      r = btStreamNext(pCur->pStream, &wcbt__read_rows_response__descriptor,
                       &pMsg, &st);
      if( r == 0 && pCur->nPage > 0 && pCur->nPageRows >= pCur->nPage ){
        /* A full page: the next one starts after its last key. */
        cursorReset(pCur);
        readPage(p, pCur, 1);
        if( pCur->reqArena.bOom ) return SQLITE_NOMEM;
        continue;
      }
      if( r < 0 ){
        int rc;
        rowStart(pCur, p->nCol);
        pCur->bInRow = 0;
        rc = readResume(p, pCur, &st);
        btStatusClear(&st);
        if( rc != SQLITE_OK ){
          cursorReset(pCur);
          pCur->bEof = 1;
          return rc;
        }
        continue;
      }
      if( r == 0 ){
        cursorReset(pCur);
        pCur->bEof = 1;
        return SQLITE_OK;
      }
      pCur->pResp = (Wcbt__ReadRowsResponse*)pMsg;
      pCur->iChunk = 0;
      continue;
    }
    pC = pCur->pResp->chunks[pCur->iChunk++];

    /* A row key starts a row only after the last one was committed or
    ** reset: a server may repeat it on every chunk of a row. */
    if( pC->row_key.len > 0 && !pCur->bInRow ){
      rowStart(pCur, p->nCol);
      pCur->bInRow = 1;
      wcBufAppend(&pCur->key, pC->row_key.data, (int64_t)pC->row_key.len);
    }
    /* A server may name the family on every chunk: copy it only when
    ** it changes. */
    if( pC->family && (pCur->zFamily == 0
                       || strcmp(pCur->zFamily, pC->family->value) != 0) ){
      sqlite3_free(pCur->zFamily);
      pCur->zFamily = sqlite3_mprintf("%s", pC->family->value);
      if( pCur->zFamily == 0 ) return SQLITE_NOMEM;
    }
    if( pC->qualifier ){
      if( cellBegins(p, pCur, pC) ) return SQLITE_NOMEM;
    }else if( !pCur->bMore && pC->status_case
                              != WCBT__CHUNK__STATUS_RESET_ROW ){
      /* Another (older) cell of the same column. */
      pCur->bSkipCell = 1;
      pCur->bMarkerCell = 0;
      pCur->bCollect = (p->eKind == BT_OLDER
                        && (pCur->iCol >= 0 || pCur->iCol == BT_MARKER));
      if( pCur->bCollect
       && cellStart(pCur, pCur->iCol, pC->micros, 0, 0) ){
        return SQLITE_NOMEM;
      }
    }
    if( pCur->bCollect ){
      if( pC->value.len > 0 ){
        wcBufAppend(&pCur->cellVal, pC->value.data, (int64_t)pC->value.len);
        cursorCells(pCur)[pCur->nCell - 1].n += (int64_t)pC->value.len;
      }
    }else if( pCur->bMarkerCell ){
      wcBufAppend(&pCur->marker, pC->value.data, (int64_t)pC->value.len);
    }else if( pCur->iCol >= 0 && !pCur->bSkipCell ){
      pCur->abHave[pCur->iCol] = 1;
      wcBufAppend(&pCur->aVal[pCur->iCol], pC->value.data,
                  (int64_t)pC->value.len);
    }
    pCur->bMore = pC->value_size > 0;
    if( pC->status_case == WCBT__CHUNK__STATUS_RESET_ROW ){
      rowStart(pCur, p->nCol);
      pCur->bInRow = 0;
    }else if( pC->status_case == WCBT__CHUNK__STATUS_COMMIT_ROW ){
      pCur->bInRow = 0;
      pCur->iCol = -1;
      pCur->bMore = 0;
      pCur->bMarkerCell = 0;
      pCur->nPageRows++;
      p->count.nRowIn++;
      pCur->nRetry = 0;
      waitBegins(pCur);
      pCur->lastKey.n = 0;
      wcBufAppend(&pCur->lastKey, pCur->key.a, pCur->key.n);
      pCur->bLast = 1;
      if( pCur->key.bOom || pCur->cellVal.bOom || pCur->marker.bOom
       || pCur->lastKey.bOom ){
        return SQLITE_NOMEM;
      }
      if( p->eKind == BT_ROWS ){
        return checkColumns(p, pCur, pCur->bMarker ? pCur->marker.a : 0,
                            (size_t)pCur->marker.n, pCur->iRowtime);
      }
      return SQLITE_OK;
    }
  }
}

/*
** Index entries (BT_ENTRIES), verified against their rows.
*/

static void put32(WcBuf *p, int64_t v){
  unsigned char a[4];
  a[0] = (unsigned char)(v >> 24);
  a[1] = (unsigned char)(v >> 16);
  a[2] = (unsigned char)(v >> 8);
  a[3] = (unsigned char)v;
  wcBufAppend(p, a, 4);
}
static int64_t get32(const unsigned char *a){
  return ((int64_t)a[0] << 24) | ((int64_t)a[1] << 16)
       | ((int64_t)a[2] << 8) | a[3];
}

/* A group's parts of a cell's qualifier: its stamp (0s for a plain
** qualifier, widecol 1.0's) and the column's name. */
static void qualParts(const unsigned char *aQual, int64_t nQual,
                      const unsigned char **paStamp,
                      const unsigned char **paName, int64_t *pnName){
  static const unsigned char aZero[BT_STAMP] = {0};
  if( nQual >= 1 + BT_STAMP && aQual[0] == 0 ){
    *paStamp = aQual + 1;
    *paName = aQual + 1 + BT_STAMP;
    *pnName = nQual - 1 - BT_STAMP;
  }else{
    *paStamp = aZero;
    *paName = aQual;
    *pnName = nQual;
  }
}

/* The row key an entry's cells name (its rowkey column, a BLOB cell), or
** 0. */
static const unsigned char *entryRowkey(BtTable *p, BtCursor *pCur,
                                        int64_t *pn){
  int i;
  const char *zName = p->aCol[p->iRowkeyCol].zName;
  int64_t nName = (int64_t)strlen(zName);
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    const unsigned char *aStamp, *aName;
    int64_t nNameHere;
    qualParts(pCur->cellVal.a + pCell->iQual, pCell->nQual, &aStamp, &aName,
              &nNameHere);
    if( nNameHere == nName && memcmp(aName, zName, (size_t)nName) == 0
     && pCell->n >= 1 && pCur->cellVal.a[pCell->iOff] == BT_CELL_BLOB ){
      *pn = pCell->n - 1;
      return pCur->cellVal.a + pCell->iOff + 1;
    }
  }
  return 0;
}

/* Appends the entry row just read (key, cells) to ents; its row key to
** *pKeys (length first). */
static void entryKeep(BtTable *p, BtCursor *pCur, WcBuf *pKeys){
  const unsigned char *aRow;
  int64_t nRow = 0;
  int i;
  put32(&pCur->ents, pCur->key.n);
  wcBufAppend(&pCur->ents, pCur->key.a, pCur->key.n);
  put32(&pCur->ents, pCur->nCell);
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    unsigned char aTime[8];
    int k;
    for(k = 0; k < 8; k++){
      aTime[k] = (unsigned char)((uint64_t)pCell->iMicros >> (56 - 8 * k));
    }
    wcBufAppend(&pCur->ents, aTime, 8);
    put32(&pCur->ents, pCell->nQual);
    wcBufAppend(&pCur->ents, pCur->cellVal.a + pCell->iQual, pCell->nQual);
    put32(&pCur->ents, pCell->n);
    wcBufAppend(&pCur->ents, pCur->cellVal.a + pCell->iOff, pCell->n);
  }
  aRow = entryRowkey(p, pCur, &nRow);
  put32(pKeys, aRow ? nRow : 0);
  if( aRow ) wcBufAppend(pKeys, aRow, nRow);
  pCur->nEnt++;
}

static int seenCompare(const void *pA, const void *pB, const unsigned char *a){
  const BtSeen *x = (const BtSeen*)pA, *y = (const BtSeen*)pB;
  return keyCompare(a + x->iKey, (size_t)x->nKey, a + y->iKey,
                    (size_t)y->nKey);
}

/* The marker seen for row key aKey[0..n): its value in *paVal, or 0 if
** the row has none.  seen is sorted (by readMarkers()). */
static int seenFind(BtCursor *pCur, const unsigned char *aKey, int64_t n,
                    const unsigned char **paVal, int64_t *pnVal){
  const BtSeen *aSeen = (const BtSeen*)pCur->seen.a;
  int lo = 0, hi = pCur->nSeen - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    int c = keyCompare(pCur->markers.a + aSeen[mid].iKey,
                       (size_t)aSeen[mid].nKey, aKey, (size_t)n);
    if( c == 0 ){
      *paVal = pCur->markers.a + aSeen[mid].iVal;
      *pnVal = aSeen[mid].nVal;
      return 1;
    }
    if( c < 0 ) lo = mid + 1; else hi = mid - 1;
  }
  return 0;
}

/* What readMarkers() gathers into pCur's seen and markers: cur, the row
** being read (bHave: its key is in markers). */
typedef struct MarkersRead MarkersRead;
struct MarkersRead {
  BtCursor *pCur;
  BtSeen cur;
  int bHave;
};

static void markersBegin(void *pCtx){
  MarkersRead *pR = (MarkersRead*)pCtx;
  pR->pCur->seen.n = 0;
  pR->pCur->markers.n = 0;
  pR->pCur->nSeen = 0;
  memset(&pR->cur, 0, sizeof(pR->cur));
  pR->bHave = 0;
}

static void markersChunk(void *pCtx, const Wcbt__Chunk *pC){
  MarkersRead *pR = (MarkersRead*)pCtx;
  BtCursor *pCur = pR->pCur;
  if( pC->row_key.len > 0 && !pR->bHave ){
    pR->bHave = 1;
    pR->cur.iKey = pCur->markers.n;
    pR->cur.nKey = (int64_t)pC->row_key.len;
    wcBufAppend(&pCur->markers, pC->row_key.data, pR->cur.nKey);
    pR->cur.iVal = pCur->markers.n;
    pR->cur.nVal = 0;
  }
  if( pR->bHave ){
    wcBufAppend(&pCur->markers, pC->value.data, (int64_t)pC->value.len);
    pR->cur.nVal += (int64_t)pC->value.len;
  }
  if( pC->status_case == WCBT__CHUNK__STATUS_RESET_ROW ){
    pCur->markers.n = pR->cur.iKey;
    pR->bHave = 0;
  }else if( pC->status_case == WCBT__CHUNK__STATUS_COMMIT_ROW && pR->bHave ){
    wcBufAppend(&pCur->seen, &pR->cur, (int64_t)sizeof(pR->cur));
    pCur->nSeen++;
    pR->bHave = 0;
  }
}

/* Reads the latest marker of each row named in keys (length first each)
** from the row table, into seen and markers: one ReadRows. */
static int readMarkers(BtTable *p, BtCursor *pCur, const WcBuf *pKeys){
  Wcbt__ReadRowsRequest req = WCBT__READ_ROWS_REQUEST__INIT;
  Wcbt__KeySet set = WCBT__KEY_SET__INIT;
  Wcbt__Filter aPart[2], top, *apPart[2];
  Wcbt__Filter__List list;
  Wcbt__ColumnRange range;
  ProtobufCBinaryData *aKey;
  BtStatus st = {0, 0};
  MarkersRead rd;
  BtChunkSink sink;
  int64_t i;
  int n = 0, r, rc = SQLITE_OK;
  pCur->seen.n = 0;
  pCur->markers.n = 0;
  pCur->nSeen = 0;
  aKey = sqlite3_malloc64(sizeof(*aKey) * (size_t)(pCur->nEnt + 1));
  if( aKey == 0 ) return SQLITE_NOMEM;
  for(i = 0; i + 4 <= pKeys->n; ){
    int64_t nKey = get32(pKeys->a + i);
    i += 4;
    if( nKey > 0 ){
      aKey[n].data = pKeys->a + i;
      aKey[n].len = (size_t)nKey;
      n++;
    }
    i += nKey;
  }
  if( n == 0 ){
    sqlite3_free(aKey);
    return SQLITE_OK;
  }
  btMarkerFilter(&aPart[0], &range);
  wcbt__filter__init(&aPart[1]);
  aPart[1].kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
  aPart[1].cells_per_column_limit = 1;
  apPart[0] = &aPart[0];
  apPart[1] = &aPart[1];
  btFilterOf(&top, 1, &list, apPart, 2);
  set.n_keys = (size_t)n;
  set.keys = aKey;
  req.table_name = p->zRowsOf;
  req.rows = &set;
  req.filter = &top;
  rd.pCur = pCur;
  sink.xBegin = markersBegin;
  sink.xChunk = markersChunk;
  sink.pCtx = &rd;
  r = btReadAll(p, p->zRowsOf, &req, &p->wait, &sink, &st);
  if( r < 0 ) rc = btRpcError(p, "could not read the rows of index entries "
                              "from", &st);
  btStatusClear(&st);
  sqlite3_free(aKey);
  if( rc == SQLITE_OK && (pCur->seen.bOom || pCur->markers.bOom) ){
    rc = SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK && pCur->nSeen > 1 ){
    /* Rows come in key order; sorted again only to be sure. */
    BtSeen *a = (BtSeen*)pCur->seen.a;
    int k, j;
    for(k = 1; k < pCur->nSeen; k++){
      BtSeen t = a[k];
      for(j = k; j > 0 && seenCompare(&a[j - 1], &t, pCur->markers.a) > 0;
          j--){
        a[j] = a[j - 1];
      }
      a[j] = t;
    }
  }
  return rc;
}

/* Reads up to BT_VERIFY_ROWS entry rows and their rows' markers. */
static int entryFill(BtTable *p, BtCursor *pCur){
  WcBuf keys;
  int rc = SQLITE_OK;
  memset(&keys, 0, sizeof(keys));
  pCur->ents.n = 0;
  pCur->iEnt = 0;
  pCur->nEnt = 0;
  pCur->iEntRow = 0;
  while( pCur->nEnt < BT_VERIFY_ROWS ){
    rc = readRow(pCur);
    if( rc != SQLITE_OK ) break;
    if( pCur->bEof ){
      pCur->bStreamDone = 1;
      break;
    }
    entryKeep(p, pCur, &keys);
  }
  pCur->bEof = 0;
  if( rc == SQLITE_OK && (pCur->ents.bOom || keys.bOom) ) rc = SQLITE_NOMEM;
  if( rc == SQLITE_OK && pCur->nEnt > 0 ) rc = readMarkers(p, pCur, &keys);
  wcBufFree(&keys);
  return rc;
}

/* Serves the next buffered entry whose group its row's marker names:
** key, columns and rowtime from that group.  *pbFound 0 when the buffer
** is used up. */
static int entryNext(BtTable *p, BtCursor *pCur, int *pbFound){
  *pbFound = 0;
  while( pCur->iEntRow < pCur->nEnt ){
    const unsigned char *a = pCur->ents.a;
    int64_t i = pCur->iEnt, nKey, nCells, k;
    const unsigned char *aKey, *aRow = 0, *aMarker = 0, *aWant;
    int64_t nRow = 0, nMarker = 0;
    nKey = get32(a + i);
    aKey = a + i + 4;
    i += 4 + nKey;
    nCells = get32(a + i);
    i += 4;
    /* First pass: the row key; then the group its marker names. */
    {
      int64_t j = i;
      const char *zName = p->aCol[p->iRowkeyCol].zName;
      int64_t nName = (int64_t)strlen(zName);
      for(k = 0; k < nCells; k++){
        int64_t nQual = get32(a + j + 8), nVal;
        const unsigned char *aQual = a + j + 12, *aStamp, *aName;
        int64_t nNameHere;
        nVal = get32(a + j + 12 + nQual);
        qualParts(aQual, nQual, &aStamp, &aName, &nNameHere);
        if( aRow == 0 && nNameHere == nName
         && memcmp(aName, zName, (size_t)nName) == 0 && nVal >= 1
         && a[j + 16 + nQual] == BT_CELL_BLOB ){
          aRow = a + j + 17 + nQual;
          nRow = nVal - 1;
        }
        j += 16 + nQual + nVal;
      }
      pCur->iEnt = j;
    }
    pCur->iEntRow++;
    if( aRow == 0 || !seenFind(pCur, aRow, nRow, &aMarker, &nMarker) ){
      continue;
    }
    aWant = btMarkerEntryStamp(aMarker, (size_t)nMarker, p->iEntry);
    if( aWant == 0 ) continue;
    /* Second pass: that group's cells. */
    rowStart(pCur, p->nCol);
    wcBufAppend(&pCur->key, aKey, nKey);
    {
      int64_t j = i;
      int bMarker = 0;
      for(k = 0; k < nCells; k++){
        int64_t iMicros = 0, nQual, nVal, nName;
        const unsigned char *aQual, *aStamp, *aName, *aVal;
        int q, iCol;
        for(q = 0; q < 8; q++) iMicros = (iMicros << 8) | a[j + q];
        nQual = get32(a + j + 8);
        aQual = a + j + 12;
        nVal = get32(a + j + 12 + nQual);
        aVal = a + j + 16 + nQual;
        j += 16 + nQual + nVal;
        qualParts(aQual, nQual, &aStamp, &aName, &nName);
        if( memcmp(aStamp, aWant, BT_STAMP) != 0 ) continue;
        if( nName == 0 ){
          bMarker = 1;
          pCur->iRowtime = iMicros;
          continue;
        }
        iCol = btFindColumn(p, BT_DEFAULT_FAMILY, aName, (size_t)nName);
        if( iCol < 0 ) continue;
        pCur->abHave[iCol] = 1;
        wcBufAppend(&pCur->aVal[iCol], aVal, nVal);
      }
      if( !bMarker ) continue;
    }
    pCur->group.n = 0;
    wcBufAppend(&pCur->group, aWant, BT_STAMP);
    *pbFound = 1;
    return pCur->key.bOom || pCur->group.bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  return SQLITE_OK;
}

/* The next verified entry, or the end. */
static int entryStep(BtTable *p, BtCursor *pCur){
  for(;;){
    int bFound, rc = entryNext(p, pCur, &bFound);
    if( rc != SQLITE_OK || bFound ) return rc;
    if( pCur->bStreamDone ){
      pCur->bEof = 1;
      return SQLITE_OK;
    }
    rc = entryFill(p, pCur);
    if( rc != SQLITE_OK ) return rc;
  }
}

/* The next row; in an OLDER table the next version before a row's
** latest; in an index table the next verified entry. */
static int cursorStep(sqlite3_vtab_cursor *pCursor){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  int rc;
  if( pCur->bPretend ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  if( p->eKind == BT_ENTRIES ) return entryStep(p, pCur);
  if( p->eKind != BT_OLDER ) return readRow(pCur);
  for(;;){
    if( pCur->iVer + 1 < pCur->nVer ){
      pCur->iVer++;
      return versionLoad(p, pCur);
    }
    rc = readRow(pCur);
    if( rc != SQLITE_OK || pCur->bEof ) return rc;
    rc = versionsOfRow(pCur);
    if( rc != SQLITE_OK ) return rc;
  }
}

int btNext(sqlite3_vtab_cursor *pCursor){
  waitBegins((BtCursor*)pCursor);
  return cursorStep(pCursor);
}

/* Reads a set of ranges (wc_remote.h) into the request's row set, in the
** cursor's arena, without the empty ones. */
static int decodeSet(BtCursor *pCur, sqlite3_value *pVal){
  BtArena *pA = &pCur->reqArena;
  const unsigned char *a = sqlite3_value_blob(pVal);
  size_t n = (size_t)sqlite3_value_bytes(pVal), i = 0, nMax = n / 5 + 1;
  Wcbt__KeyRange **ap = btArenaAlloc(pA, sizeof(*ap) * nMax);
  Wcbt__KeySet *pSet = &pCur->set;
  if( ap == 0 ) return SQLITE_NOMEM;
  pSet->ranges = ap;
  while( i + 5 <= n ){
    Wcbt__KeyRange *pRange = btArenaAlloc(pA, sizeof(*pRange));
    size_t nLo, nHi;
    if( pRange == 0 ) return SQLITE_NOMEM;
    wcbt__key_range__init(pRange);
    nLo = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
        | ((size_t)a[i+2] << 8) | a[i+3];
    i += 4;
    if( i + nLo + 1 > n ) break;
    if( nLo > 0 ){
      pRange->start_case = WCBT__KEY_RANGE__START_START_CLOSED;
      pRange->start_closed.data = btArenaCopy(pA, &a[i], nLo);
      pRange->start_closed.len = nLo;
    }
    i += nLo;
    if( a[i++] ){
      if( i + 4 > n ) break;
      nHi = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
          | ((size_t)a[i+2] << 8) | a[i+3];
      i += 4;
      if( i + nHi > n ) break;
      pRange->end_case = WCBT__KEY_RANGE__END_END_OPEN;
      pRange->end_open.data = btArenaCopy(pA, &a[i], nHi);
      pRange->end_open.len = nHi;
      i += nHi;
      /* [lo, "") holds no key. */
      if( nHi == 0 ) continue;
    }
    if( !emptyRange(pRange) && pSet->n_ranges < nMax ){
      ap[pSet->n_ranges++] = pRange;
    }
  }
  return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Notes the one-key scan just made: the state the next write of that key
** is conditional on. */
static void noteSeen(BtTable *p, BtCursor *pCur, const void *aKey, size_t n){
  p->seenKey.n = 0;
  wcBufAppend(&p->seenKey, aKey, (int64_t)n);
  p->bSeen = !pCur->bEof;
  p->bSeenMarker = p->bSeen && pCur->bMarker;
  p->bSeenPrefix = 0;
  p->seenMarker.n = 0;
  p->iSeenMicros = 0;
  if( p->bSeenMarker ){
    wcBufAppend(&p->seenMarker, pCur->marker.a, pCur->marker.n);
    p->iSeenMicros = pCur->iRowtime;
  }
}

/* A scan of one key given _stamp = ? (and for an entry rowkey = ?): the
** row is taken to be there, unread; the write that follows is
** conditional on that stamp. */
static int pretendRow(BtTable *p, BtCursor *pCur, sqlite3_value *pKey,
                      sqlite3_value *pStamp, sqlite3_value *pRowkey){
  const void *aKey = sqlite3_value_blob(pKey);
  size_t nKey = (size_t)sqlite3_value_bytes(pKey);
  int bSame = p->seenKey.n == (int64_t)nKey
           && (nKey == 0 || memcmp(p->seenKey.a, aKey, nKey) == 0);
  rowStart(pCur, p->nCol);
  wcBufAppend(&pCur->key, aKey, (int64_t)nKey);
  pCur->bPretend = 1;
  pCur->bEof = 0;
  if( !bSame ){
    p->seenKey.n = 0;
    wcBufAppend(&p->seenKey, aKey, (int64_t)nKey);
    p->iSeenMicros = 0;
  }
  p->bSeen = 1;
  p->bSeenMarker = 1;
  p->bSeenPrefix = 1;
  p->seenMarker.n = 0;
  if( p->eKind == BT_ROWS ){
    /* The stamps, then (as read) the marker's timestamp. */
    const unsigned char *a = sqlite3_value_blob(pStamp);
    int n = sqlite3_value_bytes(pStamp);
    unsigned char c = BT_MARKER_V2;
    wcBufAppend(&p->seenMarker, &c, 1);
    if( n == BT_STAMPS_SIZE(p->nStamp) + 8 ){
      int i;
      n -= 8;
      p->iSeenMicros = 0;
      for(i = 0; i < 8; i++) p->iSeenMicros = (p->iSeenMicros << 8) | a[n + i];
    }
    wcBufAppend(&p->seenMarker, a, n);
  }else{
    wcBufAppend(&p->seenMarker, sqlite3_value_blob(pStamp),
                sqlite3_value_bytes(pStamp));
  }
  p->seenRowkey.n = 0;
  if( pRowkey ){
    wcBufAppend(&p->seenRowkey, sqlite3_value_blob(pRowkey),
                sqlite3_value_bytes(pRowkey));
  }
  return pCur->key.bOom || p->seenKey.bOom || p->seenMarker.bOom
         || p->seenRowkey.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

int btFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
             int argc, sqlite3_value **argv){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  BtArena *pA = &pCur->reqArena;
  Wcbt__KeyRange *pRange = &pCur->range;
  sqlite3_value *pEq = 0, *pStamp = 0, *pRowkey = 0, *pLimit = 0;
  int i, iArg = 0, rc, bEmpty = 0;
  (void)argc;
  cursorReset(pCur);
  btArenaFree(pA);
  pCur->bPretend = 0;
  pCur->bLast = 0;
  pCur->nRetry = 0;
  pCur->bStreamDone = 0;
  pCur->ents.n = 0;
  pCur->nEnt = pCur->iEntRow = 0;
  pCur->colUsed = idxStr ? strtoull(idxStr, 0, 16) : ~(uint64_t)0;
  if( idxNum == BT_COUNTERS ){
    WcRpcStats *pOut = sqlite3_value_pointer(argv[0], WC_RPC_COUNTERS);
    if( pOut ) wcRpcStatsHand(pOut, &p->count);
    pCur->bEof = 1;
    if( pOut && pOut->bEstimate && p->eKind == BT_ROWS ){
      return btRowEstimate(p, &pOut->nRowEstimate,
                           pOut->bSamples ? &pOut->aSample : 0,
                           &pOut->nSample);
    }
    return SQLITE_OK;
  }
  /* The arguments: key constraints in bit order, then _stamp, rowkey. */
  for(i = 0; i < 5; i++){
    if( idxNum & (1 << i) ){
      if( i == 0 ) pEq = argv[iArg];
      iArg++;
    }
  }
  if( idxNum & BT_STAMPEQ ) pStamp = argv[iArg++];
  if( idxNum & BT_ROWKEYEQ ) pRowkey = argv[iArg++];
  if( idxNum & BT_LIMIT ) pLimit = argv[iArg++];
  if( pEq && pStamp && sqlite3_value_type(pStamp) == SQLITE_BLOB
   && sqlite3_value_type(pEq) == SQLITE_BLOB ){
    /* Nothing is sent: what waits stays behind the write to come. */
    return pretendRow(p, pCur, pEq, pStamp, pRowkey);
  }
  pCur->bEof = 0;
  wcbt__read_rows_request__init(&pCur->req);
  wcbt__key_set__init(&pCur->set);
  wcbt__key_range__init(pRange);
  rc = btTxnFlush(p, 0, 0);
  if( rc != SQLITE_OK ) return rc;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  iArg = 0;
  for(i = 0; i < 5; i++){
    sqlite3_value *pVal;
    int eType, bLower, eOp = 1 << i;
    const void *a;
    size_t n;
    if( (idxNum & eOp) == 0 ) continue;
    pVal = argv[iArg++];
    eType = sqlite3_value_type(pVal);
    bLower = eOp == BT_GE || eOp == BT_GT;
    if( eType != SQLITE_BLOB ){
      /* NULL matches nothing; a number or a text sorts before every key
      ** (a BLOB), so it only bounds as an upper bound or an '=', where it
      ** excludes every row. */
      if( eType == SQLITE_NULL || !bLower ) bEmpty = 1;
      continue;
    }
    a = sqlite3_value_blob(pVal);
    n = (size_t)sqlite3_value_bytes(pVal);
    if( eOp == BT_EQ ){
      if( n == 0 ){
        bEmpty = 1;
        continue;
      }
      pCur->aKey[0].data = btArenaCopy(pA, a, n);
      pCur->aKey[0].len = n;
      pCur->set.n_keys = 1;
      pCur->set.keys = pCur->aKey;
    }else if( bLower ){
      if( n == 0 && eOp == BT_GE ) continue;
      pRange->start_case = eOp == BT_GE ? WCBT__KEY_RANGE__START_START_CLOSED
                                        : WCBT__KEY_RANGE__START_START_OPEN;
      pRange->start_closed.data = btArenaCopy(pA, a, n);
      pRange->start_closed.len = n;
    }else{
      if( n == 0 ){
        bEmpty = 1;
        continue;
      }
      pRange->end_case = eOp == BT_LT ? WCBT__KEY_RANGE__END_END_OPEN
                                      : WCBT__KEY_RANGE__END_END_CLOSED;
      pRange->end_open.data = btArenaCopy(pA, a, n);
      pRange->end_open.len = n;
    }
  }
  if( pStamp && sqlite3_value_type(pStamp) != SQLITE_NULL ) bEmpty = 1;
  if( idxNum & BT_SET ){
    rc = decodeSet(pCur, argv[0]);
    if( rc != SQLITE_OK ) return rc;
    bEmpty = pCur->set.n_ranges == 0;
  }else if( pCur->set.n_keys == 0 && !emptyRange(pRange) ){
    pCur->apRange1[0] = pRange;
    pCur->set.n_ranges = 1;
    pCur->set.ranges = pCur->apRange1;
  }else if( pCur->set.n_keys == 0 ){
    bEmpty = 1;
  }
  if( bEmpty || pA->bOom ){
    pCur->bEof = 1;
    if( pEq && p->eKind == BT_ROWS ){
      noteSeen(p, pCur, sqlite3_value_blob(pEq),
               (size_t)sqlite3_value_bytes(pEq));
    }
    return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  pCur->req.table_name = p->zResource;
  pCur->bReversed = (idxNum & BT_REVERSED) != 0;
  pCur->req.reversed = pCur->bReversed;
  pCur->req.filter = readFilter(p, pCur->colUsed, pA);
  if( pCur->req.filter == 0 ) return SQLITE_NOMEM;
  pCur->nPage = pCur->set.n_keys == 0 ? BT_FIRST_PAGE : 0;
  if( pLimit && pCur->nPage > 0
   && sqlite3_value_numeric_type(pLimit) == SQLITE_INTEGER
   && sqlite3_value_int64(pLimit) > 0 ){
    int64_t nLimit = sqlite3_value_int64(pLimit);
    pCur->nPage = nLimit < BT_MAX_PAGE ? nLimit : BT_MAX_PAGE;
  }
  pCur->req.rows = &pCur->set;
  pCur->nVer = pCur->iVer = 0;
  waitBegins(pCur);
  readPage(p, pCur, 0);
  if( pCur->pStream == 0 ) return SQLITE_NOMEM;
  rc = cursorStep(pCursor);
  if( rc == SQLITE_OK && pEq && p->eKind == BT_ROWS ){
    noteSeen(p, pCur, pCur->aKey[0].data, pCur->aKey[0].len);
  }
  return rc;
}

int btEof(sqlite3_vtab_cursor *pCursor){
  return ((BtCursor*)pCursor)->bEof;
}

int btColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  if( iCol == 0 ){
    sqlite3_result_blob64(ctx, pCur->key.a ? pCur->key.a
                                           : (const unsigned char*)"",
                          (sqlite3_uint64)pCur->key.n, SQLITE_TRANSIENT);
  }else if( iCol <= p->nCol ){
    const BtColumn *pCol = &p->aCol[iCol - 1];
    if( pCur->abHave[iCol - 1]
     && btCellResultAs(ctx, pCol->eLayout, pCur->aVal[iCol - 1].a,
                       pCur->aVal[iCol - 1].n) != SQLITE_OK ){
      char *zKey = btDescribeKey(pCur->key.a, (size_t)pCur->key.n);
      int rc = btError(p, SQLITE_MISMATCH, "widecol %s: the cell %s:%s of "
          "row %s holds %lld bytes, not the 8 of a %s; name it BYTES in "
          "CELLS to read it as it is", p->zTable, pCol->zFamily, pCol->zQual,
          zKey ? zKey : "?", (long long)pCur->aVal[iCol - 1].n,
          pCol->eLayout == BT_LAYOUT_LONG ? "LONG" : "DOUBLE");
      sqlite3_free(zKey);
      return rc;
    }
  }else if( p->bRowtime && iCol == BT_COL_ROWTIME(p) ){
    sqlite3_result_int64(ctx, pCur->iRowtime);
  }else if( p->eKind == BT_OLDER && iCol == BT_COL_VKEY(p) ){
    WcBuf vkey;
    memset(&vkey, 0, sizeof(vkey));
    btVersionKey(&vkey, pCur->key.a, pCur->key.n, pCur->iRowtime);
    if( vkey.bOom ) return SQLITE_NOMEM;
    sqlite3_result_blob64(ctx, vkey.a, (sqlite3_uint64)vkey.n, sqlite3_free);
  }else if( iCol == BT_COL_STAMP(p) && !pCur->bPretend ){
    /* The stamps of the row (bt_cell.h), or of the entry's group. */
    const unsigned char *aStamps, *aBits;
    if( p->eKind == BT_ENTRIES ){
      sqlite3_result_blob64(ctx, pCur->group.a, (sqlite3_uint64)pCur->group.n,
                            SQLITE_TRANSIENT);
    }else if( pCur->bMarker
           && btMarkerParse(pCur->marker.a, (size_t)pCur->marker.n,
                            p->nStamp, p->nCol, &aStamps, &aBits) ){
      /* Then the marker's timestamp, so that a write conditional on these
      ** (_stamp = ?, the row not read again) goes after it. */
      size_t n = BT_STAMPS_SIZE(p->nStamp);
      unsigned char *aOut = sqlite3_malloc64(n + 8);
      int i;
      if( aOut == 0 ) return SQLITE_NOMEM;
      memcpy(aOut, aStamps, n);
      for(i = 0; i < 8; i++){
        aOut[n + i] = (unsigned char)((uint64_t)pCur->iRowtime >> (56 - 8*i));
      }
      sqlite3_result_blob64(ctx, aOut, (sqlite3_uint64)n + 8, sqlite3_free);
    }
  }
  return SQLITE_OK;
}

int btRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid){
  (void)pCursor;
  *pRowid = 0;
  return SQLITE_ERROR;
}
