/*
** wc_tvf.c: the eponymous virtual-table module behind widecol's
** table-valued functions (see wc_tvf.h).
**
** Arguments are HIDDEN columns that xBestIndex requires as '=' terms, in
** the order declared; idxNum tells xFilter which were given.  xFilter
** runs the function's fill callback once, which stores every row as typed
** cells, and the cursor walks them.
*/
#include "tools/wc_tvf.h"

#include <stdarg.h>
#include <string.h>

#define WC_TVF_MAX_ARG 8

typedef struct WcTvfCell WcTvfCell;
struct WcTvfCell {
  int eType;            /* SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB or _NULL */
  sqlite3_int64 i;
  double r;
  char *z;              /* Text or blob bytes, owned */
  sqlite3_int64 n;
};

struct WcTvfRows {
  int nCol;
  int nRow;
  int nAlloc;           /* Cells allocated */
  WcTvfCell *aCell;     /* nRow * nCol cells */
  WcTvfRegister xRegister;  /* For wcTvfOpenWidecol() */
};

typedef struct TvfVtab TvfVtab;
struct TvfVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  const WcTvfHost *pHost;   /* The function's definition, and the entry
                            ** point for wcTvfOpenWidecol() */
  int nCol;             /* Result columns, before the arguments */
  int nArg;
};

typedef struct TvfCursor TvfCursor;
struct TvfCursor {
  sqlite3_vtab_cursor base;
  WcTvfRows rows;
  sqlite3_value *apArg[WC_TVF_MAX_ARG];
  int iRow;
};

/* Items in a comma-separated list. */
static int listLength(const char *z){
  int n = 1;
  for(; *z; z++) n += *z == ',';
  return n;
}

static void cellClear(WcTvfCell *pCell){
  sqlite3_free(pCell->z);
  memset(pCell, 0, sizeof(*pCell));
}

static int cellBytes(WcTvfCell *pCell, int eType, const void *a,
                     sqlite3_int64 n){
  if( a == 0 ){
    pCell->eType = SQLITE_NULL;
    return SQLITE_OK;
  }
  pCell->z = sqlite3_malloc64((sqlite3_uint64)n + 1);
  if( pCell->z == 0 ) return SQLITE_NOMEM;
  if( n ) memcpy(pCell->z, a, (size_t)n);
  pCell->z[n] = 0;
  pCell->n = n;
  pCell->eType = eType;
  return SQLITE_OK;
}

int wcTvfPrepareQuery(sqlite3 *db, const char *zFunc, const char *zSql,
                      const char *zWhat, sqlite3_stmt **ppStmt, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  const char *zTail = 0;
  int bMore = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, &zTail);
  *ppStmt = 0;
  if( rc != SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s: the query does not prepare: %s", zFunc,
                             sqlite3_errmsg(db));
    return rc;
  }
  if( zTail && *zTail ){
    /* Only spaces, comments and semicolons may follow the query: they
    ** prepare to no statement. */
    sqlite3_stmt *pNext = 0;
    if( sqlite3_prepare_v2(db, zTail, -1, &pNext, 0) != SQLITE_OK || pNext ){
      sqlite3_finalize(pNext);
      bMore = 1;
    }
  }
  if( pStmt == 0 || bMore || sqlite3_column_count(pStmt) < 1
   || !sqlite3_stmt_readonly(pStmt) ){
    *pzErr = sqlite3_mprintf("%s: the first argument must be one query that "
                             "only reads and returns %s; got %Q", zFunc,
                             zWhat, zSql);
    sqlite3_finalize(pStmt);
    return SQLITE_ERROR;
  }
  *ppStmt = pStmt;
  return SQLITE_OK;
}

