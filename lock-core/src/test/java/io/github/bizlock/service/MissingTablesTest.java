package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockTest;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Lock tables that are missing, as the tools' faces tell them: a {@link LockService.Builder#prepareTables} step before
 * the service starts, and {@link BizLockDao} of a running service whose table was dropped under it. Its own class: it
 * drops a table of its database.
 */
@LockTest
class MissingTablesTest {

    @Test
    void aPrepareStepSeesTheMissingTablesAndVerifyFailsWithTheirDdl(DataSource dataSource) {
        List<String> missing = new ArrayList<>();
        assertThatThrownBy(() -> LockService.builder(dataSource)
                        .tableName("missing_lock")
                        .prepareTables(tables -> {
                            missing.addAll(tables.missingTables());
                            tables.verify();
                        })
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CREATE TABLE missing_lock");
        assertThat(missing).contains("missing_lock", "missing_lock_token_floor");
    }

    @Test
    void theDaoOfARunningServiceTellsATableDroppedUnderIt(DataSource dataSource) {
        try (LockService service =
                LockService.builder(dataSource).housekeeping(false).build()) {
            assertThat(service.dao().missingTables()).isEmpty();
            new JdbcTemplate(dataSource).execute("DROP TABLE biz_lock_row");
            assertThat(service.dao().missingTables()).containsExactly("biz_lock_row");
        }
    }
}
