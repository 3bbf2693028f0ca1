package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The values each {@code bizlock.*} property takes and the ones it refuses, on the properties objects themselves: the
 * limits sit in the setters, so a bad value fails binding with the property named, before any bean is built.
 */
class BizLockPropertiesValuesTest {

    private final BizLockProperties properties = new BizLockProperties();

    @Test
    void defaultsAreTheDocumentedOnes() {
        assertThat(properties.isEnabled()).isTrue();
        assertThat(properties.getDatasource()).isNull();
        assertThat(properties.getMode()).isEqualTo(LockMode.LEASE);
        assertThat(properties.getWaitTime()).isZero();
        assertThat(properties.getLeaseTime()).isNull();
        assertThat(properties.getWatchdogLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(properties.isFair()).isTrue();
        assertThat(properties.isWakeUp()).isTrue();
        assertThat(properties.getLocalHandoffs()).isEqualTo(16);
        assertThat(properties.getInstanceId()).isNull();
        assertThat(properties.getTableName()).isEqualTo("biz_lock");
        assertThat(properties.getOnLost()).isEqualTo(LockLostPolicy.LOG);
        assertThat(properties.getHousekeeping().isEnabled()).isTrue();
        assertThat(properties.getHousekeeping().getInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(properties.getHousekeeping().getRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(properties.getHousekeeping().getBatchSize()).isEqualTo(500);
        assertThat(properties.getBackoff().getInitial()).isEqualTo(Duration.ofMillis(5));
        assertThat(properties.getBackoff().getMax()).isEqualTo(Duration.ofMillis(100));
        assertThat(new BizLockSessionProperties().getMaxConnections()).isEqualTo(10);
        assertThat(properties.getAdvisorOrder()).isEqualTo(BizLockProperties.DEFAULT_ADVISOR_ORDER);
        assertThat(properties.getEndpoint().getMaxLocks()).isEqualTo(200);
        assertThat(properties.getEndpoint().getForceRelease().isEnabled()).isFalse();
        assertThat(properties.getMigration().isEnabled()).isTrue();
        assertThat(properties.getMetrics().getKeyTagNames()).isEmpty();
        assertThat(properties.isFailFast()).isFalse();
        assertThat(properties.getShutdownGracePeriod()).isEqualTo(Duration.ofSeconds(10));
        assertThat(properties.getCluster().isSingleWriter()).isFalse();
        assertThat(BizLockConnectionsProperties.maxWriteConnections(
                        new BizLockWritesProperties(), new BizLockConnectionsProperties()))
                .isEqualTo(4);
        assertThat(new BizLockSessionProperties().getHeartbeat()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void setValuesAreKept() {
        properties.setEnabled(false);
        properties.setDatasource("locks");
        properties.setMode(LockMode.NAMED);
        properties.setWaitTime(Duration.ofSeconds(2));
        properties.setLeaseTime(Duration.ofMinutes(1));
        properties.setWatchdogLease(Duration.ofSeconds(10));
        properties.setFair(false);
        properties.setWakeUp(false);
        properties.setLocalHandoffs(0);
        properties.setInstanceId("orders-1");
        properties.setTableName("app_lock");
        properties.setAdvisorOrder(7);
        properties.setOnLost(LockLostPolicy.ROLLBACK_ONLY);
        properties.getHousekeeping().setEnabled(false);
        properties.getHousekeeping().setInterval(Duration.ofMinutes(1));
        properties.getHousekeeping().setRetention(Duration.ZERO);
        properties.getHousekeeping().setBatchSize(50);
        properties.getBackoff().setInitial(Duration.ofMillis(1));
        properties.getBackoff().setMax(Duration.ofMillis(2));
        properties.getEndpoint().getForceRelease().setEnabled(true);
        properties.getMigration().setEnabled(false);
        properties.getMetrics().setKeyTagNames(java.util.Set.of("order"));

        assertThat(properties.isEnabled()).isFalse();
        assertThat(properties.getDatasource()).isEqualTo("locks");
        assertThat(properties.getMode()).isEqualTo(LockMode.NAMED);
        assertThat(properties.getWaitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(properties.getWatchdogLease()).isEqualTo(Duration.ofSeconds(10));
        assertThat(properties.isFair()).isFalse();
        assertThat(properties.isWakeUp()).isFalse();
        assertThat(properties.getLocalHandoffs()).isZero();
        assertThat(properties.getInstanceId()).isEqualTo("orders-1");
        assertThat(properties.getTableName()).isEqualTo("app_lock");
        assertThat(properties.getAdvisorOrder()).isEqualTo(7);
        assertThat(properties.getOnLost()).isEqualTo(LockLostPolicy.ROLLBACK_ONLY);
        assertThat(properties.getHousekeeping().isEnabled()).isFalse();
        assertThat(properties.getHousekeeping().getInterval()).isEqualTo(Duration.ofMinutes(1));
        assertThat(properties.getHousekeeping().getRetention()).isZero();
        assertThat(properties.getHousekeeping().getBatchSize()).isEqualTo(50);
        assertThat(properties.getBackoff().getInitial()).isEqualTo(Duration.ofMillis(1));
        assertThat(properties.getBackoff().getMax()).isEqualTo(Duration.ofMillis(2));
        assertThat(properties.getEndpoint().getForceRelease().isEnabled()).isTrue();
        assertThat(properties.getMigration().isEnabled()).isFalse();
        assertThat(properties.getMetrics().getKeyTagNames()).containsExactly("order");

        properties.setFailFast(true);
        properties.setShutdownGracePeriod(Duration.ZERO);
        properties.getCluster().setSingleWriter(true);
        BizLockWritesProperties writes = new BizLockWritesProperties();
        writes.setMaxConnections(1);
        BizLockSessionProperties session = new BizLockSessionProperties();
        session.setHeartbeat(Duration.ofMillis(250));
        assertThat(properties.isFailFast()).isTrue();
        assertThat(properties.getShutdownGracePeriod()).isZero();
        assertThat(properties.getCluster().isSingleWriter()).isTrue();
        assertThat(writes.getMaxConnections()).isEqualTo(1);
        assertThat(session.getHeartbeat()).isEqualTo(Duration.ofMillis(250));

        properties.setLeaseTime(null);
        properties.setInstanceId(null);
        assertThat(properties.getLeaseTime()).isNull();
        assertThat(properties.getInstanceId()).isNull();
    }

    @Test
    void negativeWaitAndRetentionAreRefusedButZeroIsAllowed() {
        properties.setWaitTime(Duration.ZERO);
        assertThat(properties.getWaitTime()).isZero();
        assertThatThrownBy(() -> properties.setWaitTime(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bizlock.wait-time=-1ms: it must not be negative");
        assertThatThrownBy(() -> properties.getHousekeeping().setRetention(Duration.ofSeconds(-1)))
                .hasMessageStartingWith("bizlock.housekeeping.retention=-1s: it must not be negative");
    }

    @Test
    void leaseTimeMustBePositive() {
        properties.setLeaseTime(Duration.ofNanos(1));
        assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofNanos(1));
        assertThatThrownBy(() -> properties.setLeaseTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bizlock.lease-time=0s: it must be positive");
        assertThatThrownBy(() -> properties.setLeaseTime(Duration.ofSeconds(-5)))
                .hasMessageStartingWith("bizlock.lease-time=-5s: it must be positive");
    }

    @Test
    void countsBelowTheirMinimumAreRefusedNamingTheProperty() {
        assertThatThrownBy(() -> properties.setLocalHandoffs(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bizlock.local-handoffs=-1: it must not be negative");

        BizLockSessionProperties session = new BizLockSessionProperties();
        session.setMaxConnections(1);
        assertThat(session.getMaxConnections()).isEqualTo(1);
        assertThatThrownBy(() -> session.setMaxConnections(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bizlock.session.max-connections=0: it must be at least 1");

        BizLockEndpointProperties endpoint = properties.getEndpoint();
        endpoint.setMaxLocks(1);
        assertThat(endpoint.getMaxLocks()).isEqualTo(1);
        assertThatThrownBy(() -> endpoint.setMaxLocks(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("bizlock.endpoint.max-locks=0:");
    }

    @Test
    void badInstanceIdsAndTableNamesAreRefused() {
        assertThatThrownBy(() -> properties.setInstanceId(" ")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> properties.setTableName("app.lock"))
                .hasMessageContaining("is not a plain SQL identifier");
    }
}
