/*
** wc_lint.c: SELECT * FROM widecol_lint('<table>') judges a widecol
** table's key design against the design guides' checklists (the HBase
** blog, the Lindorm, MapR-DB and GeminiDB guides, eBay's Cassandra
** practices), on its data.
**
** One row per finding: severity ('error': rows are lost or cannot be
** written; 'warning': the design hotspots, or its key order is not the
** order a query needs; 'advice': it costs more than it should), the rule,
** the key (ROWKEY or an INDEX), the element, what was found, with figures
** from the data, and a fix: the key rewritten.  Each fix answers its own
** finding, starting from the declared key.
**
** The data rules read a sample through the tables behind the virtual
** table (so that the lint itself changes no counters): every row of a
** table of up to WC_LINT_SAMPLE rows, else WC_LINT_RUNS runs of
** consecutive rows spread evenly over the whole key order, so that what
** sits at the end of the key space is seen as well as what sits at its
** start.  Write order is not stored, so "grows as rows are written" is
** judged from the values: times, and dense integer sequences.  Which
** fields queries range over, what those scans read, and which writes found
** their key taken, come from this connection's history (wc_history.h).
** Every fix is valid DDL for the table: names are quoted where SQL needs
** it, and a change of encoding rewrites every key of the table.
*/
#include "vtab/wc_table.h"
#include "vtab/wc_history.h"
#include "tools/wc_tvf.h"
#include "tools/wc_lint.h"
#include "key/rk_bytes.h"
#include "util/wc_progress.h"

#include <stdarg.h>
#include <string.h>

#define WC_LINT_SAMPLE    100000   /* Rows read */
#define WC_LINT_RUNS      256      /* Runs the sample is read in */
#define WC_LINT_KEY_ADVICE 2048    /* Bytes: a key longer is advised */
#define WC_LINT_MAX_FIELDS 3       /* GeminiDB: one to three key columns */
#define WC_LINT_MIN_ROWS  10       /* Rows a sequence is judged on */
#define WC_LINT_DIGEST    16       /* SALT digits that identify values */
#define WC_LINT_INT_DIGITS 19      /* Digits of the largest INTEGER */
#define WC_LINT_NAME_REPEAT 50      /* Rows per distinct name, at least, */
#define WC_LINT_NAME_BYTES  5       /* and bytes more than its code */

typedef struct Lint Lint;
struct Lint {
  sqlite3 *db;
  WcVtab *pTab;
  const WcSchema *pS;
  const WcHistory *pH;
  WcTvfRows *pRows;
  char *zSample;        /* The sample's table, in pSampleDb */
  sqlite3 *pSampleDb;   /* A connection of the lint's own, in memory,
                        ** holding the sample: a table made and dropped on
                        ** db would change its schema under the running
                        ** statement (DROP fails while it runs, and a CREATE
                        ** aborts a CREATE TABLE ... AS SELECT) */
  sqlite3 *pFailDb;     /* Where the last statement ran, for messages */
  WcProgress progress;  /* Runs read into the sample */
  WcBuf *aRunKey;       /* Runs: the first key of run i, 2i, and the
                        ** key after its last row, 2i + 1; parameters
                        ** ?1, ?2, ... of every query on the sample */
  int nRunKey;
  sqlite3_int64 nSample;      /* Rows in it */
  sqlite3_int64 nTable;       /* Rows in the table */
  signed char *aeTime;  /* Per column: the values are times (1), not (0),
                        ** not yet known (-1) */
  int rc;
  char *zErr;
};

/* The key a rule looks at: the row key or an index's. */
typedef struct LintKey LintKey;
struct LintKey {
  const WcSchema *pKey;
  char *zName;          /* "ROWKEY" or "INDEX <name>" */
  int bRowKey;
  int iIndex;           /* The index's number, -1 for the row key */
};

/* A key's elements as text, one string each, edited to make a fix. */
typedef struct KeyText KeyText;
struct KeyText {
  int n;
  char **az;
  int64_t nRandom;      /* RANDOM(n) after the elements, 0 for none */
};

/*
** Queries on the sample.
*/

/* Records the first failure, with SQLite's message. */
static void lintFail(Lint *p, int rc){
  if( p->rc != SQLITE_OK ) return;
  p->rc = rc;
  p->zErr = sqlite3_mprintf("widecol_lint(%Q): %s", wcTableName(p->pTab),
                            sqlite3_errmsg(p->pFailDb ? p->pFailDb : p->db));
}

/* The connection a query runs on: the sample's for a query of the
** sample, else the caller's (the table's own tables). */
static sqlite3 *lintDb(Lint *p, const char *zSql){
  return p->zSample && strstr(zSql, p->zSample) ? p->pSampleDb : p->db;
}

