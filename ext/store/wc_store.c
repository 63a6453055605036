/*
** wc_store.c: the ordinary tables behind a widecol table <name>.
**
**   <name>_rows       rowkey BLOB PRIMARY KEY and every column that is in
**                     no family, WITHOUT ROWID: byte order is the key order
**                     an HBase region would have;
**   <name>_cf_<f>     FAMILY f: rowkey and its columns, a row only when
**                     one of them is not NULL (HBase stores no empty
**                     family);
**   <name>_idx_<i>    INDEX i: ikey BLOB PRIMARY KEY (the index key, then
**                     the row key), rowkey, and the columns it holds;
**   <name>_versions   VERSIONS n > 1: the older versions of each row,
**                     PRIMARY KEY(rowkey, rowtime DESC), every column.
**
** On a versioned table (VERSIONS or TTL) <name>_rows also has rowtime: the
** latest version's timestamp.  The latest version is the row as today's
** tables hold it, so a read of the latest costs what it always did; the
** families and indexes hold the latest version only (under a TTL the index
** tables its rowtime too, which every scan filters by).
**
** This file creates, checks, renames and drops them, and keeps their
** prepared statements: each kind is prepared once and reused, with a pool
** so that several cursors on one table (a self-join) each have their own.
** A scan of the row table joins the families whose columns it reads; a
** scan of an index table joins the row table only when the index does not
** hold every column the query reads.
*/
#include "store/wc_store.h"
#include "util/wc_error.h"
#include "key/wc_splits.h"
#include "key/rk_bytes.h"
#include "store/wc_contract.h"
#include "util/wc_ask.h"
#include "util/wc_buf.h"

#include <math.h>
#include <string.h>

static int columnUsed(uint64_t colUsed, int iCol){
  return ((colUsed >> (iCol < 63 ? iCol : 63)) & 1) != 0;
}

static const WcStoreCaps *capsOf(const WcSchema *pS){
  return wcStoreKind(pS->eStore);
}

const WcStoreCaps *wcStoreCaps(const WcStore *p){
  return p->pCaps;
}

int wcStoreInit(WcStore *p, sqlite3 *db, const char *zDb, const char *zName,
                WcSchema *pSchema, sqlite3_vtab *pVtab){
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pSchema = pSchema;
  p->pCaps = capsOf(pSchema);
  p->pVtab = pVtab;
  p->iStampCol = -1;
  p->zDb = sqlite3_mprintf("%s", zDb);
  p->zName = sqlite3_mprintf("%s", zName);
  return p->zDb && p->zName ? SQLITE_OK : SQLITE_NOMEM;
}

/* True if p's store is a module of another library that the connection
** has not loaded (asked of SQLite, not read from an error's text). */
static int storeModuleMissing(WcStore *p){
  const char *zModule = p->pCaps->pKind->zModule;
  return zModule && !wcAskRow(p->db, "SELECT 1 FROM pragma_module_list "
                              "WHERE name = ?1", zModule, 1);
}

int wcStoreError(WcStore *p, int rc){
  if( p->pCaps->bStoreMessages ){
    return wcVtabError(p->pVtab, rc, "%s", sqlite3_errmsg(p->db));
  }
  return wcVtabError(p->pVtab, rc, "widecol %s: %s", p->zName,
                     sqlite3_errmsg(p->db));
}

/* The family table holding column iCol, or -1 for the row table (every
** column, on a store whose families live in the row). */
static int familyTable(const WcSchema *pS, int iCol){
  return capsOf(pS)->bRowFamilies ? -1 : pS->aCol[iCol].iFamily;
}

/* The number of family tables. */
static int familyTables(const WcSchema *pS){
  return capsOf(pS)->bRowFamilies ? 0 : pS->nFamily;
}

void wcStoreAppendTable(sqlite3_str *pStr, const WcStore *p, int iFamily,
                        int iIndex){
  const WcSchema *pS = p->pSchema;
  if( iFamily == WC_TABLE_VERSIONS ){
    sqlite3_str_appendf(pStr, "\"%w\".\"%w_versions\"", p->zDb, p->zName);
  }else if( iFamily >= 0 ){
    sqlite3_str_appendf(pStr, "\"%w\".\"%w_cf_%w\"", p->zDb, p->zName,
                        pS->aFamily[iFamily].zName);
  }else if( iIndex >= 0 ){
    sqlite3_str_appendf(pStr, "\"%w\".\"%w_idx_%w\"", p->zDb, p->zName,
                        pS->aIndex[iIndex].zName);
  }else{
    sqlite3_str_appendf(pStr, "\"%w\".\"%w_rows\"", p->zDb, p->zName);
  }
}

void wcStoreAppendRowsSelect(sqlite3_str *pStr, const WcStore *p,
                             const char *zRuns){
  const WcSchema *pS = p->pSchema;
  int i;
  sqlite3_str_appendall(pStr, "SELECT r.rowkey AS rowkey");
  for(i = 0; i < pS->nCol; i++){
    if( familyTable(pS, i) >= 0 ){
      sqlite3_str_appendf(pStr, ", f%d.\"%w\" AS \"%w\"", pS->aCol[i].iFamily,
                          pS->aCol[i].zName, pS->aCol[i].zName);
    }else{
      sqlite3_str_appendf(pStr, ", r.\"%w\" AS \"%w\"", pS->aCol[i].zName,
                          pS->aCol[i].zName);
    }
  }
  if( pS->bVersioned ) sqlite3_str_appendall(pStr, ", r.rowtime AS rowtime");
  sqlite3_str_appendall(pStr, " FROM ");
  if( zRuns ) sqlite3_str_appendf(pStr, "%s AS b CROSS JOIN ", zRuns);
  if( pS->bExisting ){
    /* Its key fields are in its keys: read through the widecol table,
    ** which reads them there. */
    sqlite3_str_appendf(pStr, "\"%w\".\"%w\"", p->zDb, p->zName);
  }else{
    wcStoreAppendTable(pStr, p, -1, -1);
  }
  sqlite3_str_appendall(pStr, " AS r");
  if( zRuns ){
    sqlite3_str_appendall(pStr, " ON r.rowkey BETWEEN b.column1 AND "
                                "b.column2");
  }
  for(i = 0; i < familyTables(pS); i++){
    sqlite3_str_appendall(pStr, " LEFT JOIN ");
    wcStoreAppendTable(pStr, p, i, -1);
    sqlite3_str_appendf(pStr, " AS f%d ON f%d.rowkey = r.rowkey", i, i);
  }
}

