package io.github.bizlock.autoconfigure;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.jdbc.TableName;
import io.github.bizlock.internal.lock.InstanceId;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;

/** Configuration of bizlock's distributed locks. */
@ConfigurationProperties("bizlock")
public class BizLockProperties {

    /** The default advisor order: outside the transaction advisor, whose default is the lowest precedence. */
    public static final int DEFAULT_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

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

    private final Metrics metrics = new Metrics();

    private final Endpoint endpoint = new Endpoint();

    private final Backoff backoff = new Backoff();

    private final Migration migration = new Migration();

    private final Housekeeping housekeeping = new Housekeeping();

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

    public Metrics getMetrics() {
        return metrics;
    }

    public Endpoint getEndpoint() {
        return endpoint;
    }

    public Backoff getBackoff() {
        return backoff;
    }

    public Migration getMigration() {
        return migration;
    }

    public Housekeeping getHousekeeping() {
        return housekeeping;
    }

    private static Duration notNegative(Duration duration, String property) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException(property + " must not be negative, was " + duration);
        }
        return duration;
    }

    /** Pauses between attempts on a LEASE lock held elsewhere. */
    public static class Backoff {

        /** First pause between attempts on a lock held elsewhere; pauses double up to the maximum. */
        private Duration initial = Duration.ofMillis(5);

        /** Longest pause between attempts on a lock held elsewhere. */
        private Duration max = Duration.ofMillis(100);

        public Duration getInitial() {
            return initial;
        }

        public void setInitial(Duration initial) {
            this.initial = initial;
        }

        public Duration getMax() {
            return max;
        }

        public void setMax(Duration max) {
            this.max = max;
        }
    }

    /** The lock table's schema migration. */
    public static class Migration {

        /**
         * Whether to create and upgrade the lock table with Flyway at start-up, with a history table of its own;
         * when off, start-up fails with the DDL to run if the table is missing.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Deleting rows of locks that have been free for a while. */
    public static class Housekeeping {

        /** Whether to delete rows of locks that have been free or expired for longer than the retention. */
        private boolean enabled = true;

        /** How often housekeeping runs (on one instance at a time). */
        private Duration interval = Duration.ofMinutes(10);

        /** How long a lock row is kept after its lock was released or its lease ended. */
        private Duration retention = Duration.ofHours(1);

        /** Most rows deleted per statement. */
        private int batchSize = 500;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = notNegative(retention, "bizlock.housekeeping.retention");
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** Micrometer metrics and observations of locks. */
    public static class Metrics {

        /**
         * Lock names whose keys are added as a key tag to metrics and spans; keep it to names with few keys, since
         * every key becomes a series of its own.
         */
        private Set<String> keyTagNames = new LinkedHashSet<>();

        public Set<String> getKeyTagNames() {
            return keyTagNames;
        }

        public void setKeyTagNames(Set<String> keyTagNames) {
            this.keyTagNames = keyTagNames;
        }
    }

    /** The bizlocks Actuator endpoint. */
    public static class Endpoint {

        /** Most cluster-wide held locks the bizlocks endpoint lists. */
        private int maxLocks = 200;

        private final ForceRelease forceRelease = new ForceRelease();

        public int getMaxLocks() {
            return maxLocks;
        }

        public void setMaxLocks(int maxLocks) {
            if (maxLocks < 1) {
                throw new IllegalArgumentException("bizlock.endpoint.max-locks must be at least 1, was " + maxLocks);
            }
            this.maxLocks = maxLocks;
        }

        public ForceRelease getForceRelease() {
            return forceRelease;
        }

        /** The endpoint's write operation. */
        public static class ForceRelease {

            /** Whether the bizlocks endpoint may force-release a LEASE lock held by any instance. */
            private boolean enabled = false;

            public boolean isEnabled() {
                return enabled;
            }

            public void setEnabled(boolean enabled) {
                this.enabled = enabled;
            }
        }
    }
}
