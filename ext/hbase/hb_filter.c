/*
** hb_filter.c: read filters applied to a row's cells (see hb_filter.h),
** with Bigtable's RowFilter meanings: a chain applies each filter to the
** last one's output, an interleave takes the union of its filters'
** outputs (ordered as a row's cells are, each cell once); a column range keeps one
** family's qualifiers between its bounds; a value range, a time range,
** per-row and per-column limits and strip_value act on cells as named.
*/
#include "hbase/hb_filter.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

static int cmpBytes(const unsigned char *a, int64_t nA,
                    const unsigned char *b, int64_t nB){
  int64_t n = nA < nB ? nA : nB;
  int c = n > 0 ? memcmp(a, b, (size_t)n) : 0;
  if( c ) return c;
  return nA < nB ? -1 : nA > nB;
}

static int cmpColumn(const HbCell *a, const HbCell *b){
  int c = cmpBytes(a->aFamily, a->nFamily, b->aFamily, b->nFamily);
  return c ? c : cmpBytes(a->aQual, a->nQual, b->aQual, b->nQual);
}

static int cmpCell(const void *pA, const void *pB){
  const HbCell *a = pA, *b = pB;
  int c = cmpColumn(a, b);
  if( c ) return c;
  return a->iMicros > b->iMicros ? -1 : a->iMicros < b->iMicros;
}

void hbCellSort(HbCell *aCell, int n){
  if( n > 1 ) qsort(aCell, (size_t)n, sizeof(HbCell), cmpCell);
}

static int inColumnRange(const Wcbt__ColumnRange *pR, const HbCell *p){
  size_t nFam = strlen(pR->family);
  if( cmpBytes((const unsigned char*)pR->family, (int64_t)nFam,
               p->aFamily, p->nFamily) != 0 ){
    return 0;
  }
  if( pR->start_case == WCBT__COLUMN_RANGE__START_START_CLOSED
   && cmpBytes(p->aQual, p->nQual, pR->start_closed.data,
               (int64_t)pR->start_closed.len) < 0 ){
    return 0;
  }
  if( pR->end_case == WCBT__COLUMN_RANGE__END_END_CLOSED
   && cmpBytes(p->aQual, p->nQual, pR->end_closed.data,
               (int64_t)pR->end_closed.len) > 0 ){
    return 0;
  }
  return 1;
}

static int inValueRange(const Wcbt__ValueRange *pR, const HbCell *p){
  if( pR->start_case == WCBT__VALUE_RANGE__START_START_CLOSED
   && cmpBytes(p->aValue, p->nValue, pR->start_closed.data,
               (int64_t)pR->start_closed.len) < 0 ){
    return 0;
  }
  if( pR->end_case == WCBT__VALUE_RANGE__END_END_CLOSED
   && cmpBytes(p->aValue, p->nValue, pR->end_closed.data,
               (int64_t)pR->end_closed.len) > 0 ){
    return 0;
  }
  if( pR->end_case == WCBT__VALUE_RANGE__END_END_OPEN
   && cmpBytes(p->aValue, p->nValue, pR->end_open.data,
               (int64_t)pR->end_open.len) >= 0 ){
    return 0;
  }
  return 1;
}

static int inTimeRange(const Wcbt__TimeRange *pR, const HbCell *p){
  return p->iMicros >= pR->start_micros
      && (pR->end_micros == 0 || p->iMicros < pR->end_micros);
}

/* The union of each filter's output, ordered as a row's cells are. */
static int interleave(const Wcbt__Filter__List *pList, HbCell *aCell, int n){
  HbCell *aIn, *aOut;
  int nOut = 0, r;
  size_t i;
  if( n == 0 ) return 0;
  aIn = sqlite3_malloc64(sizeof(HbCell) * (size_t)n);
  aOut = sqlite3_malloc64(sizeof(HbCell) * (size_t)n
                          * (pList->n_filters ? pList->n_filters : 1));
  if( aIn == 0 || aOut == 0 ){
    sqlite3_free(aIn);
    sqlite3_free(aOut);
    return -1;
  }
  for(i = 0; i < pList->n_filters; i++){
    memcpy(aIn, aCell, sizeof(HbCell) * (size_t)n);
    r = hbFilterApply(pList->filters[i], aIn, n);
    if( r < 0 ){
      nOut = r;
      break;
    }
    memcpy(&aOut[nOut], aIn, sizeof(HbCell) * (size_t)r);
    nOut += r;
  }
  sqlite3_free(aIn);
  if( nOut > 0 ){
    /* A cell two branches keep is kept once (Bigtable would give it
    ** twice; a read's branches name disjoint columns, so none is), so the
    ** union fits where the row's cells were. */
    int j, nKept = 0;
    hbCellSort(aOut, nOut);
    for(j = 0; j < nOut; j++){
      if( nKept > 0 && aOut[j].aQual == aOut[nKept - 1].aQual
       && aOut[j].aFamily == aOut[nKept - 1].aFamily
       && aOut[j].iMicros == aOut[nKept - 1].iMicros
       && aOut[j].aValue == aOut[nKept - 1].aValue ){
        continue;
      }
      aOut[nKept++] = aOut[j];
    }
    nOut = nKept < n ? nKept : n;
    memcpy(aCell, aOut, sizeof(HbCell) * (size_t)nOut);
  }
  sqlite3_free(aOut);
  return nOut;
}

