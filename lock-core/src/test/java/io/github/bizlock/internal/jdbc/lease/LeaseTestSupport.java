package io.github.bizlock.internal.jdbc.lease;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.bizlock.LockFixture;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.test.TestDatabase;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;

/** Helpers of the LEASE-only tests: direct looks at and edits of lease rows, extra data sources. */
final class LeaseTestSupport {

    private LeaseTestSupport() {}

    static LockRow row(LeaseDao dao, LockKey key) {
        return dao.find(key).orElseThrow(() -> new AssertionError("No lease row for " + key));
    }

    /** Makes the row's lease end a second ago, as if its holder had stopped renewing it (a long pause). */
    static int expire(DataSource dataSource, LockKey key) {
        return new JdbcTemplate(dataSource)
                .update(
                        "UPDATE biz_lock SET expire_at = UTC_TIMESTAMP(6) - INTERVAL 1 SECOND"
                                + " WHERE biz_type = ? AND biz_id = ?",
                        bytes(key.name()),
                        bytes(key.key()));
    }

    static byte[] bytes(String text) {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** A separate small pool on the test database, with extra URL parameters and connection settings. */
    static HikariDataSource dataSource(TestDatabase database, String extraUrlParameters, Consumer<HikariConfig> more) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl() + (extraUrlParameters.isEmpty() ? "" : "&" + extraUrlParameters));
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(0);
        more.accept(config);
        return new HikariDataSource(config);
    }

    static LeaseDao dao(DataSource dataSource) {
        return LockFixture.dao(dataSource);
    }
}
