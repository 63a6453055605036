/*
** hb_write.c: the cell store's writes (cs_transport.h) on HBase's Thrift2
** gateway (hb_gateway.h):
**
**   a batch of rows    putMultiple for runs of rows that only set cells;
**                      mutateRow (atomic) for a row that deletes, up to
**                      HB_PIPELINE of those in flight over HB_LANES
**                      connections; each row's outcome is its call's
**   a conditional      checkAndMutate on the cell the condition names:
**   write              equal to a value; checkAndPut or checkAndDelete
**                      where it must be absent (the gateway's
**                      checkAndMutate cannot check that).  A cell that must
**                      start with a value is read first, and then checked
**                      equal to what was read: a row's marker is new with
**                      every write (its stamp), so the check fails if the
**                      row changed in between
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_gateway.h"

#include <string.h>

/* Thrift2's enums. */
#define HB_OP_EQUAL 2
#define HB_DELETE_COLUMN  0
#define HB_DELETE_COLUMNS 1
#define HB_DELETE_FAMILY  2
/* mutateRow calls in flight at once, over HB_LANES connections: no call
** waits for the round trip of the one before, and HBase applies those of
** different lanes side by side (Thrift2 has no call that mutates several
** rows, so a row that deletes is a call of its own). */
#define HB_PIPELINE 256


/* A TColumnValue of cell mutation pM, with its stop. */
static void writeCell(WcBuf *p, const CsMutation *pM){
  hbWriteBinaryField(p, 1, pM->zFamily, (int64_t)strlen(pM->zFamily));
  hbWriteQual(p, 2, pM->zFamily, pM->qual);
  hbWriteBinaryField(p, 3, pM->value.a, (int64_t)pM->value.n);
  if( pM->iMicros >= 0 ) hbWriteI64Field(p, 4, hbMillis(pM->iMicros));
  hbWriteStop(p);
}

/* A TPut of row key's cells that mutations aM[i..] set, up to the first
** that is no set, with its stop: returns the index after it. */
static int writePut(WcBuf *p, CsBytes key, const CsMutation *aM, int i,
                    int n){
  int j, nCell = 0;
  for(j = i; j < n && aM[j].eOp == CS_SET_CELL; j++) nCell++;
  hbWriteBinaryField(p, 1, key.a, (int64_t)key.n);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, nCell);
  for(j = i; j < i + nCell; j++) writeCell(p, &aM[j]);
  hbWriteStop(p);
  return i + nCell;
}

/* A TDelete of mutation pM, with its stop; 0, or 1 if HBase cannot
** delete what it asks (a time range other than "before t" or "at t").
** A delete of every version is one of the versions at or before iAll:
** HBase's delete without a time is one at its clock's now, which spares
** cells of later times (the cell store means them too). */
static int writeDelete(WcBuf *p, CsBytes key, const CsMutation *pM,
                       int64_t iAll){
  hbWriteBinaryField(p, 1, key.a, (int64_t)key.n);
  switch( pM->eOp ){
    case CS_DELETE_CELLS: {
      int64_t iTs;
      int bOne, eType;
      if( hbCellsDelete(pM, iAll, &iTs, &bOne) ) return 1;
      eType = bOne ? HB_DELETE_COLUMN : HB_DELETE_COLUMNS;
      hbWriteField(p, HB_LIST, 2);
      hbWriteListBegin(p, HB_STRUCT, 1);
      hbWriteBinaryField(p, 1, pM->zFamily, (int64_t)strlen(pM->zFamily));
      hbWriteQual(p, 2, pM->zFamily, pM->qual);
      hbWriteI64Field(p, 3, iTs);
      hbWriteStop(p);
      hbWriteI32Field(p, 4, eType);
      break;
    }
    case CS_DELETE_FAMILY:
      hbWriteField(p, HB_LIST, 2);
      hbWriteListBegin(p, HB_STRUCT, 1);
      hbWriteBinaryField(p, 1, pM->zFamily, (int64_t)strlen(pM->zFamily));
      hbWriteI64Field(p, 3, iAll);
      hbWriteStop(p);
      hbWriteI32Field(p, 4, HB_DELETE_FAMILY);
      break;
    default:     /* the whole row */
      wcAssert( pM->eOp == CS_DELETE_ROW );
      hbWriteI64Field(p, 3, iAll);
      break;
  }
  hbWriteStop(p);
  return 0;
}


