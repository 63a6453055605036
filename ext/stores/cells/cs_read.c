/*
** cs_read.c: cursors of the cell store's module (cs_table.h).
**
** xFilter sends what waits first (a read sees its connection's writes),
** then reads the key, the keys or the ranges through the transport
** (xReadOpen), in pages, asking for the cells of the columns the
** statement uses (and the marker), the newest of each; rows come whole
** and are taken apart as xNext asks for them.  A read that breaks with a
** code worth a retry (CS_UNAVAILABLE) is started again after the last row
** it delivered, with backoff, until the deadline.
**
** Row tables: the marker gives the hidden column _stamp, and its column
** bits: a column asked for whose bit is set and that has no cell went
** missing (its family deleted), which is an error, never a NULL.  A scan
** of one key remembers what it found (CsTable.seen*): the next write of
** that key is conditional on it.  A scan of one key given _stamp = ? is
** not read at all: the row is taken to be there, and the write that
** follows is conditional on that stamp (widecol read the row just
** before).
**
** Index tables (CS_ENTRIES): an entry's row holds a group of cells per
** write; rows are read a batch at a time, the markers of their rows are
** read in one more read of those keys, and each entry is returned with
** the group its row's marker names, or not at all.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <stdlib.h>
#include <string.h>

/* A cell of an OLDER or CS_ENTRIES row kept while the row is taken apart:
** column (CS_MARKER: the marker), timestamp, qualifier (CS_ENTRIES) and
** value in CsCursor.cellVal. */
typedef struct HeldCell HeldCell;
struct HeldCell {
  int iCol;
  int64_t iMicros;
  int64_t iQual, nQual;
  int64_t iOff, n;
};
#define CS_MARKER (-3)

/* A marker read for verification (CS_ENTRIES). */
typedef struct CsSeen CsSeen;
struct CsSeen {
  int64_t iKey, nKey;     /* in CsCursor.markers */
  int64_t iVal, nVal;
};

typedef struct CsCursor CsCursor;
struct CsCursor {
  sqlite3_vtab_cursor base;
  CsReader *pReader;    /* The page being read, or 0 */
  int bEof;
  WcBuf key;            /* The row being read */
  WcBuf *aVal;          /* Its cells' values, per column */
  unsigned char *abHave;   /* Column has a value in this row */
  WcBuf marker;         /* The row's latest marker value, */
  int bMarker;          /* if it has one */
  uint64_t colUsed;     /* Columns the statement reads */
  /* The read, in pages: a scan asks for nFirstPage rows, then for
  ** nPageGrowth times more after the last key of a full page (up to
  ** nMaxPage: CS_READS), so that a probe or a LIMIT reads about what it
  ** uses and a long scan takes few calls.  The keys and ranges left to read are
  ** in the request's arena (aKey[0..nKey), aRange[0..nRange)): each page
  ** starts after the last row delivered. */
  WcArena reqArena;
  CsRead req;
  CsBytes *aKey;
  int nKey;
  CsRange *aRange;
  int nRange;
  CsRange one;          /* A single range's room */
  CsBytes eq;           /* A single key's */
  WcBuf lastKey;        /* Key of the last row delivered */
  int bLast;            /* lastKey is set */
  int bReversed;        /* Rows come in descending key order */
  int64_t nPage;        /* Rows the page asks for (0: no limit) */
  int64_t nPageRows;    /* Rows of the page delivered */
  int64_t iRetryStart;  /* When the wait for the row that did not come
                        ** began (wcMonotonicMs()) */
  int nRetry;
  int64_t iRowtime;     /* ROWTIME: the version's timestamp */
  /* OLDER: every cell of the row (values in cellVal), and the timestamps
  ** of its versions, newest first; the cursor is on version iVer. */
  WcBuf cells;          /* HeldCell[], as wc_buf.h grows it */
  int nCell;
  WcBuf cellVal;
  WcBuf vers;           /* int64_t[] */
  int nVer, iVer;
  /* CS_ENTRIES: entry rows read (ents: key length, key, cell count, then
  ** per cell its timestamp, qualifier and value, lengths first), the
  ** markers of their rows (seen: CsSeen[] sorted by key, bytes in
  ** markers), and where the next is. */
  WcBuf ents;
  int64_t iEnt;
  int nEnt, iEntRow;
  WcBuf seen;
  int nSeen;
  WcBuf markers;
  WcBuf group;          /* The stamp of the entry's group served */
  int bStreamDone;      /* The entries' read has ended */
  /* A row taken to be there (_stamp = ?): returned once, unread. */
  int bPretend;
};

/* The kind's read schedule (util/wc_kind.h): pages, and index entries
** verified a call. */
#define CS_READS(p) (&(p)->pT->pKind->reads)

static HeldCell *cursorCells(const CsCursor *pCur){
  return (HeldCell*)pCur->cells.a;
}
static int64_t *cursorVers(const CsCursor *pCur){
  return (int64_t*)pCur->vers.a;
}

