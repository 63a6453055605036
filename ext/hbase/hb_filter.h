/*
** hb_filter.h: the cell store's read filters (bt_wire.proto's Filter,
** shaped after Bigtable's RowFilter) applied to a row's cells in C, for
** the HBase transport (hb_rpc.c).  HBase's Thrift2 gateway narrows a scan
** by families, columns and versions (hbFilterColumns()); what the filter
** asks beyond that (value ranges, per-row and per-column limits, a
** column's group of cells) is applied here, to each row as it arrives, so
** that HBase answers a read exactly as Bigtable would.
*/
#ifndef WIDECOL_HB_FILTER_H
#define WIDECOL_HB_FILTER_H

#include <stdint.h>
#include "bt_wire.pb-c.h"

/* A cell of a row being read; the bytes belong to the reply it came in. */
typedef struct HbCell HbCell;
struct HbCell {
  const unsigned char *aFamily;
  int64_t nFamily;
  const unsigned char *aQual;
  int64_t nQual;
  int64_t iMicros;
  const unsigned char *aValue;
  int64_t nValue;
};

/* Sorts aCell[0..n) as a row's cells are ordered: by family, qualifier,
** newest first. */
void hbCellSort(HbCell *aCell, int n);

/* Applies pFilter (NULL: every cell) to aCell[0..n), sorted, in place:
** returns how many cells remain, in order.  -1 if out of memory; -2 if
** the filter has a kind this file does not know (an internal error). */
int hbFilterApply(const Wcbt__Filter *pFilter, HbCell *aCell, int n);

/*
** What a scan may ask HBase for and still see every cell pFilter keeps:
** the columns it names (a family with an empty set of qualifiers: the
** whole family), and whether only each column's newest cell is kept.
*/
typedef struct HbColumns HbColumns;
struct HbColumns {
  int bAll;             /* Every column (then nColumn is 0) */
  int nColumn;
  const char **azFamily;    /* Per column: family, */
  const unsigned char **aaQual;   /* qualifier (NULL: the whole family) */
  int64_t *anQual;
  int nVersions;        /* Versions per column needed; 0: all */
  int bKeysOnly;        /* Only the first cell of a row, values stripped */
};
/* Fills *pOut for pFilter; 0, or -1 if out of memory.  hbColumnsFree()
** frees what it holds. */
int hbFilterColumns(const Wcbt__Filter *pFilter, HbColumns *pOut);
void hbColumnsFree(HbColumns *p);

#endif /* WIDECOL_HB_FILTER_H */
