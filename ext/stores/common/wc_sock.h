/*
** wc_sock.h: one TCP connection with deadlines, the bottom of widecol's
** remote stores that speak a protocol over a plain socket (HBase's Thrift2
** gateway, stores/hbase/hb_thrift.c; Cassandra's native protocol,
** stores/cassandra/cq_wire.c).  Every wait has a deadline and asks a
** callback whether the statement was interrupted (every WC_SOCK_POLL_MS).
** It knows bytes alone: the protocols above parse them in place.
*/
#ifndef WIDECOL_WC_SOCK_H
#define WIDECOL_WC_SOCK_H

#include <stdint.h>
#include "util/wc_time.h"

/* What a call returns besides 0 (done); protocols number their own
** errors above WC_SOCK_LAST. */
#define WC_SOCK_IO        1  /* the connection failed or closed */
#define WC_SOCK_TIMEOUT   2  /* the deadline passed */
#define WC_SOCK_CANCELLED 3  /* the statement was interrupted */
#define WC_SOCK_NOMEM     5
#define WC_SOCK_LAST      5

#define WC_SOCK_POLL_MS 50

typedef struct WcSock WcSock;
typedef struct WcDeadline WcDeadline;
struct WcDeadline {
  int64_t iUntilMs;     /* On the monotonic clock (util/wc_time.h) */
  int (*xInterrupted)(void*);   /* May be NULL */
  void *pArg;
};

/* Splits zAddr, "host:port" (the last colon; port 1 to 65535), into
** *pnHost bytes of host and *pPort: 1, or 0 if zAddr is NULL, empty or
** not of that form. */
int wcSockAddress(const char *zAddr, int *pnHost, int *pPort);

/* Connects to zHost:port (numeric or a name).  0, or WC_SOCK_* with
** *pzErr set (sqlite3_mprintf()).  The caller owns *ppSock. */
int wcSockOpen(WcSock **ppSock, const char *zHost, int port,
               const WcDeadline *pWait, char **pzErr);
void wcSockClose(WcSock *pSock);
/* Sends a[0..n) whole. */
int wcSockSend(WcSock *pSock, const unsigned char *a, int64_t n,
               const WcDeadline *pWait);
/* Makes n bytes received available at *paIn (valid until the next call
** on pSock), without consuming them: 0, or WC_SOCK_*. */
int wcSockPeek(WcSock *pSock, int64_t n, const WcDeadline *pWait,
               const unsigned char **paIn);
/* Consumes n bytes that wcSockPeek() made available. */
void wcSockSkip(WcSock *pSock, int64_t n);
/* Bytes received since the connection opened (what is sent, the caller
** knows). */
int64_t wcSockBytesIn(const WcSock *pSock);

#endif /* WIDECOL_WC_SOCK_H */
