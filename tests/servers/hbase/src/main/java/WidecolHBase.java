/*
** WidecolHBase.java: the HBase of widecol's tests, and its Java client as
** the ground truth for what HBase holds.  tests/servers/hbase.sh runs it;
** it is test code, never part of widecol (which stays C).
**
**   serve <dir>     HBase's own test utilities start ZooKeeper, then one
**                   master and one region server on the local filesystem
**                   under <dir> (no HDFS), with the Thrift2 gateway on a
**                   free loopback port.  Prints WIDECOL_HBASE=host:port and
**                   WIDECOL_HBASE_ZK=host:port, then "ready"; stops when
**                   its standard input closes.
**   <zk> cells <table>     every cell, every version: hex(row) family
**                          hex(qualifier) timestamp hex(value), one a line
**   <zk> scan <table> [prefix]  the newest cells, as HBase's shell shows
**                          bytes (Bytes.toStringBinary): row family:qualifier
**                          timestamp=t value=v
**   <zk> regions <table>   each region's start key, hex ("" the first)
**   <zk> describe <table>  each family: name VERSIONS n TTL s
**                          NEW_VERSION_BEHAVIOR true|false
**   <zk> tables            the user tables, one a line
**   <zk> split-policy <table> <policy> <max bytes> <flush bytes> <block bytes>
**                          the table's region split policy (HBase's class,
**                          as ConstantSizeRegionSplitPolicy), MAX_FILESIZE,
**                          MEMSTORE_FLUSHSIZE and its families' BLOCKSIZE,
**                          with no jitter and with the sanity checks that
**                          refuse small sizes off
**   <zk> settle <table>    waits until the table's splits and compactions
**                          have settled (no compaction, the same regions,
**                          for 2 s), then prints the regions as `regions`
**   <zk> session           reads commands as above from standard input,
**                          one a line; after each one's output prints "."
**                          (one JVM for a test that asks many times)
**
** <zk> is the WIDECOL_HBASE_ZK the server printed.
*/
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.thrift2.ThriftServer;
import org.apache.hadoop.hbase.util.Bytes;

