/*
** cq_table.c: the virtual-table module widecol_cassandra, which keeps the
** rows of a widecol table in Cassandra, as the CQL table its design means:
** the partition key, the clustering columns in their order, the other
** columns, each of the CQL type its affinity maps to.  It accepts the
** statements of the store contract (ext/store/README.md) on tables of
** rows keyed by their encoded row key, and turns them into CQL through
** cq_wire.c:
**
**   a row by its key      the key decoded (key/wc_decode.h) into its
**                         columns: WHERE p = ? AND c = ? ...
**   a range of keys       one partition's slice where both ends are in
**                         one partition (WHERE p = ? [AND c >= ?]), else
**                         token ranges (WHERE token(p) >= ? AND ...), in
**                         token order: Cassandra's order, which the row
**                         key's leading TOKEN makes widecol's too
**   INSERT                IF NOT EXISTS (a lightweight transaction), so
**                         that a used key fails at its row; INSERT OR
**                         REPLACE is a plain INSERT (an upsert)
**   UPDATE, DELETE        by the key's columns
**
** Each row read has its row key made again (key/wc_codec.h) and is kept
** only inside the range asked for: what CQL reads past the range's ends
** (a partial clustering bound, a token's other partitions) is dropped.
** Nothing is kept in SQLite; each statement's writes are Cassandra's when
** it returns (ROLLBACK undoes none of them: docs/cassandra.md).
*/
#include "cassandra/cq_table.h"
#include "cassandra/cq_wire.h"
#include "key/wc_codec.h"
#include "key/wc_decode.h"
#include "util/wc_ask.h"
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

#define CQ_ENV             "WIDECOL_CASSANDRA"
#define CQ_CONSISTENCY_ENV "WIDECOL_CASSANDRA_CONSISTENCY"
#define CQ_TIMEOUT_MS 60000
#define CQ_PAGE 5000            /* rows a page of a scan */
#define CQ_MAX_ARGS 64          /* values a read binds: the key's columns */

/* ---- The connection a database's tables share ---- */

typedef struct CqShared CqShared;
struct CqShared {
  sqlite3 *db;
  CqConn *pConn;        /* NULL until used, and after a failure */
  char *zEndpoint;      /* host:port, for messages */
  int eConsistency;
};

static int interrupted(void *pArg){
  return wcAskInterrupted((sqlite3_stmt*)pArg);
}

/* A call's deadline; pProbe tells whether the statement was interrupted. */
static WcDeadline deadline(sqlite3_stmt *pProbe){
  WcDeadline d;
  d.iUntilMs = wcNowMs() + CQ_TIMEOUT_MS;
  d.xInterrupted = interrupted;
  d.pArg = pProbe;
  return d;
}

static const struct { const char *zName; int e; } aConsistency[] = {
  { "ONE", CQ_ONE }, { "QUORUM", CQ_QUORUM }, { "ALL", CQ_ALL },
  { "LOCAL_QUORUM", CQ_LOCAL_QUORUM }, { "LOCAL_ONE", CQ_LOCAL_ONE },
};

/* Connects p, if it is not: SQLITE_OK, or an error with *pzErr set. */
static int sharedConnect(CqShared *p, sqlite3_stmt *pProbe, char **pzErr){
  const char *zAt = getenv(CQ_ENV), *zLevel = getenv(CQ_CONSISTENCY_ENV);
  const char *zColon = zAt ? strrchr(zAt, ':') : 0;
  char *zEnd = 0, *zHost;
  long port = 0;
  size_t i;
  int rc;
  WcDeadline d;
  if( p->pConn ) return SQLITE_OK;
  if( zColon ) port = strtol(zColon + 1, &zEnd, 10);
  if( zAt == 0 || zAt[0] == 0 || zColon == 0 || zColon == zAt
   || zEnd == zColon + 1 || *zEnd != 0 || port < 1 || port > 65535 ){
    *pzErr = zAt && zAt[0]
      ? sqlite3_mprintf(CQ_ENV " must be host:port of Cassandra's native "
                        "transport (its CQL port, 9042 by default); it is %Q",
                        zAt)
      : sqlite3_mprintf("no Cassandra: set " CQ_ENV "=host:port to a node's "
          "CQL port (127.0.0.1:9042; sh tests/servers/cassandra.sh start "
          "prints it for the Cassandra of widecol's tests)");
    return SQLITE_CANTOPEN;
  }
  p->eConsistency = CQ_ONE;
  if( zLevel && zLevel[0] ){
    for(i = 0; i < sizeof(aConsistency) / sizeof(aConsistency[0]); i++){
      if( sqlite3_stricmp(zLevel, aConsistency[i].zName) == 0 ) break;
    }
    if( i == sizeof(aConsistency) / sizeof(aConsistency[0]) ){
      *pzErr = sqlite3_mprintf(CQ_CONSISTENCY_ENV " is %Q; it may be ONE "
          "(the default), QUORUM, ALL, LOCAL_QUORUM or LOCAL_ONE", zLevel);
      return SQLITE_ERROR;
    }
    p->eConsistency = aConsistency[i].e;
  }
  sqlite3_free(p->zEndpoint);
  p->zEndpoint = sqlite3_mprintf("%s", zAt);
  zHost = sqlite3_mprintf("%.*s", (int)(zColon - zAt), zAt);
  if( p->zEndpoint == 0 || zHost == 0 ){
    sqlite3_free(zHost);
    return SQLITE_NOMEM;
  }
  d = deadline(pProbe);
  rc = cqOpen(&p->pConn, zHost, (int)port, &d, pzErr);
  sqlite3_free(zHost);
  if( rc == WC_SOCK_NOMEM ) return SQLITE_NOMEM;
  if( rc ){
    char *zWhy = *pzErr;
    *pzErr = sqlite3_mprintf("no Cassandra at %s (" CQ_ENV "): %s; start "
        "it, or set " CQ_ENV " to a node's CQL port", zAt,
        zWhy ? zWhy : "it does not answer");
    sqlite3_free(zWhy);
    return rc == WC_SOCK_CANCELLED ? SQLITE_INTERRUPT : SQLITE_CANTOPEN;
  }
  return SQLITE_OK;
}

static void sharedFree(void *pArg){
  CqShared *p = (CqShared*)pArg;
  cqClose(p->pConn);
  sqlite3_free(p->zEndpoint);
  sqlite3_free(p);
}

/* ---- A table ---- */

typedef struct CqTable CqTable;
struct CqTable {
  sqlite3_vtab base;
  CqShared *pShared;
  sqlite3_stmt *pProbe; /* For wcAskInterrupted() */
  char *zName;          /* This virtual table's name */
  char *zSuffix;        /* zName less it is the widecol table's */
  char *zKeyspace, *zCqlTable;  /* STORAGE CASSANDRA 'keyspace.table' */
  char *zCqlName;       /* "keyspace"."table", quoted for CQL */
  char *zOwner;         /* OWNER: the CREATE that made the CQL table */
  int bExternal;
  WcSchema *pS;         /* The design (DESIGN), for the keys */
  RkHasher *pHasher;
  int *aType;           /* CQ_TYPE_* of each column */
  int nPart;            /* aiKey[0..nPart): the partition key's columns */
  int nKey;             /* aiKey[nPart..nKey): the clustering columns */
  int *aiKey;
  char *zColumns;       /* "c1", "c2", ... every column, quoted */
  char *zKeyWhere;      /* "p" = ? AND "c" = ? ...: one row */
  char *zPartWhere;     /* "p" = ? ...: one partition */
  char *zToken;         /* token("p", ...) */
};

/* The widecol table's name, for messages. */
static int widecolNameLen(const CqTable *p){
  int n = (int)strlen(p->zName), nSuffix = (int)strlen(p->zSuffix);
  return n > nSuffix ? n - nSuffix : n;
}

/* Sets the table's error message; returns rc. */
static int tableError(CqTable *p, int rc, const char *zFormat, ...){
  va_list ap;
  char *zMsg;
  va_start(ap, zFormat);
  zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  sqlite3_free(p->base.zErrMsg);
  p->base.zErrMsg = sqlite3_mprintf("widecol %.*s: %z", widecolNameLen(p),
                                    p->zName, zMsg);
  return rc;
}