/* A TRowMutations (field id) of a row's mutations, in order; 0, or 1 if
** HBase cannot delete what they ask. */
static int writeRowMutations(WcBuf *p, int id, CsBytes key,
                             const CsMutation *aM, int n){
  int i, nGroup = 0;
  int64_t iAll = hbDeleteTime(aM, n);
  for(i = 0; i < n; nGroup++){
    if( aM[i].eOp == CS_SET_CELL ){
      while( i < n && aM[i].eOp == CS_SET_CELL ) i++;
    }else{
      i++;
    }
  }
  hbWriteField(p, HB_STRUCT, id);
  hbWriteBinaryField(p, 1, key.a, (int64_t)key.n);
  hbWriteField(p, HB_LIST, 2);
  hbWriteListBegin(p, HB_STRUCT, nGroup);
  for(i = 0; i < n; ){
    /* A TMutation: a union of a put (1) and a delete (2). */
    if( aM[i].eOp == CS_SET_CELL ){
      hbWriteField(p, HB_STRUCT, 1);
      i = writePut(p, key, aM, i, n);
    }else{
      hbWriteField(p, HB_STRUCT, 2);
      if( writeDelete(p, key, &aM[i], iAll) ) return 1;
      i++;
    }
    hbWriteStop(p);
  }
  hbWriteStop(p);
  return 0;
}

/* A whole mutateRow request of a row's mutations; 0, or 1 (nothing
** usable written) if HBase cannot delete what they ask. */
static int writeMutateRow(WcBuf *p, const char *zTable, CsBytes key,
                          const CsMutation *aM, int n){
  hbWriteCall(p, "mutateRow", 0);
  hbWriteBinaryField(p, 1, zTable, (int64_t)strlen(zTable));
  if( writeRowMutations(p, 2, key, aM, n) ) return 1;
  hbWriteStop(p);
  return 0;
}


/*
** Batches of rows.
*/

/* Notes entry *pE's outcome, code, and if it is the batch's first
** failure, why (*pSt, taken into *pFirst). */
static void outcome(CsEntry *pE, int code, CsStatus *pSt, CsStatus *pFirst,
                    int *pcodeFirst){
  pE->code = code;
  if( code != CS_OK && *pcodeFirst == CS_OK ){
    *pcodeFirst = code;
    *pFirst = *pSt;
    memset(pSt, 0, sizeof(*pSt));
  }
  csStatusClear(pSt);
}

/* Entries aE[0..n) (at most HB_PIPELINE), each a mutateRow, sent back to
** back, each row on the lane its key hashes to (so that two writes of one
** row keep their order), then answered in order. */
static void mutateRowsPipelined(CsConn *pConn, const char *zTable,
                                CsEntry *aE, int n, const CsWait *pWait,
                                CsStatus *pFirst, int *pcodeFirst){
  HbCall *apSent[HB_PIPELINE];
  unsigned char abNoRange[HB_PIPELINE];
  int k;
  wcAssert( n > 0 && n <= HB_PIPELINE );
  for(k = 0; k < n; k++){
    WcBuf req = {0, 0, 0, 0};
    apSent[k] = 0;
    abNoRange[k] = (unsigned char)writeMutateRow(&req, zTable, aE[k].key,
                                                 aE[k].aMut, aE[k].nMut);
    if( !abNoRange[k] ){
      CsConn *pLane = hbLane(pConn, (int)(wcBytesHash(aE[k].key.a,
                                   (int64_t)aE[k].key.n) % HB_LANES));
      apSent[k] = pLane ? hbSend(pLane, "mutateRow", zTable, &req, pWait)
                        : 0;
    }
    wcBufFree(&req);
  }
  for(k = 0; k < n; k++){
    CsStatus st = {0, 0};
    int code;
    if( apSent[k] ){
      const HbVal *pRes = 0;
      code = hbResult(apSent[k], &pRes, &st);
      hbCallFree(apSent[k]);
    }else if( abNoRange[k] ){
      code = CS_REFUSED;
      csStatusSet(&st, code, "%s", hbNoRangeDelete);
    }else{
      code = CS_INTERNAL;
      csStatusSet(&st, code, "out of memory");
    }
    outcome(&aE[k], code, &st, pFirst, pcodeFirst);
  }
}

