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
