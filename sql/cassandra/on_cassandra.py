#!/usr/bin/env python3
"""Prints a widecol script as it runs on Cassandra: widecol_cassandra
loaded after widecol, and each table in Cassandra's form (PRIMARY KEY
((...), ...)) created with STORAGE CASSANDRA 'widecol_demo.<table>'; the rest of
the script as it is.  sql/cassandra/demo.sh pipes it into sqlite3.

    on_cassandra.py sql/cassandra_likes.sql | sqlite3 :memory:
"""
import re
import sys


def on_cassandra(text):
    # Beside widecol, wherever the script loads it from (./ in the source
    # tree, the library directory when installed).
    text = re.sub(r"^\.load (\S*/)widecol$", r".load \1widecol\n.load \1widecol_cassandra",
                  text, flags=re.M)
    return re.sub(r"(CREATE VIRTUAL TABLE (\w+) USING widecol\((?:(?!\);).)*PRIMARY KEY"
                  r"(?:(?!\);).)*)\);",
                  lambda m: "%s, STORAGE CASSANDRA 'widecol_demo.%s');" % (m.group(1), m.group(2)),
                  text, flags=re.S)


if __name__ == "__main__":
    sys.stdout.write(on_cassandra(open(sys.argv[1], encoding="utf-8").read()))
