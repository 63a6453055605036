/*
** bench.c: `make bench`, widecol against SQLite's own B-tree.
**
** For each scale it builds, deterministically, two of the seeds' designs
** (the Lindorm guide's transaction and log designs):
**
**   orders  ROWKEY(seller_id PAD 8, ts PAD 10, order_no PAD 10):
**           N orders of N/10 sellers, written in time order, so each
**           write lands in another seller's part of the key space;
**   logs    ROWKEY(host, event, ts DESC): [hostname][log-event]
**           [Long.MAX_VALUE - timestamp], N readings over 1,000 series;
**
** and times each operation on widecol and on three baselines, all in the
** same run and in the same database:
**
**   (a) floor     the same statement on <name>_rows, the table widecol
**                 keeps its rows in, with keys and bounds computed by rk_*
**                 in SQL from the same parameters;
**   (b) ordinary  an ordinary WITHOUT ROWID table with PRIMARY KEY(<the
**                 key fields>), what a user would write instead;
**   (c) no pushdown  widecol with the key constraints hidden from
**                 xBestIndex (`+field`): the scan every query would be
**                 without it;
**   (d) thin vtab  the thinnest virtual table over the same <name>_rows
**                 (thinModule below, part of this program, not of
**                 widecol): rowkey constraints pushed down as one range,
**                 ORDER BY rowkey consumed, one prepared statement per
**                 cursor and plan reused, xColumn passing values through.
**                 The floor (a) is SQLite without a virtual table; (d) is
**                 what any virtual table costs; widecol over (d) is what
**                 widecol itself costs.
**
** Every variant of an operation binds the same parameters and must give
** the same rows (a checksum over them); the program stops if one does
** not.  Reported: the median over the repetitions of the time per call,
** the ratios against each baseline, and the heap each call needs beyond
** what the connection already holds (sqlite3_status64 high-water mark).
**
** Usage: bench/bench [--rows N]... [--repeat R] [--dir DIR]
**                    [--extension ./widecol] [--only TEXT] [--variant V]
** --only runs only the queries whose name contains TEXT, --variant only
** variant V (0 widecol, 1-4 the baselines), to profile one under
** callgrind.
*/
#include <sqlite3.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_VARIANT 5   /* widecol, (a), (b), (c), (d) */
#define MAX_REPEAT 99
#define MAX_SCALE 8

static const char *azVariant[N_VARIANT] = {
  "widecol", "(a) floor", "(b) ordinary", "(c) no pushdown", "(d) thin vtab"
};

/* One scale's tables and the figures its parameters derive from. */
typedef struct Scale Scale;
struct Scale {
  sqlite3 *db;
  int64_t nRow;        /* Orders, and log readings */
  int64_t nSeller;     /* nRow / 10: ten orders each */
  int64_t nSeries;     /* 100 hosts x 10 events */
  int nRepeat;
};

/* An operation: the SQL of each variant (0 where it does not apply), how
** many calls one repetition makes, and how a call binds its parameters. */
typedef struct Op Op;
struct Op {
  const char *zName;
  const char *zUnit;                /* "us", "ms" or "rows/s" */
  const char *azSql[N_VARIANT];
  int64_t (*xCalls)(const Scale*, int iVariant);
  void (*xBind)(const Scale*, sqlite3_stmt*, int64_t iCall);
  int bTarget;                      /* A point or range query: targets */
};

/* What one operation measured. */
typedef struct Result Result;
struct Result {
  double aSec[N_VARIANT];     /* Median seconds per call, or -1 */
  int64_t aHeap[N_VARIANT];   /* Heap bytes one call needed */
};

static void fail(const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  fprintf(stderr, "bench: ");
  vfprintf(stderr, zFormat, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(1);
}

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void execSql(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr) != SQLITE_OK ){
    fail("%s\n  in: %s", zErr, zSql);
  }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK ){
    fail("%s\n  in: %s", sqlite3_errmsg(db), zSql);
  }
  return pStmt;
}

/* A pseudo-random permutation step (an LCG modulo 2^64), so every run
** picks the same rows. */
static uint64_t mix(uint64_t x){
  x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x ^ (x >> 29);
}

static int cmpDouble(const void *pA, const void *pB){
  double a = *(const double*)pA, b = *(const double*)pB;
  return a < b ? -1 : a > b;
}

