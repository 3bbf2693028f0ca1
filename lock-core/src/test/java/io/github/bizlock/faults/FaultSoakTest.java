package io.github.bizlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockMode;
import io.github.bizlock.contract.ContractManagers;
import io.github.bizlock.test.ChildJvm;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The soak: 3 JVMs × 16 threads lock 16 keys of one mode until a million acquisitions (or
 * {@code bizlock.soak.acquisitions}) while faults hit one JVM after another on a schedule, every 10 s: SIGKILL,
 * SIGSTOP past the lease, SIGTERM, {@code KILL} of one of its connections, a TCP reset of its connections, a half-open
 * network past two leases, the database unreachable. Each JVM talks to the database through a proxy of its own
 * ({@link FreezingProxy}); a JVM killed or stopped by SIGTERM is started again. {@link SoakWorker} checks every hold
 * with fenced writes and counts violations: someone else held the lock while a holder was not told. Prints a result
 * table. With {@code bizlock.soak.permits} above 0, each key is a semaphore of that many permits and the JVMs take permits
 * of it: each permit claims its slot's row, so no slot has two holders at once and its tokens increase. Runs only when
 * asked ({@code lock-core/soak.sh}); it takes minutes per mode.
 */
@ExtendWith(TestDatabaseExtension.class)
@EnabledIfSystemProperty(named = "bizlock.soak.modes", matches = ".+", disabledReason = "run by lock-core/soak.sh")
class FaultSoakTest {

    private static final int JVMS = 3;
    private static final int THREADS = 16;
    /** Few keys, so that threads of one JVM also queue for a key and hand it on locally. */
    private static final int KEYS = Integer.getInteger("bizlock.soak.keys", 16);
    /** Above 0: each key is a semaphore of this many permits, and the JVMs take permits instead of locks. */
    private static final int PERMITS = Integer.getInteger("bizlock.soak.permits", 0);

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration FAULT_EVERY = Duration.ofSeconds(10);
    /** Ports for the proxies, the range this project's fault tests keep to. */
    static final int FIRST_PORT = 4331;

    static final int LAST_PORT = 4349;

    enum Fault {
        SIGKILL,
        SIGSTOP,
        SIGTERM,
        KILL_CONNECTION,
        TCP_RESET,
        HALF_OPEN,
        UNREACHABLE
    }

    @Test
    void locksHoldUnderScheduledFaults(TestDatabase database) throws Exception {
        long target = Long.getLong("bizlock.soak.acquisitions", 1_000_000);
        long maxMinutes = Long.getLong("bizlock.soak.max-minutes", 60);
        List<String> rows = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        ContractManagers.createSchema(LockMode.LEASE, database.dataSource()); // one schema serves every mode
        for (String name : System.getProperty("bizlock.soak.modes").split(",")) {
            LockMode mode = LockMode.valueOf(name.strip().toUpperCase(Locale.ROOT));
            Run run = new Run(database, mode, target, Duration.ofMinutes(maxMinutes));
            run.execute();
            rows.add(run.row());
            if (run.violations() > 0 || run.total[0] < target) {
                failures.add(mode + ": " + run.violations() + " violations, " + run.total[0] + " of " + target
                        + " acquisitions; " + String.join("; ", run.violationLines));
            }
            System.out.println("SOAK " + header());
            rows.forEach(row -> System.out.println("SOAK " + row));
        }
        assertThat(failures).isEmpty();
    }

    static String header() {
        return "| server | mode | acquisitions | per s | minutes | faults: kill/stop/term/kill-conn/reset/half-open/unreachable"
                + " | losses told | holds overlapped, all told (slowest) | violations | calls past wait + 1 s (most over the"
                + " wait) | errors |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |";
    }

    /** One mode's soak. */
    private static final class Run {

        private final TestDatabase database;
        private final LockMode mode;
        private final long target;
        private final Duration limit;
        private final String lockName;
        private final Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
        private final List<String> violationLines = new ArrayList<>();
        /** acquired, timed out, told, overlaps told, violations, errors, late; then the maxima of overrun and told. */
        private final long[] total = new long[9];

        private long elapsedNanos;

        Run(TestDatabase database, LockMode mode, long target, Duration limit) {
            this.database = database;
            this.mode = mode;
            this.target = target;
            this.limit = limit;
            // A name per primitive: a name is bound to plain locks or to one number of permits.
            this.lockName = (PERMITS > 0 ? "soak-permits" + PERMITS + "-" : "soak-")
                    + mode.name().toLowerCase(Locale.ROOT);
        }

