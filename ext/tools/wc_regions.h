/*
** wc_regions.h: the replay behind widecol_regions() (wc_regions.c), for a
** tool that holds the keys in write order already (widecol_report): the
** regions come from the same code as the SQL function's, without running
** its query again.
*/
#ifndef WIDECOL_WC_REGIONS_H
#define WIDECOL_WC_REGIONS_H

#include "util/wc_api.h"
#include <stdint.h>

/* A final region, as widecol_regions() returns it: its number (1, 2, ...
** in key order), its first key (NULL aLo for the first region) and the
** next region's (NULL aHi for the last), its rows, and of the last writes
** counted how many fell in it and their share against an even one. */
typedef struct WcRegion WcRegion;
struct WcRegion {
  int iRegion;
  const void *aLo;
  sqlite3_int64 nLo;
  int bLoBlob;
  const void *aHi;
  sqlite3_int64 nHi;
  int bHiBlob;
  sqlite3_int64 nRows;
  sqlite3_int64 nRecent;
  double rSkew;
  int bSkew;            /* Writes were counted: rSkew is not NULL */
};
typedef int (*WcRegionFn)(void *pArg, const WcRegion *pRegion);

typedef struct WcRegionSim WcRegionSim;

/* A replay in which a region splits at nMaxRows rows (HBase's middle
** key), as widecol_regions(query, max_rows).  NULL on OOM. */
WcRegionSim *wcRegionSimNew(sqlite3_int64 nMaxRows);
/* The keys, as ranks: the distinct keys in byte order are
** aBytes[aiKey[i] .. aiKey[i + 1]) for i in [0, nKey), BLOBs, kept by the
** caller until wcRegionSimFree; then each write is given by its key's
** rank, in write order, with wcRegionSimAddRank(): the caller has the
** keys sorted already, so the replay does not sort them again.  SQLITE_OK
** or SQLITE_NOMEM. */
int wcRegionSimSorted(WcRegionSim *p, const unsigned char *aBytes,
                      const int64_t *aiKey, int nKey);
int wcRegionSimAddRank(WcRegionSim *p, int iRank);

/* Replays the writes and hands each final region to xRegion (the keys it
** points to live until wcRegionSimFree), counting the last nRecent writes
** (-1: a tenth, or all of fewer than 10).  SQLITE_OK, SQLITE_NOMEM, or
** what xRegion returned. */
int wcRegionSimRun(WcRegionSim *p, int nRecent, WcRegionFn xRegion,
                   void *pArg);
void wcRegionSimFree(WcRegionSim *p);

#endif /* WIDECOL_WC_REGIONS_H */
