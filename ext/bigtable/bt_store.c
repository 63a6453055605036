/*
** bt_store.c: the widecol_bigtable module (see bt_store.h): its
** arguments, connecting and disconnecting, planning, and the module's
** table of methods.  Reading is bt_read.c, writing bt_write.c and
** bt_batch.c, transactions bt_txn.c, the Bigtable tables bt_admin.c.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"
#include "util/wc_ask.h"

#include <stdlib.h>
#include <string.h>

/*
** Arguments.
*/

/* The next token of an argument: a quoted identifier, a string, a blob
** literal or a bare word; *pz moves past it.  Returns a new string (the
** unquoted text; a blob's bytes in *pBlob) or NULL at the end; *pbBare
** (if given) is set for a bare word, the only form an option's word
** takes (a column may be named "ttl"). */
static char *nextToken(const char **pz, WcBuf *pBlob, int *pbBare){
  const char *z = *pz;
  sqlite3_str *pStr;
  if( pbBare ) *pbBare = 0;
  while( *z == ' ' || *z == '\t' || *z == '\n' || *z == '\r' ) z++;
  if( *z == 0 ){
    *pz = z;
    return 0;
  }
  pStr = sqlite3_str_new(0);
  if( (*z == 'x' || *z == 'X') && z[1] == '\'' && pBlob ){
    z += 2;
    pBlob->n = 0;
    while( z[0] && z[0] != '\'' && z[1] ){
      unsigned char c;
      int hi = (z[0] <= '9' ? z[0] - '0' : (z[0] | 0x20) - 'a' + 10);
      int lo = (z[1] <= '9' ? z[1] - '0' : (z[1] | 0x20) - 'a' + 10);
      c = (unsigned char)(hi * 16 + lo);
      wcBufAppend(pBlob, &c, 1);
      z += 2;
    }
    if( *z == '\'' ) z++;
    sqlite3_str_appendall(pStr, "x");
  }else if( *z == '"' || *z == '\'' ){
    char q = *z++;
    while( *z ){
      if( *z == q ){
        if( z[1] != q ){
          z++;
          break;
        }
        z++;
      }
      sqlite3_str_appendchar(pStr, 1, *z++);
    }
  }else{
    if( pbBare ) *pbBare = 1;
    while( *z && *z != ' ' && *z != '\t' && *z != '\n' && *z != '\r' ){
      sqlite3_str_appendchar(pStr, 1, *z++);
    }
  }
  *pz = z;
  return sqlite3_str_finish(pStr);
}

/* True if z is a valid Bigtable family name ([-_.a-zA-Z0-9]+, at most
** 64 characters). */
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
static int columnBefore(const BtTable *p, int i, int j){
  int c = strcmp(p->aCol[i].zFamily, p->aCol[j].zFamily);
  return (c ? c : strcmp(p->aCol[i].zQual, p->aCol[j].zQual)) < 0;
}

/* p->aiSorted: the columns with cells by (family, qualifier), for
** btFindColumn().  An insertion sort: qsort() has no argument to carry
** the table through, and a static one would be shared by every thread. */
static void sortColumns(BtTable *p){
  int i, j;
  p->nSorted = 0;
  for(i = 0; i < p->nCol; i++){
    int iCol = i;
    if( p->aCol[i].eLayout == BT_LAYOUT_KEY ) continue;
    for(j = p->nSorted; j > 0 && columnBefore(p, iCol, p->aiSorted[j - 1]);
        j--){
      p->aiSorted[j] = p->aiSorted[j - 1];
    }
    p->aiSorted[j] = iCol;
    p->nSorted++;
  }
}

