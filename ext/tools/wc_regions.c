/*
** wc_regions.c: SELECT * FROM widecol_regions('<query>', max_rows
** [, recent]) replays row keys through HBase-style region splitting.
**
** The query returns keys in the order they are written.  A table starts
** as one region holding every key; a region that reaches max_rows rows
** splits at its middle key (HBase's split point), the lower half keeping
** the start key.  A key written again overwrites its row (a put).  Each
** final region is one result row, with how many of the last `recent`
** writes (default a tenth of them) fall into it and how that compares to
** an even share: sequential keys send every recent write to the last
** region, salted or reversed keys spread them.
**
** With a split policy in bytes instead of max_rows ('ConstantSize 10GiB',
** 'Stepping 10GiB flush 128MiB', ...), the query's second column gives
** each write's bytes, and a region splits as HBase's policy of that name
** would split it: once it holds more bytes than the policy's size for the
** table's region count, at the key where its first half of bytes ends.
** A third Fenwick tree sums the bytes per rank.
**
** Keys are compared as bytes, as HBase compares them: blobs as they are,
** text by its UTF-8 bytes, numbers by their text ('10' < '9').  The keys
** are sorted once to ranks; two Fenwick trees over the ranks count the
** rows present and mark the regions' first ranks, so that finding a key's
** region, its row count (or bytes) and its middle key each take
** O(log n).
**
** widecol_report runs the same replay on keys it holds already
** (wc_regions.h).
**
** SELECT * FROM widecol_regions('<table>') shows instead the regions a
** widecol table stored on an engine already has: the sample keys its store
** gives in one call (Bigtable's SampleRowKeys: a key per tablet split on
** Cloud Bigtable), each region's rows estimated from the bytes before each
** key; recent_writes and skew are NULL (the engine does not say).
*/
#include "tools/wc_tvf.h"
#include "tools/wc_regions.h"
#include "vtab/wc_table.h"
#include "key/wc_codec.h"

#include <stdlib.h>
#include <string.h>

typedef struct RegKey RegKey;
struct RegKey {
  const unsigned char *a;  /* Its bytes, once every key is read */
  sqlite3_int64 iOff;   /* Where they are in Sim.bytes, while reading */
  int n;
  int bBlob;
  int iWrite;           /* Write that gave it */
  sqlite3_int64 nSize;  /* The row's bytes on the engine, as the write
                        ** gave them (byte-size policies) */
};

/* A Fenwick tree over ranks 0..n-1. */
/* A Fenwick tree over ranks 0..n-1: a count (of rows, of region starts)
** or a sum of bytes per rank, never negative. */
typedef struct Fenwick Fenwick;
struct Fenwick {
  int n;
  sqlite3_int64 *a;     /* 1-based */
};

static int fenInit(Fenwick *p, int n){
  p->n = n;
  p->a = sqlite3_malloc64(sizeof(sqlite3_int64) * ((sqlite3_uint64)n + 1));
  if( p->a == 0 ) return SQLITE_NOMEM;
  memset(p->a, 0, sizeof(sqlite3_int64) * ((size_t)n + 1));
  return SQLITE_OK;
}

static void fenAdd(Fenwick *p, int iRank, sqlite3_int64 iDelta){
  int i;
  for(i = iRank + 1; i <= p->n; i += i & -i) p->a[i] += iDelta;
}

/* The sum at ranks 0..iRank (0 for iRank < 0). */
static sqlite3_int64 fenCount(const Fenwick *p, int iRank){
  int i;
  sqlite3_int64 n = 0;
  for(i = iRank + 1; i > 0; i -= i & -i) n += p->a[i];
  return n;
}

/* The first rank whose sum from rank 0 reaches k (k >= 1). */
static int fenKth(const Fenwick *p, sqlite3_int64 k){
  int iPos = 0, iStep = 1;
  while( iStep * 2 <= p->n ) iStep *= 2;
  for(; iStep; iStep /= 2){
    if( iPos + iStep <= p->n && p->a[iPos + iStep] < k ){
      iPos += iStep;
      k -= p->a[iPos];
    }
  }
  return iPos;
}

/* How a region decides to split.  By rows (widecol_regions(q, max_rows)),
** or by bytes as HBase's split policies do (widecol_regions(q, 'policy
** size [flush size]')): HBase splits a region once one of its stores holds
** more bytes than the policy's size for the table's current region count,
** at the store's middle key.  One region server is modelled, so the
** table's regions are all "on this server", as IncreasingToUpperBound and
** Stepping count them. */
typedef enum SplitKind {
  SPLIT_ROWS,           /* at nMax rows */
  SPLIT_CONSTANT,       /* ConstantSizeRegionSplitPolicy: over nMax bytes */
  SPLIT_INCREASING,     /* IncreasingToUpperBoundRegionSplitPolicy: over
                        ** min(nMax, 2 * nFlush * regions^3) */
  SPLIT_STEPPING        /* SteppingRegionSplitPolicy: over 2 * nFlush while
                        ** the table has one region, then nMax */
} SplitKind;

