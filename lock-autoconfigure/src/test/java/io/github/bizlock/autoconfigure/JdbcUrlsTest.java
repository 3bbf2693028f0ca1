package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A JDBC URL as bizlock shows it in messages and logs: everything but the passwords it may carry. */
class JdbcUrlsTest {

    @Test
    void masksThePasswordOfTheUserinfo() {
        assertThat(JdbcUrls.redact("jdbc:mysql://user:secret@host/db")).isEqualTo("jdbc:mysql://user:******@host/db");
        assertThat(JdbcUrls.redact("jdbc:mysql://app:s3cr:et@db1:3306,app:other@db2:3306/app?ssl=true"))
                .isEqualTo("jdbc:mysql://app:******@db1:3306,app:******@db2:3306/app?ssl=true");
    }

    @Test
    void masksEveryPasswordParameterWhateverItsCase() {
        assertThat(JdbcUrls.redact("jdbc:mariadb://host/db?user=app&password=secret&x=1"))
                .isEqualTo("jdbc:mariadb://host/db?user=app&password=******&x=1");
        assertThat(JdbcUrls.redact("jdbc:mariadb://host/db?PASSWORD=secret"))
                .isEqualTo("jdbc:mariadb://host/db?PASSWORD=******");
        assertThat(JdbcUrls.redact("jdbc:sqlserver://host;user=app;password=secret;databaseName=db"))
                .isEqualTo("jdbc:sqlserver://host;user=app;password=******;databaseName=db");
        assertThat(JdbcUrls.redact("jdbc:mysql://host/db?trustCertificateKeyStorePassword=secret&Password=two"))
                .isEqualTo("jdbc:mysql://host/db?trustCertificateKeyStorePassword=******&Password=******");
        // Connector/J's key-value host forms.
        assertThat(JdbcUrls.redact("jdbc:mysql://address=(host=db)(user=app)(password=secret)/app"))
                .isEqualTo("jdbc:mysql://address=(host=db)(user=app)(password=******)/app");
        assertThat(JdbcUrls.redact("jdbc:mysql://(host=db,password=secret,user=app)/app"))
                .isEqualTo("jdbc:mysql://(host=db,password=******,user=app)/app");
    }

    @Test
    void leavesAUrlWithoutPasswordsAlone() {
        for (String url : new String[] {
            "jdbc:mysql://db.example:3306/app",
            "jdbc:mysql://app@db.example:3306/app?useSSL=true",
            "jdbc:mariadb:loadbalance://db1,db2/app?passwordCharacterEncoding=utf8",
            "jdbc:h2:mem:test;MODE=MySQL"
        }) {
            assertThat(JdbcUrls.redact(url)).isEqualTo(url);
        }
    }
}
