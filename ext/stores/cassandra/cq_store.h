/*
** cq_store.h: what the files of the Cassandra store share (cq_cluster.c,
** cq_conn.c, cq_value.c, cq_schema.c, cq_table.c, cq_read.c, cq_write.c,
** cq_nodes.c): the cluster and the connections a database's tables share,
** a table, and the calls between the files.  The store keeps a widecol
** table's rows as the CQL table its design means (cq_table.c says how the
** contract's statements map).
**
** Ownership: the module owns one CqShared per database (freed with the
** module), and it its CqCluster: the nodes, their connections (a CqConn
** each, NULL until used), the control connection, the ring and what was
** read of keyspaces' replication; a CqTable owns its names, design and
** buffers.
**
** The files call down only: cq_cluster.c and cq_conn.c (over
** cq_wire.c), then cq_value.c, cq_schema.c, cq_write.c, cq_read.c (which
** waits for the writes), and cq_table.c and cq_nodes.c, the modules, over
** all of them.
*/
#ifndef WIDECOL_CQ_STORE_H
#define WIDECOL_CQ_STORE_H

#include "stores/cassandra/cq_wire.h"
#include "key/wc_codec.h"
#include "stores/contract/sc_contract.h"
#include "sqlite3ext.h"

/* The settings a database's connections read (docs/cassandra.md). */
#define CQ_ENV             "WIDECOL_CASSANDRA"
#define CQ_CONSISTENCY_ENV "WIDECOL_CASSANDRA_CONSISTENCY"
#define CQ_SERIAL_ENV      "WIDECOL_CASSANDRA_SERIAL_CONSISTENCY"
#define CQ_PROTOCOL_ENV    "WIDECOL_CASSANDRA_PROTOCOL"
#define CQ_DC_ENV          "WIDECOL_CASSANDRA_DC"
#define CQ_TIMEOUT_ENV     "WIDECOL_CASSANDRA_TIMEOUT_MS"
#define CQ_REPLICATION_ENV "WIDECOL_CASSANDRA_REPLICATION"
/* A schema statement's wait. */
#define CQ_TIMEOUT_MS 60000
/* A request's wait for its node's answer, unless CQ_TIMEOUT_ENV says:
** past Cassandra's own timeouts (a range read's, 10 s), so that a node
** that answers late is not taken for one that is down. */
#define CQ_REQUEST_MS 12000
/* A keyspace widecol makes has as many replicas as the cluster has nodes,
** up to this many, unless CQ_REPLICATION_ENV says. */
#define CQ_DEFAULT_REPLICAS 3
/* A call whose connection failed is made again where that is safe: this
** many attempts in all, the waits between them doubling from the first. */
#define CQ_ATTEMPTS 6
#define CQ_FIRST_BACKOFF_MS 20
#define CQ_MAX_BACKOFF_MS 1000
/* The transaction table (stores/contract/sc_txn.c), which DDL puts in the
** transaction so that its end comes to this module. */
#define CQ_TXN_MODULE "widecol_cassandra_txn"
/* The cluster's nodes as the store sees them (cq_nodes.c). */
#define CQ_NODES_MODULE "widecol_cassandra_nodes"
extern const sqlite3_module cqNodesModule;
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

/* cq_cluster.c: the cluster, its nodes and its ring. */
typedef struct CqNode CqNode;
struct CqNode {
  /* Where it is reached, and both as "host:port" (for messages). */
  char *zHost;
  int port;
  char *zAt;
  /* What the cluster calls it (its events, its peers' rows), NULL until
  ** known. */
  char *zName;
  int namePort;
  char *zDc, *zRack;    /* NULL until known */
  CqConn *pConn;        /* NULL until used, and after a failure */
  int iGen;             /* Connections opened to it: which one pConn is */
  int bContact;         /* A contact point (CQ_ENV) */
  int bTopology;        /* In the last list of nodes read */
  int bGone;            /* Not in the cluster (any more) */
  int bDown;            /* Its last call failed, or the cluster said DOWN */
  int nFail;            /* Its calls failed in a row */
  int64_t iRetryMs;     /* Down: when it may be tried again */
  int64_t nRequest;     /* Requests sent to it */
};
typedef struct CqRingToken CqRingToken;
struct CqRingToken {
  int64_t iToken;
  int iNode;
};
typedef struct CqReplication CqReplication;
typedef struct CqCluster CqCluster;
struct CqCluster {
  CqNode *aNode;        /* Never shrinks: a node's index stays its own */
  int nNode;
  char *zContacts;      /* CQ_ENV, for messages */
  int iControl;         /* The control connection's node, or -1 */
  CqConn *pControl;     /* REGISTERed for events */
  char *zLocalDc;
  CqRingToken *aRing;   /* Every node's tokens, in token order */
  int nRing;
  CqReplication *pReps; /* Keyspaces' replication, as read */
  unsigned int iTurn;   /* Plans start at the next node of a rank */
  int bStale;           /* The nodes are read again at the next call */
  int64_t iPolledMs;    /* When the events were last looked for */
  WcBuf event;
  int64_t nWaitMs;      /* A call's wait for its node (a request's) */
};
/* The contact points of zList into the cluster (no I/O): SQLITE_OK, or
** an error with *pzErr set.  cqClusterReady() opens the control
** connection if it is not, and takes the events that have come. */
int cqClusterContacts(CqCluster *pC, const char *zList, char **pzErr);
int cqClusterReady(CqCluster *pC, sqlite3_stmt *pProbe, int iVersion,
                   char **pzErr);
