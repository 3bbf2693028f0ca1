package io.github.bizlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;

/** The value types of the public API: what each option accepts, and what a result says. */
class LockOptionsTest {

    @Test
    void defaultsSetNothingAndEachSetterChangesOnlyItsOwnValue() {
        LockOptions defaults = LockOptions.defaults();
        assertThat(defaults.mode()).isNull();
        assertThat(defaults.waitTime()).isNull();
        assertThat(defaults.leaseTime()).isNull();
        assertThat(defaults.onLost()).isNull();

        LockOptions options = defaults.mode(LockMode.ROW)
                .waitTime(Duration.ofSeconds(3))
                .leaseTime(Duration.ofMinutes(1))
                .onLost(LockLostPolicy.INTERRUPT);
        assertThat(options.mode()).isEqualTo(LockMode.ROW);
        assertThat(options.waitTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.leaseTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.onLost()).isEqualTo(LockLostPolicy.INTERRUPT);
        assertThat(options.mode(LockMode.NAMED).waitTime()).isEqualTo(Duration.ofSeconds(3));
        assertThat(options.waitTime(Duration.ZERO).leaseTime()).isEqualTo(Duration.ofMinutes(1));
        assertThat(options.leaseTime(Duration.ofSeconds(5)).onLost()).isEqualTo(LockLostPolicy.INTERRUPT);
        assertThat(options.onLost(LockLostPolicy.ROLLBACK_ONLY).mode()).isEqualTo(LockMode.ROW);
        // Immutable: the defaults are unchanged.
        assertThat(LockOptions.defaults().mode()).isNull();
        assertThat(options)
                .hasToString("LockOptions[mode=ROW, waitTime=PT3S, leaseTime=PT1M, onLost=INTERRUPT, access=WRITE]");
    }

    @Test
    void accessIsWriteUnlessReadIsAskedForAndKeepsTheOtherOptions() {
        assertThat(LockOptions.defaults().access()).isEqualTo(LockAccess.WRITE);
        LockOptions read = LockOptions.defaults()
                .waitTime(Duration.ofSeconds(2))
                .access(LockAccess.READ)
                .mode(LockMode.ROW)
                .leaseTime(Duration.ofMinutes(1))
                .onLost(LockLostPolicy.LOG);
        assertThat(read.access()).isEqualTo(LockAccess.READ);
        assertThat(read.waitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(read.mode()).isEqualTo(LockMode.ROW);
        assertThat(read.access(LockAccess.WRITE).waitTime()).isEqualTo(Duration.ofSeconds(2));
        assertThat(LockOptions.defaults().access())
                .as("the defaults are unchanged")
                .isEqualTo(LockAccess.WRITE);
        assertThatThrownBy(() -> LockOptions.defaults().access(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void waitTimeZeroIsOneAttemptAndNegativeIsRefused() {
        assertThat(LockOptions.defaults().waitTime(Duration.ZERO).waitTime()).isZero();
        assertThatThrownBy(() -> LockOptions.defaults().waitTime(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime must not be negative, was PT-0.001S");
        assertThatThrownBy(() -> LockOptions.defaults().waitTime(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void leaseTimeMustBePositiveAndAtMostAYear() {
        assertThat(LockOptions.defaults().leaseTime(LockOptions.MAX_LEASE_TIME).leaseTime())
                .isEqualTo(Duration.ofDays(365));
        assertThat(LockOptions.defaults().leaseTime(Duration.ofNanos(1)).leaseTime())
                .isEqualTo(Duration.ofNanos(1));
        assertThatThrownBy(() -> LockOptions.defaults().leaseTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be positive, was PT0S");
        assertThatThrownBy(() -> LockOptions.defaults().leaseTime(Duration.ofSeconds(-1)))
                .hasMessageContaining("leaseTime must be positive");
        assertThatThrownBy(() -> LockOptions.defaults().leaseTime(LockOptions.MAX_LEASE_TIME.plusNanos(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseTime must be at most 365 days");
    }

    @Test
    void nullModeAndPolicyAreRefused() {
        assertThatThrownBy(() -> LockOptions.defaults().mode(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockOptions.defaults().onLost(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LockOptions.defaults().leaseTime(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aResultSaysWhetherTheActionRanAndOnlyThenHasAValue() {
        LockResult<String> ran = LockResult.executed("done");
        assertThat(ran.wasExecuted()).isTrue();
        assertThat(ran.value()).isEqualTo("done");
        assertThat(ran).hasToString("LockResult[executed, value=done]");
        assertThat(LockResult.executed(null).value()).isNull();

        LockResult<String> skipped = LockResult.notExecuted();
        assertThat(skipped.wasExecuted()).isFalse();
        assertThatThrownBy(skipped::value)
                .isInstanceOf(NoSuchElementException.class)
                .hasMessageContaining("the action did not run");
        assertThat(skipped).hasToString("LockResult[not executed]");
    }

    @Test
    void aModeConflictNamesBothModesAndTheStatementsThatMoveTheName() {
        LockModeConflictException conflict =
                new LockModeConflictException("order", LockMode.LEASE, LockMode.ROW, "UPDATE ...;");
        assertThat(conflict.lockName()).isEqualTo("order");
        assertThat(conflict.boundMode()).isEqualTo(LockMode.LEASE);
        assertThat(conflict.requestedMode()).isEqualTo(LockMode.ROW);
        assertThat(conflict)
                .hasMessageStartingWith("Lock name 'order' is bound to mode LEASE, but this call asked for ROW.")
                .hasMessageEndingWith("new mode:\nUPDATE ...;");
    }
}
