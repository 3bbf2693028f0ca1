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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A failover to an asynchronous replica that missed the primary's last acquisitions: every fencing token the promoted
 * replica issues is above every token the old primary issued, the lost ones included, for a LEASE lock that existed,
 * a LEASE lock the replica never heard of, and the token counters of ROW and NAMED locks. The servers are the test's
 * own ({@link PrimaryAndReplica}), whatever {@code BIZLOCK_TEST_DB} says: MariaDB with GTID replication, the primary
 * killed -9 after the replica's replication was stopped. The control shows the test can fail: with the epoch defeated
 * (the replica's copies claim to be its own tokens, as every counter did before the epoch), the promoted replica
 * issues the lost tokens again.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FailoverEpochTest {

    private static final LockKey KEPT = new LockKey("failover", "kept");
    private static final LockKey CREATED_LATE = new LockKey("failover", "created-late");
    private static final LockKey NAMED_KEPT = new LockKey("failover-named", "kept");
    private static final LockKey NAMED_LATE = new LockKey("failover-named", "created-late");
    private static final int ACQUISITIONS = 5;

    @Test
    void tokensIssuedAfterPromotingAReplicaThatMissedTheLastAcquisitionsAreAboveAllEarlierOnes() throws Exception {
        Map<LockKey, List<Long>> after = new LinkedHashMap<>();
        Map<LockKey, List<Long>> before = failOver(false, after);

        for (LockKey key : List.of(KEPT, CREATED_LATE, NAMED_KEPT, NAMED_LATE)) {
            assertThat(Collections.min(after.get(key)))
                    .as(
                            "the lowest token of %s after the failover, against the highest before it %s (lost ones"
                                    + " included)",
                            key, before.get(key))
                    .isGreaterThan(Collections.max(before.get(key)));
            assertThat(after.get(key))
                    .as("tokens of %s after the failover", key)
                    .isSorted();
        }
        System.out.printf(
                "bizlock failover: highest token before / lowest after: kept %d / %d, created late %d / %d,"
                        + " NAMED kept %d / %d, NAMED created late %d / %d%n",
                Collections.max(before.get(KEPT)),
                Collections.min(after.get(KEPT)),
                Collections.max(before.get(CREATED_LATE)),
                Collections.min(after.get(CREATED_LATE)),
                Collections.max(before.get(NAMED_KEPT)),
                Collections.min(after.get(NAMED_KEPT)),
                Collections.max(before.get(NAMED_LATE)),
                Collections.min(after.get(NAMED_LATE)));
    }

    @Test
    void withoutTheEpochThePromotedReplicaIssuesTheLostTokensAgain() throws Exception {
        Map<LockKey, List<Long>> after = new LinkedHashMap<>();
        Map<LockKey, List<Long>> before = failOver(true, after);

        for (LockKey key : List.of(KEPT, CREATED_LATE, NAMED_KEPT, NAMED_LATE)) {
            assertThat(Collections.min(after.get(key)))
                    .as(
                            "without the epoch, %s's first token after the failover repeats one the old primary issued"
                                    + " (before: %s, after: %s)",
                            key, before.get(key), after.get(key))
                    .isLessThanOrEqualTo(Collections.max(before.get(key)));
        }
    }

    /**
     * Acquires on the primary, stops replication, acquires more (the replica never gets these), kills the primary,
     * promotes the replica and acquires there.
     *
     * @param defeatEpoch whether the replica's copies are made to look issued by itself before the promotion
     * @param after receives the tokens issued on the promoted replica, by key
     * @return the tokens issued on the old primary, by key
     */
    private static Map<LockKey, List<Long>> failOver(boolean defeatEpoch, Map<LockKey, List<Long>> after)
            throws Exception {
        Map<LockKey, List<Long>> before = new LinkedHashMap<>();
        try (PrimaryAndReplica servers = PrimaryAndReplica.start();
                HikariDataSource primary = servers.primaryDataSource();
                HikariDataSource replica = servers.replicaDataSource()) {
            LockFixture.createSchema(primary);
            BizLockDao primaryDao = LockFixture.dao(primary);
            try (LockManager manager = LockFixture.manager(primary).build()) {
                issue(manager, primaryDao, List.of(KEPT), List.of(NAMED_KEPT), before);
                servers.awaitReplicaCaughtUp();
                servers.stopReplication();
                issue(manager, primaryDao, List.of(KEPT, CREATED_LATE), List.of(NAMED_KEPT, NAMED_LATE), before);
            }
            servers.crashPrimary();

            JdbcTemplate onReplica = new JdbcTemplate(replica);
            assertThat(token(onReplica, "SELECT fencing_token FROM biz_lock WHERE biz_type = ? AND biz_id = ?", KEPT))
                    .as("the replica missed the last acquisitions of %s", KEPT)
                    .isLessThan(Collections.max(before.get(KEPT)));
            assertThat(token(
                            onReplica,
                            "SELECT last_token FROM biz_lock_token WHERE biz_type = ? AND biz_id = ?",
                            NAMED_KEPT))
                    .as("the replica missed the last tokens of %s", NAMED_KEPT)
                    .isLessThan(Collections.max(before.get(NAMED_KEPT)));
            assertThat(onReplica.queryForObject(
                            "SELECT COUNT(*) FROM biz_lock WHERE biz_id = 'created-late'", Integer.class))
                    .as("the replica never heard of the lock created last")
                    .isZero();
            if (defeatEpoch) {
                for (String table : List.of("biz_lock", "biz_lock_token", "biz_lock_token_floor")) {
                    onReplica.update("UPDATE " + table + " SET token_server = @@server_id");
                }
            }

            servers.promoteReplica();
            BizLockDao replicaDao = LockFixture.dao(replica);
            try (LockManager manager = LockFixture.manager(replica).build()) {
                issue(manager, replicaDao, List.of(KEPT, CREATED_LATE), List.of(NAMED_KEPT, NAMED_LATE), after);
            }
        }
        return before;
    }

    private static void issue(
            LockManager manager,
            BizLockDao dao,
            List<LockKey> leaseKeys,
            List<LockKey> namedKeys,
            Map<LockKey, List<Long>> tokens)
            throws InterruptedException {
        for (int i = 0; i < ACQUISITIONS; i++) {
            for (LockKey key : leaseKeys) {
                LockHandle handle = manager.tryAcquire(key, LockMode.LEASE, Duration.ZERO, Duration.ofSeconds(30))
                        .orElseThrow(() -> new AssertionError(key + " should be free"));
                tokens.computeIfAbsent(key, k -> new ArrayList<>()).add(handle.fencingToken());
                handle.unlock();
            }
            for (LockKey key : namedKeys) {
                tokens.computeIfAbsent(key, k -> new ArrayList<>())
                        .add(dao.tokens().issue(key, LockMode.NAMED, 1));
            }
        }
    }

    private static long token(JdbcTemplate jdbc, String sql, LockKey key) {
        Long token = jdbc.queryForObject(sql, Long.class, bytes(key.name()), bytes(key.key()));
        return token == null ? 0 : token;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
