/*
** wc_advise.c: SELECT * FROM widecol_advise('<source>', '<workload>'
** [, '<settings>']) ranks row-key designs for a workload by building each
** one on a sample of the source's rows and running the workload on it.
**
** Everything happens in a private in-memory connection with widecol
** loaded, so that nothing the advisor makes or drops touches the user's
** database or the statement that runs it:
**   1. the sample: up to `sample` rows of the source, evenly spaced in its
**      order (the order rows were written, as far as the source keeps it);
**   2. the workload, learned by SQLite itself against a probe table
**      (wc_workload.h), and its parameters drawn from the sample;
**   3. candidates (candidates()): for each statement that reads, a key of
**      its '=' columns, then its range or ORDER BY column, then columns
**      that make the key unique; transforms chosen from the data; a BUCKET
**      or REVERSE in front when the leading field grows as rows are
**      written; TOKEN (Cassandra's form) when asked; and INDEXes, plain
**      or covering, for the statements the key cannot serve;
**   4. each candidate built as a real widecol table named as the source,
**      and measured (measure()): rows read per call (widecol_stats), the
**      hottest region's share of recent writes over every key a write
**      touches (widecol_regions), key lengths;
**   5. the score, documented in docs/design-tools.md (score()), and the
**      rows, best first.
*/
#include "tools/wc_tvf.h"
#include "vtab/wc_table.h"
#include "tools/wc_workload.h"
#include "tools/wc_lint.h"
#include "key/rk_bytes.h"
#include "util/wc_progress.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WC_ADVISE_SAMPLE   100000
#define WC_ADVISE_MAX_SAMPLE 10000000
#define WC_ADVISE_RESULTS  5
#define WC_ADVISE_INDEXES  2
#define WC_ADVISE_REGIONS  16
#define WC_ADVISE_DRAWS    10
#define WC_ADVISE_MAX_CAND 64
#define WC_ADVISE_BUCKETS  WC_LINT_PREFIXES  /* the lint's spread */
#define WC_ADVISE_TIE      0.01   /* Scores this close are a tie (rank()) */
#define WC_ADVISE_SEQ      "widecol_advise_seq"
#define WC_ADVISE_SAMPLE_T "widecol_advise_sample"
/* Rows that share a key field value, beyond which RANDOM is not tried */
#define WC_ADVISE_MAX_DUP  2500

typedef struct Settings Settings;
struct Settings {
  int nResult;          /* candidates: rows returned */
  int nMaxIndex;        /* max_indexes */
  double rWriteWeight;  /* write_weight */
  int64_t nSample;      /* sample */
  int nRegion;          /* regions */
  int bHbase;           /* stores: "hbase" (one global key order) */
  int bCassandra;       /*         "cassandra" (a ring of partitions) */
  int nDraw;            /* draws */
  int bProgress;        /* progress */
};

/* What the sample shows of a column. */
typedef struct Col Col;
struct Col {
  char *zName;
  char *zType;          /* Declared type, or one the values suggest */
  int bKeyable;         /* No NULLs: it can be a key field */
  int bNonNegInt;       /* Every value a non-negative integer */
  int bText;            /* Every value text */
  int nDigit;           /* Digits of the largest integer */
  int64_t nDistinct;
  int bGrows;           /* Values rise as rows are written */
  double rHotSkew;      /* Its most frequent value's share of the rows
                        ** times WC_LINT_PREFIXES: WC_HOT_SKEW or more,
                        ** a hot entity as widecol_lint's hot-key says */
  int bUnsafe[4];       /* Text values hold delimiter i of azDelim */
  int iPrefixNext;      /* Text: the smallest byte after a value that begins
                        ** another (u1, u10: '0'), 256 if none; a field
                        ** followed by a delimiter above it is padded */
  int nMaxLen;          /* Text: the longest value's bytes */
  int bEndsSpace;       /* Text: a value ends with PAD's fill, a space */
};

static const char *const azDelim[] = { "_", "|", "#", "~" };

typedef struct Cand Cand;
struct Cand {
  char *zKey;           /* ROWKEY(...) or PRIMARY KEY (...) */
  char *zOptions;       /* ", ENCODING BINARY", ", DELIMITER '|'", ... */
  char *zIndex;         /* ", INDEX ..." as shown */
  char *zIndexSeq;      /* the same with the sequence INCLUDEd */
  int nIndex;
  char *zWhy;
  /* Measured */
  int nTransform;       /* BUCKET or REVERSE in front: a tie goes to fewer */
  int nPart;            /* Cassandra's form: the partition key's columns */
  int aiPart[16];
  int bServesTop;       /* Its row key serves the heaviest read itself */
  int bFailed;
  char *zFailed;
  double rScore;
  double rReads;
  double rSkew;
  double rKeyMean;
  int64_t nKeyMax;
  char *zDetail;        /* JSON: per statement */
  int bRisingLead;      /* A key or INDEX it has is led, unspread, by a
                        ** column that rose as the sample was written */
  int iTie;             /* Its group of scores within WC_ADVISE_TIE of the
                        ** group's best: ranked the same */
  int nTie;             /* Designs in that group */
  int bUnlinted;        /* Not linted: it could not be among the rows
                        ** returned */
  int nLint;            /* widecol_lint's warnings and errors on it, after
                        ** the workload: designs with none rank first */
};

typedef struct Advisor Advisor;
struct Advisor {
  sqlite3 *db;          /* The user's connection */
  sqlite3 *pPriv;       /* The private one */
  const char *zSource;
  Settings set;
  int nCol;
  Col *aCol;
  const char **azCol;
  int bKeyOrder;        /* The source is a widecol table: read in key
                        ** order, which says nothing of write order */
  int nKeyCol;          /* The source's own key columns, if it has one */
  int aiKeyCol[16];
  int64_t nTotal;       /* Rows in the source */
  int64_t nSample;      /* Rows in the sample */
  WcWorkload work;
  int nCand;
  Cand aCand[WC_ADVISE_MAX_CAND];
  char *zRefused;       /* The first design a store refused, and why */
  int nRefused;
  int rc;
  char *zErr;
  time_t tStart;
};

static void progress(Advisor *p, const char *zFormat, ...){
  va_list ap;
  char *z;
  if( !p->set.bProgress ) return;
  va_start(ap, zFormat);
  z = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( z ){
    fprintf(stderr, "widecol_advise: [%lds] %s\n",
            (long)(time(0) - p->tStart), z);
    fflush(stderr);
  }
  sqlite3_free(z);
}

/* The text built in pStr, "" (allocated) when empty, NULL on OOM. */
static char *strDone(sqlite3_str *pStr){
  int rc = sqlite3_str_errcode(pStr);
  char *z = sqlite3_str_finish(pStr);
  if( rc != SQLITE_OK ){
    sqlite3_free(z);
    return 0;
  }
  return z ? z : sqlite3_mprintf("");
}

/* Records the first error: a message (owned) or SQLite's of pDb. */
static void fail(Advisor *p, int rc, sqlite3 *pDb, char *zMsg){
  if( p->rc != SQLITE_OK ){
    sqlite3_free(zMsg);
    return;
  }
  p->rc = rc;
  p->zErr = zMsg ? zMsg
          : rc == SQLITE_NOMEM ? 0
          : sqlite3_mprintf("widecol_advise: %s", sqlite3_errmsg(pDb));
}

/* One value of a query on the private connection, as an integer. */
static int64_t privInt(Advisor *p, const char *zFormat, ...){
  va_list ap;
  char *zSql;
  sqlite3_stmt *pStmt = 0;
  int64_t v = 0;
  int rc;
  if( p->rc != SQLITE_OK ) return 0;
  va_start(ap, zFormat);
  zSql = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  if( zSql == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return 0;
  }
  rc = sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    v = sqlite3_column_int64(pStmt, 0);
  }
  if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
  return v;
}

static double privReal(Advisor *p, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  double r = 0.0;
  int rc;
  if( p->rc != SQLITE_OK ) return 0.0;
  rc = sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0);
  if( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    r = sqlite3_column_double(pStmt, 0);
  }
  if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
  return r;
}

