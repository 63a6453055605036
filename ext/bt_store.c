/*
** bt_store.c: the widecol_bigtable module (see bt_store.h).
**
** Reads: xBestIndex takes the constraints on the key column (=, >, >=, <,
** <=) and ORDER BY key; xFilter makes one ReadRows over the key or range,
** with a filter that returns only the latest cell of the columns the
** statement uses (and the marker), and rows are put together from the
** streamed chunks as xNext asks for them.
**
** Writes are batched: each row's mutations (atomic per row in Bigtable)
** wait in a MutateRows request that is sent when it holds BT_BATCH_ROWS
** rows, before any read of the table, and at COMMIT (xSync, so that a
** failure fails the COMMIT).  An INSERT that must not replace (every
** conflict mode but REPLACE) is one CheckAndMutateRow: the row is written
** only if its marker cell is absent, atomically, else the insert fails
** with SQLITE_CONSTRAINT_PRIMARYKEY.  Bigtable has no multi-row
** transactions: ROLLBACK (and a statement that fails) drops the writes
** still waiting in the batch, and cannot undo those already sent.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_store.h"
#include "bt_rpc.h"
#include "bt_cell.h"
#include "bt_wire.pb-c.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Rows a batch holds before it is sent, and bytes. */
#define BT_BATCH_ROWS  1000
#define BT_BATCH_BYTES (8 << 20)
/* Bigtable's limits: a row key, a cell value. */
#define BT_MAX_KEY   4096
#define BT_MAX_CELL  (100 << 20)
/* Attempts of a batch whose rows fail with a status worth retrying. */
#define BT_ATTEMPTS  4

#define M_READROWS "/google.bigtable.v2.Bigtable/ReadRows"
#define M_MUTATEROWS "/google.bigtable.v2.Bigtable/MutateRows"
#define M_CHECKANDMUTATE "/google.bigtable.v2.Bigtable/CheckAndMutateRow"
#define M_CREATETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/CreateTable"
#define M_GETTABLE "/google.bigtable.admin.v2.BigtableTableAdmin/GetTable"
#define M_DELETETABLE "/google.bigtable.admin.v2.BigtableTableAdmin/DeleteTable"

/*
** An arena: the memory of one batch of mutations, freed at once when the
** batch has been sent.
*/
typedef struct BtBlock BtBlock;
struct BtBlock {
  BtBlock *pNext;
  size_t nUsed, nSize;
  /* data follows */
};
typedef struct BtArena BtArena;
struct BtArena {
  BtBlock *pHead;
  int bOom;
};

static void *arenaAlloc(BtArena *p, size_t n){
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

static void *arenaCopy(BtArena *p, const void *a, size_t n){
  void *pRet = arenaAlloc(p, n ? n : 1);
  if( pRet && n ) memcpy(pRet, a, n);
  return pRet;
}

static void arenaFree(BtArena *p){
  while( p->pHead ){
    BtBlock *pB = p->pHead;
    p->pHead = pB->pNext;
    sqlite3_free(pB);
  }
  p->bOom = 0;
}

/*
** The table.
*/
typedef struct BtColumn BtColumn;
struct BtColumn {
  char *zName;          /* Also its qualifier */
  char *zFamily;
};

/*
** What a connection's transaction has sent, shared by every table of the
** module on the connection (the module's client data, counted): whether a
** ROLLBACK, or a statement that fails, can still drop its writes depends
** on whether any table sent any since it began, not only this one.
*/
#define BT_MAX_SAVEPOINT 64
struct BtTxn {
  int nRef;
  int bOpen;            /* A transaction is open */
  int64_t nSent;        /* Rows sent, ever */
  int64_t iBegin;       /* nSent when the transaction began */
  int nSavepoint;
  int64_t aiSavepoint[BT_MAX_SAVEPOINT];   /* nSent at each savepoint */
};

BtTxn *btTxnNew(void){
  BtTxn *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->nRef = 1;
  }
  return p;
}

static void btTxnRef(BtTxn *p){
  p->nRef++;
}

void btTxnUnref(void *pArg){
  BtTxn *p = (BtTxn*)pArg;
  if( p && --p->nRef == 0 ) sqlite3_free(p);
}

typedef struct BtTable BtTable;
struct BtTable {
  sqlite3_vtab base;
  sqlite3 *db;
  char *zName;          /* SQLite name, for messages */
  char *zResource;      /* projects/p/instances/i/tables/t */
  int nCol;             /* Columns after the key */
  BtColumn *aCol;
  int *aiSorted;        /* Columns by (family, qualifier), for lookups */
  int nFamily;
  char **azFamily;      /* Distinct families, BT_DEFAULT_FAMILY first */
  int nSplit;
  WcBuf *aSplit;        /* SPLITS, for CreateTable */
  int nVersions;        /* GC rule: versions kept (1 unless VERSIONS) */
  int64_t nTtl;         /* GC rule: max age in seconds, 0 for none */
  BtConn *pConn;        /* Opened on first use */
  BtCounters count;
  int64_t iLastMicros;  /* Timestamps given are increasing */
  /* The batch */
  BtArena arena;
  Wcbt__MutateRowsRequest__Entry **apEntry;
  int nEntry, nEntryAlloc;
  size_t nBatchByte;
  BtTxn *pTxn;          /* The connection's transaction (shared) */
  int *aiSavepoint;     /* nEntry at each open savepoint */
  int nSavepoint;
};

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
  Wcbt__KeyRange *apRange[1];
  ProtobufCBinaryData aKey[1];
  WcBuf lastKey;        /* Key of the last row of the page */
  int64_t nPageRows;    /* Rows of the page so far */
};

