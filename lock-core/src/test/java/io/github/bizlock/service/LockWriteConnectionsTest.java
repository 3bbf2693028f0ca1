package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.github.bizlock.LockTest;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** Which connections LEASE writes run on, and the pool bizlock makes for them: opened late, closed for good. */
@LockTest
class LockWriteConnectionsTest {

    @Test
    void aPoolOfTheSessionConnectionsOpensAtItsFirstUseAndRefusesConnectionsOnceClosed(TestDatabase database)
            throws Exception {
        DataSource plain = plain(database);
        LockWriteConnections writes = LockWriteConnections.choose(plain, null, plain, 2);
        DataSource pool = writes.dataSource();
        assertThat(pool).as("a pool of its own").isNotSameAs(plain);
        assertThat(pool.toString()).isEqualTo("bizlock lock connections (not opened yet)");

        try (Connection connection = pool.getConnection()) {
            assertThat(connection.isValid(5)).isTrue();
        }
        assertThat(pool.toString()).as("the pool made").doesNotContain("not opened yet");

        writes.close();
        assertThat(refusedOnAnotherThread(pool))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("is closed");
    }

    @Test
    void aPoolClosedBeforeItsFirstUseIsNeverOpened(TestDatabase database) throws Exception {
        DataSource plain = plain(database);
        LockWriteConnections writes = LockWriteConnections.choose(plain, null, plain, 2);
        writes.close();
        // Closed on this thread; another must be refused, not left waiting for the lock the closing took.
        assertThat(refusedOnAnotherThread(writes.dataSource()))
                .isInstanceOf(SQLException.class)
                .hasMessage("bizlock's lock connections are closed: the LockService was closed");
        assertThat(writes.dataSource().toString()).isEqualTo("bizlock lock connections (not opened yet)");
    }

    private static Throwable refusedOnAnotherThread(DataSource pool) throws Exception {
        return CompletableFuture.supplyAsync(
                        () -> catchThrowable(() -> pool.getConnection().close()), ThreadPerTask.EXECUTOR)
                .get(30, TimeUnit.SECONDS);
    }

    @Test
    void givenConnectionsAreUsedAsTheyAreAndNeverClosedByBizlock(TestDatabase database) throws Exception {
        DataSource given = plain(database);
        LockWriteConnections writes = LockWriteConnections.choose(database.dataSource(), given, plain(database), 2);
        assertThat(writes.dataSource()).isSameAs(given);
        writes.close();
        try (Connection connection = given.getConnection()) {
            assertThat(connection.isValid(5)).isTrue();
        }
    }

    @Test
    void withoutAPoolToCopyOrSessionConnectionsTheWritesBorrowTheLockDataSource(TestDatabase database) {
        DataSource plain = plain(database);
        LockWriteConnections writes = LockWriteConnections.choose(plain, null, null, 2);
        assertThat(writes.dataSource()).isSameAs(plain);
        writes.close();
    }

    private static DataSource plain(TestDatabase database) {
        return new DriverManagerDataSource(database.jdbcUrl(), database.username(), database.password());
    }
}
