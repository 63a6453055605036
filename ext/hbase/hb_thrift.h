/*
** hb_thrift.h: Thrift's binary protocol over one TCP connection, the way
** widecol's HBase store talks to HBase's Thrift2 gateway (hb_rpc.c).  The
** bottom of the store: it knows sockets and Thrift, nothing of HBase's
** calls nor of SQLite's tables.
**
** Requests are written into a WcBuf (hbCall() and the field writers) and
** sent whole; a reply is read into a tree of HbVal (hbReadReply()), in an
** HbArena the caller frees.  The gateway speaks the protocol unframed
** (HBase's default: TBinaryProtocol over a plain socket), so a reply's
** length is known only by parsing it; the reader pulls bytes as it parses.
** Every wait has a deadline and asks a callback whether the statement
** was interrupted (every HB_POLL_MS).
*/
#ifndef WIDECOL_HB_THRIFT_H
#define WIDECOL_HB_THRIFT_H

#include <stdint.h>
#include "util/wc_buf.h"

/* Thrift's type codes. */
#define HB_STOP    0
#define HB_BOOL    2
#define HB_BYTE    3
#define HB_DOUBLE  4
#define HB_I16     6
#define HB_I32     8
#define HB_I64    10
#define HB_STRING 11
#define HB_STRUCT 12
#define HB_MAP    13
#define HB_SET    14
#define HB_LIST   15

/* A message's kind. */
#define HB_MSG_CALL      1
#define HB_MSG_REPLY     2
#define HB_MSG_EXCEPTION 3

/* What a socket call returns besides 0 (done). */
#define HB_ERR_IO        1  /* the connection failed or closed */
#define HB_ERR_TIMEOUT   2  /* the deadline passed */
#define HB_ERR_CANCELLED 3  /* the statement was interrupted */
#define HB_ERR_PROTOCOL  4  /* the peer sent what Thrift does not allow */
#define HB_ERR_NOMEM     5

#define HB_POLL_MS 50

/*
** One value read: a struct's field (id set), a list's element or a map's
** key or value.  Structs, lists, sets and maps hold their members in
** aChild (a map: key, value, key, value ...).
*/
typedef struct HbVal HbVal;
struct HbVal {
  int eType;
  int id;               /* Field id, in a struct */
  int64_t i;            /* bool, byte, i16, i32, i64; a double's bits */
  const unsigned char *a;  /* string or binary: its bytes */
  int64_t n;            /* their count; or the number of aChild */
  HbVal *aChild;
};

/* Memory of the values of replies, freed at once. */
typedef struct HbBlock HbBlock;
typedef struct HbArena HbArena;
struct HbArena {
  HbBlock *pHead;
};
void *hbArenaAlloc(HbArena *p, size_t n);
void hbArenaFree(HbArena *p);

/* The field id of struct pStruct, or NULL; a NULL pStruct gives NULL. */
const HbVal *hbField(const HbVal *pStruct, int id);
/* Its integer, or iDefault if the field is missing. */
int64_t hbFieldInt(const HbVal *pStruct, int id, int64_t iDefault);

/*
** Writing a request.
*/
void hbWriteCall(WcBuf *p, const char *zMethod, int32_t iSeq);
void hbWriteField(WcBuf *p, int eType, int id);
void hbWriteStop(WcBuf *p);
void hbWriteByte(WcBuf *p, int v);
void hbWriteI16(WcBuf *p, int v);
void hbWriteI32(WcBuf *p, int32_t v);
void hbWriteI64(WcBuf *p, int64_t v);
void hbWriteBinary(WcBuf *p, const void *a, int64_t n);
void hbWriteListBegin(WcBuf *p, int eElem, int32_t n);
void hbWriteMapBegin(WcBuf *p, int eKey, int eValue, int32_t n);
/* A field holding a binary; holding an i32, i64, bool. */
void hbWriteBinaryField(WcBuf *p, int id, const void *a, int64_t n);
void hbWriteI32Field(WcBuf *p, int id, int32_t v);
void hbWriteI64Field(WcBuf *p, int id, int64_t v);
void hbWriteBoolField(WcBuf *p, int id, int v);

/*
** A connection.
*/
typedef struct HbSock HbSock;
typedef struct HbDeadline HbDeadline;
struct HbDeadline {
  int64_t iUntilMs;     /* On the monotonic clock of hbNowMs() */
  int (*xInterrupted)(void*);   /* May be NULL */
  void *pArg;
};
int64_t hbNowMs(void);

/* Connects to zHost:port (numeric or a name).  0, or HB_ERR_* with
** *pzErr set (sqlite3_mprintf()). */
int hbSockOpen(HbSock **ppSock, const char *zHost, int port,
               const HbDeadline *pWait, char **pzErr);
void hbSockClose(HbSock *pSock);
/* Sends a[0..n) whole. */
int hbSockSend(HbSock *pSock, const unsigned char *a, int64_t n,
               const HbDeadline *pWait);
/* Reads one reply: its kind (HB_MSG_*), its sequence number and its
** struct (*ppBody, in pArena). */
int hbReadReply(HbSock *pSock, HbArena *pArena, const HbDeadline *pWait,
                int *peKind, int32_t *piSeq, HbVal **ppBody);
/* Bytes received since the connection opened (what is sent, the caller
** knows). */
int64_t hbSockBytesIn(const HbSock *pSock);

#endif /* WIDECOL_HB_THRIFT_H */
