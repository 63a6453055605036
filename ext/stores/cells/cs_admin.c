/*
** cs_admin.c: the engine's tables behind a table of the cell store: made
** with its families, rule of what to keep and splits, after claiming the
** design record (cs_catalog.c); taken over where made before, if design
** and rules agree; deleted (see cs_store.h); and what the engine says of
** a table when a read finds a column's cells gone.
*/
#include "util/wc_api.h"
#include "stores/cells/cs_table.h"

#include <string.h>

/* What p's engine table must keep: every family at most nVersions cells
** a column and, under a TTL, none older (a cell goes when either rule
** says so, as in HBase); and the table's first splits. */
static void tableSpec(const CsTable *p, CsTableSpec *pSpec,
                      CsBytes *aSplit){
  int i;
  memset(pSpec, 0, sizeof(*pSpec));
  pSpec->nFamily = p->nFamily;
  pSpec->azFamily = p->azFamily;
  pSpec->nVersions = p->args.nVersions;
  pSpec->nTtl = p->args.nTtl;
  for(i = 0; aSplit && i < p->args.nSplit; i++){
    aSplit[i].a = p->args.aSplit[i].a;
    aSplit[i].n = (size_t)p->args.aSplit[i].n;
  }
  pSpec->nSplit = aSplit ? p->args.nSplit : 0;
  pSpec->aSplit = aSplit;
}

/* The family zFamily of *pInfo, or 0. */
static const CsFamily *familyOf(const CsTableInfo *pInfo,
                                const char *zFamily){
  int k;
  for(k = 0; k < pInfo->nFamily; k++){
    if( strcmp(pInfo->aFamily[k].zName, zFamily) == 0 ){
      return &pInfo->aFamily[k];
    }
  }
  return 0;
}

/* Taking over the table *pInfo tells of: it must have every family of the
** design, each with a rule that keeps what the design keeps. */
static int checkTakeover(CsTable *p, const CsTableInfo *pInfo){
  const char *zId = csResourceId(p, p->args.zResource);
  int i;
  for(i = 0; i < p->nFamily; i++){
    const CsFamily *pFam = familyOf(pInfo, p->azFamily[i]);
    if( pFam == 0 ){
      char *zDrop = sqlite3_mprintf(p->pT->zDropTable, zId);
      int rc = csError(p, SQLITE_ERROR, "widecol %s: the %s table %s "
          "exists but has no column family \"%s\", so it was not made for "
          "this design: delete it (%s) or name another table",
          p->zTable, p->pT->pKind->zEngine, p->args.zResource, p->azFamily[i],
          zDrop ? zDrop : "?");
      sqlite3_free(zDrop);
      return rc;
    }
    if( !pFam->bKeeps ){
      char *zFix = p->pT->xRuleFix(zId, p->azFamily[i], p->args.nVersions,
                                   p->args.nTtl);
      int rc = csError(p, SQLITE_ERROR, "widecol %s: the %s table %s "
          "exists, and the GC rule of its column family \"%s\" (%s) would "
          "delete cells this design keeps (%d version%s of each column%s): "
          "change the rule (%s) and CREATE again, or name another table",
          p->zTable, p->pT->pKind->zEngine, p->args.zResource, p->azFamily[i],
          pFam->zRule, p->args.nVersions, p->args.nVersions == 1 ? "" : "s",
          p->args.nTtl > 0 ? ", younger than the TTL" : "",
          zFix ? zFix : "?");
      sqlite3_free(zFix);
      return rc;
    }
  }
  return SQLITE_OK;
}

/* One attempt at reading p's table (csRetry()): pArg is where the answer
** goes. */
static int getTableOnce(CsTable *p, void *pArg, const CsWait *pWait,
                        CsStatus *pSt){
  CsTableSpec keep;
  CsTableInfo **ppInfo = (CsTableInfo**)pArg;
  sqlite3_free(*ppInfo);
  *ppInfo = 0;
  tableSpec(p, &keep, 0);
  return p->pT->xGetTable(p->pConn, p->args.zResource, &keep, pWait, ppInfo,
                          pSt);
}

/* What p's engine table holds into *ppInfo (sqlite3_free() it): its
** families, each judged against the design's rule; the CS_* code. */
static int getTable(CsTable *p, CsTableInfo **ppInfo, CsStatus *pSt){
  *ppInfo = 0;
  return csRetry(p, &p->wait, getTableOnce, ppInfo, pSt);
}

