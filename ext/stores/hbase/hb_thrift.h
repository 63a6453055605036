/*
** hb_thrift.h: Thrift's binary protocol over one TCP connection, the way
** widecol's HBase store talks to HBase's Thrift2 gateway (hb_gateway.h).
** The bottom of the store: it knows sockets and Thrift, nothing of
** HBase's calls nor of SQLite's tables.
**
** Requests are written into a WcBuf (hbCall() and the field writers) and
** sent whole; a reply is read into a tree of HbVal (hbReadReply()), in a
** WcArena the caller frees.  The gateway speaks the protocol unframed
** (HBase's default: TBinaryProtocol over a plain socket), so a reply's
** length is known only by parsing it; the reader pulls bytes as it parses.
** The connection, with its deadlines, is stores/common/wc_sock.h's.
*/
#ifndef WIDECOL_HB_THRIFT_H
#define WIDECOL_HB_THRIFT_H

#include <stdint.h>
#include "util/wc_buf.h"
#include "stores/common/wc_arena.h"
#include "stores/common/wc_sock.h"

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

/* What a call returns besides 0 (done): the socket's results, and one
** of Thrift's own. */
#define HB_ERR_IO        WC_SOCK_IO
#define HB_ERR_TIMEOUT   WC_SOCK_TIMEOUT
#define HB_ERR_CANCELLED WC_SOCK_CANCELLED
#define HB_ERR_NOMEM     WC_SOCK_NOMEM
#define HB_ERR_PROTOCOL  (WC_SOCK_LAST + 1)  /* the peer sent what Thrift
                                             ** does not allow */

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
** A reply, read from a connection (stores/common/wc_sock.h).
*/
/* Reads one reply: its kind (HB_MSG_*), its sequence number and its
** struct (*ppBody, in pArena). */
int hbReadReply(WcSock *pSock, WcArena *pArena, const WcDeadline *pWait,
                int *peKind, int32_t *piSeq, HbVal **ppBody);

#endif /* WIDECOL_HB_THRIFT_H */