/* True if column iCol is a column of the table (row table: iFamily -1),
** or of index iIndex's table. */
static int storedIn(const WcSchema *pS, int iCol, int iFamily, int iIndex){
  if( iIndex >= 0 ) return pS->aIndex[iIndex].abStored[iCol];
  return iFamily == WC_TABLE_VERSIONS || familyTable(pS, iCol) == iFamily;
}

/* True if a scan selecting colUsed reads rowtime. */
static int readsRowtime(const WcSchema *pS, uint64_t colUsed){
  return pS->bVersioned && columnUsed(colUsed, WC_COL_ROWTIME(pS));
}

/* True if the table has a rowtime column: the row table and the versions
** table of a versioned table, and under a TTL each index's table (every
** scan filters by it, and an index that holds it needs no row lookup). */
static int hasRowtime(const WcSchema *pS, int iFamily, int iIndex){
  if( iIndex >= 0 ) return pS->nTtl > 0;
  return pS->bVersioned && (iFamily == -1 || iFamily == WC_TABLE_VERSIONS);
}

/* SPLITS for the engine's table of the rows or of an INDEX (pS its key;
** wcDesignSplits()), as blob literals: widecol_ddl() writes the same. */
static int appendSplits(sqlite3_str *pStr, const WcSchema *pS){
  WcSplits splits;
  int k, rc;
  memset(&splits, 0, sizeof(splits));
  rc = wcDesignSplits(pS, &splits);
  for(k = 0; rc == SQLITE_OK && k < splits.n; k++){
    int64_t j;
    sqlite3_str_appendall(pStr, k ? " x'" : ", SPLITS x'");
    for(j = 0; j < splits.a[k].n; j++){
      sqlite3_str_appendf(pStr, "%02x", splits.a[k].a[j]);
    }
    sqlite3_str_appendall(pStr, "'");
  }
  wcSplitsFree(&splits);
  return rc;
}

/* On a store of another engine each table is a virtual table of the
** store's module (the statement is the store contract, ext/store/README.md;
** on Bigtable, widecol_bigtable): the row table the engine's table STORAGE
** names, with each FAMILY a column family and the other columns in family
** "_"; an index's table the engine's table <table>_idx_<index>.  A
** versioned table's rowtime is its cells' timestamp (ROWTIME), VERSIONS
** and TTL its GC rule, and <name>_versions shows the same engine table's
** older cells (OLDER); under a TTL each index's cells carry their row's
** rowtime and age out with it. */
static int createInModule(WcStore *p, int iFamily, int iIndex){
  sqlite3_str *pStr;
  const WcSchema *pS = p->pSchema;
  const WcStoreCaps *pCaps = p->pCaps;
  char *zSql;
  int i, rc;
  if( storeModuleMissing(p) ){
    const WcKind *pKind = pCaps->pKind;
    return wcVtabError(p->pVtab, SQLITE_ERROR, "widecol %s: STORAGE %s needs "
        "the %s store: load %s too (.load ./%s, after %s)", p->zName,
        pKind->zWord, pKind->zEngine, pKind->zModule, pKind->zModule,
        pKind->zBuild);
  }
  pStr = sqlite3_str_new(p->db);
  sqlite3_str_appendall(pStr, "CREATE VIRTUAL TABLE ");
  wcStoreAppendTable(pStr, p, iFamily, iIndex);
  if( iIndex >= 0 ){
    /* An index's entries, verified against the row table's marker. */
    sqlite3_str_appendf(pStr, " USING %s('%q_idx_%q', ikey, rowkey _, "
                        "ENTRIES OF %Q %d", pCaps->pKind->zModule, pS->zStorage,
                        pS->aIndex[iIndex].zName, pS->zStorage, iIndex);
  }else if( pS->bExisting ){
    /* A table made elsewhere: only its cells, nothing of widecol's. */
    sqlite3_str_appendf(pStr, " USING %s(%Q, rowkey, EXISTING%s",
                        pCaps->pKind->zModule, pS->zStorage,
                        pS->bWritable ? ", WRITABLE" : "");
  }else{
    sqlite3_str_appendf(pStr, " USING %s(%Q, rowkey, STAMPS %d",
                        pCaps->pKind->zModule, pS->zStorage, pS->nIndex);
  }
  /* For messages: its name less this suffix is the widecol table's (so
  ** after a RENAME too), and what its row key is made from. */
  if( iIndex < 0 ){
    char *zFields = wcKeyFields(pS);
    sqlite3_str_appendf(pStr, ", KEYS %Q", zFields ? zFields : "?");
    sqlite3_free(zFields);
  }
  /* Who made it (a new id per table: the module records it with the
  ** design, and DROP deletes only what its own CREATE made), and how its
  ** rows are stored, for another database taking it over. */
  if( !pS->bExisting ){
    unsigned char aId[8];
    sqlite3_randomness(sizeof(aId), aId);
    sqlite3_str_appendf(pStr, ", OWNER '%02x%02x%02x%02x%02x%02x%02x%02x'",
                        aId[0], aId[1], aId[2], aId[3], aId[4], aId[5],
                        aId[6], aId[7]);
  }
  if( pS->zDesign ) sqlite3_str_appendf(pStr, ", DESIGN %Q", pS->zDesign);
  if( pS->bExternal ) sqlite3_str_appendall(pStr, ", EXTERNAL");
  sqlite3_str_appendf(pStr, ", SUFFIX '");
  if( iIndex >= 0 ){
    sqlite3_str_appendf(pStr, "_idx_%q", pS->aIndex[iIndex].zName);
  }else{
    sqlite3_str_appendall(pStr, iFamily == WC_TABLE_VERSIONS ? "_versions"
                                                             : "_rows");
  }
  sqlite3_str_appendall(pStr, "'");
  for(i = 0; i < pS->nCol; i++){
    static const char *const azCell[] = { "STRING", "LONG", "DOUBLE", "BYTES" };
    const WcColumn *pCol = &pS->aCol[i];
    if( !storedIn(pS, i, iFamily, iIndex) ) continue;
    if( pS->bExisting && pCol->eCell == 0 ){
      /* A key field: read from the key, never a cell. */
      sqlite3_str_appendf(pStr, ", \"%w\" KEY", pCol->zName);
    }else if( pS->bExisting ){
      sqlite3_str_appendf(pStr, ", \"%w\" %s CELL %Q %s", pCol->zName,
                          pCol->zCellFamily, pCol->zCellQualifier,
                          azCell[pCol->eCell - WC_CELL_STRING]);
    }else{
      sqlite3_str_appendf(pStr, ", \"%w\" %s", pCol->zName,
                          iIndex < 0 && pCol->iFamily >= 0
                          ? pS->aFamily[pCol->iFamily].zName : "_");
    }
  }
  if( hasRowtime(pS, iFamily, iIndex) ){
    sqlite3_str_appendall(pStr, ", ROWTIME");
    if( iFamily == WC_TABLE_VERSIONS ){
      sqlite3_str_appendall(pStr, ", OLDER");
    }else{
      sqlite3_str_appendf(pStr, ", VERSIONS %d", iIndex < 0 ? pS->nVersions
                                                            : 1);
    }
    if( pS->nTtl > 0 ){
      sqlite3_str_appendf(pStr, ", TTL %lld", (long long)pS->nTtl);
    }
  }
  rc = iFamily == -1 ? appendSplits(pStr, iIndex < 0 ? pS
                                                    : pS->aIndex[iIndex].pKey)
                     : SQLITE_OK;
  sqlite3_str_appendall(pStr, ")");
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 || rc != SQLITE_OK ){
    sqlite3_free(zSql);
    return SQLITE_NOMEM;
  }
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK && rc != SQLITE_NOMEM ) rc = wcStoreError(p, rc);
  return rc;
}

