package io.github.bizlock.contract;

import io.github.bizlock.LockAcquisitionException;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.PermitHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Threads that take permits of one semaphore over and over, in the test JVM and in {@link PermitWorker} child JVMs
 * alike. Holding a permit, a thread counts itself in as a holder in the database ({@code permit_count.holders}, whose
 * highest value is kept in {@code max_holders} and must never exceed the permits), waits a little, writes its slot's
 * fencing token, accepted only above the last one written for that slot, and counts itself out.
 */
final class PermitWorkload {

    /** Long enough that only a semaphore that lets nobody in could time out. */
    static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * What one process saw.
     *
     * @param acquired permits taken
     * @param failures acquisitions that timed out or failed
     * @param fenceRejects token writes refused because the slot's token was not above the last one written
     */
    record Result(int acquired, int failures, int fenceRejects) {

        String toLine() {
            return "DONE " + acquired + " " + failures + " " + fenceRejects;
        }

        static Result fromLine(String line) {
            String[] parts = line.split(" ");
            return new Result(Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), Integer.parseInt(parts[3]));
        }
    }

    private PermitWorkload() {}

    /** Creates the counting tables, and a fresh count and fence rows for the semaphore's name. */
    static void prepare(DataSource dataSource, String name, int permits) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("CREATE TABLE IF NOT EXISTS permit_count (name VARCHAR(100) PRIMARY KEY,"
                + " holders INT NOT NULL, max_holders INT NOT NULL)");
        jdbc.execute("CREATE TABLE IF NOT EXISTS permit_fence (name VARCHAR(100), slot INT,"
                + " last_token BIGINT NOT NULL, PRIMARY KEY (name, slot))");
        jdbc.update("DELETE FROM permit_count WHERE name = ?", name);
        jdbc.update("DELETE FROM permit_fence WHERE name = ?", name);
        jdbc.update("INSERT INTO permit_count (name, holders, max_holders) VALUES (?, 0, 0)", name);
        for (int slot = 0; slot < permits; slot++) {
            jdbc.update("INSERT INTO permit_fence (name, slot, last_token) VALUES (?, ?, 0)", name, slot);
        }
    }

    /** The most holders counted in at once, and the holders counted in now. */
    static int[] holders(DataSource dataSource, String name) {
        return new JdbcTemplate(dataSource)
                .queryForObject(
                        "SELECT max_holders, holders FROM permit_count WHERE name = ?",
                        (rs, row) -> new int[] {rs.getInt(1), rs.getInt(2)},
                        name);
    }

    static Result run(LockTemplate locks, DataSource dataSource, String name, int permits, int threads, int rounds)
            throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger fenceRejects = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Void>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                runs.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < rounds; i++) {
                                try (PermitHandle permit = locks.acquirePermit(
                                        name,
                                        "k",
                                        permits,
                                        LockOptions.defaults().waitTime(WAIT))) {
                                    acquired.incrementAndGet();
                                    hold(jdbc, name, permit, fenceRejects);
                                } catch (LockAcquisitionException ex) {
                                    failures.incrementAndGet();
                                }
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).join();
        } finally {
            pool.shutdownNow();
        }
        return new Result(acquired.get(), failures.get(), fenceRejects.get());
    }

    private static void hold(JdbcTemplate jdbc, String name, PermitHandle permit, AtomicInteger fenceRejects) {
        // Simultaneous or left-to-right assignment (MariaDB's SIMULTANEOUS_ASSIGNMENT, MySQL): the same result.
        jdbc.update(
                "UPDATE permit_count SET max_holders = GREATEST(max_holders, holders + 1), holders = holders + 1"
                        + " WHERE name = ?",
                name);
        try {
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000, 6_000_000));
            long token = permit.fencingToken();
            int written = jdbc.update(
                    "UPDATE permit_fence SET last_token = ? WHERE name = ? AND slot = ? AND last_token < ?",
                    token,
                    name,
                    permit.slot(),
                    token);
            if (written == 0) {
                fenceRejects.incrementAndGet();
            }
        } finally {
            jdbc.update("UPDATE permit_count SET holders = holders - 1 WHERE name = ?", name);
        }
    }
}
