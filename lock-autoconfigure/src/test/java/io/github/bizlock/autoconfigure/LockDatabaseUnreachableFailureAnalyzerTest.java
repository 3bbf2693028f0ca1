package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.bizlock.test.TestDatabase;
import io.github.bizlock.test.TestDatabaseExtension;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * With {@code bizlock.fail-fast=true}, a lock database that does not answer at start-up fails the start naming its
 * URL, what the driver said, and what to check; credentials the server refuses fail it without.
 */
@ExtendWith({TestDatabaseExtension.class, OutputCaptureExtension.class})
class LockDatabaseUnreachableFailureAnalyzerTest {

    @Test
    void namesTheUrlTheDriversErrorAndWhatToCheck(CapturedOutput output) throws IOException {
        String url = "jdbc:mysql://127.0.0.1:" + TcpForwarder.closedPort() + "/app?sslMode=DISABLED";

        FailedStart.Analysis analysis = FailedStart.analysis(
                output,
                List.of("spring.datasource.url=" + url, "spring.datasource.username=app", "bizlock.fail-fast=true"));

        assertThat(analysis.description())
                .contains("bizlock could not connect to the lock database")
                .contains(url)
                .contains("Communications link failure");
        assertThat(analysis.action())
                .contains("spring.datasource.url")
                .contains("bizlock.datasource")
                .contains("set bizlock.fail-fast=false")
                .contains("bizlock.enabled=false");
    }

    @Test
    void credentialsTheServerRefusesFailTheStartWithoutFailFast(TestDatabase database, CapturedOutput output) {
        // The server answers: waiting would not mend a wrong password, so the start fails whatever bizlock.fail-fast.
        FailedStart.Analysis analysis = FailedStart.analysis(
                output,
                List.of(
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=not-the-password"));

        assertThat(analysis.description())
                .contains("bizlock could not connect to the lock database at " + database.jdbcUrl())
                .contains("Access denied");
        assertThat(analysis.action()).contains("spring.datasource.password");
    }
}