static double median(double *a, int n){
  qsort(a, (size_t)n, sizeof(double), cmpDouble);
  return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/*
** The data.  Order i: seller i % nSeller at time T0 + i, order number i,
** amount (i % 1000) / 10.  Reading i: series i % nSeries (host
** 'host%03d', event 'ev%d') at time T0 + i, value i % 997.
*/
#define T0 1500000000

static void bindOrder(const Scale *p, sqlite3_stmt *pStmt, int64_t i){
  sqlite3_bind_int64(pStmt, 1, i % p->nSeller);
  sqlite3_bind_int64(pStmt, 2, T0 + i);
  sqlite3_bind_int64(pStmt, 3, i);
  sqlite3_bind_double(pStmt, 4, (double)(i % 1000) / 10.0);
}

static void bindSeries(const Scale *p, sqlite3_stmt *pStmt, int64_t iSeries){
  char zHost[16], zEvent[16];
  int64_t s = iSeries % p->nSeries;
  snprintf(zHost, sizeof(zHost), "host%03d", (int)(s / 10));
  snprintf(zEvent, sizeof(zEvent), "ev%d", (int)(s % 10));
  sqlite3_bind_text(pStmt, 1, zHost, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(pStmt, 2, zEvent, -1, SQLITE_TRANSIENT);
}

static void bindReading(const Scale *p, sqlite3_stmt *pStmt, int64_t i){
  bindSeries(p, pStmt, i);
  sqlite3_bind_int64(pStmt, 3, T0 + i);
  sqlite3_bind_double(pStmt, 4, (double)(i % 997));
}

/* Inserts rows [0, n) with one statement in one transaction. */
static void load(const Scale *p, const char *zSql, int64_t n,
                 void (*xBind)(const Scale*, sqlite3_stmt*, int64_t)){
  sqlite3_stmt *pStmt = prepare(p->db, zSql);
  int64_t i;
  execSql(p->db, "BEGIN");
  for(i = 0; i < n; i++){
    xBind(p, pStmt, i);
    if( sqlite3_step(pStmt) != SQLITE_DONE ){
      fail("%s\n  in: %s", sqlite3_errmsg(p->db), zSql);
    }
    sqlite3_reset(pStmt);
  }
  execSql(p->db, "COMMIT");
  sqlite3_finalize(pStmt);
}

/*
** Bulk insert: each repetition loads every variant's table afresh; the
** tables of the last repetition stay for the queries.
*/
#define ORDERS_COLS "seller_id INTEGER, ts INTEGER, order_no INTEGER, amount REAL"
#define ORDERS_KEY  "ROWKEY(seller_id PAD 8, ts PAD 10, order_no PAD 10)"
#define ORDERS_RK   "CAST(rk_join('_', rk_pad(?1, 8), rk_pad(?2, 10), " \
                    "rk_pad(?3, 10)) AS BLOB)"

static const char *azOrdersCreate[N_VARIANT] = {
  "CREATE VIRTUAL TABLE orders USING widecol(" ORDERS_COLS ", " ORDERS_KEY ")",
  /* The floor writes into the row table of a second widecol table. */
  "CREATE VIRTUAL TABLE orders_floor USING widecol(" ORDERS_COLS ", " ORDERS_KEY ")",
  "CREATE TABLE plain(" ORDERS_COLS ", PRIMARY KEY(seller_id, ts, order_no))"
  " WITHOUT ROWID",
  0, 0
};
static const char *azOrdersDrop[N_VARIANT] = {
  "DROP TABLE IF EXISTS orders", "DROP TABLE IF EXISTS orders_floor",
  "DROP TABLE IF EXISTS plain", 0, 0
};
static const char *azOrdersInsert[N_VARIANT] = {
  "INSERT INTO orders VALUES (?1, ?2, ?3, ?4)",
  "INSERT INTO orders_floor_rows(rowkey, seller_id, ts, order_no, amount) "
  "VALUES (" ORDERS_RK ", ?1, ?2, ?3, ?4)",
  "INSERT INTO plain VALUES (?1, ?2, ?3, ?4)",
  0, 0
};

/* Each repetition of an insert loads the whole table: three are enough
** for a median and keep the largest scale within minutes. */
#define INSERT_REPEAT 3

static void benchInsert(Scale *p, Result *pRes){
  double aaSec[N_VARIANT][MAX_REPEAT];
  int nRepeat = p->nRepeat < INSERT_REPEAT ? p->nRepeat : INSERT_REPEAT;
  int r, v;
  for(r = 0; r < nRepeat; r++){
    for(v = 0; v < N_VARIANT; v++){
      sqlite3_int64 nCur, nHigh;
      double t0;
      if( azOrdersCreate[v] == 0 ) continue;
      execSql(p->db, azOrdersDrop[v]);
      execSql(p->db, azOrdersCreate[v]);
      sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 1);
      t0 = now();
      load(p, azOrdersInsert[v], p->nRow, bindOrder);
      aaSec[v][r] = now() - t0;
      sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 0);
      pRes->aHeap[v] = nHigh - nCur;
    }
  }
  for(v = 0; v < N_VARIANT; v++){
    pRes->aSec[v] = azOrdersCreate[v] ? median(aaSec[v], nRepeat) : -1;
  }
  /* The floor's queries run on the row table of orders itself. */
  execSql(p->db, "DROP TABLE orders_floor");
}

/* Bulk insert with index and family upkeep: widecol with 0, 1 and 2
** INDEXes and with a FAMILY, against the ordinary WITHOUT ROWID table with
** the same key order and as many CREATE INDEXes (a family has no
** ordinary counterpart: the same table).  Same rows as the orders. */
static const char *const azWriteDesign[4][2] = {
  { "", "" },
  { ", INDEX by_ts(ts PAD 10)", "CREATE INDEX wo_1 ON wo(ts)" },
  { ", INDEX by_ts(ts PAD 10), INDEX by_no(order_no PAD 10, seller_id PAD 8)",
    "CREATE INDEX wo_1 ON wo(ts); CREATE INDEX wo_2 ON wo(order_no, seller_id)" },
  { ", FAMILY money(amount)", "" },
};
static const char *const azWriteName[4] = {
  "insert, 0 INDEXes", "insert, 1 INDEX", "insert, 2 INDEXes",
  "insert, with a FAMILY"
};

static void benchWrites(Scale *p){
  int d, r, v;
  printf("bulk insert with upkeep, rows/s, median of %d, against an ordinary"
         " WITHOUT ROWID table with the same key and as many CREATE INDEXes:\n",
         p->nRepeat < INSERT_REPEAT ? p->nRepeat : INSERT_REPEAT);
  for(d = 0; d < 4; d++){
    double aaSec[2][MAX_REPEAT], aSec[2];
    int nRepeat = p->nRepeat < INSERT_REPEAT ? p->nRepeat : INSERT_REPEAT;
    for(r = 0; r < nRepeat; r++){
      for(v = 0; v < 2; v++){
        char *zSql;
        double t0;
        execSql(p->db, "DROP TABLE IF EXISTS wo");
        zSql = v == 0
          ? sqlite3_mprintf("CREATE VIRTUAL TABLE wo USING widecol(" ORDERS_COLS
                            ", " ORDERS_KEY "%s)", azWriteDesign[d][0])
          : sqlite3_mprintf("CREATE TABLE wo(" ORDERS_COLS ", PRIMARY KEY("
                            "seller_id, ts, order_no)) WITHOUT ROWID;%s",
                            azWriteDesign[d][1]);
        execSql(p->db, zSql);
        sqlite3_free(zSql);
        t0 = now();
        load(p, "INSERT INTO wo VALUES (?1, ?2, ?3, ?4)", p->nRow, bindOrder);
        aaSec[v][r] = now() - t0;
      }
    }
    for(v = 0; v < 2; v++) aSec[v] = median(aaSec[v], nRepeat);
    printf("  %-24s widecol %10.0f  ordinary %10.0f  %5.2fx  >=0.80x: %s\n",
           azWriteName[d], (double)p->nRow / aSec[0],
           (double)p->nRow / aSec[1], aSec[1] / aSec[0],
           aSec[1] / aSec[0] >= 0.8 ? "met" : "NOT met");
  }
  execSql(p->db, "DROP TABLE IF EXISTS wo");
}

