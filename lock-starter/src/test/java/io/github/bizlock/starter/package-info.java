/** Boots a real Spring Boot application that depends on nothing but the starter. */
@NullMarked
package io.github.bizlock.starter;

import org.jspecify.annotations.NullMarked;
