/*
** wc_workload.c: widecol_advise()'s workload, learned by SQLite itself
** (wc_workload.h).
**
** Nothing here parses SQL.  Each statement is prepared, in the advisor's
** private connection, against a probe virtual table that carries the
** source table's name and columns.  SQLite's planner hands the probe's
** xBestIndex every constraint and ORDER BY term on a column, and the
** columns used; the probe marks every usable constraint for xFilter.
** The statement then runs once with each parameter ?k bound to the
** sentinel WC_SENTINEL + k: a value that reaches xFilter (or, written,
** xUpdate) as the sentinel of ?k says that ?k is compared with, or
** written to, that column.  xFilter returns one row of NULLs, which no
** constraint filters (each is marked omitted), so an UPDATE reaches
** xUpdate with the values its SET gives.
*/
#include "tools/wc_workload.h"
#include "util/wc_buf.h"

#include <string.h>

/* Below 2^53, so that a REAL column's affinity keeps it exact. */
#define WC_SENTINEL 777000000000000LL
#define WC_MAX_PARAM 999

typedef struct Probe Probe;
struct Probe {
  WcWorkStmt *pStmt;    /* The statement being learned */
  int nCol;
};

typedef struct ProbeVtab ProbeVtab;
struct ProbeVtab {
  sqlite3_vtab base;
  Probe *pProbe;
};

typedef struct ProbeCursor ProbeCursor;
struct ProbeCursor {
  sqlite3_vtab_cursor base;
  int bEof;
};

/* argv[3...] are the column definitions. */
static int probeConnect(sqlite3 *db, void *pAux, int argc,
                        const char *const *argv, sqlite3_vtab **ppVtab,
                        char **pzErr){
  sqlite3_str *pStr = sqlite3_str_new(db);
  ProbeVtab *p;
  char *zSql;
  int i, rc;
  sqlite3_str_appendall(pStr, "CREATE TABLE x(");
  for(i = 3; i < argc; i++){
    sqlite3_str_appendf(pStr, "%s%s", i > 3 ? ", " : "", argv[i]);
  }
  sqlite3_str_appendall(pStr, ")");
  zSql = sqlite3_str_finish(pStr);
  if( zSql == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zSql);
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return rc;
  }
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pProbe = (Probe*)pAux;
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int probeDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int opOf(unsigned char op){
  switch( op ){
    case SQLITE_INDEX_CONSTRAINT_EQ:
    case SQLITE_INDEX_CONSTRAINT_IS:     return WC_WORK_EQ;
    case SQLITE_INDEX_CONSTRAINT_GT:
    case SQLITE_INDEX_CONSTRAINT_GE:     return WC_WORK_LO;
    case SQLITE_INDEX_CONSTRAINT_LT:
    case SQLITE_INDEX_CONSTRAINT_LE:     return WC_WORK_HI;
    case SQLITE_INDEX_CONSTRAINT_LIKE:   return WC_WORK_LIKE;
    case SQLITE_INDEX_CONSTRAINT_GLOB:   return WC_WORK_GLOB;
    case SQLITE_INDEX_CONSTRAINT_LIMIT:  return WC_WORK_LIMIT;
    case SQLITE_INDEX_CONSTRAINT_OFFSET: return WC_WORK_OFFSET;
    default:                             return WC_WORK_NONE;
  }
}

static int hasInt(const int *a, int n, int v){
  int i;
  for(i = 0; i < n; i++) if( a[i] == v ) return 1;
  return 0;
}