static sqlite3_stmt *lintPrepareV(Lint *p, const char *zFormat, va_list ap){
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  if( p->rc != SQLITE_OK ) return 0;
  zSql = sqlite3_vmprintf(zFormat, ap);
  if( zSql == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  p->pFailDb = lintDb(p, zSql);
  rc = sqlite3_prepare_v2(p->pFailDb, zSql, -1, &pStmt, 0);
  if( rc != SQLITE_OK ) lintFail(p, rc);
  sqlite3_free(zSql);
  if( pStmt ){
    /* The sample's run keys, where the query reads the sample. */
    int i, n = sqlite3_bind_parameter_count(pStmt);
    for(i = 0; i < n && i < p->nRunKey; i++){
      sqlite3_bind_blob64(pStmt, i + 1, p->aRunKey[i].n ? p->aRunKey[i].a
                          : (const void*)"", (sqlite3_uint64)p->aRunKey[i].n,
                          SQLITE_STATIC);
    }
  }
  return pStmt;
}

static sqlite3_stmt *lintPrepare(Lint *p, const char *zFormat, ...){
  sqlite3_stmt *pStmt;
  va_list ap;
  va_start(ap, zFormat);
  pStmt = lintPrepareV(p, zFormat, ap);
  va_end(ap);
  return pStmt;
}

/* Steps pStmt to its first row; 0 (and the statement finalized) if it has
** none or fails. */
static int lintRow(Lint *p, sqlite3_stmt *pStmt){
  int rc;
  if( pStmt == 0 ) return 0;
  rc = sqlite3_step(pStmt);
  if( rc == SQLITE_ROW ) return 1;
  p->pFailDb = sqlite3_db_handle(pStmt);
  if( rc != SQLITE_DONE ) lintFail(p, rc);
  sqlite3_finalize(pStmt);
  return 0;
}

/* One integer from a query, or 0. */
static sqlite3_int64 lintInt(Lint *p, const char *zFormat, ...){
  sqlite3_stmt *pStmt;
  sqlite3_int64 iOut = 0;
  va_list ap;
  va_start(ap, zFormat);
  pStmt = lintPrepareV(p, zFormat, ap);
  va_end(ap);
  if( lintRow(p, pStmt) ){
    iOut = sqlite3_column_int64(pStmt, 0);
    sqlite3_finalize(pStmt);
  }
  return iOut;
}

/* The share of column iCol's values in the sample that satisfy the SQL
** test zTest (which names the value x). */
static double valueShare(Lint *p, int iCol, const char *zTest){
  sqlite3_stmt *pStmt = lintPrepare(p, "SELECT count(*), sum(%s) FROM "
      "(SELECT \"%w\" AS x FROM %s) WHERE x IS NOT NULL", zTest,
      p->pS->aCol[iCol].zName, p->zSample);
  double rShare = 0.0;
  if( lintRow(p, pStmt) ){
    sqlite3_int64 n = sqlite3_column_int64(pStmt, 0);
    if( n > 0 ) rShare = (double)sqlite3_column_int64(pStmt, 1) / (double)n;
    sqlite3_finalize(pStmt);
  }
  return rShare;
}

/* Dates written day or month first: 01-01-2017, 1/31/2017, 31.1.2017. */
#define WC_LINT_DAY_FIRST \
  "(x GLOB '[0-9][0-9][-/.][0-9][0-9][-/.][0-9][0-9][0-9][0-9]*' OR " \
  "x GLOB '[0-9][-/.][0-9][0-9][-/.][0-9][0-9][0-9][0-9]*' OR " \
  "x GLOB '[0-9][0-9][-/.][0-9][-/.][0-9][0-9][0-9][0-9]*' OR " \
  "x GLOB '[0-9][-/.][0-9][-/.][0-9][0-9][0-9][0-9]*')"
static const char zDayFirst[] = WC_LINT_DAY_FIRST;

const char wcLintTimeTest[] =
  "CASE typeof(x) WHEN 'integer' THEN "
  "x BETWEEN 946684800 AND 4102444800 OR "
  "x BETWEEN 946684800000 AND 4102444800000 OR "
  "x BETWEEN 946684800000000 AND 4102444800000000 OR "
  "(length(x) IN (8, 10, 12, 14) AND "
  "CAST(x AS TEXT) GLOB '[12][0-9][0-9][0-9][01][0-9][0-3][0-9]*') "
  "WHEN 'text' THEN "
  "x GLOB '[12][0-9][0-9][0-9][-/][01][0-9][-/][0-3][0-9]*' OR "
  "(length(x) IN (8, 10, 12, 14) AND "
  "x GLOB '[12][0-9][0-9][0-9][01][0-9][0-3][0-9]*') OR "
  WC_LINT_DAY_FIRST " ELSE 0 END";

const char wcLintTimeMicros[] =
  "CASE typeof(x) WHEN 'integer' THEN CASE "
  "WHEN x BETWEEN 946684800 AND 4102444800 THEN x * 1000000 "
  "WHEN x BETWEEN 946684800000 AND 4102444800000 THEN x * 1000 "
  "WHEN x BETWEEN 946684800000000 AND 4102444800000000 THEN x END "
  "WHEN 'text' THEN CAST((julianday(x) - 2440587.5) * 86400000000.0 "
  "AS INTEGER) END";

/* True if column iCol holds times (cached). */
static int holdsTimes(Lint *p, int iCol){
  if( p->aeTime[iCol] < 0 ){
    p->aeTime[iCol] = valueShare(p, iCol, wcLintTimeTest) >= WC_LINT_SHARE;
  }
  return p->aeTime[iCol] > 0;
}

/* True if queries range over column iCol, or it holds times, which are
** queried by range ('last hour'). */
static int rangeQueried(Lint *p, int iCol){
  return wcHistoryRanged(p->pH, iCol) || holdsTimes(p, iCol);
}

/* Why rangeQueried() is true, for a finding. */
static const char *rangeWhy(Lint *p, int iCol){
  return wcHistoryRanged(p->pH, iCol)
         ? "queries on this connection constrained it with a range"
         : "it holds times, which are queried by range";
}

/* An integer x's digits, its sign left out.  Not length(abs(x)): abs()
** of the smallest integer overflows. */
#define WC_LINT_DIGITS(x) "(length(" x ") - (" x " < 0))"

/* PAD width for an INTEGER column: the digits of its largest value in the
** sample and one more, to leave room to grow; with no values, the type's
** (19 digits hold every non-negative 64-bit integer), never too narrow
** for what may come. */
static int padWidth(Lint *p, int iCol){
  sqlite3_int64 nDigit = lintInt(p, "SELECT max(CASE WHEN \"%w\" = 0 THEN 0 "
                                 "ELSE " WC_LINT_DIGITS("\"%w\"") " END) FROM "
                                 "%s WHERE typeof(\"%w\") = 'integer'",
                                 p->pS->aCol[iCol].zName,
                                 p->pS->aCol[iCol].zName,
                                 p->pS->aCol[iCol].zName, p->zSample,
                                 p->pS->aCol[iCol].zName);
  int n = nDigit > 0 ? (int)nDigit + 1 : WC_LINT_INT_DIGITS;
  return n > WC_LINT_INT_DIGITS ? WC_LINT_INT_DIGITS : n;
}

/*
** Keys as text.
*/

/* Column iCol's name as a fix writes it (quoted if need be), from
** sqlite3_mprintf(). */
static char *colSql(Lint *p, int iCol){
  sqlite3_str *pStr = sqlite3_str_new(0);
  wcAppendName(pStr, p->pS->aCol[iCol].zName);
  return sqlite3_str_finish(pStr);
}

/* The key's elements as text, or NULL (p->rc set) if out of memory.
** The functions below accept NULL, so that a fix is built in straight
** lines and comes out NULL. */
static KeyText *keyTextNew(Lint *p, const WcSchema *pKey){
  KeyText *pKt = sqlite3_malloc64(sizeof(KeyText)
                      + sizeof(char*) * ((sqlite3_uint64)pKey->nElem + 2));
  int i;
  if( pKt == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  pKt->az = (char**)&pKt[1];
  pKt->n = pKey->nElem;
  pKt->nRandom = pKey->nRandom;
  for(i = 0; i < pKey->nElem; i++){
    pKt->az[i] = wcElementText(pKey, &pKey->aElem[i], 0);
    if( pKt->az[i] == 0 ) p->rc = SQLITE_NOMEM;
  }
  return pKt;
}

/* Replaces element i with z (owned). */
static void keyTextSet(Lint *p, KeyText *pKt, int i, char *z){
  if( z == 0 ) p->rc = SQLITE_NOMEM;
  if( pKt == 0 ){
    sqlite3_free(z);
    return;
  }
  sqlite3_free(pKt->az[i]);
  pKt->az[i] = z;
}

/* Inserts z (owned) before element i; at most two more than declared. */
static void keyTextInsert(Lint *p, KeyText *pKt, int i, char *z){
  if( z == 0 ) p->rc = SQLITE_NOMEM;
  if( pKt == 0 ){
    sqlite3_free(z);
    return;
  }
  memmove(&pKt->az[i + 1], &pKt->az[i], sizeof(char*) * (size_t)(pKt->n - i));
  pKt->az[i] = z;
  pKt->n++;
}

/* Keeps the first n elements. */
static void keyTextTruncate(KeyText *pKt, int n){
  while( pKt && pKt->n > n ) sqlite3_free(pKt->az[--pKt->n]);
}

/* " INCLUDE (c, d)" of index iIndex, as declared: the columns it stores
** that are neither its fields nor the row key's.  A fix keeps it. */
static void appendInclude(Lint *p, sqlite3_str *pStr, int iIndex){
  const WcSchema *pKey = p->pS->aIndex[iIndex].pKey;
  int i, n = 0;
  for(i = 0; i < p->pS->nCol; i++){
    if( !p->pS->aIndex[iIndex].abStored[i] || pKey->aCol[i].bKey
     || p->pS->aCol[i].bKey ){
      continue;
    }
    sqlite3_str_appendall(pStr, n++ ? ", " : " INCLUDE (");
    wcAppendName(pStr, p->pS->aCol[i].zName);
  }
  if( n ) sqlite3_str_appendall(pStr, ")");
}

/* A row key in Cassandra's form (TOKEN(p, ...), p, ..., c [DESC], ...)
** as the user declared it, PRIMARY KEY ((p, ...), c [DESC], ...), into
** pStr; 0 (nothing written) where the text is not in that form. */
static int appendPrimaryKey(Lint *p, sqlite3_str *pStr, const KeyText *pKt){
  const WcElement *pTok = &p->pS->aElem[0];
  const char *z0 = pKt->az[0];
  size_t n0 = z0 ? strlen(z0) : 0;
  int i;
  if( !p->pS->bPrimaryKey || !pTok->bToken || pKt->nRandom
   || n0 < 8 || strncmp(z0, "TOKEN(", 6) != 0 || z0[n0 - 1] != ')'
   || pKt->n < 1 + pTok->nSaltCol ){
    return 0;
  }
  sqlite3_str_appendf(pStr, "PRIMARY KEY ((%.*s)", (int)n0 - 7, z0 + 6);
  for(i = 1 + pTok->nSaltCol; i < pKt->n; i++){
    sqlite3_str_appendf(pStr, ", %s", pKt->az[i] ? pKt->az[i] : "?");
  }
  sqlite3_str_appendall(pStr, ")");
  return 1;
}

/* "ROWKEY(a, b)" or "INDEX name(a, b) [INCLUDE (...)]"; frees the key
** text.  A row key declared PRIMARY KEY (...) is written back so. */
static char *keyTextFinish(Lint *p, const LintKey *pK, KeyText *pKt){
  sqlite3_str *pStr;
  char *z;
  int i;
  if( pKt == 0 ) return 0;
  pStr = sqlite3_str_new(0);
  if( !(pK->bRowKey && appendPrimaryKey(p, pStr, pKt)) ){
    sqlite3_str_appendf(pStr, "%s(", pK->zName);
    for(i = 0; i < pKt->n; i++){
      sqlite3_str_appendf(pStr, "%s%s", i ? ", " : "",
                          pKt->az[i] ? pKt->az[i] : "?");
    }
    if( pKt->nRandom ){
      sqlite3_str_appendf(pStr, ", RANDOM(%lld)", (long long)pKt->nRandom);
    }
    sqlite3_str_appendall(pStr, ")");
  }
  for(i = 0; i < pKt->n; i++) sqlite3_free(pKt->az[i]);
  sqlite3_free(pKt);
  if( pK->iIndex >= 0 ) appendInclude(p, pStr, pK->iIndex);
  z = sqlite3_str_finish(pStr);
  if( z == 0 || p->rc != SQLITE_OK ){
    if( p->rc == SQLITE_OK ) p->rc = SQLITE_NOMEM;
    sqlite3_free(z);
    return 0;
  }
  return z;
}

/* The declared key with element iElem replaced by zNew (owned). */
static char *fixReplace(Lint *p, const LintKey *pK, int iElem, char *zNew){
  KeyText *pKt = keyTextNew(p, pK->pKey);
  keyTextSet(p, pKt, iElem, zNew);
  return keyTextFinish(p, pK, pKt);
}

/* The declared key with zNew (owned) inserted before element iElem. */
static char *fixInsert(Lint *p, const LintKey *pK, int iElem, char *zNew){
  KeyText *pKt = keyTextNew(p, pK->pKey);
  keyTextInsert(p, pKt, iElem, zNew);
  return keyTextFinish(p, pK, pKt);
}

/* An element in BINARY encoding, which orders every type by itself: no
** PAD or REVERSE, DESC without a max. */
static char *elementBinary(const WcSchema *pKey, const WcElement *pE){
  WcElement one = *pE;
  int i, n = 0;
  for(i = 0; i < pE->nXform; i++){
    if( pE->aXform[i].eOp == WC_XFORM_DESC ){
      one.aXform[n] = pE->aXform[i];
      one.aXform[n++].bArg = 0;
    }
  }
  one.nXform = n;
  return wcElementText(pKey, &one, 0);
}

/* Appends "ROWKEY(...)" or "INDEX name(...) [INCLUDE (...)]" for a key of
** the table in BINARY form. */
static void appendBinaryKey(Lint *p, sqlite3_str *pStr, int iIndex){
  const WcSchema *pKey = iIndex < 0 ? p->pS : p->pS->aIndex[iIndex].pKey;
  int i;
  if( iIndex < 0 ){
    sqlite3_str_appendall(pStr, "ROWKEY(");
  }else{
    sqlite3_str_appendall(pStr, ", INDEX ");
    wcAppendName(pStr, p->pS->aIndex[iIndex].zName);
    sqlite3_str_appendall(pStr, "(");
  }
  for(i = 0; i < pKey->nElem; i++){
    char *z = elementBinary(pKey, &pKey->aElem[i]);
    if( z == 0 ) p->rc = SQLITE_NOMEM;
    sqlite3_str_appendf(pStr, "%s%s", i ? ", " : "", z ? z : "?");
    sqlite3_free(z);
  }
  if( pKey->nRandom ){
    sqlite3_str_appendf(pStr, ", RANDOM(%lld)", (long long)pKey->nRandom);
  }
  sqlite3_str_appendall(pStr, ")");
  if( iIndex >= 0 ) appendInclude(p, pStr, iIndex);
}

/* ENCODING BINARY applies to every key of the table, so the fix rewrites
** them all: "ROWKEY(...), INDEX ...(...), ENCODING BINARY", with zAdd (an
** INDEX the fix adds, or NULL) after them. */
static char *fixBinaryKeys(Lint *p, const char *zRowKey, const char *zAdd){
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *z;
  int i;
  if( zRowKey ) sqlite3_str_appendall(pStr, zRowKey);
  else appendBinaryKey(p, pStr, -1);
  for(i = 0; i < p->pS->nIndex; i++) appendBinaryKey(p, pStr, i);
  if( zAdd ) sqlite3_str_appendf(pStr, ", %s", zAdd);
  sqlite3_str_appendall(pStr, ", ENCODING BINARY");
  z = sqlite3_str_finish(pStr);
  if( z == 0 ) p->rc = SQLITE_NOMEM;
  return z;
}

static char *fixBinaryWith(Lint *p, const char *zAdd){
  return fixBinaryKeys(p, 0, zAdd);
}

static char *fixBinary(Lint *p){
  return fixBinaryWith(p, 0);
}

/*
** Findings.
*/

/* Adds a finding about element iElem (-1: the whole key); zFix is owned. */
static void finding(Lint *p, const LintKey *pK, int iElem,
                    const char *zSeverity, const char *zRule, char *zFix,
                    const char *zFormat, ...){
  va_list ap;
  char *zFinding, *zElem = 0;
  int rc;
  va_start(ap, zFormat);
  zFinding = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( iElem >= 0 ) zElem = wcElementText(pK->pKey, &pK->pKey->aElem[iElem], 0);
  if( p->rc != SQLITE_OK || zFinding == 0 || (iElem >= 0 && zElem == 0) ){
    if( p->rc == SQLITE_OK ) p->rc = SQLITE_NOMEM;
    sqlite3_free(zFinding);
    sqlite3_free(zElem);
    sqlite3_free(zFix);
    return;
  }
  rc = wcTvfAddRow(p->pRows, "tttmmm", zSeverity, zRule, pK->zName, zElem,
                   zFinding, zFix);
  if( rc != SQLITE_OK ) p->rc = rc;
}

static int hasTransform(const WcElement *pE, int eOp){
  int i;
  for(i = 0; i < pE->nXform; i++){
    if( pE->aXform[i].eOp == eOp ) return 1;
  }
  return 0;
}

static int hasCol(const int *aiCol, int nCol, int iCol){
  int i;
  for(i = 0; i < nCol; i++) if( aiCol[i] == iCol ) return 1;
  return 0;
}

static const char *colName(Lint *p, int iCol){
  return p->pS->aCol[iCol].zName;
}

/* Four aggregates zAggs (over x) of column iCol's integers in the sample,
** into a[0..4); zeros if there are none. */
static void integerStats(Lint *p, int iCol, const char *zAggs,
                         sqlite3_int64 *a){
  sqlite3_stmt *pStmt = lintPrepare(p, "SELECT %s FROM (SELECT \"%w\" AS x "
      "FROM %s) WHERE typeof(x) = 'integer'", zAggs, colName(p, iCol),
      p->zSample);
  int i;
  memset(a, 0, sizeof(sqlite3_int64) * 4);
  if( lintRow(p, pStmt) ){
    for(i = 0; i < 4; i++) a[i] = sqlite3_column_int64(pStmt, i);
    sqlite3_finalize(pStmt);
  }
}

/* The element that spreads a rising field's writes, or a hot entity's,
** over WC_LINT_PREFIXES key ranges: BUCKET(16, column), the form every
** tool writes (the advisor's designs, the lint's fixes). */
static char *spreadText(Lint *p, int iCol){
  /* BUCKET takes non-negative integers, text and blobs; a salt of one hex
  ** digit spreads any value over as many ranges. */
  if( lintInt(p, "SELECT count(*) FROM %s WHERE typeof(\"%w\") = 'real' OR "
              "(typeof(\"%w\") = 'integer' AND \"%w\" < 0)", p->zSample,
              colName(p, iCol), colName(p, iCol), colName(p, iCol)) > 0 ){
    return sqlite3_mprintf("SALT(1, %z)", colSql(p, iCol));
  }
  return sqlite3_mprintf("BUCKET(%d, %z)", WC_LINT_PREFIXES, colSql(p, iCol));
}

/* True if INTEGER column iCol is a sequence: nearly one row per value,
** and few values missing, in enough rows to tell.  A sample spread over
** the key order holds a share of the values between min and max: the
** table's distinct values are scaled up from it.  a[] gets count(*),
** count(DISTINCT), min and max. */
static int isSequence(Lint *p, int iCol, sqlite3_int64 *a){
  memset(a, 0, sizeof(sqlite3_int64) * 4);
  if( p->pS->aCol[iCol].cAff != WC_AFF_INTEGER ) return 0;
  integerStats(p, iCol, "count(*), count(DISTINCT x), min(x), max(x)", a);
  return a[0] >= WC_LINT_MIN_ROWS && a[1] >= WC_LINT_SHARE * (double)a[0]
      && (double)a[3] - (double)a[2] + 1.0
         <= 2.0 * (double)a[1] * (double)p->nTable / (double)p->nSample;
}

/* True if column iCol's values grow as rows are written: times, or a
** sequence.  A key led by it writes every new row at its end. */
static int risesAsWritten(Lint *p, int iCol){
  sqlite3_int64 a[4];
  return holdsTimes(p, iCol) || isSequence(p, iCol, a);
}

/* hotspot: a leading field that grows as rows are written (times, dense
** sequences) sends every new row to the last region. */
static void ruleHotspot(Lint *p, const LintKey *pK){
  const WcElement *pE = &pK->pKey->aElem[0];
  const char *zCol, *zEnd;
  char *zFix;
  sqlite3_int64 a[4], n, nDistinct, iMin, iMax;
  int bRanged, bSalt;
  if( pE->eKind != WC_ELEM_COLUMN || hasTransform(pE, WC_XFORM_REVERSE) ){
    return;
  }
  zCol = colName(p, pE->iCol);
  zEnd = hasTransform(pE, WC_XFORM_DESC) ? "smallest" : "largest";
  if( holdsTimes(p, pE->iCol) ){
    zFix = fixInsert(p, pK, 0, spreadText(p, pE->iCol));
    finding(p, pK, 0, "warning", "hotspot", zFix,
        "the leading field %s holds times, which grow as rows are written: "
        "every new row goes to the region holding the %s keys, so one "
        "server takes all writes (a hotspot); a bucket in front (the "
        "guides' [bucket][timestamp]) spreads them over %d key ranges, and "
        "a range on %s then reads %d ranges", zCol, zEnd, WC_LINT_PREFIXES,
        zCol, WC_LINT_PREFIXES);
    return;
  }
  if( !isSequence(p, pE->iCol, a) ) return;
  n = a[0];
  nDistinct = a[1];
  iMin = a[2];
  iMax = a[3];
  bRanged = rangeQueried(p, pE->iCol);
  /* Reversed padded digits need TEXT encoding and no negative values; a
  ** salt spreads any integer. */
  bSalt = bRanged || iMin < 0 || pK->pKey->eEncoding == WC_ENCODING_BINARY;
  if( bSalt ){
    zFix = fixInsert(p, pK, 0, spreadText(p, pE->iCol));
  }else{
    char *zNew = hasTransform(pE, WC_XFORM_PAD) || hasTransform(pE, WC_XFORM_DESC)
               ? sqlite3_mprintf("%z REVERSE", wcElementText(pK->pKey, pE, 0))
               : sqlite3_mprintf("%z PAD %d REVERSE", colSql(p, pE->iCol),
                                 padWidth(p, pE->iCol));
    zFix = fixReplace(p, pK, 0, zNew);
  }
  finding(p, pK, 0, "warning", "hotspot", zFix,
      "the leading field %s is a sequence (%lld distinct values from %lld to "
      "%lld in %lld rows), which grows as rows are written: every new row "
      "goes to the region holding the %s keys, so one server takes all "
      "writes (a hotspot); %s", zCol, nDistinct, iMin, iMax, n, zEnd,
      bRanged
        ? "it is range-queried, so a bucket in front spreads the writes "
          "over 16 key ranges and a range reads 16 ranges"
        : bSalt
        ? "a bucket in front spreads the writes over 16 key ranges (padded "
          "and reversed digits would, but they need TEXT encoding and "
          "values from 0 up)"
        : "reversing its padded digits puts the fastest-changing digit "
          "first and spreads writes over 10 key ranges (the HBase blog's "
          "Reverse(Pad(OrderID)))");
}

/* hot-key: one value of the key's leading entity (a device, a user, a
** host: the first field, or the columns a leading SALT or TOKEN hashes)
** holds so large a share of the rows that the key range holding it (a
** region; in Cassandra's form, a node) takes WC_HOT_SKEW times an even
** share of WC_LINT_PREFIXES, the skew widecol_regions and widecol_ring
** report.  A bucket or salt right after the entity spreads it already. */
static void ruleHotKey(Lint *p, const LintKey *pK){
  const WcSchema *pKey = pK->pKey;
  const WcElement *pE = &pKey->aElem[0];
  sqlite3_str *pCols = sqlite3_str_new(0), *pQuoted;
  sqlite3_stmt *pStmt;
  char *zCols, *zQuoted, *zFix = 0, *zValue;
  sqlite3_int64 nTop;
  double rSkew;
  int aiCol[WC_HISTORY_MAX_COLS], nCol = 0, iNext = 1, i;
  if( pE->eKind == WC_ELEM_COLUMN && !hasTransform(pE, WC_XFORM_REVERSE)
   && !holdsTimes(p, pE->iCol) ){
    aiCol[nCol++] = pE->iCol;
  }else if( pE->eKind == WC_ELEM_SALT ){
    for(i = 0; i < pE->nSaltCol && nCol < WC_HISTORY_MAX_COLS; i++){
      aiCol[nCol++] = pE->aiSaltCol[i];
    }
    while( iNext < pKey->nElem && pKey->aElem[iNext].eKind == WC_ELEM_COLUMN
           && hasCol(aiCol, nCol, pKey->aElem[iNext].iCol) ){
      iNext++;
    }
  }
  if( nCol == 0 || p->nSample < WC_LINT_HOT_ROWS
   || (iNext < pKey->nElem && pKey->aElem[iNext].eKind != WC_ELEM_COLUMN) ){
    sqlite3_free(sqlite3_str_finish(pCols));
    return;
  }
  pQuoted = sqlite3_str_new(0);
  for(i = 0; i < nCol; i++){
    sqlite3_str_appendf(pCols, "%s\"%w\"", i ? ", " : "",
                        colName(p, aiCol[i]));
    sqlite3_str_appendf(pQuoted, "%squote(\"%w\")", i ? ", " : "",
                        colName(p, aiCol[i]));
  }
  zCols = sqlite3_str_finish(pCols);
  zQuoted = sqlite3_str_finish(pQuoted);
  if( zCols == 0 || zQuoted == 0 ){
    sqlite3_free(zCols);
    sqlite3_free(zQuoted);
    p->rc = SQLITE_NOMEM;
    return;
  }
  pStmt = lintPrepare(p, "SELECT count(*), %s FROM %s GROUP BY %s ORDER BY "
                      "1 DESC LIMIT 1", zQuoted, p->zSample, zCols);
  sqlite3_free(zCols);
  sqlite3_free(zQuoted);
  if( !lintRow(p, pStmt) ) return;
  nTop = sqlite3_column_int64(pStmt, 0);
  rSkew = (double)nTop * WC_LINT_PREFIXES / (double)p->nSample;
  if( rSkew < WC_HOT_SKEW ){
    sqlite3_finalize(pStmt);
    return;
  }
  pCols = sqlite3_str_new(0);
  for(i = 0; i < nCol; i++){
    sqlite3_str_appendf(pCols, "%s%s = %s", i ? ", " : "",
                        colName(p, aiCol[i]),
                        sqlite3_column_text(pStmt, 1 + i));
  }
  sqlite3_finalize(pStmt);
  zValue = sqlite3_str_finish(pCols);
  if( !pE->bToken && iNext < pKey->nElem ){
    zFix = fixInsert(p, pK, iNext,
                     spreadText(p, pKey->aElem[iNext].iCol));
  }
  finding(p, pK, 0, "warning", "hot-key", zFix,
      "%s holds %.1f%% of the rows (%lld of the %lld sampled): every row of "
      "one %s value is written under one key prefix, so the %s holding it "
      "takes %.1f times an even share of %d (what widecol_regions and "
      "widecol_ring call skew; %g or more is hot) however many servers the "
      "cluster has; %s", zValue ? zValue : "?",
      100.0 * (double)nTop / (double)p->nSample, nTop,
      (long long)p->nSample, nCol == 1 ? colName(p, aiCol[0]) : "entity",
      pE->bToken ? "node" : "region", rSkew, WC_LINT_PREFIXES, WC_HOT_SKEW,
      pE->bToken
      ? "Cassandra keeps a partition on one node (and its replicas): add a "
        "bucket column the application fills to the partition key, as in "
        "PRIMARY KEY ((device, day), ts), so that a hot device's rows "
        "spread over partitions"
      : zFix
      ? "a bucket of the next field after it spreads each value's rows over "
        "16 key ranges (a read of one value then reads 16 ranges, merged in "
        "key order)"
      : "the key has no field after it to bucket: add one (a time) and a "
        "bucket of it after the entity");
  sqlite3_free(zValue);
}

/* unpadded-integer: TEXT encoding writes an integer's digits, which sort
** as text: {1, 11, 2, 22, 3}. */
static void ruleUnpadded(Lint *p, const LintKey *pK, int iElem){
  const WcElement *pE = &pK->pKey->aElem[iElem];
  const char *zCol;
  sqlite3_int64 a[4], n, nMinDigits, nMaxDigits, iMin;
  char *zFix, *zData;
  if( pK->pKey->eEncoding != WC_ENCODING_TEXT || pE->eKind != WC_ELEM_COLUMN
   || p->pS->aCol[pE->iCol].cAff != WC_AFF_INTEGER
   || hasTransform(pE, WC_XFORM_PAD) || hasTransform(pE, WC_XFORM_DESC)
   || hasTransform(pE, WC_XFORM_REVERSE) ){
    return;
  }
  zCol = colName(p, pE->iCol);
  integerStats(p, pE->iCol, "count(*), min(" WC_LINT_DIGITS("x") "), "
               "max(" WC_LINT_DIGITS("x") "), min(x)", a);
  n = a[0];
  nMinDigits = a[1];
  nMaxDigits = a[2];
  iMin = a[3];
  if( n == 0 ){
    zData = sqlite3_mprintf("");
  }else if( nMinDigits == nMaxDigits ){
    zData = sqlite3_mprintf("; its %lld values all have %lld digits today, "
                            "and the first with one more will sort out of "
                            "place", n, nMaxDigits);
  }else{
    zData = sqlite3_mprintf("; its %lld values have %lld to %lld digits, so "
                            "key order is not number order now", n,
                            nMinDigits, nMaxDigits);
  }
  if( iMin < 0 ){
    /* PAD holds 0 to 10^n - 1: negative numbers need typed keys. */
    zFix = fixBinary(p);
  }else{
    zFix = fixReplace(p, pK, iElem, sqlite3_mprintf("%z PAD %d",
                                                    colSql(p, pE->iCol),
                                                    padWidth(p, pE->iCol)));
  }
  finding(p, pK, iElem, "warning", "unpadded-integer", zFix,
      "%s is an INTEGER written without PAD: its digits sort as text "
      "({1, 11, 2, 22, 3}), so a range on %s cannot be a key range and "
      "ORDER BY %s is a sort%z", zCol, zCol, zCol, zData);
}

/* prefix-scan: variable-width text followed by a delimiter that sorts
** above a character of a longer value it is a prefix of. */
/* The first value of column iCol in byte order that is a prefix of the
** next, whose next byte sorts below key pKey's delimiter: (v, nxt), or no
** row.  As a field followed by the delimiter, their keys interleave. */
static sqlite3_stmt *prefixPairStmt(Lint *p, int iCol, const WcSchema *pKey){
  return lintPrepare(p, "SELECT v, nxt FROM (SELECT v, lead(v) OVER "
      "(ORDER BY v) AS nxt FROM (SELECT DISTINCT CAST(\"%w\" AS BLOB) AS v "
      "FROM %s)) WHERE substr(nxt, 1, length(v)) = v AND "
      "substr(nxt, length(v) + 1, %d) < CAST(%Q AS BLOB) LIMIT 1",
      colName(p, iCol), p->zSample, pKey->nDelim, pKey->zDelim);
}

/* "col PAD n" for a TEXT column: the longest value and 4, the width that
** keeps its values' keys apart and in order (the guides' fixed width);
** NULL where a value ends with PAD's fill, a space, which PAD refuses. */
static char *textPadText(Lint *p, int iCol){
  sqlite3_int64 nMax;
  if( lintInt(p, "SELECT count(*) FROM %s WHERE substr(\"%w\", -1) = ' '",
              p->zSample, colName(p, iCol)) > 0 ){
    return 0;
  }
  nMax = lintInt(p, "SELECT max(length(\"%w\")) FROM %s", colName(p, iCol),
                 p->zSample);
  return sqlite3_mprintf("%z PAD %lld", colSql(p, iCol), nMax + 4);
}

static void rulePrefix(Lint *p, const LintKey *pK, int iElem){
  const WcElement *pE = &pK->pKey->aElem[iElem];
  const WcSchema *pKey = pK->pKey;
  const char *zCol;
  sqlite3_stmt *pStmt;
  char *zFix, *zShort, *zLong, *zStop, *zPad;
  const char *zRemedy;
  unsigned char cNext;
  if( pKey->eEncoding != WC_ENCODING_TEXT || pE->eKind != WC_ELEM_COLUMN
   || pE->eOrder != WC_ORDER_PREFIX || pE->eSpan != WC_SPAN_DELIM
   || pKey->nDelim == 0 ){
    return;
  }
  zCol = colName(p, pE->iCol);
  /* In byte order, a value's successor begins with it if any value
  ** does; it sorts out of place when its next bytes are below the
  ** delimiter. */
  pStmt = prefixPairStmt(p, pE->iCol, pKey);
  if( !lintRow(p, pStmt) ) return;
  zShort = sqlite3_mprintf("%.*s", sqlite3_column_bytes(pStmt, 0),
                           (const char*)sqlite3_column_blob(pStmt, 0));
  zLong = sqlite3_mprintf("%.*s", sqlite3_column_bytes(pStmt, 1),
                          (const char*)sqlite3_column_blob(pStmt, 1));
  cNext = ((const unsigned char*)sqlite3_column_blob(pStmt, 1))
          [sqlite3_column_bytes(pStmt, 0)];
  sqlite3_finalize(pStmt);
  zPad = p->pS->aCol[pE->iCol].cAff == WC_AFF_TEXT
       ? textPadText(p, pE->iCol) : 0;
  if( zPad ){
    zFix = fixReplace(p, pK, iElem, zPad);
    zRemedy = "a fixed width (PAD: the longest value and 4)";
  }else{
    /* A blob, or text that ends with PAD's fill. */
    zFix = fixBinary(p);
    zRemedy = "ENCODING BINARY, which ends a value with 00 00, below any "
              "byte that follows it in a longer one,";
  }
  zStop = sqlite3_mprintf("%s", zShort);
  if( zStop && zStop[0] ) zStop[strlen(zStop) - 1]++;
  finding(p, pK, iElem, "warning", "prefix-scan", zFix,
      "%s has no fixed width and the delimiter %Q (byte 0x%02X) that follows "
      "it sorts above some of its characters: '%q' is a prefix of '%q', "
      "whose next byte is 0x%02X, so keys of '%q' sort before those of '%q', "
      "and a scan for '%q' by its bytes (start '%q', stop '%q', as in the "
      "Lindorm guide's host1/host12) returns the rows of '%q' too; %s "
      "keeps each value's keys together and in order", zCol, pKey->zDelim,
      (unsigned char)pKey->zDelim[0], zShort, zLong, cNext, zLong, zShort,
      zShort, zShort, zStop ? zStop : "", zLong, zRemedy);
  sqlite3_free(zShort);
  sqlite3_free(zLong);
  sqlite3_free(zStop);
}

/* Column iCol's value in the first row of the sample, as text. */
static char *firstValue(Lint *p, int iCol){
  sqlite3_stmt *pStmt = lintPrepare(p, "SELECT \"%w\" FROM %s LIMIT 1",
                                    colName(p, iCol), p->zSample);
  char *z = 0;
  if( lintRow(p, pStmt) ){
    z = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 0));
    sqlite3_finalize(pStmt);
  }
  return z;
}

