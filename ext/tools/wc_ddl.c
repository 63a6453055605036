/*
** wc_ddl.c: widecol_ddl('<table>', 'hbase' | 'bigtable' [, regions]), the
** commands that make a widecol table's design on a cluster.
**
**   hbase     the HBase shell's create, one per table (the rows, then each
**             INDEX's <table>_idx_<index>): a family per FAMILY and "_" for
**             the other columns, VERSIONS (1 on an INDEX's) and TTL from
**             the options, NEW_VERSION_BEHAVIOR as widecol's CREATE makes
**             it, SPLITS written as Bytes.toBytesBinary reads them (bytes
**             0x20-0x7E as they are but \ and ', others \xNN with
**             uppercase digits)
**   bigtable  cbt createtable, createfamily and setgcpolicy, as sh
**             commands (arguments in single quotes; split keys that are
**             not all text made by printf from octal escapes)
**   cql       for a design STORAGE CASSANDRA takes, the CREATE TABLEs its
**             CREATE runs (key/wc_cql.h's wcCqlCreate(): the row table and
**             each INDEX's); else that refusal and the nearest CQL table
**             (cqlCreate())
**   hbase, on a table stored on HBase in a namespace: create_namespace
**             first, the tables named in full
**
** Split points, of the row table and of each index table: the SPLITS
** option's (rows); else each value of a leading SALT or BUCKET (at most
** WC_MAX_SPLITS, evenly spaced), or WC_MAX_SPLITS even parts of a leading
** TOKEN's token space; with a region count, the keys that cut the table's
** keys into that many equal regions (the table read in key order), one
** region a row where it has fewer rows.  The table is found by schema and name
** (wc_table.h), as every tool finds it.
*/
#include "util/wc_api.h"
#include "vtab/wc_table.h"
#include "tools/wc_tools.h"
#include "key/wc_cql.h"
#include "key/wc_splits.h"

#include <string.h>

#define WC_DDL_MAX_REGIONS 10000

/* Cassandra's largest TTL, 20 years in seconds (Attributes.MAX_TTL). */
#define CQL_MAX_TTL 630720000

/* The keys that start regions 2..nRegion of table iIndex's keys (-1: the
** row table's row keys, else INDEX iIndex's index keys) in key order,
** nRegion parts of (nearly) equal rows, and its row count in *pnRow.  A
** region starts at a row, so with fewer rows than regions each row starts
** one. */
static int dataSplits(WcVtab *pTab, int iIndex, int nRegion, WcSplits *pOut,
                      int64_t *pnRow){
  sqlite3 *db = wcTableDb(pTab);
  sqlite3_str *pStr = sqlite3_str_new(db);
  sqlite3_stmt *pStmt = 0;
  const char *zKey = iIndex < 0 ? "rowkey" : "ikey";
  int64_t nRow = 0, iRow = 0;
  int iNext = 1, rc;
  char *zSql;
  sqlite3_str_appendf(pStr, "SELECT %s, count(*) OVER () FROM ", zKey);
  wcStoreAppendTable(pStr, wcTableStore(pTab), -1, iIndex);
  sqlite3_str_appendf(pStr, " ORDER BY %s", zKey);
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  while( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){
    int bStarts = 0;
    nRow = sqlite3_column_int64(pStmt, 1);
    /* Region r starts at row floor(r * nRow / nRegion), or the first row
    ** after the one that starts region r - 1. */
    while( iNext < nRegion
        && iRow >= (int64_t)((double)iNext * nRow / nRegion) ){
      bStarts = 1;
      iNext++;
    }
    if( bStarts && iRow > 0 ){
      rc = wcSplitsAdd(pOut, sqlite3_column_blob(pStmt, 0),
                     sqlite3_column_bytes(pStmt, 0));
    }
    iRow++;
  }
  if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  else sqlite3_finalize(pStmt);
  *pnRow = nRow;
  return rc;
}

/* A name in a Ruby single-quoted string. */
static void appendRuby(sqlite3_str *pStr, const char *z){
  sqlite3_str_appendchar(pStr, 1, '\'');
  for(; *z; z++){
    if( *z == '\'' || *z == '\\' ) sqlite3_str_appendchar(pStr, 1, '\\');
    sqlite3_str_appendchar(pStr, 1, *z);
  }
  sqlite3_str_appendchar(pStr, 1, '\'');
}

