/*
** wc_scan.c: cursors of widecol tables, walking the key ranges of a plan.
**
** A plan reads its rows one of three ways:
**   ranges  the plan's byte ranges, one after another;
**   skip    the leading elements (a SALT, a BUCKET, a field with few
**           values) are not fixed, so the prefixes they take are found in
**           the data: a probe seeks the first key past the previous
**           prefix, then that prefix's ranges are scanned.  Empty salts
**           and buckets cost nothing, rows outside the ranges are never
**           read.  On a table dense enough that nearly every salt or
**           bucket exists, each one is computed in turn instead of probed
**           for: one seek per prefix.  When the skipped elements are SALTs
**           and BUCKETs of the INTEGER field after them and its range is
**           short, each value of the field gives its prefix instead
**           (enumeration), in the field's order;
**   merge   as skip, but the ORDER BY follows the elements after the
**           prefix: every prefix is scanned at once and a heap hands out
**           their rows in that order.  Up to WC_MERGE_LIVE prefixes keep a
**           statement each; beyond that each holds only its next row,
**           fetched with one seek, so memory stays one row per prefix.
** Every range start, probe and fetch counts as a seek in widecol_stats().
**
** On a versioned table rows whose latest version the TTL has expired are
** skipped as they are read, and a read with versions = n or asof = t
** walks each row's older versions after it (<name>_versions, newest first)
** to return the versions it asks for.
**
** A plan that consumed the ORDER BY assuming a TEXT field's '=' narrows
** (WcPlan.nSort) and is handed a number for it reads its wider range
** whole, keeps the rows and sorts them (sorted mode): rare, and the only
** way widecol holds more than a row per prefix.
*/
#include "vtab/wc_scan.h"
#include "vtab/wc_range.h"
#include "key/wc_decode.h"
#include "key/rk_bytes.h"
#include "store/wc_contract.h"

#include <string.h>


/* The scan of one prefix's ranges. */
typedef struct Sub Sub;
struct Sub {
  WcRangeList ranges;   /* In scan order */
  int iRange;
  int bEof;
  int64_t nPrefix;      /* Bytes of the prefix its keys start with */
  sqlite3_stmt *pStmt;  /* Live scan, on a row of range iRange ... */
  int eStmt;
  int bOpen;
  WcBuf key;            /* ... or the row it holds: its key */
  sqlite3_value **apVal;  /* and its selected columns */
  int bHasKey;          /* key is a row of range iRange */
  WcBuf set;            /* The ranges pStmt reads at once, if nSet > 0, */
  int nSet;             /* from range iRange on */
  int64_t nAsked;       /* Rows pStmt was asked for as a window, or 0 */
  int64_t nGot;         /* Rows it gave */
  WcBuf after;          /* The key of its last row, once the window is full */
};

typedef struct WcCursor WcCursor;
struct WcCursor {
  sqlite3_vtab_cursor base;
  WcPlan plan;          /* Decoded from idxStr by xFilter, */
  WcBuf planCode;       /* from this code (idxStr after its text) */
  int bHistoryDue;      /* The scan is to be told to the history */
  int64_t nRead;        /* Rows this scan read, */
  int64_t nOut;         /* and returned, for the history */
  uint64_t colUsed;     /* Columns the scans select */
  int *aiStmtCol;       /* Column (or rowkey) -> place in a scan's row */
  int nStmtCol;
  int bEof;
  int64_t nLimit;       /* Rows still to return, or -1 */
  int64_t nWindow;      /* A LIMIT SQLite applies itself (WC_TERM_WINDOW):
                        ** the rows a scan reads first, or -1 */
  int64_t nOffset;      /* Rows still to skip */
  WcRanges ranges;      /* The plan's ranges after the skipped prefix
                        ** (rel) and what the rowkey constraints allow
                        ** (win) */
  Sub seq;              /* The scan of the ranges or skip modes */
  struct {              /* Skip scans: where the next prefix is */
    WcBuf probe;          /* Where the next prefix is sought */
    int bProbed;          /* probe has been set */
    int bProbeEnd;        /* No prefix is left */
    uint64_t iVisit;      /* bAllPrefixes: the next prefix's number, */
    uint64_t nVisit;      /* of this many */
    int bEnum;            /* Enumeration: the prefixes of values */
    int64_t iEnumFirst;   /* iEnumFirst, iEnumFirst + iEnumStep, ... */
    int64_t iEnumStep;    /* +1 or -1 */
    uint64_t nEnumLeft;   /* Values still to visit */
  } skip;
  struct {              /* Merges: one scan per prefix, and a heap */
    int bMerge;           /* Merge the prefixes' scans */
    Sub *aSub;            /* One scan per prefix */
    int nSub;
    int *aHeap;           /* Subs with a row, smallest first */
    int nHeap;
    int bHeld;            /* Subs hold rows instead of statements */
    Sub *pRow;            /* The sub whose row is current */
  } merge;
  struct {              /* Sorted mode: rows read whole, then sorted */
    int bSorted;          /* This mode is on */
    sqlite3_value **apSorted;  /* nSorted rows of nStmtCol values */
    int64_t *aiSorted;    /* Their order */
    int64_t nSorted;
    int64_t iSorted;      /* The current row, in aiSorted */
  } sorted;
  struct {              /* EXISTING tables: key fields read from keys */
    WcBuf key;            /* The key last decoded, */
    int rc;               /* how it went (WC_OK: aVal holds its fields), */
    int bValid;           /* if any was */
    WcValue *aVal;        /* nCol values, key fields set */
    WcBuf bytes;          /* aVal's text and blob bytes */
  } dec;
  struct {              /* Versioned tables */
    int64_t iCutoff;      /* Rows stamped before this have expired (TTL) */
    int iTimeCol;         /* Place of rowtime in a scan's row, or -1 */
    int bVersionRead;     /* versions = n or asof = t: rows are versions */
    int64_t nVersions;    /* versions = n (1 without) */
    int64_t iAsof;        /* asof = t (INT64_MAX without) */
    int bHasVersions;     /* versions = n was given, */
    int bHasAsof;         /* and asof = t */
    sqlite3_stmt *pVer;   /* Older versions in key order, newest first
                          ** within a key, from the first of verLast's on */
    int bVerOn;           /* pVer is on a row (not at its end) */
    WcBuf verLast;        /* The key pVer was last positioned for */
    int bVerRow;          /* The current row is pVer's */
    WcBuf verKey;         /* The key whose versions are being returned, */
    int64_t nVerLeft;     /* how many more may be, */
    int64_t iVerUpTo;     /* and the latest rowtime they may have */
  } ver;
};

static WcVtab *cursorTab(WcCursor *pCur){
  return (WcVtab*)pCur->base.pVtab;
}

/* The key the plan scans: the row key or an index's. */
static const WcSchema *cursorKey(WcCursor *pCur){
  return cursorTab(pCur)->aPath[pCur->plan.iPath].pKey;
}

/* Compares two keys as bytes. */
/* EXISTING tables: the fields of row key aKey[0..nKey) in dec.aVal,
** decoded once per key (key/wc_decode.h).  WC_OK, WC_NOFIT (not a key of
** the design), or WC_NOMEM / WC_ERROR. */
static int decodeKey(WcCursor *pCur, const unsigned char *aKey, int64_t nKey){
  WcVtab *pTab = cursorTab(pCur);
  const WcSchema *pS = pTab->pSchema;
  if( pCur->dec.bValid && pCur->dec.key.n == nKey
   && (nKey == 0 || memcmp(pCur->dec.key.a, aKey, (size_t)nKey) == 0) ){
    return pCur->dec.rc;
  }
  if( pCur->dec.aVal == 0 ){
    pCur->dec.aVal = sqlite3_malloc64(sizeof(WcValue)
                                      * (sqlite3_uint64)pS->nCol);
    if( pCur->dec.aVal == 0 ) return WC_NOMEM;
    memset(pCur->dec.aVal, 0, sizeof(WcValue) * (size_t)pS->nCol);
  }
  pCur->dec.key.n = 0;
  wcBufAppend(&pCur->dec.key, aKey, nKey);
  if( pCur->dec.key.bOom ) return WC_NOMEM;
  pCur->dec.bValid = 1;
  pCur->dec.rc = wcDecodeKey(pS, pTab->pHasher, nKey ? aKey
                             : (const unsigned char*)"", nKey, pCur->dec.aVal,
                             &pCur->dec.bytes, 0);
  return pCur->dec.rc;
}