/* What a failed call becomes: an SQLite code chosen by what failed, and a
** message naming the table, the endpoint and what to do.  A failure of
** the connection closes it (the next call opens another). */
static int callError(CqTable *p, int rc, CqResult *pRes, const char *zDoing){
  CqShared *pSh = p->pShared;
  const char *zAt = pSh->zEndpoint ? pSh->zEndpoint : "?";
  int rcSql;
  if( rc == WC_SOCK_NOMEM ) return SQLITE_NOMEM;
  if( rc != CQ_ERR_SERVER ){
    cqClose(pSh->pConn);
    pSh->pConn = 0;
  }
  switch( rc ){
    case WC_SOCK_CANCELLED:
      return tableError(p, SQLITE_INTERRUPT, "%s was interrupted; Cassandra "
                        "at %s may have done it", zDoing, zAt);
    case WC_SOCK_TIMEOUT:
      return tableError(p, SQLITE_BUSY, "Cassandra at %s did not answer %s "
                        "within %d s; if it was a write, it may have been "
                        "applied: read the row back before writing it again",
                        zAt, zDoing, CQ_TIMEOUT_MS / 1000);
    case WC_SOCK_IO:
      return tableError(p, SQLITE_IOERR, "the connection to Cassandra at %s "
                        "failed during %s (is the node up?); if it was a "
                        "write, it may have been applied", zAt, zDoing);
    case CQ_ERR_PROTOCOL:
      return tableError(p, SQLITE_PROTOCOL, "Cassandra at %s answered %s "
                        "with what CQL's native protocol v4 does not allow",
                        zAt, zDoing);
  }
  switch( pRes->iError ){
    case CQ_UNAVAILABLE:
    case CQ_OVERLOADED:
    case CQ_READ_TIMEOUT:
    case CQ_READ_FAILURE:
      rcSql = SQLITE_BUSY;
      break;
    case CQ_WRITE_TIMEOUT:
      return tableError(p, SQLITE_IOERR, "Cassandra at %s timed out on %s "
          "(a %s write, %d of %d replicas answered): it may have been "
          "applied; read the row back before writing it again: %s", zAt,
          zDoing, pRes->zWriteType ? pRes->zWriteType : "?",
          pRes->nReceived, pRes->nBlockFor, pRes->zError);
    case CQ_WRITE_FAILURE:
      rcSql = SQLITE_IOERR;
      break;
    default:
      rcSql = SQLITE_ERROR;
  }
  return tableError(p, rcSql, "Cassandra at %s refused %s: %s%s", zAt,
                    zDoing, pRes->zError ? pRes->zError : "",
                    rcSql == SQLITE_BUSY ? " (start the nodes that are down, "
                    "or set " CQ_CONSISTENCY_ENV " to a level they can meet)"
                    : "");
}

/* Runs schema statement zCql; SQLITE_OK or an error (message set). */
static int runCql(CqTable *p, const char *zCql, const char *zDoing,
                  CqResult *pRes){
  WcDeadline d;
  char *zErr = 0;
  int rc = sharedConnect(p->pShared, p->pProbe, &zErr);
  memset(pRes, 0, sizeof(*pRes));
  if( rc != SQLITE_OK ){
    if( zErr ) tableError(p, rc, "%z", zErr);
    return rc;
  }
  d = deadline(p->pProbe);
  rc = cqQuery(p->pShared->pConn, zCql, p->pShared->eConsistency, &d, pRes);
  return rc ? callError(p, rc, pRes, zDoing) : SQLITE_OK;
}

/* Prepares and runs zCql with aVal (a page of nPage rows from aPaging). */
static int runPrepared(CqTable *p, const char *zCql, const CqValue *aVal,
                       int nVal, int nPage, const unsigned char *aPaging,
                       int nPaging, const char *zDoing, CqResult *pRes){
  WcDeadline d;
  CqStmt *pStmt = 0;
  char *zErr = 0;
  int rc = sharedConnect(p->pShared, p->pProbe, &zErr);
  memset(pRes, 0, sizeof(*pRes));
  if( rc != SQLITE_OK ){
    if( zErr ) tableError(p, rc, "%z", zErr);
    return rc;
  }
  d = deadline(p->pProbe);
  rc = cqPrepare(p->pShared->pConn, zCql, &d, &pStmt, pRes);
  if( rc == 0 ){
    rc = cqExecute(p->pShared->pConn, pStmt, aVal, nVal,
                   p->pShared->eConsistency, nPage, aPaging, nPaging, &d,
                   pRes);
  }
  return rc ? callError(p, rc, pRes, zDoing) : SQLITE_OK;
}

/* ---- Values ---- */

static int cqlType(char cAff){
  switch( cAff ){
    case WC_AFF_INTEGER: return CQ_TYPE_BIGINT;
    case WC_AFF_TEXT:    return CQ_TYPE_VARCHAR;
    case WC_AFF_REAL:    return CQ_TYPE_DOUBLE;
    case WC_AFF_NUMERIC: return CQ_TYPE_DECIMAL;
  }
  return CQ_TYPE_BLOB;
}

static const char *cqlTypeName(int eType){
  switch( eType ){
    case CQ_TYPE_BIGINT:  return "bigint";
    case CQ_TYPE_VARCHAR: return "text";
    case CQ_TYPE_DOUBLE:  return "double";
    case CQ_TYPE_DECIMAL: return "decimal";
  }
  return "blob";
}

/* A REAL as a decimal: the digits of its shortest exact-enough form. */
static int realDecimal(double r, int64_t *piUnscaled, int32_t *piScale){
  char z[64], zDigits[40];
  int nDigit = 0, iExp = 0, i, bNeg = r < 0;
  const char *zE;
  sqlite3_snprintf(sizeof(z), z, "%!.17g", r < 0 ? -r : r);
  for(i = 0; z[i] && z[i] != 'e'; i++){
    if( z[i] >= '0' && z[i] <= '9' ) zDigits[nDigit++] = z[i];
    if( z[i] == '.' ) iExp = -(int)(strlen(z) - i - 1 - (strchr(z, 'e')
                                   ? strlen(strchr(z, 'e')) : 0));
  }
  zE = strchr(z, 'e');
  if( zE ) iExp += atoi(zE + 1);
  while( nDigit > 1 && zDigits[nDigit - 1] == '0' && iExp < 0 ){
    nDigit--;
    iExp++;
  }
  if( nDigit > 18 ) return 1;
  zDigits[nDigit] = 0;
  *piUnscaled = strtoll(zDigits, 0, 10) * (bNeg ? -1 : 1);
  *piScale = -iExp;
  return 0;
}

/* Appends column iCol's value pVal (as the column's affinity stores it)
** to pBuf in CQL's form; *pn its length (-1: NULL).  SQLITE_OK, or
** SQLITE_CONSTRAINT_DATATYPE (a value the CQL column cannot hold, the
** message set), or SQLITE_NOMEM. */
static int putValue(CqTable *p, int iCol, sqlite3_value *pVal, WcBuf *pBuf,
                    int *pn){
  const WcColumn *pCol = &p->pS->aCol[iCol];
  int eType = p->aType[iCol];
  sqlite3_value *pCopy = 0;
  int64_t n0 = pBuf->n;
  WcValue v;
  if( wcValueStore(pCol->cAff, pVal, &v, &pCopy) != WC_OK ) return SQLITE_NOMEM;
  *pn = -1;
  if( v.eType == SQLITE_NULL ){
    sqlite3_value_free(pCopy);
    return SQLITE_OK;
  }
  if( eType == CQ_TYPE_BIGINT && v.eType == SQLITE_INTEGER ){
    cqPutBigint(pBuf, v.i);
  }else if( eType == CQ_TYPE_DOUBLE && (v.eType == SQLITE_FLOAT
                                        || v.eType == SQLITE_INTEGER) ){
    cqPutDouble(pBuf, v.eType == SQLITE_FLOAT ? v.r : (double)v.i);
  }else if( eType == CQ_TYPE_VARCHAR && v.eType == SQLITE_TEXT ){
    wcBufAppend(pBuf, v.a, v.n);
  }else if( eType == CQ_TYPE_BLOB && v.eType == SQLITE_BLOB ){
    wcBufAppend(pBuf, v.a, v.n);
  }else if( eType == CQ_TYPE_DECIMAL && v.eType == SQLITE_INTEGER ){
    cqPutDecimal(pBuf, v.i, 0);
  }else{
    int64_t iUnscaled;
    int32_t iScale;
    if( eType == CQ_TYPE_DECIMAL && v.eType == SQLITE_FLOAT
     && realDecimal(v.r, &iUnscaled, &iScale) == 0 ){
      cqPutDecimal(pBuf, iUnscaled, iScale);
    }else{
      char *zVal = wcValueDescribe(&v, 1);
      sqlite3_value_free(pCopy);
      tableError(p, SQLITE_CONSTRAINT_DATATYPE, "column %s is %s in "
          "Cassandra, which cannot hold %s; give it a value of that type "
          "(a widecol table on Cassandra keeps one type per column, as CQL "
          "does)", pCol->zName, cqlTypeName(eType), zVal ? zVal : "it");
      sqlite3_free(zVal);
      return SQLITE_CONSTRAINT_DATATYPE;
    }
  }
  sqlite3_value_free(pCopy);
  *pn = (int)(pBuf->n - n0);
  return pBuf->bOom ? SQLITE_NOMEM : SQLITE_OK;
}