/* A word in sh single quotes. */
static void appendSh(sqlite3_str *pStr, const char *z){
  sqlite3_str_appendchar(pStr, 1, '\'');
  for(; *z; z++){
    if( *z == '\'' ) sqlite3_str_appendall(pStr, "'\\''");
    else sqlite3_str_appendchar(pStr, 1, *z);
  }
  sqlite3_str_appendchar(pStr, 1, '\'');
}

/* A split key as Bytes.toBytesBinary reads it, in a Ruby single-quoted
** string (which keeps backslashes). */
static void appendHBaseKey(sqlite3_str *pStr, const WcBuf *pKey){
  int64_t i;
  sqlite3_str_appendchar(pStr, 1, '\'');
  for(i = 0; i < pKey->n; i++){
    unsigned char c = pKey->a[i];
    if( c >= 0x20 && c <= 0x7E && c != '\\' && c != '\'' ){
      sqlite3_str_appendchar(pStr, 1, (char)c);
    }else{
      sqlite3_str_appendf(pStr, "\\x%02X", c);
    }
  }
  sqlite3_str_appendchar(pStr, 1, '\'');
}

/* The versions a table of the design keeps: the design's on the rows, one
** on an INDEX's, which holds current entries only (as the store makes
** it). */
static int ddlVersions(const WcSchema *pS, int bRows){
  return bRows ? pS->nVersions : 1;
}

/* HBase's create for one table: its families, then SPLITS. */
static void hbaseCreate(sqlite3_str *pStr, const WcSchema *pS,
                        const char *zName, int bRows, const WcSplits *pSplits){
  int i;
  sqlite3_str_appendall(pStr, "create ");
  appendRuby(pStr, zName);
  for(i = -1; i < (bRows ? pS->nFamily : 0); i++){
    sqlite3_str_appendall(pStr, ", {NAME => ");
    appendRuby(pStr, i < 0 ? "_" : pS->aFamily[i].zName);
    sqlite3_str_appendf(pStr, ", VERSIONS => %d", ddlVersions(pS, bRows));
    if( pS->nTtl > 0 ){
      sqlite3_str_appendf(pStr, ", TTL => %lld", (long long)pS->nTtl);
    }
    /* widecol's own CREATE asks for it too: a delete hides what was
    ** written before it, never what comes after (docs/hbase.md). */
    sqlite3_str_appendall(pStr, ", NEW_VERSION_BEHAVIOR => 'true'}");
  }
  if( pSplits->n > 0 ){
    sqlite3_str_appendall(pStr, ", SPLITS => [");
    for(i = 0; i < pSplits->n; i++){
      if( i ) sqlite3_str_appendall(pStr, ", ");
      appendHBaseKey(pStr, &pSplits->a[i]);
    }
    sqlite3_str_appendall(pStr, "]");
  }
  sqlite3_str_appendall(pStr, "\n");
}

/* How a byte of a split key reaches cbt: as itself in a single-quoted
** sh word (text), or only by printf (0: a comma, the list's separator,
** or NUL, which no argument holds, cannot reach it at all). */
#define CBT_TEXT    1
#define CBT_PRINTF  2
static int cbtByte(unsigned char c){
  if( c == ',' || c == 0 ) return 0;
  if( c < 0x20 || c >= 0x7F || c == '\'' ) return CBT_PRINTF;
  return CBT_TEXT;
}

/* CBT_TEXT or CBT_PRINTF if every byte of the key reaches cbt so, 0 if
** one cannot. */
static int cbtKey(const WcBuf *pKey){
  int64_t i;
  int eHow = CBT_TEXT;
  for(i = 0; i < pKey->n; i++){
    int e = cbtByte(pKey->a[i]);
    if( e == 0 ) return 0;
    if( e == CBT_PRINTF ) eHow = CBT_PRINTF;
  }
  return pKey->n > 0 ? eHow : 0;
}

static void appendCbtKey(sqlite3_str *pStr, const WcBuf *pKey, int bPrintf){
  int64_t j;
  for(j = 0; j < pKey->n; j++){
    unsigned char c = pKey->a[j];
    if( !bPrintf ) sqlite3_str_appendchar(pStr, 1, (char)c);
    else if( cbtByte(c) == CBT_PRINTF ) sqlite3_str_appendf(pStr, "\\%03o", c);
    else if( c == '%' ) sqlite3_str_appendall(pStr, "%%");
    else if( c == '\\' ) sqlite3_str_appendall(pStr, "\\\\");
    else sqlite3_str_appendchar(pStr, 1, (char)c);
  }
}

