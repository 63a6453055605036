/*
** cq_frame.h: the framing of CQL's native protocol v5, below cq_wire.c.
** Once a v5 connection is READY, its messages travel in frames of up to
** 131,071 bytes of payload, each with a header of its length (and whether
** it holds whole messages) checked by a CRC24, and a CRC32 of the
** payload (native_protocol_v5.spec, "Framing").  A message longer than a
** frame spans several.  Written for widecol from the specification.
**
** Ownership: a CqFramer owns the payload bytes it has read and not yet
** handed out, and the frames it sends; cqFramerFree() frees them.
*/
#ifndef WIDECOL_CQ_FRAME_H
#define WIDECOL_CQ_FRAME_H

#include <stdint.h>
#include "util/wc_buf.h"
#include "stores/common/wc_sock.h"

/* A frame whose checksums do not match, or that the protocol forbids: a
** cq_wire.h CQ_ERR_PROTOCOL to the caller. */
#define CQ_FRAME_CORRUPT (WC_SOCK_LAST + 1)

typedef struct CqFramer CqFramer;
struct CqFramer {
  WcBuf in;             /* Payload read, from iIn on not yet handed out */
  int64_t iIn;
  WcBuf out;            /* The frames of the message being sent */
};

/* Sends message a[0..n) in frames, in one write to the socket: 0 or a
** WC_SOCK_* error. */
int cqFrameSend(CqFramer *p, WcSock *pSock, const unsigned char *a, int64_t n,
                const WcDeadline *pWait);
/* Makes n bytes of the messages received available at *pa, reading frames
** as needed (cqFrameSkip() consumes them): 0, CQ_FRAME_CORRUPT or a
** WC_SOCK_* error. */
int cqFramePeek(CqFramer *p, WcSock *pSock, int64_t n, const WcDeadline *pWait,
                const unsigned char **pa);
void cqFrameSkip(CqFramer *p, int64_t n);
void cqFramerFree(CqFramer *p);

#endif /* WIDECOL_CQ_FRAME_H */
