/*
** wc_kind.c: the table of engines (wc_kind.h), and how each names its
** tables.
*/
#include "util/wc_api.h"
#include "util/wc_kind.h"

#include <string.h>

/* True if z[0..n) is a table id of Bigtable or a name part of HBase:
** letters, digits, _ - and ., not starting with - or ., n from 1 to nMax. */
static int isTableId(const char *z, size_t n, size_t nMax){
  size_t i;
  if( n < 1 || n > nMax || z[0] == '-' || z[0] == '.' ) return 0;
  for(i = 0; i < n; i++){
    char c = z[i];
    if( !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.') ){
      return 0;
    }
  }
  return 1;
}

/* projects/<p>/instances/<i>/tables/<id>: Bigtable's resource name. */
static int isBigtableName(const char *z){
  static const char zP[] = "projects/", zI[] = "/instances/";
  static const char zT[] = "/tables/";
  const char *zA, *zB, *zC;
  if( strncmp(z, zP, sizeof(zP) - 1) != 0 ) return 0;
  zA = z + sizeof(zP) - 1;
  zB = strstr(zA, zI);
  if( zB == 0 || zB == zA || memchr(zA, '/', (size_t)(zB - zA)) ) return 0;
  zB += sizeof(zI) - 1;
  zC = strstr(zB, zT);
  if( zC == 0 || zC == zB || memchr(zB, '/', (size_t)(zC - zB)) ) return 0;
  zC += sizeof(zT) - 1;
  return isTableId(zC, strlen(zC), 50);
}

/* [namespace:]table, as HBase's TableName takes them. */
static int isHBaseName(const char *z){
  const char *zColon = strchr(z, ':');
  if( zColon == 0 ) return isTableId(z, strlen(z), 255);
  return isTableId(z, (size_t)(zColon - z), 255)
      && isTableId(zColon + 1, strlen(zColon + 1), 255);
}

/* A CQL name: letters, digits and _, a letter or digit first, at most 48
** characters (Cassandra's limit). */
static int isCqlId(const char *z, size_t n){
  size_t i;
  if( n < 1 || n > 48 || z[0] == '_' ) return 0;
  for(i = 0; i < n; i++){
    char c = z[i];
    if( !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z') || c == '_') ){
      return 0;
    }
  }
  return 1;
}

/* keyspace.table. */
static int isCassandraName(const char *z){
  const char *zDot = strchr(z, '.');
  return zDot && isCqlId(z, (size_t)(zDot - z))
      && isCqlId(zDot + 1, strlen(zDot + 1));
}

/* In WC_STORE_* order.  Sources of the limits: Bigtable's quotas page
** (row key 4 KiB, cell 100 MiB, row 256 MiB), HBase's
** HConstants.MAX_ROW_LENGTH and hbase.client.keyvalue.maxsize's default;
** Cassandra's are the CQL types', which its store checks as it writes. */
const WcKind wcKindTable[WC_STORE_KINDS] = {
  [WC_STORE_LOCAL] = {
    .eStore = WC_STORE_LOCAL, .zEngine = "SQLite",
    .zDocs = "docs/widecol.md", .iTimeStep = 1,
  },
  [WC_STORE_BIGTABLE] = {
    .eStore = WC_STORE_BIGTABLE, .zWord = "BIGTABLE", .zEngine = "Bigtable",
    .zModule = "widecol_bigtable", .zBuild = "make bigtable",
    .zPython = "widecol.load(db, bigtable=True)",
    .zDocs = "docs/bigtable.md",
    .zForm = "'projects/<project>/instances/<instance>/tables/<table>', "
             "the table id of letters, digits, _ - and . (not first), at "
             "most 50 characters",
    .zShape = "'projects/<project>/instances/<instance>/tables/<table>'",
    .zTrial = "projects/p/instances/i/tables/%s",
    .zIdAfter = "/tables/", .nMaxId = 50,
    .nMaxKey = 4096, .nMaxCell = (int64_t)100 << 20,
    .nMaxRow = (int64_t)256 << 20, .iTimeStep = 1000,
    /* The cell store's pages (stores/cells/cs_read.c); a ReadRows of a
    ** set of ranges is one call. */
    .reads = { .nFirstPage = 2, .nPageGrowth = 8, .nMaxPage = 65536,
               .nVerifyRows = 256 },
  },
  [WC_STORE_HBASE] = {
    .eStore = WC_STORE_HBASE, .zWord = "HBASE", .zEngine = "HBase",
    .zModule = "widecol_hbase", .zBuild = "make hbase",
    .zPython = "widecol.load(db, hbase=True)",
    .zDocs = "docs/hbase.md",
    .zForm = "'<table>' or '<namespace>:<table>', each of letters, digits, "
             "_ - and . (not first)",
    .zShape = "'[<namespace>:]<table>'",
    .zTrial = "%s", .zIdAfter = ":", .nMaxId = 255,
    .nMaxKey = WC_MAX_KEY_BYTES, .nKeyByName = 16,
    .nMaxCell = (int64_t)10 << 20, .iTimeStep = 1000,
    /* The cell store's pages; the Thrift2 gateway scans a range at a
    ** time, 1,000 rows a call at most (stores/hbase/hb_read.c). */
    .reads = { .nFirstPage = 2, .nPageGrowth = 8, .nMaxPage = 65536,
               .nCallRows = 1000, .bCallPerRange = 1, .nVerifyRows = 256 },
  },
  [WC_STORE_CASSANDRA] = {
    .eStore = WC_STORE_CASSANDRA, .zWord = "CASSANDRA",
    .zEngine = "Cassandra", .zModule = "widecol_cassandra",
    .zBuild = "make cassandra", .zDocs = "docs/cassandra.md",
    .zPython = "widecol.load(db, cassandra=True)",
    .zForm = "'<keyspace>.<table>', each of letters, digits and _ (not "
             "first), at most 48 characters",
    .zShape = "'<keyspace>.<table>'",
    .zTrial = "widecol.%s", .zIdAfter = ".", .nMaxId = 48, .iTimeStep = 1,
    /* A scan's CQL pages (stores/cassandra/cq_read.c), each a request. */
    .reads = { .nFirstPage = 20, .nPageGrowth = 4, .nMaxPage = 5000,
               .bCallPerRange = 1 },
  },
};