/* A key column's value from a key decoded (wc_decode.h), in CQL's form. */
static void putKeyValue(CqTable *p, int iCol, const WcValue *pV, WcBuf *pBuf,
                        int *pn){
  int64_t n0 = pBuf->n;
  switch( p->aType[iCol] ){
    case CQ_TYPE_BIGINT: cqPutBigint(pBuf, pV->i); break;
    case CQ_TYPE_DOUBLE:
      cqPutDouble(pBuf, pV->eType == SQLITE_FLOAT ? pV->r : (double)pV->i);
      break;
    case CQ_TYPE_DECIMAL: {
      int64_t iUnscaled = pV->i;
      int32_t iScale = 0;
      if( pV->eType == SQLITE_FLOAT ) realDecimal(pV->r, &iUnscaled, &iScale);
      cqPutDecimal(pBuf, iUnscaled, iScale);
      break;
    }
    default: wcBufAppend(pBuf, pV->a, pV->n); break;
  }
  *pn = (int)(pBuf->n - n0);
}

/* Cell a[0..n) of a column of type eType as a value for the codec; text
** and blobs point into the cell.  0, or 1 if the cell is no such value. */
static int cellValue(int eType, const unsigned char *a, int n, WcValue *pV){
  memset(pV, 0, sizeof(*pV));
  pV->a = (const unsigned char*)"";
  if( n < 0 ){
    pV->eType = SQLITE_NULL;
    return 0;
  }
  switch( eType ){
    case CQ_TYPE_BIGINT:
      if( n != 8 ) return 1;
      pV->eType = SQLITE_INTEGER;
      pV->i = cqGetBigint(a);
      return 0;
    case CQ_TYPE_DOUBLE:
      if( n != 8 ) return 1;
      pV->eType = SQLITE_FLOAT;
      pV->r = cqGetDouble(a);
      return 0;
    case CQ_TYPE_DECIMAL: {
      int64_t iUnscaled;
      int32_t iScale;
      if( cqGetDecimal(a, n, &iUnscaled, &iScale) ) return 1;
      if( iScale == 0 ){
        pV->eType = SQLITE_INTEGER;
        pV->i = iUnscaled;
      }else{
        char z[48];
        sqlite3_snprintf(sizeof(z), z, "%lldE%d", (long long)iUnscaled,
                         -iScale);
        pV->eType = SQLITE_FLOAT;
        pV->r = strtod(z, 0);
      }
      return 0;
    }
    case CQ_TYPE_VARCHAR:
      pV->eType = SQLITE_TEXT;
      break;
    default:
      pV->eType = SQLITE_BLOB;
  }
  pV->a = n ? a : (const unsigned char*)"";
  pV->n = n;
  return 0;
}

/* ---- Making and dropping ---- */

/* The CQL literal of z: quoted, quotes doubled. */
static char *cqlString(const char *z){
  sqlite3_str *pStr = sqlite3_str_new(0);
  sqlite3_str_appendchar(pStr, 1, '\'');
  for(; *z; z++){
    sqlite3_str_appendchar(pStr, *z == '\'' ? 2 : 1, *z);
  }
  sqlite3_str_appendchar(pStr, 1, '\'');
  return sqlite3_str_finish(pStr);
}

/* The comment that marks a CQL table widecol made, and who made it. */
static char *ownerComment(const CqTable *p){
  return sqlite3_mprintf("widecol table, owner %s", p->zOwner);
}

/* The comment on the CQL table, in *pzComment (NULL: no such table). */
static int readComment(CqTable *p, char **pzComment){
  char *zKs = cqlString(p->zKeyspace), *zT = cqlString(p->zCqlTable), *zCql;
  CqResult res;
  int rc;
  *pzComment = 0;
  zCql = sqlite3_mprintf("SELECT comment FROM system_schema.tables WHERE "
                         "keyspace_name = %s AND table_name = %s", zKs, zT);
  sqlite3_free(zKs);
  sqlite3_free(zT);
  if( zCql == 0 ) return SQLITE_NOMEM;
  rc = runCql(p, zCql, "reading its schema", &res);
  sqlite3_free(zCql);
  if( rc == SQLITE_OK && res.nRow > 0 ){
    int n;
    const unsigned char *a = cqCell(&res, 0, 0, &n);
    *pzComment = sqlite3_mprintf("%.*s", n > 0 ? n : 0, a ? (const char*)a : "");
    if( *pzComment == 0 ) rc = SQLITE_NOMEM;
  }
  cqResultClear(&res);
  return rc;
}

/* CREATE TABLE for the design: its columns, PRIMARY KEY ((partition),
** clustering), CLUSTERING ORDER BY each field's order. */
static char *createCql(const CqTable *p){
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zComment = ownerComment(p), *zLit = zComment ? cqlString(zComment) : 0;
  int i;
  sqlite3_str_appendf(pStr, "CREATE TABLE %s (", p->zCqlName);
  for(i = 0; i < p->pS->nCol; i++){
    sqlite3_str_appendf(pStr, "\"%w\" %s, ", p->pS->aCol[i].zName,
                        cqlTypeName(p->aType[i]));
  }
  sqlite3_str_appendall(pStr, "PRIMARY KEY ((");
  for(i = 0; i < p->nKey; i++){
    if( i == p->nPart ) sqlite3_str_appendall(pStr, ")");
    sqlite3_str_appendf(pStr, "%s\"%w\"", i ? ", " : "",
                        p->pS->aCol[p->aiKey[i]].zName);
  }
  if( p->nKey == p->nPart ) sqlite3_str_appendall(pStr, ")");
  sqlite3_str_appendall(pStr, "))");
  for(i = p->nPart; i < p->nKey; i++){
    const WcColumn *pCol = &p->pS->aCol[p->aiKey[i]];
    sqlite3_str_appendf(pStr, "%s\"%w\" %s", i == p->nPart
                        ? " WITH CLUSTERING ORDER BY (" : ", ", pCol->zName,
                        p->pS->aElem[pCol->iElem].eOrder == WC_ORDER_DESC
                        ? "DESC" : "ASC");
  }
  sqlite3_str_appendf(pStr, "%s comment = %s", p->nKey > p->nPart
                      ? ") AND" : " WITH", zLit ? zLit : "''");
  sqlite3_free(zComment);
  sqlite3_free(zLit);
  return sqlite3_str_finish(pStr);
}