/*
** Settings: a JSON object, every key known.
*/
static void readSettings(Advisor *p, sqlite3_value *pJson){
  static const char *const azKey[] = {
    "candidates", "max_indexes", "write_weight", "sample", "regions",
    "stores", "draws", "progress",
  };
  Settings *pSet = &p->set;
  sqlite3_stmt *pStmt = 0;
  int rc;
  pSet->nResult = WC_ADVISE_RESULTS;
  pSet->nMaxIndex = WC_ADVISE_INDEXES;
  pSet->rWriteWeight = 1.0;
  pSet->nSample = WC_ADVISE_SAMPLE;
  pSet->nRegion = WC_ADVISE_REGIONS;
  pSet->bHbase = 1;
  pSet->nDraw = WC_ADVISE_DRAWS;
  /* As every long statement's (widecol_progress()), unless the settings
  ** say. */
  pSet->bProgress = wcProgressOn();
  if( pJson == 0 || sqlite3_value_type(pJson) == SQLITE_NULL ) return;
  rc = sqlite3_prepare_v2(p->pPriv, "SELECT key, type, value, "
                          "json_valid(?1) FROM json_each(?1)", -1, &pStmt, 0);
  if( rc != SQLITE_OK ){
    fail(p, rc, p->pPriv, 0);
    return;
  }
  sqlite3_bind_value(pStmt, 1, pJson);
  while( p->rc == SQLITE_OK && (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(pStmt, 0);
    const char *zType = (const char*)sqlite3_column_text(pStmt, 1);
    int64_t v = sqlite3_column_int64(pStmt, 2);
    double r = sqlite3_column_double(pStmt, 2);
    int bInt = zType && strcmp(zType, "integer") == 0;
    size_t k;
    for(k = 0; k < sizeof(azKey) / sizeof(azKey[0]); k++){
      if( zKey && strcmp(zKey, azKey[k]) == 0 ) break;
    }
    switch( k ){
      case 0: case 1: case 3: case 4: case 6: {
        static const int64_t aMin[] = { 1, 0, 0, 1000, 1, 0, 1 };
        static const int64_t aMax[] = { 100, 8, 0, WC_ADVISE_MAX_SAMPLE,
                                        1000, 0, 100 };
        if( !bInt || v < aMin[k] || v > aMax[k] ){
          fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: setting "
              "\"%s\" must be an integer from %lld to %lld, not %s", zKey,
              (long long)aMin[k], (long long)aMax[k],
              sqlite3_column_text(pStmt, 2)));
          break;
        }
        if( k == 0 ) pSet->nResult = (int)v;
        if( k == 1 ) pSet->nMaxIndex = (int)v;
        if( k == 3 ) pSet->nSample = v;
        if( k == 4 ) pSet->nRegion = (int)v;
        if( k == 6 ) pSet->nDraw = (int)v;
        break;
      }
      case 2:
        if( !(zType && (bInt || strcmp(zType, "real") == 0)) || r < 0.0 ){
          fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: setting "
              "\"write_weight\" must be a number of 0 or more (how much a "
              "write counts against a read), not %s",
              sqlite3_column_text(pStmt, 2)));
        }
        pSet->rWriteWeight = r;
        break;
      case 5: {
        const char *zList = (const char*)sqlite3_column_text(pStmt, 2);
        int bOk = zType && strcmp(zType, "array") == 0;
        pSet->bHbase = zList && strstr(zList, "\"hbase\"") != 0;
        pSet->bCassandra = zList && strstr(zList, "\"cassandra\"") != 0;
        if( bOk && zList ){
          int64_t nItem = privInt(p, "SELECT count(*) FROM json_each(%Q) "
                                  "WHERE value NOT IN ('hbase', 'cassandra')",
                                  zList);
          bOk = nItem == 0 && (pSet->bHbase || pSet->bCassandra);
        }
        if( !bOk ){
          fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: setting "
              "\"stores\" is a list of \"hbase\" (one key order: HBase, "
              "Bigtable) and \"cassandra\" (partitions on a ring), not %s",
              zList ? zList : "null"));
        }
        break;
      }
      case 7:
        if( !zType || (strcmp(zType, "true") && strcmp(zType, "false")) ){
          fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: setting "
              "\"progress\" is true or false, not %s",
              sqlite3_column_text(pStmt, 2)));
        }
        pSet->bProgress = zType && strcmp(zType, "true") == 0;
        break;
      default:
        fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: unknown "
            "setting \"%s\"; the settings are candidates, max_indexes, "
            "write_weight, sample, regions, stores, draws and progress",
            zKey ? zKey : ""));
        break;
    }
  }
  if( p->rc == SQLITE_OK && rc != SQLITE_DONE ){
    fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: the settings "
        "must be a JSON object such as '{\"candidates\": 3, \"sample\": "
        "50000}', not %s", sqlite3_value_text(pJson)));
  }
  sqlite3_finalize(pStmt);
}

/*
** The source and its sample.
*/

/* The source's own key columns: a widecol table's key fields, or an
** ordinary table's PRIMARY KEY. */
static void sourceKey(Advisor *p){
  WcVtab *pTab = 0;
  char *zErr = 0;
  int i;
  if( wcTableLookup(p->db, p->zSource, "widecol_advise", &pTab, &zErr)
      == SQLITE_OK ){
    const WcSchema *pS = wcTableSchema(pTab);
    p->bKeyOrder = 1;
    for(i = 0; i < pS->nElem && p->nKeyCol < 16; i++){
      if( pS->aElem[i].eKind == WC_ELEM_COLUMN ){
        p->aiKeyCol[p->nKeyCol++] = pS->aElem[i].iCol;
      }
    }
  }else{
    sqlite3_stmt *pStmt = 0;
    char *zSql = sqlite3_mprintf("SELECT cid FROM pragma_table_info(%Q) "
                                 "WHERE pk > 0 ORDER BY pk", p->zSource);
    if( zSql && sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) == SQLITE_OK ){
      while( sqlite3_step(pStmt) == SQLITE_ROW && p->nKeyCol < 16 ){
        int iCol = sqlite3_column_int(pStmt, 0);
        if( iCol < p->nCol ) p->aiKeyCol[p->nKeyCol++] = iCol;
      }
    }
    sqlite3_finalize(pStmt);
    sqlite3_free(zSql);
  }
  sqlite3_free(zErr);
}

/* The column declarations, name TYPE, ... (zExtra appended). */
static char *columnDecls(Advisor *p, const char *zExtra){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i;
  for(i = 0; i < p->nCol; i++){
    sqlite3_str_appendall(pStr, i ? ", " : "");
    wcAppendName(pStr, p->aCol[i].zName);
    sqlite3_str_appendf(pStr, "%s%s", p->aCol[i].zType[0] ? " " : "",
                        p->aCol[i].zType);
  }
  if( zExtra ) sqlite3_str_appendall(pStr, zExtra);
  return sqlite3_str_finish(pStr);
}

/* Reads the source's columns and copies the sample into the private
** connection. */
static void readSource(Advisor *p){
  sqlite3_stmt *pRead = 0, *pIns = 0;
  char *zSql, *zDecl;
  int64_t iRow = 0, nKept = 0;
  int i, rc;
  zSql = sqlite3_mprintf("SELECT * FROM \"%w\"", p->zSource);
  rc = zSql ? sqlite3_prepare_v2(p->db, zSql, -1, &pRead, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    fail(p, rc, 0, rc == SQLITE_NOMEM ? 0 : sqlite3_mprintf("widecol_advise: "
        "the source %s cannot be read (%s); name a table or view holding "
        "the rows, as in widecol_advise('payments', 'SELECT sql, weight "
        "FROM workload')", p->zSource, sqlite3_errmsg(p->db)));
    return;
  }
  p->nCol = sqlite3_column_count(pRead);
  p->aCol = sqlite3_malloc64(sizeof(Col) * (sqlite3_uint64)p->nCol);
  p->azCol = sqlite3_malloc64(sizeof(char*) * (sqlite3_uint64)p->nCol);
  if( p->aCol == 0 || p->azCol == 0 ){
    sqlite3_finalize(pRead);
    fail(p, SQLITE_NOMEM, 0, 0);
    return;
  }
  memset(p->aCol, 0, sizeof(Col) * (size_t)p->nCol);
  for(i = 0; i < p->nCol; i++){
    const char *zType = sqlite3_column_decltype(pRead, i);
    p->aCol[i].zName = sqlite3_mprintf("%s", sqlite3_column_name(pRead, i));
    p->aCol[i].zType = sqlite3_mprintf("%s", zType ? zType : "");
    p->azCol[i] = p->aCol[i].zName;
    if( p->aCol[i].zName == 0 || p->aCol[i].zType == 0 ){
      fail(p, SQLITE_NOMEM, 0, 0);
    }
  }
  sourceKey(p);
  zSql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", p->zSource);
  if( zSql && p->rc == SQLITE_OK ){
    sqlite3_stmt *pCount = 0;
    if( sqlite3_prepare_v2(p->db, zSql, -1, &pCount, 0) == SQLITE_OK
     && sqlite3_step(pCount) == SQLITE_ROW ){
      p->nTotal = sqlite3_column_int64(pCount, 0);
    }
    sqlite3_finalize(pCount);
  }
  sqlite3_free(zSql);
  if( p->rc == SQLITE_OK && p->nTotal == 0 ){
    fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: %s is empty; "
        "designs are judged on its rows, so load them (or a good share of "
        "them) first", p->zSource));
  }
  zDecl = columnDecls(p, 0);
  zSql = sqlite3_mprintf("CREATE TABLE " WC_ADVISE_SAMPLE_T "(%s)", zDecl);
  if( p->rc == SQLITE_OK ){
    rc = zSql ? sqlite3_exec(p->pPriv, zSql, 0, 0, 0) : SQLITE_NOMEM;
    if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
  }
  sqlite3_free(zSql);
  sqlite3_free(zDecl);
  if( p->rc != SQLITE_OK ){
    sqlite3_finalize(pRead);
    return;
  }
  progress(p, "sampling %lld of %s's %lld rows",
           (long long)(p->nTotal < p->set.nSample ? p->nTotal : p->set.nSample),
           p->zSource, (long long)p->nTotal);
  {
    sqlite3_str *pStr = sqlite3_str_new(0);
    sqlite3_str_appendall(pStr, "INSERT INTO " WC_ADVISE_SAMPLE_T " VALUES (");
    for(i = 0; i < p->nCol; i++) sqlite3_str_appendall(pStr, i ? ", ?" : "?");
    sqlite3_str_appendall(pStr, ")");
    zSql = sqlite3_str_finish(pStr);
  }
  rc = zSql ? sqlite3_prepare_v2(p->pPriv, zSql, -1, &pIns, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc == SQLITE_OK ) rc = sqlite3_exec(p->pPriv, "BEGIN", 0, 0, 0);
  /* Row i is kept when it crosses the next of nSample even steps. */
  while( rc == SQLITE_OK && (rc = sqlite3_step(pRead)) == SQLITE_ROW ){
    int64_t nWant = (iRow + 1) * p->set.nSample / p->nTotal;
    rc = SQLITE_OK;
    if( p->nTotal <= p->set.nSample || nWant > nKept ){
      for(i = 0; i < p->nCol; i++){
        sqlite3_bind_value(pIns, i + 1, sqlite3_column_value(pRead, i));
      }
      sqlite3_step(pIns);
      rc = sqlite3_reset(pIns);
      if( rc != SQLITE_OK ){
        fail(p, rc, 0, sqlite3_mprintf("widecol_advise: copying a row of %s "
            "into the sample failed: %s", p->zSource,
            sqlite3_errmsg(p->pPriv)));
      }
      nKept++;
    }
    iRow++;
  }
  if( rc == SQLITE_DONE ) rc = SQLITE_OK;
  if( rc != SQLITE_OK ){
    fail(p, rc, 0, sqlite3_mprintf("widecol_advise: reading %s failed: %s",
                                   p->zSource, sqlite3_errmsg(p->db)));
  }
  sqlite3_exec(p->pPriv, rc == SQLITE_OK ? "COMMIT" : "ROLLBACK", 0, 0, 0);
  sqlite3_finalize(pRead);
  sqlite3_finalize(pIns);
  p->nSample = nKept;
  if( p->rc == SQLITE_OK && p->bKeyOrder ){
    /* Key order is no write order: the sample is shuffled (a fixed
    ** permutation), so that no field seems to rise as rows are written
    ** and writes are replayed in no particular order. */
    rc = sqlite3_exec(p->pPriv, "CREATE TABLE widecol_advise_shuffled AS "
        "SELECT * FROM " WC_ADVISE_SAMPLE_T " ORDER BY (rowid * 2654435761) "
        "% 4294967291; DROP TABLE " WC_ADVISE_SAMPLE_T "; ALTER TABLE "
        "widecol_advise_shuffled RENAME TO " WC_ADVISE_SAMPLE_T, 0, 0, 0);
    if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
  }
}

