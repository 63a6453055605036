/*
** cq_store.h: what the files of the Cassandra store share (cq_conn.c,
** cq_value.c, cq_schema.c, cq_table.c, cq_read.c, cq_write.c): the
** connection a database's tables share, a table, and the calls between
** the files.  The store keeps a widecol table's rows as the CQL table its
** design means (cq_table.c says how the contract's statements map).
**
** Ownership: the module owns one CqShared per database (freed with the
** module); a CqTable owns its names, design and buffers.
**
** The files call down only: cq_conn.c (over cq_wire.c), then cq_value.c,
** cq_schema.c, cq_write.c, cq_read.c (which waits for the writes), and
** cq_table.c, the module, over all of them.
*/
#ifndef WIDECOL_CQ_STORE_H
#define WIDECOL_CQ_STORE_H

#include "stores/cassandra/cq_wire.h"
#include "key/wc_codec.h"
#include "stores/contract/sc_contract.h"
#include "sqlite3ext.h"

#define CQ_ENV             "WIDECOL_CASSANDRA"
#define CQ_CONSISTENCY_ENV "WIDECOL_CASSANDRA_CONSISTENCY"
#define CQ_PROTOCOL_ENV    "WIDECOL_CASSANDRA_PROTOCOL"
#define CQ_TIMEOUT_MS 60000
/* A call whose connection failed is made again where that is safe: this
** many attempts in all, the waits between them doubling from the first. */
#define CQ_ATTEMPTS 6
#define CQ_FIRST_BACKOFF_MS 20
#define CQ_MAX_BACKOFF_MS 1000
/* The transaction table (stores/contract/sc_txn.c), which DDL puts in the
** transaction so that its end comes to this module. */
#define CQ_TXN_MODULE "widecol_cassandra_txn"
#define CQ_MAX_SAVEPOINT 64
/* A scan's pages (the kind's read schedule, util/wc_kind.c, which the
** planner prices): rows a page asks for at most, the first one's, and
** how much larger each next one is. */
#define CQ_READS (&wcKind(WC_STORE_CASSANDRA)->reads)
#define CQ_PAGE (CQ_READS->nMaxPage)
#define CQ_FIRST_PAGE (CQ_READS->nFirstPage)
#define CQ_SLICE_PAGE 1000      /* ... of a partition's slice */
#define CQ_MAX_ARGS 64          /* values a read binds: the key's columns */

/* The pseudo-columns after the design's nCol: an index entry's rowkey,
** a versioned table's rowtime, and _stamp (a row's: the stamps of its
** last write, util/wc_stamp.h, the write's then one per INDEX; an
** entry's: the stamp of the write that put it, the last column of its
** key, so that two writes' entries of one row never overwrite each
** other); arrays by column have CQ_NCOL(pS). */
#define CQ_ROWKEY(pS)  ((pS)->nCol)
#define CQ_ROWTIME(pS) ((pS)->nCol + 1)
#define CQ_STAMP(pS)   ((pS)->nCol + 2)
#define CQ_NCOL(pS)    ((size_t)(pS)->nCol + 3)

/* The connection a database's tables share, and the writes in flight on
** it (cq_write.c). */
typedef struct CqWrite CqWrite;
typedef struct CqGroup CqGroup;
typedef struct CqShared CqShared;
struct CqShared {
  int nRef;             /* The modules registered with it */
  sqlite3 *db;
  CqConn *pConn;        /* NULL until used, and after a failure */
  int iConn;            /* Connections opened: which one pConn is */
  int bLost;            /* The last call failed because its connection
                        ** did (a new one may do) */
  char *zEndpoint;      /* host:port, for messages */
  int eConsistency;
  CqWrite *aWrite;      /* In flight: a ring, aWrite[iFirst] the oldest */
  int iFirst, nWrite;
  CqGroup *pGroup;      /* The writes of one group, not yet sent */
  int rcKept;           /* The first failure found, not yet reported */
  char *zKept;
  /* DDL waiting for the end of the transaction (cq_schema.c): CQL tables
  ** to drop at COMMIT, those made to drop again at ROLLBACK; its sequence
  ** numbers, the next one's and each savepoint's. */
  ScDdl ddl;
  int64_t iDdlSeq;
  int bOpen;            /* A transaction is open (its first xBegin came) */
  int nSavepoint;
  int64_t aiSavepoint[CQ_MAX_SAVEPOINT];
};

