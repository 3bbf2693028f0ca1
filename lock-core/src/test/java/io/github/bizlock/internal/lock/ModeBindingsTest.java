package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.internal.engine.ModeBindingStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The process remembers each name's bound mode, so only a name's first request asks the store. */
class ModeBindingsTest {

    /** Binds names the way the lock table does (first mode wins), and counts the questions. */
    private static final class CountingStore implements ModeBindingStore {

        final List<String> asked = new ArrayList<>();

        @Override
        public LockMode bind(String name, LockMode mode, long deadlineNanos) {
            asked.add(name);
            return name.startsWith("row-") ? LockMode.ROW : mode;
        }

        @Override
        public String changeStatements(String name, LockMode mode) {
            return "-- move " + name + " to " + mode;
        }
    }

    @Test
    void onlyTheFirstRequestForANameAsksTheStore() {
        CountingStore store = new CountingStore();
        ModeBindings bindings = new ModeBindings(store);

        bindings.check("orders", LockMode.LEASE, 0);
        bindings.check("orders", LockMode.LEASE, 0);
        bindings.check("invoices", LockMode.LEASE, 0);

        assertThat(store.asked).containsExactly("orders", "invoices");
    }

    @Test
    void aRequestInAnotherModeThanTheBoundOneIsRefusedWithTheStatementsThatMoveIt() {
        CountingStore store = new CountingStore();
        ModeBindings bindings = new ModeBindings(store);

        assertThatThrownBy(() -> bindings.check("row-jobs", LockMode.LEASE, 0))
                .isInstanceOf(LockModeConflictException.class)
                .hasMessageContaining("-- move row-jobs to LEASE");
        assertThatThrownBy(() -> bindings.check("row-jobs", LockMode.NAMED, 0))
                .isInstanceOf(LockModeConflictException.class);
        bindings.check("row-jobs", LockMode.ROW, 0);
        assertThat(store.asked).as("remembered the bound mode").containsExactly("row-jobs");
    }
}
