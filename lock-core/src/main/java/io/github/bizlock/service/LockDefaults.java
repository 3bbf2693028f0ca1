package io.github.bizlock.service;

import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.jdbc.session.SessionLockEngine;
import io.github.bizlock.internal.jdbc.session.WakeLocks;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;

/**
 * The defaults and limits of {@link LockService.Builder}'s settings, written once: the Spring Boot starter's
 * {@code bizlock.*} properties start from them and check against them.
 */
public final class LockDefaults {

    /** The lock table's name. */
    public static final String TABLE_NAME = TableName.DEFAULT;

    /** The longest lock table name: the other tables' names add a suffix, within the server's 64 characters. */
    public static final int TABLE_NAME_MAX_LENGTH = TableName.MAX_LENGTH;

    /** The longest instance id, its random part included. */
    public static final int INSTANCE_ID_MAX_LENGTH = InstanceId.MAX_LENGTH;

    /** The lease of watchdog-renewed locks. */
    public static final Duration WATCHDOG_LEASE = LockManager.DEFAULT_WATCHDOG_LEASE;

    /** The shortest watchdog lease: it is renewed every third of it. */
    public static final Duration MIN_WATCHDOG_LEASE = LockManager.MIN_WATCHDOG_LEASE;

    /** Whether threads of one process get a contended lock in the order they asked for it. */
    public static final boolean FAIR = LockManager.DEFAULT_FAIR;

    /** How often a lock may pass straight to a waiting thread of the same process before it is released. */
    public static final int LOCAL_HANDOFFS = LockManager.DEFAULT_LOCAL_HANDOFFS;

    /** The first pause between attempts on a LEASE lock held elsewhere. */
    public static final Duration BACKOFF_INITIAL = Backoff.DEFAULT.initial();

    /** The longest pause between attempts on a LEASE lock held elsewhere. */
    public static final Duration BACKOFF_MAX = Backoff.DEFAULT.max();

    /**
     * Whether LEASE waiters of other processes queue on the server and are woken by a release, in arrival order, where
     * the deployment allows it (one server; needs the session DataSource); otherwise they poll with the backoff.
     */
    public static final boolean WAKE_UP = true;

    /** The most connections a process holds for waking LEASE waiters. */
    public static final int MAX_WAKE_CONNECTIONS = WakeLocks.MAX_SESSIONS;

    /** The size of the pool bizlock makes for LEASE writes, renewals and fencing tokens. */
    public static final int MAX_WRITE_CONNECTIONS = LockWriteConnections.SIZE;

    /** The most connections ROW and NAMED locks hold at once, per mode. */
    public static final int MAX_SESSIONS = 10;

    /** How often a held ROW or NAMED lock's session is checked. */
    public static final Duration SESSION_HEARTBEAT = SessionLockEngine.DEFAULT_HEARTBEAT;

    /** How often housekeeping runs. */
    public static final Duration HOUSEKEEPING_INTERVAL = Duration.ofMinutes(10);

    /** How long a free or expired lock's row is kept. */
    public static final Duration HOUSEKEEPING_RETENTION = Duration.ofHours(1);

    /** The most rows housekeeping deletes per statement. */
    public static final int HOUSEKEEPING_BATCH_SIZE = 500;

    private LockDefaults() {}

    /**
     * The name, if it can name the lock table.
     *
     * @throws IllegalArgumentException saying why not: blank, too long, or not letters, digits and underscores that
     *     start with a letter or underscore
     */
    public static String checkTableName(String name) {
        return TableName.validate(name);
    }

    /**
     * The id, if it can name an instance.
     *
     * @throws IllegalArgumentException saying why not: blank or too long
     */
    public static String checkInstanceId(String id) {
        return InstanceId.validate(id);
    }
}
