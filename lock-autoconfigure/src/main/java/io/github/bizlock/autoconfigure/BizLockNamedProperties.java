package io.github.bizlock.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of NAMED locks, which are the server's {@code GET_LOCK} locks, shared by every account on it. */
@ConfigurationProperties("bizlock.named")
public class BizLockNamedProperties {

    /**
     * Secret that the server lock names of NAMED locks are keyed by, the same on every instance of the application, so
     * that other accounts on the server cannot compute a key's lock name to probe or block it.
     */
    private @Nullable String secret;

    public @Nullable String getSecret() {
        return secret;
    }

    public void setSecret(@Nullable String secret) {
        if (secret != null && secret.isBlank()) {
            // The value is not repeated: it is meant to be a secret.
            throw new BizLockPropertyException(
                    "bizlock.named.secret",
                    "(blank)",
                    "it must not be blank",
                    "Set bizlock.named.secret to the same random text on every instance of the application, or"
                            + " remove it");
        }
        this.secret = secret;
    }
}
