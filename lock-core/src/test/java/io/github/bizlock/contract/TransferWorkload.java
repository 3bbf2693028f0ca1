package io.github.bizlock.contract;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockOptions;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.MultiLockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToLongFunction;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Transfers between two accounts in both directions under a multi-key lock, from several threads, in the test JVM and
 * in {@link TransferWorker} child JVMs alike. Each transfer asks for its keys in its own direction (from, to), so half
 * of them ask in the opposite order of the others. Under the lock it counts itself in as a holder of each account
 * ({@code holders}, which must read 1), reads both balances, waits a little, and writes them back with each key's
 * fencing token, accepted only above the last one written ({@code fence < ?}): a lost update, an overlap or a token
 * that did not increase shows up in the counts.
 */
final class TransferWorkload {

    static final String FROM = "A";
    static final String TO = "B";
    static final long OPENING_BALANCE = 1_000_000;

    /** Long enough that a deadlock, not contention, is the only way to time out. */
    static final Duration WAIT = Duration.ofSeconds(60);

    /**
     * What one process saw.
     *
     * @param transfers transfers done
     * @param failures transfers whose lock call or work failed (a timeout, a deadlock reported by the server)
     * @param overlaps times a holder found another holder of one of its accounts
     * @param fenceRejects writes refused because the key's token was not above the last one written
     */
    record Result(int transfers, int failures, int overlaps, int fenceRejects) {

        String toLine() {
            return "DONE " + transfers + " " + failures + " " + overlaps + " " + fenceRejects;
        }

        static Result fromLine(String line) {
            String[] parts = line.split(" ");
            return new Result(
                    Integer.parseInt(parts[1]),
                    Integer.parseInt(parts[2]),
                    Integer.parseInt(parts[3]),
                    Integer.parseInt(parts[4]));
        }
    }

    private TransferWorkload() {}

    /** Creates the accounts table with both accounts at their opening balance. */
    static void createAccounts(DataSource dataSource) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        jdbc.execute("DROP TABLE IF EXISTS multi_account");
        jdbc.execute("CREATE TABLE multi_account (id VARCHAR(16) PRIMARY KEY, balance BIGINT NOT NULL,"
                + " holders INT NOT NULL, fence BIGINT NOT NULL) ENGINE = InnoDB");
        jdbc.update(
                "INSERT INTO multi_account VALUES (?, ?, 0, 0), (?, ?, 0, 0)",
                FROM,
                OPENING_BALANCE,
                TO,
                OPENING_BALANCE);
    }

    /** The sum of the balances, and of the holders still counted in. */
    static long[] totals(DataSource dataSource) {
        return new JdbcTemplate(dataSource)
                .queryForObject("SELECT SUM(balance), SUM(holders) FROM multi_account", (rs, row) ->
                        new long[] {rs.getLong(1), rs.getLong(2)});
    }

    static Result run(LockTemplate locks, DataSource dataSource, String name, int threads, int transfersPerThread)
            throws Exception {
        return run(locks, dataSource, name, threads, transfersPerThread, true, WAIT);
    }

    /**
     * @param together whether each transfer takes its accounts with one {@link LockTemplate#acquireAll} call, or
     *     (the negative control) one after the other in its own direction, as a list-order multi-lock does
     * @param wait each call's wait time
     */
    static Result run(
            LockTemplate locks,
            DataSource dataSource,
            String name,
            int threads,
            int transfersPerThread,
            boolean together,
            Duration wait)
            throws Exception {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        AtomicInteger transfers = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger fenceRejects = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < transfersPerThread; i++) {
                        boolean forward = (thread + i) % 2 == 0;
                        String from = forward ? FROM : TO;
                        String to = forward ? TO : FROM;
                        LockOptions options = LockOptions.defaults().waitTime(wait);
                        try {
                            if (together) {
                                try (MultiLockHandle accounts = locks.acquireAll(name, List.of(from, to), options)) {
                                    transfer(jdbc, accounts::fencingToken, from, to, 1 + i % 7, overlaps, fenceRejects);
                                }
                            } else {
                                try (LockHandle first = locks.acquire(name, from, options);
                                        LockHandle second = locks.acquire(name, to, options)) {
                                    ToLongFunction<String> tokens =
                                            key -> key.equals(from) ? first.fencingToken() : second.fencingToken();
                                    transfer(jdbc, tokens, from, to, 1 + i % 7, overlaps, fenceRejects);
                                }
                            }
                            transfers.incrementAndGet();
                        } catch (RuntimeException ex) {
                            failures.incrementAndGet();
                            if (together) {
                                System.err.println("transfer failed: " + ex);
                            }
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
        return new Result(transfers.get(), failures.get(), overlaps.get(), fenceRejects.get());
    }

    private static void transfer(
            JdbcTemplate jdbc,
            ToLongFunction<String> tokens,
            String from,
            String to,
            long amount,
            AtomicInteger overlaps,
            AtomicInteger fenceRejects) {
        for (String account : List.of(from, to)) {
            jdbc.update("UPDATE multi_account SET holders = holders + 1 WHERE id = ?", account);
            Integer holders =
                    jdbc.queryForObject("SELECT holders FROM multi_account WHERE id = ?", Integer.class, account);
            if (holders == null || holders != 1) {
                overlaps.incrementAndGet();
            }
        }
        long fromBalance = balance(jdbc, from);
        long toBalance = balance(jdbc, to);
        LockSupport.parkNanos(200_000); // widens the window a second holder would have to overwrite these reads
        write(jdbc, tokens, from, fromBalance - amount, fenceRejects);
        write(jdbc, tokens, to, toBalance + amount, fenceRejects);
        for (String account : List.of(from, to)) {
            jdbc.update("UPDATE multi_account SET holders = holders - 1 WHERE id = ?", account);
        }
    }

    private static long balance(JdbcTemplate jdbc, String account) {
        Long balance = jdbc.queryForObject("SELECT balance FROM multi_account WHERE id = ?", Long.class, account);
        return balance == null ? 0 : balance;
    }

    private static void write(
            JdbcTemplate jdbc,
            ToLongFunction<String> tokens,
            String account,
            long balance,
            AtomicInteger fenceRejects) {
        long token = tokens.applyAsLong(account);
        int written = jdbc.update(
                "UPDATE multi_account SET balance = ?, fence = ? WHERE id = ? AND fence < ?",
                balance,
                token,
                account,
                token);
        if (written != 1) {
            fenceRejects.incrementAndGet();
        }
    }
}
