package io.github.bizlock.service;

import io.github.bizlock.LockLostListener;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.jdbc.lease.Backoff;
import io.github.bizlock.internal.lock.InstanceId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/** What {@link LockService.Builder} was told, starting from {@link LockDefaults}; {@link ServiceAssembly} reads it. */
final class ServiceSettings {

    final DataSource dataSource;
    LockMode defaultMode = LockMode.LEASE;
    String tableName = LockDefaults.TABLE_NAME;
    String instanceId = InstanceId.of(null);
    Duration waitTime = Duration.ZERO;

    @Nullable
    Duration leaseTime;

    Duration watchdogLease = LockDefaults.WATCHDOG_LEASE;
    boolean fair = LockDefaults.FAIR;
    int localHandoffs = LockDefaults.LOCAL_HANDOFFS;
    LockLostPolicy onLost = LockLostPolicy.LOG;
    Backoff backoff = Backoff.DEFAULT;
    boolean wakeUp = LockDefaults.WAKE_UP;

    @Nullable
    DataSource sessionDataSource;

    @Nullable
    DataSource lockConnections;

    int maxWriteConnections = LockDefaults.MAX_WRITE_CONNECTIONS;
    int maxSessions = LockDefaults.MAX_SESSIONS;
    Duration sessionHeartbeat = LockDefaults.SESSION_HEARTBEAT;

    @Nullable
    String namedSecret;

    boolean singleWriter;
    boolean housekeeping = true;
    Duration housekeepingInterval = LockDefaults.HOUSEKEEPING_INTERVAL;
    Duration housekeepingRetention = LockDefaults.HOUSEKEEPING_RETENTION;
    int housekeepingBatchSize = LockDefaults.HOUSEKEEPING_BATCH_SIZE;
    final List<LockLostListener> listeners = new ArrayList<>();
    final List<LockObserver> observers = new ArrayList<>();
    final List<Consumer<LockTables>> tableSteps = new ArrayList<>();

    ServiceSettings(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    static int atLeastOne(String setting, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(setting + " must be at least 1, was " + value);
        }
        return value;
    }

    static Duration positive(String setting, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(setting + " must be positive, was " + value);
        }
        return value;
    }

    static String notBlank(String setting, String value) {
        if (value.isBlank()) {
            throw new IllegalArgumentException(setting + " must not be blank");
        }
        return value;
    }
}