/* cbt's splits=k1,k2,... argument: in single quotes while every key is
** text; else made by printf from octal escapes, so that the commands stay
** text (valid UTF-8) and sh gives cbt the bytes themselves.  As $(...)
** drops the newlines that end its output, a key ending in one is not put
** last.  *pnBad: the keys that cannot be given. */
static void appendCbtSplits(sqlite3_str *pStr, const WcSplits *pSplits,
                            int *pnBad){
  int i, nOk = 0, bPrintf = 0, iLast = -1;
  for(i = 0; i < pSplits->n; i++){
    const WcBuf *pKey = &pSplits->a[i];
    int e = cbtKey(pKey);
    if( e == CBT_PRINTF ) bPrintf = 1;
    if( e && pKey->a[pKey->n - 1] != '\n' ) iLast = i;
  }
  for(i = 0; i < pSplits->n; i++){
    const WcBuf *pKey = &pSplits->a[i];
    if( !cbtKey(pKey) || (bPrintf && iLast < 0) ){
      (*pnBad)++;
      continue;
    }
    if( i == iLast ) continue;
    sqlite3_str_appendall(pStr, nOk++ ? "," : bPrintf ? " \"$(printf 'splits="
                                                      : " 'splits=");
    appendCbtKey(pStr, pKey, bPrintf);
  }
  if( iLast >= 0 ){
    sqlite3_str_appendall(pStr, nOk++ ? "," : bPrintf ? " \"$(printf 'splits="
                                                      : " 'splits=");
    appendCbtKey(pStr, &pSplits->a[iLast], bPrintf);
  }
  if( nOk ) sqlite3_str_appendall(pStr, bPrintf ? "')\"" : "'");
}

/* cbt's commands for one table. */
static void cbtCreate(sqlite3_str *pStr, const WcSchema *pS,
                      const char *zName, int bRows, const WcSplits *pSplits){
  int i, nBad = 0;
  sqlite3_str_appendall(pStr, "cbt createtable ");
  appendSh(pStr, zName);
  appendCbtSplits(pStr, pSplits, &nBad);
  sqlite3_str_appendall(pStr, "\n");
  if( nBad ){
    sqlite3_str_appendf(pStr, "# %d split key%s left out: cbt's splits= "
        "list cannot hold a key with a comma or a NUL byte "
        "(widecol_ddl(..., 'hbase') writes them all)\n", nBad,
        nBad == 1 ? " is" : "s are");
  }
  for(i = -1; i < (bRows ? pS->nFamily : 0); i++){
    const char *zFam = i < 0 ? "_" : pS->aFamily[i].zName;
    sqlite3_str_appendall(pStr, "cbt createfamily ");
    appendSh(pStr, zName);
    sqlite3_str_appendall(pStr, " ");
    appendSh(pStr, zFam);
    sqlite3_str_appendall(pStr, "\ncbt setgcpolicy ");
    appendSh(pStr, zName);
    sqlite3_str_appendall(pStr, " ");
    appendSh(pStr, zFam);
    sqlite3_str_appendall(pStr, " ");
    if( pS->nTtl > 0 ){
      sqlite3_str_appendf(pStr, "'maxversions=%d or maxage=%llds'\n",
                          ddlVersions(pS, bRows), (long long)pS->nTtl);
    }else{
      sqlite3_str_appendf(pStr, "maxversions=%d\n", ddlVersions(pS, bRows));
    }
  }
}

/* A CQL identifier, double-quoted. */
static void appendCqlName(sqlite3_str *pStr, const char *z){
  sqlite3_str_appendf(pStr, "\"%w\"", z);
}

/* Appends the column that holds RANDOM's number in CQL: "random", with
** as many underscores after it as make a name no column has. */
static void appendRandomColumn(sqlite3_str *pStr, const WcSchema *pS){
  int k = 0, i;
  for(i = 0; i < pS->nCol; i++){
    const char *z = pS->aCol[i].zName;
    if( sqlite3_strnicmp(z, "random", 6) == 0
     && strspn(&z[6], "_") == (size_t)k && z[6 + k] == 0 ){
      k++;
      i = -1;       /* taken: check the longer name against them all */
    }
  }
  sqlite3_str_appendall(pStr, "\"random");
  sqlite3_str_appendchar(pStr, k, '_');
  sqlite3_str_appendall(pStr, "\"");
}