/* After a column's family: KEY, or CELL '<qualifier>' and how the cell
** holds the value (an EXISTING table's); SQLITE_OK or a message. */
static char *columnCell(BtTable *p, BtColumn *pCol, const char **pz){
  static const char *const azType[] = { "STRING", "LONG", "DOUBLE", "BYTES" };
  const char *zRest = *pz;
  int bBare = 0, k;
  char *zTok = nextToken(&zRest, 0, &bBare);
  if( zTok == 0 || !bBare || sqlite3_stricmp(zTok, "CELL") != 0 ){
    sqlite3_free(zTok);
    return 0;
  }
  sqlite3_free(zTok);
  pCol->zQual = nextToken(&zRest, 0, 0);
  zTok = nextToken(&zRest, 0, &bBare);
  for(k = 0; k < 4 && (zTok == 0 || sqlite3_stricmp(zTok, azType[k])); k++){}
  sqlite3_free(zTok);
  *pz = zRest;
  if( pCol->zQual == 0 || k == 4 ){
    return sqlite3_mprintf("%s: column %s: CELL takes a qualifier and STRING, "
                           "LONG, DOUBLE or BYTES", p->zName, pCol->zName);
  }
  pCol->eLayout = BT_LAYOUT_STRING + k;
  return 0;
}

/* p->zTable: the widecol table's name, zName less SUFFIX (zName when it
** does not end so).  Non-zero on OOM. */
static int nameTable(BtTable *p){
  size_t n = strlen(p->zName), nSuffix = p->zSuffix ? strlen(p->zSuffix) : 0;
  if( nSuffix == 0 || nSuffix >= n
   || sqlite3_stricmp(p->zName + n - nSuffix, p->zSuffix) != 0 ){
    nSuffix = 0;
  }
  sqlite3_free(p->zTable);
  p->zTable = sqlite3_mprintf("%.*s", (int)(n - nSuffix), p->zName);
  return p->zTable == 0;
}

/* A whole number from argument text z, at least iMin, or -1. */
static int64_t numberArg(const char *z, int64_t iMin){
  char *zEnd = 0;
  long long v;
  if( z == 0 ) return -1;
  v = strtoll(z, &zEnd, 10);
  return zEnd == z || *zEnd || v < iMin ? -1 : v;
}

