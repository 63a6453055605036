/*
** wc_report.c: SELECT widecol_report('<table>' [, workload [, options]])
** gathers what the report page shows (wc_report_page.c writes it).
**
** For each design (the table, then those the "compare" option names):
**   - the table read once in key order through the virtual table: every
**     row key (kept, in order: the buckets and regions are found in it),
**     each row's bytes, the partitions of a design in Cassandra's form,
**     and a few rows for the key anatomy;
**   - the table read once in write order (rowtime under VERSIONS or TTL,
**     else the "order" option or a column whose values are times): each
**     write's bucket and time column, the heatmap;
**   - the workload's read statements run one at a time, watched
**     (wcTableWatch): the bucket of every row a scan reads, and what
**     widecol_stats() counted for the statement alone;
**   - widecol_lint and (Cassandra's form) widecol_ring, called through SQL
**     as a user calls them, and widecol_regions' replay (wc_regions.h) on
**     the keys in write order read above; the page quotes each call.
** Everything runs on the caller's connection, so the function is
** SQLITE_DIRECTONLY; it resets the widecol_stats() counters of the
** tables it replays the workload on.
*/
#include "tools/wc_report.h"
#include "tools/wc_tools.h"
#include "tools/wc_regions.h"
#include "tools/wc_html.h"
#include "tools/wc_lint.h"
#include "util/wc_progress.h"
#include "store/wc_store.h"

#include <stdlib.h>
#include <string.h>

/* A statement that reads this many times more rows than it returns is
** flagged. */
#define WC_REPORT_READ_RATIO 10

static void reportFail(Report *p, int rc, char *zErr){
  if( p->rc == SQLITE_OK ){
    p->rc = rc;
    p->zErr = zErr;
  }else{
    sqlite3_free(zErr);
  }
}

static void reportOom(Report *p){
  reportFail(p, SQLITE_NOMEM, 0);
}

static void *reportAlloc(Report *p, int64_t nByte){
  void *pNew;
  if( p->rc ) return 0;
  pNew = sqlite3_malloc64((sqlite3_uint64)(nByte > 0 ? nByte : 1));
  if( pNew == 0 ){
    reportOom(p);
    return 0;
  }
  memset(pNew, 0, (size_t)(nByte > 0 ? nByte : 1));
  return pNew;
}

/* Prepares zSql (from sqlite3_mprintf(), freed here); NULL on error,
** which is the report's, named after the design. */
static sqlite3_stmt *reportPrepare(Report *p, const ReportDesign *pD,
                                   char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( zSql == 0 ){
    reportOom(p);
    return 0;
  }
  if( p->rc == SQLITE_OK ){
    int rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
    if( rc != SQLITE_OK ){
      reportFail(p, rc, sqlite3_mprintf("widecol_report(%s): %s, in %s",
                                        pD->zName, sqlite3_errmsg(p->db),
                                        zSql));
    }
  }
  sqlite3_free(zSql);
  return pStmt;
}

/* Ends a statement stepped to its end: an error is the report's. */
static void reportFinish(Report *p, const ReportDesign *pD,
                         sqlite3_stmt *pStmt, int rc){
  if( rc != SQLITE_DONE && rc != SQLITE_ROW && p->rc == SQLITE_OK ){
    reportFail(p, rc, sqlite3_mprintf("widecol_report(%s): %s", pD->zName,
                                      sqlite3_errmsg(p->db)));
  }
  sqlite3_finalize(pStmt);
}

/* The table in SQL: "schema"."name". */
static char *tableSql(const ReportDesign *pD){
  const WcStore *pStore = wcTableStore(pD->pTab);
  return sqlite3_mprintf("\"%w\".\"%w\"", pStore->zDb, pStore->zName);
}

static void histAdd(ReportHist *pH, int64_t v){
  int i = 0;
  while( i < WC_REPORT_HIST - 1 && v >= ((int64_t)2 << i) ) i++;
  pH->aBin[i]++;
  pH->nCount++;
  if( v > pH->nMax ) pH->nMax = v;
}

/* Bytes a value takes: text and blobs their length, numbers 8. */
static int64_t valueBytes(sqlite3_stmt *pStmt, int i){
  switch( sqlite3_column_type(pStmt, i) ){
    case SQLITE_NULL:    return 0;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:   return 8;
    default:             return sqlite3_column_bytes(pStmt, i);
  }
}

/* The bytes of a design in Cassandra's form that name a partition: the
** TOKEN and the partition key columns after it. */
static int64_t partitionSpan(const WcSchema *pS, const unsigned char *a,
                             int64_t n){
  int64_t nAt = 0;
  int i;
  for(i = 0; i <= pS->aElem[0].nSaltCol && i < pS->nElem; i++){
    int64_t nSpan = wcElementSpan(pS, i, a + nAt, n - nAt);
    if( nSpan < 0 ) return n;
    nAt += nSpan;
  }
  return nAt;
}

/* Partitions are runs of keys with the same partition bytes. */
static void partitionEnd(ReportDesign *pD, int64_t iFirst, int64_t iEnd){
  int64_t nByte = pD->aRowBytes[iEnd] - pD->aRowBytes[iFirst];
  histAdd(&pD->partRows, iEnd - iFirst);
  histAdd(&pD->partBytes, nByte);
  pD->nPartition++;
  if( iEnd - iFirst > pD->nBigPartRows ){
    pD->nBigPartRows = iEnd - iFirst;
    pD->nBigPartBytes = nByte;
    sqlite3_free(pD->zBigPartition);
    pD->zBigPartition = sqlite3_mprintf("%.*s", (int)(pD->aiKey[iFirst + 1]
                                        - pD->aiKey[iFirst]),
                                        pD->keys.a + pD->aiKey[iFirst]);
  }
}

static void partitionsCount(ReportDesign *pD){
  int64_t i, iFirst = 0, nPrev = 0;
  const unsigned char *aPrev = 0;
  for(i = 0; i < pD->nRow; i++){
    const unsigned char *a = pD->keys.a + pD->aiKey[i];
    int64_t n = partitionSpan(pD->pS, a, pD->aiKey[i + 1] - pD->aiKey[i]);
    if( aPrev && (n != nPrev || memcmp(a, aPrev, (size_t)n)) ){
      partitionEnd(pD, iFirst, i);
      iFirst = i;
    }
    aPrev = a;
    nPrev = n;
  }
  if( pD->nRow ) partitionEnd(pD, iFirst, pD->nRow);
}

/* Grows an int64 array to hold n + 1 entries. */
static int64_t *growInt64(Report *p, int64_t *a, int64_t n, int64_t *pnAlloc){
  if( n + 1 >= *pnAlloc ){
    int64_t nNew = *pnAlloc ? 2 * *pnAlloc : 1024;
    int64_t *aNew = sqlite3_realloc64(a, sizeof(int64_t)
                                         * (sqlite3_uint64)nNew);
    if( aNew == 0 ){
      reportOom(p);
      return a;
    }
    a = aNew;
    *pnAlloc = nNew;
  }
  return a;
}

/* Reads the table in key order: its keys, row bytes and sizes. */
static void readKeys(Report *p, ReportDesign *pD){
  const WcSchema *pS = pD->pS;
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pStmt;
  WcProgress prog;
  int64_t nAlloc = 0, nAllocBytes = 0;
  int i, rc = SQLITE_DONE;
  sqlite3_str_appendall(pStr, "SELECT rowkey");
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendall(pStr, ", ");
    wcAppendName(pStr, pS->aCol[i].zName);
  }
  sqlite3_str_appendf(pStr, " FROM %z", tableSql(pD));
  pStmt = reportPrepare(p, pD, sqlite3_str_finish(pStr));
  if( pStmt == 0 ) return;
  memset(&prog, 0, sizeof(prog));
  wcProgressBegin(&prog, "rows read", -1, "widecol_report(%s): keys",
                  pD->zName);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    const void *aKey = sqlite3_column_blob(pStmt, 0);
    int64_t nKey = sqlite3_column_bytes(pStmt, 0), nRow = nKey;
    for(i = 1; i <= pS->nCol; i++) nRow += valueBytes(pStmt, i);
    pD->aiKey = growInt64(p, pD->aiKey, pD->nRow + 1, &nAlloc);
    pD->aRowBytes = growInt64(p, pD->aRowBytes, pD->nRow + 1, &nAllocBytes);
    if( p->rc ) break;
    pD->aiKey[pD->nRow] = pD->keys.n;
    pD->aRowBytes[pD->nRow + 1] = pD->aRowBytes[pD->nRow] + nRow;
    wcBufAppend(&pD->keys, aKey, nKey);
    pD->nRow++;
    pD->aiKey[pD->nRow] = pD->keys.n;
    histAdd(&pD->keyBytes, nKey);
    histAdd(&pD->rowBytes, nRow);
    if( (pD->nRow & 0x3FFF) == 0 ) wcProgressStep(&prog, pD->nRow);
  }
  wcProgressEnd(&prog);
  if( pD->keys.bOom ) reportOom(p);
  reportFinish(p, pD, pStmt, rc);
  if( p->rc == SQLITE_OK && pD->aiKey == 0 ){
    pD->aiKey = reportAlloc(p, sizeof(int64_t));
    pD->aRowBytes = reportAlloc(p, sizeof(int64_t));
  }
  if( p->rc == SQLITE_OK && pD->bCassandra ) partitionsCount(pD);
}

/* The few rows the anatomy shows, as SQL literals. */
static void readSample(Report *p, ReportDesign *pD){
  const WcSchema *pS = pD->pS;
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pStmt;
  int i, rc = SQLITE_DONE;
  sqlite3_str_appendall(pStr, "SELECT quote(rowkey)");
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendall(pStr, ", quote(");
    wcAppendName(pStr, pS->aCol[i].zName);
    sqlite3_str_appendall(pStr, ")");
  }
  sqlite3_str_appendf(pStr, " FROM %z LIMIT %d", tableSql(pD),
                      WC_REPORT_SAMPLE_ROWS);
  pStmt = reportPrepare(p, pD, sqlite3_str_finish(pStr));
  if( pStmt == 0 ) return;
  pD->azSample = reportAlloc(p, sizeof(char*) * (pS->nCol + 1)
                                * WC_REPORT_SAMPLE_ROWS);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    for(i = 0; i <= pS->nCol; i++){
      char *z = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, i));
      if( z == 0 ) reportOom(p);
      pD->azSample[pD->nSample * (pS->nCol + 1) + i] = z;
    }
    pD->nSample++;
  }
  reportFinish(p, pD, pStmt, rc);
}

