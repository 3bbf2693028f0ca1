package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LockTest;
import io.github.bizlock.ProxiedLockPool;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.test.FreezingProxy;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/** Fencing tokens of ROW and NAMED locks: at least one per issue, and none without the token floor's row. */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenIssuerTest {

    private JdbcTemplate jdbc;
    private TokenIssuer tokens;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        jdbc = new JdbcTemplate(dataSource);
        tokens = LockFixture.daos(dataSource).tokens();
    }

    @Test
    void issuingNoTokensIsRefused() {
        LockKey key = new LockKey("tokens", "none");

        assertThatThrownBy(() -> tokens.issue(key, LockMode.ROW, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("asked for 0");
        assertThat(tokens.lastToken(key, LockMode.ROW)).isEmpty();
    }

    @Test
    void tokensIssuedInBatchesRiseByTheBatch() {
        LockKey key = new LockKey("tokens", "batches");

        long first = tokens.issue(key, LockMode.NAMED, 1);
        long second = tokens.issue(key, LockMode.NAMED, 3);

        assertThat(second).isEqualTo(first + 3);
        assertThat(tokens.lastToken(key, LockMode.NAMED)).hasValue(second);
    }

    @Test
    void anIssueOnAConnectionToAHostThatDiedEndsWithinItsBound(TestDatabase database) throws Exception {
        try (FreezingProxy network = new FreezingProxy(database.jdbcUrl());
                HikariDataSource pool = ProxiedLockPool.open(network, database)) {
            TokenIssuer throughPool = LockFixture.daos(pool).tokens();
            LockKey key = new LockKey("tokens", "frozen");
            long first = throughPool.issue(key, LockMode.ROW, 1);
            ProxiedLockPool.openAll(pool);
            network.freezeOpen();

            long started = System.nanoTime();
            Throwable thrown = assertTimeoutPreemptively(
                    Duration.ofSeconds(30), () -> catchThrowable(() -> throughPool.issue(key, LockMode.ROW, 1)));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf("a ROW token issue on a frozen pooled connection ended after %d ms%n", millis);
            assertThat(thrown).isInstanceOf(DataAccessException.class);
            // Ceiling, not a measurement: the 5 s bound, with room for a busy machine; before, it waited for the OS.
            assertThat(millis).isLessThan(TokenIssuer.ISSUE_TIMEOUT.toMillis() + 5000);
            assertThat(throughPool.issue(key, LockMode.ROW, 1))
                    .as("the next issue, on a connection that answers")
                    .isGreaterThan(first);
        }
    }

    @Test
    void withoutTheTokenFloorRowNoTokenIsIssuedAndTheErrorSaysHowToRestoreIt(DataSource dataSource) throws Exception {
        Long floor = jdbc.queryForObject("SELECT floor_token FROM biz_lock_token_floor WHERE id = 1", Long.class);
        jdbc.update("DELETE FROM biz_lock_token_floor");
        try (Connection connection = dataSource.getConnection()) {
            LockKey key = new LockKey("tokens", "no-floor");

            assertThatThrownBy(() -> tokens.issue(key, LockMode.ROW, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("biz_lock_token_floor is missing");
            assertThatThrownBy(() -> tokens.issueOn(connection, key, LockMode.ROW, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("biz_lock_token_floor is missing");
        } finally {
            jdbc.update("INSERT INTO biz_lock_token_floor (id, floor_token) VALUES (1, ?)", floor);
        }
    }
}
