/** Spring Boot auto-configuration and the {@code bizlock.*} properties. */
@NullMarked
package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
