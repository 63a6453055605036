/*
** cq_schema.c: the CQL table of a design made (its keyspace too, where
** there is none: one replica) and dropped.  Its comment records the
** CREATE that made it (OWNER), so that DROP TABLE drops only a table its
** own CREATE made, and a second widecol table cannot take one over
** unless EXTERNAL.  An EXTERNAL design is compared with the CQL table's
** columns in system_schema (its partition key, clustering columns and
** their order, each column's type) and refused where they differ: a
** design read over a table it does not describe answers wrongly.
**
** CQL's DDL is not transactional; cq_table.c makes it keep step with
** SQLite's transaction (stores/contract/sc_txn.c).
*/
#include "stores/cassandra/cq_store.h"
#include "key/wc_cql.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

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

/* The comment on the CQL table, in *pzComment (NULL: no such table), as
** node iNode says (-1: any node). */
static int readComment(CqTable *p, int iNode, char **pzComment){
  char *zKs = cqlString(p->zKeyspace), *zT = cqlString(p->zCqlTable), *zCql;
  CqResult res;
  int rc;
  *pzComment = 0;
  zCql = sqlite3_mprintf("SELECT comment FROM system_schema.tables WHERE "
                         "keyspace_name = %s AND table_name = %s", zKs, zT);
  sqlite3_free(zKs);
  sqlite3_free(zT);
  if( zCql == 0 ) return SQLITE_NOMEM;
  rc = cqRunCql(p, zCql, "reading its schema", &res, &iNode);
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

/* A column the design wants, as system_schema.columns says one: kind
** ("partition_key", "clustering", "regular"), position (-1 for a
** regular column), clustering order ("asc", "desc", "none"), type. */
typedef struct CqColumnWant CqColumnWant;
struct CqColumnWant {
  const char *zName;
  const char *zKind;
  int iPos;
  const char *zOrder;
  const char *zType;
  int bFound;
};

static int cellIs(const unsigned char *a, int n, const char *z){
  return (int)strlen(z) == n && (n == 0 || memcmp(a, z, (size_t)n) == 0);
}

/* "<type> <kind>[ <position> <order>]" of a column, appended. */
static void appendColumnKind(sqlite3_str *pStr, const char *zType,
                             const char *zKind, int iPos, const char *zOrder){
  sqlite3_str_appendf(pStr, "%s %s", zType, zKind);
  if( strcmp(zKind, "regular") != 0 ){
    sqlite3_str_appendf(pStr, " %d %s", iPos, zOrder);
  }
}

/* The columns of the CQL table in system_schema against aWant[0..nWant):
** each one found is marked, each difference said in pDiff. */
static int compareColumns(CqTable *p, CqColumnWant *aWant, int nWant,
                          sqlite3_str *pDiff){
  char *zKs = cqlString(p->zKeyspace), *zT = cqlString(p->zCqlTable), *zCql;
  CqResult res;
  int64_t iRow;
  int rc;
  zCql = zKs && zT ? sqlite3_mprintf("SELECT column_name, kind, position, "
      "clustering_order, type FROM system_schema.columns WHERE "
      "keyspace_name = %s AND table_name = %s", zKs, zT) : 0;
  sqlite3_free(zKs);
  sqlite3_free(zT);
  if( zCql == 0 ) return SQLITE_NOMEM;
  rc = cqRunCql(p, zCql, "reading its columns", &res, 0);
  sqlite3_free(zCql);
  for(iRow = 0; rc == SQLITE_OK && iRow < res.nRow; iRow++){
    const unsigned char *a[5];
    int n[5], i, k, iPos;
    for(k = 0; k < 5; k++){
      a[k] = cqCell(&res, iRow, k, &n[k]);
      if( a[k] == 0 || n[k] < 0 ) n[k] = 0;
    }
    iPos = n[2] == 4 ? (int)(((uint32_t)a[2][0] << 24) | ((uint32_t)a[2][1] << 16)
                             | ((uint32_t)a[2][2] << 8) | a[2][3]) : -1;
    for(i = 0; i < nWant; i++){
      CqColumnWant *pW = &aWant[i];
      char *zKind;
      if( !cellIs(a[0], n[0], pW->zName) ) continue;
      pW->bFound = 1;
      if( cellIs(a[1], n[1], pW->zKind) && cellIs(a[3], n[3], pW->zOrder)
       && cellIs(a[4], n[4], pW->zType)
       && (strcmp(pW->zKind, "regular") == 0 || iPos == pW->iPos) ){
        continue;
      }
      zKind = sqlite3_mprintf("%.*s", n[1], a[1]);
      sqlite3_str_appendf(pDiff, "; \"%w\" is ", pW->zName);
      if( zKind ){
        char *zOrder = sqlite3_mprintf("%.*s", n[3], a[3]);
        char *zType = sqlite3_mprintf("%.*s", n[4], a[4]);
        appendColumnKind(pDiff, zType ? zType : "?", zKind, iPos,
                         zOrder ? zOrder : "?");
        sqlite3_free(zOrder);
        sqlite3_free(zType);
      }
      sqlite3_str_appendall(pDiff, " there, the design's is ");
      appendColumnKind(pDiff, pW->zType, pW->zKind, pW->iPos, pW->zOrder);
      sqlite3_free(zKind);
    }
  }
  cqResultClear(&res);
  return rc;
}

/* EXTERNAL over an existing CQL table: its key and column types must be
** the design's (the key in order, each clustering column's order), or
** the CREATE is refused saying what differs.  A row table without
** _stamp gets it (ALTER TABLE ... ADD: other clients do not see it). */
static int checkExternal(CqTable *p){
  CqColumnWant *aWant = sqlite3_malloc64(sizeof(CqColumnWant)
                                         * (size_t)(p->nCqlCol + 1));
  sqlite3_str *pDiff = sqlite3_str_new(0);
  char *zDiff;
  int i, nWant = 0, rc = aWant ? SQLITE_OK : SQLITE_NOMEM;
  int iStamp = -1;
  for(i = 0; rc == SQLITE_OK && i < p->nCqlCol; i++){
    int iCol = p->aiCqlCol[i], k;
    CqColumnWant *pW = &aWant[nWant++];
    memset(pW, 0, sizeof(*pW));
    pW->zName = cqColumnName(p, iCol);
    pW->zType = cqColumnTypeName(p->aType[iCol]);
    pW->zKind = "regular";
    pW->zOrder = "none";
    if( iCol == CQ_STAMP(p->pS) && p->iIndex < 0 ) iStamp = nWant - 1;
    for(k = 0; k < p->nKey; k++){
      if( p->aiKey[k] != iCol ) continue;
      pW->zKind = k < p->nPart ? "partition_key" : "clustering";
      pW->iPos = k < p->nPart ? k : k - p->nPart;
      pW->zOrder = k < p->nPart ? "none" : cqKeyDesc(p, iCol) ? "desc" : "asc";
    }
  }
  if( rc == SQLITE_OK ) rc = compareColumns(p, aWant, nWant, pDiff);
  for(i = 0; rc == SQLITE_OK && i < nWant; i++){
    if( !aWant[i].bFound && i != iStamp ){
      sqlite3_str_appendf(pDiff, "; it has no column \"%w\" (", aWant[i].zName);
      appendColumnKind(pDiff, aWant[i].zType, aWant[i].zKind, aWant[i].iPos,
                       aWant[i].zOrder);
      sqlite3_str_appendall(pDiff, ")");
    }
  }
  if( rc == SQLITE_OK ) rc = sqlite3_str_errcode(pDiff);
  zDiff = sqlite3_str_finish(pDiff);     /* NULL: no difference */
  if( rc == SQLITE_OK && zDiff ){
    rc = cqTableError(p, SQLITE_ERROR, "EXTERNAL: Cassandra's %s.%s is not "
        "the table of this design%s; write the design its columns, key and "
        "clustering order give (widecol_ddl(t, 'cql') prints a design's), "
        "or name another table", p->zKeyspace, p->zCqlTable, zDiff);
  }else if( rc == SQLITE_OK && iStamp >= 0 && !aWant[iStamp].bFound ){
    CqResult res;
    char *zCql = sqlite3_mprintf("ALTER TABLE %s ADD \"" WC_STAMP_COLUMN
                                 "\" blob", p->zCqlName);
    rc = zCql ? cqRunCql(p, zCql, "adding its _stamp column", &res, 0)
              : SQLITE_NOMEM;
    if( rc != SQLITE_OK && rc != SQLITE_NOMEM ){
      /* Added already (by an attempt whose answer was lost, or another
      ** database at the same time): as good. */
      sqlite3_str *pScratch = sqlite3_str_new(0);
      if( compareColumns(p, &aWant[iStamp], 1, pScratch) == SQLITE_OK
       && aWant[iStamp].bFound && sqlite3_str_length(pScratch) == 0 ){
        sqlite3_free(p->base.zErrMsg);
        p->base.zErrMsg = 0;
        rc = SQLITE_OK;
      }
      sqlite3_free(sqlite3_str_finish(pScratch));
    }
    cqResultClear(&res);
    sqlite3_free(zCql);
  }
  sqlite3_free(zDiff);
  sqlite3_free(aWant);
  return rc;
}

/* CREATE TABLE for the design (key/wc_cql.h: the text widecol_ddl prints
** too), with this CREATE's owner as its comment. */
static char *createCql(const CqTable *p){
  sqlite3_str *pStr = sqlite3_str_new(0);
  char *zComment = ownerComment(p), *zLit = zComment ? cqlString(zComment) : 0;
  int rc = zLit ? wcCqlCreate(pStr, p->pS, p->iIndex, p->zCqlName, zLit)
                : SQLITE_NOMEM;
  sqlite3_free(zComment);
  sqlite3_free(zLit);
  if( rc != SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(pStr));
    return 0;
  }
  return sqlite3_str_finish(pStr);
}

