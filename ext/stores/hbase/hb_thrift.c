/*
** hb_thrift.c: Thrift's binary protocol over one TCP connection (see
** hb_thrift.h).  Written for widecol from Thrift's protocol description:
** strict messages (version 1), fields as a type byte and a 16-bit id, all
** integers big-endian, strings and binaries as a 32-bit length and bytes.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_thrift.h"

#include <string.h>

#define HB_VERSION_1 0x80010000u
/* Bounds on what a reply may hold, so that a broken peer cannot make the
** reader allocate without end or recurse past its stack. */
#define HB_MAX_DEPTH   64
#define HB_MAX_STRING  (512 << 20)
#define HB_MAX_MEMBERS (64 << 20)

const HbVal *hbField(const HbVal *pStruct, int id){
  int64_t i;
  if( pStruct == 0 || pStruct->eType != HB_STRUCT ) return 0;
  for(i = 0; i < pStruct->n; i++){
    if( pStruct->aChild[i].id == id ) return &pStruct->aChild[i];
  }
  return 0;
}

int64_t hbFieldInt(const HbVal *pStruct, int id, int64_t iDefault){
  const HbVal *pV = hbField(pStruct, id);
  return pV ? pV->i : iDefault;
}

/* ---- Writing ---- */

void hbWriteByte(WcBuf *p, int v){ wcBufAppendBe(p, (uint64_t)(v & 0xFF), 1); }
void hbWriteI16(WcBuf *p, int v){ wcBufAppendBe(p, (uint64_t)(v & 0xFFFF), 2); }
void hbWriteI32(WcBuf *p, int32_t v){ wcBufAppendBe(p, (uint32_t)v, 4); }
void hbWriteI64(WcBuf *p, int64_t v){ wcBufAppendBe(p, (uint64_t)v, 8); }

void hbWriteBinary(WcBuf *p, const void *a, int64_t n){
  /* A Thrift binary's length is an i32. */
  wcAssert( n >= 0 && n <= 0x7fffffff && (a != 0 || n == 0) );
  hbWriteI32(p, (int32_t)n);
  wcBufAppend(p, a, n);
}

void hbWriteCall(WcBuf *p, const char *zMethod, int32_t iSeq){
  hbWriteI32(p, (int32_t)(HB_VERSION_1 | HB_MSG_CALL));
  hbWriteBinary(p, zMethod, (int64_t)strlen(zMethod));
  hbWriteI32(p, iSeq);
}

void hbWriteField(WcBuf *p, int eType, int id){
  wcAssert( eType > HB_STOP && eType <= HB_LIST && id > 0 && id <= 0x7fff );
  hbWriteByte(p, eType);
  hbWriteI16(p, id);
}

void hbWriteStop(WcBuf *p){ hbWriteByte(p, HB_STOP); }

void hbWriteListBegin(WcBuf *p, int eElem, int32_t n){
  wcAssert( n >= 0 );
  hbWriteByte(p, eElem);
  hbWriteI32(p, n);
}

void hbWriteMapBegin(WcBuf *p, int eKey, int eValue, int32_t n){
  wcAssert( n >= 0 );
  hbWriteByte(p, eKey);
  hbWriteByte(p, eValue);
  hbWriteI32(p, n);
}

void hbWriteBinaryField(WcBuf *p, int id, const void *a, int64_t n){
  hbWriteField(p, HB_STRING, id);
  hbWriteBinary(p, a, n);
}

void hbWriteI32Field(WcBuf *p, int id, int32_t v){
  hbWriteField(p, HB_I32, id);
  hbWriteI32(p, v);
}

void hbWriteI64Field(WcBuf *p, int id, int64_t v){
  hbWriteField(p, HB_I64, id);
  hbWriteI64(p, v);
}

void hbWriteBoolField(WcBuf *p, int id, int v){
  hbWriteField(p, HB_BOOL, id);
  hbWriteByte(p, v ? 1 : 0);
}

