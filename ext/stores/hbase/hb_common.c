/*
** hb_common.c: what HBase's two transports share (hb_common.h): the
** marker's qualifier, the times of deletes, families' rules.
*/
#include "util/wc_api.h"
#include "stores/hbase/hb_common.h"
#include "util/wc_buf.h"

#include <string.h>

const char hbNoRangeDelete[] = "HBase deletes the versions of a column "
    "before a time, or at one; not between two";

static const unsigned char aMarkerQual[1] = { 0x00 };

static int isMarkerFamily(const char *zFamily, size_t nFamily){
  return nFamily == 1 && zFamily[0] == WC_DEFAULT_FAMILY[0];
}

CsBytes hbQualOut(const char *zFamily, CsBytes qual){
  if( qual.n == 0 && isMarkerFamily(zFamily, strlen(zFamily)) ){
    qual.a = aMarkerQual;
    qual.n = 1;
  }
  return qual;
}

int hbQualIsMarker(const char *zFamily, size_t nFamily, const unsigned char *q,
                   size_t nQ){
  return nQ == 1 && q[0] == aMarkerQual[0]
      && isMarkerFamily(zFamily, nFamily);
}

int64_t hbDeleteTime(const CsMutation *aM, int n){
  int64_t iMin = HB_LATEST;
  int i;
  for(i = 0; i < n; i++){
    if( aM[i].eOp == CS_SET_CELL && aM[i].iMicros >= 0
     && hbMillis(aM[i].iMicros) - 1 < iMin ){
      iMin = hbMillis(aM[i].iMicros) - 1;
    }
  }
  return iMin;
}

int hbCellsDelete(const CsMutation *pM, int64_t iAll, int64_t *piTs,
                  int *pbOne){
  int64_t iStep = wcKind(WC_STORE_HBASE)->iTimeStep;
  wcAssert( pM->eOp == CS_DELETE_CELLS );
  *piTs = iAll;
  *pbOne = 0;
  if( pM->iTo > 0 ){
    if( pM->iFrom == 0 ){
      *piTs = hbMillis(pM->iTo) - 1;        /* every version before */
    }else if( pM->iTo - pM->iFrom == iStep ){
      *piTs = hbMillis(pM->iFrom);          /* the version at */
      *pbOne = 1;
    }else{
      return 1;
    }
  }
  return 0;
}

int hbAllSets(const CsMutation *aM, int n){
  int i;
  for(i = 0; i < n; i++){
    if( aM[i].eOp != CS_SET_CELL ) return 0;
  }
  return n > 0;
}

const CsMutation *hbFirstSet(const CsMutation *aM, int n){
  int i;
  for(i = 0; i < n; i++){
    if( aM[i].eOp == CS_SET_CELL ) return &aM[i];
  }
  return 0;
}

char *hbFamilyRule(int64_t nVersions, int64_t nTtl, const CsTableSpec *pKeep,
                   int *pbKeeps){
  int bForever = nTtl <= 0 || nTtl >= HB_FOREVER;
  *pbKeeps = pKeep == 0
          || ((nVersions <= 0 || nVersions >= pKeep->nVersions)
              && (bForever || (pKeep->nTtl > 0 && nTtl >= pKeep->nTtl)));
  return bForever
      ? sqlite3_mprintf("VERSIONS => %lld", (long long)nVersions)
      : sqlite3_mprintf("VERSIONS => %lld, TTL => %lld", (long long)nVersions,
                        (long long)nTtl);
}

