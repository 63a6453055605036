/*
** hb_mutate.c: the cell store's writes (cs_transport.h) over HBase's own
** RPC (hb_native.h):
**
**   a batch of rows    one Multi call per region server, all in flight at
**                      once: for each region, one region action with the
**                      rows that only set cells (a Put each), and one
**                      atomic region action per row that also deletes
**                      (its Puts and Deletes in order, applied together);
**                      each row's outcome is its action's or its region
**                      action's
**   a conditional      a Multi of one atomic region action with a
**   write              Condition (HBase's checkAndMutate of a row's
**                      mutations): the newest cell of a column equal to a
**                      value, or absent (equal to no value).  A cell that
**                      must start with a value is read first and checked
**                      equal to what was read: a row's marker is new with
**                      every write (its stamp), so the check fails if the
**                      row changed in between
**
** A row's mutations become MutationProtos: a run of cells set is one Put,
** each delete a Delete (hb_common.h: the time a delete of every version
** takes).
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_native.h"

#include <string.h>

/* Actions of a row's mutations aM[0..n) of row key, appended to
** apAct[*pnAct] (room for n), indexes iIndex, in arena pA: 0, 1 if HBase
** cannot delete what they ask, or 2 on OOM. */
static int rowActions(WcArena *pA, CsBytes key, const CsMutation *aM, int n,
                      uint32_t iIndex, Hbw__Action **apAct, size_t *pnAct){
  int64_t iAll = hbDeleteTime(aM, n);
  int i = 0;
  while( i < n ){
    Hbw__Action *pAct = wcArenaAlloc(pA, sizeof(*pAct));
    Hbw__MutationProto *pM = wcArenaAlloc(pA, sizeof(*pM));
    int j = i + 1, k;
    if( pAct == 0 || pM == 0 ) return 2;
    hbw__action__init(pAct);
    hbw__mutation_proto__init(pM);
    pAct->has_index = 1;
    pAct->index = iIndex;
    pAct->mutation = pM;
    pM->has_row = 1;
    pM->row.data = (uint8_t*)key.a;
    pM->row.len = key.n;
    pM->has_mutate_type = 1;
    if( aM[i].eOp == CS_SET_CELL ){
      while( j < n && aM[j].eOp == CS_SET_CELL ) j++;
    }
    if( aM[i].eOp == CS_DELETE_ROW ){
      pM->mutate_type = HBW__MUTATION_PROTO__MUTATION_TYPE__DELETE;
      pM->has_timestamp = 1;
      pM->timestamp = (uint64_t)iAll;
    }else{
      pM->mutate_type = aM[i].eOp == CS_SET_CELL
                      ? HBW__MUTATION_PROTO__MUTATION_TYPE__PUT
                      : HBW__MUTATION_PROTO__MUTATION_TYPE__DELETE;
      pM->column_value = wcArenaAlloc(pA, sizeof(void*) * (size_t)(j - i));
      if( pM->column_value == 0 ) return 2;
      for(k = i; k < j; k++){
        const CsMutation *pOne = &aM[k];
        Hbw__MutationProto__ColumnValue *pCV = wcArenaAlloc(pA, sizeof(*pCV));
        Hbw__MutationProto__ColumnValue__QualifierValue *pQV
            = wcArenaAlloc(pA, sizeof(*pQV));
        Hbw__MutationProto__ColumnValue__QualifierValue **apQV
            = wcArenaAlloc(pA, sizeof(void*));
        CsBytes qual;
        if( pCV == 0 || pQV == 0 || apQV == 0 ) return 2;
        hbw__mutation_proto__column_value__init(pCV);
        hbw__mutation_proto__column_value__qualifier_value__init(pQV);
        pCV->family.data = (uint8_t*)pOne->zFamily;
        pCV->family.len = strlen(pOne->zFamily);
        pCV->n_qualifier_value = 1;
        pCV->qualifier_value = apQV;
        apQV[0] = pQV;
        pM->column_value[pM->n_column_value++] = pCV;
        qual = hbQualOut(pOne->zFamily, pOne->qual);
        pQV->has_qualifier = 1;
        pQV->qualifier.data = (uint8_t*)qual.a;
        pQV->qualifier.len = qual.n;
        if( pOne->eOp == CS_SET_CELL ){
          pQV->has_value = 1;
          pQV->value.data = (uint8_t*)pOne->value.a;
          pQV->value.len = pOne->value.n;
          if( pOne->iMicros >= 0 ){
            pQV->has_timestamp = 1;
            pQV->timestamp = (uint64_t)hbMillis(pOne->iMicros);
          }
        }else if( pOne->eOp == CS_DELETE_FAMILY ){
          pQV->has_qualifier = 0;
          pQV->has_timestamp = 1;
          pQV->timestamp = (uint64_t)iAll;
          pQV->has_delete_type = 1;
          pQV->delete_type =
              HBW__MUTATION_PROTO__DELETE_TYPE__DELETE_FAMILY;
        }else{
          int64_t iTs;
          int bOne;
          if( hbCellsDelete(pOne, iAll, &iTs, &bOne) ) return 1;
          pQV->has_timestamp = 1;
          pQV->timestamp = (uint64_t)iTs;
          pQV->has_delete_type = 1;
          pQV->delete_type = bOne
              ? HBW__MUTATION_PROTO__DELETE_TYPE__DELETE_ONE_VERSION
              : HBW__MUTATION_PROTO__DELETE_TYPE__DELETE_MULTIPLE_VERSIONS;
        }
      }
    }
    apAct[(*pnAct)++] = pAct;
    i = j;
  }
  return 0;
}

