package io.github.bizlock.test;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A TCP forwarder between test connections and the database that can {@link #freeze()}: from then on it passes no
 * byte in either direction and closes nothing, which is what a network partition leaves behind (a half-open
 * connection). The server keeps the session, and its locks, until {@link #close()} closes both ends. It can also
 * {@link #reset()} every connection (a TCP RST on both sides, as a load balancer or a firewall that drops its state
 * sends) and {@link #refuse()} new ones (the database is unreachable): it still accepts them, then resets them, as
 * ProxySQL, HAProxy or a cloud SQL proxy does while the database behind it is down. {@link #freezeOpen()} freezes only
 * the connections open at that moment, as when the host behind them dies without a word (power loss, a VM killed, a
 * virtual IP moved to another host): their reads wait until the OS gives up, while new connections reach the database.
 * In lock-test-support so that the tests of every module can put it in front of their database.
 */
public final class FreezingProxy implements AutoCloseable {

    private static final Pattern HOST_AND_PORT = Pattern.compile("^(jdbc:[a-z]+://)([^/:]+):(\\d+)(/.*)$");

    private final String url;
    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<Socket> toDatabase = new CopyOnWriteArrayList<>();
    private final List<Link> links = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "freezing-proxy");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean frozen;
    private volatile boolean refusing;

    /** A proxy to the server of {@code jdbcUrl}; {@link #jdbcUrl()} is the same URL through the proxy. */
    public FreezingProxy(String jdbcUrl) throws IOException {
        this(jdbcUrl, 0, 0);
    }

    /**
     * A proxy listening on the first free port from {@code firstPort} to {@code lastPort} (0 and 0: any free port),
     * for tests that must keep to a range of ports.
     */
    public FreezingProxy(String jdbcUrl, int firstPort, int lastPort) throws IOException {
        Matcher url = HOST_AND_PORT.matcher(jdbcUrl);
        if (!url.matches()) {
            throw new IllegalArgumentException("Not a host:port JDBC URL: " + jdbcUrl);
        }
        String host = url.group(2);
        int port = Integer.parseInt(url.group(3));
        this.server = listen(firstPort, lastPort);
        this.url = url.group(1) + "127.0.0.1:" + server.getLocalPort() + url.group(4);
        threads.execute(() -> accept(host, port));
    }

    private static ServerSocket listen(int firstPort, int lastPort) throws IOException {
        IOException last = null;
        for (int port = firstPort; port <= lastPort; port++) {
            try {
                return new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
            } catch (IOException ex) {
                last = ex; // taken: the next one
            }
        }
        throw new IOException("No free port from " + firstPort + " to " + lastPort, last);
    }

    public String jdbcUrl() {
        return url;
    }

    /** Stops passing bytes, without closing either end. */
    public void freeze() {
        frozen = true;
    }

    /** Passes bytes again, those held back while frozen first. */
    public void thaw() {
        frozen = false;
    }

    /**
     * Stops passing bytes on the connections open now, without closing either end; connections opened later pass
     * bytes as before. {@link #thaw()} does not end it: a dead host does not come back.
     *
     * @return how many connections it froze
     */
    public int freezeOpen() {
        for (Link link : links) {
            link.frozen = true;
        }
        return links.size();
    }

    /**
     * Resets every connection open now, on both sides, with a TCP RST: the client's next read fails at once, and the
     * server ends the session. New connections are passed as before (unless {@link #refuse() refused}).
     */
    public void reset() {
        for (Socket socket : sockets) {
            try {
                socket.setSoLinger(true, 0); // close() then sends RST instead of FIN
                socket.close();
            } catch (IOException ignored) {
                // gone already
            }
        }
        sockets.clear();
        toDatabase.clear();
    }

    /**
     * The local ports of the open connections to the database: the server's process list shows them as the sessions'
     * host ({@code 127.0.0.1:port}), so a test can find the sessions of the clients behind this proxy.
     */
    public List<Integer> databaseSidePorts() {
        return toDatabase.stream().map(Socket::getLocalPort).toList();
    }

    /**
     * Resets every connection and every new one, accepted first (the client connects, then reads a TCP RST): the
     * database is unreachable until {@link #admit()}.
     */
    public void refuse() {
        refusing = true;
        reset();
    }

    /** How many connections were accepted and reset since this proxy opened: the tries of clients behind it. */
    public int refusedConnections() {
        return refused.get();
    }

    /** Lets new connections through again after {@link #refuse()}. */
    public void admit() {
        refusing = false;
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
                if (refusing) {
                    client.setSoLinger(true, 0);
                    client.close();
                    refused.incrementAndGet();
                    continue;
                }
                Socket database;
                try {
                    database = new Socket(host, port);
                } catch (IOException ex) {
                    client.close(); // the database refused it: so does the proxy
                    continue;
                }
                sockets.add(client);
                sockets.add(database);
                toDatabase.add(database);
                Link link = new Link();
                links.add(link);
                threads.execute(() -> pass(client, database, link));
                threads.execute(() -> pass(database, client, link));
            } catch (IOException ex) {
                return; // closed
            }
        }
    }

    private void pass(Socket from, Socket to, Link link) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int read; (read = in.read(buffer)) >= 0; ) {
                while (frozen || link.frozen) {
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
            sockets.remove(from);
            sockets.remove(to);
            toDatabase.remove(from);
            toDatabase.remove(to);
            links.remove(link);
        }
    }

    /** One client connection and its connection to the database, which {@link #freezeOpen()} freezes together. */
    private static final class Link {
        volatile boolean frozen;
    }
}
