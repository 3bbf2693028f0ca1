package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.Await;
import io.github.bizlock.LockLostEvent;
import io.github.bizlock.LockLostException;
import io.github.bizlock.LockLostPolicy;
import io.github.bizlock.LockMode;
import io.github.bizlock.LossCause;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.engine.Loss;
import io.github.bizlock.internal.lock.StubEngine.StubGrant;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** How a loss reaches the holder, the observer and the listeners. */
class LossReporterTest {

    private final List<LockLostEvent> observed = new CopyOnWriteArrayList<>();
    private final LossReporter losses = new LossReporter(new LockObserver() {
        @Override
        public void lost(LockLostEvent event) {
            observed.add(event);
        }
    });
    private final StubEngine engine = new StubEngine(LockMode.NAMED);

    @AfterEach
    void close() {
        losses.close();
        Thread.interrupted();
    }

    private Hold hold(LockLostPolicy onLost) {
        HeldGrant held = new HeldGrant(
                new StubGrant(new LockKey("loss", "k"), "owner-1", Duration.ofSeconds(30), System.nanoTime(), 42, 1),
                engine,
                true);
        return held.begin(Thread.currentThread(), onLost);
    }

    @Test
    void listenersAreToldOnAThreadOfTheirOwnAndAFailingOneStopsNoOther() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        losses.addListener(event -> {
            throw new IllegalStateException("listener fails");
        });
        losses.addListener(event -> told.add(Thread.currentThread().getName() + " " + event.key()));
        Hold hold = hold(LockLostPolicy.LOG);

        losses.reportLost(hold.heldGrant, new Loss(LossCause.TAKEN_OVER, "another owner"));
        losses.reportLost(hold.heldGrant, new Loss(LossCause.REMOVED, "reported once"));

        assertThat(observed).singleElement().satisfies(event -> {
            assertThat(event.name()).isEqualTo("loss");
            assertThat(event.key()).isEqualTo("k");
            assertThat(event.mode()).isEqualTo(LockMode.NAMED);
            assertThat(event.fencingToken()).isEqualTo(42);
            assertThat(event.owner()).isEqualTo("owner-1");
            assertThat(event.holderThread()).isEqualTo(Thread.currentThread().getName());
            assertThat(event.cause()).isEqualTo(LossCause.TAKEN_OVER);
            assertThat(event.reason()).isEqualTo("another owner");
        });
        assertThat(Thread.currentThread().isInterrupted())
                .as("LOG does not interrupt")
                .isFalse();
        Await.until("the listener is told", Duration.ofSeconds(5), () -> !told.isEmpty());
        assertThat(told).containsExactly("bizlock-lost-listeners k");
    }

    @Test
    void theInterruptPolicyInterruptsTheHolderAndLogsThatItDid() {
        Hold hold = hold(LockLostPolicy.INTERRUPT);
        List<String> logged;
        try (CapturedLog log = new CapturedLog(LockManager.class)) {
            losses.notifyLost(hold, new Loss(LossCause.TAKEN_OVER, "another owner"));
            logged = log.lines();
        }
        assertThat(Thread.interrupted()).isTrue();
        // The interrupt surfaces far from the loss, in whatever the holder was doing: the log says where it came from.
        assertThat(logged)
                .contains("WARN bizlock interrupted thread "
                        + Thread.currentThread().getName() + ", which held the lost lock k");
    }

    @Test
    void underTheInterruptPolicyAHolderThatIsUnlockingIsNeitherInterruptedNorLoggedAsInterrupted() {
        Hold hold = hold(LockLostPolicy.INTERRUPT);
        hold.heldGrant.markReleasing();
        List<String> logged;
        try (CapturedLog log = new CapturedLog(LockManager.class)) {
            losses.notifyLost(hold, new Loss(LossCause.TAKEN_OVER, "another owner"));
            logged = log.lines();
        }
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(logged).singleElement().satisfies(line -> assertThat(line).startsWith("WARN bizlock lost lock "));
    }

    @Test
    void afterTheCloseListenersAreNoLongerTold() {
        List<LockLostEvent> told = new CopyOnWriteArrayList<>();
        losses.addListener(told::add);
        losses.close();
        losses.notifyLost(hold(LockLostPolicy.LOG), new Loss(LossCause.SHUTDOWN, "closed"));
        assertThat(observed).hasSize(1);
        assertThat(told).isEmpty();
    }

    @Test
    void aHolderOfAGrantWhoseLeaseEndedIsToldWhy() {
        HeldGrant ended =
                new HeldGrant(new StubGrant(Duration.ofSeconds(1), System.nanoTime() - 2_000_000_000L), engine, false);
        LockLostException thrown = losses.lostException(ended.begin(Thread.currentThread(), LockLostPolicy.LOG));
        assertThat(thrown.event().cause()).isEqualTo(LossCause.LEASE_EXPIRED);
        assertThat(thrown.event().reason()).isEqualTo("its fixed lease of PT1S ended while it was still held");
    }
}
