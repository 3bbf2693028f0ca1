package io.github.bizlock.internal.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * MariaDB servers of the test's own, a primary and replicas of it (binlog, GTID, {@code MASTER_USE_GTID}), on loopback
 * ports 4351-4359, with their data in a temporary directory (under {@code /dev/shm} when there is one). Server {@code i}
 * (0 the first primary) has {@code server_id} {@code i + 1}. They run as processes of this JVM, started with
 * {@code --no-defaults} so no system option file is read; a crashed one can be started again on its data, and
 * {@link #close()} stops them (by their process handles) and deletes the data. Tests that need them are skipped, with
 * the reason, where {@code mariadbd} or {@code mariadb-install-db} is missing.
 */
final class PrimaryAndReplica implements AutoCloseable {

    static final int PRIMARY_SERVER_ID = 1;
    static final int REPLICA_SERVER_ID = 2;
    private static final int FIRST_PORT = 4351;
    private static final int LAST_PORT = 4359;

    private final Path base;
    private final List<MariaDbProcess> servers;
    private final MariaDbProcess primary;
    private final MariaDbProcess replica;

    private PrimaryAndReplica(Path base, List<MariaDbProcess> servers) {
        this.base = base;
        this.servers = servers;
        this.primary = servers.get(0);
        this.replica = servers.get(1);
    }

    /**
     * Starts a primary and one replica, and creates the databases (replicated); skips the calling test where MariaDB's
     * binaries are missing.
     */
    static PrimaryAndReplica start(String... databases) throws Exception {
        return start(1, databases);
    }

    /** {@link #start(String...)} with {@code replicas} replicas of the primary. */
    static PrimaryAndReplica start(int replicas, String... databases) throws Exception {
        Path mariadbd = binary("mariadbd", "/usr/sbin/mariadbd");
        Path installDb = binary("mariadb-install-db", "/usr/bin/mariadb-install-db");
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "bizlock-failover")
                : Files.createTempDirectory("bizlock-failover");
        List<Integer> ports = freePorts(1 + replicas);
        List<MariaDbProcess> servers = new ArrayList<>();
        try {
            for (int i = 0; i <= replicas; i++) {
                servers.add(MariaDbProcess.start(
                        mariadbd, installDb, base.resolve("server" + (i + 1)), ports.get(i), i + 1));
            }
            PrimaryAndReplica all = new PrimaryAndReplica(base, servers);
            for (int i = 1; i <= replicas; i++) {
                servers.get(i).execute("SET GLOBAL read_only = ON");
                all.replicate(i, 0);
            }
            for (String database : databases) {
                servers.get(0).execute("CREATE DATABASE " + database);
            }
            for (int i = 1; i <= replicas; i++) {
                all.awaitCaughtUp(i, 0);
            }
            return all;
        } catch (Exception | Error ex) {
            servers.forEach(MariaDbProcess::kill);
            delete(base);
            throw ex;
        }
    }

    /** A small pool on a database of server {@code server}. */
    HikariDataSource dataSource(int server, String database) {
        return servers.get(server).dataSource(database);
    }

    /** Makes server {@code replica} replicate from server {@code source}, from its own GTID position on. */
    void replicate(int replica, int source) throws SQLException {
        MariaDbProcess to = servers.get(replica);
        to.execute("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = "
                + servers.get(source).port()
                + ", MASTER_USER = 'root', MASTER_PASSWORD = '', MASTER_USE_GTID = current_pos");
        to.execute("START SLAVE");
    }

    /** Waits until server {@code replica} has applied everything server {@code source} has committed. */
    void awaitCaughtUp(int replica, int source) throws SQLException {
        String position = servers.get(source).query("SELECT @@gtid_binlog_pos");
        MariaDbProcess to = servers.get(replica);
        String waited = to.query("SELECT MASTER_GTID_WAIT('" + position + "', 60)");
        if (!"0".equals(waited)) {
            throw new IllegalStateException("server " + (replica + 1) + " did not reach the GTID position " + position
                    + " within 60 s: " + to.query("SELECT @@gtid_slave_pos"));
        }
    }

    /** Stops server {@code replica}'s IO and SQL threads: what its source commits from now on never reaches it. */
    void stopReplication(int replica) throws SQLException {
        servers.get(replica).execute("STOP SLAVE");
    }

    /** Makes server {@code server} read-only, as a switchover does to the old primary before promoting another. */
    void demote(int server) throws SQLException {
        servers.get(server).execute("SET GLOBAL read_only = ON");
    }

    /** Kills server {@code server} (SIGKILL), as a crash would. */
    void crash(int server) {
        servers.get(server).kill();
    }

    /** Starts a crashed server {@code server} again on its data, writable and replicating from nobody. */
    void restart(int server) throws Exception {
        servers.get(server).restart();
    }

    /** Makes server {@code server} a primary, as a failover tool would: no replication, writable. */
    void promote(int server) throws SQLException {
        MariaDbProcess promoted = servers.get(server);
        promoted.execute("STOP SLAVE");
        promoted.execute("RESET SLAVE ALL");
        promoted.execute("SET GLOBAL read_only = OFF");
    }

    /** The first column of the first row of a query on server {@code server}. */
    String query(int server, String sql) throws SQLException {
        return servers.get(server).query(sql);
    }

    /** A small pool on a database of the primary. */
    HikariDataSource primaryDataSource(String database) {
        return primary.dataSource(database);
    }

    /** A small pool on a database of the replica (read-only until {@link #promoteReplica()}). */
    HikariDataSource replicaDataSource(String database) {
        return replica.dataSource(database);
    }

    /** Waits until the replica has applied everything the primary has committed. */
    void awaitReplicaCaughtUp() throws SQLException {
        awaitCaughtUp(1, 0);
    }

    /** Stops the replica's IO and SQL threads: what the primary commits from now on never reaches it. */
    void stopReplication() throws SQLException {
        stopReplication(1);
    }

    /** Kills the primary (SIGKILL), as a crash would. */
    void crashPrimary() {
        primary.kill();
    }

    /** Makes the replica a primary, as a failover tool would: no replication, writable. */
    void promoteReplica() throws SQLException {
        promote(1);
    }

    @Override
    public void close() {
        servers.forEach(MariaDbProcess::kill);
        delete(base);
    }

    private static Path binary(String name, String usual) {
        Path usualPath = Path.of(usual);
        if (Files.isExecutable(usualPath)) {
            return usualPath;
        }
        Path found = Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable)
                .findFirst()
                .orElse(null);
        assumeTrue(
                found != null,
                () -> name + " is not installed (apt-get install mariadb-server): the failover test starts a MariaDB"
                        + " primary and replica of its own");
        return found;
    }

    private static List<Integer> freePorts(int count) {
        List<Integer> ports = new ArrayList<>();
        for (int port = FIRST_PORT; port <= LAST_PORT && ports.size() < count; port++) {
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                ports.add(port);
            } catch (IOException taken) {
                // in use by something else: try the next one
            }
        }
        if (ports.size() < count) {
            throw new IllegalStateException("the failover test needs " + count + " free ports in " + FIRST_PORT + "-"
                    + LAST_PORT + " on 127.0.0.1, found " + ports);
        }
        return ports;
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            throw new UncheckedIOException("could not delete " + dir, ex);
        }
    }
}
