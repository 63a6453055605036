/*
** WidecolHBase.java: the HBase of widecol's tests, and its Java client as
** the ground truth for what HBase holds.  tests/servers/hbase.sh runs it;
** it is test code, never part of widecol (which stays C).
**
**   serve <dir> [--regionservers N] [--no-thrift]
**                   HBase's own test utilities start ZooKeeper, then one
**                   master and N region servers (1) on the local filesystem
**                   under <dir> (no HDFS), with the Thrift2 gateway on a
**                   free loopback port unless --no-thrift.  Prints
**                   WIDECOL_HBASE=host:port (the gateway),
**                   WIDECOL_HBASE_NODES=host:port,... (the master and each
**                   region server: widecol's native transport) and
**                   WIDECOL_HBASE_ZK=host:port, then "ready"; then takes
**                   the region servers' controls from its standard input
**                   ("<id> rs list|kill N|stop N|start", each answered and
**                   ended by "done <id>"), and stops when it closes.
**   <zk> cells <table>     every cell, every version: hex(row) family
**                          hex(qualifier) timestamp hex(value), one a line
**   <zk> scan <table> [prefix]  the newest cells, as HBase's shell shows
**                          bytes (Bytes.toStringBinary): row family:qualifier
**                          timestamp=t value=v
**   <zk> regions <table>   each region's start key, hex ("" the first)
**   <zk> describe <table>  each family: name VERSIONS n TTL s
**                          NEW_VERSION_BEHAVIOR true|false
**   <zk> tables            the user tables, one a line
**   <zk> disable|enable <table>  disables or enables the table, as another
**                          program might while widecol uses it
**   <zk> region-move <table> <row hex>   moves the row's region to another
**                          region server (HBase's choice)
**   <zk> region-split <table> <row hex>  splits the row's region at the row
**   <zk> balance           runs HBase's balancer once
**   <zk> split-policy <table> <policy> <max bytes> <flush bytes> <block bytes>
**                          the table's region split policy (HBase's class,
**                          as ConstantSizeRegionSplitPolicy), MAX_FILESIZE,
**                          MEMSTORE_FLUSHSIZE and its families' BLOCKSIZE,
**                          with no jitter and with the sanity checks that
**                          refuse small sizes off
**   <zk> settle <table>    waits until the table's splits and compactions
**                          have settled (no compaction, the same regions,
**                          for 2 s), then prints the regions as `regions`
**   <zk> shell <file>      runs the file's HBase shell commands (those
**                          widecol_ddl writes) as Ruby, with create.rb's
**                          create and create_namespace
**   <zk> drop-namespace <ns>  disables and deletes its tables (all at
**                          once), then the namespace
**   <zk> bench-load <table> <rows> <seed>
**                          HBase's Java client's own load, for
**                          bench/hbase_scale.py: the payments rows in the
**                          cells widecol writes (docs/hbase.md), through a
**                          BufferedMutator; prints "rows N seconds S"
**   <zk> bench-scan <table> <start> <stop> [<start> <stop> ...]
**                          a Table.getScanner of the rows from start to
**                          stop (Bytes.toBytesBinary: text, \xNN for any
**                          byte), each range in turn; prints
**                          "rows N seconds S"
**   <zk> phoenix <statement>  one statement through Apache Phoenix's JDBC
**                          driver (a cluster started with --phoenix): its
**                          rows, tab-separated, then "rows N seconds S"
**   <zk> phoenix-scan <statement>  the same, every column of every row
**                          read and none printed (the benchmark's reader)
**   <zk> phoenix-load <table> <rows> <seed>
**                          the payments of bench-load UPSERTed into a
**                          Phoenix table through its JDBC driver, 10,000
**                          a commit; prints "rows N seconds S"
**   <zk> bench-get <table> <keys file>
**                          a Table.get per key (a line each); prints "rows
**                          N seconds S"
**   <zk> session           reads commands as above from standard input,
**                          one a line; after each one's output prints "."
**                          (one JVM for a test that asks many times); a
**                          command that fails prints "! " and why
**
** <zk> is the WIDECOL_HBASE_ZK the server printed.
*/
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.StartMiniClusterOption;
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
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.thrift2.ThriftServer;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hbase.util.Bytes;

public final class WidecolHBase {
  private static final String HOST = "127.0.0.1";
  /* create.rb, beside the harness's source (hbase.sh passes its path). */
  private static final String CREATE_RB = System.getProperty("widecol.hbase.create");

