/*
** wc_error.c: a virtual table's error message (wc_error.h).
*/
#include "util/wc_error.h"

#include <stdarg.h>

int wcVtabError(sqlite3_vtab *pVtab, int rc, const char *zFormat, ...){
  va_list ap;
  char *zMsg;
  va_start(ap, zFormat);
  zMsg = sqlite3_vmprintf(zFormat, ap);
  va_end(ap);
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = zMsg;
  return zMsg ? rc : SQLITE_NOMEM;
}
