/*
** wc_stamp.c: a write's stamp (see wc_stamp.h).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include "util/wc_stamp.h"

void wcStampNew(unsigned char *aOut){
  static const char zAlphabet[] =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  unsigned char aRandom[WC_STAMP_SIZE];
  int i;
  sqlite3_randomness(WC_STAMP_SIZE, aRandom);
  /* 62 characters: the first 8 a little more likely, which costs the
  ** stamp a fraction of a bit. */
  for(i = 0; i < WC_STAMP_SIZE; i++){
    aOut[i] = (unsigned char)zAlphabet[aRandom[i] % 62];
  }
}
