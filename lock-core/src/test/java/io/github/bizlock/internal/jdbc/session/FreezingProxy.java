package io.github.bizlock.internal.jdbc.session;

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
 * A TCP forwarder between test connections and the database that can {@link #freeze()}: from then on it passes no
 * byte in either direction and closes nothing, which is what a network partition leaves behind (a half-open
 * connection). The server keeps the session, and its locks, until {@link #close()} closes both ends.
 */
public final class FreezingProxy implements AutoCloseable {

    private static final Pattern HOST_AND_PORT = Pattern.compile("^(jdbc:[a-z]+://)([^/:]+):(\\d+)(/.*)$");

    private final String url;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "freezing-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean frozen;

    /** A proxy to the server of {@code jdbcUrl}; {@link #jdbcUrl()} is the same URL through the proxy. */
    public FreezingProxy(String jdbcUrl) throws IOException {
        Matcher url = HOST_AND_PORT.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalArgumentException("Not a host:port JDBC URL: " + jdbcUrl);
        }
        String host = url.group(2);
        int port = Integer.parseInt(url.group(3));
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.url = url.group(1) + "127.0.0.1:" + server.getLocalPort() + url.group(4);
        threads.execute(() -> accept(host, port));
    }

    public String jdbcUrl() {
        return url;
    }

    /** Stops passing bytes, without closing either end. */
    public void freeze() {
        frozen = true;
    }

    /** Closes both ends of every connection, so the server sees its sessions end. */
    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
        threads.shutdownNow();
    }

    private void accept(String host, int port) {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket database = new Socket(host, port);
                sockets.add(client);
                sockets.add(database);
                threads.execute(() -> pass(client, database));
                threads.execute(() -> pass(database, client));
            } catch (IOException ex) {
                return; // closed
            }
        }
    }

    private void pass(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read; (read = in.read(buffer)) >= 0; ) {
                while (frozen) {
                    Thread.sleep(10); // the bytes go nowhere, as into a partition
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException ex) {
            // closed
        } finally {
            try {
                from.close();
                to.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