/* A table of rows: the module's virtual table. */
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
  /* The table of rows, keyed by the row key (iIndex -1), or of an INDEX's
  ** entries, keyed by the index key followed by the row key (ENTRIES OF
  ** '<table>' iIndex): pKeyS is the key that leads. */
  int iIndex;
  const WcSchema *pKeyS;
  int bRowtime;         /* ROWTIME: a versioned table's (TTL): the CQL
                        ** table has rowtime, its rows expire */
  int64_t nTtl;         /* TTL seconds, or 0 */
  int nCqlCol;          /* The CQL table's columns, in the virtual table's
                        ** order after the keys: aiCqlCol[] of the design */
  int *aiCqlCol;
  int *aiCqlPos;        /* Per column of the design: its place among them,
                        ** or -1 */
  int *aType;           /* CQ_TYPE_* of each column of the design (and
                        ** of the pseudo-column nCol, an entry's rowkey) */
  unsigned char *abKey; /* Per column of the design: in the primary key */
  int nPart;            /* aiKey[0..nPart): the partition key's columns */
  int nKey;             /* aiKey[nPart..nKey): the clustering columns */
  int *aiKey;
  int nKeyRead;         /* The key's columns that the virtual table's key
                        ** (rowkey, ikey) gives: nKey, less an entry's
                        ** _stamp */
  char *zColumns;       /* "c1", "c2", ... the CQL table's columns, quoted */
  char *zKeyWhere;      /* "p" = ? AND "c" = ? ...: one row (an entry's
                        ** with its _stamp) */
  char *zReadWhere;     /* ... its first nKeyRead columns: the rows of a
                        ** key (an entry's of every write) */
  char *zPartWhere;     /* "p" = ? ...: one partition */
  char *zToken;         /* token("p", ...) */
  /* The last read of one key (widecol reads a row, then writes it): a
  ** write of that key is conditional on the _stamp it saw (cq_write.c).
  ** Given with _stamp = ?, the row is taken to be there, unread. */
  WcBuf seenKey;
  int bSeen;            /* A read of one key ended here, */
  int bSeenRow;         /* ... and found the row, */
  int bSeenStamp;       /* ... with a _stamp, */
  WcBuf seenStamp;      /* ... this one */
  /* An index's table: the row table's CQL table and the WHERE of one of
  ** its rows, which an entry is checked against (cq_read.c). */
  char *zRowTable;      /* "keyspace"."table" of the rows */
  char *zRowCql;        /* SELECT "_stamp" FROM it WHERE <a row's key> */
  int nRowKey;          /* aiRowKey[0..nRowKey): the row key's columns */
  int *aiRowKey;
  WcRpcStats count;     /* Its calls, for widecol_stats() (the counting
                        ** fields of wc_contract.h's WcRpcStats) */
};

/* cq_conn.c: connecting, and what a failed call becomes. */
/* Sets the table's error message, naming the widecol table; returns rc. */
int cqTableError(CqTable *p, int rc, const char *zFormat, ...);
/* The SQLite code and message of a failed call (rc from cq_wire.h). */
int cqCallError(CqTable *p, int rc, CqResult *pRes, const char *zDoing);
/* Runs a schema statement (made again where its connection failed: its
** CQL must be safe to run twice); a prepared one with values (a page of
** nPage rows from aPaging) once, at consistency eConsistency (or
** CQ_LEVEL_SET); a read, made again so.  SQLITE_OK, or an error with the message set. */
#define CQ_LEVEL_SET (-1)   /* eConsistency: the connection's, as set */
int cqRunCql(CqTable *p, const char *zCql, const char *zDoing,
             CqResult *pRes);
int cqRunPrepared(CqTable *p, const char *zCql, const CqValue *aVal,
                  int nVal, int eConsistency, int nPage,
                  const unsigned char *aPaging, int nPaging,
                  const char *zDoing, CqResult *pRes);
