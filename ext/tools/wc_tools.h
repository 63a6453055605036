/*
** wc_tools.h: the design tools that are scalar SQL functions, for the
** registration table (widecol.c).  The table-valued ones are in wc_tvf.h.
*/
#ifndef WIDECOL_WC_TOOLS_H
#define WIDECOL_WC_TOOLS_H

#include "util/wc_api.h"

/* widecol_ddl('<table>', 'hbase' | 'bigtable' | 'cql' [, regions]): the
** HBase shell, cbt or CQL commands that make a design's tables
** (wc_ddl.c). */
void wcDdlFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
/* widecol_compact('<table>'): {"rows":R,"versions":V}, what it removed
** (wc_compact.c). */
void wcCompactFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* widecol_report('<table>' [, workload [, options]]): the design's
** report, one self-contained HTML page (wc_report.c).  Its user data is a
** WcReportHost: the extension's entry point, handed down by widecol.c so
** that the report can register widecol on a connection of its own (where
** it builds the advisor's designs) without calling the layer above. */
typedef struct WcReportHost WcReportHost;
struct WcReportHost {
  int (*xRegister)(sqlite3*, char**, const sqlite3_api_routines*);
};
void wcReportFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_TOOLS_H */