/* date-order: text dates written day or month first do not sort in time
** order. */
static void ruleDateOrder(Lint *p, const LintKey *pK, int iElem){
  const WcElement *pE = &pK->pKey->aElem[iElem];
  const char *zCol;
  char *zExample;
  if( pE->eKind != WC_ELEM_COLUMN || hasTransform(pE, WC_XFORM_REVERSE)
   || p->pS->aCol[pE->iCol].cAff != WC_AFF_TEXT
   || valueShare(p, pE->iCol, zDayFirst) < WC_LINT_SHARE ){
    return;
  }
  zCol = colName(p, pE->iCol);
  zExample = firstValue(p, pE->iCol);
  /* The remedy is in the data, so there is no DDL to give. */
  finding(p, pK, iElem, "warning", "date-order", 0,
      "%s holds dates written day or month first ('%q'): text order is not "
      "time order ('02-01-2016' sorts after '01-01-2017'), so a key range "
      "on %s is not a time range and 'the last week' is not one scan; the "
      "key can stay as it is with %s written year first, 'YYYY-MM-DD "
      "HH:MM:SS' (ISO 8601), which sorts as time does", zCol,
      zExample ? zExample : "", zCol, zCol);
  sqlite3_free(zExample);
}

/* unordered-range: REVERSE on a range-queried field. */
static void ruleReversedRange(Lint *p, const LintKey *pK, int iElem){
  const WcSchema *pKey = pK->pKey;
  const WcElement *pE = &pKey->aElem[iElem];
  const char *zCol;
  KeyText *pKt;
  if( pE->eKind != WC_ELEM_COLUMN || !hasTransform(pE, WC_XFORM_REVERSE)
   || !rangeQueried(p, pE->iCol) ){
    return;
  }
  zCol = colName(p, pE->iCol);
  pKt = keyTextNew(p, pKey);
  keyTextSet(p, pKt, iElem, wcElementText(pKey, pE, WC_XFORM_REVERSE));
  if( iElem == 0 ){
    /* Unreversed, a leading field needs a salt against hotspots. */
    keyTextInsert(p, pKt, 0, sqlite3_mprintf("SALT(1, %z)",
                                             colSql(p, pE->iCol)));
  }
  finding(p, pK, iElem, "warning", "unordered-range",
      keyTextFinish(p, pK, pKt),
      "%s is REVERSEd, so its keys are not in value order: a range on %s "
      "(%s) cannot be a key range and reads every row%s", zCol, zCol,
      rangeWhy(p, pE->iCol), iElem == 0
      ? "; a one-digit salt in front spreads writes as well and keeps "
        "ranges to 16 scans" : "");
}

