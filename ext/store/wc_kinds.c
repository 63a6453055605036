/*
** wc_kinds.c: the table of store kinds, one row per STORAGE kind, with
** what the core needs to know of a store beyond the engine's facts (its
** row of util/wc_kind.h): what it can do and what reading costs there.
** The planner, scanner and writer read these capabilities (wc_store.h)
** and never a store's name: a new store is a folder of its own (its
** library under ext/stores/), its facts in util/wc_kind.c, and a row
** here.
*/
#include "store/wc_store.h"
#include "store/wc_contract.h"

/* A call to Bigtable costs what reading WC_BIGTABLE_CALL rows of a scan
** does: on the emulator a one-row ReadRows costs about 17 rows' time and
** a probe (a range with no end) about 350 (bench/bigtable.py --calls); a
** skip scan's calls are mostly probes.  Google's service, a network away,
** is dearer per call still. */
#define WC_BIGTABLE_CALL 500.0
/* A call through HBase's Thrift2 gateway: a scan opened and closed on the
** region server per call (getScannerResults); measured in bench/ once the
** benchmark runs on HBase, taken as Bigtable's until then. */
#define WC_HBASE_CALL 500.0
/* A CQL request to Cassandra: a paged SELECT; taken as Bigtable's until
** bench/ measures it. */
#define WC_CASSANDRA_CALL 500.0

/* In WC_STORE_* order; a field not given is 0 (WcStoreCaps, wc_store.h,
** says what each means). */
static const WcStoreCaps aKind[WC_STORE_KINDS] = {
  [WC_STORE_LOCAL] = {
    .pKind = &wcKindTable[WC_STORE_LOCAL],
    .bTransactional = 1, .bReverseReads = 1,
    .nPrefixProbes = 1000,
  },
  [WC_STORE_BIGTABLE] = {
    .pKind = &wcKindTable[WC_STORE_BIGTABLE],
    .bStamps = 1, .bCellVersions = 1, .bRowFamilies = 1, .bLateChecks = 1,
    .bStoreMessages = 1, .bNoEmptyKey = 1,
    .rCallRows = WC_BIGTABLE_CALL, .bRangeSets = 1, .bReverseReads = 1,
    /* Windows as large as a scan's largest page (BT_MAX_PAGE): on the
    ** emulator a read with a row limit costs time with the rest of the
    ** table, so small windows made a long UPDATE quadratic (1,024-row
    ** windows: an UPDATE of 10% of 1,000,000 indexed rows ran past 17
    ** minutes; docs/bigtable.md). */
    .nReadAhead = 65536,
    .nPrefixProbes = 64, .bRowEstimates = 1, .nCountMax = 10000,
    .bRpcCounters = 1,
  },
  /* The same cell store under HBase's transport (ext/stores/hbase/). */
  [WC_STORE_HBASE] = {
    .pKind = &wcKindTable[WC_STORE_HBASE],
    .bStamps = 1, .bCellVersions = 1, .bRowFamilies = 1, .bLateChecks = 1,
    .bStoreMessages = 1, .bNoEmptyKey = 1,
    .rCallRows = WC_HBASE_CALL, .bRangeSets = 1, .bReverseReads = 1,
    .nReadAhead = 65536,
    .nPrefixProbes = 64, .bRowEstimates = 1, .nCountMax = 10000,
    .bRegionLoads = 1, .bRpcCounters = 1,
  },
  /* Rows as the CQL table the design means (ext/stores/cassandra/): a plain
  ** INSERT is a lightweight transaction, an UPDATE or DELETE one
  ** conditional on the row's stamps as read, an INSERT OR REPLACE a blind
  ** upsert (it does not say whether it replaced), reads walk token ranges
  ** forward only (a descending read reverses a partition's slice, holds
  ** a range across partitions whole). */
  [WC_STORE_CASSANDRA] = {
    .pKind = &wcKindTable[WC_STORE_CASSANDRA],
    .bStamps = 1, .bStoreMessages = 1, .bNoEmptyKey = 1, .bLateChecks = 1,
    .rCallRows = WC_CASSANDRA_CALL, .bReverseReads = WC_REVERSE_PARTITION,
    .nPrefixProbes = 64, .nCountMax = 10000,
    .bRpcCounters = 1,
  },
};

const WcStoreCaps *wcStoreKind(int eStore){
  wcAssert( eStore >= 0 && eStore < WC_STORE_KINDS );
  return &aKind[eStore >= 0 && eStore < WC_STORE_KINDS ? eStore
                                                       : WC_STORE_LOCAL];
}