  public static void main(String[] args) throws Exception {
    if (args.length >= 2 && args[0].equals("serve")) {
      int servers = 1;
      boolean thrift = true;
      boolean phoenix = false;
      for (int i = 2; i < args.length; i++) {
        if (args[i].equals("--regionservers") && i + 1 < args.length) {
          servers = Integer.parseInt(args[++i]);
        } else if (args[i].equals("--no-thrift")) {
          thrift = false;
        } else if (args[i].equals("--phoenix")) {
          phoenix = true;
        } else {
          System.err.println("WidecolHBase serve: unknown option " + args[i]);
          System.exit(2);
        }
      }
      serve(args[1], servers, thrift, phoenix);
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

  private static void serve(String dir, int servers, boolean withThrift, boolean withPhoenix)
      throws Exception {
    System.setProperty("test.build.data.basedirectory", dir);
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", HOST);
    conf.set("hbase.master.hostname", "localhost");
    conf.set("hbase.unsafe.regionserver.hostname", "localhost");
    conf.setInt("hbase.master.info.port", -1);
    conf.setInt("hbase.regionserver.info.port", -1);
    conf.setInt("hbase.master.port", freePort());
    // One region server on a free port; several each on one the system
    // picks (they share the configuration).
    conf.setInt("hbase.regionserver.port", servers == 1 ? freePort() : 0);
    // The local filesystem has no hflush: the WAL writes plain files.
    conf.set("hbase.wal.provider", "filesystem");
    conf.setBoolean("hbase.unsafe.stream.capability.enforce", false);
    // A region that split holds its compacted references until this chore
    // archives them (every 2 min by default), and cannot split again till
    // then: a test's minutes are a cluster's hours.
    conf.setInt("hbase.hfile.compaction.discharger.interval", 500);
    // Tests make hundreds of small tables: a region's memstore takes a
    // 2 MiB chunk of its own at its first write under MSLAB, which a
    // production heap affords and a test's does not.
    conf.setBoolean("hbase.hregion.memstore.mslab.enabled", false);
    // A scanner's lease of 20 s, not 60: a test of a slow reader sees it
    // lost (or kept by widecol's renewals) in half a minute.
    conf.setInt("hbase.client.scanner.timeout.period", 20_000);
    // Phoenix's mutable secondary indexes replay from the WAL, which must
    // carry their edits (Phoenix refuses CREATE INDEX otherwise).
    if (withPhoenix) {
      conf.set("hbase.regionserver.wal.codec",
          "org.apache.hadoop.hbase.regionserver.wal.IndexedWALEditCodec");
    }
    HBaseTestingUtility util = new HBaseTestingUtility(conf);
    util.startMiniZKCluster();
    util.startMiniHBaseCluster(StartMiniClusterOption.builder()
        .numRegionServers(servers).build());

    ThriftServer thrift = null;
    if (withThrift) {
      int thriftPort = freePort();
      Configuration tconf = new Configuration(util.getConfiguration());
      tconf.set("hbase.regionserver.thrift.ipaddress", HOST);
      tconf.setInt("hbase.regionserver.thrift.port", thriftPort);
      tconf.setInt("hbase.thrift.info.port", -1);
      ThriftServer gateway = new ThriftServer(tconf);
      Thread serving = new Thread(() -> {
        try {
          gateway.run(new String[] {"-b", HOST, "-p", Integer.toString(thriftPort), "start"});
        } catch (Exception e) {
          e.printStackTrace();
          System.exit(1);
        }
      }, "thrift2");
      serving.setDaemon(true);
      serving.start();
      waitForPort(thriftPort);
      thrift = gateway;
      System.out.println("WIDECOL_HBASE=" + HOST + ":" + thriftPort);
    }
    // The native transport's bootstrap nodes: the master, then every
    // region server (each serves the connection registry).
    StringBuilder nodes = new StringBuilder(HOST + ":" + conf.getInt("hbase.master.port", 0));
    for (JVMClusterUtil.RegionServerThread t : util.getMiniHBaseCluster().getLiveRegionServerThreads()) {
      nodes.append(',').append(HOST).append(':').append(t.getRegionServer().getServerName().getPort());
    }
    System.out.println("WIDECOL_HBASE_NODES=" + nodes);
    System.out.println("WIDECOL_HBASE_ZK=" + HOST + ":" + util.getZkCluster().getClientPort());
    System.out.println("ready");
    System.out.flush();

    // Standard input: the cluster's controls (hbase.sh rs), a line each,
    // "<id> rs list|kill N|stop N|start"; each answered on standard output
    // and ended by "done <id>".  Its end stops the cluster.
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      String[] w = line.trim().split("\\s+");
      if (w.length < 3 || !w[1].equals("rs")) continue;
      try {
        regionServers(util.getMiniHBaseCluster(), w);
      } catch (Exception e) {
        System.out.println("! " + String.valueOf(e.getMessage()).replace('\n', ' '));
      }
      System.out.println("done " + w[0]);
      System.out.flush();
    }
    if (thrift != null) thrift.stop();
    util.shutdownMiniCluster();
    System.exit(0);
  }

  /* rs list: each region server's number, name, its regions (every one's
  ** since the start, the dead marked so); rs kill N (abrupt, as a crash),
  ** stop N (orderly), start (one more). */
  private static void regionServers(MiniHBaseCluster cluster, String[] w) throws IOException {
    List<JVMClusterUtil.RegionServerThread> all = cluster.getLiveRegionServerThreads();
    switch (w[2]) {
      case "list": {
        List<JVMClusterUtil.RegionServerThread> threads = cluster.getRegionServerThreads();
        for (int i = 0; i < threads.size(); i++) {
          HRegionServer rs = threads.get(i).getRegionServer();
          boolean alive = all.contains(threads.get(i)) && !rs.isStopped();
          System.out.println(i + " " + rs.getServerName() + " "
              + (alive ? rs.getNumberOfOnlineRegions() + " regions" : "down"));
        }
        break;
      }
      case "kill":
        cluster.killRegionServer(cluster.getRegionServer(Integer.parseInt(w[3])).getServerName());
        cluster.waitForRegionServerToStop(
            cluster.getRegionServer(Integer.parseInt(w[3])).getServerName(), 60000);
        break;
      case "stop":
        cluster.stopRegionServer(Integer.parseInt(w[3]));
        cluster.waitOnRegionServer(Integer.parseInt(w[3]));
        break;
      case "start":
        System.out.println(cluster.startRegionServer().getRegionServer().getServerName());
        break;
      default:
        throw new IOException("rs " + w[2] + ": list, kill N, stop N or start");
    }
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
          try {
            command(conn, cmd);
          } catch (IOException | RuntimeException e) {
            System.out.println("! " + String.valueOf(e.getMessage()).replace('\n', ' '));
          }
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
      case "shell":
        shell(conn.getAdmin(), args[2]);
        break;
      case "bench-load":
        benchLoad(conn, TableName.valueOf(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
        break;
      case "bench-scan":
        benchScan(conn, TableName.valueOf(args[2]), Arrays.copyOfRange(args, 3, args.length));
        break;
      case "phoenix":
      case "phoenix-scan":
        phoenix(args[0], String.join(" ", Arrays.copyOfRange(args, 2, args.length)),
            args[1].equals("phoenix"));
        break;
      case "phoenix-load":
        phoenixLoad(args[0], args[2], Integer.parseInt(args[3]), Long.parseLong(args[4]));
        break;
      case "bench-get":
        benchGet(conn, TableName.valueOf(args[2]), args[3]);
        break;
      case "drop-namespace":
        dropNamespace(conn.getAdmin(), args[2]);
        break;
      case "describe":
        describe(conn.getAdmin(), TableName.valueOf(args[2]));
        break;
      case "region-move": {
        TableName name = TableName.valueOf(args[2]);
        try (RegionLocator loc = conn.getRegionLocator(name)) {
          HRegionLocation at = loc.getRegionLocation(Bytes.fromHex(args[3]), true);
          conn.getAdmin().move(at.getRegion().getEncodedNameAsBytes());
        }
        break;
      }
      case "region-split":
        conn.getAdmin().split(TableName.valueOf(args[2]), Bytes.fromHex(args[3]));
        break;
      case "balance":
        conn.getAdmin().balancerSwitch(true, true);
        System.out.println(conn.getAdmin().balance() ? "balanced" : "nothing to move");
        break;
      case "disable":
        conn.getAdmin().disableTable(TableName.valueOf(args[2]));
        break;
      case "enable":
        conn.getAdmin().enableTable(TableName.valueOf(args[2]));
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
        boolean quiet;
        try {
          for (org.apache.hadoop.hbase.client.RegionInfo r : admin.getRegions(name)) {
            now.append(r.getRegionNameAsString()).append('\n');
          }
          quiet = admin.getCompactionState(name) == CompactionState.NONE;
        } catch (IOException | RuntimeException e) {
          quiet = false;   // a region in transition answers nothing yet
        }
        nStable = quiet && now.toString().equals(last) ? nStable + 1 : 0;
        last = now.toString();
      }
    } catch (InterruptedException e) {
      throw new IOException(e);
    }
  }

  private static void shell(Admin admin, String file) throws IOException {
    org.jruby.embed.ScriptingContainer ruby = new org.jruby.embed.ScriptingContainer(
        org.jruby.embed.LocalContextScope.SINGLETHREAD, org.jruby.embed.LocalVariableBehavior.TRANSIENT);
    try {
      ruby.put("$admin", admin);
      ruby.runScriptlet(org.jruby.embed.PathType.ABSOLUTE, CREATE_RB);
      ruby.runScriptlet(org.jruby.embed.PathType.ABSOLUTE, new java.io.File(file).getAbsolutePath());
    } catch (org.jruby.embed.EvalFailedException e) {
      throw new IOException(file + ": " + e.getMessage());
    } finally {
      ruby.terminate();
    }
  }

  /* Until the namespace lists no table: a table a procedure was still
  ** making when it was listed shows up on the next round. */
  private static void dropNamespace(Admin admin, String ns) throws IOException {
    List<java.util.concurrent.Future<Void>> pending = new java.util.ArrayList<>();
    try {
      for (int round = 0; round < 10; round++) {
        TableName[] tables = admin.listTableNamesByNamespace(ns);
        if (tables.length == 0) {
          admin.deleteNamespace(ns);
          return;
        }
        pending.clear();
        for (TableName t : tables) {
          if (admin.isTableEnabled(t)) pending.add(admin.disableTableAsync(t));
        }
        for (java.util.concurrent.Future<Void> f : pending) f.get();
        pending.clear();
        for (TableName t : tables) pending.add(admin.deleteTableAsync(t));
        for (java.util.concurrent.Future<Void> f : pending) f.get();
      }
    } catch (InterruptedException | java.util.concurrent.ExecutionException e) {
      throw new IOException(e);
    }
    throw new IOException("the namespace " + ns + " still has tables after 10 rounds");
  }

  private static final byte[] FAMILY = Bytes.toBytes("_");

  private static byte[] tagged(int tag, byte[] bytes) {
    byte[] out = new byte[bytes.length + 1];
    out[0] = (byte) tag;
    System.arraycopy(bytes, 0, out, 1, bytes.length);
    return out;
  }

  /* The payments bench/hbase_scale.py makes for widecol, made here from
  ** the same seeded sequence (a customer in 1..100000 and a time a row,
  ** amount and mode from the row number), in widecol's cells: the marker
  ** _:\x00, INTEGER 0xF9 + 8 bytes, REAL 0xFA + 8 bytes, TEXT its bytes. */
  private static void benchLoad(Connection conn, TableName name, int rows, long seed) throws IOException {
    Payment p = new Payment(seed);
    long started = System.nanoTime();
    try (org.apache.hadoop.hbase.client.BufferedMutator m = conn.getBufferedMutator(name)) {
      for (int i = 0; i < rows; i++) {
        p.next(i);
        byte[] key = Bytes.toBytes(String.format("%06d_%s_%09d", p.customer, p.paidAt, p.payment));
        org.apache.hadoop.hbase.client.Put put = new org.apache.hadoop.hbase.client.Put(key);
        put.addColumn(FAMILY, new byte[] {0}, tagged(0x01, Bytes.toBytes(started + i)));
        put.addColumn(FAMILY, Bytes.toBytes("customer_id"), tagged(0xF9, Bytes.toBytes(p.customer)));
        put.addColumn(FAMILY, Bytes.toBytes("paid_at"), Bytes.toBytes(p.paidAt));
        put.addColumn(FAMILY, Bytes.toBytes("payment_id"), tagged(0xF9, Bytes.toBytes(p.payment)));
        put.addColumn(FAMILY, Bytes.toBytes("amount"), tagged(0xFA, Bytes.toBytes(p.amount)));
        put.addColumn(FAMILY, Bytes.toBytes("mode"), Bytes.toBytes(p.mode));
        m.mutate(put);
      }
    }
    printRate(rows, started);
  }

  /* Row i of the payments (bench/hbase_scale.py makes the same): a
  ** customer in 1..100000 from the seeded sequence, the rest from i. */
  private static final class Payment {
    private static final String[] MODES = {"card", "cash", "wire"};
    private final java.util.Random rnd;
    long customer;
    String paidAt;
    long payment;
    double amount;
    String mode;

    Payment(long seed) {
      rnd = new java.util.Random(seed);
    }

    void next(int i) {
      customer = 1 + rnd.nextInt(100000);
      paidAt = String.format("2017-%02d-%02d %02d:%02d:%02d", 1 + i / 2678400 % 12,
          1 + i / 86400 % 28, i / 3600 % 24, i / 60 % 60, i % 60);
      payment = 10000000L + i;
      amount = (i % 50000) / 100.0;
      mode = MODES[i % 3];
    }
  }

  /* Apache Phoenix on the cluster (hbase.sh start --phoenix), through its
  ** JDBC driver, found by name so that the harness compiles without it:
  ** one connection a JVM, each statement committed. */
  private static java.sql.Connection phoenixConn;

  private static java.sql.Connection phoenixConnection(String zk) throws IOException {
    try {
      if (phoenixConn == null) phoenixConn = java.sql.DriverManager.getConnection("jdbc:phoenix:" + zk);
      return phoenixConn;
    } catch (java.sql.SQLException e) {
      throw new IOException("Phoenix: " + e.getMessage()
          + " (is the cluster started with hbase.sh start --phoenix?)", e);
    }
  }

  /* One statement: with print its rows, a line each (columns by tabs,
  ** NULL as "NULL"), then "rows N seconds S" (N: rows returned or
  ** changed); without, every column of every row is read, none printed
  ** (a reader's time, for the benchmark). */
  private static void phoenix(String zk, String sql, boolean print) throws IOException {
    java.sql.Connection c = phoenixConnection(zk);
    long started = System.nanoTime();
    int rows = 0;
    StringBuilder out = new StringBuilder();
    try (java.sql.Statement st = c.createStatement()) {
      if (st.execute(sql)) {
        java.sql.ResultSet rs = st.getResultSet();
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          for (int j = 1; j <= n; j++) {
            if (!print) {
              rs.getObject(j);
              continue;
            }
            String v = rs.getString(j);
            out.append(j > 1 ? "\t" : "").append(v == null ? "NULL" : v);
          }
          if (print) out.append('\n');
          rows++;
        }
      } else {
        rows = Math.max(st.getUpdateCount(), 0);
      }
      c.commit();
    } catch (java.sql.SQLException e) {
      throw new IOException("Phoenix: " + e.getMessage(), e);
    }
    long ended = System.nanoTime();
    System.out.print(out);
    printRate(rows, started, ended);
  }