        void execute() throws Exception {
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            jdbc.execute("CREATE TABLE IF NOT EXISTS soak_key (k VARCHAR(16) PRIMARY KEY, n BIGINT NOT NULL,"
                    + " token BIGINT NOT NULL, holder VARCHAR(64) NULL) ENGINE = MEMORY");
            jdbc.update("DELETE FROM soak_key");
            for (int i = 0; i < KEYS; i++) {
                if (PERMITS == 0) {
                    jdbc.update("INSERT INTO soak_key (k, n, token) VALUES (?, 0, 0)", "k" + i);
                }
                for (int slot = 0; slot < PERMITS; slot++) { // a permit claims its slot's row
                    jdbc.update("INSERT INTO soak_key (k, n, token) VALUES (?, 0, 0)", "k" + i + "#" + slot);
                }
            }
            List<Member> members = new ArrayList<>();
            try {
                for (int i = 0; i < JVMS; i++) {
                    members.add(new Member(i));
                }
                long started = System.nanoTime();
                long deadline = started + limit.toNanos();
                long nextFault = started + FAULT_EVERY.toNanos();
                long nextReport = started + TimeUnit.SECONDS.toNanos(30);
                int faultCount = 0;
                Runnable endFault = null;
                long faultEnds = 0;
                while (sum(members)[0] < target && System.nanoTime() < deadline) {
                    for (Member member : members) {
                        member.drain();
                    }
                    long now = System.nanoTime();
                    if (now >= nextReport) {
                        nextReport += TimeUnit.SECONDS.toNanos(30);
                        long done = sum(members)[0];
                        System.out.printf(
                                "soak %s: %,d acquisitions, %,.0f/s%n", mode, done, done / ((now - started) / 1e9));
                    }
                    if (endFault != null && now >= faultEnds) {
                        endFault.run();
                        endFault = null;
                    }
                    if (endFault == null && now >= nextFault) {
                        Fault fault = Fault.values()[faultCount % Fault.values().length];
                        Member member = members.get(faultCount % JVMS);
                        faultCount++;
                        faults.merge(fault, 1, Integer::sum);
                        Duration lasting = inject(fault, member, jdbc);
                        endFault = () -> end(fault, member);
                        faultEnds = System.nanoTime() + lasting.toNanos();
                        nextFault = faultEnds + FAULT_EVERY.toNanos();
                    }
                    Thread.sleep(100);
                }
                if (endFault != null) {
                    endFault.run();
                }
                for (Member member : members) {
                    member.jvm.send("STOP");
                }
                for (Member member : members) {
                    member.finish();
                }
                elapsedNanos = System.nanoTime() - started;
                System.arraycopy(sum(members), 0, total, 0, total.length);
            } finally {
                for (Member member : members) {
                    member.close();
                }
            }
        }

        private Duration inject(Fault fault, Member member, JdbcTemplate jdbc) throws Exception {
            System.out.printf("soak %s: %s of JVM %d%n", mode, fault, member.index);
            switch (fault) {
                case SIGKILL -> {
                    member.jvm.kill();
                    member.restart();
                }
                case SIGSTOP -> member.jvm.signal("STOP");
                case SIGTERM -> {
                    member.jvm.signal("TERM");
                    member.finish();
                    member.restart();
                }
                case KILL_CONNECTION -> {
                    List<Long> ids = jdbc.queryForList(
                            "SELECT id FROM information_schema.processlist WHERE db = DATABASE()"
                                    + " AND id <> CONNECTION_ID()",
                            Long.class);
                    if (!ids.isEmpty()) {
                        long id = ids.get(ThreadLocalRandom.current().nextInt(ids.size()));
                        try {
                            jdbc.execute("KILL " + id);
                        } catch (RuntimeException ex) {
                            // it ended on its own in between
                        }
                    }
                }
                case TCP_RESET -> member.proxy.reset();
                case HALF_OPEN -> member.proxy.freeze();
                case UNREACHABLE -> member.proxy.refuse();
            }
            return switch (fault) {
                case SIGSTOP, UNREACHABLE -> LEASE.plusSeconds(1);
                // past the two leases after which the server drops a silent session
                case HALF_OPEN -> LEASE.multipliedBy(2).plusSeconds(2);
                default -> Duration.ZERO;
            };
        }

        private void end(Fault fault, Member member) {
            try {
                switch (fault) {
                    case SIGSTOP -> member.jvm.signal("CONT");
                    case HALF_OPEN -> {
                        member.proxy.reset(); // the partition heals as TCP would: the stale connections are reset
                        member.proxy.thaw();
                    }
                    case UNREACHABLE -> member.proxy.admit();
                    default -> {}
                }
            } catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
        }

