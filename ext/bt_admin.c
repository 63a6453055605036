/*
** bt_admin.c: the Bigtable tables behind a widecol_bigtable table:
** CreateTable with its families, GC rule and splits, taking over a table
** made before, DeleteTable (see bt_store.h), and what GetTable says when
** a read finds a column's cells gone.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bt_table.h"

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

int btCreateRemote(BtTable *p, int *pbMade){
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
  *pbMade = 0;
  if( btTableConnect(p) ) return SQLITE_ERROR;
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
  code = btCallIdempotent(p->pConn, M_CREATETABLE, zParent, &req.base,
                &wcbt__table__descriptor, &pResp, &st, &p->wait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  if( code == BT_OK ) *pbMade = 1;
  if( code == BT_ALREADY_EXISTS ){
    /* Made before (by this design, in another database or session): take
    ** it if it has every family. */
    Wcbt__GetTableRequest get = WCBT__GET_TABLE_REQUEST__INIT;
    Wcbt__Table *pTable = 0;
    btStatusClear(&st);
    get.name = p->zResource;
    get.view = 2;
    code = btCallIdempotent(p->pConn, M_GETTABLE, p->zResource, &get.base,
                  &wcbt__table__descriptor, (ProtobufCMessage**)&pTable, &st,
                  &p->wait);
    if( code == BT_OK ){
      for(i = 0; i < p->nFamily; i++){
        size_t k;
        for(k = 0; k < pTable->n_families; k++){
          if( strcmp(pTable->families[k]->key, p->azFamily[i]) == 0 ) break;
        }
        if( k == pTable->n_families ){
          rc = btError(p, SQLITE_ERROR, "the Bigtable table %s exists "
              "but has no column family \"%s\", so it was not made for this "
              "design: delete it (cbt deletetable) or name another table",
              p->zResource, p->azFamily[i]);
          break;
        }
      }
    }
    if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  }
  if( code != BT_OK && rc == SQLITE_OK ){
    rc = btRpcError(p, "could not create the Bigtable table", &st);
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
    rc = btRpcError(p, "could not delete the Bigtable table", &st);
  }
  btStatusClear(&st);
  return rc;
}

int btMissingColumn(BtTable *p, int iCol, const unsigned char *aKey,
                    size_t nKey){
  Wcbt__GetTableRequest get = WCBT__GET_TABLE_REQUEST__INIT;
  Wcbt__Table *pTable = 0;
  BtStatus st = {0, 0};
  const char *zFamily = p->aCol[iCol].zFamily;
  char *zKey = btDescribeKey(aKey, nKey);
  int code, bGone = 0, rc;
  get.name = p->zResource;
  get.view = 2;
  code = btCallIdempotent(p->pConn, M_GETTABLE, p->zResource, &get.base,
                &wcbt__table__descriptor, (ProtobufCMessage**)&pTable, &st,
                &p->wait);
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
    rc = btError(p, SQLITE_ERROR, "widecol %s: the Bigtable table %s has no "
        "column family \"%s\" any more (deleted outside widecol, by cbt "
        "deletefamily?), so column %s of row %s, which was written with a "
        "value, cannot be read: make the family again (cbt createfamily; its "
        "cells are gone) and write the values again, or DROP the widecol "
        "table", p->zTable, p->zResource, zFamily, p->aCol[iCol].zName,
        zKey ? zKey : "?");
  }else{
    rc = btError(p, SQLITE_ERROR, "widecol %s: column %s of row %s was "
        "written with a value, but Bigtable table %s has no cell for it "
        "(family \"%s\"): it was deleted outside widecol (cbt deletecolumn, "
        "a GC rule of the family?); write the row again", p->zTable,
        p->aCol[iCol].zName, zKey ? zKey : "?", p->zResource, zFamily);
  }
  sqlite3_free(zKey);
  return rc;
}
