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
**
** <zk> is the WIDECOL_HBASE_ZK the server printed.
*/
import java.io.IOException;
import java.io.InputStream;
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
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
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
          try (RegionLocator loc = conn.getRegionLocator(TableName.valueOf(args[2]))) {
            for (HRegionLocation r : loc.getAllRegionLocations()) {
              System.out.println(Bytes.toHex(r.getRegion().getStartKey()));
            }
          }
          break;
        case "describe":
          describe(conn.getAdmin(), TableName.valueOf(args[2]));
          break;
        default:
          System.err.println("WidecolHBase: unknown command " + args[1]);
          System.exit(2);
      }
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
