/*
** hb_scan.c: the cell store's reads (cs_transport.h) over HBase's own RPC
** (hb_native.h):
**
**   ranges      a scanner a region at a time: opened on the region that
**               holds where the range resumes, read a page a call
**               (number_of_rows), left for the next region when HBase
**               says the region has no more (more_results_in_region);
**               descending reads are reversed scans, region by region
**               downwards; a range the read takes whole in one call opens
**               and closes its scanner in that call; a scanner whose rows
**               are given slowly has its lease renewed (HB_RENEW_MS)
**   skip scans  the ranges of an ascending read that fall in one region
**               (salts, buckets, IN lists) read by one scanner with
**               HBase's MultiRowRangeFilter, which seeks from each range
**               to the next on the server: a call a region, not one a
**               range; regions between the ranges are not visited
**   keys alone  Multi calls of Gets, a page of keys at a time: each
**               server's at once, the rows given in the order asked
**
** The columns and versions asked for are the Scan's or Get's own; keys
** alone are HBase's FirstKeyOnlyFilter and KeyOnlyFilter.  Cells come in
** the answer's block of cells, read in place.  A failure ends the read
** with its code, the table's regions forgotten: the cell store starts the
** read again after the last row it gave (cells/cs_read.c).
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <string.h>

/* Rows a call asks for, and keys a Multi (the kind's calls' rows,
** util/wc_kind.c, which the planner prices). */
#define HB_PAGE (wcKind(WC_STORE_HBASE)->reads.nCallRows)
/* Bytes of an answer HBase stops a page at. */
#define HB_MAX_RESULT_SIZE (8 * 1024 * 1024)
/* How long an open scanner goes without a call before its lease is
** renewed: a sixth of HBase's default lease (60 s,
** hbase.client.scanner.timeout.period), so that a cluster whose lease is
** a third of that keeps its scanners too. */
#define HB_RENEW_MS 10000


/* A page of a Multi of gets: the answer of each server asked. */
typedef struct HbKeysPage HbKeysPage;
struct HbKeysPage {
  int nRpc;
  HbRpc **apRpc;
  int nKey;             /* Keys asked, in the order read */
  CsBytes *aCells;      /* Each key's cells, in its answer's block */
  int *anCell;
  int iNext;
};

typedef struct HbScan HbScan;
struct HbScan {
  HbCluster *p;
  const CsRead *pRead;
  CsWait wait;
  int bDone;
  int64_t nLeft;        /* Rows still to give, or -1 */
  WcArena arena;        /* The read's columns and filter */
  Hbw__Column **apCol;
  size_t nCol;
  Hbw__Filter *pFilter;
  /* Ranges, in the order read, and where range iRange resumes: at
  ** resume (excluded if bResumeOpen) once bResume.  The scanner open
  ** reads ranges iRange..iGroupEnd-1 (those in its region). */
  HbRange *aRange;
  int nRange, iRange, iGroupEnd;
  WcBuf resume;
  int bResume, bResumeOpen;
  /* The scanner open on a region, if bOpen; its last call's time, and a
  ** renewal of its lease in flight. */
  HbRegion region;
  int bOpen;
  uint64_t iScanner, iSeq;
  int64_t iCalledMs;
  HbRpc *pRenew;
  /* The page held: its call, answer and next result. */
  HbRpc *pRpc;
  Hbw__ScanResponse *pResp;
  CsBytes cells;
  size_t iResult;
  int bAskedClose;      /* The call asked to close the scanner */
  int bScanDone;        /* HBase says the scan has no more */
  int bRegionDone;      /* HBase says the region has no more */
  /* Keys alone. */
  int iKey;
  HbKeysPage keys;
  /* The row given. */
  int nFam;
  char **azFam;
  WcBuf aCell;
  CsRow row;
};

static int cmpBytes(CsBytes a, CsBytes b){
  return wcBytesCompare(a.a, (int64_t)a.n, b.a, (int64_t)b.n);
}


/* A Filter message of class zClass (HBase's filter package) with message
** pMsg, in arena pA. */
static Hbw__Filter *filterOf(WcArena *pA, const char *zClass,
                             const ProtobufCMessage *pMsg){
  Hbw__Filter *pF = wcArenaAlloc(pA, sizeof(*pF));
  size_t n = protobuf_c_message_get_packed_size(pMsg);
  uint8_t *a = wcArenaAlloc(pA, n + 1);
  if( pF == 0 || a == 0 ) return 0;
  hbw__filter__init(pF);
  pF->name = (char*)zClass;
  protobuf_c_message_pack(pMsg, a);
  pF->has_serialized_filter = 1;
  pF->serialized_filter.data = a;
  pF->serialized_filter.len = n;
  return pF;
}

