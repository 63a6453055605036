/*
** cs_catalog.c: the design records of the tables widecol makes in an
** engine.
**
** Bigtable and HBase keep no note on a table that widecol could use, so
** widecol keeps one per table in a table of its own, widecol_catalog,
** beside it (the same instance, or namespace): row key the
** table id, in family "_" the cells "design" (what the CREATE said about
** how rows are stored: the core's DESIGN argument, one clause a line),
** "owner" (the OWNER id of the CREATE that wrote the record) and "made"
** ("1" once that CREATE made the table; empty if the table was there
** before, or the CREATE said EXTERNAL).
**
** A CREATE claims the record before it makes the table (a conditional
** write makes it only where there is none, with "made" empty), so that of two
** databases making one table at once, the second sees the first's design;
** "made" is written once CreateTable made it.  Another design over a
** recorded table is refused with what differs (cs_admin.c); a DROP deletes
** a table only if its record names the dropping table's OWNER and says it
** made it.  Tables made by widecol 1.0 have no record and no OWNER, and
** keep their 1.0 behaviour.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

#define CS_CATALOG_ID "widecol_catalog"
#define CS_Q_DESIGN "design"
#define CS_Q_OWNER  "owner"
#define CS_Q_MADE   "made"

/* The record's cells, in this order. */
static const char *const azCell[] = { CS_Q_DESIGN, CS_Q_OWNER, CS_Q_MADE };

void csRecordClear(CsRecord *pRec){
  sqlite3_free(pRec->zDesign);
  sqlite3_free(pRec->zOwner);
  memset(pRec, 0, sizeof(*pRec));
}

/* The catalog's name and the record's key (the table id) of engine table
** zResource; sqlite3_free() the name. */
static char *catalogOf(const CsTable *p, const char **pzId){
  *pzId = csResourceId(p, p->args.zResource);
  return csResourceSibling(p, p->args.zResource, CS_CATALOG_ID);
}

/* One attempt at making the catalog (csRetry()). */
static int catalogMakeOnce(CsTable *p, void *pArg, const CsWait *pWait,
                           CsStatus *pSt){
  static const char *const azFamily[] = { WC_DEFAULT_FAMILY };
  CsTableSpec spec;
  memset(&spec, 0, sizeof(spec));
  spec.nFamily = 1;
  spec.azFamily = azFamily;
  spec.nVersions = 1;
  return p->pT->xCreateTable(p->pConn, (const char*)pArg, &spec, pWait, pSt);
}

/* Makes the catalog if it is not there: family "_", one version. */
static int catalogMake(CsTable *p, const char *zCatalog){
  CsStatus st = {0, 0};
  int code, rc = SQLITE_OK;
  code = csRetry(p, &p->wait, catalogMakeOnce, (void*)zCatalog, &st);
  if( code != CS_OK && code != CS_EXISTS ){
    rc = csRpcError(p, "could not make widecol's catalog of designs, "
                    CS_CATALOG_ID ", next to", &st);
  }
  csStatusClear(&st);
  return rc;
}

/* A conditional write on the record of p's table. */
typedef struct CatalogWrite CatalogWrite;
struct CatalogWrite {
  const char *zCatalog;
  CsBytes key;
  const CsCheck *pCheck;
  const CsMutation *aMut;
  int nMut;
  int bApplied;
};

/* One attempt (csRetry()). */
static int catalogWriteOnce(CsTable *p, void *pArg, const CsWait *pWait,
                            CsStatus *pSt){
  CatalogWrite *pW = (CatalogWrite*)pArg;
  CsPending *pCall = p->pT->xCheckStart(p->pConn, pW->zCatalog, pW->key,
                                        pW->pCheck, pW->aMut, pW->nMut, pWait);
  if( pCall == 0 ){
    csStatusSet(pSt, CS_INTERNAL, "out of memory");
    return CS_INTERNAL;
  }
  return p->pT->xCheckFinish(pCall, &pW->bApplied, pSt);
}

