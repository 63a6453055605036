/*
** wc_time.c: the monotonic and the wall clock (wc_time.h).
*/
#include "util/wc_api.h"
#include "util/wc_time.h"

#include <time.h>

int64_t wcMonotonicMs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t wcWallMicros(void){
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