/* salted-range: more than WC_LINT_PREFIXES salt or bucket prefixes in
** front of a range-queried field. */
static void ruleSaltedRange(Lint *p, const LintKey *pK, int iElem){
  const WcSchema *pKey = pK->pKey;
  const WcElement *pE = &pKey->aElem[iElem];
  const char *zCol;
  char *zNew, *zCount;
  uint64_t nPrefix;     /* 0: 16^16 or more */
  int j;
  /* A TOKEN is Cassandra's partition: a range is read within one, and
  ** allow-filtering judges the rest. */
  if( pE->eKind == WC_ELEM_COLUMN || pE->bToken ) return;
  nPrefix = wcDerivedCount(pKey, iElem);
  if( nPrefix != 0 && nPrefix <= WC_LINT_PREFIXES ) return;
  for(j = iElem + 1; j < pKey->nElem; j++){
    const WcElement *pNext = &pKey->aElem[j];
    if( pNext->eKind == WC_ELEM_COLUMN && pNext->eOrder != WC_ORDER_NONE
     && rangeQueried(p, pNext->iCol) ){
      break;
    }
  }
  if( j == pKey->nElem ) return;
  zCol = colName(p, pKey->aElem[j].iCol);
  if( pE->eKind == WC_ELEM_BUCKET ){
    zNew = sqlite3_mprintf("BUCKET(%d, %z)", WC_LINT_PREFIXES,
                           colSql(p, pE->iCol));
  }else{
    WcElement one = *pE;
    one.nSaltDigit = pE->nSaltDigit < 0 ? -1 : 1;
    zNew = wcElementText(pKey, &one, 0);
  }
  zCount = nPrefix ? sqlite3_mprintf("%llu", (unsigned long long)nPrefix)
                   : sqlite3_mprintf("16^%d", pE->nSaltDigit < 0
                                     ? -pE->nSaltDigit : pE->nSaltDigit);
  finding(p, pK, iElem, "warning", "salted-range",
      fixReplace(p, pK, iElem, zNew),
      "it puts %s prefixes in front of %s, and %s: a range on %s is then "
      "%s scans, one per prefix (widecol probes each; HBase needs a scan "
      "each), where %d prefixes spread writes over up to %d region servers "
      "as well; keep about one prefix per server", zCount ? zCount : "?",
      zCol, rangeWhy(p, pKey->aElem[j].iCol), zCol, zCount ? zCount : "?",
      WC_LINT_PREFIXES, WC_LINT_PREFIXES);
  sqlite3_free(zCount);
}

/* key-length: the shortest key the design can write, from its fixed
** widths, and the longest in the data. */
static void ruleKeyLength(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  sqlite3_int64 nMin = 0, nLongest;
  int i, iLong = -1;
  sqlite3_int64 nLong = 0;
  for(i = 0; i < pS->nElem && pS->eEncoding == WC_ENCODING_TEXT; i++){
    const WcElement *pE = &pS->aElem[i];
    /* Salts and buckets are WC_SPAN_BYTES too; a character is a byte or
    ** more. */
    if( i > 0 ) nMin += pS->nDelim;
    if( pE->eSpan == WC_SPAN_BYTES || pE->eSpan == WC_SPAN_CHARS ){
      nMin += pE->nSpan;
    }
  }
  if( nMin > WC_MAX_KEY_BYTES ){
    finding(p, pK, -1, "error", "key-length", 0,
        "every key is at least %lld bytes (the fixed widths and delimiters), "
        "more than HBase's limit of %d: no row can be written; shorten the "
        "PAD widths", (long long)nMin, WC_MAX_KEY_BYTES);
    return;
  }
  nLongest = lintInt(p, "SELECT max(length(rowkey)) FROM %s", p->zSample);
  if( nLongest <= WC_LINT_KEY_ADVICE && nMin <= WC_LINT_KEY_ADVICE ) return;
  for(i = 0; i < pS->nElem; i++){
    const WcElement *pE = &pS->aElem[i];
    sqlite3_int64 n;
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    n = lintInt(p, "SELECT max(length(CAST(\"%w\" AS BLOB))) FROM %s",
                colName(p, pE->iCol), p->zSample);
    if( pE->eSpan == WC_SPAN_CHARS || pE->eSpan == WC_SPAN_BYTES ){
      n = n > pE->nSpan ? n : pE->nSpan;
    }
    if( n > nLong ){
      nLong = n;
      iLong = i;
    }
  }
  if( iLong < 0 ) return;
  finding(p, pK, iLong, "advice", "key-length",
      fixReplace(p, pK, iLong, sqlite3_mprintf("SALT(16, %z)",
                                colSql(p, pS->aElem[iLong].iCol))),
      "keys are up to %lld bytes (at least %lld), more than the %d bytes to "
      "keep them under: the key is stored with every cell and in every "
      "index, and %s takes up to %lld of them; a digest (SALT(16, ...), 16 "
      "hex digits) still finds rows by '=' but not by range, or store a "
      "short code instead of a name (the Lindorm guide: 'tb' for 'Taobao')",
      (long long)(nLongest > nMin ? nLongest : nMin), (long long)nMin,
      WC_LINT_KEY_ADVICE, colName(p, pS->aElem[iLong].iCol), (long long)nLong);
}

/* too-many-fields: more than WC_LINT_MAX_FIELDS key columns. */
static void ruleFields(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  sqlite3_str *pCols;
  char *zFix = 0;
  int nField = 0, i, k = 0;
  for(i = 0; i < pS->nElem; i++) nField += pS->aElem[i].eKind == WC_ELEM_COLUMN;
  if( nField <= WC_LINT_MAX_FIELDS ) return;
  /* The fewest leading fields that tell the sample's rows apart. */
  pCols = sqlite3_str_new(0);
  for(i = 0; i < pS->nElem && p->nSample > 0 && zFix == 0; i++){
    const WcElement *pE = &pS->aElem[i];
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    if( ++k > WC_LINT_MAX_FIELDS ) break;
    sqlite3_str_appendf(pCols, "%s\"%w\"", k > 1 ? ", " : "",
                        colName(p, pE->iCol));
    if( lintInt(p, "SELECT count(*) FROM (SELECT DISTINCT %s FROM %s)",
                sqlite3_str_value(pCols), p->zSample) == p->nSample ){
      KeyText *pKt = keyTextNew(p, pS);
      keyTextTruncate(pKt, i + 1);
      zFix = keyTextFinish(p, pK, pKt);
      break;
    }
  }
  /* A field to drop that alone tells the rows apart is the key's
  ** identity (the HBase blog's PaymentID "for uniqueness", a not-unique
  ** fix's field): rows it kept apart may be missing from the sample
  ** because they collided.  Kept: no advice against it. */
  for(i++; zFix && i < pS->nElem; i++){
    const WcElement *pE = &pS->aElem[i];
    if( pE->eKind == WC_ELEM_COLUMN
     && lintInt(p, "SELECT count(DISTINCT \"%w\") FROM %s",
                colName(p, pE->iCol), p->zSample) == p->nSample ){
      sqlite3_free(zFix);
      zFix = 0;
    }
  }
  sqlite3_free(sqlite3_str_finish(pCols));
  /* A key that needs its fields to tell rows apart keeps them: advice
  ** only where fewer do (a not-unique fix's field draws none). */
  if( zFix == 0 ) return;
  finding(p, pK, -1, "advice", "too-many-fields", zFix,
      "the key has %d fields; one to three are recommended (GeminiDB): each "
      "field makes every key longer and every write slower, and the first "
      "fields of this one already tell the rows read apart: drop the "
      "others, if a query does not need them", nField);
}

/* True if the column's collation lets it be a key field: a key orders
** values by their bytes, so only BINARY (or none) does. */
static int keyCollation(const WcColumn *pCol){
  return pCol->zColl == 0 || sqlite3_stricmp(pCol->zColl, "BINARY") == 0;
}

