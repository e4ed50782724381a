import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Just enough JSON for the driver: the fields it needs, found by pattern in the server's answers. */
final class Json {

    record Claim(String id, int attempt) {
    }

    private static final Pattern ID = Pattern.compile("\"id\":\"([0-9a-fA-F-]{36})\"");
    private static final Pattern ATTEMPT = Pattern.compile("\"attempt\":(\\d+)");
    private static final Pattern TOKEN = Pattern.compile("\"token\":\"([^\"]+)\"");
    private static final Pattern BLOCK = Pattern.compile("\"id\":\"([0-9a-fA-F-]{36})\",\"name\":\"([^\"]+)\"");

    private Json() {
    }

    static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The first {@code "id"} of a body: the created worker or job. */
    static String id(String body) {
        Matcher m = ID.matcher(body);
        if (!m.find()) {
            throw new IllegalStateException("no id in " + body);
        }
        return m.group(1);
    }

    /** The worker's own token, when the server hands one out at registration. */
    static String token(String body) {
        Matcher m = TOKEN.matcher(body);
        return m.find() ? m.group(1) : null;
    }

    /**
     * The jobs of a poll answer, with the attempt to push. Every job carries exactly one
     * {@code "id"} and one {@code "attempt"} key; the driver's payloads carry neither.
     */
    static List<Claim> claims(String body) {
        List<String> ids = all(ID, body);
        List<String> attempts = all(ATTEMPT, body);
        if (ids.size() != attempts.size()) {
            throw new IllegalStateException("unexpected poll answer: " + body);
        }
        List<Claim> claims = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            claims.add(new Claim(ids.get(i), Integer.parseInt(attempts.get(i))));
        }
        return claims;
    }

    /** An answer of POST /blackboard/job/next: each pushed item's status, in order, and the jobs claimed. */
    record Next(List<Integer> statuses, List<Claim> jobs) {
    }

    private static final Pattern ITEM_STATUS = Pattern.compile("\"status\":(\\d+)");

    /**
     * Reads {@code {"results": [{"jobId", "status", "job", "problem"}, ...], "jobs": [JobView, ...]}}: the claims
     * are those of the {@code jobs} array alone (each result item carries its job's JobView too, with an "id" and
     * an "attempt"); an item's status is the first number-valued "status" after its "jobId" (a JobView's status
     * is a string, and an item's problem repeats the item's status).
     */
    static Next next(String body) {
        int key = body.lastIndexOf("\"jobs\":");
        int open = key < 0 ? -1 : body.indexOf('[', key);
        if (open < 0) {
            throw new IllegalStateException("no jobs in the push + next answer: " + body);
        }
        int close = arrayEnd(body, open);
        String rest = body.substring(0, key) + body.substring(close + 1);
        List<Integer> statuses = new ArrayList<>();
        for (int at = rest.indexOf("\"jobId\":"); at >= 0; at = rest.indexOf("\"jobId\":", at + 1)) {
            Matcher m = ITEM_STATUS.matcher(rest);
            statuses.add(m.find(at) ? Integer.parseInt(m.group(1)) : -1);
        }
        return new Next(statuses, claims(body.substring(open, close + 1)));
    }

    /** The index of the ']' that closes the array opening at {@code open}, strings skipped. */
    private static int arrayEnd(String body, int open) {
        int depth = 0;
        boolean inString = false;
        for (int i = open; i < body.length(); i++) {
            char c = body.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                depth++;
            } else if ((c == ']' || c == '}') && --depth == 0) {
                return i;
            }
        }
        throw new IllegalStateException("unterminated array in " + body);
    }

    /** name -> id of the function blocks in a registration answer. */
    static java.util.Map<String, String> blocks(String body) {
        java.util.Map<String, String> blocks = new java.util.LinkedHashMap<>();
        Matcher m = BLOCK.matcher(body);
        while (m.find()) {
            blocks.put(m.group(2), m.group(1));
        }
        return blocks;
    }

    private static List<String> all(Pattern pattern, String body) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(body);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
