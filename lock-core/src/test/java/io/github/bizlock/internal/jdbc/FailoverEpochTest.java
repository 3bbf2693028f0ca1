package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.LockManager;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A failover to an asynchronous replica that missed the primary's last acquisitions: every fencing token the promoted
 * replica issues is above every token the old primary issued, the lost ones included, for a LEASE lock that existed,
 * a LEASE lock the replica never heard of, and the token counters of ROW and NAMED locks of both kinds. The servers are
 * the test's own ({@link PrimaryAndReplica}), whatever {@code BIZLOCK_TEST_DB} says: MariaDB with GTID replication,
 * the replica's replication stopped before the last acquisitions, then the primary killed -9.
 *
 * <p>One failover serves two databases with the same history: in one the epoch works; in the control the replica's
 * token floor is made to name the replica's own reign (its {@code server_id} and start) before the promotion, as if
 * the floor did not remember who issued (bizlock before the epoch), and there the promoted replica issues the lost
 * tokens again: the assertion can fail.
 *
 * <p>Two failovers in a row run on servers of their own: back to the first primary, and on to a third server; there
 * tokens must rise in the order they were issued, across every reign.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FailoverEpochTest {

    private static final String WITH_EPOCH = "bizlock_failover";
    private static final String WITHOUT_EPOCH = "bizlock_failover_control";
    private static final LockKey KEPT = new LockKey("failover", "kept");
    private static final LockKey CREATED_LATE = new LockKey("failover", "created-late");
    private static final LockKey NAMED_KEPT = new LockKey("failover-named", "kept");
    private static final LockKey NAMED_LATE = new LockKey("failover-named", "created-late");
    private static final LockKey OTHER = new LockKey("failover", "other");
    private static final List<LockKey> KEYS = List.of(KEPT, CREATED_LATE, NAMED_KEPT, NAMED_LATE);
    private static final String DOUBLE = "bizlock_double_failover";
    private static final int ACQUISITIONS = 5;

    /** Tokens by database, then by lock: issued on the old primary (before) and on the promoted replica (after). */
    private static final Map<String, Map<LockKey, List<Long>>> BEFORE = new LinkedHashMap<>();

    private static final Map<String, Map<LockKey, List<Long>>> AFTER = new LinkedHashMap<>();

    @BeforeAll
    static void failOver() throws Exception {
        List<String> databases = List.of(WITH_EPOCH, WITHOUT_EPOCH);
        try (PrimaryAndReplica servers = PrimaryAndReplica.start(databases.toArray(String[]::new))) {
            List<HikariDataSource> pools = new ArrayList<>();
            try {
                for (String database : databases) {
                    HikariDataSource primary = servers.primaryDataSource(database);
                    pools.add(primary);
                    LockFixture.createSchema(primary);
                    issue(primary, List.of(KEPT), List.of(NAMED_KEPT), BEFORE.computeIfAbsent(database, d -> map()));
                }
                servers.awaitReplicaCaughtUp();
                servers.stopReplication();
                for (int i = 0; i < databases.size(); i++) {
                    issue(
                            pools.get(i),
                            List.of(KEPT, CREATED_LATE),
                            List.of(NAMED_KEPT, NAMED_LATE),
                            BEFORE.get(databases.get(i)));
                }
                servers.crashPrimary();

                for (String database : databases) {
                    HikariDataSource replica = servers.replicaDataSource(database);
                    pools.add(replica);
                    assertMissedTheLastAcquisitions(new JdbcTemplate(replica), BEFORE.get(database));
                }
                JdbcTemplate control = new JdbcTemplate(pools.get(pools.size() - 1));
                control.update("UPDATE biz_lock_token_floor SET token_server = @@server_id, token_boot = (SELECT"
                        + " UNIX_TIMESTAMP() - VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
                        + " WHERE VARIABLE_NAME = 'UPTIME')");

                servers.promoteReplica();
                for (int i = 0; i < databases.size(); i++) {
                    issue(
                            pools.get(databases.size() + i),
                            List.of(KEPT, CREATED_LATE),
                            List.of(NAMED_KEPT, NAMED_LATE),
                            AFTER.computeIfAbsent(databases.get(i), d -> map()));
                }
            } finally {
                pools.forEach(HikariDataSource::close);
            }
        }
    }

    @Test
    void tokensIssuedAfterPromotingAReplicaThatMissedTheLastAcquisitionsAreAboveAllEarlierOnes() {
        Map<LockKey, List<Long>> before = BEFORE.get(WITH_EPOCH);
        Map<LockKey, List<Long>> after = AFTER.get(WITH_EPOCH);
        for (LockKey key : KEYS) {
            assertThat(Collections.min(after.get(key)))
                    .as(
                            "the lowest token of %s after the failover, against those before it %s (lost ones"
                                    + " included)",
                            key, before.get(key))
                    .isGreaterThan(Collections.max(before.get(key)));
            assertThat(after.get(key))
                    .as("tokens of %s after the failover", key)
                    .isSorted();
        }
        System.out.printf("bizlock failover, with the epoch: before %s, after %s%n", before, after);
    }

    @Test
    void withoutTheEpochThePromotedReplicaIssuesTheLostTokensAgain() {
        Map<LockKey, List<Long>> before = BEFORE.get(WITHOUT_EPOCH);
        Map<LockKey, List<Long>> after = AFTER.get(WITHOUT_EPOCH);
        for (LockKey key : KEYS) {
            assertThat(Collections.min(after.get(key)))
                    .as(
                            "without the epoch, %s's first token after the failover repeats one the old primary issued"
                                    + " (before: %s, after: %s)",
                            key, before.get(key), after.get(key))
                    .isLessThanOrEqualTo(Collections.max(before.get(key)));
        }
        System.out.printf("bizlock failover, without the epoch: before %s, after %s%n", before, after);
    }

    /**
     * S1 -> S2 -> S1 without a restart: a switchover to S2 that loses nothing; S1, now S2's replica, receives S2's first
     * tokens (of another lock), then none of S2's later ones; S2 crashes and S1 is promoted again. The counters S2 raised
     * last still name S1 there, as they did before the switchover.
     */
    @Test
    void aFirstPrimaryPromotedAgainThatMissedTheSecondOnesLastTokensIssuesAboveThem() throws Exception {
        Map<LockKey, List<Long>> tokens = map();
        try (PrimaryAndReplica servers = PrimaryAndReplica.start(1, DOUBLE)) {
            issueOn(servers, 0, List.of(KEPT), List.of(NAMED_KEPT), tokens);
            servers.demote(0);
            servers.awaitCaughtUp(1, 0);
            servers.promote(1);
            servers.replicate(0, 1);
            issueOn(servers, 1, List.of(OTHER), List.of(), tokens);
            servers.awaitCaughtUp(0, 1);
            servers.stopReplication(0);
            issueOn(servers, 1, List.of(KEPT, CREATED_LATE), List.of(NAMED_KEPT, NAMED_LATE), tokens);
            servers.crash(1);
            servers.promote(0);
            issueOn(servers, 0, List.of(KEPT, CREATED_LATE, OTHER), List.of(NAMED_KEPT, NAMED_LATE), tokens);
        }
        assertRisingInTheOrderIssued(tokens, "S1, S2 (S1 got its first ones), S1 again");
    }

    /**
     * S1 -> S2 -> S3 -> S1, each server crashed in turn, none receiving anything of the reigns after its own: S3 was
     * never pointed at S2, S1 starts again on its own data. Each promotion's first token comes in a later second of the
     * servers' clock than the previous reign's last (the fencing epoch's condition for a server that missed a reign).
     */
    @Test
    void serversPromotedAfterReignsTheyNeverHeardOfIssueAboveThem() throws Exception {
        Map<LockKey, List<Long>> tokens = map();
        List<LockKey> lease = List.of(KEPT, CREATED_LATE);
        List<LockKey> named = List.of(NAMED_KEPT, NAMED_LATE);
        try (PrimaryAndReplica servers = PrimaryAndReplica.start(2, DOUBLE)) {
            issueOn(servers, 0, List.of(KEPT), List.of(NAMED_KEPT), tokens);
            servers.awaitCaughtUp(1, 0);
            servers.awaitCaughtUp(2, 0);
            servers.crash(0);
            servers.promote(1);
            issueOn(servers, 1, lease, named, tokens);
            String lastSecond = servers.query(1, "SELECT UNIX_TIMESTAMP()");
            servers.crash(1);
            servers.promote(2);
            awaitLaterSecond(servers, 2, lastSecond);
            issueOn(servers, 2, lease, named, tokens);
            lastSecond = servers.query(2, "SELECT UNIX_TIMESTAMP()");
            servers.crash(2);
            servers.restart(0);
            awaitLaterSecond(servers, 0, lastSecond);
            issueOn(servers, 0, lease, named, tokens);
        }
        assertRisingInTheOrderIssued(tokens, "S1, S2, S3 (never pointed at S2), S1 restarted on its own data");
    }

    private static void assertRisingInTheOrderIssued(Map<LockKey, List<Long>> tokens, String reigns) {
        tokens.forEach((key, issued) -> assertThat(issued)
                .as("tokens of %s in the order issued over the reigns %s", key, reigns)
                .isSorted()
                .doesNotHaveDuplicates());
        System.out.printf("bizlock double failover (%s): %s%n", reigns, tokens);
    }

    private static void issueOn(
            PrimaryAndReplica servers,
            int server,
            List<LockKey> leaseKeys,
            List<LockKey> namedKeys,
            Map<LockKey, List<Long>> tokens)
            throws Exception {
        try (HikariDataSource dataSource = servers.dataSource(server, DOUBLE)) {
            if (server == 0 && tokens.isEmpty()) {
                LockFixture.createSchema(dataSource);
            }
            issue(dataSource, leaseKeys, namedKeys, tokens);
        }
    }

    /** Waits (a minute at most) until the server's clock reads a later second than {@code second}. */
    private static void awaitLaterSecond(PrimaryAndReplica servers, int server, String second) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (Long.parseLong(servers.query(server, "SELECT UNIX_TIMESTAMP()")) <= Long.parseLong(second)) {
            assertThat(System.nanoTime())
                    .as("server %d's clock passing %s", server + 1, second)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** The scenario is real: the replica lacks the last tokens of the locks it knew, and the lock created last. */
    private static void assertMissedTheLastAcquisitions(JdbcTemplate replica, Map<LockKey, List<Long>> before) {
        assertThat(token(replica, "SELECT fencing_token FROM biz_lock WHERE biz_type = ? AND biz_id = ?", KEPT))
                .as("the replica's last token of %s", KEPT)
                .isLessThan(Collections.max(before.get(KEPT)));
        assertThat(token(
                        replica, "SELECT last_token FROM biz_lock_token WHERE biz_type = ? AND biz_id = ?", NAMED_KEPT))
                .as("the replica's last token of %s", NAMED_KEPT)
                .isLessThan(Collections.max(before.get(NAMED_KEPT)));
        assertThat(replica.queryForObject(
                        "SELECT (SELECT COUNT(*) FROM biz_lock WHERE biz_id = 'created-late')"
                                + " + (SELECT COUNT(*) FROM biz_lock_token WHERE biz_id = 'created-late')",
                        Integer.class))
                .as("the replica never heard of the locks created last")
                .isZero();
    }

    /** Acquires and releases each LEASE lock, and issues a NAMED token of each other lock, {@value #ACQUISITIONS} times. */
    private static void issue(
            HikariDataSource dataSource,
            List<LockKey> leaseKeys,
            List<LockKey> namedKeys,
            Map<LockKey, List<Long>> tokens)
            throws InterruptedException {
        LockDaos daos = LockFixture.daos(dataSource);
        LeaseDao dao = daos.leases();
        try (LockManager manager = LockFixture.manager(dataSource).build()) {
            for (int i = 0; i < ACQUISITIONS; i++) {
                for (LockKey key : leaseKeys) {
                    LockHandle handle = manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, Duration.ofSeconds(30))
                            .orElseThrow(() -> new AssertionError(key + " should be free"));
                    tokens.computeIfAbsent(key, k -> new ArrayList<>()).add(handle.fencingToken());
                    handle.unlock();
                }
                for (LockKey key : namedKeys) {
                    tokens.computeIfAbsent(key, k -> new ArrayList<>())
                            .add(daos.tokens().issue(key, LockMode.NAMED, 1));
                }
            }
        }
    }

    private static Map<LockKey, List<Long>> map() {
        return new LinkedHashMap<>();
    }

    private static long token(JdbcTemplate jdbc, String sql, LockKey key) {
        Long token = jdbc.queryForObject(sql, Long.class, bytes(key.name()), bytes(key.key()));
        return token == null ? 0 : token;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
