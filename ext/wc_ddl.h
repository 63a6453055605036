/*
** wc_ddl.h: widecol_ddl('<table>', 'hbase' | 'bigtable' [, regions]), the
** HBase shell or cbt commands that make a design's tables (wc_ddl.c).
*/
#ifndef WIDECOL_WC_DDL_H
#define WIDECOL_WC_DDL_H

#include "wc_api.h"
#include "wc_schema.h"
#include "wc_buf.h"

void wcDdlFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

/* A design's split points, in byte order: the SPLITS option's, else each
** value of a leading SALT or BUCKET (at most WC_MAX_SPLITS, evenly spaced
** over larger domains), else none.  For widecol_ddl() and for Bigtable's
** CreateTable (wc_store.c).  SQLITE_OK or SQLITE_NOMEM; free with
** wcSplitsFree(). */
#define WC_MAX_SPLITS 100
typedef struct WcSplits WcSplits;
struct WcSplits {
  WcBuf *a;
  int n;
};
int wcDesignSplits(const WcSchema *pS, WcSplits *pOut);
void wcSplitsFree(WcSplits *p);

#endif /* WIDECOL_WC_DDL_H */
