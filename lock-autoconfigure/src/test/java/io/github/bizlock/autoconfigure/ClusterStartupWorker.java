package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * The child JVM of {@link ClusterStartupTest}: one application instance that starts the starter's context again and
 * again against one node of the cluster. Arguments: the node's JDBC URL up to the database name (ending in {@code /}),
 * user, password. For each line {@code GO <database>} on stdin it starts a context on that database (fresh, so the
 * lock tables' migration runs), takes and frees a LEASE lock, closes the context, and prints {@code STARTED} or
 * {@code FAILED <cause>}.
 */
public final class ClusterStartupWorker {

    private ClusterStartupWorker() {}

    public static void main(String[] args) throws Exception {
        String urlPrefix = args[0];
        String query = args[1];
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        BizLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.username=" + args[2],
                        "spring.datasource.password=" + (args.length > 3 ? args[3] : ""),
                        "bizlock.housekeeping.enabled=false",
                        "bizlock.wait-time=30s");
        System.out.println("READY");
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = stdin.readLine(); line != null && line.startsWith("GO "); line = stdin.readLine()) {
            String database = line.substring(3);
            long started = System.nanoTime();
            runner.withPropertyValues("spring.datasource.url=" + urlPrefix + database + "?" + query)
                    .run(context -> {
                        Throwable failure = context.getStartupFailure();
                        if (failure != null) {
                            Throwable root = failure;
                            while (root.getCause() != null) {
                                root = root.getCause();
                            }
                            System.out.println("FAILED " + root.toString().replace('\n', ' '));
                            return;
                        }
                        try (LockHandle ignored =
                                context.getBean(LockTemplate.class).acquire("startup", "1")) {
                            System.out.println("STARTED " + (System.nanoTime() - started) / 1_000_000);
                        }
                    });
            System.out.flush();
        }
        System.exit(0);
    }
}
