/*
** cq_wire.h: Cassandra's native protocol (CQL binary protocol v5 or v4), written
** for widecol from the protocol's specification: one connection, requests
** in flight on streams of their own, prepared statements, paged results.  The bottom of
** the Cassandra store above stores/common/wc_sock.h: it knows frames and CQL
** values, nothing of widecol's tables (cq_table.c).
**
** Ownership: a CqConn owns its socket, its prepared statements (CqStmt,
** freed with it) and the replies of requests in flight; a CqResult owns
** the frame it was read from, freed by cqResultClear().
*/
#ifndef WIDECOL_CQ_WIRE_H
#define WIDECOL_CQ_WIRE_H

#include <stdint.h>
#include "util/wc_buf.h"
#include "stores/common/wc_sock.h"

/* What a call returns besides 0: the socket's WC_SOCK_*, or these. */
#define CQ_ERR_PROTOCOL (WC_SOCK_LAST + 1)  /* the server sent what the
                                            ** protocol does not allow */
#define CQ_ERR_SERVER   (WC_SOCK_LAST + 2)  /* an ERROR frame: see
                                            ** CqResult.iError, zError */
#define CQ_ERR_BUSY     (WC_SOCK_LAST + 3)  /* every stream is in flight */

/* The server's error codes widecol tells apart. */
#define CQ_SERVER_ERROR     0x0000
#define CQ_UNAVAILABLE      0x1000
#define CQ_OVERLOADED       0x1001
#define CQ_BOOTSTRAPPING    0x1002
#define CQ_WRITE_TIMEOUT    0x1100
#define CQ_READ_TIMEOUT     0x1200
#define CQ_READ_FAILURE     0x1300
#define CQ_WRITE_FAILURE    0x1500
#define CQ_CAS_UNKNOWN      0x1700  /* v5: a condition's outcome unknown */
#define CQ_SYNTAX_ERROR     0x2000
#define CQ_INVALID          0x2200
#define CQ_ALREADY_EXISTS   0x2400
#define CQ_UNPREPARED       0x2500

/* Consistency levels. */
#define CQ_ONE          0x0001
#define CQ_QUORUM       0x0004
#define CQ_ALL          0x0005
#define CQ_LOCAL_QUORUM 0x0006
#define CQ_SERIAL       0x0008
#define CQ_LOCAL_SERIAL 0x0009
#define CQ_LOCAL_ONE    0x000A

/* Type ids of the columns widecol reads and writes. */
#define CQ_TYPE_BIGINT  0x0002
#define CQ_TYPE_BLOB    0x0003
#define CQ_TYPE_BOOLEAN 0x0004
#define CQ_TYPE_DECIMAL 0x0006
#define CQ_TYPE_DOUBLE  0x0007
#define CQ_TYPE_INT     0x0009
#define CQ_TYPE_VARCHAR 0x000D

/* A RESULT's kind. */
#define CQ_RESULT_VOID     1
#define CQ_RESULT_ROWS     2
#define CQ_RESULT_KEYSPACE 3
#define CQ_RESULT_PREPARED 4
#define CQ_RESULT_SCHEMA   5
#define CQ_RESULT_EVENT    0x100  /* not a RESULT: an EVENT (cqNextEvent()) */

/* One reply.  Rows: nCol columns of aType, nRow rows, each cell by
** cqCell(); the paging state to pass for the next page, if any.  An
** error: iError and zError; for Unavailable, a read or a write timeout
** the consistency level asked for (eLevel), the replicas it needed
** (nBlockFor) and those alive or that answered (nReceived), and for a
** write timeout its kind (zWriteType). */
typedef struct CqResult CqResult;
struct CqResult {
  WcBuf frame;          /* The reply's body, which the fields point into */
  int eKind;
  int nCol;
  int *aType;           /* nCol type ids (sqlite3_malloc) */
  int64_t nRow;
  int64_t *aCell;       /* nRow * nCol offsets into frame, -1: NULL */
  const unsigned char *aPaging;   /* NULL: the last page */
  int nPaging;
  int iError;
  char *zError;         /* sqlite3_malloc */
  char *zWriteType;     /* CQ_WRITE_TIMEOUT: SIMPLE, BATCH, CAS, ... */
  int eLevel;
  int nReceived, nBlockFor;
};
void cqResultClear(CqResult *p);
/* Cell iCol of row iRow: its bytes, and their count (-1: NULL). */
const unsigned char *cqCell(const CqResult *p, int64_t iRow, int iCol,
                            int *pnByte);

typedef struct CqConn CqConn;
typedef struct CqStmt CqStmt;

/* The partition key's columns a statement binds, at most. */
#define CQ_MAX_PK 16

/* Opens a connection to zHost:port and starts CQL on it (STARTUP) in
** protocol version iVersion, 4 or 5, or (0) in v5 where the server speaks
** it, else v4.  0, or an error with *pzErr set (sqlite3_mprintf()). */
int cqOpen(CqConn **pp, const char *zHost, int port, int iVersion,
           const WcDeadline *pWait, char **pzErr);
void cqClose(CqConn *p);

/* A value bound to a statement: bytes already in CQL's form; n -1:
** NULL, CQ_UNSET: left as it is (no tombstone written). */
#define CQ_UNSET (-2)
typedef struct CqValue CqValue;
struct CqValue {
  const unsigned char *a;
  int n;
};

/* Runs zCql unprepared, with no values (schema statements). */
int cqQuery(CqConn *p, const char *zCql, int eConsistency,
            const WcDeadline *pWait, CqResult *pRes);
