# Sourced by the servers' scripts (hbase.sh, cassandra.sh): check sets
# JAVA_HOME to JDK 17, found by name, never whatever java comes first on
# the PATH (HBase 2.6 is built and tested on 17; another JDK breaks
# Cassandra 5.0), and makes sure Maven is here; otherwise it prints what
# to install and returns 1.
check() {
  home=
  if command -v update-java-alternatives >/dev/null 2>&1; then
    home=$(update-java-alternatives -l 2>/dev/null | awk '$1 ~ /17/ { print $3; exit }')
  fi
  if [ -z "$home" ]; then
    for h in /usr/lib/jvm/java-17-openjdk-amd64 /usr/lib/jvm/java-17-openjdk-arm64; do
      [ -x "$h/bin/java" ] && home=$h && break
    done
  fi
  if [ -z "$home" ] || [ ! -x "$home/bin/javac" ]; then
    echo "no JDK 17 (apt-get install openjdk-17-jdk-headless)"
    return 1
  fi
  if ! command -v mvn >/dev/null 2>&1; then
    echo "no Maven (apt-get install maven)"
    return 1
  fi
  JAVA_HOME=$home
  return 0
}
