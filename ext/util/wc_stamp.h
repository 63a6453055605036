/*
** wc_stamp.h: a write's stamp, shared by widecol's core and its Bigtable
** store (which links this file and wc_buf.c alone of the core).
**
** A stamp names one write of a row on a store without multi-row
** transactions (WcStoreCaps.bStamps): rows carry the stamps of their
** writes, index entries the stamp they were written under, and a
** conditional write compares them.  8 characters of [0-9A-Za-z] (about 47
** bits: two writes of one row never draw the same), so that Bigtable's
** own tools print them as they are; 8 zero bytes, which no stamp is,
** stand for "written by widecol 1.0, which had no stamps".
*/
#ifndef WIDECOL_WC_STAMP_H
#define WIDECOL_WC_STAMP_H

#define WC_STAMP_SIZE 8

/* Fills aOut[0..WC_STAMP_SIZE) with a new stamp. */
void wcStampNew(unsigned char *aOut);

#endif /* WIDECOL_WC_STAMP_H */
