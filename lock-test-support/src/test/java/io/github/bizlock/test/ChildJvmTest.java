package io.github.bizlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The child-JVM harness itself: answers, events, bounded waits, failures reported with the child's output. */
// Every wait below is bounded by the harness; this bounds the class should the harness itself hang.
@Timeout(value = 2, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ChildJvmTest {

    private static final Duration START = Duration.ofSeconds(60);
    private static final Duration BOUND = Duration.ofMillis(500);

    @Test
    void passesArgumentsAndSystemPropertiesAndCarriesCommandsAndAnswers() throws Exception {
        try (ChildJvm child = ChildJvm.builder(EchoChild.class)
                .systemProperty("echo.greeting", "hello")
                .args("a", "b")
                .start()) {
            assertThat(child.await("READY", START)).isEqualTo("READY a,b hello");
            child.send("ECHO one two");
            assertThat(child.await("ECHO", BOUND.multipliedBy(20))).isEqualTo("ECHO one two");
        }
    }

    @Test
    void aChildThatDoesNotAnswerFailsWithinTheBoundWithItsOutput() throws Exception {
        BlockingQueue<String> logged = new LinkedBlockingQueue<>();
        try (ChildJvm child =
                ChildJvm.builder(EchoChild.class).onLog(logged::add).start()) {
            child.await("READY", START);
            child.send("PRINT before the silence");
            assertThat(logged.poll(30, TimeUnit.SECONDS)).isEqualTo("before the silence");
            child.send("SILENT");
            long started = System.nanoTime();
            assertThatThrownBy(() -> child.next(BOUND))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("did not answer within PT0.5S")
                    .hasMessageContaining("! before the silence");
            // the bound, and not much more even on a busy machine: never the test's own timeout
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isGreaterThanOrEqualTo(BOUND)
                    .isLessThan(BOUND.plusSeconds(5));
            child.send("ECHO one");
            assertThatThrownBy(() -> child.until("DONE", BOUND))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("did not answer DONE within PT0.5S (1 answers before)");
        }
    }

    @Test
    void aKilledChildIsReportedAsExitedNotWaitedFor() throws Exception {
        try (ChildJvm child = ChildJvm.builder(EchoChild.class).start()) {
            child.await("READY", START);
            child.signal("KILL");
            long started = System.nanoTime();
            assertThatThrownBy(() -> child.next(Duration.ofSeconds(30)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("exited before answering (exit code 137)");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            assertThat(child.isAlive()).isFalse();
        }
    }

    @Test
    void anExceptionInTheChildFailsTheWaitWithItsStackTrace() throws Exception {
        try (ChildJvm child = ChildJvm.builder(EchoChild.class).start()) {
            child.await("READY", START);
            child.send("FAIL on purpose");
            assertThatThrownBy(() -> child.next(Duration.ofSeconds(30)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("failed: ERROR java.lang.IllegalStateException: on purpose")
                    .hasMessageContaining("at io.github.bizlock.test.EchoChild");
            assertThat(child.waitForExit(Duration.ofSeconds(10))).isEqualTo(1);
        }
    }

    @Test
    void forwardsTheChildsOtherOutputAndEventsApartFromAnswers() throws Exception {
        BlockingQueue<String> logged = new LinkedBlockingQueue<>();
        List<String> events = new CopyOnWriteArrayList<>();
        try (ChildJvm child = ChildJvm.builder(EchoChild.class)
                .onLog(logged::add)
                .onEvent("TICK", events::add)
                .start()) {
            child.await("READY", START);
            child.send("PRINT to stderr");
            child.send("EVENT one");
            assertThat(child.until("DONE", Duration.ofSeconds(30))).containsExactly("DONE");
            assertThat(events).containsExactly("TICK one");
            // stderr is a pipe of its own: its lines come in their own time, not in order with the answers
            assertThat(logged.poll(30, TimeUnit.SECONDS)).isEqualTo("to stderr");
        }
    }

    @Test
    void aStoppedChildAnswersNothingUntilContinued() throws Exception {
        try (ChildJvm child = ChildJvm.builder(EchoChild.class).start()) {
            child.await("READY", START);
            child.signal("STOP");
            child.send("ECHO later");
            assertThat(child.poll(BOUND)).isNull();
            child.signal("CONT");
            assertThat(child.await("ECHO", Duration.ofSeconds(30))).isEqualTo("ECHO later");
        }
    }

    @Test
    void closingTheInputEndsTheChildAndCloseKillsWhatIsLeft() throws Exception {
        try (ChildJvm ended = ChildJvm.builder(EchoChild.class).start()) {
            ended.await("READY", START);
            ended.closeInput();
            assertThat(ended.waitForExit(Duration.ofSeconds(30))).isZero();
        }
        ChildJvm stopped = ChildJvm.builder(EchoChild.class).start();
        stopped.await("READY", START);
        stopped.signal("STOP");
        stopped.close();
        assertThat(ProcessHandle.of(stopped.pid()).filter(ProcessHandle::isAlive))
                .as("a stopped child after close()")
                .isEmpty();
    }
}