static void buildRest(Scale *p){
  char *zSql;
  execSql(p->db,
    "CREATE VIRTUAL TABLE logs USING widecol(host TEXT, event TEXT,"
    " ts INTEGER, value REAL, ROWKEY(host, event, ts DESC));"
    "CREATE TABLE plain_logs(host TEXT, event TEXT, ts INTEGER, value REAL,"
    " PRIMARY KEY(host, event, ts DESC)) WITHOUT ROWID;"
    "CREATE TABLE sellers(id INTEGER PRIMARY KEY, region INTEGER);"
    "CREATE INDEX sellers_region ON sellers(region);");
  load(p, "INSERT INTO logs VALUES (?1, ?2, ?3, ?4)", p->nRow, bindReading);
  load(p, "INSERT INTO plain_logs VALUES (?1, ?2, ?3, ?4)", p->nRow,
       bindReading);
  zSql = sqlite3_mprintf(
    "WITH RECURSIVE s(id) AS (SELECT 0 UNION ALL SELECT id + 1 FROM s"
    " WHERE id < %lld) INSERT INTO sellers SELECT id, id %% 100 FROM s",
    (long long)p->nSeller - 1);
  execSql(p->db, zSql);
  sqlite3_free(zSql);
  execSql(p->db, "ANALYZE");
}

/*
** The queries.  Parameters: ?1.. as each xBind sets them.
*/
static int64_t callsLookup(const Scale *p, int v){
  (void)p;
  return v == 3 ? 1 : 2000;
}
static void bindLookup(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  int64_t i = (int64_t)(mix((uint64_t)iCall) % (uint64_t)p->nRow);
  sqlite3_bind_int64(pStmt, 1, i % p->nSeller);
  sqlite3_bind_int64(pStmt, 2, T0 + i);
  sqlite3_bind_int64(pStmt, 3, i);
}

/* Sellers [lo, lo + nSpan), lo picked per call. */
static void bindSellers(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall,
                        int64_t nSpan){
  int64_t lo = (int64_t)(mix((uint64_t)iCall + 7) % (uint64_t)(p->nSeller - nSpan + 1));
  sqlite3_bind_int64(pStmt, 1, lo);
  sqlite3_bind_int64(pStmt, 2, lo + nSpan - 1);
}
static int64_t span(const Scale *p, int64_t nRowWanted){
  int64_t n = nRowWanted / 10;
  return n < 1 ? 1 : (n > p->nSeller ? p->nSeller : n);
}
static void bindRange1(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  bindSellers(p, pStmt, iCall, span(p, p->nRow / 100));
}
static void bindRange001(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  bindSellers(p, pStmt, iCall, span(p, p->nRow / 10000));
}
static void bindRange1000(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  bindSellers(p, pStmt, iCall, span(p, 1000));
}
static int64_t callsRange1(const Scale *p, int v){
  (void)p; (void)v;
  return 3;
}
static int64_t callsRangeSmall(const Scale *p, int v){
  (void)p;
  return v == 3 ? 1 : 200;
}
static void bindNewest(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  bindSeries(p, pStmt, (int64_t)(mix((uint64_t)iCall) % (uint64_t)p->nSeries));
}
static int64_t callsNewest(const Scale *p, int v){
  (void)p;
  return v == 3 ? 1 : 2000;
}
static void bindRegion(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  (void)p;
  sqlite3_bind_int64(pStmt, 1, (int64_t)(mix((uint64_t)iCall) % 100));
}
static int64_t callsOne(const Scale *p, int v){
  (void)p; (void)v;
  return 1;
}
static void bindNone(const Scale *p, sqlite3_stmt *pStmt, int64_t iCall){
  (void)p; (void)pStmt; (void)iCall;
}

#define ORDER_COLS "SELECT seller_id, ts, order_no, amount FROM "
#define SELLER_LO  "CAST(rk_pad(?1, 8) AS BLOB)"
#define SELLER_HI  "CAST(rk_prefix_end(rk_pad(?2, 8) || '_') AS BLOB)"
#define SERIES_LO  "CAST(?1 || '_' || ?2 || '_' AS BLOB)"
#define SERIES_HI  "CAST(rk_prefix_end(?1 || '_' || ?2 || '_') AS BLOB)"
#define JOIN_COLS  "SELECT count(*), sum(o.amount) FROM sellers s JOIN "

/* The range queries' variants: sellers [?1, ?2]. */
#define SELLER_RANGE \
  ORDER_COLS "orders WHERE seller_id BETWEEN ?1 AND ?2", \
  ORDER_COLS "orders_rows WHERE rowkey >= " SELLER_LO \
             " AND rowkey < " SELLER_HI, \
  ORDER_COLS "plain WHERE seller_id BETWEEN ?1 AND ?2", \
  ORDER_COLS "orders WHERE +seller_id BETWEEN ?1 AND ?2", \
  ORDER_COLS "thin_orders WHERE rowkey >= " SELLER_LO \
             " AND rowkey < " SELLER_HI

static const Op aQuery[] = {
  { "point lookup by full key", "us", {
      "SELECT amount FROM orders WHERE seller_id = ?1 AND ts = ?2"
      " AND order_no = ?3",
      "SELECT amount FROM orders_rows WHERE rowkey = " ORDERS_RK,
      "SELECT amount FROM plain WHERE seller_id = ?1 AND ts = ?2"
      " AND order_no = ?3",
      "SELECT amount FROM orders WHERE +seller_id = ?1 AND +ts = ?2"
      " AND +order_no = ?3",
      "SELECT amount FROM thin_orders WHERE rowkey = " ORDERS_RK },
    callsLookup, bindLookup, 1 },
  { "1% range (seller_id BETWEEN)", "ms", {
      SELLER_RANGE },
    callsRange1, bindRange1, 1 },
  { "0.01% range (seller_id BETWEEN)", "us", {
      SELLER_RANGE },
    callsRangeSmall, bindRange001, 1 },
  { "range of 1,000 rows", "us", {
      SELLER_RANGE },
    callsRangeSmall, bindRange1000, 1 },
  { "newest 10 (DESC, LIMIT 10)", "us", {
      "SELECT ts, value FROM logs WHERE host = ?1 AND event = ?2"
      " ORDER BY ts DESC LIMIT 10",
      "SELECT ts, value FROM logs_rows WHERE rowkey >= " SERIES_LO
      " AND rowkey < " SERIES_HI " ORDER BY rowkey LIMIT 10",
      "SELECT ts, value FROM plain_logs WHERE host = ?1 AND event = ?2"
      " ORDER BY ts DESC LIMIT 10",
      "SELECT ts, value FROM logs WHERE +host = ?1 AND +event = ?2"
      " ORDER BY ts DESC LIMIT 10",
      "SELECT ts, value FROM thin_logs WHERE rowkey >= " SERIES_LO
      " AND rowkey < " SERIES_HI " ORDER BY rowkey LIMIT 10" },
    callsNewest, bindNewest, 1 },
  { "join: 1% of sellers' orders", "ms", {
      JOIN_COLS "orders o ON o.seller_id = s.id WHERE s.region = ?1",
      JOIN_COLS "orders_rows o ON o.rowkey >= CAST(rk_pad(s.id, 8) || '_'"
      " AS BLOB) AND o.rowkey < CAST(rk_prefix_end(rk_pad(s.id, 8) || '_')"
      " AS BLOB) WHERE s.region = ?1",
      JOIN_COLS "plain o ON o.seller_id = s.id WHERE s.region = ?1",
      JOIN_COLS "orders o ON +o.seller_id = s.id WHERE s.region = ?1",
      JOIN_COLS "thin_orders o ON o.rowkey >= CAST(rk_pad(s.id, 8) || '_'"
      " AS BLOB) AND o.rowkey < CAST(rk_prefix_end(rk_pad(s.id, 8) || '_')"
      " AS BLOB) WHERE s.region = ?1" },
    callsOne, bindRegion, 0 },
  { "full scan (count, sum)", "ms", {
      "SELECT count(*), sum(amount) FROM orders",
      "SELECT count(*), sum(amount) FROM orders_rows",
      "SELECT count(*), sum(amount) FROM plain",
      0,
      "SELECT count(*), sum(amount) FROM thin_orders" },
    callsOne, bindNone, 0 },
};
#define N_QUERY (int)(sizeof(aQuery) / sizeof(aQuery[0]))

