/*
** cs_transport.h: what the cell store asks of an engine, in the cell
** store's own terms, and the table of functions through which each engine
** answers (as hiredis chooses a transport through a table of functions).
** The bottom of the cell store: nothing here knows SQLite's tables.
**
** An engine keeps rows of cells: a row has a key (bytes, ordered
** bytewise), a cell a family, a qualifier, a timestamp (microseconds, in
** steps of the engine's time step) and a value.  The cell store reads key
** ranges into whole rows, mutates rows, writes a row on a condition on
** one of its cells, asks where a table's sections end, and makes, reads
** and deletes tables.  Each library links the cell store with one
** transport, which makes those calls on its engine:
**   stores/bigtable/  Bigtable's data and admin API over gRPC
**   stores/hbase/     HBase, in its own RPC protocol or through its Thrift2
**                     gateway (two transports, one chosen at load)
** A transport includes this header and the engine's own; the cell store
** includes this one alone.
**
** Every call waits under a CsWait (a deadline, an interrupt probe asked
** while the call waits, counters) and, failing, returns a CS_* code with
** a CsStatus whose text says what the engine said.  Memory a call returns
** is the transport's until the next call on the same object, or as said.
*/
#ifndef WIDECOL_CS_TRANSPORT_H
#define WIDECOL_CS_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "store/wc_contract.h"
#include "util/wc_kind.h"
#include "util/wc_time.h"

typedef struct CsConn CsConn;           /* A connection: the transport's */
typedef struct CsReader CsReader;       /* A read under way */
typedef struct CsPending CsPending;     /* A conditional write in flight */

/*
** What became of a call.  The transports map their engine's own codes
** (gRPC statuses, Java exceptions) to these; the cell store decides by
** them alone, and the status text keeps the engine's words.
*/
#define CS_OK          0
#define CS_CANCELLED   1    /* The statement was interrupted */
#define CS_DEADLINE    2    /* No answer within the deadline: a write may
                            ** still be applied */
#define CS_NOT_FOUND   3    /* No such table */
#define CS_EXISTS      4    /* The table exists already */
#define CS_DENIED      5    /* The engine refused the caller's credentials */
#define CS_DISABLED    6    /* The table is disabled (HBase) */
#define CS_AGAIN       7    /* The engine did not apply the call and asks
                            ** to try again (a conflict of its own, a
                            ** region moving): a write need not be read
                            ** back before it is sent again */
#define CS_UNAVAILABLE 8    /* No connection, or it broke: worth another
                            ** try */
#define CS_REFUSED     9    /* The engine refused the request as it is */
#define CS_INTERNAL   10    /* widecol's own failure: out of memory, an
                            ** answer that could not be read */

typedef struct CsStatus CsStatus;
struct CsStatus {
  int code;             /* CS_* */
  char *zMsg;           /* From sqlite3_mprintf(), or NULL */
};
void csStatusClear(CsStatus *p);
void csStatusSet(CsStatus *p, int code, const char *zFormat, ...);

/* Retries of idempotent calls wait 50 ms, then twice as long each time,
** up to this. */
#define CS_MAX_BACKOFF_MS 2000
/* The deadline of a call when the environment sets none. */
#define CS_DEFAULT_TIMEOUT_MS 30000
/* How often a waiting call asks whether it was interrupted. */
#define CS_POLL_MS 50

/* How a call waits.  xInterrupted may be NULL. */
typedef struct CsWait CsWait;
struct CsWait {
  int64_t nTimeoutMs;   /* A unary call's whole time; a stream's wait for
                        ** its next message */
  int (*xInterrupted)(void*);
  void *pArg;
  WcRpcStats *pCount;   /* Added to; may be NULL */
  int64_t iUntilMs;     /* If not 0 (wcMonotonicMs()), the first answer
                        ** must come by then, whatever nTimeoutMs leaves:
                        ** a retry ends with the deadline its first
                        ** attempt had */
};

