package io.blackboard.operator;

import io.blackboard.job.FailureReason;
import io.blackboard.platform.errors.BadRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.json.JsonMapper;

/**
 * One search box over jobs and workers. The text is read as each form it can be: a UUID is a job's
 * or a worker's id; {@code key=value} a label; anything else a correlation id (exact), the start
 * of a worker's name (any case) and, when it names one, a failure reason (any case).
 */
@Service
class OperatorSearch {

    private static final Pattern UUID_TEXT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final SearchStore store;
    private final JsonMapper json;

    OperatorSearch(SearchStore store, JsonMapper json) {
        this.store = store;
        this.json = json;
    }

    @Transactional(readOnly = true)
    SearchResult search(String query, int limit) {
        String text = query.strip();
        if (text.isEmpty()) {
            throw new BadRequest("Search for something: an id, a correlation id, a worker name, key=value "
                    + "or a failure reason");
        }
        List<SearchResult.JobHit> jobs = new ArrayList<>();
        List<SearchResult.WorkerHit> workers = new ArrayList<>();
        if (UUID_TEXT.matcher(text).matches()) {
            UUID id = UUID.fromString(text);
            jobs.addAll(store.jobById(id));
            workers.addAll(store.workerById(id));
            jobs.addAll(store.jobsByCorrelationId(text, limit)); // a workflow run's id is often a UUID
        } else if (text.contains("=")) {
            workers.addAll(store.workersLabelled(label(text), limit));
            jobs.addAll(store.jobsByCorrelationId(text, limit)); // base64 ids end in =
        } else {
            jobs.addAll(store.jobsByCorrelationId(text, limit));
            failureReason(text).ifPresent(reason -> jobs.addAll(store.jobsFailedWith(reason, limit)));
            String prefix = text.toLowerCase(Locale.ROOT);
            workers.addAll(store.workersNamed(prefix, after(prefix), limit));
        }
        return new SearchResult(text, jobs.stream().limit(limit).toList(), workers.stream().limit(limit).toList());
    }

    /** {@code key=value} as the JSON object a worker's labels must contain. */
    private String label(String text) {
        int at = text.indexOf('=');
        String key = text.substring(0, at).strip();
        if (key.isEmpty()) {
            throw new BadRequest("A label search is key=value, with a key: '" + text + "'");
        }
        return json.writeValueAsString(Map.of(key, text.substring(at + 1).strip()));
    }

    private static Optional<String> failureReason(String text) {
        return Arrays.stream(FailureReason.values()).map(Enum::name)
                .filter(name -> name.equalsIgnoreCase(text)).findFirst();
    }

    /**
     * The least string above every string that starts with {@code prefix}, in byte order (UTF-8's
     * order is the code points'): the prefix with its last character the next one.
     */
    static String after(String prefix) {
        int last = prefix.codePointBefore(prefix.length());
        String head = prefix.substring(0, prefix.length() - Character.charCount(last));
        if (last == Character.MAX_CODE_POINT) {
            return prefix + Character.toString(Character.MAX_CODE_POINT); // names of such characters only: rare
        }
        int next = last + 1 == Character.MIN_SURROGATE ? Character.MAX_SURROGATE + 1 : last + 1;
        return head + Character.toString(next);
    }
}
