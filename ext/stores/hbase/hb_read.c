/*
** hb_read.c: the cell store's reads (cs_transport.h) on HBase's Thrift2
** gateway (hb_gateway.h):
**
**   keys alone     getMultiple, HB_PAGE keys a call, the rows in the
**                  order asked
**   ranges         getScannerResults, a page at a time, each page a scan
**                  from where the last one ended (no scanner is left open
**                  on the server); ranges read one after another in key
**                  order; descending reads are HBase's reversed scans
**
** The columns and versions asked for are HBase's own (a TGet's or TScan's
** columns and maxVersions); keys alone are its FirstKeyOnlyFilter and
** KeyOnlyFilter.  A read gives its rows one at a time from the page it
** holds.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_gateway.h"

#include <stdlib.h>
#include <string.h>

/* Rows a page of a read asks for, and keys a getMultiple, at most (the
** kind's calls' rows, util/wc_kind.c, which the planner prices). */
#define HB_PAGE (wcKind(WC_STORE_HBASE)->reads.nCallRows)
/* HBase's filter of a read of keys alone: one cell a row, no value. */
#define HB_KEYS_ONLY "FirstKeyOnlyFilter() AND KeyOnlyFilter()"


struct CsReader {
  CsConn *pConn;
  const CsRead *pRead;
  CsWait wait;
  int bDone;            /* No more pages */
  int64_t nLeft;        /* Rows still to give, or -1 */
  /* Keys alone: how many were asked for so far. */
  int iKey;
  /* Ranges: the ranges in the order read, and where the last page ended
  ** (the next starts after it). */
  HbRange *aRange;
  int nRange, iRange;
  WcBuf after;          /* The last key given of range iRange, as of the
                        ** last page (copied once a page, at its end) */
  int bAfter;
  const HbVal *pLastKey;    /* The last key given from the page held */
  int nPage;            /* Rows the page being read asked for */
  /* The page being read: its call (which holds the values), its results
  ** and the next of them. */
  HbCall *pCall;
  const HbVal *pRes;
  int64_t iRes;
  int bRangeEnd;        /* A row past the range came: the range is read */
  WcBuf cells;          /* CsCell[], the row given */
  CsRow row;
};

static int cmpBytes(CsBytes a, CsBytes b){
  return wcBytesCompare(a.a, (int64_t)a.n, b.a, (int64_t)b.n);
}


void hbReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                CsReader **ppReader){
  CsReader *p = sqlite3_malloc(sizeof(*p));
  *ppReader = p;
  if( p == 0 ) return;
  memset(p, 0, sizeof(*p));
  wcAssert( pRead->nKey + pRead->nRange > 0 );
  p->pConn = pConn;
  p->pRead = pRead;
  p->wait = *pWait;
  p->nLeft = pRead->nLimit > 0 ? pRead->nLimit : -1;
  if( pRead->nRange > 0
   && (p->aRange = hbReadRanges(pRead, &p->nRange)) == 0 ){
    sqlite3_free(p);
    *ppReader = 0;
  }
}

/* The columns, versions and filter of a TGet or TScan: the fields of
** their ids. */
static void writeWhat(const CsRead *pRead, WcBuf *pReq, int idColumns,
                      int idVersions, int idFilter){
  int i;
  if( pRead->nColumn > 0 && !pRead->bKeysOnly ){
    hbWriteField(pReq, HB_LIST, idColumns);
    hbWriteListBegin(pReq, HB_STRUCT, pRead->nColumn);
    for(i = 0; i < pRead->nColumn; i++){
      const CsColumn *pCol = &pRead->aColumn[i];
      hbWriteBinaryField(pReq, 1, pCol->zFamily,
                         (int64_t)strlen(pCol->zFamily));
      hbWriteQual(pReq, 2, pCol->zFamily, pCol->qual);
      hbWriteStop(pReq);
    }
  }
  hbWriteI32Field(pReq, idVersions, pRead->bLatest ? 1 : HB_ALL_VERSIONS);
  if( pRead->bKeysOnly ){
    hbWriteBinaryField(pReq, idFilter, HB_KEYS_ONLY,
                       (int64_t)sizeof(HB_KEYS_ONLY) - 1);
  }
}

/* The next keys' getMultiple: up to HB_PAGE of them, in the order read. */
static HbCall *keysPage(CsReader *p){
  const CsRead *pRead = p->pRead;
  int n = pRead->nKey - p->iKey, i;
  WcBuf req = {0, 0, 0, 0};
  HbCall *pCall;
  if( n > HB_PAGE ) n = HB_PAGE;
  if( p->nLeft > 0 && p->nLeft < n ) n = (int)p->nLeft;
  hbWriteCall(&req, "getMultiple", 0);
  hbWriteBinaryField(&req, 1, pRead->zTable, (int64_t)strlen(pRead->zTable));
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, n);
  for(i = 0; i < n; i++){
    int k = p->iKey + i;
    const CsBytes *pKey = &pRead->aKey[pRead->bReversed ? pRead->nKey - 1 - k
                                                        : k];
    hbWriteBinaryField(&req, 1, pKey->a, (int64_t)pKey->n);
    writeWhat(pRead, &req, 2, 5, 6);
    hbWriteStop(&req);
  }
  hbWriteStop(&req);
  p->iKey += n;
  pCall = hbSend(p->pConn, "getMultiple", pRead->zTable, &req, &p->wait);
  wcBufFree(&req);
  return pCall;
}