  /* The payments into a Phoenix table of columns CUSTOMER_ID, PAID_AT,
  ** PAYMENT_ID, AMOUNT, MODE: UPSERTs committed 10,000 at a time
  ** (Phoenix's own batching; its client sends them as one mutation). */
  private static void phoenixLoad(String zk, String table, int rows, long seed) throws IOException {
    java.sql.Connection c = phoenixConnection(zk);
    Payment p = new Payment(seed);
    long started = System.nanoTime();
    try (java.sql.PreparedStatement st = c.prepareStatement("UPSERT INTO " + table
        + " (CUSTOMER_ID, PAID_AT, PAYMENT_ID, AMOUNT, MODE) VALUES (?, ?, ?, ?, ?)")) {
      for (int i = 0; i < rows; i++) {
        p.next(i);
        st.setLong(1, p.customer);
        st.setString(2, p.paidAt);
        st.setLong(3, p.payment);
        st.setDouble(4, p.amount);
        st.setString(5, p.mode);
        st.executeUpdate();
        if (i % 10000 == 9999) c.commit();
      }
      c.commit();
    } catch (java.sql.SQLException e) {
      throw new IOException("Phoenix: " + e.getMessage(), e);
    }
    printRate(rows, started);
  }

  /* Each range [start, stop) scanned in turn: one range, or a salted
  ** design's per-bucket ranges as an application would read them. */
  private static void benchScan(Connection conn, TableName name, String[] bounds) throws IOException {
    long started = System.nanoTime();
    int rows = 0;
    try (Table t = conn.getTable(name)) {
      for (int i = 0; i + 1 < bounds.length; i += 2) {
        Scan scan = new Scan().withStartRow(Bytes.toBytesBinary(bounds[i]))
            .withStopRow(Bytes.toBytesBinary(bounds[i + 1])).setCaching(1000);
        try (ResultScanner rs = t.getScanner(scan)) {
          for (Result r : rs) rows++;
        }
      }
    }
    printRate(rows, started);
  }

  private static void benchGet(Connection conn, TableName name, String keysFile) throws IOException {
    List<String> keys = java.nio.file.Files.readAllLines(java.nio.file.Paths.get(keysFile));
    long started = System.nanoTime();
    int rows = 0;
    try (Table t = conn.getTable(name)) {
      for (String k : keys) {
        if (!t.get(new org.apache.hadoop.hbase.client.Get(Bytes.toBytes(k))).isEmpty()) rows++;
      }
    }
    printRate(rows, started);
  }

  private static void printRate(int rows, long started) {
    printRate(rows, started, System.nanoTime());
  }

  private static void printRate(int rows, long started, long ended) {
    System.out.println("rows " + rows + " seconds " + (ended - started) / 1e9);
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