/* The filter of a read of keys alone: the first cell of a row, without
** its value. */
static Hbw__Filter *keysOnlyFilter(WcArena *pA){
  Hbw__FirstKeyOnlyFilter first = HBW__FIRST_KEY_ONLY_FILTER__INIT;
  Hbw__KeyOnlyFilter keyOnly = HBW__KEY_ONLY_FILTER__INIT;
  Hbw__FilterList list = HBW__FILTER_LIST__INIT;
  Hbw__Filter *apF[2];
  apF[0] = filterOf(pA, "org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter",
                    &first.base);
  apF[1] = filterOf(pA, "org.apache.hadoop.hbase.filter.KeyOnlyFilter",
                    &keyOnly.base);
  if( apF[0] == 0 || apF[1] == 0 ) return 0;
  list.operator_ = HBW__FILTER_LIST__OPERATOR__MUST_PASS_ALL;
  list.n_filters = 2;
  list.filters = apF;
  return filterOf(pA, "org.apache.hadoop.hbase.filter.FilterList",
                  &list.base);
}

int hbReadColumns(const CsRead *pRead, WcArena *pA, Hbw__Column ***paCol,
                  size_t *pnCol){
  Hbw__Column **apCol;
  size_t nCol = 0;
  int i;
  *paCol = 0;
  *pnCol = 0;
  if( pRead->nColumn == 0 || pRead->bKeysOnly ) return 0;
  apCol = wcArenaAlloc(pA, sizeof(Hbw__Column*) * (size_t)pRead->nColumn);
  if( apCol == 0 ) return 1;
  for(i = 0; i < pRead->nColumn; i++){
    const CsColumn *pCol = &pRead->aColumn[i];
    size_t nFam = strlen(pCol->zFamily), k;
    CsBytes qual = hbQualOut(pCol->zFamily, pCol->qual);
    Hbw__Column *pC = 0;
    for(k = 0; k < nCol; k++){
      if( apCol[k]->family.len == nFam
       && memcmp(apCol[k]->family.data, pCol->zFamily, nFam) == 0 ){
        pC = apCol[k];
      }
    }
    if( pC == 0 ){
      pC = apCol[nCol++] = wcArenaAlloc(pA, sizeof(Hbw__Column));
      if( pC == 0 ) return 1;
      hbw__column__init(pC);
      pC->family.data = (uint8_t*)pCol->zFamily;
      pC->family.len = nFam;
      pC->qualifier = wcArenaAlloc(pA, sizeof(ProtobufCBinaryData)
                                       * (size_t)pRead->nColumn);
      if( pC->qualifier == 0 ) return 1;
    }
    pC->qualifier[pC->n_qualifier].data = (uint8_t*)qual.a;
    pC->qualifier[pC->n_qualifier].len = qual.n;
    pC->n_qualifier++;
  }
  *paCol = apCol;
  *pnCol = nCol;
  return 0;
}

void hbnReadOpen(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                 CsReader **ppReader){
  HbScan *p = sqlite3_malloc(sizeof(*p));
  *ppReader = (CsReader*)p;
  if( p == 0 ) return;
  memset(p, 0, sizeof(*p));
  wcAssert( pRead->nKey + pRead->nRange > 0 );
  p->p = hbCluster(pConn);
  p->pRead = pRead;
  p->wait = *pWait;
  p->nLeft = pRead->nLimit > 0 ? pRead->nLimit : -1;
  if( (pRead->nRange > 0
       && (p->aRange = hbReadRanges(pRead, &p->nRange)) == 0)
   || hbReadColumns(pRead, &p->arena, &p->apCol, &p->nCol)
   || (pRead->bKeysOnly && (p->pFilter = keysOnlyFilter(&p->arena)) == 0) ){
    hbnReadClose((CsReader*)p);
    *ppReader = 0;
  }
}

/* The family named by bytes f, interned in the read: NUL-terminated. */
static const char *familyOf(HbScan *p, CsBytes f){
  int i;
  char **azNew;
  for(i = 0; i < p->nFam; i++){
    if( strlen(p->azFam[i]) == f.n && memcmp(p->azFam[i], f.a, f.n) == 0 ){
      return p->azFam[i];
    }
  }
  azNew = sqlite3_realloc64(p->azFam, sizeof(char*) * (size_t)(p->nFam + 1));
  if( azNew == 0 ) return 0;
  p->azFam = azNew;
  azNew[p->nFam] = sqlite3_mprintf("%.*s", (int)f.n, f.a);
  return azNew[p->nFam] ? azNew[p->nFam++] : 0;
}