/* cs_wait.c: interrupts, retries, deadlines (on util/wc_time.h's
** monotonic clock). */
/* Now on the wall clock in the engine's timestamps: microseconds, in
** whole steps of its time step (util/wc_kind.h). */
int64_t csNowMicros(const WcKind *pKind);
/* True if the statement pWait waits for was interrupted. */
int csInterrupted(const CsWait *pWait);
/* True for a code after which an idempotent call may be tried again. */
int csRetryable(int code);
/* Sleeps before attempt nAttempt (1, 2, ...) of a call begun at iStartMs
** (wcMonotonicMs()), growing from 50 ms up to CS_MAX_BACKOFF_MS: CS_OK to
** go again, CS_DEADLINE if the wait's deadline leaves no room for it,
** CS_CANCELLED if the statement was interrupted.  A CS_OK is counted in
** pWait->pCount's nRetry. */
int csBackoff(const CsWait *pWait, int nAttempt, int64_t iStartMs);
/* *pWait for the attempts of a call first made at iStartMs: they end
** when the first attempt's deadline does. */
CsWait csRetryWait(const CsWait *pWait, int64_t iStartMs);
/* The time a call made now under pWait must be answered by
** (wcMonotonicMs()). */
int64_t csDeadline(const CsWait *pWait);
/* The deadline environment variable zEnv sets for calls to engine
** zEngine, in milliseconds (CS_DEFAULT_TIMEOUT_MS if unset), or -1 and
** *pzErr if it is not a number of milliseconds. */
int64_t csTimeoutFromEnv(const char *zEnv, const char *zEngine,
                         char **pzErr);

/* A byte string another structure owns. */
typedef struct CsBytes CsBytes;
struct CsBytes {
  const unsigned char *a;
  size_t n;
};

/*
** Reads.  A read names keys and ranges of keys (at least one of either),
** each list in increasing key order and disjoint, and which cells of the
** rows it wants.  Rows come whole, in key order (descending if
** bReversed), each once; a row with none of the cells asked for is not
** given.
*/
#define CS_UNBOUNDED 0      /* A range's end: none */
#define CS_CLOSED    1      /* the key included */
#define CS_OPEN      2      /* the key excluded */
typedef struct CsRange CsRange;
struct CsRange {
  int eStart, eEnd;     /* CS_UNBOUNDED, CS_CLOSED, CS_OPEN */
  CsBytes start, end;
};

/* A column: a family and a qualifier. */
typedef struct CsColumn CsColumn;
struct CsColumn {
  const char *zFamily;
  CsBytes qual;
};

typedef struct CsRead CsRead;
struct CsRead {
  const char *zTable;       /* The engine's table (its resource name) */
  int nKey;
  const CsBytes *aKey;
  int nRange;
  const CsRange *aRange;
  int nColumn;              /* The cells of these columns alone; 0: of */
  const CsColumn *aColumn;  /* every column.  A transport may give more
                            ** (the cell store ignores them) */
  int bLatest;              /* Only each column's newest cell */
  int bKeysOnly;            /* Only the keys: one cell a row, no value */
  int64_t nLimit;           /* Rows at most; 0: no limit */
  int bReversed;            /* Rows in descending key order */
};

/* A cell of a row read: by family, then qualifier, a column's cells
** newest first. */
typedef struct CsCell CsCell;
struct CsCell {
  const char *zFamily;
  CsBytes qual;
  int64_t iMicros;
  CsBytes value;
};
typedef struct CsRow CsRow;
struct CsRow {
  CsBytes key;
  int nCell;
  const CsCell *aCell;
};

/*
** Mutations of one row, applied in order: a cell set, a column's cells
** deleted (all, or those stamped in [iFrom, iTo)), a family's cells, or
** the whole row.
*/
#define CS_SET_CELL      1
#define CS_DELETE_CELLS  2
#define CS_DELETE_FAMILY 3
#define CS_DELETE_ROW    4
typedef struct CsMutation CsMutation;
struct CsMutation {
  int eOp;              /* CS_SET_CELL ... */
  const char *zFamily;  /* CS_SET_CELL, CS_DELETE_CELLS, CS_DELETE_FAMILY */
  CsBytes qual;         /* CS_SET_CELL, CS_DELETE_CELLS */
  int64_t iMicros;      /* CS_SET_CELL: the cell's timestamp */
  CsBytes value;        /* CS_SET_CELL */
  int64_t iFrom, iTo;   /* CS_DELETE_CELLS: iTo 0 for every cell */
};