/* One conditional write on the record of p's table; *pbApplied says
** whether it was applied.  The catalog is made if it is not there. */
static int catalogWrite(CsTable *p, const char *zWhat, const CsCheck *pCheck,
                        const CsMutation *aMut, int nMut, int *pbApplied){
  CsStatus st = {0, 0};
  CatalogWrite w;
  const char *zId;
  char *zCatalog = catalogOf(p, &zId);
  int code, rc = SQLITE_OK;
  if( zCatalog == 0 ) return SQLITE_NOMEM;
  memset(&w, 0, sizeof(w));
  w.zCatalog = zCatalog;
  w.key.a = (const unsigned char*)zId;
  w.key.n = strlen(zId);
  w.pCheck = pCheck;
  w.aMut = aMut;
  w.nMut = nMut;
  /* Each is safe to send again: a claim that was applied is found as
  ** this CREATE's own (csCatalogClaim), a write or a delete again is the
  ** same. */
  code = csRetry(p, &p->wait, catalogWriteOnce, &w, &st);
  if( code == CS_NOT_FOUND ){
    /* No catalog yet: make it, then once more. */
    csStatusClear(&st);
    rc = catalogMake(p, zCatalog);
    if( rc == SQLITE_OK ){
      code = csRetry(p, &p->wait, catalogWriteOnce, &w, &st);
    }
  }
  if( rc == SQLITE_OK && code != CS_OK ){
    rc = csRpcError(p, zWhat, &st);
  }
  if( pbApplied ) *pbApplied = w.bApplied;
  csStatusClear(&st);
  sqlite3_free(zCatalog);
  return rc;
}

/* What a read of the record gathers: its three cells' values. */
typedef struct RecordRead RecordRead;
struct RecordRead {
  CsRecord *pRec;
  WcBuf *aValue;
};

static void recordBegin(void *pCtx){
  RecordRead *pR = (RecordRead*)pCtx;
  int i;
  for(i = 0; i < 3; i++) pR->aValue[i].n = 0;
  pR->pRec->bFound = 0;
}

static void recordRow(void *pCtx, const CsRow *pRow){
  RecordRead *pR = (RecordRead*)pCtx;
  int i, k, abSeen[3] = {0, 0, 0};
  pR->pRec->bFound = 1;
  for(i = 0; i < pRow->nCell; i++){
    const CsCell *pC = &pRow->aCell[i];
    for(k = 0; k < 3; k++){
      /* A column's newest cell, the first to come. */
      if( !abSeen[k] && pC->qual.n == strlen(azCell[k])
       && memcmp(pC->qual.a, azCell[k], pC->qual.n) == 0 ){
        abSeen[k] = 1;
        wcBufAppend(&pR->aValue[k], pC->value.a, (int64_t)pC->value.n);
      }
    }
  }
}