/* The design record, before the table is made (cs_catalog.c): claimed for
** this CREATE (*pbClaimed), or the record of the same design, or one whose
** table is gone (then replaced); another design is refused. */
static int claimDesign(CsTable *p, int *pbClaimed){
  CsRecord rec;
  char *zDiff;
  int rc;
  memset(&rec, 0, sizeof(rec));
  rc = csCatalogClaim(p, pbClaimed, &rec);
  if( rc != SQLITE_OK || *pbClaimed ) return rc;
  zDiff = csDesignDiff(rec.zDesign ? rec.zDesign : "", p->args.zDesign);
  if( zDiff ){
    CsTableInfo *pInfo = 0;
    CsStatus st = {0, 0};
    int code = getTable(p, &pInfo, &st);
    sqlite3_free(pInfo);
    if( code == CS_NOT_FOUND ){
      /* The record outlived its table (deleted outside widecol). */
      rc = csCatalogWrite(p, 0);
      *pbClaimed = rc == SQLITE_OK;
    }else if( code != CS_OK ){
      rc = csRpcError(p, "could not read", &st);
    }else{
      rc = csError(p, SQLITE_ERROR, "widecol %s: the %s table %s holds "
          "the rows of another design (%s): a widecol table reads it only "
          "with the design it was made with; CREATE it with that design, or "
          "name another %s table", p->zTable, p->pT->pKind->zEngine,
          p->args.zResource, zDiff, p->pT->pKind->zEngine);
    }
    csStatusClear(&st);
  }
  sqlite3_free(zDiff);
  csRecordClear(&rec);
  return rc;
}

int csCheckExisting(CsTable *p){
  const char *zId = csResourceId(p, p->args.zResource);
  CsTableInfo *pInfo = 0;
  CsStatus st = {0, 0};
  int code, rc = SQLITE_OK, i;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  code = getTable(p, &pInfo, &st);
  if( code == CS_NOT_FOUND ){
    char *zList = sqlite3_mprintf(p->pT->zListTables, zId);
    rc = csError(p, SQLITE_ERROR, "widecol %s: STORAGE %s '%s' "
        "EXISTING opens a table made by another application, and there is no "
        "such table (%s lists them); leave EXISTING out for widecol to "
        "make one", p->zTable, p->pT->pKind->zWord, p->args.zResource,
        zList ? zList : "?");
    sqlite3_free(zList);
  }else if( code != CS_OK ){
    rc = csRpcError(p, "could not read", &st);
  }
  for(i = 0; rc == SQLITE_OK && i < p->nCol; i++){
    const char *zFamily = p->aCol[i].zFamily;
    if( p->aCol[i].eLayout == CS_LAYOUT_KEY ) continue;
    if( familyOf(pInfo, zFamily) == 0 ){
      char *zList = sqlite3_mprintf(p->pT->zListFamilies, zId);
      rc = csError(p, SQLITE_ERROR, "widecol %s: CELLS gives column %s the "
          "cell %s:%s, and the %s table %s has no column family \"%s\" "
          "(%s lists its families)", p->zTable, p->aCol[i].zName,
          zFamily, p->aCol[i].zQual, p->pT->pKind->zEngine, p->args.zResource,
          zFamily, zList ? zList : "?");
      sqlite3_free(zList);
    }
  }
  sqlite3_free(pInfo);
  csStatusClear(&st);
  return rc;
}

/* One attempt at making p's table (csRetry()). */
static int createOnce(CsTable *p, void *pArg, const CsWait *pWait,
                      CsStatus *pSt){
  return p->pT->xCreateTable(p->pConn, p->args.zResource,
                             (const CsTableSpec*)pArg, pWait, pSt);
}

int csCreateRemote(CsTable *p, int *pbMade, int *pbClaimed){
  CsTableSpec spec;
  CsBytes *aSplit;
  CsStatus st = {0, 0};
  int bRecord = p->args.zDesign && p->args.zOwner;
  int code, rc = SQLITE_OK;
  *pbMade = *pbClaimed = 0;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  if( bRecord ){
    rc = claimDesign(p, pbClaimed);
    if( rc != SQLITE_OK ) return rc;
  }
  aSplit = sqlite3_malloc64(sizeof(CsBytes) * (size_t)(p->args.nSplit + 1));
  if( aSplit == 0 ) return SQLITE_NOMEM;
  tableSpec(p, &spec, aSplit);
  code = csRetry(p, &p->wait, createOnce, &spec, &st);
  if( code == CS_OK ){
    /* The record says this CREATE made it (unless EXTERNAL), so that its
    ** DROP deletes it; under a record of the same design whose table was
    ** deleted outside widecol, this CREATE's record replaces it. */
    *pbMade = 1;
    if( bRecord && (!p->args.bExternal || !*pbClaimed) ){
      rc = csCatalogWrite(p, !p->args.bExternal);
      *pbClaimed = rc == SQLITE_OK;
    }
  }else if( code == CS_EXISTS ){
    /* Made before (by this design, in another database or session, or
    ** outside widecol): taken over if its families keep what the design
    ** keeps.  A record claimed just now says "not made": this CREATE's
    ** DROP keeps the table. */
    CsTableInfo *pInfo = 0;
    csStatusClear(&st);
    code = getTable(p, &pInfo, &st);
    if( code == CS_OK ) rc = checkTakeover(p, pInfo);
    sqlite3_free(pInfo);
  }
  if( code != CS_OK && rc == SQLITE_OK ){
    rc = csRpcError(p, "could not create the table", &st);
  }
  csStatusClear(&st);
  sqlite3_free(aSplit);
  return rc;
}

