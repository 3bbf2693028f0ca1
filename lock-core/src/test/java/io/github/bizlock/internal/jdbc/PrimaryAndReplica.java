package io.github.bizlock.internal.jdbc;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two MariaDB servers of the test's own, a primary and a replica of it (binlog, GTID, {@code MASTER_USE_GTID}), on
 * loopback ports 4351-4359, with their data in a temporary directory (under {@code /dev/shm} when there is one). They
 * run as processes of this JVM, started with {@code --no-defaults} so no system option file is read; {@link #close()}
 * stops them (by their process handles) and deletes the data. Tests that need them are skipped, with the reason, where
 * {@code mariadbd} or {@code mariadb-install-db} is missing.
 */
final class PrimaryAndReplica implements AutoCloseable {

    static final int PRIMARY_SERVER_ID = 1;
    static final int REPLICA_SERVER_ID = 2;
    private static final int FIRST_PORT = 4351;
    private static final int LAST_PORT = 4359;

    private final Path base;
    private final Server primary;
    private final Server replica;

    private PrimaryAndReplica(Path base, Server primary, Server replica) {
        this.base = base;
        this.primary = primary;
        this.replica = replica;
    }

    /**
     * Starts both servers and the replication, and creates the databases (replicated); skips the calling test where
     * MariaDB's binaries are missing.
     */
    static PrimaryAndReplica start(String... databases) throws Exception {
        Path mariadbd = binary("mariadbd", "/usr/sbin/mariadbd");
        Path installDb = binary("mariadb-install-db", "/usr/bin/mariadb-install-db");
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "bizlock-failover")
                : Files.createTempDirectory("bizlock-failover");
        List<Integer> ports = freePorts(2);
        Server primary = null;
        Server replica = null;
        try {
            primary = Server.start(mariadbd, installDb, base.resolve("primary"), ports.get(0), PRIMARY_SERVER_ID);
            replica = Server.start(mariadbd, installDb, base.resolve("replica"), ports.get(1), REPLICA_SERVER_ID);
            replica.execute("SET GLOBAL read_only = ON");
            replica.execute("CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + primary.port
                    + ", MASTER_USER = 'root', MASTER_PASSWORD = '', MASTER_USE_GTID = slave_pos");
            replica.execute("START SLAVE");
            for (String database : databases) {
                primary.execute("CREATE DATABASE " + database);
            }
            PrimaryAndReplica pair = new PrimaryAndReplica(base, primary, replica);
            pair.awaitReplicaCaughtUp();
            return pair;
        } catch (Exception | Error ex) {
            for (Server server : new Server[] {replica, primary}) {
                if (server != null) {
                    server.kill();
                }
            }
            delete(base);
            throw ex;
        }
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
        String position = primary.query("SELECT @@gtid_binlog_pos");
        String waited = replica.query("SELECT MASTER_GTID_WAIT('" + position + "', 60)");
        if (!"0".equals(waited)) {
            throw new IllegalStateException("the replica did not reach the primary's GTID position " + position
                    + " within 60 s: " + replica.query("SELECT @@gtid_slave_pos"));
        }
    }

    /** Stops the replica's IO and SQL threads: what the primary commits from now on never reaches it. */
    void stopReplication() throws SQLException {
        replica.execute("STOP SLAVE");
    }

    /** Kills the primary (SIGKILL), as a crash would. */
    void crashPrimary() {
        primary.kill();
    }

    /** Makes the replica a primary, as a failover tool would: no replication, writable. */
    void promoteReplica() throws SQLException {
        replica.execute("STOP SLAVE");
        replica.execute("RESET SLAVE ALL");
        replica.execute("SET GLOBAL read_only = OFF");
    }

    @Override
    public void close() {
        replica.kill();
        primary.kill();
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

    /** One mariadbd process of this JVM. */
    private static final class Server {

        private final Process process;
        private final int port;
        private final Path dir;

        private Server(Process process, int port, Path dir) {
            this.process = process;
            this.port = port;
            this.dir = dir;
        }

        static Server start(Path mariadbd, Path installDb, Path dir, int port, int serverId) throws Exception {
            Path data = dir.resolve("data");
            Files.createDirectories(dir);
            String user = System.getProperty("user.name");
            run(
                    List.of(
                            installDb.toString(),
                            "--no-defaults",
                            "--user=" + user,
                            "--datadir=" + data,
                            "--auth-root-authentication-method=normal",
                            "--skip-test-db"),
                    dir.resolve("install.log"));
            Process process = new ProcessBuilder(
                            mariadbd.toString(),
                            "--no-defaults",
                            "--user=" + user,
                            "--datadir=" + data,
                            "--socket=" + dir.resolve("mysqld.sock"),
                            "--pid-file=" + dir.resolve("mysqld.pid"),
                            "--log-error=" + dir.resolve("error.log"),
                            "--port=" + port,
                            "--bind-address=127.0.0.1",
                            "--server-id=" + serverId,
                            "--log-bin=" + dir.resolve("binlog"),
                            "--log-slave-updates",
                            "--innodb-buffer-pool-size=32M",
                            "--innodb-log-file-size=16M",
                            "--performance-schema=OFF")
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
            Server server = new Server(process, port, dir);
            server.awaitAnswering();
            return server;
        }

        private static void run(List<String> command, Path log) throws IOException, InterruptedException {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(command.get(0) + " failed: " + Files.readString(log));
            }
        }

        private void awaitAnswering() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try (Connection connection = connect("")) {
                    return;
                } catch (SQLException notYet) {
                    if (!process.isAlive() || System.nanoTime() > deadline) {
                        Path log = dir.resolve("error.log");
                        throw new IllegalStateException("mariadbd on port " + port + " did not start: "
                                + (Files.exists(log) ? Files.readString(log) : "no error log"));
                    }
                    Thread.sleep(100);
                }
            }
        }

        Connection connect(String database) throws SQLException {
            return DriverManager.getConnection(url(database), "root", "");
        }

        private String url(String database) {
            return "jdbc:mysql://127.0.0.1:" + port + "/" + database
                    + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&connectTimeout=2000";
        }

        HikariDataSource dataSource(String database) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(url(database));
            config.setUsername("root");
            config.setPassword("");
            config.setMaximumPoolSize(4);
            config.setMinimumIdle(0);
            return new HikariDataSource(config);
        }

        void execute(String sql) throws SQLException {
            try (Connection connection = connect("");
                    Statement statement = connection.createStatement()) {
                statement.execute(sql);
            }
        }

        String query(String sql) throws SQLException {
            try (Connection connection = connect("");
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(sql)) {
                row.next();
                return row.getString(1);
            }
        }

        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
