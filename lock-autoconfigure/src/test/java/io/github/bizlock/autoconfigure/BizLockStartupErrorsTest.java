package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Settings that cannot work fail the start-up, with bizlock's own exception naming the setting and the limit: never
 * a start that locks with a silently corrected value. Asserted on the root cause bizlock throws, whatever reports it.
 */
@ExtendWith(TestDatabaseExtension.class)
class BizLockStartupErrorsTest {

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = BizLockAutoConfigurationTest.runner(database, BizLockAutoConfiguration.class);
    }

    static Stream<Arguments> badSettings() {
        String tooLongTable = "t".repeat(48);
        return Stream.of(
                Arguments.of(
                        "bizlock.table-name=" + tooLongTable,
                        "bizlock.table-name='" + tooLongTable + "': the lock table name '" + tooLongTable
                                + "' is 48 characters; at most 47 are allowed"),
                Arguments.of("bizlock.instance-id= ", "bizlock.instance-id='': the instance id must not be blank"),
                Arguments.of(
                        "bizlock.instance-id=" + "i".repeat(129),
                        "the instance id is 129 characters, more than the 128 allowed"),
                Arguments.of("bizlock.lease-time=0s", "bizlock.lease-time=0s: it must be positive"),
                Arguments.of("bizlock.lease-time=-5s", "bizlock.lease-time=-5s: it must be positive"),
                Arguments.of("bizlock.lease-time=366d", "at most 365 days"),
                Arguments.of("bizlock.watchdog-lease=100ms", "bizlock.watchdog-lease=100ms: it must be at least 300ms"),
                Arguments.of("bizlock.watchdog-lease=366d", "bizlock.watchdog-lease=366d: it must be at most 365 days"),
                Arguments.of("bizlock.local-handoffs=-1", "bizlock.local-handoffs=-1: it must not be negative"),
                Arguments.of("bizlock.endpoint.max-locks=0", "bizlock.endpoint.max-locks=0: it must be at least 1"),
                Arguments.of(
                        "bizlock.session.max-connections=0",
                        "bizlock.session.max-connections=0: it must be at least 1"),
                Arguments.of("bizlock.backoff.initial=0ms", "bizlock.backoff.initial=0s: it must be positive"),
                Arguments.of(
                        "bizlock.backoff.max=1ms",
                        "bizlock.backoff.max=1ms: it is shorter than bizlock.backoff.initial (5ms)"),
                Arguments.of(
                        "bizlock.housekeeping.batch-size=0",
                        "bizlock.housekeeping.batch-size=0: it must be at least 1"),
                Arguments.of(
                        "bizlock.housekeeping.retention=-1s",
                        "bizlock.housekeeping.retention=-1s: it must not be negative"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSettings")
    void refusesToStart(String setting, String message) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(message);
        });
    }

    @Test
    void startsWithTheLimitsThemselves() {
        // The bounds are inclusive: the start-up errors above are about the values past them, not near them. The
        // longest table name also gets its tables, indexes and migration history created.
        runner.withPropertyValues(
                        "bizlock.table-name=" + "t".repeat(47),
                        "bizlock.instance-id=" + "i".repeat(128),
                        "bizlock.lease-time=365d",
                        "bizlock.watchdog-lease=300ms",
                        "bizlock.local-handoffs=0",
                        "bizlock.endpoint.max-locks=1",
                        "bizlock.session.max-connections=1",
                        "bizlock.backoff.initial=7ms",
                        "bizlock.backoff.max=7ms")
                .run(context -> assertThat(context).hasNotFailed());
    }
}
