package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * Without HikariCP on the class path, LEASE writes still get connections of their own: bizlock's small pool of plain
 * connections derived from the lock DataSource's URL and credentials, not the application's DataSource.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockConnectionsWithoutHikariTest {

    @Test
    void connectionsOfTheirOwnAreDerivedFromTheLockDataSource(TestDatabase database) throws Exception {
        SimpleDriverDataSource application = new SimpleDriverDataSource();
        application.setDriverClass(com.mysql.cj.jdbc.Driver.class);
        application.setUrl(database.jdbcUrl());
        application.setUsername(database.username());
        application.setPassword(database.password());

        // LockService.Builder pools these for LEASE writes when the lock DataSource is not HikariCP.
        DataSource plain = LockConnections.plain(application);

        assertThat(plain).isInstanceOf(SimpleDriverDataSource.class).isNotSameAs(application);
        try (Connection connection = plain.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT DATABASE()")) {
            row.next();
            assertThat(row.getString(1)).isEqualTo(database.name());
        }
    }

    @Test
    void aDataSourceWhoseUrlCannotBeReadNeedsACustomizer() {
        DataSource opaque = new AbstractDataSource() {
            @Override
            public Connection getConnection() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Connection getConnection(String username, String password) {
                throw new UnsupportedOperationException();
            }
        };

        assertThatIllegalStateException()
                .isThrownBy(() -> LockConnections.plain(opaque))
                .withMessageContaining("cannot read the URL and credentials of the lock DataSource")
                .withMessageContaining("BizLockServiceCustomizer");
    }
}