static int readBE(WcSock *pSock, int nByte, const WcDeadline *pWait,
                  uint64_t *pV){
  const unsigned char *a;
  int rc = wcSockPeek(pSock, nByte, pWait, &a), i;
  uint64_t v = 0;
  wcAssert( nByte >= 1 && nByte <= 8 );
  if( rc ) return rc;
  for(i = 0; i < nByte; i++) v = (v << 8) | a[i];
  wcSockSkip(pSock, nByte);
  *pV = v;
  return 0;
}

typedef struct Reader Reader;
struct Reader {
  WcSock *pSock;
  WcArena *pArena;
  const WcDeadline *pWait;
};

static int readValue(Reader *r, int eType, HbVal *pOut, int iDepth);

/* Reads n members of types aeType[] (a map's key and value alternate). */
static int readMembers(Reader *r, const int *aeType, int nType, int64_t n,
                       HbVal *pOut, int iDepth){
  int64_t i;
  int rc;
  wcAssert( nType == 1 || nType == 2 );
  if( n < 0 || n > HB_MAX_MEMBERS ) return HB_ERR_PROTOCOL;
  pOut->n = n * nType;
  pOut->aChild = n ? wcArenaAlloc(r->pArena, sizeof(HbVal) * (size_t)pOut->n)
                   : 0;
  if( n && pOut->aChild == 0 ) return HB_ERR_NOMEM;
  for(i = 0; i < pOut->n; i++){
    memset(&pOut->aChild[i], 0, sizeof(HbVal));
    rc = readValue(r, aeType[i % nType], &pOut->aChild[i], iDepth + 1);
    if( rc ) return rc;
  }
  return 0;
}

/* A struct's fields, up to its stop; as many as it has. */
static int readStruct(Reader *r, HbVal *pOut, int iDepth){
  HbVal aField[32], *aMore = 0;
  int64_t n = 0, nAlloc = 32;
  int rc;
  for(;;){
    uint64_t eType, id;
    HbVal *pF;
    if( (rc = readBE(r->pSock, 1, r->pWait, &eType)) != 0 ) return rc;
    if( eType == HB_STOP ) break;
    if( (rc = readBE(r->pSock, 2, r->pWait, &id)) != 0 ) return rc;
    /* The fields so far: in aField until it is full, then in aMore. */
    wcAssert( n <= nAlloc );
    wcAssert( aMore != 0 || nAlloc == 32 );
    if( n == nAlloc ){
      HbVal *aNew = wcArenaAlloc(r->pArena,
                                 sizeof(HbVal) * (size_t)nAlloc * 2);
      if( aNew == 0 ) return HB_ERR_NOMEM;
      memcpy(aNew, aMore ? aMore : aField, sizeof(HbVal) * (size_t)n);
      aMore = aNew;
      nAlloc *= 2;
    }
    pF = aMore ? &aMore[n] : &aField[n];
    memset(pF, 0, sizeof(*pF));
    pF->id = (int16_t)id;
    if( (rc = readValue(r, (int)eType, pF, iDepth + 1)) != 0 ) return rc;
    n++;
  }
  pOut->n = n;
  if( aMore ){
    pOut->aChild = aMore;
  }else if( n ){
    pOut->aChild = wcArenaAlloc(r->pArena, sizeof(HbVal) * (size_t)n);
    if( pOut->aChild == 0 ) return HB_ERR_NOMEM;
    memcpy(pOut->aChild, aField, sizeof(HbVal) * (size_t)n);
  }
  return 0;
}

