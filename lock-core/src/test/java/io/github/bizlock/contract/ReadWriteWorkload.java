package io.github.bizlock.contract;

import io.github.bizlock.LockAccess;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.internal.jdbc.session.SessionLocks;
import io.github.bizlock.service.LockService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Readers and writers of one key under its read-write lock, from several threads, in the test JVM and in
 * {@link ReadWriteWorker} child JVMs alike. Under the lock each counts itself in ({@code readers} or {@code writers} of
 * {@code rw_probe}) and reads the other count: a writer must find itself alone, a reader no writer. A writer's token
 * must be above the last one written and above every reader's, which must be at least the last writer's.
 */
final class ReadWriteWorkload {

    /** Long enough that only a lock that is never granted times out. */
    static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * What one process saw.
     *
     * @param reads read holds
     * @param writes write holds
     * @param failures lock calls or work that failed
     * @param overlaps times a writer was not alone, or a reader found a writer
     * @param tokenErrors tokens out of order: a writer's not above every earlier one, a reader's below the last writer's
     */
    record Result(int reads, int writes, int failures, int overlaps, int tokenErrors) {

        String toLine() {
            return "DONE " + reads + " " + writes + " " + failures + " " + overlaps + " " + tokenErrors;
        }

        static Result fromLine(String line) {
            String[] parts = line.split(" ");
            return new Result(
                    Integer.parseInt(parts[1]),
                    Integer.parseInt(parts[2]),
                    Integer.parseInt(parts[3]),
                    Integer.parseInt(parts[4]),
                    Integer.parseInt(parts[5]));
        }
    }

    private ReadWriteWorkload() {}

    /** The lock service of one instance, as the starter assembles it, with read locks in LEASE and ROW mode. */
    static LockService service(DataSource dataSource, LockMode mode, Duration watchdogLease) {
        return LockService.builder(dataSource)
                .defaultMode(mode)
                .sessionDataSource(SessionLocks.dedicated(dataSource))
                .waitTime(WAIT)
                .watchdogLease(watchdogLease)
                .housekeeping(false)
                .build();
    }

    static void createProbe(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("DROP TABLE IF EXISTS rw_probe");
        jdbc.execute("CREATE TABLE rw_probe (id INT PRIMARY KEY, readers INT NOT NULL, writers INT NOT NULL,"
                + " fence BIGINT NOT NULL, max_read_token BIGINT NOT NULL) ENGINE = InnoDB");
        jdbc.update("INSERT INTO rw_probe VALUES (1, 0, 0, 0, 0)");
    }

    /** Runs {@code ops} holds per thread, one in five a write, each a few milliseconds long. */
    static Result run(LockTemplate locks, DataSource dataSource, String name, int threads, int ops) throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        AtomicInteger reads = new AtomicInteger();
        AtomicInteger writes = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger tokenErrors = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < ops; i++) {
                        boolean write = ThreadLocalRandom.current().nextInt(5) == 0;
                        LockOptions options = LockOptions.defaults()
                                .waitTime(WAIT)
                                .access(write ? LockAccess.WRITE : LockAccess.READ);
                        try (LockHandle lock = locks.acquire(name, "probe", options)) {
                            if (write) {
                                write(jdbc, lock.fencingToken(), overlaps, tokenErrors);
                                writes.incrementAndGet();
                            } else {
                                read(jdbc, lock.fencingToken(), overlaps, tokenErrors);
                                reads.incrementAndGet();
                            }
                        } catch (RuntimeException ex) {
                            failures.incrementAndGet();
                            System.err.println("read-write hold failed: " + ex);
                        }
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return new Result(reads.get(), writes.get(), failures.get(), overlaps.get(), tokenErrors.get());
    }

    private static void write(JdbcTemplate jdbc, long token, AtomicInteger overlaps, AtomicInteger tokenErrors) {
        jdbc.update("UPDATE rw_probe SET writers = writers + 1 WHERE id = 1");
        try {
            long[] seen = jdbc.queryForObject(
                    "SELECT readers, writers, fence, max_read_token FROM rw_probe WHERE id = 1",
                    (rs, row) -> new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)});
            if (seen[0] != 0 || seen[1] != 1) {
                overlaps.incrementAndGet();
            }
            if (token <= seen[2] || token <= seen[3]) {
                tokenErrors.incrementAndGet();
            }
            jdbc.update("UPDATE rw_probe SET fence = GREATEST(fence, ?) WHERE id = 1", token);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        } finally {
            jdbc.update("UPDATE rw_probe SET writers = writers - 1 WHERE id = 1");
        }
    }

    private static void read(JdbcTemplate jdbc, long token, AtomicInteger overlaps, AtomicInteger tokenErrors) {
        jdbc.update(
                "UPDATE rw_probe SET readers = readers + 1, max_read_token = GREATEST(max_read_token, ?) WHERE id = 1",
                token);
        try {
            long[] seen = jdbc.queryForObject("SELECT writers, fence FROM rw_probe WHERE id = 1", (rs, row) ->
                    new long[] {rs.getLong(1), rs.getLong(2)});
            if (seen[0] != 0) {
                overlaps.incrementAndGet();
            }
            if (token < seen[1]) {
                tokenErrors.incrementAndGet();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        } finally {
            jdbc.update("UPDATE rw_probe SET readers = readers - 1 WHERE id = 1");
        }
    }
}