/* Entries aE[0..n), each only setting cells, in one putMultiple: each
** row's outcome is the call's. */
static void putRun(CsConn *pConn, const char *zTable, CsEntry *aE, int n,
                   const CsWait *pWait, CsStatus *pFirst, int *pcodeFirst){
  WcBuf req = {0, 0, 0, 0};
  CsStatus st = {0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int k, code;
  hbWriteCall(&req, "putMultiple", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, n);
  for(k = 0; k < n; k++) writePut(&req, aE[k].key, aE[k].aMut, 0, aE[k].nMut);
  hbWriteStop(&req);
  pDone = hbSend(pConn, "putMultiple", zTable, &req, pWait);
  if( pDone ){
    hbFailIfDisabled(pDone, zTable);
    code = hbResult(pDone, &pRes, &st);
  }else{
    code = CS_INTERNAL;
    csStatusSet(&st, code, "out of memory");
  }
  for(k = 0; k < n; k++) aE[k].code = code;
  outcome(&aE[0], code, &st, pFirst, pcodeFirst);
  hbCallFree(pDone);
  wcBufFree(&req);
}

int hbMutateRows(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                 int nEntry, const CsWait *pWait, CsStatus *pSt){
  int i = 0, codeFirst = CS_OK;
  while( i < nEntry ){
    int bSets = hbAllSets(aEntry[i].aMut, aEntry[i].nMut);
    int j = i + 1;
    while( j < nEntry && (bSets || j - i < HB_PIPELINE)
        && hbAllSets(aEntry[j].aMut, aEntry[j].nMut) == bSets ){
      j++;
    }
    if( bSets ){
      putRun(pConn, zTable, &aEntry[i], j - i, pWait, pSt, &codeFirst);
    }else{
      mutateRowsPipelined(pConn, zTable, &aEntry[i], j - i, pWait, pSt,
                          &codeFirst);
    }
    i = j;
  }
  return codeFirst;
}

/*
** Conditional writes.
*/

struct CsPending {
  HbCall *pCall;        /* The call sent, or 0: the answer is known */
  int code;             /* Without a call: its code, */
  int bApplied;         /* and whether the write was applied */
  CsStatus st;          /* and why it failed */
};

/* A conditional write answered without a call (or to be answered by the
** call set on it: withCall()). */
static CsPending *answered(int code, int bApplied, CsStatus *pSt){
  CsPending *p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ){
    csStatusClear(pSt);
    return 0;
  }
  memset(p, 0, sizeof(*p));
  p->code = code;
  p->bApplied = bApplied;
  if( pSt ){
    p->st = *pSt;
    memset(pSt, 0, sizeof(*pSt));
  }
  return p;
}

/* p, answered by call pCall (NULL: out of memory). */
static CsPending *withCall(CsPending *p, HbCall *pCall){
  if( p == 0 ){
    hbCallFree(pCall);
  }else if( pCall == 0 ){
    p->code = CS_INTERNAL;
    csStatusSet(&p->st, CS_INTERNAL, "out of memory");
  }else{
    p->pCall = pCall;
  }
  return p;
}

