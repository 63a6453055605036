/*
** cs_sample.c: what an engine tells of a table's sections (cs_table.h):
** keys that end sections of about equal size, each with the bytes before
** it.  One call, whatever the table's size, so planning estimates the
** rows from it instead of counting them (a count reads every key), and
** widecol_regions() shows the table's real boundaries.
**
** The answer is loosely defined.  Cloud Bigtable's SampleRowKeys gives a
** key per tablet split and ends with the empty key at the table's size;
** its emulator gives about one row in a hundred, chosen at random, and
** its last row, its offsets counting cell values only; HBase's transport
** gives each region's end and its bytes counted.  So a row count from it
** is an estimate, good to a small factor, which is all a plan needs.
**
** Where the transport tells them (xRegionLoads: HBase's own protocol), a
** table's regions come with their servers and the requests those counted
** on them, for widecol_regions('<table>'), in wc_contract.h's format.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

void csSamplesClear(CsSamples *p){
  wcBufFree(&p->keys);
  wcBufFree(&p->samples);
  memset(p, 0, sizeof(*p));
}

/* A sample of the answer, into the CsSamples pCtx. */
static void sampleTake(void *pCtx, CsBytes key, int64_t nBefore){
  CsSamples *pOut = (CsSamples*)pCtx;
  CsSample one;
  one.iKey = pOut->keys.n;
  one.nKey = (int64_t)key.n;
  one.nBefore = nBefore;
  wcBufAppend(&pOut->keys, key.a, one.nKey);
  wcBufAppend(&pOut->samples, &one, (int64_t)sizeof(one));
  pOut->n++;
}

/* One attempt (csRetry()): the answer read whole into the CsSamples. */
static int sampleOnce(CsTable *p, void *pArg, const CsWait *pWait,
                      CsStatus *pSt){
  CsSamples *pOut = (CsSamples*)pArg;
  pOut->keys.n = pOut->samples.n = 0;
  pOut->n = 0;
  return p->pT->xSampleKeys(p->pConn, p->args.zResource, pWait, sampleTake,
                            pOut, pSt);
}

int csSampleRowKeys(CsTable *p, CsSamples *pOut){
  CsStatus st = {0, 0};
  int rc = SQLITE_OK;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  /* It changes nothing: sent again while its answer is lost. */
  if( csRetry(p, &p->wait, sampleOnce, pOut, &st) != CS_OK ){
    rc = csRpcError(p, "could not sample the row keys of", &st);
  }
  csStatusClear(&st);
  if( rc == SQLITE_OK && (pOut->keys.bOom || pOut->samples.bOom) ){
    rc = SQLITE_NOMEM;
  }
  return rc;
}

const CsSample *csSampleAt(const CsSamples *p, int i){
  wcAssert( i >= 0 && i < p->n
            && p->samples.n == (int64_t)sizeof(CsSample) * p->n );
  return &((const CsSample*)p->samples.a)[i];
}

/* The bytes a row of p takes as the engine counts them, about: its cells'
** values (the marker, then a tag and 8 bytes a column, which numbers take
** and short texts come near; an EXISTING table's 8 bytes a cell, untagged,
** no marker). */
static int64_t rowBytes(const CsTable *p){
  int64_t nByte = 0;
  int i;
  if( !p->args.bExisting ){
    return 1 + CS_STAMPS_SIZE(p->args.nStamp) + (p->nCol + 7) / 8
             + 9 * p->nCol;
  }
  for(i = 0; i < p->nCol; i++){
    if( p->aCol[i].eLayout != CS_LAYOUT_KEY ) nByte += 8;
  }
  return nByte > 0 ? nByte : 1;
}

/* A region's load, into the WcBuf pCtx in wc_contract.h's format. */
static void loadTake(void *pCtx, const CsRegionLoad *pLoad){
  WcBuf *pOut = (WcBuf*)pCtx;
  size_t nServer = pLoad->zServer ? strlen(pLoad->zServer) : 0;
  wcBufAppendBe(pOut, pLoad->end.n, 4);
  wcBufAppend(pOut, pLoad->end.a, (int64_t)pLoad->end.n);
  wcBufAppendBe(pOut, nServer, 4);
  wcBufAppend(pOut, pLoad->zServer, (int64_t)nServer);
  wcBufAppendBe(pOut, (uint64_t)pLoad->nRead, 8);
  wcBufAppendBe(pOut, (uint64_t)pLoad->nWrite, 8);
}

