package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/**
 * The child JVM of {@link ClusterStartupTest}: one application instance that starts the starter's context again and
 * again against one node of the cluster. Arguments: the node's JDBC URL up to the database name (ending in {@code /}),
 * the URL's query, user, password. Answers {@code READY}; for each command {@code GO <database>} it starts a context on
 * that database (fresh, so the lock tables' migration runs), takes and frees a LEASE lock, closes the context, and
 * answers {@code STARTED millis} or {@code FAILED <cause>}.
 */
public final class ClusterStartupWorker {

    private ClusterStartupWorker() {}

    /** Starts an instance on the node at {@code nodeUrl} (whose database name it replaces by each round's). */
    static ChildJvm start(String nodeUrl, String user, String password) {
        // The node's URL names the test class's database: keep everything up to its name, and the query.
        int slash = nodeUrl.indexOf('/', "jdbc:mysql://".length());
        int question = nodeUrl.indexOf('?');
        return ChildJvm.builder(ClusterStartupWorker.class)
                .name("cluster-startup-" + nodeUrl.substring("jdbc:mysql://".length(), slash))
                .args(
                        nodeUrl.substring(0, slash + 1),
                        question < 0 ? "" : nodeUrl.substring(question + 1),
                        user,
                        password)
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, ClusterStartupWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        String urlPrefix = args.get(0);
        String query = args.get(1);
        ApplicationContextRunner runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        BizLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.username=" + args.get(2),
                        "spring.datasource.password=" + (args.size() > 3 ? args.get(3) : ""),
                        "bizlock.housekeeping.enabled=false",
                        "bizlock.wait-time=30s");
        parent.answer("READY");
        parent.serve(command -> {
            if (!command.startsWith("GO ")) {
                throw new IllegalArgumentException("Unknown command " + command);
            }
            String database = command.substring(3);
            long started = System.nanoTime();
            runner.withPropertyValues("spring.datasource.url=" + urlPrefix + database + "?" + query)
                    .run(context -> {
                        Throwable failure = context.getStartupFailure();
                        if (failure != null) {
                            Throwable root = failure;
                            while (root.getCause() != null) {
                                root = root.getCause();
                            }
                            parent.answer("FAILED " + root.toString().replace('\n', ' '));
                            return;
                        }
                        try (LockHandle ignored =
                                context.getBean(LockTemplate.class).acquire("startup", "1")) {
                            parent.answer("STARTED " + (System.nanoTime() - started) / 1_000_000);
                        }
                    });
        });
    }
}