static int readValue(Reader *r, int eType, HbVal *pOut, int iDepth){
  uint64_t v, e1, e2;
  int rc, aeType[2];
  if( iDepth > HB_MAX_DEPTH ) return HB_ERR_PROTOCOL;
  pOut->eType = eType;
  switch( eType ){
    case HB_BOOL: case HB_BYTE:
      if( (rc = readBE(r->pSock, 1, r->pWait, &v)) != 0 ) return rc;
      pOut->i = (int8_t)v;
      return 0;
    case HB_I16:
      if( (rc = readBE(r->pSock, 2, r->pWait, &v)) != 0 ) return rc;
      pOut->i = (int16_t)v;
      return 0;
    case HB_I32:
      if( (rc = readBE(r->pSock, 4, r->pWait, &v)) != 0 ) return rc;
      pOut->i = (int32_t)v;
      return 0;
    case HB_I64: case HB_DOUBLE:
      if( (rc = readBE(r->pSock, 8, r->pWait, &v)) != 0 ) return rc;
      pOut->i = (int64_t)v;
      return 0;
    case HB_STRING: {
      unsigned char *a;
      const unsigned char *aIn;
      if( (rc = readBE(r->pSock, 4, r->pWait, &v)) != 0 ) return rc;
      if( (int32_t)v < 0 || v > HB_MAX_STRING ) return HB_ERR_PROTOCOL;
      rc = wcSockPeek(r->pSock, (int64_t)v, r->pWait, &aIn);
      if( rc != 0 ) return rc;
      a = wcArenaAlloc(r->pArena, (size_t)v + 1);
      if( a == 0 ) return HB_ERR_NOMEM;
      memcpy(a, aIn, (size_t)v);
      a[v] = 0;
      wcSockSkip(r->pSock, (int64_t)v);
      pOut->a = a;
      pOut->n = (int64_t)v;
      return 0;
    }
    case HB_STRUCT:
      return readStruct(r, pOut, iDepth);
    case HB_LIST: case HB_SET:
      if( (rc = readBE(r->pSock, 1, r->pWait, &e1)) != 0 ) return rc;
      if( (rc = readBE(r->pSock, 4, r->pWait, &v)) != 0 ) return rc;
      aeType[0] = (int)e1;
      return readMembers(r, aeType, 1, (int32_t)v, pOut, iDepth);
    case HB_MAP:
      if( (rc = readBE(r->pSock, 1, r->pWait, &e1)) != 0 ) return rc;
      if( (rc = readBE(r->pSock, 1, r->pWait, &e2)) != 0 ) return rc;
      if( (rc = readBE(r->pSock, 4, r->pWait, &v)) != 0 ) return rc;
      aeType[0] = (int)e1;
      aeType[1] = (int)e2;
      return readMembers(r, aeType, 2, (int32_t)v, pOut, iDepth);
    default:
      return HB_ERR_PROTOCOL;
  }
}

int hbReadReply(WcSock *pSock, WcArena *pArena, const WcDeadline *pWait,
                int *peKind, int32_t *piSeq, HbVal **ppBody){
  Reader r;
  uint64_t v, nName, iSeq;
  HbVal *pBody;
  int rc;
  r.pSock = pSock;
  r.pArena = pArena;
  r.pWait = pWait;
  *ppBody = 0;
  if( (rc = readBE(pSock, 4, pWait, &v)) != 0 ) return rc;
  if( (v & 0xFFFF0000u) != HB_VERSION_1 ) return HB_ERR_PROTOCOL;
  *peKind = (int)(v & 0xFF);
  if( (rc = readBE(pSock, 4, pWait, &nName)) != 0 ) return rc;
  if( nName > 1024 ) return HB_ERR_PROTOCOL;
  {
    const unsigned char *aName;
    rc = wcSockPeek(pSock, (int64_t)nName, pWait, &aName);
    if( rc != 0 ) return rc;
    wcSockSkip(pSock, (int64_t)nName);
  }
  if( (rc = readBE(pSock, 4, pWait, &iSeq)) != 0 ) return rc;
  *piSeq = (int32_t)iSeq;
  pBody = wcArenaAlloc(pArena, sizeof(HbVal));
  if( pBody == 0 ) return HB_ERR_NOMEM;
  memset(pBody, 0, sizeof(*pBody));
  pBody->eType = HB_STRUCT;
  if( (rc = readStruct(&r, pBody, 0)) != 0 ) return rc;
  wcAssert( pBody->n == 0 || pBody->aChild != 0 );
  *ppBody = pBody;
  return 0;
}
