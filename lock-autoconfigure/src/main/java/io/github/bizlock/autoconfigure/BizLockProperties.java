package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.service.LockDefaults;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/** Configuration of bizlock's distributed locks. */
@ConfigurationProperties("bizlock")
public class BizLockProperties {

    /** The default advisor order: outside the transaction advisor, whose default is the lowest precedence. */
    public static final int DEFAULT_ADVISOR_ORDER = DistributedLockAdvisor.DEFAULT_ORDER;

    /** Whether to enable bizlock's locks, the @DistributedLock annotation and the lock table's migration. */
    private boolean enabled = true;

    /**
     * Whether the application fails to start when the lock database does not answer at start-up; when false, it
     * starts and every lock fails, saying why, until the database answers.
     */
    private boolean failFast = false;

    /** Name of the DataSource bean that holds the lock table, when the application has several. */
    private @Nullable String datasource;

    /**
     * Lock mode of locks that do not choose one; each lock name keeps the mode of its first acquisition, cluster-wide.
     */
    private LockMode mode = LockMode.LEASE;

    /** How long to wait for a lock held elsewhere when the caller does not say; 0 means a single attempt. */
    private Duration waitTime = Duration.ZERO;

    /** Fixed lease of locks that do not set one; unset means a watchdog renews the lease while the holder runs. */
    private @Nullable Duration leaseTime;

    /** Lease of watchdog-renewed locks, renewed every third of it; a crashed holder's lock frees after it. */
    private Duration watchdogLease = LockDefaults.WATCHDOG_LEASE;

    /**
     * How long holders get to unlock when the application stops; the locks still held then are reported lost to their
     * holders and released, so other instances need not wait for their leases. New acquisitions are refused from the
     * start of the shutdown.
     */
    private Duration shutdownGracePeriod = Duration.ofSeconds(10);

    /** Whether threads of one instance get a contended lock in the order they asked for it. */
    private boolean fair = LockDefaults.FAIR;

    /**
     * How often a lock may pass straight from one thread of this instance to another that waits for it, without a
     * round trip, before it is released for other instances (and never later than 100 ms after it was taken); 0
     * releases it every time.
     */
    private int localHandoffs = LockDefaults.LOCAL_HANDOFFS;

    /**
     * Whether LEASE waiters queue on the database server and are woken by a release, the longest waiter first, rather
     * than only polling with the backoff; on one server (with its replicas), with up to 8 connections of the session
     * connections. On a multi-writer cluster waiters poll anyway.
     */
    private boolean wakeUp = LockDefaults.WAKE_UP;

    /**
     * Name of this instance in lock rows, e.g. the pod's name, to which a random part is added (name:random) so that
     * replicas sharing it stay distinct owners; unset means host:pid:random.
     */
    private @Nullable String instanceId;

    /** Name of the lock table (letters, digits and underscores, at most 47), in the DataSource's schema. */
    private String tableName = LockDefaults.TABLE_NAME;

    /** Order of the @DistributedLock advisor; it must be lower (outer) than the transaction advisor's. */
    private int advisorOrder = DEFAULT_ADVISOR_ORDER;

    /** What happens to the work under a lock that is lost while held, unless @DistributedLock or LockOptions say. */
    private LockLostPolicy onLost = LockLostPolicy.LOG;

    /**
     * Whether to refuse a @DistributedLock call inside a transaction open before it at REPEATABLE READ or the default
     * isolation, whose snapshot may hide the previous holder's commit, instead of warning once per method.
     */
    private boolean refuseInSnapshotTransaction;

    @NestedConfigurationProperty
    private final BizLockMetricsProperties metrics = new BizLockMetricsProperties();

    @NestedConfigurationProperty
    private final BizLockEndpointProperties endpoint = new BizLockEndpointProperties();

    @NestedConfigurationProperty
    private final BizLockBackoffProperties backoff = new BizLockBackoffProperties();

    @NestedConfigurationProperty
    private final BizLockMigrationProperties migration = new BizLockMigrationProperties();

    @NestedConfigurationProperty
    private final BizLockHousekeepingProperties housekeeping = new BizLockHousekeepingProperties();

    @NestedConfigurationProperty
    private final BizLockClusterProperties cluster = new BizLockClusterProperties();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean isFailFast() {
        return failFast;
    }

    public void setFailFast(boolean failFast) {
        this.failFast = failFast;
    }

    public @Nullable String getDatasource() {
        return datasource;
    }

    public void setDatasource(@Nullable String datasource) {
        this.datasource = datasource;
    }

    public LockMode getMode() {
        return mode;
    }

    public void setMode(LockMode mode) {
        this.mode = mode;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = PropertyChecks.notNegative(
                "bizlock.wait-time",
                waitTime,
                "Set bizlock.wait-time to 0 (a single attempt) or a positive duration such as 3s, or remove it");
    }

    public @Nullable Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(@Nullable Duration leaseTime) {
        this.leaseTime = leaseTime != null ? PropertyChecks.leaseTime(leaseTime) : null;
    }

    public Duration getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    public void setShutdownGracePeriod(Duration shutdownGracePeriod) {
        this.shutdownGracePeriod = PropertyChecks.notNegative(
                "bizlock.shutdown-grace-period",
                shutdownGracePeriod,
                "Set bizlock.shutdown-grace-period to 0s (release at once) or more, such as 10s, or remove it");
    }

    public Duration getWatchdogLease() {
        return watchdogLease;
    }

    public void setWatchdogLease(Duration watchdogLease) {
        this.watchdogLease = PropertyChecks.watchdogLease(watchdogLease);
    }

    public boolean isWakeUp() {
        return wakeUp;
    }

    public void setWakeUp(boolean wakeUp) {
        this.wakeUp = wakeUp;
    }

    public boolean isFair() {
        return fair;
    }

    public void setFair(boolean fair) {
        this.fair = fair;
    }

    public int getLocalHandoffs() {
        return localHandoffs;
    }

    public void setLocalHandoffs(int localHandoffs) {
        this.localHandoffs = PropertyChecks.atLeast(
                "bizlock.local-handoffs",
                localHandoffs,
                0,
                "it must not be negative",
                "Set bizlock.local-handoffs to 0 (release every time) or more, or remove it for the default of "
                        + LockDefaults.LOCAL_HANDOFFS);
    }

    public @Nullable String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId != null ? PropertyChecks.instanceId(instanceId) : null;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = PropertyChecks.tableName(tableName);
    }

    public int getAdvisorOrder() {
        return advisorOrder;
    }

    public void setAdvisorOrder(int advisorOrder) {
        this.advisorOrder = advisorOrder;
    }

    public boolean isRefuseInSnapshotTransaction() {
        return refuseInSnapshotTransaction;
    }

    public void setRefuseInSnapshotTransaction(boolean refuseInSnapshotTransaction) {
        this.refuseInSnapshotTransaction = refuseInSnapshotTransaction;
    }

    public LockLostPolicy getOnLost() {
        return onLost;
    }

    public void setOnLost(LockLostPolicy onLost) {
        this.onLost = onLost;
    }

    public BizLockMetricsProperties getMetrics() {
        return metrics;
    }

    public BizLockEndpointProperties getEndpoint() {
        return endpoint;
    }

    public BizLockBackoffProperties getBackoff() {
        return backoff;
    }

    public BizLockMigrationProperties getMigration() {
        return migration;
    }

    public BizLockClusterProperties getCluster() {
        return cluster;
    }

    public BizLockHousekeepingProperties getHousekeeping() {
        return housekeeping;
    }
}