/* What the sample shows of each column. */
static void profileColumns(Advisor *p){
  int i, k;
  for(i = 0; i < p->nCol && p->rc == SQLITE_OK; i++){
    Col *pC = &p->aCol[i];
    const char *z = pC->zName;
    sqlite3_stmt *pStmt = 0;
    char *zSql = sqlite3_mprintf(
        "SELECT count(\"%w\") = count(*), "
        "coalesce(min(typeof(\"%w\") = 'integer' AND \"%w\" >= 0), 1), "
        "coalesce(min(typeof(\"%w\") = 'text'), 0), "
        "length(CAST(max(CASE WHEN typeof(\"%w\") = 'integer' THEN \"%w\" END) "
        "AS TEXT)), count(DISTINCT \"%w\") FROM " WC_ADVISE_SAMPLE_T,
        z, z, z, z, z, z, z);
    int rc = zSql ? sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0)
                  : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
      pC->bKeyable = sqlite3_column_int(pStmt, 0);
      pC->bNonNegInt = sqlite3_column_int(pStmt, 1);
      pC->bText = sqlite3_column_int(pStmt, 2);
      pC->nDigit = sqlite3_column_int(pStmt, 3);
      pC->nDistinct = sqlite3_column_int64(pStmt, 4);
    }
    if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
    if( rc != SQLITE_OK ){
      fail(p, rc, p->pPriv, 0);
      return;
    }
    if( pC->nDigit < 1 ) pC->nDigit = 1;
    /* Rises with write order (times, sequences): nine rows in ten hold
    ** a larger value than the row written a twentieth of the sample
    ** before them.  Not "than every row before": real timestamps come a
    ** little out of order (devices' clocks, batching). */
    pC->bGrows = p->nSample >= 10 && privInt(p, "SELECT avg(up) >= 0.9 FROM "
        "(SELECT \"%w\" > lag(\"%w\", %lld) OVER (ORDER BY rowid) AS up "
        "FROM " WC_ADVISE_SAMPLE_T ") WHERE up IS NOT NULL", z, z,
        (long long)(p->nSample / 20 > 1 ? p->nSample / 20 : 1));
    pC->rHotSkew = p->nSample == 0 ? 0.0 : (double)WC_LINT_PREFIXES
        * (double)privInt(p, "SELECT max(n) FROM (SELECT count(*) AS n FROM "
                          WC_ADVISE_SAMPLE_T " GROUP BY \"%w\")", z)
        / (double)p->nSample;
    pC->iPrefixNext = 256;
    if( pC->bText ){
      pC->iPrefixNext = (int)privInt(p, "SELECT coalesce(min(unicode(CAST("
          "substr(nxt, length(v) + 1, 1) AS TEXT))), 256) FROM (SELECT v, "
          "lead(v) OVER (ORDER BY v) AS nxt FROM (SELECT DISTINCT CAST(\"%w\" "
          "AS BLOB) AS v FROM " WC_ADVISE_SAMPLE_T ")) WHERE "
          "substr(nxt, 1, length(v)) = v", z);
      pC->nMaxLen = (int)privInt(p, "SELECT max(length(CAST(\"%w\" AS BLOB))) "
                                 "FROM " WC_ADVISE_SAMPLE_T, z);
      pC->bEndsSpace = privInt(p, "SELECT count(*) FROM " WC_ADVISE_SAMPLE_T
                               " WHERE substr(\"%w\", -1) = ' '", z) > 0;
    }
    for(k = 0; k < 4 && pC->bText; k++){
      pC->bUnsafe[k] = privInt(p, "SELECT count(*) FROM " WC_ADVISE_SAMPLE_T
                               " WHERE instr(\"%w\", %Q) > 0", z, azDelim[k])
                       > 0;
    }
    /* A design needs a type its values fit: the values' own if none was
    ** declared. */
    if( pC->zType[0] == 0 ){
      sqlite3_free(pC->zType);
      pC->zType = sqlite3_mprintf("%s", pC->bNonNegInt && !pC->bText
                                  ? "INTEGER" : pC->bText ? "TEXT" : "");
      if( pC->zType == 0 ) fail(p, SQLITE_NOMEM, 0, 0);
    }
  }
}

/* Pins widecol_now() on the private connection at the sample's latest
** time (of the first column holding times), so that a statement that
** asks for "the last 5 minutes" (ts >= widecol_now() - 300) reads the
** sample's last 5 minutes, not the wall clock's. */
static void pinNow(Advisor *p){
  int i;
  for(i = 0; i < p->nCol && p->rc == SQLITE_OK; i++){
    const char *z = p->aCol[i].zName;
    char *zSql = sqlite3_mprintf("SELECT avg(%s) FROM (SELECT \"%w\" AS x "
        "FROM " WC_ADVISE_SAMPLE_T ") WHERE x IS NOT NULL", wcLintTimeTest, z);
    double rShare;
    int64_t iLatest;
    if( zSql == 0 ){
      fail(p, SQLITE_NOMEM, 0, 0);
      return;
    }
    rShare = privReal(p, zSql);
    sqlite3_free(zSql);
    if( rShare < WC_LINT_SHARE ) continue;
    iLatest = privInt(p, "SELECT max(%s) FROM (SELECT \"%w\" AS x FROM "
                      WC_ADVISE_SAMPLE_T ")", wcLintTimeMicros, z);
    if( iLatest <= 0 ) continue;
    privInt(p, "SELECT widecol_clock(%lld)", (long long)iLatest);
    progress(p, "widecol_now() is %s's latest, %lld", z,
             (long long)(iLatest / 1000000));
    return;
  }
}

/*
** Candidates.
*/

/* A key being planned: its fields and what is done to them. */
typedef struct KeyPlan KeyPlan;
struct KeyPlan {
  int nField;
  int aiField[16];
  unsigned char abDesc[16];
  int eFront;           /* 0, or a transform of the first field: */
#define FRONT_BUCKET  1   /*   BUCKET(16, f) in front */
#define FRONT_REVERSE 2   /*   f PAD n REVERSE */
  int nPart;            /* Cassandra's form: the partition key's fields */
  int bSpread;          /* BUCKET(16, second field) after the first: a hot
                        ** entity's rows spread over 16 key ranges */
  int64_t nRandom;      /* RANDOM(n) last, 0 for none */
  int iStmt;            /* The statement it was made for */
};

/* A column's affinity class: 'I' integer, 'T' text, 'O' other. */
static char affinityOf(const char *zType){
  char z[64];
  size_t i, n = strlen(zType);
  if( n >= sizeof(z) ) n = sizeof(z) - 1;
  for(i = 0; i < n; i++) z[i] = (char)(zType[i] >= 'a' && zType[i] <= 'z'
                                       ? zType[i] - 32 : zType[i]);
  z[n] = 0;
  if( strstr(z, "INT") ) return 'I';
  if( strstr(z, "CHAR") || strstr(z, "CLOB") || strstr(z, "TEXT") ) return 'T';
  return 'O';
}

/* True if the column is a measurement, REAL or NUMERIC by SQLite's
** affinity rules: a reading, an amount, never a key field. */
static int isMeasurement(const Col *pC){
  char z[64];
  size_t i, n = strlen(pC->zType);
  if( affinityOf(pC->zType) != 'O' || n == 0 ) return 0;
  if( n >= sizeof(z) ) n = sizeof(z) - 1;
  for(i = 0; i < n; i++) z[i] = (char)(pC->zType[i] >= 'a'
      && pC->zType[i] <= 'z' ? pC->zType[i] - 32 : pC->zType[i]);
  z[n] = 0;
  return strstr(z, "BLOB") == 0;
}

/* True if column iCol can be a TEXT-encoded field as it is. */
static int textFieldOk(const Advisor *p, int iCol){
  const Col *pC = &p->aCol[iCol];
  char cAff = affinityOf(pC->zType);
  return (cAff == 'I' && pC->bNonNegInt) || (cAff == 'T' && pC->bText);
}

/* True if text column iCol, followed by delimiter cDelim (0: nothing
** follows it), is padded: some values begin others with a byte below
** the delimiter, whose keys would interleave (widecol_lint's prefix-scan;
** the guides' fixed width, the longest value and 4). */
static int prefixPadded(const Advisor *p, int iCol, int bBinary, int bDesc,
                        int cDelim){
  const Col *pC = &p->aCol[iCol];
  return !bBinary && !bDesc && cDelim && affinityOf(pC->zType) == 'T'
      && pC->iPrefixNext < cDelim;
}

/* A field as an element: name, PAD for a TEXT-encoded integer, REVERSE,
** DESC.  A TEXT-encoded integer DESC is written without PAD: DESC alone
** stores 9223372036854775807 - v in 19 digits, readable and in the same
** order, where PAD n DESC would invert the padded digits' bytes. */
static void appendField(sqlite3_str *pStr, const Advisor *p, int iCol,
                        int bDesc, int bBinary, int bReverse, int cDelim){
  const Col *pC = &p->aCol[iCol];
  wcAppendName(pStr, pC->zName);
  if( !bBinary && affinityOf(pC->zType) == 'I' && (!bDesc || bReverse) ){
    sqlite3_str_appendf(pStr, " PAD %d", pC->nDigit);
  }
  if( prefixPadded(p, iCol, bBinary, bDesc, cDelim) ){
    sqlite3_str_appendf(pStr, " PAD %d", pC->nMaxLen + 4);
  }
  if( bReverse ) sqlite3_str_appendall(pStr, " REVERSE");
  if( bDesc ) sqlite3_str_appendall(pStr, " DESC");
}

static int hasCol(const int *a, int n, int iCol){
  int i;
  for(i = 0; i < n; i++) if( a[i] == iCol ) return 1;
  return 0;
}