typedef struct SplitPolicy SplitPolicy;
struct SplitPolicy {
  SplitKind eKind;
  sqlite3_int64 nMax;   /* Rows, or bytes (HBase's MAX_FILESIZE) */
  sqlite3_int64 nFlush; /* The memstore flush size, bytes */
};

/* HBase's default hbase.hregion.memstore.flush.size. */
#define SPLIT_DEFAULT_FLUSH (128 * 1024 * 1024)

/* The largest size a policy takes, 1 PiB: far past any region, and the
** sums of a replay's bytes stay far from overflowing. */
#define SPLIT_MAX_BYTES ((sqlite3_int64)1 << 50)

typedef struct Sim Sim;
struct Sim {
  const SplitPolicy *pPolicy;
  WcBuf bytes;          /* Every key's bytes, one after another */
  int nWrite;
  int nAlloc;           /* Keys aSorted (or ranks aiRank) have room for */
  int bRanked;          /* The keys came sorted, the writes as ranks
                        ** (wcRegionSimSorted) */
  RegKey *aSorted;      /* The keys in write order as read, then the
                        ** distinct keys in byte order, one per rank */
  int nRank;
  int *aiRank;          /* Write -> rank */
  unsigned char *abRow; /* Rank -> it holds a row */
  Fenwick rows;         /* Ranks holding a row */
  Fenwick starts;       /* First rank of each region */
  Fenwick size;         /* Bytes of the row at each rank (byte policies) */
  sqlite3_int64 *aiSize;/* Write -> its bytes (byte policies) */
};

static void simFree(Sim *p){
  wcBufFree(&p->bytes);
  sqlite3_free(p->aSorted);
  sqlite3_free(p->aiRank);
  sqlite3_free(p->abRow);
  sqlite3_free(p->rows.a);
  sqlite3_free(p->starts.a);
  sqlite3_free(p->size.a);
  sqlite3_free(p->aiSize);
}

/* The bytes of write iWrite: the query's second column, an integer of at
** least 0. */
static int readSize(sqlite3_stmt *pStmt, int iWrite, sqlite3_int64 *pnSize,
                    char **pzErr){
  sqlite3_value *pSize;
  if( sqlite3_column_count(pStmt) < 2 ){
    *pzErr = sqlite3_mprintf("widecol_regions: a split policy in bytes needs "
        "each write's bytes as the query's second column, as in "
        "widecol_regions('SELECT rowkey, 180 FROM orders ORDER BY order_id', "
        "'ConstantSize 10GiB')");
    return SQLITE_ERROR;
  }
  pSize = sqlite3_column_value(pStmt, 1);
  if( sqlite3_value_numeric_type(pSize) != SQLITE_INTEGER
   || sqlite3_value_int64(pSize) < 0 ){
    *pzErr = sqlite3_mprintf("widecol_regions: the bytes of write number %d "
        "are %Q; the query's second column must be an integer of at least 0, "
        "the row's bytes on the engine", iWrite + 1,
        sqlite3_value_text(pSize));
    return SQLITE_MISMATCH;
  }
  *pnSize = sqlite3_value_int64(pSize);
  return SQLITE_OK;
}

/* Keeps the next write's key a[0..n) (bBlob: a BLOB, else text) and its
** bytes on the engine (byte policies). */
static int simAdd(Sim *p, const void *a, int n, int bBlob,
                  sqlite3_int64 nSize){
  if( p->nWrite == p->nAlloc ){
    int nNew = p->nAlloc ? 2 * p->nAlloc : 1024;
    RegKey *aNew = sqlite3_realloc64(p->aSorted,
                                     sizeof(RegKey) * (sqlite3_uint64)nNew);
    if( aNew == 0 ) return SQLITE_NOMEM;
    p->aSorted = aNew;
    p->nAlloc = nNew;
  }
  p->aSorted[p->nWrite].iOff = p->bytes.n;
  p->aSorted[p->nWrite].n = n;
  p->aSorted[p->nWrite].bBlob = bBlob;
  p->aSorted[p->nWrite].iWrite = p->nWrite;
  p->aSorted[p->nWrite].nSize = nSize;
  if( n ) wcBufAppend(&p->bytes, a, n);
  if( p->bytes.bOom ) return SQLITE_NOMEM;
  p->nWrite++;
  return SQLITE_OK;
}