/* Runs each CREATE TABLE in turn. */
static int createOne(WcStore *p, int iFamily, int iIndex){
  sqlite3_str *pStr;
  const WcSchema *pS = p->pSchema;
  char *zSql;
  int i, rc;
  if( p->pCaps->pKind->zModule ) return createInModule(p, iFamily, iIndex);
  pStr = sqlite3_str_new(p->db);
  sqlite3_str_appendall(pStr, "CREATE TABLE ");
  wcStoreAppendTable(pStr, p, iFamily, iIndex);
  sqlite3_str_appendall(pStr, iIndex >= 0
      ? "(ikey BLOB PRIMARY KEY, rowkey BLOB NOT NULL"
      : iFamily == WC_TABLE_VERSIONS
      ? "(rowkey BLOB NOT NULL, rowtime INTEGER NOT NULL"
      : "(rowkey BLOB PRIMARY KEY");
  for(i = 0; i < pS->nCol; i++){
    const WcColumn *pCol = &pS->aCol[i];
    if( !storedIn(pS, i, iFamily, iIndex) ) continue;
    sqlite3_str_appendf(pStr, ", \"%w\"", pCol->zName);
    if( pCol->zType[0] ) sqlite3_str_appendf(pStr, " %s", pCol->zType);
    if( pCol->zColl ) sqlite3_str_appendf(pStr, " COLLATE \"%w\"", pCol->zColl);
  }
  if( iFamily == WC_TABLE_VERSIONS ){
    /* A key's versions newest first: the order reads want them in. */
    sqlite3_str_appendall(pStr, ", PRIMARY KEY(rowkey, rowtime DESC)");
  }else if( hasRowtime(pS, iFamily, iIndex) ){
    sqlite3_str_appendall(pStr, ", rowtime INTEGER NOT NULL");
  }
  sqlite3_str_appendall(pStr, ") WITHOUT ROWID");
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

/* Calls xOne for the row table, the versions table, each family's and
** each index's table, until one fails. */
static int forEachTable(WcStore *p, int (*xOne)(WcStore*, int, int)){
  int i, rc = xOne(p, -1, -1);
  if( rc == SQLITE_OK && p->pSchema->nVersions > 1 ){
    rc = xOne(p, WC_TABLE_VERSIONS, -1);
  }
  for(i = 0; rc == SQLITE_OK && i < familyTables(p->pSchema); i++){
    rc = xOne(p, i, -1);
  }
  for(i = 0; rc == SQLITE_OK && i < p->pSchema->nIndex; i++){
    rc = xOne(p, -1, i);
  }
  return rc;
}

int wcStoreCreate(WcStore *p){
  return forEachTable(p, createOne);
}

/* On reopening a database, each table must still be there with every
** column, or nothing would make sense. */
static int checkOne(WcStore *p, int iFamily, int iIndex){
  int bMissing = storeModuleMissing(p);    /* asked before errmsg is set */
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  const WcSchema *pS = p->pSchema;
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc, i;
  sqlite3_str_appendall(pStr, iIndex >= 0 ? "SELECT ikey, rowkey"
                                          : "SELECT rowkey");
  for(i = 0; i < pS->nCol; i++){
    if( storedIn(pS, i, iFamily, iIndex) ){
      sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
    }
  }
  if( hasRowtime(pS, iFamily, iIndex) ){
    sqlite3_str_appendall(pStr, ", rowtime");
  }
  sqlite3_str_appendall(pStr, " FROM ");
  wcStoreAppendTable(pStr, p, iFamily, iIndex);
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  sqlite3_finalize(pStmt);
  if( rc != SQLITE_OK && bMissing ){
    const WcKind *pKind = p->pCaps->pKind;
    rc = wcVtabError(p->pVtab, rc, "widecol %s: its rows are in %s (STORAGE "
        "%s %Q): load the %s store too (.load ./%s)", p->zName,
        pKind->zEngine, pKind->zWord, pS->zStorage, pKind->zEngine,
        pKind->zModule);
  }else if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
    rc = wcVtabError(p->pVtab, rc, "widecol %s: its table %s_%s%s is missing or "
        "lacks a column (%s)", p->zName, p->zName,
        iFamily >= 0 ? "cf_" : iIndex >= 0 ? "idx_"
        : iFamily == WC_TABLE_VERSIONS ? "versions" : "rows",
        iFamily >= 0 ? pS->aFamily[iFamily].zName
        : iIndex >= 0 ? pS->aIndex[iIndex].zName : "", sqlite3_errmsg(p->db));
  }
  return rc;
}

int wcStoreCheck(WcStore *p){
  return forEachTable(p, checkOne);
}

