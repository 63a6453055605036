/*
** widecol_bigtable.c: entry point of widecol_bigtable.so, widecol's
** Bigtable store.
**
** A second loadable library, so that the core widecol.so keeps needing
** only SQLite and libcrypto: this one links gRPC's C core and protobuf-c.
** Load both (`.load ./widecol` and `.load ./widecol_bigtable`); a widecol
** table with STORAGE BIGTABLE '<table>' then keeps its rows in Bigtable
** through the widecol_bigtable module registered here (bt_store.h).
*/
#include "util/wc_api.h"
#include "bigtable/bt_store.h"

int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi);

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_widecolbigtable_init(sqlite3 *db, char **pzErrMsg,
                                 const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  return btRegister(db, pzErrMsg, "widecol.load(db, bigtable=True)");
}