/* Index of the first key >= a[0..n) in the design's keys. */
static int64_t keyLowerBound(const ReportDesign *pD, const void *a, int64_t n){
  int64_t lo = 0, hi = pD->nRow;
  while( lo < hi ){
    int64_t mid = lo + (hi - lo) / 2;
    int64_t nMid = pD->aiKey[mid + 1] - pD->aiKey[mid];
    int c = memcmp(pD->keys.a + pD->aiKey[mid], a,
                   (size_t)(nMid < n ? nMid : n));
    if( c < 0 || (c == 0 && nMid < n) ) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* The bucket holding row i. */
static int bucketOfRow(const ReportDesign *pD, int64_t iRow){
  int lo = 0, hi = pD->nBucket - 1;
  while( lo < hi ){
    int mid = (lo + hi + 1) / 2;
    if( pD->aiBucket[mid] <= iRow ) lo = mid; else hi = mid - 1;
  }
  return lo;
}

static int bucketOfKey(const ReportDesign *pD, const void *a, int64_t n){
  int64_t i = keyLowerBound(pD, a, n);
  return bucketOfRow(pD, i < pD->nRow ? i : pD->nRow - 1);
}

static void bucketsMake(Report *p, ReportDesign *pD){
  int b;
  pD->nBucket = pD->nRow < p->nBucketWanted ? (int)pD->nRow
                                            : p->nBucketWanted;
  if( pD->nBucket < 1 ) pD->nBucket = 1;
  pD->aiBucket = reportAlloc(p, sizeof(int64_t) * (pD->nBucket + 1));
  pD->aWrite = reportAlloc(p, sizeof(double) * pD->nBucket);
  pD->aRead = reportAlloc(p, sizeof(double) * pD->nBucket);
  pD->aScan = reportAlloc(p, sizeof(double) * pD->nBucket);
  pD->aRecent = reportAlloc(p, sizeof(double) * pD->nBucket);
  if( p->rc ) return;
  for(b = 0; b <= pD->nBucket; b++){
    pD->aiBucket[b] = pD->nRow * b / pD->nBucket;
  }
}

/* True if column iCol holds times, by the lint's test, in the first
** rows read in key order. */
static int columnHoldsTimes(Report *p, ReportDesign *pD, int iCol){
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pStmt;
  int bTimes = 0, rc;
  sqlite3_str_appendf(pStr, "SELECT avg(CASE WHEN %s THEN 1.0 ELSE 0.0 END) "
                      "FROM (SELECT ", wcLintTimeTest);
  wcAppendName(pStr, pD->pS->aCol[iCol].zName);
  sqlite3_str_appendf(pStr, " AS x FROM %z LIMIT 1000)", tableSql(pD));
  pStmt = reportPrepare(p, pD, sqlite3_str_finish(pStr));
  if( pStmt == 0 ) return 0;
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_ROW ){
    bTimes = sqlite3_column_double(pStmt, 0) >= WC_LINT_SHARE;
  }
  reportFinish(p, pD, pStmt, rc);
  return bTimes;
}

/* What orders the writes: rowtime, the "order" option, or the first
** column whose values are times. */
static void orderChoose(Report *p, ReportDesign *pD){
  const WcSchema *pS = pD->pS;
  int i;
  if( pS->bVersioned ){
    pD->bRowtime = 1;
    pD->zOrder = sqlite3_mprintf("rowtime");
    pD->zOrderWhy = sqlite3_mprintf("each version's rowtime (the table has "
                                    "%s), in equal spans of time",
                                    pS->nVersions > 1 ? "VERSIONS" : "TTL");
  }else if( p->zOrderOpt ){
    sqlite3_stmt *pStmt = reportPrepare(p, pD,
        sqlite3_mprintf("SELECT (%s) FROM %z LIMIT 0", p->zOrderOpt,
                        tableSql(pD)));
    sqlite3_finalize(pStmt);
    if( p->rc ){
      char *zErr = sqlite3_mprintf("widecol_report: the \"order\" option "
                                   "must be an expression over the columns "
                                   "of %s that orders its writes (a time or "
                                   "a sequence); %s", pD->zName,
                                   p->zErr ? p->zErr : "");
      sqlite3_free(p->zErr);
      p->zErr = zErr;
      return;
    }
    pD->zOrder = sqlite3_mprintf("%s", p->zOrderOpt);
    pD->zOrderWhy = sqlite3_mprintf("the \"order\" option, in equal counts "
                                    "of writes");
  }else{
    for(i = 0; i < pS->nCol && p->rc == SQLITE_OK; i++){
      if( pS->aCol[i].cAff == WC_AFF_BLOB ) continue;
      if( columnHoldsTimes(p, pD, i) ){
        sqlite3_str *pStr = sqlite3_str_new(0);
        wcAppendName(pStr, pS->aCol[i].zName);
        pD->zOrder = sqlite3_str_finish(pStr);
        pD->zOrderWhy = sqlite3_mprintf("%s, the first column whose values "
                                        "are times (as widecol_lint reads "
                                        "them), in equal counts of writes; "
                                        "set another with {\"order\": "
                                        "\"<expression>\"}", pD->zOrder);
        break;
      }
    }
    if( pD->zOrder == 0 && p->rc == SQLITE_OK ){
      pD->zOrderWhy = sqlite3_mprintf("none: the table keeps no write order "
                                      "and no column holds times; give one "
                                      "with {\"order\": \"<column or "
                                      "expression>\"} to see writes across "
                                      "time");
      if( pD->zOrderWhy == 0 ) reportOom(p);
      return;
    }
  }
  if( p->rc == SQLITE_OK && (pD->zOrder == 0 || pD->zOrderWhy == 0) ){
    reportOom(p);
  }
}

/* The query of row keys in write order (widecol_regions' first
** argument), or in key order without one. */
static char *writeOrderSql(const ReportDesign *pD, const char *zSelect){
  char *zTab = tableSql(pD);
  char *z;
  if( zTab == 0 ) return 0;
  if( pD->bRowtime ){
    z = sqlite3_mprintf("SELECT %s FROM %s WHERE versions = %d ORDER BY "
                        "rowtime", zSelect, zTab, pD->pS->nVersions);
  }else if( pD->zOrder ){
    z = sqlite3_mprintf("SELECT %s FROM %s ORDER BY %s", zSelect, zTab,
                        pD->zOrder);
  }else{
    z = sqlite3_mprintf("SELECT %s FROM %s", zSelect, zTab);
  }
  sqlite3_free(zTab);
  return z;
}

/* Sets the label of each time column: under rowtime, the time its span
** starts at, in UTC. */
static void columnLabels(Report *p, ReportDesign *pD, int64_t iMin,
                         int64_t iMax){
  sqlite3_stmt *pStmt;
  int c, rc = SQLITE_DONE;
  pD->azColumnLabel = reportAlloc(p, sizeof(char*) * pD->nColumn);
  if( pD->azColumnLabel == 0 || !pD->bRowtime ) return;
  pStmt = reportPrepare(p, pD, sqlite3_mprintf("SELECT strftime('%%Y-%%m-%%d "
                        "%%H:%%M:%%f', ?1 / 1000000.0, 'unixepoch')"));
  for(c = 0; pStmt && c < pD->nColumn && p->rc == SQLITE_OK; c++){
    int64_t t = iMin + (int64_t)((double)(iMax - iMin + 1) * c / pD->nColumn);
    sqlite3_bind_int64(pStmt, 1, t);
    rc = sqlite3_step(pStmt);
    if( rc != SQLITE_ROW ) break;
    pD->azColumnLabel[c] = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 0));
    if( pD->azColumnLabel[c] == 0 ) reportOom(p);
    rc = sqlite3_reset(pStmt);
    if( rc != SQLITE_OK ) break;
    rc = SQLITE_DONE;
  }
  if( pStmt ) reportFinish(p, pD, pStmt, rc);
}

/* The latest write's order value, kept as the writes are read (an
** INTEGER or TEXT: the times wcLintTimeMicros reads), its buffer reused
** from row to row. */
typedef struct LastOrder LastOrder;
struct LastOrder {
  int eType;            /* SQLITE_INTEGER, SQLITE_TEXT, or 0: neither */
  int64_t iVal;
  WcBuf text;
};

static void lastOrderKeep(LastOrder *pL, sqlite3_stmt *pStmt, int iCol){
  pL->eType = sqlite3_column_type(pStmt, iCol);
  if( pL->eType == SQLITE_INTEGER ){
    pL->iVal = sqlite3_column_int64(pStmt, iCol);
  }else if( pL->eType == SQLITE_TEXT ){
    const unsigned char *z = sqlite3_column_text(pStmt, iCol);
    wcBufClear(&pL->text);
    wcBufAppend(&pL->text, z, sqlite3_column_bytes(pStmt, iCol));
  }else{
    pL->eType = 0;
  }
}

