/*
** bt_store.c: the widecol_bigtable module (see bt_store.h): its
** arguments, connecting, planning and reading.
**
** Reads: xBestIndex takes the constraints on the key column (=, >, >=, <,
** <=) and ORDER BY key; xFilter makes a ReadRows over the key or range,
** in pages, with a filter that returns only the latest cell of the
** columns the statement uses (and the marker), and rows are put together
** from the streamed chunks as xNext asks for them.  Writes and
** transactions are in bt_write.c, the Bigtable tables' making and
** deleting in bt_admin.c.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_table.h"

#include <stdlib.h>
#include <string.h>

void *btArenaAlloc(BtArena *p, size_t n){
  BtBlock *pB = p->pHead;
  void *pRet;
  n = (n + 15) & ~(size_t)15;
  if( pB == 0 || pB->nUsed + n > pB->nSize ){
    size_t nSize = n > 65536 ? n : 65536;
    pB = sqlite3_malloc64(sizeof(BtBlock) + 16 + nSize);
    if( pB == 0 ){
      p->bOom = 1;
      return 0;
    }
    pB->nUsed = 0;
    pB->nSize = nSize;
    pB->pNext = p->pHead;
    p->pHead = pB;
  }
  pRet = (char*)pB + ((sizeof(BtBlock) + 15) & ~(size_t)15) + pB->nUsed;
  pB->nUsed += n;
  memset(pRet, 0, n);
  return pRet;
}

void *btArenaCopy(BtArena *p, const void *a, size_t n){
  void *pRet = btArenaAlloc(p, n ? n : 1);
  if( pRet && n ) memcpy(pRet, a, n);
  return pRet;
}

void btArenaFree(BtArena *p){
  while( p->pHead ){
    BtBlock *pB = p->pHead;
    p->pHead = pB->pNext;
    sqlite3_free(pB);
  }
  p->bOom = 0;
}

BtTxn *btTxnNew(void){
  BtTxn *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->nRef = 1;
  }
  return p;
}

void btTxnRef(BtTxn *p){
  p->nRef++;
}

void btTxnUnref(void *pArg){
  BtTxn *p = (BtTxn*)pArg;
  if( p && --p->nRef == 0 ) sqlite3_free(p);
}

/* A cell of an OLDER table's row: column (BT_MARKER: the marker),
** timestamp, value at cellVal.a[iOff..iOff+n). */
typedef struct BtCell BtCell;
struct BtCell {
  int iCol;
  int64_t iMicros;
  int64_t iOff, n;
};
#define BT_MARKER (-3)

typedef struct BtCursor BtCursor;
struct BtCursor {
  sqlite3_vtab_cursor base;
  BtStream *pStream;
  Wcbt__ReadRowsResponse *pResp;
  size_t iChunk;
  int bEof;
  WcBuf key;            /* The row being read */
  WcBuf *aVal;          /* Its cells' values, per column */
  unsigned char *abHave;   /* Column has a value in this row */
  int iCol;             /* Column the current cell belongs to: -1 none,
                        ** -2 the marker or a column not asked for */
  int bInRow;           /* Chunks of a row not yet committed came */
  int bMore;            /* The current cell's value continues */
  int bSkipCell;        /* The current cell is an older one: ignore */
  char *zFamily;        /* Family of the current cell */
  /* The read, in pages: a scan asks for BT_FIRST_PAGE rows, then for
  ** BT_PAGE_GROWTH times more after the last key of a full page (up to
  ** BT_MAX_PAGE), so that a probe or a LIMIT reads about what it uses and
  ** a long scan takes few calls. */
  BtArena reqArena;     /* The request's filter and bounds */
  Wcbt__ReadRowsRequest req;
  Wcbt__KeySet set;
  Wcbt__KeyRange range;
  Wcbt__KeyRange *apRange1[1];
  ProtobufCBinaryData aKey[1];
  WcBuf lastKey;        /* Key of the last row of the page */
  int64_t nPageRows;    /* Rows of the page so far */
  int64_t iRowtime;     /* ROWTIME: the version's timestamp */
  int bHaveTime;        /* iRowtime was set from the row's marker */
  /* OLDER: every cell of the row (values in cellVal), and the timestamps
  ** of its versions, newest first; the cursor is on version iVer. */
  WcBuf cells;          /* BtCell[], as wc_buf.h grows it */
  int nCell;
  WcBuf cellVal;
  int bCollect;         /* The current cell is in cells */
  WcBuf vers;           /* int64_t[] */
  int nVer, iVer;
};

/* The largest read filter sent; Bigtable's limit is 4,096 bytes. */
#define BT_MAX_FILTER  4000

#define BT_FIRST_PAGE  2
#define BT_PAGE_GROWTH 8
#define BT_MAX_PAGE    65536

/* Sets the table's message (formatted) and returns rc. */
int btError(BtTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  sqlite3_free(p->base.zErrMsg);
  va_start(ap, zFormat);
  p->base.zErrMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  return p->base.zErrMsg ? rc : SQLITE_NOMEM;
}