int hbFilterApply(const Wcbt__Filter *pF, HbCell *aCell, int n){
  int i, nOut = 0;
  if( pF == 0 ) return n;
  switch( pF->kind_case ){
    case WCBT__FILTER__KIND_CHAIN: {
      size_t k;
      for(k = 0; k < pF->chain->n_filters && n > 0; k++){
        n = hbFilterApply(pF->chain->filters[k], aCell, n);
        if( n < 0 ) return n;
      }
      return n;
    }
    case WCBT__FILTER__KIND_INTERLEAVE:
      return interleave(pF->interleave, aCell, n);
    case WCBT__FILTER__KIND_COLUMN_RANGE:
      for(i = 0; i < n; i++){
        if( inColumnRange(pF->column_range, &aCell[i]) ) aCell[nOut++] = aCell[i];
      }
      return nOut;
    case WCBT__FILTER__KIND_TIME_RANGE:
      for(i = 0; i < n; i++){
        if( inTimeRange(pF->time_range, &aCell[i]) ) aCell[nOut++] = aCell[i];
      }
      return nOut;
    case WCBT__FILTER__KIND_VALUE_RANGE:
      for(i = 0; i < n; i++){
        if( inValueRange(pF->value_range, &aCell[i]) ) aCell[nOut++] = aCell[i];
      }
      return nOut;
    case WCBT__FILTER__KIND_CELLS_PER_ROW_LIMIT:
      return n < pF->cells_per_row_limit ? n : pF->cells_per_row_limit;
    case WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT: {
      int nSame = 0;
      for(i = 0; i < n; i++){
        nSame = (i > 0 && cmpColumn(&aCell[i], &aCell[i - 1]) == 0)
              ? nSame + 1 : 1;
        if( nSame <= pF->cells_per_column_limit ) aCell[nOut++] = aCell[i];
      }
      return nOut;
    }
    case WCBT__FILTER__KIND_STRIP_VALUE:
      if( pF->strip_value ){
        for(i = 0; i < n; i++) aCell[i].nValue = 0;
      }
      return n;
    case WCBT__FILTER__KIND_PASS_ALL:
      return pF->pass_all ? n : 0;
    case WCBT__FILTER__KIND_BLOCK_ALL:
      return pF->block_all ? 0 : n;
    default:
      return -2;
  }
}

/* ---- What a scan may ask for ---- */

static int addColumn(HbColumns *p, const char *zFamily,
                     const unsigned char *aQual, int64_t nQual){
  int n = p->nColumn + 1;
  const char **azF = sqlite3_realloc64(p->azFamily, sizeof(char*) * (size_t)n);
  const unsigned char **aaQ;
  int64_t *anQ;
  if( azF == 0 ) return -1;
  p->azFamily = azF;
  aaQ = sqlite3_realloc64(p->aaQual, sizeof(unsigned char*) * (size_t)n);
  if( aaQ == 0 ) return -1;
  p->aaQual = aaQ;
  anQ = sqlite3_realloc64(p->anQual, sizeof(int64_t) * (size_t)n);
  if( anQ == 0 ) return -1;
  p->anQual = anQ;
  azF[p->nColumn] = zFamily;
  aaQ[p->nColumn] = aQual;
  anQ[p->nColumn] = nQual;
  p->nColumn = n;
  return 0;
}