/* The time of the latest write in microseconds (pLast its order value,
** iRowtime its rowtime on a versioned table), or 0 where the order is no
** time: while the workload runs, widecol_now() is that time, so that "the
** last 5 minutes" are the data's. */
static int64_t latestMicros(Report *p, ReportDesign *pD, const LastOrder *pLast,
                            int64_t iRowtime){
  sqlite3_stmt *pStmt = 0;
  int64_t iLatest = 0;
  char *zSql;
  if( pD->bRowtime ) return iRowtime;
  if( pLast->eType == 0 || pLast->text.bOom ) return 0;
  zSql = sqlite3_mprintf("SELECT %s FROM (SELECT ?1 AS x)", wcLintTimeMicros);
  if( zSql == 0 ){
    reportOom(p);
    return 0;
  }
  if( sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) == SQLITE_OK ){
    if( pLast->eType == SQLITE_INTEGER ){
      sqlite3_bind_int64(pStmt, 1, pLast->iVal);
    }else{
      sqlite3_bind_text(pStmt, 1, (const char*)pLast->text.a,
                        (int)pLast->text.n, SQLITE_STATIC);
    }
    if( sqlite3_step(pStmt) == SQLITE_ROW ){
      iLatest = sqlite3_column_int64(pStmt, 0);
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  return iLatest > 0 && iLatest <= WC_MAX_ROWTIME ? iLatest : 0;
}

/* Reads the writes in write order into the heatmap. */
static void readWrites(Report *p, ReportDesign *pD){
  sqlite3_stmt *pStmt;
  int *aBucket = 0;
  int64_t *aTime = 0, nAlloc = 0, nWrite = 0, i, iMin = 0, iMax = 0;
  int rc = SQLITE_DONE;
  LastOrder last;
  WcProgress prog;
  memset(&last, 0, sizeof(last));
  if( pD->zOrder == 0 ){
    pD->nColumn = 1;
    pD->aCell = reportAlloc(p, sizeof(double) * pD->nBucket);
    /* No order: every row is a write, all in one column. */
    columnLabels(p, pD, 0, 0);
    for(i = 0; p->rc == SQLITE_OK && i < pD->nRow; i++){
      int b = bucketOfRow(pD, i);
      pD->aCell[b] += 1.0;
      pD->aWrite[b] += 1.0;
    }
    pD->nWrite = pD->nRow;
    return;
  }
  if( !pD->bRowtime ){
    /* In write order each row is one write: the columns are known now,
    ** and labelled by the order value of their first write. */
    char *zSelect = sqlite3_mprintf("rowkey, (%s)", pD->zOrder);
    pD->nColumn = pD->nRow < WC_REPORT_COLUMNS ? (int)pD->nRow
                                               : WC_REPORT_COLUMNS;
    if( pD->nColumn < 1 ) pD->nColumn = 1;
    pD->azColumnLabel = reportAlloc(p, sizeof(char*) * pD->nColumn);
    pStmt = zSelect ? reportPrepare(p, pD, writeOrderSql(pD, zSelect)) : 0;
    if( zSelect == 0 ) reportOom(p);
    sqlite3_free(zSelect);
  }else{
    pStmt = reportPrepare(p, pD, writeOrderSql(pD, "rowkey, rowtime"));
  }
  if( pStmt == 0 ) return;
  memset(&prog, 0, sizeof(prog));
  wcProgressBegin(&prog, "writes read", -1, "widecol_report(%s): writes",
                  pD->zName);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    if( nWrite + 1 >= nAlloc ){
      int64_t nNew = nAlloc ? nAlloc * 2 : 4096;
      int *aB = sqlite3_realloc64(aBucket, sizeof(int) * (sqlite3_uint64)nNew);
      int64_t *aT = aB ? sqlite3_realloc64(aTime, sizeof(int64_t)
                                           * (sqlite3_uint64)nNew) : 0;
      if( aB ) aBucket = aB;
      if( aT == 0 ){
        reportOom(p);
        break;
      }
      aTime = aT;
      nAlloc = nNew;
    }
    {
      const void *aKey = sqlite3_column_blob(pStmt, 0);
      int nKey = sqlite3_column_bytes(pStmt, 0);
      int64_t iRow = keyLowerBound(pD, aKey ? aKey : "", nKey);
      aBucket[nWrite] = bucketOfRow(pD, iRow < pD->nRow ? iRow
                                                        : pD->nRow - 1);
      /* A key the first pass did not see (written since) is no region's
      ** row. */
      if( iRow < pD->nRow && pD->aiKey[iRow + 1] - pD->aiKey[iRow] == nKey
       && memcmp(pD->keys.a + pD->aiKey[iRow], aKey ? aKey : "",
                 (size_t)nKey) == 0
       && wcRegionSimAddRank(pD->pRegionSim, (int)iRow) ){
        reportOom(p);
        break;
      }
    }
    if( pD->bRowtime ){
      aTime[nWrite] = sqlite3_column_int64(pStmt, 1);
    }else{
      /* Write i is in column i * nColumn / nRow. */
      int c = pD->nRow ? (int)(nWrite * pD->nColumn / pD->nRow) : 0;
      aTime[nWrite] = nWrite;
      if( c < pD->nColumn && pD->azColumnLabel[c] == 0 ){
        pD->azColumnLabel[c] = sqlite3_mprintf("%s",
                                               sqlite3_column_text(pStmt, 1));
        if( pD->azColumnLabel[c] == 0 ) reportOom(p);
      }
    }
    /* The latest write's order value: widecol_now() (below). */
    if( !pD->bRowtime ) lastOrderKeep(&last, pStmt, 1);
    nWrite++;
    if( (nWrite & 0x3FFF) == 0 ) wcProgressStep(&prog, nWrite);
  }
  wcProgressEnd(&prog);
  reportFinish(p, pD, pStmt, rc);
  if( p->rc == SQLITE_OK ) pD->iLatest = latestMicros(p, pD, &last,
                                        nWrite ? aTime[nWrite - 1] : 0);
  wcBufFree(&last.text);
  if( p->rc == SQLITE_OK && nWrite > 0 ){
    iMin = aTime[0];
    iMax = aTime[nWrite - 1];
  }
  if( pD->bRowtime ){
    /* No more columns than distinct times: the last write is always in
    ** the last column. */
    pD->nColumn = iMax - iMin + 1 < WC_REPORT_COLUMNS
                ? (int)(iMax - iMin + 1) : WC_REPORT_COLUMNS;
  }else{
    /* Equal counts of writes, as the labels were taken. */
    iMin = 0;
    iMax = (nWrite > pD->nRow ? nWrite : pD->nRow) - 1;
  }
  pD->aCell = reportAlloc(p, sizeof(double) * pD->nBucket * pD->nColumn);
  if( p->rc == SQLITE_OK && nWrite > 0 ){
    pD->nWrite = nWrite;
    for(i = 0; i < nWrite; i++){
      int c = (int)((double)(aTime[i] - iMin) * pD->nColumn
                    / (double)(iMax - iMin + 1));
      if( c >= pD->nColumn ) c = pD->nColumn - 1;
      pD->aCell[(int64_t)aBucket[i] * pD->nColumn + c] += 1.0;
      pD->aWrite[aBucket[i]] += 1.0;
      if( c == pD->nColumn - 1 ){
        pD->aRecent[aBucket[i]] += 1.0;
        pD->nRecent++;
      }
    }
  }
  if( pD->bRowtime ) columnLabels(p, pD, iMin, iMax);
  sqlite3_free(aBucket);
  sqlite3_free(aTime);
}

/* Runs a tool's query and keeps its rows as text. */
static void toolRows(Report *p, ReportDesign *pD, ReportRows *pR,
                     char *zCall, char *zQuery){
  sqlite3_stmt *pStmt;
  int nAlloc = 0, i, rc = SQLITE_DONE;
  pR->zSql = zCall;
  if( zCall == 0 ){
    sqlite3_free(zQuery);
    reportOom(p);
    return;
  }
  pStmt = reportPrepare(p, pD, zQuery);
  if( pStmt == 0 ) return;
  pR->nCol = sqlite3_column_count(pStmt);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    if( pR->nRow >= nAlloc ){
      int nNew = nAlloc ? nAlloc * 2 : 16;
      char **az = sqlite3_realloc64(pR->azCell, sizeof(char*)
                                    * (sqlite3_uint64)nNew * pR->nCol);
      if( az == 0 ){
        reportOom(p);
        break;
      }
      pR->azCell = az;
      nAlloc = nNew;
    }
    for(i = 0; i < pR->nCol; i++){
      const char *z = (const char*)sqlite3_column_text(pStmt, i);
      char *zCopy = z ? sqlite3_mprintf("%s", z) : 0;
      if( z && zCopy == 0 ) reportOom(p);
      pR->azCell[pR->nRow * pR->nCol + i] = zCopy;
    }
    pR->nRow++;
  }
  reportFinish(p, pD, pStmt, rc);
}

static void readLint(Report *p, ReportDesign *pD){
  toolRows(p, pD, &pD->lint,
           sqlite3_mprintf("SELECT * FROM widecol_lint(%Q)", pD->zName),
           sqlite3_mprintf("SELECT severity, rule, key, element, finding, fix "
                           "FROM widecol_lint(%Q)", pD->zName));
}

/* The regions' rows, as the columns of widecol_regions() the page shows:
** region, start key (hex), end key (hex), rows, recent_writes, skew; and
** each region's first row in the design's key order. */
#define WC_REPORT_REGION_COLS 6
typedef struct RegionsOut RegionsOut;
struct RegionsOut {
  Report *p;
  ReportDesign *pD;
  int nAlloc;
  int64_t *aiFirst;     /* Region r's first row; the last + 1: nRow */
};

static char *hexOf(const void *a, sqlite3_int64 n){
  sqlite3_str *pStr = sqlite3_str_new(0);
  wcHtmlHex(pStr, (const unsigned char*)a, n);
  return sqlite3_str_finish(pStr);
}