int csFindColumn(const CsTable *p, const char *zFamily,
                 const unsigned char *aQual, size_t nQual){
  int lo = 0, hi = p->nSorted - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    const CsCol *pCol = &p->aCol[p->aiSorted[mid]];
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

/* True if a column with cells is in colUsed. */
static int anyColumnUsed(const CsTable *p, uint64_t colUsed){
  int i;
  for(i = 0; i < p->nCol; i++){
    if( scColumnUsed(colUsed, i) && p->aCol[i].eLayout != CS_LAYOUT_KEY ){
      return 1;
    }
  }
  return 0;
}

/* Which cells the read asks for: the newest of each column used, and the
** marker; every version in an OLDER table; every column of an index's
** entry (its groups).  The columns' list in the cursor's arena. */
static int readColumns(CsTable *p, CsCursor *pCur){
  CsRead *pRead = &pCur->req;
  CsColumn *aColumn;
  int i, bAll = 1;
  for(i = 0; i < p->nCol; i++) bAll &= scColumnUsed(pCur->colUsed, i);
  pRead->bLatest = p->eKind != CS_OLDER;
  pRead->nColumn = 0;
  pRead->aColumn = 0;
  /* An EXISTING table has no marker to show that a row holding none of
  ** the columns read is a row: the latest cell of every column is read,
  ** or, where none is read (its keys), one cell a row, without its
  ** value. */
  if( p->args.bExisting && !anyColumnUsed(p, pCur->colUsed) ){
    pRead->bKeysOnly = 1;
    return SQLITE_OK;
  }
  if( bAll || p->eKind == CS_ENTRIES || p->args.bExisting ) return SQLITE_OK;
  aColumn = wcArenaAlloc(&pCur->reqArena, sizeof(CsColumn)
                                           * (size_t)(p->nCol + 1));
  if( aColumn == 0 ) return SQLITE_NOMEM;
  aColumn[pRead->nColumn++] = csMarkerColumn;
  for(i = 0; i < p->nCol; i++){
    const CsCol *pCol = &p->aCol[i];
    if( !scColumnUsed(pCur->colUsed, i) || pCol->eLayout == CS_LAYOUT_KEY ){
      continue;
    }
    aColumn[pRead->nColumn].zFamily = pCol->zFamily;
    aColumn[pRead->nColumn].qual.a = (const unsigned char*)pCol->zQual;
    aColumn[pRead->nColumn].qual.n = strlen(pCol->zQual);
    pRead->nColumn++;
  }
  wcAssert( pRead->nColumn <= p->nCol + 1 );
  pRead->aColumn = aColumn;
  return SQLITE_OK;
}

int csOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  CsTable *p = (CsTable*)pVtab;
  CsCursor *pCur = sqlite3_malloc(sizeof(*pCur));
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

/* Ends the page being read, if any. */
static void cursorReset(CsCursor *pCur){
  const CsTable *p = (const CsTable*)pCur->base.pVtab;
  if( pCur->pReader ) p->pT->xReadClose(pCur->pReader);
  pCur->pReader = 0;
}

int csClose(sqlite3_vtab_cursor *pCursor){
  CsCursor *pCur = (CsCursor*)pCursor;
  CsTable *p = (CsTable*)pCursor->pVtab;
  int i;
  cursorReset(pCur);
  wcArenaFree(&pCur->reqArena);
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

static void rowStart(CsCursor *pCur, int nCol){
  int i;
  pCur->key.n = 0;
  for(i = 0; i < nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)nCol);
  pCur->iRowtime = 0;
  pCur->marker.n = 0;
  pCur->bMarker = 0;
  pCur->nCell = 0;
  pCur->cells.n = 0;
  pCur->cellVal.n = 0;
}

/* OLDER, CS_ENTRIES: keeps cell pC, of column iCol, in cells. */
static void cellHold(CsCursor *pCur, int iCol, const CsCell *pC){
  HeldCell cell;
  cell.iCol = iCol;
  cell.iMicros = pC->iMicros;
  cell.iQual = pCur->cellVal.n;
  cell.nQual = (int64_t)pC->qual.n;
  wcBufAppend(&pCur->cellVal, pC->qual.a, (int64_t)pC->qual.n);
  cell.iOff = pCur->cellVal.n;
  cell.n = (int64_t)pC->value.n;
  wcBufAppend(&pCur->cellVal, pC->value.a, (int64_t)pC->value.n);
  wcBufAppend(&pCur->cells, &cell, (int64_t)sizeof(cell));
  pCur->nCell++;
}

/* OLDER: the timestamps of the row's versions (its marker's cells, which
** come newest first) into vers. */
static int versionsOfRow(CsCursor *pCur){
  int i;
  pCur->nVer = 0;
  pCur->iVer = 0;
  pCur->vers.n = 0;
  for(i = 0; i < pCur->nCell; i++){
    const HeldCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iCol != CS_MARKER ) continue;
    wcAssert( pCur->nVer == 0
              || cursorVers(pCur)[pCur->nVer - 1] > pCell->iMicros );
    wcBufAppend(&pCur->vers, &pCell->iMicros, (int64_t)sizeof(int64_t));
    if( pCur->vers.bOom ) return SQLITE_NOMEM;
    pCur->nVer++;
  }
  return SQLITE_OK;
}

/* A row's columns asked for that its marker says have cells, checked
** against the cells that came: one missing went with its family (or was
** deleted outside widecol).  aMarker may be 0 (no marker). */
static int checkColumns(CsTable *p, CsCursor *pCur,
                        const unsigned char *aMarker, size_t nMarker,
                        int64_t iMicros){
  const unsigned char *aStamps, *aBits;
  int i;
  if( aMarker == 0
   || !csMarkerParse(aMarker, nMarker, p->args.nStamp, p->nCol, &aStamps,
                     &aBits) ){
    return SQLITE_OK;
  }
  /* A version the engine's GC is collecting may have lost some cells and
  ** not yet the others: past the TTL, nothing is checked. */
  if( p->args.nTtl > 0 && iMicros < wcWallMicros() - p->args.nTtl * 1000000 ){
    return SQLITE_OK;
  }
  for(i = 0; i < p->nCol; i++){
    if( csMarkerHas(aBits, i) && !pCur->abHave[i]
     && scColumnUsed(pCur->colUsed, i) ){
      return csMissingColumn(p, i, pCur->key.a, (size_t)pCur->key.n);
    }
  }
  return SQLITE_OK;
}