/* The statement zCql prepared on this connection (cached by text: the
** same text is prepared once). */
int cqPrepare(CqConn *p, const char *zCql, const WcDeadline *pWait,
              CqStmt **ppStmt, CqResult *pRes);
/* zCql as prepared on p before, or NULL (no I/O). */
const CqStmt *cqFindPrepared(const CqConn *p, const char *zCql);
/* Every statement prepared on p is prepared again when next used: a
** table was made or dropped, and Cassandra forgets the statements on a
** table dropped (a BATCH of one it forgot is refused whole). */
void cqPreparedStale(CqConn *p);
/* Runs a prepared statement with aVal[0..nVal); a page of nPage rows
** (0: unpaged) from aPaging (NULL: the first).  A statement the server
** forgot is prepared again. */
int cqExecute(CqConn *p, CqStmt *pStmt, const CqValue *aVal, int nVal,
              int eConsistency, int nPage, const unsigned char *aPaging,
              int nPaging, const WcDeadline *pWait, CqResult *pRes);

/* Requests in flight.  cqSend() sends an EXECUTE (as cqExecute() does)
** and returns at once, its stream in *piStream; cqWait() reads replies
** (keeping those of other streams) until that stream's is in, and moves
** it to *pRes (cleared first, so that a failed wait leaves it empty).  Every call above is a send and a cqWait(), so replies may
** come in any order.  A connection has at most 1024 requests in flight
** (CQ_ERR_BUSY).  A stream sent must be waited for, to be free again. */
int cqSend(CqConn *p, CqStmt *pStmt, const CqValue *aVal, int nVal,
           int eConsistency, int nPage, const unsigned char *aPaging,
           int nPaging, const WcDeadline *pWait, int *piStream);
int cqWait(CqConn *p, int iStream, const WcDeadline *pWait, CqResult *pRes);

/* A BATCH of prepared statements, sent as cqSend() sends: cqBatchAdd()
** appends a statement and its values to pQueries (the caller's), then
** cqSendBatch() sends nQuery of them, LOGGED (Cassandra's batch log makes
** them all happen, across partitions) or UNLOGGED (one partition's: one
** mutation, all or none already), eSerial (0: the server's default) the
** consistency of a condition's Paxos round.  Its answer is a cqWait()'s. */
void cqBatchAdd(WcBuf *pQueries, const CqStmt *pStmt, const CqValue *aVal,
                int nVal);
int cqSendBatch(CqConn *p, int bLogged, const WcBuf *pQueries, int nQuery,
                int eConsistency, int eSerial, const WcDeadline *pWait,
                int *piStream);

/* The routing key of pStmt run with aVal[0..nVal) (the values its
** PREPARED metadata says make the partition key, in Cassandra's composite
** form where there are several), appended to pKey: 1, or 0 where the
** statement binds no whole partition key (a token range's read). */
int cqRoutingKey(const CqStmt *pStmt, const CqValue *aVal, int nVal,
                 WcBuf *pKey);

/* Events.  cqListen() asks for the server's TOPOLOGY_CHANGE,
** STATUS_CHANGE and SCHEMA_CHANGE events on p (READY, or an error);
** cqNextEvent() puts the next one's body in pEvent, without waiting for
** one (0 with pEvent empty: none yet), else an error of the connection;
** cqParseEvent() reads a body (no I/O): 0, or 1 where it does not parse. */
#define CQ_EVENT_TOPOLOGY 1   /* zChange NEW_NODE, REMOVED_NODE, MOVED_NODE */
#define CQ_EVENT_STATUS   2   /* zChange UP, DOWN */
#define CQ_EVENT_SCHEMA   3   /* zChange CREATED, UPDATED, DROPPED */
typedef struct CqEvent CqEvent;
struct CqEvent {
  int eType;
  char zChange[16];
  char zHost[64];       /* The node's CQL address (not SCHEMA) */
  int port;
  char zKeyspace[64];   /* SCHEMA: the keyspace changed */
};
int cqListen(CqConn *p, const WcDeadline *pWait, CqResult *pRes);
int cqNextEvent(CqConn *p, const WcDeadline *pWait, WcBuf *pEvent);
int cqParseEvent(const unsigned char *a, int64_t n, CqEvent *pEv);

/* An address's bytes (an inet: 4 or 16 of them) as text in zHost. */
void cqInetText(const unsigned char *a, int n, char *zHost, int nHost);
/* The items of a collection's cell a[0..n) (a list's or set's; a map's,
** bMap, key then value) into aItem[0..nMax): their count (more than nMax:
** the rest left out), or -1 where the cell does not parse. */
int cqCollection(const unsigned char *a, int n, int bMap, CqValue *aItem,
                 int nMax);

/* The bytes of the last request sent on p, its frame's header too. */
int64_t cqRequestBytes(const CqConn *p);
/* The bytes of a reply, its frame's header too. */
#define CQ_REPLY_BYTES(pRes) ((pRes)->frame.n + 9)

/* Values in CQL's form, appended to a buffer. */
void cqPutBigint(WcBuf *p, int64_t v);
void cqPutInt(WcBuf *p, int32_t v);
void cqPutDouble(WcBuf *p, double r);
/* A decimal: the unscaled value iUnscaled times 10^-iScale. */
void cqPutDecimal(WcBuf *p, int64_t iUnscaled, int32_t iScale);
int64_t cqGetBigint(const unsigned char *a);
double cqGetDouble(const unsigned char *a);
/* A decimal's unscaled value and scale: 0, or 1 if the unscaled value
** does not fit 64 bits. */
int cqGetDecimal(const unsigned char *a, int n, int64_t *piUnscaled,
                 int32_t *piScale);

#endif /* WIDECOL_CQ_WIRE_H */
