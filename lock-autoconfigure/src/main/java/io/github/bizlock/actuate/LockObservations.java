package io.github.bizlock.actuate;

import io.github.bizlock.LockMode;
import io.github.bizlock.service.LockObserver;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * Makes each lock acquisition an {@link Observation} named {@value #NAME}, so that with tracing it shows as a span
 * ({@code lock <name>}) around the acquiring statements, with low-cardinality key values {@code name}, {@code mode}
 * and {@code outcome}. The lock's key is added as the high-cardinality {@code key} only for the allowed names, since
 * keys may be personal data.
 */
public final class LockObservations implements LockObserver {

    /** The observation's name. */
    public static final String NAME = "bizlock.acquisition";

    private final ObservationRegistry registry;
    private final Set<String> keyTagNames;

    public LockObservations(ObservationRegistry registry, Set<String> keyTagNames) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.keyTagNames = Set.copyOf(keyTagNames);
    }

    @Override
    public Acquisition acquisitionStarted(String name, String key, LockMode mode) {
        if (registry.isNoop()) {
            return Acquisition.NONE;
        }
        Observation observation = Observation.createNotStarted(NAME, registry)
                .contextualName("lock " + name)
                .lowCardinalityKeyValue("name", name)
                .lowCardinalityKeyValue("mode", LockMetrics.mode(mode));
        if (keyTagNames.contains(name)) {
            observation.highCardinalityKeyValue("key", key);
        }
        observation.start();
        Observation.Scope scope = observation.openScope();
        return (outcome, waitNanos) -> {
            observation.lowCardinalityKeyValue("outcome", outcome.name().toLowerCase(Locale.ROOT));
            scope.close();
            observation.stop();
        };
    }
}
