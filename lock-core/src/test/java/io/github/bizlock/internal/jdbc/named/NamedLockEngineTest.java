package io.github.bizlock.internal.jdbc.named;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.BizLockDao;
import io.github.bizlock.internal.jdbc.session.AbstractSessionEngineTest;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import java.sql.Connection;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** The NAMED engine used directly: fast twin of {@link NamedLockTest} for a mutation run. */
class NamedLockEngineTest extends AbstractSessionEngineTest {

    @Override
    protected SessionLockEngine engine(BizLockDao dao, DataSource sessions, String owner) {
        return new NamedLockEngine(dao, sessions, 2, owner);
    }

    @Test
    void theServerLockNameIsTheHexSha256OfTableNameAndKeyKeepingCase() {
        NamedLockEngine engine = (NamedLockEngine) a;

        String name = engine.serverLockName(new LockKey("order", "42"));

        // sha256 of "biz_lock", NUL, "order", NUL, "42"
        assertThat(name)
                .isEqualTo("f6de5b5155f82a0d1b955d7dfb44e2c0fba7dd340ebeb12273b076f7af595e6a")
                .isNotEqualTo(engine.serverLockName(new LockKey("Order", "42")))
                .isNotEqualTo(engine.serverLockName(new LockKey("order4", "2")));
    }

    @Test
    void aSessionRunsInAutocommitAndItsLockIsTheServersNamedLock() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());
        Connection connection = connectionOf(grant);

        assertThat(connection.getAutoCommit()).isTrue();
        Long holder = new JdbcTemplate(plain)
                .queryForObject("SELECT IS_USED_LOCK(?)", Long.class, ((NamedLockEngine) a).serverLockName(key));
        assertThat(holder).isEqualTo(connectionIdOf(grant));
        assertThat(a.release(grant)).isNull();
        Long after = new JdbcTemplate(plain)
                .queryForObject("SELECT IS_USED_LOCK(?)", Long.class, ((NamedLockEngine) a).serverLockName(key));
        assertThat(after).isNull();
    }
}