/* Reads option zTok (the rest of its argument at *pz) into p; 1 if it
** was one, 0 if zTok names a column, -1 on a bad value (*pzErr set). */
static int parseOption(BtTable *p, const char *zTok, const char **pz,
                       char **pzErr){
  char *zArg = 0;
  if( sqlite3_stricmp(zTok, "ASYNC_INSERTS") == 0 ){
    return 1;   /* widecol 1.0's: how inserts wait is this module's now */
  }
  if( sqlite3_stricmp(zTok, "ROWTIME") == 0 ){
    p->bRowtime = 1;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "OLDER") == 0 ){
    p->eKind = BT_OLDER;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "EXTERNAL") == 0 ){
    p->bExternal = 1;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "EXISTING") == 0 ){
    p->bExisting = 1;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "WRITABLE") == 0 ){
    p->bWritable = 1;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "SPLITS") == 0 ){
    /* One argument holds every split point (up to WC_MAX_SPLITS of a SALT
    ** or BUCKET, any number of SPLITS): counted, then read. */
    WcBuf scratch;
    WcBuf *aNew;
    const char *zCount = *pz;
    int nMore = 0;
    memset(&scratch, 0, sizeof(scratch));
    while( (zArg = nextToken(&zCount, &scratch, 0)) != 0 ){
      sqlite3_free(zArg);
      nMore++;
    }
    wcBufFree(&scratch);
    aNew = sqlite3_realloc64(p->aSplit, sizeof(WcBuf)
                             * ((sqlite3_uint64)p->nSplit + nMore + 1));
    if( aNew == 0 ){
      *pzErr = sqlite3_mprintf("out of memory");
      return -1;
    }
    p->aSplit = aNew;
    memset(&p->aSplit[p->nSplit], 0, sizeof(WcBuf) * ((size_t)nMore + 1));
    while( nMore-- > 0
        && (zArg = nextToken(pz, &p->aSplit[p->nSplit], 0)) != 0 ){
      sqlite3_free(zArg);
      p->nSplit++;
    }
    return 1;
  }
  if( sqlite3_stricmp(zTok, "SUFFIX") == 0
   || sqlite3_stricmp(zTok, "KEYS") == 0
   || sqlite3_stricmp(zTok, "OWNER") == 0
   || sqlite3_stricmp(zTok, "DESIGN") == 0 ){
    char **pzOut = (zTok[0] | 0x20) == 's' ? &p->zSuffix
                 : (zTok[0] | 0x20) == 'k' ? &p->zKeys
                 : (zTok[0] | 0x20) == 'o' ? &p->zOwner : &p->zDesign;
    sqlite3_free(*pzOut);
    *pzOut = nextToken(pz, 0, 0);
    if( *pzOut == 0 ){
      *pzErr = sqlite3_mprintf("%s: %s takes a name", p->zName, zTok);
      return -1;
    }
    return 1;
  }
  if( sqlite3_stricmp(zTok, "ENTRIES") == 0 ){
    char *zOf = nextToken(pz, 0, 0);
    int bOf = zOf && sqlite3_stricmp(zOf, "OF") == 0;
    sqlite3_free(zOf);
    p->zRowsOf = bOf ? nextToken(pz, 0, 0) : 0;
    zArg = nextToken(pz, 0, 0);
    p->iEntry = (int)numberArg(zArg, 0);
    sqlite3_free(zArg);
    if( p->zRowsOf == 0 || p->iEntry < 0 ){
      *pzErr = sqlite3_mprintf("%s: ENTRIES OF '<row table>' n names the "
                               "row table and which of its indexes this is",
                               p->zName);
      return -1;
    }
    p->eKind = BT_ENTRIES;
    return 1;
  }
  if( sqlite3_stricmp(zTok, "VERSIONS") == 0
   || sqlite3_stricmp(zTok, "TTL") == 0
   || sqlite3_stricmp(zTok, "STAMPS") == 0 ){
    int64_t v;
    zArg = nextToken(pz, 0, 0);
    v = numberArg(zArg, 0);
    sqlite3_free(zArg);
    if( v < 0 || v > 2147483647 ){
      *pzErr = sqlite3_mprintf("%s: %s takes a whole number", p->zName, zTok);
      return -1;
    }
    switch( zTok[0] | 0x20 ){
      case 'v': p->nVersions = (int)v; break;
      case 't': p->nTtl = v; break;
      default:  p->nStamp = (int)v; break;
    }
    return 1;
  }
  return 0;
}