static int regionOut(void *pArg, const WcRegion *r){
  RegionsOut *pO = (RegionsOut*)pArg;
  ReportRows *pR = &pO->pD->regions;
  char **az;
  if( pR->nRow >= pO->nAlloc ){
    int nNew = pO->nAlloc ? 2 * pO->nAlloc : 16;
    char **azNew = sqlite3_realloc64(pR->azCell, sizeof(char*)
                                     * (sqlite3_uint64)nNew * pR->nCol);
    int64_t *aiNew = azNew ? sqlite3_realloc64(pO->aiFirst, sizeof(int64_t)
                                     * (sqlite3_uint64)(nNew + 1)) : 0;
    if( azNew ) pR->azCell = azNew;
    if( aiNew == 0 ) return SQLITE_NOMEM;
    pO->aiFirst = aiNew;
    pO->nAlloc = nNew;
  }
  az = &pR->azCell[pR->nRow * pR->nCol];
  az[0] = sqlite3_mprintf("%d", r->iRegion);
  az[1] = r->aLo ? hexOf(r->aLo, r->nLo) : 0;
  az[2] = r->aHi ? hexOf(r->aHi, r->nHi) : 0;
  az[3] = sqlite3_mprintf("%lld", (long long)r->nRows);
  az[4] = sqlite3_mprintf("%lld", (long long)r->nRecent);
  az[5] = sqlite3_mprintf("%.3f", r->rSkew);
  pO->aiFirst[pR->nRow] = r->aLo ? keyLowerBound(pO->pD, r->aLo, r->nLo) : 0;
  pR->nRow++;
  if( az[0] == 0 || (r->aLo && az[1] == 0) || (r->aHi && az[2] == 0)
   || az[3] == 0 || az[4] == 0 || az[5] == 0 ){
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

/* The regions widecol_regions(<the keys in write order>, max_rows) makes,
** from the same replay (wc_regions.h) on the keys readWrites() handed to
** pD->pRegionSim, as ranks in the keys read in key order; the page
** quotes the call.  Then each region's bytes. */
static void readRegions(Report *p, ReportDesign *pD){
  char *zKeys = writeOrderSql(pD, "rowkey");
  RegionsOut out;
  int64_t i;
  int r, rc = SQLITE_OK;
  memset(&out, 0, sizeof(out));
  out.p = p;
  out.pD = pD;
  pD->regions.zSql = zKeys ? sqlite3_mprintf("SELECT * FROM "
                             "widecol_regions(%Q, %lld)", zKeys,
                             (long long)pD->nRegionMax) : 0;
  sqlite3_free(zKeys);
  if( pD->regions.zSql == 0 ){
    reportOom(p);
    return;
  }
  pD->regions.nCol = WC_REPORT_REGION_COLS;
  if( pD->zOrder == 0 ){
    /* No write order: the keys in key order, as the quoted query reads
    ** them. */
    for(i = 0; rc == SQLITE_OK && i < pD->nRow; i++){
      rc = wcRegionSimAddRank(pD->pRegionSim, (int)i);
    }
  }
  if( rc == SQLITE_OK ){
    rc = wcRegionSimRun(pD->pRegionSim, -1, regionOut, &out);
  }
  if( rc != SQLITE_OK ){
    sqlite3_free(out.aiFirst);
    reportFail(p, rc, 0);
    return;
  }
  pD->aRegionBytes = reportAlloc(p, sizeof(int64_t) * (pD->regions.nRow + 1));
  for(r = 0; p->rc == SQLITE_OK && r < pD->regions.nRow; r++){
    int64_t iEnd = r + 1 < pD->regions.nRow ? out.aiFirst[r + 1] : pD->nRow;
    pD->aRegionBytes[r] = pD->aRowBytes[iEnd] - pD->aRowBytes[out.aiFirst[r]];
  }
  sqlite3_free(out.aiFirst);
}

/* The ring of a design in Cassandra's form, its partition key columns
** in write order. */
static void readRing(Report *p, ReportDesign *pD){
  const WcElement *pE = &pD->pS->aElem[0];
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zCols, *zQuery;
  int i;
  for(i = 0; i < pE->nSaltCol; i++){
    sqlite3_str_appendall(pStr, i ? ", " : "");
    wcAppendName(pStr, pD->pS->aCol[pE->aiSaltCol[i]].zName);
  }
  zCols = sqlite3_str_finish(pStr);
  zQuery = zCols ? writeOrderSql(pD, zCols) : 0;
  sqlite3_free(zCols);
  if( zQuery == 0 ){
    reportOom(p);
    return;
  }
  toolRows(p, pD, &pD->ring,
           sqlite3_mprintf("SELECT * FROM widecol_ring(%Q, %d)", zQuery,
                           p->nNodes),
           sqlite3_mprintf("SELECT node, owns, partitions, rows, "
                           "recent_writes, skew, ranges FROM "
                           "widecol_ring(%Q, %d)", zQuery, p->nNodes));
  sqlite3_free(zQuery);
}

/*
** The workload, replayed.
*/

/* What a watched scan reports to: the statement's buckets. */
typedef struct Watch Watch;
struct Watch {
  ReportDesign *pD;
  unsigned char *abTouched;
  double rWeight;
};

static void watchRow(void *pArg, const void *aKey, int nKey){
  Watch *pW = (Watch*)pArg;
  int b;
  if( pW->pD->nRow == 0 ) return;
  b = bucketOfKey(pW->pD, aKey ? aKey : "", nKey);
  pW->abTouched[b] = 1;
  pW->pD->aScan[b] += pW->rWeight;
}

/* True if z[0..n) names the same table as zName. */
static int sameName(const char *z, int n, const char *zName){
  return (int)strlen(zName) == n && sqlite3_strnicmp(z, zName, n) == 0;
}

/* zSql with every identifier that names table zFrom (bare or quoted)
** replaced by zTo, quoted; strings and comments are copied as they are. */
static char *renameTable(const char *zSql, const char *zFrom, const char *zTo){
  sqlite3_str *pStr = sqlite3_str_new(0);
  const char *z = zSql;
  while( *z ){
    int n = 1;
    if( z[0] == '\'' ){
      /* A string: '' inside it is a quote, not its end. */
      while( z[n] ){
        if( z[n] == '\'' ){
          if( z[n + 1] != '\'' ) break;
          n++;
        }
        n++;
      }
      if( z[n] ) n++;
    }else if( z[0] == '-' && z[1] == '-' ){
      while( z[n] && z[n] != '\n' ) n++;
    }else if( z[0] == '/' && z[1] == '*' ){
      const char *zEnd = strstr(z + 2, "*/");
      n = zEnd ? (int)(zEnd - z) + 2 : (int)strlen(z);
    }else if( z[0] == '"' || z[0] == '[' || z[0] == '`' ){
      char cEnd = z[0] == '[' ? ']' : z[0];
      while( z[n] && z[n] != cEnd ) n++;
      if( z[n] ){
        if( sameName(z + 1, n - 1, zFrom) ){
          sqlite3_str_appendf(pStr, "\"%w\"", zTo);
          z += n + 1;
          continue;
        }
        n++;
      }
    }else if( (z[0] & 0x80) || z[0] == '_'
           || ((z[0] | 0x20) >= 'a' && (z[0] | 0x20) <= 'z') ){
      while( (z[n] & 0x80) || z[n] == '_' || z[n] == '$'
          || ((z[n] | 0x20) >= 'a' && (z[n] | 0x20) <= 'z')
          || (z[n] >= '0' && z[n] <= '9') ) n++;
      if( sameName(z, n, zFrom) && (z == zSql || z[-1] != '.') ){
        sqlite3_str_appendf(pStr, "\"%w\"", zTo);
        z += n;
        continue;
      }
    }
    sqlite3_str_append(pStr, z, n);
    z += n;
  }
  return sqlite3_str_finish(pStr);
}

/* widecol_stats() of the design: reset (bReset), or read into pSt. */
static void statsCall(Report *p, ReportDesign *pD, ReportStmt *pSt,
                      int bReset){
  sqlite3_stmt *pStmt = reportPrepare(p, pD, bReset
      ? sqlite3_mprintf("SELECT widecol_stats(%Q, 1)", pD->zName)
      : sqlite3_mprintf("SELECT json_extract(j, '$.seeks'), json_extract(j, "
                        "'$.rows_read'), json_extract(j, '$.rows_returned'), "
                        "j FROM (SELECT widecol_stats(%Q) AS j)", pD->zName));
  int rc;
  if( pStmt == 0 ) return;
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_ROW && !bReset ){
    pSt->nSeek = sqlite3_column_int64(pStmt, 0);
    pSt->nRead = sqlite3_column_int64(pStmt, 1);
    pSt->nOut = sqlite3_column_int64(pStmt, 2);
    pSt->zStats = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 3));
    if( pSt->zStats == 0 ) reportOom(p);
  }
  reportFinish(p, pD, pStmt, rc);
}

