/*
** standalone.c: runs a fuzz target's LLVMFuzzerTestOneInput() on every
** file of the directories (or files) named on the command line, so that a
** corpus is replayed by an ordinary build, under gcc and the sanitizers.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *a, size_t n);

static int runFile(const char *zPath){
  FILE *f = fopen(zPath, "rb");
  uint8_t *a;
  long n;
  if( f == 0 ) return 1;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  a = malloc(n > 0 ? (size_t)n : 1);
  if( a == 0 || fread(a, 1, (size_t)n, f) != (size_t)n ){
    fclose(f);
    free(a);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(a, (size_t)n);
  free(a);
  return 0;
}

int main(int argc, char **argv){
  int i, nRun = 0;
  for(i = 1; i < argc; i++){
    struct stat st;
    if( stat(argv[i], &st) != 0 ) continue;
    if( S_ISDIR(st.st_mode) ){
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while( d && (e = readdir(d)) != 0 ){
        char zPath[4096];
        if( e->d_name[0] == '.' ) continue;
        snprintf(zPath, sizeof(zPath), "%s/%s", argv[i], e->d_name);
        if( runFile(zPath) == 0 ) nRun++;
      }
      if( d ) closedir(d);
    }else if( runFile(argv[i]) == 0 ){
      nRun++;
    }
  }
  printf("%s: %d inputs replayed\n", argv[0], nRun);
  return 0;
}