/* Reads the arguments into p; returns a message (sqlite3_mprintf) or 0. */
static char *parseArgs(BtTable *p, int argc, const char *const *argv,
                       char **pzKey){
  const char *z;
  char *zTok, *zErr = 0;
  int i;
  if( argc < 5 ){
    return sqlite3_mprintf("%s %s: arguments are the %s table and the key "
                           "column, then the columns", btEngine.zModule,
                           p->zName, btEngine.zName);
  }
  z = argv[3];
  p->zResource = nextToken(&z, 0, 0);
  if( p->zResource == 0 || !btValidResource(p->zResource) ){
    return sqlite3_mprintf("%s: %s is not a %s table name; write %s",
        p->zName, argv[3], btEngine.zName, btEngine.zResourceForm);
  }
  z = argv[4];
  *pzKey = nextToken(&z, 0, 0);
  p->aCol = sqlite3_malloc64(sizeof(BtColumn) * (sqlite3_uint64)argc);
  p->aiSorted = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)argc);
  p->azFamily = sqlite3_malloc64(sizeof(char*) * (sqlite3_uint64)(argc + 1));
  if( *pzKey == 0 || !p->aCol || !p->aiSorted || !p->azFamily ){
    return sqlite3_mprintf("out of memory");
  }
  p->nVersions = 1;
  p->iRowkeyCol = -1;
  p->azFamily[p->nFamily++] = BT_DEFAULT_FAMILY;
  for(i = 5; i < argc; i++){
    int bBare, r;
    z = argv[i];
    zTok = nextToken(&z, 0, &bBare);
    if( zTok == 0 ) continue;
    r = bBare ? parseOption(p, zTok, &z, &zErr) : 0;
    if( r != 0 ){
      sqlite3_free(zTok);
      if( r < 0 ) return zErr;
      continue;
    }
    {
      BtColumn *pCol = &p->aCol[p->nCol];
      int k;
      memset(pCol, 0, sizeof(*pCol));
      pCol->zName = zTok;
      pCol->zFamily = nextToken(&z, 0, 0);
      if( pCol->zFamily && sqlite3_stricmp(pCol->zFamily, "KEY") == 0 ){
        /* A field of the row key: no cell, read from the key by widecol. */
        sqlite3_free(pCol->zFamily);
        pCol->zFamily = 0;
        pCol->eLayout = BT_LAYOUT_KEY;
      }
      if( pCol->zFamily == 0 ) pCol->zFamily = sqlite3_mprintf("%s",
                                                   BT_DEFAULT_FAMILY);
      p->nCol++;
      if( pCol->zFamily == 0 ) return sqlite3_mprintf("out of memory");
      if( pCol->eLayout != BT_LAYOUT_KEY ){
        zErr = columnCell(p, pCol, &z);
        if( zErr ) return zErr;
      }
      if( pCol->zQual == 0 ) pCol->zQual = sqlite3_mprintf("%s", pCol->zName);
      if( pCol->zQual == 0 ) return sqlite3_mprintf("out of memory");
      if( pCol->eLayout == BT_LAYOUT_KEY ) continue;
      if( !validFamily(pCol->zFamily) ){
        return sqlite3_mprintf("%s: \"%s\" cannot name a Bigtable column "
            "family (letters, digits, _ - ., at most 64 characters)",
            p->zName, pCol->zFamily);
      }
      for(k = 0; k < p->nFamily && strcmp(p->azFamily[k], pCol->zFamily);
          k++){}
      if( k == p->nFamily ) p->azFamily[p->nFamily++] = pCol->zFamily;
    }
  }
  if( p->eKind == BT_OLDER && !p->bRowtime ){
    return sqlite3_mprintf("%s: OLDER shows versions, which need ROWTIME",
                           p->zName);
  }
  if( p->eKind == BT_ROWS && sqlite3_stricmp(*pzKey, "ikey") == 0 ){
    /* An index's table made by widecol 1.0 (no ENTRIES OF). */
    p->eKind = BT_PLAIN;
  }
  if( p->eKind == BT_ENTRIES ){
    for(i = 0; i < p->nCol; i++){
      if( sqlite3_stricmp(p->aCol[i].zName, "rowkey") == 0 ) p->iRowkeyCol = i;
    }
    if( p->iRowkeyCol < 0 ){
      return sqlite3_mprintf("%s: an index's table (ENTRIES OF) has a column "
                             "rowkey", p->zName);
    }
  }
  if( nameTable(p) ) return sqlite3_mprintf("out of memory");
  sortColumns(p);
  return 0;
}

/*
** Connecting.
*/

