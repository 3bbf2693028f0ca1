package io.github.bizlock.internal.engine;

import io.github.bizlock.LossCause;

/**
 * Why the database no longer holds a grant, as the engine or the lock manager found it.
 *
 * @param cause the kind of loss
 * @param reason for logs and the {@link io.github.bizlock.LockLostEvent}: what was found, in words
 */
public record Loss(LossCause cause, String reason) {}
