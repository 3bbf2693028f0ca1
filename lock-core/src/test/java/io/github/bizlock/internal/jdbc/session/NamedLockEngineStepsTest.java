package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.bizlock.Await;
import io.github.bizlock.LockFixture;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.jdbc.LockDaos;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The NAMED engine's own steps where the shared engine tests ({@link NamedLockEngineTest}) cannot reach them: a try
 * that must not wait, a wait that ended holding a lock, a lock freed behind the session's back, a session that is not
 * the connection it was. Each engine's sessions come from a {@link SessionConnections}, so a test can run statements
 * on them and see whether the canceller had to open its kill connection. Named locks are server-wide, so every key
 * carries a random suffix.
 */
class NamedLockEngineStepsTest extends SessionEngineFixture<SessionLockEngine> {

    @Override
    protected SessionLockEngine engine(LockDaos daos, DataSource sessions, String owner) {
        return LockFixture.named(daos, sessions, 2, owner);
    }

    @Test
    void triesAnswerAtOnceWithoutAWaitToEnd() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());

        // A try is GET_LOCK(name, 0): the server answers at once, and no wait is left for the canceller to kill. A
        // try sent as a wait would be ended by KILL QUERY from the canceller's own connection, opened on first use.
        for (int i = 0; i < 20; i++) {
            assertThat(b.acquire(key, LEASE, 0, System.nanoTime() - 1)).isNull();
        }
        a.release(held);
        for (int i = 0; i < 20; i++) {
            Grant grant = b.acquire(key, LEASE, 0, System.nanoTime() - 1);
            assertThat(grant).isNotNull();
            assertThat(b.release(grant)).isNull();
        }

        assertThat(bSessions.opened())
                .as("b's session only, no kill connection")
                .isEqualTo(1);
    }

    @Test
    void aSessionConnectionHandedOutWithoutAutocommitIsSwitchedToIt() throws Exception {
        // As a pool configured with autoCommit=false hands connections out: a NAMED session must run in autocommit,
        // or the tokens it issues would stay uncommitted, holding the token row, until the session's next commit.
        SessionLockEngine engine = LockFixture.named(daos, new WithoutAutocommit(aSessions), 1, "c");
        try {
            Grant grant = engine.acquire(key, LEASE, 0, in5s());

            assertThat(aSessions.connection(0).getAutoCommit()).isTrue();
            engine.release(grant);
        } finally {
            engine.close();
        }
    }

    @Test
    void aWaitEndedAtItsDeadlineLeavesItsSessionHoldingNoNamedLockAtAll() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(NamedSteps.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        Level level = log.getLevel();
        log.setLevel(Level.DEBUG);
        log.addAppender(events);
        try {
            Grant held = a.acquire(key, LEASE, 0, in5s());
            LockKey other = new LockKey(key.name(), key.key() + "-other");
            Grant first = b.acquire(other, LEASE, 0, in5s());
            String stray = "stray-" + UUID.randomUUID();
            // A GET_LOCK granted in the instant the canceller ended it leaves its session holding a lock nobody knows
            // of; the test cannot time that race, so b's session takes a named lock behind the engine's back.
            assertThat(queryLong(bSessions.connection(0), "SELECT GET_LOCK('" + stray + "', 0)"))
                    .isEqualTo(1);
            b.release(first);

            assertThat(b.acquire(key, LEASE, 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150)))
                    .isNull();

            assertThat(bSessions.opened()).as("the same session waited").isEqualTo(2); // its own and the kill one
            assertThat(usedBy(stray)).as("freed by RELEASE_ALL_LOCKS").isNull();
            assertThat(events.list)
                    .singleElement()
                    .satisfies(event -> assertThat(event.getFormattedMessage()).contains("had been granted; released"));

            // A wait that ended holding nothing has nothing to report.
            assertThat(b.acquire(key, LEASE, 0, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100)))
                    .isNull();
            assertThat(events.list).hasSize(1);
            a.release(held);
        } finally {
            log.detachAppender(events);
            log.setLevel(level);
        }
    }

    @Test
    void aWaitEndedByAnInterruptLeavesItsSessionHoldingNoNamedLockAtAll() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());
        Grant first = b.acquire(new LockKey(key.name(), key.key() + "-other"), LEASE, 0, in5s());
        String stray = "stray-" + UUID.randomUUID();
        // As at a deadline: a GET_LOCK granted in the instant the interrupt ended it, which a test cannot time.
        assertThat(queryLong(bSessions.connection(0), "SELECT GET_LOCK('" + stray + "', 0)"))
                .isEqualTo(1);
        b.release(first);
        AtomicReference<Thread> thread = new AtomicReference<>();
        CompletableFuture<Grant> waiting = CompletableFuture.supplyAsync(
                () -> {
                    thread.set(Thread.currentThread());
                    try {
                        return b.acquire(key, LEASE, 0, in5s());
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        String name = a.serverLockName(key);
        Await.until(
                "b's GET_LOCK waits",
                Duration.ofSeconds(5),
                () -> new JdbcTemplate(plain)
                                .queryForObject(
                                        "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ?",
                                        Long.class,
                                        "%GET_LOCK('" + name + "'%")
                        == 1);

        thread.get().interrupt();

        assertThatThrownBy(() -> waiting.get(10, TimeUnit.SECONDS)).hasRootCauseInstanceOf(InterruptedException.class);
        assertThat(usedBy(stray)).as("freed by RELEASE_ALL_LOCKS").isNull();
        a.release(held);
    }

    @Test
    void aHeartbeatReportsALockItsSessionNoLongerHoldsAndItsReleaseLeavesTheNextHolderAlone() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());
        String name = a.serverLockName(key);
        assertThat(a.renew(List.of(grant))).isEmpty();

        // Freed on the session itself behind the engine's back (as a RELEASE_ALL_LOCKS would): the session answers,
        // but no longer holds the lock, and another session takes it.
        assertThat(queryLong(aSessions.connection(0), "SELECT RELEASE_LOCK('" + name + "')"))
                .isEqualTo(1);
        Grant next = b.acquire(key, LEASE, 0, System.nanoTime() - 1);
        assertThat(next).isNotNull();

        Map<Grant, Loss> gone = a.renew(List.of(grant));
        assertThat(gone).containsKey(grant);
        assertThat(gone.get(grant).cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(a.release(grant))
                .as("RELEASE_LOCK answered 0: held by another")
                .isNotNull();
        assertThat(usedBy(name)).isEqualTo(queryLong(bSessions.connection(0), "SELECT CONNECTION_ID()"));
        assertThat(b.renew(List.of(next))).isEmpty();
        assertThat(b.release(next)).isNull();
    }

    @Test
    void aSessionThatAnswersAsAnotherConnectionIsNotTrustedWithItsLock() throws Exception {
        aSessions.answerConnectionIdAsAnother();

        assertThatThrownBy(() -> a.acquire(key, LEASE, 0, in5s()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("reconnected");

        // The session was closed, and the server freed the lock its GET_LOCK took.
        assertThat(a.heldSessions()).isZero();
        Grant next = b.acquire(key, LEASE, 0, in5s());
        assertThat(next).isNotNull();
        b.release(next);
    }

    private @Nullable Long usedBy(String serverLockName) {
        return new JdbcTemplate(plain).queryForObject("SELECT IS_USED_LOCK(?)", Long.class, serverLockName);
    }

    /** Hands connections out with autocommit off. */
    private static final class WithoutAutocommit extends DelegatingDataSource {

        WithoutAutocommit(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = super.getConnection();
            connection.setAutoCommit(false);
            return connection;
        }
    }

    @Test
    void onAMultiWriterClusterTheRefusalNamesTheModeAndItsLockStatement() {
        assertRefusedOnAMultiWriterCluster(LockMode.NAMED, "GET_LOCK");
    }
}