/* Appends the column that holds the iBucket-th leading SALT or BUCKET's
** number in the nearest CQL table: "bucket" (then "bucket2", ...), with
** underscores after it until no column has the name. */
static void appendBucketColumn(sqlite3_str *pStr, const WcSchema *pS,
                               int iBucket){
  char zBase[32];
  int k = 0, i;
  sqlite3_snprintf(sizeof(zBase), zBase, iBucket ? "bucket%d" : "bucket",
                   iBucket + 1);
  for(i = 0; i < pS->nCol; i++){
    const char *z = pS->aCol[i].zName;
    size_t n = strlen(zBase);
    if( sqlite3_strnicmp(z, zBase, (int)n) == 0
     && strspn(&z[n], "_") == (size_t)k && z[n + k] == 0 ){
      k++;
      i = -1;
    }
  }
  sqlite3_str_appendf(pStr, "\"%s", zBase);
  sqlite3_str_appendchar(pStr, k, '_');
  sqlite3_str_appendall(pStr, "\"");
}

/* Appends column iCol of the CQL table's key (key/wc_cql.h). */
static void appendKeyColumn(sqlite3_str *pStr, const WcSchema *pS, int iCol){
  if( iCol == WC_CQL_RANDOM ){
    appendRandomColumn(pStr, pS);
  }else{
    wcAssert( iCol >= 0 && iCol < pS->nCol );
    appendCqlName(pStr, pS->aCol[iCol].zName);
  }
}