/* Runs calls [0, nCall) of a query; returns a checksum of the first
** nCheck calls' rows. */
static double runCalls(const Scale *p, const Op *pOp, sqlite3_stmt *pStmt,
                       int64_t nCall, int64_t nCheck){
  double rSum = 0;
  int64_t iCall;
  for(iCall = 0; iCall < nCall; iCall++){
    pOp->xBind(p, pStmt, iCall);
    while( sqlite3_step(pStmt) == SQLITE_ROW ){
      int i, nCol = sqlite3_column_count(pStmt);
      for(i = 0; i < nCol; i++){
        double r = sqlite3_column_double(pStmt, i);
        if( iCall < nCheck ) rSum += r * (double)(i + 1);
      }
    }
    if( sqlite3_reset(pStmt) != SQLITE_OK ){
      fail("%s: %s", pOp->zName, sqlite3_errmsg(p->db));
    }
  }
  return rSum;
}

/* --variant: only this variant runs (for profiling), or -1. */
static int iOnlyVariant = -1;

static void benchQuery(Scale *p, const Op *pOp, Result *pRes){
  sqlite3_stmt *apStmt[N_VARIANT];
  double aaSec[N_VARIANT][MAX_REPEAT];
  double aSum[N_VARIANT];
  int64_t nCheck = -1;
  int r, v, vFirst = -1;
  for(v = 0; v < N_VARIANT; v++){
    int bRun = pOp->azSql[v] && (iOnlyVariant < 0 || iOnlyVariant == v);
    apStmt[v] = bRun ? prepare(p->db, pOp->azSql[v]) : 0;
    if( apStmt[v] ){
      int64_t n = pOp->xCalls(p, v);
      if( nCheck < 0 || n < nCheck ) nCheck = n;
    }
  }
  /* Untimed calls per variant: the first warms the cache (and prepares
  ** widecol's statements, once per connection) and checks the results
  ** agree; the second measures the heap. */
  for(v = 0; v < N_VARIANT; v++){
    sqlite3_int64 nCur, nHigh;
    if( apStmt[v] == 0 ) continue;
    aSum[v] = runCalls(p, pOp, apStmt[v], nCheck, nCheck);
    if( vFirst < 0 ) vFirst = v;
    if( aSum[v] != aSum[vFirst] ){
      fail("%s: %s gave checksum %.17g, %s %.17g", pOp->zName, azVariant[v],
           aSum[v], azVariant[vFirst], aSum[vFirst]);
    }
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 1);
    runCalls(p, pOp, apStmt[v], nCheck, 0);
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 0);
    pRes->aHeap[v] = nHigh - nCur;
  }
  if( vFirst < 0 ){
    for(v = 0; v < N_VARIANT; v++) pRes->aSec[v] = -1;
    return;
  }
  if( aSum[vFirst] == 0 ) fail("%s: no rows", pOp->zName);
  /* Variants take turns within a repetition, so a slow moment of the
  ** machine hits them alike. */
  for(r = 0; r < p->nRepeat; r++){
    for(v = 0; v < N_VARIANT; v++){
      int64_t nCall;
      double t0;
      if( apStmt[v] == 0 ) continue;
      nCall = pOp->xCalls(p, v);
      t0 = now();
      runCalls(p, pOp, apStmt[v], nCall, 0);
      aaSec[v][r] = (now() - t0) / (double)nCall;
    }
  }
  for(v = 0; v < N_VARIANT; v++){
    pRes->aSec[v] = apStmt[v] ? median(aaSec[v], p->nRepeat) : -1;
    sqlite3_finalize(apStmt[v]);
  }
}

/*
** (d) The thinnest virtual table over a row table (see the head of the
** file): CREATE VIRTUAL TABLE thin_orders USING thin(orders_rows).
** idxNum: 1 rowkey = ?, 2 rowkey >= ?, 4 rowkey > ?, 8 rowkey <= ?,
** 16 rowkey < ?, 32 descending; its arguments come in that order.
*/
typedef struct ThinVtab ThinVtab;
struct ThinVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  char *zTable;
  sqlite3_stmt *apStmt[64];   /* One per idxNum, prepared once; a cursor
                              ** takes it while it runs (a cursor lives
                              ** for one execution of the statement) */
};

typedef struct ThinCursor ThinCursor;
struct ThinCursor {
  sqlite3_vtab_cursor base;
  sqlite3_stmt *pStmt;        /* The one in use, or 0 */
  int idxNum;
  int bEof;
  sqlite3_int64 iRow;
};

static int thinConnect(sqlite3 *db, void *pAux, int argc,
                       const char *const *argv, sqlite3_vtab **ppVtab,
                       char **pzErr){
  sqlite3_str *pDecl = sqlite3_str_new(db);
  sqlite3_stmt *pInfo;
  ThinVtab *p;
  char *zSql;
  int rc, n = 0;
  (void)pAux;
  if( argc != 4 ){
    *pzErr = sqlite3_mprintf("thin(<row table>)");
    return SQLITE_ERROR;
  }
  zSql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", argv[3]);
  rc = sqlite3_prepare_v2(db, zSql, -1, &pInfo, 0);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ) return rc;
  sqlite3_str_appendall(pDecl, "CREATE TABLE x(");
  while( sqlite3_step(pInfo) == SQLITE_ROW ){
    sqlite3_str_appendf(pDecl, "%s\"%w\"", n++ ? ", " : "",
                        (const char*)sqlite3_column_text(pInfo, 0));
  }
  sqlite3_finalize(pInfo);
  sqlite3_str_appendall(pDecl, ")");
  zSql = sqlite3_str_finish(pDecl);
  rc = sqlite3_declare_vtab(db, zSql);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(*p));
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->zTable = sqlite3_mprintf("%s", argv[3]);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int thinDisconnect(sqlite3_vtab *pVtab){
  ThinVtab *p = (ThinVtab*)pVtab;
  int i;
  for(i = 0; i < 64; i++) sqlite3_finalize(p->apStmt[i]);
  sqlite3_free(p->zTable);
  sqlite3_free(p);
  return SQLITE_OK;
}

