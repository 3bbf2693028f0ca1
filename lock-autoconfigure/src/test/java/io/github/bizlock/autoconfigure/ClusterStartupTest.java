package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import io.github.bizlock.test.TestDatabases;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Instances that start at once on different nodes of a Galera cluster all start (issue 19: with Flyway's node-local
 * lock alone, one in three tries failed with 1213). Three JVMs, one per node, start the starter's context together
 * on a fresh database, again and again; every start must succeed.
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIf("onCluster")
// A child JVM that stops answering must fail the run, not hang CI: the test thread blocks reading its output.
@Timeout(value = 5, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ClusterStartupTest {

    private static final int ROUNDS = 10;

    static boolean onCluster() {
        return TestDatabases.server().isCluster();
    }

    @Test
    void threeInstancesStartingAtOnceOnThreeNodesAllStart(TestDatabase database) throws Exception {
        List<Worker> workers = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<String> databases = new ArrayList<>();
        try {
            for (String nodeUrl : database.nodeJdbcUrls()) {
                workers.add(Worker.start(nodeUrl, database.username(), database.password()));
            }
            for (Worker worker : workers) {
                worker.await("READY");
            }
            List<Long> slowestPerRound = new ArrayList<>();
            for (int round = 1; round <= ROUNDS; round++) {
                String name = "bizlock_start_"
                        + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
                execute(database, "CREATE DATABASE " + name);
                databases.add(name);
                for (Worker worker : workers) {
                    worker.send("GO " + name);
                }
                long slowest = 0;
                for (int node = 0; node < workers.size(); node++) {
                    String result = workers.get(node).await("");
                    if (result.startsWith("STARTED ")) {
                        slowest = Math.max(slowest, Long.parseLong(result.substring(8)));
                    } else {
                        failures.add("round " + round + ", node " + (node + 1) + ": " + result);
                    }
                }
                slowestPerRound.add(slowest);
            }
            System.out.printf(
                    "cluster start-up: %d rounds x %d instances on %d nodes, %d failures; slowest start of each round"
                            + " (ms): %s%n",
                    ROUNDS, workers.size(), workers.size(), failures.size(), slowestPerRound);
            assertThat(failures).isEmpty();
        } finally {
            workers.forEach(Worker::close);
            for (String name : databases) {
                execute(database, "DROP DATABASE IF EXISTS " + name);
            }
        }
    }

    private static void execute(TestDatabase database, String sql) throws SQLException {
        try (Connection connection =
                        DriverManager.getConnection(database.jdbcUrl(), database.username(), database.password());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** One instance's JVM ({@link ClusterStartupWorker}). */
    private record Worker(Process process, BufferedReader out, Writer in, List<String> transcript) {

        static Worker start(String nodeUrl, String user, String password) throws IOException {
            // The node's URL names the test class's database: keep everything up to its name, and the query.
            int slash = nodeUrl.indexOf('/', "jdbc:mysql://".length());
            int question = nodeUrl.indexOf('?');
            List<String> command = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m",
                    "-cp",
                    System.getProperty("java.class.path"),
                    ClusterStartupWorker.class.getName(),
                    nodeUrl.substring(0, slash + 1),
                    question < 0 ? "" : nodeUrl.substring(question + 1),
                    user,
                    password));
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            return new Worker(
                    process,
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)),
                    new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8),
                    new ArrayList<>());
        }

        /** The next line that is READY, STARTED or FAILED (logging is kept for the failure message). */
        String await(String expected) throws IOException {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith("READY") || line.startsWith("STARTED") || line.startsWith("FAILED")) {
                    return line;
                }
                transcript.add(line);
            }
            throw new AssertionError(
                    "The instance exited before printing " + expected + ":\n" + String.join("\n", transcript));
        }

        void send(String line) throws IOException {
            in.write(line + "\n");
            in.flush();
        }

        void close() {
            try {
                in.close();
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException ex) {
                // killed below
            }
            process.destroyForcibly();
        }
    }
}
