package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.List;

/**
 * The child JVM of the multi-key lock's cross-process test. Arguments: JDBC URL, user, password, mode, lock name,
 * threads, transfers per thread. Answers {@code READY}, waits for {@code GO}, runs {@link TransferWorkload}, answers its
 * {@code DONE} line and exits.
 */
public final class TransferWorker {

    private TransferWorker() {}

    static ChildJvm start(TestDatabase database, LockMode mode, String lockName, int threads, int transfers) {
        List<String> nodes = database.nodeJdbcUrls();
        return ChildJvm.builder(TransferWorker.class)
                .name("transfer-worker")
                .args(
                        nodes.get(1 % nodes.size()),
                        database.username(),
                        database.password(),
                        mode.name(),
                        lockName,
                        String.valueOf(threads),
                        String.valueOf(transfers))
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, TransferWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        LockMode mode = LockMode.valueOf(args.get(3));
        String lockName = args.get(4);
        int threads = Integer.parseInt(args.get(5));
        int transfers = Integer.parseInt(args.get(6));
        try (HikariDataSource dataSource = ContractManagers.childPool(args, "transfer-worker", 16);
                LockManager manager = ContractManagers.builder(mode, dataSource, InstanceId.generate())
                        .build()) {
            LockTemplate locks = new DefaultLockTemplate(manager, mode, Duration.ofSeconds(10), null);
            dataSource.getConnection().close();
            parent.answer("READY");
            parent.await("GO");
            parent.answer(TransferWorkload.run(locks, dataSource, lockName, threads, transfers)
                    .toLine());
        }
    }
}