/* The column that is not a key field (it may be salted or bucketed)
** with the most distinct values in the sample and a value in every row:
** what would make a key unique.  -1 if none. */
static int uniqueCandidate(Lint *p){
  const WcSchema *pS = p->pS;
  sqlite3_int64 nBest = 0;
  int i, iBest = -1;
  for(i = 0; i < pS->nCol; i++){
    char cAff = pS->aCol[i].cAff;
    sqlite3_stmt *pStmt;
    if( pS->aCol[i].iElem >= 0 ) continue;
    /* A REAL or NUMERIC column is a measurement, never what tells rows
    ** apart; nor can TEXT encoding order a column of no type. */
    if( cAff == WC_AFF_REAL || cAff == WC_AFF_NUMERIC
     || pS->aCol[i].zType[0] == 0 || !keyCollation(&pS->aCol[i])
     || (pS->eEncoding == WC_ENCODING_TEXT && cAff != WC_AFF_INTEGER
         && cAff != WC_AFF_TEXT) ){
      continue;
    }
    /* TEXT encoding pads integers from 0 up. */
    if( pS->eEncoding == WC_ENCODING_TEXT && cAff == WC_AFF_INTEGER
     && lintInt(p, "SELECT count(*) FROM %s WHERE \"%w\" < 0", p->zSample,
                pS->aCol[i].zName) > 0 ){
      continue;
    }
    pStmt = lintPrepare(p, "SELECT count(DISTINCT \"%w\"), count(\"%w\") "
                        "FROM %s", pS->aCol[i].zName, pS->aCol[i].zName,
                        p->zSample);
    if( lintRow(p, pStmt) ){
      /* A time ranks above any count: rows are told apart by when they
      ** were written (a reading's ts, a payment's paid_at). */
      sqlite3_int64 nDistinct = sqlite3_column_int64(pStmt, 0)
          + (holdsTimes(p, i) ? p->nSample + 1 : 0);
      if( sqlite3_column_int64(pStmt, 1) == p->nSample
       && nDistinct > nBest ){
        nBest = nDistinct;
        iBest = i;
      }
      sqlite3_finalize(pStmt);
    }
  }
  return iBest;
}

/* A key element for column iCol, as a fix adds it. */
static char *fieldText(Lint *p, int iCol){
  if( p->pS->eEncoding == WC_ENCODING_TEXT
   && p->pS->aCol[iCol].cAff == WC_AFF_INTEGER ){
    return sqlite3_mprintf("%z PAD %d", colSql(p, iCol), padWidth(p, iCol));
  }
  return colSql(p, iCol);
}

/* What became of the writes that found their key taken. */
static char *takenText(int64_t nReplaced, int64_t nRefused){
  char *zReplaced = nReplaced == 0 ? 0 : sqlite3_mprintf("%lld replaced the "
      "row that had it (INSERT OR REPLACE, as an HBase put overwrites)",
      (long long)nReplaced);
  char *zRefused = nRefused == 0 ? 0 : sqlite3_mprintf("%lld %s refused or "
      "ignored", (long long)nRefused, nRefused == 1 ? "was" : "were");
  if( zReplaced && zRefused ){
    return sqlite3_mprintf("%z and %z", zReplaced, zRefused);
  }
  return zReplaced ? zReplaced : zRefused;
}

/* The key with column iCol added as its last field.  A variable-width
** field that was last is followed by the delimiter then: where its values
** would interleave (prefix-scan), text is padded, and a blob or text
** ending with PAD's fill takes every key to ENCODING BINARY, so that the
** fix draws no finding of its own. */
static char *uniqueFix(Lint *p, const LintKey *pK, int iCol){
  const WcSchema *pS = p->pS;
  const WcElement *pLast = &pS->aElem[pS->nElem - 1];
  KeyText *pKt = keyTextNew(p, pS);
  int i;
  if( pS->eEncoding == WC_ENCODING_TEXT && pS->nDelim > 0 && pS->nRandom == 0
   && pLast->eKind == WC_ELEM_COLUMN && pLast->nXform == 0
   && (pS->aCol[pLast->iCol].cAff == WC_AFF_TEXT
       || pS->aCol[pLast->iCol].cAff == WC_AFF_BLOB) ){
    sqlite3_stmt *pStmt = prefixPairStmt(p, pLast->iCol, pS);
    if( lintRow(p, pStmt) ){
      char *zPad = pS->aCol[pLast->iCol].cAff == WC_AFF_TEXT
                 ? textPadText(p, pLast->iCol) : 0;
      sqlite3_finalize(pStmt);
      if( zPad ){
        keyTextSet(p, pKt, pS->nElem - 1, zPad);
      }else{
        char *zRowKey, *zFix;
        for(i = 0; pKt && i < pS->nElem; i++){
          keyTextSet(p, pKt, i, elementBinary(pS, &pS->aElem[i]));
        }
        if( pKt ) keyTextInsert(p, pKt, pKt->n, colSql(p, iCol));
        zRowKey = keyTextFinish(p, pK, pKt);
        zFix = zRowKey ? fixBinaryKeys(p, zRowKey, 0) : 0;
        sqlite3_free(zRowKey);
        return zFix;
      }
    }
  }
  if( pKt ) keyTextInsert(p, pKt, pKt->n, fieldText(p, iCol));
  return keyTextFinish(p, pK, pKt);
}

/* not-unique: a column only hashed into the key (SALT, BUCKET), and writes
** on this connection that found their key taken. */
static void ruleUnique(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  int64_t nReplaced = wcHistoryReplaced(p->pH);
  int64_t nRefused = wcHistoryRefused(p->pH);
  int i, j;
  for(i = 0; i < pS->nElem; i++){
    const WcElement *pE = &pS->aElem[i];
    /* 16 hex digits or more are a digest: a collision is as unlikely as
    ** in HBase's own hashed keys. */
    int nSrc = pE->eKind == WC_ELEM_SALT
               && pE->nSaltDigit > -WC_LINT_DIGEST && pE->nSaltDigit < WC_LINT_DIGEST
             ? pE->nSaltCol : pE->eKind == WC_ELEM_BUCKET ? 1 : 0;
    for(j = 0; j < nSrc; j++){
      int iCol = pE->eKind == WC_ELEM_SALT ? pE->aiSaltCol[j] : pE->iCol;
      if( pS->aCol[iCol].iElem >= 0 ) continue;
      finding(p, pK, i, "error", "not-unique",
          fixInsert(p, pK, i + 1, fieldText(p, iCol)),
          "%s is in the key only through this %s, which many values share: "
          "rows that differ only in %s get the same key, and the later one "
          "overwrites the earlier (an HBase put) or is refused",
          colName(p, iCol), pE->eKind == WC_ELEM_SALT ? "salt" : "bucket",
          colName(p, iCol));
    }
  }
  if( nReplaced + nRefused > 0 ){
    int iCand = uniqueCandidate(p);
    char *zFix = iCand < 0 ? 0 : uniqueFix(p, pK, iCand);
    finding(p, pK, -1, "error", "not-unique", zFix,
        "%lld write%s on this connection found the row key taken: %z, so "
        "the key does not tell these rows apart%s%s%s",
        (long long)(nReplaced + nRefused),
        nReplaced + nRefused == 1 ? "" : "s", takenText(nReplaced, nRefused),
        iCand >= 0 ? "; " : "; no other column that could tell rows apart "
                            "(an id, a time, a name; a REAL or NUMERIC "
                            "column is a measurement, never a key field) has "
                            "a value in every row: add one, a sequence or a "
                            "random suffix (the Lindorm guide's "
                            "[userId][orderid][random(100)])",
        iCand >= 0 ? colName(p, iCand) : "",
        iCand < 0 ? "" : holdsTimes(p, iCand)
        ? " holds times, which tell apart rows written at different moments "
          "(measurements are never key fields): add it as the last field"
        : " has the most distinct values of the other columns (measurements "
          "left out): add it as the last field (the HBase blog's PaymentID, "
          "'for uniqueness')");
  }
}

/* The fix of unserved-range over column iCol, from the INDEX in pIndex
** (finished here): the INDEX, creatable as it is where a key field can be
** of iCol's type; under TEXT encoding a REAL or NUMERIC field needs
** ENCODING BINARY (every key rewritten); a column of no declared type can
** be no key field, so no fix. */
static char *unservedFix(Lint *p, int iCol, sqlite3_str *pIndex){
  const WcColumn *pCol = &p->pS->aCol[iCol];
  char *zIndex = sqlite3_str_finish(pIndex), *zFix;
  if( zIndex == 0 ){
    p->rc = SQLITE_NOMEM;
    return 0;
  }
  if( pCol->zType[0] == 0 ){
    sqlite3_free(zIndex);
    return 0;
  }
  if( p->pS->eEncoding == WC_ENCODING_TEXT
   && (pCol->cAff == WC_AFF_REAL || pCol->cAff == WC_AFF_NUMERIC) ){
    zFix = fixBinaryWith(p, zIndex);
    sqlite3_free(zIndex);
    return zFix;
  }
  return zIndex;
}

/* What unserved-range says of column iCol's type, when it shapes the
** fix. */
static const char *unservedWhy(Lint *p, int iCol){
  const WcColumn *pCol = &p->pS->aCol[iCol];
  if( pCol->zType[0] == 0 ){
    return "; a key field has a declared type: declare its type first";
  }
  if( p->pS->eEncoding == WC_ENCODING_TEXT
   && (pCol->cAff == WC_AFF_REAL || pCol->cAff == WC_AFF_NUMERIC) ){
    return "; its values have no order-preserving text form, so the fix "
           "makes the table's keys ENCODING BINARY";
  }
  return "";
}

/* unserved-range: scans on this connection ranged over a column that no
** key could read as key ranges; what they read is stated as measured.  A
** REVERSEd key field is unordered-range's finding. */
static void ruleUnserved(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  int i;
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str *pFix;
    char *zIndex;
    int bRising;
    int64_t nRead, nOut, nScan = wcHistoryUnserved(p->pH, i, &nRead, &nOut);
    int iElem = pS->aCol[i].iElem;
    int eWhy = wcHistoryUnservedWhy(p->pH, i);
    if( nScan == 0
     || (iElem >= 0 && hasTransform(&pS->aElem[iElem], WC_XFORM_REVERSE)) ){
      continue;
    }
    if( (eWhy & WC_UNSERVED_UNORDERED) && iElem >= 0
     && pS->aElem[iElem].eOrder == WC_ORDER_NONE ){
      /* The cause the plan names: the field's bytes, not its place. */
      finding(p, pK, iElem, "warning", "unserved-range",
          fixReplace(p, pK, iElem, fieldText(p, i)),
          "%lld scan%s on this connection ranged over %s without a key "
          "range (reading %lld row%s, %lld handed to SQLite to filter); "
          "where they fixed every field before it with '=', %s is %s in "
          "the key (the plan says FILTER %s (%s)), whose bytes are not in "
          "its values' order, so no range on it is a key range; padded, "
          "those scans read only their range%s", (long long)nScan,
          nScan == 1 ? "" : "s", colName(p, i), (long long)nRead,
          nRead == 1 ? "" : "s", (long long)nOut, colName(p, i),
          pS->aElem[iElem].zUnordered,
          colName(p, i), pS->aElem[iElem].zUnordered,
          (eWhy & WC_UNSERVED_MISPLACED) ? " (other scans did not fix the "
          "fields before it: an INDEX serves those, a finding of its own)"
          : "");
      if( !(eWhy & WC_UNSERVED_MISPLACED) ) continue;
    }
    pFix = sqlite3_str_new(0);
    zIndex = sqlite3_mprintf("by_%s", colName(p, i));
    sqlite3_str_appendall(pFix, "INDEX ");
    if( zIndex ) wcAppendName(pFix, zIndex);
    /* Led by a rising field, the index would hotspot: the same spread
    ** as the hotspot rule's fix, so that the fix draws no finding. */
    bRising = risesAsWritten(p, i);
    sqlite3_str_appendf(pFix, "(%z%s%z)", bRising ? spreadText(p, i) : 0,
                        bRising ? ", " : "", fieldText(p, i));
    sqlite3_free(zIndex);
    finding(p, pK, -1, "warning", "unserved-range", unservedFix(p, i, pFix),
        "%lld scan%s on this connection ranged over %s, which no key could "
        "read as key ranges (%s is %s): %s read %lld row%s and handed %lld "
        "to SQLite to filter; an INDEX that starts with %s serves such "
        "ranges (or a table keyed for them, as the HBase blog's "
        "PaymentsByDate)%s%s", (long long)nScan,
        nScan == 1 ? "" : "s", colName(p, i), colName(p, i),
        iElem < 0 ? "not in the row key"
        : "in the row key after fields those scans did not fix with '='",
        nScan == 1 ? "it" : "they", (long long)nRead, nRead == 1 ? "" : "s",
        (long long)nOut, colName(p, i), unservedWhy(p, i), bRising
        ? "; it grows as rows are written, so the INDEX leads with a bucket "
          "of it, as the hotspot rule asks, and a range reads 16 ranges"
        : "");
  }
}