/* A row's mutations in a batch, and (set by the transport) its outcome:
** CS_OK, or why it was not applied (the call's own code where no answer
** came for it). */
typedef struct CsEntry CsEntry;
struct CsEntry {
  CsBytes key;
  int nMut;
  const CsMutation *aMut;
  int code;
};

/*
** The condition of a conditional write, on the row's newest cell of
** column (zFamily, qual): mutations are applied only if it holds.
*/
#define CS_ALWAYS        0  /* Whatever the row holds */
#define CS_ROW_ABSENT    1  /* The row has no cell at all.  zFamily, if
                            ** set, names a cell every row of the table
                            ** has: an engine that checks one cell checks
                            ** that one */
#define CS_CELL_ABSENT   2  /* The row has no cell of the column */
#define CS_CELL_EQUAL    3  /* Its newest cell's value is value */
#define CS_CELL_PREFIX   4  /* Its newest cell's value starts with value */
typedef struct CsCheck CsCheck;
struct CsCheck {
  int eCond;            /* CS_ALWAYS ... */
  const char *zFamily;
  CsBytes qual;
  CsBytes value;
};

/*
** Tables.  A family keeps a column's nVersions newest cells (0: every
** one) and, under a TTL, none older than nTtl seconds.
*/
typedef struct CsTableSpec CsTableSpec;
struct CsTableSpec {
  int nFamily;
  const char *const *azFamily;
  int nVersions;
  int64_t nTtl;
  int nSplit;           /* The table's first regions, split at these keys */
  const CsBytes *aSplit;
};
/* What a table holds: each family, whether its rule keeps every cell
** CsTableSpec's nVersions and nTtl keep (as asked of xGetTable()), and the
** rule as the engine's users write it, for messages.  One allocation:
** sqlite3_free(). */
typedef struct CsFamily CsFamily;
struct CsFamily {
  const char *zName;
  int bKeeps;
  const char *zRule;
};
typedef struct CsTableInfo CsTableInfo;
struct CsTableInfo {
  int nFamily;
  CsFamily *aFamily;
};

/* SampleRowKeys's answer, a sample at a time: keys ending sections of the
** table, in key order, each with the bytes of the table before it. */
typedef void (*CsSampleFunc)(void *pCtx, CsBytes key, int64_t nBefore);

/* A region as its engine serves and counts it: where it ends (empty: at
** the table's end), the server holding it (host:port), and the read and
** write requests that server counted on it since it opened it. */
typedef struct CsRegionLoad CsRegionLoad;
struct CsRegionLoad {
  CsBytes end;
  const char *zServer;
  int64_t nRead, nWrite;
};
typedef void (*CsLoadFunc)(void *pCtx, const CsRegionLoad *pLoad);

/*
** The table of functions a transport fills.  Each returns CS_OK or a
** CS_* code with *pSt set, unless it says otherwise.
*/
typedef struct CsTransport CsTransport;
struct CsTransport {
  const WcKind *pKind;  /* Its STORAGE kind's row (util/wc_kind.h): the
                        ** engine's name, limits and naming */
  const char *zTxnModule;   /* Its transaction table's module (cs_store.h) */
  int bRowAtomic;       /* A row's mutations are applied all or none
                        ** wherever the engine runs (Bigtable's emulator
                        ** applies them one by one) */
  /* How users of the engine do what messages advise: each a printf
  ** format taking the engine's table id (zMakeFamily: then a family). */
  const char *zListTables;
  const char *zDropTable;
  const char *zListFamilies;
  const char *zMakeFamily;
  /* How a user changes family zFamily of table zId to keep nVersions
  ** versions and cells younger than nTtl seconds (0: no TTL); from
  ** sqlite3_mprintf(). */
  char *(*xRuleFix)(const char *zId, const char *zFamily, int nVersions,
                    int64_t nTtl);