/* Makes the keyspace (one replica, where it is not there) and the table. */
static int createRemote(CqTable *p){
  char *zComment = 0, *zCql;
  CqResult res;
  int rc;
  zCql = sqlite3_mprintf("CREATE KEYSPACE IF NOT EXISTS \"%w\" WITH "
      "replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
      p->zKeyspace);
  rc = zCql ? runCql(p, zCql, "making its keyspace", &res) : SQLITE_NOMEM;
  sqlite3_free(zCql);
  cqResultClear(&res);
  if( rc == SQLITE_OK ) rc = readComment(p, &zComment);
  if( rc == SQLITE_OK && zComment ){
    if( !p->bExternal ){
      rc = tableError(p, SQLITE_ERROR, "Cassandra already has a table %s.%s "
          "(%s); widecol makes the table of a design itself: name another "
          "in STORAGE CASSANDRA, drop that one, or add EXTERNAL to use it "
          "as it is", p->zKeyspace, p->zCqlTable,
          strncmp(zComment, "widecol table", 13) == 0
          ? "made by another widecol database" : "not made by widecol");
    }
    sqlite3_free(zComment);
    return rc;
  }
  zCql = rc == SQLITE_OK ? createCql(p) : 0;
  if( rc == SQLITE_OK ) rc = zCql ? runCql(p, zCql, "CREATE TABLE", &res)
                                  : SQLITE_NOMEM;
  sqlite3_free(zCql);
  cqResultClear(&res);
  return rc;
}

/* DROP TABLE: the CQL table goes, if this database's CREATE made it. */
static int dropRemote(CqTable *p){
  char *zComment = 0, *zMine = ownerComment(p), *zCql;
  CqResult res;
  int rc = zMine ? readComment(p, &zComment) : SQLITE_NOMEM;
  if( rc == SQLITE_OK && zComment && strcmp(zComment, zMine) == 0 ){
    zCql = sqlite3_mprintf("DROP TABLE IF EXISTS %s", p->zCqlName);
    rc = zCql ? runCql(p, zCql, "DROP TABLE", &res) : SQLITE_NOMEM;
    sqlite3_free(zCql);
    cqResultClear(&res);
  }
  sqlite3_free(zComment);
  sqlite3_free(zMine);
  return rc;
}

/* ---- Arguments ---- */

/* The next word of *pz (a quoted one unquoted), or NULL at the end. */
static char *nextWord(const char **pz){
  const char *z = *pz;
  sqlite3_str *pStr;
  while( *z == ' ' || *z == '\t' || *z == '\n' ) z++;
  if( *z == 0 ) return 0;
  pStr = sqlite3_str_new(0);
  if( *z == '\'' || *z == '"' ){
    char q = *z++;
    for(; *z; z++){
      if( *z == q && z[1] == q ){
        sqlite3_str_appendchar(pStr, 1, q);
        z++;
      }else if( *z == q ){
        z++;
        break;
      }else{
        sqlite3_str_appendchar(pStr, 1, *z);
      }
    }
  }else{
    while( *z && *z != ' ' && *z != '\t' && *z != '\n' ){
      sqlite3_str_appendchar(pStr, 1, *z++);
    }
  }
  *pz = z;
  return sqlite3_str_finish(pStr);
}

/* The design's arguments, one a line, parsed into p->pS. */
static char *parseDesign(CqTable *p, const char *zDesign){
  char **azArg, *zCopy = sqlite3_mprintf("%s", zDesign), *zLine, *zErr = 0;
  int nArg = 0, nAlloc = 1;
  const char *z;
  for(z = zDesign; *z; z++) nAlloc += *z == '\n';
  azArg = sqlite3_malloc64(sizeof(char*) * (size_t)nAlloc);
  if( azArg == 0 || zCopy == 0 ){
    sqlite3_free(azArg);
    sqlite3_free(zCopy);
    return sqlite3_mprintf("out of memory");
  }
  for(zLine = zCopy; zLine; ){
    char *zNl = strchr(zLine, '\n');
    if( zNl ) *zNl = 0;
    azArg[nArg++] = zLine;
    zLine = zNl ? zNl + 1 : 0;
  }
  p->pS = wcSchemaParse(p->zName, nArg, (const char *const*)azArg, 0, &zErr);
  sqlite3_free(azArg);
  sqlite3_free(zCopy);
  return p->pS ? 0 : zErr;
}

/* Reads the module arguments (ext/store/README.md): the resource, the key
** column, then options and columns. */
static char *parseArgs(CqTable *p, int argc, const char *const *argv,
                       int *pnCol){
  const char *z, *zDot;
  char *zDesign = 0, *zErr = 0;
  int i;
  *pnCol = 0;
  if( argc < 5 ){
    return sqlite3_mprintf("widecol_cassandra %s: arguments are the "
        "Cassandra table and the key column, then the columns", p->zName);
  }
  z = argv[3];
  p->zKeyspace = nextWord(&z);
  zDot = p->zKeyspace ? strchr(p->zKeyspace, '.') : 0;
  if( zDot == 0 ){
    return sqlite3_mprintf("widecol_cassandra %s: %s is not keyspace.table",
                           p->zName, argv[3]);
  }
  p->zCqlTable = sqlite3_mprintf("%s", zDot + 1);
  p->zKeyspace[zDot - p->zKeyspace] = 0;
  p->zCqlName = sqlite3_mprintf("\"%w\".\"%w\"", p->zKeyspace, p->zCqlTable);
  p->zSuffix = sqlite3_mprintf("");
  for(i = 5; i < argc && zErr == 0; i++){
    char *zWord;
    z = argv[i];
    zWord = nextWord(&z);
    if( zWord == 0 ) continue;
    if( argv[i][0] == '"' ){
      (*pnCol)++;
    }else if( sqlite3_stricmp(zWord, "OWNER") == 0 ){
      sqlite3_free(p->zOwner);
      p->zOwner = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "DESIGN") == 0 ){
      sqlite3_free(zDesign);
      zDesign = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "SUFFIX") == 0 ){
      sqlite3_free(p->zSuffix);
      p->zSuffix = nextWord(&z);
    }else if( sqlite3_stricmp(zWord, "EXTERNAL") == 0 ){
      p->bExternal = 1;
    }else if( sqlite3_stricmp(zWord, "ENTRIES") == 0
           || sqlite3_stricmp(zWord, "EXISTING") == 0
           || sqlite3_stricmp(zWord, "ROWTIME") == 0 ){
      zErr = sqlite3_mprintf("widecol_cassandra %s: %s is not kept on "
                             "Cassandra", p->zName, zWord);
    }
    sqlite3_free(zWord);
  }
  if( zErr == 0 && (zDesign == 0 || p->zOwner == 0) ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: a table on Cassandra is "
        "made by a widecol table (its DESIGN and OWNER); make it with "
        "CREATE VIRTUAL TABLE ... USING widecol(..., STORAGE CASSANDRA "
        "'keyspace.table')", p->zName);
  }
  if( zErr == 0 ) zErr = parseDesign(p, zDesign);
  sqlite3_free(zDesign);
  return zErr;
}