/* Makes the keyspace where it is not there: with the replication
** CQ_REPLICATION_ENV gives (a CQL map), else SimpleStrategy with as many
** replicas as the cluster has nodes, up to CQ_DEFAULT_REPLICAS. */
static int createKeyspace(CqTable *p){
  const char *zMap = getenv(CQ_REPLICATION_ENV);
  CqResult res;
  char *zCql = 0;
  int rc, nRf, nAttempt = 1;
  /* The cluster's size chooses the replicas: reached first, the opening
  ** retried as any call is (a connection severed while it opens). */
  while( (rc = cqClusterOpen(p)) != SQLITE_OK && cqRetry(p, nAttempt++) ){}
  if( rc != SQLITE_OK ) return rc;
  nRf = cqClusterSize(&p->pShared->cluster);
  if( nRf > CQ_DEFAULT_REPLICAS ) nRf = CQ_DEFAULT_REPLICAS;
  if( nRf < 1 ) nRf = 1;
  if( zMap && zMap[0] ){
    zCql = sqlite3_mprintf("CREATE KEYSPACE IF NOT EXISTS \"%w\" WITH "
                           "replication = %s", p->zKeyspace, zMap);
  }else{
    zCql = sqlite3_mprintf("CREATE KEYSPACE IF NOT EXISTS \"%w\" WITH "
        "replication = {'class': 'SimpleStrategy', 'replication_factor': %d}",
        p->zKeyspace, nRf);
  }
  rc = zCql ? cqRunCql(p, zCql, zMap && zMap[0] ? "making its keyspace (with "
                       "the replication " CQ_REPLICATION_ENV " gives)"
                       : "making its keyspace", &res, 0) : SQLITE_NOMEM;
  sqlite3_free(zCql);
  cqResultClear(&res);
  return rc;
}

