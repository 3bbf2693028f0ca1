/**
 * bizlock on Spring Boot 3.5 where its types differ from Spring Boot 4's: the health indicator. Selected by the
 * presence of Spring Boot 3.5's Actuator health types, which Spring Boot 4 moved to another package.
 */
@NullMarked
package io.github.bizlock.boot3;

import org.jspecify.annotations.NullMarked;