/* Keyspace zKeyspace's replication (*ppRep NULL: not known now). */
int cqReplication(CqCluster *pC, sqlite3_stmt *pProbe, const char *zKeyspace,
                  CqReplication **ppRep);
/* The replicas of iToken, in Cassandra's order, into aiOut[0..nMax):
** their count. */
int cqReplicas(const CqCluster *pC, const CqReplication *pRep, int64_t iToken,
               int *aiOut, int nMax);
/* The last token of the run of ring ranges from iFrom on (iFrom in the
** first) that have the same replicas, iHi at most: a scan of tokens
** iFrom..end goes to one of them. */
int64_t cqRunEnd(const CqCluster *pC, const CqReplication *pRep,
                 int64_t iFrom, int64_t iHi);
/* The number of nodes the cluster has. */
int cqClusterSize(const CqCluster *pC);
/* The nodes a call may go to, in the order to try them (see
** cq_cluster.c), into aiNode[0..nMax): their count. */
int cqClusterPlan(CqCluster *pC, const CqReplication *pRep, int bToken,
                  int64_t iToken, int *aiNode, int nMax);
/* A call to node iNode failed: down for a while (bClose: its connection
** closed too). */
void cqNodeFailed(CqCluster *pC, int iNode, int bClose);
/* Node iNode answered (a connection opened, a call's result): it is up,
** whatever failed before (a connection severed is not a node down). */
void cqNodeAnswered(CqCluster *pC, int iNode);
/* Forgets what was read of keyspace zKeyspace's replication (NULL:
** every keyspace's). */
void cqForgetReplication(CqCluster *pC, const char *zKeyspace);
void cqClusterFree(CqCluster *pC);
/* A wait of nMs from now, cut short where pProbe's statement is
** interrupted. */
WcDeadline cqWaitFor(sqlite3_stmt *pProbe, int64_t nMs);

/* A call's connection, as it was when the call was sent: node iNode's
** connection number iGen (CqNode.iGen).  A reply is awaited only on the
** connection its request went on (cqLinked()). */
typedef struct CqLink CqLink;
struct CqLink {
  int iNode;
  int iGen;
};

