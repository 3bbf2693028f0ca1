/** The advisor, interceptor and SpEL key evaluation behind {@link io.github.bizlock.annotation.DistributedLock}. */
@NullMarked
package io.github.bizlock.aop;

import org.jspecify.annotations.NullMarked;