/* Gives the cursor's statement back to its table for the next run. */
static void thinRelease(ThinCursor *pCur){
  ThinVtab *pTab = (ThinVtab*)pCur->base.pVtab;
  if( pCur->pStmt == 0 ) return;
  sqlite3_reset(pCur->pStmt);
  if( pTab->apStmt[pCur->idxNum] == 0 ) pTab->apStmt[pCur->idxNum] = pCur->pStmt;
  else sqlite3_finalize(pCur->pStmt);
  pCur->pStmt = 0;
}

static int thinBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int aiCons[5] = { -1, -1, -1, -1, -1 };   /* =, >=, >, <=, < */
  int i, n = 0, idxNum = 0;
  (void)pVtab;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int k = -1;
    if( !pC->usable || pC->iColumn != 0 ) continue;
    switch( pC->op ){
      case SQLITE_INDEX_CONSTRAINT_EQ: k = 0; break;
      case SQLITE_INDEX_CONSTRAINT_GE: k = 1; break;
      case SQLITE_INDEX_CONSTRAINT_GT: k = 2; break;
      case SQLITE_INDEX_CONSTRAINT_LE: k = 3; break;
      case SQLITE_INDEX_CONSTRAINT_LT: k = 4; break;
    }
    if( k >= 0 && aiCons[k] < 0 ) aiCons[k] = i;
  }
  if( aiCons[0] >= 0 ){
    aiCons[1] = aiCons[2] = aiCons[3] = aiCons[4] = -1;
  }
  if( aiCons[1] >= 0 ) aiCons[2] = -1;
  if( aiCons[3] >= 0 ) aiCons[4] = -1;
  for(i = 0; i < 5; i++){
    if( aiCons[i] < 0 ) continue;
    idxNum |= 1 << i;
    pInfo->aConstraintUsage[aiCons[i]].argvIndex = ++n;
    pInfo->aConstraintUsage[aiCons[i]].omit = 1;
  }
  if( pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0 ){
    pInfo->orderByConsumed = 1;
    if( pInfo->aOrderBy[0].desc ) idxNum |= 32;
  }
  pInfo->idxNum = idxNum;
  if( idxNum & 1 ){
    pInfo->estimatedCost = 1.0;
    pInfo->estimatedRows = 1;
    pInfo->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  }else{
    pInfo->estimatedCost = n == 2 ? 100.0 : n == 1 ? 10000.0 : 1e6;
    pInfo->estimatedRows = (sqlite3_int64)pInfo->estimatedCost;
  }
  return SQLITE_OK;
}

static int thinOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  ThinCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static int thinClose(sqlite3_vtab_cursor *pCursor){
  thinRelease((ThinCursor*)pCursor);
  sqlite3_free(pCursor);
  return SQLITE_OK;
}

static int thinNext(sqlite3_vtab_cursor *pCursor){
  ThinCursor *pCur = (ThinCursor*)pCursor;
  int rc = sqlite3_step(pCur->pStmt);
  pCur->iRow++;
  pCur->bEof = rc != SQLITE_ROW;
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int thinFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                      const char *idxStr, int argc, sqlite3_value **argv){
  static const char *const azOp[5] = {
    "rowkey = ?", "rowkey >= ?", "rowkey > ?", "rowkey <= ?", "rowkey < ?"
  };
  ThinCursor *pCur = (ThinCursor*)pCursor;
  ThinVtab *pTab = (ThinVtab*)pCursor->pVtab;
  int i, n = 0;
  (void)idxStr;
  if( pCur->pStmt && pCur->idxNum != idxNum ) thinRelease(pCur);
  if( pCur->pStmt == 0 && pTab->apStmt[idxNum] ){
    pCur->pStmt = pTab->apStmt[idxNum];
    pTab->apStmt[idxNum] = 0;
  }
  pCur->idxNum = idxNum;
  if( pCur->pStmt == 0 ){
    sqlite3_str *pSql = sqlite3_str_new(pTab->db);
    char *zSql;
    int rc;
    sqlite3_str_appendf(pSql, "SELECT * FROM \"%w\"", pTab->zTable);
    for(i = 0; i < 5; i++){
      if( idxNum & (1 << i) ){
        sqlite3_str_appendf(pSql, " %s %s", n++ ? "AND" : "WHERE", azOp[i]);
      }
    }
    sqlite3_str_appendall(pSql, idxNum & 32 ? " ORDER BY rowkey DESC"
                                            : " ORDER BY rowkey");
    zSql = sqlite3_str_finish(pSql);
    rc = sqlite3_prepare_v3(pTab->db, zSql, -1, SQLITE_PREPARE_PERSISTENT,
                            &pCur->pStmt, 0);
    sqlite3_free(zSql);
    if( rc != SQLITE_OK ) return rc;
  }
  sqlite3_reset(pCur->pStmt);
  for(i = 0; i < argc; i++) sqlite3_bind_value(pCur->pStmt, i + 1, argv[i]);
  pCur->iRow = 0;
  return thinNext(pCursor);
}

static int thinEof(sqlite3_vtab_cursor *pCursor){
  return ((ThinCursor*)pCursor)->bEof;
}

static int thinColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx,
                      int i){
  sqlite3_result_value(ctx, sqlite3_column_value(((ThinCursor*)pCursor)->pStmt,
                                                 i));
  return SQLITE_OK;
}

static int thinRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *piRowid){
  *piRowid = ((ThinCursor*)pCursor)->iRow;
  return SQLITE_OK;
}

