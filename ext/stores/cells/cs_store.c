/*
** cs_store.c: the cell store's module (see cs_store.h): a table's
** columns from its arguments (read by stores/contract/), connecting and
** disconnecting, planning, the module's table of methods, and
** registering it over a transport.  Reading is cs_read.c, writing
** cs_write.c and cs_batch.c, transactions cs_txn.c, the engine's tables
** cs_admin.c.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

/* True if z is a column family name both engines take ([-_.a-zA-Z0-9]+,
** at most 64 characters: Bigtable's rule, narrower than HBase's). */
static int validFamily(const char *z){
  int n = 0;
  for(; *z; z++, n++){
    if( !((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z')
       || (*z >= '0' && *z <= '9') || *z == '-' || *z == '_' || *z == '.') ){
      return 0;
    }
  }
  return n > 0 && n <= 64;
}

/* Orders column i before column j by (family, qualifier). */
static int columnBefore(const CsTable *p, int i, int j){
  int c = strcmp(p->aCol[i].zFamily, p->aCol[j].zFamily);
  return (c ? c : strcmp(p->aCol[i].zQual, p->aCol[j].zQual)) < 0;
}

/* p->aiSorted: the columns with cells by (family, qualifier), for
** csFindColumn().  An insertion sort: qsort() has no argument to carry
** the table through, and a static one would be shared by every thread. */
static void sortColumns(CsTable *p){
  int i, j;
  p->nSorted = 0;
  for(i = 0; i < p->nCol; i++){
    int iCol = i;
    if( p->aCol[i].eLayout == CS_LAYOUT_KEY ) continue;
    for(j = p->nSorted; j > 0 && columnBefore(p, iCol, p->aiSorted[j - 1]);
        j--){
      p->aiSorted[j] = p->aiSorted[j - 1];
    }
    p->aiSorted[j] = iCol;
    p->nSorted++;
  }
  wcAssert( p->nSorted <= p->nCol );
}

/* The table's columns and families from its arguments (p->args); 0 or a
** message (sqlite3_mprintf()). */
static char *describeColumns(CsTable *p){
  static const int aeLayout[] = {
    /* SC_CELL_NONE */ CS_LAYOUT_TAGGED, /* SC_CELL_STRING */ CS_LAYOUT_STRING,
    /* SC_CELL_LONG */ CS_LAYOUT_LONG,   /* SC_CELL_DOUBLE */ CS_LAYOUT_DOUBLE,
    /* SC_CELL_BYTES */ CS_LAYOUT_BYTES,
  };
  const ScArgs *pA = &p->args;
  int i, k;
  p->nCol = pA->nCol;
  p->aCol = sqlite3_malloc64(sizeof(CsCol) * (sqlite3_uint64)(pA->nCol + 1));
  p->aiSorted = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)(pA->nCol + 1));
  p->azFamily = sqlite3_malloc64(sizeof(char*)
                                 * (sqlite3_uint64)(pA->nCol + 1));
  if( !p->aCol || !p->aiSorted || !p->azFamily ){
    return sqlite3_mprintf("out of memory");
  }
  p->iRowkeyCol = -1;
  p->azFamily[p->nFamily++] = WC_DEFAULT_FAMILY;
  for(i = 0; i < pA->nCol; i++){
    const ScColumn *pArg = &pA->aCol[i];
    CsCol *pCol = &p->aCol[i];
    pCol->zName = pArg->zName;
    pCol->zFamily = pArg->zFamily;
    pCol->zQual = pArg->zQual ? pArg->zQual : pArg->zName;
    pCol->eLayout = pArg->bKey ? CS_LAYOUT_KEY : aeLayout[pArg->eCell];
    if( p->eKind == CS_ENTRIES && sqlite3_stricmp(pCol->zName, "rowkey") == 0 ){
      p->iRowkeyCol = i;
    }
    if( pArg->bKey ) continue;
    if( !validFamily(pCol->zFamily) ){
      return sqlite3_mprintf("%s: \"%s\" cannot name a %s column family "
          "(letters, digits, _ - ., at most 64 characters)", p->zName,
          pCol->zFamily, p->pT->pKind->zEngine);
    }
    for(k = 0; k < p->nFamily && strcmp(p->azFamily[k], pCol->zFamily); k++){}
    if( k == p->nFamily ) p->azFamily[p->nFamily++] = pCol->zFamily;
  }
  wcAssert( p->nFamily <= pA->nCol + 1 );
  if( p->eKind == CS_ENTRIES && p->iRowkeyCol < 0 ){
    return sqlite3_mprintf("%s: an index's table (ENTRIES OF) has a column "
                           "rowkey", p->zName);
  }
  sortColumns(p);
  return 0;
}