/* The connections a database's tables share, and the writes in flight
** on them (cq_write.c). */
typedef struct CqWrite CqWrite;
typedef struct CqGroup CqGroup;
typedef struct CqShared CqShared;
struct CqShared {
  int nRef;             /* The modules registered with it */
  sqlite3 *db;
  int bSet;             /* The settings below read (at the first call) */
  CqCluster cluster;
  int iVersion;         /* The protocol asked for: 4, 5, or 0 (either) */
  int64_t nTimeoutMs;   /* A request's wait */
  int bLost;            /* The last call failed because its node or its
                        ** connection did (another may do) */
  int eConsistency;
  int eSerial;          /* A condition's (a lightweight transaction's) */
  CqWrite *aWrite;      /* In flight: a ring, aWrite[iFirst] the oldest */
  int iFirst, nWrite;
  uint64_t *aFlight;    /* The keys the writes in flight write, a hash */
  uint32_t *anFlight;   /* table (cq_write.c), each with its count */
  int nFlight;          /* Keys in aFlight */
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

/* cq_conn.c: calls routed to nodes, and what a failed call becomes. */
/* Sets the table's error message, naming the widecol table; returns rc. */
int cqTableError(CqTable *p, int rc, const char *zFormat, ...);
/* The SQLite code and message of a failed call on pLink (rc from
** cq_wire.h); a node that failed is down a while, and CqShared.bLost set
** where another node may do. */
int cqCallError(CqTable *p, const CqLink *pLink, int rc, CqResult *pRes,
                const char *zDoing);
/* Runs a schema statement on node *piNode (-1, or piNode NULL: any
** node; *piNode is then the one that ran it), made again there where its
** connection failed (its CQL must be safe to run twice); one that changed
** the schema returns once every node has the change (a while at most).  A prepared one with values (a page of nPage rows
** from aPaging) once, on a replica of its partition where it names one,
** at consistency eConsistency (or CQ_LEVEL_SET); a read, made again on
** another node so.  SQLITE_OK, or an error with the message set; *pLink
** (may be NULL) the node that answered. */
#define CQ_LEVEL_SET (-1)   /* eConsistency: the connection's, as set */
int cqRunCql(CqTable *p, const char *zCql, const char *zDoing,
             CqResult *pRes, int *piNode);
int cqRunPrepared(CqTable *p, const char *zCql, const CqValue *aVal,
                  int nVal, int eConsistency, int nPage,
                  const unsigned char *aPaging, int nPaging,
                  const char *zDoing, CqResult *pRes, CqLink *pLink);
int cqRunRead(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const char *zDoing, CqResult *pRes, CqLink *pLink);
/* cqRunRead() of a range of tokens: on a replica of token iToken. */
int cqRunReadAt(CqTable *p, int64_t iToken, const char *zCql,
                const CqValue *aVal, int nVal, int nPage,
                const unsigned char *aPaging, int nPaging, CqResult *pRes,
                CqLink *pLink);
/* Where a scan of tokens iFrom..iHi is split: the last token of its
** first part, whose ranges have the same replicas (cqRunEnd()). */
int64_t cqSpanEnd(CqTable *p, int64_t iFrom, int64_t iHi);
/* After attempt nAttempt of a call failed: 1 if its node or connection
** failed and another attempt may be made (on another node at once, or
** after a wait where every node is down; counted in widecol_stats's
** retries, the failure's message dropped), else 0. */
int cqRetry(CqTable *p, int nAttempt);
/* zCql as some node's connection prepared it (its id is the same on
** every node), or NULL (no I/O). */
const CqStmt *cqKnownStatement(CqTable *p, const char *zCql);
/* The token of the partition zCql run with aVal[0..nVal) writes or
** reads, where it is known (zCql prepared before on some node): 1 and
** *piToken, else 0. */
int cqTokenOf(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
              int64_t *piToken);
/* A connection to the node a call should go to (bToken: a replica of
** iToken's first, else any), opened if it is not, with each of the
** statements azCql[0..nCql) prepared on it: SQLITE_OK, *pLink and
** *ppConn, or an error (message set).  Made again where a node failed
** (cqRetry()). */
int cqConnectFor(CqTable *p, int bToken, int64_t iToken,
                 const char *const *azCql, int nCql, CqLink *pLink,
                 CqConn **ppConn);
/* cqConnectFor() zCql's partition's node, zCql prepared: *ppStmt. */
int cqReady(CqTable *p, const char *zCql, const CqValue *aVal, int nVal,
            CqLink *pLink, CqConn **ppConn, CqStmt **ppStmt);
/* pLink's connection if it is still open, else NULL.  zCql prepared on
** it (one attempt): SQLITE_OK or an error (message set). */
CqConn *cqLinked(CqTable *p, const CqLink *pLink);
int cqPreparedOn(CqTable *p, const CqLink *pLink, const char *zCql,
                 CqStmt **ppStmt);
/* The cluster, ready for a call (its nodes known, the events that came
** taken): SQLITE_OK, or an error (p's message; *pzErr, sqlite3_malloc). */
int cqClusterOpen(CqTable *p);
int cqSharedOpen(CqShared *pSh, sqlite3_stmt *pProbe, char **pzErr);
/* A request's deadline. */
WcDeadline cqDeadline(CqTable *p);
/* A consistency level's name ("?" if not one widecol names). */
const char *cqLevelName(int eLevel);
/* Counts, for widecol_stats(), a request p sent on pLink's connection (a
** statement run: preparing one is not counted), and a reply p took. */
void cqCountRequest(CqTable *p, const CqLink *pLink, const CqConn *pConn);
void cqCountReply(CqTable *p, const CqLink *pLink, const CqResult *pRes);
/* The length of the widecol table's name, the start of p->zName. */
int cqWidecolNameLen(const CqTable *p);
/* The node of pLink, "host:port", for messages ("?" if none). */
const char *cqNodeName(CqTable *p, const CqLink *pLink);

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
