package io.github.bizlock.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A 3-node MariaDB Galera cluster on 127.0.0.1, run by the project's script {@code lock-test-support/galera/cluster.sh}.
 * A cluster whose three nodes already answer (started by CI or by hand with {@code cluster.sh start}) is reused and
 * left running; otherwise this JVM starts it and stops it when it exits. Tests get node 1 as their server; tests that
 * spread JVMs or threads over the nodes get each node's URL ({@link #nodeJdbcUrls}).
 */
final class GaleraCluster implements DatabaseServer {

    static final String SCRIPT = "lock-test-support/galera/cluster.sh";
    static final String SCRIPT_VARIABLE = "BIZLOCK_GALERA_SCRIPT";
    static final String PORT_VARIABLE = "BIZLOCK_GALERA_PORT";
    private static final int NODES = 3;
    private static final long START_TIMEOUT_SECONDS = 300;

    private final List<String> nodes;
    private final String origin;

    private GaleraCluster(List<String> nodes, String origin) {
        this.nodes = nodes;
        this.origin = origin;
    }

    static GaleraCluster startOrReuse() {
        String port = System.getProperty(PORT_VARIABLE, System.getenv(PORT_VARIABLE));
        int first = port == null || port.isBlank() ? 4311 : Integer.parseInt(port.trim());
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            nodes.add("127.0.0.1:" + (first + i));
        }
        if (nodes.stream().allMatch(GaleraCluster::synced)) {
            return new GaleraCluster(nodes, "Galera, 3 nodes at " + String.join(",", nodes) + ", reused");
        }
        Path script = script();
        run(script, "start");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> run(script, "stop"), "bizlock-galera-stop"));
        return new GaleraCluster(nodes, "Galera, 3 nodes at " + String.join(",", nodes) + ", started by this JVM");
    }

    /** Whether the node answers and is a synced member of a primary component. */
    private static boolean synced(String node) {
        try (Connection connection =
                        DriverManager.getConnection(JdbcUrls.mysql(node, "", "connectTimeout=2000"), "root", "");
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'wsrep_local_state_comment'")) {
            return row.next() && row.getString(2).equals("Synced");
        } catch (SQLException ex) {
            return false;
        }
    }

    /** The script: {@code BIZLOCK_GALERA_SCRIPT}, else found from the working directory up (Maven runs in a module). */
    private static Path script() {
        String configured = System.getProperty(SCRIPT_VARIABLE, System.getenv(SCRIPT_VARIABLE));
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(SCRIPT))) {
                return dir.resolve(SCRIPT);
            }
        }
        throw new IllegalStateException("BIZLOCK_TEST_DB=galera found no cluster answering and cannot find " + SCRIPT
                + " above " + Path.of("").toAbsolutePath() + " to start one; set " + SCRIPT_VARIABLE
                + " to the script's path, or start the cluster with 'lock-test-support/galera/cluster.sh start'");
    }

    /** Runs a command of the cluster script, e.g. {@code kill-node 3}; returns what it printed. */
    static String run(String... command) {
        return run(script(), command);
    }

    private static String run(Path script, String... command) {
        List<String> line = new ArrayList<>(List.of("bash", script.toString()));
        line.addAll(List.of(command));
        try {
            Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(START_TIMEOUT_SECONDS, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(line + " failed: " + output.trim());
            }
            System.out.println("bizlock galera: " + output.trim());
            return output;
        } catch (IOException ex) {
            throw new UncheckedIOException("Could not run " + script, ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + line, ex);
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return JdbcUrls.mysql(nodes.get(0), database, null);
    }

    @Override
    public List<String> nodeJdbcUrls(String database) {
        return nodes.stream().map(node -> JdbcUrls.mysql(node, database, null)).toList();
    }

    /**
     * A Connector/J failover URL over all nodes, {@code firstNode} first: connections go to that node while it answers,
     * and to the next one that does when it is down. Writable after a failover ({@code failOverReadOnly=false}).
     */
    @Override
    public String failoverJdbcUrl(String database, int firstNode) {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            hosts.add(nodes.get((firstNode - 1 + i) % nodes.size()));
        }
        return JdbcUrls.mysql(String.join(",", hosts), database, "failOverReadOnly=false&connectTimeout=2000");
    }

    @Override
    public String username() {
        return "root";
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public String origin() {
        return origin;
    }
}