static const sqlite3_module thinModule = {
  0, thinConnect, thinConnect, thinBestIndex, thinDisconnect, thinDisconnect,
  thinOpen, thinClose, thinFilter, thinNext, thinEof, thinColumn, thinRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/*
** Printing.
*/
static void printRatio(double r){
  if( r < 0 ) printf(" %8s", "-");
  else if( r >= 100 ) printf(" %7.0fx", r);
  else printf(" %7.2fx", r);
}

static void printTime(double rSec, const char *zUnit, int64_t nRow){
  if( rSec < 0 ){
    printf(" %12s", "-");
  }else if( strcmp(zUnit, "rows/s") == 0 ){
    printf(" %12.0f", (double)nRow / rSec);
  }else{
    printf(" %12.3f", rSec * (strcmp(zUnit, "us") == 0 ? 1e6 : 1e3));
  }
}

/* widecol's time over a baseline's: >1 is slower.  For a rate the
** ratio is turned round so that it stays "widecol over baseline" (a
** rate, not a time: >1 is faster).  The (c) column is the other way
** round, what pushdown saves: c's time over widecol's. */
static double ratio(const Result *pRes, int v, int bRate){
  if( pRes->aSec[v] < 0 || pRes->aSec[0] < 0 ) return -1;
  return bRate ? pRes->aSec[v] / pRes->aSec[0] : pRes->aSec[0] / pRes->aSec[v];
}

static void printHeader(void){
  int v;
  printf("%-32s %-6s", "operation", "unit");
  for(v = 0; v < N_VARIANT; v++) printf(" %12s", azVariant[v]);
  printf(" %8s %8s %8s %8s  %s\n", "w/a", "w/b", "w/d", "c/w", "targets");
}

static void printRow(const char *zName, const char *zUnit, int64_t nRow,
                     const Result *pRes, int bTarget){
  int bRate = strcmp(zUnit, "rows/s") == 0;
  double rA = ratio(pRes, 1, bRate), rB = ratio(pRes, 2, bRate);
  double rD = ratio(pRes, 4, bRate);
  int v;
  printf("%-32s %-6s", zName, zUnit);
  for(v = 0; v < N_VARIANT; v++) printTime(pRes->aSec[v], zUnit, nRow);
  printRatio(rA);
  printRatio(rB);
  printRatio(rD);
  printRatio(pRes->aSec[3] < 0 || pRes->aSec[0] <= 0 ? -1
             : pRes->aSec[3] / pRes->aSec[0]);
  if( bRate ){
    printf("  >=0.80x b: %s", rB >= 0.8 ? "met" : "NOT met");
  }else{
    printf("  <=1.10x d: %s", rD < 0 ? "-" : rD <= 1.10 ? "met" : "NOT met");
    if( bTarget ) printf(", <=1.00x b: %s", rB <= 1.0 ? "met" : "NOT met");
  }
  printf("\n");
}

static void printHeap(const char *zName, const Result *pRes){
  int v;
  printf("%-32s %-6s", zName, "KiB");
  for(v = 0; v < N_VARIANT; v++){
    if( pRes->aSec[v] < 0 ) printf(" %12s", "-");
    else printf(" %12.1f", (double)pRes->aHeap[v] / 1024.0);
  }
  printf("\n");
}

/*
** The per-call cost of each rk_* function against the nearest built-in,
** over a table of 200,000 values: the time of SELECT count(f(x)) less
** that of SELECT count(x) over the same column, per row.  The three are
** timed in turn within each repetition and the differences taken there,
** so that a slow moment of the machine falls on all of them; the median
** difference is reported, or, when it is within the baseline's own spread
** over the repetitions, "below noise" rather than a figure noise made
** (once a negative one).
*/
typedef struct FuncPair FuncPair;
struct FuncPair { const char *zRk; const char *zBuiltin; const char *zBase; };
static const FuncPair aFunc[] = {
  { "rk_pad(i, 10)",              "printf('%010d', i)",         "i" },
  { "rk_pad(t, 12, '#')",         "printf('%12s', t)",          "t" },
  { "rk_desc(i)",                 "9223372036854775807 - i",    "i" },
  { "rk_desc(t)",                 "hex(t)",                     "t" },
  { "rk_reverse(t)",              "upper(t)",                   "t" },
  { "rk_salt(t, 16)",             "substr(hex(t), 1, 2) || t",  "t" },
  { "rk_bucket(i, 16)",           "i % 16",                     "i" },
  { "rk_md5(t)",                  "hex(t)",                     "t" },
  { "rk_token(t)",                "rk_md5(t)",                  "t" },
  { "rk_token(t, i)",             "rk_md5(t || i)",             "t + i" },
  { "rk_join('_', t, i, i)",      "t || '_' || i || '_' || i",  "t + i" },
  { "rk_part(k, '_', 2)",         "substr(k, 8, 6)",            "k" },
  { "rk_prefix_end(t)",           "t || x'ff'",                 "t" },
};
#define N_FUNC (int)(sizeof(aFunc) / sizeof(aFunc[0]))
#define FUNC_ROWS 200000

/* Seconds for one run of SELECT count(zExpr) over the table. */
static double timeCount(sqlite3 *db, sqlite3_stmt *pStmt, const char *zExpr){
  double t0 = now();
  while( sqlite3_step(pStmt) == SQLITE_ROW ){}
  if( sqlite3_reset(pStmt) != SQLITE_OK ){
    fail("%s: %s", zExpr, sqlite3_errmsg(db));
  }
  return now() - t0;
}

static sqlite3_stmt *prepareCount(sqlite3 *db, const char *zExpr){
  char *zSql = sqlite3_mprintf("SELECT count(%s) FROM nums", zExpr);
  sqlite3_stmt *pStmt = prepare(db, zSql);
  sqlite3_free(zSql);
  return pStmt;
}

/* "%8.1f" of ns, or "<noise" when within the baseline's spread. */
static void printNs(double rNs, double rNoise){
  if( rNs <= rNoise ) printf(" %8s", "<noise");
  else printf(" %8.1f", rNs);
}

static void benchFunctions(sqlite3 *db, int nRepeat){
  char *zSql;
  int i, r;
  zSql = sqlite3_mprintf(
    "CREATE TEMP TABLE nums(i INTEGER, t TEXT, k TEXT);"
    "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s"
    " WHERE x < %d) INSERT INTO nums SELECT x * 7919 %% 1000000,"
    " printf('host%%04d', x %% 5000), printf('%%06d_%%06d', x, x * 3 %% 999999)"
    " FROM s", FUNC_ROWS);
  execSql(db, zSql);
  sqlite3_free(zSql);
  printf("\nrk_* functions, ns per call over %d rows: the time of count(f(x))"
         " less that of count(x) in the same repetition, median of %d;"
         " '<noise' where that is within the baseline's own spread:\n",
         FUNC_ROWS, nRepeat);
  printf("%-26s %8s   %-28s %8s %8s %8s\n", "function", "ns", "nearest built-in",
         "ns", "ratio", "noise");
  for(i = 0; i < N_FUNC; i++){
    sqlite3_stmt *pBase = prepareCount(db, aFunc[i].zBase);
    sqlite3_stmt *pRk = prepareCount(db, aFunc[i].zRk);
    sqlite3_stmt *pBi = prepareCount(db, aFunc[i].zBuiltin);
    double aRk[MAX_REPEAT], aBi[MAX_REPEAT];
    double rBaseMin = 1e30, rBaseMax = 0.0, rRk, rBi, rNoise;
    for(r = 0; r < nRepeat; r++){
      double rBase = timeCount(db, pBase, aFunc[i].zBase);
      aRk[r] = timeCount(db, pRk, aFunc[i].zRk) - rBase;
      aBi[r] = timeCount(db, pBi, aFunc[i].zBuiltin) - rBase;
      if( rBase < rBaseMin ) rBaseMin = rBase;
      if( rBase > rBaseMax ) rBaseMax = rBase;
    }
    rRk = median(aRk, nRepeat) * 1e9 / FUNC_ROWS;
    rBi = median(aBi, nRepeat) * 1e9 / FUNC_ROWS;
    rNoise = (rBaseMax - rBaseMin) * 1e9 / FUNC_ROWS;
    printf("%-26s", aFunc[i].zRk);
    printNs(rRk, rNoise);
    printf("   %-28s", aFunc[i].zBuiltin);
    printNs(rBi, rNoise);
    if( rRk > rNoise && rBi > rNoise ) printf(" %7.2fx", rRk / rBi);
    else printf(" %8s", "-");
    printf(" %8.1f\n", rNoise);
    sqlite3_finalize(pBase);
    sqlite3_finalize(pRk);
    sqlite3_finalize(pBi);
  }
  execSql(db, "DROP TABLE nums");
}

/*
** Planning: the time to prepare typical statements (sqlite3_prepare_v2
** and finalize, which for a virtual table includes every xBestIndex call)
** on widecol tables with 0, 2 and 8 INDEXes, against ordinary WITHOUT
** ROWID tables with the same key and the same number of CREATE INDEXes.
** The tables are empty: planning does not read rows (widecol's row
** estimate comes from the table's statistics, which are absent here).
*/
#define PLAN_CALLS 300
static const char *const azPlanSql[] = {
  "SELECT v FROM %s WHERE a = ?1 AND b = ?2",
  "SELECT v FROM %s WHERE a BETWEEN ?1 AND ?2",
  "SELECT t.v FROM j JOIN %s t ON t.a = j.x WHERE j.y = ?1",
  "SELECT v FROM %s WHERE a IN (" 
  "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,"
  "28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,"
  "52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,"
  "76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,"
  "100) AND b = ?1",
};
static const char *const azPlanName[] = {
  "point (a = ?, b = ?)", "range (a BETWEEN)", "join (j JOIN t ON a)",
  "IN of 100 and b = ?",
};

static double timePrepare(sqlite3 *db, const char *zSql){
  double t0 = now();
  int i;
  for(i = 0; i < PLAN_CALLS; i++){
    sqlite3_stmt *pStmt = 0;
    if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) != SQLITE_OK ){
      fail("prepare %s: %s", zSql, sqlite3_errmsg(db));
    }
    sqlite3_finalize(pStmt);
  }
  return (now() - t0) / PLAN_CALLS;
}