/* True if a row the scan read is not one to return: its latest version
** has expired under a TTL (its rowtime before the cutoff), or, on an
** EXISTING table, its key is no key of the design (counted in
** widecol_stats(), listed by widecol_check()).  The row is in apVal, or
** at pStmt's current row. */
static int rowSkipped(WcCursor *pCur, sqlite3_value *const *apVal,
                      sqlite3_stmt *pStmt){
  WcVtab *pTab = cursorTab(pCur);
  if( pTab->pSchema->bExisting ){
    int iKey = pCur->aiStmtCol[pTab->pSchema->nCol];
    sqlite3_value *pKey = apVal ? apVal[iKey]
                                : sqlite3_column_value(pStmt, iKey);
    int rc = decodeKey(pCur, sqlite3_value_blob(pKey),
                       sqlite3_value_bytes(pKey));
    if( rc == WC_NOFIT ){
      pTab->stats.nUndecodable++;
      return 1;
    }
    /* Out of memory: the column read says so. */
  }
  if( pCur->ver.iCutoff == INT64_MIN ) return 0;
  return (apVal ? sqlite3_value_int64(apVal[pCur->ver.iTimeCol])
                : sqlite3_column_int64(pStmt, pCur->ver.iTimeCol))
         < pCur->ver.iCutoff;
}

/* A row a scan read: counted for widecol_stats() and the history, and
** shown to a tool watching the table (widecol_report) by its row key,
** column iKeyCol of pStmt. */
static void rowRead(WcCursor *pCur, sqlite3_stmt *pStmt, int iKeyCol){
  WcVtab *pTab = cursorTab(pCur);
  pTab->stats.nRowRead++;
  pCur->nRead++;
  if( pTab->xWatch ){
    pTab->xWatch(pTab->pWatchArg, sqlite3_column_blob(pStmt, iKeyCol),
                 sqlite3_column_bytes(pStmt, iKeyCol));
  }
}

static int cursorError(WcCursor *pCur, int rc){
  return wcStoreError(&cursorTab(pCur)->store, rc);
}

/* The scan statement kind for a range: bounded above or not, and the
** plan's direction. */
static int scanKind(const WcCursor *pCur, int bHi){
  return WC_STMT_SCAN + (bHi ? 1 : 0) + (pCur->plan.bDesc ? 2 : 0);
}

/* The rows a scan statement started now can be asked for at most: the
** LIMIT and OFFSET left, where every row read is a row returned or
** skipped by the OFFSET; else -1.  Rows the cursor drops (an EXISTING
** table's undecodable keys, rows the TTL expired), rows that give no
** version, and a plan that may sort (reading its ranges whole) leave it
** unknown. */
static int64_t scanRowsWanted(WcCursor *pCur){
  const WcSchema *pS = cursorTab(pCur)->pSchema;
  if( pCur->nLimit < 0 || pCur->plan.nSort > 0 || pS->bExisting
   || pCur->ver.iCutoff != INT64_MIN || pCur->ver.bVersionRead
   || pCur->nOffset > INT64_MAX - pCur->nLimit ){
    return -1;
  }
  return pCur->nLimit + pCur->nOffset;
}

/* The rows a scan statement opened now asks for as a window (a LIMIT
** SQLite applies itself, less the rows returned already, at least one),
** or -1: none, or SQLite took more than the window (windowOn()), or rows
** that give versions, which a window's end could split. */
static int64_t windowRows(WcCursor *pCur){
  int64_t n = pCur->nWindow - pCur->nOut;
  /* Without an ORDER BY handed over, scans go up (planOrderBy). */
  wcAssert( pCur->nWindow < 0 || !pCur->plan.bDesc );
  if( pCur->nWindow < 0 || pCur->ver.bVersionRead || pCur->plan.nSort > 0 ){
    return -1;
  }
  return n > 0 ? n : 1;
}