void wcKindAppendStorage(sqlite3_str *pOut, const char *zFirst,
                         const char *zNext, const char *zLast, int bLoad){
  int i, nLeft = 0, bFirst = 1;
  for(i = 0; i < WC_STORE_KINDS; i++) nLeft += wcKindTable[i].zWord != 0;
  for(i = 0; i < WC_STORE_KINDS; i++){
    const WcKind *pKind = &wcKindTable[i];
    if( pKind->zWord == 0 ) continue;
    sqlite3_str_appendf(pOut, "%s%s %s", bFirst ? zFirst
                        : nLeft == 1 ? zLast : zNext, pKind->zWord,
                        pKind->zShape);
    if( bLoad ) sqlite3_str_appendf(pOut, " (load %s)", pKind->zModule);
    bFirst = 0;
    nLeft--;
  }
}

const WcKind *wcKind(int eStore){
  wcAssert( eStore >= 0 && eStore < WC_STORE_KINDS );
  wcAssert( wcKindTable[eStore].eStore == eStore );
  return &wcKindTable[eStore >= 0 && eStore < WC_STORE_KINDS ? eStore
                                                       : WC_STORE_LOCAL];
}

const WcKind *wcKindByWord(const char *z, int n){
  int i;
  for(i = 0; i < WC_STORE_KINDS; i++){
    const char *zWord = wcKindTable[i].zWord;
    if( zWord && (int)strlen(zWord) == n
     && sqlite3_strnicmp(zWord, z, n) == 0 ){
      return &wcKindTable[i];
    }
  }
  return 0;
}

int wcKindValidName(int eStore, const char *zName){
  switch( eStore ){
    case WC_STORE_BIGTABLE:  return isBigtableName(zName);
    case WC_STORE_HBASE:     return isHBaseName(zName);
    case WC_STORE_CASSANDRA: return isCassandraName(zName);
    default:                 return 0;
  }
}

/* The engines' own namespaces: HBase's catalog (hbase:meta, hbase:namespace)
** lives in namespace hbase, Cassandra's schema and peers in its system
** keyspaces.  A widecol table there would sit among the engine's own.
** HBase's names are case-sensitive; CQL's unquoted ones are not. */
static const struct { int eStore; const char *zSpace; } aReserved[] = {
  { WC_STORE_HBASE, "hbase" },
  { WC_STORE_CASSANDRA, "system" },
  { WC_STORE_CASSANDRA, "system_auth" },
  { WC_STORE_CASSANDRA, "system_distributed" },
  { WC_STORE_CASSANDRA, "system_schema" },
  { WC_STORE_CASSANDRA, "system_traces" },
  { WC_STORE_CASSANDRA, "system_views" },
  { WC_STORE_CASSANDRA, "system_virtual_schema" },
};

const char *wcKindReserved(const WcKind *pKind, const char *zName){
  const char *zEnd = pKind->zIdAfter ? strstr(zName, pKind->zIdAfter) : 0;
  size_t i, n;
  if( zEnd == 0 || pKind->eStore == WC_STORE_BIGTABLE ) return 0;
  n = (size_t)(zEnd - zName);
  for(i = 0; i < sizeof(aReserved) / sizeof(aReserved[0]); i++){
    if( aReserved[i].eStore == pKind->eStore
     && strlen(aReserved[i].zSpace) == n
     && (pKind->eStore == WC_STORE_HBASE
         ? memcmp(aReserved[i].zSpace, zName, n)
         : sqlite3_strnicmp(aReserved[i].zSpace, zName, (int)n)) == 0 ){
      return aReserved[i].zSpace;
    }
  }
  return 0;
}

const char *wcKindKeyLimitOwner(const WcKind *pKind){
  return pKind->nMaxKey == WC_MAX_KEY_BYTES ? pKind->zEngine : "widecol";
}

const char *wcKindTableId(const WcKind *pKind, const char *zName){
  const char *z = pKind->zIdAfter ? strstr(zName, pKind->zIdAfter) : 0;
  return z ? z + strlen(pKind->zIdAfter) : zName;
}
