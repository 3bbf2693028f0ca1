/** The {@link io.github.bizlock.annotation.DistributedLock @DistributedLock} annotation and its options. */
@NullMarked
package io.github.bizlock.annotation;

import org.jspecify.annotations.NullMarked;