/* The window's last row: its key kept, the next read starts past it. */
static int windowEnd(WcCursor *pCur, Sub *pSub){
  int iKey = pCur->aiStmtCol[cursorKey(pCur)->nCol];
  pSub->after.n = 0;
  wcBufAppend(&pSub->after, sqlite3_column_blob(pSub->pStmt, iKey),
              sqlite3_column_bytes(pSub->pStmt, iKey));
  return pSub->after.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* SQLite read past the window (an ORDER BY it kept to itself, of 64
** terms or more): range iRange goes on above the window's last key, read
** to its end; so does every scan of the cursor after this.  (A key with
** a zero byte after it is the first key above it.) */
static int windowOn(WcCursor *pCur, Sub *pSub){
  static const unsigned char aZero[1] = { 0 };
  WcRange *pR = &pSub->ranges.a[pSub->iRange];
  wcAssert( pSub->nSet == 0 && pSub->nGot == pSub->nAsked );
  wcAssert( wcBufCompare(&pSub->after, &pR->lo) >= 0 );
  wcAssert( !pCur->plan.bDesc );
  pR->lo.n = 0;
  wcBufAppend(&pR->lo, pSub->after.a, pSub->after.n);
  wcBufAppend(&pR->lo, aZero, 1);
  pCur->nWindow = -1;
  pSub->nAsked = 0;
  pSub->bOpen = 0;
  return pR->lo.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Binds [lo, hi) to a scan statement, an empty blob below every key, and
** the rows wanted from it (WC_PARAM_SCAN_ROWS). */
static void bindRange(sqlite3_stmt *pStmt, const WcBuf *pLo, const WcBuf *pHi,
                      int64_t nRows){
  sqlite3_bind_blob(pStmt, 1, pLo->n ? pLo->a : (const unsigned char*)"",
                    (int)pLo->n, SQLITE_STATIC);
  if( pHi ){
    sqlite3_bind_blob(pStmt, 2, pHi->n ? pHi->a : (const unsigned char*)"",
                      (int)pHi->n, SQLITE_STATIC);
  }
  sqlite3_bind_int64(pStmt, WC_PARAM_SCAN_ROWS, nRows);
}

/*
** Subs with a live statement.
*/
static void subReleaseStmt(WcCursor *pCur, Sub *pSub){
  if( pSub->pStmt == 0 ) return;
  wcStoreRelease(&cursorTab(pCur)->store, pSub->eStmt, pCur->plan.iPath,
                 pCur->colUsed, pSub->pStmt);
  pSub->pStmt = 0;
  pSub->bOpen = 0;
}

/* Ends a sub's scan, keeping its buffers for the next one. */
static void subClear(WcCursor *pCur, Sub *pSub){
  WcRangeList ranges = pSub->ranges;
  WcBuf key = pSub->key, set = pSub->set, after = pSub->after;
  int i;
  subReleaseStmt(pCur, pSub);
  if( pSub->apVal ){
    for(i = 0; i < pCur->nStmtCol; i++) sqlite3_value_free(pSub->apVal[i]);
    sqlite3_free(pSub->apVal);
  }
  memset(pSub, 0, sizeof(*pSub));
  wcRangeListClear(&ranges);
  wcBufClear(&key);
  wcBufClear(&set);
  wcBufClear(&after);
  pSub->ranges = ranges;
  pSub->key = key;
  pSub->set = set;
  pSub->after = after;
}

static void subFree(WcCursor *pCur, Sub *pSub){
  subClear(pCur, pSub);
  wcRangeListFree(&pSub->ranges);
  wcBufFree(&pSub->key);
  wcBufFree(&pSub->set);
  wcBufFree(&pSub->after);
}

/* Appends n (4 bytes big-endian) and the bytes of b. */
static void setAppendBound(WcBuf *pSet, const WcBuf *b){
  unsigned char aLen[4];
  aLen[0] = (unsigned char)(b->n >> 24);
  aLen[1] = (unsigned char)(b->n >> 16);
  aLen[2] = (unsigned char)(b->n >> 8);
  aLen[3] = (unsigned char)b->n;
  wcBufAppend(pSet, aLen, 4);
  wcBufAppend(pSet, b->a, b->n);
}

/* On a store that reads sets of ranges (Bigtable) the ranges left of an
** ascending scan are read at once (one ReadRows of many row ranges, not
** one each): encodes up to WC_SET_MAX of
** them in pSub->set (wc_contract.h) and sets nSet, or leaves nSet 0 when fewer
** than two are left.  Ranges come sorted and merged (wcRangesBuild), so
** only an unbounded one stops a set: nothing can follow it. */
static int subSetEncode(WcCursor *pCur, Sub *pSub){
  static const unsigned char aNo[1] = { 0 }, aYes[1] = { 1 };
  int i;
  pSub->nSet = 0;
  if( !wcStoreCaps(&cursorTab(pCur)->store)->bRangeSets || pCur->plan.bDesc
   || pSub->ranges.n - pSub->iRange < 2 ){
    return SQLITE_OK;
  }
  pSub->set.n = 0;
  for(i = pSub->iRange; i < pSub->ranges.n && pSub->nSet < WC_SET_MAX; i++){
    const WcRange *pR = &pSub->ranges.a[i];
    setAppendBound(&pSub->set, &pR->lo);
    wcBufAppend(&pSub->set, pR->bHi ? aYes : aNo, 1);
    if( pR->bHi ) setAppendBound(&pSub->set, &pR->hi);
    pSub->nSet++;
    if( !pR->bHi ) break;
    /* Sorted and merged: the next range starts at or after this one's
    ** end. */
    wcAssert( i + 1 >= pSub->ranges.n
              || wcBufCompare(&pR->hi, &pSub->ranges.a[i + 1].lo) <= 0 );
  }
  wcAssert( pSub->nSet <= WC_SET_MAX );
  return pSub->set.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Moves a sub's statement to the next row of its ranges. */
static int subStep(WcCursor *pCur, Sub *pSub){
  WcVtab *pTab = cursorTab(pCur);
  wcAssert( pSub->ranges.n <= pSub->ranges.nAlloc );
  wcAssert( pSub->iRange >= 0 && pSub->iRange <= pSub->ranges.n );
  wcAssert( !pCur->merge.bHeld || pSub == &pCur->seq );
  while( pSub->iRange < pSub->ranges.n ){
    int rc;
    if( !pSub->bOpen ){
      const WcRange *pR = &pSub->ranges.a[pSub->iRange];
      int eStmt;
      rc = subSetEncode(pCur, pSub);
      if( rc != SQLITE_OK ) return rc;
      eStmt = pSub->nSet ? WC_STMT_SCAN_SET : scanKind(pCur, pR->bHi);
      if( pSub->pStmt && pSub->eStmt != eStmt ) subReleaseStmt(pCur, pSub);
      if( pSub->pStmt == 0 ){
        rc = wcStoreAcquire(&pTab->store, eStmt, pCur->plan.iPath, pCur->colUsed,
                            &pSub->pStmt);
        if( rc != SQLITE_OK ) return rc;
        pSub->eStmt = eStmt;
      }else{
        sqlite3_reset(pSub->pStmt);
      }
      pSub->nAsked = 0;
      if( pSub->nSet ){
        sqlite3_bind_blob(pSub->pStmt, 1, pSub->set.a, (int)pSub->set.n,
                          SQLITE_STATIC);
        sqlite3_bind_int64(pSub->pStmt, WC_PARAM_SCAN_ROWS,
                           scanRowsWanted(pCur));
        pTab->stats.nSeek += pSub->nSet;
      }else{
        /* A set of ranges is read whole: a window is one range's. */
        int64_t nRows = scanRowsWanted(pCur);
        if( nRows < 0 ){
          nRows = windowRows(pCur);
          if( nRows > 0 ) pSub->nAsked = nRows;
        }
        bindRange(pSub->pStmt, &pR->lo, pR->bHi ? &pR->hi : 0, nRows);
        pTab->stats.nSeek++;
      }
      pSub->nGot = 0;
      pSub->bOpen = 1;
    }
    rc = sqlite3_step(pSub->pStmt);
    if( rc == SQLITE_ROW ){
      rowRead(pCur, pSub->pStmt, pCur->aiStmtCol[pTab->pSchema->nCol + 1]);
      if( ++pSub->nGot == pSub->nAsked ){
        rc = windowEnd(pCur, pSub);
        if( rc != SQLITE_OK ) return rc;
      }
      if( rowSkipped(pCur, 0, pSub->pStmt) ) continue;
      return SQLITE_OK;
    }
    if( rc != SQLITE_DONE ) return cursorError(pCur, rc);
    if( pSub->nAsked > 0 && pSub->nGot >= pSub->nAsked ){
      /* SQLite took the whole window: the range is read on after it. */
      rc = windowOn(pCur, pSub);
      if( rc != SQLITE_OK ) return rc;
      continue;
    }
    pSub->nAsked = 0;
    pSub->iRange += pSub->nSet ? pSub->nSet : 1;
    pSub->bOpen = 0;
  }
  pSub->bEof = 1;
  return SQLITE_OK;
}

/*
** Subs that hold a row: each fetch is one seek past the row held.
*/
static int subFetch(WcCursor *pCur, Sub *pSub){
  static const unsigned char aZero[1] = { 0 };
  WcVtab *pTab = cursorTab(pCur);
  int bDesc = pCur->plan.bDesc;
  WcBuf bound;
  int rc = SQLITE_OK;
  memset(&bound, 0, sizeof(bound));
  while( pSub->iRange < pSub->ranges.n ){
    const WcRange *pR = &pSub->ranges.a[pSub->iRange];
    const WcBuf *pLo = &pR->lo, *pHi = pR->bHi ? &pR->hi : 0;
    sqlite3_stmt *pStmt = 0;
    int eStmt;
    if( pSub->bHasKey ){
      /* Past the row held, which is one of range iRange's: above it
      ** going up, below it going down. */
      wcAssert( wcBufCompare(&pSub->key, &pR->lo) >= 0 );
      wcAssert( !pR->bHi || wcBufCompare(&pSub->key, &pR->hi) < 0 );
      bound.n = 0;
      wcBufAppend(&bound, pSub->key.a, pSub->key.n);
      if( bDesc ){
        pHi = &bound;
      }else{
        wcBufAppend(&bound, aZero, 1);
        pLo = &bound;
      }
      if( bound.bOom ){
        rc = SQLITE_NOMEM;
        break;
      }
    }
    eStmt = scanKind(pCur, pHi != 0);
    rc = wcStoreAcquire(&pTab->store, eStmt, pCur->plan.iPath, pCur->colUsed,
                        &pStmt);
    if( rc != SQLITE_OK ) break;
    bindRange(pStmt, pLo, pHi, 1);
    pTab->stats.nSeek++;
    rc = sqlite3_step(pStmt);
    if( rc == SQLITE_ROW ){
      int i, iKey = pCur->aiStmtCol[pTab->pSchema->nCol];
      rowRead(pCur, pStmt, pCur->aiStmtCol[pTab->pSchema->nCol + 1]);
      pSub->key.n = 0;
      wcBufAppend(&pSub->key, sqlite3_column_blob(pStmt, iKey),
                  sqlite3_column_bytes(pStmt, iKey));
      for(i = 0; i < pCur->nStmtCol; i++){
        sqlite3_value_free(pSub->apVal[i]);
        pSub->apVal[i] = sqlite3_value_dup(sqlite3_column_value(pStmt, i));
        if( pSub->apVal[i] == 0 ) rc = SQLITE_NOMEM;
      }
      if( pSub->key.bOom ) rc = SQLITE_NOMEM;
      pSub->bHasKey = 1;
      wcStoreRelease(&pTab->store, eStmt, pCur->plan.iPath, pCur->colUsed,
                     pStmt);
      if( rc == SQLITE_ROW && rowSkipped(pCur, pSub->apVal, 0) ) continue;
      wcBufFree(&bound);
      return rc == SQLITE_ROW ? SQLITE_OK : rc;
    }
    wcStoreRelease(&pTab->store, eStmt, pCur->plan.iPath, pCur->colUsed,
                   pStmt);
    if( rc != SQLITE_DONE ){
      rc = cursorError(pCur, rc);
      break;
    }
    rc = SQLITE_OK;
    pSub->iRange++;
    pSub->bHasKey = 0;
  }
  wcBufFree(&bound);
  if( rc == SQLITE_OK && pSub->iRange >= pSub->ranges.n ) pSub->bEof = 1;
  return rc;
}

static int subAdvance(WcCursor *pCur, Sub *pSub){
  return pCur->merge.bHeld ? subFetch(pCur, pSub) : subStep(pCur, pSub);
}

/* The key of a sub's current row. */
static const unsigned char *subKey(WcCursor *pCur, Sub *pSub, int64_t *pn){
  int iKey;
  if( pCur->merge.bHeld ){
    *pn = pSub->key.n;
    return pSub->key.a;
  }
  iKey = pCur->aiStmtCol[cursorKey(pCur)->nCol];
  *pn = sqlite3_column_bytes(pSub->pStmt, iKey);
  return sqlite3_column_blob(pSub->pStmt, iKey);
}

/*
** Probes: the next prefix of the skipped elements that has a row.
*/

/* Finds the next prefix in scan order; *pbFound is 0 when none is left. */
static int probeNext(WcCursor *pCur, WcBuf *pPrefix, int *pbFound){
  WcVtab *pTab = cursorTab(pCur);
  const WcSchema *pS = cursorKey(pCur);
  int bDesc = pCur->plan.bDesc;
  const WcRange *pWin = &pCur->ranges.win;
  const WcBuf *pLo = &pWin->lo, *pHi = pWin->bHi ? &pWin->hi : 0;
  sqlite3_stmt *pStmt = 0;
  int eStmt, rc, i;
  *pbFound = 0;
  if( pCur->skip.bProbeEnd ) return SQLITE_OK;
  if( pCur->skip.bProbed ){
    if( bDesc ) pHi = &pCur->skip.probe; else pLo = &pCur->skip.probe;
  }
  eStmt = scanKind(pCur, pHi != 0);
  rc = wcStoreAcquire(&pTab->store, eStmt, pCur->plan.iPath, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  bindRange(pStmt, pLo, pHi, 1);
  pTab->stats.nSeek++;
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_ROW ){
    /* An empty key reads as NULL; arithmetic on it must not. */
    const unsigned char *aKey = sqlite3_column_blob(pStmt, 0)
                              ? sqlite3_column_blob(pStmt, 0)
                              : (const unsigned char*)"";
    int64_t nKey = sqlite3_column_bytes(pStmt, 0), nPrefix = 0;
    for(i = 0; i < pCur->plan.nSkip && nPrefix >= 0; i++){
      int64_t n = wcElementSpan(pS, i, aKey + nPrefix, nKey - nPrefix);
      nPrefix = n < 0 ? -1 : nPrefix + n;
    }
    if( nPrefix < 0 ){
      rc = wcVtabError(&pTab->base, SQLITE_CORRUPT, "widecol %s: a key in one of "
          "its tables does not start with the elements of its %s; was the "
          "table written to directly? run SELECT * FROM widecol_check(%Q)",
          pTab->store.zName, pS->zKeyName, pTab->store.zName);
    }else{
      pPrefix->n = 0;
      wcBufAppend(pPrefix, aKey, nPrefix);
      pCur->skip.probe.n = 0;
      if( bDesc ){
        /* Next, the keys below this prefix. */
        wcBufAppend(&pCur->skip.probe, aKey, nPrefix);
        pCur->skip.bProbeEnd = nPrefix == 0;
      }else{
        /* Next, the keys past every key with this prefix. */
        if( wcBufReserve(&pCur->skip.probe, nPrefix) == 0 ){
          int64_t n = nPrefix ? rkPrefixEnd(aKey, nPrefix, pCur->skip.probe.a)
                              : -1;
          if( n < 0 ){
            pCur->skip.bProbeEnd = 1;
          }else{
            pCur->skip.probe.n = n;
          }
        }
      }
      pCur->skip.bProbed = 1;
      pTab->stats.nPrefix++;
      *pbFound = 1;
      rc = (pPrefix->bOom || pCur->skip.probe.bOom) ? SQLITE_NOMEM : SQLITE_OK;
    }
  }else if( rc == SQLITE_DONE ){
    pCur->skip.bProbeEnd = 1;
    rc = SQLITE_OK;
  }else{
    rc = cursorError(pCur, rc);
  }
  wcStoreRelease(&pTab->store, eStmt, pCur->plan.iPath, 0, pStmt);
  return rc;
}

static void subRewind(Sub *pSub, int64_t nPrefix){
  pSub->iRange = 0;
  pSub->bEof = 0;
  pSub->bOpen = 0;
  pSub->bHasKey = 0;
  pSub->nPrefix = nPrefix;
}

/* The next prefix of a plan that visits every value of its SALTs and
** BUCKETs: number iVisit in scan order, written digit by digit, the last
** element's value varying fastest. */
static int visitNext(WcCursor *pCur, WcBuf *pPrefix, int *pbFound){
  const WcSchema *pS = cursorKey(pCur);
  const WcPlan *pPlan = &pCur->plan;
  uint64_t iNum, iDiv = 1;
  int i;
  *pbFound = pCur->skip.iVisit < pCur->skip.nVisit;
  if( !*pbFound ) return SQLITE_OK;
  wcAssert( pPlan->bAllPrefixes && pPlan->nSkip > 0 );
  iNum = pCur->skip.iVisit;
  if( pPlan->bDesc ) iNum = pCur->skip.nVisit - 1 - iNum;
  pCur->skip.iVisit++;
  for(i = 1; i < pPlan->nSkip; i++) iDiv *= wcDerivedCount(pS, i);
  pPrefix->n = 0;
  for(i = 0; i < pPlan->nSkip; i++){
    if( wcEncodeDerived(pS, i, iNum / iDiv, pPrefix) ) return SQLITE_NOMEM;
    wcAppendSeparator(pS, i, pPrefix);
    iNum %= iDiv;
    if( i + 1 < pPlan->nSkip ) iDiv /= wcDerivedCount(pS, i + 1);
  }
  cursorTab(pCur)->stats.nPrefix++;
  return pPrefix->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* The next prefix of a skip scan: computed, or probed for. */
static int prefixNext(WcCursor *pCur, WcBuf *pPrefix, int *pbFound){
  return pCur->plan.bAllPrefixes ? visitNext(pCur, pPrefix, pbFound)
                                   : probeNext(pCur, pPrefix, pbFound);
}

/* Gives pSub the plan's ranges under the prefix. */
static int subStart(WcCursor *pCur, Sub *pSub, const WcBuf *pPrefix){
  int rc = wcRangesCompose(&pCur->ranges.rel, &pCur->ranges.win, pPrefix->a,
                           pPrefix->n, &pSub->ranges);
  subRewind(pSub, pPrefix->n);
  return rc;
}

/* Gives seq the ranges of the next prefix, probed for or computed from
** the next value; *pbFound is 0 when none is left. */
static int seqNextPrefix(WcCursor *pCur, int *pbFound){
  WcVtab *pTab = cursorTab(pCur);
  WcBuf prefix;
  int rc;
  if( pCur->skip.bEnum ){
    wcAssert( pCur->skip.iEnumStep == 1 || pCur->skip.iEnumStep == -1 );
    *pbFound = pCur->skip.nEnumLeft > 0;
    if( !*pbFound ) return SQLITE_OK;
    rc = wcRangesEnumCompose(pTab, &pCur->plan, pCur->skip.iEnumFirst,
                             &pCur->ranges.rel, &pCur->ranges.win,
                             &pCur->seq.ranges);
    subRewind(&pCur->seq, 0);
    pTab->stats.nPrefix++;
    if( --pCur->skip.nEnumLeft > 0 ){
      pCur->skip.iEnumFirst += pCur->skip.iEnumStep;
    }
    return rc;
  }
  memset(&prefix, 0, sizeof(prefix));
  rc = prefixNext(pCur, &prefix, pbFound);
  if( rc == SQLITE_OK && *pbFound ) rc = subStart(pCur, &pCur->seq, &prefix);
  wcBufFree(&prefix);
  return rc;
}

/* Decides whether to enumerate: the range is known now, and enumerating
** costs a seek per value against two per prefix probed for. */
static int enumStart(WcCursor *pCur, sqlite3_value **argv){
  const WcPlan *pPlan = &pCur->plan;
  const WcSchema *pS = cursorKey(pCur);
  int64_t iLo, iHi;
  int bDown;
  int rc = wcRangesEnumBounds(cursorTab(pCur), pPlan, argv, &iLo, &iHi);
  if( rc != SQLITE_OK ) return rc;
  if( iLo > iHi ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  if( (uint64_t)iHi - (uint64_t)iLo >= (uint64_t)pPlan->nEnumMax ){
    return SQLITE_OK;
  }
  /* In key order: the field's byte order, reversed for a DESC scan. */
  bDown = (pS->aElem[pPlan->nSkip].eOrder == WC_ORDER_DESC) != pPlan->bDesc;
  pCur->skip.bEnum = 1;
  pCur->skip.iEnumFirst = bDown ? iHi : iLo;
  pCur->skip.iEnumStep = bDown ? -1 : 1;
  pCur->skip.nEnumLeft = (uint64_t)iHi - (uint64_t)iLo + 1;
  return SQLITE_OK;
}

/*
** The three ways.
*/

/* seqNextPrefix(), and on a store that reads sets of ranges, for an
** ascending scan of prefixes
** that are computed (not probed for, nor enumerated in a field's order),
** the ranges of the prefixes after it too, up to WC_SET_MAX: subStep()
** reads them in one request. */
static int seqNextPrefixes(WcCursor *pCur, int *pbFound){
  WcRangeList more;
  int rc = seqNextPrefix(pCur, pbFound);
  if( rc != SQLITE_OK || !*pbFound || !wcStoreCaps(&cursorTab(pCur)->store)->bRangeSets
   || pCur->plan.bDesc || !pCur->plan.bAllPrefixes || pCur->skip.bEnum ){
    return rc;
  }
  memset(&more, 0, sizeof(more));
  while( rc == SQLITE_OK && pCur->seq.ranges.n < WC_SET_MAX
      && pCur->skip.iVisit < pCur->skip.nVisit ){
    WcBuf prefix;
    int bFound;
    memset(&prefix, 0, sizeof(prefix));
    rc = visitNext(pCur, &prefix, &bFound);
    if( rc == SQLITE_OK ){
      rc = wcRangesCompose(&pCur->ranges.rel, &pCur->ranges.win, prefix.a,
                           prefix.n, &more);
    }
    if( rc == SQLITE_OK ) rc = wcRangeListAppend(&pCur->seq.ranges, &more);
    wcBufFree(&prefix);
  }
  wcRangeListFree(&more);
  return rc;
}

/* ranges and skip: the next row of seq, probing for prefixes as the
** previous ones run out. */
static int seqNext(WcCursor *pCur){
  for(;;){
    int rc, bFound;
    if( pCur->seq.ranges.n > 0 || pCur->plan.nSkip == 0 ){
      rc = subStep(pCur, &pCur->seq);
      if( rc != SQLITE_OK || !pCur->seq.bEof ) return rc;
      if( pCur->plan.nSkip == 0 ){
        pCur->bEof = 1;
        return SQLITE_OK;
      }
    }
    rc = seqNextPrefixes(pCur, &bFound);
    if( rc != SQLITE_OK ) return rc;
    if( !bFound ){
      pCur->bEof = 1;
      return SQLITE_OK;
    }
  }
}

/* Heap order: the keys after their prefixes, reversed for DESC scans. */
static int subLess(WcCursor *pCur, int iA, int iB){
  Sub *pA = &pCur->merge.aSub[iA], *pB = &pCur->merge.aSub[iB];
  int64_t nA, nB, n;
  const unsigned char *aA = subKey(pCur, pA, &nA);
  const unsigned char *aB = subKey(pCur, pB, &nB);
  int c;
  aA += pA->nPrefix;
  nA -= pA->nPrefix;
  aB += pB->nPrefix;
  nB -= pB->nPrefix;
  n = nA < nB ? nA : nB;
  c = n > 0 ? memcmp(aA, aB, (size_t)n) : 0;
  if( c == 0 ) c = nA < nB ? -1 : nA > nB;
  /* Ties go in the order the prefixes were found: the planner relies on
  ** it (prefixOrderFits). */
  if( c == 0 ) return iA < iB;
  return pCur->plan.bDesc ? c > 0 : c < 0;
}

static void heapSiftDown(WcCursor *pCur, int i){
  int *aHeap = pCur->merge.aHeap;
  int nHeap = pCur->merge.nHeap;
  wcAssert( nHeap <= pCur->merge.nSub && (nHeap == 0 || i < nHeap) );
  for(;;){
    int iMin = i, iL = 2 * i + 1, iR = 2 * i + 2, t;
    if( iL < nHeap && subLess(pCur, aHeap[iL], aHeap[iMin]) ) iMin = iL;
    if( iR < nHeap && subLess(pCur, aHeap[iR], aHeap[iMin]) ) iMin = iR;
    if( iMin == i ) return;
    t = aHeap[i];
    aHeap[i] = aHeap[iMin];
    aHeap[iMin] = t;
    i = iMin;
  }
}

/* merge: finds every prefix, starts a scan for each, heaps them. */
static int mergeStart(WcCursor *pCur){
  WcBuf prefix;
  int rc = SQLITE_OK, bFound = 1, nAlloc = 0, i;
  memset(&prefix, 0, sizeof(prefix));
  while( rc == SQLITE_OK ){
    Sub *pSub;
    rc = prefixNext(pCur, &prefix, &bFound);
    if( rc != SQLITE_OK || !bFound ) break;
    if( pCur->merge.nSub == nAlloc ){
      Sub *aNew;
      nAlloc = nAlloc ? nAlloc * 2 : 16;
      aNew = sqlite3_realloc64(pCur->merge.aSub,
                               sizeof(Sub) * (sqlite3_uint64)nAlloc);
      if( aNew == 0 ){
        rc = SQLITE_NOMEM;
        break;
      }
      pCur->merge.aSub = aNew;
    }
    pSub = &pCur->merge.aSub[pCur->merge.nSub];
    memset(pSub, 0, sizeof(*pSub));
    rc = subStart(pCur, pSub, &prefix);
    if( pSub->ranges.n > 0 ){
      pCur->merge.nSub++;
    }else{
      wcRangeListFree(&pSub->ranges);
    }
  }
  wcBufFree(&prefix);
  if( rc != SQLITE_OK ) return rc;
  pCur->merge.bHeld = pCur->merge.nSub > WC_MERGE_LIVE;
  pCur->merge.aHeap = sqlite3_malloc64(sizeof(int)
                                       * (sqlite3_uint64)(pCur->merge.nSub + 1));
  if( pCur->merge.aHeap == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < pCur->merge.nSub && rc == SQLITE_OK; i++){
    Sub *pSub = &pCur->merge.aSub[i];
    if( pCur->merge.bHeld ){
      pSub->apVal = sqlite3_malloc64(sizeof(sqlite3_value*)
                                     * (sqlite3_uint64)(pCur->nStmtCol + 1));
      if( pSub->apVal == 0 ) return SQLITE_NOMEM;
      memset(pSub->apVal, 0, sizeof(sqlite3_value*) * (size_t)(pCur->nStmtCol + 1));
    }
    rc = subAdvance(pCur, pSub);
    if( rc == SQLITE_OK && !pSub->bEof ){
      pCur->merge.aHeap[pCur->merge.nHeap++] = i;
    }
  }
  for(i = pCur->merge.nHeap / 2 - 1; i >= 0; i--) heapSiftDown(pCur, i);
  /* A heap: no sub's row before its parent's. */
  for(i = 1; rc == SQLITE_OK && i < pCur->merge.nHeap; i++){
    wcAssert( !subLess(pCur, pCur->merge.aHeap[i],
                       pCur->merge.aHeap[(i - 1) / 2]) );
  }
  return rc;
}

/* merge: moves the current sub on and takes the smallest row. */
static int mergeNext(WcCursor *pCur){
  if( pCur->merge.pRow ){
    int rc;
    wcAssert( pCur->merge.nHeap > 0
              && pCur->merge.pRow == &pCur->merge.aSub[pCur->merge.aHeap[0]] );
    rc = subAdvance(pCur, pCur->merge.pRow);
    if( rc != SQLITE_OK ) return rc;
    if( pCur->merge.pRow->bEof ){
      if( !pCur->merge.bHeld ) subReleaseStmt(pCur, pCur->merge.pRow);
      pCur->merge.aHeap[0] = pCur->merge.aHeap[--pCur->merge.nHeap];
    }
    heapSiftDown(pCur, 0);
  }
  if( pCur->merge.nHeap == 0 ){
    pCur->merge.pRow = 0;
    pCur->bEof = 1;
  }else{
    pCur->merge.pRow = &pCur->merge.aSub[pCur->merge.aHeap[0]];
  }
  return SQLITE_OK;
}

/*
** Sorted mode.
*/
static void sortedFree(WcCursor *pCur){
  int64_t i, n = pCur->sorted.nSorted * pCur->nStmtCol;
  for(i = 0; i < n; i++) sqlite3_value_free(pCur->sorted.apSorted[i]);
  sqlite3_free(pCur->sorted.apSorted);
  sqlite3_free(pCur->sorted.aiSorted);
  pCur->sorted.apSorted = 0;
  pCur->sorted.aiSorted = 0;
  pCur->sorted.nSorted = pCur->sorted.iSorted = 0;
  pCur->sorted.bSorted = 0;
}

static sqlite3_value *sortedValue(const WcCursor *pCur, int64_t iRow,
                                  int iStmtCol){
  return pCur->sorted.apSorted[iRow * pCur->nStmtCol + iStmtCol];
}

/* Rows iA and iB in the plan's ORDER BY; ties by the order read. */
static int sortedCompare(const WcCursor *pCur, int64_t iA, int64_t iB){
  const WcPlan *pPlan = &pCur->plan;
  int nCol = cursorTab((WcCursor*)pCur)->pSchema->nCol;
  int i;
  for(i = 0; i < pPlan->nSort; i++){
    int iCol = pPlan->aSort[i].iCol;
    int iStmtCol = pCur->aiStmtCol[iCol == nCol ? nCol + 1 : iCol];
    WcValue a, b;
    int c;
    wcValueFrom(sortedValue(pCur, iA, iStmtCol), &a);
    wcValueFrom(sortedValue(pCur, iB, iStmtCol), &b);
    c = wcValueCompare(&a, &b);
    if( c ) return pPlan->aSort[i].bDesc ? -c : c;
  }
  return iA < iB ? -1 : iA > iB;
}

/* A merge sort of aiSorted (stable, no recursion). */
static int sortedSort(WcCursor *pCur){
  int64_t n = pCur->sorted.nSorted, nRun, i;
  int64_t *aTmp = sqlite3_malloc64(sizeof(int64_t) * (sqlite3_uint64)(n + 1));
  int64_t *aFrom = pCur->sorted.aiSorted, *aTo = aTmp;
  if( aTmp == 0 ) return SQLITE_NOMEM;
  for(nRun = 1; nRun < n; nRun *= 2){
    for(i = 0; i < n; i += 2 * nRun){
      int64_t iL = i, iR = i + nRun, iOut = i;
      int64_t eL = iR < n ? iR : n, eR = i + 2 * nRun < n ? i + 2 * nRun : n;
      while( iL < eL || iR < eR ){
        if( iR >= eR || (iL < eL && sortedCompare(pCur, aFrom[iL], aFrom[iR]) <= 0) ){
          aTo[iOut++] = aFrom[iL++];
        }else{
          aTo[iOut++] = aFrom[iR++];
        }
      }
    }
    aTo = aFrom;
    aFrom = aFrom == aTmp ? pCur->sorted.aiSorted : aTmp;
  }
  if( aFrom != pCur->sorted.aiSorted ){
    memcpy(pCur->sorted.aiSorted, aFrom, sizeof(int64_t) * (size_t)n);
  }
  sqlite3_free(aTmp);
  return SQLITE_OK;
}

/* Reads every row of the ranges and sorts them. */
static int sortedStart(WcCursor *pCur){
  int64_t nAlloc = 0;
  int rc, i;
  for(;;){
    rc = seqNext(pCur);
    if( rc != SQLITE_OK ) return rc;
    if( pCur->bEof ) break;
    if( pCur->sorted.nSorted == nAlloc ){
      int64_t nNew = nAlloc ? nAlloc * 2 : 64;
      sqlite3_value **apNew = sqlite3_realloc64(pCur->sorted.apSorted,
          sizeof(sqlite3_value*) * (sqlite3_uint64)(nNew * pCur->nStmtCol + 1));
      if( apNew == 0 ) return SQLITE_NOMEM;
      pCur->sorted.apSorted = apNew;
      nAlloc = nNew;
    }
    for(i = 0; i < pCur->nStmtCol; i++){
      sqlite3_value *pVal = sqlite3_value_dup(
          sqlite3_column_value(pCur->seq.pStmt, i));
      pCur->sorted.apSorted[pCur->sorted.nSorted * pCur->nStmtCol + i] = pVal;
      if( pVal == 0 ){
        /* Free the row's values so far along with the others. */
        for(; i < pCur->nStmtCol; i++){
          pCur->sorted.apSorted[pCur->sorted.nSorted * pCur->nStmtCol + i] = 0;
        }
        pCur->sorted.nSorted++;
        return SQLITE_NOMEM;
      }
    }
    pCur->sorted.nSorted++;
  }
  pCur->sorted.aiSorted = sqlite3_malloc64(sizeof(int64_t)
                               * (sqlite3_uint64)(pCur->sorted.nSorted + 1));
  if( pCur->sorted.aiSorted == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < pCur->sorted.nSorted; i++) pCur->sorted.aiSorted[i] = i;
  pCur->sorted.bSorted = 1;
  pCur->bEof = 0;
  pCur->sorted.iSorted = -1;
  return sortedSort(pCur);
}

static int sortedNext(WcCursor *pCur){
  pCur->sorted.iSorted++;
  if( pCur->sorted.iSorted >= pCur->sorted.nSorted ) pCur->bEof = 1;
  return SQLITE_OK;
}

static int baseNext(WcCursor *pCur){
  if( pCur->sorted.bSorted ) return sortedNext(pCur);
  return pCur->merge.bMerge ? mergeNext(pCur) : seqNext(pCur);
}

/* The value at place iStmtCol of the row the ranges, skips, merge or sort
** are on. */
static sqlite3_value *baseValue(WcCursor *pCur, int iStmtCol){
  Sub *pSub = pCur->merge.bMerge ? pCur->merge.pRow : &pCur->seq;
  if( pCur->sorted.bSorted ){
    return sortedValue(pCur, pCur->sorted.aiSorted[pCur->sorted.iSorted],
                       iStmtCol);
  }
  if( pCur->merge.bHeld ) return pSub->apVal[iStmtCol];
  return sqlite3_column_value(pSub->pStmt, iStmtCol);
}

/*
** Versions: after each row (its latest version), the older ones.
*/
static void versionsRelease(WcCursor *pCur){
  if( pCur->ver.pVer ){
    wcStoreRelease(&cursorTab(pCur)->store, WC_STMT_VERSION_READ, 0, 0,
                   pCur->ver.pVer);
    pCur->ver.pVer = 0;
  }
  pCur->ver.bVerOn = pCur->ver.bVerRow = 0;
  pCur->ver.nVerLeft = 0;
}

/* Compares the key of pVer's row with a. */
static int versionKeyCompare(WcCursor *pCur, const WcBuf *a){
  WcBuf key;
  memset(&key, 0, sizeof(key));
  key.a = (unsigned char*)sqlite3_column_blob(pCur->ver.pVer, 0);
  key.n = sqlite3_column_bytes(pCur->ver.pVer, 0);
  return wcBufCompare(&key, a);
}

static int versionStep(WcCursor *pCur){
  int rc = sqlite3_step(pCur->ver.pVer);
  pCur->ver.bVerOn = rc == SQLITE_ROW;
  if( rc == SQLITE_ROW || rc == SQLITE_DONE ) return SQLITE_OK;
  pCur->ver.bVerOn = 0;
  return cursorError(pCur, rc);
}

/* Positions pVer on the first older version of verKey or of a key after
** it.  Keys mostly come in key order, so pVer walks on from where the
** last key left it, which is before every version of a later key: a key
** whose versions pVer is already past has none and costs nothing, a near
** one a few steps.  A key before the last (a descending scan, a merge of
** prefixes) costs a seek. */
static int versionsFind(WcCursor *pCur){
  WcVtab *pTab = cursorTab(pCur);
  int rc = SQLITE_OK, i, bSeek = 1;
  if( pCur->ver.pVer
   && wcBufCompare(&pCur->ver.verLast, &pCur->ver.verKey) <= 0 ){
    for(i = 0; i < 8 && pCur->ver.bVerOn && rc == SQLITE_OK; i++){
      if( versionKeyCompare(pCur, &pCur->ver.verKey) >= 0 ) break;
      rc = versionStep(pCur);
    }
    bSeek = pCur->ver.bVerOn && versionKeyCompare(pCur, &pCur->ver.verKey) < 0;
  }
  pCur->ver.verLast.n = 0;
  wcBufAppend(&pCur->ver.verLast, pCur->ver.verKey.a, pCur->ver.verKey.n);
  if( pCur->ver.verLast.bOom ) return SQLITE_NOMEM;
  if( rc != SQLITE_OK || !bSeek ) return rc;
  if( pCur->ver.pVer == 0 ){
    rc = wcStoreAcquire(&pTab->store, WC_STMT_VERSION_READ, 0, 0,
                        &pCur->ver.pVer);
    if( rc != SQLITE_OK ) return rc;
  }else{
    sqlite3_reset(pCur->ver.pVer);
  }
  sqlite3_bind_blob(pCur->ver.pVer, 1, pCur->ver.verLast.n ? pCur->ver.verLast.a
                    : (const unsigned char*)"", (int)pCur->ver.verLast.n,
                    SQLITE_TRANSIENT);
  pTab->stats.nSeek++;
  return versionStep(pCur);
}

/* The next version to return: the current row's next older one, or the
** next row's latest (or, as of a time before it, its version then). */
static int versionNext(WcCursor *pCur){
  WcVtab *pTab = cursorTab(pCur);
  int nCol = pTab->pSchema->nCol;
  for(;;){
    int rc = SQLITE_OK;
    int64_t iTime;
    sqlite3_value *pKey;
    if( pCur->ver.bVerRow ){
      pCur->ver.bVerRow = 0;
      rc = versionStep(pCur);
      if( rc != SQLITE_OK ) return rc;
    }
    if( pCur->ver.nVerLeft > 0 && pCur->ver.bVerOn
     && versionKeyCompare(pCur, &pCur->ver.verKey) == 0 ){
      iTime = sqlite3_column_int64(pCur->ver.pVer, 1);
      rowRead(pCur, pCur->ver.pVer, 0);
      if( iTime > pCur->ver.iVerUpTo ){
        rc = versionStep(pCur);
        if( rc != SQLITE_OK ) return rc;
        continue;
      }
      if( iTime >= pCur->ver.iCutoff ){
        pCur->ver.bVerRow = 1;
        pCur->ver.nVerLeft--;
        return SQLITE_OK;
      }
      /* The rest are older still: expired. */
    }
    pCur->ver.nVerLeft = 0;
    rc = baseNext(pCur);
    if( rc != SQLITE_OK || pCur->bEof ) return rc;
    iTime = sqlite3_value_int64(baseValue(pCur, pCur->ver.iTimeCol));
    pCur->ver.nVerLeft = pTab->pSchema->nVersions > 1 ? pCur->ver.nVersions : 1;
    pCur->ver.iVerUpTo = pCur->ver.iAsof;
    if( iTime <= pCur->ver.iAsof ){
      /* The latest is the first version to return. */
      pCur->ver.iVerUpTo = iTime - 1;
      if( --pCur->ver.nVerLeft == 0 ) return SQLITE_OK;
    }else if( pTab->pSchema->nVersions <= 1 ){
      pCur->ver.nVerLeft = 0;
      continue;
    }
    pKey = baseValue(pCur, pCur->aiStmtCol[nCol + 1]);
    pCur->ver.verKey.n = 0;
    wcBufAppend(&pCur->ver.verKey, sqlite3_value_blob(pKey),
                sqlite3_value_bytes(pKey));
    if( pCur->ver.verKey.bOom ) return SQLITE_NOMEM;
    rc = versionsFind(pCur);
    if( rc != SQLITE_OK || iTime <= pCur->ver.iAsof ) return rc;
  }
}

/* Reads versions = n and asof = t from xFilter's arguments. */
static int versionsFilter(WcCursor *pCur, sqlite3_value **argv){
  WcVtab *pTab = cursorTab(pCur);
  const WcPlan *pPlan = &pCur->plan;
  int i;
  pCur->ver.nVersions = 1;
  pCur->ver.iAsof = INT64_MAX;
  pCur->ver.bHasVersions = pCur->ver.bHasAsof = 0;
  for(i = 0; i < pPlan->nTerm; i++){
    int eOp = pPlan->aTerm[i].eOp;
    int bInt;
    int64_t v;
    /* numeric_type() converts the value: only these two may be. */
    if( eOp != WC_TERM_VERSIONS && eOp != WC_TERM_ASOF ) continue;
    bInt = sqlite3_value_numeric_type(argv[i]) == SQLITE_INTEGER;
    v = sqlite3_value_int64(argv[i]);
    if( eOp == WC_TERM_VERSIONS ){
      if( !bInt || v < 1 ){
        return wcVtabError(&pTab->base, SQLITE_ERROR, "widecol %s: versions = n "
            "reads the n newest versions of each row: n must be an integer "
            "of at least 1 (the table keeps %d), not %Q", pTab->store.zName,
            pTab->pSchema->nVersions, sqlite3_value_text(argv[i]));
      }
      pCur->ver.nVersions = v;
      pCur->ver.bHasVersions = 1;
    }else if( eOp == WC_TERM_ASOF ){
      if( !bInt ){
        return wcVtabError(&pTab->base, SQLITE_ERROR, "widecol %s: asof = t reads "
            "each row as it was at time t: t must be an integer, "
            "microseconds since 1970-01-01 00:00:00 UTC, not %Q",
            pTab->store.zName, sqlite3_value_text(argv[i]));
      }
      pCur->ver.iAsof = v;
      pCur->ver.bHasAsof = 1;
    }
  }
  pCur->ver.bVersionRead = pCur->ver.bHasVersions || pCur->ver.bHasAsof;
  return SQLITE_OK;
}

static int rawNext(WcCursor *pCur){
  return pCur->ver.bVersionRead ? versionNext(pCur) : baseNext(pCur);
}

/* The next row to return: skips OFFSET rows, stops after LIMIT rows. */
static int cursorAdvance(WcCursor *pCur){
  for(;;){
    int rc = rawNext(pCur);
    if( rc != SQLITE_OK || pCur->bEof ) return rc;
    if( pCur->nOffset == 0 ) break;
    pCur->nOffset--;
  }
  if( pCur->nLimit == 0 ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  if( pCur->nLimit > 0 ) pCur->nLimit--;
  cursorTab(pCur)->stats.nRowOut++;
  pCur->nOut++;
  return SQLITE_OK;
}

/*
** The cursor methods.
*/
static void cursorReset(WcCursor *pCur){
  int i;
  if( pCur->bHistoryDue && pCur->plan.nUnserved > 0 ){
    wcHistoryScan(cursorTab(pCur)->pHistory, pCur->plan.aiUnserved,
                  pCur->plan.nUnserved, pCur->nRead, pCur->nOut);
  }
  pCur->bHistoryDue = 0;
  pCur->nRead = pCur->nOut = 0;
  subClear(pCur, &pCur->seq);
  for(i = 0; i < pCur->merge.nSub; i++) subFree(pCur, &pCur->merge.aSub[i]);
  sqlite3_free(pCur->merge.aSub);
  sqlite3_free(pCur->merge.aHeap);
  pCur->merge.aSub = 0;
  pCur->merge.aHeap = 0;
  pCur->merge.nSub = pCur->merge.nHeap = 0;
  pCur->merge.pRow = 0;
  sortedFree(pCur);
  pCur->ranges.rel.n = 0;
  wcBufClear(&pCur->skip.probe);
  pCur->skip.bProbed = pCur->skip.bProbeEnd = 0;
  pCur->skip.bEnum = pCur->merge.bMerge = pCur->merge.bHeld = 0;
  pCur->skip.iVisit = pCur->skip.nVisit = 0;
  versionsRelease(pCur);
  pCur->ver.bVersionRead = 0;
  pCur->bEof = 1;
}

/* A closed cursor is kept by its table for the next xOpen, buffers and
** all, unless it holds more ranges than a typical plan's. */
#define WC_SPARE_RANGES 64

static void cursorFree(WcCursor *pCur){
  subFree(pCur, &pCur->seq);
  wcRangesFree(&pCur->ranges);
  wcBufFree(&pCur->skip.probe);
  wcBufFree(&pCur->planCode);
  wcBufFree(&pCur->ver.verLast);
  wcBufFree(&pCur->ver.verKey);
  wcBufFree(&pCur->dec.key);
  wcBufFree(&pCur->dec.bytes);
  sqlite3_free(pCur->dec.aVal);
  sqlite3_free(pCur->aiStmtCol);
  sqlite3_free(pCur);
}

int wcScanOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  WcVtab *pTab = (WcVtab*)pVtab;
  WcCursor *pCur = pTab->pSpare;
  if( pCur ){
    pTab->pSpare = 0;
  }else{
    pCur = sqlite3_malloc(sizeof(*pCur));
    if( pCur == 0 ) return SQLITE_NOMEM;
    memset(pCur, 0, sizeof(*pCur));
    int nCol = pTab->pSchema->nCol;
    pCur->aiStmtCol = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(nCol + 4));
    if( pCur->aiStmtCol == 0 ){
      sqlite3_free(pCur);
      return SQLITE_NOMEM;
    }
    pCur->bEof = 1;
  }
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

int wcScanClose(sqlite3_vtab_cursor *pBase){
  WcCursor *pCur = (WcCursor*)pBase;
  WcVtab *pTab = cursorTab(pCur);
  cursorReset(pCur);
  if( pTab->pSpare == 0 && pCur->seq.ranges.nAlloc <= WC_SPARE_RANGES
   && pCur->ranges.rel.nAlloc <= WC_SPARE_RANGES
   && pCur->ranges.prefixes.nAlloc <= WC_SPARE_RANGES ){
    pTab->pSpare = pCur;
  }else{
    cursorFree(pCur);
  }
  return SQLITE_OK;
}

void wcScanFreeSpare(WcVtab *p){
  if( p->pSpare ) cursorFree(p->pSpare);
  p->pSpare = 0;
}

/* Decodes idxStr's plan unless it is the one the cursor decoded last: a
** join's inner loop, and a statement run again, hand the same each time. */
static int cursorPlan(WcCursor *pCur, const char *idxStr){
  const char *zCode = idxStr ? idxStr + strlen(idxStr) + 1 : 0;
  int rc;
  if( zCode && pCur->planCode.n > 0
   && strcmp((const char*)pCur->planCode.a, zCode) == 0 ){
    return SQLITE_OK;
  }
  pCur->planCode.n = 0;
  rc = wcPlanDecode(cursorTab(pCur), idxStr, &pCur->plan);
  if( rc == SQLITE_OK && zCode ){
    /* Without memory for the copy, the next call decodes again. */
    wcBufAppend(&pCur->planCode, zCode, (int64_t)strlen(zCode) + 1);
    if( pCur->planCode.bOom ) wcBufClear(&pCur->planCode);
  }
  return rc;
}

int wcScanFilter(sqlite3_vtab_cursor *pBase, int idxNum, const char *idxStr,
                 int argc, sqlite3_value **argv){
  WcCursor *pCur = (WcCursor*)pBase;
  WcVtab *pTab = cursorTab(pCur);
  const WcPlan *pPlan = &pCur->plan;
  int i, rc, bWidened = 0;
  (void)idxNum;
  (void)argc;
  cursorReset(pCur);
  pTab->nScanBegun++;
  rc = cursorPlan(pCur, idxStr);
  if( rc != SQLITE_OK ) return rc;
  if( pPlan->bInterrupted && pTab->bPlanInterrupted ){
    /* The interrupt that stopped the planner's call ends the statement
    ** (once: the plan runs if the statement is run again). */
    pTab->bPlanInterrupted = 0;
    return wcVtabError(&pTab->base, SQLITE_INTERRUPT, "widecol %s: "
                       "interrupted while planning the statement",
                       pTab->store.zName);
  }
  pCur->bHistoryDue = 1;
  if( pPlan->bFind ){
    /* wcTableLookup: hand this table over, return no rows. */
    WcVtab **ppOut = (WcVtab**)sqlite3_value_pointer(argv[0], WC_TABLE_FUNC);
    if( ppOut ) *ppOut = pTab;
    return SQLITE_OK;
  }
  pCur->nLimit = -1;
  pCur->nWindow = -1;
  pCur->nOffset = 0;
  for(i = 0; i < pPlan->nTerm; i++){
    if( pPlan->aTerm[i].eOp == WC_TERM_LIMIT ){
      pCur->nLimit = sqlite3_value_int64(argv[i]);
      if( pCur->nLimit < 0 ) pCur->nLimit = -1;
    }else if( pPlan->aTerm[i].eOp == WC_TERM_WINDOW ){
      pCur->nWindow = sqlite3_value_int64(argv[i]);
      if( pCur->nWindow < 0 ) pCur->nWindow = -1;
    }else if( pPlan->aTerm[i].eOp == WC_TERM_OFFSET ){
      pCur->nOffset = sqlite3_value_int64(argv[i]);
      if( pCur->nOffset < 0 ) pCur->nOffset = 0;
    }
  }
  rc = versionsFilter(pCur, argv);
  if( rc != SQLITE_OK ) return rc;
  pCur->ver.iCutoff = wcClockCutoff(pTab->pClock, pTab->pSchema->nTtl);
  pCur->colUsed = pPlan->colUsed;
  pCur->nStmtCol = wcStoreScanColumns(&pTab->store, pPlan->iPath, pCur->colUsed,
                                      pCur->aiStmtCol);
  pCur->ver.iTimeCol = pCur->aiStmtCol[pTab->pSchema->nCol + 2];
  pCur->bEof = 0;
  if( pPlan->bEmpty ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  rc = wcRangesBuild(pTab, pPlan, argv, &pCur->ranges, &bWidened);
  if( rc == SQLITE_OK && pPlan->nSkip == 0 ){
    static const WcBuf empty = { 0, 0, 0, 0 };
    rc = subStart(pCur, &pCur->seq, &empty);
  }
  if( pPlan->bAllPrefixes ){
    pCur->skip.nVisit = 1;
    for(i = 0; i < pPlan->nSkip; i++){
      pCur->skip.nVisit *= wcDerivedCount(cursorKey(pCur), i);
    }
  }
  if( rc == SQLITE_OK && pPlan->nEnumMax > 0 ) rc = enumStart(pCur, argv);
  if( rc != SQLITE_OK || pCur->bEof ) return rc;
  if( pPlan->nSort > 0 && bWidened ){
    rc = sortedStart(pCur);
    if( rc != SQLITE_OK ) return rc;
    return cursorAdvance(pCur);
  }
  /* Enumerated values come in the merge's order already. */
  pCur->merge.bMerge = pPlan->bMerge && !pCur->skip.bEnum;
  if( pCur->merge.bMerge ) rc = mergeStart(pCur);
  if( rc != SQLITE_OK ) return rc;
  return cursorAdvance(pCur);
}

int wcScanNext(sqlite3_vtab_cursor *pBase){
  return cursorAdvance((WcCursor*)pBase);
}

int wcScanEof(sqlite3_vtab_cursor *pBase){
  return ((WcCursor*)pBase)->bEof;
}

/* Copies a value out.  sqlite3_result_value() would allocate a new buffer
** for every text and blob (it keeps the source's size); a transient copy
** reuses the buffer the result register already has. */
static void resultValue(sqlite3_context *ctx, sqlite3_value *pVal){
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_INTEGER:
      sqlite3_result_int64(ctx, sqlite3_value_int64(pVal));
      break;
    case SQLITE_FLOAT:
      sqlite3_result_double(ctx, sqlite3_value_double(pVal));
      break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, (const char*)sqlite3_value_text(pVal),
                          sqlite3_value_bytes(pVal), SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB: {
      int n = sqlite3_value_bytes(pVal);
      /* An empty blob has no pointer, which would read as NULL. */
      if( n == 0 ){
        sqlite3_result_zeroblob(ctx, 0);
      }else{
        sqlite3_result_blob(ctx, sqlite3_value_blob(pVal), n,
                            SQLITE_TRANSIENT);
      }
      break;
    }
    default:
      sqlite3_result_null(ctx);
      break;
  }
}

/* A versioned table's hidden columns rowtime, versions and asof. */
static int versionColumn(WcCursor *pCur, sqlite3_context *ctx, int i){
  WcVtab *pTab = cursorTab(pCur);
  const WcSchema *pS = pTab->pSchema;
  if( sqlite3_vtab_nochange(ctx) ){
    /* An UPDATE that does not set rowtime stamps the write's own time.
    ** One whose rows come from a read of older versions is told so by
    ** their versions and asof, which xUpdate refuses. */
    if( i == WC_COL_VERSIONS(pS) && pCur->ver.bHasVersions ){
      sqlite3_result_int64(ctx, pCur->ver.nVersions);
    }else if( i == WC_COL_ASOF(pS) && pCur->ver.bHasAsof ){
      sqlite3_result_int64(ctx, pCur->ver.iAsof);
    }
    return SQLITE_OK;
  }
  if( i == WC_COL_ROWTIME(pS) ){
    if( pCur->ver.bVerRow ){
      sqlite3_result_int64(ctx, sqlite3_column_int64(pCur->ver.pVer, 1));
    }else if( pCur->ver.iTimeCol >= 0 ){
      sqlite3_result_int64(ctx, sqlite3_value_int64(
          baseValue(pCur, pCur->ver.iTimeCol)));
    }else{
      sqlite3_result_error(ctx, "widecol: rowtime was read but the query "
                           "plan did not select it; please report this", -1);
      return SQLITE_ERROR;
    }
  }else if( i == WC_COL_VERSIONS(pS) && pCur->ver.bHasVersions ){
    sqlite3_result_int64(ctx, pCur->ver.nVersions);
  }else if( i == WC_COL_ASOF(pS) && pCur->ver.bHasAsof ){
    sqlite3_result_int64(ctx, pCur->ver.iAsof);
  }else{
    int bVersions = i == WC_COL_VERSIONS(pS);
    char *zErr = wcVersionParamMisuse(pTab->store.zName, bVersions, "it has no "
                                      "value of its own to select or compare");
    sqlite3_result_error(ctx, zErr ? zErr : "out of memory", -1);
    sqlite3_free(zErr);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static void resultFrom(sqlite3_context *ctx, const WcValue *pVal){
  switch( pVal->eType ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, pVal->i); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, pVal->r); break;
    case SQLITE_TEXT:
      sqlite3_result_text64(ctx, (const char*)pVal->a, (sqlite3_uint64)pVal->n,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob64(ctx, pVal->a, (sqlite3_uint64)pVal->n,
                            SQLITE_TRANSIENT);
      break;
    default:
      break;
  }
}

/* Column i of an EXISTING table: a key field, read from the row's key;
** any other, its cell's value as the column holds it (the affinity of its
** declared type, as an ordinary table would store what the application
** wrote). */
static int existingColumn(WcCursor *pCur, sqlite3_context *ctx, int i){
  const WcSchema *pS = cursorTab(pCur)->pSchema;
  int nCol = pS->nCol;
  int iStmtCol = pCur->aiStmtCol[pS->aCol[i].iElem >= 0 ? nCol : i];
  sqlite3_value *pVal, *pCopy = 0;
  WcValue v;
  int rc;
  if( iStmtCol < 0 ){
    sqlite3_result_error(ctx, "widecol: a column the query plan did not "
                         "select was read; please report this", -1);
    return SQLITE_ERROR;
  }
  pVal = baseValue(pCur, iStmtCol);
  if( pS->aCol[i].iElem >= 0 ){
    rc = decodeKey(pCur, sqlite3_value_blob(pVal), sqlite3_value_bytes(pVal));
    if( rc == WC_OK ){
      resultFrom(ctx, &pCur->dec.aVal[i]);
      return SQLITE_OK;
    }
    if( rc == WC_NOMEM ) return SQLITE_NOMEM;
    sqlite3_result_error(ctx, "widecol: a row whose key does not decode was "
                         "read; please report this", -1);
    return SQLITE_ERROR;
  }
  if( wcValueStore(pS->aCol[i].cAff, pVal, &v, &pCopy) != WC_OK ){
    return SQLITE_NOMEM;
  }
  resultFrom(ctx, &v);
  sqlite3_value_free(pCopy);
  return SQLITE_OK;
}

int wcScanColumn(sqlite3_vtab_cursor *pBase, sqlite3_context *ctx, int i){
  WcCursor *pCur = (WcCursor*)pBase;
  int nCol = cursorTab(pCur)->pSchema->nCol;
  int iStmtCol;
  if( i == cursorTab(pCur)->store.iStampCol ){
    /* Given to an UPDATE too (nochange or not): it acts on these. */
    iStmtCol = pCur->aiStmtCol[nCol + 3];
    if( !pCur->ver.bVerRow && iStmtCol >= 0 ){
      resultValue(ctx, baseValue(pCur, iStmtCol));
    }
    return SQLITE_OK;
  }
  if( i > nCol ) return versionColumn(pCur, ctx, i);
  if( pCur->ver.bVerRow && i < nCol ){
    resultValue(ctx, sqlite3_column_value(pCur->ver.pVer, i + 2));
    return SQLITE_OK;
  }
  if( cursorTab(pCur)->pSchema->bExisting && i < nCol ){
    return existingColumn(pCur, ctx, i);
  }
  iStmtCol = pCur->aiStmtCol[i == nCol ? nCol + 1 : i];
  /* The scan selects only the columns SQLite said the query reads (and
  ** rowkey); answering NULL for another would be wrong, so say so. */
  if( iStmtCol < 0 ){
    sqlite3_result_error(ctx, "widecol: a column the query plan did not "
                         "select was read; please report this", -1);
    return SQLITE_ERROR;
  }
  resultValue(ctx, baseValue(pCur, iStmtCol));
  return SQLITE_OK;
}

/* A WITHOUT ROWID table has no rowid to give. */
int wcScanRowid(sqlite3_vtab_cursor *pBase, sqlite3_int64 *pRowid){
  (void)pBase;
  *pRowid = 0;
  return SQLITE_MISUSE;
}