/* The declaration: the key, the columns, then the hidden ones (see
** BT_COL_ROWTIME and friends). */
static char *declaration(const BtTable *p, const char *zKey){
  sqlite3_str *pDecl = sqlite3_str_new(0);
  int i;
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(\"%w\" BLOB%s", zKey,
                      p->eKind == BT_OLDER ? "" : " PRIMARY KEY");
  for(i = 0; i < p->nCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", p->aCol[i].zName);
  }
  if( p->bRowtime ) sqlite3_str_appendall(pDecl, ", rowtime INTEGER");
  if( p->eKind == BT_OLDER ){
    /* A row per version, keyed by the row key and the version's
    ** timestamp (btVersionKey). */
    sqlite3_str_appendall(pDecl, ", vkey BLOB HIDDEN PRIMARY KEY");
  }else{
    sqlite3_str_appendall(pDecl, ", _stamp BLOB HIDDEN");
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  return sqlite3_str_finish(pDecl);
}

static int btInit(sqlite3 *db, BtTxn *pTxn, int argc,
                  const char *const *argv, sqlite3_vtab **ppVtab,
                  char **pzErr, int bCreate){
  BtTable *p = sqlite3_malloc(sizeof(*p));
  char *zKey = 0, *zDecl, *zErr;
  int rc;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pTxn = pTxn;
  btTxnRef(pTxn);
  pTxn->db = db;
  p->zName = sqlite3_mprintf("%s", argv[2]);
  zErr = p->zName ? parseArgs(p, argc, argv, &zKey) : sqlite3_mprintf("oom");
  if( zErr ){
    *pzErr = zErr;
    sqlite3_free(zKey);
    btTableFree(p);
    return SQLITE_ERROR;
  }
  zDecl = declaration(p, zKey);
  sqlite3_free(zKey);
  rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    /* An OLDER table shows the Bigtable table its row table made; an
    ** EXISTING one, a table another application made. */
    if( bCreate && p->bExisting ){
      rc = btCheckExisting(p);
    }else if( bCreate && p->eKind != BT_OLDER ){
      int bMade = 0, bClaimed = 0;
      if( btTxnDropping(pTxn, p->zResource) ){
        rc = btError(p, SQLITE_ERROR, "widecol %s: a DROP TABLE earlier in "
            "this transaction deletes the %s table %s at COMMIT: "
            "COMMIT first, then CREATE the table again", p->zTable,
            btEngine.zName, p->zResource);
      }else{
        rc = btCreateRemote(p, &bMade, &bClaimed);
        if( rc == SQLITE_OK ){
          rc = btTxnMade(p, bMade, bClaimed);
        }else{
          btUndoCreate(p, bMade, bClaimed);
        }
      }
    }
    if( rc != SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg
                                                     : sqlite3_errmsg(db));
    }
  }
  if( rc != SQLITE_OK ){
    btTableFree(p);
    return rc;
  }
  p->pNextTable = pTxn->pTables;
  pTxn->pTables = p;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int btCreate(sqlite3 *db, void *pAux, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr){
  return btInit(db, (BtTxn*)pAux, argc, argv, ppVtab, pzErr, 1);
}

static int btConnect(sqlite3 *db, void *pAux, int argc,
                     const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr){
  return btInit(db, (BtTxn*)pAux, argc, argv, ppVtab, pzErr, 0);
}

static int btDisconnect(sqlite3_vtab *pVtab){
  btTableFree((BtTable*)pVtab);
  return SQLITE_OK;
}

/* DROP TABLE: the Bigtable table goes at COMMIT (bt_txn.c), unless
** widecol does not own it (EXTERNAL, EXISTING). */
static int btDestroy(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  if( p->eKind == BT_OLDER || p->bExternal || p->bExisting ){
    btTableFree(p);
    return SQLITE_OK;
  }
  return btTxnDropLater(p);
}

/*
** Planning: see BT_EQ and friends in bt_table.h.
*/

/* The constraint op widecol_bigtable_counters() becomes. */
#define BT_COUNTERS_OP SQLITE_INDEX_CONSTRAINT_FUNCTION

