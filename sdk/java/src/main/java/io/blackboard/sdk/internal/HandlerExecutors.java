package io.blackboard.sdk.internal;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The handlers' executor: a virtual thread per job where the JVM has them (Java 21+, found by reflection so the
 * SDK still runs on 17), else a pool of exactly {@code concurrency} platform threads. Either way the worker
 * never holds more than {@code concurrency} jobs, so no more than that many handlers run at once.
 */
public final class HandlerExecutors {

    private HandlerExecutors() {
    }

    public static ExecutorService create(String workerName, int concurrency) {
        ExecutorService virtual = virtualThreadPerTask("blackboard-" + workerName + "-job-");
        return virtual != null ? virtual : platformPool("blackboard-" + workerName + "-job-", concurrency);
    }

    /** Whether this JVM can run handlers on virtual threads. */
    public static boolean virtualThreadsAvailable() {
        try {
            Thread.class.getMethod("ofVirtual");
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    static ExecutorService virtualThreadPerTask(String prefix) {
        try {
            // through the public interface Thread.Builder: the builder's own class is not accessible
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Method name = builderType.getMethod("name", String.class, long.class);
            builder = name.invoke(builder, prefix, 1L);
            ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
            return (ExecutorService) Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class)
                    .invoke(null, factory);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static ExecutorService platformPool(String prefix, int concurrency) {
        AtomicInteger counter = new AtomicInteger();
        ThreadFactory factory = runnable -> {
            Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
            thread.setDaemon(false);
            return thread;
        };
        ThreadPoolExecutor pool = new ThreadPoolExecutor(concurrency, concurrency, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), factory);
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
