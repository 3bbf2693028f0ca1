package io.github.bizlock.contract;

import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The exclusion fuzz: threads repeatedly lock a random key and, inside the lock, claim the key's row in
 * {@code fuzz_counter}, read its counter, sleep, and write the counter plus one. Without mutual exclusion the
 * read-sleep-write loses updates and the claim finds another holder. Every section logs the counter value it wrote and
 * its fencing token, so the log of all processes can be checked afterwards by {@link #verify}.
 */
final class FuzzWorkload {

    static final Duration ACQUIRE_WAIT = Duration.ofSeconds(120);

    /** One critical section: who wrote which counter value of which key, under which token. */
    record Entry(String key, int value, long token, String holder) {

        String toLine() {
            return "LOG " + key + " " + value + " " + token + " " + holder;
        }

        static Entry fromLine(String line) {
            String[] parts = line.split(" ");
            return new Entry(parts[1], Integer.parseInt(parts[2]), Long.parseLong(parts[3]), parts[4]);
        }
    }

    /** What one process saw. */
    record Result(int overlaps, int failures, List<Entry> log) {}

    private FuzzWorkload() {}

    static void createTables(DataSource dataSource, int keys) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // MEMORY: the counter needs no durability, and an InnoDB commit per statement would make the lock's own
        // commits a small part of the run. Statements are still atomic one by one, so read-sleep-write races as usual.
        // Galera replicates InnoDB tables only, and the processes of a cluster run write through different nodes.
        String engine = galera(jdbc) ? "InnoDB" : "MEMORY";
        jdbc.execute("CREATE TABLE IF NOT EXISTS fuzz_counter ("
                + " k VARCHAR(32) PRIMARY KEY, n INT NOT NULL, holder VARCHAR(128) NULL) ENGINE = " + engine);
        jdbc.update("DELETE FROM fuzz_counter");
        for (int i = 0; i < keys; i++) {
            jdbc.update("INSERT INTO fuzz_counter (k, n) VALUES (?, 0)", "k" + i);
        }
    }

    /**
     * Runs the sections on {@code threads} threads of this process.
     *
     * @param manager the lock manager, or {@code null} to run without any lock (to show the check can fail)
     */
    static Result run(
            @Nullable LockManager manager,
            LockMode mode,
            DataSource dataSource,
            String process,
            String lockName,
            int threads,
            int iterations,
            int keys,
            long maxSleepNanos)
            throws InterruptedException {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        List<Entry> log = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String holder = process + "-" + t;
            Thread worker = new Thread(
                    () -> {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        for (int i = 0; i < iterations; i++) {
                            String key = "k" + random.nextInt(keys);
                            try {
                                Optional<LockHandle> handle = manager == null
                                        ? Optional.empty()
                                        : manager.tryAcquire(new LockKey(lockName, key), mode, ACQUIRE_WAIT, null);
                                if (manager != null && handle.isEmpty()) {
                                    failures.incrementAndGet();
                                    continue;
                                }
                                AtomicInteger here = inside.computeIfAbsent(key, k -> new AtomicInteger());
                                if (here.incrementAndGet() != 1) {
                                    overlaps.incrementAndGet();
                                }
                                if (jdbc.update(
                                                "UPDATE fuzz_counter SET holder = ? WHERE k = ? AND holder IS NULL",
                                                holder,
                                                key)
                                        != 1) {
                                    overlaps.incrementAndGet();
                                }
                                Integer n = jdbc.queryForObject(
                                        "SELECT n FROM fuzz_counter WHERE k = ?", Integer.class, key);
                                LockSupport.parkNanos(random.nextLong(maxSleepNanos + 1));
                                jdbc.update(
                                        "UPDATE fuzz_counter SET n = ?, holder = IF(holder = ?, NULL, holder)"
                                                + " WHERE k = ?",
                                        n + 1,
                                        holder,
                                        key);
                                here.decrementAndGet();
                                long token =
                                        handle.map(LockHandle::fencingToken).orElse(0L);
                                log.add(new Entry(key, n + 1, token, holder));
                                if (handle.isPresent()) {
                                    handle.get().unlock();
                                }
                            } catch (InterruptedException ex) {
                                Thread.currentThread().interrupt();
                                return;
                            } catch (RuntimeException ex) {
                                ex.printStackTrace(System.out);
                                failures.incrementAndGet();
                            }
                        }
                    },
                    "fuzz-" + holder);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        return new Result(overlaps.get(), failures.get(), List.copyOf(log));
    }

    /** What the combined log of all processes shows. */
    record Verdict(
            int sections,
            int lostUpdates,
            int tokenInversions,
            int crossProcessHandOffs,
            Map<String, Integer> finalCounters,
            List<String> problems) {}

    /**
     * Checks the log of all processes against the counters: every key's counter equals the number of sections on it
     * (nothing lost), every counter value was written exactly once, and tokens strictly increase in counter order
     * (the order in which the sections held the lock).
     */
    static Verdict verify(DataSource dataSource, List<Entry> log) {
        Map<String, Integer> counters = new HashMap<>();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // On Galera, the other processes' last writes may not be applied on this node yet: wait until they are.
        boolean galera = galera(jdbc);
        jdbc.execute((ConnectionCallback<Void>) connection -> {
            try (Statement statement = connection.createStatement()) {
                if (galera) {
                    statement.execute("SET SESSION wsrep_sync_wait = 1");
                }
                try (ResultSet rs = statement.executeQuery("SELECT k, n FROM fuzz_counter")) {
                    while (rs.next()) {
                        counters.put(rs.getString(1), rs.getInt(2));
                    }
                }
                if (galera) {
                    statement.execute("SET SESSION wsrep_sync_wait = DEFAULT");
                }
            }
            return null;
        });
        Map<String, List<Entry>> byKey = new HashMap<>();
        for (Entry entry : log) {
            byKey.computeIfAbsent(entry.key(), k -> new ArrayList<>()).add(entry);
        }
        List<String> problems = new ArrayList<>();
        int lost = 0;
        int inversions = 0;
        int handOffs = 0;
        for (Map.Entry<String, List<Entry>> keyLog : byKey.entrySet()) {
            String key = keyLog.getKey();
            List<Entry> entries = keyLog.getValue();
            entries.sort(Comparator.comparingInt(Entry::value));
            int counter = counters.getOrDefault(key, 0);
            if (counter != entries.size()) {
                lost += entries.size() - counter;
                problems.add(key + ": " + entries.size() + " sections but the counter is " + counter);
            }
            for (int i = 0; i < entries.size(); i++) {
                Entry entry = entries.get(i);
                if (entry.value() != i + 1) {
                    problems.add(key + ": counter value " + (i + 1) + " was written as " + entry.value()
                            + " (a value written twice is a lost update)");
                    break;
                }
                if (i > 0) {
                    Entry previous = entries.get(i - 1);
                    if (entry.token() <= previous.token()) {
                        inversions++;
                        if (inversions <= 5) {
                            problems.add(key + ": token " + entry.token() + " of value " + entry.value()
                                    + " is not above token " + previous.token() + " of value " + previous.value());
                        }
                    }
                    if (!process(entry).equals(process(previous))) {
                        handOffs++;
                    }
                }
            }
        }
        return new Verdict(log.size(), lost, inversions, handOffs, counters, problems);
    }

    /** Whether the server is a node of a Galera cluster (MySQL has no {@code wsrep_on}; MariaDB says OFF). */
    static boolean galera(JdbcTemplate jdbc) {
        return jdbc.query(
                "SHOW GLOBAL VARIABLES LIKE 'wsrep_on'",
                rs -> rs.next() && rs.getString(2).equals("ON"));
    }

    private static String process(Entry entry) {
        return entry.holder().substring(0, entry.holder().lastIndexOf('-'));
    }
}