/* The columns pF can keep, added to p (p->bAll if it can keep any). */
static int columnsOf(const Wcbt__Filter *pF, HbColumns *p){
  size_t k;
  if( pF == 0 ){
    p->bAll = 1;
    return 0;
  }
  switch( pF->kind_case ){
    case WCBT__FILTER__KIND_COLUMN_RANGE: {
      const Wcbt__ColumnRange *pR = pF->column_range;
      int bOne = pR->start_case == WCBT__COLUMN_RANGE__START_START_CLOSED
              && pR->end_case == WCBT__COLUMN_RANGE__END_END_CLOSED
              && pR->start_closed.len == pR->end_closed.len
              && (pR->start_closed.len == 0
                  || memcmp(pR->start_closed.data, pR->end_closed.data,
                            pR->start_closed.len) == 0);
      /* An exact column's qualifier is never NULL, even when empty. */
      return bOne ? addColumn(p, pR->family,
                              pR->start_closed.data ? pR->start_closed.data
                                  : (const unsigned char*)"",
                              (int64_t)pR->start_closed.len)
                  : addColumn(p, pR->family, 0, 0);
    }
    case WCBT__FILTER__KIND_CHAIN: {
      /* A chain keeps at most what its first column filter keeps. */
      for(k = 0; k < pF->chain->n_filters; k++){
        HbColumns one;
        int rc;
        memset(&one, 0, sizeof(one));
        rc = columnsOf(pF->chain->filters[k], &one);
        if( rc == 0 && !one.bAll ){
          int i;
          for(i = 0; rc == 0 && i < one.nColumn; i++){
            rc = addColumn(p, one.azFamily[i], one.aaQual[i], one.anQual[i]);
          }
          hbColumnsFree(&one);
          return rc;
        }
        hbColumnsFree(&one);
        if( rc ) return rc;
      }
      p->bAll = 1;
      return 0;
    }
    case WCBT__FILTER__KIND_INTERLEAVE:
      for(k = 0; k < pF->interleave->n_filters; k++){
        if( columnsOf(pF->interleave->filters[k], p) ) return -1;
      }
      return 0;
    case WCBT__FILTER__KIND_BLOCK_ALL:
      return 0;
    default:
      p->bAll = 1;
      return 0;
  }
}

/* Filters that keep or drop whole columns, whatever their cells' values
** and times: a per-column limit after them sees each column's cells as
** HBase's versions do. */
static int columnsOnly(const Wcbt__Filter *pF){
  size_t k;
  switch( pF->kind_case ){
    case WCBT__FILTER__KIND_COLUMN_RANGE:
    case WCBT__FILTER__KIND_PASS_ALL:
      return 1;
    case WCBT__FILTER__KIND_CHAIN:
      for(k = 0; k < pF->chain->n_filters; k++){
        if( !columnsOnly(pF->chain->filters[k]) ) return 0;
      }
      return 1;
    case WCBT__FILTER__KIND_INTERLEAVE:
      for(k = 0; k < pF->interleave->n_filters; k++){
        if( !columnsOnly(pF->interleave->filters[k]) ) return 0;
      }
      return 1;
    default:
      return 0;
  }
}

/* The versions per column pF needs, 0 for all: a top-level per-column
** limit after filters of columns alone, or in each branch of an
** interleave. */
static int versionsOf(const Wcbt__Filter *pF){
  size_t k;
  if( pF == 0 ) return 0;
  if( pF->kind_case == WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT ){
    return pF->cells_per_column_limit;
  }
  if( pF->kind_case == WCBT__FILTER__KIND_CHAIN ){
    for(k = 0; k < pF->chain->n_filters; k++){
      const Wcbt__Filter *pK = pF->chain->filters[k];
      if( pK->kind_case == WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT ){
        return pK->cells_per_column_limit;
      }
      if( pK->kind_case == WCBT__FILTER__KIND_INTERLEAVE ){
        int n = versionsOf(pK);
        if( n ) return n;
      }
      if( !columnsOnly(pK) ) return 0;
    }
    return 0;
  }
  if( pF->kind_case == WCBT__FILTER__KIND_INTERLEAVE ){
    int nMax = 0;
    for(k = 0; k < pF->interleave->n_filters; k++){
      int n = versionsOf(pF->interleave->filters[k]);
      if( n == 0 ) return 0;
      if( n > nMax ) nMax = n;
    }
    return nMax;
  }
  return 0;
}

/* A chain that starts with a one-cell-per-row limit and strips values:
** a probe of which keys exist. */
static int keysOnly(const Wcbt__Filter *pF){
  const Wcbt__Filter__List *pL;
  if( pF == 0 || pF->kind_case != WCBT__FILTER__KIND_CHAIN ) return 0;
  pL = pF->chain;
  return pL->n_filters == 2
      && pL->filters[0]->kind_case == WCBT__FILTER__KIND_CELLS_PER_ROW_LIMIT
      && pL->filters[0]->cells_per_row_limit == 1
      && pL->filters[1]->kind_case == WCBT__FILTER__KIND_STRIP_VALUE
      && pL->filters[1]->strip_value;
}

int hbFilterColumns(const Wcbt__Filter *pFilter, HbColumns *pOut){
  memset(pOut, 0, sizeof(*pOut));
  if( columnsOf(pFilter, pOut) ) return -1;
  if( pOut->bAll ){
    sqlite3_free(pOut->azFamily);
    sqlite3_free(pOut->aaQual);
    sqlite3_free(pOut->anQual);
    pOut->azFamily = 0;
    pOut->aaQual = 0;
    pOut->anQual = 0;
    pOut->nColumn = 0;
  }
  pOut->nVersions = versionsOf(pFilter);
  pOut->bKeysOnly = keysOnly(pFilter);
  return 0;
}

void hbColumnsFree(HbColumns *p){
  sqlite3_free(p->azFamily);
  sqlite3_free(p->aaQual);
  sqlite3_free(p->anQual);
  memset(p, 0, sizeof(*p));
}
