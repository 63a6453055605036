/*
** rk_functions.h: the rk_* SQL functions (rk_functions.c) and
** widecol_version(), for the registration table in widecol.c.  Those that
** hash take an RkHasher (rk_hash.h) as their user data.
*/
#ifndef WIDECOL_RK_FUNCTIONS_H
#define WIDECOL_RK_FUNCTIONS_H

#include "util/wc_api.h"

void rkPadFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkDescFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkUndescFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkSaltFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkUnsaltFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkBucketFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkMd5Func(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkTokenFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkReverseFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkJoinFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkPartFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkPrefixEndFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);
void rkVersionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif /* WIDECOL_RK_FUNCTIONS_H */
