/*
** wc_write.h: xUpdate (wc_write.c), for the module's method table and its
** connect and disconnect (wc_vtab.c).  The writer's scratch (WcWriter) is
** private to wc_write.c.
*/
#ifndef WIDECOL_WC_WRITE_H
#define WIDECOL_WC_WRITE_H

#include "vtab/wc_vtab.h"

/* Makes p->pWriter for p's schema: SQLITE_OK or SQLITE_NOMEM. */
int wcWriteInit(WcVtab *p);
/* Frees p->pWriter and everything it holds (NULL is harmless). */
void wcWriteFree(WcVtab *p);
int wcWriteUpdate(sqlite3_vtab *pVtab, int argc, sqlite3_value **argv,
                  sqlite3_int64 *pRowid);
/* xBegin: a write statement begins (in autocommit, each one does), so
** nothing read ahead for the last one is trusted. */
int wcWriteBegin(sqlite3_vtab *pVtab);
/* xCommit and xRollback: the transaction's writes are over (the last of
** their progress lines). */
int wcWriteEnd(sqlite3_vtab *pVtab);

#endif /* WIDECOL_WC_WRITE_H */
