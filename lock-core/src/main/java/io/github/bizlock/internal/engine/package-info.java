/**
 * The engine SPI: one {@link io.github.bizlock.internal.engine.LockEngine} per mode takes, renews and releases
 * locks in the database, and each lock it takes is a {@link io.github.bizlock.internal.engine.Grant}; a
 * {@link io.github.bizlock.internal.engine.ModeBindingStore} keeps which mode each lock name is taken in.
 */
@NullMarked
package io.github.bizlock.internal.engine;

import org.jspecify.annotations.NullMarked;