/* OLDER: puts version iVer's cells in aVal. */
static int versionLoad(CsTable *p, CsCursor *pCur){
  int64_t iMicros = cursorVers(pCur)[pCur->iVer];
  const unsigned char *aMarker = 0;
  size_t nMarker = 0;
  int i;
  wcAssert( pCur->iVer >= 0 && pCur->iVer < pCur->nVer );
  for(i = 0; i < p->nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)p->nCol);
  for(i = 0; i < pCur->nCell; i++){
    const HeldCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iMicros != iMicros ) continue;
    if( pCell->iCol == CS_MARKER ){
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

/* True if a range holds no key: an engine may refuse such a range. */
static int emptyRange(const CsRange *pRange){
  int c;
  if( pRange->eStart == CS_UNBOUNDED || pRange->eEnd == CS_UNBOUNDED ){
    return 0;
  }
  c = wcBytesCompare(pRange->start.a, pRange->start.n, pRange->end.a,
                 pRange->end.n);
  return c > 0 || (c == 0 && (pRange->eStart == CS_OPEN
                              || pRange->eEnd == CS_OPEN));
}

/* skipDelivered() of a reversed read, whose rows come from the end:
** drops the keys and ranges at or after the last row delivered, and the
** range it is in ends before it. */
static int skipDeliveredReversed(CsCursor *pCur){
  CsRange *pRange;
  const unsigned char *aLast = pCur->lastKey.a;
  size_t nLast = (size_t)pCur->lastKey.n;
  while( pCur->nKey > 0
      && wcBytesCompare(pCur->aKey[pCur->nKey - 1].a,
                        pCur->aKey[pCur->nKey - 1].n, aLast, nLast) >= 0 ){
    pCur->nKey--;
  }
  while( pCur->nRange > 0 ){
    pRange = &pCur->aRange[pCur->nRange - 1];
    if( pRange->eStart == CS_UNBOUNDED
     || wcBytesCompare(pRange->start.a, pRange->start.n, aLast, nLast) < 0 ){
      break;
    }
    pCur->nRange--;
  }
  if( pCur->nRange > 0 ){
    pRange = &pCur->aRange[pCur->nRange - 1];
    if( pRange->eEnd == CS_UNBOUNDED
     || wcBytesCompare(pRange->end.a, pRange->end.n, aLast, nLast) >= 0 ){
      pRange->eEnd = CS_OPEN;
      pRange->end.a = wcArenaCopy(&pCur->reqArena, aLast, nLast);
      pRange->end.n = nLast;
      if( pRange->end.a == 0 ) return 0;
    }
  }
  return pCur->nKey > 0 || pCur->nRange > 0;
}

/* Drops from the request what lies at or before the last row delivered:
** keys, and ranges that end there; the range it is in starts after it (a
** copy in the request's arena: lastKey changes as rows come).  True if
** anything is left to read; SQLITE_NOMEM is not told apart (the arena
** notes it). */
static int skipDelivered(CsCursor *pCur){
  CsRange *pRange;
  const unsigned char *aLast = pCur->lastKey.a;
  size_t nLast = (size_t)pCur->lastKey.n;
  if( !pCur->bLast ) return pCur->nKey > 0 || pCur->nRange > 0;
  if( pCur->bReversed ) return skipDeliveredReversed(pCur);
  while( pCur->nKey > 0
      && wcBytesCompare(pCur->aKey[0].a, pCur->aKey[0].n, aLast, nLast) <= 0 ){
    pCur->aKey++;
    pCur->nKey--;
  }
  while( pCur->nRange > 0 && pCur->aRange[0].eEnd != CS_UNBOUNDED
      && wcBytesCompare(pCur->aRange[0].end.a, pCur->aRange[0].end.n, aLast,
                    nLast) <= 0 ){
    pCur->aRange++;
    pCur->nRange--;
  }
  if( pCur->nRange > 0 ){
    pRange = &pCur->aRange[0];
    if( pRange->eStart == CS_UNBOUNDED
     || wcBytesCompare(pRange->start.a, pRange->start.n, aLast, nLast) <= 0 ){
      pRange->eStart = CS_OPEN;
      pRange->start.a = wcArenaCopy(&pCur->reqArena, aLast, nLast);
      pRange->start.n = nLast;
      if( pRange->start.a == 0 ) return 0;
    }
  }
  return pCur->nKey > 0 || pCur->nRange > 0;
}

/* The cursor begins to wait for its next row (xFilter, xNext, or a row
** read within one): retries of the calls it makes for it, if they fail,
** end with the deadline counted from now, not from the failure (a call,
** or a page's start, may fail only at its own deadline). */
static void waitBegins(CsCursor *pCur){
  if( pCur->nRetry == 0 ) pCur->iRetryStart = wcMonotonicMs();
}

/* Starts the read of keys and ranges left, asking for nLimit rows (0: no
** limit), under pWait: SQLITE_OK (a failure to start is the reader's to
** report), or SQLITE_NOMEM. */
static int readStart(CsTable *p, CsCursor *pCur, int64_t nLimit,
                     const CsWait *pWait){
  wcAssert( pCur->pReader == 0 && pCur->nKey + pCur->nRange > 0 );
  pCur->req.aKey = pCur->aKey;
  pCur->req.nKey = pCur->nKey;
  pCur->req.aRange = pCur->aRange;
  pCur->req.nRange = pCur->nRange;
  pCur->req.nLimit = nLimit;
  p->pT->xReadOpen(p->pConn, &pCur->req, pWait, &pCur->pReader);
  return pCur->pReader ? SQLITE_OK : SQLITE_NOMEM;
}

/* Starts the read of the cursor's next page: the first (bNext 0), or the
** one after the last key delivered, nPageGrowth times larger.  No read
** (the end) if nothing is left.  SQLITE_OK or SQLITE_NOMEM. */
static int readPage(CsTable *p, CsCursor *pCur, int bNext){
  if( bNext ){
    if( !skipDelivered(pCur) ){
      return pCur->reqArena.bOom ? SQLITE_NOMEM : SQLITE_OK;
    }
    pCur->nPage *= CS_READS(p)->nPageGrowth;
    if( pCur->nPage > CS_READS(p)->nMaxPage ){
      pCur->nPage = CS_READS(p)->nMaxPage;
    }
  }
  pCur->nPageRows = 0;
  return readStart(p, pCur, pCur->nPage, &p->wait);
}

/* The read broke with pSt: starts it again after the last row delivered,
** if its code is worth a retry and the deadline leaves time.  SQLITE_OK
** if it did (or nothing was left to read: no reader), else the error. */
static int readResume(CsTable *p, CsCursor *pCur, CsStatus *pSt){
  int code;
  if( !csRetryable(pSt->code) ) return csRpcError(p, "could not read", pSt);
  code = csBackoff(&p->wait, ++pCur->nRetry, pCur->iRetryStart);
  if( code == CS_CANCELLED ){
    return csError(p, SQLITE_INTERRUPT, "widecol %s: interrupted while "
                   "waiting to read %s again", p->zTable, p->args.zResource);
  }
  if( code != CS_OK ){
    return csRpcError(p, "could not read (retried until the deadline)", pSt);
  }
  p->pT->xRetryNow(p->pConn);
  cursorReset(pCur);
  if( !skipDelivered(pCur) ){
    return pCur->reqArena.bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  {
    CsWait w = csRetryWait(&p->wait, pCur->iRetryStart);
    return readStart(p, pCur,
                     pCur->nPage > 0 ? pCur->nPage - pCur->nPageRows : 0, &w);
  }
}

/* Takes row pRow apart into the cursor: its key, each column's newest
** cell, the marker; an OLDER or CS_ENTRIES table's cells held whole. */
static int rowTake(CsTable *p, CsCursor *pCur, const CsRow *pRow){
  int i;
  rowStart(pCur, p->nCol);
  wcBufAppend(&pCur->key, pRow->key.a, (int64_t)pRow->key.n);
  for(i = 0; i < pRow->nCell; i++){
    const CsCell *pC = &pRow->aCell[i];
    int iCol;
    wcAssert( i == 0 || strcmp(pC[-1].zFamily, pC->zFamily) != 0
              || wcBytesCompare(pC[-1].qual.a, pC[-1].qual.n, pC->qual.a,
                            pC->qual.n) != 0
              || pC[-1].iMicros > pC->iMicros );
    if( p->eKind == CS_ENTRIES ){
      cellHold(pCur, -2, pC);
      continue;
    }
    iCol = csFindColumn(p, pC->zFamily, pC->qual.a, pC->qual.n);
    if( p->eKind != CS_PLAIN && iCol == -2 && pC->qual.n == 0
     && strcmp(pC->zFamily, WC_DEFAULT_FAMILY) == 0 ){
      iCol = CS_MARKER;
    }
    if( iCol == CS_MARKER && !pCur->bMarker ){
      /* The newest marker: the row's version, its stamps. */
      pCur->bMarker = 1;
      pCur->iRowtime = pC->iMicros;
      if( p->eKind != CS_OLDER ){
        wcBufAppend(&pCur->marker, pC->value.a, (int64_t)pC->value.n);
      }
    }
    if( p->eKind == CS_OLDER ){
      if( iCol >= 0 || iCol == CS_MARKER ) cellHold(pCur, iCol, pC);
    }else if( iCol >= 0 && !pCur->abHave[iCol] ){
      pCur->abHave[iCol] = 1;
      wcBufAppend(&pCur->aVal[iCol], pC->value.a, (int64_t)pC->value.n);
    }
  }
  for(i = 0; i < p->nCol; i++){
    if( pCur->aVal[i].bOom ) return SQLITE_NOMEM;
  }
  if( pCur->key.bOom || pCur->cellVal.bOom || pCur->cells.bOom
   || pCur->marker.bOom ){
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* Reads the next row (or the read ends). */
static int readRow(CsCursor *pCur){
  CsTable *p = (CsTable*)pCur->base.pVtab;
  CsStatus st = {0, 0};
  for(;;){
    const CsRow *pRow = 0;
    int r, rc;
    if( pCur->pReader == 0 ){
      pCur->bEof = 1;
      return SQLITE_OK;
    }
    r = p->pT->xReadNext(pCur->pReader, &pRow, &st);
    if( r == 0 && pCur->nPage > 0 && pCur->nPageRows >= pCur->nPage ){
      /* A full page: the next one starts after its last key. */
      cursorReset(pCur);
      rc = readPage(p, pCur, 1);
      if( rc != SQLITE_OK ) return rc;
      continue;
    }
    if( r < 0 ){
      rc = readResume(p, pCur, &st);
      csStatusClear(&st);
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
    wcAssert( !pCur->bLast || wcBytesCompare(pCur->lastKey.a,
              (size_t)pCur->lastKey.n, pRow->key.a, pRow->key.n)
              != (pCur->bReversed ? -1 : 1) );
    rc = rowTake(p, pCur, pRow);
    if( rc != SQLITE_OK ) return rc;
    pCur->nPageRows++;
    p->count.nRowIn++;
    pCur->nRetry = 0;
    waitBegins(pCur);
    pCur->lastKey.n = 0;
    wcBufAppend(&pCur->lastKey, pCur->key.a, pCur->key.n);
    pCur->bLast = 1;
    if( pCur->lastKey.bOom ) return SQLITE_NOMEM;
    if( p->eKind == CS_ROWS && !p->args.bExisting && !pCur->bMarker ){
      /* Cells another program wrote without the marker: no row to any
      ** read (a read of the keys alone asks for the marker, so reads of
      ** other columns must not show them either; docs/bigtable.md).  The
      ** next page starts after it all the same. */
      continue;
    }
    if( p->eKind == CS_ROWS ){
      return checkColumns(p, pCur, pCur->bMarker ? pCur->marker.a : 0,
                          (size_t)pCur->marker.n, pCur->iRowtime);
    }
    return SQLITE_OK;
  }
}
/*
** Index entries (CS_ENTRIES), verified against their rows.
*/

/* A group's parts of a cell's qualifier: its stamp (0s for a plain
** qualifier, widecol 1.0's) and the column's name. */
static void qualParts(const unsigned char *aQual, int64_t nQual,
                      const unsigned char **paStamp,
                      const unsigned char **paName, int64_t *pnName){
  static const unsigned char aZero[CS_STAMP] = {0};
  if( nQual >= 1 + CS_STAMP && aQual[0] == 0 ){
    *paStamp = aQual + 1;
    *paName = aQual + 1 + CS_STAMP;
    *pnName = nQual - 1 - CS_STAMP;
  }else{
    *paStamp = aZero;
    *paName = aQual;
    *pnName = nQual;
  }
}

/* The row key an entry's cells name (its rowkey column, a BLOB cell), or
** 0. */
static const unsigned char *entryRowkey(CsTable *p, CsCursor *pCur,
                                        int64_t *pn){
  int i;
  const char *zName = p->aCol[p->iRowkeyCol].zName;
  int64_t nName = (int64_t)strlen(zName);
  for(i = 0; i < pCur->nCell; i++){
    const HeldCell *pCell = &cursorCells(pCur)[i];
    const unsigned char *aStamp, *aName;
    int64_t nNameHere;
    qualParts(pCur->cellVal.a + pCell->iQual, pCell->nQual, &aStamp, &aName,
              &nNameHere);
    if( nNameHere == nName && memcmp(aName, zName, (size_t)nName) == 0
     && pCell->n >= 1 && pCur->cellVal.a[pCell->iOff] == CS_CELL_BLOB ){
      *pn = pCell->n - 1;
      return pCur->cellVal.a + pCell->iOff + 1;
    }
  }
  return 0;
}

/* Appends the entry row just read (key, cells) to ents; its row key to
** *pKeys (length first). */
static void entryKeep(CsTable *p, CsCursor *pCur, WcBuf *pKeys){
  const unsigned char *aRow;
  int64_t nRow = 0;
  int i;
  wcBufAppendBe(&pCur->ents, (uint64_t)(pCur->key.n), 4);
  wcBufAppend(&pCur->ents, pCur->key.a, pCur->key.n);
  wcBufAppendBe(&pCur->ents, (uint64_t)(pCur->nCell), 4);
  for(i = 0; i < pCur->nCell; i++){
    const HeldCell *pCell = &cursorCells(pCur)[i];
    unsigned char aTime[8];
    int k;
    for(k = 0; k < 8; k++){
      aTime[k] = (unsigned char)((uint64_t)pCell->iMicros >> (56 - 8 * k));
    }
    wcBufAppend(&pCur->ents, aTime, 8);
    wcBufAppendBe(&pCur->ents, (uint64_t)(pCell->nQual), 4);
    wcBufAppend(&pCur->ents, pCur->cellVal.a + pCell->iQual, pCell->nQual);
    wcBufAppendBe(&pCur->ents, (uint64_t)(pCell->n), 4);
    wcBufAppend(&pCur->ents, pCur->cellVal.a + pCell->iOff, pCell->n);
  }
  aRow = entryRowkey(p, pCur, &nRow);
  wcBufAppendBe(pKeys, (uint64_t)(aRow ? nRow : 0), 4);
  if( aRow ) wcBufAppend(pKeys, aRow, nRow);
  pCur->nEnt++;
}

static int seenCompare(const void *pA, const void *pB, const unsigned char *a){
  const CsSeen *x = (const CsSeen*)pA, *y = (const CsSeen*)pB;
  return wcBytesCompare(a + x->iKey, (size_t)x->nKey, a + y->iKey,
                    (size_t)y->nKey);
}

/* The marker seen for row key aKey[0..n): its value in *paVal, or 0 if
** the row has none.  seen is sorted (by readMarkers()). */
static int seenFind(CsCursor *pCur, const unsigned char *aKey, int64_t n,
                    const unsigned char **paVal, int64_t *pnVal){
  const CsSeen *aSeen = (const CsSeen*)pCur->seen.a;
  int lo = 0, hi = pCur->nSeen - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    int c = wcBytesCompare(pCur->markers.a + aSeen[mid].iKey,
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

/* What readMarkers() gathers: each row's latest marker into pCur's seen
** and markers. */
static void markersBegin(void *pCtx){
  CsCursor *pCur = (CsCursor*)pCtx;
  pCur->seen.n = 0;
  pCur->markers.n = 0;
  pCur->nSeen = 0;
}

static void markersRow(void *pCtx, const CsRow *pRow){
  CsCursor *pCur = (CsCursor*)pCtx;
  CsSeen one;
  int i;
  for(i = 0; i < pRow->nCell; i++){
    const CsCell *pC = &pRow->aCell[i];
    if( pC->qual.n == 0 && strcmp(pC->zFamily, WC_DEFAULT_FAMILY) == 0 ){
      break;
    }
  }
  if( i == pRow->nCell ) return;
  one.iKey = pCur->markers.n;
  one.nKey = (int64_t)pRow->key.n;
  wcBufAppend(&pCur->markers, pRow->key.a, one.nKey);
  one.iVal = pCur->markers.n;
  one.nVal = (int64_t)pRow->aCell[i].value.n;
  wcBufAppend(&pCur->markers, pRow->aCell[i].value.a, one.nVal);
  wcBufAppend(&pCur->seen, &one, (int64_t)sizeof(one));
  pCur->nSeen++;
}

static int bytesCompare(const void *pA, const void *pB){
  const CsBytes *x = (const CsBytes*)pA, *y = (const CsBytes*)pB;
  return wcBytesCompare(x->a, x->n, y->a, y->n);
}

/* Reads the latest marker of each row named in keys (length first each)
** from the row table, into seen and markers: one read of those keys, in
** key order, each once. */
static int readMarkers(CsTable *p, CsCursor *pCur, const WcBuf *pKeys){
  CsStatus st = {0, 0};
  CsBytes *aKey;
  CsRead read;
  CsRowSink sink;
  int64_t i;
  int n = 0, k, code, rc = SQLITE_OK;
  pCur->seen.n = 0;
  pCur->markers.n = 0;
  pCur->nSeen = 0;
  aKey = sqlite3_malloc64(sizeof(*aKey) * (size_t)(pCur->nEnt + 1));
  if( aKey == 0 ) return SQLITE_NOMEM;
  for(i = 0; i + 4 <= pKeys->n; ){
    int64_t nKey = (int64_t)wcGetBe(pKeys->a + i, 4);
    i += 4;
    if( nKey > 0 ){
      wcAssert( n <= pCur->nEnt );
      aKey[n].a = pKeys->a + i;
      aKey[n].n = (size_t)nKey;
      n++;
    }
    i += nKey;
  }
  if( n == 0 ){
    sqlite3_free(aKey);
    return SQLITE_OK;
  }
  qsort(aKey, (size_t)n, sizeof(*aKey), bytesCompare);
  for(i = 1, k = 1; i < n; i++){
    if( bytesCompare(&aKey[k - 1], &aKey[i]) != 0 ) aKey[k++] = aKey[i];
  }
  memset(&read, 0, sizeof(read));
  read.zTable = p->args.zEntriesOf;
  read.nKey = k;
  read.aKey = aKey;
  read.nColumn = 1;
  read.aColumn = &csMarkerColumn;
  read.bLatest = 1;
  sink.xBegin = markersBegin;
  sink.xRow = markersRow;
  sink.pCtx = pCur;
  code = csReadAll(p, &read, &p->wait, &sink, &st);
  if( code != CS_OK ){
    rc = csRpcError(p, "could not read the rows of index entries from", &st);
  }
  csStatusClear(&st);
  sqlite3_free(aKey);
  if( rc == SQLITE_OK && (pCur->seen.bOom || pCur->markers.bOom) ){
    rc = SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK && pCur->nSeen > 1 ){
    /* Rows come in key order; sorted again only to be sure. */
    CsSeen *a = (CsSeen*)pCur->seen.a;
    int j;
    for(k = 1; k < pCur->nSeen; k++){
      CsSeen t = a[k];
      for(j = k; j > 0 && seenCompare(&a[j - 1], &t, pCur->markers.a) > 0;
          j--){
        a[j] = a[j - 1];
      }
      a[j] = t;
    }
  }
  return rc;
}

/* Reads up to nVerifyRows (CS_READS) entry rows and their rows' markers. */
static int entryFill(CsTable *p, CsCursor *pCur){
  WcBuf keys;
  int rc = SQLITE_OK;
  memset(&keys, 0, sizeof(keys));
  pCur->ents.n = 0;
  pCur->iEnt = 0;
  pCur->nEnt = 0;
  pCur->iEntRow = 0;
  while( pCur->nEnt < CS_READS(p)->nVerifyRows ){
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
static int entryNext(CsTable *p, CsCursor *pCur, int *pbFound){
  *pbFound = 0;
  while( pCur->iEntRow < pCur->nEnt ){
    const unsigned char *a = pCur->ents.a;
    int64_t i = pCur->iEnt, nKey, nCells, k;
    const unsigned char *aKey, *aRow = 0, *aMarker = 0, *aWant;
    int64_t nRow = 0, nMarker = 0;
    nKey = (int64_t)wcGetBe(a + i, 4);
    aKey = a + i + 4;
    i += 4 + nKey;
    nCells = (int64_t)wcGetBe(a + i, 4);
    i += 4;
    /* First pass: the row key; then the group its marker names. */
    {
      int64_t j = i;
      const char *zName = p->aCol[p->iRowkeyCol].zName;
      int64_t nName = (int64_t)strlen(zName);
      for(k = 0; k < nCells; k++){
        int64_t nQual = (int64_t)wcGetBe(a + j + 8, 4), nVal;
        const unsigned char *aQual = a + j + 12, *aStamp, *aName;
        int64_t nNameHere;
        nVal = (int64_t)wcGetBe(a + j + 12 + nQual, 4);
        qualParts(aQual, nQual, &aStamp, &aName, &nNameHere);
        if( aRow == 0 && nNameHere == nName
         && memcmp(aName, zName, (size_t)nName) == 0 && nVal >= 1
         && a[j + 16 + nQual] == CS_CELL_BLOB ){
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
    aWant = csMarkerEntryStamp(aMarker, (size_t)nMarker, p->args.iEntry);
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
        nQual = (int64_t)wcGetBe(a + j + 8, 4);
        aQual = a + j + 12;
        nVal = (int64_t)wcGetBe(a + j + 12 + nQual, 4);
        aVal = a + j + 16 + nQual;
        j += 16 + nQual + nVal;
        qualParts(aQual, nQual, &aStamp, &aName, &nName);
        if( memcmp(aStamp, aWant, CS_STAMP) != 0 ) continue;
        if( nName == 0 ){
          bMarker = 1;
          pCur->iRowtime = iMicros;
          continue;
        }
        iCol = csFindColumn(p, WC_DEFAULT_FAMILY, aName, (size_t)nName);
        if( iCol < 0 ) continue;
        pCur->abHave[iCol] = 1;
        wcBufAppend(&pCur->aVal[iCol], aVal, nVal);
      }
      if( !bMarker ) continue;
    }
    pCur->group.n = 0;
    wcBufAppend(&pCur->group, aWant, CS_STAMP);
    *pbFound = 1;
    return pCur->key.bOom || pCur->group.bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  return SQLITE_OK;
}

/* The next verified entry, or the end. */
static int entryStep(CsTable *p, CsCursor *pCur){
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
  CsCursor *pCur = (CsCursor*)pCursor;
  CsTable *p = (CsTable*)pCursor->pVtab;
  int rc;
  if( pCur->bPretend ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  if( p->eKind == CS_ENTRIES ) return entryStep(p, pCur);
  if( p->eKind != CS_OLDER ) return readRow(pCur);
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

int csNext(sqlite3_vtab_cursor *pCursor){
  waitBegins((CsCursor*)pCursor);
  return cursorStep(pCursor);
}

/* Reads a set of ranges (wc_contract.h) into the request's ranges, in
** the cursor's arena, without the empty ones. */
static int decodeSet(CsCursor *pCur, sqlite3_value *pVal){
  WcArena *pA = &pCur->reqArena;
  const unsigned char *a = sqlite3_value_blob(pVal);
  size_t n = (size_t)sqlite3_value_bytes(pVal), i = 0, nMax = n / 5 + 1;
  CsRange *aRange = wcArenaAlloc(pA, sizeof(CsRange) * nMax);
  if( aRange == 0 ) return SQLITE_NOMEM;
  pCur->aRange = aRange;
  pCur->nRange = 0;
  while( i + 5 <= n ){
    CsRange *pRange = &aRange[pCur->nRange];
    size_t nLo, nHi;
    memset(pRange, 0, sizeof(*pRange));
    nLo = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
        | ((size_t)a[i+2] << 8) | a[i+3];
    i += 4;
    if( i + nLo + 1 > n ) break;
    if( nLo > 0 ){
      pRange->eStart = CS_CLOSED;
      pRange->start.a = wcArenaCopy(pA, &a[i], nLo);
      pRange->start.n = nLo;
    }
    i += nLo;
    if( a[i++] ){
      if( i + 4 > n ) break;
      nHi = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
          | ((size_t)a[i+2] << 8) | a[i+3];
      i += 4;
      if( i + nHi > n ) break;
      pRange->eEnd = CS_OPEN;
      pRange->end.a = wcArenaCopy(pA, &a[i], nHi);
      pRange->end.n = nHi;
      i += nHi;
      /* [lo, "") holds no key. */
      if( nHi == 0 ) continue;
    }
    if( !emptyRange(pRange) && (size_t)pCur->nRange < nMax - 1 ){
      pCur->nRange++;
    }
  }
  return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Notes the one-key scan just made: the state the next write of that key
** is conditional on. */
static void noteSeen(CsTable *p, CsCursor *pCur, const void *aKey, size_t n){
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
static int pretendRow(CsTable *p, CsCursor *pCur, sqlite3_value *pKey,
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
  if( p->eKind == CS_ROWS ){
    /* The stamps, then (as read) the marker's timestamp. */
    const unsigned char *a = sqlite3_value_blob(pStamp);
    int n = sqlite3_value_bytes(pStamp);
    unsigned char c = CS_MARKER_V2;
    wcBufAppend(&p->seenMarker, &c, 1);
    if( n == CS_STAMPS_SIZE(p->args.nStamp) + 8 ){
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

/* Sets the cursor's range from the bounds given (a NULL matches nothing;
** a number or a text sorts before every key, a BLOB, so it bounds only
** as an upper bound, where it excludes every row): false if nothing can
** match. */
static int boundsOf(CsCursor *pCur, const ScFilter *pF){
  WcArena *pA = &pCur->reqArena;
  CsRange *pRange = &pCur->one;
  memset(pRange, 0, sizeof(*pRange));
  if( pF->pLo ){
    int eType = sqlite3_value_type(pF->pLo);
    size_t n = (size_t)sqlite3_value_bytes(pF->pLo);
    if( eType == SQLITE_NULL ) return 0;
    if( eType == SQLITE_BLOB && (n > 0 || pF->bLoOpen) ){
      pRange->eStart = pF->bLoOpen ? CS_OPEN : CS_CLOSED;
      pRange->start.a = wcArenaCopy(pA, sqlite3_value_blob(pF->pLo), n);
      pRange->start.n = n;
    }
  }
  if( pF->pHi ){
    size_t n = (size_t)sqlite3_value_bytes(pF->pHi);
    if( sqlite3_value_type(pF->pHi) != SQLITE_BLOB || n == 0 ) return 0;
    pRange->eEnd = pF->bHiOpen ? CS_OPEN : CS_CLOSED;
    pRange->end.a = wcArenaCopy(pA, sqlite3_value_blob(pF->pHi), n);
    pRange->end.n = n;
  }
  if( emptyRange(pRange) ) return 0;
  pCur->aRange = pRange;
  pCur->nRange = 1;
  return 1;
}

/* The key the read is of (key = ?): false if no row can have it. */
static int keyOf(CsCursor *pCur, sqlite3_value *pEq){
  size_t n = (size_t)sqlite3_value_bytes(pEq);
  if( sqlite3_value_type(pEq) != SQLITE_BLOB || n == 0 ) return 0;
  pCur->eq.a = wcArenaCopy(&pCur->reqArena, sqlite3_value_blob(pEq), n);
  pCur->eq.n = n;
  pCur->aKey = &pCur->eq;
  pCur->nKey = 1;
  return 1;
}

int csFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
             int argc, sqlite3_value **argv){
  CsCursor *pCur = (CsCursor*)pCursor;
  CsTable *p = (CsTable*)pCursor->pVtab;
  WcArena *pA = &pCur->reqArena;
  ScFilter f;
  int rc, bAny;
  cursorReset(pCur);
  wcArenaFree(pA);
  pCur->bPretend = 0;
  pCur->bLast = 0;
  pCur->nRetry = 0;
  pCur->bStreamDone = 0;
  pCur->ents.n = 0;
  pCur->nEnt = pCur->iEntRow = 0;
  pCur->nKey = pCur->nRange = 0;
  scFilterArgs(idxNum, idxStr, argc, argv, &f);
  pCur->colUsed = f.colUsed;
  if( idxNum == SC_COUNTERS ){
    WcRpcStats *pOut = f.pCounters;
    scCountersHand(pOut, &p->count);
    pCur->bEof = 1;
    if( pOut && pOut->bEstimate && p->eKind == CS_ROWS ){
      rc = csRowEstimate(p, &pOut->nRowEstimate,
                         pOut->bSamples ? &pOut->aSample : 0,
                         &pOut->nSample);
      if( rc == SQLITE_OK && pOut->bLoads ){
        rc = csRegionLoads(p, &pOut->aLoad, &pOut->nLoad);
      }
      return rc;
    }
    return SQLITE_OK;
  }
  if( f.pEq && f.pStamp && sqlite3_value_type(f.pStamp) == SQLITE_BLOB
   && sqlite3_value_type(f.pEq) == SQLITE_BLOB ){
    /* Nothing is sent: what waits stays behind the write to come. */
    return pretendRow(p, pCur, f.pEq, f.pStamp, f.pRowkey);
  }
  pCur->bEof = 0;
  rc = csTxnFlush(p, 0, 0);
  if( rc != SQLITE_OK ) return rc;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  if( f.pSet ){
    rc = decodeSet(pCur, f.pSet);
    if( rc != SQLITE_OK ) return rc;
    bAny = pCur->nRange > 0;
  }else if( f.pEq ){
    bAny = keyOf(pCur, f.pEq);
  }else{
    bAny = boundsOf(pCur, &f);
  }
  if( f.pStamp && sqlite3_value_type(f.pStamp) != SQLITE_NULL ) bAny = 0;
  if( !bAny || pA->bOom ){
    pCur->bEof = 1;
    if( f.pEq && p->eKind == CS_ROWS ){
      noteSeen(p, pCur, sqlite3_value_blob(f.pEq),
               (size_t)sqlite3_value_bytes(f.pEq));
    }
    return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  memset(&pCur->req, 0, sizeof(pCur->req));
  pCur->req.zTable = p->args.zResource;
  pCur->bReversed = f.bDesc;
  pCur->req.bReversed = f.bDesc;
  rc = readColumns(p, pCur);
  if( rc != SQLITE_OK ) return rc;
  pCur->nPage = f.pEq ? 0 : CS_READS(p)->nFirstPage;
  if( f.pLimit && pCur->nPage > 0
   && sqlite3_value_numeric_type(f.pLimit) == SQLITE_INTEGER
   && sqlite3_value_int64(f.pLimit) > 0 ){
    int64_t nLimit = sqlite3_value_int64(f.pLimit);
    pCur->nPage = nLimit < CS_READS(p)->nMaxPage ? nLimit
                                                  : CS_READS(p)->nMaxPage;
  }
  pCur->nVer = pCur->iVer = 0;
  waitBegins(pCur);
  rc = readPage(p, pCur, 0);
  if( rc != SQLITE_OK ) return rc;
  rc = cursorStep(pCursor);
  if( rc == SQLITE_OK && f.pEq && p->eKind == CS_ROWS ){
    noteSeen(p, pCur, pCur->eq.a, pCur->eq.n);
  }
  return rc;
}

int csEof(sqlite3_vtab_cursor *pCursor){
  return ((CsCursor*)pCursor)->bEof;
}

int csColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int iCol){
  CsCursor *pCur = (CsCursor*)pCursor;
  CsTable *p = (CsTable*)pCursor->pVtab;
  if( iCol == 0 ){
    sqlite3_result_blob64(ctx, pCur->key.a ? pCur->key.a
                                           : (const unsigned char*)"",
                          (sqlite3_uint64)pCur->key.n, SQLITE_TRANSIENT);
  }else if( iCol <= p->nCol ){
    const CsCol *pCol = &p->aCol[iCol - 1];
    if( pCur->abHave[iCol - 1]
     && csCellResultAs(ctx, pCol->eLayout, pCur->aVal[iCol - 1].a,
                       pCur->aVal[iCol - 1].n) != SQLITE_OK ){
      char *zKey = csDescribeKey(pCur->key.a, (size_t)pCur->key.n);
      int rc = csError(p, SQLITE_MISMATCH, "widecol %s: the cell %s:%s of "
          "row %s holds %lld bytes, not the 8 of a %s; name it BYTES in "
          "CELLS to read it as it is", p->zTable, pCol->zFamily, pCol->zQual,
          zKey ? zKey : "?", (long long)pCur->aVal[iCol - 1].n,
          pCol->eLayout == CS_LAYOUT_LONG ? "LONG" : "DOUBLE");
      sqlite3_free(zKey);
      return rc;
    }
  }else if( p->args.bRowtime && iCol == CS_COL_ROWTIME(p) ){
    sqlite3_result_int64(ctx, pCur->iRowtime);
  }else if( p->eKind == CS_OLDER && iCol == CS_COL_VKEY(p) ){
    WcBuf vkey;
    memset(&vkey, 0, sizeof(vkey));
    csVersionKey(&vkey, pCur->key.a, pCur->key.n, pCur->iRowtime);
    if( vkey.bOom ) return SQLITE_NOMEM;
    sqlite3_result_blob64(ctx, vkey.a, (sqlite3_uint64)vkey.n, sqlite3_free);
  }else if( iCol == CS_COL_STAMP(p) && !pCur->bPretend ){
    /* The stamps of the row (cs_cell.h), or of the entry's group. */
    const unsigned char *aStamps, *aBits;
    if( p->eKind == CS_ENTRIES ){
      sqlite3_result_blob64(ctx, pCur->group.a, (sqlite3_uint64)pCur->group.n,
                            SQLITE_TRANSIENT);
    }else if( pCur->bMarker
           && csMarkerParse(pCur->marker.a, (size_t)pCur->marker.n,
                            p->args.nStamp, p->nCol, &aStamps, &aBits) ){
      /* Then the marker's timestamp, so that a write conditional on these
      ** (_stamp = ?, the row not read again) goes after it. */
      size_t n = CS_STAMPS_SIZE(p->args.nStamp);
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

int csRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid){
  (void)pCursor;
  *pRowid = 0;
  return SQLITE_ERROR;
}