/* Records the constraints, ORDER BY and columns used, and passes every
** usable constraint to xFilter; idxStr lists them as "column:op," pairs. */
static int probeBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  Probe *pProbe = ((ProbeVtab*)pVtab)->pProbe;
  WcWorkStmt *pW = pProbe->pStmt;
  sqlite3_str *pStr = sqlite3_str_new(0);
  int i, n = 0;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int eOp = opOf(pC->op), iCol = pC->iColumn;
    if( !pC->usable || eOp == WC_WORK_NONE ) continue;
    if( eOp != WC_WORK_LIMIT && eOp != WC_WORK_OFFSET ){
      if( iCol < 0 || iCol >= pProbe->nCol ) continue;
      if( pW && eOp == WC_WORK_EQ && !hasInt(pW->aiEq, pW->nEq, iCol) ){
        pW->aiEq[pW->nEq++] = iCol;
      }else if( pW && eOp != WC_WORK_EQ && pW->iRange < 0 ){
        pW->iRange = iCol;
      }
    }
    pInfo->aConstraintUsage[i].argvIndex = ++n;
    pInfo->aConstraintUsage[i].omit = 1;
    sqlite3_str_appendf(pStr, "%d:%d,", iCol, eOp);
  }
  for(i = 0; pW && pW->nOrder == 0 && i < pInfo->nOrderBy; i++){
    int iCol = pInfo->aOrderBy[i].iColumn;
    if( iCol < 0 || iCol >= pProbe->nCol ) break;
    pW->aiOrder[i] = iCol;
    pW->abDesc[i] = pInfo->aOrderBy[i].desc != 0;
    if( i == pInfo->nOrderBy - 1 ) pW->nOrder = pInfo->nOrderBy;
  }
  for(i = 0; pW && i < pProbe->nCol; i++){
    if( pInfo->colUsed & ((sqlite3_uint64)1 << (i < 63 ? i : 63)) ){
      pW->abRead[i] = 1;
    }
  }
  if( sqlite3_str_errcode(pStr) ){
    sqlite3_free(sqlite3_str_finish(pStr));
    return SQLITE_NOMEM;
  }
  pInfo->idxStr = sqlite3_str_finish(pStr);   /* NULL when empty */
  pInfo->needToFreeIdxStr = 1;
  /* The plan that uses the most constraints wins, so every parameter of
  ** the statement reaches xFilter. */
  pInfo->estimatedCost = 1e6 / (1.0 + 10.0 * n);
  pInfo->estimatedRows = 1;
  return SQLITE_OK;
}

static int probeOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  ProbeCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  (void)pVtab;
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static int probeClose(sqlite3_vtab_cursor *pCur){
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* The parameter whose sentinel pVal is, or 0. */
static int sentinelOf(const WcWorkStmt *pW, sqlite3_value *pVal){
  sqlite3_int64 v;
  int eType = sqlite3_value_numeric_type(pVal);
  if( eType != SQLITE_INTEGER && eType != SQLITE_FLOAT ) return 0;
  v = sqlite3_value_int64(pVal) - WC_SENTINEL;
  if( eType == SQLITE_FLOAT
   && sqlite3_value_double(pVal) != (double)(v + WC_SENTINEL) ){
    return 0;
  }
  return v >= 1 && v <= pW->nParam ? (int)v : 0;
}

static void noteParam(WcWorkStmt *pW, sqlite3_value *pVal, int iCol,
                      int eOp){
  int k = pW ? sentinelOf(pW, pVal) : 0;
  if( k && pW->aeParamOp[k - 1] == WC_WORK_NONE ){
    pW->aiParamCol[k - 1] = iCol;
    pW->aeParamOp[k - 1] = eOp;
  }
}

static int probeFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                       const char *idxStr, int argc, sqlite3_value **argv){
  ProbeCursor *pCur = (ProbeCursor*)pCursor;
  WcWorkStmt *pW = ((ProbeVtab*)pCursor->pVtab)->pProbe->pStmt;
  const char *z = idxStr ? idxStr : "";
  int i;
  (void)idxNum;
  for(i = 0; i < argc && *z; i++){
    int iCol = 0, eOp = 0, bNeg = 0;
    if( *z == '-' ){ bNeg = 1; z++; }
    while( *z >= '0' && *z <= '9' ) iCol = iCol * 10 + (*z++ - '0');
    if( *z == ':' ) z++;
    while( *z >= '0' && *z <= '9' ) eOp = eOp * 10 + (*z++ - '0');
    if( *z == ',' ) z++;
    noteParam(pW, argv[i], bNeg ? -1 : iCol, eOp);
  }
  pCur->bEof = 0;
  return SQLITE_OK;
}