        private long[] sum(List<Member> members) {
            long[] sum = new long[9];
            for (Member member : members) {
                long[] stats = member.totals();
                for (int i = 0; i < 7; i++) {
                    sum[i] += stats[i];
                }
                sum[7] = Math.max(sum[7], stats[7]);
                sum[8] = Math.max(sum[8], stats[8]);
            }
            return sum;
        }

        long violations() {
            return Math.max(total[4], violationLines.size());
        }

        String row() {
            double seconds = elapsedNanos / 1e9;
            String faultCounts = String.join(
                    "/",
                    Arrays.stream(Fault.values())
                            .map(f -> Integer.toString(faults.getOrDefault(f, 0)))
                            .toList());
            return String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,.0f | %.1f | %s | %,d | %,d (%d ms) | %d | %d (%d ms) | %,d |",
                    database.server(),
                    PERMITS > 0 ? mode + ", " + PERMITS + " permits" : mode,
                    total[0],
                    total[0] / seconds,
                    seconds / 60,
                    faultCounts,
                    total[2],
                    total[3],
                    total[8],
                    violations(),
                    total[6],
                    total[7],
                    total[5]);
        }

        /** One of the JVMs, its proxy, and the counts of its earlier incarnations. */
        private final class Member implements AutoCloseable {

            private final int index;
            private final FreezingProxy proxy;
            private final long[] retired = new long[9];
            private long[] current = new long[9];
            private int generation;
            private ChildJvm jvm;

            Member(int index) throws Exception {
                this.index = index;
                this.proxy = new FreezingProxy(database.jdbcUrl(), FIRST_PORT, LAST_PORT);
                start();
            }

            private void start() throws InterruptedException {
                generation++;
                for (int attempt = 1; ; attempt++) {
                    try {
                        startOnce();
                        return;
                    } catch (AssertionError ex) {
                        jvm.close();
                        if (attempt == 3) {
                            throw ex;
                        }
                        System.out.println("soak: JVM " + index + " did not start, again: " + ex.getMessage());
                    }
                }
            }

            private void startOnce() throws InterruptedException {
                jvm = ChildJvm.builder(SoakWorker.class)
                        .name("soak-j" + index + "g" + generation)
                        .args(
                                proxy.jdbcUrl(),
                                database.username(),
                                database.password(),
                                mode.name(),
                                lockName,
                                Integer.toString(THREADS),
                                Integer.toString(KEYS),
                                Long.toString(LEASE.toMillis()),
                                "j" + index + "g" + generation,
                                Integer.toString(PERMITS))
                        .start();
                jvm.await("READY", Duration.ofSeconds(60));
            }

            void restart() throws InterruptedException {
                drain();
                for (int i = 0; i < 7; i++) {
                    retired[i] += current[i];
                }
                retired[7] = Math.max(retired[7], current[7]);
                retired[8] = Math.max(retired[8], current[8]);
                current = new long[9];
                start();
            }

            void drain() throws InterruptedException {
                for (String line = jvm.poll(Duration.ZERO); line != null; line = jvm.poll(Duration.ZERO)) {
                    take(line);
                }
            }

            /** Reads the JVM's output until it ends (after STOP or SIGTERM), its last statistics included. */
            void finish() throws InterruptedException {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline) {
                    String line = jvm.poll(Duration.ofMillis(200));
                    if (line != null) {
                        take(line);
                    } else if (!jvm.isAlive()) {
                        drain();
                        return;
                    }
                }
                throw new AssertionError("JVM " + index + " did not end within 60 s: " + jvm.output());
            }

            private void take(String line) {
                if (line.startsWith("STAT ")) {
                    current = Arrays.stream(line.substring(5).split(" "))
                            .mapToLong(Long::parseLong)
                            .toArray();
                } else if (line.startsWith("VIOLATION ")) {
                    violationLines.add("JVM " + index + ": " + line);
                    System.out.println(line);
                }
            }

            long[] totals() {
                long[] totals = new long[9];
                for (int i = 0; i < 7; i++) {
                    totals[i] = retired[i] + current[i];
                }
                totals[7] = Math.max(retired[7], current[7]);
                totals[8] = Math.max(retired[8], current[8]);
                return totals;
            }

            @Override
            public void close() throws Exception {
                jvm.close();
                proxy.close();
            }
        }
    }
}