/* One attempt at deleting table pArg (csRetry()). */
static int deleteOnce(CsTable *p, void *pArg, const CsWait *pWait,
                      CsStatus *pSt){
  return p->pT->xDeleteTable(p->pConn, (const char*)pArg, pWait, pSt);
}

int csDeleteRemote(CsTable *p, const char *zResource){
  CsStatus st = {0, 0};
  int code, rc = SQLITE_OK;
  if( csTableConnect(p) ) return SQLITE_ERROR;
  code = csRetry(p, &p->wait, deleteOnce, (void*)zResource, &st);
  /* Gone already is what DROP wants. */
  if( code != CS_OK && code != CS_NOT_FOUND ){
    rc = csRpcError(p, "could not delete the table", &st);
  }
  csStatusClear(&st);
  return rc;
}

void csUndoCreate(CsTable *p, int bMade, int bClaimed){
  int rc = bMade ? csDeleteRemote(p, p->args.zResource) : SQLITE_OK;
  if( rc == SQLITE_OK && bClaimed ) rc = csCatalogForget(p);
  if( rc != SQLITE_OK ){
    /* Undoing cannot fail the ROLLBACK that asked for it. */
    sqlite3_log(rc, "widecol %s: undoing its CREATE: %s", p->zTable,
                p->base.zErrMsg ? p->base.zErrMsg : "?");
  }
}

int csDropRemote(CsTable *p, int *pbKept){
  CsRecord rec;
  int rc;
  *pbKept = 1;
  if( p->args.bExternal || p->eKind == CS_OLDER ) return SQLITE_OK;
  if( p->args.zOwner == 0 ){
    /* Made by widecol 1.0: no record, deleted as 1.0 did. */
    *pbKept = 0;
    return csDeleteRemote(p, p->args.zResource);
  }
  memset(&rec, 0, sizeof(rec));
  if( csTableConnect(p) ) return SQLITE_ERROR;
  rc = csCatalogRead(p, &rec);
  if( rc == SQLITE_OK && rec.bFound && rec.bMade && rec.zOwner
   && strcmp(rec.zOwner, p->args.zOwner) == 0 ){
    *pbKept = 0;
    rc = csDeleteRemote(p, p->args.zResource);
    if( rc == SQLITE_OK ) rc = csCatalogForget(p);
  }
  csRecordClear(&rec);
  return rc;
}

int csMissingColumn(CsTable *p, int iCol, const unsigned char *aKey,
                    size_t nKey){
  CsTableInfo *pInfo = 0;
  CsStatus st = {0, 0};
  const char *zFamily = p->aCol[iCol].zFamily;
  char *zKey = csDescribeKey(aKey, nKey);
  int code, bGone = 0, rc;
  code = getTable(p, &pInfo, &st);
  if( code == CS_OK ) bGone = familyOf(pInfo, zFamily) == 0;
  sqlite3_free(pInfo);
  csStatusClear(&st);
  if( bGone ){
    char *zMake = sqlite3_mprintf(p->pT->zMakeFamily,
                                  csResourceId(p, p->args.zResource),
                                  zFamily);
    rc = csError(p, SQLITE_ERROR, "widecol %s: the %s table %s has no "
        "column family \"%s\" any more (deleted outside widecol?), so "
        "column %s of row %s, which was written with a value, cannot be "
        "read: make the family again (%s; its cells are gone) and write the "
        "values again, or DROP the widecol table", p->zTable,
        p->pT->pKind->zEngine, p->args.zResource, zFamily, p->aCol[iCol].zName,
        zKey ? zKey : "?", zMake ? zMake : "?");
    sqlite3_free(zMake);
  }else{
    rc = csError(p, SQLITE_ERROR, "widecol %s: column %s of row %s was "
        "written with a value, but %s table %s has no cell for it "
        "(family \"%s\"): it was deleted outside widecol (a delete, or a "
        "GC rule of the family?); write the row again", p->zTable,
        p->aCol[iCol].zName, zKey ? zKey : "?", p->pT->pKind->zEngine,
        p->args.zResource, zFamily);
  }
  sqlite3_free(zKey);
  return rc;
}
