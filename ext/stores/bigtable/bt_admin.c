/*
** bt_admin.c: the cell store's table calls (cs_transport.h) as Bigtable's
** table admin API: CreateTable with the families' GC rules and the
** splits, GetTable (the schema view: families and rules), DeleteTable.
** A table's resource name is projects/<p>/instances/<i>/tables/<id>; the
** admin calls name its parent and id apart.
*/
#include "util/wc_api.h"
#include "stores/bigtable/bt_grpc.h"
#include "stores/common/wc_arena.h"

#include <string.h>

/* Where the table's id starts in zRes, after "/tables/". */
static const char *tableId(const char *zRes){
  const char *z = strstr(zRes, "/tables/");
  return z ? z + 8 : zRes;
}

/* The GC rule of every family a CREATE makes: at most nVersions cells a
** column and, under a TTL, none older; a cell goes when either rule says
** so, as in HBase.  In pA; NULL on OOM. */
static Wcbt__GcRule *gcRule(WcArena *pA, const CsTableSpec *pSpec){
  Wcbt__GcRule *aPart = wcArenaAlloc(pA, sizeof(*aPart) * 3);
  Wcbt__GcRule **apPart = wcArenaAlloc(pA, sizeof(*apPart) * 2);
  Wcbt__GcRule__List *pList = wcArenaAlloc(pA, sizeof(*pList));
  Wcbt__Duration *pAge = wcArenaAlloc(pA, sizeof(*pAge));
  int i;
  if( pA->bOom ) return 0;
  for(i = 0; i < 3; i++) wcbt__gc_rule__init(&aPart[i]);
  wcbt__duration__init(pAge);
  wcbt__gc_rule__list__init(pList);
  aPart[0].rule_case = WCBT__GC_RULE__RULE_MAX_VERSIONS;
  aPart[0].max_versions = pSpec->nVersions;
  if( pSpec->nTtl <= 0 ) return &aPart[0];
  pAge->seconds = pSpec->nTtl;
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

int btCreateTable(CsConn *pConn, const char *zTable, const CsTableSpec *pSpec,
                  const CsWait *pWait, CsStatus *pSt){
  Wcbt__CreateTableRequest req = WCBT__CREATE_TABLE_REQUEST__INIT;
  Wcbt__Table table = WCBT__TABLE__INIT;
  Wcbt__Table__FamiliesEntry *aEntry, **apEntry;
  Wcbt__ColumnFamily *aFam;
  Wcbt__Split *aSplit, **apSplit;
  Wcbt__GcRule *pRule;
  ProtobufCMessage *pResp = 0;
  const char *zId = tableId(zTable);
  char *zParent = sqlite3_mprintf("%.*s", (int)(zId - zTable - 8), zTable);
  WcArena arena;
  int i, code;
  memset(&arena, 0, sizeof(arena));
  aEntry = wcArenaAlloc(&arena, sizeof(*aEntry) * (size_t)pSpec->nFamily);
  apEntry = wcArenaAlloc(&arena, sizeof(*apEntry) * (size_t)pSpec->nFamily);
  aFam = wcArenaAlloc(&arena, sizeof(*aFam) * (size_t)pSpec->nFamily);
  aSplit = wcArenaAlloc(&arena, sizeof(*aSplit) * (size_t)(pSpec->nSplit + 1));
  apSplit = wcArenaAlloc(&arena, sizeof(*apSplit)
                                 * (size_t)(pSpec->nSplit + 1));
  pRule = gcRule(&arena, pSpec);
  if( zParent == 0 || arena.bOom ){
    sqlite3_free(zParent);
    wcArenaFree(&arena);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  for(i = 0; i < pSpec->nFamily; i++){
    wcbt__table__families_entry__init(&aEntry[i]);
    wcbt__column_family__init(&aFam[i]);
    aFam[i].gc_rule = pRule;
    aEntry[i].key = (char*)pSpec->azFamily[i];
    aEntry[i].value = &aFam[i];
    apEntry[i] = &aEntry[i];
  }
  for(i = 0; i < pSpec->nSplit; i++){
    wcbt__split__init(&aSplit[i]);
    aSplit[i].key.data = (uint8_t*)pSpec->aSplit[i].a;
    aSplit[i].key.len = pSpec->aSplit[i].n;
    apSplit[i] = &aSplit[i];
  }
  table.n_families = (size_t)pSpec->nFamily;
  table.families = apEntry;
  req.parent = zParent;
  req.table_id = (char*)zId;
  req.table = &table;
  req.n_splits = (size_t)pSpec->nSplit;
  req.splits = apSplit;
  code = btCall(pConn, BT_CREATE_TABLE, zParent, &req.base,
                &wcbt__table__descriptor, &pResp, pSt, pWait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  sqlite3_free(zParent);
  wcArenaFree(&arena);
  return code;
}

/* Appends rule pRule as cbt's users write it. */
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

/* True if GC rule pRule keeps every cell *pKeep keeps: the newest
** nVersions of a column, under a TTL (nTtl > 0) those younger than it.
** A union deletes what any part deletes; an intersection only what every
** part does, so one part that keeps them is enough. */
static int ruleKeeps(const Wcbt__GcRule *pRule, const CsTableSpec *pKeep){
  const Wcbt__GcRule__List *pList;
  size_t i;
  switch( pRule ? pRule->rule_case : WCBT__GC_RULE__RULE__NOT_SET ){
    case WCBT__GC_RULE__RULE_MAX_VERSIONS:
      return pRule->max_versions <= 0
          || pRule->max_versions >= pKeep->nVersions;
    case WCBT__GC_RULE__RULE_MAX_AGE:
      return pKeep->nTtl > 0 && pRule->max_age
          && pRule->max_age->seconds >= pKeep->nTtl;
    case WCBT__GC_RULE__RULE_UNION:
      pList = pRule->union_;
      for(i = 0; pList && i < pList->n_rules; i++){
        if( !ruleKeeps(pList->rules[i], pKeep) ) return 0;
      }
      return 1;
    case WCBT__GC_RULE__RULE_INTERSECTION:
      pList = pRule->intersection;
      for(i = 0; pList && i < pList->n_rules; i++){
        if( ruleKeeps(pList->rules[i], pKeep) ) return 1;
      }
      return pList == 0 || pList->n_rules == 0;
    default:
      return 1;
  }
}

/* *ppInfo from GetTable's answer pTable: one allocation. */
static int tableInfo(const Wcbt__Table *pTable, const CsTableSpec *pKeep,
                     CsTableInfo **ppInfo){
  size_t n = pTable->n_families, i, nByte = sizeof(CsTableInfo)
           + sizeof(CsFamily) * (n + 1);
  char **azRule = sqlite3_malloc64(sizeof(char*) * (n + 1));
  CsTableInfo *pInfo = 0;
  char *z;
  if( azRule == 0 ) return CS_INTERNAL;
  for(i = 0; i < n; i++){
    const Wcbt__ColumnFamily *pFam = pTable->families[i]->value;
    sqlite3_str *pStr = sqlite3_str_new(0);
    describeRule(pStr, pFam ? pFam->gc_rule : 0);
    azRule[i] = sqlite3_str_finish(pStr);
    nByte += strlen(pTable->families[i]->key) + 1
           + (azRule[i] ? strlen(azRule[i]) : 0) + 1;
  }
  pInfo = sqlite3_malloc64(nByte);
  if( pInfo ){
    pInfo->nFamily = (int)n;
    pInfo->aFamily = (CsFamily*)&pInfo[1];
    z = (char*)&pInfo->aFamily[n + 1];
    for(i = 0; i < n; i++){
      const Wcbt__Table__FamiliesEntry *pE = pTable->families[i];
      CsFamily *pF = &pInfo->aFamily[i];
      size_t nName = strlen(pE->key) + 1;
      size_t nRule = azRule[i] ? strlen(azRule[i]) + 1 : 1;
      memcpy(z, pE->key, nName);
      pF->zName = z;
      z += nName;
      memcpy(z, azRule[i] ? azRule[i] : "", nRule);
      pF->zRule = z;
      z += nRule;
      pF->bKeeps = pKeep == 0
                || ruleKeeps(pE->value ? pE->value->gc_rule : 0, pKeep);
    }
    wcAssert( z <= (char*)pInfo + nByte );
  }
  for(i = 0; i < n; i++) sqlite3_free(azRule[i]);
  sqlite3_free(azRule);
  *ppInfo = pInfo;
  return pInfo ? CS_OK : CS_INTERNAL;
}

int btGetTable(CsConn *pConn, const char *zTable, const CsTableSpec *pKeep,
               const CsWait *pWait, CsTableInfo **ppInfo, CsStatus *pSt){
  Wcbt__GetTableRequest req = WCBT__GET_TABLE_REQUEST__INIT;
  Wcbt__Table *pTable = 0;
  int code;
  *ppInfo = 0;
  req.name = (char*)zTable;
  req.view = 2;         /* SCHEMA_VIEW: the families and their rules */
  code = btCall(pConn, BT_GET_TABLE, zTable, &req.base,
                &wcbt__table__descriptor, (ProtobufCMessage**)&pTable, pSt,
                pWait);
  if( code == CS_OK ){
    code = tableInfo(pTable, pKeep, ppInfo);
    if( code != CS_OK ) csStatusSet(pSt, code, "out of memory");
  }
  if( pTable ) protobuf_c_message_free_unpacked(&pTable->base, 0);
  return code;
}

int btDeleteTable(CsConn *pConn, const char *zTable, const CsWait *pWait,
                  CsStatus *pSt){
  Wcbt__DeleteTableRequest req = WCBT__DELETE_TABLE_REQUEST__INIT;
  ProtobufCMessage *pResp = 0;
  int code;
  req.name = (char*)zTable;
  code = btCall(pConn, BT_DELETE_TABLE, zTable, &req.base,
                &wcbt__empty__descriptor, &pResp, pSt, pWait);
  if( pResp ) protobuf_c_message_free_unpacked(pResp, 0);
  return code;
}
