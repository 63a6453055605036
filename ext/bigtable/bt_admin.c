/*
** bt_admin.c: the Bigtable tables behind a widecol_bigtable table:
** CreateTable with its families, GC rule and splits, after claiming the
** design record (bt_catalog.c); taking over a table made before, if its
** design and GC rules agree; DeleteTable (see bt_store.h); and what
** GetTable says when a read finds a column's cells gone.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"

#include <string.h>

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

/* Appends rule pRule as a reader says it. */
static void describeRule(sqlite3_str *pStr, const Wcbt__GcRule *pRule){
  size_t i;
  switch( pRule ? pRule->rule_case : WCBT__GC_RULE__RULE__NOT_SET ){
    case WCBT__GC_RULE__RULE_MAX_VERSIONS:
      sqlite3_str_appendf(pStr, "maxversions=%d", pRule->max_versions);
      break;
    case WCBT__GC_RULE__RULE_MAX_AGE:
      sqlite3_str_appendf(pStr, "maxage=%llds", pRule->max_age
                          ? (long long)pRule->max_age->seconds : 0LL);
      break;
    case WCBT__GC_RULE__RULE_UNION:
    case WCBT__GC_RULE__RULE_INTERSECTION: {
      const Wcbt__GcRule__List *pList =
          pRule->rule_case == WCBT__GC_RULE__RULE_UNION ? pRule->union_
                                                        : pRule->intersection;
      sqlite3_str_appendall(pStr, "(");
      for(i = 0; pList && i < pList->n_rules; i++){
        int bUnion = pRule->rule_case == WCBT__GC_RULE__RULE_UNION;
        if( i ) sqlite3_str_appendall(pStr, bUnion ? " or " : " and ");
        describeRule(pStr, pList->rules[i]);
      }
      sqlite3_str_appendall(pStr, ")");
      break;
    }
    default:
      sqlite3_str_appendall(pStr, "none: every cell kept");
      break;
  }
}

/* True if GC rule pRule keeps every cell the design keeps: the newest
** nVersions of a column, under a TTL (nTtl > 0) those younger than it.
** A union deletes what any part deletes; an intersection only what every
** part does, so one part that keeps them is enough. */
static int ruleKeeps(const Wcbt__GcRule *pRule, int nVersions, int64_t nTtl){
  const Wcbt__GcRule__List *pList;
  size_t i;
  switch( pRule ? pRule->rule_case : WCBT__GC_RULE__RULE__NOT_SET ){
    case WCBT__GC_RULE__RULE_MAX_VERSIONS:
      return pRule->max_versions <= 0 || pRule->max_versions >= nVersions;
    case WCBT__GC_RULE__RULE_MAX_AGE:
      return nTtl > 0 && pRule->max_age && pRule->max_age->seconds >= nTtl;
    case WCBT__GC_RULE__RULE_UNION:
      pList = pRule->union_;
      for(i = 0; pList && i < pList->n_rules; i++){
        if( !ruleKeeps(pList->rules[i], nVersions, nTtl) ) return 0;
      }
      return 1;
    case WCBT__GC_RULE__RULE_INTERSECTION:
      pList = pRule->intersection;
      for(i = 0; pList && i < pList->n_rules; i++){
        if( ruleKeeps(pList->rules[i], nVersions, nTtl) ) return 1;
      }
      return pList == 0 || pList->n_rules == 0;
    default:
      return 1;
  }
}

/* Taking over table pTable (GetTable's answer): it must have every family
** of the design, each with a GC rule that keeps what the design keeps. */
static int checkTakeover(BtTable *p, const Wcbt__Table *pTable){
  const char *zId = btResourceId(p->zResource);
  int i;
  for(i = 0; i < p->nFamily; i++){
    const Wcbt__ColumnFamily *pFam = 0;
    size_t k;
    for(k = 0; k < pTable->n_families; k++){
      if( strcmp(pTable->families[k]->key, p->azFamily[i]) == 0 ){
        pFam = pTable->families[k]->value;
        break;
      }
    }
    if( k == pTable->n_families ){
      char *zDrop = sqlite3_mprintf(btEngine.zDropTable, zId);
      int rc = btError(p, SQLITE_ERROR, "widecol %s: the %s table %s "
          "exists but has no column family \"%s\", so it was not made for "
          "this design: delete it (%s) or name another table",
          p->zTable, btEngine.zName, p->zResource, p->azFamily[i],
          zDrop ? zDrop : "?");
      sqlite3_free(zDrop);
      return rc;
    }
    if( !ruleKeeps(pFam ? pFam->gc_rule : 0, p->nVersions, p->nTtl) ){
      sqlite3_str *pRule = sqlite3_str_new(0);
      char *zRule, *zFix;
      int rc;
      describeRule(pRule, pFam->gc_rule);
      zRule = sqlite3_str_finish(pRule);
      zFix = btRuleFix(zId, p->azFamily[i], p->nVersions, p->nTtl);
      rc = btError(p, SQLITE_ERROR, "widecol %s: the %s table %s "
          "exists, and the GC rule of its column family \"%s\" (%s) would "
          "delete cells this design keeps (%d version%s of each column%s): "
          "change the rule (%s) and CREATE again, or name another table",
          p->zTable, btEngine.zName, p->zResource, p->azFamily[i],
          zRule ? zRule : "?", p->nVersions, p->nVersions == 1 ? "" : "s",
          p->nTtl > 0 ? ", younger than the TTL" : "", zFix ? zFix : "?");
      sqlite3_free(zRule);
      sqlite3_free(zFix);
      return rc;
    }
  }
  return SQLITE_OK;
}
/* GetTable of p's table (its families and GC rules) into *ppTable; the
** gRPC code. */
static int getTable(BtTable *p, Wcbt__Table **ppTable, BtStatus *pSt){
  Wcbt__GetTableRequest get = WCBT__GET_TABLE_REQUEST__INIT;
  get.name = p->zResource;
  get.view = 2;
  *ppTable = 0;
  return btCallIdempotent(p->pConn, M_GETTABLE, p->zResource, &get.base,
                          &wcbt__table__descriptor, (ProtobufCMessage**)ppTable,
                          pSt, &p->wait);
}