static int btBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  BtTable *p = (BtTable*)pVtab;
  int aiCons[5] = {-1, -1, -1, -1, -1};
  int iStamp = -1, iRowkey = -1, iLimit = -1;
  int i, idxNum = 0, nArg = 0;
  double cost = 1e6;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->usable && pC->op == BT_COUNTERS_OP ){
      pInfo->aConstraintUsage[i].argvIndex = 1;
      pInfo->aConstraintUsage[i].omit = 1;
      pInfo->idxNum = BT_COUNTERS;
      pInfo->estimatedCost = 1;
      pInfo->estimatedRows = 1;
      return SQLITE_OK;
    }
  }
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->usable && pC->iColumn == 0
     && pC->op == SQLITE_INDEX_CONSTRAINT_MATCH ){
      pInfo->aConstraintUsage[i].argvIndex = 1;
      pInfo->aConstraintUsage[i].omit = 1;
      idxNum = BT_SET;
      break;
    }
  }
  for(i = 0; i < pInfo->nConstraint && idxNum == 0; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int k;
    if( !pC->usable ) continue;
    if( pC->op == SQLITE_INDEX_CONSTRAINT_EQ && p->eKind != BT_OLDER ){
      if( pC->iColumn == BT_COL_STAMP(p) && iStamp < 0 ) iStamp = i;
      if( p->eKind == BT_ENTRIES && pC->iColumn == 1 + p->iRowkeyCol
       && iRowkey < 0 ){
        iRowkey = i;
      }
    }
    if( pC->op == SQLITE_INDEX_CONSTRAINT_LIMIT ) iLimit = i;
    if( pC->iColumn != 0 ) continue;
    switch( pC->op ){
      case SQLITE_INDEX_CONSTRAINT_EQ: k = 0; break;
      case SQLITE_INDEX_CONSTRAINT_GE: k = 1; break;
      case SQLITE_INDEX_CONSTRAINT_GT: k = 2; break;
      case SQLITE_INDEX_CONSTRAINT_LT: k = 3; break;
      case SQLITE_INDEX_CONSTRAINT_LE: k = 4; break;
      default: k = -1; break;
    }
    if( k >= 0 && aiCons[k] < 0 ) aiCons[k] = i;
  }
  if( aiCons[0] >= 0 ){
    aiCons[1] = aiCons[2] = aiCons[3] = aiCons[4] = -1;
  }else{
    /* _stamp = ? names the state of one row: with key = ? only. */
    iStamp = iRowkey = -1;
  }
  if( aiCons[1] >= 0 ) aiCons[2] = -1;
  if( aiCons[3] >= 0 ) aiCons[4] = -1;
  for(i = 0; i < 5; i++){
    if( aiCons[i] < 0 ) continue;
    idxNum |= 1 << i;
    pInfo->aConstraintUsage[aiCons[i]].argvIndex = ++nArg;
    pInfo->aConstraintUsage[aiCons[i]].omit = 1;
  }
  if( iStamp >= 0 ){
    idxNum |= BT_STAMPEQ;
    pInfo->aConstraintUsage[iStamp].argvIndex = ++nArg;
    pInfo->aConstraintUsage[iStamp].omit = 1;
    if( iRowkey >= 0 ){
      idxNum |= BT_ROWKEYEQ;
      pInfo->aConstraintUsage[iRowkey].argvIndex = ++nArg;
      pInfo->aConstraintUsage[iRowkey].omit = 1;
    }
  }
  /* A LIMIT sizes the first page (SQLite still applies it).  It comes
  ** only where SQLite leaves no term of the WHERE to itself. */
  if( iLimit >= 0 && (idxNum & BT_EQ) == 0 ){
    idxNum |= BT_LIMIT;
    pInfo->aConstraintUsage[iLimit].argvIndex = ++nArg;
  }
  if( idxNum & BT_EQ ){
    /* With _stamp = ?, no call at all. */
    cost = (idxNum & BT_STAMPEQ) ? 1 : 10;
    pInfo->estimatedRows = 1;
    /* An OLDER table has a row per version of the key. */
    if( p->eKind != BT_OLDER ) pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    cost = (idxNum & (BT_GE|BT_GT)) && (idxNum & (BT_LT|BT_LE)) ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)cost;
  }else{
    pInfo->estimatedRows = 1000000;
  }
  pInfo->estimatedCost = cost;
  pInfo->idxNum = idxNum;
  /* Rows come in key order; an OLDER table's versions of a key newest
  ** first.  Descending key order is a reversed read (not of an OLDER
  ** table, whose versions would come oldest first). */
  if( pInfo->nOrderBy >= 1 && pInfo->aOrderBy[0].iColumn == 0
   && !pInfo->aOrderBy[0].desc
   && (pInfo->nOrderBy == 1 || (pInfo->nOrderBy == 2
       && p->eKind == BT_OLDER
       && pInfo->aOrderBy[1].iColumn == BT_COL_ROWTIME(p)
       && pInfo->aOrderBy[1].desc)) ){
    pInfo->orderByConsumed = 1;
  }else if( pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0
         && pInfo->aOrderBy[0].desc && p->eKind != BT_OLDER ){
    pInfo->orderByConsumed = 1;
    pInfo->idxNum |= BT_REVERSED;
  }
  pInfo->idxStr = sqlite3_mprintf("%llx",
                                  (unsigned long long)pInfo->colUsed);
  if( pInfo->idxStr == 0 ) return SQLITE_NOMEM;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

