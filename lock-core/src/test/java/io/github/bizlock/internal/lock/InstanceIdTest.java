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

    @Test
    void aConfiguredIdGetsARandomPartOfItsOwnSoThatReplicasSharingItAreTwoOwners() {
        String one = InstanceId.of("orders");
        String two = InstanceId.of("orders");
        assertThat(one).matches("orders:[0-9a-f]{8}");
        assertThat(one).isNotEqualTo(two);
        assertThat(InstanceId.of(null)).matches(".+:" + ProcessHandle.current().pid() + ":[0-9a-f]{8}");
    }

    @Test
    void aConfiguredIdAtTheLimitIsShortenedToMakeRoomForTheRandomPartNeverSplittingACharacter() {
        String longest = InstanceId.of("i".repeat(InstanceId.MAX_LENGTH));
        assertThat(longest).hasSize(InstanceId.MAX_LENGTH).matches("i{119}:[0-9a-f]{8}");
        // A character outside the BMP (two chars in Java) that the cut would split is left out whole.
        String emoji = InstanceId.of("i".repeat(118) + "\uD83D\uDE00" + "tail");
        assertThat(emoji).matches("i{118}:[0-9a-f]{8}");
        assertThatThrownBy(() -> InstanceId.of(" ")).hasMessageContaining("must not be blank");
    }
}