/* Reads the arguments into p; returns a message (sqlite3_mprintf) or 0. */
static char *parseArgs(CsTable *p, int argc, const char *const *argv){
  char *zErr = scArgsRead(&p->args, p->pT->pKind, argc, argv);
  if( zErr ) return zErr;
  if( p->args.bOlder ){
    p->eKind = CS_OLDER;
  }else if( p->args.iEntry >= 0 ){
    p->eKind = CS_ENTRIES;
  }else if( sqlite3_stricmp(p->args.zKeyColumn, "ikey") == 0 ){
    /* An index's table made by widecol 1.0 (no ENTRIES OF). */
    p->eKind = CS_PLAIN;
  }else{
    p->eKind = CS_ROWS;
  }
  p->zTable = scTableName(p->zName, p->args.zSuffix);
  if( p->zTable == 0 ) return sqlite3_mprintf("out of memory");
  return describeColumns(p);
}

/*
** Connecting.
*/

/* The declaration: the key, the columns, then the hidden ones (see
** CS_COL_ROWTIME and friends). */
static char *declaration(const CsTable *p){
  sqlite3_str *pDecl = sqlite3_str_new(0);
  int i;
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(\"%w\" BLOB%s",
                      p->args.zKeyColumn,
                      p->eKind == CS_OLDER ? "" : " PRIMARY KEY");
  for(i = 0; i < p->nCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", p->aCol[i].zName);
  }
  if( p->args.bRowtime ) sqlite3_str_appendall(pDecl, ", rowtime INTEGER");
  if( p->eKind == CS_OLDER ){
    /* A row per version, keyed by the row key and the version's
    ** timestamp (csVersionKey). */
    sqlite3_str_appendall(pDecl, ", vkey BLOB HIDDEN PRIMARY KEY");
  }else{
    sqlite3_str_appendall(pDecl, ", _stamp BLOB HIDDEN");
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  return sqlite3_str_finish(pDecl);
}

/* xCreate's part in the engine: an OLDER table shows the engine table
** its row table made; an EXISTING one, a table another application
** made; any other is made here, or taken over. */
static int createRemote(CsTable *p){
  int bMade = 0, bClaimed = 0, rc;
  if( p->args.bExisting ) return csCheckExisting(p);
  if( p->eKind == CS_OLDER ) return SQLITE_OK;
  if( csTxnDropping(p->pTxn, p->args.zResource) ){
    return csError(p, SQLITE_ERROR, "widecol %s: a DROP TABLE earlier in "
        "this transaction deletes the %s table %s at COMMIT: COMMIT first, "
        "then CREATE the table again", p->zTable, p->pT->pKind->zEngine,
        p->args.zResource);
  }
  rc = csCreateRemote(p, &bMade, &bClaimed);
  if( rc == SQLITE_OK ){
    rc = csTxnMade(p, bMade, bClaimed);
  }else{
    csUndoCreate(p, bMade, bClaimed);
  }
  return rc;
}

static int csInit(sqlite3 *db, CsTxn *pTxn, int argc,
                  const char *const *argv, sqlite3_vtab **ppVtab,
                  char **pzErr, int bCreate){
  CsTable *p = sqlite3_malloc(sizeof(*p));
  char *zDecl, *zErr;
  int rc;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pTxn = pTxn;
  p->pT = pTxn->pT;
  csTxnRef(pTxn);
  pTxn->db = db;
  p->zName = sqlite3_mprintf("%s", argv[2]);
  zErr = p->zName ? parseArgs(p, argc, argv)
                  : sqlite3_mprintf("out of memory");
  if( zErr ){
    *pzErr = zErr;
    csTableFree(p);
    return SQLITE_ERROR;
  }
  zDecl = declaration(p);
  rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    if( bCreate ) rc = createRemote(p);
    if( rc != SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg
                                                     : sqlite3_errmsg(db));
    }
  }
  if( rc != SQLITE_OK ){
    csTableFree(p);
    return rc;
  }
  p->pNextTable = pTxn->pTables;
  pTxn->pTables = p;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int csCreate(sqlite3 *db, void *pAux, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr){
  return csInit(db, (CsTxn*)pAux, argc, argv, ppVtab, pzErr, 1);
}