static int probeNext(sqlite3_vtab_cursor *pCur){
  ((ProbeCursor*)pCur)->bEof = 1;
  return SQLITE_OK;
}

static int probeEof(sqlite3_vtab_cursor *pCur){
  return ((ProbeCursor*)pCur)->bEof;
}

static int probeColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx,
                       int i){
  (void)pCur; (void)i;
  sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int probeRowid(sqlite3_vtab_cursor *pCur, sqlite3_int64 *piRowid){
  (void)pCur;
  *piRowid = 1;
  return SQLITE_OK;
}

static int probeUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                       sqlite3_int64 *piRowid){
  Probe *pProbe = ((ProbeVtab*)pVtab)->pProbe;
  int i;
  for(i = 2; i < argc; i++){
    noteParam(pProbe->pStmt, argv[i], i - 2, WC_WORK_SET);
  }
  *piRowid = 1;
  return SQLITE_OK;
}

static const sqlite3_module probeModule = {
  0, probeConnect, probeConnect, probeBestIndex, probeDisconnect,
  probeDisconnect, probeOpen, probeClose, probeFilter, probeNext, probeEof,
  probeColumn, probeRowid, probeUpdate, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

/*
** Loading.
*/

/* The tables a statement names, seen by the authorizer while it is
** prepared: the source's name, or another one (zOther). */
typedef struct Names Names;
struct Names {
  const char *zSource;
  int bSource;
  char *zOther;
  int bWriteOther;      /* A write that is no INSERT, UPDATE or DELETE */
};

static int namesAuth(void *pArg, int eCode, const char *z1, const char *z2,
                     const char *zDb, const char *zTrigger){
  Names *p = (Names*)pArg;
  const char *zTable = 0;
  (void)z2; (void)zDb; (void)zTrigger;
  switch( eCode ){
    case SQLITE_READ: case SQLITE_INSERT: case SQLITE_UPDATE:
    case SQLITE_DELETE:
      zTable = z1;
      break;
    case SQLITE_SELECT: case SQLITE_FUNCTION: case SQLITE_RECURSIVE:
    case SQLITE_TRANSACTION: case SQLITE_SAVEPOINT: case SQLITE_PRAGMA:
      break;
    default:
      p->bWriteOther = 1;
      break;
  }
  if( zTable && sqlite3_stricmp(zTable, p->zSource) == 0 ){
    p->bSource = 1;
  }else if( zTable && sqlite3_strnicmp(zTable, "sqlite_", 7) != 0
         && p->zOther == 0 ){
    p->zOther = sqlite3_mprintf("%s", zTable);
  }
  return SQLITE_OK;
}

static int stmtAlloc(WcWorkStmt *pW, int nCol, int nParam){
  pW->nParam = nParam;
  pW->iRange = -1;
  pW->aiEq = sqlite3_malloc64(sizeof(int) * 3 * (sqlite3_uint64)nCol
                              + 2 * (sqlite3_uint64)nCol
                              + sizeof(int) * 2 * (sqlite3_uint64)(nParam + 1));
  if( pW->aiEq == 0 ) return SQLITE_NOMEM;
  memset(pW->aiEq, 0, sizeof(int) * 3 * (size_t)nCol + 2 * (size_t)nCol
                      + sizeof(int) * 2 * (size_t)(nParam + 1));
  pW->aiOrder = &pW->aiEq[nCol];
  pW->aiParamCol = &pW->aiOrder[nCol];
  pW->aeParamOp = &pW->aiParamCol[nParam + 1];
  pW->abDesc = (unsigned char*)&pW->aeParamOp[nParam + 1];
  pW->abRead = &pW->abDesc[nCol];
  memset(pW->aiParamCol, 0xff, sizeof(int) * (size_t)(nParam + 1));
  return SQLITE_OK;
}

/* Learns statement pW (its zSql and weight set) on pPriv, where the probe
** is the source.  iStmt numbers it for messages. */
static int learnStmt(sqlite3 *pPriv, Probe *pProbe, const char *zSource,
                     int iStmt, WcWorkStmt *pW, char **pzErr){
  Names names;
  sqlite3_stmt *pStmt = 0;
  const char *zTail = 0;
  int rc, k;
  memset(&names, 0, sizeof(names));
  names.zSource = zSource;
  sqlite3_set_authorizer(pPriv, namesAuth, &names);
  pProbe->pStmt = 0;
  rc = sqlite3_prepare_v2(pPriv, pW->zSql, -1, &pStmt, &zTail);
  sqlite3_set_authorizer(pPriv, 0, 0);
  if( rc != SQLITE_OK || pStmt == 0 ){
    *pzErr = sqlite3_mprintf("widecol_advise: workload statement %d (%s) "
        "does not prepare against %s: %s; fix the statement", iStmt,
        pW->zSql, zSource, pStmt == 0 && rc == SQLITE_OK
        ? "it is empty" : sqlite3_errmsg(pPriv));
    sqlite3_finalize(pStmt);
    return SQLITE_ERROR;
  }
  while( zTail && (*zTail == ' ' || *zTail == ';' || *zTail == '\n'
                   || *zTail == '\t' || *zTail == '\r') ){
    zTail++;
  }
  if( names.zOther || !names.bSource || names.bWriteOther
   || (zTail && *zTail) ){
    *pzErr = sqlite3_mprintf("widecol_advise: workload statement %d (%s) "
        "%s%s; each statement must read or write %s alone, in one SELECT, "
        "INSERT, UPDATE or DELETE", iStmt, pW->zSql,
        names.zOther ? "names table " : !names.bSource ? "reads no table"
        : names.bWriteOther ? "is not a SELECT, INSERT, UPDATE or DELETE"
        : "is more than one statement",
        names.zOther ? names.zOther : "", zSource);
    sqlite3_free(names.zOther);
    sqlite3_finalize(pStmt);
    return SQLITE_ERROR;
  }
  pW->bWrite = !sqlite3_stmt_readonly(pStmt);
  if( sqlite3_bind_parameter_count(pStmt) > WC_MAX_PARAM ){
    sqlite3_finalize(pStmt);
    *pzErr = sqlite3_mprintf("widecol_advise: workload statement %d has "
                             "more than %d parameters", iStmt, WC_MAX_PARAM);
    return SQLITE_ERROR;
  }
  rc = stmtAlloc(pW, pProbe->nCol, sqlite3_bind_parameter_count(pStmt));
  if( rc != SQLITE_OK ){
    sqlite3_finalize(pStmt);
    return rc;
  }
  /* Prepared again with the statement recording: SQLite may have planned
  ** it before the arrays were there. */
  sqlite3_finalize(pStmt);
  pProbe->pStmt = pW;
  rc = sqlite3_prepare_v2(pPriv, pW->zSql, -1, &pStmt, 0);
  for(k = 1; rc == SQLITE_OK && k <= pW->nParam; k++){
    sqlite3_bind_int64(pStmt, k, WC_SENTINEL + k);
  }
  while( rc == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW ){}
  if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
  else sqlite3_finalize(pStmt);
  pProbe->pStmt = 0;
  if( rc != SQLITE_OK ){
    *pzErr = sqlite3_mprintf("widecol_advise: workload statement %d (%s) "
        "failed when run: %s", iStmt, pW->zSql, sqlite3_errmsg(pPriv));
  }
  return rc;
}

/* What the workload argument was instead of a query of (sql, weight)
** rows, for the message: its error, or its columns. */
static char *workloadGot(sqlite3 *db, int rc, sqlite3_stmt *pList,
                         const char *zQuery){
  sqlite3_str *pStr;
  int i, n;
  if( rc != SQLITE_OK ) return sqlite3_mprintf("%s", sqlite3_errmsg(db));
  if( pList == 0 ){
    return sqlite3_mprintf("got no statement (%Q)", zQuery);
  }
  if( !sqlite3_stmt_readonly(pList) ){
    return sqlite3_mprintf("got a statement that writes: %s", zQuery);
  }
  pStr = sqlite3_str_new(0);
  n = sqlite3_column_count(pList);
  sqlite3_str_appendf(pStr, "got a query of %d column%s (", n,
                      n == 1 ? "" : "s");
  for(i = 0; i < n; i++){
    sqlite3_str_appendf(pStr, "%s%s", i ? ", " : "",
                        sqlite3_column_name(pList, i));
  }
  sqlite3_str_appendall(pStr, ")");
  return sqlite3_str_finish(pStr);
}

int wcWorkloadLoad(sqlite3 *db, sqlite3 *pPriv, const char *zSource,
                   const char *zQuery, int nCol, const char *zColumns,
                   WcWorkload *p, char **pzErr){
  Probe probe;
  sqlite3_stmt *pList = 0;
  char *zSql;
  int rc, nAlloc = 0;
  memset(p, 0, sizeof(*p));
  p->nCol = nCol;
  probe.pStmt = 0;
  probe.nCol = nCol;
  /* The module keeps a pointer to probe after this returns; only a table
  ** of the module uses it, and the one made here is dropped below (the
  ** advisor closes the connection soon after). */
  rc = sqlite3_create_module(pPriv, "widecol_advise_probe", &probeModule,
                             &probe);
  if( rc != SQLITE_OK ) return rc;
  zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                         "widecol_advise_probe(%s)", zSource, zColumns);
  rc = zSql ? sqlite3_exec(pPriv, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc != SQLITE_OK ){
    *pzErr = sqlite3_mprintf("widecol_advise: %s", sqlite3_errmsg(pPriv));
    return rc;
  }
  rc = sqlite3_prepare_v2(db, zQuery, -1, &pList, 0);
  if( rc != SQLITE_OK || pList == 0 || sqlite3_column_count(pList) < 2
   || !sqlite3_stmt_readonly(pList) ){
    *pzErr = sqlite3_mprintf("widecol_advise: the workload must be one "
        "query whose rows are (sql, weight): the text of a statement on %s "
        "and how often it runs, as in 'SELECT sql, weight FROM workload'; "
        "%z", zSource, workloadGot(db, rc, pList, zQuery));
    sqlite3_finalize(pList);
    return rc != SQLITE_OK ? rc : SQLITE_ERROR;
  }
  while( (rc = sqlite3_step(pList)) == SQLITE_ROW ){
    WcWorkStmt *pW;
    const char *zStmt = (const char*)sqlite3_column_text(pList, 0);
    int eWeight = sqlite3_column_type(pList, 1);
    double rWeight = sqlite3_column_double(pList, 1);
    if( p->nStmt == nAlloc ){
      int nNew = nAlloc ? 2 * nAlloc : 8;
      WcWorkStmt *aNew = sqlite3_realloc64(p->aStmt,
                             sizeof(WcWorkStmt) * (sqlite3_uint64)nNew);
      if( aNew == 0 ){
        rc = SQLITE_NOMEM;
        break;
      }
      memset(&aNew[nAlloc], 0, sizeof(WcWorkStmt) * (size_t)(nNew - nAlloc));
      p->aStmt = aNew;
      nAlloc = nNew;
    }
    pW = &p->aStmt[p->nStmt++];
    if( zStmt == 0 || (eWeight != SQLITE_INTEGER && eWeight != SQLITE_FLOAT)
     || !(rWeight > 0.0) ){
      const char *zWeight = (const char*)sqlite3_column_text(pList, 1);
      if( zStmt == 0 ){
        *pzErr = sqlite3_mprintf("widecol_advise: workload row %d has no "
            "statement (sql is NULL); each row is a statement and a weight "
            "above 0", p->nStmt);
      }else{
        *pzErr = sqlite3_mprintf("widecol_advise: workload statement %d (%s) "
            "has weight %s; a weight is a number above 0, how often the "
            "statement runs relative to the others", p->nStmt, zStmt,
            zWeight ? zWeight : "NULL");
      }
      rc = SQLITE_ERROR;
      break;
    }
    pW->zSql = sqlite3_mprintf("%s", zStmt);
    pW->rWeight = rWeight;
    if( pW->zSql == 0 ){
      rc = SQLITE_NOMEM;
      break;
    }
    rc = learnStmt(pPriv, &probe, zSource, p->nStmt, pW, pzErr);
    if( rc != SQLITE_OK ) break;
  }
  if( rc == SQLITE_DONE ) rc = SQLITE_OK;
  if( rc != SQLITE_OK && *pzErr == 0 && rc != SQLITE_NOMEM ){
    *pzErr = sqlite3_mprintf("widecol_advise: the workload query failed: %s",
                             sqlite3_errmsg(db));
  }
  sqlite3_finalize(pList);
  if( rc == SQLITE_OK && p->nStmt == 0 ){
    *pzErr = sqlite3_mprintf("widecol_advise: the workload query returned no "
        "statements; give at least one (sql, weight) row");
    rc = SQLITE_ERROR;
  }
  zSql = sqlite3_mprintf("DROP TABLE \"%w\"", zSource);
  if( zSql ) sqlite3_exec(pPriv, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  return rc;
}

/*
** Draws.
*/

static uint64_t nextRandom(uint64_t *pState){
  uint64_t z = (*pState += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The value of one row of the sample (zExpr over column zCol), or a
** value zSql computes with ?1 the row's value: a copy, NULL if none. */
static sqlite3_value *sampleValue(sqlite3 *pPriv, const char *zSql,
                                  int64_t iRow, sqlite3_value *pArg,
                                  int *pRc){
  sqlite3_stmt *pStmt = 0;
  sqlite3_value *pOut = 0;
  int rc = sqlite3_prepare_v2(pPriv, zSql, -1, &pStmt, 0);
  if( rc == SQLITE_OK ){
    if( pArg ) sqlite3_bind_value(pStmt, 1, pArg);
    else sqlite3_bind_int64(pStmt, 1, iRow);
    if( sqlite3_step(pStmt) == SQLITE_ROW ){
      pOut = sqlite3_value_dup(sqlite3_column_value(pStmt, 0));
      if( pOut == 0 ) rc = SQLITE_NOMEM;
    }
    if( rc == SQLITE_OK ) rc = sqlite3_finalize(pStmt);
    else sqlite3_finalize(pStmt);
  }
  if( rc != SQLITE_OK ) *pRc = rc;
  return pOut;
}

/* A value for parameter k of pW in a draw around sample row iRow: the
** row's own for '=' and written values and a lower bound; for an upper
** bound, the value a hundredth of the sample past the lower bound (or
** the row's) in the column's order, so ranges are short, as "this week"
** is; a prefix of the row's value for LIKE and GLOB; 10 for LIMIT. */
static sqlite3_value *drawValue(sqlite3 *pPriv, const char *zSample,
                                int64_t nSample, const char *const *azCol,
                                const WcWorkStmt *pW, int k, int64_t iRow,
                                sqlite3_value **apSet, int *pRc){
  int iCol = pW->aiParamCol[k], eOp = pW->aeParamOp[k], j;
  sqlite3_value *pOut = 0, *pLo = 0;
  char *zSql = 0;
  switch( eOp ){
    case WC_WORK_EQ: case WC_WORK_LO: case WC_WORK_SET:
      zSql = sqlite3_mprintf("SELECT \"%w\" FROM %s WHERE rowid = ?1",
                             azCol[iCol], zSample);
      break;
    case WC_WORK_HI:
      for(j = 0; j < pW->nParam; j++){
        if( pW->aiParamCol[j] == iCol && pW->aeParamOp[j] == WC_WORK_LO ){
          pLo = apSet[j];
        }
      }
      if( pLo == 0 ){
        zSql = sqlite3_mprintf("SELECT \"%w\" FROM %s WHERE rowid = ?1",
                               azCol[iCol], zSample);
        break;
      }
      zSql = sqlite3_mprintf("SELECT coalesce((SELECT \"%w\" FROM %s WHERE "
          "\"%w\" >= ?1 ORDER BY \"%w\" LIMIT 1 OFFSET %lld), (SELECT "
          "max(\"%w\") FROM %s))", azCol[iCol], zSample, azCol[iCol],
          azCol[iCol], (long long)(nSample / 100 > 1 ? nSample / 100 : 1),
          azCol[iCol], zSample);
      break;
    case WC_WORK_LIKE: case WC_WORK_GLOB:
      zSql = sqlite3_mprintf("SELECT substr(CAST(\"%w\" AS TEXT), 1, "
          "max(1, length(CAST(\"%w\" AS TEXT)) / 2)) || '%s' FROM %s "
          "WHERE rowid = ?1", azCol[iCol], azCol[iCol],
          eOp == WC_WORK_LIKE ? "%" : "*", zSample);
      break;
    case WC_WORK_LIMIT:
      zSql = sqlite3_mprintf("SELECT 10");
      break;
    case WC_WORK_OFFSET:
      zSql = sqlite3_mprintf("SELECT 0");
      break;
    default:
      zSql = sqlite3_mprintf("SELECT NULL");
      break;
  }
  if( zSql == 0 ){
    *pRc = SQLITE_NOMEM;
    return 0;
  }
  pOut = sampleValue(pPriv, zSql, iRow, pLo, pRc);
  sqlite3_free(zSql);
  return pOut;
}

int wcWorkloadDraw(sqlite3 *pPriv, const char *zSample, int64_t nSample,
                   const char *const *azCol, WcWorkload *p, int nDraw,
                   uint64_t iSeed, char **pzErr){
  int i, d, k, rc = SQLITE_OK;
  p->nDraw = nDraw;
  for(i = 0; i < p->nStmt && rc == SQLITE_OK; i++){
    WcWorkStmt *pW = &p->aStmt[i];
    uint64_t iState = iSeed * 1000003u + (uint64_t)i;
    size_t nByte = sizeof(sqlite3_value*) * (size_t)nDraw
                   * (size_t)(pW->nParam ? pW->nParam : 1);
    pW->apDraw = sqlite3_malloc64(nByte);
    if( pW->apDraw == 0 ) return SQLITE_NOMEM;
    memset(pW->apDraw, 0, nByte);
    for(d = 0; d < nDraw && rc == SQLITE_OK; d++){
      sqlite3_value **apSet = &pW->apDraw[d * pW->nParam];
      int64_t iRow = 1 + (int64_t)(nextRandom(&iState) % (uint64_t)nSample);
      /* Lower bounds first: an upper bound is drawn past its own. */
      for(k = 0; k < pW->nParam && rc == SQLITE_OK; k++){
        if( pW->aeParamOp[k] != WC_WORK_HI ){
          apSet[k] = drawValue(pPriv, zSample, nSample, azCol, pW, k, iRow,
                               apSet, &rc);
        }
      }
      for(k = 0; k < pW->nParam && rc == SQLITE_OK; k++){
        if( pW->aeParamOp[k] == WC_WORK_HI ){
          apSet[k] = drawValue(pPriv, zSample, nSample, azCol, pW, k, iRow,
                               apSet, &rc);
        }
      }
    }
  }
  if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
    *pzErr = sqlite3_mprintf("widecol_advise: drawing parameters from the "
                             "sample failed: %s", sqlite3_errmsg(pPriv));
  }
  return rc;
}

void wcWorkloadBind(const WcWorkload *p, int iStmt, int iDraw,
                    sqlite3_stmt *pStmt){
  const WcWorkStmt *pW = &p->aStmt[iStmt];
  int k;
  for(k = 0; k < pW->nParam; k++){
    sqlite3_value *pVal = pW->apDraw[iDraw * pW->nParam + k];
    if( pVal ) sqlite3_bind_value(pStmt, k + 1, pVal);
    else sqlite3_bind_null(pStmt, k + 1);
  }
}

void wcWorkloadFree(WcWorkload *p){
  int i, k;
  for(i = 0; i < p->nStmt; i++){
    WcWorkStmt *pW = &p->aStmt[i];
    for(k = 0; pW->apDraw && k < p->nDraw * pW->nParam; k++){
      sqlite3_value_free(pW->apDraw[k]);
    }
    sqlite3_free(pW->apDraw);
    sqlite3_free(pW->aiEq);
    sqlite3_free(pW->zSql);
  }
  sqlite3_free(p->aStmt);
  memset(p, 0, sizeof(*p));
}
