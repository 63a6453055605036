/*
** wc_splits.h: a design's split points, in byte order: the SPLITS
** option's, else each value of a leading SALT or BUCKET (at most
** WC_MAX_SPLITS, evenly spaced over larger domains), or WC_MAX_SPLITS
** even parts of a leading TOKEN's token space, else none.  Used by
** widecol_ddl() (wc_ddl.c) and by the store layer (Bigtable's CreateTable,
** wc_store.c): it depends on the key codec only.  Results are SQLITE_OK or
** SQLITE_NOMEM; a WcSplits is freed with wcSplitsFree().
*/
#ifndef WIDECOL_WC_SPLITS_H
#define WIDECOL_WC_SPLITS_H

#include "key/wc_schema.h"
#include "key/wc_codec.h"
#include "util/wc_buf.h"

#define WC_MAX_SPLITS 100
typedef struct WcSplits WcSplits;
struct WcSplits {
  WcBuf *a;             /* Owned: each split key */
  int n;
};
int wcDesignSplits(const WcSchema *pS, WcSplits *pOut);
/* Appends key a[0..n) to p. */
int wcSplitsAdd(WcSplits *p, const unsigned char *a, int64_t n);
void wcSplitsFree(WcSplits *p);

#endif /* WIDECOL_WC_SPLITS_H */