/* The fields statement pW asks for: its '=' columns, then its range
** column or the first ORDER BY column after them. */
static int statementFields(const Advisor *p, const WcWorkStmt *pW,
                           int *aiField, unsigned char *abDesc){
  int n = 0, i, iNext = -1;
  for(i = 0; i < pW->nEq && n < 8; i++){
    if( p->aCol[pW->aiEq[i]].bKeyable && !hasCol(aiField, n, pW->aiEq[i]) ){
      abDesc[n] = 0;
      aiField[n++] = pW->aiEq[i];
    }
  }
  if( pW->iRange >= 0 && !hasCol(aiField, n, pW->iRange) ){
    iNext = pW->iRange;
  }
  for(i = 0; iNext < 0 && i < pW->nOrder; i++){
    if( !hasCol(aiField, n, pW->aiOrder[i]) ) iNext = pW->aiOrder[i];
  }
  if( iNext >= 0 && p->aCol[iNext].bKeyable ){
    abDesc[n] = 0;
    for(i = 0; i < pW->nOrder; i++){
      if( pW->aiOrder[i] == iNext ) abDesc[n] = pW->abDesc[i];
    }
    aiField[n++] = iNext;
  }
  return n;
}

/* True if a key whose fields are aiField[0..nField) reads what pW asks
** for as key ranges. */
static int serves(const int *aiField, int nField, const WcWorkStmt *pW,
                  const Advisor *p){
  int aiWant[16];
  unsigned char abDesc[16];
  int nWant = statementFields(p, pW, aiWant, abDesc), nEq = 0, i;
  if( nWant == 0 || nWant > nField ) return 0;
  for(i = 0; i < pW->nEq; i++) nEq += hasCol(aiWant, nWant, pW->aiEq[i]);
  for(i = 0; i < nEq; i++){
    if( !hasCol(aiField, nEq, aiWant[i]) ) return 0;
  }
  return nEq == nWant || aiField[nEq] == aiWant[nEq];
}

/* The sample's largest group of rows that share the fields. */
static int64_t largestGroup(Advisor *p, const KeyPlan *pK){
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zCols;
  int64_t n;
  int i;
  for(i = 0; i < pK->nField; i++){
    sqlite3_str_appendf(pStr, "%s\"%w\"", i ? ", " : "",
                        p->aCol[pK->aiField[i]].zName);
  }
  zCols = sqlite3_str_finish(pStr);
  if( zCols == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return 0;
  }
  n = privInt(p, "SELECT max(n) FROM (SELECT count(*) AS n FROM "
              WC_ADVISE_SAMPLE_T " GROUP BY %s)", zCols);
  sqlite3_free(zCols);
  return n;
}

/* Makes the key unique on the sample: the source's own key columns, then
** the others by their distinct values, then RANDOM(n).  0 if it cannot
** be. */
static int makeUnique(Advisor *p, KeyPlan *pK){
  int64_t nGroup;
  int i;
  /* The source's own key is what tells its rows apart, whatever the
  ** sample shows (the HBase blog's PaymentID, "for uniqueness"). */
  for(i = 0; i < p->nKeyCol && pK->nField < 12; i++){
    int iCol = p->aiKeyCol[i];
    if( p->aCol[iCol].bKeyable && !hasCol(pK->aiField, pK->nField, iCol) ){
      pK->abDesc[pK->nField] = 0;
      pK->aiField[pK->nField++] = iCol;
    }
  }
  while( (nGroup = largestGroup(p, pK)) > 1 && pK->nField < 6
         && p->rc == SQLITE_OK ){
    int iBest = -1;
    /* A time first (rows written at different moments differ), then the
    ** most distinct values; a measurement never tells rows apart. */
    for(i = 0; i < p->nCol; i++){
      const Col *pCol = &p->aCol[i];
      if( pCol->bKeyable && !isMeasurement(pCol)
       && !hasCol(pK->aiField, pK->nField, i)
       && (iBest < 0 || pCol->bGrows > p->aCol[iBest].bGrows
           || (pCol->bGrows == p->aCol[iBest].bGrows
               && pCol->nDistinct > p->aCol[iBest].nDistinct)) ){
        iBest = i;
      }
    }
    if( iBest < 0 ) break;
    pK->abDesc[pK->nField] = 0;
    pK->aiField[pK->nField++] = iBest;
  }
  if( nGroup <= 1 ) return 1;
  if( pK->nPart || 4 * nGroup > WC_MAX_RANDOM || nGroup > WC_ADVISE_MAX_DUP ){
    return 0;
  }
  for(pK->nRandom = 10; pK->nRandom < 4 * nGroup; pK->nRandom *= 10){}
  return 1;
}

/* The encoding every field of the candidate fits: TEXT with the first
** delimiter no text field holds, else BINARY.  Returns the delimiter's
** index, or -1 for BINARY. */
static int chooseEncoding(const Advisor *p, const int *aiCol, int nCol){
  int k, i;
  for(i = 0; i < nCol; i++){
    if( !textFieldOk(p, aiCol[i]) ) return -1;
  }
  for(k = 0; k < 4; k++){
    for(i = 0; i < nCol; i++){
      const Col *pC = &p->aCol[aiCol[i]];
      /* PAD refuses a value that ends with its fill. */
      if( pC->bUnsafe[k] || (pC->bEndsSpace
          && pC->iPrefixNext < (unsigned char)azDelim[k][0]) ){
        break;
      }
    }
    if( i == nCol ) return k;
  }
  return -1;
}

/* An INDEX for statement pW: its fields, and (bCover) the columns it reads
** that neither they nor the row key hold, INCLUDEd. */
typedef struct IndexPlan IndexPlan;
struct IndexPlan {
  int nField;
  int aiField[16];
  unsigned char abDesc[16];
  int nInclude;
  int aiInclude[64];
  int iStmt;            /* The statement it serves */
  int bBucket;          /* BUCKET(WC_ADVISE_BUCKETS, first field) in front */
  int nPart;            /* Its leading fields the statement fixes with '=':
                        ** in Cassandra's form, the partition key */
};

/* True if key pK serves the heaviest statement that reads. */
static int servesTop(const Advisor *p, const KeyPlan *pK){
  const WcWorkStmt *pTop = 0;
  int i;
  for(i = 0; i < p->work.nStmt; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    if( !pW->bWrite && (pTop == 0 || pW->rWeight > pTop->rWeight) ) pTop = pW;
  }
  return pTop && serves(pK->aiField, pK->nField, pTop, p);
}

/* "keyed for statement 2 (weight 5: paid_at range)". */
static void appendPurpose(sqlite3_str *pStr, const Advisor *p, int iStmt){
  const WcWorkStmt *pW = &p->work.aStmt[iStmt];
  int i;
  sqlite3_str_appendf(pStr, "keyed for statement %d (weight %g: ", iStmt + 1,
                      pW->rWeight);
  for(i = 0; i < pW->nEq; i++){
    sqlite3_str_appendf(pStr, "%s%s =", i ? ", " : "",
                        p->aCol[pW->aiEq[i]].zName);
  }
  if( pW->iRange >= 0 ){
    sqlite3_str_appendf(pStr, "%s%s range", pW->nEq ? ", " : "",
                        p->aCol[pW->iRange].zName);
  }
  if( pW->nOrder > 0 ){
    sqlite3_str_appendf(pStr, "%sORDER BY %s%s", pW->nEq || pW->iRange >= 0
                        ? ", " : "", p->aCol[pW->aiOrder[0]].zName,
                        pW->abDesc[0] ? " DESC" : "");
  }
  sqlite3_str_appendall(pStr, ")");
}

/* In Cassandra's form, the reading statements that range across
** partitions (no '=' on any column), which neither the key nor an INDEX
** can serve there: said, with what would. */
static void appendAcrossPartitions(sqlite3_str *pWhy, const Advisor *p,
                                   const KeyPlan *pK){
  int i;
  for(i = 0; i < p->work.nStmt; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    if( pW->bWrite || pW->nEq > 0 || pW->iRange < 0
     || serves(pK->aiField, pK->nField, pW, p) ){
      continue;
    }
    sqlite3_str_appendf(pWhy, "; statement %d ranges over %s across every "
        "partition, which Cassandra reads only with ALLOW FILTERING, from "
        "every node: a table keyed by a bucket column the application fills "
        "(PRIMARY KEY ((bucket), %s), the bucket a day or an hour of it) "
        "would serve it", i + 1, p->aCol[pW->iRange].zName,
        p->aCol[pW->iRange].zName);
  }
}

/* The text of a candidate's arguments, as CREATE takes them. */
static char *candidateArgs(Advisor *p, const Cand *pC){
  char *zDecl = columnDecls(p, 0);
  char *zArgs = zDecl ? sqlite3_mprintf("%s, %s%s%s", zDecl, pC->zKey,
                                        pC->zIndex, pC->zOptions) : 0;
  sqlite3_free(zDecl);
  return zArgs;
}

/* True if a store the candidate is for would refuse it at CREATE: its
** form says which (Cassandra's, or one key order: HBase and Bigtable).
** The first refusal is kept, for the error when every design is. */
static int refused(Advisor *p, const Cand *pC){
  static const int aHbase[] = { WC_STORE_HBASE, WC_STORE_BIGTABLE };
  static const int aCql[] = { WC_STORE_CASSANDRA };
  const int *aKind = pC->nPart ? aCql : aHbase;
  int nKind = pC->nPart ? 1 : 2, i, rc = SQLITE_OK;
  char *zArgs = candidateArgs(p, pC), *zWhy = 0;
  if( zArgs == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return 1;
  }
  for(i = 0; i < nKind && zWhy == 0 && rc == SQLITE_OK; i++){
    zWhy = wcSchemaRefusal(p->zSource, zArgs, aKind[i], &rc);
  }
  sqlite3_free(zArgs);
  if( rc != SQLITE_OK ){
    fail(p, rc, 0, 0);
    return 1;
  }
  if( zWhy == 0 ) return 0;
  p->nRefused++;
  if( p->zRefused == 0 ){
    p->zRefused = zWhy;
  }else{
    sqlite3_free(zWhy);
  }
  return 1;
}

static void candFree(Cand *pC){
  sqlite3_free(pC->zKey);
  sqlite3_free(pC->zOptions);
  sqlite3_free(pC->zIndex);
  sqlite3_free(pC->zIndexSeq);
  sqlite3_free(pC->zWhy);
  sqlite3_free(pC->zFailed);
  sqlite3_free(pC->zDetail);
  memset(pC, 0, sizeof(*pC));
}

