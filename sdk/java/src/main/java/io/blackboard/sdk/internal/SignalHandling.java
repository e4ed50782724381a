package io.blackboard.sdk.internal;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SIGTERM and SIGINT for {@code run()}: the first asks for a graceful stop, the second forces it, a third
 * halts the JVM. The handlers are installed through {@code sun.misc.Signal} (module jdk.unsupported, found by
 * reflection) so that the JVM does not start exiting on the first signal: {@code run()} returns and the
 * program decides (the examples exit 0). Where that API is missing, a shutdown hook does the graceful stop
 * (the JVM then exits with 128 + the signal). Either way a shutdown hook also covers {@code System.exit}.
 * Everything is undone by {@link #close()}.
 */
public final class SignalHandling implements AutoCloseable {

    private final Logger log;
    private final Runnable graceful;
    private final Runnable forced;
    private final AtomicInteger signals = new AtomicInteger();
    private final List<Object[]> previous = new ArrayList<>(); // {Signal, old handler}
    private final Thread hook;
    private Method handle;

    private SignalHandling(Logger log, Runnable graceful, Runnable forced, Runnable awaitStopped) {
        this.log = log;
        this.graceful = graceful;
        this.forced = forced;
        this.hook = new Thread(() -> {
            graceful.run();
            awaitStopped.run();
        }, "blackboard-shutdown-hook");
    }

    /**
     * @param graceful asks the worker to stop gracefully (returns at once)
     * @param forced asks it to skip the drain (returns at once)
     * @param awaitStopped waits, bounded, until the worker stopped (the hook's body after {@code graceful})
     */
    public static SignalHandling install(Logger log, Runnable graceful, Runnable forced, Runnable awaitStopped) {
        SignalHandling handling = new SignalHandling(log, graceful, forced, awaitStopped);
        handling.installSignals();
        try {
            Runtime.getRuntime().addShutdownHook(handling.hook);
        } catch (IllegalStateException shuttingDown) {
            graceful.run();
        }
        return handling;
    }

    private void installSignals() {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            handle = signalClass.getMethod("handle", signalClass, handlerClass);
            Object handler = Proxy.newProxyInstance(SignalHandling.class.getClassLoader(),
                    new Class<?>[] {handlerClass}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "handle":
                                onSignal(args[0]);
                                return null;
                            case "hashCode":
                                return System.identityHashCode(proxy);
                            case "equals":
                                return proxy == args[0];
                            default:
                                return "blackboard-signal-handler";
                        }
                    });
            for (String name : new String[] {"TERM", "INT"}) {
                Object signal = signalClass.getConstructor(String.class).newInstance(name);
                try {
                    previous.add(new Object[] {signal, handle.invoke(null, signal, handler)});
                } catch (ReflectiveOperationException | RuntimeException e) {
                    log.log(Level.DEBUG, "cannot handle SIG" + name + " (the shutdown hook will): " + e);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            log.log(Level.DEBUG, "no sun.misc.Signal; SIGTERM and SIGINT are left to the shutdown hook: " + e);
        }
    }

    private void onSignal(Object signal) {
        int n = signals.incrementAndGet();
        if (n == 1) {
            log.log(Level.INFO, "SIG{0}: stopping gracefully (send it again to skip the drain)", name(signal));
            graceful.run();
        } else if (n == 2) {
            log.log(Level.WARNING, "SIG{0} again: skipping the drain, unregistering now", name(signal));
            forced.run();
        } else {
            log.log(Level.WARNING, "SIG{0} a third time: halting", name(signal));
            Runtime.getRuntime().halt(130);
        }
    }

    private static String name(Object signal) {
        try {
            return (String) signal.getClass().getMethod("getName").invoke(signal);
        } catch (ReflectiveOperationException e) {
            return String.valueOf(signal);
        }
    }

    @Override
    public void close() {
        for (Object[] entry : previous) {
            try {
                handle.invoke(null, entry[0], entry[1]);
            } catch (ReflectiveOperationException | RuntimeException e) {
                log.log(Level.DEBUG, "could not restore a signal handler: " + e);
            }
        }
        previous.clear();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or ran: nothing to undo
        }
    }
}