/* The key's columns (the partition key's, then the clustering columns),
** each column's CQL type, and the CQL fragments the calls use. */
static int describeKey(CqTable *p){
  const WcSchema *pS = p->pS;
  const WcElement *pTok = &pS->aElem[0];
  sqlite3_str *pCols = sqlite3_str_new(0), *pKey = sqlite3_str_new(0);
  sqlite3_str *pPart = sqlite3_str_new(0), *pTokArgs = sqlite3_str_new(0);
  int i;
  p->aType = sqlite3_malloc64(sizeof(int) * ((size_t)pS->nCol + 1));
  p->aiKey = sqlite3_malloc64(sizeof(int) * ((size_t)pS->nElem + 1));
  if( p->aType == 0 || p->aiKey == 0 ) return SQLITE_NOMEM;
  for(i = 0; i < pS->nCol; i++){
    p->aType[i] = cqlType(pS->aCol[i].cAff);
    sqlite3_str_appendf(pCols, "%s\"%w\"", i ? ", " : "", pS->aCol[i].zName);
  }
  p->nPart = pTok->nSaltCol;
  for(i = 1; i < pS->nElem; i++) p->aiKey[p->nKey++] = pS->aElem[i].iCol;
  if( p->nKey > CQ_MAX_ARGS ){
    tableError(p, SQLITE_TOOBIG, "a key of %d columns; a table on Cassandra "
               "has at most %d", p->nKey, CQ_MAX_ARGS);
    return SQLITE_TOOBIG;
  }
  for(i = 0; i < p->nKey; i++){
    const char *zCol = pS->aCol[p->aiKey[i]].zName;
    sqlite3_str_appendf(pKey, "%s\"%w\" = ?", i ? " AND " : "", zCol);
    if( i < p->nPart ){
      sqlite3_str_appendf(pPart, "%s\"%w\" = ?", i ? " AND " : "", zCol);
      sqlite3_str_appendf(pTokArgs, "%s\"%w\"", i ? ", " : "", zCol);
    }
  }
  p->zColumns = sqlite3_str_finish(pCols);
  p->zKeyWhere = sqlite3_str_finish(pKey);
  p->zPartWhere = sqlite3_str_finish(pPart);
  {
    char *zArgs = sqlite3_str_finish(pTokArgs);
    p->zToken = zArgs ? sqlite3_mprintf("token(%s)", zArgs) : 0;
    sqlite3_free(zArgs);
  }
  p->pHasher = rkHasherNew();
  if( !p->zColumns || !p->zKeyWhere || !p->zPartWhere || !p->zToken
   || !p->pHasher ){
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static void tableFree(CqTable *p){
  if( p == 0 ) return;
  sqlite3_finalize(p->pProbe);
  sqlite3_free(p->zName);
  sqlite3_free(p->zSuffix);
  sqlite3_free(p->zKeyspace);
  sqlite3_free(p->zCqlTable);
  sqlite3_free(p->zCqlName);
  sqlite3_free(p->zOwner);
  wcSchemaFree(p->pS);
  rkHasherFree(p->pHasher);
  sqlite3_free(p->aType);
  sqlite3_free(p->aiKey);
  sqlite3_free(p->zColumns);
  sqlite3_free(p->zKeyWhere);
  sqlite3_free(p->zPartWhere);
  sqlite3_free(p->zToken);
  sqlite3_free(p->base.zErrMsg);
  sqlite3_free(p);
}

static int cqInit(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                  sqlite3_vtab **ppVtab, char **pzErr, int bCreate){
  CqTable *p = sqlite3_malloc(sizeof(*p));
  sqlite3_str *pDecl;
  char *zDecl, *zErr;
  int rc, i, nCol = 0;
  *ppVtab = 0;
  if( p == 0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pShared = (CqShared*)pAux;
  sqlite3_prepare_v2(db, "SELECT 1", -1, &p->pProbe, 0);
  p->zName = sqlite3_mprintf("%s", argv[2]);
  zErr = p->zName ? parseArgs(p, argc, argv, &nCol)
                  : sqlite3_mprintf("out of memory");
  if( zErr == 0 && nCol != p->pS->nCol ){
    zErr = sqlite3_mprintf("widecol_cassandra %s: %d columns, where the "
                           "design has %d", p->zName, nCol, p->pS->nCol);
  }
  if( zErr ){
    *pzErr = zErr;
    tableFree(p);
    return SQLITE_ERROR;
  }
  rc = describeKey(p);
  pDecl = sqlite3_str_new(0);
  sqlite3_str_appendall(pDecl, "CREATE TABLE x(rowkey BLOB PRIMARY KEY");
  for(i = 0; i < p->pS->nCol; i++){
    sqlite3_str_appendf(pDecl, ", \"%w\"", p->pS->aCol[i].zName);
  }
  sqlite3_str_appendall(pDecl, ") WITHOUT ROWID");
  zDecl = sqlite3_str_finish(pDecl);
  if( rc == SQLITE_OK ) rc = zDecl ? sqlite3_declare_vtab(db, zDecl) : SQLITE_NOMEM;
  sqlite3_free(zDecl);
  if( rc == SQLITE_OK ){
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    if( bCreate ) rc = createRemote(p);
    if( rc != SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", p->base.zErrMsg ? p->base.zErrMsg
                                                     : sqlite3_errmsg(db));
    }
  }
  if( rc != SQLITE_OK ){
    tableFree(p);
    return rc;
  }
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int cqCreate(sqlite3 *db, void *pAux, int argc,
                    const char *const *argv, sqlite3_vtab **ppVtab,
                    char **pzErr){
  return cqInit(db, pAux, argc, argv, ppVtab, pzErr, 1);
}

static int cqConnect(sqlite3 *db, void *pAux, int argc,
                     const char *const *argv, sqlite3_vtab **ppVtab,
                     char **pzErr){
  return cqInit(db, pAux, argc, argv, ppVtab, pzErr, 0);
}

static int cqDisconnect(sqlite3_vtab *pVtab){
  tableFree((CqTable*)pVtab);
  return SQLITE_OK;
}

static int cqDestroy(sqlite3_vtab *pVtab){
  CqTable *p = (CqTable*)pVtab;
  int rc = p->bExternal ? SQLITE_OK : dropRemote(p);
  if( rc == SQLITE_OK ) tableFree(p);
  return rc;
}

static int cqRename(sqlite3_vtab *pVtab, const char *zNew){
  CqTable *p = (CqTable*)pVtab;
  char *zName = sqlite3_mprintf("%s", zNew);
  if( zName == 0 ) return SQLITE_NOMEM;
  sqlite3_free(p->zName);
  p->zName = zName;
  return SQLITE_OK;
}

/* ---- Planning ----
**
** idxNum: CQ_EQ (rowkey = ?), or the bounds given: CQ_GE or CQ_GT, CQ_LE
** or CQ_LT, their values in argv in that order.  Rows come in key order;
** a descending order is left to SQLite (WcStoreCaps.bReverseReads 0). */
#define CQ_EQ 0x01
#define CQ_GE 0x02
#define CQ_GT 0x04
#define CQ_LE 0x08
#define CQ_LT 0x10

static int cqBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int aiCons[5] = {-1, -1, -1, -1, -1};
  static const int aeBit[5] = { CQ_EQ, CQ_GE, CQ_GT, CQ_LE, CQ_LT };
  int i, idxNum = 0, nArg = 0;
  (void)pVtab;
  for(i = 0; i < pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    int k = -1;
    if( !pC->usable || pC->iColumn != 0 ) continue;
    switch( pC->op ){
      case SQLITE_INDEX_CONSTRAINT_EQ: k = 0; break;
      case SQLITE_INDEX_CONSTRAINT_GE: k = 1; break;
      case SQLITE_INDEX_CONSTRAINT_GT: k = 2; break;
      case SQLITE_INDEX_CONSTRAINT_LE: k = 3; break;
      case SQLITE_INDEX_CONSTRAINT_LT: k = 4; break;
    }
    if( k >= 0 && aiCons[k] < 0 ) aiCons[k] = i;
  }
  if( aiCons[0] >= 0 ) aiCons[1] = aiCons[2] = aiCons[3] = aiCons[4] = -1;
  if( aiCons[1] >= 0 ) aiCons[2] = -1;
  if( aiCons[3] >= 0 ) aiCons[4] = -1;
  for(i = 0; i < 5; i++){
    if( aiCons[i] < 0 ) continue;
    idxNum |= aeBit[i];
    pInfo->aConstraintUsage[aiCons[i]].argvIndex = ++nArg;
    pInfo->aConstraintUsage[aiCons[i]].omit = 1;
  }
  if( idxNum & CQ_EQ ){
    pInfo->estimatedCost = 10;
    pInfo->estimatedRows = 1;
    pInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum ){
    pInfo->estimatedCost = (idxNum & (CQ_GE|CQ_GT)) && (idxNum & (CQ_LE|CQ_LT))
                         ? 1e3 : 1e5;
    pInfo->estimatedRows = (sqlite3_int64)pInfo->estimatedCost;
  }else{
    pInfo->estimatedCost = 1e6;
    pInfo->estimatedRows = 1000000;
  }
  pInfo->idxNum = idxNum;
  if( pInfo->nOrderBy == 1 && pInfo->aOrderBy[0].iColumn == 0
   && !pInfo->aOrderBy[0].desc ){
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

/* ---- Reading ---- */

typedef struct CqCursor CqCursor;
struct CqCursor {
  sqlite3_vtab_cursor base;
  char *zCql;           /* The query, prepared on the connection */
  WcBuf args;           /* Its values' bytes */
  int anArg[CQ_MAX_ARGS];   /* their lengths */
  int nArg;
  CqResult res;         /* The page read */
  WcBuf paging;         /* The next page's paging state */
  int bMore;            /* There is a next page */
  int64_t iRow;         /* The row of res shown */
  int bEof;
  WcBuf lo, hi;         /* The range's ends (bLo, bHi: given) */
  int bLo, bHi, bLoOpen, bHiOpen;
  WcBuf key;            /* The row key of the row shown */
  WcValue *aVal;        /* Its columns' values, for the codec */
};

static int cqOpenCursor(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  CqTable *p = (CqTable*)pVtab;
  CqCursor *pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur == 0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->aVal = sqlite3_malloc64(sizeof(WcValue) * ((size_t)p->pS->nCol + 1));
  if( pCur->aVal == 0 ){
    sqlite3_free(pCur);
    return SQLITE_NOMEM;
  }
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static void cursorReset(CqCursor *pCur){
  sqlite3_free(pCur->zCql);
  pCur->zCql = 0;
  cqResultClear(&pCur->res);
  wcBufClear(&pCur->args);
  wcBufClear(&pCur->paging);
  wcBufClear(&pCur->lo);
  wcBufClear(&pCur->hi);
  pCur->nArg = 0;
  pCur->bMore = pCur->bLo = pCur->bHi = pCur->bLoOpen = pCur->bHiOpen = 0;
  pCur->iRow = 0;
  pCur->bEof = 1;
}

static int cqCloseCursor(sqlite3_vtab_cursor *pCursor){
  CqCursor *pCur = (CqCursor*)pCursor;
  cursorReset(pCur);
  wcBufFree(&pCur->args);
  wcBufFree(&pCur->paging);
  wcBufFree(&pCur->lo);
  wcBufFree(&pCur->hi);
  wcBufFree(&pCur->key);
  sqlite3_free(pCur->aVal);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Adds a value of column iCol, decoded from a key, to the query's. */
static void addKeyArg(CqCursor *pCur, CqTable *p, int iCol, const WcValue *pV){
  if( pCur->nArg < (int)(sizeof(pCur->anArg) / sizeof(pCur->anArg[0])) ){
    putKeyValue(p, iCol, pV, &pCur->args, &pCur->anArg[pCur->nArg++]);
  }
}

/* Reads the next page (or the first) of the cursor's query. */
static int fetchPage(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  CqValue aVal[sizeof(pCur->anArg) / sizeof(pCur->anArg[0])];
  WcBuf state;
  int i, rc;
  int64_t iOff = 0;
  if( pCur->args.bOom || pCur->paging.bOom ) return SQLITE_NOMEM;
  for(i = 0; i < pCur->nArg; i++){
    aVal[i].a = pCur->args.a + iOff;
    aVal[i].n = pCur->anArg[i];
    if( pCur->anArg[i] > 0 ) iOff += pCur->anArg[i];
  }
  /* The paging state lives in the page it came with: keep it apart. */
  state = pCur->paging;
  memset(&pCur->paging, 0, sizeof(pCur->paging));
  cqResultClear(&pCur->res);
  rc = runPrepared(p, pCur->zCql, aVal, pCur->nArg, CQ_PAGE,
                   pCur->bMore ? state.a : 0, (int)state.n, "a read",
                   &pCur->res);
  wcBufFree(&state);
  pCur->iRow = 0;
  pCur->bMore = 0;
  if( rc != SQLITE_OK ) return rc;
  if( pCur->res.eKind != CQ_RESULT_ROWS ){
    return tableError(p, SQLITE_PROTOCOL, "Cassandra answered a read with no "
                      "rows (a result of kind %d)", pCur->res.eKind);
  }
  if( pCur->res.aPaging ){
    wcBufAppend(&pCur->paging, pCur->res.aPaging, pCur->res.nPaging);
    pCur->bMore = 1;
  }
  return pCur->paging.bOom ? SQLITE_NOMEM : SQLITE_OK;
}

static int keyCompare(const WcBuf *pA, const WcBuf *pB){
  int64_t n = pA->n < pB->n ? pA->n : pB->n;
  int c = n ? memcmp(pA->a, pB->a, (size_t)n) : 0;
  return c ? c : (pA->n < pB->n ? -1 : pA->n > pB->n);
}

/* Makes the row key of row pCur->iRow; SQLITE_OK, or an error for a row
** the design cannot hold (written by another client). */
static int rowKey(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  char *zErr = 0;
  int i, rc;
  for(i = 0; i < p->pS->nCol; i++){
    int n;
    const unsigned char *a = cqCell(&pCur->res, pCur->iRow, i, &n);
    if( cellValue(p->aType[i], a, n, &pCur->aVal[i]) ){
      return tableError(p, SQLITE_CORRUPT, "Cassandra's column %s holds a "
                        "value that is not a %s", p->pS->aCol[i].zName,
                        cqlTypeName(p->aType[i]));
    }
  }
  wcBufClear(&pCur->key);
  rc = wcEncodeKey(p->pS, p->pHasher, pCur->aVal, &pCur->key, &zErr);
  if( rc == WC_NOMEM || pCur->key.bOom ){
    sqlite3_free(zErr);
    return SQLITE_NOMEM;
  }
  if( rc != WC_OK ){
    return tableError(p, SQLITE_CORRUPT, "a row in Cassandra has no row key "
                      "of the design (written by another client?): %z", zErr);
  }
  return SQLITE_OK;
}

/* Moves to the first row at or after the current one that is in the
** range, reading pages as needed; past the range's end, EOF. */
static int settle(CqCursor *pCur){
  int rc;
  for(;;){
    if( pCur->iRow >= pCur->res.nRow ){
      if( !pCur->bMore ){
        pCur->bEof = 1;
        return SQLITE_OK;
      }
      rc = fetchPage(pCur);
      if( rc != SQLITE_OK ) return rc;
      continue;
    }
    rc = rowKey(pCur);
    if( rc != SQLITE_OK ) return rc;
    if( pCur->bHi ){
      int c = keyCompare(&pCur->key, &pCur->hi);
      if( c > 0 || (c == 0 && pCur->bHiOpen) ){
        pCur->bEof = 1;
        return SQLITE_OK;
      }
    }
    if( pCur->bLo ){
      int c = keyCompare(&pCur->key, &pCur->lo);
      if( c < 0 || (c == 0 && pCur->bLoOpen) ){
        pCur->iRow++;
        continue;
      }
    }
    pCur->bEof = 0;
    return SQLITE_OK;
  }
}

/* The token a key's leading TOKEN bytes give, the bytes missing taken as
** all zero (bHigh: all one). */
static int64_t tokenOf(const CqTable *p, const WcBuf *pKey, int bHigh){
  uint64_t v = 0;
  int i;
  if( p->pS->eEncoding == WC_ENCODING_BINARY ){
    for(i = 0; i < 8; i++){
      unsigned c = i < pKey->n ? pKey->a[i] : (bHigh ? 0xFF : 0x00);
      v = (v << 8) | c;
    }
  }else{
    for(i = 0; i < 16; i++){
      int c = i < pKey->n ? pKey->a[i] : (bHigh ? 'f' : '0');
      int d = c >= '0' && c <= '9' ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10 : (bHigh ? 15 : 0);
      v = (v << 4) | (uint64_t)d;
    }
  }
  return (int64_t)(v ^ UINT64_C(0x8000000000000000));
}

/* True if every key from p[0..n) up to hi is in p's partition: hi starts
** with it, or is the first key after every key that does. */
static int withinPartition(const unsigned char *a, int64_t n, const WcBuf *pHi){
  int64_t i;
  if( pHi->n >= n && memcmp(pHi->a, a, (size_t)n) == 0 ) return 1;
  for(i = n - 1; i >= 0 && a[i] == 0xFF; i--){}
  if( i < 0 || pHi->n != i + 1 ) return 0;
  return memcmp(pHi->a, a, (size_t)i) == 0 && pHi->a[i] == a[i] + 1;
}

/* The query of a range: one partition's slice where both ends are in one
** partition, with the first clustering column bounded where the ends
** say; else token ranges. */
static int rangeQuery(CqCursor *pCur){
  CqTable *p = (CqTable*)pCur->base.pVtab;
  sqlite3_str *pStr = sqlite3_str_new(0);
  WcBuf buf;
  int nElem = 0, i, rc = SQLITE_OK;
  int64_t nUsed = 0;
  memset(&buf, 0, sizeof(buf));
  sqlite3_str_appendf(pStr, "SELECT %s FROM %s", p->zColumns, p->zCqlName);
  if( pCur->bLo ){
    rc = wcDecodePrefix(p->pS, pCur->lo.a, pCur->lo.n, 1 + p->nPart + 1,
                        pCur->aVal, &buf, &nElem, &nUsed) == WC_NOMEM
         ? SQLITE_NOMEM : SQLITE_OK;
  }
  if( rc == SQLITE_OK && pCur->bLo && pCur->bHi && nElem >= 1 + p->nPart ){
    int64_t nPart = 0;
    for(i = 0; i <= p->nPart; i++){
      nPart += wcElementSpan(p->pS, i, pCur->lo.a + nPart, pCur->lo.n - nPart);
    }
    if( withinPartition(pCur->lo.a, nPart, &pCur->hi) ){
      sqlite3_str_appendf(pStr, " WHERE %s", p->zPartWhere);
      for(i = 0; i < p->nPart; i++){
        addKeyArg(pCur, p, p->aiKey[i], &pCur->aVal[p->aiKey[i]]);
      }
      if( nElem > 1 + p->nPart ){
        /* The first clustering column from the lower end: a bound in the
        ** column's order (DESC: from above). */
        int iCol = p->aiKey[p->nPart];
        const WcColumn *pCol = &p->pS->aCol[iCol];
        sqlite3_str_appendf(pStr, " AND \"%w\" %s ?", pCol->zName,
            p->pS->aElem[pCol->iElem].eOrder == WC_ORDER_DESC ? "<=" : ">=");
        addKeyArg(pCur, p, iCol, &pCur->aVal[iCol]);
      }
      wcBufFree(&buf);
      pCur->zCql = sqlite3_str_finish(pStr);
      return pCur->zCql ? SQLITE_OK : SQLITE_NOMEM;
    }
  }
  wcBufFree(&buf);
  if( rc == SQLITE_OK && (pCur->bLo || pCur->bHi) ){
    WcValue v;
    memset(&v, 0, sizeof(v));
    v.eType = SQLITE_INTEGER;
    sqlite3_str_appendall(pStr, " WHERE ");
    if( pCur->bLo ){
      sqlite3_str_appendf(pStr, "%s >= ?", p->zToken);
      v.i = tokenOf(p, &pCur->lo, 0);
      pCur->anArg[pCur->nArg++] = 8;
      cqPutBigint(&pCur->args, v.i);
    }
    if( pCur->bHi ){
      sqlite3_str_appendf(pStr, "%s%s <= ?", pCur->bLo ? " AND " : "",
                          p->zToken);
      v.i = tokenOf(p, &pCur->hi, 1);
      pCur->anArg[pCur->nArg++] = 8;
      cqPutBigint(&pCur->args, v.i);
    }
  }
  pCur->zCql = sqlite3_str_finish(pStr);
  if( rc == SQLITE_OK && pCur->zCql == 0 ) rc = SQLITE_NOMEM;
  return rc;
}

static int cqFilter(sqlite3_vtab_cursor *pCursor, int idxNum,
                    const char *idxStr, int argc, sqlite3_value **argv){
  CqCursor *pCur = (CqCursor*)pCursor;
  CqTable *p = (CqTable*)pCursor->pVtab;
  int iArg = 0, rc;
  (void)idxStr;
  (void)argc;
  cursorReset(pCur);
  if( idxNum & CQ_EQ ){
    WcBuf buf;
    const unsigned char *a = sqlite3_value_blob(argv[0]);
    int n = sqlite3_value_bytes(argv[0]), i;
    memset(&buf, 0, sizeof(buf));
    if( sqlite3_value_type(argv[0]) != SQLITE_BLOB
     || wcDecodeKey(p->pS, p->pHasher, a, n, pCur->aVal, &buf, 0) != WC_OK ){
      /* No row has a key the design cannot make. */
      wcBufFree(&buf);
      return SQLITE_OK;
    }
    for(i = 0; i < p->nKey; i++){
      addKeyArg(pCur, p, p->aiKey[i], &pCur->aVal[p->aiKey[i]]);
    }
    wcBufFree(&buf);
    wcBufAppend(&pCur->lo, a, n);
    wcBufAppend(&pCur->hi, a, n);
    pCur->bLo = pCur->bHi = 1;
    pCur->zCql = sqlite3_mprintf("SELECT %s FROM %s WHERE %s", p->zColumns,
                                 p->zCqlName, p->zKeyWhere);
    if( pCur->zCql == 0 ) return SQLITE_NOMEM;
  }else{
    if( idxNum & (CQ_GE|CQ_GT) ){
      sqlite3_value *pV = argv[iArg++];
      if( sqlite3_value_type(pV) == SQLITE_NULL ) return SQLITE_OK;
      wcBufAppend(&pCur->lo, sqlite3_value_blob(pV), sqlite3_value_bytes(pV));
      pCur->bLo = 1;
      pCur->bLoOpen = (idxNum & CQ_GT) != 0;
    }
    if( idxNum & (CQ_LE|CQ_LT) ){
      sqlite3_value *pV = argv[iArg++];
      if( sqlite3_value_type(pV) == SQLITE_NULL ) return SQLITE_OK;
      wcBufAppend(&pCur->hi, sqlite3_value_blob(pV), sqlite3_value_bytes(pV));
      pCur->bHi = 1;
      pCur->bHiOpen = (idxNum & CQ_LT) != 0;
    }
    rc = rangeQuery(pCur);
    if( rc != SQLITE_OK ) return rc;
  }
  if( pCur->lo.bOom || pCur->hi.bOom ) return SQLITE_NOMEM;
  pCur->bMore = 0;
  rc = fetchPage(pCur);
  return rc == SQLITE_OK ? settle(pCur) : rc;
}

static int cqNext(sqlite3_vtab_cursor *pCursor){
  CqCursor *pCur = (CqCursor*)pCursor;
  pCur->iRow++;
  return settle(pCur);
}

static int cqEof(sqlite3_vtab_cursor *pCursor){
  return ((CqCursor*)pCursor)->bEof;
}

static int cqColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx,
                    int i){
  CqCursor *pCur = (CqCursor*)pCursor;
  const WcValue *pV;
  if( i == 0 ){
    sqlite3_result_blob(ctx, pCur->key.a, (int)pCur->key.n, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  pV = &pCur->aVal[i - 1];
  switch( pV->eType ){
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, pV->i); break;
    case SQLITE_FLOAT:   sqlite3_result_double(ctx, pV->r); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, (const char*)pV->a, (int)pV->n, SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, pV->a, (int)pV->n, SQLITE_TRANSIENT);
      break;
    default: break;
  }
  return SQLITE_OK;
}

static int cqRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *piRowid){
  (void)pCursor;
  *piRowid = 0;
  return SQLITE_OK;
}

/* ---- Writing ---- */

/* The key's columns of row key pKey as values of a statement, into buf
** and an[]: SQLITE_OK, or SQLITE_NOTFOUND for a key no row can have. */
static int keyArgs(CqTable *p, sqlite3_value *pKey, WcValue *aVal,
                   WcBuf *pBuf, int *an){
  WcBuf dec;
  int i, rc;
  memset(&dec, 0, sizeof(dec));
  rc = sqlite3_value_type(pKey) == SQLITE_BLOB
     ? wcDecodeKey(p->pS, p->pHasher, sqlite3_value_blob(pKey),
                   sqlite3_value_bytes(pKey), aVal, &dec, 0)
     : WC_NOFIT;
  if( rc == WC_OK ){
    for(i = 0; i < p->nKey; i++){
      putKeyValue(p, p->aiKey[i], &aVal[p->aiKey[i]], pBuf, &an[i]);
    }
  }
  wcBufFree(&dec);
  if( rc == WC_NOMEM || pBuf->bOom ) return SQLITE_NOMEM;
  return rc == WC_OK ? SQLITE_OK : SQLITE_NOTFOUND;
}

/* Runs zCql with values buf/an[0..n). */
static int runWrite(CqTable *p, const char *zCql, WcBuf *pBuf, const int *an,
                    int n, const char *zDoing, CqResult *pRes){
  CqValue *aVal = sqlite3_malloc64(sizeof(CqValue) * ((size_t)n + 1));
  int64_t iOff = 0;
  int i, rc;
  if( aVal == 0 || pBuf->bOom ){
    sqlite3_free(aVal);
    return SQLITE_NOMEM;
  }
  for(i = 0; i < n; i++){
    aVal[i].a = pBuf->a + iOff;
    aVal[i].n = an[i];
    if( an[i] > 0 ) iOff += an[i];
  }
  rc = runPrepared(p, zCql, aVal, n, 0, 0, 0, zDoing, pRes);
  sqlite3_free(aVal);
  return rc;
}

static int writeDelete(CqTable *p, sqlite3_value *pKey, WcValue *aVal){
  WcBuf buf;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)p->nKey + 1)), rc;
  char *zCql = sqlite3_mprintf("DELETE FROM %s WHERE %s", p->zCqlName,
                               p->zKeyWhere);
  CqResult res;
  memset(&buf, 0, sizeof(buf));
  memset(&res, 0, sizeof(res));
  rc = an && zCql ? keyArgs(p, pKey, aVal, &buf, an) : SQLITE_NOMEM;
  if( rc == SQLITE_OK ) rc = runWrite(p, zCql, &buf, an, p->nKey, "a DELETE",
                                      &res);
  if( rc == SQLITE_NOTFOUND ) rc = SQLITE_OK;
  cqResultClear(&res);
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

/* INSERT: every column; IF NOT EXISTS unless bReplace. */
static int writeInsert(CqTable *p, sqlite3_value **apCol, int bReplace){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int nCol = p->pS->nCol, i, rc = SQLITE_OK;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)nCol + 1));
  WcBuf buf;
  CqResult res;
  char *zCql;
  memset(&buf, 0, sizeof(buf));
  memset(&res, 0, sizeof(res));
  sqlite3_str_appendf(pStr, "INSERT INTO %s (%s) VALUES (", p->zCqlName,
                      p->zColumns);
  for(i = 0; i < nCol; i++) sqlite3_str_appendall(pStr, i ? ", ?" : "?");
  sqlite3_str_appendall(pStr, bReplace ? ")" : ") IF NOT EXISTS");
  zCql = sqlite3_str_finish(pStr);
  if( zCql == 0 || an == 0 ) rc = SQLITE_NOMEM;
  for(i = 0; i < nCol && rc == SQLITE_OK; i++){
    rc = putValue(p, i, apCol[i], &buf, &an[i]);
    /* A new row's NULL is a column never written: no tombstone, which
    ** reads would have to skip (INSERT OR REPLACE must clear it). */
    if( !bReplace && an[i] < 0 ) an[i] = CQ_UNSET;
  }
  if( rc == SQLITE_OK ){
    rc = runWrite(p, zCql, &buf, an, nCol, bReplace ? "an INSERT OR REPLACE"
                  : "an INSERT (IF NOT EXISTS)", &res);
  }
  if( rc == SQLITE_OK && !bReplace ){
    /* A lightweight transaction answers [applied] first. */
    int n;
    const unsigned char *a = res.nRow > 0 && res.nCol > 0
                           ? cqCell(&res, 0, 0, &n) : 0;
    if( a == 0 || n != 1 ){
      rc = tableError(p, SQLITE_PROTOCOL, "Cassandra answered an INSERT IF "
                      "NOT EXISTS without [applied]");
    }else if( a[0] == 0 ){
      rc = tableError(p, SQLITE_CONSTRAINT_PRIMARYKEY, "a row with this key "
          "is in Cassandra's %s.%s already; INSERT OR REPLACE replaces it",
          p->zKeyspace, p->zCqlTable);
    }
  }
  cqResultClear(&res);
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