/* versions-mask: under VERSIONS n > 1, versions of one row key that each
** hold their own value of a column no other version anywhere shares (an
** order id, not a reading): different rows that share a key, of which a
** read sees only the latest (the Lindorm guide's first question: is the
** row key unique?). */
static void ruleVersionsMask(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  sqlite3_str *pOld;
  char *zOld;
  int i;
  if( pS->nVersions <= 1 ) return;
  /* Every version of the keys that have older ones. */
  pOld = sqlite3_str_new(0);
  sqlite3_str_appendall(pOld, "(SELECT * FROM (");
  wcStoreAppendRowsSelect(pOld, wcTableStore(p->pTab), 0);
  sqlite3_str_appendall(pOld, ") WHERE rowkey IN (SELECT rowkey FROM ");
  wcStoreAppendTable(pOld, wcTableStore(p->pTab), WC_TABLE_VERSIONS, -1);
  sqlite3_str_appendall(pOld, "))");
  zOld = sqlite3_str_finish(pOld);
  if( zOld == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  for(i = 0; i < pS->nCol && p->rc == SQLITE_OK; i++){
    const WcColumn *pCol = &pS->aCol[i];
    sqlite3_str *pSql;
    sqlite3_stmt *pStmt;
    char *zSql;
    if( pCol->bKey || (pCol->cAff != WC_AFF_INTEGER && pCol->cAff != WC_AFF_TEXT)
     || holdsTimes(p, i) ){
      continue;
    }
    pSql = sqlite3_str_new(0);
    sqlite3_str_appendf(pSql, "SELECT count(*), count(DISTINCT c), count(c), "
        "count(DISTINCT k) FROM (SELECT \"%w\" AS c, rowkey AS k FROM ",
        pCol->zName);
    wcStoreAppendTable(pSql, wcTableStore(p->pTab), WC_TABLE_VERSIONS, -1);
    sqlite3_str_appendf(pSql, " UNION ALL SELECT \"%w\", rowkey FROM %s)",
                        pCol->zName, zOld);
    zSql = sqlite3_str_finish(pSql);
    pStmt = zSql ? lintPrepare(p, "%s", zSql) : 0;
    sqlite3_free(zSql);
    if( zSql == 0 ) p->rc = SQLITE_NOMEM;
    if( lintRow(p, pStmt) ){
      sqlite3_int64 nVer = sqlite3_column_int64(pStmt, 0);
      sqlite3_int64 nKey = sqlite3_column_int64(pStmt, 3);
      int bMask = nVer >= WC_LINT_MIN_ROWS
               && sqlite3_column_int64(pStmt, 1) == nVer
               && sqlite3_column_int64(pStmt, 2) == nVer;
      sqlite3_finalize(pStmt);
      if( bMask ){
        finding(p, pK, -1, "warning", "versions-mask",
            fixInsert(p, pK, pS->nElem, fieldText(p, i)),
            "under VERSIONS %d, the %lld versions of %lld row keys that have "
            "older versions each hold a value of %s that no other version "
            "has: they look like different rows that share a key, and a "
            "read sees only the latest of them per key (the Lindorm guide: "
            "keys must be unique unless you mean versions); add %s to the "
            "key, or make the table VERSIONS 1",
            pS->nVersions, (long long)nVer, (long long)nKey,
            colName(p, i), colName(p, i));
        break;
      }
    }
  }
  sqlite3_free(zOld);
}

/* ttl-expired: the newest row is older than the TTL: every version stored
** has expired, and no read sees the data. */
static void ruleTtl(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  sqlite3_stmt *pStmt;
  int64_t iNow = wcTableNow(p->pTab);
  sqlite3_str *pSql;
  char *zSql;
  if( pS->nTtl <= 0 ) return;
  pSql = sqlite3_str_new(0);
  sqlite3_str_appendall(pSql, "SELECT count(*), max(rowtime), min(rowtime) "
                              "FROM ");
  wcStoreAppendTable(pSql, wcTableStore(p->pTab), -1, -1);
  zSql = sqlite3_str_finish(pSql);
  pStmt = zSql ? lintPrepare(p, "%s", zSql) : 0;
  if( zSql == 0 ) p->rc = SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( lintRow(p, pStmt) ){
    sqlite3_int64 nRow = sqlite3_column_int64(pStmt, 0);
    int64_t iNewest = sqlite3_column_int64(pStmt, 1);
    int64_t iOldest = sqlite3_column_int64(pStmt, 2);
    sqlite3_finalize(pStmt);
    if( nRow > 0 && iNow - iNewest > pS->nTtl * 1000000 ){
      /* A TTL that keeps every row stored: the oldest's age, in days. */
      int64_t nDay = ((iNow - iOldest) / 1000000 + 86399) / 86400 + 1;
      char *zFix = nDay * 86400 <= WC_MAX_TTL
                 ? sqlite3_mprintf("TTL %lld", (long long)(nDay * 86400)) : 0;
      finding(p, pK, -1, "warning", "ttl-expired", zFix,
          "TTL %lld s, but the newest of the %lld rows stored was written "
          "%lld s ago (its rowtime %lld; now %lld): every version has "
          "expired and no read sees the data (HBase and Bigtable drop such "
          "cells at their next compaction, widecol_compact here)",
          (long long)pS->nTtl, (long long)nRow,
          (long long)((iNow - iNewest) / 1000000), (long long)iNewest,
          (long long)iNow);
    }
  }
}

/* The bytes a TEXT field's value x takes in key pKey's element iElem now:
** its own, and the delimiter after it (TEXT encoding) or the 2-byte end
** (BINARY), as SQL over x. */
static char *textFieldBytes(const WcSchema *pKey, int iElem){
  int nAfter = pKey->eEncoding == WC_ENCODING_BINARY ? 2
             : wcElementIsLast(pKey, iElem) ? 0 : pKey->nDelim;
  return sqlite3_mprintf("(length(CAST(x AS BLOB)) + %d)", nAfter);
}

/* text-digits: a TEXT key field that holds numbers' digits (GeminiDB's
** '2015122410' => Long(2015122410)): as an INTEGER in BINARY encoding it
** takes a header byte and the number's bytes, and sorts as a number. */
static void ruleTextDigits(Lint *p, const LintKey *pK, int iElem){
  const WcSchema *pKey = pK->pKey;
  const WcElement *pE = &pKey->aElem[iElem];
  static const char zDigits[] = "((x GLOB '[1-9]*' AND x NOT GLOB "
      "'*[^0-9]*' AND length(x) <= 18) OR x = '0')";
  sqlite3_stmt *pStmt;
  char *zNow;
  const char *zCol;
  if( pE->eKind != WC_ELEM_COLUMN || p->pS->aCol[pE->iCol].cAff != WC_AFF_TEXT
   || hasTransform(pE, WC_XFORM_REVERSE)
   || valueShare(p, pE->iCol, zDigits) < WC_LINT_SHARE ){
    return;
  }
  zCol = colName(p, pE->iCol);
  zNow = textFieldBytes(pKey, iElem);
  /* BINARY writes an integer as a header byte and 0 to 8 bytes. */
  pStmt = zNow ? lintPrepare(p, "SELECT count(*), sum(%s), sum(1 + (v > 0) "
      "+ (v >= 256) + (v >= 65536) + (v >= 16777216) + (v >= 4294967296) "
      "+ (v >= 1099511627776) + (v >= 281474976710656) "
      "+ (v >= 72057594037927936)), min(length(x)) < max(length(x)), "
      "min(x) FROM "
      "(SELECT \"%w\" AS x, CAST(\"%w\" AS INTEGER) AS v FROM %s) WHERE %s",
      zNow, zCol, zCol, p->zSample, zDigits) : 0;
  if( zNow == 0 ) p->rc = SQLITE_NOMEM;
  sqlite3_free(zNow);
  if( lintRow(p, pStmt) ){
    sqlite3_int64 n = sqlite3_column_int64(pStmt, 0);
    sqlite3_int64 nText = sqlite3_column_int64(pStmt, 1);
    sqlite3_int64 nInt = sqlite3_column_int64(pStmt, 2);
    int bWidths = sqlite3_column_int(pStmt, 3);
    char *zExample = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 4));
    sqlite3_finalize(pStmt);
    if( zExample == 0 ){
      p->rc = SQLITE_NOMEM;
      return;
    }
    if( n < WC_LINT_MIN_ROWS || (nInt >= nText && !bWidths) ){
      sqlite3_free(zExample);
      return;
    }
    finding(p, pK, iElem, "advice", "text-digits", 0,
        "%s is TEXT but its values are numbers' digits ('%q', ...): "
        "declared INTEGER, with ENCODING BINARY, each takes a header byte "
        "and the number's bytes, %lld bytes for the %lld such values of the "
        "sample where their text takes %lld (%lld %s)%s (GeminiDB: replace "
        "the STRING type with LONG, '2015122410' => Long(2015122410))",
        zCol, zExample, nInt, n, nText,
        (long long)(nText > nInt ? nText - nInt : nInt - nText),
        nText >= nInt ? "saved" : "more", bWidths
        ? ", and they sort as numbers, where digits of several widths sort "
          "as text ('10' before '9')" : "");
    sqlite3_free(zExample);
  }
}

/* long-names: a TEXT key field of long names repeated in many keys (the
** guides' '淘宝' => 'tb', 'mobile phone' => 'sj'): a code table of short
** codes saves their bytes in every key. */
static void ruleLongNames(Lint *p, const LintKey *pK, int iElem){
  const WcSchema *pKey = pK->pKey;
  const WcElement *pE = &pKey->aElem[iElem];
  sqlite3_stmt *pStmt;
  const char *zCol;
  if( pE->eKind != WC_ELEM_COLUMN || p->pS->aCol[pE->iCol].cAff != WC_AFF_TEXT
   || hasTransform(pE, WC_XFORM_PAD) ){
    return;
  }
  zCol = colName(p, pE->iCol);
  pStmt = lintPrepare(p, "SELECT count(*), count(DISTINCT x), "
      "sum(length(CAST(x AS BLOB))), (SELECT x FROM (SELECT \"%w\" AS x FROM "
      "%s) GROUP BY x ORDER BY count(*) DESC, x LIMIT 1) FROM (SELECT \"%w\" "
      "AS x FROM %s) WHERE x IS NOT NULL", zCol, p->zSample, zCol,
      p->zSample);
  if( lintRow(p, pStmt) ){
    sqlite3_int64 n = sqlite3_column_int64(pStmt, 0);
    sqlite3_int64 nDistinct = sqlite3_column_int64(pStmt, 1);
    sqlite3_int64 nByte = sqlite3_column_int64(pStmt, 2);
    char *zTop = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 3));
    /* Codes of letters and digits: 36 a character. */
    int nCode = nDistinct <= 36 ? 1 : nDistinct <= 1296 ? 2 : 3;
    sqlite3_finalize(pStmt);
    if( zTop == 0 ){
      p->rc = SQLITE_NOMEM;
      return;
    }
    if( n >= WC_LINT_MIN_ROWS && nDistinct * WC_LINT_NAME_REPEAT <= n
     && nByte >= n * (nCode + WC_LINT_NAME_BYTES) ){
      finding(p, pK, iElem, "advice", "long-names", 0,
          "%s holds %lld distinct names over the sample's %lld rows, the "
          "most common '%q', %.1f bytes on average, repeated in every key: "
          "a code table (the guides' '淘宝' => 'tb', 'mobile phone' => 'sj') "
          "of %d-character codes would take %lld bytes where they take "
          "%lld, %lld saved in the sample's keys", zCol, nDistinct, n, zTop,
          (double)nByte / (double)n, nCode, n * nCode, nByte,
          nByte - n * nCode);
    }
    sqlite3_free(zTop);
  }
}

