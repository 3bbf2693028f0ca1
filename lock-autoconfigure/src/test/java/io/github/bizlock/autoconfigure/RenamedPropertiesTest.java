package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.service.LockDefaults;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/** Properties renamed in this release still work under their former names, the new name winning when both are set. */
class RenamedPropertiesTest {

    @Configuration(proxyBeanMethods = false)
    @EnableConfigurationProperties({BizLockWritesProperties.class, BizLockConnectionsProperties.class})
    static class Writes {}

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Writes.class);

    @Test
    void theSizeOfThePoolOfLockWritesIsReadUnderEitherName() {
        runner.run(context -> assertThat(size(context)).isEqualTo(LockDefaults.MAX_WRITE_CONNECTIONS));
        runner.withPropertyValues("bizlock.writes.max-connections=6")
                .run(context -> assertThat(size(context)).isEqualTo(6));
        runner.withPropertyValues("bizlock.connections.max-size=3")
                .run(context -> assertThat(size(context))
                        .as("the former name, for one release")
                        .isEqualTo(3));
        runner.withPropertyValues("bizlock.connections.max-size=3", "bizlock.writes.max-connections=6")
                .run(context ->
                        assertThat(size(context)).as("the new name wins").isEqualTo(6));
        runner.withPropertyValues("bizlock.connections.max-size=0")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("bizlock.connections.max-size=0: it must be at least 1")
                        .hasMessageContaining("bizlock.writes.max-connections"));
    }

    private static int size(org.springframework.context.ApplicationContext context) {
        return BizLockConnectionsProperties.maxWriteConnections(
                context.getBean(BizLockWritesProperties.class), context.getBean(BizLockConnectionsProperties.class));
    }
}
