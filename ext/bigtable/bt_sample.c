/*
** bt_sample.c: what Bigtable's SampleRowKeys tells of a table (bt_table.h):
** keys that end sections of about equal size, each with the bytes before
** it.  One call, whatever the table's size, so planning estimates the
** rows from it instead of counting them (a count reads every key), and
** widecol_regions() shows the table's real tablet boundaries.
**
** The answer is loosely defined: Cloud Bigtable gives a key per tablet
** split and ends with the empty key at the table's size; the emulator
** gives about one row in a hundred, chosen at random, and its last row,
** its offsets counting cell values only.  So a row count from it is an
** estimate, good to a small factor, which is all a plan needs.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "bigtable/bt_table.h"

#include <string.h>

#define M_SAMPLEROWKEYS "/google.bigtable.v2.Bigtable/SampleRowKeys"

void btSamplesClear(BtSamples *p){
  wcBufFree(&p->keys);
  wcBufFree(&p->samples);
  memset(p, 0, sizeof(*p));
}

/* One attempt: the stream read whole into pOut.  btStreamNext()'s last
** result: < 0 on a failure, with *pSt. */
static int sampleOnce(BtTable *p, const BtWait *pWait, BtSamples *pOut,
                      BtStatus *pSt){
  Wcbt__SampleRowKeysRequest req = WCBT__SAMPLE_ROW_KEYS_REQUEST__INIT;
  BtStream *pStream = 0;
  ProtobufCMessage *pMsg = 0;
  int r;
  pOut->keys.n = pOut->samples.n = 0;
  pOut->n = 0;
  req.table_name = p->zResource;
  btStreamOpen(p->pConn, M_SAMPLEROWKEYS, p->zResource, &req.base, &pStream,
               pSt, pWait);
  while( (r = btStreamNext(pStream, &wcbt__sample_row_keys_response__descriptor,
                           &pMsg, pSt)) == 1 ){
    Wcbt__SampleRowKeysResponse *pResp = (Wcbt__SampleRowKeysResponse*)pMsg;
    BtSample one;
    one.iKey = pOut->keys.n;
    one.nKey = (int64_t)pResp->row_key.len;
    one.nBefore = pResp->offset_bytes;
    wcBufAppend(&pOut->keys, pResp->row_key.data, one.nKey);
    wcBufAppend(&pOut->samples, &one, (int64_t)sizeof(one));
    pOut->n++;
    protobuf_c_message_free_unpacked(pMsg, 0);
  }
  btStreamClose(pStream);
  return r;
}

int btSampleRowKeys(BtTable *p, BtSamples *pOut){
  int64_t iStart = btNowMs();
  BtWait w;
  BtStatus st = {0, 0};
  int r, nAttempt = 0, rc = SQLITE_OK;
  if( btTableConnect(p) ) return SQLITE_ERROR;
  w = btRetryWait(&p->wait, iStart);
  /* It changes nothing: sent again while its answer is lost. */
  while( (r = sampleOnce(p, &w, pOut, &st)) < 0 && btRetryable(st.code)
      && btBackoff(&p->wait, ++nAttempt, iStart) == BT_OK ){
    btStatusClear(&st);
    btConnRetryNow(p->pConn);
  }
  if( r < 0 ) rc = btRpcError(p, "could not sample the row keys of", &st);
  btStatusClear(&st);
  if( rc == SQLITE_OK && (pOut->keys.bOom || pOut->samples.bOom) ){
    rc = SQLITE_NOMEM;
  }
  return rc;
}

const BtSample *btSampleAt(const BtSamples *p, int i){
  return &((const BtSample*)p->samples.a)[i];
}

/* The bytes a row of p takes as Bigtable counts them, about: its cells'
** values (the marker, then a tag and 8 bytes a column, which numbers take
** and short texts come near; an EXISTING table's 8 bytes a cell, untagged,
** no marker). */
static int64_t rowBytes(const BtTable *p){
  int64_t nByte = 0;
  int i;
  if( !p->bExisting ){
    return 1 + BT_STAMPS_SIZE(p->nStamp) + (p->nCol + 7) / 8 + 9 * p->nCol;
  }
  for(i = 0; i < p->nCol; i++){
    if( p->aCol[i].eLayout != BT_LAYOUT_KEY ) nByte += 8;
  }
  return nByte > 0 ? nByte : 1;
}

/* A sample in wc_remote.h's format: the key's length, 4 bytes, the key,
** and the bytes before it, 8 bytes, big-endian. */
static void sampleAppend(WcBuf *pOut, const unsigned char *aKey, int64_t nKey,
                         int64_t nBefore){
  unsigned char aNum[8];
  int k;
  for(k = 0; k < 4; k++) aNum[k] = (unsigned char)(nKey >> (24 - 8 * k));
  wcBufAppend(pOut, aNum, 4);
  wcBufAppend(pOut, aKey, nKey);
  for(k = 0; k < 8; k++){
    aNum[k] = (unsigned char)((uint64_t)nBefore >> (56 - 8 * k));
  }
  wcBufAppend(pOut, aNum, 8);
}

/* The samples in wc_remote.h's format (WcRpcStats.aSample), in a new
** buffer, ending with the empty key at nByte, the table's size, where
** Bigtable's did not; SQLITE_OK or SQLITE_NOMEM. */
static int samplesExport(const BtSamples *pS, int64_t nByte,
                         unsigned char **paOut, int64_t *pnOut){
  WcBuf out;
  int i;
  memset(&out, 0, sizeof(out));
  for(i = 0; i < pS->n; i++){
    const BtSample *pOne = btSampleAt(pS, i);
    sampleAppend(&out, pS->keys.a + pOne->iKey, pOne->nKey, pOne->nBefore);
  }
  if( pS->n == 0 || btSampleAt(pS, pS->n - 1)->nKey > 0 ){
    sampleAppend(&out, (const unsigned char*)"", 0, nByte);
  }
  if( out.bOom ) return SQLITE_NOMEM;
  *paOut = out.a;
  *pnOut = out.n;
  return SQLITE_OK;
}

int btRowEstimate(BtTable *p, int64_t *pnRow, unsigned char **paSample,
                  int64_t *pnSample){
  BtSamples s;
  int rc;
  memset(&s, 0, sizeof(s));
  int64_t nByte = 0;
  rc = btSampleRowKeys(p, &s);
  *pnRow = 0;
  if( rc == SQLITE_OK && s.n > 0 ){
    /* The last sample's offset is the bytes before it: the table's size
    ** where it is the empty key (the end), else one row less.  Every
    ** sample but the end names a row. */
    const BtSample *pLast = btSampleAt(&s, s.n - 1);
    int64_t nNamed = s.n - (pLast->nKey == 0);
    nByte = pLast->nBefore + (pLast->nKey > 0 ? rowBytes(p) : 0);
    *pnRow = nByte / rowBytes(p);
    if( *pnRow < nNamed ) *pnRow = nNamed;
  }
  if( rc == SQLITE_OK && paSample ){
    rc = samplesExport(&s, nByte, paSample, pnSample);
  }
  btSamplesClear(&s);
  return rc;
}
