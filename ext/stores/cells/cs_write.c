/*
** cs_write.c: xUpdate of a table of the cell store (cs_table.h): each
** row written becomes a write (CsOp) of mutations of the engine's row,
** queued in its batch (cs_batch.c) or, when its statement must know at
** once, sent now.
**
**   row tables (CS_ROWS)
**     INSERT             written only if the row has no cell at all (a
**                        conditional write), else a key in use
**                        (SQLITE_CONSTRAINT_PRIMARYKEY).  Answered at once
**                        under INSERT OR FAIL (widecol's own way to ask)
**                        and inside a transaction; in autocommit it waits
**                        for the end of the statement
**     INSERT OR REPLACE  blind: the row deleted and written, one mutation
**     UPDATE, DELETE     conditional on the row as the scan that found it
**                        saw it (the marker, or the stamp the writer gave
**                        with _stamp = ?); UPDATE OR FAIL answers at once
**                        (SQLITE_BUSY_SNAPSHOT if the row changed)
**   index tables (CS_ENTRIES): INSERT (OR REPLACE) adds a group of cells
**     under the write's stamp (phase 1); DELETE removes one group
**     (phase 3), after its row's write
**   OLDER tables: INSERT puts a version's cells at its timestamp, DELETE
**     removes them.
** Every row written gets a new marker (cs_cell.h): the stamps the writer
** gave in _stamp, or new ones, and which columns have cells.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

/*
** Mutations.
*/

static int64_t nowMicros(CsTable *p){
  int64_t iStep = p->pT->pKind->iTimeStep, t = csNowMicros(p->pT->pKind);
  if( t <= p->iLastMicros ) t = p->iLastMicros + iStep;
  wcAssert( t % iStep == 0 && t > p->iLastMicros );
  p->iLastMicros = t;
  return t;
}

static const unsigned char *columnQual(const CsCol *pCol){
  return (const unsigned char*)pCol->zQual;
}

/* The qualifier of column zName (NULL: the marker) in group aStamp of an
** index's entry: "\0", the stamp, the name; a group of widecol 1.0
** (stamp 0s): the plain name.  In pA. */
static unsigned char *groupQual(WcArena *pA, const unsigned char *aStamp,
                                const char *zName, size_t *pn){
  static const unsigned char aZero[CS_STAMP] = {0};
  size_t nName = zName ? strlen(zName) : 0;
  unsigned char *a;
  if( memcmp(aStamp, aZero, CS_STAMP) == 0 ){
    *pn = nName;
    return wcArenaCopy(pA, zName ? zName : "", nName);
  }
  *pn = 1 + CS_STAMP + nName;
  a = wcArenaAlloc(pA, *pn);
  if( a == 0 ) return 0;
  a[0] = 0;
  memcpy(a + 1, aStamp, CS_STAMP);
  if( nName ) memcpy(a + 1 + CS_STAMP, zName, nName);
  return a;
}

/* The timestamp of a row's cells: with ROWTIME the column's value, which
** must be one the engine takes (widecol makes only such), else now (and not
** before the cells of the row as it was read: the latest cell is the one
** reads see). */
static int rowMicros(CsTable *p, sqlite3_value *pTime, int64_t iAfter,
                     int64_t *piMicros){
  if( !p->args.bRowtime ){
    *piMicros = nowMicros(p);
    if( *piMicros < iAfter ) *piMicros = iAfter;
    return SQLITE_OK;
  }
  *piMicros = sqlite3_value_int64(pTime);
  if( sqlite3_value_type(pTime) != SQLITE_INTEGER || *piMicros < 0
   || *piMicros % p->pT->pKind->iTimeStep != 0 ){
    return csError(p, SQLITE_CONSTRAINT_CHECK, "widecol %s: rowtime must be "
        "an integer number of microseconds in whole milliseconds (%s's "
        "timestamp granularity), not %Q", p->zTable, p->pT->pKind->zEngine,
        sqlite3_value_text(pTime));
  }
  return SQLITE_OK;
}