public final class WidecolHBase {
  private static final String HOST = "127.0.0.1";

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("serve")) {
      serve(args[1]);
    } else if (args.length >= 2) {
      client(args);
    } else {
      System.err.println("usage: WidecolHBase serve <dir> | <zk> cells|regions|describe <table> | <zk> tables");
      System.exit(2);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      return s.getLocalPort();
    }
  }

  private static void serve(String dir) throws Exception {
    System.setProperty("test.build.data.basedirectory", dir);
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", HOST);
    conf.set("hbase.master.hostname", "localhost");
    conf.set("hbase.unsafe.regionserver.hostname", "localhost");
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.master.port", freePort());
    conf.setInt("hbase.regionserver.port", freePort());
    // The local filesystem has no hflush: the WAL writes plain files.
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    // A region that split holds its compacted references until this chore
    // archives them (every 2 min by default), and cannot split again till
    // then: a test's minutes are a cluster's hours.
    conf.setInt("hbase.hfile.compaction.discharger.interval", 500);
    HBaseTestingUtility util = new HBaseTestingUtility(conf);
    util.startMiniZKCluster();
    util.startMiniHBaseCluster();

    int thriftPort = freePort();
    Configuration tconf = new Configuration(util.getConfiguration());
    tconf.set("hbase.regionserver.thrift.ipaddress", HOST);
    tconf.setInt("hbase.regionserver.thrift.port", thriftPort);
    tconf.setInt("hbase.thrift.info.port", -1);
    ThriftServer thrift = new ThriftServer(tconf);
    Thread serving = new Thread(() -> {
      try {
        thrift.run(new String[] {"-b", HOST, "-p", Integer.toString(thriftPort), "start"});
      } catch (Exception e) {
        e.printStackTrace();
        System.exit(1);
      }
    }, "thrift2");
    serving.setDaemon(true);
    serving.start();
    waitForPort(thriftPort);

    System.out.println("WIDECOL_HBASE=" + HOST + ":" + thriftPort);
    System.out.println("WIDECOL_HBASE_ZK=" + HOST + ":" + util.getZkCluster().getClientPort());
    System.out.println("ready");
    System.out.flush();

    InputStream in = System.in;
    while (in.read() >= 0) { }
    thrift.stop();
    util.shutdownMiniCluster();
    System.exit(0);
  }

  private static void waitForPort(int port) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      try (java.net.Socket s = new java.net.Socket(HOST, port)) {
        return;
      } catch (IOException e) {
        Thread.sleep(100);
      }
    }
    throw new IllegalStateException("the Thrift2 gateway did not listen on " + port);
  }

  private static void client(String[] args) throws IOException {
    Configuration conf = HBaseConfiguration.create();
    String[] zk = args[0].split(":");
    conf.set("hbase.zookeeper.quorum", zk[0]);
    conf.set("hbase.zookeeper.property.clientPort", zk[1]);
    try (Connection conn = ConnectionFactory.createConnection(conf)) {
      if (args[1].equals("session")) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        for (String line; (line = in.readLine()) != null; ) {
          String[] words = line.trim().split(" +");
          String[] cmd = new String[words.length + 1];
          cmd[0] = args[0];
          System.arraycopy(words, 0, cmd, 1, words.length);
          command(conn, cmd);
          System.out.println(".");
          System.out.flush();
        }
      } else {
        command(conn, args);
      }
    }
  }

  private static void command(Connection conn, String[] args) throws IOException {
    switch (args[1]) {
      case "tables":
        for (TableName t : conn.getAdmin().listTableNames()) System.out.println(t.getNameAsString());
        break;
      case "cells":
        cells(conn, TableName.valueOf(args[2]));
        break;
      case "scan":
        scan(conn, TableName.valueOf(args[2]), args.length > 3 ? args[3] : "");
        break;
      case "regions":
        regions(conn, TableName.valueOf(args[2]));
        break;
      case "split-policy":
        splitPolicy(conn.getAdmin(), TableName.valueOf(args[2]), args[3],
            Long.parseLong(args[4]), Long.parseLong(args[5]), Integer.parseInt(args[6]));
        break;
      case "settle":
        settle(conn.getAdmin(), TableName.valueOf(args[2]));
        regions(conn, TableName.valueOf(args[2]));
        break;
      case "describe":
        describe(conn.getAdmin(), TableName.valueOf(args[2]));
        break;
      default:
        System.err.println("WidecolHBase: unknown command " + args[1]);
        System.exit(2);
    }
  }

  private static void regions(Connection conn, TableName name) throws IOException {
    try (RegionLocator loc = conn.getRegionLocator(name)) {
      loc.clearRegionLocationCache();
      for (HRegionLocation r : loc.getAllRegionLocations()) {
        System.out.println(Bytes.toHex(r.getRegion().getStartKey()));
      }
    }
  }

  private static void splitPolicy(Admin admin, TableName name, String policy, long maxBytes,
      long flushBytes, int blockBytes) throws IOException {
    String policyClass = "org.apache.hadoop.hbase.regionserver." + policy;
    try {
      Class.forName(policyClass);
    } catch (ClassNotFoundException e) {
      // A table whose policy does not load never opens again: refuse first.
      throw new IOException("no split policy class " + policyClass);
    }
    TableDescriptor old = admin.getDescriptor(name);
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(old);
    for (ColumnFamilyDescriptor f : old.getColumnFamilies()) {
      b.modifyColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(f).setBlocksize(blockBytes).build());
    }
    TableDescriptor d = b
        .setRegionSplitPolicyClassName(policyClass)
        .setMaxFileSize(maxBytes)
        .setMemStoreFlushSize(flushBytes)
        .setValue("hbase.hregion.max.filesize.jitter", "0")
        .setValue("hbase.table.sanity.checks", "false")
        .build();
    admin.modifyTable(d);
  }

  /* Splits follow flushes and compactions, on HBase's own threads: the
  ** table has settled once, for 2 s, no compaction runs and its regions
  ** stay the same. */
  private static void settle(Admin admin, TableName name) throws IOException {
    long deadline = System.currentTimeMillis() + 120_000;
    int nStable = 0;
    String last = "";
    try {
      while (nStable < 8) {
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("the table " + name + " did not settle in 120 s");
        }
        Thread.sleep(250);
        StringBuilder now = new StringBuilder();
        for (org.apache.hadoop.hbase.client.RegionInfo r : admin.getRegions(name)) {
          now.append(r.getRegionNameAsString()).append('\n');
        }
        boolean quiet = admin.getCompactionState(name) == CompactionState.NONE;
        nStable = quiet && now.toString().equals(last) ? nStable + 1 : 0;
        last = now.toString();
      }
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
  }

  private static void cells(Connection conn, TableName name) throws IOException {
    Scan scan = new Scan().readAllVersions();
    try (Table t = conn.getTable(name); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        for (Cell c : r.rawCells()) {
          System.out.println(Bytes.toHex(CellUtil.cloneRow(c)) + " "
              + Bytes.toString(CellUtil.cloneFamily(c)) + " "
              + Bytes.toHex(CellUtil.cloneQualifier(c)) + " "
              + c.getTimestamp() + " "
              + Bytes.toHex(CellUtil.cloneValue(c)));
        }
      }
    }
  }

  private static void scan(Connection conn, TableName name, String prefix) throws IOException {
    Scan scan = new Scan().setRowPrefixFilter(Bytes.toBytes(prefix));
    try (Table t = conn.getTable(name); ResultScanner rs = t.getScanner(scan)) {
      for (Result r : rs) {
        for (Cell c : r.rawCells()) {
          System.out.println(Bytes.toStringBinary(CellUtil.cloneRow(c)) + " "
              + Bytes.toString(CellUtil.cloneFamily(c)) + ":"
              + Bytes.toStringBinary(CellUtil.cloneQualifier(c))
              + " timestamp=" + c.getTimestamp()
              + " value=" + Bytes.toStringBinary(CellUtil.cloneValue(c)));
        }
      }
    }
  }

  private static void describe(Admin admin, TableName name) throws IOException {
    TableDescriptor d = admin.getDescriptor(name);
    for (ColumnFamilyDescriptor f : d.getColumnFamilies()) {
      System.out.println(f.getNameAsString() + " VERSIONS " + f.getMaxVersions()
          + " TTL " + f.getTimeToLive() + " NEW_VERSION_BEHAVIOR " + f.isNewVersionBehavior());
    }
  }
}