static void addCandidate(Advisor *p, const KeyPlan *pK, const IndexPlan *aIdx,
                         int nIdx, int bCover){
  sqlite3_str *pKey, *pIdx, *pIdxSeq, *pWhy;
  int aiAll[128], nAll = 0, iDelim, i, j;
  Cand *pC;
  if( p->rc != SQLITE_OK || p->nCand == WC_ADVISE_MAX_CAND ) return;
  for(i = 0; i < pK->nField; i++) aiAll[nAll++] = pK->aiField[i];
  for(i = 0; i < nIdx; i++){
    for(j = 0; j < aIdx[i].nField && nAll < 128; j++){
      aiAll[nAll++] = aIdx[i].aiField[j];
    }
  }
  iDelim = pK->nPart ? -1 : chooseEncoding(p, aiAll, nAll);
  if( pK->eFront == FRONT_REVERSE && iDelim < 0 ) return;
  pKey = sqlite3_str_new(0);
  if( pK->nPart ){
    sqlite3_str_appendall(pKey, "PRIMARY KEY ((");
    for(i = 0; i < pK->nField; i++){
      if( i == pK->nPart ) sqlite3_str_appendall(pKey, ")");
      sqlite3_str_appendall(pKey, i ? ", " : "");
      wcAppendName(pKey, p->aCol[pK->aiField[i]].zName);
      if( i >= pK->nPart && pK->abDesc[i] ){
        sqlite3_str_appendall(pKey, " DESC");
      }
    }
    if( pK->nField == pK->nPart ) sqlite3_str_appendall(pKey, ")");
    sqlite3_str_appendall(pKey, ")");
  }else{
    sqlite3_str_appendall(pKey, "ROWKEY(");
    if( pK->eFront == FRONT_BUCKET ){
      sqlite3_str_appendf(pKey, "BUCKET(%d, ", WC_ADVISE_BUCKETS);
      wcAppendName(pKey, p->aCol[pK->aiField[0]].zName);
      sqlite3_str_appendall(pKey, "), ");
    }
    for(i = 0; i < pK->nField; i++){
      sqlite3_str_appendall(pKey, i ? ", " : "");
      if( i == 1 && pK->bSpread ){
        sqlite3_str_appendf(pKey, "BUCKET(%d, ", WC_ADVISE_BUCKETS);
        wcAppendName(pKey, p->aCol[pK->aiField[1]].zName);
        sqlite3_str_appendall(pKey, "), ");
      }
      appendField(pKey, p, pK->aiField[i], pK->abDesc[i], iDelim < 0,
                  i == 0 && pK->eFront == FRONT_REVERSE,
                  iDelim >= 0 && (i + 1 < pK->nField || pK->nRandom)
                  ? (unsigned char)azDelim[iDelim][0] : 0);
    }
    if( pK->nRandom ){
      sqlite3_str_appendf(pKey, ", RANDOM(%lld)", (long long)pK->nRandom);
    }
    sqlite3_str_appendall(pKey, ")");
  }
  pIdx = sqlite3_str_new(0);
  pIdxSeq = sqlite3_str_new(0);
  for(i = 0; i < nIdx; i++){
    const IndexPlan *pI = &aIdx[i];
    sqlite3_str *aStr[2];
    int s;
    aStr[0] = pIdx;
    aStr[1] = pIdxSeq;
    for(s = 0; s < 2; s++){
      sqlite3_str_appendall(aStr[s], ", INDEX by");
      for(j = 0; j < pI->nField; j++){
        const char *z = p->aCol[pI->aiField[j]].zName;
        int c;
        sqlite3_str_appendall(aStr[s], "_");
        for(c = 0; z[c]; c++){
          int ch = (unsigned char)z[c];
          sqlite3_str_appendchar(aStr[s], 1, (char)(((ch >= 'a' && ch <= 'z')
              || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
              ? ch : '_'));
        }
      }
      sqlite3_str_appendall(aStr[s], "(");
      if( pK->nPart ){
        /* Cassandra's form: a CQL table of its own, led by the token of
        ** its partition key. */
        sqlite3_str_appendall(aStr[s], "TOKEN(");
        for(j = 0; j < pI->nPart; j++){
          sqlite3_str_appendall(aStr[s], j ? ", " : "");
          wcAppendName(aStr[s], p->aCol[pI->aiField[j]].zName);
        }
        sqlite3_str_appendall(aStr[s], "), ");
      }
      if( pI->bBucket ){
        sqlite3_str_appendf(aStr[s], "BUCKET(%d, ", WC_ADVISE_BUCKETS);
        wcAppendName(aStr[s], p->aCol[pI->aiField[0]].zName);
        sqlite3_str_appendall(aStr[s], "), ");
      }
      for(j = 0; j < pI->nField; j++){
        sqlite3_str_appendall(aStr[s], j ? ", " : "");
        appendField(aStr[s], p, pI->aiField[j], pI->abDesc[j], iDelim < 0, 0,
                    iDelim >= 0 ? (unsigned char)azDelim[iDelim][0] : 0);
      }
      sqlite3_str_appendall(aStr[s], ")");
      if( (bCover && pI->nInclude) || s == 1 ){
        sqlite3_str_appendall(aStr[s], " INCLUDE (");
        for(j = 0; bCover && j < pI->nInclude; j++){
          sqlite3_str_appendall(aStr[s], j ? ", " : "");
          wcAppendName(aStr[s], p->aCol[pI->aiInclude[j]].zName);
        }
        if( s == 1 ){
          sqlite3_str_appendall(aStr[s], bCover && pI->nInclude ? ", " : "");
          sqlite3_str_appendall(aStr[s], WC_ADVISE_SEQ);
        }
        sqlite3_str_appendall(aStr[s], ")");
      }
    }
  }
  pC = &p->aCand[p->nCand];
  memset(pC, 0, sizeof(*pC));
  pC->zKey = sqlite3_str_finish(pKey);
  pC->zIndex = strDone(pIdx);
  pC->zIndexSeq = strDone(pIdxSeq);
  pC->zOptions = iDelim >= 0 ? sqlite3_mprintf(", DELIMITER '%s'",
                                               azDelim[iDelim])
                 : pK->nPart ? sqlite3_mprintf("")
                 : sqlite3_mprintf(", ENCODING BINARY");
  pC->nIndex = nIdx;
  pC->nTransform = (pK->eFront != 0) + pK->bSpread;
  pC->bRisingLead = !pK->nPart && !pK->eFront
                    && p->aCol[pK->aiField[0]].bGrows;
  for(i = 0; i < nIdx; i++){
    pC->bRisingLead |= !aIdx[i].bBucket && !pK->nPart
                       && p->aCol[aIdx[i].aiField[0]].bGrows;
  }
  pC->nPart = pK->nPart;
  memcpy(pC->aiPart, pK->aiField, sizeof(pC->aiPart));
  pC->bServesTop = servesTop(p, pK);
  if( pC->zKey == 0 || pC->zIndex == 0 || pC->zIndexSeq == 0
   || pC->zOptions == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return;
  }
  for(i = 0; i < p->nCand; i++){
    if( strcmp(p->aCand[i].zKey, pC->zKey) == 0
     && strcmp(p->aCand[i].zIndex, pC->zIndex) == 0
     && strcmp(p->aCand[i].zOptions, pC->zOptions) == 0 ){
      candFree(pC);
      return;
    }
  }
  /* Why: the guides' words for each choice. */
  pWhy = sqlite3_str_new(0);
  appendPurpose(pWhy, p, pK->iStmt);
  if( pK->nPart ){
    sqlite3_str_appendall(pWhy, "; Cassandra's form: the partition key's "
        "token places its rows on the ring, clustering columns order them "
        "within it");
  }
  if( pK->eFront == FRONT_BUCKET ){
    sqlite3_str_appendf(pWhy, "; %s rises as rows are written, so a bucket "
        "in front spreads the writes over %d key ranges (the guides' "
        "[bucket][timestamp]), and a range over it reads %d ranges",
        p->aCol[pK->aiField[0]].zName, WC_ADVISE_BUCKETS, WC_ADVISE_BUCKETS);
  }
  if( pK->bSpread ){
    const Col *pE = &p->aCol[pK->aiField[0]];
    sqlite3_str_appendf(pWhy, "; %s is a hot entity: one value holds %.1f%% "
        "of the sample's rows, %.1f times an even share of %d key ranges "
        "(widecol_lint's hot-key); BUCKET(%d, %s) after it spreads each "
        "value's rows over %d key ranges, and a read of one %s reads %d, "
        "merged in key order", pE->zName, 100.0 * pE->rHotSkew
        / WC_LINT_PREFIXES, pE->rHotSkew, WC_LINT_PREFIXES, WC_ADVISE_BUCKETS,
        p->aCol[pK->aiField[1]].zName, WC_ADVISE_BUCKETS, pE->zName,
        WC_ADVISE_BUCKETS);
  }
  if( pK->eFront == FRONT_REVERSE ){
    sqlite3_str_appendf(pWhy, "; %s rises as rows are written and nothing "
        "ranges over it, so it is reversed (the HBase blog's "
        "Reverse(Pad(OrderID))): writes spread, lookups stay one key",
        p->aCol[pK->aiField[0]].zName);
  }
  for(i = 0; i < pK->nField && iDelim >= 0; i++){
    const Col *pCol = &p->aCol[pK->aiField[i]];
    if( affinityOf(pCol->zType) == 'I' && !pK->abDesc[i] ){
      sqlite3_str_appendf(pWhy, "; %s PAD %d: the largest value has %d "
          "digits, and padded numbers sort as numbers", pCol->zName,
          pCol->nDigit, pCol->nDigit);
    }
  }
  for(i = 0; i < pK->nField; i++){
    const Col *pCol = &p->aCol[pK->aiField[i]];
    if( pK->abDesc[i] ){
      sqlite3_str_appendf(pWhy, "; %s DESC: newest first in key order, read "
          "forwards (Lindorm: a reverse scan is slower than a forward one)%s",
          pCol->zName, iDelim >= 0 && affinityOf(pCol->zType) == 'I'
          ? ", stored as 9223372036854775807 minus the value in 19 digits, "
            "readable, where PAD n DESC would invert the digits' bytes" : "");
    }
  }
  if( pK->nRandom ){
    sqlite3_str_appendf(pWhy, "; RANDOM(%lld): no column tells apart the rows "
        "that share the fields (the guides' [userId][orderid][random(100)])",
        (long long)pK->nRandom);
  }
  if( pC->bServesTop && nIdx > 0 ){
    sqlite3_str_appendall(pWhy, "; the row key serves the heaviest read "
        "itself (the guides: key the table for the most frequent access, "
        "and an index table for the others)");
  }
  for(i = 0; i < nIdx; i++){
    sqlite3_str_appendf(pWhy, "; an INDEX serves statement %d, which the key "
        "cannot (the HBase blog's PaymentsByDate, eBay's User_By_Item)%s",
        aIdx[i].iStmt + 1, bCover && aIdx[i].nInclude ? ", covering: the "
        "columns it reads are INCLUDEd, so it never reads the row" : "");
    if( aIdx[i].bBucket ){
      sqlite3_str_appendf(pWhy, "; its key leads with BUCKET(%d, %s): %s "
          "rises as rows are written, so its entries would all be written "
          "to one region; the bucket spreads them over %d key ranges (what "
          "widecol_lint's hotspot rule asks), and a range over it reads %d",
          WC_ADVISE_BUCKETS, p->aCol[aIdx[i].aiField[0]].zName,
          p->aCol[aIdx[i].aiField[0]].zName, WC_ADVISE_BUCKETS,
          WC_ADVISE_BUCKETS);
    }
  }
  if( iDelim < 0 && !pK->nPart ){
    sqlite3_str_appendall(pWhy, "; ENCODING BINARY: a field holds negative "
        "or non-integer numbers, blobs, or every delimiter");
  }
  if( pK->nPart ) appendAcrossPartitions(pWhy, p, pK);
  pC->zWhy = sqlite3_str_finish(pWhy);
  if( pC->zWhy == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return;
  }
  if( refused(p, pC) ){
    candFree(pC);
    return;
  }
  p->nCand++;
}

/* INDEXes for the statements key pK does not serve, heaviest first. */
static int planIndexes(Advisor *p, const KeyPlan *pK, IndexPlan *aIdx){
  int nIdx = 0, i, j;
  int aiOrder[256];
  int nStmt = p->work.nStmt < 256 ? p->work.nStmt : 256;
  for(i = 0; i < nStmt; i++) aiOrder[i] = i;
  for(i = 1; i < nStmt; i++){
    for(j = i; j > 0 && p->work.aStmt[aiOrder[j]].rWeight
                        > p->work.aStmt[aiOrder[j - 1]].rWeight; j--){
      int t = aiOrder[j];
      aiOrder[j] = aiOrder[j - 1];
      aiOrder[j - 1] = t;
    }
  }
  for(i = 0; i < nStmt && nIdx < p->set.nMaxIndex; i++){
    const WcWorkStmt *pW = &p->work.aStmt[aiOrder[i]];
    IndexPlan *pI = &aIdx[nIdx];
    int k;
    if( pW->bWrite && pW->nEq == 0 && pW->iRange < 0 ) continue;
    if( serves(pK->aiField, pK->nField, pW, p) ) continue;
    memset(pI, 0, sizeof(*pI));
    pI->nField = statementFields(p, pW, pI->aiField, pI->abDesc);
    if( pI->nField == 0 ) continue;
    while( pI->nPart < pI->nField
           && hasCol(pW->aiEq, pW->nEq, pI->aiField[pI->nPart]) ){
      pI->nPart++;
    }
    /* Cassandra reads a range across partitions only with ALLOW
    ** FILTERING, from every node: such a statement needs a bucket column
    ** the application fills, which no design of the source's columns
    ** has (said in the design's why). */
    if( pK->nPart && pI->nPart == 0 ) continue;
    for(k = 0; k < nIdx; k++){
      if( serves(aIdx[k].aiField, aIdx[k].nField, pW, p) ) break;
    }
    if( k < nIdx ) continue;
    pI->iStmt = aiOrder[i];
    for(k = 0; k < p->nCol && pI->nInclude < 64; k++){
      if( pW->abRead[k] && !hasCol(pI->aiField, pI->nField, k)
       && !hasCol(pK->aiField, pK->nField, k) ){
        pI->aiInclude[pI->nInclude++] = k;
      }
    }
    nIdx++;
  }
  return nIdx;
}

/* The candidates for key pK: without INDEXes, with them, and with them
** covering. */
static void addWithIndexes(Advisor *p, const KeyPlan *pK){
  IndexPlan aIdx[8];
  int nIdx = planIndexes(p, pK, aIdx), i, nInclude = 0, nRising = 0;
  addCandidate(p, pK, 0, 0, 0);
  if( nIdx == 0 ) return;
  addCandidate(p, pK, aIdx, nIdx, 0);
  for(i = 0; i < nIdx; i++) nInclude += aIdx[i].nInclude;
  if( nInclude ) addCandidate(p, pK, aIdx, nIdx, 1);
  /* An index led by a rising field takes every new entry at its end: the
  ** same indexes with a bucket in front of those, measured too. */
  for(i = 0; i < nIdx && !pK->nPart; i++){
    if( p->aCol[aIdx[i].aiField[0]].bGrows ){
      aIdx[i].bBucket = 1;
      nRising++;
    }
  }
  if( nRising == 0 ) return;
  addCandidate(p, pK, aIdx, nIdx, 0);
  if( nInclude ) addCandidate(p, pK, aIdx, nIdx, 1);
}

/* True if some statement ranges over, or orders by, column iCol. */
static int rangedOver(const Advisor *p, int iCol){
  int i, j;
  for(i = 0; i < p->work.nStmt; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    if( pW->iRange == iCol ) return 1;
    for(j = 0; j < pW->nOrder; j++) if( pW->aiOrder[j] == iCol ) return 1;
  }
  return 0;
}

static void candidates(Advisor *p){
  int i;
  for(i = 0; i < p->work.nStmt && p->rc == SQLITE_OK; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    KeyPlan key;
    if( pW->bWrite && pW->nEq == 0 && pW->iRange < 0 ) continue;
    memset(&key, 0, sizeof(key));
    key.iStmt = i;
    key.nField = statementFields(p, pW, key.aiField, key.abDesc);
    if( key.nField == 0 ) continue;
    if( p->set.bCassandra && pW->nEq > 0 ){
      KeyPlan part = key;
      int k;
      for(k = 0; k < part.nField && hasCol(pW->aiEq, pW->nEq,
                                           part.aiField[k]); k++){}
      part.nPart = k;
      if( k > 0 && makeUnique(p, &part) ) addWithIndexes(p, &part);
    }
    if( !p->set.bHbase || !makeUnique(p, &key) ) continue;
    addWithIndexes(p, &key);
    if( key.nField >= 2 && !p->aCol[key.aiField[0]].bGrows
     && p->aCol[key.aiField[0]].rHotSkew >= WC_HOT_SKEW ){
      KeyPlan spread = key;
      spread.bSpread = 1;
      addWithIndexes(p, &spread);
    }
    if( memchr(key.abDesc, 1, (size_t)key.nField) ){
      /* The same key ascending, read backwards: measured against it. */
      KeyPlan asc = key;
      memset(asc.abDesc, 0, sizeof(asc.abDesc));
      addWithIndexes(p, &asc);
    }
    if( p->aCol[key.aiField[0]].bGrows ){
      KeyPlan front = key;
      front.eFront = FRONT_BUCKET;
      addWithIndexes(p, &front);
      if( affinityOf(p->aCol[key.aiField[0]].zType) == 'I'
       && p->aCol[key.aiField[0]].bNonNegInt && !key.abDesc[0]
       && !rangedOver(p, key.aiField[0]) ){
        front.eFront = FRONT_REVERSE;
        addWithIndexes(p, &front);
      }
    }
  }
  if( p->rc == SQLITE_OK && p->nCand == 0 && p->zRefused ){
    fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: every design "
        "made for %s was one the stores asked for refuse (%d); the first: %s",
        p->zSource, p->nRefused, p->zRefused));
  }else if( p->rc == SQLITE_OK && p->nCand == 0 ){
    fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: no statement "
        "of the workload constrains or orders %s by a column that every "
        "row has, so no key serves it; give the statements that read the "
        "table, with their WHERE clauses", p->zSource));
  }
}