/* A region action on region pRegion with room for nAct actions. */
static Hbw__RegionAction *regionAction(WcArena *pA, const HbRegion *pRegion,
                                       int nAct){
  Hbw__RegionAction *pRA = wcArenaAlloc(pA, sizeof(*pRA));
  Hbw__RegionSpecifier *pSpec = wcArenaAlloc(pA, sizeof(*pSpec));
  if( pRA == 0 || pSpec == 0 ) return 0;
  hbw__region_action__init(pRA);
  hbw__region_specifier__init(pSpec);
  hbRegionSpec(pSpec, pRegion);
  pRA->region = pSpec;
  pRA->action = wcArenaAlloc(pA, sizeof(void*) * (size_t)(nAct > 0 ? nAct : 1));
  return pRA->action ? pRA : 0;
}

/* Sets entry pE's outcome, and if it is the batch's first failure, the
** batch's (*pSt, *pcodeFirst). */
static void outcome(CsEntry *pE, int code, const char *zWhy, CsStatus *pSt,
                    int *pcodeFirst){
  pE->code = code;
  if( code != CS_OK && *pcodeFirst == CS_OK ){
    *pcodeFirst = code;
    csStatusClear(pSt);
    csStatusSet(pSt, code, "%s", zWhy ? zWhy : "failed");
  }
}

/* Moves the values of the request's Puts into block *pCells, as HBase's
** Java client sends them: a region server takes cells from the block
** with less work than from protobuf values.  The server reads the block
** in the order of its region actions and their actions, each Put taking
** its associated_cell_count; the other mutations keep their values. */
static void putsToCells(Hbw__MultiRequest *pReq, WcBuf *pCells){
  size_t r, a, c, q;
  for(r = 0; r < pReq->n_region_action; r++){
    const Hbw__RegionAction *pRA = pReq->region_action[r];
    for(a = 0; a < pRA->n_action; a++){
      Hbw__MutationProto *pM = pRA->action[a]->mutation;
      HbKv kv;
      int32_t nCell = 0;
      if( pM == 0 || pM->mutate_type != HBW__MUTATION_PROTO__MUTATION_TYPE__PUT ){
        continue;
      }
      kv.row.a = pM->row.data;
      kv.row.n = pM->row.len;
      kv.eType = HB_KV_PUT;
      for(c = 0; c < pM->n_column_value; c++){
        const Hbw__MutationProto__ColumnValue *pCV = pM->column_value[c];
        kv.family.a = pCV->family.data;
        kv.family.n = pCV->family.len;
        for(q = 0; q < pCV->n_qualifier_value; q++){
          const Hbw__MutationProto__ColumnValue__QualifierValue *pQV
              = pCV->qualifier_value[q];
          wcAssert( !pQV->has_delete_type );
          kv.qual.a = pQV->qualifier.data;
          kv.qual.n = pQV->has_qualifier ? pQV->qualifier.len : 0;
          kv.value.a = pQV->value.data;
          kv.value.n = pQV->has_value ? pQV->value.len : 0;
          kv.iMillis = pQV->has_timestamp ? (int64_t)pQV->timestamp
                                          : HB_NOW_MILLIS;
          hbKvPut(pCells, &kv);
          nCell++;
        }
      }
      pM->n_column_value = 0;
      pM->has_associated_cell_count = 1;
      pM->associated_cell_count = nCell;
    }
  }
}

