/*
** wc_html.h: writing HTML and inline SVG into an sqlite3_str, for
** widecol_report's page (wc_report_page.c): text escaped for HTML, key
** bytes made readable, figures with thousands separators.
*/
#ifndef WIDECOL_WC_HTML_H
#define WIDECOL_WC_HTML_H

#include "util/wc_api.h"
#include <stdint.h>

/* z escaped for HTML text and attribute values (NULL writes nothing);
** bytes that are not UTF-8, and NULs, as \xHH. */
void wcHtmlText(sqlite3_str *pOut, const char *z);
/* The same for n bytes of z. */
void wcHtmlTextN(sqlite3_str *pOut, const char *z, int64_t n);
/* Key bytes a[0..n): printable ASCII as itself (escaped), other bytes as
** \xHH. */
void wcHtmlBytes(sqlite3_str *pOut, const unsigned char *a, int64_t n);
/* zOpen, then z escaped (NULL: nothing), then zClose: an element whose
** text comes from the data. */
void wcHtmlWrap(sqlite3_str *pOut, const char *zOpen, const char *z,
                const char *zClose);
/* Bytes as lowercase hex. */
void wcHtmlHex(sqlite3_str *pOut, const unsigned char *a, int64_t n);
/* An integer with thousands separators: 1,234,567. */
void wcHtmlInt(sqlite3_str *pOut, int64_t v);
/* A size in bytes: "812 B", "4.0 KiB", "1.5 MiB". */
void wcHtmlSize(sqlite3_str *pOut, int64_t n);

#endif /* WIDECOL_WC_HTML_H */