/* Runs the query and keeps the keys it returns, in order. */
static int readKeys(sqlite3 *db, const char *zSql, Sim *p, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 nSize = 0;
  int rc = wcTvfPrepareQuery(db, "widecol_regions", zSql, "the keys in "
      "write order, as in widecol_regions('SELECT rowkey FROM orders ORDER "
      "BY order_id', 1000)", &pStmt, pzErr);
  if( rc != SQLITE_OK ) return rc;
  while( (rc = sqlite3_step(pStmt)) == SQLITE_ROW ){
    sqlite3_value *pKey = sqlite3_column_value(pStmt, 0);
    int eType = sqlite3_value_type(pKey);
    const void *a;
    int n;
    if( eType == SQLITE_NULL ){
      *pzErr = sqlite3_mprintf("widecol_regions: the query returned NULL as "
                               "key number %d; every write needs a key",
                               p->nWrite + 1);
      rc = SQLITE_ERROR;
      break;
    }
    a = eType == SQLITE_BLOB ? sqlite3_value_blob(pKey)
                             : (const void*)sqlite3_value_text(pKey);
    n = sqlite3_value_bytes(pKey);
    if( p->pPolicy->eKind != SPLIT_ROWS ){
      rc = readSize(pStmt, p->nWrite, &nSize, pzErr);
      if( rc != SQLITE_OK ) break;
    }
    if( n && a == 0 ){
      rc = SQLITE_NOMEM;
      break;
    }
    rc = simAdd(p, a, n, eType == SQLITE_BLOB, nSize);
    if( rc != SQLITE_OK ) break;
  }
  if( rc == SQLITE_DONE ){
    rc = SQLITE_OK;
  }else if( rc != SQLITE_NOMEM && rc != SQLITE_MISMATCH && *pzErr == 0 ){
    *pzErr = sqlite3_mprintf("widecol_regions: the query of keys failed: %s",
                             sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static int keyCompare(const void *pA, const void *pB){
  const RegKey *a = (const RegKey*)pA, *b = (const RegKey*)pB;
  int n = a->n < b->n ? a->n : b->n;
  int c = n ? memcmp(a->a, b->a, (size_t)n) : 0;
  if( c == 0 ) c = (a->n > b->n) - (a->n < b->n);
  return c ? c : (a->iWrite > b->iWrite) - (a->iWrite < b->iWrite);
}

/* Sorts the keys into ranks: equal keys share one. */
static int rankKeys(Sim *p){
  int i;
  if( p->bRanked ){
    /* The caller gave the distinct keys in order and each write's rank. */
    p->abRow = sqlite3_malloc64((sqlite3_uint64)p->nRank + 1);
    if( p->abRow == 0 ) return SQLITE_NOMEM;
    memset(p->abRow, 0, (size_t)p->nRank + 1);
    return SQLITE_OK;
  }
  p->aiRank = sqlite3_malloc64(sizeof(int) * ((sqlite3_uint64)p->nWrite + 1));
  p->abRow = sqlite3_malloc64((sqlite3_uint64)p->nWrite + 1);
  if( p->aiRank == 0 || p->abRow == 0 ) return SQLITE_NOMEM;
  if( p->pPolicy->eKind != SPLIT_ROWS ){
    p->aiSize = sqlite3_malloc64(sizeof(sqlite3_int64)
                                 * ((sqlite3_uint64)p->nWrite + 1));
    if( p->aiSize == 0 ) return SQLITE_NOMEM;
  }
  memset(p->abRow, 0, (size_t)p->nWrite + 1);
  for(i = 0; i < p->nWrite; i++){
    p->aSorted[i].a = p->bytes.a + p->aSorted[i].iOff;
  }
  if( p->nWrite ){
    qsort(p->aSorted, (size_t)p->nWrite, sizeof(RegKey), keyCompare);
  }
  p->nRank = 0;
  for(i = 0; i < p->nWrite; i++){
    RegKey *pKey = &p->aSorted[i];
    if( p->nRank == 0 || pKey->n != p->aSorted[p->nRank - 1].n
     || (pKey->n && memcmp(pKey->a, p->aSorted[p->nRank - 1].a,
                           (size_t)pKey->n)) ){
      p->aSorted[p->nRank++] = *pKey;
    }
    p->aiRank[pKey->iWrite] = p->nRank - 1;
    if( p->aiSize ) p->aiSize[pKey->iWrite] = pKey->nSize;
  }
  return SQLITE_OK;
}

/* Index (0-based) of the region holding rank iRank. */
static int regionOf(const Sim *p, int iRank){
  return (int)fenCount(&p->starts, iRank) - 1;
}

/* Rows in region iRegion of nRegion, and its first rank and the one
** after its last. */
static int regionRows(const Sim *p, int iRegion, int nRegion, int *piStart,
                      int *piEnd){
  *piStart = fenKth(&p->starts, iRegion + 1);
  *piEnd = iRegion + 1 < nRegion ? fenKth(&p->starts, iRegion + 2) : p->nRank;
  return (int)(fenCount(&p->rows, *piEnd - 1)
               - fenCount(&p->rows, *piStart - 1));
}

/* The bytes over which a region splits while the table has nRegion. */
static sqlite3_int64 splitSize(const SplitPolicy *pPolicy, int nRegion){
  sqlite3_int64 nInitial = 2 * pPolicy->nFlush, nCube;
  switch( pPolicy->eKind ){
    case SPLIT_STEPPING:
      return nRegion == 1 ? nInitial : pPolicy->nMax;
    case SPLIT_INCREASING:
      /* HBase uses the maximum past 100 regions, against overflow. */
      if( nRegion > 100 ) return pPolicy->nMax;
      nCube = (sqlite3_int64)nRegion * nRegion * nRegion;
      return nInitial > pPolicy->nMax / nCube ? pPolicy->nMax
                                               : nInitial * nCube;
    default:
      return pPolicy->nMax;
  }
}

/* Whether the region from rank iStart to iEnd splits after a write, and
** where: *piSplit is the first rank of the upper half.  By rows, at the
** middle key; by bytes, at the key where the region's first half of
** bytes ends (HBase's store midkey), never at the region's first key. */
static int shouldSplit(const Sim *p, int nRegion, int nRows, int iStart,
                       int iEnd, int *piSplit){
  if( p->pPolicy->eKind == SPLIT_ROWS ){
    sqlite3_int64 nBefore;
    if( nRows < p->pPolicy->nMax ) return 0;
    nBefore = fenCount(&p->rows, iStart - 1);
    *piSplit = fenKth(&p->rows, nBefore + nRows / 2 + 1);
    return 1;
  }else{
    sqlite3_int64 nBefore = fenCount(&p->size, iStart - 1);
    sqlite3_int64 nSize = fenCount(&p->size, iEnd - 1) - nBefore;
    if( nSize <= splitSize(p->pPolicy, nRegion) ) return 0;
    *piSplit = fenKth(&p->size, nBefore + nSize / 2 + 1);
    return *piSplit > fenKth(&p->rows, fenCount(&p->rows, iStart - 1) + 1);
  }
}

/* Replays the writes; returns the number of regions. */
static int replay(Sim *p){
  int nRegion = 1, i;
  int bBytes = p->pPolicy->eKind != SPLIT_ROWS;
  fenAdd(&p->starts, 0, 1);
  for(i = 0; i < p->nWrite; i++){
    int iRank = p->aiRank[i], iStart, iEnd, iSplit, nRows;
    if( bBytes ){
      /* A put replaces the row's bytes (the older version goes at the
      ** next compaction). */
      fenAdd(&p->size, iRank, p->aiSize[i]
             - (p->abRow[iRank] ? fenCount(&p->size, iRank)
                                  - fenCount(&p->size, iRank - 1) : 0));
    }else if( p->abRow[iRank] ){
      continue;                         /* an overwrite: no new row */
    }
    if( !p->abRow[iRank] ){
      p->abRow[iRank] = 1;
      fenAdd(&p->rows, iRank, 1);
    }
    nRows = regionRows(p, regionOf(p, iRank), nRegion, &iStart, &iEnd);
    if( shouldSplit(p, nRegion, nRows, iStart, iEnd, &iSplit) ){
      fenAdd(&p->starts, iSplit, 1);
      nRegion++;
    }
  }
  return nRegion;
}

/* The bytes of key iRank, or NULL for an open end (iRank < 0). */
static const void *keyBytes(const Sim *p, int iRank, sqlite3_int64 *pn,
                            int *pbBlob){
  if( iRank < 0 ){
    *pn = 0;
    *pbBlob = 1;
    return 0;
  }
  *pn = p->aSorted[iRank].n;
  *pbBlob = p->aSorted[iRank].bBlob;
  return p->aSorted[iRank].n ? (const void*)p->aSorted[iRank].a : (const void*)"";
}

/* Hands each final region to xRegion. */
static int addRegions(Sim *p, int nRegion, int nRecent, WcRegionFn xRegion,
                      void *pArg){
  int *anRecent = sqlite3_malloc64(sizeof(int) * (sqlite3_uint64)nRegion);
  int i, rc = SQLITE_OK;
  if( anRecent == 0 ) return SQLITE_NOMEM;
  memset(anRecent, 0, sizeof(int) * (size_t)nRegion);
  for(i = p->nWrite - nRecent; i < p->nWrite; i++){
    anRecent[regionOf(p, p->aiRank[i])]++;
  }
  for(i = 0; i < nRegion && rc == SQLITE_OK; i++){
    WcRegion r;
    int iStart, iEnd;
    r.iRegion = i + 1;
    r.nRows = regionRows(p, i, nRegion, &iStart, &iEnd);
    r.aLo = keyBytes(p, i ? iStart : -1, &r.nLo, &r.bLoBlob);
    r.aHi = keyBytes(p, i + 1 < nRegion ? iEnd : -1, &r.nHi, &r.bHiBlob);
    r.nRecent = anRecent[i];
    r.rSkew = nRecent ? (double)anRecent[i] * nRegion / nRecent : 0.0;
    r.bSkew = nRecent > 0;
    rc = xRegion(pArg, &r);
  }
  sqlite3_free(anRecent);
  return rc;
}

/* Sorts the keys and replays them, regions to xRegion. */
static int simRun(Sim *p, int nRecent, WcRegionFn xRegion, void *pArg){
  int rc;
  if( nRecent < 0 ) nRecent = p->nWrite >= 10 ? p->nWrite / 10 : p->nWrite;
  rc = rankKeys(p);
  if( rc == SQLITE_OK ) rc = fenInit(&p->rows, p->nRank);
  if( rc == SQLITE_OK ) rc = fenInit(&p->starts, p->nRank ? p->nRank : 1);
  if( rc == SQLITE_OK && p->pPolicy->eKind != SPLIT_ROWS ){
    rc = fenInit(&p->size, p->nRank);
  }
  if( rc == SQLITE_OK ) rc = addRegions(p, replay(p), nRecent, xRegion, pArg);
  return rc;
}

/* A region as a result row of widecol_regions(). */
static int tvfRegion(void *pArg, const WcRegion *r){
  char zFormat[10];
  zFormat[0] = 'i';
  zFormat[1] = r->bLoBlob ? 'b' : 'x';
  zFormat[2] = r->bHiBlob ? 'b' : 'x';
  memcpy(&zFormat[3], r->bSkew ? "iirnnn" : "iinnnn", 7);
  return wcTvfAddRow((WcTvfRows*)pArg, zFormat, (sqlite3_int64)r->iRegion,
                     r->aLo, r->nLo, r->aHi, r->nHi, r->nRows,
                     r->nRecent, r->rSkew);
}

struct WcRegionSim {
  SplitPolicy policy;
  Sim sim;
};

WcRegionSim *wcRegionSimNew(sqlite3_int64 nMaxRows){
  WcRegionSim *p = sqlite3_malloc64(sizeof(WcRegionSim));
  if( p == 0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->policy.eKind = SPLIT_ROWS;
  p->policy.nMax = nMaxRows;
  p->sim.pPolicy = &p->policy;
  return p;
}

int wcRegionSimSorted(WcRegionSim *p, const unsigned char *aBytes,
                      const int64_t *aiKey, int nKey){
  int i;
  p->sim.aSorted = sqlite3_malloc64(sizeof(RegKey)
                                    * ((sqlite3_uint64)nKey + 1));
  if( p->sim.aSorted == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < nKey; i++){
    RegKey *pKey = &p->sim.aSorted[i];
    memset(pKey, 0, sizeof(*pKey));
    pKey->a = aBytes + aiKey[i];
    pKey->n = (int)(aiKey[i + 1] - aiKey[i]);
    pKey->bBlob = 1;
    pKey->iWrite = i;
  }
  p->sim.nRank = nKey;
  p->sim.bRanked = 1;
  return SQLITE_OK;
}

int wcRegionSimAddRank(WcRegionSim *p, int iRank){
  Sim *pSim = &p->sim;
  if( pSim->nWrite == pSim->nAlloc ){
    int nNew = pSim->nAlloc ? 2 * pSim->nAlloc : 1024;
    int *aNew = sqlite3_realloc64(pSim->aiRank,
                                  sizeof(int) * ((sqlite3_uint64)nNew + 1));
    if( aNew == 0 ) return SQLITE_NOMEM;
    pSim->aiRank = aNew;
    pSim->nAlloc = nNew;
  }
  pSim->aiRank[pSim->nWrite++] = iRank;
  return SQLITE_OK;
}

int wcRegionSimRun(WcRegionSim *p, int nRecent, WcRegionFn xRegion,
                   void *pArg){
  return simRun(&p->sim, nRecent, xRegion, pArg);
}

void wcRegionSimFree(WcRegionSim *p){
  if( p == 0 ) return;
  simFree(&p->sim);
  sqlite3_free(p);
}

/* An integer argument of at least iMin, or an error naming it. */
static int intArg(sqlite3_value *pArg, const char *zArg, sqlite3_int64 iMin,
                  const char *zWhy, sqlite3_int64 *piOut, char **pzErr){
  int eType = sqlite3_value_numeric_type(pArg);
  if( eType != SQLITE_INTEGER || sqlite3_value_int64(pArg) < iMin ){
    *pzErr = sqlite3_mprintf("widecol_regions: %s must be an integer of at "
                             "least %lld (%s); got %Q", zArg, iMin, zWhy,
                             sqlite3_value_text(pArg));
    return SQLITE_ERROR;
  }
  if( sqlite3_value_int64(pArg) > 0x7fffffff ){
    *pzErr = sqlite3_mprintf("widecol_regions: %s is %lld, more than the "
                             "2147483647 keys a replay can hold",
                             zArg, sqlite3_value_int64(pArg));
    return SQLITE_ERROR;
  }
  *piOut = sqlite3_value_int64(pArg);
  return SQLITE_OK;
}

/* A size in bytes at *pz, as 4194304, 4MiB, 4 MiB or 4M (units of
** 1024: B, K/KiB/KB, M/MiB/MB, G/GiB/GB, any case); advances *pz. */
static int parseSize(const char **pz, sqlite3_int64 *pn){
  static const struct { const char *zUnit; int nShift; } aUnit[] = {
    {"kib", 10}, {"kb", 10}, {"k", 10}, {"mib", 20}, {"mb", 20}, {"m", 20},
    {"gib", 30}, {"gb", 30}, {"g", 30}, {"b", 0},
  };
  const char *z = *pz;
  sqlite3_int64 n = 0;
  size_t i;
  if( *z < '0' || *z > '9' ) return 0;
  for(; *z >= '0' && *z <= '9'; z++){
    if( n > (SPLIT_MAX_BYTES - (*z - '0')) / 10 ) return 0;
    n = n * 10 + (*z - '0');
  }
  while( *z == ' ' ) z++;
  for(i = 0; i < sizeof(aUnit) / sizeof(aUnit[0]); i++){
    size_t nUnit = strlen(aUnit[i].zUnit);
    if( sqlite3_strnicmp(z, aUnit[i].zUnit, (int)nUnit) == 0
     && (z[nUnit] == 0 || z[nUnit] == ' ') ){
      if( n > (SPLIT_MAX_BYTES >> aUnit[i].nShift) ) return 0;
      n <<= aUnit[i].nShift;
      z += nUnit;
      break;
    }
  }
  if( n < 1 ) return 0;
  *pz = z;
  *pn = n;
  return 1;
}

/* Whether the n bytes at z end a policy's class name: HBase's classes are
** ConstantSizeRegionSplitPolicy, IncreasingToUpperBoundRegionSplitPolicy
** and SteppingSplitPolicy. */
static int isPolicySuffix(const char *z, size_t n){
  return (n == 17 && sqlite3_strnicmp(z, "RegionSplitPolicy", 17) == 0)
      || (n == 11 && sqlite3_strnicmp(z, "SplitPolicy", 11) == 0);
}

/* A split policy in bytes: '<policy> <size> [flush <size>]', the policy
** named as HBase names its class, with or without the class's suffix. */
static int parsePolicy(const char *zPolicy, SplitPolicy *pPolicy,
                       char **pzErr){
  static const struct { const char *zName; SplitKind eKind; } aName[] = {
    {"ConstantSize", SPLIT_CONSTANT},
    {"IncreasingToUpperBound", SPLIT_INCREASING},
    {"Stepping", SPLIT_STEPPING},
  };
  const char *z = zPolicy;
  size_t i, nWord;
  while( *z == ' ' ) z++;
  nWord = strcspn(z, " ");
  for(i = 0; i < sizeof(aName) / sizeof(aName[0]); i++){
    size_t nName = strlen(aName[i].zName);
    if( nWord >= nName && sqlite3_strnicmp(z, aName[i].zName, (int)nName) == 0
     && (nWord == nName || isPolicySuffix(z + nName, nWord - nName)) ){
      break;
    }
  }
  if( i < sizeof(aName) / sizeof(aName[0]) ){
    pPolicy->eKind = aName[i].eKind;
    pPolicy->nFlush = SPLIT_DEFAULT_FLUSH;
    for(z += nWord; *z == ' '; z++){}
    if( parseSize(&z, &pPolicy->nMax) ){
      int bOk = 1;
      while( *z == ' ' ) z++;
      if( sqlite3_strnicmp(z, "flush ", 6) == 0 ){
        for(z += 6; *z == ' '; z++){}
        bOk = parseSize(&z, &pPolicy->nFlush);
        while( *z == ' ' ) z++;
      }
      if( bOk && *z == 0 ) return SQLITE_OK;
    }
  }
  *pzErr = sqlite3_mprintf("widecol_regions: %Q is neither max_rows (an "
      "integer of at least 2) nor a split policy in bytes: ConstantSize, "
      "IncreasingToUpperBound or Stepping, then HBase's MAX_FILESIZE, then "
      "optionally flush and the memstore flush size (default 128MiB), as in "
      "'ConstantSize 10GiB' or 'Stepping 10GiB flush 128MiB'", zPolicy);
  return SQLITE_ERROR;
}

/* The second argument: max_rows, or a split policy in bytes. */
static int policyArg(sqlite3_value *pArg, SplitPolicy *pPolicy, char **pzErr){
  if( sqlite3_value_type(pArg) == SQLITE_TEXT
   && sqlite3_value_numeric_type(pArg) == SQLITE_TEXT ){
    return parsePolicy((const char*)sqlite3_value_text(pArg), pPolicy, pzErr);
  }
  pPolicy->eKind = SPLIT_ROWS;
  return intArg(pArg, "max_rows", 2, "a region that reaches it splits in "
                "two", &pPolicy->nMax, pzErr);
}

/* The load of the region ending at key aEnd (nEnd bytes; 0: the end) in
** the loads aLoad[0..nLoad), into *pOut: 1, or 0 if none is told. */
static int loadAt(const unsigned char *aLoad, int64_t nLoad,
                  const unsigned char *aEnd, int64_t nEnd,
                  WcRegionLoad *pOut){
  int64_t iOff = 0;
  while( wcStoreLoadNext(aLoad, nLoad, &iOff, pOut) ){
    if( pOut->nEnd == nEnd
     && (nEnd == 0 || memcmp(pOut->aEnd, aEnd, (size_t)nEnd) == 0) ){
      return 1;
    }
  }
  return 0;
}

/* Adds region iRegion, [aLo, aHi) (NULL: open), of nRow rows, with its
** server and request counts where the engine told them (NULL where not;
** counts only beside a server named). */
static int addStoreRegion(WcTvfRows *pRows, int iRegion,
                          const unsigned char *aLo, int64_t nLo,
                          const unsigned char *aHi, int64_t nHi, int64_t nRow,
                          const unsigned char *aLoad, int64_t nLoad){
  WcRegionLoad load;
  if( !loadAt(aLoad, nLoad, aHi, nHi, &load) || load.nServer == 0 ){
    memset(&load, 0, sizeof(load));
    load.nRead = load.nWrite = -1;
  }
  return wcTvfAddRow(pRows, "ibbinnxII", (int64_t)iRegion, aLo, nLo, aHi, nHi,
                     nRow, load.zServer, load.nServer, load.nRead,
                     load.nWrite);
}

/* widecol_regions('<table>'): the regions the table's engine has, from
** the sample keys its store gives, with their servers and request counts
** where the engine tells them. */
static int storeRegions(sqlite3 *db, const char *zName, WcTvfRows *pRows,
                        char **pzErr){
  WcVtab *pTab = 0;
  WcRpcStats rpc;
  const unsigned char *aPrev = 0, *aKey;
  int64_t nPrev = 0, nKey, nBefore, nPrevBefore = 0, iOff = 0, nTotal = 0;
  int rc, iRegion = 0;
  rc = wcTableLookup(db, zName, "widecol_regions", &pTab, pzErr);
  if( rc != SQLITE_OK ) return rc;
  if( !wcStoreCaps(wcTableStore(pTab))->bRowEstimates ){
    *pzErr = sqlite3_mprintf("widecol_regions(%Q): its rows are in this "
        "database, which has no regions; simulate them from its keys: "
        "widecol_regions('SELECT rowkey FROM %w_rows', max_rows)", zName,
        wcTableName(pTab));
    return SQLITE_ERROR;
  }
  memset(&rpc, 0, sizeof(rpc));
  rpc.bEstimate = 1;
  rpc.bSamples = 1;
  rpc.bLoads = wcStoreCaps(wcTableStore(pTab))->bRegionLoads;
  rc = wcStoreRemoteStats((WcStore*)wcTableStore(pTab), -1, -1, &rpc);
  if( rc != SQLITE_OK ){
    *pzErr = sqlite3_mprintf("widecol_regions(%Q): %s", zName,
                             sqlite3_errmsg(db));
    sqlite3_free(rpc.aSample);
    sqlite3_free(rpc.aLoad);
    return rc;
  }
  /* The table's bytes: the end's offset, the last sample. */
  while( wcStoreSampleNext(rpc.aSample, rpc.nSample, &iOff, &aKey, &nKey,
                           &nBefore) ){
    nTotal = nBefore;
  }
  /* Region i runs from sample i-1's key to sample i's, the first from the
  ** start, the last (the end's, an empty key) to the end; its rows are
  ** the estimate's share of its bytes. */
  iOff = 0;
  while( rc == SQLITE_OK && wcStoreSampleNext(rpc.aSample, rpc.nSample,
                                              &iOff, &aKey, &nKey, &nBefore) ){
    int64_t nRow = nTotal > 0 ? (int64_t)((double)rpc.nRowEstimate
                                * (double)(nBefore - nPrevBefore)
                                / (double)nTotal + 0.5) : rpc.nRowEstimate;
    rc = addStoreRegion(pRows, ++iRegion, aPrev, nPrev, nKey ? aKey : 0, nKey,
                        nRow, rpc.aLoad, rpc.nLoad);
    aPrev = aKey;
    nPrev = nKey;
    nPrevBefore = nBefore;
  }
  sqlite3_free(rpc.aSample);
  sqlite3_free(rpc.aLoad);
  return rc;
}

static int regionsFill(sqlite3 *db, sqlite3_value **apArg, WcTvfRows *pRows,
                       char **pzErr){
  const char *zSql = (const char*)sqlite3_value_text(apArg[0]);
  sqlite3_int64 nRecent = -1;
  SplitPolicy policy;
  Sim sim;
  int rc;
  memset(&sim, 0, sizeof(sim));
  memset(&policy, 0, sizeof(policy));
  sim.pPolicy = &policy;
  if( apArg[1] == 0 && zSql ){
    if( strcspn(zSql, " \t\r\n") < strlen(zSql) ){
      *pzErr = sqlite3_mprintf("widecol_regions: a query of keys needs "
          "max_rows too, the rows at which a region splits, as in "
          "widecol_regions(%Q, 1000)", zSql);
      return SQLITE_ERROR;
    }
    return storeRegions(db, zSql, pRows, pzErr);
  }
  if( sqlite3_value_type(apArg[0]) != SQLITE_TEXT ){
    *pzErr = sqlite3_mprintf("widecol_regions: the first argument must be "
        "the text of a query returning keys in write order, as in "
        "widecol_regions('SELECT rowkey FROM orders ORDER BY order_id', "
        "1000)");
    return SQLITE_ERROR;
  }
  rc = policyArg(apArg[1], &policy, pzErr);
  if( rc == SQLITE_OK && apArg[2] ){
    rc = intArg(apArg[2], "recent", 1, "how many of the last writes to "
                "count", &nRecent, pzErr);
  }
  if( rc == SQLITE_OK ) rc = readKeys(db, zSql, &sim, pzErr);
  if( rc == SQLITE_OK && nRecent > sim.nWrite ){
    *pzErr = sqlite3_mprintf("widecol_regions: recent is %lld but the query "
                             "returned %d key%s; count at most that many "
                             "writes", nRecent, sim.nWrite,
                             sim.nWrite == 1 ? "" : "s");
    rc = SQLITE_ERROR;
  }
  if( rc == SQLITE_OK ) rc = simRun(&sim, (int)nRecent, tvfRegion, pRows);
  simFree(&sim);
  return rc;
}

const WcTvfDef wcRegionsDef = {
  "widecol_regions",
  "region INTEGER, start_key, end_key, rows INTEGER, recent_writes INTEGER, "
  "skew REAL, server TEXT, read_requests INTEGER, write_requests INTEGER",
  "sql, max_rows, recent", 1,
  "give the query of keys in write order and the rows at which a region "
  "splits, as in SELECT * FROM widecol_regions('SELECT rowkey FROM orders "
  "ORDER BY order_id', 1000), or a table stored on an engine, as in "
  "widecol_regions('orders')",
  regionsFill
};