int wcTvfAddRow(WcTvfRows *pRows, const char *zFormat, ...){
  va_list ap;
  WcTvfCell *aRow;
  int i, rc = SQLITE_OK;
  if( (pRows->nRow + 1) * pRows->nCol > pRows->nAlloc ){
    int nNew = pRows->nAlloc ? 2 * pRows->nAlloc : 16 * pRows->nCol;
    WcTvfCell *aNew = sqlite3_realloc64(pRows->aCell,
                                        sizeof(WcTvfCell) * (sqlite3_uint64)nNew);
    if( aNew == 0 ) rc = SQLITE_NOMEM;
    else{
      pRows->aCell = aNew;
      pRows->nAlloc = nNew;
    }
  }
  va_start(ap, zFormat);
  aRow = rc == SQLITE_OK ? &pRows->aCell[pRows->nRow * pRows->nCol] : 0;
  if( aRow ) memset(aRow, 0, sizeof(WcTvfCell) * (size_t)pRows->nCol);
  for(i = 0; zFormat[i]; i++){
    WcTvfCell cell;
    memset(&cell, 0, sizeof(cell));
    switch( zFormat[i] ){
      case 't': {
        const char *z = va_arg(ap, const char*);
        if( rc == SQLITE_OK ){
          rc = cellBytes(&cell, SQLITE_TEXT, z, z ? (sqlite3_int64)strlen(z) : 0);
        }
        break;
      }
      case 'm': {
        char *z = va_arg(ap, char*);
        if( rc == SQLITE_OK && z ){
          cell.eType = SQLITE_TEXT;
          cell.z = z;
          cell.n = (sqlite3_int64)strlen(z);
        }else{
          sqlite3_free(z);
        }
        break;
      }
      case 'b':
      case 'x': {
        const void *a = va_arg(ap, const void*);
        sqlite3_int64 n = va_arg(ap, sqlite3_int64);
        if( rc == SQLITE_OK ){
          rc = cellBytes(&cell, zFormat[i] == 'b' ? SQLITE_BLOB : SQLITE_TEXT,
                         a, n);
        }
        break;
      }
      case 'i':
      case 'I':
        cell.i = va_arg(ap, sqlite3_int64);
        cell.eType = zFormat[i] == 'I' && cell.i < 0 ? SQLITE_NULL
                                                      : SQLITE_INTEGER;
        break;
      case 'r':
        cell.eType = SQLITE_FLOAT;
        cell.r = va_arg(ap, double);
        break;
      default:
        cell.eType = SQLITE_NULL;
        break;
    }
    if( rc == SQLITE_OK && i < pRows->nCol ){
      aRow[i] = cell;
    }else{
      cellClear(&cell);
    }
  }
  va_end(ap);
  if( rc == SQLITE_OK ){
    pRows->nRow++;
  }else if( aRow ){
    for(i = 0; i < pRows->nCol; i++) cellClear(&aRow[i]);
  }
  return rc;
}

static void rowsClear(WcTvfRows *pRows){
  int i;
  for(i = 0; i < pRows->nRow * pRows->nCol; i++) cellClear(&pRows->aCell[i]);
  sqlite3_free(pRows->aCell);
  pRows->aCell = 0;
  pRows->nRow = pRows->nAlloc = 0;
}

int wcTvfOpenWidecol(WcTvfRows *pRows, sqlite3 **ppDb){
  int rc = sqlite3_open_v2(":memory:", ppDb,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, 0);
  if( rc == SQLITE_OK ) rc = pRows->xRegister(*ppDb, 0, WC_API_ROUTINES);
  if( rc != SQLITE_OK ){
    sqlite3_close(*ppDb);
    *ppDb = 0;
  }
  return rc;
}

static int tvfConnect(sqlite3 *db, void *pAux, int argc,
                      const char *const *argv, sqlite3_vtab **ppVtab,
                      char **pzErr){
  const WcTvfHost *pHost = (const WcTvfHost*)pAux;
  const WcTvfDef *pDef = pHost->pDef;
  sqlite3_str *pDecl = sqlite3_str_new(db);
  const char *z;
  char *zDecl;
  TvfVtab *p;
  int rc;
  (void)argc;
  (void)argv;
  (void)pzErr;
  sqlite3_str_appendf(pDecl, "CREATE TABLE x(%s", pDef->zColumns);
  for(z = pDef->zArgs; *z; ){
    size_t n = strcspn(z, ",");
    sqlite3_str_appendf(pDecl, ", %.*s HIDDEN", (int)n, z);
    z += n;
    while( *z == ',' || *z == ' ' ) z++;
  }
  sqlite3_str_appendall(pDecl, ")");
  zDecl = sqlite3_str_finish(pDecl);
  if( zDecl == 0 ) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zDecl);
  sqlite3_free(zDecl);
  if( rc != SQLITE_OK ) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  p = sqlite3_malloc(sizeof(*p));
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  p->pHost = pHost;
  p->nCol = listLength(pDef->zColumns);
  p->nArg = listLength(pDef->zArgs);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int tvfDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* Every argument given must arrive as an '=' term; idxNum has a bit per
