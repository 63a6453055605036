/*
** rk_bytes.h: byte-level row-key transforms shared by the rk_* SQL functions
** and the widecol key codec.
**
** Nothing here knows about SQLite values or allocates memory: every routine
** writes into a buffer the caller sized with the matching *_MAX macro, so the
** same code serves a one-off SQL call and a per-row encoder.
*/
#ifndef WIDECOL_RK_BYTES_H
#define WIDECOL_RK_BYTES_H

#include <stdint.h>

/* Largest width rk_pad accepts; also the limit for PAD in key elements. */
#define RK_PAD_MAX_WIDTH 1000

/* Decimal digits of the largest unsigned 64-bit value. */
#define RK_MAX_DIGITS 20

/* Output bytes rkDescEncode needs for n input bytes. */
#define RK_DESC_MAX(n) (2 * (int64_t)(n) + 2)

/* Characters in z[0..n), counted as SQLite's length() counts them: every
** byte that is not a UTF-8 continuation byte (10xxxxxx) starts one. */
int64_t rkCharCount(const unsigned char *z, int64_t n);

/* Bytes taken by the first nChar characters of z[0..n) (n if it has fewer). */
int64_t rkCharBytes(const unsigned char *z, int64_t n, int64_t nChar);

/* Bytes of the first nChar characters of z[0..n) read as UTF-8, each a
** whole valid sequence, or -1 if z does not start with that many: where a
** field of characters ends in a key, whatever bytes follow it. */
int64_t rkUtf8Bytes(const unsigned char *z, int64_t n, int64_t nChar);

/* Decimal digits needed to write v. */
int rkDigitCount(uint64_t v);

/* Writes v in decimal, left-padded with '0' to nWidth bytes.  The caller
** has checked that rkDigitCount(v) <= nWidth.  No terminator is written. */
void rkPadDecimal(uint64_t v, int nWidth, char *zOut);

/* Writes z[0..n) with its characters (as rkCharCount counts them) in
** reverse order.  Valid UTF-8 stays valid and reversing twice restores it. */
void rkReverseChars(const unsigned char *z, int64_t n, unsigned char *zOut);

/* Writes z[0..n) with its bytes in reverse order. */
void rkReverseBytes(const unsigned char *z, int64_t n, unsigned char *zOut);

/* The descending byte encoding (docs/functions.md, "rk_desc on text and
** blobs"): escape 0x00 as 00 FF, end with 00 00, then invert every byte.
** The encoding is prefix-free, so memcmp order of two encodings is the
** exact reverse of the order of the inputs, prefixes included, and fields
** encoded this way can be concatenated without a delimiter.
** Returns the number of bytes written (at most RK_DESC_MAX(n)). */
int64_t rkDescEncode(const unsigned char *a, int64_t n, unsigned char *aOut);

/* Decodes one rkDescEncode value from the start of a[0..n), writing the
** original bytes to aOut (at most n bytes).  Returns the decoded length and
** sets *pnUsed to the bytes consumed, or returns -1 if a does not start
** with a complete, well-formed encoding; *pnUsed is then the offset of the
** first byte that is wrong (n if the input ended too early). */
int64_t rkDescDecode(const unsigned char *a, int64_t n,
                     unsigned char *aOut, int64_t *pnUsed);

/* The smallest byte string greater than every string that starts with
** a[0..n): drop trailing 0xFF bytes and add one to the last byte left.
** Writes it to aOut (at most n bytes) and returns its length, or returns
** -1 if no such string exists (a is empty or all 0xFF: no upper bound). */
int64_t rkPrefixEnd(const unsigned char *a, int64_t n, unsigned char *aOut);

/* True if z[0..n) is valid UTF-8 with no control characters: text that
** can be shown to a user as it is. */
int rkIsPrintableUtf8(const unsigned char *z, int64_t n);

/* True if z[0..n) is valid UTF-8. */
int rkIsUtf8(const unsigned char *z, int64_t n);

/* Offset of the first occurrence of the non-empty needle in a[0..n) at or
** after iFrom, or -1. */
int64_t rkFind(const unsigned char *a, int64_t n, int64_t iFrom,
               const unsigned char *aNeedle, int64_t nNeedle);

#endif /* WIDECOL_RK_BYTES_H */
