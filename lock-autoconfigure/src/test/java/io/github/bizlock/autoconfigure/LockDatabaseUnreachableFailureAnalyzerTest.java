package io.github.bizlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** A lock database that does not answer at start-up fails the start naming its URL, what the driver said, and what to check. */
@ExtendWith(OutputCaptureExtension.class)
class LockDatabaseUnreachableFailureAnalyzerTest {

    @Test
    void namesTheUrlTheDriversErrorAndWhatToCheck(CapturedOutput output) throws IOException {
        String url = "jdbc:mysql://127.0.0.1:" + closedPort() + "/app?sslMode=DISABLED";

        FailedStart.Analysis analysis =
                FailedStart.analysis(output, List.of("spring.datasource.url=" + url, "spring.datasource.username=app"));

        assertThat(analysis.description())
                .contains("bizlock could not connect to the lock database")
                .contains(url)
                .contains("Communications link failure");
        assertThat(analysis.action())
                .contains("spring.datasource.url")
                .contains("bizlock.datasource")
                .contains("bizlock.enabled=false");
    }

    /** A loopback port nothing listens on: bound by the system, then released. */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
