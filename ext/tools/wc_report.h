/*
** wc_report.h: widecol_report(), a design's report as one self-contained
** HTML page.  wc_report.c gathers the figures (the table read once in key
** order and once in write order, the workload replayed under a watch,
** and the public tools called through SQL); wc_report_page.c writes the
** page from them.  A Report owns everything in it.
*/
#ifndef WIDECOL_WC_REPORT_H
#define WIDECOL_WC_REPORT_H

#include "util/wc_api.h"
#include "util/wc_buf.h"
#include "vtab/wc_table.h"
#include "tools/wc_workload.h"
#include "tools/wc_tools.h"

#define WC_REPORT_BUCKETS     100    /* Key buckets, by default */
#define WC_REPORT_DRAWS       5      /* Runs of a statement with parameters,
                                     ** a draw of values each */
#define WC_REPORT_MAX_BUCKETS 1000
#define WC_REPORT_COLUMNS     60     /* Time columns of the heatmap */
#define WC_REPORT_SAMPLE_ROWS 5      /* Rows shown in stored order */
#define WC_REPORT_HIST        32     /* Histogram bins: powers of two */
#define WC_REPORT_MAX_DESIGNS 8      /* The table and those compared */

/* Sizes in powers of two: bin i holds values in [2^i, 2^(i+1)), bin 0
** also 0 and 1. */
typedef struct ReportHist ReportHist;
struct ReportHist {
  int64_t aBin[WC_REPORT_HIST];
  int64_t nMax;         /* The largest value */
  int64_t nCount;
};

/* A row of a tool's result, its columns as text (NULL kept as NULL). */
typedef struct ReportRows ReportRows;
struct ReportRows {
  char *zSql;           /* The call, as a user would write it */
  int nCol;
  int nRow;
  char **azCell;        /* nRow * nCol, each from sqlite3_mprintf() */
};

/* A workload statement as it ran on one design. */
typedef struct ReportStmt ReportStmt;
struct ReportStmt {
  char *zSql;           /* As run: the workload's, the table renamed */
  double rWeight;
  char *zSkipped;       /* Why it was not replayed, or NULL */
  int64_t nSeek, nRead, nOut;   /* widecol_stats() after it ran alone */
  int64_t nResult;      /* Rows the statement returned */
  char *zStats;         /* widecol_stats()'s JSON */
  char *zPlan;          /* EXPLAIN QUERY PLAN, its lines */
  int iFirst, iLast;    /* Buckets its rows read fall in, -1 if none */
  int nTouched;         /* Buckets it read rows in */
  int nDraw;            /* Runs: one per draw of its parameters */
  int64_t nReadMin, nReadMax;   /* Rows read by the least and most of them */
  char *zFlag;          /* Why a statement that reads more rows than it
                        ** returns is flagged, with the lint's finding and
                        ** fix where it has one; or NULL */
};

/* One design: a widecol table and what was found on it. */
typedef struct ReportDesign ReportDesign;
struct ReportDesign {
  char *zName;          /* As given */
  WcVtab *pTab;
  const WcSchema *pS;
  char *zCreate;        /* Its CREATE VIRTUAL TABLE, from the schema */
  const char *zStore;   /* "this database", "Bigtable", ... */
  int bCassandra;       /* Cassandra's form: a leading TOKEN */
  /* The keys, in key order: key i is aKey[aiKey[i] .. aiKey[i + 1]) */
  WcBuf keys;
  int64_t *aiKey;
  int64_t nRow;         /* Row keys (latest versions) */
  int64_t nWrite;       /* Writes: rows, or under VERSIONS every version */
  int64_t *aRowBytes;   /* Running sum: bytes of rows 0..i-1 */
  char **azSample;      /* WC_REPORT_SAMPLE_ROWS rows, nCol values each,
                        ** as SQL literals, for the anatomy */
  int nSample;
  /* The heatmap: nBucket buckets of equal row counts, bucket b from row
  ** aiBucket[b]; nColumn time columns */
  int nBucket;
  int64_t *aiBucket;    /* nBucket + 1 */
  int nColumn;
  double *aCell;        /* nBucket * nColumn writes, bucket-major */
  double *aWrite;       /* Per bucket: writes, */
  double *aRead;        /* statements that read a row in it, */
  double *aScan;        /* rows read in it */
  double *aRecent;      /* the writes of the last time column, */
  double *aMeasured;    /* the writes the engine counted on the region
                        ** holding the bucket's first row (NULL where the
                        ** engine tells none): widecol_regions('<table>') */
  char *zMeasured;      /* That call, as a user would write it */
  int64_t nRecent;
  char *zOrder;         /* What orders the writes: SQL over the columns,
                        ** or NULL for none */
  char *zOrderWhy;      /* How it was chosen, for the page */
  int bRowtime;         /* Columns are spans of rowtime, not write order */
  int64_t iLatest;      /* The latest write's time in microseconds, or 0:
                        ** widecol_now() while the workload runs on it */
  char **azColumnLabel; /* nColumn: the first write's order value */
  /* Sizes */
  ReportHist keyBytes, rowBytes, partRows, partBytes;
  int64_t nPartition;
  char *zBigPartition;  /* The largest partition's key, as text */
  int64_t nBigPartRows, nBigPartBytes;
  /* The tools' results */
  ReportRows regions, ring, lint;
  int64_t nRegionMax;   /* Rows at which a simulated region splits */
  struct WcRegionSim *pRegionSim;  /* The keys in write order, replayed */
  int64_t *aRegionBytes;  /* Per region of regions: row bytes */
  int nStmt;
  ReportStmt *aStmt;
  int nWarn;
  char **azWarn;        /* Warnings over the map */
};

typedef struct Report Report;
struct Report {
  sqlite3 *db;
  const WcReportHost *pHost;  /* Registers widecol on a connection of the
                        ** report's own (its parameters' learner, the
                        ** advisor's designs) */
  int nDesign;
  ReportDesign aDesign[WC_REPORT_MAX_DESIGNS];
  char *zWorkload;      /* The workload query, or NULL */
  /* Values for the statements' parameters, drawn from the first design's
  ** rows by widecol_advise's learner (wc_workload.h), the same for every
  ** design; learnt when a statement first needs them */
  WcWorkload work;
  int eParams;          /* 0 not learnt yet, 1 learnt, -1 failed: */
  char *zParamsWhy;     /* why */
  int nBucketWanted;
  int nRegionRows;      /* Options: rows a simulated region splits at, */
  int nNodes;           /* nodes of the simulated ring, */
  char *zOrderOpt;      /* and what orders writes, or 0/NULL for the
                        ** defaults */
  int nAdvise;          /* The advisor's top designs to show, or 0 */
  int rc;
  char *zErr;
};

/* Writes the page for a gathered report into pOut (wc_report_page.c). */
void wcReportPage(const Report *p, sqlite3_str *pOut);

#endif /* WIDECOL_WC_REPORT_H */
