/*
** wc_workload.h: the workload widecol_advise() judges designs by, learned
** from SQLite itself (wc_workload.c).
**
** A workload is a query returning (sql, weight) rows over one source
** table.  Each statement is prepared and run once against a probe virtual
** table of the source's columns in the advisor's private connection; the
** probe records what SQLite asks of each column (its '=', its ranges, the
** ORDER BY, the columns read) and which parameter each constraint or
** written value came from.  Then every statement gets nDraw sets of
** parameter values drawn from the sample, the same for each design tried.
*/
#ifndef WIDECOL_WC_WORKLOAD_H
#define WIDECOL_WC_WORKLOAD_H

#include "util/wc_api.h"

#include <stdint.h>

/* What a parameter does, as the probe saw it. */
#define WC_WORK_NONE   0    /* Not compared with a column as it is */
#define WC_WORK_EQ     1    /* = IN IS */
#define WC_WORK_LO     2    /* > >= */
#define WC_WORK_HI     3    /* < <= */
#define WC_WORK_LIKE   4
#define WC_WORK_GLOB   5
#define WC_WORK_LIMIT  6
#define WC_WORK_OFFSET 7
#define WC_WORK_SET    8    /* a value written to the column */

typedef struct WcWorkStmt WcWorkStmt;
struct WcWorkStmt {
  char *zSql;
  double rWeight;
  int bWrite;           /* INSERT, UPDATE or DELETE */
  int nParam;
  int *aiParamCol;      /* Parameter ?k (index k - 1): its column or -1 */
  int *aeParamOp;       /* and its WC_WORK_* */
  /* Its shape, over the source's columns */
  int nEq;
  int *aiEq;            /* Fixed by '=' or IN, in the order SQLite lists */
  int iRange;           /* Ranged over (or LIKE), -1 if none */
  int nOrder;
  int *aiOrder;         /* ORDER BY columns */
  unsigned char *abDesc;
  unsigned char *abRead;  /* Per column: the statement reads it */
  /* Parameter values: nDraw sets of nParam (owned copies) */
  sqlite3_value **apDraw;
};

typedef struct WcWorkload WcWorkload;
struct WcWorkload {
  int nCol;
  int nStmt;
  WcWorkStmt *aStmt;
  int nDraw;
};

/* Reads the workload zQuery returns on db (rows of sql TEXT, weight
** REAL) and learns each statement on pPriv, where zSource must be a
** table of the source's columns that this call replaces with the probe
** (and drops again).  On error returns an SQLite code with *pzErr naming
** the statement and what to fix. */
int wcWorkloadLoad(sqlite3 *db, sqlite3 *pPriv, const char *zSource,
                   const char *zQuery, int nCol, const char *zColumns,
                   WcWorkload *p, char **pzErr);

/* Draws nDraw sets of parameter values per statement from zSample, a
** table on pPriv holding the sample with rowids 1..nSample, columns as
** the source's; iSeed makes them repeatable. */
int wcWorkloadDraw(sqlite3 *pPriv, const char *zSample, int64_t nSample,
                   const char *const *azCol, WcWorkload *p, int nDraw,
                   uint64_t iSeed, char **pzErr);

/* Binds draw iDraw of statement iStmt to pStmt. */
void wcWorkloadBind(const WcWorkload *p, int iStmt, int iDraw,
                    sqlite3_stmt *pStmt);

void wcWorkloadFree(WcWorkload *p);

#endif /* WIDECOL_WC_WORKLOAD_H */