/* Bigtable said no: an error that says what to do. */
int btRpcError(BtTable *p, const char *zDoing, const BtStatus *pStatus){
  const char *zHint = "";
  int rc = SQLITE_ERROR;
  switch( pStatus->code ){
    case BT_UNAVAILABLE:
    case BT_DEADLINE_EXCEEDED:
      zHint = btConnIsEmulator(p->pConn)
        ? "; is the emulator running? (cbtemulator -host 127.0.0.1 -port N, "
          "with BIGTABLE_EMULATOR_HOST=127.0.0.1:N)"
        : "; check the network and the endpoint";
      rc = SQLITE_IOERR;
      break;
    case BT_NOT_FOUND:
      zHint = "; the Bigtable table is gone (deleted outside widecol?): "
              "DROP TABLE and CREATE the widecol table again to make it";
      break;
    case BT_PERMISSION_DENIED:
    case BT_UNAUTHENTICATED:
      zHint = "; give the account Bigtable access, or renew the token "
              "(export " BT_TOKEN_ENV "=$(gcloud auth print-access-token))";
      rc = SQLITE_AUTH;
      break;
    default:
      break;
  }
  return btError(p, rc, "%s: %s %s at %s: %s%s", p->zName, zDoing,
                 p->zResource, p->pConn ? btConnEndpoint(p->pConn) : "?",
                 pStatus->zMsg ? pStatus->zMsg : "failed", zHint);
}

int btTableConnect(BtTable *p){
  char *zErr = 0;
  if( p->pConn ) return SQLITE_OK;
  if( btConnOpen(&p->pConn, &zErr) != BT_OK ){
    int rc = btError(p, SQLITE_ERROR, "%s: %s", p->zName,
                     zErr ? zErr : "out of memory");
    sqlite3_free(zErr);
    return rc;
  }
  return SQLITE_OK;
}

/*
** Arguments.
*/

