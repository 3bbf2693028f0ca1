package io.github.bizlock.autoconfigure;

/**
 * A {@code bizlock.*} property whose value bizlock cannot use. {@link BizLockPropertyFailureAnalyzer} turns it into the
 * start-up failure report; the message says the same for whoever sees the exception itself.
 */
final class BizLockPropertyException extends IllegalArgumentException {

    private final String property;
    private final String value;
    private final String problem;
    private final String fix;

    /**
     * @param property the property's name, e.g. {@code bizlock.lease-time}
     * @param value the value as the user would write it, or {@code "(unset)"}
     * @param problem what is wrong with it, e.g. {@code "it must be positive"}
     * @param fix the value to set instead, as a sentence
     */
    BizLockPropertyException(String property, String value, String problem, String fix) {
        super(property + "=" + value + ": " + problem + ". " + fix);
        this.property = property;
        this.value = value;
        this.problem = problem;
        this.fix = fix;
    }

    String property() {
        return property;
    }

    String value() {
        return value;
    }

    String problem() {
        return problem;
    }

    String fix() {
        return fix;
    }
}
