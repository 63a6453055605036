/*
** hb_common.h: what HBase's two transports of the cell store share
** (hb_native.h: HBase's own RPC protocol; hb_gateway.h: its Thrift2
** gateway): the environment's names, the marker's qualifier, the times a
** delete takes, a family's rule as the hbase shell writes it.  hb_common.c
** holds them.
**
** Timestamps: HBase keeps milliseconds, the cell store microseconds in
** whole milliseconds (HBase's row of util/wc_kind.h).  Every family
** widecol makes has NEW_VERSION_BEHAVIOR: a delete hides the cells written
** before it and never the ones written after, whatever their timestamps
** (HBase's default lets a delete hide later puts with older timestamps
** until a major compaction), which is what Bigtable does.
**
** The row marker's qualifier.  The cell store's marker is "_:" (family
** "_", the empty qualifier); on HBase it is written "_:\x00" and read
** back as the empty qualifier.  HBase 2.6's NEW_VERSION_BEHAVIOR mistakes
** a column with the empty qualifier that follows a family's delete marker
** for the column before it: the marker of a deleted row would show
** through, and a delete of it fails scans with a NullPointerException
** (NewVersionBehaviorTracker.isEmpty).
*/
#ifndef WIDECOL_HB_COMMON_H
#define WIDECOL_HB_COMMON_H

#include "stores/cells/cs_transport.h"

/* The native transport's bootstrap nodes (masters or region servers,
** host:port[,host:port...]); the Thrift2 gateway (host:port); which of the
** two when both are set ("native", the default, or "thrift"); the
** deadline of a call. */
#define HB_NODES_ENV "WIDECOL_HBASE_NODES"
#define HB_ENV "WIDECOL_HBASE"
#define HB_TRANSPORT_ENV "WIDECOL_HBASE_TRANSPORT"
#define HB_TIMEOUT_ENV "WIDECOL_HBASE_TIMEOUT_MS"
#define HB_NAT_ENV "WIDECOL_HBASE_NAT"

/* Versions asked for when a read keeps them all. */
#define HB_ALL_VERSIONS 0x7fffffff
/* A family's TTL when it has none (Integer.MAX_VALUE seconds). */
#define HB_FOREVER 0x7fffffff
/* The latest time a delete names: HBase's LATEST_TIMESTAMP (Long.MAX_VALUE)
** means "now" to it, so one less. */
#define HB_LATEST ((int64_t)0x7ffffffffffffffeLL)

/* Why a row's mutations cannot be sent: a delete of a column's versions
** between two times, which HBase has no delete for. */
extern const char hbNoRangeDelete[];

/* The qualifier HBase keeps for column (zFamily, qual): the marker's is
** "\x00", any other its own. */
CsBytes hbQualOut(const char *zFamily, CsBytes qual);
/* True if qualifier q of family (zFamily, nFamily bytes) is the marker's
** as HBase keeps it: the cell store reads it as the empty qualifier. */
int hbQualIsMarker(const char *zFamily, size_t nFamily, const unsigned char *q,
                   size_t nQ);

/* Milliseconds of a cell store time. */
static inline int64_t hbMillis(int64_t iMicros){ return iMicros / 1000; }

/* The time a delete of every version takes in a row's mutations aM: the
** latest HBase keeps, or, where the mutations also put cells, the
** millisecond before the first of them.  HBase applies a row's mutations
** at once, and NEW_VERSION_BEHAVIOR lets a delete hide the cells written
** with it (the same sequence number) up to its time; the cell store
** means them applied in order, the puts after the delete. */
int64_t hbDeleteTime(const CsMutation *aM, int n);

/* How delete pM of a column's cells is said to HBase, given the time
** iAll a delete of every version takes: *piTs and whether it deletes the
** one version at *piTs (else every version up to it); 1 if HBase has no
** such delete (a range other than "before t" or "at t"). */
int hbCellsDelete(const CsMutation *pM, int64_t iAll, int64_t *piTs,
                  int *pbOne);

/* True if every mutation of aM[0..n) sets a cell (n > 0). */
int hbAllSets(const CsMutation *aM, int n);
/* The first mutation of aM that sets a cell, or NULL. */
const CsMutation *hbFirstSet(const CsMutation *aM, int n);

/* A family's rule as the hbase shell writes it, and whether it keeps
** every cell *pKeep keeps (NULL: not judged): HBase deletes a cell past
** either limit.  From sqlite3_mprintf(). */
char *hbFamilyRule(int64_t nVersions, int64_t nTtl, const CsTableSpec *pKeep,
                   int *pbKeeps);
/* *ppInfo of a table's nFamily families, each named by azName/anName with
** its VERSIONS and TTL: one allocation (CS_OK), or CS_INTERNAL. */
int hbTableInfo(int nFamily, const char *const *azName, const size_t *anName,
                const int64_t *anVersions, const int64_t *anTtl,
                const CsTableSpec *pKeep, CsTableInfo **ppInfo);

/* A range of a read, in the direction read: keys from lo to hi. */
typedef struct HbRange HbRange;
struct HbRange {
  CsBytes lo, hi;
  int bLo, bLoOpen;     /* a lower bound; excluded */
  int bHi, bHiOpen;     /* an upper bound; excluded */
};
/* A read's ranges (its keys among them as ranges of one key) in the order
** read (*pnRange of them; sqlite3_free()), or NULL on OOM. */
HbRange *hbReadRanges(const CsRead *pRead, int *pnRange);

/* What a user can do about a failed call's code, where both transports
** say the same ("" if nothing). */
const char *hbHint(int code);

/* How an hbase shell user keeps nVersions versions of family zFamily of
** table zId, and under a TTL none older than nTtl seconds. */
char *hbRuleFix(const char *zId, const char *zFamily, int nVersions,
                int64_t nTtl);

#endif /* WIDECOL_HB_COMMON_H */