/* The next token of an argument: a quoted identifier, a string, a blob
** literal or a bare word; *pz moves past it.  Returns a new string (the
** unquoted text; a blob's bytes in *pBlob) or NULL at the end. */
static char *nextToken(const char **pz, WcBuf *pBlob){
  const char *z = *pz;
  sqlite3_str *pStr;
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

/* Checks zRes is projects/<p>/instances/<i>/tables/<t> with a valid table
** id ([_a-zA-Z0-9][-_.a-zA-Z0-9]*, at most 50 characters). */
static int validResource(const char *zRes){
  const char *z = zRes;
  int i, n = 0;
  static const char *const azPart[] = { "projects/", "instances/",
                                        "tables/" };
  for(i = 0; i < 3; i++){
    size_t nPart = strlen(azPart[i]);
    if( strncmp(z, azPart[i], nPart) != 0 ) return 0;
    z += nPart;
    if( i < 2 ){
      const char *zEnd = strchr(z, '/');
      if( zEnd == 0 || zEnd == z ) return 0;
      z = zEnd + 1;
    }
  }
  if( *z == '-' || *z == '.' ) return 0;
  for(; *z; z++, n++){
    if( !((*z >= 'a' && *z <= 'z') || (*z >= 'A' && *z <= 'Z')
       || (*z >= '0' && *z <= '9') || *z == '-' || *z == '_' || *z == '.') ){
      return 0;
    }
  }
  return n > 0 && n <= 50;
}

/* Orders column i before column j by (family, name). */
static int columnBefore(const BtTable *p, int i, int j){
  int c = strcmp(p->aCol[i].zFamily, p->aCol[j].zFamily);
  return (c ? c : strcmp(p->aCol[i].zName, p->aCol[j].zName)) < 0;
}

/* p->aiSorted: the columns by (family, name), for findColumn().  An
** insertion sort: qsort() has no argument to carry the table through,
** and a static one would be shared by every thread. */
static void sortColumns(BtTable *p){
  int i, j;
  for(i = 0; i < p->nCol; i++){
    int iCol = i;
    for(j = i; j > 0 && columnBefore(p, iCol, p->aiSorted[j - 1]); j--){
      p->aiSorted[j] = p->aiSorted[j - 1];
    }
    p->aiSorted[j] = iCol;
  }
}

static void tableFree(BtTable *p){
  int i;
  if( p == 0 ) return;
  /* Nothing waits here after a COMMIT or ROLLBACK; calls still in flight
  ** are answered, so that their memory can go. */
  if( p->nInflight ) btFlush(p);
  btArenaFree(&p->arena);
  sqlite3_free(p->apEntry);
  for(i = 0; i < p->nCol; i++){
    sqlite3_free(p->aCol[i].zName);
    sqlite3_free(p->aCol[i].zFamily);
  }
  for(i = 0; i < p->nSplit; i++) wcBufFree(&p->aSplit[i]);
  sqlite3_free(p->aSplit);
  sqlite3_free(p->aCol);
  sqlite3_free(p->aiSorted);
  sqlite3_free(p->azFamily);
  sqlite3_free(p->aiSavepoint);
  if( p->pTxn ){
    BtTable **pp = &p->pTxn->pTables;
    while( *pp && *pp != p ) pp = &(*pp)->pNextTable;
    if( *pp ) *pp = p->pNextTable;
    btTxnUnref(p->pTxn);
  }
  sqlite3_free(p->zName);
  sqlite3_free(p->zResource);
  btConnClose(p->pConn);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

/* Reads the arguments into p; returns a message (sqlite3_mprintf) or 0. */
static char *parseArgs(BtTable *p, int argc, const char *const *argv,
                       char **pzKey){
  const char *z;
  char *zTok;
  int i;
  if( argc < 5 ){
    return sqlite3_mprintf("widecol_bigtable %s: arguments are the Bigtable "
                           "table and the key column, then the columns",
                           p->zName);
  }
  z = argv[3];
  p->zResource = nextToken(&z, 0);
  if( p->zResource == 0 || !validResource(p->zResource) ){
    return sqlite3_mprintf("%s: %s is not a Bigtable table name; write "
        "'projects/<project>/instances/<instance>/tables/<table>' (the "
        "table id: letters, digits, _ - ., at most 50 characters)",
        p->zName, argv[3]);
  }
  z = argv[4];
  *pzKey = nextToken(&z, 0);
  p->aCol = sqlite3_malloc64(sizeof(BtColumn) * (sqlite3_uint64)argc);
  p->aiSorted = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)argc);
  p->azFamily = sqlite3_malloc64(sizeof(char*) * (sqlite3_uint64)(argc + 1));
  p->aSplit = sqlite3_malloc64(sizeof(WcBuf) * (sqlite3_uint64)argc);
  if( *pzKey == 0 || !p->aCol || !p->aiSorted || !p->azFamily || !p->aSplit ){
    return sqlite3_mprintf("out of memory");
  }
  memset(p->aSplit, 0, sizeof(WcBuf) * (size_t)argc);
  p->nVersions = 1;
  p->azFamily[p->nFamily++] = BT_DEFAULT_FAMILY;
  for(i = 5; i < argc; i++){
    z = argv[i];
    zTok = nextToken(&z, 0);
    if( zTok == 0 ) continue;
    if( sqlite3_stricmp(zTok, "ASYNC_INSERTS") == 0
     || sqlite3_stricmp(zTok, "ROWTIME") == 0
     || sqlite3_stricmp(zTok, "OLDER") == 0 ){
      int *pbFlag = zTok[0] == 'A' || zTok[0] == 'a' ? &p->bAsyncInsert
                  : zTok[0] == 'R' || zTok[0] == 'r' ? &p->bRowtime
                  : &p->bOlder;
      *pbFlag = 1;
      sqlite3_free(zTok);
      continue;
    }
    if( sqlite3_stricmp(zTok, "SPLITS") == 0 ){
      char *zKey;
      sqlite3_free(zTok);
      while( (zKey = nextToken(&z, &p->aSplit[p->nSplit])) != 0 ){
        sqlite3_free(zKey);
        p->nSplit++;
        if( p->nSplit >= argc ) break;
      }
      continue;
    }
    if( sqlite3_stricmp(zTok, "VERSIONS") == 0
     || sqlite3_stricmp(zTok, "TTL") == 0 ){
      char *zNum = nextToken(&z, 0);
      int64_t v = zNum ? strtoll(zNum, 0, 10) : 0;
      if( zTok[0] == 'V' || zTok[0] == 'v' ) p->nVersions = (int)v;
      else p->nTtl = v;
      sqlite3_free(zNum);
      sqlite3_free(zTok);
      continue;
    }
    {
      BtColumn *pCol = &p->aCol[p->nCol];
      int k;
      pCol->zName = zTok;
      pCol->zFamily = nextToken(&z, 0);
      if( pCol->zFamily == 0 ) pCol->zFamily = sqlite3_mprintf("%s",
                                                   BT_DEFAULT_FAMILY);
      p->nCol++;
      if( pCol->zFamily == 0 ) return sqlite3_mprintf("out of memory");
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
  if( p->bOlder && !p->bRowtime ){
    return sqlite3_mprintf("%s: OLDER shows versions, which need ROWTIME",
                           p->zName);
  }
  sortColumns(p);
  return 0;
}

/* The column of cell (zFamily, aQual[0..nQual)): >= 0, or -2 for the
** marker or a cell of no column. */
static int findColumn(const BtTable *p, const char *zFamily,
                      const unsigned char *aQual, size_t nQual){
  int lo = 0, hi = p->nCol - 1;
  while( lo <= hi ){
    int mid = (lo + hi) / 2;
    const BtColumn *pCol = &p->aCol[p->aiSorted[mid]];
    int c = strcmp(pCol->zFamily, zFamily);
    if( c == 0 ){
      size_t nName = strlen(pCol->zName);
      size_t nMin = nName < nQual ? nName : nQual;
      c = nMin ? memcmp(pCol->zName, aQual, nMin) : 0;
      if( c == 0 ) c = nName < nQual ? -1 : nName > nQual ? 1 : 0;
    }
    if( c == 0 ) return p->aiSorted[mid];
    if( c < 0 ) lo = mid + 1; else hi = mid - 1;
  }
  return -2;
}

/*
** Connecting.
*/
static int btInit(sqlite3 *db, BtTxn *pTxn, int argc,
                  const char *const *argv, sqlite3_vtab **ppVtab,
                  char **pzErr, int bCreate){
  BtTable *p = sqlite3_malloc(sizeof(*p));
  sqlite3_str *pDecl;
  char *zKey = 0, *zDecl, *zErr;
  int i, rc;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pTxn = pTxn;
  btTxnRef(pTxn);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  zErr = p->zName ? parseArgs(p, argc, argv, &zKey) : sqlite3_mprintf("oom");
  if( zErr ){
    *pzErr = zErr;
    sqlite3_free(zKey);
    tableFree(p);
    return SQLITE_ERROR;
  }
  /* An OLDER table has a row per version: its key is the row key and
  ** the version's timestamp, in the hidden column vkey (btVersionKey). */
  pDecl = sqlite3_str_new(db);
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(\"%w\" BLOB%s", zKey,
                      p->bOlder ? "" : " PRIMARY KEY");
  for(i = 0; i < p->nCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", p->aCol[i].zName);
  }
  if( p->bRowtime ) sqlite3_str_appendall(pDecl, ", rowtime INTEGER");
  if( p->bOlder ){
    sqlite3_str_appendall(pDecl, ", vkey BLOB HIDDEN PRIMARY KEY");
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  zDecl = sqlite3_str_finish(pDecl);
  sqlite3_free(zKey);
  rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    /* An OLDER table shows the Bigtable table its row table made. */
    if( bCreate && !p->bOlder ) rc = btCreateRemote(p);
    if( rc != SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg
                                                     : sqlite3_errmsg(db));
    }
  }
  if( rc != SQLITE_OK ){
    tableFree(p);
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
  tableFree((BtTable*)pVtab);
  return SQLITE_OK;
}

static int btDestroy(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  int rc = p->bOlder ? SQLITE_OK : btDeleteRemote(p);
  if( rc == SQLITE_OK ) tableFree(p);
  return rc;
}

/*
** Planning.  idxNum: bit 1 key = ?, bit 2 key >= ?, bit 4 key > ?, bit 8
** key < ?, bit 16 key <= ?, in that argv order.  idxStr: the columns used,
** colUsed in hex.
*/
#define BT_EQ 1
#define BT_GE 2
#define BT_GT 4
#define BT_LT 8
#define BT_LE 16
#define BT_COUNTERS 32    /* widecol_bigtable_counters(key, ?): argv[0] is
                          ** a WcRpcStats* to add this table's figures to;
                          ** no rows */
#define BT_SET 64         /* key MATCH ?: argv[0] is a set of ranges
                          ** (wc_rpc.h), read in one request; alone */

/* The constraint op widecol_bigtable_counters() becomes. */
#define BT_COUNTERS_OP SQLITE_INDEX_CONSTRAINT_FUNCTION

static int btBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  BtTable *p = (BtTable*)pVtab;
  int aiCons[5] = {-1, -1, -1, -1, -1};
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
    if( !pC->usable || pC->iColumn != 0 ) continue;
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
  }
  if( aiCons[1] >= 0 ) aiCons[2] = -1;
  if( aiCons[3] >= 0 ) aiCons[4] = -1;
  for(i = 0; i < 5; i++){
    if( aiCons[i] < 0 ) continue;
    idxNum |= 1 << i;
    pInfo->aConstraintUsage[aiCons[i]].argvIndex = ++nArg;
    pInfo->aConstraintUsage[aiCons[i]].omit = 1;
  }
  if( idxNum & BT_EQ ){
    cost = 10;
    pInfo->estimatedRows = 1;
    /* An OLDER table has a row per version of the key. */
    if( !p->bOlder ) pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    cost = (idxNum & (BT_GE|BT_GT)) && (idxNum & (BT_LT|BT_LE)) ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)cost;
  }else{
    pInfo->estimatedRows = 1000000;
  }
  pInfo->estimatedCost = cost;
  pInfo->idxNum = idxNum;
  /* Rows come in key order; an OLDER table's versions of a key newest
  ** first. */
  if( pInfo->nOrderBy >= 1 && pInfo->aOrderBy[0].iColumn == 0
   && !pInfo->aOrderBy[0].desc
   && (pInfo->nOrderBy == 1 || (pInfo->nOrderBy == 2 && p->bOlder
       && pInfo->aOrderBy[1].iColumn == p->nCol + 1
       && pInfo->aOrderBy[1].desc)) ){
    pInfo->orderByConsumed = 1;
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
  return SQLITE_OK;
}