  /* The connection this process's environment names, opened or shared:
  ** CS_OK, or a code with *pzErr (sqlite3_mprintf()). */
  int (*xOpen)(CsConn **ppConn, char **pzErr);
  void (*xClose)(CsConn *pConn);
  /* Where it goes, for messages: "127.0.0.1:8086 (the emulator, ...)". */
  const char *(*xEndpoint)(const CsConn *pConn);
  /* What a user can do about a failed call's code: "; is ... running?"
  ** or "". */
  const char *(*xHint)(const CsConn *pConn, int code);
  /* The deadline the environment sets, in milliseconds. */
  int64_t (*xTimeoutMs)(const CsConn *pConn);
  /* After a failure, the next call connects at once rather than after a
  ** backoff of the transport's own. */
  void (*xRetryNow)(CsConn *pConn);

  /* A read: xReadOpen() starts it (*ppReader is set whatever happens, and
  ** a failure to start is reported by xReadNext()); xReadNext() gives the
  ** next row in *ppRow (valid until the next call) and returns 1, or
  ** returns 0 at the end, or -1 with *pSt; xReadClose() ends it, read to
  ** its end or not.  pRead and pWait must outlive the read. */
  void (*xReadOpen)(CsConn *pConn, const CsRead *pRead, const CsWait *pWait,
                    CsReader **ppReader);
  int (*xReadNext)(CsReader *pReader, const CsRow **ppRow, CsStatus *pSt);
  void (*xReadClose)(CsReader *pReader);

  /* Applies each entry's mutations to its row, rows in any order, and
  ** sets each entry's code.  Returns CS_OK when every row had an answer
  ** (*pSt: why the first row refused was refused), else the call's code
  ** (*pSt), which the rows without an answer carry. */
  int (*xMutateRows)(CsConn *pConn, const char *zTable, CsEntry *aEntry,
                     int nEntry, const CsWait *pWait, CsStatus *pSt);

  /* A conditional write of row key's mutations aMut[0..nMut) on pCheck,
  ** in two halves so that several are in flight: xCheckStart() sends it
  ** (NULL on OOM); xCheckFinish() waits for its answer, sets *pbApplied
  ** (the condition held and the mutations were applied), and frees the
  ** CsPending.  The arguments must outlive the call. */
  CsPending *(*xCheckStart)(CsConn *pConn, const char *zTable, CsBytes key,
                            const CsCheck *pCheck, const CsMutation *aMut,
                            int nMut, const CsWait *pWait);
  int (*xCheckFinish)(CsPending *p, int *pbApplied, CsStatus *pSt);

  /* The table's samples, in key order, each handed to xSample. */
  int (*xSampleKeys)(CsConn *pConn, const char *zTable, const CsWait *pWait,
                     CsSampleFunc xSample, void *pCtx, CsStatus *pSt);
  /* The table's regions, in key order, each handed to xLoad with its
  ** server and request counts; NULL where the engine does not tell
  ** them. */
  int (*xRegionLoads)(CsConn *pConn, const char *zTable, const CsWait *pWait,
                      CsLoadFunc xLoad, void *pCtx, CsStatus *pSt);

  /* Makes table zTable (CS_EXISTS if it is there). */
  int (*xCreateTable)(CsConn *pConn, const char *zTable,
                      const CsTableSpec *pSpec, const CsWait *pWait,
                      CsStatus *pSt);
  /* What table zTable holds (CS_NOT_FOUND if it is not there), bKeeps
  ** judged against pKeep's nVersions and nTtl (NULL: not judged). */
  int (*xGetTable)(CsConn *pConn, const char *zTable,
                   const CsTableSpec *pKeep, const CsWait *pWait,
                   CsTableInfo **ppInfo, CsStatus *pSt);
  /* Deletes table zTable (CS_NOT_FOUND if it is not there). */
  int (*xDeleteTable)(CsConn *pConn, const char *zTable,
                      const CsWait *pWait, CsStatus *pSt);
};

#endif /* WIDECOL_CS_TRANSPORT_H */
