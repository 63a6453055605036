/*
** wc_sock.c: one TCP connection with deadlines (see wc_sock.h): a
** non-blocking socket polled in steps of WC_SOCK_POLL_MS, so that a
** deadline or an interrupted statement ends any wait.
*/
#include "util/wc_api.h"
#include "stores/common/wc_sock.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes asked of the kernel at a time, at least. */
#define WC_SOCK_READ_CHUNK 65536

struct WcSock {
  int fd;
  unsigned char *aIn;   /* Received, not yet parsed: aIn[iIn..nIn) */
  int64_t iIn, nIn;
  int64_t nByteIn;
};

/* Waits until fd is ready for events (POLLIN or POLLOUT): 0, or WC_SOCK_*. */
static int waitReady(int fd, short events, const WcDeadline *pWait){
  for(;;){
    struct pollfd pfd;
    int64_t nLeft = pWait->iUntilMs - wcMonotonicMs();
    int rc;
    if( pWait->xInterrupted && pWait->xInterrupted(pWait->pArg) ){
      return WC_SOCK_CANCELLED;
    }
    if( nLeft <= 0 ) return WC_SOCK_TIMEOUT;
    pfd.fd = fd;
    pfd.events = events;
    pfd.revents = 0;
    rc = poll(&pfd, 1, (int)(nLeft < WC_SOCK_POLL_MS ? nLeft
                                                     : WC_SOCK_POLL_MS));
    if( rc > 0 ) return 0;
    if( rc < 0 && errno != EINTR ) return WC_SOCK_IO;
  }
}

int wcSockAddress(const char *zAddr, int *pnHost, int *pPort){
  const char *zColon = zAddr ? strrchr(zAddr, ':') : 0;
  char *zEnd = 0;
  long port;
  if( zColon == 0 || zColon == zAddr ) return 0;
  port = strtol(zColon + 1, &zEnd, 10);
  if( zEnd == zColon + 1 || *zEnd != 0 || port < 1 || port > 65535 ){
    return 0;
  }
  *pnHost = (int)(zColon - zAddr);
  *pPort = (int)port;
  return 1;
}

int wcSockOpen(WcSock **ppSock, const char *zHost, int port,
               const WcDeadline *pWait, char **pzErr){
  struct addrinfo hints, *pList = 0, *pA;
  char zPort[16];
  int fd = -1, rc, one = 1;
  WcSock *pSock;
  *ppSock = 0;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  snprintf(zPort, sizeof(zPort), "%d", port);
  rc = getaddrinfo(zHost, zPort, &hints, &pList);
  if( rc != 0 ){
    *pzErr = sqlite3_mprintf("cannot resolve %s: %s", zHost, gai_strerror(rc));
    return WC_SOCK_IO;
  }
  rc = WC_SOCK_IO;
  for(pA = pList; pA && fd < 0; pA = pA->ai_next){
    int err = 0;
    socklen_t nErr = sizeof(err);
    fd = socket(pA->ai_family, pA->ai_socktype | SOCK_CLOEXEC, pA->ai_protocol);
    if( fd < 0 ) continue;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if( connect(fd, pA->ai_addr, pA->ai_addrlen) == 0 ) break;
    if( errno == EINPROGRESS ){
      rc = waitReady(fd, POLLOUT, pWait);
      if( rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &nErr) == 0
       && err == 0 ){
        break;
      }
      if( rc == 0 ){
        rc = WC_SOCK_IO;
        errno = err;
      }
    }
    close(fd);
    fd = -1;
    if( rc == WC_SOCK_CANCELLED || rc == WC_SOCK_TIMEOUT ) break;
  }
  freeaddrinfo(pList);
  if( fd < 0 ){
    *pzErr = rc == WC_SOCK_IO
        ? sqlite3_mprintf("cannot connect to %s:%d: %s", zHost, port,
                          strerror(errno))
        : sqlite3_mprintf("no connection to %s:%d within the deadline",
                          zHost, port);
    return rc == 0 ? WC_SOCK_IO : rc;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  pSock = sqlite3_malloc(sizeof(*pSock));
  if( pSock == 0 ){
    close(fd);
    return WC_SOCK_NOMEM;
  }
  memset(pSock, 0, sizeof(*pSock));
  pSock->fd = fd;
  *ppSock = pSock;
  return 0;
}

void wcSockClose(WcSock *pSock){
  if( pSock == 0 ) return;
  close(pSock->fd);
  sqlite3_free(pSock->aIn);
  sqlite3_free(pSock);
}

int64_t wcSockBytesIn(const WcSock *pSock){ return pSock->nByteIn; }

int wcSockSend(WcSock *pSock, const unsigned char *a, int64_t n,
               const WcDeadline *pWait){
  wcAssert( n >= 0 && (a != 0 || n == 0) );
  while( n > 0 ){
    ssize_t nSent = send(pSock->fd, a, (size_t)n, MSG_NOSIGNAL);
    if( nSent > 0 ){
      a += nSent;
      n -= nSent;
    }else if( nSent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                            || errno == EINTR) ){
      int rc = waitReady(pSock->fd, POLLOUT, pWait);
      if( rc ) return rc;
    }else{
      return WC_SOCK_IO;
    }
  }
  return 0;
}

int wcSockPeek(WcSock *pSock, int64_t n, const WcDeadline *pWait,
               const unsigned char **paIn){
  /* aIn[iIn..nIn) is what was received and not yet parsed. */
  wcAssert( n >= 0 && pSock->iIn >= 0 && pSock->iIn <= pSock->nIn );
  while( pSock->nIn - pSock->iIn < n ){
    ssize_t nGot;
    int64_t nWant = n - (pSock->nIn - pSock->iIn);
    if( pSock->iIn > 0 ){
      memmove(pSock->aIn, &pSock->aIn[pSock->iIn],
              (size_t)(pSock->nIn - pSock->iIn));
      pSock->nIn -= pSock->iIn;
      pSock->iIn = 0;
    }
    {
      int64_t nRoom = sqlite3_msize(pSock->aIn) - pSock->nIn;
      if( nRoom < nWant || nRoom < WC_SOCK_READ_CHUNK ){
        int64_t nNew = pSock->nIn + (nWant > WC_SOCK_READ_CHUNK
                                     ? nWant : WC_SOCK_READ_CHUNK);
        unsigned char *aNew = sqlite3_realloc64(pSock->aIn,
                                                (sqlite3_uint64)nNew);
        if( aNew == 0 ) return WC_SOCK_NOMEM;
        pSock->aIn = aNew;
      }
    }
    nGot = recv(pSock->fd, &pSock->aIn[pSock->nIn],
                (size_t)(sqlite3_msize(pSock->aIn) - pSock->nIn), 0);
    if( nGot > 0 ){
      pSock->nIn += nGot;
      pSock->nByteIn += nGot;
      wcAssert( (sqlite3_uint64)pSock->nIn <= sqlite3_msize(pSock->aIn) );
    }else if( nGot < 0 && (errno == EAGAIN || errno == EWOULDBLOCK
                           || errno == EINTR) ){
      int rc = waitReady(pSock->fd, POLLIN, pWait);
      if( rc ) return rc;
    }else{
      return WC_SOCK_IO;
    }
  }
  wcAssert( pSock->nIn - pSock->iIn >= n );
  *paIn = &pSock->aIn[pSock->iIn];
  return 0;
}

void wcSockSkip(WcSock *pSock, int64_t n){
  /* Only bytes wcSockPeek() made available. */
  wcAssert( n >= 0 && pSock->iIn + n <= pSock->nIn );
  pSock->iIn += n;
}

