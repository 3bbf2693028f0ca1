/**
 * bizlock on Spring Boot 3.5 where its types differ from Spring Boot 4's: the health indicator, selected by the
 * presence of Spring Boot 3.5's Actuator health types, which Spring Boot 4 moved to another package; and the
 * environment post-processor that keeps Spring Boot's Flyway off where only bizlock needs Flyway.
 */
@NullMarked
package io.github.bizlock.boot3;

import org.jspecify.annotations.NullMarked;