static int btRename(sqlite3_vtab *pVtab, const char *zNew){
  BtTable *p = (BtTable*)pVtab;
  char *zName = sqlite3_mprintf("%s", zNew);
  if( zName == 0 ) return SQLITE_NOMEM;
  sqlite3_free(p->zName);
  p->zName = zName;
  return nameTable(p) ? SQLITE_NOMEM : SQLITE_OK;
}

/* widecol_bigtable_counters(key, ?) anywhere but the lookup of wc_remote.h. */
void btCountersFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_error(ctx, WC_RPC_COUNTERS_MISUSE, -1);
}

static int btFindFunction(sqlite3_vtab *pVtab, int nArg, const char *zName,
                          void (**pxFunc)(sqlite3_context*, int,
                                          sqlite3_value**),
                          void **ppArg){
  (void)pVtab;
  if( nArg != 2 || sqlite3_stricmp(zName, WC_RPC_COUNTERS) != 0 ) return 0;
  *pxFunc = btCountersFunc;
  *ppArg = 0;
  return BT_COUNTERS_OP;
}

const sqlite3_module btModule = {
  2,                    /* iVersion: savepoints */
  btCreate,
  btConnect,
  btBestIndex,
  btDisconnect,
  btDestroy,
  btOpen,
  btClose,
  btFilter,
  btNext,
  btEof,
  btColumn,
  btRowid,
  btUpdate,
  btBegin,
  btSync,
  btCommit,
  btRollback,
  btFindFunction,
  btRename,
  btSavepoint,
  btRelease,
  btRollbackTo,
  0                     /* xShadowName */
};

int btRegister(sqlite3 *db, char **pzErrMsg, const char *zPython){
  BtTxn *pTxn;
  int rc;
  if( !wcWidecolLoaded(db) ){
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("%s is the %s store of widecol tables "
          "and needs widecol loaded first: .load widecol, then .load %s "
          "(Python: %s)", btEngine.zModule, btEngine.zName, btEngine.zModule,
          zPython);
    }
    return SQLITE_ERROR;
  }
  /* Tables already connected keep the state they share; a second load
  ** gives the tables connected after it a new one. */
  pTxn = btTxnNew();
  if( pTxn == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_create_function_v2(db, WC_RPC_COUNTERS, 2,
                                  SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                  btCountersFunc, 0, 0, 0);
  if( rc != SQLITE_OK ){
    btTxnUnref(pTxn);
    return rc;
  }
  btTxnRef(pTxn);
  rc = sqlite3_create_module_v2(db, btEngine.zModule, &btModule, pTxn,
                                btTxnUnref);
  if( rc != SQLITE_OK ){
    btTxnUnref(pTxn);
    return rc;
  }
  return sqlite3_create_module_v2(db, btEngine.zTxnModule, &btTxnModule, pTxn,
                                  btTxnUnref);
}