#define BT_FIRST_PAGE  2
#define BT_PAGE_GROWTH 8
#define BT_MAX_PAGE    65536

/* Sets the table's message (formatted) and returns rc. */
static int btError(BtTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  sqlite3_free(p->base.zErrMsg);
  va_start(ap, zFormat);
  p->base.zErrMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  return p->base.zErrMsg ? rc : SQLITE_NOMEM;
}

/* Bigtable said no: an error that says what to do. */
static int rpcError(BtTable *p, const char *zDoing, const BtStatus *pStatus){
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

static int connect(BtTable *p){
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

static BtTable *sortTable;   /* qsort has no context argument */
static int compareColumns(const void *a, const void *b){
  const BtColumn *pA = &sortTable->aCol[*(const int*)a];
  const BtColumn *pB = &sortTable->aCol[*(const int*)b];
  int c = strcmp(pA->zFamily, pB->zFamily);
  return c ? c : strcmp(pA->zName, pB->zName);
}

static void tableFree(BtTable *p){
  int i;
  if( p == 0 ) return;
  arenaFree(&p->arena);
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
  if( p->pTxn ) btTxnUnref(p->pTxn);
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
  WcBuf blob;
  memset(&blob, 0, sizeof(blob));
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
  wcBufFree(&blob);
  for(i = 0; i < p->nCol; i++) p->aiSorted[i] = i;
  sortTable = p;
  qsort(p->aiSorted, (size_t)p->nCol, sizeof(int), compareColumns);
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
** Admin: making, finding and deleting the Bigtable table.
*/

/* The GC rule of every family: at most nVersions cells per column, and
** under a TTL none older; a cell goes when either rule says so, as in
** HBase.  aPart[0..1] and the list are the rule's parts. */
static Wcbt__GcRule *gcRule(BtTable *p, Wcbt__GcRule *aPart,
                            Wcbt__GcRule **apPart, Wcbt__GcRule__List *pList,
                            Wcbt__Duration *pAge){
  int i;
  for(i = 0; i < 3; i++) wcbt__gc_rule__init(&aPart[i]);
  wcbt__duration__init(pAge);
  wcbt__gc_rule__list__init(pList);
  aPart[0].rule_case = WCBT__GC_RULE__RULE_MAX_VERSIONS;
  aPart[0].max_versions = p->nVersions;
  if( p->nTtl <= 0 ) return &aPart[0];
  pAge->seconds = p->nTtl;
  aPart[1].rule_case = WCBT__GC_RULE__RULE_MAX_AGE;
  aPart[1].max_age = pAge;
  apPart[0] = &aPart[0];
  apPart[1] = &aPart[1];
  pList->n_rules = 2;
  pList->rules = apPart;
  aPart[2].rule_case = WCBT__GC_RULE__RULE_UNION;
  aPart[2].union_ = pList;
  return &aPart[2];
}

static int createRemote(BtTable *p){
  Wcbt__CreateTableRequest req = WCBT__CREATE_TABLE_REQUEST__INIT;
  Wcbt__Table table = WCBT__TABLE__INIT;
  Wcbt__Table__FamiliesEntry *aEntry, **apEntry;
  Wcbt__ColumnFamily *aFam;
  Wcbt__GcRule aRule[3], *apRule[2], *pRule;
  Wcbt__GcRule__List list;
  Wcbt__Duration age;
  Wcbt__Split *aSplit, **apSplit;
  ProtobufCMessage *pResp = 0;
  BtStatus st = {0, 0};
  char *zParent;
  const char *zId;
  int i, code, rc = SQLITE_OK;
  if( connect(p) ) return SQLITE_ERROR;
  zId = strstr(p->zResource, "/tables/") + 8;
  zParent = sqlite3_mprintf("%.*s", (int)(zId - 8 - p->zResource),
                            p->zResource);
  aEntry = sqlite3_malloc64(sizeof(*aEntry) * (size_t)p->nFamily);
  apEntry = sqlite3_malloc64(sizeof(*apEntry) * (size_t)p->nFamily);
  aFam = sqlite3_malloc64(sizeof(*aFam) * (size_t)p->nFamily);
  aSplit = sqlite3_malloc64(sizeof(*aSplit) * (size_t)(p->nSplit + 1));
  apSplit = sqlite3_malloc64(sizeof(*apSplit) * (size_t)(p->nSplit + 1));
  if( !zParent || !aEntry || !apEntry || !aFam || !aSplit || !apSplit ){
    rc = SQLITE_NOMEM;
    goto done;
  }
  pRule = gcRule(p, aRule, apRule, &list, &age);
  for(i = 0; i < p->nFamily; i++){
    wcbt__table__families_entry__init(&aEntry[i]);
    wcbt__column_family__init(&aFam[i]);
    aFam[i].gc_rule = pRule;
    aEntry[i].key = p->azFamily[i];
    aEntry[i].value = &aFam[i];
    apEntry[i] = &aEntry[i];
  }
  for(i = 0; i < p->nSplit; i++){
    wcbt__split__init(&aSplit[i]);
    aSplit[i].key.data = p->aSplit[i].a;
    aSplit[i].key.len = (size_t)p->aSplit[i].n;
    apSplit[i] = &aSplit[i];
  }
  table.n_families = (size_t)p->nFamily;
  table.families = apEntry;
  req.parent = zParent;
  req.table_id = (char*)zId;
  req.table = &table;
  req.n_splits = (size_t)p->nSplit;
  req.splits = apSplit;
  code = btCall(p->pConn, M_CREATETABLE, zParent, &req.base,
                &wcbt__table__descriptor, &pResp, &st, &p->count);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  if( code == BT_ALREADY_EXISTS ){
    /* Made before (by this design, in another database or session): take
    ** it if it has every family. */
    Wcbt__GetTableRequest get = WCBT__GET_TABLE_REQUEST__INIT;
    Wcbt__Table *pTable = 0;
    btStatusClear(&st);
    get.name = p->zResource;
    get.view = 2;
    code = btCall(p->pConn, M_GETTABLE, p->zResource, &get.base,
                  &wcbt__table__descriptor, (ProtobufCMessage**)&pTable, &st,
                  &p->count);
    if( code == BT_OK ){
      for(i = 0; i < p->nFamily; i++){
        size_t k;
        for(k = 0; k < pTable->n_families; k++){
          if( strcmp(pTable->families[k]->key, p->azFamily[i]) == 0 ) break;
        }
        if( k == pTable->n_families ){
          rc = btError(p, SQLITE_ERROR, "%s: the Bigtable table %s exists "
              "but has no column family \"%s\", so it was not made for this "
              "design: delete it (cbt deletetable) or name another table",
              p->zName, p->zResource, p->azFamily[i]);
          break;
        }
      }
    }
    if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  }
  if( code != BT_OK && rc == SQLITE_OK ){
    rc = rpcError(p, "could not create the Bigtable table", &st);
  }
done:
  btStatusClear(&st);
  sqlite3_free(zParent);
  sqlite3_free(aEntry);
  sqlite3_free(apEntry);
  sqlite3_free(aFam);
  sqlite3_free(aSplit);
  sqlite3_free(apSplit);
  return rc;
}

static int deleteRemote(BtTable *p){
  Wcbt__DeleteTableRequest req = WCBT__DELETE_TABLE_REQUEST__INIT;
  ProtobufCMessage *pResp = 0;
  BtStatus st = {0, 0};
  int code, rc = SQLITE_OK;
  if( connect(p) ) return SQLITE_ERROR;
  req.name = p->zResource;
  code = btCall(p->pConn, M_DELETETABLE, p->zResource, &req.base,
                &wcbt__empty__descriptor, &pResp, &st, &p->count);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  /* Gone already is what DROP wants. */
  if( code != BT_OK && code != BT_NOT_FOUND ){
    rc = rpcError(p, "could not delete the Bigtable table", &st);
  }
  btStatusClear(&st);
  return rc;
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
  pDecl = sqlite3_str_new(db);
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(\"%w\" BLOB PRIMARY KEY", zKey);
  for(i = 0; i < p->nCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", p->aCol[i].zName);
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  zDecl = sqlite3_str_finish(pDecl);
  sqlite3_free(zKey);
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
    tableFree(p);
    return rc;
  }
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
  int rc = deleteRemote(p);
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

/* The constraint op widecol_bigtable_counters() becomes. */
#define BT_COUNTERS_OP SQLITE_INDEX_CONSTRAINT_FUNCTION

static int btBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int aiCons[5] = {-1, -1, -1, -1, -1};
  int i, idxNum = 0, nArg = 0;
  double cost = 1e6;
  (void)pVtab;
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
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    cost = (idxNum & (BT_GE|BT_GT)) && (idxNum & (BT_LT|BT_LE)) ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)cost;
  }else{
    pInfo->estimatedRows = 1000000;
  }
  pInfo->estimatedCost = cost;
  pInfo->idxNum = idxNum;
  if( pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0
   && !pInfo->aOrderBy[0].desc ){
    pInfo->orderByConsumed = 1;
  }
  pInfo->idxStr = sqlite3_mprintf("%llx",
                                  (unsigned long long)pInfo->colUsed);
  if( pInfo->idxStr == 0 ) return SQLITE_NOMEM;
  pInfo->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

/*
** Writes.
*/

static int64_t nowMicros(BtTable *p){
  struct timespec ts;
  int64_t t;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* Bigtable's default granularity is the millisecond. */
  t = ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * 1000;
  if( t <= p->iLastMicros ) t = p->iLastMicros + 1000;
  p->iLastMicros = t;
  return t;
}

static Wcbt__Mutation *newMutation(BtArena *pA){
  Wcbt__Mutation *pM = arenaAlloc(pA, sizeof(*pM));
  if( pM ) wcbt__mutation__init(pM);
  return pM;
}

static Wcbt__Mutation *mutSetCell(BtArena *pA, const char *zFamily,
                                  const char *zQual, const unsigned char *a,
                                  size_t n, int64_t iMicros){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__SetCell *pS = arenaAlloc(pA, sizeof(*pS));
  if( pM == 0 || pS == 0 ) return 0;
  wcbt__mutation__set_cell__init(pS);
  pS->family = (char*)zFamily;
  pS->qualifier.data = (uint8_t*)zQual;
  pS->qualifier.len = strlen(zQual);
  pS->micros = iMicros;
  pS->value.data = arenaCopy(pA, a, n);
  pS->value.len = n;
  pM->kind_case = WCBT__MUTATION__KIND_SET_CELL;
  pM->set_cell = pS;
  return pS->value.data ? pM : 0;
}

static Wcbt__Mutation *mutDeleteColumn(BtArena *pA, const char *zFamily,
                                       const char *zQual){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__DeleteColumn *pD = arenaAlloc(pA, sizeof(*pD));
  if( pM == 0 || pD == 0 ) return 0;
  wcbt__mutation__delete_column__init(pD);
  pD->family = (char*)zFamily;
  pD->qualifier.data = (uint8_t*)zQual;
  pD->qualifier.len = strlen(zQual);
  pM->kind_case = WCBT__MUTATION__KIND_DELETE_COLUMN;
  pM->delete_column = pD;
  return pM;
}

static Wcbt__Mutation *mutDeleteRow(BtArena *pA){
  Wcbt__Mutation *pM = newMutation(pA);
  Wcbt__Mutation__DeleteRow *pD = arenaAlloc(pA, sizeof(*pD));
  if( pM == 0 || pD == 0 ) return 0;
  wcbt__mutation__delete_row__init(pD);
  pM->kind_case = WCBT__MUTATION__KIND_DELETE_ROW;
  pM->delete_row = pD;
  return pM;
}

/* The mutations that write a row's columns argv[0..nCol) (an UPDATE's
** unchanged ones skipped), after a delete of the row if bReplace, with
** the marker; in *papMut (arena memory), their number returned.  On
** failure a negated SQLite code: -SQLITE_NOMEM, or -SQLITE_TOOBIG for a
** value too large (message set). */
static int rowMutations(BtTable *p, BtArena *pA, sqlite3_value **argv,
                        int bReplace, int bUpdate, Wcbt__Mutation ***papMut){
  Wcbt__Mutation **ap = arenaAlloc(pA, sizeof(*ap) * (size_t)(p->nCol + 2));
  int64_t iMicros = nowMicros(p);
  WcBuf cell;
  int i, n = 0;
  if( ap == 0 ) return -SQLITE_NOMEM;
  memset(&cell, 0, sizeof(cell));
  if( bReplace ) ap[n++] = mutDeleteRow(pA);
  ap[n++] = mutSetCell(pA, BT_DEFAULT_FAMILY, "", 0, 0, iMicros);
  for(i = 0; i < p->nCol; i++){
    sqlite3_value *pVal = argv[i];
    if( bUpdate && sqlite3_value_nochange(pVal) ) continue;
    if( sqlite3_value_type(pVal) == SQLITE_NULL ){
      if( bReplace ) continue;
      ap[n++] = mutDeleteColumn(pA, p->aCol[i].zFamily, p->aCol[i].zName);
      continue;
    }
    cell.n = 0;
    btCellEncode(pVal, &cell);
    if( cell.bOom ){
      wcBufFree(&cell);
      return -SQLITE_NOMEM;
    }
    if( cell.n > BT_MAX_CELL ){
      int64_t nCell = cell.n;
      wcBufFree(&cell);
      return -btError(p, SQLITE_TOOBIG, "%s: the value of column %s is %lld "
              "bytes, more than a Bigtable cell may hold (100 MiB)", p->zName,
              p->aCol[i].zName, (long long)nCell);
    }
    ap[n++] = mutSetCell(pA, p->aCol[i].zFamily, p->aCol[i].zName, cell.a,
                         (size_t)cell.n, iMicros);
  }
  wcBufFree(&cell);
  for(i = 0; i < n; i++) if( ap[i] == 0 ) return -SQLITE_NOMEM;
  if( pA->bOom ) return -SQLITE_NOMEM;
  *papMut = ap;
  return n;
}

/* Adds a row's mutations to the batch. */
static int queueRow(BtTable *p, const unsigned char *aKey, size_t nKey,
                    Wcbt__Mutation **apMut, int nMut){
  Wcbt__MutateRowsRequest__Entry *pE = arenaAlloc(&p->arena, sizeof(*pE));
  if( pE == 0 ) return SQLITE_NOMEM;
  wcbt__mutate_rows_request__entry__init(pE);
  pE->row_key.data = arenaCopy(&p->arena, aKey, nKey);
  pE->row_key.len = nKey;
  pE->n_mutations = (size_t)nMut;
  pE->mutations = apMut;
  if( p->nEntry == p->nEntryAlloc ){
    int nNew = p->nEntryAlloc ? p->nEntryAlloc * 2 : 64;
    Wcbt__MutateRowsRequest__Entry **apNew = sqlite3_realloc64(p->apEntry,
        sizeof(*apNew) * (size_t)nNew);
    if( apNew == 0 ) return SQLITE_NOMEM;
    p->apEntry = apNew;
    p->nEntryAlloc = nNew;
  }
  p->apEntry[p->nEntry++] = pE;
  p->nBatchByte += nKey + 64;
  return p->arena.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

static int retryable(int code){
  return code == BT_UNAVAILABLE || code == BT_DEADLINE_EXCEEDED
      || code == 10 /* ABORTED */;
}

/* Sends the batch.  Rows that fail with a status worth retrying are sent
** again (a few times, with a pause); any that still fail make the whole
** flush an error naming how many rows were not written and why. */
static int flush(BtTable *p){
  Wcbt__MutateRowsRequest req = WCBT__MUTATE_ROWS_REQUEST__INIT;
  Wcbt__MutateRowsRequest__Entry **apTodo = p->apEntry;
  int nTodo = p->nEntry, nAttempt, rc = SQLITE_OK, i;
  unsigned char *abFailed = 0;
  BtStatus st = {0, 0};
  if( p->nEntry == 0 ) return SQLITE_OK;
  if( connect(p) ) return SQLITE_ERROR;
  abFailed = sqlite3_malloc64((size_t)nTodo);
  if( abFailed == 0 ) return SQLITE_NOMEM;
  for(nAttempt = 0; nTodo > 0 && nAttempt < BT_ATTEMPTS; nAttempt++){
    BtStream *pStream = 0;
    ProtobufCMessage *pMsg = 0;
    int r, nFailed = 0, bRetry = 1;
    if( nAttempt > 0 ) usleep(100000u << (2 * (nAttempt - 1)));
    btStatusClear(&st);
    memset(abFailed, 0, (size_t)nTodo);
    req.table_name = p->zResource;
    req.n_entries = (size_t)nTodo;
    req.entries = apTodo;
    btStreamOpen(p->pConn, M_MUTATEROWS, p->zResource, &req.base, &pStream,
                 &st, &p->count);
    /* Every row is failed until Bigtable says it was written. */
    memset(abFailed, 1, (size_t)nTodo);
    while( (r = btStreamNext(pStream, &wcbt__mutate_rows_response__descriptor,
                             &pMsg, &st)) == 1 ){
      Wcbt__MutateRowsResponse *pResp = (Wcbt__MutateRowsResponse*)pMsg;
      size_t k;
      for(k = 0; k < pResp->n_entries; k++){
        Wcbt__MutateRowsResponse__Entry *pE = pResp->entries[k];
        int code = pE->status ? pE->status->code : 0;
        if( pE->index < 0 || pE->index >= nTodo ) continue;
        abFailed[pE->index] = code != 0;
        if( code != 0 && !retryable(code) ) bRetry = 0;
        if( code != 0 && st.code == 0 ){
          st.code = code;
          st.zMsg = sqlite3_mprintf("MutateRows failed for a row: %s (gRPC "
              "status %d)", pE->status->message ? pE->status->message : "",
              code);
        }
      }
      protobuf_c_message_free_unpacked(pMsg, 0);
    }
    btStreamClose(pStream);
    if( r < 0 && !retryable(st.code) ) bRetry = 0;
    /* Keep the failed rows, in order, for the next attempt. */
    for(i = 0; i < nTodo; i++){
      if( abFailed[i] ) apTodo[nFailed++] = apTodo[i];
    }
    nTodo = nFailed;
    if( !bRetry ) break;
  }
  if( nTodo > 0 ){
    char *zDoing = sqlite3_mprintf("could not write %d of the %d rows of "
                                   "a batch (the others were written) to",
                                   nTodo, p->nEntry);
    rc = zDoing ? rpcError(p, zDoing, &st) : SQLITE_NOMEM;
    sqlite3_free(zDoing);
  }
  p->pTxn->nSent += p->nEntry - nTodo;
  p->nEntry = 0;
  p->nBatchByte = 0;
  arenaFree(&p->arena);
  for(i = 0; i < p->nSavepoint; i++) p->aiSavepoint[i] = 0;
  btStatusClear(&st);
  sqlite3_free(abFailed);
  return rc;
}

/* A filter passing only the marker cell. */
static void markerFilter(Wcbt__Filter *pChain, Wcbt__Filter__List *pList,
                         Wcbt__Filter *aPart, Wcbt__Filter **apPart){
  wcbt__filter__init(&aPart[0]);
  wcbt__filter__init(&aPart[1]);
  aPart[0].kind_case = WCBT__FILTER__KIND_FAMILY_REGEX;
  aPart[0].family_regex = (char*)BT_DEFAULT_FAMILY;
  aPart[1].kind_case = WCBT__FILTER__KIND_QUALIFIER_REGEX;
  aPart[1].qualifier_regex.data = (uint8_t*)"";
  aPart[1].qualifier_regex.len = 0;
  apPart[0] = &aPart[0];
  apPart[1] = &aPart[1];
  wcbt__filter__list__init(pList);
  pList->n_filters = 2;
  pList->filters = apPart;
  wcbt__filter__init(pChain);
  pChain->kind_case = WCBT__FILTER__KIND_CHAIN;
  pChain->chain = pList;
}

/* INSERT that must not replace: written only if the row has no marker. */
static int insertNew(BtTable *p, const unsigned char *aKey, size_t nKey,
                     sqlite3_value **argv){
  Wcbt__CheckAndMutateRowRequest req = WCBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
  Wcbt__CheckAndMutateRowResponse *pResp = 0;
  Wcbt__Filter pred, aPart[2], *apPart[2];
  Wcbt__Filter__List list;
  Wcbt__Mutation **apMut;
  BtArena arena;
  BtStatus st = {0, 0};
  int nMut, code, rc = SQLITE_OK;
  memset(&arena, 0, sizeof(arena));
  rc = flush(p);
  if( rc != SQLITE_OK ) return rc;
  nMut = rowMutations(p, &arena, argv, 0, 0, &apMut);
  if( nMut < 0 ){
    arenaFree(&arena);
    return -nMut;
  }
  markerFilter(&pred, &list, aPart, apPart);
  req.table_name = p->zResource;
  req.row_key.data = (uint8_t*)aKey;
  req.row_key.len = nKey;
  req.predicate = &pred;
  req.n_false_mutations = (size_t)nMut;
  req.false_mutations = apMut;
  code = btCall(p->pConn, M_CHECKANDMUTATE, p->zResource, &req.base,
                &wcbt__check_and_mutate_row_response__descriptor,
                (ProtobufCMessage**)&pResp, &st, &p->count);
  if( code != BT_OK ){
    rc = rpcError(p, "could not write to", &st);
  }else if( pResp->predicate_matched ){
    rc = btError(p, SQLITE_CONSTRAINT_PRIMARYKEY, "UNIQUE constraint "
                 "failed: %s.rowkey", p->zName);
  }else{
    p->pTxn->nSent++;
  }
  if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
  btStatusClear(&st);
  arenaFree(&arena);
  return rc;
}

static int checkKey(BtTable *p, sqlite3_value *pKey){
  int n = sqlite3_value_bytes(pKey);
  if( sqlite3_value_type(pKey) == SQLITE_NULL || n == 0 ){
    return btError(p, SQLITE_CONSTRAINT_NOTNULL, "%s: a Bigtable row key "
                   "cannot be empty", p->zName);
  }
  if( n > BT_MAX_KEY ){
    return btError(p, SQLITE_TOOBIG, "%s: the row key is %d bytes; Bigtable "
                   "takes at most 4096", p->zName, n);
  }
  return SQLITE_OK;
}

static int btUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                    sqlite3_int64 *pRowid){
  BtTable *p = (BtTable*)pVtab;
  Wcbt__Mutation **apMut;
  int nMut, rc;
  (void)pRowid;
  if( connect(p) ) return SQLITE_ERROR;
  if( argc == 1 ){
    Wcbt__Mutation *pDel = mutDeleteRow(&p->arena);
    apMut = arenaAlloc(&p->arena, sizeof(*apMut));
    if( pDel == 0 || apMut == 0 ) return SQLITE_NOMEM;
    apMut[0] = pDel;
    rc = queueRow(p, sqlite3_value_blob(argv[0]),
                  (size_t)sqlite3_value_bytes(argv[0]), apMut, 1);
  }else{
    sqlite3_value *pKey = argv[2];
    int bInsert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
    int bMoved = !bInsert && (sqlite3_value_bytes(argv[0])
        != sqlite3_value_bytes(pKey) || memcmp(sqlite3_value_blob(argv[0]),
        sqlite3_value_blob(pKey), (size_t)sqlite3_value_bytes(pKey)) != 0);
    int bReplace = sqlite3_vtab_on_conflict(p->db) == SQLITE_REPLACE;
    rc = checkKey(p, pKey);
    if( rc != SQLITE_OK ) return rc;
    if( (bInsert || bMoved) && !bReplace ){
      rc = insertNew(p, sqlite3_value_blob(pKey),
                     (size_t)sqlite3_value_bytes(pKey), &argv[3]);
    }else{
      nMut = rowMutations(p, &p->arena, &argv[3], bInsert || bMoved,
                          !bInsert && !bMoved, &apMut);
      if( nMut < 0 ) return -nMut;
      rc = queueRow(p, sqlite3_value_blob(pKey),
                    (size_t)sqlite3_value_bytes(pKey), apMut, nMut);
    }
    if( rc == SQLITE_OK && bMoved ){
      Wcbt__Mutation *pDel = mutDeleteRow(&p->arena);
      apMut = arenaAlloc(&p->arena, sizeof(*apMut));
      if( pDel == 0 || apMut == 0 ) return SQLITE_NOMEM;
      apMut[0] = pDel;
      rc = queueRow(p, sqlite3_value_blob(argv[0]),
                    (size_t)sqlite3_value_bytes(argv[0]), apMut, 1);
    }
  }
  if( rc == SQLITE_OK && (p->nEntry >= BT_BATCH_ROWS
                          || p->nBatchByte >= BT_BATCH_BYTES) ){
    rc = flush(p);
  }
  return rc;
}

/*
** Transactions.  Bigtable applies each row's mutations atomically and no
** more.  So a ROLLBACK, or a statement that fails, drops the writes still
** in the batches if no table of the connection has sent any since the
** transaction (or the statement) began: then nothing happened.  Once one
** was sent, dropping the rest could leave a row without its index entries
** (or entries of a row that moved): every table sends what it holds
** instead, so each row written is written whole, and the ROLLBACK undoes
** nothing (docs/bigtable.md, Transactions).
*/
static int btBegin(sqlite3_vtab *pVtab){
  BtTxn *pTxn = ((BtTable*)pVtab)->pTxn;
  if( !pTxn->bOpen ){
    pTxn->bOpen = 1;
    pTxn->iBegin = pTxn->nSent;
    pTxn->nSavepoint = 0;
  }
  return SQLITE_OK;
}

static int btSync(sqlite3_vtab *pVtab){
  return flush((BtTable*)pVtab);
}

static int btCommit(sqlite3_vtab *pVtab){
  ((BtTable*)pVtab)->pTxn->bOpen = 0;
  return SQLITE_OK;
}

/* Drops the rows of the batch from entry iFrom on. */
static void dropFrom(BtTable *p, int iFrom){
  if( iFrom >= 0 && iFrom < p->nEntry ) p->nEntry = iFrom;
  if( p->nEntry == 0 ){
    arenaFree(&p->arena);
    p->nBatchByte = 0;
  }
}

static int btRollback(sqlite3_vtab *pVtab){
  BtTable *p = (BtTable*)pVtab;
  int rc = SQLITE_OK;
  if( p->pTxn->nSent == p->pTxn->iBegin ){
    dropFrom(p, 0);
  }else{
    rc = flush(p);
  }
  p->pTxn->bOpen = 0;
  p->nSavepoint = 0;
  return rc;
}

static int btSavepoint(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( iSavepoint >= BT_MAX_SAVEPOINT ){
    return btError(p, SQLITE_ERROR, "%s: more than %d nested savepoints",
                   p->zName, BT_MAX_SAVEPOINT);
  }
  if( iSavepoint >= p->nSavepoint ){
    int *aNew = sqlite3_realloc64(p->aiSavepoint,
                                  sizeof(int) * (size_t)(iSavepoint + 1));
    if( aNew == 0 ) return SQLITE_NOMEM;
    p->aiSavepoint = aNew;
  }
  while( p->nSavepoint <= iSavepoint ) p->aiSavepoint[p->nSavepoint++] = 0;
  p->aiSavepoint[iSavepoint] = p->nEntry;
  p->nSavepoint = iSavepoint + 1;
  /* The first table to open a savepoint says where it began. */
  while( pTxn->nSavepoint <= iSavepoint ){
    pTxn->aiSavepoint[pTxn->nSavepoint++] = pTxn->nSent;
  }
  return SQLITE_OK;
}

static int btRelease(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  if( iSavepoint < p->nSavepoint ) p->nSavepoint = iSavepoint;
  if( iSavepoint < p->pTxn->nSavepoint ) p->pTxn->nSavepoint = iSavepoint;
  return SQLITE_OK;
}

static int btRollbackTo(sqlite3_vtab *pVtab, int iSavepoint){
  BtTable *p = (BtTable*)pVtab;
  BtTxn *pTxn = p->pTxn;
  if( iSavepoint >= pTxn->nSavepoint
   || pTxn->nSent != pTxn->aiSavepoint[iSavepoint] ){
    return flush(p);
  }
  if( iSavepoint < p->nSavepoint ) dropFrom(p, p->aiSavepoint[iSavepoint]);
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

/* Appends the RE2 pattern matching exactly the bytes z[0..n). */
static void appendLiteral(sqlite3_str *pStr, const char *z, size_t n){
  size_t i;
  for(i = 0; i < n; i++){
    unsigned char c = (unsigned char)z[i];
    if( (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
     || (c >= '0' && c <= '9') || c == '_' ){
      sqlite3_str_appendchar(pStr, 1, (char)c);
    }else{
      sqlite3_str_appendf(pStr, "\\x%02x", c);
    }
  }
}

static int columnUsed(uint64_t colUsed, int iCol){
  /* Column 0 is the key; bit 63 stands for every column from 63 on. */
  int iBit = iCol + 1;
  return ((colUsed >> (iBit < 63 ? iBit : 63)) & 1) != 0;
}

/* The read filter: the latest cell of each column used, and the marker.
** Built in pA; the strings in it live in pA too. */
static Wcbt__Filter *readFilter(BtTable *p, uint64_t colUsed, BtArena *pA){
  Wcbt__Filter *pTop = arenaAlloc(pA, sizeof(*pTop));
  Wcbt__Filter__List *pTopList = arenaAlloc(pA, sizeof(*pTopList));
  Wcbt__Filter **apTop = arenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
  Wcbt__Filter *pMix = arenaAlloc(pA, sizeof(*pMix));
  Wcbt__Filter__List *pMixList = arenaAlloc(pA, sizeof(*pMixList));
  Wcbt__Filter **apMix = arenaAlloc(pA, sizeof(Wcbt__Filter*)
                                        * (size_t)(p->nFamily + 1));
  Wcbt__Filter *pLimit = arenaAlloc(pA, sizeof(*pLimit));
  int iFam, i, nMix = 0, bAll = 1;
  if( pA->bOom ) return 0;
  for(i = 0; i < p->nCol; i++) bAll &= columnUsed(colUsed, i);
  wcbt__filter__init(pLimit);
  pLimit->kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
  pLimit->cells_per_column_limit = 1;
  if( bAll ) return pLimit;
  /* The marker */
  {
    Wcbt__Filter *pChain = arenaAlloc(pA, sizeof(*pChain));
    Wcbt__Filter__List *pList = arenaAlloc(pA, sizeof(*pList));
    Wcbt__Filter *aPart = arenaAlloc(pA, sizeof(Wcbt__Filter) * 2);
    Wcbt__Filter **apPart = arenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
    if( pA->bOom ) return 0;
    markerFilter(pChain, pList, aPart, apPart);
    apMix[nMix++] = pChain;
  }
  for(iFam = 0; iFam < p->nFamily; iFam++){
    sqlite3_str *pRe = sqlite3_str_new(0);
    Wcbt__Filter *pChain, *aPart, **apPart;
    Wcbt__Filter__List *pList;
    char *zRe, *zFamRe;
    int n = 0;
    for(i = 0; i < p->nCol; i++){
      if( strcmp(p->aCol[i].zFamily, p->azFamily[iFam]) != 0
       || !columnUsed(colUsed, i) ){
        continue;
      }
      if( n++ ) sqlite3_str_appendchar(pRe, 1, '|');
      appendLiteral(pRe, p->aCol[i].zName, strlen(p->aCol[i].zName));
    }
    zRe = sqlite3_str_finish(pRe);
    if( n == 0 ){
      sqlite3_free(zRe);
      continue;
    }
    pRe = sqlite3_str_new(0);
    appendLiteral(pRe, p->azFamily[iFam], strlen(p->azFamily[iFam]));
    zFamRe = sqlite3_str_finish(pRe);
    pChain = arenaAlloc(pA, sizeof(*pChain));
    pList = arenaAlloc(pA, sizeof(*pList));
    aPart = arenaAlloc(pA, sizeof(Wcbt__Filter) * 2);
    apPart = arenaAlloc(pA, sizeof(Wcbt__Filter*) * 2);
    if( zRe == 0 || zFamRe == 0 || pA->bOom ){
      sqlite3_free(zRe);
      sqlite3_free(zFamRe);
      return 0;
    }
    markerFilter(pChain, pList, aPart, apPart);
    aPart[0].family_regex = arenaCopy(pA, zFamRe, strlen(zFamRe) + 1);
    aPart[1].qualifier_regex.len = strlen(zRe);
    aPart[1].qualifier_regex.data = arenaCopy(pA, zRe, strlen(zRe));
    sqlite3_free(zRe);
    sqlite3_free(zFamRe);
    apMix[nMix++] = pChain;
  }
  wcbt__filter__list__init(pMixList);
  pMixList->n_filters = (size_t)nMix;
  pMixList->filters = apMix;
  wcbt__filter__init(pMix);
  pMix->kind_case = WCBT__FILTER__KIND_INTERLEAVE;
  pMix->interleave = pMixList;
  /* An interleave of one filter is an error to Bigtable. */
  apTop[0] = nMix == 1 ? apMix[0] : pMix;
  apTop[1] = pLimit;
  wcbt__filter__list__init(pTopList);
  pTopList->n_filters = 2;
  pTopList->filters = apTop;
  wcbt__filter__init(pTop);
  pTop->kind_case = WCBT__FILTER__KIND_CHAIN;
  pTop->chain = pTopList;
  return pA->bOom ? 0 : pTop;
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
  arenaFree(&pCur->reqArena);
  wcBufFree(&pCur->lastKey);
  for(i = 0; i <= p->nCol; i++) wcBufFree(&pCur->aVal[i]);
  wcBufFree(&pCur->key);
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
}

/* Starts the ReadRows of the cursor's next page: the first (bNext 0), or
** the one after the last key read, BT_PAGE_GROWTH times larger. */
static void readPage(BtTable *p, BtCursor *pCur, int bNext){
  BtStatus st = {0, 0};
  if( bNext ){
    Wcbt__KeyRange *pRange = &pCur->range;
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
static int btNext(sqlite3_vtab_cursor *pCursor){
  BtCursor *pCur = (BtCursor*)pCursor;
  BtTable *p = (BtTable*)pCursor->pVtab;
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
        if( pCur->pStream == 0 ) return SQLITE_NOMEM;
        continue;
      }
      if( r <= 0 ){
        int rc = SQLITE_OK;
        if( r < 0 ) rc = rpcError(p, "could not read", &st);
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
    if( pC->family ){
      sqlite3_free(pCur->zFamily);
      pCur->zFamily = sqlite3_mprintf("%s", pC->family->value);
      if( pCur->zFamily == 0 ) return SQLITE_NOMEM;
    }
    if( pC->qualifier ){
      pCur->iCol = findColumn(p, pCur->zFamily ? pCur->zFamily : "",
                              pC->qualifier->value.data,
                              pC->qualifier->value.len);
      pCur->bSkipCell = pCur->iCol >= 0 && pCur->abHave[pCur->iCol];
    }else if( !pCur->bMore && pC->status_case
                              != WCBT__CHUNK__STATUS_RESET_ROW ){
      /* Another (older) cell of the same column. */
      pCur->bSkipCell = 1;
    }
    if( pCur->iCol >= 0 && !pCur->bSkipCell ){
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
      return pCur->key.bOom ? SQLITE_NOMEM : SQLITE_OK;
    }
  }
}

/* SQLite's order of types: a key constraint with a value that is not a
** BLOB compares the same way with every key. */
#define KEY_BELOW_ALL -1    /* NULL never matches; INTEGER, REAL, TEXT sort
                            ** before every BLOB */

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
  arenaFree(pA);
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
  rc = flush(p);
  if( rc != SQLITE_OK ) return rc;
  if( connect(p) ) return SQLITE_ERROR;
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
      pCur->aKey[0].data = arenaCopy(pA, a, n);
      pCur->aKey[0].len = n;
      pCur->set.n_keys = 1;
      pCur->set.keys = pCur->aKey;
    }else if( bLower ){
      if( n == 0 && eOp == BT_GE ) continue;
      pRange->start_case = eOp == BT_GE ? WCBT__KEY_RANGE__START_START_CLOSED
                                        : WCBT__KEY_RANGE__START_START_OPEN;
      pRange->start_closed.data = arenaCopy(pA, a, n);
      pRange->start_closed.len = n;
    }else{
      if( n == 0 ){
        bEmpty = 1;
        continue;
      }
      pRange->end_case = eOp == BT_LT ? WCBT__KEY_RANGE__END_END_OPEN
                                      : WCBT__KEY_RANGE__END_END_CLOSED;
      pRange->end_open.data = arenaCopy(pA, a, n);
      pRange->end_open.len = n;
    }
  }
  if( !bEmpty && pRange->start_case != WCBT__KEY_RANGE__START__NOT_SET
   && pRange->end_case != WCBT__KEY_RANGE__END__NOT_SET ){
    /* An empty range is an error to Bigtable. */
    const ProtobufCBinaryData *pLo = &pRange->start_closed;
    const ProtobufCBinaryData *pHi = &pRange->end_open;
    size_t n = pLo->len < pHi->len ? pLo->len : pHi->len;
    int c = n ? memcmp(pLo->data, pHi->data, n) : 0;
    if( c == 0 ) c = pLo->len < pHi->len ? -1 : pLo->len > pHi->len;
    if( c > 0 || (c == 0 && (pRange->start_case
          == WCBT__KEY_RANGE__START_START_OPEN
        || pRange->end_case == WCBT__KEY_RANGE__END_END_OPEN)) ){
      bEmpty = 1;
    }
  }
  if( bEmpty || pA->bOom ){
    pCur->bEof = 1;
    return pA->bOom ? SQLITE_NOMEM : SQLITE_OK;
  }
  pCur->req.table_name = p->zResource;
  pCur->req.filter = readFilter(p, colUsed, pA);
  if( pCur->req.filter == 0 ) return SQLITE_NOMEM;
  if( pCur->set.n_keys == 0 ){
    pCur->apRange[0] = pRange;
    pCur->set.n_ranges = 1;
    pCur->set.ranges = pCur->apRange;
    pCur->req.rows_limit = BT_FIRST_PAGE;
  }
  pCur->req.rows = &pCur->set;
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
  if( iCol == 0 ){
    sqlite3_result_blob64(ctx, pCur->key.a ? pCur->key.a
                                           : (const unsigned char*)"",
                          (sqlite3_uint64)pCur->key.n, SQLITE_TRANSIENT);
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
