package io.github.bizlock.internal.jdbc.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LossCause;
import io.github.bizlock.ThreadPerTask;
import io.github.bizlock.internal.engine.Grant;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A ROW or NAMED engine used directly, two engines (two processes) on one database, with waits of a few hundred
 * milliseconds at most: the engine's own steps (take, busy, wait to the deadline, release, heartbeat, tokens) without
 * the lock manager, its watchdog or a heartbeat's second. {@link AbstractSessionLockTest} covers the same through the
 * lock template, with real heartbeats.
 */
public abstract class AbstractSessionEngineTest extends SessionEngineFixture<SessionLockEngine> {

    private static final long SHORT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

    @Test
    public void aFreeLockIsTakenWithoutWaitingAndHeldOnItsSession() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, System.nanoTime() - 1);

        assertThat(grant).isNotNull();
        assertThat(grant.key()).isEqualTo(key);
        assertThat(grant.owner()).isEqualTo("a");
        assertThat(a.heldSessions()).isEqualTo(1);
        assertThat(a.release(grant)).isNull();
        assertThat(a.heldSessions()).isZero();
    }

    @Test
    public void aLockHeldByAnotherSessionIsBusyWithoutWaitingAndFreeAfterItsRelease() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());

        assertThat(b.acquire(key, LEASE, 0, System.nanoTime() - 1)).isNull();
        assertThat(b.heldSessions()).isZero();

        assertThat(a.release(held)).isNull();
        Grant next = b.acquire(key, LEASE, 0, System.nanoTime() - 1);
        assertThat(next).isNotNull();
        b.release(next);
    }

    @Test
    public void aWaitForAHeldLockEndsAtItsDeadlineHoldingNothing() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());

        assertThat(b.acquire(key, LEASE, 0, System.nanoTime() + SHORT_WAIT_NANOS))
                .isNull();

        assertThat(b.heldSessions()).isZero();
        a.release(held);
        // The ended wait left its session holding nothing: a reused session takes the lock at once.
        Grant next = b.acquire(key, LEASE, 0, System.nanoTime() - 1);
        assertThat(next).isNotNull();
        Grant other = a.acquire(key, LEASE, 0, System.nanoTime() - 1);
        assertThat(other).isNull();
        b.release(next);
    }

    @Test
    public void aWaiterTakesTheLockWhenItIsReleased() throws Exception {
        Grant held = a.acquire(key, LEASE, 0, in5s());
        CompletableFuture<Grant> waiting = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return b.acquire(key, LEASE, 0, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
                    } catch (InterruptedException ex) {
                        throw new IllegalStateException(ex);
                    }
                },
                ThreadPerTask.EXECUTOR);
        Await.until("the waiter has borrowed its session", Duration.ofSeconds(10), () -> b.heldSessions() == 1);

        a.release(held);

        Grant next = waiting.get(30, TimeUnit.SECONDS);
        assertThat(next).isNotNull();
        assertThat(b.release(next)).isNull();
    }

    @Test
    public void differentKeysAreDifferentLocks() throws Exception {
        Grant first = a.acquire(key, LEASE, 0, in5s());
        Grant second = b.acquire(new LockKey(key.name(), key.key().toUpperCase() + "x"), LEASE, 0, in5s());

        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        a.release(first);
        b.release(second);
    }

    @Test
    public void aHeartbeatFindsAHeldLockAndReportsItsSessionKilled() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());
        assertThat(a.renew(List.of(grant))).isEmpty();

        kill(connectionIdOf(grant));

        Await.until(
                "the heartbeat reports the lock lost",
                Duration.ofSeconds(10),
                () -> !a.renew(List.of(grant)).isEmpty());
        Map<Grant, Loss> gone = a.renew(List.of(grant));
        assertThat(gone.get(grant).cause()).isEqualTo(LossCause.SESSION_ENDED);
        assertThat(a.release(grant)).isNotNull();
        assertThat(a.heldSessions()).isZero();
        // The server freed the lock with the session.
        Grant next = b.acquire(key, LEASE, 0, in5s());
        assertThat(next).isNotNull();
        b.release(next);
    }

    @Test
    public void tokensIssuedForAHeldLockRise() throws Exception {
        Grant grant = a.acquire(key, LEASE, 0, in5s());

        long first = a.issueTokens(grant, 1);
        long second = a.issueTokens(grant, 3);

        assertThat(first).isPositive();
        assertThat(second).isEqualTo(first + 3);
        a.release(grant);
    }

    @Test
    public void aReleasedSessionIsReusedForTheNextLock() throws Exception {
        Grant first = a.acquire(key, LEASE, 0, in5s());
        long connection = connectionIdOf(first);
        a.release(first);

        Grant second = a.acquire(new LockKey(key.name(), key.key() + "-2"), LEASE, 0, in5s());

        assertThat(connectionIdOf(second)).isEqualTo(connection);
        a.release(second);
    }

    protected static Connection connectionOf(Grant grant) {
        return ((SessionGrant) grant).session().connection();
    }

    private void kill(long connectionId) throws SQLException {
        try (Connection other = plain.getConnection();
                Statement statement = other.createStatement()) {
            statement.execute("KILL " + connectionId);
        }
    }
}