/*
** Reading.
*/

static int columnUsed(uint64_t colUsed, int iCol){
  /* Column 0 is the key; bit 63 stands for every column from 63 on. */
  int iBit = iCol + 1;
  return ((colUsed >> (iBit < 63 ? iBit : 63)) & 1) != 0;
}

/* The read filter: the cells of each column used, and the marker; only
** the latest of each but in an OLDER table.  Built in pA. */
static Wcbt__Filter *readFilter(BtTable *p, uint64_t colUsed, BtArena *pA){
  Wcbt__Filter *pTop = btArenaAlloc(pA, sizeof(*pTop));
  Wcbt__Filter__List *pTopList = btArenaAlloc(pA, sizeof(*pTopList));
  Wcbt__Filter **apTop = btArenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
  Wcbt__Filter *pMix = btArenaAlloc(pA, sizeof(*pMix));
  Wcbt__Filter__List *pMixList = btArenaAlloc(pA, sizeof(*pMixList));
  /* One filter for each column used, and the marker's. */
  Wcbt__Filter *aPick = btArenaAlloc(pA, sizeof(Wcbt__Filter)
                                        * (size_t)(p->nCol + 1));
  Wcbt__ColumnRange *aRange = btArenaAlloc(pA, sizeof(Wcbt__ColumnRange)
                                               * (size_t)(p->nCol + 1));
  Wcbt__Filter **apMix = btArenaAlloc(pA, sizeof(Wcbt__Filter*)
                                        * (size_t)(p->nCol + 1));
  Wcbt__Filter *pLimit = btArenaAlloc(pA, sizeof(*pLimit));
  int i, nMix = 0, bAll = 1;
  if( pA->bOom ) return 0;
  for(i = 0; i < p->nCol; i++) bAll &= columnUsed(colUsed, i);
  wcbt__filter__init(pLimit);
  if( p->bOlder ){
    pLimit->kind_case = WCBT__FILTER__KIND_PASS_ALL;
    pLimit->pass_all = 1;
  }else{
    pLimit->kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
    pLimit->cells_per_column_limit = 1;
  }
  if( bAll ) return pLimit;
  btMarkerFilter(&aPick[nMix], &aRange[nMix]);
  apMix[nMix] = &aPick[nMix];
  nMix++;
  for(i = 0; i < p->nCol; i++){
    if( !columnUsed(colUsed, i) ) continue;
    btColumnFilter(&aPick[nMix], &aRange[nMix], p->aCol[i].zFamily,
                   p->aCol[i].zName, strlen(p->aCol[i].zName));
    apMix[nMix] = &aPick[nMix];
    nMix++;
  }
  btFilterOf(pMix, 0, pMixList, apMix, nMix);
  /* An interleave of one filter is an error to Bigtable. */
  apTop[0] = nMix == 1 ? apMix[0] : pMix;
  if( p->bOlder ){
    pTop = apTop[0];
  }else{
    apTop[1] = pLimit;
    btFilterOf(pTop, 1, pTopList, apTop, 2);
  }
  /* Bigtable refuses a filter over 4,096 bytes: then every column is read
  ** (the latest cell of each), which SQLite trims. */
  if( protobuf_c_message_get_packed_size(&pTop->base) > BT_MAX_FILTER ){
    return pLimit;
  }
  return pTop;
}