/* The design record, before the table is made (bt_catalog.c): claimed for
** this CREATE (*pbClaimed), or the record of the same design, or one whose
** table is gone (then replaced); another design is refused. */
static int claimDesign(BtTable *p, int *pbClaimed){
  BtRecord rec;
  char *zDiff;
  int rc;
  memset(&rec, 0, sizeof(rec));
  rc = btCatalogClaim(p, pbClaimed, &rec);
  if( rc != SQLITE_OK || *pbClaimed ) return rc;
  zDiff = btDesignDiff(rec.zDesign ? rec.zDesign : "", p->zDesign);
  if( zDiff ){
    Wcbt__Table *pTable = 0;
    BtStatus st = {0, 0};
    int code = getTable(p, &pTable, &st);
    if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
    if( code == BT_NOT_FOUND ){
      /* The record outlived its table (deleted outside widecol). */
      rc = btCatalogWrite(p, 0);
      *pbClaimed = rc == SQLITE_OK;
    }else if( code != BT_OK ){
      rc = btRpcError(p, "could not read", &st);
    }else{
      rc = btError(p, SQLITE_ERROR, "widecol %s: the %s table %s holds "
          "the rows of another design (%s): a widecol table reads it only "
          "with the design it was made with; CREATE it with that design, or "
          "name another %s table", p->zTable, btEngine.zName, p->zResource,
          zDiff, btEngine.zName);
    }
    btStatusClear(&st);
  }
  sqlite3_free(zDiff);
  btRecordClear(&rec);
  return rc;
}

int btCheckExisting(BtTable *p){
  const char *zId = btResourceId(p->zResource);
  Wcbt__Table *pTable = 0;
  BtStatus st = {0, 0};
  int code, rc = SQLITE_OK, i;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  code = getTable(p, &pTable, &st);
  if( code == BT_NOT_FOUND ){
    rc = btError(p, SQLITE_ERROR, "widecol %s: STORAGE %s '%s' "
        "EXISTING opens a table made by another application, and there is no "
        "such table (%s lists them); leave EXISTING out for widecol to "
        "make one", p->zTable, btEngine.zKind, p->zResource,
        btEngine.zListTables);
  }else if( code != BT_OK ){
    rc = btRpcError(p, "could not read", &st);
  }
  for(i = 0; rc == SQLITE_OK && i < p->nCol; i++){
    const char *zFamily = p->aCol[i].zFamily;
    size_t k;
    if( p->aCol[i].eLayout == BT_LAYOUT_KEY ) continue;
    for(k = 0; k < pTable->n_families
               && strcmp(pTable->families[k]->key, zFamily); k++){}
    if( k == pTable->n_families ){
      char *zList = sqlite3_mprintf(btEngine.zListFamilies, zId);
      rc = btError(p, SQLITE_ERROR, "widecol %s: CELLS gives column %s the "
          "cell %s:%s, and the %s table %s has no column family \"%s\" "
          "(%s lists its families)", p->zTable, p->aCol[i].zName,
          zFamily, p->aCol[i].zQual, btEngine.zName, p->zResource, zFamily,
          zList ? zList : "?");
      sqlite3_free(zList);
    }
  }
  if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  btStatusClear(&st);
  return rc;
}

