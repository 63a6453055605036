/*
 * The peer of `make bench-cassandra` (bench/cassandra_scale.py): the same
 * work as widecol's, done by Cassandra's Java driver 4.x, token-aware (its
 * default load balancing routes a bound statement to a replica of its
 * partition), at the consistency widecol uses (LOCAL_QUORUM), with the
 * local data center given.  One command a run; only the work is timed
 * (the JVM's start and the session's connecting are not), and one line of
 * JSON is printed: {"seconds": S, "rows": N}.
 *
 *   java -cp ... WidecolCassandraPeer HOSTS DC KEYSPACE TABLE COMMAND [FILE [ARG]]
 *     HOSTS    host:port,host:port...   the contact points
 *     load FILE        rows of a CSV file (user_id, liked_at, item_id,
 *                      title), in partition order: a partition's run of
 *                      rows (100 at most) one UNLOGGED BATCH of prepared
 *                      INSERTs, executed asynchronously, 1,024 in flight
 *                      at most (the driver's requests per connection)
 *     slices FILE SINCE   for each user_id of FILE, that user's likes
 *                      after SINCE, one after another
 *     oldest FILE      for each user_id of FILE, its oldest 10 likes
 *                      (the slice reversed, LIMIT 10)
 *     points FILE      for each (user_id, liked_at, item_id) of FILE
 *                      (CSV), the row's title
 *     scan             every row, in pages of 5,000
 */
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.CqlSessionBuilder;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

public final class WidecolCassandraPeer {
  private static final int IN_FLIGHT = 1024;
  private static final int BATCH_ROWS = 100;

  public static void main(String[] args) throws Exception {
    if (args.length < 5) {
      System.err.println("usage: WidecolCassandraPeer HOSTS DC KEYSPACE TABLE "
          + "load|slices|oldest|points|scan [FILE [SINCE]]");
      System.exit(2);
    }
    DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "LOCAL_QUORUM")
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
        .withInt(DefaultDriverOption.REQUEST_PAGE_SIZE, 5000)
        .build();
    CqlSessionBuilder builder = CqlSession.builder().withConfigLoader(config)
        .withLocalDatacenter(args[1]).withKeyspace(args[2]);
    for (String hostPort : args[0].split(",")) {
      int colon = hostPort.lastIndexOf(':');
      builder.addContactPoint(new InetSocketAddress(hostPort.substring(0, colon),
          Integer.parseInt(hostPort.substring(colon + 1))));
    }
    try (CqlSession session = builder.build()) {
      String table = "\"" + args[3] + "\"";
      String command = args[4];
      long[] result;
      switch (command) {
        case "load": result = load(session, table, args[5]); break;
        case "slices": result = slices(session, table, args[5], Long.parseLong(args[6])); break;
        case "oldest": result = oldest(session, table, args[5]); break;
        case "points": result = points(session, table, args[5]); break;
        case "scan": result = scan(session, table); break;
        default:
          System.err.println("WidecolCassandraPeer: no command '" + command + "'");
          System.exit(2);
          return;
      }
      System.out.printf("{\"seconds\": %.6f, \"rows\": %d}%n", result[0] / 1e9, result[1]);
    }
  }

  /* A CSV line's fields; the benchmark's values have no commas or quotes. */
  private static String[] fields(String line) {
    return line.split(",", -1);
  }

  private static long[] load(CqlSession session, String table, String file) throws Exception {
    List<String> lines = Files.readAllLines(Paths.get(file));
    PreparedStatement insert = session.prepare("INSERT INTO " + table
        + " (user_id, liked_at, item_id, title) VALUES (?, ?, ?, ?)");
    Semaphore slots = new Semaphore(IN_FLIGHT);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = System.nanoTime();
    BatchStatementBuilder batch = null;
    String partition = null;
    int inBatch = 0;
    for (String line : lines) {
      String[] f = fields(line);
      /* A partition's run of rows (the file is in partition order) is one
       * UNLOGGED BATCH, one mutation, as widecol sends it: the driver's
       * way to load many rows of a partition. */
      if (batch != null && (!f[0].equals(partition) || inBatch == BATCH_ROWS)) {
        send(session, batch.build(), slots, failure);
        batch = null;
      }
      if (batch == null) {
        batch = BatchStatement.builder(DefaultBatchType.UNLOGGED);
        partition = f[0];
        inBatch = 0;
      }
      batch.addStatement(insert.bind(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]));
      inBatch++;
    }
    if (batch != null) send(session, batch.build(), slots, failure);
    slots.acquire(IN_FLIGHT);
    long took = System.nanoTime() - start;
    if (failure.get() != null) throw new RuntimeException(failure.get());
    return new long[] {took, lines.size()};
  }

  private static void send(CqlSession session, BatchStatement batch, Semaphore slots,
                           AtomicReference<Throwable> failure) throws InterruptedException {
    slots.acquire();
    CompletionStage<AsyncResultSet> done = session.executeAsync(batch);
    done.whenComplete((rs, error) -> {
      if (error != null) failure.compareAndSet(null, error);
      slots.release();
    });
  }

  private static long[] slices(CqlSession session, String table, String file, long since)
      throws Exception {
    List<String> users = Files.readAllLines(Paths.get(file));
    PreparedStatement slice = session.prepare("SELECT user_id, liked_at, item_id, title FROM "
        + table + " WHERE user_id = ? AND liked_at > ?");
    long rows = 0, start = System.nanoTime();
    for (String user : users) {
      for (Row r : session.execute(slice.bind(user, since))) rows++;
    }
    return new long[] {System.nanoTime() - start, rows};
  }

  private static long[] oldest(CqlSession session, String table, String file) throws Exception {
    List<String> users = Files.readAllLines(Paths.get(file));
    PreparedStatement oldest = session.prepare("SELECT user_id, liked_at, item_id, title FROM "
        + table + " WHERE user_id = ? ORDER BY liked_at ASC, item_id DESC LIMIT 10");
    long rows = 0, start = System.nanoTime();
    for (String user : users) {
      for (Row r : session.execute(oldest.bind(user))) rows++;
    }
    return new long[] {System.nanoTime() - start, rows};
  }

  private static long[] points(CqlSession session, String table, String file) throws Exception {
    List<String[]> keys = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(file))) keys.add(fields(line));
    PreparedStatement point = session.prepare("SELECT title FROM " + table
        + " WHERE user_id = ? AND liked_at = ? AND item_id = ?");
    long found = 0, start = System.nanoTime();
    for (String[] k : keys) {
      ResultSet rs = session.execute(point.bind(k[0], Long.parseLong(k[1]),
                                                Long.parseLong(k[2])));
      if (rs.one() != null) found++;
    }
    return new long[] {System.nanoTime() - start, found};
  }

  private static long[] scan(CqlSession session, String table) {
    AtomicLong rows = new AtomicLong();
    long start = System.nanoTime();
    for (Row r : session.execute(SimpleStatement.newInstance(
        "SELECT user_id, liked_at, item_id, title FROM " + table))) {
      rows.incrementAndGet();
    }
    return new long[] {System.nanoTime() - start, rows.get()};
  }
}