/* The error of a CREATE whose CQL table another made (zComment its
** comment). */
static int tableTaken(CqTable *p, const char *zComment){
  return cqTableError(p, SQLITE_ERROR, "Cassandra already has a table %s.%s "
      "(%s); widecol makes the table of a design itself: name another in "
      "STORAGE CASSANDRA, drop that one, or add EXTERNAL to use it as it is",
      p->zKeyspace, p->zCqlTable, strncmp(zComment, "widecol table", 13) == 0
      ? "made by another widecol database" : "not made by widecol");
}

/* Makes the keyspace and the table: *pbMade if it made it (not an
** EXTERNAL table that was there).  The CREATE TABLE is IF NOT EXISTS, and
** the table's comment read after it says whose it is: this CREATE's
** (made again after its answer was lost: it goes to the node that had it
** first, where it is then there), or another client's that made it first.
** Without IF NOT EXISTS a CREATE made again failed where the first had
** made the table. */
int cqCreateRemote(CqTable *p, int *pbMade){
  char *zComment = 0, *zCql, *zMine = 0;
  CqResult res;
  int rc, iNode = -1;
  *pbMade = 0;
  memset(&res, 0, sizeof(res));
  rc = createKeyspace(p);
  if( rc == SQLITE_OK && scDdlDropping(&p->pShared->ddl, p->zCqlName) ){
    return cqTableError(p, SQLITE_ERROR, "Cassandra's %s.%s is dropped at "
        "the COMMIT of the DROP TABLE before this CREATE; COMMIT first, then "
        "make it again", p->zKeyspace, p->zCqlTable);
  }
  if( rc == SQLITE_OK ) rc = readComment(p, -1, &zComment);
  if( rc == SQLITE_OK && zComment ){
    rc = p->bExternal ? checkExternal(p) : tableTaken(p, zComment);
    sqlite3_free(zComment);
    return rc;
  }
  zCql = rc == SQLITE_OK ? createCql(p) : 0;
  if( rc == SQLITE_OK ){
    rc = zCql ? cqRunCql(p, zCql, "CREATE TABLE", &res, &iNode) : SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK ){
    /* Read where it was made: a node that had not heard yet says none. */
    zMine = ownerComment(p);
    rc = zMine ? readComment(p, iNode, &zComment) : SQLITE_NOMEM;
  }
  if( rc == SQLITE_OK && zComment == 0 ){
    CqLink link;
    memset(&link, 0, sizeof(link));
    link.iNode = iNode;
    rc = cqTableError(p, SQLITE_PROTOCOL, "Cassandra at %s answered the "
        "CREATE TABLE of %s.%s, then said it has no such table",
        cqNodeName(p, &link), p->zKeyspace, p->zCqlTable);
  }else if( rc == SQLITE_OK && strcmp(zComment, zMine) ){
    rc = tableTaken(p, zComment);
  }
  sqlite3_free(zComment);
  sqlite3_free(zMine);
  sqlite3_free(zCql);
  cqResultClear(&res);
  *pbMade = rc == SQLITE_OK;
  return rc;
}

int cqDropRemote(CqTable *p, int *pbKept){
  char *zComment = 0, *zMine = ownerComment(p), *zCql;
  CqResult res;
  int rc = zMine ? readComment(p, -1, &zComment) : SQLITE_NOMEM;
  *pbKept = 1;
  if( rc == SQLITE_OK && zComment && strcmp(zComment, zMine) == 0 ){
    *pbKept = 0;
    zCql = sqlite3_mprintf("DROP TABLE IF EXISTS %s", p->zCqlName);
    rc = zCql ? cqRunCql(p, zCql, "DROP TABLE", &res, 0) : SQLITE_NOMEM;
    sqlite3_free(zCql);
    cqResultClear(&res);
  }
  sqlite3_free(zComment);
  sqlite3_free(zMine);
  return rc;
}