/* wide-partition: in Cassandra's form (a leading TOKEN), the largest
** partition against the guidance of 100,000 cells and 100 MB a partition
** (a partition's rows live on one node, and grow without bound when the
** partition key has few values: a sensor, without the day). */
static void ruleWidePartition(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  const WcElement *pTok = &pS->aElem[0];
  sqlite3_str *pSql, *pKey;
  sqlite3_stmt *pStmt;
  sqlite3_int64 nRow, nByte, nCell;
  int i, nRegular = 0;
  if( !pTok->bToken ) return;
  for(i = 0; i < pS->nCol; i++) nRegular += pS->aCol[i].iElem < 0;
  pSql = sqlite3_str_new(0);
  sqlite3_str_appendall(pSql, "SELECT count(*), sum(length(rowkey)");
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendf(pSql, " + coalesce(length(CAST(\"%w\" AS BLOB)), 0)",
                        pS->aCol[i].zName);
  }
  sqlite3_str_appendall(pSql, ") AS nbyte");
  for(i = 0; i < pTok->nSaltCol; i++){
    sqlite3_str_appendf(pSql, ", quote(\"%w\")",
                        pS->aCol[pTok->aiSaltCol[i]].zName);
  }
  sqlite3_str_appendall(pSql, " FROM (");
  wcStoreAppendRowsSelect(pSql, wcTableStore(p->pTab), 0);
  sqlite3_str_appendall(pSql, ") GROUP BY ");
  for(i = 0; i < pTok->nSaltCol; i++){
    sqlite3_str_appendf(pSql, "%s\"%w\"", i ? ", " : "",
                        pS->aCol[pTok->aiSaltCol[i]].zName);
  }
  sqlite3_str_appendf(pSql, " ORDER BY max(count(*) * %d, 1) >= %d OR "
                      "nbyte >= %d DESC, count(*) DESC LIMIT 1",
                      nRegular > 0 ? nRegular : 1, WC_LINT_PART_CELLS,
                      WC_LINT_PART_BYTES);
  pStmt = lintPrepare(p, "%z", sqlite3_str_finish(pSql));
  if( !lintRow(p, pStmt) ) return;
  nRow = sqlite3_column_int64(pStmt, 0);
  nByte = sqlite3_column_int64(pStmt, 1);
  nCell = nRow * (nRegular > 0 ? nRegular : 1);
  pKey = sqlite3_str_new(0);
  for(i = 0; i < pTok->nSaltCol; i++){
    sqlite3_str_appendf(pKey, "%s%s = %s", i ? ", " : "",
                        pS->aCol[pTok->aiSaltCol[i]].zName,
                        sqlite3_column_text(pStmt, 2 + i));
  }
  sqlite3_finalize(pStmt);
  if( nCell >= WC_LINT_PART_CELLS || nByte >= WC_LINT_PART_BYTES ){
    finding(p, pK, 0, "warning", "wide-partition", 0,
        "the largest partition (%s) holds %lld rows, %lld cells (%d "
        "column%s besides the key each) and %lld bytes, past Cassandra's "
        "guidance of %d cells or %d MB a partition: a partition lives on "
        "one node and is read and compacted whole, and one keyed by a "
        "value with few values grows without bound; add a bucket to the "
        "partition key, a column such as the day of a time field, as in "
        "PRIMARY KEY ((sensor, day), ts)", sqlite3_str_value(pKey),
        nRow, nCell, nRegular > 0 ? nRegular : 1, nRegular == 1 ? "" : "s",
        nByte, WC_LINT_PART_CELLS, WC_LINT_PART_BYTES >> 20);
  }
  sqlite3_free(sqlite3_str_finish(pKey));
}

/* The key fields before RANDOM, "a, b", for a finding (from
** sqlite3_mprintf()). */
static char *randomFields(Lint *p){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i;
  for(i = 0; i < p->pS->nElem; i++){
    const WcElement *pE = &p->pS->aElem[i];
    char *z = pE->eKind == WC_ELEM_COLUMN ? 0 : wcElementText(p->pS, pE, 0);
    sqlite3_str_appendf(pStr, "%s%s", i ? ", " : "",
        pE->eKind == WC_ELEM_COLUMN ? colName(p, pE->iCol) : z ? z : "?");
    sqlite3_free(z);
  }
  return sqlite3_str_finish(pStr);
}

/* A column, not in the key, that tells apart the sample's rows that share
** the fields before RANDOM: it could take RANDOM's place.  -1 if none. */
static int randomReplacement(Lint *p, const char *zGroup){
  const WcSchema *pS = p->pS;
  int i;
  for(i = 0; i < pS->nCol; i++){
    if( pS->aCol[i].iElem >= 0 ) continue;
    if( lintInt(p, "SELECT count(*) FROM (SELECT DISTINCT %s, \"%w\" FROM "
                "%s WHERE \"%w\" IS NOT NULL)", zGroup, colName(p, i),
                p->zSample, colName(p, i)) == p->nSample ){
      return i;
    }
  }
  return -1;
}

/* random-unneeded, random-full, random-suffix: RANDOM(n) on the data.  It
** tells apart rows that share the fields before it, and spreads nothing:
** they land where those fields send them (the guides' random suffix lets
** a hot prefix's rows differ, and a region split inside it). */
static void ruleRandom(Lint *p, const LintKey *pK){
  const WcSchema *pS = p->pS;
  sqlite3_int64 nGroup, nShared, nLargest;
  sqlite3_stmt *pStmt;
  char *zGroup, *zFields, *zFix = 0;
  KeyText *pKt;
  int iCol;
  if( pS->nRandom == 0 || p->nSample == 0 ) return;
  zGroup = sqlite3_mprintf("substr(rowkey, 1, length(rowkey) - %d)",
                           pS->nRandomDigit);
  pStmt = lintPrepare(p, "SELECT count(*), sum(n) FILTER (WHERE n > 1), "
                      "max(n) FROM (SELECT count(*) AS n FROM %s GROUP BY %s)",
                      p->zSample, zGroup);
  if( !lintRow(p, pStmt) ){
    sqlite3_free(zGroup);
    return;
  }
  nGroup = sqlite3_column_int64(pStmt, 0);
  nShared = sqlite3_column_int64(pStmt, 1);
  nLargest = sqlite3_column_int64(pStmt, 2);
  sqlite3_finalize(pStmt);
  zFields = randomFields(p);
  if( zFields == 0 ) p->rc = SQLITE_NOMEM;
  if( nLargest <= 1 ){
    pKt = keyTextNew(p, pS);
    if( pKt ) pKt->nRandom = 0;
    finding(p, pK, -1, "advice", "random-unneeded", keyTextFinish(p, pK, pKt),
        "no two of the %lld rows sampled share %s, so RANDOM(%lld) tells no "
        "rows apart: it adds %d byte%s to every key (%lld bytes here) and "
        "makes a read of one row a scan of the keys after its fields instead "
        "of a Get; drop it", (long long)p->nSample, zFields ? zFields : "",
        (long long)pS->nRandom, pS->nRandomDigit,
        pS->nRandomDigit == 1 ? "" : "s",
        (long long)(p->nSample * pS->nRandomDigit));
  }else if( 2 * nLargest > pS->nRandom ){
    sqlite3_int64 nNew = 10;
    while( nNew < 4 * nLargest && nNew < WC_MAX_RANDOM ) nNew *= 10;
    if( nNew > pS->nRandom ){
      pKt = keyTextNew(p, pS);
      if( pKt ) pKt->nRandom = nNew;
      zFix = keyTextFinish(p, pK, pKt);
    }
    finding(p, pK, -1, "warning", "random-full", zFix,
        "%lld rows share one %s, %lld of the %lld numbers RANDOM(%lld) "
        "has: once they are all taken, an INSERT with the same fields fails, "
        "and each insert probes more taken keys before it finds a free one; "
        "%s", (long long)nLargest, zFields ? zFields : "",
        (long long)nLargest, (long long)pS->nRandom, (long long)pS->nRandom,
        nNew > pS->nRandom ? "give RANDOM a larger n"
                           : "add a field that tells these rows apart");
  }else{
    iCol = randomReplacement(p, zGroup);
    if( iCol >= 0 ){
      pKt = keyTextNew(p, pS);
      if( pKt ) pKt->nRandom = 0;
      keyTextInsert(p, pKt, pS->nElem, fieldText(p, iCol));
      zFix = keyTextFinish(p, pK, pKt);
    }
    finding(p, pK, -1, "advice", "random-suffix", zFix,
        "RANDOM(%lld) lets up to %lld rows share %s (%lld of the %lld rows "
        "sampled share theirs, in %lld groups of up to %lld): that is all it "
        "does; their writes still land in the region of those fields (a "
        "random suffix spreads nothing, a SALT or BUCKET in front does), a "
        "read of one row must scan its fields' keys, and nothing orders rows "
        "that share them%s%s%s", (long long)pS->nRandom,
        (long long)pS->nRandom, zFields ? zFields : "", (long long)nShared,
        (long long)p->nSample, (long long)nGroup, (long long)nLargest,
        iCol >= 0 ? "; " : "", iCol >= 0 ? colName(p, iCol) : "",
        iCol >= 0 ? " tells them apart in this data: as the last field it "
                    "makes the keys unique and ordered, and a row can be "
                    "read back by its key" : "");
  }
  sqlite3_free(zFields);
  sqlite3_free(zGroup);
}

/* allow-filtering: statements on this connection that Cassandra would
** refuse without ALLOW FILTERING (wc_history.h keeps them). */
static void ruleAllowFiltering(Lint *p, const LintKey *pK){
  int i;
  for(i = 0; i < wcHistoryCqlCount(p->pH) && p->rc == SQLITE_OK; i++){
    int64_t nSeen;
    const char *zRule = wcHistoryCql(p->pH, i, &nSeen);
    finding(p, pK, -1, "warning", "allow-filtering", 0,
        "a statement on this connection (planned %lld time%s) %s; Cassandra "
        "answers only queries that fix the partition key and restrict "
        "clustering columns in order: key a table (or an INDEX here) by "
        "what it asks for, as eBay keeps Item_By_User beside User_By_Item",
        (long long)nSeen, nSeen == 1 ? "" : "s", zRule);
  }
}

/* The rules for one key: the row key, or an index's. */
static void lintKey(Lint *p, const LintKey *pK){
  int i;
  ruleHotspot(p, pK);
  ruleHotKey(p, pK);
  for(i = 0; i < pK->pKey->nElem && p->rc == SQLITE_OK; i++){
    ruleUnpadded(p, pK, i);
    rulePrefix(p, pK, i);
    ruleDateOrder(p, pK, i);
    ruleReversedRange(p, pK, i);
    ruleSaltedRange(p, pK, i);
    ruleTextDigits(p, pK, i);
    ruleLongNames(p, pK, i);
  }
  if( pK->bRowKey ){
    ruleKeyLength(p, pK);
    ruleFields(p, pK);
    ruleUnique(p, pK);
    ruleUnserved(p, pK);
    ruleVersionsMask(p, pK);
    ruleTtl(p, pK);
    ruleWidePartition(p, pK);
    ruleAllowFiltering(p, pK);
    ruleRandom(p, pK);
  }
}

/* Reads the key order once and keeps, for each of WC_LINT_RUNS runs of
** nRun consecutive rows spread evenly over it, its first and last key. */
static void readRuns(Lint *p, sqlite3_int64 nRun){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  sqlite3_stmt *pStmt;
  sqlite3_int64 iRow = 0, iFirst = 0;
  int iRun = 0;
  sqlite3_str_appendall(pStr, "SELECT rowkey FROM ");
  wcStoreAppendTable(pStr, wcTableStore(p->pTab), -1, -1);
  sqlite3_str_appendall(pStr, " ORDER BY rowkey");
  pStmt = lintPrepare(p, "%z", sqlite3_str_finish(pStr));
  while( pStmt && iRun < WC_LINT_RUNS && sqlite3_step(pStmt) == SQLITE_ROW ){
    /* Run i starts at row i * (nTable - nRun) / (WC_LINT_RUNS - 1). */
    if( iRow == iFirst || iRow == iFirst + nRun - 1 ){
      WcBuf *pKey = &p->aRunKey[p->nRunKey++];
      wcBufAppend(pKey, sqlite3_column_blob(pStmt, 0),
                  sqlite3_column_bytes(pStmt, 0));
      if( pKey->bOom ) p->rc = SQLITE_NOMEM;
      if( iRow != iFirst ){
        iRun++;
        iFirst = iRun * (p->nTable - nRun) / (WC_LINT_RUNS - 1);
      }
    }
    iRow++;
  }
  if( pStmt && sqlite3_finalize(pStmt) != SQLITE_OK ) lintFail(p, SQLITE_ERROR);
  p->nRunKey -= p->nRunKey % 2;
}