static int btOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  BtTable *p = (BtTable*)pVtab;
  BtCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->aVal = sqlite3_malloc64(sizeof(WcBuf) * (size_t)(p->nCol + 1));
  pCur->abHave = sqlite3_malloc64((size_t)(p->nCol + 1));
  if( pCur->aVal == 0 || pCur->abHave == 0 ){
    sqlite3_free(pCur->aVal);
    sqlite3_free(pCur->abHave);
    sqlite3_free(pCur);
    return SQLITE_NOMEM;
  }
  memset(pCur->aVal, 0, sizeof(WcBuf) * (size_t)(p->nCol + 1));
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static void cursorReset(BtCursor *pCur){
  btStreamClose(pCur->pStream);
  pCur->pStream = 0;
  if( pCur->pResp ) protobuf_c_message_free_unpacked(&pCur->pResp->base, 0);
  pCur->pResp = 0;
  pCur->iChunk = 0;
  pCur->bInRow = 0;
  sqlite3_free(pCur->zFamily);
  pCur->zFamily = 0;
}

static int btClose(sqlite3_vtab_cursor *pCursor){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  int i;
  cursorReset(pCur);
  btArenaFree(&pCur->reqArena);
  wcBufFree(&pCur->lastKey);
  for(i = 0; i <= p->nCol; i++) wcBufFree(&pCur->aVal[i]);
  wcBufFree(&pCur->key);
  wcBufFree(&pCur->cellVal);
  wcBufFree(&pCur->cells);
  wcBufFree(&pCur->vers);
  sqlite3_free(pCur->aVal);
  sqlite3_free(pCur->abHave);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static void rowStart(BtCursor *pCur, int nCol){
  int i;
  pCur->key.n = 0;
  for(i = 0; i < nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)nCol);
  pCur->iCol = -1;
  pCur->bMore = 0;
  pCur->bSkipCell = 0;
  pCur->bHaveTime = 0;
  pCur->iRowtime = 0;
  pCur->nCell = 0;
  pCur->cells.n = 0;
  pCur->cellVal.n = 0;
  pCur->bCollect = 0;
}

/* The cursor's cells and versions, in the WcBufs that hold them. */
static BtCell *cursorCells(const BtCursor *pCur){
  return (BtCell*)pCur->cells.a;
}
static int64_t *cursorVers(const BtCursor *pCur){
  return (int64_t*)pCur->vers.a;
}

/* OLDER: starts a cell of column iCol in cells. */
static int cellStart(BtCursor *pCur, int iCol, int64_t iMicros){
  BtCell cell;
  cell.iCol = iCol;
  cell.iMicros = iMicros;
  cell.iOff = pCur->cellVal.n;
  cell.n = 0;
  wcBufAppend(&pCur->cells, &cell, (int64_t)sizeof(cell));
  if( pCur->cells.bOom ) return SQLITE_NOMEM;
  pCur->nCell++;
  return SQLITE_OK;
}

/* OLDER: the timestamps of the row's versions (its marker's cells, which
** come newest first) into vers. */
static int versionsOfRow(BtCursor *pCur){
  int i;
  pCur->nVer = 0;
  pCur->iVer = 0;
  pCur->vers.n = 0;
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iCol != BT_MARKER ) continue;
    wcBufAppend(&pCur->vers, &pCell->iMicros, (int64_t)sizeof(int64_t));
    if( pCur->vers.bOom ) return SQLITE_NOMEM;
    pCur->nVer++;
  }
  return SQLITE_OK;
}

/* OLDER: puts version iVer's cells in aVal. */
static int versionLoad(BtCursor *pCur, int nCol){
  int64_t iMicros = cursorVers(pCur)[pCur->iVer];
  int i;
  for(i = 0; i < nCol; i++) pCur->aVal[i].n = 0;
  memset(pCur->abHave, 0, (size_t)nCol);
  for(i = 0; i < pCur->nCell; i++){
    const BtCell *pCell = &cursorCells(pCur)[i];
    if( pCell->iCol < 0 || pCell->iMicros != iMicros ) continue;
    pCur->abHave[pCell->iCol] = 1;
    if( pCell->n == 0 ) continue;
    wcBufAppend(&pCur->aVal[pCell->iCol], pCur->cellVal.a + pCell->iOff,
                pCell->n);
    if( pCur->aVal[pCell->iCol].bOom ) return SQLITE_NOMEM;
  }
  pCur->iRowtime = iMicros;
  return SQLITE_OK;
}