int csCatalogRead(CsTable *p, CsRecord *pRec){
  CsStatus st = {0, 0};
  CsRead read;
  CsBytes key;
  WcBuf aValue[3];
  RecordRead rr;
  CsRowSink sink;
  const char *zId;
  char *zCatalog = catalogOf(p, &zId);
  int code, rc = SQLITE_OK;
  csRecordClear(pRec);
  if( zCatalog == 0 ) return SQLITE_NOMEM;
  memset(aValue, 0, sizeof(aValue));
  memset(&read, 0, sizeof(read));
  key.a = (const unsigned char*)zId;
  key.n = strlen(zId);
  read.zTable = zCatalog;
  read.nKey = 1;
  read.aKey = &key;
  read.bLatest = 1;
  rr.pRec = pRec;
  rr.aValue = aValue;
  sink.xBegin = recordBegin;
  sink.xRow = recordRow;
  sink.pCtx = &rr;
  code = csReadAll(p, &read, &p->wait, &sink, &st);
  if( code == CS_NOT_FOUND ){
    /* No catalog: no record. */
    pRec->bFound = 0;
  }else if( code != CS_OK ){
    rc = csRpcError(p, "could not read widecol's design record of", &st);
  }else if( pRec->bFound ){
    pRec->zDesign = sqlite3_mprintf("%.*s", (int)aValue[0].n,
                                    aValue[0].a ? (char*)aValue[0].a : "");
    pRec->zOwner = sqlite3_mprintf("%.*s", (int)aValue[1].n,
                                   aValue[1].a ? (char*)aValue[1].a : "");
    pRec->bMade = aValue[2].n == 1 && aValue[2].a[0] == '1';
    if( pRec->zDesign == 0 || pRec->zOwner == 0 ) rc = SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK && (aValue[0].bOom || aValue[1].bOom) ){
    rc = SQLITE_NOMEM;
  }
  csStatusClear(&st);
  wcBufFree(&aValue[0]);
  wcBufFree(&aValue[1]);
  wcBufFree(&aValue[2]);
  sqlite3_free(zCatalog);
  return rc;
}

/* The record's three cells, set at iMicros, in aMut. */
static void recordCells(CsTable *p, CsMutation *aMut, int bMade,
                        int64_t iMicros){
  const char *azValue[3];
  int i;
  azValue[0] = p->args.zDesign ? p->args.zDesign : "";
  azValue[1] = p->args.zOwner ? p->args.zOwner : "";
  azValue[2] = bMade ? "1" : "";
  memset(aMut, 0, sizeof(CsMutation) * 3);
  for(i = 0; i < 3; i++){
    aMut[i].eOp = CS_SET_CELL;
    aMut[i].zFamily = WC_DEFAULT_FAMILY;
    aMut[i].qual.a = (const unsigned char*)azCell[i];
    aMut[i].qual.n = strlen(azCell[i]);
    aMut[i].iMicros = iMicros;
    aMut[i].value.a = (const unsigned char*)azValue[i];
    aMut[i].value.n = strlen(azValue[i]);
  }
}

int csCatalogClaim(CsTable *p, int *pbClaimed, CsRecord *pRec){
  CsMutation aMut[3];
  CsCheck check;
  int bApplied = 0, rc;
  *pbClaimed = 0;
  recordCells(p, aMut, 0, csNowMicros(p->pT->pKind));
  /* Where no record is: every record has its design cell. */
  memset(&check, 0, sizeof(check));
  check.eCond = CS_ROW_ABSENT;
  check.zFamily = WC_DEFAULT_FAMILY;
  check.qual = aMut[0].qual;
  rc = catalogWrite(p, "could not write widecol's design record of", &check,
                    aMut, 3, &bApplied);
  if( rc != SQLITE_OK ) return rc;
  if( bApplied ){
    *pbClaimed = 1;
    return SQLITE_OK;
  }
  rc = csCatalogRead(p, pRec);
  /* This CREATE's own claim, sent twice (no answer came the first time). */
  if( rc == SQLITE_OK && pRec->zOwner && p->args.zOwner
   && strcmp(pRec->zOwner, p->args.zOwner) == 0 ){
    *pbClaimed = 1;
  }
  return rc;
}

int csCatalogWrite(CsTable *p, int bMade){
  static const CsCheck always = { CS_ALWAYS, 0, { 0, 0 }, { 0, 0 } };
  CsMutation aMut[3];
  recordCells(p, aMut, bMade, csNowMicros(p->pT->pKind));
  return catalogWrite(p, "could not write widecol's design record of",
                      &always, aMut, 3, 0);
}

