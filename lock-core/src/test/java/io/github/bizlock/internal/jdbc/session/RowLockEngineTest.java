package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The ROW engine used directly: fast twin of {@link RowLockTest} for a mutation run. */
class RowLockEngineTest extends AbstractSessionEngineTest {

    @Override
    protected SessionLockEngine engine(LockDaos daos, DataSource sessions, String owner) {
        return LockFixture.row(daos, sessions, 2, owner);
    }

    @Test
    void aSessionHoldsItsRowInAReadCommittedTransactionThatItsReleaseCommits() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());
        Connection connection = connectionOf(grant);

        assertThat(connection.getAutoCommit()).isFalse();
        assertThat(connection.getTransactionIsolation()).isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        assertThat(a.release(grant)).isNull();
        assertThat(rows()).isEqualTo(1);
    }

    private long rows() {
        return new JdbcTemplate(plain)
                .queryForObject(
                        "SELECT COUNT(*) FROM biz_lock_row WHERE biz_id = ?",
                        Long.class,
                        key.key().getBytes(StandardCharsets.UTF_8));
    }
}
