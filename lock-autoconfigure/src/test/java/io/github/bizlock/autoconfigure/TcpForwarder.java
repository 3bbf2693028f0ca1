package io.github.bizlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Forwards a loopback port to the database server of a JDBC URL: a database that starts answering on a port where
 * nothing listened before. {@link #close()} closes the port and every forwarded connection.
 */
final class TcpForwarder implements AutoCloseable {

    private static final Pattern HOST_AND_PORT = Pattern.compile("^(jdbc:[a-z]+://)([^/:]+):(\\d+)(/.*)$");

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "tcp-forwarder");
        thread.setDaemon(true);
        return thread;
    });

    private TcpForwarder(int port, String jdbcUrl) throws IOException {
        Matcher url = url(jdbcUrl);
        targetHost = url.group(2);
        targetPort = Integer.parseInt(url.group(3));
        server = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    /** Starts listening on {@code port} of the loopback address, forwarding to the server of {@code jdbcUrl}. */
    static TcpForwarder open(int port, String jdbcUrl) throws IOException {
        return new TcpForwarder(port, jdbcUrl);
    }

    /** {@code jdbcUrl} with its host and port replaced by the loopback address and {@code port}. */
    static String onPort(String jdbcUrl, int port) {
        Matcher url = url(jdbcUrl);
        return url.group(1) + "127.0.0.1:" + port + url.group(4);
    }

    /** A loopback port nothing listens on: bound by the system, then released. */
    static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static Matcher url(String jdbcUrl) {
        Matcher url = HOST_AND_PORT.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalArgumentException("Not a host:port JDBC URL: " + jdbcUrl);
        }
        return url;
    }

    private void accept() {
        try {
            while (!server.isClosed()) {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                sockets.add(client);
                sockets.add(target);
                threads.execute(() -> pump(client, target));
                threads.execute(() -> pump(target, client));
            }
        } catch (IOException ex) {
            // Closed: stop accepting.
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read; (read = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException ex) {
            // One side closed: the other is closed below.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ex) {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(TcpForwarder::closeQuietly);
        threads.shutdownNow();
    }
}