/*
** Measuring.
*/

/* The DDL a user runs: CREATE VIRTUAL TABLE <source> USING widecol(...);
** with bSeq, the table measured, which also keeps the write order. */
static char *candidateDdl(Advisor *p, const Cand *pC, int bSeq){
  char *zDecl = columnDecls(p, bSeq ? ", " WC_ADVISE_SEQ " INTEGER" : 0);
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_str_appendall(pStr, "CREATE VIRTUAL TABLE ");
  if( bSeq ) sqlite3_str_appendf(pStr, "\"%w\"", p->zSource);
  else wcAppendName(pStr, p->zSource);
  sqlite3_str_appendf(pStr, " USING widecol(%s, %s%s%s)", zDecl ? zDecl : "",
                      pC->zKey, bSeq ? pC->zIndexSeq : pC->zIndex,
                      pC->zOptions);
  sqlite3_free(zDecl);
  return sqlite3_str_finish(pStr);
}

/* JSON string of z. */
static void appendJson(sqlite3_str *pStr, const char *z){
  sqlite3_str_appendchar(pStr, 1, '"');
  for(; z && *z; z++){
    if( *z == '"' || *z == '\\' ) sqlite3_str_appendf(pStr, "\\%c", *z);
    else if( (unsigned char)*z < 0x20 ) sqlite3_str_appendf(pStr, "\\u%04x", *z);
    else sqlite3_str_appendchar(pStr, 1, *z);
  }
  sqlite3_str_appendchar(pStr, 1, '"');
}

/* The plan SQLite chose for zSql on the candidate: EXPLAIN QUERY PLAN's
** lines, joined. */
static char *planOf(Advisor *p, const char *zSql){
  char *zExplain = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_stmt *pStmt = 0;
  if( zExplain
   && sqlite3_prepare_v2(p->pPriv, zExplain, -1, &pStmt, 0) == SQLITE_OK ){
    while( sqlite3_step(pStmt) == SQLITE_ROW ){
      sqlite3_str_appendf(pStr, "%s%s", sqlite3_str_length(pStr) ? "; " : "",
                          sqlite3_column_text(pStmt, 3));
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zExplain);
  return sqlite3_str_finish(pStr);
}

/* Seeks and rows read since the last reset, from widecol_stats(). */
static void readStats(Advisor *p, int bReset, int64_t *pnSeek,
                      int64_t *pnRow){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(p->pPriv, "SELECT json_extract(s, '$.seeks'), "
      "json_extract(s, '$.rows_read') FROM (SELECT widecol_stats(?1, ?2) AS s)",
      -1, &pStmt, 0);
  if( rc == SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, p->zSource, -1, SQLITE_STATIC);
    sqlite3_bind_int(pStmt, 2, bReset);
    if( sqlite3_step(pStmt) == SQLITE_ROW ){
      *pnSeek = sqlite3_column_int64(pStmt, 0);
      *pnRow = sqlite3_column_int64(pStmt, 1);
    }
    rc = sqlite3_finalize(pStmt);
  }
  if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
}