/* The cell of value pVal in *pCell, laid out as its column's cell is;
** SQLITE_MISMATCH for a value an EXISTING table's LONG or DOUBLE cell
** cannot hold, SQLITE_TOOBIG past the engine's cell limit (message set). */
static int encodeCell(CsTable *p, int iCol, sqlite3_value *pVal, WcBuf *pCell){
  const CsCol *pCol = &p->aCol[iCol];
  wcAssert( iCol >= 0 && iCol < p->nCol && pCol->eLayout != CS_LAYOUT_KEY );
  pCell->n = 0;
  if( csCellEncodeAs(pCol->eLayout, pVal, pCell) != SQLITE_OK ){
    static const char *const azHolds[] = {
      /* STRING */ "STRING, which holds text",
      /* LONG */   "LONG, which holds whole numbers",
      /* DOUBLE */ "DOUBLE, which holds numbers (an integer only where a "
                   "double holds it exactly)",
      /* BYTES */  "BYTES, which holds blobs (write CAST(x AS BLOB))",
    };
    int eType = sqlite3_value_type(pVal);
    char *zVal;
    /* Only an EXISTING table's typed layouts refuse a value. */
    wcAssert( pCol->eLayout >= CS_LAYOUT_STRING
              && pCol->eLayout <= CS_LAYOUT_BYTES );
    zVal = eType == SQLITE_BLOB ? sqlite3_mprintf("a blob")
               : sqlite3_mprintf(eType == SQLITE_TEXT ? "%Q" : "%s",
                                 sqlite3_value_text(pVal));
    int rc = csError(p, SQLITE_MISMATCH, "widecol %s: column %s's cell %s:%s "
        "is %s; %s is not one", p->zTable, pCol->zName, pCol->zFamily,
        pCol->zQual, azHolds[pCol->eLayout - CS_LAYOUT_STRING],
        zVal ? zVal : "the value");
    sqlite3_free(zVal);
    return rc;
  }
  if( pCell->bOom ) return SQLITE_NOMEM;
  if( pCell->n > p->pT->pKind->nMaxCell ){
    int bBlob = sqlite3_value_type(pVal) == SQLITE_BLOB;
    char zWhy[96];
    zWhy[0] = 0;
    if( bBlob ){
      sqlite3_snprintf(sizeof(zWhy), zWhy, "; a BLOB's cell is a type byte "
                       "and its bytes, so a BLOB may hold at most %lld bytes",
                       (long long)p->pT->pKind->nMaxCell - 1);
    }else if( sqlite3_value_type(pVal) == SQLITE_TEXT ){
      sqlite3_snprintf(sizeof(zWhy), zWhy, "; a text starting with a byte "
                       "of 0xF8 or more takes one byte more");
    }
    return csError(p, SQLITE_TOOBIG, "widecol %s: the value of column %s "
        "takes %lld bytes in its %s cell, more than the %lld a cell may "
        "hold%s", p->zTable, p->aCol[iCol].zName, (long long)pCell->n,
        p->pT->pKind->zEngine, (long long)p->pT->pKind->nMaxCell, zWhy);
  }
  return SQLITE_OK;
}

/* Adds the mutations writing columns argv[0..nCol) (an UPDATE's unchanged
** ones skipped) of a row or an entry's group (aStamp; 0 for a row),
** stamped iMicros, to pOp; abHas[i] is set for each column that then has
** a cell.  With ROWTIME a NULL is a cell too; else a NULL is no cell, and
** unless bFresh (the row was deleted first) its old cell is deleted. */
static int columnMutations(CsTable *p, CsOp *pOp, sqlite3_value **argv,
                           int bFresh, int bUpdate, const unsigned char *aStamp,
                           int64_t iMicros, unsigned char *abHas){
  static const unsigned char aNull[1] = { CS_CELL_NULL };
  WcArena *pA = pOp->pArena;
  int bDropOlder = p->args.bRowtime && p->eKind == CS_ROWS
                && p->args.nVersions == 1 && !bFresh && iMicros > 0;
  WcBuf cell;
  int i, rc = SQLITE_OK;
  memset(&cell, 0, sizeof(cell));
  /* A NULL with ROWTIME is a cell; without, bFresh writes it as none. */
  wcAssert( !bUpdate || !bFresh );
  for(i = 0; i < p->nCol && rc == SQLITE_OK; i++){
    sqlite3_value *pVal = argv[i];
    const CsCol *pCol = &p->aCol[i];
    const unsigned char *aQual = columnQual(pCol);
    size_t nQual = strlen(pCol->zQual);
    if( pCol->eLayout == CS_LAYOUT_KEY ) continue;
    if( bUpdate && sqlite3_value_nochange(pVal) ){
      abHas[i] = 2;     /* unknown: kept from the row as read */
      continue;
    }
    if( aStamp ){
      aQual = groupQual(pA, aStamp, pCol->zName, &nQual);
      if( aQual == 0 ){
        rc = SQLITE_NOMEM;
        break;
      }
    }
    if( bDropOlder ){
      if( csOpDeleteCells(pOp, pCol->zFamily, aQual, nQual, 0, iMicros) ){
        rc = SQLITE_NOMEM;
        break;
      }
    }
    if( sqlite3_value_type(pVal) == SQLITE_NULL ){
      if( p->args.bRowtime ){
        abHas[i] = 1;
        if( csOpSet(pOp, pCol->zFamily, aQual, nQual, aNull, 1, iMicros) ){
          rc = SQLITE_NOMEM;
        }
      }else if( !bFresh ){
        if( csOpDeleteCells(pOp, pCol->zFamily, aQual, nQual, 0, 0) ){
          rc = SQLITE_NOMEM;
        }
      }
      continue;
    }
    rc = encodeCell(p, i, pVal, &cell);
    if( rc != SQLITE_OK ) break;
    abHas[i] = 1;
    if( csOpSet(pOp, pCol->zFamily, aQual, nQual, cell.a, (size_t)cell.n,
                iMicros) ){
      rc = SQLITE_NOMEM;
    }
  }
  wcBufFree(&cell);
  return rc;
}

