"""The Cassandra of the tests, through its own Python driver (Debian's
python3-cassandra), the ground truth for what the server holds and says.
The server is the one tests/servers/cassandra.sh started, named by
WIDECOL_CASSANDRA=host:port.  The Cassandra store's tests use it
(tests/stores/cassandra_*.py), and wc_args() to open widecol as each of
them is run."""
import argparse
import logging
import os

import wctest


def endpoint():
    """(host, port) of WIDECOL_CASSANDRA."""
    where = os.environ.get("WIDECOL_CASSANDRA")
    if not where or ":" not in where:
        raise SystemExit("WIDECOL_CASSANDRA is not set to host:port "
                         "(sh tests/servers/cassandra.sh start prints it)")
    host, port = where.rsplit(":", 1)
    return host, int(port)


def connect():
    """(cluster, session) on the tests' server; the caller shuts the cluster down."""
    from cassandra.cluster import Cluster
    from cassandra.policies import WhiteListRoundRobinPolicy
    # The driver warns of every refused statement and of the one-node
    # cluster's settings; the tests read the errors themselves.
    logging.getLogger("cassandra").setLevel(logging.ERROR)
    host, port = endpoint()
    cluster = Cluster([host], port=port, protocol_version=5,
                      load_balancing_policy=WhiteListRoundRobinPolicy([host]))
    return cluster, cluster.connect()


def make_keyspace(session, name):
    """A new keyspace name (dropped first if a failed run left it), one replica."""
    session.execute('DROP KEYSPACE IF EXISTS "%s"' % name)
    session.execute("CREATE KEYSPACE \"%s\" WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}" % name)
    return name


def wc_args(description):
    """The script's arguments (--extension ./widecol) and a widecol
    connection opened from them: (args, db)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--extension", default="./widecol")
    args = ap.parse_args()
    return args, wctest.connect(args.extension, isolation_level=None)