/* One server's part of a batch: its entries' indexes, its call. */
typedef struct HbPart HbPart;
struct HbPart {
  HbServer *pServer;
  HbRpc *pRpc;
  int nRA;
  int *aiFirst;         /* Per region action: its first entry, or for an
                        ** atomic one, its entry */
  unsigned char *abAtomic;
};

/* Builds and sends the Multi of server part pPart, over entries aE
** whose region index is aiReg[i] (regions aReg). */
static int sendPart(HbPart *pPart, const HbRegion *aReg, const int *aiReg,
                    CsEntry *aE, int nE, const CsWait *pWait, CsStatus *pSt,
                    int *pcodeFirst){
  WcArena a = {0, 0};
  WcBuf cells = {0, 0, 0, 0};
  Hbw__MultiRequest req = HBW__MULTI_REQUEST__INIT;
  Hbw__RegionAction **apRA = wcArenaAlloc(&a, sizeof(void*) * (size_t)nE * 2);
  int i, nRA = 0, code;
  pPart->aiFirst = sqlite3_malloc64(sizeof(int) * (size_t)nE * 2);
  pPart->abAtomic = sqlite3_malloc64((size_t)nE * 2);
  if( apRA == 0 || pPart->aiFirst == 0 || pPart->abAtomic == 0 ){
    wcArenaFree(&a);
    return CS_INTERNAL;
  }
  for(i = 0; i < nE; i++){
    int k, rc;
    CsEntry *pE = &aE[i];
    Hbw__RegionAction *pRA = 0;
    if( aiReg[i] < 0 || aReg[aiReg[i]].pServer != pPart->pServer ) continue;
    if( hbAllSets(pE->aMut, pE->nMut) ){
      /* The region's action of rows that only set cells. */
      for(k = 0; k < nRA; k++){
        if( !pPart->abAtomic[k] && aiReg[pPart->aiFirst[k]] == aiReg[i] ){
          pRA = apRA[k];
        }
      }
      if( pRA == 0 ){
        pRA = apRA[nRA] = regionAction(&a, &aReg[aiReg[i]], nE);
        pPart->aiFirst[nRA] = i;
        pPart->abAtomic[nRA++] = 0;
      }
    }else{
      pRA = apRA[nRA] = regionAction(&a, &aReg[aiReg[i]], pE->nMut);
      if( pRA ) pRA->has_atomic = pRA->atomic = 1;
      pPart->aiFirst[nRA] = i;
      pPart->abAtomic[nRA++] = 1;
    }
    if( pRA == 0 ) break;
    rc = rowActions(&a, pE->key, pE->aMut, pE->nMut, (uint32_t)i, pRA->action,
                    &pRA->n_action);
    if( rc == 1 ){
      outcome(pE, CS_REFUSED, hbNoRangeDelete, pSt, pcodeFirst);
      if( pRA->n_action == 0 && pPart->abAtomic[nRA - 1] ) nRA--;
    }else if( rc ){
      break;
    }
  }
  req.n_region_action = (size_t)nRA;
  req.region_action = apRA;
  pPart->nRA = nRA;
  if( !a.bOom && nRA > 0 ) putsToCells(&req, &cells);
  if( !a.bOom && !cells.bOom && nRA > 0 ){
    HbChan *pChan = hbChan(pPart->pServer, HB_SVC_CLIENT);
    pPart->pRpc = pChan ? hbRpcSendCells(pChan, "Multi", &req.base, &cells,
                                         pWait) : 0;
  }
  code = a.bOom || cells.bOom || (nRA > 0 && pPart->pRpc == 0) ? CS_INTERNAL
                                                                : CS_OK;
  wcBufFree(&cells);
  wcArenaFree(&a);
  return code;
}

