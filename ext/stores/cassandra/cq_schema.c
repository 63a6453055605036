/*
** cq_schema.c: the CQL table of a design made (its keyspace too, where
** there is none: one replica) and dropped.  Its comment records the
** CREATE that made it (OWNER), so that DROP TABLE drops only a table its
** own CREATE made, and a second widecol table cannot take one over
** unless EXTERNAL.
*/
#include "stores/cassandra/cq_store.h"
SQLITE_EXTENSION_INIT3

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
  rc = cqRunCql(p, zCql, "reading its schema", &res);
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
  for(i = 0; i < p->nCqlCol; i++){
    int iCol = p->aiCqlCol[i];
    sqlite3_str_appendf(pStr, "\"%w\" %s, ", cqColumnName(p, iCol),
                        cqColumnTypeName(p->aType[iCol]));
  }
  sqlite3_str_appendall(pStr, "PRIMARY KEY ((");
  for(i = 0; i < p->nKey; i++){
    if( i == p->nPart ) sqlite3_str_appendall(pStr, ")");
    sqlite3_str_appendf(pStr, "%s\"%w\"", i ? ", " : "",
                        cqColumnName(p, p->aiKey[i]));
  }
  if( p->nKey == p->nPart ) sqlite3_str_appendall(pStr, ")");
  sqlite3_str_appendall(pStr, "))");
  for(i = p->nPart; i < p->nKey; i++){
    sqlite3_str_appendf(pStr, "%s\"%w\" %s", i == p->nPart
                        ? " WITH CLUSTERING ORDER BY (" : ", ",
                        cqColumnName(p, p->aiKey[i]),
                        cqKeyDesc(p, p->aiKey[i]) ? "DESC" : "ASC");
  }
  sqlite3_str_appendf(pStr, "%s comment = %s", p->nKey > p->nPart
                      ? ") AND" : " WITH", zLit ? zLit : "''");
  if( p->nTtl > 0 ){
    sqlite3_str_appendf(pStr, " AND default_time_to_live = %lld",
                        (long long)p->nTtl);
  }
  sqlite3_free(zComment);
  sqlite3_free(zLit);
  return sqlite3_str_finish(pStr);
}

/* Makes the keyspace (one replica, where it is not there) and the table. */
int cqCreateRemote(CqTable *p){
  char *zComment = 0, *zCql;
  CqResult res;
  int rc;
  zCql = sqlite3_mprintf("CREATE KEYSPACE IF NOT EXISTS \"%w\" WITH "
      "replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
      p->zKeyspace);
  rc = zCql ? cqRunCql(p, zCql, "making its keyspace", &res) : SQLITE_NOMEM;
  sqlite3_free(zCql);
  cqResultClear(&res);
  if( rc == SQLITE_OK ) rc = readComment(p, &zComment);
  if( rc == SQLITE_OK && zComment ){
    if( !p->bExternal ){
      rc = cqTableError(p, SQLITE_ERROR, "Cassandra already has a table %s.%s "
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
  if( rc == SQLITE_OK ) rc = zCql ? cqRunCql(p, zCql, "CREATE TABLE", &res)
                                  : SQLITE_NOMEM;
  if( rc == SQLITE_OK ) cqPreparedStale(p->pShared->pConn);
  sqlite3_free(zCql);
  cqResultClear(&res);
  return rc;
}

/* DROP TABLE: the CQL table goes, if this database's CREATE made it. */
int cqDropRemote(CqTable *p){
  char *zComment = 0, *zMine = ownerComment(p), *zCql;
  CqResult res;
  int rc = zMine ? readComment(p, &zComment) : SQLITE_NOMEM;
  if( rc == SQLITE_OK && zComment && strcmp(zComment, zMine) == 0 ){
    zCql = sqlite3_mprintf("DROP TABLE IF EXISTS %s", p->zCqlName);
    rc = zCql ? cqRunCql(p, zCql, "DROP TABLE", &res) : SQLITE_NOMEM;
    if( rc == SQLITE_OK ) cqPreparedStale(p->pShared->pConn);
    sqlite3_free(zCql);
    cqResultClear(&res);
  }
  sqlite3_free(zComment);
  sqlite3_free(zMine);
  return rc;
}