int btCreateRemote(BtTable *p, int *pbMade, int *pbClaimed){
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
  int bRecord = p->zDesign && p->zOwner;
  int i, code, rc = SQLITE_OK;
  *pbMade = *pbClaimed = 0;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  if( bRecord ){
    rc = claimDesign(p, pbClaimed);
    if( rc != SQLITE_OK ) return rc;
  }
  zId = btResourceId(p->zResource);
  zParent = btResourceParent(p->zResource);
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
  code = btCallIdempotent(p->pConn, M_CREATETABLE, zParent, &req.base,
                &wcbt__table__descriptor, &pResp, &st, &p->wait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  if( code == BT_OK ){
    /* The record says this CREATE made it (unless EXTERNAL), so that its
    ** DROP deletes it; under a record of the same design whose table was
    ** deleted outside widecol, this CREATE's record replaces it. */
    *pbMade = 1;
    if( bRecord && (!p->bExternal || !*pbClaimed) ){
      rc = btCatalogWrite(p, !p->bExternal);
      *pbClaimed = rc == SQLITE_OK;
    }
  }else if( code == BT_ALREADY_EXISTS ){
    /* Made before (by this design, in another database or session, or
    ** outside widecol): taken over if its families keep what the design
    ** keeps.  A record claimed just now says "not made": this CREATE's
    ** DROP keeps the table. */
    Wcbt__Table *pTable = 0;
    btStatusClear(&st);
    code = getTable(p, &pTable, &st);
    if( code == BT_OK ) rc = checkTakeover(p, pTable);
    if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  }
  if( code != BT_OK && rc == SQLITE_OK ){
    rc = btRpcError(p, "could not create the table", &st);
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

int btDeleteRemote(BtTable *p, const char *zResource){
  Wcbt__DeleteTableRequest req = WCBT__DELETE_TABLE_REQUEST__INIT;
  ProtobufCMessage *pResp = 0;
  BtStatus st = {0, 0};
  int code, rc = SQLITE_OK;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  req.name = (char*)zResource;
  code = btCallIdempotent(p->pConn, M_DELETETABLE, zResource, &req.base,
                &wcbt__empty__descriptor, &pResp, &st, &p->wait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  /* Gone already is what DROP wants. */
  if( code != BT_OK && code != BT_NOT_FOUND ){
    rc = btRpcError(p, "could not delete the table", &st);
  }
  btStatusClear(&st);
  return rc;
}

void btUndoCreate(BtTable *p, int bMade, int bClaimed){
  int rc = bMade ? btDeleteRemote(p, p->zResource) : SQLITE_OK;
  if( rc == SQLITE_OK && bClaimed ) rc = btCatalogForget(p);
  if( rc != SQLITE_OK ){
    /* Undoing cannot fail the ROLLBACK that asked for it. */
    sqlite3_log(rc, "widecol %s: undoing its CREATE: %s", p->zTable,
                p->base.zErrMsg ? p->base.zErrMsg : "?");
  }
}

int btDropRemote(BtTable *p, int *pbKept){
  BtRecord rec;
  int rc;
  *pbKept = 1;
  if( p->bExternal || p->eKind == BT_OLDER ) return SQLITE_OK;
  if( p->zOwner == 0 ){
    /* Made by widecol 1.0: no record, deleted as 1.0 did. */
    *pbKept = 0;
    return btDeleteRemote(p, p->zResource);
  }
  memset(&rec, 0, sizeof(rec));
  if( btTableConnect(p) ) return SQLITE_ERROR;
  rc = btCatalogRead(p, &rec);
  if( rc == SQLITE_OK && rec.bFound && rec.bMade && rec.zOwner
   && strcmp(rec.zOwner, p->zOwner) == 0 ){
    *pbKept = 0;
    rc = btDeleteRemote(p, p->zResource);
    if( rc == SQLITE_OK ) rc = btCatalogForget(p);
  }
  btRecordClear(&rec);
  return rc;
}

int btMissingColumn(BtTable *p, int iCol, const unsigned char *aKey,
                    size_t nKey){
  Wcbt__Table *pTable = 0;
  BtStatus st = {0, 0};
  const char *zFamily = p->aCol[iCol].zFamily;
  char *zKey = btDescribeKey(aKey, nKey);
  int code, bGone = 0, rc;
  code = getTable(p, &pTable, &st);
  if( code == BT_OK ){
    size_t k;
    bGone = 1;
    for(k = 0; k < pTable->n_families; k++){
      if( strcmp(pTable->families[k]->key, zFamily) == 0 ) bGone = 0;
    }
  }
  if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  btStatusClear(&st);
  if( bGone ){
    char *zMake = sqlite3_mprintf(btEngine.zMakeFamily,
                                  btResourceId(p->zResource), zFamily);
    rc = btError(p, SQLITE_ERROR, "widecol %s: the %s table %s has no "
        "column family \"%s\" any more (deleted outside widecol?), so "
        "column %s of row %s, which was written with a value, cannot be "
        "read: make the family again (%s; its cells are gone) and write the "
        "values again, or DROP the widecol table", p->zTable, btEngine.zName,
        p->zResource, zFamily, p->aCol[iCol].zName, zKey ? zKey : "?",
        zMake ? zMake : "?");
    sqlite3_free(zMake);
  }else{
    rc = btError(p, SQLITE_ERROR, "widecol %s: column %s of row %s was "
        "written with a value, but %s table %s has no cell for it "
        "(family \"%s\"): it was deleted outside widecol (a delete, or a "
        "GC rule of the family?); write the row again", p->zTable,
        p->aCol[iCol].zName, zKey ? zKey : "?", btEngine.zName, p->zResource,
        zFamily);
  }
  sqlite3_free(zKey);
  return rc;
}
