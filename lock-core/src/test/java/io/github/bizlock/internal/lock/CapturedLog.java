package io.github.bizlock.internal.lock;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * What one logger category logs while this is open, for behaviour whose only trace is a log line (a failing observer
 * that must not stop the lock operation, an interrupt the holder is told of).
 */
final class CapturedLog implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    CapturedLog(Class<?> category) {
        this.logger = (Logger) LoggerFactory.getLogger(category);
        appender.start();
        logger.addAppender(appender);
    }

    /** Each event logged so far as "LEVEL message", followed by " (message of the throwable)" if one was logged. */
    List<String> lines() {
        // The appender adds under its own monitor, on whichever thread logs.
        synchronized (appender) {
            return appender.list.stream().map(CapturedLog::line).toList();
        }
    }

    private static String line(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        return event.getLevel() + " " + event.getFormattedMessage()
                + (thrown != null ? " (" + thrown.getMessage() + ")" : "");
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