static void benchPlanning(sqlite3 *db, int nRepeat){
  static const int aIndexes[3] = { 0, 2, 8 };
  int k, q, r, i;
  execSql(db, "CREATE TABLE j(x INTEGER PRIMARY KEY, y INTEGER)");
  for(k = 0; k < 3; k++){
    sqlite3_str *pW = sqlite3_str_new(db), *pO = sqlite3_str_new(db);
    char *zW, *zO;
    sqlite3_str_appendf(pW, "CREATE VIRTUAL TABLE w%d USING widecol(a INTEGER,"
        " b INTEGER, c INTEGER, v REAL, ROWKEY(a PAD 8, b PAD 8)", aIndexes[k]);
    sqlite3_str_appendf(pO, "CREATE TABLE o%d(a INTEGER, b INTEGER, c INTEGER,"
        " v REAL, PRIMARY KEY(a, b)) WITHOUT ROWID;", aIndexes[k]);
    for(i = 0; i < aIndexes[k]; i++){
      sqlite3_str_appendf(pW, ", INDEX i%d(%s PAD 8, %s PAD 8)", i,
                          i % 2 ? "b" : "c", i % 2 ? "c" : "b");
      sqlite3_str_appendf(pO, "CREATE INDEX o%d_%d ON o%d(%s, %s);",
                          aIndexes[k], i, aIndexes[k], i % 2 ? "b" : "c",
                          i % 2 ? "c" : "b");
    }
    sqlite3_str_appendall(pW, ")");
    zW = sqlite3_str_finish(pW);
    zO = sqlite3_str_finish(pO);
    execSql(db, zW);
    execSql(db, zO);
    sqlite3_free(zW);
    sqlite3_free(zO);
  }
  printf("\nplanning: prepare + finalize, us per statement, median of %d x"
         " %d; widecol with 0, 2, 8 INDEXes against an ordinary WITHOUT ROWID"
         " table with as many CREATE INDEXes:\n", nRepeat, PLAN_CALLS);
  printf("%-24s %9s %9s %9s %9s %9s %9s %8s %8s %8s\n", "statement", "w 0",
         "w 2", "w 8", "o 0", "o 2", "o 8", "0 w/o", "2 w/o", "8 w/o");
  for(q = 0; q < (int)(sizeof(azPlanSql) / sizeof(azPlanSql[0])); q++){
    double aaT[6][MAX_REPEAT], aT[6];
    for(r = 0; r < nRepeat; r++){
      for(k = 0; k < 6; k++){
        char zTab[8];
        char *zSql;
        snprintf(zTab, sizeof(zTab), "%c%d", k < 3 ? 'w' : 'o', aIndexes[k % 3]);
        zSql = sqlite3_mprintf(azPlanSql[q], zTab);
        aaT[k][r] = timePrepare(db, zSql);
        sqlite3_free(zSql);
      }
    }
    printf("%-24s", azPlanName[q]);
    for(k = 0; k < 6; k++){
      aT[k] = median(aaT[k], nRepeat);
      printf(" %9.2f", aT[k] * 1e6);
    }
    for(k = 0; k < 3; k++) printf(" %7.2fx", aT[k] / aT[k + 3]);
    printf("\n");
  }
}