int cqRunRead(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const char *zDoing, CqResult *pRes);
/* After attempt nAttempt of a call failed: 1 if its connection failed
** and another may be made (after a wait, counted in widecol_stats's
** retries, the failure's message dropped), else 0. */
int cqRetry(CqTable *p, int nAttempt);
/* The connection, opened if it is not: SQLITE_OK or an error (message
** set).  A call's deadline.  zCql prepared on it (cached by the wire). */
int cqConnection(CqTable *p, CqConn **ppConn);
WcDeadline cqDeadline(CqTable *p);
int cqPrepared(CqTable *p, const char *zCql, CqStmt **ppStmt, CqResult *pRes);
/* The connection, and zCql prepared on it, made again where the
** connection failed (cqRetry()): SQLITE_OK or an error (message set). */
int cqReady(CqTable *p, const char *zCql, CqConn **ppConn, CqStmt **ppStmt);
/* Counts, for widecol_stats(), a request p sent on pConn (a statement
** run: preparing one, once a connection, is not counted), and a reply
** p took. */
void cqCountRequest(CqTable *p, const CqConn *pConn);
void cqCountReply(CqTable *p, const CqResult *pRes);
/* The length of the widecol table's name, the start of p->zName. */
int cqWidecolNameLen(const CqTable *p);

/* cq_value.c: SQLite's values as CQL's and back. */
int cqColumnType(char cAff);
const char *cqColumnTypeName(int eType);
int cqPutValue(CqTable *p, int iCol, sqlite3_value *pVal, WcBuf *pBuf,
               int *pn);
void cqPutKeyValue(CqTable *p, int iCol, const WcValue *pV, WcBuf *pBuf,
                   int *pn);
int cqCellValue(int eType, const unsigned char *a, int n, WcValue *pV);

/* cq_value.c: the key columns' values of a key of this table (a row key,
** or an index key followed by a row key, the pseudo-column CQ_ROWKEY)
** into aVal[] (CQ_NCOL of them), their bytes in pBuf: WC_OK, or WC_NOFIT
** for a key no row can have, or WC_NOMEM.  A column's name (the
** pseudo-columns': "rowkey", "rowtime"). */
int cqDecodeKey(CqTable *p, const unsigned char *a, int64_t n, WcValue *aVal,
                WcBuf *pBuf);
const char *cqColumnName(const CqTable *p, int iCol);
/* The bytes of key a[0..n) of this table that name its partition: the
** leading TOKEN and the partition key's fields. */
int64_t cqPartitionBytes(const CqTable *p, const unsigned char *a, int64_t n);
/* True if key column iCol is a DESC clustering column: its field in the
** leading key (else in the row key) is. */
int cqKeyDesc(const CqTable *p, int iCol);

/* cq_schema.c: the CQL table made (and its keyspace) and dropped.
** cqCreateRemote() makes p's table, *pbMade if it did (not an EXTERNAL
** one that was there); cqDropRemote() drops it if p's CREATE made it
** (else *pbKept).  cq_table.c makes both keep step with the transaction
** (DROP at COMMIT, CREATE undone by ROLLBACK), CqShared.ddl. */
int cqCreateRemote(CqTable *p, int *pbMade);
int cqDropRemote(CqTable *p, int *pbKept);

/* cq_read.c: the module's cursor. */
int cqOpenCursor(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur);
int cqCloseCursor(sqlite3_vtab_cursor *pCursor);
int cqFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
             int argc, sqlite3_value **argv);
int cqNext(sqlite3_vtab_cursor *pCursor);
int cqEof(sqlite3_vtab_cursor *pCursor);
int cqColumn(sqlite3_vtab_cursor *pCursor, sqlite3_context *ctx, int i);
int cqRowid(sqlite3_vtab_cursor *pCursor, sqlite3_int64 *piRowid);

/* cq_write.c: the module's writes and transactions.  cqWritesDone()
** sends the group of writes not yet sent, waits for the writes in flight
** and returns the first failure found, as p's; cqWritesForget() sends and
** waits for them and drops what failed; cqGroupPending() says whether a
** group waits to be sent; cqWritesFree() frees what the connection kept
** for them. */
int cqUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
             sqlite3_int64 *piRowid);
int cqBegin(sqlite3_vtab *pVtab);
int cqSync(sqlite3_vtab *pVtab);
int cqCommit(sqlite3_vtab *pVtab);
int cqRollback(sqlite3_vtab *pVtab);
int cqSavepoint(sqlite3_vtab *pVtab, int iSavepoint);
int cqRelease(sqlite3_vtab *pVtab, int iSavepoint);
int cqRollbackTo(sqlite3_vtab *pVtab, int iSavepoint);
int cqWritesDone(CqTable *p);
void cqWritesForget(CqShared *pSh);
int cqGroupPending(const CqShared *pSh);
void cqWritesFree(CqShared *pSh);

#endif /* WIDECOL_CQ_STORE_H */
