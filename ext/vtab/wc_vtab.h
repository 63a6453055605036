/*
** wc_vtab.h: the widecol virtual table's internals, shared by the files
** that implement the module:
**   wc_vtab.c   the sqlite3_module methods, lookups, widecol_stats()
**   wc_plan.c   xBestIndex: which constraints become byte ranges
**   wc_range.c  xFilter: the byte ranges themselves
**   wc_scan.c   cursors: walking the ranges, skip scans, merges
**   wc_write.c  writes (xUpdate): the row, its families and index entries
** Each part's own declarations are in its header (wc_plan.h, wc_range.h,
** wc_scan.h, wc_write.h, wc_module.h); this one holds what they all
** share, the table.  The tables behind a widecol table are the store's
** (store/wc_store.h), part of the table as WcVtab.store.  The tools see
** only wc_table.h.
*/
#ifndef WIDECOL_WC_VTAB_H
#define WIDECOL_WC_VTAB_H

#include "util/wc_api.h"
#include "key/wc_schema.h"
#include "key/wc_codec.h"
#include "vtab/wc_table.h"
#include "vtab/wc_history.h"
#include "vtab/wc_clock.h"
#include "util/wc_error.h"
#include "store/wc_store.h"

/* What scans of a table have done since it was connected, for
** widecol_stats(): how close rows read stay to rows returned. */
typedef struct WcStats WcStats;
struct WcStats {
  int64_t nSeek;        /* Positionings of a scan: range starts, probes */
  int64_t nRowRead;     /* Rows read from <name>_rows */
  int64_t nRowOut;      /* Rows returned to SQLite */
  int64_t nPrefix;      /* Salt, bucket or field prefixes found by probing */
  int64_t nUndecodable; /* EXISTING tables: rows skipped, their keys no
                        ** keys of the design */
};

/* A table a scan can read keys from: the row table or an index's. */
typedef struct WcPath WcPath;
struct WcPath {
  const WcSchema *pKey; /* Its key's elements */
  const WcIndex *pIndex;   /* NULL for the row table */
  int64_t *aPrefixCount;   /* Distinct prefixes of the first k elements,
                           ** counted by probing, -1 until counted */
};

/* xUpdate's scratch: the row being written, the row it replaces, the
** keys an UPDATE displaced (wc_write.c defines it, wc_write.h manages
** it). */
typedef struct WcWriter WcWriter;

struct WcVtab {
  sqlite3_vtab base;
  WcSchema *pSchema;
  /* The store: its names (store.zDb, store.zName), its connection
  ** (store.db), its statements, and on a store whose rows carry stamps
  ** the hidden column _stamp (store.iStampCol), the stamps of the row as a
  ** scan read it.  SQLite hands an UPDATE every column of the row it read,
  ** so the write acts on that row only (see wc_write.c); -1 where there is
  ** none. */
  WcStore store;
  RkHasher *pHasher;    /* For SALT and BUCKET */
  int64_t nRowEst;      /* Rows, for costs; -1 until counted */
  int bPlanInterrupted; /* A store's call for a plan was interrupted: the
                        ** next scan of a plan made so ends SQLITE_INTERRUPT
                        ** (an error of xBestIndex's is SQLITE_ERROR to
                        ** SQLite, whatever its code) */
  WcPath *aPath;        /* The row table, then each index */
  int nPath;
  WcStats stats;
  WcHistory *pHistory;
  WcClock *pClock;      /* The connection's clock (widecol_clock) */
  WcWriter *pWriter;    /* xUpdate's scratch */
  unsigned nScanBegun;  /* Scans begun (xFilter); a write that sees a new
                        ** one is a new statement's (wc_write.c) */
  struct WcCursor *pSpare;  /* A closed cursor kept for the next xOpen */
  WcWatchRow xWatch;    /* A tool watching the rows scans read, or NULL */
  void *pWatchArg;
};

#endif /* WIDECOL_WC_VTAB_H */