/*
** One scale.
*/
static void runScale(const char *zDir, const char *zExt, int64_t nRow,
                     int nRepeat, const char *zOnly, Result *aOut){
  Scale s;
  Result res;
  char *zFile = sqlite3_mprintf("%s/widecol-bench-%lld.db", zDir, (long long)nRow);
  char *zErr = 0;
  double t0 = now();
  int i;
  memset(&s, 0, sizeof(s));
  unlink(zFile);
  if( sqlite3_open(zFile, &s.db) != SQLITE_OK ) fail("cannot open %s", zFile);
  sqlite3_enable_load_extension(s.db, 1);
  if( sqlite3_load_extension(s.db, zExt, 0, &zErr) != SQLITE_OK ){
    fail("cannot load %s: %s", zExt, zErr);
  }
  s.nRow = nRow;
  s.nSeller = nRow / 10;
  s.nSeries = 1000;
  s.nRepeat = nRepeat;

  printf("\n== %lld rows: orders of %lld sellers (10 each), log readings of"
         " %lld series; median of %d ==\n", (long long)nRow,
         (long long)s.nSeller, (long long)s.nSeries, nRepeat);
  fflush(stdout);
  memset(&res, 0, sizeof(res));
  benchInsert(&s, &res);
  buildRest(&s);
  if( sqlite3_create_module(s.db, "thin", &thinModule, 0) != SQLITE_OK ){
    fail("cannot register the thin module: %s", sqlite3_errmsg(s.db));
  }
  execSql(s.db, "CREATE VIRTUAL TABLE temp.thin_orders USING thin(orders_rows);"
                "CREATE VIRTUAL TABLE temp.thin_logs USING thin(logs_rows)");
  printHeader();
  printRow("bulk insert, one transaction", "rows/s", nRow, &res, 1);
  aOut[0] = res;
  fflush(stdout);
  for(i = 0; i < N_QUERY; i++){
    memset(&res, 0, sizeof(res));
    if( zOnly && strstr(aQuery[i].zName, zOnly) == 0 ){
      res.aSec[0] = res.aSec[1] = res.aSec[2] = res.aSec[3] = -1;
      res.aSec[4] = -1;
      aOut[i + 1] = res;
      continue;
    }
    benchQuery(&s, &aQuery[i], &res);
    printRow(aQuery[i].zName, aQuery[i].zUnit, nRow, &res, aQuery[i].bTarget);
    aOut[i + 1] = res;
    fflush(stdout);
  }
  if( zOnly == 0 || strstr("insert", zOnly) ){
    benchWrites(&s);
    fflush(stdout);
  }
  printf("heap needed per call, beyond what the connection holds:\n");
  printHeap("bulk insert (all rows)", &aOut[0]);
  for(i = 0; i < N_QUERY; i++) printHeap(aQuery[i].zName, &aOut[i + 1]);
  {
    sqlite3_int64 nCur, nHigh;
    sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nHigh, 0);
    printf("heap in use after the queries: %.1f KiB, most of it the page"
           " cache (at most 2,000 KiB by default); scale took %.0f s\n",
           (double)nCur / 1024.0, now() - t0);
  }
  sqlite3_close(s.db);
  unlink(zFile);
  sqlite3_free(zFile);
}

int main(int argc, char **argv){
  const char *zExt = "./widecol";
  const char *zDir = "/tmp";
  const char *zOnly = 0;
  int64_t aRows[MAX_SCALE];
  Result aaRes[MAX_SCALE][N_QUERY + 1];
  int nScale = 0, nRepeat = 7, i;
  for(i = 1; i < argc; i++){
    if( strcmp(argv[i], "--rows") == 0 && i + 1 < argc ){
      if( nScale == MAX_SCALE ) fail("at most %d scales", MAX_SCALE);
      aRows[nScale++] = atoll(argv[++i]);
      if( aRows[nScale - 1] < 10000 ) fail("--rows must be at least 10000");
    }else if( strcmp(argv[i], "--repeat") == 0 && i + 1 < argc ){
      nRepeat = atoi(argv[++i]);
      if( nRepeat < 1 || nRepeat > MAX_REPEAT ){
        fail("--repeat must be 1 to %d", MAX_REPEAT);
      }
    }else if( strcmp(argv[i], "--dir") == 0 && i + 1 < argc ){
      zDir = argv[++i];
    }else if( strcmp(argv[i], "--extension") == 0 && i + 1 < argc ){
      zExt = argv[++i];
    }else if( strcmp(argv[i], "--only") == 0 && i + 1 < argc ){
      zOnly = argv[++i];
    }else if( strcmp(argv[i], "--variant") == 0 && i + 1 < argc ){
      iOnlyVariant = atoi(argv[++i]);
    }else{
      fail("usage: %s [--rows N]... [--repeat R] [--dir DIR]"
           " [--extension ./widecol] [--only TEXT] [--variant 0-4]", argv[0]);
    }
  }
  if( nScale == 0 ){
    aRows[nScale++] = 100000;
    aRows[nScale++] = 1000000;
  }
  printf("widecol benchmark: SQLite %s; times per call (us, ms) or rows/s;"
         " ratios are widecol over each baseline\n", sqlite3_libversion());
  for(i = 0; i < nScale; i++){
    runScale(zDir, zExt, aRows[i], nRepeat, zOnly, aaRes[i]);
  }
  if( nScale > 1 ){
    printf("\ngrowth from %lld to %lld rows (widecol time per call, last"
           " over first; a fixed-size result should stay near 1):\n",
           (long long)aRows[0], (long long)aRows[nScale - 1]);
    for(i = 0; i < N_QUERY; i++){
      if( aaRes[0][i + 1].aSec[0] < 0 ) continue;
      printf("  %-32s %6.2fx (floor %.2fx)\n", aQuery[i].zName,
             aaRes[nScale - 1][i + 1].aSec[0] / aaRes[0][i + 1].aSec[0],
             aaRes[nScale - 1][i + 1].aSec[1] / aaRes[0][i + 1].aSec[1]);
    }
  }
  if( zOnly == 0 || strstr("rk_* functions", zOnly) ){
    sqlite3 *db;
    char *zErr = 0;
    sqlite3_open(":memory:", &db);
    sqlite3_enable_load_extension(db, 1);
    if( sqlite3_load_extension(db, zExt, 0, &zErr) != SQLITE_OK ){
      fail("cannot load %s: %s", zExt, zErr);
    }
    benchFunctions(db, nRepeat);
    benchPlanning(db, nRepeat);
    sqlite3_close(db);
  }
  return 0;
}
