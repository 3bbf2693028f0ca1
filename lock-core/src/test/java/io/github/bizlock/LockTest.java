package io.github.bizlock;

import io.github.bizlock.test.TestDatabaseExtension;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test on the lock tables: its class gets a fresh database ({@link TestDatabaseExtension}) with the tables made once,
 * before its first test, and its tests, lifecycle methods and constructor may declare a {@link Locks} parameter, which
 * builds DAOs and lock managers on that database and closes each manager it built when the test (or, for one built in
 * {@code @BeforeAll}, the class) ends.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith({TestDatabaseExtension.class, LockTestExtension.class})
public @interface LockTest {}
