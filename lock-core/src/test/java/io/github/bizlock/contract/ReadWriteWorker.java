package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.service.LockService;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.List;

/**
 * The child JVM of the read-write lock's cross-process tests. Arguments: JDBC URL, user, password, mode, lock name,
 * watchdog lease (ms), then a command: {@code read} takes the read lock of key {@code probe}, answers
 * {@code ACQUIRED <token>} and holds it until killed; {@code mix <threads> <ops>} answers {@code READY}, waits for
 * {@code GO}, runs {@link ReadWriteWorkload} and answers its {@code DONE} line.
 */
public final class ReadWriteWorker {

    private ReadWriteWorker() {}

    static ChildJvm start(TestDatabase database, LockMode mode, String lockName, Duration lease, String... command) {
        List<String> nodes = database.nodeJdbcUrls();
        List<String> args = new java.util.ArrayList<>(List.of(
                nodes.get(1 % nodes.size()),
                database.username(),
                database.password(),
                mode.name(),
                lockName,
                String.valueOf(lease.toMillis())));
        args.addAll(List.of(command));
        return ChildJvm.builder(ReadWriteWorker.class)
                .name("read-write-worker")
                .args(args)
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, ReadWriteWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args.get(0));
        config.setUsername(args.get(1));
        config.setPassword(args.get(2));
        config.setMaximumPoolSize(16);
        config.setPoolName("read-write-worker");
        LockMode mode = LockMode.valueOf(args.get(3));
        String lockName = args.get(4);
        Duration lease = Duration.ofMillis(Long.parseLong(args.get(5)));
        try (HikariDataSource dataSource = new HikariDataSource(config);
                LockService service = ReadWriteWorkload.service(dataSource, mode, lease)) {
            if (args.get(6).equals("read")) {
                LockHandle read = service.template()
                        .acquire(lockName, "probe", LockOptions.defaults().access(LockAccess.READ));
                parent.answer("ACQUIRED " + read.fencingToken());
                Thread.sleep(Long.MAX_VALUE); // held until the parent kills this process
                return;
            }
            parent.answer("READY");
            parent.await("GO");
            parent.answer(ReadWriteWorkload.run(
                            service.template(),
                            dataSource,
                            lockName,
                            Integer.parseInt(args.get(7)),
                            Integer.parseInt(args.get(8)))
                    .toLine());
        }
    }
}
