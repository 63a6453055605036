/*
** wc_remote.h: what the core and a remote store (the Bigtable store,
** widecol_bigtable.so) share beyond SQL text.
**
** A set of key ranges read at once.  On a remote store the core reads the
** ranges of an ascending scan with one statement, the store with one
** request, instead of one each (WC_STMT_SCAN_SET: WHERE <key> MATCH ?1).
** ?1 is a BLOB of ranges in increasing key order, disjoint, each: the
** lower bound's length (4 bytes big-endian) and bytes, then 0x00 if no
** upper bound, else 0x01, its length and bytes; a range is [lo, hi).  At
** most WC_SET_MAX ranges go in one.
*/
#define WC_SET_MAX 500

/*
** Bigtable's limits that the core plans and checks by (its store
** capabilities, wc_store.c) and the store enforces (bt_table.h): the
** longest row key, and the step of its timestamps, microseconds in steps
** of a millisecond (the default granularity, the only one the emulator
** takes).  Written once, here.
*/
#define WC_BIGTABLE_MAX_KEY   4096
/* HBase's longest row key (Short.MAX_VALUE); its timestamps are whole
** milliseconds, the same step. */
#define WC_HBASE_MAX_KEY      32767
#define WC_BIGTABLE_TIME_STEP 1000

/*
** What a remote store's calls cost, as widecol_stats() reports them.  The
** Bigtable store adds its tables' counters into a WcRpcStats the core
** hands it through SQL:
**
**   SELECT 1 FROM "<schema>"."<name>_rows"
**    WHERE widecol_bigtable_counters(rowkey, ?1)
**
** with ?1 bound by sqlite3_bind_pointer() to a WcRpcStats* of type
** WC_RPC_COUNTERS: the store's xFindFunction makes that a constraint whose
** xFilter adds the table's figures (and clears them if bReset), as
** wc_table.h's lookup finds a widecol table.  No registry is kept.  With
** bEstimate the store also estimates its rows for planning, and with
** bSamples gives keys that cut the table into sections of about equal
** size (widecol_lint's runs, widecol_regions' real boundaries), in one
** call whatever the table's size (Bigtable: SampleRowKeys).
*/
#ifndef WIDECOL_WC_REMOTE_H
#define WIDECOL_WC_REMOTE_H

#include <stdint.h>

#define WC_RPC_COUNTERS "widecol_bigtable_counters"

typedef struct WcRpcStats WcRpcStats;
struct WcRpcStats {
  int64_t nRpc;         /* Calls started */
  int64_t nRowIn;       /* Rows its cursors received, whole */
  int64_t nMsgIn;       /* Messages received */
  int64_t nByteIn;      /* Their bytes */
  int64_t nByteOut;     /* Bytes sent */
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
};

/* A store's counters added into *pOut, the WcRpcStats its xFilter is
** handed, then cleared if pOut->bReset. */
static inline void wcRpcStatsHand(WcRpcStats *pOut, WcRpcStats *pCount){
  pOut->nRpc += pCount->nRpc;
  pOut->nRowIn += pCount->nRowIn;
  pOut->nMsgIn += pCount->nMsgIn;
  pOut->nByteIn += pCount->nByteIn;
  pOut->nByteOut += pCount->nByteOut;
  if( pOut->bReset ){
    pCount->nRpc = pCount->nRowIn = pCount->nMsgIn = 0;
    pCount->nByteIn = pCount->nByteOut = 0;
  }
}

/* What WC_RPC_COUNTERS() says when a user calls it: each store registers
** it (a statement needs it to exist) as an error with these words. */
#define WC_RPC_COUNTERS_MISUSE WC_RPC_COUNTERS "() is widecol's own: it " \
  "reads a remote-stored table's call counters for widecol_stats(); call " \
  "widecol_stats('<table>')"

#endif /* WIDECOL_WC_REMOTE_H */
