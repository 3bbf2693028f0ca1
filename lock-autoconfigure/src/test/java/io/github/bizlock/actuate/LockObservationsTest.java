package io.github.bizlock.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockMode;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.lock.InstanceId;
import io.github.bizlock.internal.lock.LockManager;
import io.github.bizlock.service.LockObserver;
import io.github.bizlock.service.TestServices;
import io.github.bizlock.test.TestDatabaseExtension;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each acquisition is one Observation (a span with tracing), tagged with its outcome, on a real database. */
@ExtendWith(TestDatabaseExtension.class)
class LockObservationsTest {

    /** Records every observation that was started and stopped. */
    static final class Recorder implements ObservationHandler<Observation.Context> {

        final List<Observation.Context> started = new CopyOnWriteArrayList<>();
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            started.add(context);
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @BeforeAll
    static void createSchema(DataSource dataSource) {
        LockFixture.createSchema(dataSource);
    }

    private static Map<String, String> lowCardinality(Observation.Context context) {
        return context.getLowCardinalityKeyValues().stream()
                .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
    }

    @Test
    void everyAcquisitionIsAnObservationWithItsOutcome(DataSource dataSource) throws Exception {
        ObservationRegistry registry = ObservationRegistry.create();
        Recorder recorder = new Recorder();
        registry.observationConfig().observationHandler(recorder);
        try (LockManager holder = LockFixture.manager(dataSource).build();
                LockManager observed = LockFixture.manager(LockFixture.daos(dataSource), InstanceId.generate())
                        .observer(TestServices.observer(new LockObservations(registry, Set.of("order"))))
                        .build()) {
            LockKey order = new LockKey("order", "42");
            observed.tryAcquire(order, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
            try (LockHandle ignored = holder.tryAcquire(order, LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()) {
                assertThat(observed.tryAcquire(order, LockMode.LEASE, Duration.ZERO, null))
                        .isEmpty();
            }
            observed.tryAcquire(new LockKey("stock", "7"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();

            assertThat(registry.getCurrentObservation())
                    .as("each acquisition's scope is closed when it ends")
                    .isNull();
            assertThat(recorder.started).hasSize(3);
            assertThat(recorder.stopped).hasSize(3);
            Observation.Context acquired = recorder.stopped.get(0);
            assertThat(acquired.getName()).isEqualTo(LockObservations.NAME);
            assertThat(acquired.getContextualName()).isEqualTo("lock order");
            assertThat(lowCardinality(acquired))
                    .containsEntry("name", "order")
                    .containsEntry("mode", "lease")
                    .containsEntry("outcome", "acquired");
            assertThat(acquired.getHighCardinalityKeyValue("key").getValue())
                    .as("keys of allowed names are high-cardinality values")
                    .isEqualTo("42");
            assertThat(lowCardinality(recorder.stopped.get(1))).containsEntry("outcome", "timed_out");
            assertThat(recorder.stopped.get(2).getHighCardinalityKeyValue("key"))
                    .as("no key for names not allowed")
                    .isNull();
        }
    }

    @Test
    void withANoopRegistryAcquisitionsAreNotObservedAndLocksWork(DataSource dataSource) throws Exception {
        LockObservations observations = new LockObservations(ObservationRegistry.NOOP, Set.of("order"));
        assertThat(observations.acquisitionStarted("order", "1", LockMode.LEASE))
                .as("nothing to record")
                .isSameAs(LockObserver.Acquisition.NONE);
        try (LockManager observed = LockFixture.manager(LockFixture.daos(dataSource), InstanceId.generate())
                .observer(TestServices.observer(observations))
                .build()) {
            observed.tryAcquire(new LockKey("order", "noop"), LockMode.LEASE, Duration.ZERO, null)
                    .orElseThrow()
                    .unlock();
        }
    }
}