/* Compares byte strings as Bigtable orders keys. */
static int keyCompare(const ProtobufCBinaryData *a, const unsigned char *b,
                      size_t nB){
  size_t n = a->len < nB ? a->len : nB;
  int c = n ? memcmp(a->data, b, n) : 0;
  return c ? c : a->len < nB ? -1 : a->len > nB;
}

/* True if a range holds no key: Bigtable refuses such a range. */
static int emptyRange(const Wcbt__KeyRange *pRange){
  int c;
  if( pRange->start_case == WCBT__KEY_RANGE__START__NOT_SET
   || pRange->end_case == WCBT__KEY_RANGE__END__NOT_SET ){
    return 0;
  }
  c = keyCompare(&pRange->start_closed, pRange->end_open.data,
                 pRange->end_open.len);
  return c > 0 || (c == 0
      && (pRange->start_case == WCBT__KEY_RANGE__START_START_OPEN
          || pRange->end_case == WCBT__KEY_RANGE__END_END_OPEN));
}

/* Starts the ReadRows of the cursor's next page: the first (bNext 0), or
** the one after the last key read, BT_PAGE_GROWTH times larger.  The
** ranges are in key order and the last key is in one of them: those that
** end before it are dropped, and the one it is in starts after it (its
** start may point at lastKey already, rewritten since: it is not
** compared).  pStream stays 0 (the end) if no range is left. */
static void readPage(BtTable *p, BtCursor *pCur, int bNext){
  BtStatus st = {0, 0};
  if( bNext ){
    Wcbt__KeySet *pSet = &pCur->set;
    Wcbt__KeyRange *pRange;
    while( pSet->n_ranges > 0
        && pSet->ranges[0]->end_case != WCBT__KEY_RANGE__END__NOT_SET
        && keyCompare(&pSet->ranges[0]->end_open, pCur->lastKey.a,
                      (size_t)pCur->lastKey.n) <= 0 ){
      pSet->ranges++;
      pSet->n_ranges--;
    }
    if( pSet->n_ranges == 0 ) return;
    pRange = pSet->ranges[0];
    pRange->start_case = WCBT__KEY_RANGE__START_START_OPEN;
    pRange->start_open.data = pCur->lastKey.a;
    pRange->start_open.len = (size_t)pCur->lastKey.n;
    pCur->req.rows_limit *= BT_PAGE_GROWTH;
    if( pCur->req.rows_limit > BT_MAX_PAGE ){
      pCur->req.rows_limit = BT_MAX_PAGE;
    }
  }
  pCur->nPageRows = 0;
  btStreamOpen(p->pConn, M_READROWS, p->zResource, &pCur->req.base,
               &pCur->pStream, &st, &p->count);
  btStatusClear(&st);
}

