import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The database side of the driver, through psql and pgbench (the JDK has no PostgreSQL driver). */
final class Sql {

    private final String host;
    private final String port;
    private final String user;
    private final String db;

    Sql(String host, String port, String user, String db) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.db = db;
    }

    String db() {
        return db;
    }

    /** Runs each statement in its own transaction; returns the output of the last, trimmed. */
    String run(String... statements) {
        List<String> command = new ArrayList<>(List.of("psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                "-h", host, "-p", port, "-U", user, "-d", db));
        for (String statement : statements) {
            command.add("-c");
            command.add(statement);
        }
        return exec(command, 1800);
    }

    /** Runs a script file with psql variables ({@code name=value}); returns its output. */
    String runFile(Path file, String... variables) {
        List<String> command = new ArrayList<>(List.of("psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1",
                "-h", host, "-p", port, "-U", user, "-d", db, "-f", file.toString()));
        for (String variable : variables) {
            command.add("-v");
            command.add(variable);
        }
        return exec(command, 600);
    }

    long count(String query) {
        return Long.parseLong(run(query).trim());
    }

    /** Starts pgbench with a custom script and prepared statements, as the server's driver uses them. */
    Process startPgbench(Path script, int clients, int seconds, String... defines) {
        List<String> command = new ArrayList<>(List.of("pgbench", "-n", "-M", "prepared",
                "-h", host, "-p", port, "-U", user, "-c", Integer.toString(clients), "-j", "2",
                "-T", Integer.toString(seconds), "-f", script.toString()));
        for (String define : defines) {
            command.add("-D");
            command.add(define);
        }
        command.add(db);
        try {
            return new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Waits for a process started here and returns its output; fails when it failed. */
    static String finish(Process process, int timeoutSeconds) {
        try {
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + process.info().command().orElse("?"));
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(process.info().command().orElse("?") + " failed: " + text);
            }
            return text.trim();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String exec(List<String> command, int timeoutSeconds) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("timed out: " + command.getFirst());
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IllegalStateException(command.getFirst() + " failed: " + text);
            }
            return text.trim();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
