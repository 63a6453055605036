/*
** wc_tvf.h: table-valued functions that compute all their rows at once.
**
** widecol_check(), widecol_lint(), widecol_regions() and widecol_ring()
** each take a few arguments, do their work in xFilter and return a short
** list of rows.
** wc_tvf.c is their one eponymous virtual-table module: it declares the
** result columns plus one HIDDEN column per argument, hands the
** arguments to a fill function and serves the rows that function added.
** Each is SQLITE_DIRECTONLY: they read whole tables or run SQL text.
*/
#ifndef WIDECOL_WC_TVF_H
#define WIDECOL_WC_TVF_H

#include "util/wc_api.h"

typedef struct WcTvfRows WcTvfRows;

/* Computes the rows for arguments apArg[0..nArg) (NULL where an optional
** argument was not given) by calling wcTvfAddRow().  Returns SQLITE_OK,
** or an error code with *pzErr set to a message from sqlite3_mprintf()
** (NULL for SQLITE_NOMEM). */
typedef int (*WcTvfFill)(sqlite3 *db, sqlite3_value **apArg,
                         WcTvfRows *pRows, char **pzErr);

typedef struct WcTvfDef WcTvfDef;
struct WcTvfDef {
  const char *zName;        /* Function name */
  const char *zColumns;     /* Result columns, "a TEXT, b INTEGER" */
  const char *zArgs;        /* Argument names, "tbl" or "sql, max_rows" */
  int nRequired;            /* Leading arguments that must be given */
  const char *zMissing;     /* The error when one of them is missing:
                            ** what to give, with an example */
  WcTvfFill xFill;
};

/* Adds a row.  zFormat has one letter per result column, each taking
** its arguments: 't' const char* (copied; NULL is SQL NULL), 'm' char*
** from sqlite3_mprintf() (owned from now on, even on error), 'b' const
** void* and int64_t length (copied; NULL is SQL NULL), 'x' the same as
** TEXT, 'i' int64_t, 'I' int64_t where a negative one is NULL (not
** known), 'r' double, 'n' nothing (NULL).  Returns SQLITE_OK or SQLITE_NOMEM. */
int wcTvfAddRow(WcTvfRows *pRows, const char *zFormat, ...);

/* Prepares zSql, the query a function runs (its first argument): one
** statement that only reads and returns at least a column, or an error
** "<zFunc>: the query does not prepare: ..." or "<zFunc>: the first
** argument must be one query that only reads and returns <zWhat>; got
** ..." in *pzErr. */
int wcTvfPrepareQuery(sqlite3 *db, const char *zFunc, const char *zSql,
                      const char *zWhat, sqlite3_stmt **ppStmt, char **pzErr);

/* Opens a connection of the tool's own, in memory, with widecol
** registered on it (widecol_advise builds designs there).  SQLITE_OK with
** *ppDb set, or an error code (*ppDb NULL). */
int wcTvfOpenWidecol(WcTvfRows *pRows, sqlite3 **ppDb);

/* The entry point that registers widecol on a connection. */
typedef int (*WcTvfRegister)(sqlite3*, char**, const sqlite3_api_routines*);

/* The module's client data, one per function: its WcTvfDef, and the
** extension's entry point for wcTvfOpenWidecol(), handed down by widecol.c
** so that no tool calls the layer above it. */
typedef struct WcTvfHost WcTvfHost;
struct WcTvfHost {
  const WcTvfDef *pDef;
  WcTvfRegister xRegister;
};

/* The module: registered once per function, a WcTvfHost as client data
** (widecol.c). */
extern const sqlite3_module wcTvfModule;

/* The functions: wc_check.c, wc_lint.c, wc_regions.c, wc_ring.c,
** wc_advise.c. */
extern const WcTvfDef wcCheckDef;
extern const WcTvfDef wcLintDef;
extern const WcTvfDef wcRegionsDef;
extern const WcTvfDef wcRingDef;
extern const WcTvfDef wcAdviseDef;

#endif /* WIDECOL_WC_TVF_H */