/* UPDATE of one row: the columns outside the key (a key is never changed
** in place: the core deletes and inserts). */
static int writeUpdate(CqTable *p, sqlite3_value *pKey, sqlite3_value **apCol,
                       WcValue *aVal){
  sqlite3_str *pStr = sqlite3_str_new(0);
  int nCol = p->pS->nCol, i, n = 0, rc;
  int *an = sqlite3_malloc64(sizeof(int) * ((size_t)nCol + 1));
  WcBuf buf;
  CqResult res;
  char *zCql;
  memset(&buf, 0, sizeof(buf));
  memset(&res, 0, sizeof(res));
  sqlite3_str_appendf(pStr, "UPDATE %s SET ", p->zCqlName);
  rc = an ? SQLITE_OK : SQLITE_NOMEM;
  for(i = 0; i < nCol && rc == SQLITE_OK; i++){
    if( p->pS->aCol[i].iElem >= 0 ) continue;
    sqlite3_str_appendf(pStr, "%s\"%w\" = ?", n ? ", " : "",
                        p->pS->aCol[i].zName);
    rc = putValue(p, i, apCol[i], &buf, &an[n++]);
  }
  sqlite3_str_appendf(pStr, " WHERE %s", p->zKeyWhere);
  zCql = sqlite3_str_finish(pStr);
  if( rc == SQLITE_OK && zCql == 0 ) rc = SQLITE_NOMEM;
  if( rc == SQLITE_OK && n > 0 ){
    rc = keyArgs(p, pKey, aVal, &buf, an + n);
    if( rc == SQLITE_OK ){
      rc = runWrite(p, zCql, &buf, an, n + p->nKey, "an UPDATE", &res);
    }
    if( rc == SQLITE_NOTFOUND ) rc = SQLITE_OK;
  }
  cqResultClear(&res);
  wcBufFree(&buf);
  sqlite3_free(an);
  sqlite3_free(zCql);
  return rc;
}

