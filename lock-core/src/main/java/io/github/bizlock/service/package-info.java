/** {@link io.github.bizlock.service.LockService}: bizlock assembled from a DataSource, for applications without Spring Boot. */
@NullMarked
package io.github.bizlock.service;

import org.jspecify.annotations.NullMarked;
