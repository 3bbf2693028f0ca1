package io.github.bizlock.internal.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockMode;
import io.github.bizlock.LockModeConflictException;
import io.github.bizlock.PermitsConflictException;
import io.github.bizlock.internal.engine.ModeBindingStore;
import io.github.bizlock.internal.engine.ModeBindingStore.Binding;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The process remembers each name's bound mode, so only a name's first request asks the store. */
class ModeBindingsTest {

    /** Binds names the way the lock table does (first mode wins), and counts the questions. */
    private static final class CountingStore implements ModeBindingStore {

        final List<String> asked = new ArrayList<>();

        @Override
        public Binding bind(String name, Binding wanted, long deadlineNanos) {
            asked.add(name);
            return name.startsWith("row-") ? Binding.locks(LockMode.ROW) : wanted;
        }

        @Override
        public String changeStatements(String name, Binding wanted) {
            return "-- move " + name + " to " + wanted.mode() + " with " + wanted.permits() + " permits";
        }
    }

    @Test
    void onlyTheFirstRequestForANameAsksTheStoreAndTellsTheObserver() {
        CountingStore store = new CountingStore();
        List<String> told = new ArrayList<>();
        ModeBindings bindings = new ModeBindings(store, new LockObserver() {
            @Override
            public void bound(String name, Binding binding) {
                told.add(name + " " + binding.mode() + " " + binding.permits());
            }
        });

        assertThat(bindings.permits("exports")).as("not used yet").isZero();
        bindings.check("orders", LockMode.LEASE, 0);
        bindings.check("orders", LockMode.LEASE, 0);
        bindings.check("invoices", LockMode.LEASE, 0);
        bindings.check("exports", new Binding(LockMode.LEASE, 3), 0);
        bindings.check("exports", new Binding(LockMode.LEASE, 3), 0);

        assertThat(store.asked).containsExactly("orders", "invoices", "exports");
        assertThat(told).containsExactly("orders LEASE 0", "invoices LEASE 0", "exports LEASE 3");
        assertThat(bindings.permits("exports")).isEqualTo(3);
        assertThat(bindings.permits("orders")).isZero();
    }

    @Test
    void aRequestInAnotherModeThanTheBoundOneIsRefusedWithTheStatementsThatMoveIt() {
        CountingStore store = new CountingStore();
        ModeBindings bindings = new ModeBindings(store, LockObserver.NONE);

        assertThatThrownBy(() -> bindings.check("row-jobs", LockMode.LEASE, 0))
                .isInstanceOf(LockModeConflictException.class)
                .hasMessageContaining("-- move row-jobs to LEASE with 0 permits");
        assertThatThrownBy(() -> bindings.check("row-jobs", LockMode.NAMED, 0))
                .isInstanceOf(LockModeConflictException.class);
        bindings.check("row-jobs", LockMode.ROW, 0);
        assertThat(store.asked).as("remembered the bound mode").containsExactly("row-jobs");
    }

    @Test
    void aRequestWithOtherPermitsThanTheBoundOnesIsRefusedWithTheStatementsThatChangeThem() {
        CountingStore store = new CountingStore();
        ModeBindings bindings = new ModeBindings(store, LockObserver.NONE);

        bindings.check("exports", new Binding(LockMode.LEASE, 3), 0);
        assertThatThrownBy(() -> bindings.check("exports", new Binding(LockMode.LEASE, 4), 0))
                .isInstanceOf(PermitsConflictException.class)
                .hasMessageContaining("bound to a semaphore of 3 permits, but this call asked for a semaphore of 4")
                .hasMessageContaining("-- move exports to LEASE with 4 permits");
        assertThatThrownBy(() -> bindings.check("exports", LockMode.LEASE, 0))
                .isInstanceOf(PermitsConflictException.class)
                .hasMessageContaining("this call asked for plain locks");
        assertThatThrownBy(() -> bindings.check("exports", new Binding(LockMode.ROW, 3), 0))
                .isInstanceOf(LockModeConflictException.class)
                .hasMessageContaining("-- move exports to ROW with 3 permits");
        bindings.check("exports", new Binding(LockMode.LEASE, 3), 0);
        assertThat(store.asked).as("remembered the binding").containsExactly("exports");
    }
}
