/*
** bt_cell.h: how widecol writes a value into a Bigtable cell, and reads it
** back (docs/bigtable.md, "Cell values").
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
#ifndef WIDECOL_BT_CELL_H
#define WIDECOL_BT_CELL_H

#include <sqlite3ext.h>
#include "wc_buf.h"

#define BT_CELL_NULL    0xF8
#define BT_CELL_INTEGER 0xF9
#define BT_CELL_REAL    0xFA
#define BT_CELL_BLOB    0xFB
#define BT_CELL_TEXT    0xFF   /* only in front of a text starting >= 0xF8 */

/* Appends the cell bytes of a value that is not NULL to pOut. */
void btCellEncode(sqlite3_value *pVal, WcBuf *pOut);

/* Sets the result of ctx to the value of cell bytes a[0..n) (a NULL
** cell leaves it NULL). */
void btCellResult(sqlite3_context *ctx, const unsigned char *a, int64_t n);

#endif /* WIDECOL_BT_CELL_H */
