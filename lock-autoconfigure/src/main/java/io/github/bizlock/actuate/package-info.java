/** Operations support: Micrometer metrics and Observation spans of locks, the health indicator and the endpoint. */
@NullMarked
package io.github.bizlock.actuate;

import org.jspecify.annotations.NullMarked;
