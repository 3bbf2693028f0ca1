package io.github.bizlock.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.core.JdbcTemplate;

/** Fencing tokens of ROW and NAMED locks: at least one per issue, and none without the token floor's row. */
@ExtendWith(TestDatabaseExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TokenIssuerTest {

    private JdbcTemplate jdbc;
    private TokenIssuer tokens;

    @BeforeAll
    void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
        jdbc = new JdbcTemplate(dataSource);
        tokens = LockFixture.dao(dataSource).tokens();
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