/* The hottest region's share of the last tenth of writes to the key
** zQuery reads in write order, and that share over an even one.  With
** bRing, zQuery reads partition keys, and the regions are the nodes of a
** Cassandra ring of `regions` nodes with 16 vnodes each (seed 1). */
static void keySkew(Advisor *p, const char *zQuery, int bRing,
                    double *prShare, double *prHot){
  sqlite3_stmt *pStmt = 0;
  int64_t nMax = bRing ? p->set.nRegion : p->nSample / p->set.nRegion;
  int rc = sqlite3_prepare_v2(p->pPriv, bRing
      ? "SELECT max(recent_writes) * 1.0 / total(recent_writes), "
        "max(recent_writes) * count(*) * 1.0 / total(recent_writes) "
        "FROM widecol_ring(?1, ?2, 16, 1)"
      : "SELECT max(recent_writes) * 1.0 / total(recent_writes), "
        "max(recent_writes) * count(*) * 1.0 / total(recent_writes) "
        "FROM widecol_regions(?1, ?2)", -1, &pStmt, 0);
  *prShare = 0.0;
  *prHot = 1.0;
  if( rc == SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, zQuery, -1, SQLITE_STATIC);
    sqlite3_bind_int64(pStmt, 2, nMax > 1 ? nMax : 2);
    if( sqlite3_step(pStmt) == SQLITE_ROW ){
      *prShare = sqlite3_column_double(pStmt, 0);
      *prHot = sqlite3_column_double(pStmt, 1);
    }
    rc = sqlite3_finalize(pStmt);
  }
  if( rc != SQLITE_OK ) fail(p, rc, p->pPriv, 0);
}

/* widecol_lint on the design as built, after the workload ran on it (the
** lint judges ranges by the statements it saw): its warnings and errors
** are counted and named in the design's why, so that the advisor never
** ranks first a design the lint would send back while a clean one was
** found. */
static void lintCandidate(Advisor *p, Cand *pC, double rHot){
  sqlite3_stmt *pStmt = 0;
  sqlite3_str *pRules = sqlite3_str_new(0);
  int nUnborne = 0;
  char *zSql = sqlite3_mprintf("SELECT rule, count(*) FROM widecol_lint(%Q) "
      "WHERE severity IN ('error', 'warning') GROUP BY rule ORDER BY rule",
      p->zSource);
  int rc = zSql ? sqlite3_prepare_v2(p->pPriv, zSql, -1, &pStmt, 0)
                : SQLITE_NOMEM;
  sqlite3_free(zSql);
  while( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    const char *zRule = (const char*)sqlite3_column_text(pStmt, 0);
    /* The lint judges "grows as written" from the values alone; the
    ** advisor replayed the writes in their order, and a hot spot it did
    ** not measure is not one. */
    if( zRule && ((strcmp(zRule, "hotspot") == 0 && !pC->bRisingLead)
                  || (strcmp(zRule, "hot-key") == 0 && rHot < WC_HOT_SKEW)) ){
      nUnborne++;
      continue;
    }
    sqlite3_str_appendf(pRules, "%s%s", pC->nLint ? ", " : "", zRule);
    pC->nLint += sqlite3_column_int(pStmt, 1);
  }
  if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  if( rc != SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(pRules));
    fail(p, rc, p->pPriv, 0);
    return;
  }
  zSql = pC->nLint ? sqlite3_mprintf("%s; widecol_lint warns on it (%s): "
                                     "ranked after the designs it passes",
                                     pC->zWhy, sqlite3_str_value(pRules))
                   : sqlite3_mprintf("%s; widecol_lint finds nothing to fix%s",
                                     pC->zWhy, nUnborne ? " but a hot spot "
                                     "the writes, replayed in their order, "
                                     "do not show" : "");
  sqlite3_free(sqlite3_str_finish(pRules));
  if( zSql == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return;
  }
  sqlite3_free(pC->zWhy);
  pC->zWhy = zSql;
}

/* The score past which a design cannot be among the rows returned: that
** of the nResult-th best of the first nDone designs the lint passed (a
** design it warns on ranks after them all), or infinity while fewer
** passed. */
static double lintBound(const Advisor *p, int nDone){
  double aBest[WC_ADVISE_MAX_CAND];
  int nBest = 0, i, j;
  for(i = 0; i < nDone; i++){
    const Cand *pC = &p->aCand[i];
    if( pC->bFailed || pC->bUnlinted || pC->nLint > 0 ) continue;
    for(j = nBest++; j > 0 && aBest[j - 1] > pC->rScore; j--){
      aBest[j] = aBest[j - 1];
    }
    aBest[j] = pC->rScore;
  }
  return nBest >= p->set.nResult ? aBest[p->set.nResult - 1] : HUGE_VAL;
}

/* Builds candidate pC on the sample and runs the workload on it; lints it
** unless its score is past rBound (below). */
static void measure(Advisor *p, Cand *pC, double rBound){
  sqlite3 *pPriv = p->pPriv;
  char *zDdl = candidateDdl(p, pC, 1), *zSql;
  sqlite3_str *pDetail = sqlite3_str_new(0);
  double rRead = 0.0, rWrite = 0.0, rReadWeight = 0.0, rAll = 0.0;
  double rRows = 0.0, rHot = 1.0, rShare, rKeyHot;
  int i, d, rc, bWrites = 0;
  zSql = sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\"", p->zSource);
  rc = zSql && zDdl ? sqlite3_exec(pPriv, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc == SQLITE_OK ) rc = sqlite3_exec(pPriv, zDdl, 0, 0, 0);
  sqlite3_free(zDdl);
  if( rc == SQLITE_OK ){
    zSql = sqlite3_mprintf("BEGIN; INSERT INTO \"%w\" SELECT *, rowid FROM "
                           WC_ADVISE_SAMPLE_T " ORDER BY rowid; COMMIT",
                           p->zSource);
    rc = zSql ? sqlite3_exec(pPriv, zSql, 0, 0, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
      /* A value the design cannot hold: the candidate is out. */
      pC->bFailed = 1;
      pC->zFailed = sqlite3_mprintf("%s", sqlite3_errmsg(pPriv));
      sqlite3_exec(pPriv, "ROLLBACK", 0, 0, 0);
      sqlite3_free(sqlite3_str_finish(pDetail));
      return;
    }
  }
  if( rc != SQLITE_OK ){
    fail(p, rc, pPriv, 0);
    sqlite3_free(sqlite3_str_finish(pDetail));
    return;
  }
  sqlite3_str_appendall(pDetail, "[");
  for(i = 0; i < p->work.nStmt && p->rc == SQLITE_OK; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    sqlite3_stmt *pStmt = 0;
    int64_t nSeek = 0, nRow = 0;
    double rRows1 = 0.0, rCost = 0.0;
    char *zPlan = 0;
    int bRuns = !pW->bWrite || pW->nEq > 0 || pW->iRange >= 0;
    rAll += pW->rWeight;
    if( bRuns ){
      zPlan = planOf(p, pW->zSql);
      readStats(p, 1, &nSeek, &nRow);
      if( pW->bWrite ) sqlite3_exec(pPriv, "SAVEPOINT widecol_advise", 0, 0, 0);
      rc = sqlite3_prepare_v2(pPriv, pW->zSql, -1, &pStmt, 0);
      for(d = 0; rc == SQLITE_OK && d < p->work.nDraw; d++){
        wcWorkloadBind(&p->work, i, d, pStmt);
        while( sqlite3_step(pStmt) == SQLITE_ROW ){}
        rc = sqlite3_reset(pStmt);
      }
      sqlite3_finalize(pStmt);
      if( pW->bWrite ){
        sqlite3_exec(pPriv, "ROLLBACK TO widecol_advise; "
                            "RELEASE widecol_advise", 0, 0, 0);
      }
      if( rc != SQLITE_OK ){
        fail(p, rc, 0, sqlite3_mprintf("widecol_advise: workload statement "
            "%d (%s) failed on the design %s: %s", i + 1, pW->zSql,
            pC->zKey, sqlite3_errmsg(pPriv)));
        sqlite3_free(zPlan);
        break;
      }
      readStats(p, 0, &nSeek, &nRow);
      /* An index entry that is not covering leads to a row: two reads. */
      rRows1 = (double)nRow / p->work.nDraw;
      if( zPlan && strstr(zPlan, ":INDEX ") && !strstr(zPlan, "COVERING") ){
        rRows1 *= 2.0;
      }
      rCost = rRows1 + (double)nSeek / p->work.nDraw;
      if( zPlan && strstr(zPlan, "ORDER BY key DESC") ) rCost *= 2.0;
    }
    if( pW->bWrite ){
      rWrite += pW->rWeight * rCost;
    }else{
      rRead += pW->rWeight * rCost;
      rRows += pW->rWeight * rRows1;
      rReadWeight += pW->rWeight;
    }
    sqlite3_str_appendf(pDetail, "%s{\"statement\":%d,\"weight\":%g,"
        "\"rows_read\":%.1f,\"seeks\":%.1f,\"plan\":", i ? "," : "", i + 1,
        pW->rWeight, rRows1, bRuns ? (double)nSeek / p->work.nDraw : 0.0);
    appendJson(pDetail, bRuns ? zPlan : "not run: an INSERT is judged by "
               "its keys' write skew and the tables it writes");
    sqlite3_str_appendall(pDetail, "}");
    sqlite3_free(zPlan);
  }
  sqlite3_str_appendall(pDetail, "]");
  pC->zDetail = sqlite3_str_finish(pDetail);
  if( pC->zDetail == 0 ) fail(p, SQLITE_NOMEM, 0, 0);
  if( p->rc != SQLITE_OK ) return;
  /* Skew over every key a write touches: the row key (in Cassandra's
  ** form, its partitions on the ring), each index's. */
  if( pC->nPart ){
    sqlite3_str *pStr = sqlite3_str_new(0);
    sqlite3_str_appendall(pStr, "SELECT ");
    for(i = 0; i < pC->nPart; i++){
      sqlite3_str_appendf(pStr, "%s\"%w\"", i ? ", " : "",
                          p->aCol[pC->aiPart[i]].zName);
    }
    sqlite3_str_appendf(pStr, " FROM \"%w\" ORDER BY " WC_ADVISE_SEQ,
                        p->zSource);
    zSql = sqlite3_str_finish(pStr);
  }else{
    zSql = sqlite3_mprintf("SELECT rowkey FROM \"%w\" ORDER BY "
                           WC_ADVISE_SEQ, p->zSource);
  }
  if( zSql == 0 ){
    fail(p, SQLITE_NOMEM, 0, 0);
    return;
  }
  keySkew(p, zSql, pC->nPart > 0, &pC->rSkew, &rHot);
  sqlite3_free(zSql);
  {
    sqlite3_stmt *pStmt = 0;
    zSql = sqlite3_mprintf("SELECT name FROM sqlite_schema WHERE type = "
                           "'table' AND name GLOB '%q_idx_*'", p->zSource);
    rc = zSql ? sqlite3_prepare_v2(pPriv, zSql, -1, &pStmt, 0) : SQLITE_NOMEM;
    sqlite3_free(zSql);
    while( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW
           && p->rc == SQLITE_OK ){
      char *zQuery = sqlite3_mprintf("SELECT ikey FROM \"%w\" ORDER BY "
          WC_ADVISE_SEQ, (const char*)sqlite3_column_text(pStmt, 0));
      if( zQuery == 0 ){
        rc = SQLITE_NOMEM;
        break;
      }
      keySkew(p, zQuery, 0, &rShare, &rKeyHot);
      sqlite3_free(zQuery);
      if( rShare > pC->rSkew ) pC->rSkew = rShare;
      if( rKeyHot > rHot ) rHot = rKeyHot;
    }
    sqlite3_finalize(pStmt);
    if( rc != SQLITE_OK ) fail(p, rc, pPriv, 0);
  }
  zSql = sqlite3_mprintf("SELECT avg(length(rowkey)) FROM \"%w\"",
                         p->zSource);
  pC->rKeyMean = zSql ? privReal(p, zSql) : 0.0;
  sqlite3_free(zSql);
  pC->nKeyMax = privInt(p, "SELECT max(length(rowkey)) FROM \"%w\"",
                        p->zSource);
  /* The score: docs/design-tools.md, widecol_advise. */
  for(i = 0; i < p->work.nStmt; i++){
    const WcWorkStmt *pW = &p->work.aStmt[i];
    if( pW->bWrite ){
      rWrite += pW->rWeight * (1.0 + pC->nIndex) * rHot;
      bWrites = 1;
    }
  }
  pC->rReads = rReadWeight > 0.0 ? rRows / rReadWeight : 0.0;
  pC->rScore = (rRead + p->set.rWriteWeight * rWrite) / rAll
             + pC->rKeyMean / 100.0;
  /* A design that cannot reach the rows returned, its score past that of
  ** the last of them among the designs the lint passed so far, is not
  ** linted: the lint reads the whole sample again. */
  if( pC->rScore <= rBound * (1.0 + WC_ADVISE_TIE) ){
    lintCandidate(p, pC, rHot);
  }else{
    pC->bUnlinted = 1;
  }
  if( rHot > 1.5 && bWrites ){
    char *zWhy = sqlite3_mprintf("%s; measured: the hottest region takes "
        "%.0f%% of recent writes, %.1f times an even share", pC->zWhy,
        100.0 * pC->rSkew, rHot);
    if( zWhy ){
      sqlite3_free(pC->zWhy);
      pC->zWhy = zWhy;
    }
  }
}

