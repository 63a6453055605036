/*
** wc_history.h: how statements on this connection used a widecol table,
** the evidence widecol_lint() judges a design by besides its data.
**
** Each connected table owns one WcHistory.  The planner, the cursors and
** the writer report to it through these calls and never look inside; the
** lint reads it back.  Nothing here is stored in the database.
*/
#ifndef WIDECOL_WC_HISTORY_H
#define WIDECOL_WC_HISTORY_H

#include "util/wc_api.h"
#include "key/wc_schema.h"

typedef struct WcHistory WcHistory;

WcHistory *wcHistoryNew(int nCol);
void wcHistoryFree(WcHistory *p);

/* A statement constrained the table (xBestIndex's view of it): records the
** columns it ranges over (<, <=, >, >=, BETWEEN, LIKE, GLOB) and, on a
** table in Cassandra's form, any rule of Cassandra's it breaks, and writes
** to aiOut those of them no key of pS (row key or INDEX) could read as key
** ranges given the statement's '=' terms.  Returns how many; aiOut has
** room for WC_HISTORY_MAX_COLS. */
#define WC_HISTORY_MAX_COLS 16
int wcHistoryQuery(WcHistory *p, const WcSchema *pS,
                   const sqlite3_index_info *pInfo, int *aiOut);

/* A scan that ranged over columns aiCol[0..nCol) without key ranges for
** them read nRead rows and returned nOut. */
void wcHistoryScan(WcHistory *p, const int *aiCol, int nCol,
                   int64_t nRead, int64_t nOut);

/* A write found its row key taken: it replaced the row there
** (bReplaced) or was refused or ignored. */
void wcHistoryKeyTaken(WcHistory *p, int bReplaced);

/* For the lint. */
int wcHistoryRanged(const WcHistory *p, int iCol);
/* Scans that ranged over iCol without a key range for it: how many, and
** the rows they read and returned; 0 if none. */
int64_t wcHistoryUnserved(const WcHistory *p, int iCol, int64_t *pnRead,
                          int64_t *pnOut);
/* Why statements' ranges over iCol had no key range: a key reached the
** column but its bytes are not in value order there (the plan's "FILTER
** ts (unpadded INTEGER)"), and/or no key reached it; 0 if neither. */
int wcHistoryUnservedWhy(const WcHistory *p, int iCol);
#define WC_UNSERVED_UNORDERED 1
#define WC_UNSERVED_MISPLACED 2
int64_t wcHistoryReplaced(const WcHistory *p);
int64_t wcHistoryRefused(const WcHistory *p);
/* On a table in Cassandra's form (a leading TOKEN), the distinct rules of
** Cassandra's that statements broke (what it refuses without ALLOW
** FILTERING, quoting its message), each with how many times it was seen
** (a statement is counted each time SQLite plans it). */
int wcHistoryCqlCount(const WcHistory *p);
const char *wcHistoryCql(const WcHistory *p, int i, int64_t *pnSeen);

#endif /* WIDECOL_WC_HISTORY_H */
