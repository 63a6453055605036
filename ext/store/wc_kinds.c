/*
** wc_kinds.c: the table of store kinds, one row per STORAGE kind, with
** everything the core needs to know of a store.  The planner, scanner and
** writer read these capabilities (wc_store.h) and never a store's name:
** a new store is a folder of its own (its library) plus a row here.
*/
#include "store/wc_store.h"
#include "store/wc_remote.h"

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
    .zEngine = "SQLite", .zDocs = "docs/widecol.md",
    .bTransactional = 1,
    .iTimeStep = 1, .bReverseReads = 1,
    .nPrefixProbes = 1000,
  },
  [WC_STORE_BIGTABLE] = {
    .zKind = "BIGTABLE", .zEngine = "Bigtable",
    .zModule = "widecol_bigtable", .zBuild = "make bigtable",
    .zDocs = "docs/bigtable.md",
    .bStamps = 1, .bCellVersions = 1, .bRowFamilies = 1, .bLateChecks = 1,
    .bStoreMessages = 1, .bNoEmptyKey = 1,
    .nMaxKey = WC_BIGTABLE_MAX_KEY, .iTimeStep = WC_BIGTABLE_TIME_STEP,
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
  /* The same cell store under HBase's Thrift2 gateway (ext/hbase/): keys
  ** up to HBase's 32,767 bytes, timestamps in milliseconds. */
  [WC_STORE_HBASE] = {
    .zKind = "HBASE", .zEngine = "HBase",
    .zModule = "widecol_hbase", .zBuild = "make hbase",
    .zDocs = "docs/hbase.md",
    .bStamps = 1, .bCellVersions = 1, .bRowFamilies = 1, .bLateChecks = 1,
    .bStoreMessages = 1, .bNoEmptyKey = 1,
    .nMaxKey = WC_HBASE_MAX_KEY, .iTimeStep = WC_BIGTABLE_TIME_STEP,
    .rCallRows = WC_HBASE_CALL, .bRangeSets = 1, .bReverseReads = 1,
    .nReadAhead = 65536,
    .nPrefixProbes = 64, .bRowEstimates = 1, .nCountMax = 10000,
    .bRpcCounters = 1,
  },
  /* Rows as the CQL table the design means (ext/cassandra/): a plain
  ** INSERT is a lightweight transaction, an INSERT OR REPLACE a blind
  ** upsert (it does not say whether it replaced), reads walk token ranges
  ** forward only (a descending read reverses a partition's slice, holds
  ** a range across partitions whole). */
  [WC_STORE_CASSANDRA] = {
    .zKind = "CASSANDRA", .zEngine = "Cassandra",
    .zModule = "widecol_cassandra", .zBuild = "make cassandra",
    .zDocs = "docs/cassandra.md",
    .bStoreMessages = 1, .bNoEmptyKey = 1, .bLateChecks = 1,
    .iTimeStep = 1,
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