static int cqUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                    sqlite3_int64 *piRowid){
  CqTable *p = (CqTable*)pVtab;
  WcValue *aVal = sqlite3_malloc64(sizeof(WcValue) * ((size_t)p->pS->nCol + 1));
  int rc;
  (void)piRowid;
  if( aVal == 0 ) return SQLITE_NOMEM;
  memset(aVal, 0, sizeof(WcValue) * ((size_t)p->pS->nCol + 1));
  if( argc == 1 ){
    rc = writeDelete(p, argv[0], aVal);
  }else if( sqlite3_value_type(argv[0]) == SQLITE_NULL ){
    rc = writeInsert(p, &argv[3],
                     sqlite3_vtab_on_conflict(p->pShared->db) == SQLITE_REPLACE);
  }else{
    rc = writeUpdate(p, argv[0], &argv[3], aVal);
  }
  sqlite3_free(aVal);
  return rc;
}

static sqlite3_module cqModule = {
  2,                    /* iVersion */
  cqCreate,
  cqConnect,
  cqBestIndex,
  cqDisconnect,
  cqDestroy,
  cqOpenCursor,
  cqCloseCursor,
  cqFilter,
  cqNext,
  cqEof,
  cqColumn,
  cqRowid,
  cqUpdate,
  0, 0, 0, 0,           /* xBegin, xSync, xCommit, xRollback */
  0,                    /* xFindFunction */
  cqRename,
  0, 0, 0,              /* xSavepoint, xRelease, xRollbackTo */
  0                     /* xShadowName */
};

int cqRegister(sqlite3 *db, char **pzErrMsg){
  CqShared *pShared;
  if( !wcWidecolLoaded(db) ){
    if( pzErrMsg ){
      *pzErrMsg = sqlite3_mprintf("widecol_cassandra is the Cassandra store "
          "of widecol tables and needs widecol loaded first: .load widecol, "
          "then .load widecol_cassandra");
    }
    return SQLITE_ERROR;
  }
  pShared = sqlite3_malloc(sizeof(*pShared));
  if( pShared == 0 ) return SQLITE_NOMEM;
  memset(pShared, 0, sizeof(*pShared));
  pShared->db = db;
  return sqlite3_create_module_v2(db, "widecol_cassandra", &cqModule, pShared,
                                  sharedFree);
}