static int execOn(WcStore *p, const char *zBefore, int iFamily, int iIndex,
                  const char *zAfter){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  char *zSql;
  int rc;
  sqlite3_str_appendall(pStr, zBefore);
  wcStoreAppendTable(pStr, p, iFamily, iIndex);
  sqlite3_str_appendall(pStr, zAfter);
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(p->db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

static int dropOne(WcStore *p, int iFamily, int iIndex){
  return execOn(p, "DROP TABLE IF EXISTS ", iFamily, iIndex, "");
}

int wcStoreDrop(WcStore *p){
  wcStoreClose(p);
  return forEachTable(p, dropOne);
}

int wcStoreRename(WcStore *p, const char *zNew){
  const WcSchema *pS = p->pSchema;
  char *zName = sqlite3_mprintf("%s", zNew);
  char *zTo;
  int rc, i;
  if( zName == 0 ) return SQLITE_NOMEM;
  wcStoreClose(p);
  zTo = sqlite3_mprintf(" RENAME TO \"%w_rows\"", zNew);
  rc = zTo ? execOn(p, "ALTER TABLE ", -1, -1, zTo) : SQLITE_NOMEM;
  sqlite3_free(zTo);
  if( rc == SQLITE_OK && pS->nVersions > 1 ){
    zTo = sqlite3_mprintf(" RENAME TO \"%w_versions\"", zNew);
    rc = zTo ? execOn(p, "ALTER TABLE ", WC_TABLE_VERSIONS, -1, zTo)
             : SQLITE_NOMEM;
    sqlite3_free(zTo);
  }
  for(i = 0; rc == SQLITE_OK && i < familyTables(pS); i++){
    zTo = sqlite3_mprintf(" RENAME TO \"%w_cf_%w\"", zNew,
                          pS->aFamily[i].zName);
    rc = zTo ? execOn(p, "ALTER TABLE ", i, -1, zTo) : SQLITE_NOMEM;
    sqlite3_free(zTo);
  }
  for(i = 0; rc == SQLITE_OK && i < pS->nIndex; i++){
    zTo = sqlite3_mprintf(" RENAME TO \"%w_idx_%w\"", zNew,
                          pS->aIndex[i].zName);
    rc = zTo ? execOn(p, "ALTER TABLE ", -1, i, zTo) : SQLITE_NOMEM;
    sqlite3_free(zTo);
  }
  if( rc == SQLITE_OK ){
    sqlite3_free(p->zName);
    p->zName = zName;
    sqlite3_free(p->pSchema->zTable);
    p->pSchema->zTable = sqlite3_mprintf("%s", zNew);
    if( p->pSchema->zTable == 0 ) rc = SQLITE_NOMEM;
    for(i = 0; i < pS->nIndex; i++){
      pS->aIndex[i].pKey->zTable = p->pSchema->zTable;
    }
  }else{
    sqlite3_free(zName);
  }
  return rc;
}

/* True if a scan selecting colUsed reads the rows' stamps (_stamp). */
static int readsStamps(const WcStore *p, uint64_t colUsed){
  return p->iStampCol >= 0 && columnUsed(colUsed, p->iStampCol);
}

int wcStoreCovers(const WcStore *p, int iPath, uint64_t colUsed){
  const WcSchema *pS = p->pSchema;
  int i;
  if( iPath == 0 ) return 1;
  /* Without a TTL only the row table knows a row's rowtime; only it knows
  ** its stamps. */
  if( readsRowtime(pS, colUsed) && !hasRowtime(pS, -1, iPath - 1) ) return 0;
  if( readsStamps(p, colUsed) ) return 0;
  for(i = 0; i < pS->nCol; i++){
    if( columnUsed(colUsed, i) && !pS->aIndex[iPath - 1].abStored[i] ){
      return 0;
    }
  }
  return 1;
}

int wcStoreScanColumns(const WcStore *p, int iPath, uint64_t colUsed,
                       int *aiStmtCol){
  const WcSchema *pS = p->pSchema;
  int nCol = pS->nCol, i, n = iPath > 0 ? 2 : 1;
  aiStmtCol[nCol] = 0;
  aiStmtCol[nCol + 1] = iPath > 0 ? 1 : 0;
  for(i = 0; i < nCol; i++){
    aiStmtCol[i] = columnUsed(colUsed, i) ? n++ : -1;
  }
  aiStmtCol[nCol + 2] = readsRowtime(pS, colUsed) ? n++ : -1;
  aiStmtCol[nCol + 3] = readsStamps(p, colUsed) ? n++ : -1;
  return n;
}

/* The expression for column iCol in a scan of path iPath: from the index
** table x when it holds the column, else the row table r or family fN. */
static void appendColumnExpr(sqlite3_str *pStr, const WcSchema *pS,
                             int iPath, int bCovered, int iCol){
  const WcColumn *pCol = &pS->aCol[iCol];
  if( iPath > 0 && (bCovered || pS->aIndex[iPath - 1].abStored[iCol]) ){
    sqlite3_str_appendf(pStr, "x.\"%w\"", pCol->zName);
  }else if( familyTable(pS, iCol) >= 0 ){
    sqlite3_str_appendf(pStr, "f%d.\"%w\"", pCol->iFamily, pCol->zName);
  }else{
    sqlite3_str_appendf(pStr, "r.\"%w\"", pCol->zName);
  }
}

/* "FROM <row table> AS r LEFT JOIN <family> AS fN ..." for the families
** holding a column in colUsed that the index (if any) does not hold. */
static void appendRowSource(sqlite3_str *pStr, const WcStore *p, int iPath,
                            uint64_t colUsed){
  const WcSchema *pS = p->pSchema;
  int iFam, i;
  wcStoreAppendTable(pStr, p, -1, -1);
  sqlite3_str_appendall(pStr, " AS r");
  if( iPath > 0 ) sqlite3_str_appendall(pStr, " ON r.rowkey = x.rowkey");
  for(iFam = 0; iFam < familyTables(pS); iFam++){
    for(i = 0; i < pS->nCol; i++){
      if( pS->aCol[i].iFamily == iFam && columnUsed(colUsed, i)
       && (iPath == 0 || !pS->aIndex[iPath - 1].abStored[i]) ){
        break;
      }
    }
    if( i == pS->nCol ) continue;
    sqlite3_str_appendall(pStr, " LEFT JOIN ");
    wcStoreAppendTable(pStr, p, iFam, -1);
    sqlite3_str_appendf(pStr, " AS f%d ON f%d.rowkey = r.rowkey", iFam, iFam);
  }
}

/* A scan of path iPath: the key scanned, for an index the row key, then
** the columns of colUsed (see wcStoreScanColumns).  The key is always
** column 0, so a scan of keys alone (probes) is colUsed 0 whatever the
** width of the table. */
static void appendScan(sqlite3_str *pStr, const WcStore *p, int eStmt,
                       int iPath, uint64_t colUsed){
  const WcSchema *pS = p->pSchema;
  int bHi = (eStmt - WC_STMT_SCAN) & 1;
  int bDesc = (eStmt - WC_STMT_SCAN) & 2;
  int bCovered = wcStoreCovers(p, iPath, colUsed);
  const char *zKey = iPath > 0 ? "x.ikey" : "r.rowkey";
  int i;
  sqlite3_str_appendf(pStr, "SELECT %s", zKey);
  if( iPath > 0 ) sqlite3_str_appendall(pStr, ", x.rowkey");
  for(i = 0; i < pS->nCol; i++){
    if( !columnUsed(colUsed, i) ) continue;
    sqlite3_str_appendall(pStr, ", ");
    appendColumnExpr(pStr, pS, iPath, bCovered, i);
  }
  if( readsRowtime(pS, colUsed) ){
    sqlite3_str_appendall(pStr, iPath > 0 && hasRowtime(pS, -1, iPath - 1)
                                ? ", x.rowtime" : ", r.rowtime");
  }
  if( readsStamps(p, colUsed) ) sqlite3_str_appendall(pStr, ", r._stamp");
  sqlite3_str_appendall(pStr, " FROM ");
  if( iPath > 0 ){
    wcStoreAppendTable(pStr, p, -1, iPath - 1);
    sqlite3_str_appendall(pStr, " AS x");
    /* CROSS JOIN keeps the index table outside: its order is the scan's. */
    if( !bCovered ){
      sqlite3_str_appendall(pStr, " CROSS JOIN ");
      appendRowSource(pStr, p, iPath, colUsed);
    }
  }else{
    appendRowSource(pStr, p, 0, colUsed);
  }
  if( eStmt == WC_STMT_SCAN_SET ){
    /* The store reads the set in one request (wc_contract.h). */
    sqlite3_str_appendf(pStr, " WHERE %s MATCH ?1 ORDER BY %s", zKey, zKey);
  }else{
    sqlite3_str_appendf(pStr, " WHERE %s >= ?1", zKey);
    if( bHi ) sqlite3_str_appendf(pStr, " AND %s < ?2", zKey);
    sqlite3_str_appendf(pStr, " ORDER BY %s%s", zKey, bDesc ? " DESC" : "");
  }
  sqlite3_str_appendf(pStr, " LIMIT ?%d", WC_PARAM_SCAN_ROWS);
}

/* "(c1, c2, ...) VALUES(?, ?3, ...)": the columns of a table in a write,
** each bound to its parameter ?(i + 2); zFirst leads both lists. */
static void appendInsertColumns(sqlite3_str *pStr, const WcSchema *pS,
                                int iFamily, int iIndex, const char *zFirst,
                                const char *zFirstValue, int iStampParam){
  int i;
  sqlite3_str_appendf(pStr, "(%s", zFirst);
  for(i = 0; i < pS->nCol; i++){
    if( storedIn(pS, i, iFamily, iIndex) ){
      sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
    }
  }
  if( hasRowtime(pS, iFamily, iIndex) ){
    sqlite3_str_appendall(pStr, ", rowtime");
  }
  if( iStampParam ) sqlite3_str_appendall(pStr, ", _stamp");
  sqlite3_str_appendf(pStr, ") VALUES(%s", zFirstValue);
  for(i = 0; i < pS->nCol; i++){
    if( storedIn(pS, i, iFamily, iIndex) ){
      sqlite3_str_appendf(pStr, ", ?%d", i + 2);
    }
  }
  if( hasRowtime(pS, iFamily, iIndex) ){
    sqlite3_str_appendf(pStr, ", ?%d", WC_PARAM_ROWTIME(pS));
  }
  if( iStampParam ) sqlite3_str_appendf(pStr, ", ?%d", iStampParam);
  sqlite3_str_appendall(pStr, ")");
}

static char *statementSql(WcStore *p, int eStmt, int iObj, uint64_t colUsed){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  const WcSchema *pS = p->pSchema;
  int bStamps = wcStoreCaps(p)->bStamps;
  char zKeyParam[16], zIdxFirst[24];
  int i, nSet = 0;
  sqlite3_snprintf(sizeof(zKeyParam), zKeyParam, "?%d", pS->nCol + 2);
  sqlite3_snprintf(sizeof(zIdxFirst), zIdxFirst, "?%d, ?1", pS->nCol + 2);
  switch( eStmt ){
    case WC_STMT_INSERT:
    case WC_STMT_INSERT_NOW:
    case WC_STMT_REPLACE:
      sqlite3_str_appendf(pStr, "INSERT %sINTO ",
                          eStmt == WC_STMT_REPLACE ? "OR REPLACE "
                          : eStmt == WC_STMT_INSERT_NOW ? "OR FAIL " : "");
      wcStoreAppendTable(pStr, p, -1, -1);
      appendInsertColumns(pStr, pS, -1, -1, "rowkey", "?1",
                          bStamps ? WC_PARAM_STAMPS(pS) : 0);
      break;
    case WC_STMT_DELETE:
      sqlite3_str_appendall(pStr, "DELETE FROM ");
      wcStoreAppendTable(pStr, p, -1, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1");
      if( bStamps ){
        sqlite3_str_appendf(pStr, " AND _stamp = ?%d", WC_PARAM_EXPECT(pS));
      }
      break;
    case WC_STMT_UPDATE:
    case WC_STMT_UPDATE_NOW:
      sqlite3_str_appendf(pStr, "UPDATE %s", eStmt == WC_STMT_UPDATE_NOW
                                             ? "OR FAIL " : "");
      wcStoreAppendTable(pStr, p, -1, -1);
      for(i = 0; i < pS->nCol; i++){
        if( familyTable(pS, i) >= 0 ) continue;
        sqlite3_str_appendf(pStr, "%s \"%w\" = ?%d", nSet++ ? "," : " SET",
                            pS->aCol[i].zName, i + 2);
      }
      if( pS->bVersioned ){
        sqlite3_str_appendf(pStr, "%s rowtime = ?%d", nSet++ ? "," : " SET",
                            WC_PARAM_ROWTIME(pS));
      }
      if( bStamps ){
        sqlite3_str_appendf(pStr, "%s _stamp = ?%d", nSet++ ? "," : " SET",
                            WC_PARAM_STAMPS(pS));
      }
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1");
      if( bStamps ){
        sqlite3_str_appendf(pStr, " AND _stamp = ?%d", WC_PARAM_EXPECT(pS));
      }
      break;
    case WC_STMT_READ:
    case WC_STMT_READ_AHEAD:
      sqlite3_str_appendall(pStr, "SELECT ");
      for(i = 0; i < pS->nCol; i++){
        sqlite3_str_appendall(pStr, i ? ", " : "");
        appendColumnExpr(pStr, pS, 0, 0, i);
      }
      if( pS->bVersioned ) sqlite3_str_appendall(pStr, ", r.rowtime");
      if( bStamps ) sqlite3_str_appendall(pStr, ", r._stamp");
      if( eStmt == WC_STMT_READ_AHEAD ){
        sqlite3_str_appendall(pStr, ", r.rowkey FROM ");
        appendRowSource(pStr, p, 0, ~(uint64_t)0);
        sqlite3_str_appendall(pStr, " WHERE r.rowkey >= ?1 ORDER BY r.rowkey "
                                    "LIMIT ?2");
      }else{
        sqlite3_str_appendall(pStr, " FROM ");
        appendRowSource(pStr, p, 0, ~(uint64_t)0);
        sqlite3_str_appendall(pStr, " WHERE r.rowkey = ?1");
      }
      break;
    case WC_STMT_FAMILY_PUT:
      sqlite3_str_appendall(pStr, "INSERT OR REPLACE INTO ");
      wcStoreAppendTable(pStr, p, iObj, -1);
      appendInsertColumns(pStr, pS, iObj, -1, "rowkey", "?1", 0);
      break;
    case WC_STMT_FAMILY_DEL:
      sqlite3_str_appendall(pStr, "DELETE FROM ");
      wcStoreAppendTable(pStr, p, iObj, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1");
      break;
    case WC_STMT_INDEX_PUT:
      /* An index key ends with the row key, so widecol's writes keep it
      ** unique; a plain INSERT makes a broken table (changed directly)
      ** an error.  Where entries are kept per write (stamps), a put adds
      ** the write's own entry beside any other. */
      sqlite3_str_appendall(pStr, bStamps ? "INSERT OR REPLACE INTO "
                                          : "INSERT INTO ");
      wcStoreAppendTable(pStr, p, -1, iObj);
      appendInsertColumns(pStr, pS, -1, iObj, "ikey, rowkey", zIdxFirst,
                          bStamps ? WC_PARAM_GROUP(pS) : 0);
      break;
    case WC_STMT_INDEX_DEL:
      sqlite3_str_appendall(pStr, "DELETE FROM ");
      wcStoreAppendTable(pStr, p, -1, iObj);
      sqlite3_str_appendf(pStr, " WHERE ikey = %s", zKeyParam);
      if( bStamps ){
        /* The old entry only, of the row written. */
        sqlite3_str_appendf(pStr, " AND rowkey = ?1 AND _stamp = ?%d",
                            WC_PARAM_GROUP(pS));
      }
      break;
    case WC_STMT_VERSION_PUT:
      sqlite3_str_appendall(pStr, "INSERT OR REPLACE INTO ");
      wcStoreAppendTable(pStr, p, WC_TABLE_VERSIONS, -1);
      appendInsertColumns(pStr, pS, WC_TABLE_VERSIONS, -1, "rowkey", "?1", 0);
      break;
    case WC_STMT_VERSION_DROP:
      sqlite3_str_appendall(pStr, "DELETE FROM ");
      wcStoreAppendTable(pStr, p, WC_TABLE_VERSIONS, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1");
      break;
    case WC_STMT_VERSION_TRIM:
      /* Older than the cutoff ?2, or past the ?3 newest. */
      sqlite3_str_appendall(pStr, "DELETE FROM ");
      wcStoreAppendTable(pStr, p, WC_TABLE_VERSIONS, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1 AND (rowtime < ?2 OR "
                                  "rowtime <= (SELECT rowtime FROM ");
      wcStoreAppendTable(pStr, p, WC_TABLE_VERSIONS, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey = ?1 ORDER BY rowtime DESC "
                                  "LIMIT 1 OFFSET ?3))");
      break;
    case WC_STMT_VERSION_READ:
      sqlite3_str_appendall(pStr, "SELECT rowkey, rowtime");
      for(i = 0; i < pS->nCol; i++){
        sqlite3_str_appendf(pStr, ", \"%w\"", pS->aCol[i].zName);
      }
      sqlite3_str_appendall(pStr, " FROM ");
      wcStoreAppendTable(pStr, p, WC_TABLE_VERSIONS, -1);
      sqlite3_str_appendall(pStr, " WHERE rowkey >= ?1 ORDER BY rowkey, "
                                  "rowtime DESC");
      break;
    default:
      appendScan(pStr, p, eStmt, iObj, colUsed);
      break;
  }
  return sqlite3_str_finish(pStr);
}

static int isScan(int eStmt){
  return (eStmt >= WC_STMT_SCAN && eStmt < WC_STMT_SCAN + 4)
      || eStmt == WC_STMT_SCAN_SET;
}

/* Pools kept per table: writes use a few, and scans one per set of
** columns read, of which an application may prepare any number.  Beyond
** this many, the pool used least recently goes, so memory stays flat. */
#define WC_POOL_MAX 48

static void poolFree(WcStmtPool *pPool){
  int i;
  for(i = 0; i < pPool->n; i++) sqlite3_finalize(pPool->ap[i]);
  sqlite3_free(pPool->ap);
  sqlite3_free(pPool);
}

/* The pool of a kind of statement, moved to the front of the list (the
** list is in order of use); NULL if there is none. */
static WcStmtPool *findPool(WcStore *p, int eStmt, int iObj, uint64_t colUsed){
  WcStmtPool **pp;
  if( !isScan(eStmt) ) colUsed = 0;
  for(pp = &p->pPool; *pp; pp = &(*pp)->pNext){
    WcStmtPool *pPool = *pp;
    if( pPool->eStmt == eStmt && pPool->iObj == iObj
     && pPool->colUsed == colUsed ){
      *pp = pPool->pNext;
      pPool->pNext = p->pPool;
      p->pPool = pPool;
      return pPool;
    }
  }
  return 0;
}

/* Drops the pools past the first WC_POOL_MAX. */
static void trimPools(WcStore *p){
  WcStmtPool *pPool = p->pPool;
  int i;
  for(i = 1; pPool && i < WC_POOL_MAX; i++) pPool = pPool->pNext;
  while( pPool && pPool->pNext ){
    WcStmtPool *pOld = pPool->pNext;
    pPool->pNext = pOld->pNext;
    poolFree(pOld);
  }
}

int wcStoreAcquire(WcStore *p, int eStmt, int iObj, uint64_t colUsed,
                   sqlite3_stmt **ppStmt){
  WcStmtPool *pPool = findPool(p, eStmt, iObj, colUsed);
  char *zSql;
  int rc;
  if( pPool && pPool->n > 0 ){
    *ppStmt = pPool->ap[--pPool->n];
    return SQLITE_OK;
  }
  zSql = statementSql(p, eStmt, iObj, colUsed);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v3(p->db, zSql, -1, SQLITE_PREPARE_PERSISTENT, ppStmt,
                          0);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    rc = wcVtabError(p->pVtab, rc, "widecol %s: %s", p->zName, sqlite3_errmsg(p->db));
  }
  return rc;
}

void wcStoreRelease(WcStore *p, int eStmt, int iObj, uint64_t colUsed,
                    sqlite3_stmt *pStmt){
  WcStmtPool *pPool;
  if( pStmt == 0 ) return;
  sqlite3_reset(pStmt);
  pPool = findPool(p, eStmt, iObj, colUsed);
  if( pPool == 0 ){
    pPool = sqlite3_malloc(sizeof(*pPool));
    if( pPool == 0 ){
      sqlite3_finalize(pStmt);
      return;
    }
    memset(pPool, 0, sizeof(*pPool));
    pPool->eStmt = eStmt;
    pPool->iObj = iObj;
    pPool->colUsed = isScan(eStmt) ? colUsed : 0;
    pPool->pNext = p->pPool;
    p->pPool = pPool;
    trimPools(p);
  }
  if( pPool->n == pPool->nAlloc ){
    int nNew = pPool->nAlloc ? pPool->nAlloc * 2 : 2;
    sqlite3_stmt **apNew = sqlite3_realloc64(pPool->ap,
                               sizeof(sqlite3_stmt*) * (sqlite3_uint64)nNew);
    if( apNew == 0 ){
      sqlite3_finalize(pStmt);
      return;
    }
    pPool->ap = apNew;
    pPool->nAlloc = nNew;
  }
  pPool->ap[pPool->n++] = pStmt;
}

void wcStoreClose(WcStore *p){
  while( p->pPool ){
    WcStmtPool *pPool = p->pPool;
    p->pPool = pPool->pNext;
    poolFree(pPool);
  }
}

void wcStoreFree(WcStore *p){
  wcStoreClose(p);
  sqlite3_free(p->zDb);
  sqlite3_free(p->zName);
  p->zDb = p->zName = 0;
}

int wcStoreSampleNext(const unsigned char *aSample, int64_t nSample,
                      int64_t *piOff, const unsigned char **paKey,
                      int64_t *pnKey, int64_t *pnBefore){
  int64_t i = *piOff, n;
  int k;
  if( i + 12 > nSample ) return 0;
  n = ((int64_t)aSample[i] << 24) | (aSample[i + 1] << 16)
    | (aSample[i + 2] << 8) | aSample[i + 3];
  if( i + 12 + n > nSample ) return 0;
  *paKey = aSample + i + 4;
  *pnKey = n;
  *pnBefore = 0;
  for(k = 0; k < 8; k++) *pnBefore = (*pnBefore << 8) | aSample[i + 4 + n + k];
  *piOff = i + 12 + n;
  return 1;
}

/* The length-prefixed bytes at a[*pi] (within n): 1 and *pa, *pnOut, with
** *pi moved past them; 0 if they overrun. */
static int loadBytes(const unsigned char *a, int64_t n, int64_t *pi,
                     const unsigned char **pa, int64_t *pnOut){
  int64_t nLen;
  if( *pi + 4 > n ) return 0;
  nLen = (int64_t)wcGetBe(a + *pi, 4);
  if( *pi + 4 + nLen > n ) return 0;
  *pa = a + *pi + 4;
  *pnOut = nLen;
  *pi += 4 + nLen;
  return 1;
}

int wcStoreLoadNext(const unsigned char *aLoad, int64_t nLoad, int64_t *piOff,
                    WcRegionLoad *pOut){
  int64_t i = *piOff;
  const unsigned char *aServer;
  if( !loadBytes(aLoad, nLoad, &i, &pOut->aEnd, &pOut->nEnd)
   || !loadBytes(aLoad, nLoad, &i, &aServer, &pOut->nServer)
   || i + 16 > nLoad ){
    return 0;
  }
  pOut->zServer = (const char*)aServer;
  pOut->nRead = (int64_t)wcGetBe(aLoad + i, 8);
  pOut->nWrite = (int64_t)wcGetBe(aLoad + i + 8, 8);
  *piOff = i + 16;
  return 1;
}

int wcStoreRemoteStats(WcStore *p, int iFamily, int iIndex,
                       WcRpcStats *pRpc){
  sqlite3_str *pStr = sqlite3_str_new(p->db);
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  sqlite3_str_appendall(pStr, "SELECT 1 FROM ");
  wcStoreAppendTable(pStr, p, iFamily, iIndex);
  sqlite3_str_appendf(pStr, " WHERE " WC_RPC_COUNTERS "(%s, ?1)",
                      iIndex < 0 ? "rowkey" : "ikey");
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc == SQLITE_OK ){
    sqlite3_bind_pointer(pStmt, 1, pRpc, WC_RPC_COUNTERS, 0);
    sqlite3_step(pStmt);
    rc = sqlite3_finalize(pStmt);
  }
  return rc;
}

/* The calls one page of nRows rows takes: one, or on a store whose calls
** give at most nCallRows rows, as many as hold them. */
static double pageCalls(const WcReads *r, double nRows){
  return r->nCallRows > 0 && nRows > r->nCallRows
       ? ceil(nRows / r->nCallRows) : 1.0;
}

double wcStoreReadCalls(const WcStore *p, double nRows, double nRanges,
                        double nFirst){
  const WcStoreCaps *pCaps = wcStoreCaps(p);
  const WcReads *r = &pCaps->pKind->reads;
  double nCalls = 0.0, nGot = 0.0, nPage;
  if( pCaps->rCallRows <= 0.0 || r->nFirstPage <= 0 ) return 0.0;
  if( nRows < 0.0 ) nRows = 0.0;
  nPage = nFirst >= 1.0 ? nFirst : (double)r->nFirstPage;
  if( nPage > r->nMaxPage ) nPage = r->nMaxPage;
  /* A LIMIT's rows, all in its first page: SQLite asks for no more. */
  if( nFirst >= 1.0 && nRows <= nPage ) nGot = nRows + 1.0;
  for(;;){
    if( nGot > nRows ){
      nCalls += pageCalls(r, nRows);
      break;
    }
    nCalls += pageCalls(r, nRows - nGot < nPage ? nRows - nGot : nPage);
    nGot += nPage;
    /* A page that is not full ends the read. */
    if( nGot > nRows ) break;
    if( nPage >= r->nMaxPage ){
      /* The rest in pages of the largest size, the last one not full. */
      nCalls += (floor((nRows - nGot) / nPage) + 1.0) * pageCalls(r, nPage);
      break;
    }
    nPage *= r->nPageGrowth;
    if( nPage > r->nMaxPage ) nPage = r->nMaxPage;
  }
  if( r->bCallPerRange && nRanges > 1.0 ) nCalls += nRanges - 1.0;
  wcAssert( nCalls >= 1.0 );
  return nCalls;
}

double wcStoreVerifyCalls(const WcStore *p, double nEntries){
  const WcStoreCaps *pCaps = wcStoreCaps(p);
  int nPer = pCaps->pKind->reads.nVerifyRows;
  if( pCaps->rCallRows <= 0.0 || nPer <= 0 || nEntries <= 0.0 ) return 0.0;
  return ceil(nEntries / nPer);
}

/* The row count from ANALYZE's sqlite_stat1 if it has one, else the
** store's estimate where it makes one, else counted: every row, or on a
** store that costs calls up to nCountMax, past which the table is taken
** to be large (WC_UNCOUNTED_ROWS).  A failed read is the statement's
** error (an interrupt, a store that does not answer). */
int wcStoreRowCount(WcStore *p, int64_t *pnRow){
  const WcStoreCaps *pCaps = wcStoreCaps(p);
  sqlite3_stmt *pStmt = 0;
  int64_t nRow = -1;
  int rc;
  char *zSql = sqlite3_mprintf("SELECT CAST(stat AS INTEGER) FROM "
                               "\"%w\".sqlite_stat1 WHERE tbl = '%q_rows' "
                               "LIMIT 1", p->zDb, p->zName);
  if( zSql && sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0) == SQLITE_OK
   && sqlite3_step(pStmt) == SQLITE_ROW ){
    nRow = sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
  *pnRow = nRow < 0 ? 0 : nRow;
  if( nRow >= 0 ) return SQLITE_OK;
  if( pCaps->bRowEstimates ){
    WcRpcStats rpc;
    memset(&rpc, 0, sizeof(rpc));
    rpc.bEstimate = 1;
    rc = wcStoreRemoteStats(p, -1, -1, &rpc);
    if( rc != SQLITE_OK ) return wcStoreError(p, rc);
    *pnRow = rpc.nRowEstimate;
    return SQLITE_OK;
  }
  pStmt = 0;
  zSql = pCaps->nCountMax > 0
      ? sqlite3_mprintf("SELECT count(*) FROM (SELECT 1 FROM \"%w\".\"%w_rows\" "
                        "LIMIT %lld)", p->zDb, p->zName,
                        (long long)pCaps->nCountMax + 1)
      : sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w_rows\"", p->zDb,
                        p->zName);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(p->db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc == SQLITE_OK ){
    rc = sqlite3_step(pStmt);
    if( rc == SQLITE_ROW ){
      nRow = sqlite3_column_int64(pStmt, 0);
      rc = SQLITE_OK;
    }else{
      rc = wcStoreError(p, sqlite3_reset(pStmt));
    }
  }else{
    rc = wcStoreError(p, rc);
  }
  sqlite3_finalize(pStmt);
  if( pCaps->nCountMax > 0 && nRow > pCaps->nCountMax ){
    nRow = WC_UNCOUNTED_ROWS;
  }
  *pnRow = nRow < 0 ? 0 : nRow;
  return rc;
}

/* How many distinct prefixes the first nElem elements take in the data,
** counted by seeking from one to the next, up to nPrefixProbes + 1.  For
** planning skip scans over fields, whose number of values nothing else
** tells.  The probe policy is the store's: 1,000 locally; on Bigtable,
** where a probe is a call, 64, and only in a table small enough to have
** been counted (nCountMax: a probe is a range with no end, which the
** emulator answers in time proportional to the rest of the table); a
** larger table is taken to have too many without a read. */
int wcStorePrefixCount(WcStore *p, int iPath, int nElem, int64_t nRowEst,
                       int64_t *pnFound){
  const int64_t nMax = p->pCaps->nPrefixProbes;
  const WcSchema *pS = wcSchemaPathKey(p->pSchema, iPath);
  sqlite3_stmt *pStmt = 0;
  WcBuf next;
  int64_t nFound = 0;
  int rc;
  memset(&next, 0, sizeof(next));
  *pnFound = nMax + 1;
  if( p->pCaps->nCountMax > 0 && nRowEst > p->pCaps->nCountMax ){
    return SQLITE_OK;
  }
  rc = wcStoreAcquire(p, WC_STMT_SCAN, iPath, 0, &pStmt);
  if( rc != SQLITE_OK ) return rc;
  while( nFound <= nMax ){
    const unsigned char *aKey;
    int64_t nKey, nPrefix = 0, n;
    int i;
    sqlite3_reset(pStmt);
    sqlite3_bind_blob(pStmt, 1, next.n ? next.a : (const unsigned char*)"",
                      (int)next.n, SQLITE_STATIC);
    sqlite3_bind_int(pStmt, WC_PARAM_SCAN_ROWS, 1);
    rc = sqlite3_step(pStmt);
    if( rc != SQLITE_ROW ){
      rc = rc == SQLITE_DONE ? SQLITE_OK
                             : wcStoreError(p, sqlite3_reset(pStmt));
      break;
    }
    rc = SQLITE_OK;
    aKey = sqlite3_column_blob(pStmt, 0);
    if( aKey == 0 ) aKey = (const unsigned char*)"";
    nKey = sqlite3_column_bytes(pStmt, 0);
    for(i = 0; i < nElem && nPrefix >= 0; i++){
      n = wcElementSpan(pS, i, aKey + nPrefix, nKey - nPrefix);
      nPrefix = n < 0 ? -1 : nPrefix + n;
    }
    nFound++;
    if( nPrefix <= 0 || wcBufReserve(&next, nPrefix) ) break;
    n = rkPrefixEnd(aKey, nPrefix, next.a);
    if( n < 0 ) break;
    next.n = n;
  }
  wcStoreRelease(p, WC_STMT_SCAN, iPath, 0, pStmt);
  wcBufFree(&next);
  if( rc == SQLITE_OK ) *pnFound = nFound;
  return rc;
}
