package io.github.bizlock.internal.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.UncategorizedSQLException;

/** What each of the MySQL family's error codes means for a lock statement. */
class ServerErrorsTest {

    @Test
    void deadlocksAndLockWaitTimeoutsAreTransient() {
        assertThat(ServerErrors.isTransient(failure(1213))).isTrue();
        assertThat(ServerErrors.isTransient(failure(1205))).isTrue();
        assertThat(ServerErrors.isTransient(failure(1062))).isFalse();
        assertThat(ServerErrors.isTransient(failure(1047))).isFalse();
    }

    @Test
    void clusterNodesThatCannotWriteNowRefuseForNow() {
        assertThat(ServerErrors.refusedForNow(failure(1213))).isTrue();
        assertThat(ServerErrors.refusedForNow(failure(1205))).isTrue();
        assertThat(ServerErrors.refusedForNow(failure(1047))).isTrue();
        assertThat(ServerErrors.refusedForNow(failure(1180))).isTrue();
        assertThat(ServerErrors.refusedForNow(failure(3101)))
                .as("a multi-primary Group Replication member whose write failed certification")
                .isTrue();
        assertThat(ServerErrors.refusedForNow(failure(1062))).isFalse();
        assertThat(ServerErrors.refusedForNow(failure(1146))).isFalse();
    }

    @Test
    void aConnectionFailureIsTheSqlStateClass08OfTheFirstSqlException() {
        SQLException linkFailure = new SQLException("Communications link failure", "08S01");
        assertThat(ServerErrors.connectionFailed(new DataAccessResourceFailureException("write", linkFailure)))
                .isTrue();
        assertThat(ServerErrors.connectionFailed(
                        new DataAccessResourceFailureException("write", new RuntimeException("wrapped", linkFailure))))
                .isTrue();
        assertThat(ServerErrors.connectionFailed(
                        new DataAccessResourceFailureException("write", new SQLException("dup", "23000", 1062))))
                .isFalse();
        assertThat(ServerErrors.connectionFailed(
                        new DataAccessResourceFailureException("write", new SQLException("no state"))))
                .isFalse();
        assertThat(ServerErrors.connectionFailed(new DataAccessResourceFailureException("no SQL exception")))
                .isFalse();
    }

    @Test
    void refusedCredentialsAreToldByTheirCodeOrSqlStateAnywhereInTheCauses() {
        SQLException byCode = new SQLException("Access denied for user 'app'@'localhost'", "HY000", 1045);
        assertThat(ServerErrors.credentialsRefused(new IllegalStateException("start", byCode)))
                .isTrue();
        assertThat(ServerErrors.credentialsRefused(new SQLException("denied", "28000", 0)))
                .isTrue();
        assertThat(ServerErrors.credentialsRefused(new SQLException("Connection refused", "08S01", 0)))
                .isFalse();
        assertThat(ServerErrors.credentialsRefused(new RuntimeException("no SQL exception")))
                .isFalse();
    }

    @Test
    void missingRightsOnADatabaseOrTableAreToldWithTheServersOwnRefusal() {
        SQLException table = new SQLException("CREATE command denied", "42000", 1142);
        SQLException database = new SQLException("Access denied for user to database", "42000", 1044);
        assertThat((Throwable) ServerErrors.rightsRefused(new RuntimeException("migrate", table)))
                .isSameAs(table);
        assertThat((Throwable)
                        ServerErrors.rightsRefused(new RuntimeException("wrapped", new RuntimeException(database))))
                .isSameAs(database);
        assertThat((Throwable) ServerErrors.rightsRefused(new SQLException("Access denied", "28000", 1045)))
                .as("refused credentials are not missing rights")
                .isNull();
        assertThat((Throwable) ServerErrors.rightsRefused(failure(1062))).isNull();
    }

    @Test
    void aTransactionRolledBackForAConflictIsToldByItsCodeOrSqlStateAnywhereInTheCauses() {
        assertThat(ServerErrors.rolledBackForConflict(
                        new RuntimeException("migrate", new SQLException("x", "HY000", 1213))))
                .isTrue();
        assertThat(ServerErrors.rolledBackForConflict(new SQLException("serialization failure", "40001", 0)))
                .isTrue();
        assertThat(ServerErrors.rolledBackForConflict(new RuntimeException(
                        "first", new SQLException("dup", "23000", 1062, new SQLException("x", "40001")))))
                .as("a later SQL exception of the causes counts")
                .isTrue();
        assertThat(ServerErrors.rolledBackForConflict(failure(1205))).isFalse();
    }

    @Test
    void aDuplicateKeyAndAMissingTableOrColumnAreToldByTheirCodes() {
        assertThat(ServerErrors.duplicateKey(failure(1062))).isTrue();
        assertThat(ServerErrors.duplicateKey(failure(1205))).isFalse();
        assertThat(ServerErrors.missingTable(failure(1146))).isTrue();
        assertThat(ServerErrors.missingTable(failure(1054))).isTrue();
        assertThat(ServerErrors.missingTable(failure(1062))).isFalse();
        assertThat(ServerErrors.errorCode(new RuntimeException("no SQL exception")))
                .isZero();
    }

    @Test
    void aJdbcFailureIsTranslatedByItsErrorCode() {
        assertThat(ServerErrors.translate("inserting", new SQLException("Duplicate entry", "23000", 1062)))
                .isInstanceOf(DuplicateKeyException.class);
        assertThat(ServerErrors.translate("anything", new SQLException("no code")))
                .isInstanceOf(UncategorizedSQLException.class);
    }

    /** A failure as the server reports it, with its error code, translated as every write's is. */
    private static DataAccessException failure(int errorCode) {
        return ServerErrors.translate("test", new SQLException("error " + errorCode, "HY000", errorCode));
    }
}