** argument present, and they reach xFilter in declaration order. */
static int tvfBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  TvfVtab *p = (TvfVtab*)pVtab;
  int aiCons[WC_TVF_MAX_ARG];
  int i, j, nGiven = 0, mask = 0;
  for(j = 0; j < p->nArg; j++) aiCons[j] = -1;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    j = pC->iColumn - p->nCol;
    if( j < 0 || j >= p->nArg || pC->op != SQLITE_INDEX_CONSTRAINT_EQ ){
      continue;
    }
    if( !pC->usable ) return SQLITE_CONSTRAINT;
    aiCons[j] = i;
  }
  for(j = 0; j < p->nArg; j++){
    if( aiCons[j] < 0 ){
      if( j < p->pHost->pDef->nRequired ){
        sqlite3_free(pVtab->zErrMsg);
        pVtab->zErrMsg = sqlite3_mprintf("%s: %s", p->pHost->pDef->zName,
                                         p->pHost->pDef->zMissing);
        return SQLITE_ERROR;
      }
      continue;
    }
    pInfo->aConstraintUsage[aiCons[j]].argvIndex = ++nGiven;
    pInfo->aConstraintUsage[aiCons[j]].omit = 1;
    mask |= 1 << j;
  }
  pInfo->idxNum = mask;
  pInfo->estimatedCost = 1000.0;
  pInfo->estimatedRows = 100;
  return SQLITE_OK;
}

static void cursorReset(TvfCursor *pCur){
  int j;
  rowsClear(&pCur->rows);
  for(j = 0; j < WC_TVF_MAX_ARG; j++){
    sqlite3_value_free(pCur->apArg[j]);
    pCur->apArg[j] = 0;
  }
  pCur->iRow = 0;
}

static int tvfOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  TvfCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->rows.nCol = ((TvfVtab*)pVtab)->nCol;
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static int tvfClose(sqlite3_vtab_cursor *pBase){
  cursorReset((TvfCursor*)pBase);
  sqlite3_free(pBase);
  return SQLITE_OK;
}

static int tvfFilter(sqlite3_vtab_cursor *pBase, int idxNum,
                     const char *idxStr, int argc, sqlite3_value **argv){
  TvfCursor *pCur = (TvfCursor*)pBase;
  TvfVtab *p = (TvfVtab*)pBase->pVtab;
  char *zErr = 0;
  int i = 0, j, rc = SQLITE_OK;
  (void)idxStr;
  cursorReset(pCur);
  for(j = 0; j < p->nArg && rc == SQLITE_OK; j++){
    if( (idxNum & (1 << j)) == 0 || i >= argc ) continue;
    pCur->apArg[j] = sqlite3_value_dup(argv[i++]);
    if( pCur->apArg[j] == 0 ) rc = SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK ){
    pCur->rows.xRegister = p->pHost->xRegister;
    rc = p->pHost->pDef->xFill(p->db, pCur->apArg, &pCur->rows, &zErr);
  }
  if( rc != SQLITE_OK ){
    sqlite3_free(p->base.zErrMsg);
    p->base.zErrMsg = zErr;
    rowsClear(&pCur->rows);
  }
  return rc;
}

static int tvfNext(sqlite3_vtab_cursor *pBase){
  ((TvfCursor*)pBase)->iRow++;
  return SQLITE_OK;
}

static int tvfEof(sqlite3_vtab_cursor *pBase){
  TvfCursor *pCur = (TvfCursor*)pBase;
  return pCur->iRow >= pCur->rows.nRow;
}

static int tvfColumn(sqlite3_vtab_cursor *pBase, sqlite3_context *ctx,
                     int i){
  TvfCursor *pCur = (TvfCursor*)pBase;
  const WcTvfCell *pCell;
  if( i >= pCur->rows.nCol ){
    if( pCur->apArg[i - pCur->rows.nCol] ){
      sqlite3_result_value(ctx, pCur->apArg[i - pCur->rows.nCol]);
    }
    return SQLITE_OK;
  }
  pCell = &pCur->rows.aCell[pCur->iRow * pCur->rows.nCol + i];
  switch( pCell->eType ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, pCell->i); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, pCell->r); break;
    case SQLITE_TEXT:
      sqlite3_result_text64(ctx, pCell->z, (sqlite3_uint64)pCell->n,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob64(ctx, pCell->z, (sqlite3_uint64)pCell->n,
                            SQLITE_TRANSIENT);
      break;
    default: break;
  }
  return SQLITE_OK;
}

static int tvfRowid(sqlite3_vtab_cursor *pBase, sqlite3_int64 *pRowid){
  *pRowid = ((TvfCursor*)pBase)->iRow + 1;
  return SQLITE_OK;
}

const sqlite3_module wcTvfModule = {
  0,                    /* iVersion */
  0,                    /* xCreate: eponymous only */
  tvfConnect,
  tvfBestIndex,
  tvfDisconnect,
  0,                    /* xDestroy */
  tvfOpen,
  tvfClose,
  tvfFilter,
  tvfNext,
  tvfEof,
  tvfColumn,
  tvfRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};