/* EXPLAIN QUERY PLAN's lines for a statement. */
static void planOf(Report *p, ReportDesign *pD, ReportStmt *pSt){
  sqlite3_str *pStr;
  sqlite3_stmt *pStmt = reportPrepare(p, pD,
      sqlite3_mprintf("EXPLAIN QUERY PLAN %s", pSt->zSql));
  int rc;
  if( pStmt == 0 ) return;
  pStr = sqlite3_str_new(0);
  while( (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    sqlite3_str_appendf(pStr, "%s%s", sqlite3_str_length(pStr) ? "\n" : "",
                        sqlite3_column_text(pStmt, 3));
  }
  pSt->zPlan = sqlite3_str_finish(pStr);
  reportFinish(p, pD, pStmt, rc);
}

/* The rows parameter values are drawn from: up to this many, spread over
** the key order, each read by its key. */
#define WC_REPORT_PARAM_ROWS 1000

/* Copies rows of design pD spread over its key order into table "sample"
** of pPriv (rowids 1..n); returns n. */
static int64_t paramsSample(Report *p, ReportDesign *pD, sqlite3 *pPriv,
                            const char *zDecl){
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pRead, *pIns = 0;
  int64_t nWant = pD->nRow < WC_REPORT_PARAM_ROWS ? pD->nRow
                                                  : WC_REPORT_PARAM_ROWS;
  int64_t i, nSample = 0;
  int k, rc;
  char *zSql = sqlite3_mprintf("CREATE TABLE sample(%s)", zDecl);
  rc = zSql ? sqlite3_exec(pPriv, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  sqlite3_str_appendall(pStr, "SELECT ");
  for(k = 0; k < pD->pS->nCol; k++){
    if( k ) sqlite3_str_appendall(pStr, ", ");
    wcAppendName(pStr, pD->pS->aCol[k].zName);
  }
  sqlite3_str_appendf(pStr, " FROM %z WHERE rowkey = ?1", tableSql(pD));
  pRead = reportPrepare(p, pD, sqlite3_str_finish(pStr));
  pStr = sqlite3_str_new(0);
  sqlite3_str_appendall(pStr, "INSERT INTO sample VALUES (");
  for(k = 0; k < pD->pS->nCol; k++){
    sqlite3_str_appendall(pStr, k ? ", ?" : "?");
  }
  sqlite3_str_appendall(pStr, ")");
  zSql = sqlite3_str_finish(pStr);
  if( rc == SQLITE_OK ){
    rc = zSql ? sqlite3_prepare_v2(pPriv, zSql, -1, &pIns, 0) : SQLITE_NOMEM;
  }
  sqlite3_free(zSql);
  for(i = 0; pRead && rc == SQLITE_OK && i < nWant; i++){
    int64_t iRow = i * pD->nRow / nWant;
    sqlite3_bind_blob(pRead, 1, pD->keys.a + pD->aiKey[iRow],
                      (int)(pD->aiKey[iRow + 1] - pD->aiKey[iRow]),
                      SQLITE_STATIC);
    if( sqlite3_step(pRead) == SQLITE_ROW ){
      for(k = 0; k < pD->pS->nCol; k++){
        sqlite3_bind_value(pIns, k + 1, sqlite3_column_value(pRead, k));
      }
      sqlite3_step(pIns);
      rc = sqlite3_reset(pIns);
      nSample++;
    }
    sqlite3_reset(pRead);
  }
  sqlite3_finalize(pRead);
  sqlite3_finalize(pIns);
  if( rc != SQLITE_OK && rc != SQLITE_NOMEM ) rc = SQLITE_OK;
  if( rc == SQLITE_NOMEM ) reportOom(p);
  return nSample;
}

/* Learns the workload's parameters and draws a value for each (the first
** time a statement has any).  A failure is no error of the report: the
** statements with parameters are not replayed, and the page says why. */
static void paramsLearn(Report *p, ReportDesign *pD){
  sqlite3 *pPriv = 0;
  sqlite3_str *pStr = sqlite3_str_new(0);
  const char **azCol = 0;
  char *zDecl, *zErr = 0;
  int64_t nSample = 0;
  int k, rc;
  p->eParams = -1;
  for(k = 0; k < pD->pS->nCol; k++){
    if( k ) sqlite3_str_appendall(pStr, ", ");
    wcAppendName(pStr, pD->pS->aCol[k].zName);
    sqlite3_str_appendf(pStr, " %s", pD->pS->aCol[k].zType);
  }
  zDecl = sqlite3_str_finish(pStr);
  azCol = reportAlloc(p, sizeof(char*) * pD->pS->nCol);
  if( zDecl == 0 || azCol == 0 ){
    sqlite3_free(zDecl);
    reportOom(p);
    return;
  }
  for(k = 0; k < pD->pS->nCol; k++) azCol[k] = pD->pS->aCol[k].zName;
  rc = sqlite3_open(":memory:", &pPriv);
  /* widecol's functions there too: a statement may call widecol_now(). */
  if( rc == SQLITE_OK ) rc = p->pHost->xRegister(pPriv, 0, WC_API_ROUTINES);
  if( rc == SQLITE_OK ){
    rc = wcWorkloadLoad(p->db, pPriv, wcTableName(pD->pTab), p->zWorkload,
                        pD->pS->nCol, zDecl, &p->work, &zErr);
  }
  if( rc == SQLITE_OK ) nSample = paramsSample(p, pD, pPriv, zDecl);
  if( rc == SQLITE_OK && nSample == 0 ){
    zErr = sqlite3_mprintf("the table has no rows to draw values from");
    rc = SQLITE_ERROR;
  }
  if( rc == SQLITE_OK ){
    rc = wcWorkloadDraw(pPriv, "sample", nSample, azCol, &p->work,
                        WC_REPORT_DRAWS, 1,
                        &zErr);
  }
  if( rc == SQLITE_NOMEM ){
    reportOom(p);
  }else if( rc == SQLITE_OK ){
    p->eParams = 1;
  }else{
    p->zParamsWhy = sqlite3_mprintf("its parameters could not be given "
                                    "values: %s", zErr ? zErr
                                    : sqlite3_errmsg(pPriv));
  }
  sqlite3_free(zErr);
  sqlite3_free(zDecl);
  sqlite3_free(azCol);
  sqlite3_close(pPriv);
}

/* Why a statement is not replayed, or NULL: the report runs reads only,
** each once, its parameters bound to values drawn from the table's rows.
** Binds them. */
static char *skipWhy(Report *p, int iStmt, sqlite3_stmt *pStmt){
  if( !sqlite3_stmt_readonly(pStmt) ){
    return sqlite3_mprintf("not replayed: it writes, and the report changes "
                           "no data (the writes on the map are the table's "
                           "own rows)");
  }
  if( sqlite3_bind_parameter_count(pStmt) > 0 ){
    if( p->eParams == 0 ) paramsLearn(p, &p->aDesign[0]);
    if( p->eParams < 0 || iStmt >= p->work.nStmt ){
      return sqlite3_mprintf("not replayed: %s", p->zParamsWhy
                             ? p->zParamsWhy : "its parameters could not be "
                             "given values");
    }
  }
  return 0;
}

/* Keeps in pSt the median of its nDraw runs aDraw[] by rows read (the
** lower middle of an even count), the statement as that run ran it, and
** the spread of rows read. */
static void drawMedian(ReportStmt *pSt, ReportStmt *aDraw, int nDraw){
  int aiOrder[WC_REPORT_DRAWS], i, j, m;
  wcAssert( nDraw >= 1 && nDraw <= WC_REPORT_DRAWS );
  for(i = 0; i < nDraw; i++){
    for(j = i; j > 0 && aDraw[aiOrder[j - 1]].nRead > aDraw[i].nRead; j--){
      aiOrder[j] = aiOrder[j - 1];
    }
    aiOrder[j] = i;
  }
  m = aiOrder[(nDraw - 1) / 2];
  pSt->nSeek = aDraw[m].nSeek;
  pSt->nRead = aDraw[m].nRead;
  pSt->nOut = aDraw[m].nOut;
  pSt->nResult = aDraw[m].nResult;
  pSt->zStats = aDraw[m].zStats;
  aDraw[m].zStats = 0;
  if( aDraw[m].zSql ){
    sqlite3_free(pSt->zSql);
    pSt->zSql = aDraw[m].zSql;
    aDraw[m].zSql = 0;
  }
  pSt->nDraw = nDraw;
  pSt->nReadMin = aDraw[aiOrder[0]].nRead;
  pSt->nReadMax = aDraw[aiOrder[nDraw - 1]].nRead;
}

/* Runs statement pSt on design pD under a watch. */
static void replayOne(Report *p, ReportDesign *pD, int iDesign, int iStmt,
                      ReportStmt *pSt){
  sqlite3_stmt *pStmt = 0;
  ReportStmt *aDraw;
  WcClockState clock;
  Watch watch;
  int b, d, nDraw, rc = SQLITE_DONE;
  rc = sqlite3_prepare_v2(p->db, pSt->zSql, -1, &pStmt, 0);
  if( rc != SQLITE_OK || pStmt == 0 ){
    char *zWhy = rc == SQLITE_OK ? sqlite3_mprintf("it holds no statement")
                                 : sqlite3_mprintf("%s", sqlite3_errmsg(p->db));
    if( iDesign == 0 ){
      reportFail(p, rc == SQLITE_OK ? SQLITE_ERROR : rc,
                 sqlite3_mprintf("widecol_report(%s): workload statement %d "
                                 "does not prepare: %s; the workload query "
                                 "returns (sql, weight) rows, each one "
                                 "statement on the table", pD->zName,
                                 iStmt + 1, zWhy));
    }else{
      pSt->zSkipped = sqlite3_mprintf("not replayed: on %s it does not "
                                      "prepare: %s", pD->zName, zWhy);
    }
    sqlite3_free(zWhy);
    sqlite3_finalize(pStmt);
    return;
  }
  pSt->iFirst = pSt->iLast = -1;
  pSt->zSkipped = skipWhy(p, iStmt, pStmt);
  if( pSt->zSkipped || p->rc ){
    sqlite3_finalize(pStmt);
    return;
  }
  /* A statement with parameters runs once per draw: one value drawn from
  ** a cold device would stand for the query.  The page shows the median
  ** draw (by rows read), as run, and the spread. */
  nDraw = sqlite3_bind_parameter_count(pStmt) > 0 ? WC_REPORT_DRAWS : 1;
  aDraw = reportAlloc(p, sizeof(ReportStmt) * nDraw);
  watch.pD = pD;
  watch.rWeight = pSt->rWeight / nDraw;
  watch.abTouched = reportAlloc(p, pD->nBucket);
  for(d = 0; d < nDraw && p->rc == SQLITE_OK; d++){
    ReportStmt *pOne = &aDraw[d];
    if( nDraw > 1 ){
      sqlite3_reset(pStmt);
      wcWorkloadBind(&p->work, iStmt, d, pStmt);
      pOne->zSql = sqlite3_expanded_sql(pStmt);
      if( pOne->zSql == 0 ) reportOom(p);
    }
    statsCall(p, pD, pOne, 1);
    if( p->rc ) break;
    wcTableWatch(pD->pTab, watchRow, &watch);
    if( pD->iLatest > 0 ) wcTablePinClock(pD->pTab, pD->iLatest, &clock);
    while( (rc = sqlite3_step(pStmt)) == SQLITE_ROW ) pOne->nResult++;
    if( pD->iLatest > 0 ) wcTableRestoreClock(pD->pTab, &clock);
    wcTableWatch(pD->pTab, 0, 0);
    if( rc != SQLITE_DONE ){
      reportFail(p, rc, sqlite3_mprintf("widecol_report(%s): workload "
                                        "statement %d failed: %s", pD->zName,
                                        iStmt + 1, sqlite3_errmsg(p->db)));
    }
    statsCall(p, pD, pOne, 0);
  }
  sqlite3_finalize(pStmt);
  if( p->rc == SQLITE_OK ) drawMedian(pSt, aDraw, nDraw);
  for(d = 0; aDraw && d < nDraw; d++){
    sqlite3_free(aDraw[d].zSql);
    sqlite3_free(aDraw[d].zStats);
  }
  sqlite3_free(aDraw);
  planOf(p, pD, pSt);
  for(b = 0; p->rc == SQLITE_OK && b < pD->nBucket; b++){
    if( !watch.abTouched[b] ) continue;
    pD->aRead[b] += pSt->rWeight;
    if( pSt->iFirst < 0 ) pSt->iFirst = b;
    pSt->iLast = b;
    pSt->nTouched++;
  }
  sqlite3_free(watch.abTouched);
}

/* The workload's rows: (sql, weight), read once for every design. */
static void workloadRead(Report *p, ReportDesign *pD, char ***pazSql,
                         double **paWeight, int *pnStmt){
  sqlite3_stmt *pStmt = 0;
  int nAlloc = 0, rc;
  if( p->rc ) return;
  rc = sqlite3_prepare_v2(p->db, p->zWorkload, -1, &pStmt, 0);
  if( rc != SQLITE_OK || pStmt == 0 || sqlite3_column_count(pStmt) < 1
   || !sqlite3_stmt_readonly(pStmt) ){
    reportFail(p, rc == SQLITE_OK ? SQLITE_ERROR : rc,
               sqlite3_mprintf("widecol_report: the workload must be one "
                               "query that only reads and returns (sql, "
                               "weight) rows, as in 'SELECT sql, weight FROM "
                               "workload'; got %Q%s%s", p->zWorkload,
                               rc ? ": " : "", rc ? sqlite3_errmsg(p->db)
                                                  : ""));
    sqlite3_finalize(pStmt);
    return;
  }
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    const char *zSql = (const char*)sqlite3_column_text(pStmt, 0);
    int eWeight = sqlite3_column_count(pStmt) > 1
                ? sqlite3_column_type(pStmt, 1) : SQLITE_INTEGER;
    double rWeight = sqlite3_column_count(pStmt) > 1
                   ? sqlite3_column_double(pStmt, 1) : 1.0;
    if( zSql == 0 || (eWeight != SQLITE_INTEGER && eWeight != SQLITE_FLOAT)
     || !(rWeight > 0.0) ){
      reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: workload "
                 "row %d has %s; each row is a statement and a weight above "
                 "0, how often it runs relative to the others (as "
                 "widecol_advise takes them)", *pnStmt + 1,
                 zSql ? "a weight that is not a number above 0"
                      : "no statement (sql is NULL)"));
      break;
    }
    if( *pnStmt >= nAlloc ){
      int nNew = nAlloc ? nAlloc * 2 : 8;
      char **az = sqlite3_realloc64(*pazSql, sizeof(char*) * nNew);
      double *ar = az ? sqlite3_realloc64(*paWeight, sizeof(double) * nNew) : 0;
      if( az ) *pazSql = az;
      if( ar == 0 ){
        reportOom(p);
        break;
      }
      *paWeight = ar;
      nAlloc = nNew;
    }
    (*pazSql)[*pnStmt] = sqlite3_mprintf("%s", zSql);
    (*paWeight)[*pnStmt] = rWeight;
    if( (*pazSql)[(*pnStmt)++] == 0 ) reportOom(p);
  }
  reportFinish(p, pD, pStmt, rc);
}

static void replayWorkload(Report *p, char **azSql, const double *aWeight,
                           int nStmt){
  int d, i;
  for(d = 0; d < p->nDesign && p->rc == SQLITE_OK; d++){
    ReportDesign *pD = &p->aDesign[d];
    const char *zFrom = wcTableName(p->aDesign[0].pTab);
    pD->aStmt = reportAlloc(p, sizeof(ReportStmt) * nStmt);
    if( pD->aStmt == 0 ) return;
    pD->nStmt = nStmt;
    for(i = 0; i < nStmt && p->rc == SQLITE_OK; i++){
      ReportStmt *pSt = &pD->aStmt[i];
      pSt->rWeight = aWeight[i];
      pSt->iFirst = pSt->iLast = -1;
      pSt->zSql = d == 0 ? sqlite3_mprintf("%s", azSql[i])
                         : renameTable(azSql[i], zFrom, wcTableName(pD->pTab));
      if( pSt->zSql == 0 ){
        reportOom(p);
        return;
      }
      replayOne(p, pD, d, i, pSt);
    }
  }
}

/*
** Warnings and flags, from the lint's thresholds.
*/

