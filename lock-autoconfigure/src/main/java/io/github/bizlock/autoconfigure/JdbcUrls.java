package io.github.bizlock.autoconfigure;

import java.util.regex.Pattern;

/**
 * A JDBC URL fit for messages and logs: the passwords a URL may carry are masked, so that a start-up warning or a
 * failed lock does not copy them into log files and error trackers.
 */
final class JdbcUrls {

    /** What a password is shown as. */
    static final String MASK = "******";

    /**
     * {@code user:password@} after {@code //} or, in a multi-host URL, after a comma. The password stops at a comma so
     * that {@code //db1:3306,app:pw@db2} masks {@code pw}, not {@code 3306,app:pw}.
     */
    private static final Pattern USERINFO = Pattern.compile("(//|,)([^:/@,?;()=&]*):[^@/?,]*@");

    /**
     * {@code password=...} and its relatives ({@code trustCertificateKeyStorePassword=...}) in any case, as a query
     * parameter ({@code &}), a {@code ;}-separated property or Connector/J's {@code (host=..,password=..)} forms.
     */
    private static final Pattern PASSWORD_PROPERTY = Pattern.compile("(?i)(\\w*password)=[^&;,)]*");

    private JdbcUrls() {}

    static String redact(String url) {
        String masked = USERINFO.matcher(url).replaceAll("$1$2:" + MASK + "@");
        return PASSWORD_PROPERTY.matcher(masked).replaceAll("$1=" + MASK);
    }
}