/* Waits for part pPart's answer and sets its entries' outcomes. */
static void takePart(HbPart *pPart, const int *aiReg, CsEntry *aE, int nE,
                     CsStatus *pSt, int *pcodeFirst){
  Hbw__MultiResponse *pResp = 0;
  CsStatus st = {0, 0};
  int code, k, i;
  if( pPart->nRA == 0 ) return;
  code = hbRpcWait(pPart->pRpc, &hbw__multi_response__descriptor,
                   (ProtobufCMessage**)&pResp, &st);
  if( code == CS_OK && pResp->n_region_action_result != (size_t)pPart->nRA ){
    code = CS_INTERNAL;
    csStatusSet(&st, code, "an answer of HBase's could not be read");
  }
  for(k = 0; k < pPart->nRA; k++){
    int iFirst = pPart->aiFirst[k];
    const Hbw__RegionActionResult *pRes =
        code == CS_OK ? pResp->region_action_result[k] : 0;
    char *zWhy = 0;
    int codeRA = code;
    if( pRes && pRes->exception ){
      codeRA = hbExceptionCode(pRes->exception->name);
      zWhy = hbExceptionWhy(pRes->exception);
    }
    if( pPart->abAtomic[k] ){
      outcome(&aE[iFirst], codeRA, zWhy ? zWhy : st.zMsg, pSt, pcodeFirst);
    }else{
      /* Every row of the region's action: its own result or exception. */
      for(i = iFirst; i < nE; i++){
        if( aiReg[i] != aiReg[iFirst] || aE[i].code != CS_UNAVAILABLE
         || !hbAllSets(aE[i].aMut, aE[i].nMut) ){
          continue;
        }
        outcome(&aE[i], codeRA, zWhy ? zWhy : st.zMsg, pSt, pcodeFirst);
      }
      for(i = 0; pRes && codeRA == CS_OK
                 && i < (int)pRes->n_result_or_exception; i++){
        const Hbw__ResultOrException *pOne = pRes->result_or_exception[i];
        if( pOne->exception && pOne->index < (uint32_t)nE ){
          char *z = hbExceptionWhy(pOne->exception);
          aE[pOne->index].code = CS_OK;
          outcome(&aE[pOne->index], hbExceptionCode(pOne->exception->name),
                  z, pSt, pcodeFirst);
          sqlite3_free(z);
        }
      }
    }
    sqlite3_free(zWhy);
  }
  csStatusClear(&st);
}

int hbnMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                  int nEntry, const CsWait *pWait, CsStatus *pSt){
  HbCluster *p = hbCluster(pConn);
  const HbRegion *aReg = 0;
  int nReg = 0, i, k, nPart = 0, codeFirst = CS_OK;
  int *aiReg = sqlite3_malloc64(sizeof(int) * (size_t)(nEntry + 1));
  HbPart *aPart = sqlite3_malloc64(sizeof(HbPart) * (size_t)(nEntry + 1));
  int code = aiReg && aPart ? hbRegions(p, zTable, pWait, &aReg, &nReg, pSt)
                            : CS_INTERNAL;
  if( code == CS_INTERNAL && pSt->zMsg == 0 ){
    csStatusSet(pSt, code, "out of memory");
  }
  if( code != CS_OK ){
    for(i = 0; i < nEntry; i++) aEntry[i].code = code;
    sqlite3_free(aiReg);
    sqlite3_free(aPart);
    hbForget(p, zTable, code);
    return code;
  }
  memset(aPart, 0, sizeof(HbPart) * (size_t)(nEntry + 1));
  for(i = 0; i < nEntry; i++){
    aEntry[i].code = CS_UNAVAILABLE;
    aiReg[i] = hbRegionOf(aReg, nReg, aEntry[i].key, 0);
    if( aiReg[i] < 0 ){
      CsStatus st = {0, 0};
      hbNoRegion(p, zTable, &st);
      outcome(&aEntry[i], CS_AGAIN, st.zMsg, pSt, &codeFirst);
      csStatusClear(&st);
      continue;
    }
    for(k = 0; k < nPart && aPart[k].pServer != aReg[aiReg[i]].pServer; k++){}
    if( k == nPart ) aPart[nPart++].pServer = aReg[aiReg[i]].pServer;
  }
  for(k = 0; k < nPart && code == CS_OK; k++){
    code = sendPart(&aPart[k], aReg, aiReg, aEntry, nEntry, pWait, pSt,
                    &codeFirst);
  }
  for(k = 0; k < nPart; k++){
    if( code == CS_OK ){
      takePart(&aPart[k], aiReg, aEntry, nEntry, pSt, &codeFirst);
    }
    hbRpcFree(aPart[k].pRpc);
    sqlite3_free(aPart[k].aiFirst);
    sqlite3_free(aPart[k].abAtomic);
  }
  if( code != CS_OK ){
    for(i = 0; i < nEntry; i++){
      if( aEntry[i].code == CS_UNAVAILABLE ) aEntry[i].code = code;
    }
    csStatusClear(pSt);
    csStatusSet(pSt, code, "out of memory");
    codeFirst = code;
  }
  if( codeFirst == CS_AGAIN
   && hbCallFailed(p, zTable, codeFirst, pWait, pSt) == CS_DISABLED ){
    for(i = 0; i < nEntry; i++){
      if( aEntry[i].code == CS_AGAIN ) aEntry[i].code = CS_DISABLED;
    }
  }else if( csRetryable(codeFirst) || codeFirst == CS_DEADLINE ){
    hbForget(p, zTable, codeFirst);
  }
  sqlite3_free(aiReg);
  sqlite3_free(aPart);
  /* CS_OK when every row had an answer: the first refusal is in *pSt. */
  for(i = 0; i < nEntry; i++){
    if( aEntry[i].code == CS_UNAVAILABLE || aEntry[i].code == CS_DEADLINE
     || aEntry[i].code == CS_CANCELLED || aEntry[i].code == CS_INTERNAL ){
      return aEntry[i].code;
    }
  }
  return CS_OK;
}