static int csConnectTable(sqlite3 *db, void *pAux, int argc,
                          const char *const *argv, sqlite3_vtab **ppVtab,
                          char **pzErr){
  return csInit(db, (CsTxn*)pAux, argc, argv, ppVtab, pzErr, 0);
}

static int csDisconnect(sqlite3_vtab *pVtab){
  csTableFree((CsTable*)pVtab);
  return SQLITE_OK;
}

/* DROP TABLE: the engine's table goes at COMMIT (cs_txn.c), unless
** widecol does not own it (EXTERNAL, EXISTING). */
static int csDestroy(sqlite3_vtab *pVtab){
  CsTable *p = (CsTable*)pVtab;
  if( p->eKind == CS_OLDER || p->args.bExternal || p->args.bExisting ){
    csTableFree(p);
    return SQLITE_OK;
  }
  return csTxnDropLater(p);
}

/* Planning: the contract's constraints (sc_plan.c), with what a table of
** this kind takes: key MATCH ?, _stamp = ? and rowkey = ? (an index's
** table); an OLDER table's versions of a key come newest first, and are
** not read reversed. */
static int csBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  CsTable *p = (CsTable*)pVtab;
  ScPlanCaps caps;
  memset(&caps, 0, sizeof(caps));
  caps.bRangeSets = 1;
  caps.iStampCol = p->eKind == CS_OLDER ? -1 : CS_COL_STAMP(p);
  caps.iRowkeyCol = p->eKind == CS_ENTRIES ? 1 + p->iRowkeyCol : -1;
  caps.bOneRowPerKey = p->eKind != CS_OLDER;
  caps.bDescending = p->eKind != CS_OLDER;
  caps.iNewestFirst = p->eKind == CS_OLDER ? CS_COL_ROWTIME(p) : -1;
  return scBestIndex(pInfo, &caps);
}

static int csRename(sqlite3_vtab *pVtab, const char *zNew){
  CsTable *p = (CsTable*)pVtab;
  char *zName = sqlite3_mprintf("%s", zNew), *zTable;
  if( zName == 0 ) return SQLITE_NOMEM;
  zTable = scTableName(zName, p->args.zSuffix);
  if( zTable == 0 ){
    sqlite3_free(zName);
    return SQLITE_NOMEM;
  }
  sqlite3_free(p->zName);
  sqlite3_free(p->zTable);
  p->zName = zName;
  p->zTable = zTable;
  return SQLITE_OK;
}

static const sqlite3_module csModule = {
  2,                    /* iVersion: savepoints */
  csCreate,
  csConnectTable,
  csBestIndex,
  csDisconnect,
  csDestroy,
  csOpen,
  csClose,
  csFilter,
  csNext,
  csEof,
  csColumn,
  csRowid,
  csUpdate,
  csBegin,
  csSync,
  csCommit,
  csRollback,
  scFindFunction,
  csRename,
  csSavepoint,
  csRelease,
  csRollbackTo,
  0                     /* xShadowName */
};

int csRegister(sqlite3 *db, char **pzErrMsg, const CsTransport *pT){
  const WcKind *pKind = pT->pKind;
  ScModule aModule[2];
  /* Tables already connected keep the state they share; a second load
  ** gives the tables connected after it a new one. */
  CsTxn *pTxn = csTxnNew(pT);
  if( pTxn == 0 ) return SQLITE_NOMEM;
  aModule[0].zName = pKind->zModule;
  aModule[0].pModule = &csModule;
  aModule[1].zName = pT->zTxnModule;
  aModule[1].pModule = &csTxnModule;
  return scRegister(db, pzErrMsg, pKind, aModule, 2, pTxn,
                    csTxnRef, csTxnUnref);
}