/* Every family of the row's columns other than "_" is named first by a
** mutation that changes nothing, so that a family gone from the table
** fails the write before any of it is applied (the emulator applies a
** row's mutations one by one until one fails; Bigtable, atomically).  An
** engine that applies them atomically everywhere needs none. */
static int familyChecks(CsTable *p, CsOp *pOp){
  int i;
  /* An EXISTING table's families were checked when it was opened; its
  ** application may keep a cell under the empty qualifier. */
  if( p->args.bExisting || p->pT->bRowAtomic ) return SQLITE_OK;
  for(i = 1; i < p->nFamily; i++){
    if( csOpDeleteCells(pOp, p->azFamily[i], (const unsigned char*)"", 0,
                        0, 0) ){
      return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

/* The marker of the row written: stamps from pStamps (the writer's
** _stamp; else a new write stamp and the index stamps of the row as read,
** or 0s), and the column bits abHas (2: as in the row read). */
static int markerMutation(CsTable *p, CsOp *pOp, sqlite3_value *pStamps,
                          unsigned char *abHas, int64_t iMicros){
  size_t nStamps = CS_STAMPS_SIZE(p->args.nStamp);
  const unsigned char *aOld = 0, *aOldBits = 0;
  unsigned char *aStamps;
  WcBuf marker;
  int i, rc = SQLITE_OK;
  /* An EXISTING table holds its application's cells and nothing more. */
  if( p->args.bExisting ) return SQLITE_OK;
  if( p->bSeen && p->bSeenMarker && !p->bSeenPrefix
   && p->seenKey.n == (int64_t)pOp->nKey
   && memcmp(p->seenKey.a, pOp->aKey, pOp->nKey) == 0 ){
    csMarkerParse(p->seenMarker.a, (size_t)p->seenMarker.n, p->args.nStamp,
                  p->nCol, &aOld, &aOldBits);
  }
  aStamps = wcArenaAlloc(pOp->pArena, nStamps);
  if( aStamps == 0 ) return SQLITE_NOMEM;
  if( pStamps && sqlite3_value_type(pStamps) == SQLITE_BLOB ){
    if( (size_t)sqlite3_value_bytes(pStamps) != nStamps ){
      return csError(p, SQLITE_MISUSE, "widecol %s: _stamp is widecol's own "
          "(%d bytes on this table), not %d bytes", p->zTable, (int)nStamps,
          sqlite3_value_bytes(pStamps));
    }
    memcpy(aStamps, sqlite3_value_blob(pStamps), nStamps);
  }else{
    csNewStamp(aStamps);
    if( aOld ) memcpy(aStamps + CS_STAMP, aOld + CS_STAMP, nStamps - CS_STAMP);
  }
  memcpy(pOp->aStamp, aStamps, CS_STAMP);
  for(i = 0; i < p->nCol; i++){
    wcAssert( abHas[i] <= 2 );
    if( abHas[i] == 2 ) abHas[i] = aOldBits ? csMarkerHas(aOldBits, i) : 0;
  }
  memset(&marker, 0, sizeof(marker));
  csMarkerEncode(&marker, aStamps, p->args.nStamp, abHas, p->nCol);
  if( marker.bOom
   || csOpSet(pOp, WC_DEFAULT_FAMILY, (const unsigned char*)"", 0, marker.a,
              (size_t)marker.n, iMicros) ){
    rc = SQLITE_NOMEM;
  }
  wcBufFree(&marker);
  return rc;
}

static int checkKey(CsTable *p, sqlite3_value *pKey){
  const WcKind *pKind = p->pT->pKind;
  int n = sqlite3_value_bytes(pKey);
  int nMax = pKind->nMaxKey - (pKind->nKeyByName
                 ? (int)strlen(p->args.zResource) + pKind->nKeyByName : 0);
  if( sqlite3_value_type(pKey) == SQLITE_NULL || n == 0 ){
    return csError(p, SQLITE_CONSTRAINT_NOTNULL, "widecol %s: a %s row "
                   "key cannot be empty", p->zTable, p->pT->pKind->zEngine);
  }
  wcAssert( nMax > 0 );
  if( n > nMax ){
    return csError(p, SQLITE_TOOBIG, "widecol %s: the row key is %d bytes; "
                   "%s takes at most %d in table %s", p->zTable, n,
                   p->pT->pKind->zEngine, nMax, p->args.zResource);
  }
  return SQLITE_OK;
}

/* True if the table's last one-key scan was of aKey[0..n). */
static int seenIs(const CsTable *p, const unsigned char *aKey, size_t n){
  return p->seenKey.n == (int64_t)n && (n == 0
         || memcmp(p->seenKey.a, aKey, n) == 0);
}

/* What a write of key aKey is conditional on: the row as its scan saw it
** (its marker, the stamp given, or no marker), or nothing. */
static void expectSeen(CsTable *p, CsOp *pOp){
  /* An EXISTING table's rows have no marker to be conditional on. */
  if( p->args.bExisting || !seenIs(p, pOp->aKey, pOp->nKey) || !p->bSeen ){
    pOp->eCond = CS_COND_NONE;
  }else if( p->bSeenPrefix ){
    pOp->eCond = CS_COND_PREFIX;
  }else if( p->bSeenMarker ){
    pOp->eCond = CS_COND_MARKER;
  }else{
    pOp->eCond = CS_COND_NOMARK;
    return;
  }
  if( pOp->eCond != CS_COND_NONE ){
    pOp->aExpect = wcArenaCopy(pOp->pArena, p->seenMarker.a,
                               (size_t)p->seenMarker.n);
    pOp->nExpect = (size_t)p->seenMarker.n;
  }
  /* Only a row's write is conditional (cs_batch.c sends it apart). */
  wcAssert( pOp->eCond == CS_COND_NONE || p->eKind == CS_ROWS );
}

/* A row's write being made: pOp in the batch's arena, or, if bNow (sent
** at once), in its own; abHas[i] set for each column with a cell. */
typedef struct RowWrite RowWrite;
struct RowWrite {
  CsBatch *pB;
  WcArena private;
  CsOp *pOp;
  unsigned char *abHas;
  int bNow;
};

/* Makes w->pOp for row pKey, room for nMut mutations. */
static int rowBegin(CsTable *p, RowWrite *w, sqlite3_value *pKey, int nMut){
  const unsigned char *aKey = sqlite3_value_blob(pKey);
  size_t nKey = (size_t)sqlite3_value_bytes(pKey);
  wcAssert( p->eKind == CS_ROWS && nMut > 0 );
  memset(&w->private, 0, sizeof(w->private));
  w->pB = csBatchOf(p, p->args.zResource);
  if( w->pB == 0 ) return SQLITE_NOMEM;
  if( !w->bNow ){
    int rc = csOpRoom(p, w->pB, CS_PHASE_ROW, aKey, nKey);
    if( rc != SQLITE_OK ) return rc;
  }
  w->pOp = csOpNew(w->bNow ? &w->private : csBatchArena(w->pB), CS_PHASE_ROW,
                   aKey, nKey, nMut);
  w->abHas = w->pOp ? wcArenaAlloc(w->pOp->pArena, (size_t)p->nCol + 1) : 0;
  if( w->abHas == 0 ){
    wcArenaFree(&w->private);
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* An EXISTING table's row is its cells (there is no marker), and the
** engine keeps no row without one: SQLITE_CONSTRAINT_CHECK, as for a
** key the engine cannot hold, where the write would leave none of its
** columns' cells (abHas: 1 set, 2 kept as it was). */
static int existingRowEmpty(CsTable *p, const CsOp *pOp,
                            const unsigned char *abHas){
  sqlite3_str *pCols;
  char *zKey, *zCols;
  int i, rc;
  for(i = 0; i < p->nCol; i++){
    if( p->aCol[i].eLayout != CS_LAYOUT_KEY && abHas[i] ) return SQLITE_OK;
  }
  pCols = sqlite3_str_new(0);
  for(i = 0; i < p->nCol; i++){
    if( p->aCol[i].eLayout == CS_LAYOUT_KEY ) continue;
    sqlite3_str_appendf(pCols, "%s%s", sqlite3_str_length(pCols) ? ", " : "",
                        p->aCol[i].zName);
  }
  zCols = sqlite3_str_finish(pCols);
  zKey = csDescribeKey(pOp->aKey, pOp->nKey);
  rc = csError(p, SQLITE_CONSTRAINT_CHECK, "widecol %s: row %s would have "
      "no cell: a row of a table opened EXISTING is its cells, and %s "
      "keeps no row without one; give one of its columns with a cell (%s) "
      "a value", p->zTable, zKey ? zKey : "?", p->pT->pKind->zEngine,
      zCols ? zCols : "?");
  sqlite3_free(zKey);
  sqlite3_free(zCols);
  return rc;
}

/* Ends w: adds the columns argv[3..] (bFresh: the row was deleted first;
** else an UPDATE's) and the marker, stamped iMicros, then queues the
** write or sends it now.  rc: how the write's making went so far. */
static int rowEnd(CsTable *p, RowWrite *w, sqlite3_value **argv, int bFresh,
                  int64_t iMicros, int rc){
  if( rc == SQLITE_OK ){
    rc = columnMutations(p, w->pOp, &argv[3], bFresh, !bFresh, 0, iMicros,
                         w->abHas);
  }
  if( rc == SQLITE_OK && p->args.bExisting ){
    rc = existingRowEmpty(p, w->pOp, w->abHas);
  }
  if( rc == SQLITE_OK ){
    rc = markerMutation(p, w->pOp, argv[2 + CS_COL_STAMP(p)], w->abHas,
                        iMicros);
  }
  if( rc != SQLITE_OK ){
    wcArenaFree(&w->private);
    return rc;
  }
  /* A write sent at once lives in its own arena, a queued one in its
  ** batch's. */
  wcAssert( w->pOp->pArena == (w->bNow ? &w->private
                                        : csBatchArena(w->pB)) );
  if( w->bNow ){
    rc = csOpSendNow(p, w->pOp);
    wcArenaFree(&w->private);
    return rc;
  }
  return csOpQueue(p, w->pB, w->pOp);
}

/* True if a replace of the row with columns argv[0..nCol) sets every
** cell the row can hold, so that deleting the row first would change
** nothing: a row of widecol's (not an index's entries, not an EXISTING
** table's), one version a column, no ROWTIME, and no NULL (which deletes
** its column's cell).  Such a write only sets cells, which an engine can
** batch with others' (HBase's putMultiple, where a row that deletes is a
** call of its own). */
static int setsEveryCell(const CsTable *p, sqlite3_value **argv){
  int i;
  if( p->eKind != CS_ROWS || p->args.bExisting || p->args.nVersions != 1
   || p->args.bRowtime ){
    return 0;
  }
  for(i = 0; i < p->nCol; i++){
    if( sqlite3_value_type(argv[i]) == SQLITE_NULL ) return 0;
  }
  return 1;
}

/* A new row at key argv[2] (an INSERT, or an UPDATE that moves a row),
** columns argv[3..]. */
static int rowInsert(CsTable *p, sqlite3_value **argv, int bMoved){
  sqlite3_value *pKey = argv[2];
  int bReplace = sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE;
  RowWrite w;
  int64_t iMicros;
  int rc;
  /* Answered at once: where the statement must know at the row (INSERT
  ** OR FAIL, widecol's way to ask), and in a transaction, whose
  ** statements' errors must be their own. */
  w.bNow = !bReplace && (bMoved || !csAutocommit(p)
                || sqlite3_vtab_on_conflict(p->db) == SQLITE_FAIL);
  rc = checkKey(p, pKey);
  if( rc == SQLITE_OK ){
    rc = rowMicros(p, p->args.bRowtime ? argv[3 + p->nCol] : 0, 0, &iMicros);
  }
  if( rc == SQLITE_OK ) rc = rowBegin(p, &w, pKey, p->nCol + p->nFamily + 3);
  if( rc != SQLITE_OK ) return rc;
  w.pOp->eCond = bReplace ? CS_COND_NONE : CS_COND_ABSENT;
  if( bReplace ){
    rc = familyChecks(p, w.pOp);
    /* An EXISTING table's row may hold cells no column names: a replace
    ** sets the columns' cells (a NULL deletes one) and keeps those. */
    if( rc == SQLITE_OK && !p->args.bExisting && !setsEveryCell(p, &argv[3])
     && csOpDeleteRow(w.pOp) ){
      rc = SQLITE_NOMEM;
    }
  }
  return rowEnd(p, &w, argv, !bReplace || !p->args.bExisting, iMicros, rc);
}

/* An UPDATE of the row at argv[0] in place: the columns set, conditional
** on the row as its scan saw it. */
static int rowUpdate(CsTable *p, sqlite3_value **argv){
  RowWrite w;
  int64_t iMicros;
  int rc;
  w.bNow = sqlite3_vtab_on_conflict(p->db) == SQLITE_FAIL;
  rc = rowBegin(p, &w, argv[0], 2 * p->nCol + p->nFamily + 3);
  if( rc != SQLITE_OK ) return rc;
  expectSeen(p, w.pOp);
  rc = rowMicros(p, p->args.bRowtime ? argv[3 + p->nCol] : 0,
                 seenIs(p, w.pOp->aKey, w.pOp->nKey) ? p->iSeenMicros : 0,
                 &iMicros);
  if( rc == SQLITE_OK ) rc = familyChecks(p, w.pOp);
  return rowEnd(p, &w, argv, 0, iMicros, rc);
}

/* A DELETE of row aKey: conditional on the row as its scan saw it. */
static int rowDelete(CsTable *p, const unsigned char *aKey, size_t nKey){
  CsBatch *pB = csBatchOf(p, p->args.zResource);
  CsOp *pOp;
  int rc;
  if( pB == 0 ) return SQLITE_NOMEM;
  rc = csOpRoom(p, pB, CS_PHASE_ROW, aKey, nKey);
  if( rc != SQLITE_OK ) return rc;
  pOp = csOpNew(csBatchArena(pB), CS_PHASE_ROW, aKey, nKey, 1);
  if( pOp == 0 || csOpDeleteRow(pOp) ){
    return SQLITE_NOMEM;
  }
  expectSeen(p, pOp);
  return csOpQueue(p, pB, pOp);
}

/*
** Index entries.
*/

/* An entry put: the group of its write's stamp (_stamp), before the row
** (phase 1). */
static int entryPut(CsTable *p, sqlite3_value **argv){
  sqlite3_value *pKey = argv[2];
  sqlite3_value *pStamp = argv[2 + CS_COL_STAMP(p)];
  CsBatch *pB = csBatchOf(p, p->args.zResource);
  unsigned char *abHas;
  const unsigned char *aStamp;
  size_t nQual;
  unsigned char *aQual;
  int64_t iMicros;
  CsOp *pOp;
  int rc;
  if( pB == 0 ) return SQLITE_NOMEM;
  if( sqlite3_value_type(pStamp) != SQLITE_BLOB
   || sqlite3_value_bytes(pStamp) != CS_STAMP ){
    return csError(p, SQLITE_MISUSE, "widecol %s: an entry of %s is written "
        "by widecol, with its write's stamp (_stamp, 8 bytes)", p->zTable,
        p->zName);
  }
  aStamp = sqlite3_value_blob(pStamp);
  rc = checkKey(p, pKey);
  if( rc == SQLITE_OK ){
    rc = rowMicros(p, p->args.bRowtime ? argv[3 + p->nCol] : 0, 0, &iMicros);
  }
  if( rc == SQLITE_OK ){
    rc = csOpRoom(p, pB, CS_PHASE_PUT, sqlite3_value_blob(pKey),
                  (size_t)sqlite3_value_bytes(pKey));
  }
  if( rc != SQLITE_OK ) return rc;
  pOp = csOpNew(csBatchArena(pB), CS_PHASE_PUT, sqlite3_value_blob(pKey),
                (size_t)sqlite3_value_bytes(pKey), p->nCol + 1);
  abHas = pOp ? wcArenaAlloc(pOp->pArena, (size_t)p->nCol + 1) : 0;
  if( abHas == 0 ) return SQLITE_NOMEM;
  memcpy(pOp->aStamp, aStamp, CS_STAMP);
  aQual = groupQual(pOp->pArena, aStamp, 0, &nQual);
  if( aQual == 0
   || csOpSet(pOp, WC_DEFAULT_FAMILY, aQual, nQual,
              (const unsigned char*)"", 0, iMicros) ){
    return SQLITE_NOMEM;
  }
  rc = columnMutations(p, pOp, &argv[3], 1, 0, aStamp, iMicros, abHas);
  if( rc != SQLITE_OK ) return rc;
  return csOpQueue(p, pB, pOp);
}

/* An entry delete: the group of the stamp the scan was given (_stamp =
** ?), after its row's write (phase 3).  Without a stamp, every group. */
static int entryDelete(CsTable *p, const unsigned char *aKey, size_t nKey){
  CsBatch *pB = csBatchOf(p, p->args.zResource);
  CsOp *pOp;
  int i;
  wcAssert( p->eKind == CS_ENTRIES || p->eKind == CS_PLAIN );
  if( pB == 0 ) return SQLITE_NOMEM;
  pOp = csOpNew(csBatchArena(pB), CS_PHASE_DELETE, aKey, nKey, p->nCol + 1);
  if( pOp == 0 ) return SQLITE_NOMEM;
  if( !seenIs(p, aKey, nKey) || !p->bSeenPrefix
   || p->seenMarker.n != CS_STAMP || p->eKind == CS_PLAIN ){
    if( csOpDeleteRow(pOp) ) return SQLITE_NOMEM;
  }else{
    const unsigned char *aStamp = p->seenMarker.a;
    for(i = -1; i < p->nCol; i++){
      size_t nQual;
      unsigned char *aQual = groupQual(pOp->pArena, aStamp,
                                       i < 0 ? 0 : p->aCol[i].zName, &nQual);
      if( aQual == 0
       || csOpDeleteCells(pOp, i < 0 ? WC_DEFAULT_FAMILY : p->aCol[i].zFamily,
                          aQual, nQual, 0, 0) ){
        return SQLITE_NOMEM;
      }
    }
  }
  /* After the write of its row, if that waits: not sent if it fails. */
  if( p->args.zEntriesOf && p->seenRowkey.n > 0 ){
    pOp->pRow = csOpWaiting(p->pTxn, p->args.zEntriesOf, p->seenRowkey.a,
                            (size_t)p->seenRowkey.n);
  }
  return csOpQueue(p, pB, pOp);
}

/*
** Versions (OLDER): rows of the row table's engine table, blind.
*/

/* A version put into history (stamped before the row's latest): its
** cells and its marker at its timestamp.  (A row's latest version that
** a new one replaces needs nothing: its cells stay, as history.) */
static int versionPut(CsTable *p, sqlite3_value **argv){
  sqlite3_value *pKey = argv[2];
  CsBatch *pB = csBatchOf(p, p->args.zResource);
  unsigned char *abHas;
  int64_t iMicros;
  CsOp *pOp;
  int rc;
  if( pB == 0 ) return SQLITE_NOMEM;
  rc = checkKey(p, pKey);
  if( rc == SQLITE_OK ) rc = rowMicros(p, argv[3 + p->nCol], 0, &iMicros);
  if( rc == SQLITE_OK ){
    rc = csOpRoom(p, pB, CS_PHASE_ROW, sqlite3_value_blob(pKey),
                  (size_t)sqlite3_value_bytes(pKey));
  }
  if( rc != SQLITE_OK ) return rc;
  pOp = csOpNew(csBatchArena(pB), CS_PHASE_ROW, sqlite3_value_blob(pKey),
                (size_t)sqlite3_value_bytes(pKey), p->nCol + 2);
  abHas = pOp ? wcArenaAlloc(pOp->pArena, (size_t)p->nCol + 1) : 0;
  if( abHas == 0 ) return SQLITE_NOMEM;
  rc = columnMutations(p, pOp, &argv[3], 1, 0, 0, iMicros, abHas);
  if( rc == SQLITE_OK ) rc = markerMutation(p, pOp, 0, abHas, iMicros);
  if( rc != SQLITE_OK ) return rc;
  return csOpQueue(p, pB, pOp);
}

/* Deletes a version (its key: the row key and the timestamp). */
static int versionDelete(CsTable *p, const unsigned char *aKey, int64_t nKey){
  CsBatch *pB = csBatchOf(p, p->args.zResource);
  int64_t iMicros = 0;
  CsOp *pOp;
  int i;
  wcAssert( p->eKind == CS_OLDER );
  if( pB == 0 ) return SQLITE_NOMEM;
  if( nKey < 8 ) return SQLITE_OK;    /* no version has such a key */
  for(i = 0; i < 8; i++){
    iMicros = (int64_t)(((uint64_t)iMicros << 8) | aKey[nKey - 8 + i]);
  }
  i = csOpRoom(p, pB, CS_PHASE_ROW, aKey, (size_t)nKey - 8);
  if( i != SQLITE_OK ) return i;
  pOp = csOpNew(csBatchArena(pB), CS_PHASE_ROW, aKey, (size_t)nKey - 8,
                p->nCol + 1);
  if( pOp == 0 ) return SQLITE_NOMEM;
  for(i = -1; i < p->nCol; i++){
    const char *zFamily = i < 0 ? WC_DEFAULT_FAMILY : p->aCol[i].zFamily;
    const char *zQual = i < 0 ? "" : p->aCol[i].zName;
    if( csOpDeleteCells(pOp, zFamily, (const unsigned char*)zQual,
                        strlen(zQual), iMicros,
                        iMicros + p->pT->pKind->iTimeStep) ){
      return SQLITE_NOMEM;
    }
  }
  return csOpQueue(p, pB, pOp);
}

int csUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *pRowid){
  CsTable *p = (CsTable*)pVtab;
  CsTxn *pTxn = p->pTxn;
  (void)pRowid;
  /* In autocommit a failure kept is this statement's: it stops here. */
  if( pTxn->zFailed && csAutocommit(p) ){
    return csError(p, pTxn->rcFailed, "%s", pTxn->zFailed);
  }
  if( csTableConnect(p) ) return SQLITE_ERROR;
  if( p->args.bExisting && !p->args.bWritable ){
    return csError(p, SQLITE_READONLY, "widecol %s: the %s table %s was "
        "made by another application and is opened read only (EXISTING); "
        "add WRITABLE after EXISTING to write its cells", p->zTable,
        p->pT->pKind->zEngine, p->args.zResource);
  }
  if( argc == 1 ){
    const unsigned char *aKey = sqlite3_value_blob(argv[0]);
    size_t nKey = (size_t)sqlite3_value_bytes(argv[0]);
    switch( p->eKind ){
      case CS_OLDER:   return versionDelete(p, aKey, (int64_t)nKey);
      case CS_ENTRIES:
      case CS_PLAIN:   return entryDelete(p, aKey, nKey);
      default:         return rowDelete(p, aKey, nKey);
    }
  }
  if( sqlite3_value_type(argv[0]) != SQLITE_NULL && p->eKind != CS_ROWS ){
    return csError(p, SQLITE_MISUSE, "widecol %s: %s is written by widecol: "
        "an entry or version is added (INSERT) or dropped (DELETE), never "
        "changed", p->zTable, p->zName);
  }
  switch( p->eKind ){
    case CS_OLDER:   return versionPut(p, argv);
    case CS_ENTRIES:
    case CS_PLAIN:   return entryPut(p, argv);
    default:         break;
  }
  if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    return rowInsert(p, argv, 0);
  }else{
    sqlite3_value *pKey = argv[2];
    int n = sqlite3_value_bytes(argv[0]);
    if( n == sqlite3_value_bytes(pKey)
     && memcmp(sqlite3_value_blob(argv[0]), sqlite3_value_blob(pKey),
               (size_t)n) == 0 ){
      return rowUpdate(p, argv);
    }else{
      /* A new key: written there first (answered at once, so that a key
      ** in use changes nothing), then the old row deleted. */
      int rc = rowInsert(p, argv, 1);
      if( rc == SQLITE_OK ){
        rc = rowDelete(p, sqlite3_value_blob(argv[0]), (size_t)n);
      }
      return rc;
    }
  }
}
