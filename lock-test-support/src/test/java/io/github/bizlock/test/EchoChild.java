package io.github.bizlock.test;

import java.util.List;

/**
 * The child of {@link ChildJvmTest}: answers {@code READY} with its arguments and the system property {@code
 * echo.greeting}, then serves {@code ECHO text} (answers it back), {@code SILENT} (answers nothing), {@code PRINT
 * text} (prints it to {@code System.out}, which the link sends to stderr), {@code EVENT text} (an event, then {@code
 * DONE}) and {@code FAIL text} (throws).
 */
public final class EchoChild {

    private EchoChild() {}

    public static void main(String[] args) {
        ParentLink.run(args, EchoChild::run);
    }

    private static void run(ParentLink parent, List<String> args) throws Exception {
        parent.answer("READY " + String.join(",", args) + " " + System.getProperty("echo.greeting"));
        parent.serve(command -> {
            String verb = command.split(" ", 2)[0];
            String text = command.substring(verb.length()).strip();
            switch (verb) {
                case "ECHO" -> parent.answer("ECHO " + text);
                case "SILENT" -> {}
                case "PRINT" -> System.out.println(text);
                case "EVENT" -> {
                    parent.answer("TICK " + text);
                    parent.answer("DONE");
                }
                case "FAIL" -> throw new IllegalStateException(text);
                default -> parent.answer("UNKNOWN " + command);
            }
        });
    }
}