/*
** Conditional writes.
*/

typedef struct HbPending HbPending;
struct HbPending {
  HbRpc *pRpc;          /* The call sent, or 0: the answer is known */
  HbCluster *p;
  char *zTable;
  CsWait wait;
  int code;             /* Without a call: its code, */
  int bApplied;         /* and whether the write was applied */
  CsStatus st;          /* and why it failed */
};

static HbPending *pendingNew(HbCluster *p, const char *zTable, int code,
                             int bApplied, CsStatus *pSt){
  HbPending *pP = sqlite3_malloc(sizeof(*pP));
  if( pP == 0 ){
    if( pSt ) csStatusClear(pSt);
    return 0;
  }
  memset(pP, 0, sizeof(*pP));
  pP->p = p;
  pP->zTable = sqlite3_mprintf("%s", zTable);
  pP->code = code;
  pP->bApplied = bApplied;
  if( pSt ){
    pP->st = *pSt;
    memset(pSt, 0, sizeof(*pSt));
  }
  return pP;
}

/* Row key's newest cell of (zFamily, qual), or with zFamily NULL its first
** cell at all: 1 and *pValue (in *ppRpc's answer) if there is one, 0 if
** none, or -1 on a failure (*pSt). */
static int readCell(HbCluster *p, const char *zTable, CsBytes key,
                    const char *zFamily, CsBytes qual, const CsWait *pWait,
                    HbRpc **ppRpc, CsBytes *pValue, CsStatus *pSt){
  CsColumn col;
  CsRead rd;
  Hbw__GetRequest req = HBW__GET_REQUEST__INIT;
  Hbw__Get get = HBW__GET__INIT;
  Hbw__RegionSpecifier spec = HBW__REGION_SPECIFIER__INIT;
  Hbw__GetResponse *pResp = 0;
  WcArena a = {0, 0};
  HbRegion region;
  HbChan *pChan;
  CsBytes block;
  HbKv kv;
  int code;
  *ppRpc = 0;
  code = hbLocate(p, zTable, key, 0, pWait, &region, pSt);
  if( code != CS_OK ) return -1;
  memset(&rd, 0, sizeof(rd));
  col.zFamily = zFamily;
  col.qual = qual;
  rd.nColumn = zFamily ? 1 : 0;
  rd.aColumn = &col;
  if( hbReadColumns(&rd, &a, &get.column, &get.n_column) ){
    hbRegionFree(&region);
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return -1;
  }
  get.row.data = (uint8_t*)key.a;
  get.row.len = key.n;
  get.has_max_versions = 1;
  get.max_versions = 1;
  hbRegionSpec(&spec, &region);
  req.region = &spec;
  req.get = &get;
  pChan = hbChan(region.pServer, HB_SVC_CLIENT);
  code = pChan ? hbRpcCall(pChan, "Get", &req.base,
                           &hbw__get_response__descriptor, pWait, ppRpc,
                           (ProtobufCMessage**)&pResp, pSt)
               : CS_INTERNAL;
  wcArenaFree(&a);
  hbRegionFree(&region);
  if( code != CS_OK ){
    if( pSt->zMsg == 0 ) csStatusSet(pSt, code, "out of memory");
    hbForget(p, zTable, code);
    return -1;
  }
  block = hbRpcCells(*ppRpc);
  if( pResp->result == 0 || pResp->result->associated_cell_count == 0
   || hbKvNext(&block, &kv) <= 0 ){
    return 0;
  }
  *pValue = kv.value;
  return 1;
}

