package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.service.BizLockDao;
import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** What an annotated method's key expressions lock: its own expressions, evaluated for each call. */
@ExtendWith(TestDatabaseExtension.class)
class DistributedLockKeyTest {

    /** One method, inherited by two beans whose class-level annotations lock it by different expressions. */
    abstract static class Reports {

        private final ObjectProvider<BizLockDao> dao;

        Reports(ObjectProvider<BizLockDao> dao) {
            this.dao = dao;
        }

        /** The locks the database holds while the method runs, as {@code name/key}. */
        public List<String> build(String day) {
            return heldInDatabase(dao);
        }
    }

    @DistributedLock(name = "daily", key = "#p0")
    static class DailyReports extends Reports {

        DailyReports(ObjectProvider<BizLockDao> dao) {
            super(dao);
        }
    }

    @DistributedLock(name = "monthly", key = "'month-' + #p0.substring(0, 7)")
    static class MonthlyReports extends Reports {

        MonthlyReports(ObjectProvider<BizLockDao> dao) {
            super(dao);
        }
    }

    static class Orders {

        private final AtomicInteger calls = new AtomicInteger();

        @DistributedLock(name = "order", key = "#id.substring(5)")
        public void submit(String id) {
            calls.incrementAndGet();
        }

        public int calls() {
            return calls.get();
        }
    }

    /** No toString of its own: its text is {@code Cart@1b6d3586}, different for every instance. */
    static class Cart {

        final String id;

        Cart(String id) {
            this.id = id;
        }
    }

    static class Carts {

        private final AtomicInteger calls = new AtomicInteger();

        @DistributedLock(
                name = "cart",
                key = {"#tenant", "#cart"})
        public void checkout(String tenant, Cart cart) {
            calls.incrementAndGet();
        }

        @DistributedLock(name = "carts", key = "#ids")
        public void checkoutAll(long[] ids) {
            calls.incrementAndGet();
        }

        public int calls() {
            return calls.get();
        }
    }

    private ApplicationContextRunner runner;

    @BeforeEach
    void setUp(TestDatabase database) {
        runner = LockFixtures.runner(database)
                .withBean(DailyReports.class)
                .withBean(MonthlyReports.class)
                .withBean(Orders.class)
                .withBean(Carts.class);
    }

    private static List<String> heldInDatabase(ObjectProvider<BizLockDao> dao) {
        return dao.getObject().findHeld(10).stream()
                .map(row -> row.name() + "/" + row.key())
                .toList();
    }

    @Test
    void anInheritedMethodLocksTheKeyOfEachBeansOwnAnnotation() {
        runner.run(context -> {
            assertThat(context.getBean(DailyReports.class).build("2024-05-01")).containsExactly("daily/2024-05-01");
            assertThat(context.getBean(MonthlyReports.class).build("2024-05-01"))
                    .containsExactly("monthly/month-2024-05");
            assertThat(context.getBean(DailyReports.class).build("2024-05-02")).containsExactly("daily/2024-05-02");
        });
    }

    @Test
    void aKeyExpressionThatThrowsFailsTheCallNamingMethodAndExpression() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.submit("o-1"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Orders.submit(String)")
                    .hasMessageContaining("key expression '#id.substring(5)' failed")
                    .hasCauseInstanceOf(StringIndexOutOfBoundsException.class);
            assertThat(orders.calls()).as("the method did not run").isZero();
        });
    }

    @Test
    void aKeyWithoutATextOfItsOwnFailsTheCallNamingMethodExpressionAndFix() {
        runner.run(context -> {
            Carts carts = context.getBean(Carts.class);
            assertThatThrownBy(() -> carts.checkout("acme", new Cart("c-1")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Carts.checkout(String, Cart)")
                    .hasMessageContaining("key expression '#cart'")
                    .hasMessageContaining(Cart.class.getName() + ", which has no toString() of its own")
                    .hasMessageContaining("'#cart.id'");
            assertThatThrownBy(() -> carts.checkoutAll(new long[] {1, 2}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Carts.checkoutAll(long[])")
                    .hasMessageContaining("key expression '#ids' evaluated to an array (long[])");
            assertThat(carts.calls()).as("the methods did not run").isZero();
        });
    }
}
