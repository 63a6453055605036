/*
** cq_read.c: reading the rows of a range of row keys.  A row by its key
** is WHERE p = ? AND c = ? ..., the key decoded (key/wc_decode.h); a
** range whose ends are in one partition is that partition's slice (WHERE
** p = ?, the first clustering column bounded where the lower end says);
** any other range walks token ranges (WHERE token(p) >= ? AND token(p) <=
** ?), in token order, Cassandra's order, which the row key's leading
** TOKEN makes widecol's too.  Each row read has its row key made again
** (key/wc_codec.h) and is kept only inside the range asked for: what CQL
** reads past the ends (a bound that is not exact, a token's other
** partitions) is dropped.  The first page of a token range is small (a
** probe of the planner reads a row or two), of a partition's slice larger
** (CQ_SLICE_PAGE), of a read with a LIMIT the LIMIT; each next one four
** times larger, up to CQ_PAGE rows (CQ_READS), and asked for while SQLite
** reads the one before.
**
** Descending key order: a partition's slice is read reversed (ORDER BY
** each clustering column against its order); token ranges can only be
** read forward, so a descending read across partitions holds its pages
** whole and walks them back, as SQLite's sorter would have held them.
**
** A read of one key remembers what it found (CqTable.seen*): the write of
** that key that follows is conditional on it (cq_write.c).  Given _stamp
** = ?, the key is not read at all: widecol read the row just before.  An
** INDEX's entries are checked against their rows (checkEntries()).
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

#include "key/rk_bytes.h"
#include "key/wc_decode.h"
#include "util/wc_stamp.h"

#include <stdlib.h>
#include <string.h>

typedef struct CqCursor CqCursor;
struct CqCursor {
  sqlite3_vtab_cursor base;
  char *zCql;           /* The query, prepared on the connection */
  WcBuf args;           /* Its values' bytes */
  int anArg[CQ_MAX_ARGS];   /* their lengths */
  int nArg;
  CqResult res;         /* The page read */
  CqResult *pRes;       /* The page the rows are walked in: res, or one
                        ** of aHeld */
  int bDesc;            /* Rows go in descending key order, */
  int bHeld;            /* walked back through pages held whole: */
  CqResult *aHeld;      /* nHeld pages, in key order */
  int nHeld, iHeld;
  int64_t nLimit;       /* Rows SQLite takes at most (its LIMIT), or -1 */
  int64_t nGiven;       /* Rows shown */
  WcBuf paging;         /* The next page's paging state */
  int bMore;            /* There is a next page */
  int nPage;            /* Rows asked for in the page read */
  int nFirstPage;       /* Rows the first page asks for */
  int iPrefetch;        /* The stream asking for the next page, or -1 */
  int nPrefetchPage;    /* Its rows asked for */
  CqLink link;          /* The node of the page read, where the next one
                        ** is asked for ahead */
  int64_t iRow;         /* The row of res shown */
  int bEof;
  WcBuf lo, hi;         /* The range's ends (bLo, bHi: given) */
  int bLo, bHi, bLoOpen, bHiOpen;
  WcBuf key;            /* The row key of the row shown */
  WcBuf part;           /* Its partition key's cells (4-byte length, bytes) */
  int64_t nPartKey;     /* The bytes of key they make (0: none yet) */
  WcValue *aVal;        /* Its columns' values, for the codec */
  /* The CQL columns the read selects: the key's and those the statement
  ** uses; aiSel[k] is the design's column of the k-th, aiSelPos[c] the
  ** place of design column c (-1: not read, NULL). */
  char *zSelect;
  int nSel;
  int *aiSel, *aiSelPos;
  WcBuf given;          /* A row taken to be there: its _stamp (and an
                        ** entry's rowkey after it) */
  /* A read of tokens, iSpanLo..iSpanHi, in parts each sent to a replica
  ** of its ranges: the part being read is iPartLo..iPartHi, the last two
  ** values of the query (at args.a[iTokenArg]). */
  int bSpan;
  int64_t iSpanHi, iPartLo, iPartHi;
  int64_t iTokenArg;
};

