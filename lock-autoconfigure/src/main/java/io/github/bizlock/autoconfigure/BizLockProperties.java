package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.aop.DistributedLockAdvisor;
import io.github.bizlock.internal.jdbc.dialect.TableName;
import io.github.bizlock.internal.lock.InstanceId;
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
    private Duration watchdogLease = Duration.ofSeconds(30);

    /** Whether threads of one instance get a contended lock in the order they asked for it. */
    private boolean fair = false;

    /**
     * How often a lock may pass straight from one thread of this instance to another that waits for it, without a
     * round trip, before it is released for other instances (and never later than 100 ms after it was taken); 0
     * releases it every time.
     */
    private int localHandoffs = 16;

    /** Owner id written into lock rows, unique per process; unset means host:pid:random. */
    private @Nullable String instanceId;

    /** Name of the lock table (letters, digits and underscores), in the DataSource's schema. */
    private String tableName = "biz_lock";

    /** Order of the @DistributedLock advisor; it must be lower (outer) than the transaction advisor's. */
    private int advisorOrder = DEFAULT_ADVISOR_ORDER;

    /** What happens to the work under a lock that is lost while held, unless @DistributedLock or LockOptions say. */
    private LockLostPolicy onLost = LockLostPolicy.LOG;

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
        this.waitTime = notNegative(waitTime, "bizlock.wait-time");
    }

    public @Nullable Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(@Nullable Duration leaseTime) {
        if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
            throw new IllegalArgumentException("bizlock.lease-time must be positive, was " + leaseTime
                    + "; leave it unset to have the watchdog renew leases");
        }
        this.leaseTime = leaseTime;
    }

    public Duration getWatchdogLease() {
        return watchdogLease;
    }

    public void setWatchdogLease(Duration watchdogLease) {
        this.watchdogLease = watchdogLease;
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
        if (localHandoffs < 0) {
            throw new IllegalArgumentException(
                    "bizlock.local-handoffs must be 0 (release every time) or more, was " + localHandoffs);
        }
        this.localHandoffs = localHandoffs;
    }

    public @Nullable String getInstanceId() {
        return instanceId;
    }

    public void setInstanceId(@Nullable String instanceId) {
        this.instanceId = instanceId != null ? InstanceId.validate(instanceId) : null;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = TableName.validate(tableName);
    }

    public int getAdvisorOrder() {
        return advisorOrder;
    }

    public void setAdvisorOrder(int advisorOrder) {
        this.advisorOrder = advisorOrder;
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

    static Duration notNegative(Duration duration, String property) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException(property + " must not be negative, was " + duration);
        }
        return duration;
    }
}