/* CQL's CREATE TABLE for the row table, its key pKey (key/wc_cql.h: the
** partition key is the leading TOKEN's columns, the PRIMARY KEY form, or
** else the first field, with a comment here on what Cassandra cannot do
** with it; the other fields are clustering columns in key order, DESC as
** the key has them, and RANDOM's number a last one, which the
** application fills). */
static void cqlCreate(sqlite3_str *pStr, const WcSchema *pS,
                      const WcCqlKey *pKey, const char *zName){
  const WcElement *pFirst = &pS->aElem[0];
  int i, iPart = -1, nClust, nBucket = 0;
  if( !pFirst->bToken ){
    for(i = 0; i < pS->nElem && pS->aElem[i].eKind != WC_ELEM_COLUMN; i++){
      char *zElem = wcElementText(pS, &pS->aElem[i], 0);
      sqlite3_str_appendf(pStr, "-- %s of the row key is the partition "
          "column ", zElem ? zElem : "?");
      appendBucketColumn(pStr, pS, i);
      sqlite3_str_appendall(pStr, ", which the application fills with the "
          "same number at each insert, so that the rows it spread over key "
          "ranges spread over partitions (a hot value's among them)\n");
      sqlite3_free(zElem);
      nBucket++;
    }
    iPart = i < pS->nElem ? i : -1;
    if( iPart >= 0 ){
      const char *zCol = pS->aCol[pS->aElem[iPart].iCol].zName;
      sqlite3_str_appendf(pStr, "-- widecol orders every row by the whole "
          "key; Cassandra places each partition by the token of %s, so a "
          "range over %s (%s > ?) needs ALLOW FILTERING and reads every "
          "node; to range over it, make it a clustering column under a "
          "coarser partition key (a bucket: PRIMARY KEY ((bucket), %s, "
          "...))\n", zCol, zCol, zCol, zCol);
    }
  }
  for(i = 0; i < pS->nElem; i++){
    const WcElement *pE = &pS->aElem[i];
    int k;
    if( pE->eKind != WC_ELEM_COLUMN ) continue;
    for(k = 0; k < pE->nXform; k++){
      if( pE->aXform[k].eOp == WC_XFORM_REVERSE
       || (pE->aXform[k].eOp == WC_XFORM_DESC && pE->aXform[k].bArg) ){
        sqlite3_str_appendf(pStr, "-- %s on %s has no CQL form: the column "
            "keeps its values, %s\n", pE->aXform[k].eOp == WC_XFORM_REVERSE
            ? "REVERSE" : "DESC max", pS->aCol[pE->iCol].zName,
            pE->aXform[k].eOp == WC_XFORM_REVERSE ? "unreversed"
            : "in descending clustering order");
      }
    }
  }
  if( pS->nRandom ){
    sqlite3_str_appendf(pStr, "-- RANDOM(%lld) ends the row key: here it is "
        "the last clustering column, ", (long long)pS->nRandom);
    appendRandomColumn(pStr, pS);
    sqlite3_str_appendf(pStr, ", which the application fills with a random "
        "number from 0 to %lld at each insert\n", (long long)pS->nRandom - 1);
  }
  if( pS->nVersions > 1 ){
    sqlite3_str_appendf(pStr, "-- VERSIONS %d has no CQL form: Cassandra "
        "keeps one value per cell; keep history as a clustering column (a "
        "timestamp)\n", pS->nVersions);
  }
  if( pS->nFamily > 0 ){
    sqlite3_str_appendall(pStr, "-- FAMILY has no CQL form: its columns are "
        "columns of the table\n");
  }
  for(i = 0; i < pS->nIndex; i++){
    sqlite3_str_appendf(pStr, "-- INDEX %s is not written here: in "
        "Cassandra it is a table of its own, keyed by its fields (eBay's "
        "User_By_Item)\n", pS->aIndex[i].zName);
  }
  sqlite3_str_appendall(pStr, "CREATE TABLE IF NOT EXISTS ");
  appendCqlName(pStr, zName);
  sqlite3_str_appendall(pStr, " (\n");
  for(i = 0; i < pS->nCol; i++){
    sqlite3_str_appendall(pStr, "  ");
    appendCqlName(pStr, pS->aCol[i].zName);
    sqlite3_str_appendf(pStr, " %s,\n", wcCqlType(pS->aCol[i].cAff));
  }
  if( pS->nRandom ){
    sqlite3_str_appendall(pStr, "  ");
    appendRandomColumn(pStr, pS);
    sqlite3_str_appendf(pStr, " %s,\n", wcCqlType(WC_AFF_INTEGER));
  }
  for(i = 0; i < nBucket; i++){
    sqlite3_str_appendall(pStr, "  ");
    appendBucketColumn(pStr, pS, i);
    sqlite3_str_appendf(pStr, " %s,\n", wcCqlType(WC_AFF_INTEGER));
  }
  sqlite3_str_appendall(pStr, "  PRIMARY KEY ((");
  for(i = 0; i < nBucket; i++){
    appendBucketColumn(pStr, pS, i);
    sqlite3_str_appendall(pStr, ", ");
  }
  for(i = 0; i < pKey->nCol; i++){
    if( i == pKey->nPart ) sqlite3_str_appendall(pStr, ")");
    if( i > 0 ) sqlite3_str_appendall(pStr, ", ");
    appendKeyColumn(pStr, pS, pKey->aiCol[i]);
  }
  if( pKey->nPart == pKey->nCol ) sqlite3_str_appendall(pStr, ")");
  sqlite3_str_appendall(pStr, ")\n)");
  for(i = pKey->nPart; i < pKey->nCol; i++){
    sqlite3_str_appendall(pStr, i > pKey->nPart
                                ? ", " : " WITH CLUSTERING ORDER BY (");
    appendKeyColumn(pStr, pS, pKey->aiCol[i]);
    sqlite3_str_appendall(pStr, pKey->abDesc[i] ? " DESC" : " ASC");
  }
  nClust = pKey->nCol - pKey->nPart;
  if( nClust > 0 ) sqlite3_str_appendall(pStr, ")");
  if( pS->nTtl > 0 && pS->nTtl <= CQL_MAX_TTL ){
    sqlite3_str_appendf(pStr, " %s default_time_to_live = %lld",
                        nClust > 0 ? "AND" : "WITH", (long long)pS->nTtl);
  }
  sqlite3_str_appendall(pStr, ";\n");
  if( pS->nTtl > CQL_MAX_TTL ){
    sqlite3_str_appendf(pStr, "-- TTL %lld s is past Cassandra's largest "
        "default_time_to_live, %d s (20 years): left out, so rows stay until "
        "deleted\n", (long long)pS->nTtl, CQL_MAX_TTL);
  }
}