static int cmpDoubleDesc(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Adds warning zWarn (owned) above design pD's map. */
static void warnAdd(Report *p, ReportDesign *pD, char *zWarn){
  char **azNew = zWarn ? sqlite3_realloc64(pD->azWarn, sizeof(char*)
                                           * (pD->nWarn + 1)) : 0;
  if( azNew == 0 ){
    sqlite3_free(zWarn);
    reportOom(p);
    return;
  }
  pD->azWarn = azNew;
  pD->azWarn[pD->nWarn++] = zWarn;
}

/* Warns when WC_LINT_SHARE of a[] falls in at most 1/WC_LINT_PREFIXES of
** the buckets: the key ranges lint's hotspot fix spreads writes over. */
static void warnConcentration(Report *p, ReportDesign *pD, const double *a,
                              const char *zWhat, const char *zWhy){
  double *aSorted, rTotal = 0.0, rSum = 0.0;
  int b, k = 0;
  if( pD->nBucket < WC_LINT_PREFIXES ) return;
  aSorted = reportAlloc(p, sizeof(double) * pD->nBucket);
  if( aSorted == 0 ) return;
  memcpy(aSorted, a, sizeof(double) * pD->nBucket);
  qsort(aSorted, pD->nBucket, sizeof(double), cmpDoubleDesc);
  for(b = 0; b < pD->nBucket; b++) rTotal += aSorted[b];
  while( rTotal > 0.0 && k < pD->nBucket && rSum < WC_LINT_SHARE * rTotal ){
    rSum += aSorted[k++];
  }
  sqlite3_free(aSorted);
  if( rTotal <= 0.0 || k * WC_LINT_PREFIXES > pD->nBucket ) return;
  warnAdd(p, pD, sqlite3_mprintf("%.0f%% of %s fall in %d of the %d key "
                                 "buckets (%.1f%% of the rows): %s",
                                 100.0 * rSum / rTotal, zWhat, k, pD->nBucket,
                                 100.0 * k / pD->nBucket, zWhy));
}

/* A hot key the lint found (one value of the key's leading entity with
** WC_HOT_SKEW times an even share of the rows, or more): said above the
** map too, with the finding's figures; its fix is among the findings. */
static void warnHotKey(Report *p, ReportDesign *pD){
  const ReportRows *pL = &pD->lint;
  int r;
  for(r = 0; r < pL->nRow; r++){
    const char *zRule = pL->azCell[r * pL->nCol + 1];
    const char *zKey = pL->azCell[r * pL->nCol + 2];
    const char *zFinding = pL->azCell[r * pL->nCol + 4];
    if( zRule == 0 || strcmp(zRule, "hot-key") != 0 || zFinding == 0 ){
      continue;
    }
    warnAdd(p, pD, sqlite3_mprintf("A hot key in %s: %s (widecol_lint's "
                                   "hot-key; its fix is under Findings)",
                                   zKey ? zKey : "the key", zFinding));
  }
}

static void warnings(Report *p, ReportDesign *pD){
  char *zWhat = sqlite3_mprintf("the %lld writes of the last time column",
                                pD->nRecent);
  if( zWhat == 0 ){
    reportOom(p);
    return;
  }
  if( pD->zOrder ){
    warnConcentration(p, pD, pD->aRecent, zWhat, "a hotspot (widecol_lint's "
        "hotspot rule: 90% of the writes in under a sixteenth of the key "
        "space); one region server takes them all. A bucket in front "
        "(BUCKET(16, ...), the lint's fix) spreads them over 16 key ranges");
  }
  sqlite3_free(zWhat);
  warnHotKey(p, pD);
  warnConcentration(p, pD, pD->aScan, "the rows the workload read",
      "read pressure on few key ranges (the same 90% in a sixteenth); "
      "the servers holding them serve every read");
}

/* A lint finding of a scan rule on a column the statement names. */
static const char *flagFinding(const ReportDesign *pD, const ReportStmt *pSt,
                               int *piRow){
  static const char *const azRule[] = {
    "unserved-range", "allow-filtering", "salted-range", "unordered-range"
  };
  const ReportRows *pL = &pD->lint;
  int r, k, iAny = -1;
  for(r = 0; r < pL->nRow; r++){
    const char *zRule = pL->azCell[r * pL->nCol + 1];
    const char *zElem = pL->azCell[r * pL->nCol + 3];
    for(k = 0; k < (int)(sizeof(azRule) / sizeof(azRule[0])); k++){
      if( zRule == 0 || strcmp(zRule, azRule[k]) != 0 ) continue;
      if( iAny < 0 ) iAny = r;
      if( zElem && zElem[0] ){
        /* The element's column: its first word. */
        int n = (int)strcspn(zElem, " (");
        char *zPat = sqlite3_mprintf("%%%.*s%%", n, zElem);
        int bHit = zPat && sqlite3_strlike(zPat, pSt->zSql, 0) == 0;
        sqlite3_free(zPat);
        if( bHit ){
          *piRow = r;
          return zRule;
        }
      }
    }
  }
  *piRow = iAny;
  return iAny >= 0 ? pL->azCell[iAny * pL->nCol + 1] : 0;
}

/* True if the plan has widecol read rows its key ranges do not narrow:
** a full scan, or a FILTER after the ranges. */
static int planFilters(const char *zPlan){
  return zPlan && (strstr(zPlan, "FULL SCAN") || strstr(zPlan, "FILTER "));
}

static void flags(Report *p, ReportDesign *pD){
  int i;
  for(i = 0; i < pD->nStmt && p->rc == SQLITE_OK; i++){
    ReportStmt *pSt = &pD->aStmt[i];
    int iRow;
    const char *zRule;
    if( pSt->zSkipped || !planFilters(pSt->zPlan)
     || pSt->nRead < WC_REPORT_READ_RATIO
     || pSt->nRead < WC_REPORT_READ_RATIO
                     * (pSt->nResult ? pSt->nResult : 1) ){
      continue;
    }
    zRule = flagFinding(pD, pSt, &iRow);
    if( zRule ){
      const ReportRows *pL = &pD->lint;
      const char *zFix = pL->azCell[iRow * pL->nCol + 5];
      pSt->zFlag = sqlite3_mprintf("reads %lld rows for %lld result rows, "
                                   "filtering what its key ranges do not "
                                   "narrow. widecol_lint, %s: %s.%s%s",
                                   pSt->nRead, pSt->nResult, zRule,
                                   pL->azCell[iRow * pL->nCol + 4],
                                   zFix ? " Fix: " : "", zFix ? zFix : "");
    }else{
      pSt->zFlag = sqlite3_mprintf("reads %lld rows for %lld result rows, "
                                   "filtering what its key ranges do not "
                                   "narrow: its WHERE clause leaves the "
                                   "key's leading fields open; key the table "
                                   "(or an INDEX) by what it fixes with =",
                                   pSt->nRead, pSt->nResult);
    }
    if( pSt->zFlag == 0 ) reportOom(p);
  }
}

/*
** The function.
*/

/* Finds design pD's table, its CREATE statement and what it is. */
static void designOpen(Report *p, ReportDesign *pD, const char *zName){
  char *zErr = 0;
  sqlite3_stmt *pStmt;
  const WcStore *pStore;
  int rc;
  pD->zName = sqlite3_mprintf("%s", zName);
  if( pD->zName == 0 ){
    reportOom(p);
    return;
  }
  rc = wcTableLookup(p->db, zName, "widecol_report", &pD->pTab, &zErr);
  if( rc != SQLITE_OK ){
    reportFail(p, rc, zErr);
    return;
  }
  pD->pS = wcTableSchema(pD->pTab);
  pStore = wcTableStore(pD->pTab);
  pD->zStore = wcStoreKind(pD->pS->eStore)->pKind->zEngine;
  pD->bCassandra = pD->pS->nElem > 0 && pD->pS->aElem[0].eKind == WC_ELEM_SALT
                && pD->pS->aElem[0].bToken;
  pStmt = reportPrepare(p, pD, sqlite3_mprintf("SELECT sql FROM \"%w\"."
                        "sqlite_schema WHERE type = 'table' AND name = %Q",
                        pStore->zDb, pStore->zName));
  if( pStmt == 0 ) return;
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_ROW ){
    pD->zCreate = sqlite3_mprintf("%s;", sqlite3_column_text(pStmt, 0));
    if( pD->zCreate == 0 ) reportOom(p);
  }
  reportFinish(p, pD, pStmt, rc);
}

/* What the design's engine counted on its regions, where it tells that
** (widecol_regions('<table>')'s write_requests: HBase): each bucket gets
** the writes counted on the region holding its first row, a region's
** total, so that the strip beside the heatmap shows which region the
** engine found hottest.  Nothing where the rows are in this database or
** the engine counts nothing. */
static void readMeasured(Report *p, ReportDesign *pD){
  sqlite3_stmt *pStmt;
  int64_t *aiFirst = 0;
  double *aWrites = 0;
  int nRegion = 0, nAlloc = 0, b, r, rc = SQLITE_DONE;
  if( !wcStoreCaps(wcTableStore(pD->pTab))->bRegionLoads ) return;
  pStmt = reportPrepare(p, pD, sqlite3_mprintf("SELECT start_key, "
                        "write_requests FROM widecol_regions(%Q)", pD->zName));
  if( pStmt == 0 ) return;
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    if( sqlite3_column_type(pStmt, 1) == SQLITE_NULL ) continue;
    if( nRegion >= nAlloc ){
      int nNew = nAlloc ? 2 * nAlloc : 16;
      int64_t *aiNew = sqlite3_realloc64(aiFirst, sizeof(int64_t) * nNew);
      double *aNew = aiNew ? sqlite3_realloc64(aWrites, sizeof(double) * nNew)
                           : 0;
      if( aiNew ) aiFirst = aiNew;
      if( aNew == 0 ){
        reportOom(p);
        break;
      }
      aWrites = aNew;
      nAlloc = nNew;
    }
    aiFirst[nRegion] = sqlite3_column_type(pStmt, 0) == SQLITE_NULL ? 0
        : keyLowerBound(pD, sqlite3_column_blob(pStmt, 0),
                        sqlite3_column_bytes(pStmt, 0));
    aWrites[nRegion++] = sqlite3_column_double(pStmt, 1);
  }
  reportFinish(p, pD, pStmt, rc);
  if( p->rc == SQLITE_OK && nRegion > 0 ){
    pD->aMeasured = reportAlloc(p, sizeof(double) * pD->nBucket);
    pD->zMeasured = sqlite3_mprintf("SELECT * FROM widecol_regions(%Q)",
                                    pD->zName);
    if( pD->zMeasured == 0 ) reportOom(p);
    /* Regions come in key order: the last one starting at or before a
    ** bucket's first row holds it. */
    for(b = 0, r = 0; pD->aMeasured && b < pD->nBucket; b++){
      while( r + 1 < nRegion && aiFirst[r + 1] <= pD->aiBucket[b] ) r++;
      wcAssert( r == 0 || aiFirst[r] <= pD->aiBucket[b] );
      pD->aMeasured[b] = aWrites[r];
    }
  }
  sqlite3_free(aiFirst);
  sqlite3_free(aWrites);
}

