package io.github.bizlock.contract;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import io.github.bizlock.internal.lock.DefaultLockTemplate;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.internal.lock.LockManagerBuilder;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.ParentLink;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The child JVM of the semaphore's cross-process tests. Arguments: JDBC URL, user, password, command, mode, lock name,
 * permits, then the command's:
 *
 * <ul>
 *   <li>{@code workload threads rounds}: answers {@code READY}, waits for {@code GO}, runs {@link PermitWorkload} and
 *       answers its {@code DONE} line.
 *   <li>{@code hold count leaseMillis}: with a watchdog lease of {@code leaseMillis}, takes {@code count} permits and
 *       answers {@code HELD} and their slots and tokens ({@code slot:token} each), then holds them until killed.
 * </ul>
 */
public final class PermitWorker {

    private PermitWorker() {}

    static ChildJvm start(TestDatabase database, String... workerArgs) {
        List<String> nodes = database.nodeJdbcUrls();
        List<String> args =
                new ArrayList<>(List.of(nodes.get(1 % nodes.size()), database.username(), database.password()));
        args.addAll(List.of(workerArgs));
        return ChildJvm.builder(PermitWorker.class)
                .name("permit-worker-" + workerArgs[0])
                .args(args)
                .start();
    }

    public static void main(String[] args) {
        ParentLink.run(args, PermitWorker::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        String command = args.get(3);
        LockMode mode = LockMode.valueOf(args.get(4));
        String lockName = args.get(5);
        int permits = Integer.parseInt(args.get(6));
        int first = Integer.parseInt(args.get(7));
        int second = Integer.parseInt(args.get(8));
        try (HikariDataSource dataSource = ContractManagers.childPool(args, "permit-worker", 16)) {
            LockManagerBuilder builder = ContractManagers.builder(mode, dataSource, InstanceId.generate());
            if (command.equals("hold")) {
                builder.watchdogLease(Duration.ofMillis(second));
            }
            try (LockManager manager = builder.build()) {
                LockTemplate locks = new DefaultLockTemplate(manager, mode, Duration.ofSeconds(30), null);
                switch (command) {
                    case "workload" -> {
                        dataSource.getConnection().close();
                        parent.answer("READY");
                        parent.await("GO");
                        parent.answer(PermitWorkload.run(locks, dataSource, lockName, permits, first, second)
                                .toLine());
                    }
                    case "hold" -> {
                        StringBuilder held = new StringBuilder("HELD");
                        for (int i = 0; i < first; i++) {
                            PermitHandle permit = locks.acquirePermit(lockName, "k", permits, LockOptions.defaults());
                            held.append(' ').append(permit.slot()).append(':').append(permit.fencingToken());
                        }
                        parent.answer(held.toString());
                        parent.awaitEnd();
                    }
                    default -> throw new IllegalArgumentException("Unknown command " + command);
                }
            }
        }
    }
}