/* Keeps, as the runs' first keys, up to WC_LINT_RUNS of the store's
** sample keys, spread evenly over them (aSample: wc_contract.h's format);
** no last keys: a run is the nRun rows from its first. */
static void sampleRuns(Lint *p, const unsigned char *aSample, int64_t nSample){
  const unsigned char *aKey;
  int64_t iOff = 0, nKey, nBefore, nKeys = 0, iKey = 0;
  int nRun = 0;
  while( wcStoreSampleNext(aSample, nSample, &iOff, &aKey, &nKey, &nBefore) ){
    nKeys++;
  }
  /* The first run starts at the table's start. */
  p->nRunKey = 1;
  iOff = 0;
  while( p->rc == SQLITE_OK
      && wcStoreSampleNext(aSample, nSample, &iOff, &aKey, &nKey, &nBefore) ){
    /* Sample i of nKeys opens run i * WC_LINT_RUNS / nKeys, if it is the
    ** first to do so. */
    if( nKey > 0 && p->nRunKey < WC_LINT_RUNS
     && iKey * (WC_LINT_RUNS - 1) / nKeys >= nRun ){
      WcBuf *pKey = &p->aRunKey[p->nRunKey++];
      wcBufAppend(pKey, aKey, nKey);
      if( pKey->bOom ) p->rc = SQLITE_NOMEM;
      nRun = (int)(iKey * (WC_LINT_RUNS - 1) / nKeys) + 1;
    }
    iKey++;
  }
}

/* The rows the store holds, from the sample keys it gives in one call
** (Bigtable's SampleRowKeys): its row estimate in p->nTable, run starts
** in aRunKey.  0 if the store gives none. */
static int storeSamples(Lint *p){
  WcRpcStats rpc;
  const WcStore *pStore = wcTableStore(p->pTab);
  int rc;
  if( !wcStoreCaps(pStore)->bRowEstimates ) return 0;
  memset(&rpc, 0, sizeof(rpc));
  rpc.bEstimate = 1;
  rpc.bSamples = 1;
  rc = wcStoreRemoteStats((WcStore*)pStore, -1, -1, &rpc);
  if( rc != SQLITE_OK ){
    lintFail(p, rc);
  }else{
    p->nTable = rpc.nRowEstimate;
    if( p->nTable > WC_LINT_SAMPLE ) sampleRuns(p, rpc.aSample, rpc.nSample);
  }
  sqlite3_free(rpc.aSample);
  return 1;
}

/* Copies rows of the table into the sample (SQL zSelect, its parameters
** the run keys from iKey on); the statement's error is the lint's. */
static void sampleCopy(Lint *p, const char *zSelect, int iKey,
                       sqlite3_int64 nLimit){
  sqlite3_stmt *pRead = lintPrepare(p, "%s", zSelect);
  sqlite3_stmt *pIns;
  sqlite3_str *pStr;
  char *zIns;
  int i, n, nCol, rc;
  if( pRead == 0 ) return;
  n = sqlite3_bind_parameter_count(pRead);
  for(i = 0; i < n; i++){
    if( nLimit > 0 && i == n - 1 ){
      sqlite3_bind_int64(pRead, i + 1, nLimit);
    }else if( iKey + i < p->nRunKey ){
      const WcBuf *pKey = &p->aRunKey[iKey + i];
      sqlite3_bind_blob64(pRead, i + 1, pKey->n ? pKey->a : (const void*)"",
                          (sqlite3_uint64)pKey->n, SQLITE_STATIC);
    }
  }
  nCol = sqlite3_column_count(pRead);
  pStr = sqlite3_str_new(0);
  sqlite3_str_appendf(pStr, "INSERT OR IGNORE INTO %s VALUES (", p->zSample);
  for(i = 0; i < nCol; i++) sqlite3_str_appendall(pStr, i ? ", ?" : "?");
  sqlite3_str_appendall(pStr, ")");
  zIns = sqlite3_str_finish(pStr);
  pIns = zIns ? lintPrepare(p, "%s", zIns) : 0;
  if( zIns == 0 ) p->rc = SQLITE_NOMEM;
  sqlite3_free(zIns);
  while( pIns && (rc = sqlite3_step(pRead)) == SQLITE_ROW ){
    for(i = 0; i < nCol; i++){
      sqlite3_bind_value(pIns, i + 1, sqlite3_column_value(pRead, i));
    }
    sqlite3_step(pIns);
    if( sqlite3_reset(pIns) != SQLITE_OK ){
      p->pFailDb = p->pSampleDb;
      lintFail(p, SQLITE_ERROR);
      break;
    }
  }
  sqlite3_finalize(pIns);
  p->pFailDb = p->db;
  if( sqlite3_finalize(pRead) != SQLITE_OK ) lintFail(p, SQLITE_ERROR);
}

/* The sample, read once into a table of the lint's own in-memory
** connection (every rule reads it; on Bigtable a read is calls): the whole table, or
** runs spread over its key order, found by reading the keys (the local
** store) or from the store's sample keys (a remote one, whose estimate
** gives the table's size). */
static void sampleTable(Lint *p){
  const WcSchema *pS = p->pS;
  const WcStore *pStore = wcTableStore(p->pTab);
  sqlite3_str *pStr;
  char *zSelect;
  unsigned char aId[8];
  int i, bRemote;
  p->aRunKey = sqlite3_malloc64(sizeof(WcBuf) * 2 * WC_LINT_RUNS);
  if( p->aRunKey == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  memset(p->aRunKey, 0, sizeof(WcBuf) * 2 * WC_LINT_RUNS);
  bRemote = storeSamples(p);
  if( !bRemote ){
    pStr = sqlite3_str_new(p->db);
    sqlite3_str_appendall(pStr, "SELECT count(*) FROM ");
    wcStoreAppendTable(pStr, pStore, -1, -1);
    p->nTable = lintInt(p, "%z", sqlite3_str_finish(pStr));
    if( p->nTable > WC_LINT_SAMPLE ) readRuns(p, WC_LINT_SAMPLE / WC_LINT_RUNS);
  }
  if( p->rc != SQLITE_OK ) return;
  /* A name no query of the table's own tables holds: it routes the
  ** queries that hold it to the sample's connection (lintDb). */
  sqlite3_randomness(sizeof(aId), aId);
  p->zSample = sqlite3_mprintf("\"widecol_lint_%02x%02x%02x%02x%02x%02x%02x"
                               "%02x\"", aId[0], aId[1], aId[2], aId[3], aId[4],
                               aId[5], aId[6], aId[7]);
  if( p->zSample == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  if( sqlite3_open_v2(":memory:", &p->pSampleDb, SQLITE_OPEN_READWRITE
                      | SQLITE_OPEN_CREATE, 0) != SQLITE_OK ){
    p->pFailDb = p->pSampleDb;
    lintFail(p, SQLITE_CANTOPEN);
    return;
  }
  /* Columns without a type: the values are kept as they are. */
  pStr = sqlite3_str_new(p->db);
  sqlite3_str_appendf(pStr, "CREATE TABLE %s(rowkey PRIMARY KEY", p->zSample);
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
  }
  if( pS->bVersioned ) sqlite3_str_appendall(pStr, ", rowtime");
  sqlite3_str_appendall(pStr, ")");
  zSelect = sqlite3_str_finish(pStr);
  if( zSelect == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  lintInt(p, "%s", zSelect);
  sqlite3_free(zSelect);
  if( p->rc != SQLITE_OK ) return;
  sqlite3_exec(p->pSampleDb, "BEGIN", 0, 0, 0);
  pStr = sqlite3_str_new(p->db);
  wcStoreAppendRowsSelect(pStr, pStore, 0);
  if( p->nRunKey == 0 ){
    zSelect = sqlite3_str_finish(pStr);
    if( zSelect ) sampleCopy(p, zSelect, 0, 0);
  }else if( !bRemote ){
    /* Runs between first and last keys, one statement. */
    sqlite3_free(sqlite3_str_finish(pStr));
    pStr = sqlite3_str_new(p->db);
    sqlite3_str_appendall(pStr, "(VALUES ");
    for(i = 0; i < p->nRunKey; i += 2){
      sqlite3_str_appendf(pStr, "%s(?%d, ?%d)", i ? ", " : "", i + 1, i + 2);
    }
    sqlite3_str_appendall(pStr, ")");
    zSelect = sqlite3_str_finish(pStr);
    pStr = sqlite3_str_new(p->db);
    wcStoreAppendRowsSelect(pStr, pStore, zSelect);
    sqlite3_free(zSelect);
    zSelect = sqlite3_str_finish(pStr);
    if( zSelect ) sampleCopy(p, zSelect, 0, 0);
  }else{
    /* Runs of nRun rows from each first key (the first: the start), up to
    ** the next one: a range with an end, which the emulator reads in time
    ** proportional to it, not to the rest of the table. */
    char *zLast;
    sqlite3_str_appendall(pStr, " WHERE r.rowkey >= ?1");
    zLast = sqlite3_mprintf("%s ORDER BY r.rowkey LIMIT ?2",
                            sqlite3_str_value(pStr));
    sqlite3_str_appendall(pStr, " AND r.rowkey < ?2 ORDER BY r.rowkey "
                                "LIMIT ?3");
    zSelect = sqlite3_str_finish(pStr);
    wcProgressBegin(&p->progress, "runs of rows read into the sample",
                    p->nRunKey, "widecol_lint(%s)", wcTableName(p->pTab));
    for(i = 0; zSelect && zLast && i < p->nRunKey && p->rc == SQLITE_OK; i++){
      sampleCopy(p, i + 1 < p->nRunKey ? zSelect : zLast, i,
                 WC_LINT_SAMPLE / p->nRunKey);
      wcProgressStep(&p->progress, i + 1);
    }
    if( zLast == 0 ) p->rc = SQLITE_NOMEM;
    sqlite3_free(zLast);
  }
  if( zSelect == 0 && p->rc == SQLITE_OK ) p->rc = SQLITE_NOMEM;
  sqlite3_free(zSelect);
  sqlite3_exec(p->pSampleDb, "COMMIT", 0, 0, 0);
  /* The queries on the sample take no parameters now. */
  p->nRunKey = 0;
  p->nSample = lintInt(p, "SELECT count(*) FROM %s", p->zSample);
}

/* Closes the sample's connection, and the sample with it. */
static void sampleDrop(Lint *p){
  sqlite3_close(p->pSampleDb);
  p->pSampleDb = 0;
}

static void lintTable(Lint *p){
  const WcSchema *pS = p->pS;
  LintKey key;
  int i;
  p->aeTime = sqlite3_malloc64((sqlite3_uint64)pS->nCol + 1);
  if( p->aeTime == 0 ){
    p->rc = SQLITE_NOMEM;
    return;
  }
  memset(p->aeTime, -1, (size_t)pS->nCol + 1);
  sampleTable(p);
  if( p->rc != SQLITE_OK ) return;
  memset(&key, 0, sizeof(key));
  key.pKey = pS;
  key.zName = sqlite3_mprintf("ROWKEY");
  key.bRowKey = 1;
  key.iIndex = -1;
  if( key.zName == 0 ) p->rc = SQLITE_NOMEM;
  if( p->rc == SQLITE_OK ) lintKey(p, &key);
  sqlite3_free(key.zName);
  for(i = 0; i < pS->nIndex && p->rc == SQLITE_OK; i++){
    sqlite3_str *pName = sqlite3_str_new(0);
    sqlite3_str_appendall(pName, "INDEX ");
    wcAppendName(pName, pS->aIndex[i].zName);
    key.pKey = pS->aIndex[i].pKey;
    key.zName = sqlite3_str_finish(pName);
    key.bRowKey = 0;
    key.iIndex = i;
    if( key.zName == 0 ) p->rc = SQLITE_NOMEM;
    else lintKey(p, &key);
    sqlite3_free(key.zName);
  }
}

static int lintFill(sqlite3 *db, sqlite3_value **apArg, WcTvfRows *pRows,
                    char **pzErr){
  const char *zName = (const char*)sqlite3_value_text(apArg[0]);
  Lint lint;
  int i, rc;
  if( zName == 0 ){
    *pzErr = sqlite3_mprintf("widecol_lint: the table name is NULL");
    return SQLITE_ERROR;
  }
  memset(&lint, 0, sizeof(lint));
  lint.db = db;
  lint.pRows = pRows;
  rc = wcTableLookup(db, zName, "widecol_lint", &lint.pTab, pzErr);
  if( rc != SQLITE_OK ) return rc;
  lint.pS = wcTableSchema(lint.pTab);
  lint.pH = wcTableHistory(lint.pTab);
  lintTable(&lint);
  sampleDrop(&lint);
  wcProgressEnd(&lint.progress);
  sqlite3_free(lint.zSample);
  sqlite3_free(lint.aeTime);
  for(i = 0; lint.aRunKey && i < 2 * WC_LINT_RUNS; i++){
    wcBufFree(&lint.aRunKey[i]);
  }
  sqlite3_free(lint.aRunKey);
  if( lint.rc != SQLITE_OK ){
    *pzErr = lint.zErr;
    return lint.rc;
  }
  return SQLITE_OK;
}

const WcTvfDef wcLintDef = {
  "widecol_lint", "severity TEXT, rule TEXT, key TEXT, element TEXT, "
  "finding TEXT, fix TEXT", "tbl", 1,
  "name the table, as in SELECT * FROM widecol_lint('orders') or "
  "widecol_lint('aux.orders')", lintFill
};