/* Everything the page shows of one design but its workload. */
static void designRead(Report *p, ReportDesign *pD){
  readKeys(p, pD);
  /* By default a region holds a sixteenth of the rows, the key ranges the
  ** lint's rules and the advisor count in (WC_LINT_PREFIXES): a hot
  ** entity's region then shows the skew the lint's hot-key names. */
  pD->nRegionMax = p->nRegionRows > 0 ? p->nRegionRows
                 : (pD->nRow + WC_LINT_PREFIXES - 1) / WC_LINT_PREFIXES;
  if( pD->nRegionMax < 2 ) pD->nRegionMax = 2;
  pD->pRegionSim = wcRegionSimNew(pD->nRegionMax);
  if( pD->pRegionSim == 0
   || wcRegionSimSorted(pD->pRegionSim, pD->keys.a, pD->aiKey,
                        (int)pD->nRow) ){
    reportOom(p);
  }
  readSample(p, pD);
  bucketsMake(p, pD);
  if( p->rc == SQLITE_OK ) orderChoose(p, pD);
  if( p->rc == SQLITE_OK ) readWrites(p, pD);
  if( p->rc == SQLITE_OK ) readRegions(p, pD);
  if( p->rc == SQLITE_OK ) readMeasured(p, pD);
  if( p->rc == SQLITE_OK && pD->bCassandra ) readRing(p, pD);
}

static void rowsFree(ReportRows *pR){
  int i;
  for(i = 0; i < pR->nRow * pR->nCol; i++) sqlite3_free(pR->azCell[i]);
  sqlite3_free(pR->azCell);
  sqlite3_free(pR->zSql);
}

static void designFree(ReportDesign *pD){
  int i;
  sqlite3_free(pD->zName);
  sqlite3_free(pD->zCreate);
  wcBufFree(&pD->keys);
  sqlite3_free(pD->aiKey);
  sqlite3_free(pD->aRowBytes);
  for(i = 0; pD->azSample && i < WC_REPORT_SAMPLE_ROWS * (pD->pS->nCol + 1);
      i++){
    sqlite3_free(pD->azSample[i]);
  }
  sqlite3_free(pD->azSample);
  sqlite3_free(pD->aiBucket);
  sqlite3_free(pD->aCell);
  sqlite3_free(pD->aWrite);
  sqlite3_free(pD->aRead);
  sqlite3_free(pD->aScan);
  sqlite3_free(pD->aRecent);
  sqlite3_free(pD->aMeasured);
  sqlite3_free(pD->zMeasured);
  sqlite3_free(pD->zOrder);
  sqlite3_free(pD->zOrderWhy);
  for(i = 0; pD->azColumnLabel && i < pD->nColumn; i++){
    sqlite3_free(pD->azColumnLabel[i]);
  }
  sqlite3_free(pD->azColumnLabel);
  sqlite3_free(pD->zBigPartition);
  rowsFree(&pD->regions);
  wcRegionSimFree(pD->pRegionSim);
  rowsFree(&pD->ring);
  rowsFree(&pD->lint);
  sqlite3_free(pD->aRegionBytes);
  for(i = 0; i < pD->nStmt; i++){
    ReportStmt *pSt = &pD->aStmt[i];
    sqlite3_free(pSt->zSql);
    sqlite3_free(pSt->zSkipped);
    sqlite3_free(pSt->zStats);
    sqlite3_free(pSt->zPlan);
    sqlite3_free(pSt->zFlag);
  }
  sqlite3_free(pD->aStmt);
  for(i = 0; i < pD->nWarn; i++) sqlite3_free(pD->azWarn[i]);
  sqlite3_free(pD->azWarn);
}

/* An integer option from lo to hi. */
static int optionInt(Report *p, sqlite3_stmt *pEach, const char *zKey,
                     int lo, int hi, const char *zWhat){
  sqlite3_int64 v = sqlite3_column_int64(pEach, 2);
  if( sqlite3_column_type(pEach, 2) != SQLITE_INTEGER || v < lo || v > hi ){
    reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the option "
               "\"%s\" must be an integer from %d to %d (%s); got %s", zKey,
               lo, hi, zWhat, sqlite3_column_text(pEach, 3)));
    return 0;
  }
  return (int)v;
}

/* Reads the options object: compare, buckets, region_rows, nodes,
** order.  The names to compare go to azCompare. */
static void optionsRead(Report *p, const char *zJson, char **azCompare,
                        int *pnCompare){
  sqlite3_stmt *pEach = 0;
  int rc = sqlite3_prepare_v2(p->db, "SELECT key, type, value, CASE WHEN "
                              "type IN ('object', 'array') THEN value ELSE "
                              "json_quote(value) END FROM json_each(?1) "
                              "WHERE json_type(?1) = 'object'", -1, &pEach, 0);
  int nKey = 0;
  if( rc == SQLITE_OK ){
    sqlite3_bind_text(pEach, 1, zJson, -1, SQLITE_STATIC);
  }
  while( rc == SQLITE_OK && p->rc == SQLITE_OK ){
    const char *zKey;
    rc = sqlite3_step(pEach);
    if( rc != SQLITE_ROW ) break;
    rc = SQLITE_OK;
    zKey = (const char*)sqlite3_column_text(pEach, 0);
    nKey++;
    if( strcmp(zKey, "buckets") == 0 ){
      p->nBucketWanted = optionInt(p, pEach, zKey, 1, WC_REPORT_MAX_BUCKETS,
                                   "the key buckets of the heatmap");
    }else if( strcmp(zKey, "region_rows") == 0 ){
      p->nRegionRows = optionInt(p, pEach, zKey, 2, 2147483647,
                                 "the rows at which a simulated region splits");
    }else if( strcmp(zKey, "nodes") == 0 ){
      p->nNodes = optionInt(p, pEach, zKey, 1, 10000,
                            "the nodes of the simulated Cassandra ring");
    }else if( strcmp(zKey, "advise") == 0 ){
      p->nAdvise = optionInt(p, pEach, zKey, 1, WC_REPORT_MAX_DESIGNS,
                             "widecol_advise's top designs, side by side");
    }else if( strcmp(zKey, "order") == 0 ){
      const char *z = (const char*)sqlite3_column_text(pEach, 2);
      if( sqlite3_column_type(pEach, 2) != SQLITE_TEXT || z[0] == 0 ){
        reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the "
                   "option \"order\" must be text: a column or an SQL "
                   "expression over the columns that orders the writes; got "
                   "%s", sqlite3_column_text(pEach, 3)));
      }else if( (p->zOrderOpt = sqlite3_mprintf("%s", z)) == 0 ){
        reportOom(p);
      }
    }else if( strcmp(zKey, "compare") == 0 ){
      sqlite3_stmt *pArr = 0;
      int rc2 = sqlite3_prepare_v2(p->db, "SELECT value, type FROM "
                                   "json_each(?1)", -1, &pArr, 0);
      const char *zType = (const char*)sqlite3_column_text(pEach, 1);
      if( rc2 == SQLITE_OK ){
        sqlite3_bind_text(pArr, 1, (const char*)sqlite3_column_text(pEach, 3),
                          -1, SQLITE_TRANSIENT);
      }
      while( rc2 == SQLITE_OK && strcmp(zType, "array") == 0
          && p->rc == SQLITE_OK && sqlite3_step(pArr) == SQLITE_ROW ){
        const char *zT = (const char*)sqlite3_column_text(pArr, 1);
        if( strcmp(zT, "text") != 0 ){
          zType = "bad";
        }else if( *pnCompare >= WC_REPORT_MAX_DESIGNS - 1 ){
          reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: "
                     "\"compare\" names at most %d tables",
                     WC_REPORT_MAX_DESIGNS - 1));
        }else{
          azCompare[*pnCompare] = sqlite3_mprintf("%s",
                                      sqlite3_column_text(pArr, 0));
          if( azCompare[(*pnCompare)++] == 0 ) reportOom(p);
        }
      }
      sqlite3_finalize(pArr);
      if( rc2 != SQLITE_OK ){
        rc = rc2;
      }else if( strcmp(zType, "array") != 0 && p->rc == SQLITE_OK ){
        reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the "
                   "option \"compare\" must be an array of table names, as "
                   "in {\"compare\": [\"payments_by_date\"]}; got %s",
                   sqlite3_column_text(pEach, 3)));
      }
    }else{
      reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: unknown "
                 "option \"%s\"; the options are compare, buckets, "
                 "region_rows, nodes, order and advise", zKey));
    }
  }
  sqlite3_finalize(pEach);
  if( rc != SQLITE_OK && rc != SQLITE_DONE && p->rc == SQLITE_OK ){
    reportFail(p, rc, sqlite3_mprintf("widecol_report: the options must be "
               "a JSON object, as in '{\"buckets\": 200}'; %s",
               sqlite3_errmsg(p->db)));
  }else if( p->rc == SQLITE_OK && nKey == 0 ){
    /* An empty object is fine; anything else that json_each did not walk
    ** is not an object. */
    sqlite3_stmt *pObj = 0;
    if( sqlite3_prepare_v2(p->db, "SELECT json_type(?1) = 'object'", -1,
                           &pObj, 0) == SQLITE_OK ){
      sqlite3_bind_text(pObj, 1, zJson, -1, SQLITE_STATIC);
      if( sqlite3_step(pObj) != SQLITE_ROW
       || sqlite3_column_int(pObj, 0) != 1 ){
        reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the "
                   "options must be a JSON object, as in '{\"buckets\": "
                   "200}'; got %Q", zJson));
      }
    }
    sqlite3_finalize(pObj);
  }
}

/*
** The advisor's designs.  widecol_advise answers with designs as DDL; the
** report builds the top ones on a connection of its own (made and
** dropped there, never in the caller's schemas, which a running
** statement holds), copies the source's rows and the workload in (the
** statements naming the first design), and makes their page there.
*/

/* The statement that copies the source's rows into design zTab: the
** source's columns, by name. */
static char *advisedInsert(sqlite3_stmt *pRead, const char *zTab){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i, n = sqlite3_column_count(pRead);
  sqlite3_str_appendf(pStr, "INSERT INTO \"%w\"(", zTab);
  for(i = 0; i < n; i++){
    sqlite3_str_appendf(pStr, "%s\"%w\"", i ? ", " : "",
                        sqlite3_column_name(pRead, i));
  }
  sqlite3_str_appendall(pStr, ") VALUES (");
  for(i = 0; i < n; i++) sqlite3_str_appendall(pStr, i ? ", ?" : "?");
  sqlite3_str_appendall(pStr, ")");
  return sqlite3_str_finish(pStr);
}

/* Makes design k (its DDL from the advisor, renamed advised_<k>) on
** pPriv. */
static void advisedCreate(Report *p, sqlite3 *pPriv, const char *zDdl, int k){
  const char *zUsing = strstr(zDdl, " USING widecol(");
  char *zSql = zUsing ? sqlite3_mprintf("CREATE VIRTUAL TABLE advised_%d%s", k,
                                        zUsing) : 0;
  if( zUsing == 0 ){
    reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: "
               "widecol_advise answered %Q, not a CREATE VIRTUAL TABLE",
               zDdl));
  }else if( zSql == 0 ){
    reportOom(p);
  }else if( sqlite3_exec(pPriv, zSql, 0, 0, 0) != SQLITE_OK ){
    reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the "
               "advisor's design %d could not be made: %s", k,
               sqlite3_errmsg(pPriv)));
  }
  sqlite3_free(zSql);
}