int cqOpenCursor(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  CqTable *p = (CqTable*)pVtab;
  CqCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->iPrefetch = -1;
  pCur->aVal = sqlite3_malloc64(sizeof(WcValue) * CQ_NCOL(p->pS));
  pCur->aiSel = sqlite3_malloc64(sizeof(int) * CQ_NCOL(p->pS) * 2);
  if( pCur->aVal == 0 || pCur->aiSel == 0 ){
    sqlite3_free(pCur->aVal);
    sqlite3_free(pCur->aiSel);
    sqlite3_free(pCur);
    return SQLITE_NOMEM;
  }
  pCur->aiSelPos = &pCur->aiSel[CQ_NCOL(p->pS)];
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static void dropPrefetch(CqCursor *pCur);
static void spanPart(CqCursor *pCur, int64_t iFrom);

static void heldFree(CqCursor *pCur){
  int i;
  for(i = 0; i < pCur->nHeld; i++) cqResultClear(&pCur->aHeld[i]);
  sqlite3_free(pCur->aHeld);
  pCur->aHeld = 0;
  pCur->nHeld = pCur->iHeld = 0;
}

static void cursorReset(CqCursor *pCur){
  dropPrefetch(pCur);
  heldFree(pCur);
  pCur->pRes = &pCur->res;
  pCur->bDesc = pCur->bHeld = 0;
  pCur->nLimit = -1;
  pCur->nGiven = 0;
  sqlite3_free(pCur->zCql);
  pCur->zCql = 0;
  sqlite3_free(pCur->zSelect);
  pCur->zSelect = 0;
  cqResultClear(&pCur->res);
  wcBufClear(&pCur->args);
  wcBufClear(&pCur->paging);
  wcBufClear(&pCur->lo);
  wcBufClear(&pCur->hi);
  pCur->nArg = 0;
  pCur->bMore = pCur->bLo = pCur->bHi = pCur->bLoOpen = pCur->bHiOpen = 0;
  pCur->bSpan = 0;
  pCur->iRow = 0;
  pCur->nPartKey = 0;
  pCur->bEof = 1;
}

int cqCloseCursor(sqlite3_vtab_cursor *pCursor){
  CqCursor *pCur = (CqCursor*)pCursor;
  cursorReset(pCur);
  wcBufFree(&pCur->args);
  wcBufFree(&pCur->paging);
  wcBufFree(&pCur->lo);
  wcBufFree(&pCur->hi);
  wcBufFree(&pCur->key);
  wcBufFree(&pCur->part);
  wcBufFree(&pCur->given);
  sqlite3_free(pCur->aVal);
  sqlite3_free(pCur->aiSel);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Adds a value of column iCol, decoded from a key, to the query's. */
static void addKeyArg(CqCursor *pCur, CqTable *p, int iCol, const WcValue *pV){
  /* A query binds a key's columns and two bounds at most. */
  wcAssert( pCur->nArg < CQ_MAX_ARGS );
  if( pCur->nArg < (int)(sizeof(pCur->anArg) / sizeof(pCur->anArg[0])) ){
    cqPutKeyValue(p, iCol, pV, &pCur->args, &pCur->anArg[pCur->nArg++]);
  }
}

/* The cursor's query's values, as the wire takes them. */
static void queryValues(CqCursor *pCur, CqValue *aVal){
  int64_t iOff = 0;
  int i;
  wcAssert( pCur->nArg >= 0 && pCur->nArg <= CQ_MAX_ARGS );
  for(i = 0; i < pCur->nArg; i++){
    aVal[i].a = pCur->args.a + iOff;
    aVal[i].n = pCur->anArg[i];
    if( pCur->anArg[i] > 0 ) iOff += pCur->anArg[i];
  }
  /* Every value's bytes are in args, one after another. */
  wcAssert( pCur->args.bOom || iOff == pCur->args.n );
}

/* The size of the page after one of nPage rows (0: the first, of
** nFirst rows). */
static int nextPageSize(int nPage, int nFirst){
  int nGrowth = CQ_READS->nPageGrowth;
  wcAssert( nPage >= 0 && nPage <= CQ_PAGE && nFirst > 0 );
  return nPage == 0 ? nFirst : nPage < CQ_PAGE / nGrowth ? nPage * nGrowth
                                                         : CQ_PAGE;
}

/* The size of the cursor's next page: nextPageSize(), but under a LIMIT
** no more rows than the LIMIT still wants once the rows of the page at
** hand, nHand of them not shown yet, are shown (a row outside the range,
** dropped, asks for another page then).  A count's LIMIT 10001 read
** 15,000 rows in pages of 5,000 without it. */
static int pageSize(const CqCursor *pCur, int nPage, int64_t nHand){
  int n = nextPageSize(nPage, pCur->nFirstPage);
  if( pCur->nLimit >= 0 ){
    int64_t nWant = pCur->nLimit - pCur->nGiven - nHand;
    if( nWant < n ) n = nWant > 0 ? (int)nWant : 1;
  }
  wcAssert( n >= 1 && n <= CQ_PAGE );
  return n;
}

/* Asks for the page after the one just read, so that Cassandra makes it
** while SQLite reads this one; fetchPage() takes it.  Where it cannot be
** sent, fetchPage() asks for it then. */
static void prefetch(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  CqConn *pConn = cqLinked(p, &pCur->link);
  CqValue aVal[CQ_MAX_ARGS];
  CqStmt *pStmt = 0;
  CqResult res;
  WcDeadline d = cqDeadline(p);
  int nPage = pageSize(pCur, pCur->nPage, pCur->res.nRow - pCur->iRow);
  /* One page asked for ahead at most. */
  wcAssert( pCur->iPrefetch < 0 );
  memset(&res, 0, sizeof(res));
  if( !pCur->bMore || pConn == 0
   || cqPrepare(pConn, pCur->zCql, &d, &pStmt, &res) != 0 ){
    cqResultClear(&res);
    return;
  }
  queryValues(pCur, aVal);
  if( cqSend(pConn, pStmt, aVal, pCur->nArg, p->pShared->eConsistency, nPage,
             pCur->paging.a, (int)pCur->paging.n, &d, &pCur->iPrefetch) == 0 ){
    pCur->nPrefetchPage = nPage;
    cqCountRequest(p, &pCur->link, pConn);
  }else{
    pCur->iPrefetch = -1;
  }
}

/* Takes the reply of a page asked for and no longer wanted. */
static void dropPrefetch(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  CqConn *pConn = pCur->iPrefetch >= 0 ? cqLinked(p, &pCur->link) : 0;
  if( pConn ){
    CqResult res;
    WcDeadline d = cqDeadline(p);
    int e = cqWait(pConn, pCur->iPrefetch, &d, &res);
    if( e != 0 && res.iError == 0 ){
      /* The connection failed: the next call opens another. */
      char *zKeep = p->base.zErrMsg;
      p->base.zErrMsg = 0;
      cqCallError(p, &pCur->link, e, &res, "a read");
      sqlite3_free(p->base.zErrMsg);
      p->base.zErrMsg = zKeep;
    }
    cqResultClear(&res);
  }
  pCur->iPrefetch = -1;
}

/*
** An index's entries, checked against their rows.  Each write puts its
** entries under its stamp before its row and deletes the old ones after
** it, so a write that failed or lost a race leaves entries its row does
** not name; an entry is its row's only where the row's _stamp holds the
** entry's stamp in the index's place (cq_store.h).  A page's entries are
** checked together: their rows' _stamp read in flight, CQ_CHECK_BATCH at
** a time (read again where the connection failed), and the entries of
** other writes dropped from the page.
*/
#define CQ_CHECK_BATCH 256

/* True if the row's _stamp a[0..n) names entry stamp aEntry[0..nEntry)
** as its entry of index iIndex. */
static int stampNames(const unsigned char *a, int n, int iIndex,
                      const unsigned char *aEntry, int nEntry){
  int64_t iOff = (int64_t)WC_STAMP_SIZE * (1 + iIndex);
  return a && nEntry == WC_STAMP_SIZE && n >= iOff + WC_STAMP_SIZE
      && memcmp(a + iOff, aEntry, WC_STAMP_SIZE) == 0;
}

/* Sends the read of the _stamp of the row of entry iRow of pRes, its
** stream in *piStream (-1: the entry has no row the design can have). */
static int sendRowRead(CqCursor *pCur, const CqResult *pRes, int64_t iRow,
                       CqLink *pLink, int *piStream){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  CqValue aArg[CQ_MAX_ARGS];
  int an[CQ_MAX_ARGS], n, i, rc = SQLITE_OK;
  const unsigned char *a = cqCell(pRes, iRow,
                                  pCur->aiSelPos[CQ_ROWKEY(p->pS)], &n);
  WcBuf dec, args;
  *piStream = -1;
  memset(&dec, 0, sizeof(dec));
  memset(&args, 0, sizeof(args));
  wcAssert( p->nRowKey <= CQ_MAX_ARGS );
  if( a && wcDecodeKey(p->pS, p->pHasher, a, n, pCur->aVal, &dec, 0)
           == WC_OK ){
    int64_t iOff = 0;
    WcDeadline d = cqDeadline(p);
    int e;
    wcAssert( p->nRowKey > 0 );
    for(i = 0; i < p->nRowKey; i++){
      cqPutKeyValue(p, p->aiRowKey[i], &pCur->aVal[p->aiRowKey[i]], &args,
                    &an[i]);
    }
    for(i = 0; i < p->nRowKey && !args.bOom; i++){
      aArg[i].a = args.a + iOff;
      aArg[i].n = an[i];
      iOff += an[i] > 0 ? an[i] : 0;
    }
    CqConn *pConn = 0;
    CqStmt *pStmt = 0;
    /* Each on a replica of its row. */
    rc = args.bOom ? SQLITE_NOMEM : cqReady(p, p->zRowCql, aArg, p->nRowKey,
                                            pLink, &pConn, &pStmt);
    e = rc ? 0 : cqSend(pConn, pStmt, aArg, p->nRowKey,
                        p->pShared->eConsistency, 0, 0, 0, &d, piStream);
    if( e ){
      CqResult res;
      memset(&res, 0, sizeof(res));
      rc = cqCallError(p, pLink, e, &res, "a read of an entry's row");
      *piStream = -1;
    }else if( rc == SQLITE_OK ){
      cqCountRequest(p, pLink, pConn);
    }
  }
  wcBufFree(&dec);
  wcBufFree(&args);
  return rc;
}

/* Entries iFirst..iFirst+n of pRes checked: abKeep[k] for each. */
static int checkBatch(CqCursor *pCur, const CqResult *pRes, int64_t iFirst,
                      int n, unsigned char *abKeep){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  int aiStream[CQ_CHECK_BATCH], k, rc = SQLITE_OK;
  CqLink aLink[CQ_CHECK_BATCH];
  int iStampPos = pCur->aiSelPos[CQ_STAMP(p->pS)];
  wcAssert( n <= CQ_CHECK_BATCH );
  for(k = 0; k < n; k++){
    aiStream[k] = -1;
    if( rc == SQLITE_OK ){
      rc = sendRowRead(pCur, pRes, iFirst + k, &aLink[k], &aiStream[k]);
    }
  }
  for(k = 0; k < n; k++){
    CqResult res;
    WcDeadline d = cqDeadline(p);
    int e, nRow, nEntry;
    const unsigned char *aRow, *aEntry;
    CqConn *pConn = aiStream[k] >= 0 ? cqLinked(p, &aLink[k]) : 0;
    abKeep[k] = 0;
    /* A connection that failed took the answers with it. */
    if( pConn == 0 ){
      if( aiStream[k] >= 0 && rc == SQLITE_OK ){
        memset(&res, 0, sizeof(res));
        rc = cqCallError(p, &aLink[k], WC_SOCK_IO, &res,
                         "a read of an entry's row");
      }
      continue;
    }
    e = cqWait(pConn, aiStream[k], &d, &res);
    if( e ){
      if( rc == SQLITE_OK ){
        rc = cqCallError(p, &aLink[k], e, &res, "a read of an entry's row");
      }
    }else{
      cqCountReply(p, &aLink[k], &res);
      aRow = res.nRow > 0 ? cqCell(&res, 0, 0, &nRow) : 0;
      aEntry = cqCell(pRes, iFirst + k, iStampPos, &nEntry);
      abKeep[k] = aRow && stampNames(aRow, nRow, p->iIndex, aEntry, nEntry);
    }
    cqResultClear(&res);
  }
  return rc;
}

/* Drops from pRes the entries their rows do not name. */
static int checkEntries(CqCursor *pCur, CqResult *pRes){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  unsigned char abKeep[CQ_CHECK_BATCH];
  int64_t iRow, nKept = 0;
  int rc = SQLITE_OK;
  wcAssert( p->iIndex >= 0 && p->zRowCql != 0 );
  if( pRes->nRow == 0 ) return SQLITE_OK;
  for(iRow = 0; iRow < pRes->nRow && rc == SQLITE_OK; iRow += CQ_CHECK_BATCH){
    int n = pRes->nRow - iRow < CQ_CHECK_BATCH ? (int)(pRes->nRow - iRow)
                                               : CQ_CHECK_BATCH, k;
    int nAttempt = 1;
    do{
      rc = checkBatch(pCur, pRes, iRow, n, abKeep);
    }while( rc != SQLITE_OK && cqRetry(p, nAttempt++) );
    for(k = 0; k < n && rc == SQLITE_OK; k++){
      if( !abKeep[k] ) continue;
      if( nKept != iRow + k ){
        memmove(&pRes->aCell[nKept * pRes->nCol],
                &pRes->aCell[(iRow + k) * pRes->nCol],
                sizeof(int64_t) * (size_t)pRes->nCol);
      }
      nKept++;
    }
  }
  if( rc == SQLITE_OK ) pRes->nRow = nKept;
  return rc;
}

/* Reads the next page (or the first) of the cursor's query: the one
** prefetch() asked for, or asked for now. */
static int fetchPage(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  CqValue aVal[CQ_MAX_ARGS];
  int rc, bAnswered = 0;
  if( pCur->args.bOom || pCur->paging.bOom ) return SQLITE_NOMEM;
  cqResultClear(&pCur->res);
  rc = SQLITE_OK;
  if( pCur->iPrefetch >= 0 && cqLinked(p, &pCur->link) ){
    WcDeadline d = cqDeadline(p);
    int e = cqWait(cqLinked(p, &pCur->link), pCur->iPrefetch, &d, &pCur->res);
    pCur->nPage = pCur->nPrefetchPage;
    if( e == 0 ) cqCountReply(p, &pCur->link, &pCur->res);
    rc = e ? cqCallError(p, &pCur->link, e, &pCur->res, "a read") : SQLITE_OK;
    if( rc == SQLITE_OK || !p->pShared->bLost ) bAnswered = 1;
  }
  pCur->iPrefetch = -1;
  if( !bAnswered ){
    /* Not asked for ahead, or its connection failed: asked for now (a
    ** part of a read of tokens on a replica of its ranges). */
    const unsigned char *aPaging = pCur->paging.n > 0 ? pCur->paging.a : 0;
    cqResultClear(&pCur->res);
    pCur->nPage = pageSize(pCur, pCur->bMore ? pCur->nPage : 0, 0);
    queryValues(pCur, aVal);
    if( pCur->bSpan ){
      rc = cqRunReadAt(p, pCur->iPartHi, pCur->zCql, aVal, pCur->nArg,
                       pCur->nPage, aPaging, (int)pCur->paging.n, &pCur->res,
                       &pCur->link);
    }else{
      rc = cqRunRead(p, pCur->zCql, aVal, pCur->nArg, CQ_LEVEL_SET,
                     pCur->nPage, aPaging, (int)pCur->paging.n, "a read",
                     &pCur->res, &pCur->link);
    }
  }
  pCur->iRow = 0;
  pCur->bMore = 0;
  wcBufClear(&pCur->paging);
  if( rc != SQLITE_OK ) return rc;
  if( pCur->res.eKind != CQ_RESULT_ROWS ){
    return cqTableError(p, SQLITE_PROTOCOL, "Cassandra answered a read with no "
                      "rows (a result of kind %d)", pCur->res.eKind);
  }
  if( pCur->res.aPaging ){
    /* The paging state lives in the page it came with: a copy. */
    wcBufAppend(&pCur->paging, pCur->res.aPaging, pCur->res.nPaging);
    pCur->bMore = 1;
    if( pCur->paging.bOom ) return SQLITE_NOMEM;
    /* Under a LIMIT this page may be the last one wanted. */
    if( pCur->nLimit < 0 || pCur->nGiven + pCur->res.nRow < pCur->nLimit ){
      prefetch(pCur);
    }
  }else if( pCur->bSpan && pCur->iPartHi < pCur->iSpanHi ){
    /* This part read whole: the next one's first page is next. */
    spanPart(pCur, pCur->iPartHi + 1);
    pCur->bMore = 1;
  }
  return p->iIndex >= 0 ? checkEntries(pCur, &pCur->res) : SQLITE_OK;
}

/* A descending read across partitions: every page, held (the first is
** read), then the last row of the last page shown first. */
static int holdPages(CqCursor *pCur){
  int rc = SQLITE_OK;
  wcAssert( pCur->bDesc && pCur->nHeld == 0 );
  for(;;){
    if( (pCur->nHeld & (pCur->nHeld - 1)) == 0 ){
      CqResult *aNew = sqlite3_realloc64(pCur->aHeld, sizeof(CqResult)
                                   * (sqlite3_uint64)(pCur->nHeld * 2 + 1));
      if( aNew == 0 ) return SQLITE_NOMEM;
      pCur->aHeld = aNew;
    }
    pCur->aHeld[pCur->nHeld++] = pCur->res;
    memset(&pCur->res, 0, sizeof(pCur->res));
    if( !pCur->bMore ) break;
    rc = fetchPage(pCur);
    if( rc != SQLITE_OK ) return rc;
  }
  wcAssert( pCur->nHeld > 0 && pCur->iPrefetch < 0 );
  pCur->iHeld = pCur->nHeld - 1;
  pCur->pRes = &pCur->aHeld[pCur->iHeld];
  pCur->iRow = pCur->pRes->nRow - 1;
  return SQLITE_OK;
}

/* True if row pCur->iRow is in the partition of the row before it (its
** partition key's cells, kept in pCur->part, are the same); keeps them. */
static int samePartition(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  int64_t iOff = 0;
  int i, bSame = pCur->nPartKey > 0;
  wcAssert( pCur->iRow >= 0 && pCur->iRow < pCur->pRes->nRow );
  for(i = 0; i < p->nPart; i++){
    int n;
    const unsigned char *a = cqCell(pCur->pRes, pCur->iRow,
                                    pCur->aiSelPos[p->aiKey[i]], &n);
    if( n < 0 ) n = 0;
    if( bSame && (iOff + 4 + n > pCur->part.n
                  || memcmp(&pCur->part.a[iOff], &n, 4) != 0
                  || memcmp(&pCur->part.a[iOff + 4], a, (size_t)n) != 0) ){
      bSame = 0;
    }
    if( !bSame ){
      pCur->part.n = iOff;
      wcBufAppend(&pCur->part, &n, 4);
      wcBufAppend(&pCur->part, a, n);
    }
    iOff += 4 + n;
  }
  if( !bSame ) pCur->part.n = iOff;
  return bSame && !pCur->part.bOom;
}

/* Makes the key of row pCur->iRow (a row key; on an index's table, the
** index key followed by the entry's rowkey);
** SQLITE_OK, or an error for a row the design cannot hold (written by
** another client).  The rows of a partition share its token and fields:
** those bytes are made once (the token's hash is most of a key's cost on
** a scan). */
static int rowKey(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  const WcSchema *pKey = p->pKeyS;
  char *zErr = 0;
  int i, rc = WC_OK, iFirst;
  for(i = 0; i < pCur->nSel; i++){
    int n, iCol = pCur->aiSel[i];
    const unsigned char *a = cqCell(pCur->pRes, pCur->iRow, i, &n);
    if( cqCellValue(p->aType[iCol], a, n, &pCur->aVal[iCol]) ){
      return cqTableError(p, SQLITE_CORRUPT, "Cassandra's column %s holds a "
                        "value that is not a %s", cqColumnName(p, iCol),
                        cqColumnTypeName(p->aType[iCol]));
    }
  }
  iFirst = samePartition(pCur) ? 1 + p->nPart : 0;
  /* The partition's bytes, kept from the row before: the TOKEN and the
  ** partition key's fields. */
  wcAssert( iFirst == 0 || (pCur->nPartKey > 0 && pCur->nPartKey
                                                  <= pCur->key.n) );
  pCur->key.n = iFirst ? pCur->nPartKey : 0;
  if( iFirst == 0 ) pCur->nPartKey = 0;
  for(i = iFirst; i < pKey->nElem && rc == WC_OK; i++){
    rc = wcEncodeElement(pKey, p->pHasher, i, pCur->aVal, 0, &pCur->key, &zErr);
    wcAppendSeparator(pKey, i, &pCur->key);
    if( i == p->nPart && rc == WC_OK ) pCur->nPartKey = pCur->key.n;
  }
  if( rc == WC_OK && p->iIndex >= 0 ){
    const WcValue *pRow = &pCur->aVal[CQ_ROWKEY(p->pS)];
    wcBufAppend(&pCur->key, pRow->a, pRow->n);
  }
  if( rc == WC_NOMEM || pCur->key.bOom || pCur->part.bOom ){
    sqlite3_free(zErr);
    return SQLITE_NOMEM;
  }
  if( rc == WC_OK && pCur->key.n > WC_MAX_KEY_BYTES ){
    rc = WC_NOFIT;
    zErr = sqlite3_mprintf("its key would be %lld bytes, more than the %d "
                           "allowed", (long long)pCur->key.n, WC_MAX_KEY_BYTES);
  }
  if( rc != WC_OK ){
    pCur->nPartKey = 0;
    return cqTableError(p, SQLITE_CORRUPT, "a row in Cassandra has no key "
                      "of the design (written by another client?): %z", zErr);
  }
  return SQLITE_OK;
}

/* True if the walk is on a row of the pages at hand; in held pages, past
** the first row of one it goes on at the last row of the page before. */
static int rowThere(CqCursor *pCur){
  wcAssert( pCur->pRes == (pCur->bHeld ? &pCur->aHeld[pCur->iHeld]
                                       : &pCur->res) );
  if( !pCur->bHeld ) return pCur->iRow < pCur->res.nRow;
  while( pCur->iRow < 0 ){
    if( pCur->iHeld == 0 ) return 0;
    pCur->pRes = &pCur->aHeld[--pCur->iHeld];
    pCur->iRow = pCur->pRes->nRow - 1;
  }
  return 1;
}

/* Moves to the first row from the current one on, in the walk's order,
** that is in the range, reading pages as needed; past the range's far
** end, EOF. */
static int settle(CqCursor *pCur){
  /* The end rows are dropped before, and the one the walk ends at. */
  const WcBuf *pNear = pCur->bDesc ? &pCur->hi : &pCur->lo;
  const WcBuf *pFar = pCur->bDesc ? &pCur->lo : &pCur->hi;
  int bNear = pCur->bDesc ? pCur->bHi : pCur->bLo;
  int bFar = pCur->bDesc ? pCur->bLo : pCur->bHi;
  int bNearOpen = pCur->bDesc ? pCur->bHiOpen : pCur->bLoOpen;
  int bFarOpen = pCur->bDesc ? pCur->bLoOpen : pCur->bHiOpen;
  int iSign = pCur->bDesc ? -1 : 1;
  int rc;
  for(;;){
    if( !rowThere(pCur) ){
      if( pCur->bHeld || !pCur->bMore ){
        pCur->bEof = 1;
        return SQLITE_OK;
      }
      rc = fetchPage(pCur);
      if( rc != SQLITE_OK ) return rc;
      continue;
    }
    rc = rowKey(pCur);
    if( rc != SQLITE_OK ) return rc;
    if( bFar ){
      int c = iSign * wcBufCompare(&pCur->key, pFar);
      if( c > 0 || (c == 0 && bFarOpen) ){
        pCur->bEof = 1;
        return SQLITE_OK;
      }
    }
    if( bNear ){
      int c = iSign * wcBufCompare(&pCur->key, pNear);
      if( c < 0 || (c == 0 && bNearOpen) ){
        pCur->iRow += pCur->bHeld ? -1 : 1;
        continue;
      }
    }
    pCur->bEof = 0;
    wcAssert( pCur->iRow >= 0 && pCur->iRow < pCur->pRes->nRow );
    return SQLITE_OK;
  }
}

/* The token a key's leading TOKEN bytes give, the bytes missing taken as
** all zero (bHigh: all one). */
static int64_t tokenOf(const CqTable *p, const WcBuf *pKey, int bHigh){
  uint64_t v = 0;
  int i;
  if( p->pKeyS->eEncoding == WC_ENCODING_BINARY ){
    for(i = 0; i < 8; i++){
      unsigned c = i < pKey->n ? pKey->a[i] : (bHigh ? 0xFF : 0x00);
      v = (v << 8) | c;
    }
  }else{
    for(i = 0; i < 16; i++){
      int c = i < pKey->n ? pKey->a[i] : (bHigh ? 'f' : '0');
      int d = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10 : (bHigh ? 15 : 0);
      v = (v << 4) | (uint64_t)d;
    }
  }
  return (int64_t)(v ^ UINT64_C(0x8000000000000000));
}

/* True if every key from p[0..n) up to hi is in p's partition: hi starts
** with it, or is the first key after every key that does. */
static int withinPartition(const unsigned char *a, int64_t n, const WcBuf *pHi){
  int64_t i;
  if( pHi->n >= n && memcmp(pHi->a, a, (size_t)n) == 0 ) return 1;
  for(i = n - 1; i >= 0 && a[i] == 0xFF; i--){}
  if( i < 0 || pHi->n != i + 1 ) return 0;
  return memcmp(pHi->a, a, (size_t)i) == 0 && pHi->a[i] == a[i] + 1;
}

/* True if the first clustering column's value decoded into pCur->aVal
** bounds the range's end pEnd: every key at or above a lower end
** (bUpper 0), below an upper end, has that column at or past it in key
** order.  An end's bytes need not be a value's own (the end after a
** value, the last value's), so the value is encoded again and compared:
** the key of the elements up to it sorts at or below a lower end; an
** upper end is at or below the first key past every key that starts so. */
static int endBounded(CqCursor *pCur, const WcBuf *pEnd, int bUpper, int *pRc){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  WcBuf k;
  char *zErr = 0;
  int i, rc = WC_OK, bOk = 0;
  memset(&k, 0, sizeof(k));
  for(i = 0; i <= 1 + p->nPart && rc == WC_OK; i++){
    if( i > 0 ) wcAppendSeparator(p->pKeyS, i - 1, &k);
    rc = wcEncodeElement(p->pKeyS, p->pHasher, i, pCur->aVal, 0, &k, &zErr);
  }
  sqlite3_free(zErr);
  if( rc == WC_NOMEM || k.bOom ){
    *pRc = SQLITE_NOMEM;
  }else if( rc == WC_OK && !bUpper ){
    bOk = wcBufCompare(&k, pEnd) <= 0;
  }else if( rc == WC_OK ){
    unsigned char *aEnd = sqlite3_malloc64((sqlite3_uint64)k.n + 1);
    int64_t nEnd = aEnd ? rkPrefixEnd(k.a, k.n, aEnd) : 0;
    if( aEnd == 0 ){
      *pRc = SQLITE_NOMEM;
    }else if( nEnd < 0 ){
      bOk = 1;
    }else{
      WcBuf end;
      memset(&end, 0, sizeof(end));
      end.a = aEnd;
      end.n = nEnd;
      bOk = wcBufCompare(pEnd, &end) <= 0;
    }
    sqlite3_free(aEnd);
  }
  wcBufFree(&k);
  return bOk;
}

/* Decodes the elements up to the first clustering column of key a[0..n)
** into pCur->aVal (their bytes in pBuf): true if that column is whole and
** its value bounds the range's end pEnd (endBounded). */
static int decodeClustering(CqCursor *pCur, const unsigned char *a, int64_t n,
                            const WcBuf *pEnd, int bUpper, WcBuf *pBuf,
                            int *pRc){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  int nElem = 0;
  int64_t nUsed = 0;
  pBuf->n = 0;
  if( wcDecodePrefix(p->pKeyS, a, n, 1 + p->nPart + 1, pCur->aVal, pBuf,
                     &nElem, &nUsed) == WC_NOMEM ){
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  return nElem > 1 + p->nPart && endBounded(pCur, pEnd, bUpper, pRc);
}

/* The greatest key of the partition below hi whose first clustering
** column is whole, decoded: hi is mostly the end of a prefix (its last
** byte one above, the bytes after it cut), so its last byte less one
** followed by 0xFF bytes, as many as make the column whole. */
static int decodeBelow(CqCursor *pCur, const WcBuf *pHi, WcBuf *pBuf,
                       int *pRc){
  WcBuf below;
  int i, bWhole = 0;
  static const unsigned char aFF[1] = { 0xFF };
  if( pHi->n == 0 || pHi->a[pHi->n - 1] == 0 ) return 0;
  memset(&below, 0, sizeof(below));
  wcBufAppend(&below, pHi->a, pHi->n);
  if( below.bOom ){
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  below.a[below.n - 1]--;
  for(i = 0; i < 16 && !bWhole && *pRc == SQLITE_OK; i++){
    wcBufAppend(&below, aFF, 1);
    if( below.bOom ) *pRc = SQLITE_NOMEM;
    else bWhole = decodeClustering(pCur, below.a, below.n, pHi, 1, pBuf, pRc);
  }
  wcBufFree(&below);
  return bWhole;
}

/* Bounds the first clustering column by the end of the range in pEnd
** (bUpper: the upper end, exclusive), a key of the partition whose key
** bytes are pEnd->a[0..nPart): a bound in the column's order (a DESC
** column's upper end is its lower), where the end gives one. */
static int boundClustering(CqCursor *pCur, sqlite3_str *pStr,
                           const WcBuf *pEnd, int64_t nPart, int bUpper){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  int iCol = p->aiKey[p->nPart], rc = SQLITE_OK, bWhole;
  WcBuf buf;
  if( p->nKey == p->nPart || pEnd->n <= nPart ) return SQLITE_OK;
  memset(&buf, 0, sizeof(buf));
  bWhole = decodeClustering(pCur, pEnd->a, pEnd->n, pEnd, bUpper, &buf, &rc);
  if( !bWhole && bUpper && rc == SQLITE_OK ){
    bWhole = decodeBelow(pCur, pEnd, &buf, &rc);
  }
  if( bWhole && rc == SQLITE_OK ){
    sqlite3_str_appendf(pStr, " AND \"%w\" %s ?", p->pS->aCol[iCol].zName,
                        (cqKeyDesc(p, iCol) != 0) == (bUpper != 0)
                        ? ">=" : "<=");
    addKeyArg(pCur, p, iCol, &pCur->aVal[iCol]);
  }
  wcBufFree(&buf);
  return rc;
}

/* Makes the part of the read of tokens that starts at iFrom the query's:
** up to the end of the run of ranges whose replicas are those of
** iFrom's, so that it goes to one of them (cqSpanEnd()); on a cluster
** whose every node has every range (3 replicas, 3 nodes), the whole
** read is one part. */
static void spanPart(CqCursor *pCur, int64_t iFrom){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  WcBuf part;
  /* The query's last two values are the part's ends. */
  wcAssert( pCur->bSpan && (pCur->args.bOom
                            || pCur->iTokenArg + 16 == pCur->args.n) );
  pCur->iPartLo = iFrom;
  pCur->iPartHi = cqSpanEnd(p, iFrom, pCur->iSpanHi);
  wcAssert( pCur->iPartHi <= pCur->iSpanHi );
  if( pCur->args.bOom ) return;
  memset(&part, 0, sizeof(part));
  cqPutBigint(&part, pCur->iPartLo);
  cqPutBigint(&part, pCur->iPartHi);
  if( !part.bOom ) memcpy(&pCur->args.a[pCur->iTokenArg], part.a, 16);
  wcBufFree(&part);
}

/* The query of a range: one partition's slice where both ends are in one
** partition, with the first clustering column bounded where the ends say
** and, for a descending read, every clustering column's order reversed;
** else token ranges (a descending read holds them: bHeld). */
static int rangeQuery(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  sqlite3_str *pStr = sqlite3_str_new(0);
  WcBuf buf;
  int nElem = 0, i, rc = SQLITE_OK;
  int64_t nUsed = 0;
  memset(&buf, 0, sizeof(buf));
  sqlite3_str_appendf(pStr, "SELECT %s FROM %s", pCur->zSelect, p->zCqlName);
  if( pCur->bLo ){
    rc = wcDecodePrefix(p->pKeyS, pCur->lo.a, pCur->lo.n, 1 + p->nPart,
                        pCur->aVal, &buf, &nElem, &nUsed) == WC_NOMEM
         ? SQLITE_NOMEM : SQLITE_OK;
  }
  if( rc == SQLITE_OK && pCur->bLo && pCur->bHi && nElem >= 1 + p->nPart ){
    int64_t nPart = cqPartitionBytes(p, pCur->lo.a, pCur->lo.n);
    if( withinPartition(pCur->lo.a, nPart, &pCur->hi) ){
      /* A partition's slice is read whole, mostly: one page, where a
      ** range of tokens may be a probe of the planner's, a row or two. */
      pCur->nFirstPage = CQ_SLICE_PAGE;
      sqlite3_str_appendf(pStr, " WHERE %s", p->zPartWhere);
      for(i = 0; i < p->nPart; i++){
        addKeyArg(pCur, p, p->aiKey[i], &pCur->aVal[p->aiKey[i]]);
      }
      wcBufFree(&buf);
      rc = boundClustering(pCur, pStr, &pCur->lo, nPart, 0);
      /* The upper end bounds too where it is a key of this partition,
      ** not the key after all of them. */
      if( rc == SQLITE_OK && pCur->hi.n > nPart
       && memcmp(pCur->hi.a, pCur->lo.a, (size_t)nPart) == 0 ){
        rc = boundClustering(pCur, pStr, &pCur->hi, nPart, 1);
      }
      for(i = p->nPart; pCur->bDesc && i < p->nKey; i++){
        sqlite3_str_appendf(pStr, "%s\"%w\" %s", i == p->nPart
                            ? " ORDER BY " : ", ",
                            cqColumnName(p, p->aiKey[i]),
                            cqKeyDesc(p, p->aiKey[i]) ? "ASC" : "DESC");
      }
      pCur->zCql = sqlite3_str_finish(pStr);
      if( rc == SQLITE_OK && pCur->zCql == 0 ) rc = SQLITE_NOMEM;
      return rc;
    }
  }
  wcBufFree(&buf);
  pCur->bHeld = pCur->bDesc;
  if( rc == SQLITE_OK ){
    /* Tokens from lo's to hi's (every token where an end is not given),
    ** read a part at a time (spanPart()). */
    int64_t iLo = pCur->bLo ? tokenOf(p, &pCur->lo, 0) : INT64_MIN;
    sqlite3_str_appendf(pStr, " WHERE %s >= ? AND %s <= ?", p->zToken,
                        p->zToken);
    pCur->bSpan = 1;
    pCur->iSpanHi = pCur->bHi ? tokenOf(p, &pCur->hi, 1) : INT64_MAX;
    pCur->iTokenArg = pCur->args.n;
    pCur->anArg[pCur->nArg++] = 8;
    pCur->anArg[pCur->nArg++] = 8;
    cqPutBigint(&pCur->args, 0);
    cqPutBigint(&pCur->args, 0);
    spanPart(pCur, iLo);
  }
  pCur->zCql = sqlite3_str_finish(pStr);
  if( rc == SQLITE_OK && pCur->zCql == 0 ) rc = SQLITE_NOMEM;
  return rc;
}

/* The columns a read of colUsed selects (see CqCursor.zSelect), and
** _stamp where bStamp; the others are NULL in aVal. */
static int selectColumns(CqCursor *pCur, uint64_t colUsed, int bStamp){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i;
  pCur->nSel = 0;
  for(i = 0; i < (int)CQ_NCOL(p->pS); i++){
    pCur->aiSelPos[i] = -1;
    memset(&pCur->aVal[i], 0, sizeof(WcValue));
    pCur->aVal[i].eType = SQLITE_NULL;
    pCur->aVal[i].a = (const unsigned char*)"";
  }
  for(i = 0; i < p->nCqlCol; i++){
    int iCol = p->aiCqlCol[i], iVtabCol = i + 1;
    if( !p->abKey[iCol] && !(bStamp && iCol == CQ_STAMP(p->pS))
     && !(colUsed & ((uint64_t)1 << (iVtabCol < 63 ? iVtabCol : 63))) ){
      continue;
    }
    sqlite3_str_appendf(pStr, "%s\"%w\"", pCur->nSel ? ", " : "",
                        cqColumnName(p, iCol));
    pCur->aiSelPos[iCol] = pCur->nSel;
    pCur->aiSel[pCur->nSel++] = iCol;
  }
  pCur->zSelect = sqlite3_str_finish(pStr);
  return pCur->zSelect ? SQLITE_OK : SQLITE_NOMEM;
}

/* The last read of one key, of the row table: what a write of that key
** is conditional on (CqTable.seen*). */
static void seeRow(CqTable *p, const unsigned char *aKey, int nKey,
                   int bRow, const WcValue *pStamp){
  p->seenKey.n = p->seenStamp.n = 0;
  wcBufAppend(&p->seenKey, aKey, nKey);
  p->bSeen = 1;
  p->bSeenRow = bRow;
  p->bSeenStamp = bRow && pStamp->eType == SQLITE_BLOB;
  if( p->bSeenStamp ) wcBufAppend(&p->seenStamp, pStamp->a, pStamp->n);
  /* Out of memory: nothing seen, so no write goes by a state half kept. */
  if( p->seenKey.bOom || p->seenStamp.bOom ) p->bSeen = 0;
}

/* A scan of one key given _stamp = ? (and on an index's table rowkey =
** ?): widecol read the row just before, so it is taken to be there,
** unread, and the write that follows is conditional on that stamp (on an
** index's table, deletes that write's entry). */
static int givenRow(CqCursor *pCur, const ScFilter *pF){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  WcValue *pStamp = &pCur->aVal[CQ_STAMP(p->pS)];
  int nStamp = sqlite3_value_bytes(pF->pStamp);
  wcBufAppend(&pCur->key, sqlite3_value_blob(pF->pEq),
              sqlite3_value_bytes(pF->pEq));
  wcBufAppend(&pCur->given, sqlite3_value_blob(pF->pStamp), nStamp);
  if( pF->pRowkey ){
    wcBufAppend(&pCur->given, sqlite3_value_blob(pF->pRowkey),
                sqlite3_value_bytes(pF->pRowkey));
  }
  if( pCur->key.bOom || pCur->given.bOom ) return SQLITE_NOMEM;
  pStamp->eType = SQLITE_BLOB;
  pStamp->a = pCur->given.a;
  pStamp->n = nStamp;
  if( pF->pRowkey ){
    WcValue *pRow = &pCur->aVal[CQ_ROWKEY(p->pS)];
    pRow->eType = SQLITE_BLOB;
    pRow->a = pCur->given.a + nStamp;
    pRow->n = pCur->given.n - nStamp;
  }
  seeRow(p, pCur->key.a, (int)pCur->key.n, 1, pStamp);
  /* One row, and no page to read after it. */
  wcAssert( pCur->res.nRow == 0 && !pCur->bMore );
  pCur->bEof = 0;
  return SQLITE_OK;
}

int cqFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                    const char *idxStr, int argc, sqlite3_value **argv){
  CqCursor *pCur = (CqCursor*)pCursor;
  CqTable *p = (CqTable*)pCursor->pVtab;
  ScFilter f;
  int rc;
  cursorReset(pCur);
  scFilterArgs(idxNum, idxStr, argc, argv, &f);
  if( idxNum == SC_COUNTERS ){
    scCountersHand(f.pCounters, &p->count);
    return SQLITE_OK;
  }
  pCur->nFirstPage = CQ_FIRST_PAGE;
  pCur->bDesc = f.bDesc;
  rc = selectColumns(pCur, f.colUsed, f.pEq != 0);
  if( rc != SQLITE_OK ) return rc;
  if( f.pEq && f.pStamp && sqlite3_value_type(f.pStamp) == SQLITE_BLOB ){
    return givenRow(pCur, &f);
  }
  /* A read sees the writes before it. */
  rc = cqWritesDone(p);
  if( rc != SQLITE_OK ) return rc;
  if( f.pEq ){
    WcBuf buf;
    const unsigned char *a = sqlite3_value_blob(f.pEq);
    int n = sqlite3_value_bytes(f.pEq), i;
    memset(&buf, 0, sizeof(buf));
    if( sqlite3_value_type(f.pEq) != SQLITE_BLOB
     || cqDecodeKey(p, a, n, pCur->aVal, &buf) != WC_OK ){
      /* No row has a key the design cannot make. */
      wcBufFree(&buf);
      return SQLITE_OK;
    }
    for(i = 0; i < p->nKeyRead; i++){
      addKeyArg(pCur, p, p->aiKey[i], &pCur->aVal[p->aiKey[i]]);
    }
    wcBufFree(&buf);
    wcBufAppend(&pCur->lo, a, n);
    wcBufAppend(&pCur->hi, a, n);
    pCur->bLo = pCur->bHi = 1;
    pCur->zCql = sqlite3_mprintf("SELECT %s FROM %s WHERE %s", pCur->zSelect,
                                 p->zCqlName, p->zReadWhere);
    if( pCur->zCql == 0 ) return SQLITE_NOMEM;
  }else{
    if( f.pLo ){
      if( sqlite3_value_type(f.pLo) == SQLITE_NULL ) return SQLITE_OK;
      wcBufAppend(&pCur->lo, sqlite3_value_blob(f.pLo),
                  sqlite3_value_bytes(f.pLo));
      pCur->bLo = 1;
      pCur->bLoOpen = f.bLoOpen;
    }
    if( f.pHi ){
      if( sqlite3_value_type(f.pHi) == SQLITE_NULL ) return SQLITE_OK;
      wcBufAppend(&pCur->hi, sqlite3_value_blob(f.pHi),
                  sqlite3_value_bytes(f.pHi));
      pCur->bHi = 1;
      pCur->bHiOpen = f.bHiOpen;
    }
    rc = rangeQuery(pCur);
    if( rc != SQLITE_OK ) return rc;
  }
  if( pCur->lo.bOom || pCur->hi.bOom ) return SQLITE_NOMEM;
  /* SQLite's LIMIT sizes the first page (a held read needs them all). */
  if( f.pLimit && !pCur->bHeld
   && sqlite3_value_numeric_type(f.pLimit) == SQLITE_INTEGER
   && sqlite3_value_int64(f.pLimit) >= 0 ){
    pCur->nLimit = sqlite3_value_int64(f.pLimit);
    if( pCur->nLimit == 0 ) return SQLITE_OK;
    pCur->nFirstPage = pCur->nLimit < CQ_PAGE ? (int)pCur->nLimit : CQ_PAGE;
  }
  pCur->bMore = 0;
  rc = fetchPage(pCur);
  if( rc == SQLITE_OK && pCur->bHeld ) rc = holdPages(pCur);
  if( rc == SQLITE_OK ) rc = settle(pCur);
  if( rc == SQLITE_OK && f.pEq && p->iIndex < 0 ){
    seeRow(p, pCur->lo.a, (int)pCur->lo.n, !pCur->bEof,
           &pCur->aVal[CQ_STAMP(p->pS)]);
  }
  return rc;
}

int cqNext(sqlite3_vtab_cursor *pCursor){
  CqCursor *pCur = (CqCursor*)pCursor;
  pCur->iRow += pCur->bHeld ? -1 : 1;
  pCur->nGiven++;
  return settle(pCur);
}

int cqEof(sqlite3_vtab_cursor *pCursor){
  return ((CqCursor*)pCursor)->bEof;
}

int cqColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx,
                    int i){
  CqCursor *pCur = (CqCursor*)pCursor;
  CqTable *p = (CqTable*)pCursor->pVtab;
  const WcValue *pV;
  if( i == 0 ){
    sqlite3_result_blob(ctx, pCur->key.a, (int)pCur->key.n, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  pV = &pCur->aVal[p->aiCqlCol[i - 1]];
  switch( pV->eType ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, pV->i); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, pV->r); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, (const char*)pV->a, (int)pV->n, SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, pV->a, (int)pV->n, SQLITE_TRANSIENT);
      break;
    default: break;
  }
  return SQLITE_OK;
}

int cqRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *piRowid){
  (void)pCursor;
  *piRowid = 0;
  return SQLITE_OK;
}
