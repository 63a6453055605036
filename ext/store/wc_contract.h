/*
** wc_contract.h: what the core and every store library share beyond the
** SQL of the store contract (store/README.md): the words of a store's
** CREATE arguments, which store/wc_store.c writes and every store reads
** (stores/contract/), the format of a set of key ranges read at once, and
** the call counters widecol_stats() reports.  Header only: the core and
** the store libraries never call each other, they meet in SQL.
*/
#ifndef WIDECOL_WC_CONTRACT_H
#define WIDECOL_WC_CONTRACT_H

#include <stdint.h>

/*
** The options of a store's CREATE VIRTUAL TABLE (store/README.md says
** what each means; stores/contract/sc_args.c reads them).
*/
#define WC_ARG_STAMPS    "STAMPS"
#define WC_ARG_KEYS      "KEYS"
#define WC_ARG_OWNER     "OWNER"
#define WC_ARG_DESIGN    "DESIGN"
#define WC_ARG_SUFFIX    "SUFFIX"
#define WC_ARG_EXTERNAL  "EXTERNAL"
#define WC_ARG_EXISTING  "EXISTING"
#define WC_ARG_WRITABLE  "WRITABLE"
#define WC_ARG_ROWTIME   "ROWTIME"
#define WC_ARG_OLDER     "OLDER"
#define WC_ARG_VERSIONS  "VERSIONS"
#define WC_ARG_TTL       "TTL"
#define WC_ARG_ENTRIES   "ENTRIES"     /* ENTRIES OF '<row table>' i */
#define WC_ARG_SPLITS    "SPLITS"
/* After a column's name: a field of the key (no cell), or where an
** EXISTING table's cell is and how it holds the value. */
#define WC_ARG_KEY       "KEY"
#define WC_ARG_CELL      "CELL"
/* The family of the row marker and of the columns in no FAMILY. */
#define WC_DEFAULT_FAMILY "_"

/*
** A set of key ranges read at once.  On a store that reads sets of
** ranges (WcStoreCaps.bRangeSets) the core reads the ranges of an
** ascending scan with one statement, the store with one request, instead
** of one each (WC_STMT_SCAN_SET: WHERE <key> MATCH ?1).  ?1 is a BLOB of
** ranges in increasing key order, disjoint, each: the lower bound's
** length (4 bytes big-endian) and bytes, then 0x00 if no upper bound,
** else 0x01, its length and bytes; a range is [lo, hi).  At most
** WC_SET_MAX ranges go in one.
*/
#define WC_SET_MAX 500

/*
** What a store's calls cost, as widecol_stats() reports them.  A store
** adds its tables' counters into a WcRpcStats the core hands it through
** SQL:
**
**   SELECT 1 FROM "<schema>"."<name>_rows"
**    WHERE widecol_store_counters(rowkey, ?1)
**
** with ?1 bound by sqlite3_bind_pointer() to a WcRpcStats* of type
** WC_RPC_COUNTERS: the store's xFindFunction makes that a constraint whose
** xFilter adds the table's figures (and clears them if bReset), as
** vtab/wc_table.h's lookup finds a widecol table.  No registry is kept.
** With bEstimate the store also estimates its rows for planning, and with
** bSamples gives keys that cut the table into sections of about equal
** size (widecol_lint's runs, widecol_regions' real boundaries), in one
** call whatever the table's size (Bigtable: SampleRowKeys).  With bLoads,
** a store whose engine tells them gives its regions' servers and request
** counts too (HBase: each region server's GetRegionLoad).
*/
#define WC_RPC_COUNTERS "widecol_store_counters"

typedef struct WcRpcStats WcRpcStats;
struct WcRpcStats {
  int64_t nRpc;         /* Calls started */
  int64_t nRowIn;       /* Rows its cursors received, whole */
  int64_t nMsgIn;       /* Messages received */
  int64_t nByteIn;      /* Their bytes */
  int64_t nByteOut;     /* Bytes sent */
  int64_t nRetry;       /* Waits before a call made again, after a failure
                        ** the engine said would pass (a region moving or
                        ** splitting, a server gone, a lease lost) */
  int bReset;           /* In: clear the table's counters once added */
  int bEstimate;        /* In: estimate the table's rows too (a row table
                        ** only; one call), */
  int bSamples;         /* and its sample keys (in the same call) */
  int64_t nRowEstimate; /* Out: that estimate, where asked; */
  unsigned char *aSample;  /* the sample keys, from sqlite3_malloc(), the
                           ** caller's to free: each a 4-byte big-endian
                           ** length, the key, and the bytes of the table
                           ** before it, 8 bytes big-endian; in key order,
                           ** the empty key (the end, at the table's size)
                           ** last; wcStoreSampleNext() reads them */
  int64_t nSample;      /* Bytes of aSample */
  int bLoads;           /* In: the regions' loads too, where told: */
  unsigned char *aLoad; /* Out: from sqlite3_malloc(), the caller's to
                        ** free; NULL where the engine does not tell them;
                        ** each region in key order: the key it ends at
                        ** (empty: the table's end) and its server's name,
                        ** each a 4-byte big-endian length and the bytes,
                        ** then the read and write requests counted on it,
                        ** 8 bytes each, big-endian, two's complement (-1:
                        ** not told); wcStoreLoadNext() reads them */
  int64_t nLoad;        /* Bytes of aLoad */
};

/* What WC_RPC_COUNTERS() says when a user calls it: each store registers
** it (a statement needs it to exist) as an error with these words. */
#define WC_RPC_COUNTERS_MISUSE WC_RPC_COUNTERS "() is widecol's own: it " \
  "reads a remote-stored table's call counters for widecol_stats(); call " \
  "widecol_stats('<table>')"

#endif /* WIDECOL_WC_CONTRACT_H */