/* The tables STORAGE CASSANDRA makes of a design it takes, as its CREATE
** runs them (key/wc_cql.h: one text for both): the row table, then each
** INDEX's <table>_idx_<index>, in the keyspace of the table's STORAGE
** when it is on Cassandra. */
static int cqlStoreTables(sqlite3_str *pStr, WcVtab *pTab){
  const WcSchema *pS = wcTableSchema(pTab);
  const char *zTable = wcTableName(pTab);
  char *zKs = 0;
  int i, rc = SQLITE_OK;
  if( pS->eStore == WC_STORE_CASSANDRA && pS->zStorage ){
    const char *zDot = strchr(pS->zStorage, '.');
    wcAssert( zDot != 0 );
    zKs = sqlite3_mprintf("%.*s", (int)(zDot - pS->zStorage), pS->zStorage);
    if( zKs == 0 ) return SQLITE_NOMEM;
    zTable = zDot + 1;
    sqlite3_str_appendf(pStr, "-- widecol's CREATE makes the keyspace %s "
        "where it is missing (SimpleStrategy, a replica on each node up to "
        "3, or the map in WIDECOL_CASSANDRA_REPLICATION)\n", zKs);
  }
  sqlite3_str_appendall(pStr, "-- as CREATE VIRTUAL TABLE ... STORAGE "
      "CASSANDRA makes them: the row table, then each INDEX's table (its "
      "entries, keyed by the index and the row key's bytes); \"_stamp\" "
      "holds each write's stamps, for widecol's conditional writes\n");
  for(i = -1; i < pS->nIndex && rc == SQLITE_OK; i++){
    char *zName = i < 0 ? sqlite3_mprintf("%s", zTable)
                : sqlite3_mprintf("%s_idx_%s", zTable, pS->aIndex[i].zName);
    char *zQuoted = zName == 0 ? 0 : zKs
                  ? sqlite3_mprintf("\"%w\".\"%w\"", zKs, zName)
                  : sqlite3_mprintf("\"%w\"", zName);
    rc = zQuoted ? wcCqlCreate(pStr, pS, i, zQuoted, 0) : SQLITE_NOMEM;
    sqlite3_str_appendall(pStr, ";\n");
    sqlite3_free(zName);
    sqlite3_free(zQuoted);
  }
  sqlite3_free(zKs);
  return rc;
}

/* widecol_ddl(t, 'cql'): what STORAGE CASSANDRA makes of the design where
** its CREATE takes it (the same check, key/wc_schema.h); else that CREATE's
** refusal and the nearest CQL table, with comments on what differs. */
static int cqlDdl(sqlite3_str *pStr, WcVtab *pTab){
  const WcSchema *pS = wcTableSchema(pTab);
  char *zRefusal = wcSchemaKindRefusal(pS, WC_STORE_CASSANDRA);
  WcCqlKey key;
  if( zRefusal == 0 ) return cqlStoreTables(pStr, pTab);
  sqlite3_str_appendf(pStr, "-- STORAGE CASSANDRA refuses this design as "
                      "it is (%s); the nearest CQL table:\n", zRefusal);
  sqlite3_free(zRefusal);
  if( wcCqlKey(pS, -1, WC_CQL_ROW_FIELDS, &key) != SQLITE_OK ){
    return SQLITE_NOMEM;
  }
  cqlCreate(pStr, pS, &key, wcTableName(pTab));
  wcCqlKeyFree(&key);
  return SQLITE_OK;
}

/* The function's result: the text built in pStr, or its error. */
static void resultStr(sqlite3_context *ctx, sqlite3_str *pStr){
  int rc = sqlite3_str_errcode(pStr);
  if( rc != SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(pStr));
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(pStr), -1, sqlite3_free);
}

void wcDdlFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  const char *zFor = (const char*)sqlite3_value_text(argv[1]);
  sqlite3_str *pStr;
  WcSplits splits;
  const WcSchema *pS;
  const char *zTable, *zKind;
  char *zErr = 0, *zIdx;
  WcVtab *pTab;
  int bHBase, bCql, nRegion = 0, rc = SQLITE_OK, i;
  int64_t nRow = 0;
  memset(&splits, 0, sizeof(splits));
  if( zName == 0 || zFor == 0 ) return;
  bHBase = sqlite3_stricmp(zFor, "hbase") == 0;
  bCql = sqlite3_stricmp(zFor, "cql") == 0;
  if( !bHBase && !bCql && sqlite3_stricmp(zFor, "bigtable") != 0 ){
    sqlite3_result_error(ctx, "widecol_ddl(table, store [, regions]): store "
        "is 'hbase' (the HBase shell's create), 'bigtable' (cbt's "
        "commands) or 'cql' (Cassandra's CREATE TABLE)", -1);
    return;
  }
  if( argc > 2 ){
    sqlite3_int64 n = sqlite3_value_int64(argv[2]);
    if( sqlite3_value_numeric_type(argv[2]) != SQLITE_INTEGER || n < 1
     || n > WC_DDL_MAX_REGIONS ){
      zErr = sqlite3_mprintf("widecol_ddl(table, store, regions): regions "
          "is the number of regions to split the table's rows into, an "
          "integer from 1 to %d, not %s", WC_DDL_MAX_REGIONS,
          sqlite3_value_text(argv[2]) ? (const char*)sqlite3_value_text(argv[2])
                                      : "NULL");
      sqlite3_result_error(ctx, zErr, -1);
      sqlite3_free(zErr);
      return;
    }
    nRegion = (int)n;
  }
  rc = wcTableLookup(sqlite3_context_db_handle(ctx), zName,
                     "widecol_ddl(table, store)", &pTab, &zErr);
  if( rc != SQLITE_OK ){
    if( zErr ) sqlite3_result_error(ctx, zErr, -1);
    else sqlite3_result_error_code(ctx, rc);
    sqlite3_free(zErr);
    return;
  }
  pS = wcTableSchema(pTab);
  if( bCql ){
    pStr = sqlite3_str_new(0);
    if( cqlDdl(pStr, pTab) != SQLITE_OK ){
      sqlite3_free(sqlite3_str_finish(pStr));
      sqlite3_result_error_nomem(ctx);
      return;
    }
    resultStr(ctx, pStr);
    return;
  }
  /* For the engine the rows are in, the tables are named by STORAGE;
  ** elsewhere (an HBase table, a new Bigtable one) the table takes the
  ** widecol table's name. */
  zKind = wcStoreCaps(wcTableStore(pTab))->pKind->zWord;
  zTable = zKind && sqlite3_stricmp(zKind, zFor) == 0 ? pS->zStorageTable
                                                     : wcTableName(pTab);
  pStr = sqlite3_str_new(0);
  if( bHBase && zTable == pS->zStorageTable && strchr(pS->zStorage, ':') ){
    /* The HBase store names its tables in full, namespace and all, and
    ** makes the namespace where it is missing (which the shell's
    ** create_namespace refuses to do twice). */
    const char *zColon = strchr(pS->zStorage, ':');
    char *zNs = sqlite3_mprintf("%.*s", (int)(zColon - pS->zStorage),
                                pS->zStorage);
    if( zNs == 0 ){
      sqlite3_free(sqlite3_str_finish(pStr));
      sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_str_appendall(pStr, "# widecol's CREATE makes the namespace "
                          "where it is missing: leave this line out if ");
    appendRuby(pStr, zNs);
    sqlite3_str_appendall(pStr, " exists\ncreate_namespace ");
    appendRuby(pStr, zNs);
    sqlite3_str_appendall(pStr, "\n");
    sqlite3_free(zNs);
    zTable = pS->zStorage;
  }
  for(i = -1; i < pS->nIndex && rc == SQLITE_OK; i++){
    rc = nRegion ? dataSplits(pTab, i, nRegion, &splits, &nRow)
                 : wcDesignSplits(i < 0 ? pS : pS->aIndex[i].pKey, &splits);
    if( rc != SQLITE_OK ) break;
    zIdx = i < 0 ? 0 : sqlite3_mprintf("%s_idx_%s", zTable,
                                       pS->aIndex[i].zName);
    if( bHBase ) hbaseCreate(pStr, pS, zIdx ? zIdx : zTable, i < 0, &splits);
    else cbtCreate(pStr, pS, zIdx ? zIdx : zTable, i < 0, &splits);
    if( nRegion > 1 && splits.n + 1 < nRegion ){
      sqlite3_str_appendf(pStr, "# %d regions asked for, %d made: a region "
          "begins at a row, and this table has %lld\n", nRegion,
          splits.n + 1, (long long)nRow);
    }
    sqlite3_free(zIdx);
    wcSplitsFree(&splits);
  }
  if( rc != SQLITE_OK ){
    wcSplitsFree(&splits);
    sqlite3_free(sqlite3_str_finish(pStr));
    if( rc == SQLITE_NOMEM ) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error(ctx, sqlite3_errmsg(wcTableDb(pTab)), -1);
    return;
  }
  resultStr(ctx, pStr);
}
