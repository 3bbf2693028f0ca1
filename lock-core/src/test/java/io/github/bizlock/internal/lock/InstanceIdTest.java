package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The owner written into lock rows: generated unique per process, or configured and checked. */
class InstanceIdTest {

    @Test
    void generatedIdsAreHostPidAndRandomAndDifferEachTime() {
        String one = InstanceId.generate();
        String two = InstanceId.generate();
        assertThat(one).matches(".+:" + ProcessHandle.current().pid() + ":[0-9a-f]{8}");
        assertThat(one.length()).isLessThanOrEqualTo(InstanceId.MAX_LENGTH);
        assertThat(one).isNotEqualTo(two);
    }

    @Test
    void configuredIdsUpToTheLimitPass() {
        assertThat(InstanceId.validate("orders-1")).isEqualTo("orders-1");
        String longest = "i".repeat(InstanceId.MAX_LENGTH);
        assertThat(InstanceId.validate(longest)).isEqualTo(longest);
    }

    @Test
    void blankOrOverlongIdsAreRefused() {
        assertThatThrownBy(() -> InstanceId.validate(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> InstanceId.validate("  ")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> InstanceId.validate("i".repeat(InstanceId.MAX_LENGTH + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("The instance id is 129 characters, more than the 128 allowed");
    }
}