/*
** The function.
*/

static int candCompare(const void *pA, const void *pB){
  const Cand *a = (const Cand*)pA, *b = (const Cand*)pB;
  if( a->bFailed != b->bFailed ) return a->bFailed - b->bFailed;
  if( (a->nLint > 0) != (b->nLint > 0) ) return (a->nLint > 0) - (b->nLint > 0);
  if( a->rScore < b->rScore ) return -1;
  if( a->rScore > b->rScore ) return 1;
  return 0;
}

/* Within a tie: the guides' rule first (key the table for the most
** frequent read, an INDEX for the rest), then fewer transforms, fewer
** INDEXes, the lower score. */
static int tieCompare(const void *pA, const void *pB){
  const Cand *a = (const Cand*)pA, *b = (const Cand*)pB;
  if( a->bServesTop != b->bServesTop ) return b->bServesTop - a->bServesTop;
  if( a->nTransform != b->nTransform ) return a->nTransform - b->nTransform;
  if( a->nIndex != b->nIndex ) return a->nIndex - b->nIndex;
  return candCompare(pA, pB);
}

/* Sorts the designs by score; scores within WC_ADVISE_TIE of the best of
** their group are a tie (the sample's figures are not that exact), broken
** by tieCompare(). */
static void rank(Advisor *p){
  int i = 0, j, k;
  qsort(p->aCand, (size_t)p->nCand, sizeof(Cand), candCompare);
  while( i < p->nCand && !p->aCand[i].bFailed ){
    double rLimit = p->aCand[i].rScore * (1.0 + WC_ADVISE_TIE);
    for(j = i + 1; j < p->nCand && !p->aCand[j].bFailed
                   && (p->aCand[j].nLint > 0) == (p->aCand[i].nLint > 0)
                   && p->aCand[j].rScore <= rLimit; j++){}
    qsort(&p->aCand[i], (size_t)(j - i), sizeof(Cand), tieCompare);
    for(k = i; k < j; k++){
      p->aCand[k].iTie = i;
      p->aCand[k].nTie = j - i;
    }
    i = j;
  }
}

static void adviserFree(Advisor *p){
  int i;
  for(i = 0; i < p->nCand; i++) candFree(&p->aCand[i]);
  sqlite3_free(p->zRefused);
  for(i = 0; p->aCol && i < p->nCol; i++){
    sqlite3_free(p->aCol[i].zName);
    sqlite3_free(p->aCol[i].zType);
  }
  sqlite3_free(p->aCol);
  sqlite3_free(p->azCol);
  wcWorkloadFree(&p->work);
  sqlite3_close(p->pPriv);
}

static int adviseFill(sqlite3 *db, sqlite3_value **apArg, WcTvfRows *pRows,
                      char **pzErr){
  Advisor adv;
  Advisor *p = &adv;
  const char *zWork = (const char*)sqlite3_value_text(apArg[1]);
  int i, nOut = 0, rc;
  int64_t iRank = 0;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->tStart = time(0);
  p->zSource = (const char*)sqlite3_value_text(apArg[0]);
  if( p->zSource == 0 || zWork == 0 ){
    *pzErr = sqlite3_mprintf("widecol_advise: give the source table and the "
        "workload query, as in widecol_advise('payments', 'SELECT sql, "
        "weight FROM workload')");
    return SQLITE_ERROR;
  }
  rc = wcTvfOpenWidecol(pRows, &p->pPriv);
  if( rc != SQLITE_OK ) return rc;
  readSettings(p, apArg[2]);
  if( p->rc == SQLITE_OK ) readSource(p);
  if( p->rc == SQLITE_OK ) profileColumns(p);
  if( p->rc == SQLITE_OK ) pinNow(p);
  if( p->rc == SQLITE_OK ){
    char *zDecl = columnDecls(p, 0);
    progress(p, "learning the workload");
    if( zDecl == 0 ){
      fail(p, SQLITE_NOMEM, 0, 0);
    }else{
      p->rc = wcWorkloadLoad(db, p->pPriv, p->zSource, zWork, p->nCol, zDecl,
                             &p->work, &p->zErr);
    }
    sqlite3_free(zDecl);
  }
  if( p->rc == SQLITE_OK ){
    p->rc = wcWorkloadDraw(p->pPriv, WC_ADVISE_SAMPLE_T, p->nSample,
                           p->azCol, &p->work, p->set.nDraw, 1, &p->zErr);
  }
  if( p->rc == SQLITE_OK ) candidates(p);
  for(i = 0; i < p->nCand && p->rc == SQLITE_OK; i++){
    progress(p, "design %d of %d: %s%s", i + 1, p->nCand, p->aCand[i].zKey,
             p->aCand[i].zIndex);
    measure(p, &p->aCand[i], lintBound(p, i));
  }
  if( p->rc == SQLITE_OK ){
    rank(p);
    for(i = 0; i < p->nCand && nOut < p->set.nResult && p->rc == SQLITE_OK;
        i++){
      Cand *pC = &p->aCand[i];
      if( pC->bFailed ) continue;
      nOut++;
      /* A tie shares the rank of its first design: the scores are within
      ** WC_ADVISE_TIE of each other, and the order inside it the guides'. */
      if( pC->iTie == i ) iRank = nOut;
      rc = wcTvfAddRow(pRows, "imrrrrimt", iRank,
                       candidateDdl(p, pC, 0), pC->rScore, pC->rReads,
                       pC->rSkew, pC->rKeyMean, pC->nKeyMax,
                       pC->nTie > 1 ? sqlite3_mprintf("%s; a tie of %d designs "
                           "(scores within %g%% of the best of them, rank "
                           "%lld): the guides' rule orders them (the key "
                           "serving the heaviest read, fewer transforms, "
                           "fewer INDEXes)", pC->zWhy, pC->nTie,
                           WC_ADVISE_TIE * 100, (long long)iRank)
                       : sqlite3_mprintf("%s", pC->zWhy), pC->zDetail);
      if( rc != SQLITE_OK ) fail(p, rc, 0, 0);
    }
    if( p->rc == SQLITE_OK && nOut == 0 ){
      fail(p, SQLITE_ERROR, 0, sqlite3_mprintf("widecol_advise: no design "
          "could hold the sample's rows (%s)", p->nCand
          ? p->aCand[0].zFailed : "none was made"));
    }
    progress(p, "done: %d designs tried", p->nCand);
  }
  rc = p->rc;
  if( rc != SQLITE_OK ){
    *pzErr = p->zErr;
    p->zErr = 0;
  }
  adviserFree(p);
  return rc;
}

const WcTvfDef wcAdviseDef = {
  "widecol_advise",
  "rank INTEGER, ddl TEXT, score REAL, reads REAL, write_skew REAL, "
  "key_bytes REAL, key_bytes_max INTEGER, why TEXT, detail TEXT",
  "source, workload, settings", 2,
  "give the source table and a query of the workload's (sql, weight) "
  "rows, as in SELECT * FROM widecol_advise('payments', 'SELECT sql, "
  "weight FROM workload')",
  adviseFill
};