/* key + "\0": the first key after key. */
static void writeSuccessor(WcBuf *p, int id, CsBytes key){
  hbWriteField(p, HB_STRING, id);
  hbWriteI32(p, (int32_t)key.n + 1);
  wcBufAppend(p, key.a, (int64_t)key.n);
  wcBufAppend(p, "", 1);
}

/* The getScannerResults of the next page of range iRange. */
static HbCall *rangePage(CsReader *p){
  const CsRead *pRead = p->pRead;
  const HbRange *pR = &p->aRange[p->iRange];
  WcBuf req = {0, 0, 0, 0};
  HbCall *pCall;
  CsBytes after;
  after.a = p->after.a;
  after.n = (size_t)p->after.n;
  p->nPage = HB_PAGE;
  if( pR->bHi && !pR->bHiOpen && cmpBytes(pR->lo, pR->hi) == 0 ){
    p->nPage = 1;       /* one key */
  }else if( p->nLeft > 0 && p->nLeft < p->nPage ){
    /* One more than asked: a row this end skips (reversed) may come. */
    p->nPage = (int)p->nLeft + 1;
  }
  hbWriteCall(&req, "getScannerResults", 0);
  hbWriteBinaryField(&req, 1, pRead->zTable, (int64_t)strlen(pRead->zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  if( !pRead->bReversed ){
    /* start: after the last key given, or lo; stop: hi (exclusive). */
    if( p->bAfter ){
      writeSuccessor(&req, 1, after);
    }else if( pR->bLoOpen ){
      writeSuccessor(&req, 1, pR->lo);
    }else if( pR->lo.n ){
      hbWriteBinaryField(&req, 1, pR->lo.a, (int64_t)pR->lo.n);
    }
    if( pR->bHi && !pR->bHiOpen ){
      writeSuccessor(&req, 2, pR->hi);
    }else if( pR->bHi ){
      hbWriteBinaryField(&req, 2, pR->hi.a, (int64_t)pR->hi.n);
    }
  }else{
    /* From the top down: start at the last key given (skipped when it
    ** comes again) or hi (skipped when open); stop at lo, exclusive
    ** (an open lo), else at no key: the rows below a closed lo are cut
    ** here. */
    if( p->bAfter ){
      hbWriteBinaryField(&req, 1, after.a, (int64_t)after.n);
    }else if( pR->bHi ){
      hbWriteBinaryField(&req, 1, pR->hi.a, (int64_t)pR->hi.n);
    }
    if( pR->bLoOpen ){
      hbWriteBinaryField(&req, 2, pR->lo.a, (int64_t)pR->lo.n);
    }
    hbWriteBoolField(&req, 11, 1);
  }
  writeWhat(pRead, &req, 3, 5, 7);
  hbWriteI32Field(&req, 4, p->nPage);
  hbWriteStop(&req);
  hbWriteI32Field(&req, 3, p->nPage);
  hbWriteStop(&req);
  pCall = hbSend(p->pConn, "getScannerResults", pRead->zTable, &req,
                 &p->wait);
  wcBufFree(&req);
  return pCall;
}

/* Where key k stands to range pR: -1 before it (in the order read), 0 in
** it, 1 past it. */
static int placeOf(const HbRange *pR, CsBytes k, int bReversed){
  int cLo = cmpBytes(k, pR->lo);
  int bBelow = cLo < 0 || (cLo == 0 && pR->bLoOpen);
  int bAbove = 0;
  if( pR->bHi ){
    int cHi = cmpBytes(k, pR->hi);
    bAbove = cHi > 0 || (cHi == 0 && !!pR->bHiOpen);
  }
  if( !bReversed ) return bBelow ? -1 : bAbove ? 1 : 0;
  return bAbove ? -1 : bBelow ? 1 : 0;
}

/* The row of TResult pOne (key pKey) as the cell store reads one:
** p->row, its cells in p->cells.  HBase gives a row's cells by family,
** qualifier, newest first, as the cell store wants them. */
static int rowOf(CsReader *p, const HbVal *pOne, const HbVal *pKey,
                 CsStatus *pSt){
  const HbVal *pCols = hbField(pOne, 2);
  int64_t i, n = pCols ? pCols->n : 0;
  CsCell *aCell;
  p->cells.n = 0;
  if( wcBufReserve(&p->cells, (int64_t)sizeof(CsCell) * (n + 1)) ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  aCell = (CsCell*)p->cells.a;
  for(i = 0; i < n; i++){
    const HbVal *pCV = &pCols->aChild[i];
    const HbVal *pF = hbField(pCV, 1), *pQ = hbField(pCV, 2);
    const HbVal *pV = hbField(pCV, 3);
    aCell[i].zFamily = pF ? (const char*)pF->a : "";
    aCell[i].qual.a = pQ ? pQ->a : (const unsigned char*)"";
    aCell[i].qual.n = pQ ? (size_t)pQ->n : 0;
    if( pF && pQ && hbQualIsMarker((const char*)pF->a, (size_t)pF->n,
                                   pQ->a, (size_t)pQ->n) ){
      aCell[i].qual.n = 0;
    }
    aCell[i].value.a = pV ? pV->a : (const unsigned char*)"";
    aCell[i].value.n = pV ? (size_t)pV->n : 0;
    aCell[i].iMicros = hbFieldInt(pCV, 4, 0) * 1000;
  }
  p->row.key.a = pKey->a;
  p->row.key.n = (size_t)pKey->n;
  p->row.nCell = (int)n;
  p->row.aCell = aCell;
  if( p->nLeft > 0 ) p->nLeft--;
  return 1;
}

/* The next row of the page held (1), or none left in it (0). */
static int pageNext(CsReader *p, const CsRow **ppRow, CsStatus *pSt){
  const CsRead *pRead = p->pRead;
  while( p->pRes && p->iRes < p->pRes->n && p->nLeft != 0
      && !p->bRangeEnd ){
    const HbVal *pOne = &p->pRes->aChild[p->iRes++];
    const HbVal *pKey = hbField(pOne, 1);
    const HbVal *pCols = hbField(pOne, 2);
    CsBytes key;
    int r;
    /* A key asked for that is not there: a result with no row. */
    if( pKey == 0 || pCols == 0 || pCols->n == 0 ) continue;
    key.a = pKey->a;
    key.n = (size_t)pKey->n;
    if( p->aRange ){
      const HbRange *pR = &p->aRange[p->iRange];
      int place;
      if( p->bAfter && p->after.n == (int64_t)key.n
       && memcmp(p->after.a, key.a, key.n) == 0 ){
        continue;       /* given by the last page (reversed) */
      }
      place = placeOf(pR, key, pRead->bReversed);
      if( place < 0 ) continue;
      if( place > 0 ){
        p->bRangeEnd = 1;
        break;
      }
      p->pLastKey = pKey;
    }
    r = rowOf(p, pOne, pKey, pSt);
    if( r > 0 ) *ppRow = &p->row;
    return r;
  }
  return 0;
}

/* Done with the page held: the next range, where this one is read. */
static void pageEnd(CsReader *p){
  int64_t nRow = p->pRes ? p->pRes->n : 0;
  /* The next page starts after the last key given (it lives in the page's
  ** values, freed below). */
  if( p->pLastKey ){
    p->after.n = 0;
    wcBufAppend(&p->after, p->pLastKey->a, p->pLastKey->n);
    p->bAfter = 1;
    p->pLastKey = 0;
  }
  if( p->aRange && (p->bRangeEnd || nRow < p->nPage) ){
    p->iRange++;
    p->bAfter = 0;
    p->after.n = 0;
  }
  hbCallFree(p->pCall);
  p->pCall = 0;
  p->pRes = 0;
  p->iRes = 0;
  p->bRangeEnd = 0;
}

int hbReadNext(CsReader *p, const CsRow **ppRow, CsStatus *pSt){
  *ppRow = 0;
  if( p == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  for(;;){
    int r, code;
    if( p->pCall ){
      r = pageNext(p, ppRow, pSt);
      if( r != 0 ) return r;
      pageEnd(p);
    }
    if( p->bDone || p->nLeft == 0 ) return 0;
    if( p->aRange ){
      if( p->iRange >= p->nRange ) return 0;
      if( p->after.bOom ){
        csStatusSet(pSt, CS_INTERNAL, "out of memory");
        return -1;
      }
      p->pCall = rangePage(p);
    }else{
      if( p->iKey >= p->pRead->nKey ) return 0;
      p->pCall = keysPage(p);
    }
    if( p->pCall == 0 ){
      csStatusSet(pSt, CS_INTERNAL, "out of memory");
      return -1;
    }
    code = hbResult(p->pCall, &p->pRes, pSt);
    if( code != CS_OK ){
      /* The read ends with its failure (the cell store reads again). */
      p->bDone = 1;
      hbCallFree(p->pCall);
      p->pCall = 0;
      p->pRes = 0;
      return -1;
    }
  }
}

void hbReadClose(CsReader *p){
  if( p == 0 ) return;
  hbCallFree(p->pCall);
  sqlite3_free(p->aRange);
  wcBufFree(&p->after);
  wcBufFree(&p->cells);
  sqlite3_free(p);
}
