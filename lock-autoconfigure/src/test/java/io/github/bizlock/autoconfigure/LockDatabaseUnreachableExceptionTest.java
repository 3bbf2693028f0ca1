package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.datasource.AbstractDataSource;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;

/**
 * What the report of a lock database that does not answer says: where bizlock tried, read from the DataSource without
 * its password (nor those the URL carries), what the driver and the network said, and whether the server refused the credentials.
 */
class LockDatabaseUnreachableExceptionTest {

    private static final String URL = "jdbc:mysql://db.example:3306/app";

    /** A DataSource with no URL property at all. */
    private static class NoUrl extends AbstractDataSource {

        @Override
        public Connection getConnection() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Connection getConnection(String username, String password) {
            throw new UnsupportedOperationException();
        }
    }

    /** A DataSource whose URL getter fails. */
    public static class FailingUrl extends NoUrl {

        public String getUrl() {
            throw new IllegalStateException("not configured");
        }
    }

    private static CannotGetJdbcConnectionException refused() {
        return new CannotGetJdbcConnectionException(
                "Failed to obtain JDBC Connection",
                new SQLException("Communications link failure", "08S01", new ConnectException("Connection refused")));
    }

    @Test
    void namesTheUrlOfADriverDataSourceAndWhatTheDriverAndTheNetworkSaid() {
        DataSource dataSource = new SimpleDriverDataSource();
        ((SimpleDriverDataSource) dataSource).setUrl(URL);

        LockDatabaseUnreachableException ex = LockDatabaseUnreachableException.of(dataSource, refused());

        assertThat(ex.url()).isEqualTo(URL);
        assertThat(ex.reason()).isEqualTo("Communications link failure (Connection refused)");
        assertThat(ex)
                .hasMessage("bizlock could not connect to the lock database at " + URL
                        + ": Communications link failure (Connection refused)");
        assertThat(ex.credentialsRefused()).isFalse();
    }

    @Test
    void masksThePasswordsAUrlCarries() {
        SimpleDriverDataSource dataSource = new SimpleDriverDataSource();
        dataSource.setUrl("jdbc:mysql://app:secret@db.example:3306/app?password=secret&useSSL=true");

        LockDatabaseUnreachableException ex = LockDatabaseUnreachableException.of(dataSource, refused());

        assertThat(ex.url()).isEqualTo("jdbc:mysql://app:******@db.example:3306/app?password=******&useSSL=true");
        assertThat(ex.getMessage()).doesNotContain("secret");
        assertThat(LockDatabaseUnreachableException.whyNotReady(ex)).doesNotContain("secret");
    }

    @Test
    void goesWithoutTheUrlWhenTheDataSourceDoesNotTellIt() {
        for (DataSource dataSource : new DataSource[] {new NoUrl(), new FailingUrl()}) {
            LockDatabaseUnreachableException ex = LockDatabaseUnreachableException.of(dataSource, refused());

            assertThat(ex.url()).as(dataSource.getClass().getSimpleName()).isNull();
            assertThat(ex)
                    .hasMessage("bizlock could not connect to the lock database: Communications link failure"
                            + " (Connection refused)");
        }
    }

    @Test
    void saysTheNetworksWordOnlyWhenTheDriverDidNotSayItAlready() {
        SQLException driverOnly = new SQLException("Connection refused by the server");
        assertThat(LockDatabaseUnreachableException.of(
                                new NoUrl(), new CannotGetJdbcConnectionException("x", driverOnly))
                        .reason())
                .isEqualTo("Connection refused by the server");

        SQLException saysIt = new SQLException(
                "Could not connect: Connection refused", "08001", new ConnectException("Connection refused"));
        assertThat(LockDatabaseUnreachableException.of(new NoUrl(), saysIt).reason())
                .isEqualTo("Could not connect: Connection refused");

        // No SQLException at all: the innermost failure's words.
        RuntimeException plain = new IllegalStateException("outer", new IllegalArgumentException("inner"));
        assertThat(LockDatabaseUnreachableException.of(new NoUrl(), plain).reason())
                .isEqualTo("inner");
    }

    @Test
    void credentialsAreRefusedByErrorCodeOrSqlState() {
        SQLException byCode = new SQLException("Access denied for user 'app'", "HY000", 1045);
        SQLException byState = new SQLException("Access denied", "28000", 0);
        SQLException other = new SQLException("Too many connections", "08004", 1040);

        assertThat(LockDatabaseUnreachableException.of(new NoUrl(), new CannotGetJdbcConnectionException("x", byCode))
                        .credentialsRefused())
                .isTrue();
        assertThat(LockDatabaseUnreachableException.of(new NoUrl(), byState).credentialsRefused())
                .isTrue();
        assertThat(LockDatabaseUnreachableException.of(new NoUrl(), other).credentialsRefused())
                .isFalse();
    }
}