int csCatalogForget(CsTable *p){
  const char *zOwner = p->args.zOwner ? p->args.zOwner : "";
  CsMutation del;
  CsCheck check;
  memset(&del, 0, sizeof(del));
  del.eOp = CS_DELETE_ROW;
  /* Only a record that still names this owner. */
  memset(&check, 0, sizeof(check));
  check.eCond = CS_CELL_EQUAL;
  check.zFamily = WC_DEFAULT_FAMILY;
  check.qual.a = (const unsigned char*)CS_Q_OWNER;
  check.qual.n = strlen(CS_Q_OWNER);
  check.value.a = (const unsigned char*)zOwner;
  check.value.n = strlen(zOwner);
  return catalogWrite(p, "could not delete widecol's design record of",
                      &check, &del, 1, 0);
}

/* The lines of design z, as an array of n pointers into a copy (one
** allocation); NULL on OOM. */
static char **designLines(const char *z, int *pn){
  size_t nByte = strlen(z) + 1;
  int n = 1, i = 0;
  const char *zc;
  char **az, *zCopy;
  for(zc = z; *zc; zc++) n += *zc == '\n';
  az = sqlite3_malloc64(sizeof(char*) * (size_t)n + nByte);
  if( az == 0 ) return 0;
  zCopy = (char*)&az[n];
  memcpy(zCopy, z, nByte);
  az[i++] = zCopy;
  for(; *zCopy; zCopy++){
    if( *zCopy == '\n' ){
      *zCopy = 0;
      az[i++] = zCopy + 1;
    }
  }
  *pn = n;
  return az;
}

/* True if line z is among az[0..n), ASCII case aside outside quotes
** (SQL's names and keywords; a string or quoted name compared as is). */
static int hasLine(char **az, int n, const char *z){
  int i;
  for(i = 0; i < n; i++){
    const char *a = az[i], *b = z;
    char cQuote = 0;
    while( *a && *b ){
      if( cQuote ){
        if( *a != *b ) break;
        if( *a == cQuote ) cQuote = 0;
      }else{
        if( sqlite3_strnicmp(a, b, 1) != 0 ) break;
        if( *a == '\'' || *a == '"' || *a == '`' ) cQuote = *a;
        if( *a == '[' ) cQuote = ']';
      }
      a++;
      b++;
    }
    if( *a == 0 && *b == 0 ) return 1;
  }
  return 0;
}

/* The clauses of design zIn not in zOut, "; "-separated, appended;
** the number of them. */
static int appendMissing(sqlite3_str *pStr, const char *zIn,
                         const char *zOut){
  int nIn = 0, nOut = 0, i, nFound = 0;
  char **azIn = designLines(zIn, &nIn), **azOut = designLines(zOut, &nOut);
  for(i = 0; azIn && azOut && i < nIn; i++){
    if( azIn[i][0] && !hasLine(azOut, nOut, azIn[i]) ){
      sqlite3_str_appendf(pStr, "%s%s", nFound++ ? "; " : "", azIn[i]);
    }
  }
  sqlite3_free(azIn);
  sqlite3_free(azOut);
  return nFound;
}

char *csDesignDiff(const char *zRecorded, const char *zNow){
  sqlite3_str *pWas = sqlite3_str_new(0), *pNow = sqlite3_str_new(0);
  int nWas = appendMissing(pWas, zRecorded, zNow);
  int nNow = appendMissing(pNow, zNow, zRecorded);
  char *zWas = sqlite3_str_finish(pWas), *zNowText = sqlite3_str_finish(pNow);
  char *zRet;
  if( nWas == 0 && nNow == 0 ){
    zRet = 0;
  }else if( nNow == 0 ){
    zRet = sqlite3_mprintf("it was made with %s, which this CREATE does not "
                           "have", zWas);
  }else if( nWas == 0 ){
    zRet = sqlite3_mprintf("this CREATE has %s, which it was not made with",
                           zNowText);
  }else{
    zRet = sqlite3_mprintf("it was made with %s where this CREATE has %s",
                           zWas, zNowText);
  }
  if( (nWas || nNow) && zRet == 0 ) zRet = sqlite3_mprintf("?");
  sqlite3_free(zWas);
  sqlite3_free(zNowText);
  return zRet;
}
