package io.github.bizlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded server and data directory of a test JVM that was killed are cleaned up by the next one to start. */
class StaleMySqlServersTest {

    @Test
    void aServerWhoseJvmEndedIsStoppedAndItsDirectoryRemovedWhileOthersAreLeftAlone(@TempDir Path scratch)
            throws Exception {
        Path orphaned = Files.createDirectory(scratch.resolve(StaleMySqlServers.PREFIX + "orphaned"));
        Path owned = Files.createDirectory(scratch.resolve(StaleMySqlServers.PREFIX + "owned"));
        Path settingUp = Files.createDirectory(scratch.resolve(StaleMySqlServers.PREFIX + "setting-up"));
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(30, TimeUnit.SECONDS);
        Files.writeString(orphaned.resolve("owner.pid"), Long.toString(ended.pid()));
        StaleMySqlServers.claim(owned);
        // Stands in for the orphaned mysqld: its command line names mysqld and the data directory, as the real one's
        // does.
        Process server =
                new ProcessBuilder("sh", "-c", "sleep 300; : mysqld --datadir=" + orphaned.resolve("data")).start();
        try {
            Files.writeString(orphaned.resolve("mysqld.pid"), Long.toString(server.pid()));

            StaleMySqlServers.reap(scratch);

            assertThat(server.waitFor(30, TimeUnit.SECONDS))
                    .as("the orphaned server stopped")
                    .isTrue();
            assertThat(orphaned).doesNotExist();
            assertThat(owned).as("a directory this JVM owns").isDirectory();
            assertThat(settingUp)
                    .as("a directory whose owner is not written yet")
                    .isDirectory();
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void aPidFileOfAnotherProgramStopsNothing(@TempDir Path scratch) throws Exception {
        Path orphaned = Files.createDirectory(scratch.resolve(StaleMySqlServers.PREFIX + "orphaned"));
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(30, TimeUnit.SECONDS);
        Files.writeString(orphaned.resolve("owner.pid"), Long.toString(ended.pid()));
        // A pid reused by a program that is not this directory's server.
        Process other = new ProcessBuilder("sleep", "300").start();
        try {
            Files.writeString(orphaned.resolve("mysqld.pid"), Long.toString(other.pid()));

            StaleMySqlServers.reap(scratch);

            assertThat(other.isAlive()).isTrue();
            assertThat(orphaned).doesNotExist();
        } finally {
            other.destroyForcibly();
        }
    }
}
