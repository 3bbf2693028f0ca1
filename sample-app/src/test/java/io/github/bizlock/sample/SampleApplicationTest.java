package io.github.bizlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

@SpringBootTest
class SampleApplicationTest {

    @Autowired
    ApplicationContext context;

    @Test
    void starts() {
        assertThat(context.getBean(SampleApplication.class)).isNotNull();
    }
}
