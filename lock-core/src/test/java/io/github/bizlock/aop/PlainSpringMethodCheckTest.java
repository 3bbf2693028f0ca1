package io.github.bizlock.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bizlock.LockFixture;
import io.github.bizlock.LockTemplate;
import io.github.bizlock.LockTest;
import io.github.bizlock.Locks;
import io.github.bizlock.annotation.DistributedLock;
import io.github.bizlock.internal.engine.LockKey;
import io.github.bizlock.internal.jdbc.LeaseDao;
import io.github.bizlock.internal.jdbc.LockRow;
import io.github.bizlock.internal.lock.LockManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code @DistributedLock} in a Spring application without Spring Boot: the advisor and its method check by hand. */
@LockTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlainSpringMethodCheckTest {

    static class Reports {

        private final LeaseDao dao;

        Reports(LeaseDao dao) {
            this.dao = dao;
        }

        @DistributedLock(name = "report", key = "#p0")
        public boolean build(String day) {
            return dao.find(new LockKey("report", day)).map(LockRow::held).orElse(false);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MethodCheckConfiguration {

        @Bean
        static BeanPostProcessor distributedLockMethodCheck() {
            return DistributedLockAdvisor.methodCheck();
        }
    }

    private LeaseDao dao;
    private LockManager manager;
    private LockTemplate locks;

    @BeforeAll
    void setUp(Locks fixture) {
        dao = fixture.dao();
        manager = fixture.manager();
        locks = LockFixture.template(manager);
    }

    private AnnotationConfigApplicationContext context(boolean autoProxy) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(
                DistributedLockAdvisor.class,
                () -> new DistributedLockAdvisor(() -> locks, context.getBeanFactory(), 0));
        context.register(MethodCheckConfiguration.class);
        if (autoProxy) {
            context.registerBean(DefaultAdvisorAutoProxyCreator.class);
        }
        context.registerBean(Reports.class, () -> new Reports(dao));
        return context;
    }

    @Test
    void locksWithTheAdvisorAndAnAutoProxyCreator() {
        try (AnnotationConfigApplicationContext context = context(true)) {
            context.refresh();
            assertThat(context.getBean(Reports.class).build("2024-05-01")).isTrue();
        }
    }

    @Test
    void refusesToStartWhenNothingProxiesTheBean() {
        try (AnnotationConfigApplicationContext context = context(false)) {
            assertThatThrownBy(context::refresh)
                    .isInstanceOf(BeanCreationException.class)
                    .hasMessageContaining(Reports.class.getName() + " has @DistributedLock methods, but bean")
                    .hasMessageContaining("was not proxied with bizlock's DistributedLockAdvisor")
                    .hasMessageContaining("Reports.build(String)")
                    .hasMessageContaining("DefaultAdvisorAutoProxyCreator");
        }
    }
}
