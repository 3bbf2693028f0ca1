package io.github.bizlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An order and inventory service that shows, one endpoint per problem, what bizlock's locks prevent. Without
 * {@code spring.datasource.url} it starts (or joins) an embedded MySQL 8.0, so several replicas on one machine share
 * one database.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