/* Reads chunks until a row is complete (or the stream ends). */
static int readRow(BtCursor *pCur){
  BtTable *p = (BtTable*)pCur->base.pVtab;
  BtStatus st = {0, 0};
  if( pCur->pStream == 0 ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  for(;;){
    Wcbt__Chunk *pC;
    if( pCur->pResp == 0 || pCur->iChunk >= pCur->pResp->n_chunks ){
      ProtobufCMessage *pMsg = 0;
      int r;
      if( pCur->pResp ){
        protobuf_c_message_free_unpacked(&pCur->pResp->base, 0);
        pCur->pResp = 0;
      }
      r = btStreamNext(pCur->pStream, &wcbt__read_rows_response__descriptor,
                       &pMsg, &st);
      if( r == 0 && pCur->req.rows_limit > 0
       && pCur->nPageRows == pCur->req.rows_limit && pCur->lastKey.n > 0 ){
        /* A full page: the next one starts after its last key. */
        cursorReset(pCur);
        readPage(p, pCur, 1);
        if( pCur->pStream == 0 ){
          /* No range left, or no memory for the call. */
          pCur->bEof = 1;
          return pCur->set.n_ranges > 0 ? SQLITE_NOMEM : SQLITE_OK;
        }
        continue;
      }
      if( r <= 0 ){
        int rc = SQLITE_OK;
        if( r < 0 ) rc = btRpcError(p, "could not read", &st);
        btStatusClear(&st);
        cursorReset(pCur);
        pCur->bEof = 1;
        return rc;
      }
      pCur->pResp = (Wcbt__ReadRowsResponse*)pMsg;
      pCur->iChunk = 0;
      continue;
    }
    pC = pCur->pResp->chunks[pCur->iChunk++];

    /* A row key starts a row only after the last one was committed or
    ** reset: a server may repeat it on every chunk of a row. */
    if( pC->row_key.len > 0 && !pCur->bInRow ){
      rowStart(pCur, p->nCol);
      pCur->bInRow = 1;
      wcBufAppend(&pCur->key, pC->row_key.data, (int64_t)pC->row_key.len);
    }
    /* A server may name the family on every chunk: copy it only when
    ** it changes. */
    if( pC->family && (pCur->zFamily == 0
                       || strcmp(pCur->zFamily, pC->family->value) != 0) ){
      sqlite3_free(pCur->zFamily);
      pCur->zFamily = sqlite3_mprintf("%s", pC->family->value);
      if( pCur->zFamily == 0 ) return SQLITE_NOMEM;
    }
    if( pC->qualifier ){
      pCur->iCol = findColumn(p, pCur->zFamily ? pCur->zFamily : "",
                              pC->qualifier->value.data,
                              pC->qualifier->value.len);
      if( pCur->iCol == -2 && pC->qualifier->value.len == 0 && pCur->zFamily
       && strcmp(pCur->zFamily, BT_DEFAULT_FAMILY) == 0 ){
        pCur->iCol = BT_MARKER;
      }
      pCur->bSkipCell = pCur->iCol >= 0 && pCur->abHave[pCur->iCol];
      if( pCur->iCol == BT_MARKER && !pCur->bHaveTime ){
        pCur->bHaveTime = 1;
        pCur->iRowtime = pC->micros;
      }
      pCur->bCollect = p->bOlder
          && (pCur->iCol >= 0 || pCur->iCol == BT_MARKER);
      if( pCur->bCollect && cellStart(pCur, pCur->iCol, pC->micros) ){
        return SQLITE_NOMEM;
      }
    }else if( !pCur->bMore && pC->status_case
                              != WCBT__CHUNK__STATUS_RESET_ROW ){
      /* Another (older) cell of the same column. */
      pCur->bSkipCell = 1;
      pCur->bCollect = p->bOlder
          && (pCur->iCol >= 0 || pCur->iCol == BT_MARKER);
      if( pCur->bCollect && cellStart(pCur, pCur->iCol, pC->micros) ){
        return SQLITE_NOMEM;
      }
    }
    if( pCur->bCollect ){
      if( pC->value.len > 0 ){
        wcBufAppend(&pCur->cellVal, pC->value.data, (int64_t)pC->value.len);
        cursorCells(pCur)[pCur->nCell - 1].n += (int64_t)pC->value.len;
      }
    }else if( pCur->iCol >= 0 && !pCur->bSkipCell ){
      pCur->abHave[pCur->iCol] = 1;
      wcBufAppend(&pCur->aVal[pCur->iCol], pC->value.data,
                  (int64_t)pC->value.len);
    }
    pCur->bMore = pC->value_size > 0;
    if( pC->status_case == WCBT__CHUNK__STATUS_RESET_ROW ){
      rowStart(pCur, p->nCol);
      pCur->bInRow = 0;
    }else if( pC->status_case == WCBT__CHUNK__STATUS_COMMIT_ROW ){
      pCur->bInRow = 0;
      pCur->iCol = -1;
      pCur->nPageRows++;
      if( pCur->req.rows_limit > 0 ){
        pCur->lastKey.n = 0;
        wcBufAppend(&pCur->lastKey, pCur->key.a, pCur->key.n);
      }
      pCur->bMore = 0;
      return pCur->key.bOom || pCur->cellVal.bOom ? SQLITE_NOMEM : SQLITE_OK;
    }
  }
}

/* The next row; in an OLDER table the next version before a row's
** latest. */
static int btNext(sqlite3_vtab_cursor *pCursor){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  int rc;
  if( !p->bOlder ) return readRow(pCur);
  for(;;){
    if( pCur->iVer + 1 < pCur->nVer ){
      pCur->iVer++;
      return versionLoad(pCur, p->nCol);
    }
    rc = readRow(pCur);
    if( rc != SQLITE_OK || pCur->bEof ) return rc;
    rc = versionsOfRow(pCur);
    if( rc != SQLITE_OK ) return rc;
  }
}

/* Reads a set of ranges (wc_rpc.h) into the request's row set, in the
** cursor's arena, without the empty ones. */
static int decodeSet(BtCursor *pCur, sqlite3_value *pVal){
  BtArena *pA = &pCur->reqArena;
  const unsigned char *a = sqlite3_value_blob(pVal);
  size_t n = (size_t)sqlite3_value_bytes(pVal), i = 0, nMax = n / 5 + 1;
  Wcbt__KeyRange **ap = btArenaAlloc(pA, sizeof(*ap) * nMax);
  Wcbt__KeySet *pSet = &pCur->set;
  if( ap == 0 ) return SQLITE_NOMEM;
  pSet->ranges = ap;
  while( i + 5 <= n ){
    Wcbt__KeyRange *pRange = btArenaAlloc(pA, sizeof(*pRange));
    size_t nLo, nHi;
    if( pRange == 0 ) return SQLITE_NOMEM;
    wcbt__key_range__init(pRange);
    nLo = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
        | ((size_t)a[i+2] << 8) | a[i+3];
    i += 4;
    if( i + nLo + 1 > n ) break;
    if( nLo > 0 ){
      pRange->start_case = WCBT__KEY_RANGE__START_START_CLOSED;
      pRange->start_closed.data = btArenaCopy(pA, &a[i], nLo);
      pRange->start_closed.len = nLo;
    }
    i += nLo;
    if( a[i++] ){
      if( i + 4 > n ) break;
      nHi = ((size_t)a[i] << 24) | ((size_t)a[i+1] << 16)
          | ((size_t)a[i+2] << 8) | a[i+3];
      i += 4;
      if( i + nHi > n ) break;
      pRange->end_case = WCBT__KEY_RANGE__END_END_OPEN;
      pRange->end_open.data = btArenaCopy(pA, &a[i], nHi);
      pRange->end_open.len = nHi;
      i += nHi;
      /* [lo, "") holds no key. */
      if( nHi == 0 ) continue;
    }
    if( !emptyRange(pRange) && pSet->n_ranges < nMax ){
      ap[pSet->n_ranges++] = pRange;
    }
  }
  return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

static int btFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                    const char *idxStr, int argc, sqlite3_value **argv){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  BtArena *pA = &pCur->reqArena;
  Wcbt__KeyRange *pRange = &pCur->range;
  uint64_t colUsed = idxStr ? strtoull(idxStr, 0, 16) : ~(uint64_t)0;
  int i, iArg = 0, rc, bEmpty = 0;
  (void)argc;
  cursorReset(pCur);
  btArenaFree(pA);
  if( idxNum == BT_COUNTERS ){
    WcRpcStats *pOut = sqlite3_value_pointer(argv[0], WC_RPC_COUNTERS);
    if( pOut ){
      pOut->nRpc += p->count.nRpc;
      pOut->nMsgIn += p->count.nMsgIn;
      pOut->nByteIn += p->count.nByteIn;
      pOut->nByteOut += p->count.nByteOut;
      if( pOut->bReset ) memset(&p->count, 0, sizeof(p->count));
    }
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  pCur->bEof = 0;
  wcbt__read_rows_request__init(&pCur->req);
  wcbt__key_set__init(&pCur->set);
  wcbt__key_range__init(pRange);
  rc = btFlushTable(p);
  if( rc != SQLITE_OK ) return rc;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  for(i = 0; i < 5; i++){
    sqlite3_value *pVal;
    int eType, bLower, eOp = 1 << i;
    const void *a;
    size_t n;
    if( (idxNum & eOp) == 0 ) continue;
    pVal = argv[iArg++];
    eType = sqlite3_value_type(pVal);
    bLower = eOp == BT_GE || eOp == BT_GT;
    if( eType != SQLITE_BLOB ){
      /* NULL matches nothing; a number or a text sorts before every key
      ** (a BLOB), so it only bounds as an upper bound or an '=', where it
      ** excludes every row. */
      if( eType == SQLITE_NULL || !bLower ) bEmpty = 1;
      continue;
    }
    a = sqlite3_value_blob(pVal);
    n = (size_t)sqlite3_value_bytes(pVal);
    if( eOp == BT_EQ ){
      if( n == 0 ){
        bEmpty = 1;
        continue;
      }
      pCur->aKey[0].data = btArenaCopy(pA, a, n);
      pCur->aKey[0].len = n;
      pCur->set.n_keys = 1;
      pCur->set.keys = pCur->aKey;
    }else if( bLower ){
      if( n == 0 && eOp == BT_GE ) continue;
      pRange->start_case = eOp == BT_GE ? WCBT__KEY_RANGE__START_START_CLOSED
                                        : WCBT__KEY_RANGE__START_START_OPEN;
      pRange->start_closed.data = btArenaCopy(pA, a, n);
      pRange->start_closed.len = n;
    }else{
      if( n == 0 ){
        bEmpty = 1;
        continue;
      }
      pRange->end_case = eOp == BT_LT ? WCBT__KEY_RANGE__END_END_OPEN
                                      : WCBT__KEY_RANGE__END_END_CLOSED;
      pRange->end_open.data = btArenaCopy(pA, a, n);
      pRange->end_open.len = n;
    }
  }
  if( idxNum == BT_SET ){
    rc = decodeSet(pCur, argv[0]);
    if( rc != SQLITE_OK ) return rc;
    bEmpty = pCur->set.n_ranges == 0;
  }else if( pCur->set.n_keys == 0 && !emptyRange(pRange) ){
    pCur->apRange1[0] = pRange;
    pCur->set.n_ranges = 1;
    pCur->set.ranges = pCur->apRange1;
  }else if( pCur->set.n_keys == 0 ){
    bEmpty = 1;
  }
  if( bEmpty || pA->bOom ){
    pCur->bEof = 1;
    return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  pCur->req.table_name = p->zResource;
  pCur->req.filter = readFilter(p, colUsed, pA);
  if( pCur->req.filter == 0 ) return SQLITE_NOMEM;
  if( pCur->set.n_keys == 0 ) pCur->req.rows_limit = BT_FIRST_PAGE;
  pCur->req.rows = &pCur->set;
  pCur->nVer = pCur->iVer = 0;
  readPage(p, pCur, 0);
  if( pCur->pStream == 0 ) return SQLITE_NOMEM;
  return btNext(pCursor);
}

static int btEof(sqlite3_vtab_cursor *pCursor){
  return ((BtCursor*)pCursor)->bEof;
}

static int btColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx,
                    int iCol){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
  if( iCol == 0 ){
    sqlite3_result_blob64(ctx, pCur->key.a ? pCur->key.a
                                           : (const unsigned char*)"",
                          (sqlite3_uint64)pCur->key.n, SQLITE_TRANSIENT);
  }else if( iCol == p->nCol + 1 ){
    sqlite3_result_int64(ctx, pCur->iRowtime);
  }else if( iCol == p->nCol + 2 ){
    WcBuf vkey;
    memset(&vkey, 0, sizeof(vkey));
    btVersionKey(&vkey, pCur->key.a, pCur->key.n, pCur->iRowtime);
    if( vkey.bOom ) return SQLITE_NOMEM;
    sqlite3_result_blob64(ctx, vkey.a, (sqlite3_uint64)vkey.n, sqlite3_free);
  }else if( pCur->abHave[iCol - 1] ){
    btCellResult(ctx, pCur->aVal[iCol - 1].a, pCur->aVal[iCol - 1].n);
  }
  return SQLITE_OK;
}

/* widecol_bigtable_counters(key, ?) anywhere but the lookup of wc_rpc.h. */
void btCountersFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  (void)argv;
  sqlite3_result_error(ctx, WC_RPC_COUNTERS "() is widecol's own: it reads "
      "a Bigtable-stored table's call counters for widecol_stats(); call "
      "widecol_stats('<table>')", -1);
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

static int btRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *pRowid){
  (void)pCursor;
  *pRowid = 0;
  return SQLITE_ERROR;
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
