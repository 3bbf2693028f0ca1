package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.github.bizlock.LockOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The checks of single property values, and durations written back as a user would write them in a property. */
class PropertyChecksTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "PT0S, 0s",
        "PT0.1S, 100ms",
        "PT-0.001S, -1ms",
        "PT0.0000001S, PT0.0000001S",
        "PT1.5S, 1500ms",
        "PT45S, 45s",
        "PT90S, 90s",
        "PT5M, 5m",
        "PT-1H, -1h",
        "PT25H, 25h",
        "PT48H, 2d",
        "PT8760H, 365d"
    })
    void writesDurationsInTheLargestUnitThatDividesThem(Duration duration, String text) {
        assertThat(PropertyChecks.text(duration)).isEqualTo(text);
    }

    @Test
    void theBoundsThemselvesAreAllowed() {
        assertThat(PropertyChecks.notNegative("p", Duration.ZERO, "fix")).isZero();
        assertThat(PropertyChecks.positive("p", Duration.ofNanos(1), "fix")).isEqualTo(Duration.ofNanos(1));
        assertThat(PropertyChecks.atMostMaxLease("p", LockOptions.MAX_LEASE_TIME, "fix"))
                .isEqualTo(LockOptions.MAX_LEASE_TIME);
        assertThat(PropertyChecks.atLeast("p", 3, 3, "problem", "fix")).isEqualTo(3);
        assertThat(PropertyChecks.MAX_LEASE).isEqualTo("365d");
    }

    @Test
    void valuesPastTheBoundsAreRefusedNamingPropertyValueProblemAndFix() {
        assertThatExceptionOfType(BizLockPropertyException.class)
                .isThrownBy(() -> PropertyChecks.notNegative("bizlock.p", Duration.ofNanos(-1), "Set it to 0."))
                .withMessage("bizlock.p=PT-0.000000001S: it must not be negative. Set it to 0.");
        assertThatExceptionOfType(BizLockPropertyException.class)
                .isThrownBy(() -> PropertyChecks.positive("bizlock.p", Duration.ZERO, "fix"))
                .withMessageStartingWith("bizlock.p=0s: it must be positive");
        assertThatExceptionOfType(BizLockPropertyException.class)
                .isThrownBy(() -> PropertyChecks.atMostMaxLease(
                        "bizlock.p", LockOptions.MAX_LEASE_TIME.plusNanos(1_000_000), "fix"))
                .withMessageStartingWith("bizlock.p=31536000001ms: it must be at most 365 days");
        assertThatExceptionOfType(BizLockPropertyException.class)
                .isThrownBy(() -> PropertyChecks.atLeast("bizlock.n", 2, 3, "it must be at least 3", "fix"))
                .satisfies(ex -> {
                    assertThat(ex.property()).isEqualTo("bizlock.n");
                    assertThat(ex.value()).isEqualTo("2");
                    assertThat(ex.problem()).isEqualTo("it must be at least 3");
                    assertThat(ex.fix()).isEqualTo("fix");
                });
    }

    @Test
    void aRefusalOfASharedCheckBecomesThePropertysProblem() {
        BizLockPropertyException quoted = PropertyChecks.refused(
                "bizlock.table-name", "x-y", new IllegalArgumentException("The name is not plain"), "Fix it");
        assertThat(quoted).hasMessage("bizlock.table-name='x-y': the name is not plain. Fix it");

        BizLockPropertyException unset =
                PropertyChecks.refused("bizlock.instance-id", null, new IllegalArgumentException("Missing"), "Set it");
        assertThat(unset.value()).isEqualTo("(unset)");
        assertThat(unset.problem()).isEqualTo("missing");
    }
}
