package io.github.bizlock.internal.jdbc.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockHandle;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LockTest;
import io.github.bizlock.internal.lock.LockManager;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

@LockTest
class LeaseSmokeTest {

    @Test
    void acquiresReleasesAndRaisesTokens(DataSource dataSource) throws Exception {
        try (LockManager a = LockFixture.manager(dataSource).build();
                LockManager b = LockFixture.manager(dataSource).build()) {
            LockTemplate ta = LockFixture.template(a);
            LockTemplate tb = LockFixture.template(b);
            long first;
            try (LockHandle h = ta.acquire("order", "1")) {
                first = h.fencingToken();
                assertThat(h.isHeld()).isTrue();
                assertThat(tb.tryAcquire("order", "1", Duration.ZERO)).isEmpty();
                try (LockHandle again = ta.acquire("order", "1")) {
                    assertThat(again.fencingToken()).isEqualTo(first);
                }
                assertThat(h.isHeld()).isTrue();
            }
            Optional<LockHandle> other = tb.tryAcquire("order", "1", Duration.ZERO);
            assertThat(other).isPresent();
            assertThat(other.get().fencingToken()).isGreaterThan(first);
            other.get().unlock();
            assertThat(tb.tryAcquire("Order", "1", Duration.ZERO)).isPresent();
        }
    }
}
