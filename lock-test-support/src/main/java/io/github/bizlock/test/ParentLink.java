package io.github.bizlock.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The child's side of {@link ChildJvm}: the one reader of the commands the test sends on stdin and the one writer of
 * the answers and events it reads on stdout. Everything else the child prints (logging, stack traces, {@code
 * System.out}) goes to stderr, so that stdout carries the protocol alone. A child's {@code main} is one line, {@code
 * ParentLink.run(args, MyChild::run)}: the child's own logic stays in its class.
 */
public final class ParentLink {

    /** The answer of a child whose body threw: {@code ERROR exception}, its stack trace on stderr. */
    static final String ERROR = "ERROR";

    private final PrintStream answers;
    private final BufferedReader commands;

    private ParentLink(PrintStream answers, BufferedReader commands) {
        this.answers = answers;
        this.commands = commands;
    }

    /** What a child does, given its link to the test and its arguments. */
    @FunctionalInterface
    public interface Child {
        void run(ParentLink parent, List<String> args) throws Exception;
    }

    /** What a child does with one command line. */
    @FunctionalInterface
    public interface Commands {
        void handle(String command) throws Exception;
    }

    /**
     * Runs {@code child}, then exits the JVM: with 0 when it returns, with 1 after answering {@code ERROR} when it
     * throws (the stack trace goes to stderr, which the test shows in its failure message).
     */
    public static void run(String[] args, Child child) {
        PrintStream stdout = System.out;
        System.setOut(System.err);
        ParentLink parent =
                new ParentLink(stdout, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
        int status = 0;
        try {
            child.run(parent, List.of(args));
        } catch (Throwable ex) {
            ex.printStackTrace();
            parent.answer(ERROR + " " + String.valueOf(ex).replace('\n', ' '));
            status = 1;
        }
        System.exit(status);
    }

    /** Sends one answer or event line to the test; safe from any thread. */
    public void answer(String line) {
        synchronized (answers) {
            answers.println(line);
            answers.flush();
        }
    }

    /**
     * Waits for the next command, which must be {@code expected}.
     *
     * @throws IllegalStateException if another command comes, or the test closed the input (it is done, or gone)
     */
    public void await(String expected) {
        String command = nextCommand();
        if (!expected.equals(command)) {
            throw new IllegalStateException("Expected the command " + expected + ", got " + command);
        }
    }

    /**
     * Hands every command to {@code handler}, one at a time, until the test closes the input or its JVM ends: a child
     * serving commands never outlives its test.
     */
    public void serve(Commands handler) throws Exception {
        for (String command = nextCommand(); command != null; command = nextCommand()) {
            handler.handle(command);
        }
    }

    /** Waits until the test closes the input or its JVM ends: what a child that only holds something does. */
    public void awaitEnd() throws Exception {
        serve(command -> answer("UNKNOWN " + command));
    }

    private String nextCommand() {
        try {
            return commands.readLine();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
