/*
** bt_catalog.c: the design records of widecol's Bigtable tables.
**
** Bigtable keeps no note on a table, so widecol keeps one per table in a
** table of its own, widecol_catalog, in the same instance: row key the
** table id, in family "_" the cells "design" (what the CREATE said about
** how rows are stored: the core's DESIGN argument, one clause a line),
** "owner" (the OWNER id of the CREATE that wrote the record) and "made"
** ("1" once that CREATE made the table; empty if the table was there
** before, or the CREATE said EXTERNAL).
**
** A CREATE claims the record before it makes the table (CheckAndMutateRow
** writes it only where there is none, with "made" empty), so that of two
** databases making one table at once, the second sees the first's design;
** "made" is written once CreateTable made it.  Another design over a
** recorded table is refused with what differs (bt_admin.c); a DROP deletes
** a table only if its record names the dropping table's OWNER and says it
** made it.  Tables made by widecol 1.0 have no record and no OWNER, and
** keep their 1.0 behaviour.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"

#include <string.h>
#include <time.h>

#define BT_CATALOG_ID "widecol_catalog"
#define BT_Q_DESIGN "design"
#define BT_Q_OWNER  "owner"
#define BT_Q_MADE   "made"

void btRecordClear(BtRecord *pRec){
  sqlite3_free(pRec->zDesign);
  sqlite3_free(pRec->zOwner);
  memset(pRec, 0, sizeof(*pRec));
}

/* The catalog's resource name and the record's key (the table id) of
** Bigtable table zResource; sqlite3_free() the name. */
static char *catalogOf(const char *zResource, const char **pzId){
  *pzId = btResourceId(zResource);
  return btResourceSibling(zResource, BT_CATALOG_ID);
}

static int64_t nowMicros(void){
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* Bigtable takes milliseconds, as microseconds. */
  return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000) * BT_TICK;
}

