package io.github.bizlock.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

/** Micrometer metrics and observations of locks. */
public class BizLockMetricsProperties {

    /**
     * Lock names whose keys are added as a key tag to metrics and spans; keep it to names with few keys, since
     * every key becomes a series of its own.
     */
    private Set<String> keyTagNames = new LinkedHashSet<>();

    public Set<String> getKeyTagNames() {
        return keyTagNames;
    }

    public void setKeyTagNames(Set<String> keyTagNames) {
        this.keyTagNames = keyTagNames;
    }
}