/* Sends row key's mutations aM as an atomic region action on condition
** pCond (NULL: none): the pending write. */
static HbPending *sendConditional(HbCluster *p, const char *zTable,
                                  CsBytes key, Hbw__Condition *pCond,
                                  const CsMutation *aM, int nM,
                                  const CsWait *pWait){
  Hbw__MultiRequest req = HBW__MULTI_REQUEST__INIT;
  Hbw__RegionAction *pRA;
  CsStatus st = {0, 0};
  WcArena a = {0, 0};
  HbRegion region;
  HbPending *pP;
  int code = hbLocate(p, zTable, key, 0, pWait, &region, &st), rc;
  if( code != CS_OK ) return pendingNew(p, zTable, code, 0, &st);
  pRA = regionAction(&a, &region, nM);
  rc = pRA ? rowActions(&a, key, aM, nM, 0, pRA->action, &pRA->n_action) : 2;
  if( rc == 1 ){
    csStatusSet(&st, CS_REFUSED, "%s", hbNoRangeDelete);
    pP = pendingNew(p, zTable, CS_REFUSED, 0, &st);
  }else if( rc || a.bOom ){
    csStatusSet(&st, CS_INTERNAL, "out of memory");
    pP = pendingNew(p, zTable, CS_INTERNAL, 0, &st);
  }else{
    HbChan *pChan = hbChan(region.pServer, HB_SVC_CLIENT);
    pRA->has_atomic = pRA->atomic = 1;
    pRA->condition = pCond;
    req.n_region_action = 1;
    req.region_action = &pRA;
    pP = pendingNew(p, zTable, CS_OK, 0, 0);
    if( pP ){
      pP->wait = *pWait;
      pP->pRpc = pChan ? hbRpcSend(pChan, "Multi", &req.base, pWait) : 0;
      if( pP->pRpc == 0 ){
        pP->code = CS_INTERNAL;
        csStatusSet(&pP->st, CS_INTERNAL, "out of memory");
      }
    }
  }
  wcArenaFree(&a);
  hbRegionFree(&region);
  return pP;
}