/* The newest value of cell (zFamily, qual) of row key: 1 and *pValue (in
** *ppCall's reply) if there is one, 0 if none, or < 0 on a failure
** (*pSt). */
static int readCell(CsConn *pConn, const char *zTable, CsBytes key,
                    const char *zFamily, CsBytes qual, const CsWait *pWait,
                    HbCall **ppCall, CsBytes *pValue, CsStatus *pSt){
  WcBuf req = {0, 0, 0, 0};
  const HbVal *pRes = 0, *pCols;
  int code;
  hbWriteCall(&req, "get", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  hbWriteBinaryField(&req, 1, key.a, (int64_t)key.n);
  hbWriteField(&req, HB_LIST, 2);
  hbWriteListBegin(&req, HB_STRUCT, 1);
  hbWriteBinaryField(&req, 1, zFamily, (int64_t)strlen(zFamily));
  hbWriteQual(&req, 2, zFamily, qual);
  hbWriteStop(&req);
  hbWriteI32Field(&req, 5, 1);
  hbWriteStop(&req);
  hbWriteStop(&req);
  code = hbInvoke(pConn, "get", zTable, &req, pWait, ppCall, &pRes, pSt);
  wcBufFree(&req);
  if( code != CS_OK ) return -1;
  pCols = hbField(pRes, 2);
  if( pCols == 0 || pCols->n == 0 ) return 0;
  {
    const HbVal *pV = hbField(&pCols->aChild[0], 3);
    pValue->a = pV ? pV->a : (const unsigned char*)"";
    pValue->n = pV ? (size_t)pV->n : 0;
  }
  return 1;
}

/* 1 if row key of zTable has a cell, 0 if none, -1 on a failure. */
static int rowExists(CsConn *pConn, const char *zTable, CsBytes key,
                     const CsWait *pWait, CsStatus *pSt){
  WcBuf req = {0, 0, 0, 0};
  HbCall *pDone = 0;
  const HbVal *pRes = 0;
  int code, bExists;
  hbWriteCall(&req, "exists", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteField(&req, HB_STRUCT, 2);
  hbWriteBinaryField(&req, 1, key.a, (int64_t)key.n);
  hbWriteStop(&req);
  hbWriteStop(&req);
  code = hbInvoke(pConn, "exists", zTable, &req, pWait, &pDone, &pRes, pSt);
  wcBufFree(&req);
  bExists = code == CS_OK && pRes && pRes->i;
  hbCallFree(pDone);
  if( code != CS_OK ) return -1;
  return bExists;
}


/* A conditional write on cell (zFamily, qual) being absent: its puts
** (checkAndPut), or with none, a delete of that cell (checkAndDelete).
** The gateway's checkAndMutate cannot check that a cell is absent (it
** fails on a missing value).  A row without the cell is one the cell
** store never wrote, so its deletes change nothing and are left out. */
static HbCall *whereAbsent(CsConn *pConn, const char *zTable, CsBytes key,
                           const char *zFamily, CsBytes qual,
                           const CsMutation *aM, int n, const CsWait *pWait){
  const char *zCall = hbFirstSet(aM, n) ? "checkAndPut" : "checkAndDelete";
  WcBuf req = {0, 0, 0, 0};
  HbCall *p;
  int i, nCell = 0;
  hbWriteCall(&req, zCall, 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteBinaryField(&req, 2, key.a, (int64_t)key.n);
  hbWriteBinaryField(&req, 3, zFamily, (int64_t)strlen(zFamily));
  hbWriteQual(&req, 4, zFamily, qual);
  hbWriteField(&req, HB_STRUCT, 6);
  hbWriteBinaryField(&req, 1, key.a, (int64_t)key.n);
  hbWriteField(&req, HB_LIST, 2);
  if( hbFirstSet(aM, n) ){
    for(i = 0; i < n; i++) nCell += aM[i].eOp == CS_SET_CELL;
    hbWriteListBegin(&req, HB_STRUCT, nCell);
    for(i = 0; i < n; i++){
      if( aM[i].eOp == CS_SET_CELL ) writeCell(&req, &aM[i]);
    }
  }else{
    hbWriteListBegin(&req, HB_STRUCT, 1);
    hbWriteBinaryField(&req, 1, zFamily, (int64_t)strlen(zFamily));
    hbWriteQual(&req, 2, zFamily, qual);
    hbWriteStop(&req);
    hbWriteI32Field(&req, 4, HB_DELETE_COLUMNS);
  }
  hbWriteStop(&req);
  hbWriteStop(&req);
  p = hbSend(pConn, zCall, zTable, &req, pWait);
  wcBufFree(&req);
  return p;
}

CsPending *hbCheckStart(CsConn *pConn, const char *zTable, CsBytes key,
                        const CsCheck *pCheck, const CsMutation *aMut,
                        int nMut, const CsWait *pWait){
  CsStatus st = {0, 0};
  WcBuf req = {0, 0, 0, 0};
  CsBytes value = pCheck->value;
  HbCall *pRead = 0;
  CsPending *p;
  wcAssert( nMut > 0 );
  if( pCheck->eCond == CS_ALWAYS ){
    /* The same mutations whatever the row holds: a plain mutateRow. */
    if( writeMutateRow(&req, zTable, key, aMut, nMut) ){
      wcBufFree(&req);
      csStatusSet(&st, CS_REFUSED, "%s", hbNoRangeDelete);
      return answered(CS_REFUSED, 0, &st);
    }
    p = withCall(answered(CS_OK, 1, 0),
                 hbSend(pConn, "mutateRow", zTable, &req, pWait));
    wcBufFree(&req);
    return p;
  }
  if( pCheck->eCond == CS_ROW_ABSENT || pCheck->eCond == CS_CELL_ABSENT ){
    const char *zFamily = pCheck->zFamily;
    CsBytes qual = pCheck->qual;
    if( zFamily == 0 ){
      /* "The row has no cell", where no cell is in every row (a table
      ** another application made, EXISTING): the row is looked for whole,
      ** then written on the check that the first cell it sets is still
      ** absent, which is all one HBase call can check (docs/hbase.md:
      ** another writer adding the row with other cells in between is not
      ** seen). */
      const CsMutation *pFirst = hbFirstSet(aMut, nMut);
      int r = rowExists(pConn, zTable, key, pWait, &st);
      if( r != 0 || pFirst == 0 ){
        return answered(r < 0 ? st.code : CS_OK, 0, &st);
      }
      zFamily = pFirst->zFamily;
      qual = pFirst->qual;
    }
    return withCall(answered(CS_OK, 0, 0),
                    whereAbsent(pConn, zTable, key, zFamily, qual, aMut, nMut,
                                pWait));
  }
  if( pCheck->eCond == CS_CELL_PREFIX ){
    int r = readCell(pConn, zTable, key, pCheck->zFamily, pCheck->qual,
                     pWait, &pRead, &value, &st);
    if( r <= 0 || value.n < pCheck->value.n
     || memcmp(value.a, pCheck->value.a, pCheck->value.n) != 0 ){
      /* Failed, or the cell is not as expected: nothing to write. */
      hbCallFree(pRead);
      return answered(r < 0 ? st.code : CS_OK, 0, &st);
    }
  }
  wcAssert( pCheck->eCond == CS_CELL_EQUAL
            || pCheck->eCond == CS_CELL_PREFIX );
  hbWriteCall(&req, "checkAndMutate", 0);
  hbWriteBinaryField(&req, 1, zTable, (int64_t)strlen(zTable));
  hbWriteBinaryField(&req, 2, key.a, (int64_t)key.n);
  hbWriteBinaryField(&req, 3, pCheck->zFamily,
                     (int64_t)strlen(pCheck->zFamily));
  hbWriteQual(&req, 4, pCheck->zFamily, pCheck->qual);
  hbWriteI32Field(&req, 5, HB_OP_EQUAL);
  hbWriteBinaryField(&req, 6, value.a, (int64_t)value.n);
  if( writeRowMutations(&req, 7, key, aMut, nMut) ){
    wcBufFree(&req);
    hbCallFree(pRead);
    csStatusSet(&st, CS_REFUSED, "%s", hbNoRangeDelete);
    return answered(CS_REFUSED, 0, &st);
  }
  hbWriteStop(&req);
  p = withCall(answered(CS_OK, 0, 0),
               hbSend(pConn, "checkAndMutate", zTable, &req, pWait));
  wcBufFree(&req);
  hbCallFree(pRead);
  return p;
}

int hbCheckFinish(CsPending *p, int *pbApplied, CsStatus *pSt){
  int code = p->code;
  *pbApplied = p->bApplied;
  if( p->pCall ){
    const HbVal *pRes = 0;
    code = hbResult(p->pCall, &pRes, pSt);
    /* mutateRow answers nothing: applied; the checks answer whether. */
    if( code == CS_OK && pRes ) *pbApplied = pRes->i != 0;
    if( code != CS_OK ) *pbApplied = 0;
    hbCallFree(p->pCall);
  }else if( code != CS_OK ){
    *pSt = p->st;
    memset(&p->st, 0, sizeof(p->st));
  }
  csStatusClear(&p->st);
  sqlite3_free(p);
  return code;
}
