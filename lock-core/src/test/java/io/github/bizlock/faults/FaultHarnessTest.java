package io.github.bizlock.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabase;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The fault harness: a holder JVM ({@link FaultHolder}) takes a lock in every mode, a fault hits it from outside, and
 * another instance (this JVM, {@link Contender}) tries for the locks. Each case checks the invariants: the other
 * instance gets each lock only with a higher fencing token, and a stale holder's fenced write is refused (no two
 * holders of the data); the holder is told within its bound; its calls return within their deadlines; the key is
 * free again within the documented bound. Bounds are those of docs/failures.md, "What happens when…", for a 4 s watchdog lease,
 * plus {@link #BUSY} for a loaded machine; every case prints what it measured ({@code FAULT ...} lines).
 */
@Tag("cross-jvm")
@Tag("faults")
@LockTest
class FaultHarnessTest {

    /** Long enough that renewals on new connections after a KILL or a reset keep a LEASE row on a loaded machine. */
    static final Duration LEASE = Duration.ofSeconds(4);
    /** Heartbeats and renewals run every third of the lease. */
    static final long CHECK_EVERY = LEASE.toMillis() / 3;
    /** Room for a loaded machine above each documented bound; a bound missed by seconds still fails. */
    static final long BUSY = 3000;
    /** A session's locks are freed by the server as soon as the session ends: "at once". */
    static final long AT_ONCE = 1000;
    /** The server ends a silent session after {@code wait_timeout}, which bizlock sets to two leases. */
    static final long SILENT_SESSION_DROPPED = 2 * LEASE.toMillis();

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private TestDatabase database;
    private JdbcTemplate jdbc;
    private LockManager manager;
    private Contender contender;
    private String prefix;

    @BeforeEach
    void start(TestDatabase database, TestInfo test) throws InterruptedException {
        this.database = database;
        this.jdbc = new JdbcTemplate(database.dataSource());
        Contender.createFence(jdbc);
        this.manager = LockFixture.managerOfEveryMode(database.dataSource())
                .watchdogLease(LEASE)
                .build();
        this.contender = new Contender(manager, jdbc);
        this.prefix = test.getTestMethod().orElseThrow().getName();
        contender.warmUp(prefix);
    }

    @AfterEach
    void stop() {
        threads.shutdownNow();
        if (manager != null) {
            manager.close();
        }
    }

    @Test
    void sigkillFreesSessionLocksAtOnceAndLeaseLocksAfterTheLease() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.jvm().kill();
            Map<LockMode, Contender.Take> takes = takeAll(bounds(LEASE.toMillis(), AT_ONCE, AT_ONCE), faultAt);
            for (LockMode mode : LockMode.values()) {
                assertFreeWithin(holder, takes, mode, faultAt, mode == LockMode.LEASE ? LEASE.toMillis() : AT_ONCE);
                report("SIGKILL", mode, null, takes.get(mode).atMillis() - faultAt);
            }
        }
    }

    @Test
    void sigtermTellsTheHolderAndFreesEveryLockAtOnce() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.jvm().signal("TERM");
            // The shutdown releases LEASE rows in one statement, within 2 s, and closes the sessions.
            Map<LockMode, Contender.Take> takes = takeAll(bounds(2000, AT_ONCE, AT_ONCE), faultAt);
            for (LockMode mode : LockMode.values()) {
                HolderJvm.Loss loss = holder.awaitLoss(mode, Duration.ofMillis(BUSY));
                assertThat(loss)
                        .as(mode + ": the holder was told, before its JVM ended")
                        .isNotNull();
                assertThat(loss.cause()).isEqualTo(LossCause.SHUTDOWN);
                assertFreeWithin(holder, takes, mode, faultAt, mode == LockMode.LEASE ? 2000 : AT_ONCE);
                report(
                        "SIGTERM",
                        mode,
                        loss.atMillis() - faultAt,
                        takes.get(mode).atMillis() - faultAt);
            }
            assertThat(holder.jvm().waitForExit(Duration.ofSeconds(30))).isNotNegative();
        }
    }

    @Test
    void sigstopPastTheLeaseLosesEveryLockAndTheStaleWritesAreRefused() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.jvm().signal("STOP"); // a GC pause or a frozen VM: the sessions stay open, silent
            Map<LockMode, Contender.Take> takes;
            try {
                takes = takeAll(
                        bounds(
                                freedAfterSilence(LockMode.LEASE),
                                freedAfterSilence(LockMode.ROW),
                                freedAfterSilence(LockMode.NAMED)),
                        faultAt);
            } finally {
                holder.jvm().signal("CONT");
            }
            long resumedAt = System.currentTimeMillis();
            for (LockMode mode : LockMode.values()) {
                assertFreeWithin(holder, takes, mode, faultAt, freedAfterSilence(mode));
            }
            for (LockMode mode : LockMode.values()) {
                HolderJvm.Loss loss = holder.awaitLoss(mode, Duration.ofMillis(CHECK_EVERY + BUSY));
                assertThat(loss)
                        .as(mode + ": the resumed holder was told within a renewal or heartbeat")
                        .isNotNull();
                report(
                        "SIGSTOP (told after SIGCONT)",
                        mode,
                        loss.atMillis() - resumedAt,
                        takes.get(mode).atMillis() - faultAt);
            }
            Map<LockMode, String[]> writes = holder.command("WRITE", Duration.ofSeconds(30));
            for (LockMode mode : LockMode.values()) {
                assertThat(writes.get(mode))
                        .as(mode + ": the stale holder's fenced write")
                        .containsExactly("0");
            }
        }
    }

    @Test
    void killedConnectionsEndSessionLocksAndTellTheHolderWhileLeaseLocksStay() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            killConnectionsOf(holder);
            assertSessionsCut(holder, "KILL CONNECTION", faultAt);
        }
    }

    @Test
    void tcpResetEndsSessionLocksAndTellsTheHolderWhileLeaseLocksStay() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.proxy().reset();
            assertSessionsCut(holder, "TCP reset", faultAt);
        }
    }

    /**
     * The holder's connections ended: ROW and NAMED locks are free at once and their holder is told within a
     * heartbeat (the window that fencing tokens cover); a LEASE lock holds no connection, so it stays held.
     */
    private void assertSessionsCut(HolderJvm holder, String fault, long faultAt) throws Exception {
        Map<LockMode, Contender.Take> takes = takeAll(bounds(LEASE.toMillis() + 1000, AT_ONCE, AT_ONCE), faultAt);
        assertThat(takes.get(LockMode.LEASE).taken())
                .as("LEASE: its row stays its holder's, renewed on new connections")
                .isFalse();
        for (LockMode mode : List.of(LockMode.ROW, LockMode.NAMED)) {
            assertFreeWithin(holder, takes, mode, faultAt, AT_ONCE);
            HolderJvm.Loss loss = holder.awaitLoss(mode, Duration.ofMillis(CHECK_EVERY + BUSY));
            assertThat(loss)
                    .as(mode + ": the holder was told within a heartbeat")
                    .isNotNull();
            // A killed session's connection is closed by the server: the session ended. After a reset the client
            // cannot tell a session that ended from a network that failed, and may say either.
            assertThat(loss.cause())
                    .isIn(
                            fault.equals("KILL CONNECTION")
                                    ? List.of(LossCause.SESSION_ENDED)
                                    : List.of(LossCause.SESSION_ENDED, LossCause.UNREACHABLE));
            report(fault, mode, loss.atMillis() - faultAt, takes.get(mode).atMillis() - faultAt);
        }
        assertThat(holder.loss(LockMode.LEASE)).isNull();
        assertThat(holder.command("HELD", Duration.ofSeconds(10)).get(LockMode.LEASE))
                .containsExactly("true");
        Map<LockMode, String[]> unlocked = holder.command("UNLOCK", Duration.ofSeconds(30));
        assertThat(unlocked.get(LockMode.LEASE)[1]).isEqualTo("unlocked");
        for (LockMode mode : List.of(LockMode.ROW, LockMode.NAMED)) {
            assertThat(unlocked.get(mode)[1]).isEqualTo("LockLostException");
            assertThat(Long.parseLong(unlocked.get(mode)[0]))
                    .as("a lost lock's unlock answers at once")
                    .isLessThan(BUSY);
        }
        report(fault, LockMode.LEASE, null, null);
    }

    @Test
    void halfOpenNetworkTellsTheHolderBeforeAnyoneElseGetsTheLock() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.proxy().freeze(); // nothing passes, nothing is closed
            Future<Map<LockMode, Contender.Take>> taking = threads.submit(() -> takeAll(
                    bounds(
                            freedAfterSilence(LockMode.LEASE),
                            freedAfterSilence(LockMode.ROW),
                            freedAfterSilence(LockMode.NAMED)),
                    faultAt));
            for (LockMode mode : LockMode.values()) {
                HolderJvm.Loss loss = holder.awaitLoss(mode, Duration.ofMillis(LEASE.toMillis() + BUSY));
                assertThat(loss != null ? loss.atMillis() : holder.notHeldAt(mode))
                        .as(mode + ": the holder knew (isHeld() false, or the event) within a lease")
                        .isNotNegative()
                        .isLessThanOrEqualTo(faultAt + LEASE.toMillis() + BUSY);
                // The event follows, from the watchdog once its renewal or heartbeat on the frozen connection ends.
                loss = holder.awaitLoss(mode, Duration.ofMillis(LEASE.toMillis() + 10_000));
                assertThat(loss).as(mode + ": the holder was told").isNotNull();
                assertThat(loss.cause())
                        .isEqualTo(mode == LockMode.LEASE ? LossCause.LEASE_EXPIRED : LossCause.UNREACHABLE);
            }
            // ROW and NAMED acquisitions are measured here, checked by the next test.
            assertCallsKeepTheirDeadlines(holder, "half-open", List.of(LockMode.LEASE));
            Map<LockMode, Contender.Take> takes = taking.get();
            for (LockMode mode : LockMode.values()) {
                assertFreeWithin(holder, takes, mode, faultAt, freedAfterSilence(mode));
                HolderJvm.Loss loss = holder.loss(mode);
                // isHeld() turns false at the holder's own deadline; the event may follow on a busy machine.
                long knewAt = holder.notHeldAt(mode) < 0 ? loss.atMillis() : holder.notHeldAt(mode);
                assertThat(Math.min(knewAt, loss.atMillis()))
                        .as(mode + ": the holder knew it lost the lock before another instance had it")
                        .isLessThan(takes.get(mode).atMillis());
                System.out.printf(
                        "FAULT %s half-open network %s: isHeld() false after %d ms%n",
                        database.server(), mode, knewAt - faultAt);
                report(
                        "half-open network",
                        mode,
                        loss.atMillis() - faultAt,
                        takes.get(mode).atMillis() - faultAt);
            }
        }
    }

    @Test
    void halfOpenNetworkSessionAcquisitionsReturnWithinTheirDeadline() throws Exception {
        try (HolderJvm holder = holder()) {
            holder.proxy().freeze();
            for (LockMode mode : LockMode.values()) {
                assertThat(holder.awaitLoss(mode, Duration.ofMillis(LEASE.toMillis() + BUSY)))
                        .isNotNull();
            }
            assertCallsKeepTheirDeadlines(holder, "half-open", List.of(LockMode.ROW, LockMode.NAMED));
        }
    }

    @Test
    void unreachableDatabaseTellsTheHolderAndKeepsEveryDeadline() throws Exception {
        try (HolderJvm holder = holder()) {
            long faultAt = System.currentTimeMillis();
            holder.proxy().refuse(); // connections reset, new ones refused
            Map<LockMode, Contender.Take> takes = takeAll(bounds(LEASE.toMillis(), AT_ONCE, AT_ONCE), faultAt);
            for (LockMode mode : LockMode.values()) {
                HolderJvm.Loss loss = holder.awaitLoss(
                        mode, Duration.ofMillis((mode == LockMode.LEASE ? LEASE.toMillis() : CHECK_EVERY) + BUSY));
                assertThat(loss).as(mode + ": the holder was told").isNotNull();
                assertFreeWithin(holder, takes, mode, faultAt, mode == LockMode.LEASE ? LEASE.toMillis() : AT_ONCE);
                report(
                        "database unreachable",
                        mode,
                        loss.atMillis() - faultAt,
                        takes.get(mode).atMillis() - faultAt);
            }
            assertCallsKeepTheirDeadlines(holder, "database unreachable", List.of(LockMode.values()));
        }
    }

    /**
     * With the database out of reach, a lost lock's unlock answers at once with {@code LockLostException}, and a new
     * acquisition returns within its wait plus the documented slack.
     */
    private void assertCallsKeepTheirDeadlines(HolderJvm holder, String fault, List<LockMode> acquisitionsChecked)
            throws InterruptedException {
        Map<LockMode, String[]> unlocked = holder.command("UNLOCK", Duration.ofSeconds(30));
        Map<LockMode, String[]> tried = holder.command("TRY", Duration.ofSeconds(90));
        for (LockMode mode : LockMode.values()) {
            System.out.printf(
                    "FAULT %s %s %s: unlock of the lost lock %s ms (%s), acquisition with a %d ms wait %s ms (%s)%n",
                    database.server(),
                    fault,
                    mode,
                    unlocked.get(mode)[0],
                    unlocked.get(mode)[1],
                    FaultHolder.TRY_WAIT.toMillis(),
                    tried.get(mode)[0],
                    String.join(" ", List.of(tried.get(mode)).subList(1, tried.get(mode).length)));
        }
        for (LockMode mode : LockMode.values()) {
            long unlockMillis = Long.parseLong(unlocked.get(mode)[0]);
            assertThat(unlocked.get(mode)[1]).isEqualTo("LockLostException");
            assertThat(unlockMillis)
                    .as(mode + ": a lost lock's unlock answers at once")
                    .isLessThan(BUSY);
            if (!acquisitionsChecked.contains(mode)) {
                continue;
            }
            assertThat(Long.parseLong(tried.get(mode)[0]))
                    .as(mode + ": an acquisition returns within its wait plus " + acquisitionSlack(mode, fault) + " ms")
                    .isLessThan(FaultHolder.TRY_WAIT.toMillis() + acquisitionSlack(mode, fault) + BUSY);
        }
    }

    /**
     * What docs/failures.md, "Acquiring when the database does not answer", allows above the wait: 1 s (for ROW and NAMED the grace
     * given to opening a session, which the holder has none of left idle), and for LEASE on a half-open network also
     * HikariCP's check of each idle connection it is about to lend (its validation timeout, 5 s, which an interrupt does
     * not cut short).
     */
    private static long acquisitionSlack(LockMode mode, String fault) {
        return mode == LockMode.LEASE && fault.equals("half-open") ? 1000 + FaultHolder.POOL_SIZE * 5000L : 1000;
    }

    private HolderJvm holder() throws Exception {
        return HolderJvm.start(database.jdbcUrl(), database.username(), database.password(), LEASE, prefix);
    }

    /**
     * When the lock of a holder that went silent (stopped, or cut off without a word) is free: a LEASE row when its
     * lease ends, a session's lock when the server drops the silent session.
     */
    private static long freedAfterSilence(LockMode mode) {
        return mode == LockMode.LEASE ? LEASE.toMillis() : SILENT_SESSION_DROPPED;
    }

    private static Map<LockMode, Long> bounds(long lease, long row, long named) {
        return Map.of(LockMode.LEASE, lease, LockMode.ROW, row, LockMode.NAMED, named);
    }

    /** The contender tries for every mode's lock at once, each until its bound plus {@link #BUSY} has passed. */
    private Map<LockMode, Contender.Take> takeAll(Map<LockMode, Long> bounds, long faultAt) throws Exception {
        Map<LockMode, Future<Contender.Take>> futures = new EnumMap<>(LockMode.class);
        for (LockMode mode : LockMode.values()) {
            futures.put(mode, threads.submit(() -> contender.take(mode, prefix, faultAt + bounds.get(mode) + BUSY)));
        }
        Map<LockMode, Contender.Take> takes = new EnumMap<>(LockMode.class);
        for (LockMode mode : LockMode.values()) {
            takes.put(mode, futures.get(mode).get());
        }
        return takes;
    }

    private static void assertFreeWithin(
            HolderJvm holder, Map<LockMode, Contender.Take> takes, LockMode mode, long faultAt, long bound) {
        Contender.Take take = takes.get(mode);
        assertThat(take.taken())
                .as(mode + ": another instance got the lock within " + bound + " ms (+" + BUSY + " ms); holder:\n"
                        + holder.output())
                .isTrue();
        assertThat(take.atMillis() - faultAt).isLessThanOrEqualTo(bound + BUSY);
        assertThat(take.token()).as(mode + ": the new holder's token").isGreaterThan(holder.token(mode));
    }

    /** Kills every session of the holder JVM from another connection, as an operator or a failover would. */
    private void killConnectionsOf(HolderJvm holder) {
        // The host column reads 127.0.0.1:port, or localhost:port where the server resolves names (MySQL).
        List<String> ports = holder.proxy().databaseSidePorts().stream()
                .map(port -> ":" + port)
                .toList();
        List<Map<String, Object>> sessions =
                jdbc.queryForList("SELECT ID, HOST FROM information_schema.PROCESSLIST WHERE DB = DATABASE()");
        int killed = 0;
        for (Map<String, Object> session : sessions) {
            String host = String.valueOf(session.get("HOST"));
            if (ports.contains(host.substring(Math.max(0, host.lastIndexOf(':'))))) {
                jdbc.execute("KILL CONNECTION " + session.get("ID"));
                killed++;
            }
        }
        assertThat(killed)
                .as("sessions of the holder found in the process list")
                .isPositive();
    }

    private void report(String fault, LockMode mode, Long toldAfter, Long freeAfter) {
        System.out.printf(
                "FAULT %s %s %s: holder told after %s, lock free after %s%n",
                database.server(),
                fault,
                mode,
                toldAfter == null ? "-" : toldAfter + " ms",
                freeAfter == null ? "never (kept, as it should)" : freeAfter + " ms");
    }
}
