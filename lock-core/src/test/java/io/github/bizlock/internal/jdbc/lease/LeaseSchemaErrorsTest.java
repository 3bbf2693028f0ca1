package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LockDaos;
import io.github.bizlock.internal.jdbc.dialect.Dialects;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.test.TestDatabaseExtension;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** R15: a missing or unsafe lock table fails with what to do about it. */
@ExtendWith(TestDatabaseExtension.class)
class LeaseSchemaErrorsTest {

    @Test
    void missingTableFailsWithTheDdlToRun(DataSource dataSource) throws Exception {
        LockDaos daos = LockDaos.of(
                dataSource, new DataSourceTransactionManager(dataSource), Dialects.detect(dataSource, "no_such_lock"));
        assertThatThrownBy(daos.schema()::verify)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CREATE TABLE no_such_lock");
        try (LockManager manager =
                LockFixture.manager(daos, InstanceId.generate()).build()) {
            assertThatThrownBy(() -> manager.tryAcquire(new LockKey("x", "1"), LockMode.LEASE, Duration.ZERO, null))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not exist")
                    .hasMessageContaining("CREATE TABLE no_such_lock");
            org.assertj.core.api.Assertions.assertThat(manager.activeThreadCount())
                    .isZero();
        }
    }

    @Test
    void unsafeTableNameIsRefused(DataSource dataSource) {
        // The dialect checks the name it puts into every statement.
        assertThatThrownBy(() -> LockDaos.of(
                        dataSource,
                        new DataSourceTransactionManager(dataSource),
                        Dialects.detect(dataSource, "biz_lock; DROP TABLE x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain SQL identifier");
    }
}
