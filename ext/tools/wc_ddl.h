/*
** wc_ddl.h: widecol_ddl('<table>', 'hbase' | 'bigtable' [, regions]), the
** HBase shell or cbt commands that make a design's tables (wc_ddl.c).
*/
#ifndef WIDECOL_WC_DDL_H
#define WIDECOL_WC_DDL_H

#include "util/wc_api.h"

void wcDdlFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_DDL_H */
