/*
** wc_rpc.h: what a remote store's calls cost, as widecol_stats() reports
** them.  Shared by the core and the Bigtable store (widecol_bigtable.so),
** which adds its tables' counters into a WcRpcStats the core hands it
** through SQL:
**
**   SELECT 1 FROM "<schema>"."<name>_rows"
**    WHERE widecol_bigtable_counters(rowkey, ?1)
**
** with ?1 bound by sqlite3_bind_pointer() to a WcRpcStats* of type
** WC_RPC_COUNTERS: the store's xFindFunction makes that a constraint whose
** xFilter adds the table's figures (and clears them if bReset), as
** wc_table.h's lookup finds a widecol table.  No registry is kept.
*/
#ifndef WIDECOL_WC_RPC_H
#define WIDECOL_WC_RPC_H

#include <stdint.h>

#define WC_RPC_COUNTERS "widecol_bigtable_counters"

typedef struct WcRpcStats WcRpcStats;
struct WcRpcStats {
  int64_t nRpc;         /* Calls started */
  int64_t nMsgIn;       /* Messages received */
  int64_t nByteIn;      /* Their bytes */
  int64_t nByteOut;     /* Bytes sent */
  int bReset;           /* In: clear the table's counters once added */
};

#endif /* WIDECOL_WC_RPC_H */