/* p->row from the nCell cells at the head of *pBlock (consumed): 1, or
** -1 with *pSt. */
static int rowOf(HbScan *p, CsBytes *pBlock, int nCell, CsStatus *pSt){
  CsCell *aCell;
  int i, n = 0;
  p->aCell.n = 0;
  if( wcBufReserve(&p->aCell, (int64_t)sizeof(CsCell) * (nCell + 1)) ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  aCell = (CsCell*)p->aCell.a;
  for(i = 0; i < nCell; i++){
    HbKv kv;
    CsCell *pC = &aCell[n];
    if( hbKvNext(pBlock, &kv) <= 0 ){
      csStatusSet(pSt, CS_INTERNAL, "an answer of HBase's could not be read");
      return -1;
    }
    if( i == 0 ) p->row.key = kv.row;
    pC->zFamily = familyOf(p, kv.family);
    if( pC->zFamily == 0 ){
      csStatusSet(pSt, CS_INTERNAL, "out of memory");
      return -1;
    }
    pC->qual = kv.qual;
    if( hbQualIsMarker((const char*)kv.family.a, kv.family.n, kv.qual.a,
                       kv.qual.n) ){
      pC->qual.n = 0;
    }
    pC->value = kv.value;
    pC->iMicros = kv.iMillis * 1000;
    n++;
  }
  p->row.nCell = n;
  p->row.aCell = aCell;
  if( p->nLeft > 0 ) p->nLeft--;
  return 1;
}

/* Ends the read with call failure code (*pSt): -1. */
static int readFailed(HbScan *p, int code, CsStatus *pSt){
  hbRpcFree(p->pRenew);
  p->pRenew = 0;
  hbCallFailed(p->p, p->pRead->zTable, code, &p->wait, pSt);
  p->bDone = 1;
  return -1;
}

/*
** Ranges.
*/

/* The rows a call asks for. */
static uint32_t pageRows(const HbScan *p){
  int64_t n = HB_PAGE;
  if( p->nLeft > 0 && p->nLeft < n ) n = p->nLeft;
  return (uint32_t)n;
}

/* True if range pR is one key. */
static int oneKey(const HbRange *pR){
  return pR->bLo && pR->bHi && !pR->bLoOpen && !pR->bHiOpen
      && cmpBytes(pR->lo, pR->hi) == 0;
}

/* The end of the group of ranges that starts at iRange: those of an
** ascending read that begin before the end of region pRegion (the first
** holds where the read resumes). */
static int groupEnd(const HbScan *p, const HbRegion *pRegion){
  int i = p->iRange + 1;
  if( p->pRead->bReversed ) return i;
  while( i < p->nRange
      && (pRegion->end.n == 0 || !p->aRange[i].bLo
          || cmpBytes(p->aRange[i].lo, pRegion->end) < 0) ){
    i++;
  }
  return i;
}

/* The filter of a scanner reading ranges iRange..iGroupEnd-1 (more than
** one): HBase's MultiRowRangeFilter of them, beside the read's own filter
** if it has one (keys alone), in arena pA; NULL on OOM. */
static Hbw__Filter *groupFilter(HbScan *p, WcArena *pA){
  Hbw__MultiRowRangeFilter multi = HBW__MULTI_ROW_RANGE_FILTER__INIT;
  Hbw__FilterList list = HBW__FILTER_LIST__INIT;
  Hbw__Filter *apF[2];
  int n = p->iGroupEnd - p->iRange, i;
  wcAssert( n > 1 && !p->pRead->bReversed );
  multi.row_range_list = wcArenaAlloc(pA, sizeof(Hbw__RowRange*) * (size_t)n);
  if( multi.row_range_list == 0 ) return 0;
  for(i = 0; i < n; i++){
    const HbRange *pR = &p->aRange[p->iRange + i];
    Hbw__RowRange *pRR = wcArenaAlloc(pA, sizeof(*pRR));
    if( pRR == 0 ) return 0;
    hbw__row_range__init(pRR);
    /* An empty start or stop row is HBase's "unbounded". */
    pRR->has_start_row = pRR->has_start_row_inclusive = 1;
    pRR->start_row.data = (uint8_t*)pR->lo.a;
    pRR->start_row.len = pR->bLo ? pR->lo.n : 0;
    pRR->start_row_inclusive = !pR->bLo || !pR->bLoOpen;
    pRR->has_stop_row = pRR->has_stop_row_inclusive = 1;
    pRR->stop_row.data = (uint8_t*)pR->hi.a;
    pRR->stop_row.len = pR->bHi ? pR->hi.n : 0;
    pRR->stop_row_inclusive = pR->bHi && !pR->bHiOpen;
    multi.row_range_list[multi.n_row_range_list++] = pRR;
  }
  apF[0] = filterOf(pA, "org.apache.hadoop.hbase.filter.MultiRowRangeFilter",
                    &multi.base);
  if( apF[0] == 0 || p->pFilter == 0 ) return apF[0];
  apF[1] = p->pFilter;
  list.operator_ = HBW__FILTER_LIST__OPERATOR__MUST_PASS_ALL;
  list.n_filters = 2;
  list.filters = apF;
  return filterOf(pA, "org.apache.hadoop.hbase.filter.FilterList",
                  &list.base);
}

/* True if the scanner open reads one key. */
static int scanOneKey(const HbScan *p){
  return p->iGroupEnd == p->iRange + 1 && oneKey(&p->aRange[p->iRange]);
}

/* Range pR's bound a scan in the read's direction meets first (bStart)
** or last: true with its key and whether the key itself is excluded,
** false where that side is unbounded. */
static int scanBound(const HbRange *pR, int bReversed, int bStart,
                     CsBytes *pKey, int *pbOpen){
  int bHiSide = bReversed ? bStart : !bStart;
  if( bHiSide ? !pR->bHi : !pR->bLo ) return 0;
  *pKey = bHiSide ? pR->hi : pR->lo;
  *pbOpen = bHiSide ? pR->bHiOpen : pR->bLoOpen;
  return 1;
}

/* Opens a scanner for range iRange where it resumes, on the region that
** holds that key, reading every range of the group there begins: the call
** sent (p->pRpc), or a code with *pSt. */
static int openScanner(HbScan *p, CsStatus *pSt){
  const CsRead *pRead = p->pRead;
  const HbRange *pR = &p->aRange[p->iRange];
  const HbRange *pLast;
  Hbw__ScanRequest req = HBW__SCAN_REQUEST__INIT;
  Hbw__Scan scan = HBW__SCAN__INIT;
  Hbw__RegionSpecifier spec = HBW__REGION_SPECIFIER__INIT;
  CsBytes from = {0, 0}, to = {0, 0};
  int bFrom = 0, bFromOpen = 0, bTo = 0, bToOpen = 0, bBefore, code;
  WcArena group = {0, 0};
  HbChan *pChan;
  if( p->bResume ){
    from.a = p->resume.a;
    from.n = (size_t)p->resume.n;
    bFrom = 1;
    bFromOpen = p->bResumeOpen;
  }else{
    bFrom = scanBound(pR, pRead->bReversed, 1, &from, &bFromOpen);
  }
  /* A reversed scan from an excluded key starts in the region below it. */
  bBefore = pRead->bReversed && (!bFrom || bFromOpen);
  hbRegionFree(&p->region);
  code = hbLocate(p->p, pRead->zTable, from, bBefore, &p->wait, &p->region,
                  pSt);
  if( code != CS_OK ) return code;
  p->iGroupEnd = groupEnd(p, &p->region);
  pLast = &p->aRange[p->iGroupEnd - 1];
  bTo = scanBound(pLast, pRead->bReversed, 0, &to, &bToOpen);
  hbRegionSpec(&spec, &p->region);
  scan.n_column = p->nCol;
  scan.column = p->apCol;
  scan.filter = p->pFilter;
  if( p->iGroupEnd > p->iRange + 1
   && (scan.filter = groupFilter(p, &group)) == 0 ){
    wcArenaFree(&group);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  scan.has_max_versions = 1;
  scan.max_versions = pRead->bLatest ? 1 : HB_ALL_VERSIONS;
  scan.has_max_result_size = 1;
  scan.max_result_size = HB_MAX_RESULT_SIZE;
  if( bFrom ){
    scan.has_start_row = 1;
    scan.start_row.data = (uint8_t*)from.a;
    scan.start_row.len = from.n;
    scan.has_include_start_row = 1;
    scan.include_start_row = !bFromOpen;
  }
  if( bTo ){
    scan.has_stop_row = 1;
    scan.stop_row.data = (uint8_t*)to.a;
    scan.stop_row.len = to.n;
    scan.has_include_stop_row = 1;
    scan.include_stop_row = !bToOpen;
  }
  scan.has_reversed = 1;
  scan.reversed = pRead->bReversed != 0;
  scan.has_caching = 1;
  scan.caching = pageRows(p);
  req.region = &spec;
  req.scan = &scan;
  req.has_number_of_rows = 1;
  req.number_of_rows = scanOneKey(p) ? 1 : pageRows(p);
  req.has_client_handles_partials = 1;
  req.client_handles_partials = 0;
  req.has_client_handles_heartbeats = 1;
  req.client_handles_heartbeats = 0;
  /* A call that takes all the read wants closes its scanner too. */
  p->bAskedClose = scanOneKey(p) || (p->nLeft > 0 && p->nLeft <= HB_PAGE);
  req.has_close_scanner = 1;
  req.close_scanner = p->bAskedClose;
  pChan = hbChan(p->region.pServer, HB_SVC_CLIENT);
  p->pRpc = pChan ? hbRpcSend(pChan, "Scan", &req.base, &p->wait) : 0;
  wcArenaFree(&group);
  p->iSeq = 0;
  if( p->pRpc == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return CS_OK;
}

/* Waits for a renewal of the scanner's lease in flight, whatever it
** answers (a lease already lost shows in the next call, which the read
** then makes again on a new scanner): HBase refuses a scanner's call
** while a renewal holds its lease. */
static void renewDone(HbScan *p){
  if( p->pRenew ){
    ProtobufCMessage *pResp = 0;
    CsStatus st = {0, 0};
    hbRpcWait(p->pRenew, &hbw__scan_response__descriptor, &pResp, &st);
    csStatusClear(&st);
    hbRpcFree(p->pRenew);
    p->pRenew = 0;
  }
}

/* A call to the open scanner that reads no rows: its close (bClose), or
** a renewal of its lease, without a call sequence number (which HBase
** would count as a page's).  NULL on OOM. */
static HbRpc *emptyCall(HbScan *p, int bClose){
  Hbw__ScanRequest req = HBW__SCAN_REQUEST__INIT;
  HbChan *pChan = hbChan(p->region.pServer, HB_SVC_CLIENT);
  req.has_scanner_id = 1;
  req.scanner_id = p->iScanner;
  req.has_number_of_rows = 1;
  req.number_of_rows = 0;
  if( bClose ){
    req.has_close_scanner = 1;
    req.close_scanner = 1;
  }else{
    req.has_renew = 1;
    req.renew = 1;
  }
  return pChan ? hbRpcSend(pChan, "Scan", &req.base, &p->wait) : 0;
}

/* Renews the open scanner's lease once HB_RENEW_MS have passed since its
** last call, as its rows are given slowly (each row a statement's long
** work). */
static void renewLease(HbScan *p){
  int64_t iNow;
  if( !p->bOpen ) return;
  iNow = wcMonotonicMs();
  if( iNow - p->iCalledMs < HB_RENEW_MS ) return;
  renewDone(p);
  p->pRenew = emptyCall(p, 0);
  p->iCalledMs = iNow;
}

/* Asks the open scanner for its next page (p->pRpc). */
static int nextPage(HbScan *p, CsStatus *pSt){
  Hbw__ScanRequest req = HBW__SCAN_REQUEST__INIT;
  HbChan *pChan = hbChan(p->region.pServer, HB_SVC_CLIENT);
  renewDone(p);
  req.has_scanner_id = 1;
  req.scanner_id = p->iScanner;
  req.has_number_of_rows = 1;
  req.number_of_rows = pageRows(p);
  req.has_next_call_seq = 1;
  req.next_call_seq = p->iSeq++;
  p->bAskedClose = p->nLeft > 0 && p->nLeft <= HB_PAGE;
  req.has_close_scanner = 1;
  req.close_scanner = p->bAskedClose;
  p->pRpc = pChan ? hbRpcSend(pChan, "Scan", &req.base, &p->wait) : 0;
  if( p->pRpc == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return CS_OK;
}

/* Closes the scanner open, without waiting for the answer. */
static void closeScanner(HbScan *p){
  renewDone(p);
  if( p->bOpen ){
    hbRpcFree(emptyCall(p, 1));
    p->bOpen = 0;
  }
}

/* True if range pR goes on past the end of region pRegion, in the order
** read. */
static int rangeGoesOn(const HbScan *p, const HbRange *pR,
                       const HbRegion *pRegion){
  if( !p->pRead->bReversed ){
    int c;
    if( pRegion->end.n == 0 ) return 0;
    if( !pR->bHi ) return 1;
    c = cmpBytes(pR->hi, pRegion->end);
    return c > 0 || (c == 0 && !pR->bHiOpen);
  }else{
    if( pRegion->start.n == 0 ) return 0;
    return !pR->bLo || cmpBytes(pR->lo, pRegion->start) < 0;
  }
}

/* Waits for the page asked for and takes it: CS_OK, or a code with
** *pSt. */
static int takePage(HbScan *p, CsStatus *pSt){
  const Hbw__ScanResponse *pResp;
  int code = hbRpcWait(p->pRpc, &hbw__scan_response__descriptor,
                       (ProtobufCMessage**)&p->pResp, pSt);
  if( code != CS_OK ){
    p->bOpen = 0;
    return code;
  }
  pResp = p->pResp;
  if( pResp->n_results > 0 ){
    /* Cells as protobuf messages: only a server without our codec. */
    csStatusSet(pSt, CS_INTERNAL, "HBase answered without a block of "
                "cells (KeyValueCodec)");
    return CS_INTERNAL;
  }
  if( pResp->has_scanner_id ) p->iScanner = pResp->scanner_id;
  p->iCalledMs = wcMonotonicMs();
  p->cells = hbRpcCells(p->pRpc);
  p->iResult = 0;
  p->bScanDone = pResp->has_more_results && !pResp->more_results;
  p->bRegionDone = pResp->has_more_results_in_region
                && !pResp->more_results_in_region;
  p->bOpen = !(p->bAskedClose || p->bScanDone || p->bRegionDone);
  return CS_OK;
}

/* Done with a page after which the scanner is closed: where the group's
** last range goes on (the next region, or after the last row given, when
** the scanner was closed with more to read), or the next range. */
static void pageDone(HbScan *p){
  const HbRange *pLast = &p->aRange[p->iGroupEnd - 1];
  wcAssert( p->iGroupEnd > p->iRange && p->iGroupEnd <= p->nRange );
  if( scanOneKey(p) || p->bScanDone ){
    p->iRange = p->iGroupEnd;
    p->bResume = 0;
  }else if( p->bRegionDone ){
    if( rangeGoesOn(p, pLast, &p->region) ){
      CsBytes at = p->pRead->bReversed ? p->region.start : p->region.end;
      p->iRange = p->iGroupEnd - 1;
      p->resume.n = 0;
      wcBufAppend(&p->resume, at.a, (int64_t)at.n);
      p->bResume = 1;
      p->bResumeOpen = p->pRead->bReversed;
    }else{
      p->iRange = p->iGroupEnd;
      p->bResume = 0;
    }
  }
  hbRpcFree(p->pRpc);
  p->pRpc = 0;
  p->pResp = 0;
}

/* The next row of range pages (1), the end (0), or -1. */
static int rangeNext(HbScan *p, const CsRow **ppRow, CsStatus *pSt){
  for(;;){
    int code;
    if( p->pResp ){
      if( p->iResult < p->pResp->n_cells_per_result && p->nLeft != 0 ){
        int nCell = (int)p->pResp->cells_per_result[p->iResult++];
        int r;
        if( nCell == 0 ) continue;
        r = rowOf(p, &p->cells, nCell, pSt);
        if( r < 0 ) return r;
        /* Should the read go on elsewhere, it resumes after this row. */
        p->resume.n = 0;
        wcBufAppend(&p->resume, p->row.key.a, (int64_t)p->row.key.n);
        p->bResume = 1;
        p->bResumeOpen = 1;
        if( p->resume.bOom ){
          csStatusSet(pSt, CS_INTERNAL, "out of memory");
          return -1;
        }
        renewLease(p);
        *ppRow = &p->row;
        return 1;
      }
      if( p->nLeft == 0 ){
        closeScanner(p);
        return 0;
      }
      if( !p->bOpen ){
        pageDone(p);
        continue;
      }
      hbRpcFree(p->pRpc);
      p->pRpc = 0;
      p->pResp = 0;
      code = nextPage(p, pSt);
    }else{
      if( p->nLeft == 0 || p->iRange >= p->nRange ) return 0;
      code = openScanner(p, pSt);
    }
    if( code == CS_OK ) code = takePage(p, pSt);
    if( code != CS_OK ) return readFailed(p, code, pSt);
  }
}

/*
** Keys alone.
*/

static void keysFree(HbKeysPage *pK){
  int i;
  for(i = 0; i < pK->nRpc; i++) hbRpcFree(pK->apRpc[i]);
  sqlite3_free(pK->apRpc);
  sqlite3_free(pK->aCells);
  sqlite3_free(pK->anCell);
  memset(pK, 0, sizeof(*pK));
}

/* The key of position i of the page starting at iFirst, in read order. */
static CsBytes keyAt(const HbScan *p, int i){
  const CsRead *pRead = p->pRead;
  return pRead->aKey[pRead->bReversed ? pRead->nKey - 1 - i : i];
}

/* Sends server pServer's Multi of gets: each key j of the page whose
** region aiReg[j] (of regions aReg) it serves, a region action per
** region; those keys' aiReg[] set to -1 (asked). */
static int keysMulti(HbScan *p, HbServer *pServer, const HbRegion *aReg,
                     int *aiReg, int n, CsStatus *pSt){
  Hbw__MultiRequest req = HBW__MULTI_REQUEST__INIT;
  Hbw__Get tmpl = HBW__GET__INIT;
  WcArena a = {0, 0};
  int *aiRA = wcArenaAlloc(&a, sizeof(int) * (size_t)n);    /* regions */
  HbChan *pChan;
  HbRpc *pRpc;
  int j;
  tmpl.n_column = p->nCol;
  tmpl.column = p->apCol;
  tmpl.filter = p->pFilter;
  tmpl.has_max_versions = 1;
  tmpl.max_versions = p->pRead->bLatest ? 1 : HB_ALL_VERSIONS;
  req.region_action = wcArenaAlloc(&a, sizeof(void*) * (size_t)n);
  for(j = 0; j < n && req.region_action && aiRA; j++){
    Hbw__RegionAction *pRA = 0;
    Hbw__Action *pAct;
    Hbw__Get *pGet;
    CsBytes key = keyAt(p, p->iKey + j);
    size_t k;
    if( aiReg[j] < 0 || aReg[aiReg[j]].pServer != pServer ) continue;
    for(k = 0; k < req.n_region_action && aiRA[k] != aiReg[j]; k++){}
    if( k < req.n_region_action ){
      pRA = req.region_action[k];
    }else{
      Hbw__RegionSpecifier *pSpec = wcArenaAlloc(&a, sizeof(*pSpec));
      pRA = wcArenaAlloc(&a, sizeof(*pRA));
      if( pRA == 0 || pSpec == 0 ) break;
      hbw__region_action__init(pRA);
      hbw__region_specifier__init(pSpec);
      hbRegionSpec(pSpec, &aReg[aiReg[j]]);
      pRA->region = pSpec;
      pRA->action = wcArenaAlloc(&a, sizeof(void*) * (size_t)n);
      if( pRA->action == 0 ) break;
      aiRA[req.n_region_action] = aiReg[j];
      req.region_action[req.n_region_action++] = pRA;
    }
    pAct = wcArenaAlloc(&a, sizeof(*pAct));
    pGet = wcArenaAlloc(&a, sizeof(*pGet));
    if( pAct == 0 || pGet == 0 ) break;
    hbw__action__init(pAct);
    *pGet = tmpl;
    pGet->row.data = (uint8_t*)key.a;
    pGet->row.len = key.n;
    pAct->has_index = 1;
    pAct->index = (uint32_t)j;
    pAct->get = pGet;
    pRA->action[pRA->n_action++] = pAct;
    aiReg[j] = -1;
  }
  pChan = a.bOom ? 0 : hbChan(pServer, HB_SVC_CLIENT);
  pRpc = pChan ? hbRpcSend(pChan, "Multi", &req.base, &p->wait) : 0;
  wcArenaFree(&a);
  if( pRpc == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  p->keys.apRpc[p->keys.nRpc++] = pRpc;
  return CS_OK;
}

/* Sends the Multi gets of the next page of keys, one call per server, all
** before any answer is waited for. */
static int keysSend(HbScan *p, CsStatus *pSt){
  const CsRead *pRead = p->pRead;
  HbKeysPage *pK = &p->keys;
  const HbRegion *aReg = 0;
  int n = pRead->nKey - p->iKey, nReg = 0, i, code;
  int *aiReg;
  if( n > HB_PAGE ) n = HB_PAGE;
  if( p->nLeft > 0 && p->nLeft < n ) n = (int)p->nLeft;
  keysFree(pK);
  pK->nKey = n;
  pK->aCells = sqlite3_malloc64(sizeof(CsBytes) * (size_t)n);
  pK->anCell = sqlite3_malloc64(sizeof(int) * (size_t)n);
  pK->apRpc = sqlite3_malloc64(sizeof(HbRpc*) * (size_t)n);
  aiReg = sqlite3_malloc64(sizeof(int) * (size_t)n);
  if( pK->aCells == 0 || pK->anCell == 0 || pK->apRpc == 0 || aiReg == 0 ){
    sqlite3_free(aiReg);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  memset(pK->anCell, 0, sizeof(int) * (size_t)n);
  /* The regions are the cache's: nothing forgets them until the calls are
  ** sent. */
  code = hbRegions(p->p, pRead->zTable, &p->wait, &aReg, &nReg, pSt);
  for(i = 0; i < n && code == CS_OK; i++){
    aiReg[i] = hbRegionOf(aReg, nReg, keyAt(p, p->iKey + i), 0);
    if( aiReg[i] < 0 ) code = hbNoRegion(p->p, pRead->zTable, pSt);
  }
  for(i = 0; i < n && code == CS_OK; i++){
    if( aiReg[i] >= 0 ){
      code = keysMulti(p, aReg[aiReg[i]].pServer, aReg, aiReg, n, pSt);
    }
  }
  sqlite3_free(aiReg);
  return code;
}

/* The failure of exception pEx in a Multi's answer. */
static int keysException(const Hbw__NameBytesPair *pEx, CsStatus *pSt){
  int code = hbExceptionCode(pEx->name);
  char *zWhy = hbExceptionWhy(pEx);
  csStatusSet(pSt, code, "%s", zWhy ? zWhy : "out of memory");
  sqlite3_free(zWhy);
  return code;
}

/* Waits for the page's answers: each key's cells (pK->aCells,
** pK->anCell). */
static int keysTake(HbScan *p, CsStatus *pSt){
  HbKeysPage *pK = &p->keys;
  int i;
  for(i = 0; i < pK->nRpc; i++){
    Hbw__MultiResponse *pResp = 0;
    CsBytes block;
    size_t r, k;
    int code = hbRpcWait(pK->apRpc[i], &hbw__multi_response__descriptor,
                         (ProtobufCMessage**)&pResp, pSt);
    if( code != CS_OK ) return code;
    block = hbRpcCells(pK->apRpc[i]);
    for(r = 0; r < pResp->n_region_action_result; r++){
      const Hbw__RegionActionResult *pRes = pResp->region_action_result[r];
      if( pRes->exception ) return keysException(pRes->exception, pSt);
      for(k = 0; k < pRes->n_result_or_exception; k++){
        const Hbw__ResultOrException *pOne = pRes->result_or_exception[k];
        int nCell = pOne->result ? pOne->result->associated_cell_count : 0;
        int c;
        if( pOne->exception ) return keysException(pOne->exception, pSt);
        if( pOne->index >= (uint32_t)pK->nKey ){
          csStatusSet(pSt, CS_INTERNAL, "an answer of HBase's could not be "
                      "read");
          return CS_INTERNAL;
        }
        pK->aCells[pOne->index] = block;
        pK->anCell[pOne->index] = nCell;
        for(c = 0; c < nCell; c++){
          HbKv kv;
          if( hbKvNext(&block, &kv) <= 0 ){
            csStatusSet(pSt, CS_INTERNAL, "an answer of HBase's could not "
                        "be read");
            return CS_INTERNAL;
          }
        }
      }
    }
  }
  return CS_OK;
}

static int keysNext(HbScan *p, const CsRow **ppRow, CsStatus *pSt){
  HbKeysPage *pK = &p->keys;
  for(;;){
    int code;
    while( pK->iNext < pK->nKey && p->nLeft != 0 ){
      int i = pK->iNext++;
      int r;
      if( pK->anCell[i] == 0 ) continue;
      r = rowOf(p, &pK->aCells[i], pK->anCell[i], pSt);
      if( r > 0 ) *ppRow = &p->row;
      return r;
    }
    if( p->nLeft == 0 || p->iKey >= p->pRead->nKey ) return 0;
    code = keysSend(p, pSt);
    if( code == CS_OK ) code = keysTake(p, pSt);
    if( code != CS_OK ) return readFailed(p, code, pSt);
    p->iKey += pK->nKey;
  }
}

int hbnReadNext(CsReader *pReader, const CsRow **ppRow, CsStatus *pSt){
  HbScan *p = (HbScan*)pReader;
  *ppRow = 0;
  if( p == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  if( p->bDone ) return 0;
  return p->aRange ? rangeNext(p, ppRow, pSt) : keysNext(p, ppRow, pSt);
}

void hbnReadClose(CsReader *pReader){
  HbScan *p = (HbScan*)pReader;
  int i;
  if( p == 0 ) return;
  closeScanner(p);
  hbRpcFree(p->pRpc);
  wcAssert( p->pRenew == 0 );
  keysFree(&p->keys);
  hbRegionFree(&p->region);
  wcArenaFree(&p->arena);
  sqlite3_free(p->aRange);
  wcBufFree(&p->resume);
  wcBufFree(&p->aCell);
  for(i = 0; i < p->nFam; i++) sqlite3_free(p->azFam[i]);
  sqlite3_free(p->azFam);
  sqlite3_free(p);
}