CsPending *hbnCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                         const CsCheck *pCheck, const CsMutation *aMut,
                         int nMut, const CsWait *pWait){
  HbCluster *p = hbCluster(pConn);
  Hbw__Condition cond = HBW__CONDITION__INIT;
  Hbw__Comparator cmp = HBW__COMPARATOR__INIT;
  Hbw__BinaryComparator bin = HBW__BINARY_COMPARATOR__INIT;
  Hbw__ByteArrayComparable value = HBW__BYTE_ARRAY_COMPARABLE__INIT;
  unsigned char *aCmp = 0;
  CsStatus st = {0, 0};
  const char *zFamily = pCheck->zFamily;
  CsBytes qual = pCheck->qual, want = pCheck->value;
  HbRpc *pRead = 0;
  HbPending *pP;
  size_t nCmp;
  wcAssert( nMut > 0 );
  if( pCheck->eCond == CS_ALWAYS ){
    return (CsPending*)sendConditional(p, zTable, key, 0, aMut, nMut, pWait);
  }
  if( pCheck->eCond == CS_ROW_ABSENT && zFamily == 0 ){
    /* "The row has no cell", where no cell is in every row (a table
    ** another application made, EXISTING): the row is looked for whole,
    ** then written on the check that the first cell it sets is still
    ** absent, which is all one HBase call can check (docs/hbase.md:
    ** another writer adding the row with other cells in between is not
    ** seen). */
    const CsMutation *pFirst = hbFirstSet(aMut, nMut);
    CsBytes any;
    int r = readCell(p, zTable, key, 0, qual, pWait, &pRead, &any, &st);
    hbRpcFree(pRead);
    pRead = 0;
    if( r != 0 || pFirst == 0 ){
      return (CsPending*)pendingNew(p, zTable, r < 0 ? st.code : CS_OK, 0,
                                    &st);
    }
    zFamily = pFirst->zFamily;
    qual = pFirst->qual;
  }
  if( pCheck->eCond == CS_CELL_PREFIX ){
    int r = readCell(p, zTable, key, zFamily, qual, pWait, &pRead, &want,
                     &st);
    if( r <= 0 || want.n < pCheck->value.n
     || memcmp(want.a, pCheck->value.a, pCheck->value.n) != 0 ){
      /* Failed, or the cell is not as expected: nothing to write. */
      hbRpcFree(pRead);
      return (CsPending*)pendingNew(p, zTable, r < 0 ? st.code : CS_OK, 0,
                                    &st);
    }
  }
  /* Equal to a value; absent is equal to no value (HBase's checkAndMutate
  ** matches a missing cell to an empty comparator). */
  if( pCheck->eCond == CS_CELL_EQUAL || pCheck->eCond == CS_CELL_PREFIX ){
    value.has_value = 1;
    value.value.data = (uint8_t*)want.a;
    value.value.len = want.n;
  }
  bin.comparable = &value;
  nCmp = protobuf_c_message_get_packed_size(&bin.base);
  aCmp = sqlite3_malloc64(nCmp + 1);
  if( aCmp == 0 ){
    hbRpcFree(pRead);
    csStatusSet(&st, CS_INTERNAL, "out of memory");
    return (CsPending*)pendingNew(p, zTable, CS_INTERNAL, 0, &st);
  }
  protobuf_c_message_pack(&bin.base, aCmp);
  cmp.name = "org.apache.hadoop.hbase.filter.BinaryComparator";
  cmp.has_serialized_comparator = 1;
  cmp.serialized_comparator.data = aCmp;
  cmp.serialized_comparator.len = nCmp;
  qual = hbQualOut(zFamily, qual);
  cond.row.data = (uint8_t*)key.a;
  cond.row.len = key.n;
  cond.has_family = 1;
  cond.family.data = (uint8_t*)zFamily;
  cond.family.len = strlen(zFamily);
  cond.has_qualifier = 1;
  cond.qualifier.data = (uint8_t*)qual.a;
  cond.qualifier.len = qual.n;
  cond.has_compare_type = 1;
  cond.compare_type = HBW__COMPARE_TYPE__EQUAL;
  cond.comparator = &cmp;
  pP = sendConditional(p, zTable, key, &cond, aMut, nMut, pWait);
  sqlite3_free(aCmp);
  hbRpcFree(pRead);
  return (CsPending*)pP;
}

int hbnCheckFinish(CsPending *pPending, int *pbApplied, CsStatus *pSt){
  HbPending *p = (HbPending*)pPending;
  int code = p->code;
  *pbApplied = p->bApplied;
  if( p->pRpc ){
    Hbw__MultiResponse *pResp = 0;
    code = hbRpcWait(p->pRpc, &hbw__multi_response__descriptor,
                     (ProtobufCMessage**)&pResp, pSt);
    if( code == CS_OK && pResp->n_region_action_result != 1 ){
      code = CS_INTERNAL;
      csStatusSet(pSt, code, "an answer of HBase's could not be read");
    }else if( code == CS_OK ){
      const Hbw__RegionActionResult *pRes = pResp->region_action_result[0];
      const Hbw__NameBytesPair *pEx = pRes->exception;
      size_t i;
      for(i = 0; pEx == 0 && i < pRes->n_result_or_exception; i++){
        pEx = pRes->result_or_exception[i]->exception;
      }
      if( pEx ){
        char *z = hbExceptionWhy(pEx);
        code = hbExceptionCode(pEx->name);
        csStatusSet(pSt, code, "%s", z ? z : pEx->name);
        sqlite3_free(z);
      }else{
        /* Without a condition, applied; with one, as HBase says. */
        *pbApplied = !pRes->has_processed || pRes->processed;
      }
    }
    if( code != CS_OK ){
      *pbApplied = 0;
      code = hbCallFailed(p->p, p->zTable ? p->zTable : "", code, &p->wait,
                          pSt);
    }
    hbRpcFree(p->pRpc);
  }else if( code != CS_OK ){
    *pSt = p->st;
    memset(&p->st, 0, sizeof(p->st));
  }
  csStatusClear(&p->st);
  sqlite3_free(p->zTable);
  sqlite3_free(p);
  return code;
}
