/*
** cs_cell.h: how widecol writes a value into a cell of Bigtable or HBase,
** and reads it back (docs/bigtable.md, "Cell values"), and the row
** marker.
**
** One byte format per SQLite storage class, so that every value comes back
** exactly, type included, and each is what an HBase or Bigtable
** application would read with the usual helpers:
**   TEXT     its bytes as they are (Bytes.toString); a text whose first
**            byte is 0xF8 or above, which UTF-8 never starts with, gets a
**            0xFF byte in front
**   INTEGER  0xF9, then 8 bytes big-endian two's complement
**            (Bytes.toLong(v, 1))
**   REAL     0xFA, then the IEEE 754 double's 8 bytes big-endian
**            (Bytes.toDouble(v, 1))
**   BLOB     0xFB, then its bytes
**   NULL     no cell at all; but in a table with versions (ROWTIME),
**            where each version writes every column, the one byte 0xF8
**            (a later version may be NULL where an earlier one was not)
*/
#ifndef WIDECOL_CS_CELL_H
#define WIDECOL_CS_CELL_H

#include <sqlite3ext.h>
#include "util/wc_buf.h"
#include "util/wc_stamp.h"

#define CS_CELL_NULL    0xF8
#define CS_CELL_INTEGER 0xF9
#define CS_CELL_REAL    0xFA
#define CS_CELL_BLOB    0xFB
#define CS_CELL_TEXT    0xFF   /* only in front of a text starting >= 0xF8 */

/*
** The marker: the cell "_:" (family "_", empty qualifier) every row has,
** so that a row whose columns are all NULL exists.  widecol 1.0 wrote it
** empty.  Now its value is CS_MARKER_V2, then the row's stamps, then a
** bit per column:
**   stamps  the stamp (wc_stamp.h) of the write that made this version
**           (CheckAndMutateRow compares it), then one for each of the
**           table's n indexes (STAMPS n): the stamp under which the row's
**           entry in that index was written (8 zero bytes: by widecol 1.0,
**           with plain qualifiers)
**   bits    one per column, in declared order, least significant bit
**           first: the version has a cell for it.  A read that asks for a
**           column whose bit is set and gets no cell knows that the cell
**           went missing (its column family deleted) rather than being
**           NULL.
*/
#define CS_MARKER_V2 0x01
#define CS_STAMP WC_STAMP_SIZE
#define CS_STAMPS_SIZE(nStamp) (CS_STAMP * (1 + (nStamp)))

/* Appends a marker with stamps aStamps[0..CS_STAMPS_SIZE(nStamp)) and
** column bits abHas[0..nCol) (0 or 1 each). */
void csMarkerEncode(WcBuf *pOut, const unsigned char *aStamps, int nStamp,
                    const unsigned char *abHas, int nCol);
/* True if marker a[0..n) carries stamps for nStamp indexes and nCol
** columns; then *paStamps points at its stamps, *paBits at its bits. */
int csMarkerParse(const unsigned char *a, size_t n, int nStamp, int nCol,
                  const unsigned char **paStamps,
                  const unsigned char **paBits);
/* Bit iCol of a marker's column bits. */
int csMarkerHas(const unsigned char *aBits, int iCol);
/* The stamp of index iIndex's entry in marker a[0..n): 8 bytes, 0s for a
** marker of widecol 1.0 (empty); NULL if the marker has none. */
const unsigned char *csMarkerEntryStamp(const unsigned char *a, size_t n,
                                        int iIndex);

/* How a cell holds a column's value: widecol's own tables as above; an
** EXISTING table's (made by another application) as its CELLS say. */
#define CS_LAYOUT_TAGGED 0  /* widecol's: a tag byte, above */
#define CS_LAYOUT_STRING 1  /* UTF-8 text, as written */
#define CS_LAYOUT_LONG   2  /* 8 bytes big-endian two's complement */
#define CS_LAYOUT_DOUBLE 3  /* 8 bytes big-endian IEEE 754 */
#define CS_LAYOUT_BYTES  4  /* the bytes */
#define CS_LAYOUT_KEY    5  /* no cell: a field of the row key, read by
                            ** widecol from the key (NULL here) */

/* Appends the cell of a value that is not NULL, laid out as eLayout
** (CS_LAYOUT_TAGGED to CS_LAYOUT_BYTES), to pOut: SQLITE_OK, or
** SQLITE_MISMATCH for a value the layout cannot hold exactly (LONG: not
** a whole number; DOUBLE: not a number, or an integer a double cannot
** hold; STRING: a blob; BYTES: not a blob), nothing appended. */
int csCellEncodeAs(int eLayout, sqlite3_value *pVal, WcBuf *pOut);

/* Sets the result of ctx to the value of a cell a[0..n) laid out as
** eLayout: SQLITE_OK, or SQLITE_MISMATCH when a LONG or DOUBLE cell is not
** 8 bytes (nothing set). */
int csCellResultAs(sqlite3_context *ctx, int eLayout, const unsigned char *a,
                   int64_t n);

/* Appends the cell bytes of a value that is not NULL to pOut. */
void csCellEncode(sqlite3_value *pVal, WcBuf *pOut);

/* Sets the result of ctx to the value of cell bytes a[0..n) (a NULL
** cell leaves it NULL). */
void csCellResult(sqlite3_context *ctx, const unsigned char *a, int64_t n);

#endif /* WIDECOL_CS_CELL_H */