/* One attempt (csRetry()): the loads read whole into the WcBuf pArg. */
static int loadOnce(CsTable *p, void *pArg, const CsWait *pWait,
                    CsStatus *pSt){
  WcBuf *pOut = (WcBuf*)pArg;
  pOut->n = 0;
  return p->pT->xRegionLoads(p->pConn, p->args.zResource, pWait, loadTake,
                             pOut, pSt);
}

int csRegionLoads(CsTable *p, unsigned char **paLoad, int64_t *pnLoad){
  CsStatus st = {0, 0};
  WcBuf out;
  int rc = SQLITE_OK;
  *paLoad = 0;
  *pnLoad = 0;
  if( p->pT->xRegionLoads == 0 ) return SQLITE_OK;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  memset(&out, 0, sizeof(out));
  /* It changes nothing: sent again while its answer is lost. */
  if( csRetry(p, &p->wait, loadOnce, &out, &st) != CS_OK ){
    rc = csRpcError(p, "could not read the regions' load of", &st);
  }else if( out.bOom ){
    rc = SQLITE_NOMEM;
  }
  csStatusClear(&st);
  if( rc == SQLITE_OK ){
    *paLoad = out.a;
    *pnLoad = out.n;
  }else{
    wcBufFree(&out);
  }
  return rc;
}

/* A sample in wc_contract.h's format: the key's length, 4 bytes, the key,
** and the bytes before it, 8 bytes, big-endian. */
static void sampleAppend(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                         int64_t nBefore){
  unsigned char aNum[8];
  int k;
  wcAssert( nKey >= 0 && nKey <= 0x7fffffff && nBefore >= 0 );
  for(k = 0; k < 4; k++) aNum[k] = (unsigned char)(nKey >> (24 - 8 * k));
  wcBufAppend(pOut, aNum, 4);
  wcBufAppend(pOut, aKey, nKey);
  for(k = 0; k < 8; k++){
    aNum[k] = (unsigned char)((uint64_t)nBefore >> (56 - 8 * k));
  }
  wcBufAppend(pOut, aNum, 8);
}

/* The samples in wc_contract.h's format (WcRpcStats.aSample), in a new
** buffer, ending with the empty key at nByte, the table's size, where
** the engine's did not; SQLITE_OK or SQLITE_NOMEM. */
static int samplesExport(const CsSamples *pS, int64_t nByte,
                         unsigned char **paOut, int64_t *pnOut){
  WcBuf out;
  int i;
  memset(&out, 0, sizeof(out));
  for(i = 0; i < pS->n; i++){
    const CsSample *pOne = csSampleAt(pS, i);
    sampleAppend(&out, pS->keys.a + pOne->iKey, pOne->nKey, pOne->nBefore);
  }
  if( pS->n == 0 || csSampleAt(pS, pS->n - 1)->nKey > 0 ){
    sampleAppend(&out, (const unsigned char*)"", 0, nByte);
  }
  if( out.bOom ) return SQLITE_NOMEM;
  /* At least the end: 4 bytes of length 0, 8 of offset. */
  wcAssert( out.n >= 12 );
  *paOut = out.a;
  *pnOut = out.n;
  return SQLITE_OK;
}

int csRowEstimate(CsTable *p, int64_t *pnRow, unsigned char **paSample,
                  int64_t *pnSample){
  CsSamples s;
  int64_t nByte = 0;
  int rc;
  memset(&s, 0, sizeof(s));
  rc = csSampleRowKeys(p, &s);
  *pnRow = 0;
  if( rc == SQLITE_OK && s.n > 0 ){
    /* The last sample's offset is the bytes before it: the table's size
    ** where it is the empty key (the end), else one row less.  Every
    ** sample but the end names a row. */
    const CsSample *pLast = csSampleAt(&s, s.n - 1);
    int64_t nNamed = s.n - (pLast->nKey == 0);
    nByte = pLast->nBefore + (pLast->nKey > 0 ? rowBytes(p) : 0);
    *pnRow = nByte / rowBytes(p);
    if( *pnRow < nNamed ) *pnRow = nNamed;
  }
  if( rc == SQLITE_OK && paSample ){
    rc = samplesExport(&s, nByte, paSample, pnSample);
  }
  csSamplesClear(&s);
  return rc;
}
