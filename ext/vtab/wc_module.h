/*
** wc_module.h: what the entry point (widecol.c) registers of the widecol
** virtual table: the module and widecol_stats() (wc_vtab.c).
*/
#ifndef WIDECOL_WC_MODULE_H
#define WIDECOL_WC_MODULE_H

#include "util/wc_api.h"

extern const sqlite3_module wcModule;
/* widecol_stats('<table>' [, reset]) */
void wcStatsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_WC_MODULE_H */