int hbTableInfo(int nFamily, const char *const *azName, const size_t *anName,
                const int64_t *anVersions, const int64_t *anTtl,
                const CsTableSpec *pKeep, CsTableInfo **ppInfo){
  size_t nByte = sizeof(CsTableInfo) + sizeof(CsFamily) * (size_t)(nFamily + 1);
  char **azRule = sqlite3_malloc64(sizeof(char*) * (size_t)(nFamily + 1));
  int *abKeeps = sqlite3_malloc64(sizeof(int) * (size_t)(nFamily + 1));
  CsTableInfo *pInfo = 0;
  int i, bOom = azRule == 0 || abKeeps == 0;
  char *z;
  if( azRule ) memset(azRule, 0, sizeof(char*) * (size_t)(nFamily + 1));
  for(i = 0; !bOom && i < nFamily; i++){
    azRule[i] = hbFamilyRule(anVersions[i], anTtl[i], pKeep, &abKeeps[i]);
    if( azRule[i] == 0 ) bOom = 1;
    nByte += anName[i] + 1 + (azRule[i] ? strlen(azRule[i]) : 0) + 1;
  }
  if( !bOom ) pInfo = sqlite3_malloc64(nByte);
  if( pInfo ){
    pInfo->nFamily = nFamily;
    pInfo->aFamily = (CsFamily*)&pInfo[1];
    z = (char*)&pInfo->aFamily[nFamily + 1];
    for(i = 0; i < nFamily; i++){
      CsFamily *pF = &pInfo->aFamily[i];
      if( anName[i] ) memcpy(z, azName[i], anName[i]);
      z[anName[i]] = 0;
      pF->zName = z;
      z += anName[i] + 1;
      memcpy(z, azRule[i], strlen(azRule[i]) + 1);
      pF->zRule = z;
      z += strlen(azRule[i]) + 1;
      pF->bKeeps = abKeeps[i];
    }
    wcAssert( z <= (char*)pInfo + nByte );
  }
  for(i = 0; azRule && i < nFamily; i++) sqlite3_free(azRule[i]);
  sqlite3_free(azRule);
  sqlite3_free(abKeeps);
  *ppInfo = pInfo;
  return pInfo ? CS_OK : CS_INTERNAL;
}

char *hbRuleFix(const char *zId, const char *zFamily, int nVersions,
                int64_t nTtl){
  return nTtl > 0
      ? sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, TTL => "
                        "%lld, in the hbase shell", zId, zFamily, nVersions,
                        (long long)nTtl)
      : sqlite3_mprintf("alter '%s', NAME => '%s', VERSIONS => %d, in the "
                        "hbase shell", zId, zFamily, nVersions);
}

static int cmpBytes(CsBytes a, CsBytes b){
  return wcBytesCompare(a.a, (int64_t)a.n, b.a, (int64_t)b.n);
}

HbRange *hbReadRanges(const CsRead *pRead, int *pnRange){
  int i, n = pRead->nKey + pRead->nRange, nOut = 0;
  HbRange *aRange = sqlite3_malloc64(sizeof(HbRange) * (size_t)(n + 1));
  *pnRange = 0;
  if( aRange == 0 ) return 0;
  memset(aRange, 0, sizeof(HbRange) * (size_t)(n + 1));
  for(i = 0; i < pRead->nKey; i++){
    HbRange *pR = &aRange[nOut++];
    pR->lo = pR->hi = pRead->aKey[i];
    pR->bLo = pR->bHi = 1;
  }
  for(i = 0; i < pRead->nRange; i++){
    const CsRange *pK = &pRead->aRange[i];
    HbRange *pR = &aRange[nOut++];
    if( pK->eStart != CS_UNBOUNDED ){
      pR->lo = pK->start;
      pR->bLo = 1;
      pR->bLoOpen = pK->eStart == CS_OPEN;
    }
    if( pK->eEnd != CS_UNBOUNDED ){
      pR->hi = pK->end;
      pR->bHi = 1;
      pR->bHiOpen = pK->eEnd == CS_OPEN;
    }
  }
  /* Keys then ranges, each list in key order: merged by their lows. */
  for(i = 1; i < nOut; i++){
    HbRange t = aRange[i];
    int j;
    for(j = i; j > 0 && cmpBytes(aRange[j - 1].lo, t.lo) > 0; j--){
      aRange[j] = aRange[j - 1];
    }
    aRange[j] = t;
  }
  if( pRead->bReversed ){
    int a = 0, b = nOut - 1;
    while( a < b ){
      HbRange t = aRange[a];
      aRange[a++] = aRange[b];
      aRange[b--] = t;
    }
  }
  *pnRange = nOut;
  return aRange;
}

const char *hbHint(int code){
  switch( code ){
    case CS_DEADLINE:
      return "; is HBase up and reachable? (" HB_TIMEOUT_ENV " sets another "
             "deadline)";
    case CS_CANCELLED:
      return "; the statement was interrupted";
    case CS_NOT_FOUND:
      return "; the HBase table is gone (dropped outside widecol?): DROP "
             "TABLE and CREATE the widecol table again to make it";
    default:
      return "";
  }
}
