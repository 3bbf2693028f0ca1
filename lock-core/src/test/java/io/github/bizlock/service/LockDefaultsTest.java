package io.github.bizlock.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The checks the starter runs on {@code bizlock.table-name} and {@code bizlock.instance-id} before it builds. */
class LockDefaultsTest {

    @Test
    void aTableNameThatCanNameTheTableIsReturnedAndOneThatCannotIsRefusedSayingWhy() {
        assertThat(LockDefaults.checkTableName("order_locks")).isEqualTo("order_locks");
        assertThatThrownBy(() -> LockDefaults.checkTableName("order-locks"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("order-locks");
    }

    @Test
    void anInstanceIdThatCanNameAnInstanceIsReturnedAndABlankOneIsRefused() {
        assertThat(LockDefaults.checkInstanceId("orders-7")).isEqualTo("orders-7");
        assertThatThrownBy(() -> LockDefaults.checkInstanceId(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
