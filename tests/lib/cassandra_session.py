"""The Cassandra of the tests, through its own Python driver (Debian's
python3-cassandra), the ground truth for what the server holds and says.
The cluster is the one tests/servers/cassandra.sh started, named by
WIDECOL_CASSANDRA=host:port[,host:port...] (its nodes' CQL addresses).  The Cassandra store's tests use it
(tests/stores/cassandra_*.py), and wc_args() to open widecol as each of
them is run."""
import argparse
import logging
import os

import wctest


def endpoints():
    """[(host, port), ...] of WIDECOL_CASSANDRA, the first the first node's."""
    where = os.environ.get("WIDECOL_CASSANDRA")
    if not where or ":" not in where:
        raise SystemExit("WIDECOL_CASSANDRA is not set to host:port[,host:port...] "
                         "(sh tests/servers/cassandra.sh start prints it)")
    out = []
    for node in where.split(","):
        host, port = node.rsplit(":", 1)
        out.append((host, int(port)))
    return out


def endpoint():
    """(host, port) of WIDECOL_CASSANDRA's first node."""
    return endpoints()[0]


def replicas():
    """The replicas of a keyspace the tests make: as many as there are
    nodes, up to 3 (as widecol's own keyspaces, ext/stores/cassandra/
    cq_store.h CQ_DEFAULT_REPLICAS)."""
    return min(3, len(endpoints()))


def connect(consistency=None):
    """(cluster, session) on the tests' cluster, token-aware, its reads and
    writes at `consistency` (the driver's ConsistencyLevel; default ALL,
    so that what the driver reads is what every replica holds); the caller
    shuts the cluster down."""
    from cassandra import ConsistencyLevel
    from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile
    # The driver warns of every refused statement and of the test
    # cluster's settings; the tests read the errors themselves.
    logging.getLogger("cassandra").setLevel(logging.ERROR)
    nodes = endpoints()
    profile = ExecutionProfile(consistency_level=ConsistencyLevel.ALL
                               if consistency is None else consistency,
                               request_timeout=60)
    cluster = Cluster([h for h, _ in nodes], port=nodes[0][1], protocol_version=5,
                      execution_profiles={EXEC_PROFILE_DEFAULT: profile})
    return cluster, cluster.connect()


def node_session(host, port, agree=True):
    """(cluster, session) that talk to node host:port alone (its system
    tables and system_views are its own), at LOCAL_ONE; agree=False: DDL
    does not wait for the other nodes (the node's own system_schema has
    it at once); the caller shuts it down."""
    from cassandra.cluster import Cluster
    from cassandra.policies import WhiteListRoundRobinPolicy
    logging.getLogger("cassandra").setLevel(logging.ERROR)
    cluster = Cluster([host], port=port, protocol_version=5,
                      load_balancing_policy=WhiteListRoundRobinPolicy([host]),
                      max_schema_agreement_wait=10 if agree else 0)
    return cluster, cluster.connect()


def rules_session(agree=True):
    """(cluster, session) for the checks of what the server says of a
    statement (its token(), its query rules, its schema), not of where
    rows live: the first node alone, at LOCAL_ONE; its keyspaces have one
    replica (make_keyspace(session, name, rf=1)).  agree=False where no
    row is read or written: DDL does not wait for the other nodes."""
    return node_session(*endpoint(), agree=agree)


def make_keyspace(session, name, rf=None):
    """A new keyspace name (dropped first if a failed run left it), with
    rf replicas (default replicas())."""
    session.execute('DROP KEYSPACE IF EXISTS "%s"' % name)
    session.execute("CREATE KEYSPACE \"%s\" WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': %d}"
                    % (name, replicas() if rf is None else rf))
    return name


def wc_args(description):
    """The script's arguments (--extension ./widecol) and a widecol
    connection opened from them: (args, db)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--extension", default="./widecol")
    ap.add_argument("--cassandra", default="./widecol_cassandra",
                    help="the store's library, for scripts that make tables on it")
    args = ap.parse_args()
    return args, wctest.connect(args.extension, isolation_level=None)