/* Makes the catalog if it is not there: family "_", one version. */
static int catalogMake(BtTable *p, const char *zCatalog){
  Wcbt__CreateTableRequest req = WCBT__CREATE_TABLE_REQUEST__INIT;
  Wcbt__Table table = WCBT__TABLE__INIT;
  Wcbt__Table__FamiliesEntry entry = WCBT__TABLE__FAMILIES_ENTRY__INIT;
  Wcbt__Table__FamiliesEntry *apEntry[1];
  Wcbt__ColumnFamily family = WCBT__COLUMN_FAMILY__INIT;
  Wcbt__GcRule rule = WCBT__GC_RULE__INIT;
  ProtobufCMessage *pResp = 0;
  BtStatus st = {0, 0};
  char *zParent = btResourceParent(zCatalog);
  int code, rc = SQLITE_OK;
  if( zParent == 0 ) return SQLITE_NOMEM;
  rule.rule_case = WCBT__GC_RULE__RULE_MAX_VERSIONS;
  rule.max_versions = 1;
  family.gc_rule = &rule;
  entry.key = BT_DEFAULT_FAMILY;
  entry.value = &family;
  apEntry[0] = &entry;
  table.n_families = 1;
  table.families = apEntry;
  req.parent = zParent;
  req.table_id = BT_CATALOG_ID;
  req.table = &table;
  code = btCallIdempotent(p->pConn, M_CREATETABLE, zParent, &req.base,
                          &wcbt__table__descriptor, &pResp, &st, &p->wait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  if( code != BT_OK && code != BT_ALREADY_EXISTS ){
    rc = btRpcError(p, "could not make widecol's catalog of designs, "
                    BT_CATALOG_ID ", next to", &st);
  }
  btStatusClear(&st);
  sqlite3_free(zParent);
  return rc;
}

/* A SetCell of the record's cell zQualifier to zValue. */
static void setCell(Wcbt__Mutation *pM, Wcbt__Mutation__SetCell *pSet,
                    const char *zQualifier, const char *zValue,
                    int64_t iMicros){
  wcbt__mutation__init(pM);
  wcbt__mutation__set_cell__init(pSet);
  pSet->family = BT_DEFAULT_FAMILY;
  pSet->qualifier.data = (uint8_t*)zQualifier;
  pSet->qualifier.len = strlen(zQualifier);
  pSet->micros = iMicros;
  pSet->value.data = (uint8_t*)zValue;
  pSet->value.len = strlen(zValue);
  pM->kind_case = WCBT__MUTATION__KIND_SET_CELL;
  pM->set_cell = pSet;
}

/* Which mutations of a CheckAndMutateRow are given. */
#define BT_IF_FOUND 0   /* where the predicate finds something */
#define BT_IF_NONE  1   /* where it finds nothing */
#define BT_ALWAYS   2   /* both: an unconditional write */

/* One CheckAndMutateRow on the record of p's table, with the predicate
** pPredicate (unset: the row has any cell); *pbMatched says what it found.
** The catalog is made if it is not there. */
static int catalogCheckAndMutate(BtTable *p, const char *zWhat,
                                 Wcbt__Filter *pPredicate, int eWhen,
                                 Wcbt__Mutation **apMut, int nMut,
                                 int *pbMatched){
  Wcbt__CheckAndMutateRowRequest req =
      WCBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
  Wcbt__CheckAndMutateRowResponse *pResp = 0;
  BtStatus st = {0, 0};
  const char *zId;
  char *zCatalog = catalogOf(p->zResource, &zId);
  int code, rc = SQLITE_OK;
  if( zCatalog == 0 ) return SQLITE_NOMEM;
  req.table_name = zCatalog;
  req.row_key.data = (uint8_t*)zId;
  req.row_key.len = strlen(zId);
  req.predicate = pPredicate;
  if( eWhen != BT_IF_FOUND ){
    req.n_false_mutations = (size_t)nMut;
    req.false_mutations = apMut;
  }
  if( eWhen != BT_IF_NONE ){
    req.n_true_mutations = (size_t)nMut;
    req.true_mutations = apMut;
  }
  /* Each is safe to send again: a claim that was applied is found as
  ** this CREATE's own (btCatalogClaim), a write or a delete again is the
  ** same. */
  code = btCallIdempotent(p->pConn, M_CHECKANDMUTATE, zCatalog, &req.base,
                &wcbt__check_and_mutate_row_response__descriptor,
                (ProtobufCMessage**)&pResp, &st, &p->wait);
  if( code == BT_NOT_FOUND ){
    /* No catalog yet: make it, then once more. */
    btStatusClear(&st);
    rc = catalogMake(p, zCatalog);
    if( rc == SQLITE_OK ){
      code = btCallIdempotent(p->pConn, M_CHECKANDMUTATE, zCatalog,
                    &req.base, &wcbt__check_and_mutate_row_response__descriptor,
                    (ProtobufCMessage**)&pResp, &st, &p->wait);
    }
  }
  if( rc == SQLITE_OK && code != BT_OK ){
    rc = btRpcError(p, zWhat, &st);
  }
  if( pbMatched ) *pbMatched = pResp && pResp->predicate_matched;
  if( pResp ) protobuf_c_message_free_unpacked(&pResp->base, 0);
  btStatusClear(&st);
  sqlite3_free(zCatalog);
  return rc;
}

/* What a read of the record gathers: its three cells (design, owner,
** made) into aValue, iCell the one a chunk's value belongs to (a value may
** come in pieces: the chunks after the first name no qualifier). */
typedef struct RecordRead RecordRead;
struct RecordRead {
  BtRecord *pRec;
  WcBuf *aValue;
  int iCell;
};

static void recordBegin(void *pCtx){
  RecordRead *pR = (RecordRead*)pCtx;
  int i;
  for(i = 0; i < 3; i++) pR->aValue[i].n = 0;
  pR->pRec->bFound = 0;
  pR->iCell = -1;
}

static void recordChunk(void *pCtx, const Wcbt__Chunk *pC){
  RecordRead *pR = (RecordRead*)pCtx;
  pR->pRec->bFound = 1;
  if( pC->qualifier ){
    const ProtobufCBinaryData *pQ = &pC->qualifier->value;
    pR->iCell = pQ->len == 6 && memcmp(pQ->data, BT_Q_DESIGN, 6) == 0 ? 0
              : pQ->len == 5 && memcmp(pQ->data, BT_Q_OWNER, 5) == 0 ? 1
              : pQ->len == 4 && memcmp(pQ->data, BT_Q_MADE, 4) == 0 ? 2 : -1;
  }
  if( pR->iCell >= 0 ){
    wcBufAppend(&pR->aValue[pR->iCell], pC->value.data,
                (int64_t)pC->value.len);
  }
}

int btCatalogRead(BtTable *p, BtRecord *pRec){
  Wcbt__ReadRowsRequest req = WCBT__READ_ROWS_REQUEST__INIT;
  Wcbt__KeySet set = WCBT__KEY_SET__INIT;
  Wcbt__Filter filter = WCBT__FILTER__INIT;
  ProtobufCBinaryData key;
  BtStatus st = {0, 0};
  WcBuf aValue[3];
  RecordRead read;
  BtChunkSink sink;
  const char *zId;
  char *zCatalog = catalogOf(p->zResource, &zId);
  int r, rc = SQLITE_OK;
  btRecordClear(pRec);
  if( zCatalog == 0 ) return SQLITE_NOMEM;
  memset(aValue, 0, sizeof(aValue));
  key.data = (uint8_t*)zId;
  key.len = strlen(zId);
  set.n_keys = 1;
  set.keys = &key;
  filter.kind_case = WCBT__FILTER__KIND_CELLS_PER_COLUMN_LIMIT;
  filter.cells_per_column_limit = 1;
  req.table_name = zCatalog;
  req.rows = &set;
  req.filter = &filter;
  read.pRec = pRec;
  read.aValue = aValue;
  sink.xBegin = recordBegin;
  sink.xChunk = recordChunk;
  sink.pCtx = &read;
  r = btReadAll(p, zCatalog, &req, &p->wait, &sink, &st);
  if( r < 0 && st.code == BT_NOT_FOUND ){
    /* No catalog: no record. */
    pRec->bFound = 0;
  }else if( r < 0 ){
    rc = btRpcError(p, "could not read widecol's design record of", &st);
  }else if( pRec->bFound ){
    pRec->zDesign = sqlite3_mprintf("%.*s", (int)aValue[0].n,
                                    aValue[0].a ? (char*)aValue[0].a : "");
    pRec->zOwner = sqlite3_mprintf("%.*s", (int)aValue[1].n,
                                   aValue[1].a ? (char*)aValue[1].a : "");
    pRec->bMade = aValue[2].n == 1 && aValue[2].a[0] == '1';
    if( pRec->zDesign == 0 || pRec->zOwner == 0 ) rc = SQLITE_NOMEM;
  }
  btStatusClear(&st);
  wcBufFree(&aValue[0]);
  wcBufFree(&aValue[1]);
  wcBufFree(&aValue[2]);
  sqlite3_free(zCatalog);
  return rc;
}

/* The record's three cells, as mutations in aMut. */
static void recordCells(BtTable *p, Wcbt__Mutation *aMut,
                        Wcbt__Mutation__SetCell *aSet, Wcbt__Mutation **apMut,
                        int bMade){
  int64_t iNow = nowMicros();
  int i;
  setCell(&aMut[0], &aSet[0], BT_Q_DESIGN, p->zDesign ? p->zDesign : "",
          iNow);
  setCell(&aMut[1], &aSet[1], BT_Q_OWNER, p->zOwner ? p->zOwner : "", iNow);
  setCell(&aMut[2], &aSet[2], BT_Q_MADE, bMade ? "1" : "", iNow);
  for(i = 0; i < 3; i++) apMut[i] = &aMut[i];
}

int btCatalogClaim(BtTable *p, int *pbClaimed, BtRecord *pRec){
  Wcbt__Mutation aMut[3], *apMut[3];
  Wcbt__Mutation__SetCell aSet[3];
  int bMatched = 0, rc;
  *pbClaimed = 0;
  recordCells(p, aMut, aSet, apMut, 0);
  rc = catalogCheckAndMutate(p, "could not write widecol's design record "
                             "of", 0, BT_IF_NONE, apMut, 3, &bMatched);
  if( rc != SQLITE_OK ) return rc;
  if( !bMatched ){
    *pbClaimed = 1;
    return SQLITE_OK;
  }
  rc = btCatalogRead(p, pRec);
  /* This CREATE's own claim, sent twice (no answer came the first time). */
  if( rc == SQLITE_OK && pRec->zOwner && p->zOwner
   && strcmp(pRec->zOwner, p->zOwner) == 0 ){
    *pbClaimed = 1;
  }
  return rc;
}

int btCatalogWrite(BtTable *p, int bMade){
  Wcbt__Mutation aMut[3], *apMut[3];
  Wcbt__Mutation__SetCell aSet[3];
  recordCells(p, aMut, aSet, apMut, bMade);
  return catalogCheckAndMutate(p, "could not write widecol's design record "
                               "of", 0, BT_ALWAYS, apMut, 3, 0);
}

int btCatalogForget(BtTable *p){
  const char *zOwner = p->zOwner ? p->zOwner : "";
  Wcbt__Mutation del = WCBT__MUTATION__INIT;
  Wcbt__Mutation__DeleteRow delRow = WCBT__MUTATION__DELETE_ROW__INIT;
  Wcbt__Mutation *apMut[1];
  Wcbt__Filter aPart[2], *apPart[2], top;
  Wcbt__Filter__List list;
  Wcbt__ColumnRange range;
  Wcbt__ValueRange value;
  wcbt__value_range__init(&value);
  del.kind_case = WCBT__MUTATION__KIND_DELETE_ROW;
  del.delete_row = &delRow;
  apMut[0] = &del;
  /* Only a record that still names this owner. */
  btColumnFilter(&aPart[0], &range, BT_DEFAULT_FAMILY, BT_Q_OWNER, 5);
  wcbt__filter__init(&aPart[1]);
  value.start_case = WCBT__VALUE_RANGE__START_START_CLOSED;
  value.start_closed.data = (uint8_t*)zOwner;
  value.start_closed.len = strlen(zOwner);
  value.end_case = WCBT__VALUE_RANGE__END_END_CLOSED;
  value.end_closed = value.start_closed;
  aPart[1].kind_case = WCBT__FILTER__KIND_VALUE_RANGE;
  aPart[1].value_range = &value;
  apPart[0] = &aPart[0];
  apPart[1] = &aPart[1];
  btFilterOf(&top, 1, &list, apPart, 2);
  return catalogCheckAndMutate(p, "could not delete widecol's design record "
                               "of", &top, BT_IF_FOUND, apMut, 1, 0);
}

/* The lines of design z, as an array of n pointers into a copy (one
** allocation); NULL on OOM. */
static char **designLines(const char *z, int *pn){
  size_t nByte = strlen(z) + 1;
  int n = 1, i = 0;
  const char *zc;
  char **az, *zCopy;
  for(zc = z; *zc; zc++) n += *zc == '\n';
  az = sqlite3_malloc64(sizeof(char*) * (size_t)n + nByte);
  if( az == 0 ) return 0;
  zCopy = (char*)&az[n];
  memcpy(zCopy, z, nByte);
  az[i++] = zCopy;
  for(; *zCopy; zCopy++){
    if( *zCopy == '\n' ){
      *zCopy = 0;
      az[i++] = zCopy + 1;
    }
  }
  *pn = n;
  return az;
}

/* True if line z is among az[0..n), ASCII case aside outside quotes
** (SQL's names and keywords; a string or quoted name compared as is). */
static int hasLine(char **az, int n, const char *z){
  int i;
  for(i = 0; i < n; i++){
    const char *a = az[i], *b = z;
    char cQuote = 0;
    while( *a && *b ){
      if( cQuote ){
        if( *a != *b ) break;
        if( *a == cQuote ) cQuote = 0;
      }else{
        if( sqlite3_strnicmp(a, b, 1) != 0 ) break;
        if( *a == '\'' || *a == '"' || *a == '`' ) cQuote = *a;
        if( *a == '[' ) cQuote = ']';
      }
      a++;
      b++;
    }
    if( *a == 0 && *b == 0 ) return 1;
  }
  return 0;
}

/* The clauses of design zIn not in zOut, "; "-separated, appended;
** the number of them. */
static int appendMissing(sqlite3_str *pStr, const char *zIn,
                         const char *zOut){
  int nIn = 0, nOut = 0, i, nFound = 0;
  char **azIn = designLines(zIn, &nIn), **azOut = designLines(zOut, &nOut);
  for(i = 0; azIn && azOut && i < nIn; i++){
    if( azIn[i][0] && !hasLine(azOut, nOut, azIn[i]) ){
      sqlite3_str_appendf(pStr, "%s%s", nFound++ ? "; " : "", azIn[i]);
    }
  }
  sqlite3_free(azIn);
  sqlite3_free(azOut);
  return nFound;
}

char *btDesignDiff(const char *zRecorded, const char *zNow){
  sqlite3_str *pWas = sqlite3_str_new(0), *pNow = sqlite3_str_new(0);
  int nWas = appendMissing(pWas, zRecorded, zNow);
  int nNow = appendMissing(pNow, zNow, zRecorded);
  char *zWas = sqlite3_str_finish(pWas), *zNowText = sqlite3_str_finish(pNow);
  char *zRet;
  if( nWas == 0 && nNow == 0 ){
    zRet = 0;
  }else if( nNow == 0 ){
    zRet = sqlite3_mprintf("it was made with %s, which this CREATE does not "
                           "have", zWas);
  }else if( nWas == 0 ){
    zRet = sqlite3_mprintf("this CREATE has %s, which it was not made with",
                           zNowText);
  }else{
    zRet = sqlite3_mprintf("it was made with %s where this CREATE has %s",
                           zWas, zNowText);
  }
  if( (nWas || nNow) && zRet == 0 ) zRet = sqlite3_mprintf("?");
  sqlite3_free(zWas);
  sqlite3_free(zNowText);
  return zRet;
}
