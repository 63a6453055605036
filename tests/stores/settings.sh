# The settings every store's tests (tests/stores/<engine>/run.sh) take,
# read here once; each run.sh sources this file from the repository root.
#   STORE_SLT           the sqllogictest runner (build/slt)
#   STORE_LIB           the directory of widecol.so and the store's
#                       library (.)
#   STORE_SCRIPTS_ONLY  1: the scripts alone, and the checks that must run
#                       under the sanitizers, not the Python checks against
#                       the engine's own client (make asan)
#   STORE_PRELOAD       libraries preloaded into python3 for those checks
#                       (make asan: the sanitizers' runtimes)
#   STORE_DIFF_CASES    statements per design of the differential test
slt=${STORE_SLT:-build/slt}
lib=${STORE_LIB:-.}