/* Copies the source's rows into the nDesign designs, and the workload,
** its statements naming advised_1. */
static void advisedFill(Report *p, sqlite3 *pPriv, const char *zSource,
                        int nDesign){
  sqlite3_stmt *pRead = 0, *apIns[WC_REPORT_MAX_DESIGNS];
  char **azSql = 0;
  double *aWeight = 0;
  int nStmt = 0, k, i, rc;
  char *zSql = sqlite3_mprintf("SELECT * FROM \"%w\"", zSource);
  memset(apIns, 0, sizeof(apIns));
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pRead, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  for(k = 0; rc == SQLITE_OK && k < nDesign; k++){
    char zTab[32];
    sqlite3_snprintf(sizeof(zTab), zTab, "advised_%d", k + 1);
    zSql = advisedInsert(pRead, zTab);
    rc = zSql ? sqlite3_prepare_v2(pPriv, zSql, -1, &apIns[k], 0)
              : SQLITE_NOMEM;
    sqlite3_free(zSql);
  }
  if( rc == SQLITE_OK ) rc = sqlite3_exec(pPriv, "BEGIN", 0, 0, 0);
  while( rc == SQLITE_OK && (rc = sqlite3_step(pRead)) == SQLITE_ROW ){
    rc = SQLITE_OK;
    for(k = 0; rc == SQLITE_OK && k < nDesign; k++){
      for(i = 0; i < sqlite3_column_count(pRead); i++){
        sqlite3_bind_value(apIns[k], i + 1, sqlite3_column_value(pRead, i));
      }
      sqlite3_step(apIns[k]);
      rc = sqlite3_reset(apIns[k]);
    }
  }
  if( rc == SQLITE_DONE ) rc = sqlite3_exec(pPriv, "COMMIT", 0, 0, 0);
  if( rc != SQLITE_OK ){
    reportFail(p, rc, sqlite3_mprintf("widecol_report: copying %s's rows "
               "into the advisor's designs failed: %s", zSource,
               sqlite3_errmsg(pPriv)));
  }
  sqlite3_finalize(pRead);
  for(k = 0; k < nDesign; k++) sqlite3_finalize(apIns[k]);
  workloadRead(p, &p->aDesign[0], &azSql, &aWeight, &nStmt);
  if( p->rc == SQLITE_OK ){
    sqlite3_stmt *pIns = 0;
    rc = sqlite3_exec(pPriv, "CREATE TABLE workload(sql TEXT, weight REAL)",
                      0, 0, 0);
    if( rc == SQLITE_OK ){
      rc = sqlite3_prepare_v2(pPriv, "INSERT INTO workload VALUES (?1, ?2)",
                              -1, &pIns, 0);
    }
    for(i = 0; rc == SQLITE_OK && i < nStmt; i++){
      char *zStmt = renameTable(azSql[i], zSource, "advised_1");
      sqlite3_bind_text(pIns, 1, zStmt, -1, sqlite3_free);
      sqlite3_bind_double(pIns, 2, aWeight[i]);
      sqlite3_step(pIns);
      rc = sqlite3_reset(pIns);
    }
    sqlite3_finalize(pIns);
    if( rc != SQLITE_OK ) reportFail(p, rc, 0);
  }
  for(i = 0; i < nStmt; i++) sqlite3_free(azSql[i]);
  sqlite3_free(azSql);
  sqlite3_free(aWeight);
}

/* The page of the advisor's top p->nAdvise designs for source zSource,
** side by side; the other options (zOptions) apply to it.  NULL with
** p->rc set on error. */
static char *advisedPage(Report *p, const WcReportHost *pHost,
                         const char *zSource, const char *zOptions){
  sqlite3 *pPriv = 0;
  sqlite3_stmt *pAdvise = 0, *pPage = 0;
  char *zPage = 0;
  int nDesign = 0, k, rc;
  if( p->zWorkload == 0 ){
    reportFail(p, SQLITE_ERROR, sqlite3_mprintf("widecol_report: the "
               "\"advise\" option needs the workload the advisor designs "
               "for, as in widecol_report('payments', 'SELECT sql, weight "
               "FROM workload', '{\"advise\": 3}')"));
    return 0;
  }
  rc = sqlite3_open_v2(":memory:", &pPriv, SQLITE_OPEN_READWRITE
                       | SQLITE_OPEN_CREATE, 0);
  if( rc == SQLITE_OK ) rc = pHost->xRegister(pPriv, 0, WC_API_ROUTINES);
  if( rc == SQLITE_OK ){
    rc = sqlite3_prepare_v2(p->db, "SELECT ddl FROM widecol_advise(?1, ?2, "
                            "json_object('candidates', ?3)) ORDER BY rank",
                            -1, &pAdvise, 0);
  }
  if( rc != SQLITE_OK ){
    reportFail(p, rc, 0);
    sqlite3_close(pPriv);
    return 0;
  }
  sqlite3_bind_text(pAdvise, 1, zSource, -1, SQLITE_STATIC);
  sqlite3_bind_text(pAdvise, 2, p->zWorkload, -1, SQLITE_STATIC);
  sqlite3_bind_int(pAdvise, 3, p->nAdvise);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pAdvise)) == SQLITE_ROW ){
    advisedCreate(p, pPriv, (const char*)sqlite3_column_text(pAdvise, 0),
                  ++nDesign);
  }
  if( p->rc == SQLITE_OK && rc != SQLITE_DONE ){
    /* The advisor's own message: its source, its workload. */
    reportFail(p, rc, sqlite3_mprintf("%s", sqlite3_errmsg(p->db)));
  }
  sqlite3_finalize(pAdvise);
  if( p->rc == SQLITE_OK ) advisedFill(p, pPriv, zSource, nDesign);
  if( p->rc == SQLITE_OK ){
    /* The caller's options, the advisor's designs compared. */
    sqlite3_str *pCompare = sqlite3_str_new(0);
    char *zCompare;
    sqlite3_str_appendall(pCompare, "[");
    for(k = 2; k <= nDesign; k++){
      sqlite3_str_appendf(pCompare, "%s\"advised_%d\"", k > 2 ? ", " : "", k);
    }
    sqlite3_str_appendall(pCompare, "]");
    zCompare = sqlite3_str_finish(pCompare);
    rc = sqlite3_prepare_v2(pPriv, "SELECT widecol_report('advised_1', "
                            "'SELECT sql, weight FROM workload', json_set("
                            "json_remove(?1, '$.advise'), '$.compare', "
                            "json(?2)))", -1, &pPage, 0);
    if( rc == SQLITE_OK ){
      sqlite3_bind_text(pPage, 1, zOptions, -1, SQLITE_STATIC);
      sqlite3_bind_text(pPage, 2, zCompare, -1, SQLITE_STATIC);
      rc = sqlite3_step(pPage);
    }
    if( rc == SQLITE_ROW ){
      zPage = sqlite3_mprintf("%s", sqlite3_column_text(pPage, 0));
      if( zPage == 0 ) reportOom(p);
    }else{
      reportFail(p, rc, sqlite3_mprintf("%s", sqlite3_errmsg(pPriv)));
    }
    sqlite3_finalize(pPage);
    sqlite3_free(zCompare);
  }
  sqlite3_close(pPriv);
  return zPage;
}

void wcReportFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Report *p;
  char *azCompare[WC_REPORT_MAX_DESIGNS];
  char **azSql = 0;
  double *aWeight = 0;
  int nCompare = 0, nStmt = 0, i;
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  sqlite3_str *pOut;
  if( zName == 0 ){
    sqlite3_result_error(ctx, "widecol_report: name the table, as in "
                         "SELECT widecol_report('payments')", -1);
    return;
  }
  p = sqlite3_malloc64(sizeof(Report));
  if( p == 0 ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  memset(p, 0, sizeof(*p));
  p->db = sqlite3_context_db_handle(ctx);
  p->pHost = (const WcReportHost*)sqlite3_user_data(ctx);
  p->nBucketWanted = WC_REPORT_BUCKETS;
  p->nNodes = 6;
  if( argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL ){
    p->zWorkload = sqlite3_mprintf("%s", sqlite3_value_text(argv[1]));
    if( p->zWorkload == 0 ) reportOom(p);
  }
  if( argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL ){
    optionsRead(p, (const char*)sqlite3_value_text(argv[2]), azCompare,
                &nCompare);
  }
  if( p->nAdvise > 0 && p->rc == SQLITE_OK ){
    char *zPage = advisedPage(p, p->pHost, zName,
                              (const char*)sqlite3_value_text(argv[2]));
    if( zPage ) sqlite3_result_text(ctx, zPage, -1, sqlite3_free);
  }else{
    designOpen(p, &p->aDesign[p->nDesign++], zName);
  }
  for(i = 0; i < nCompare && p->rc == SQLITE_OK; i++){
    designOpen(p, &p->aDesign[p->nDesign++], azCompare[i]);
  }
  for(i = 0; i < p->nDesign && p->rc == SQLITE_OK; i++){
    designRead(p, &p->aDesign[i]);
  }
  if( p->zWorkload && p->nDesign > 0 && p->rc == SQLITE_OK ){
    workloadRead(p, &p->aDesign[0], &azSql, &aWeight, &nStmt);
    replayWorkload(p, azSql, aWeight, nStmt);
  }
  for(i = 0; i < p->nDesign && p->rc == SQLITE_OK; i++){
    readLint(p, &p->aDesign[i]);
    flags(p, &p->aDesign[i]);
    warnings(p, &p->aDesign[i]);
  }
  if( p->rc == SQLITE_OK && p->nDesign > 0 ){
    pOut = sqlite3_str_new(p->db);
    wcReportPage(p, pOut);
    if( sqlite3_str_errcode(pOut) ){
      sqlite3_free(sqlite3_str_finish(pOut));
      reportOom(p);
    }else{
      int n = sqlite3_str_length(pOut);
      sqlite3_result_text(ctx, sqlite3_str_finish(pOut), n, sqlite3_free);
    }
  }
  if( p->rc != SQLITE_OK ){
    if( p->zErr ) sqlite3_result_error(ctx, p->zErr, -1);
    else sqlite3_result_error_code(ctx, p->rc);
  }
  for(i = 0; i < nStmt; i++) sqlite3_free(azSql[i]);
  sqlite3_free(azSql);
  sqlite3_free(aWeight);
  for(i = 0; i < nCompare; i++) sqlite3_free(azCompare[i]);
  for(i = 0; i < p->nDesign; i++) designFree(&p->aDesign[i]);
  sqlite3_free(p->zWorkload);
  wcWorkloadFree(&p->work);
  sqlite3_free(p->zParamsWhy);
  sqlite3_free(p->zOrderOpt);
  sqlite3_free(p->zErr);
  sqlite3_free(p);
}
