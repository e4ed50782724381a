package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.blackboard.IntegrationTest;
import io.blackboard.worker.Directive;
import io.blackboard.worker.WorkerEventKind;
import io.blackboard.worker.WorkerState;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The vocabulary of states is the enums and the schema's CHECK constraints, and they agree. The
 * stores' SQL spells states as literals ({@code status = 'PENDING'}): a partial index matches
 * only a literal, and a bound parameter would lose it. So each literal the SQL spells must be
 * a constant of an enum, and each enum must be exactly what its column's CHECK allows.
 */
class SqlVocabularyTest extends IntegrationTest {

    private static final Map<String, Class<? extends Enum<?>>> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put("worker.state", WorkerState.class);
        COLUMNS.put("worker.directive", Directive.class);
        COLUMNS.put("job.type", JobType.class);
        COLUMNS.put("job.status", StoredStatus.class);
        COLUMNS.put("job.outcome", Outcome.class);
        COLUMNS.put("job.failure_reason", FailureReason.class);
        COLUMNS.put("job_event.kind", EventKind.class);
        COLUMNS.put("worker_event.kind", WorkerEventKind.class);
        COLUMNS.put("worker_event.state", WorkerState.class);
        COLUMNS.put("worker_event.from_state", WorkerState.class);
        COLUMNS.put("worker_event.directive", Directive.class);
        COLUMNS.put("worker_event.from_directive", Directive.class);
    }

    private static final Pattern LITERAL = Pattern.compile("'([A-Z][A-Z_]+)'");

    @Test
    void everyStateTheStoresSpellIsAConstantOfAnEnum() throws IllegalAccessException {
        Set<String> vocabulary = COLUMNS.values().stream().flatMap(type -> names(type).stream())
                .collect(Collectors.toSet());
        Map<String, Set<String>> unknown = new LinkedHashMap<>();
        int literals = 0;
        for (Class<?> store : stores()) {
            for (Field field : store.getDeclaredFields()) {
                if (field.getType() != String.class || !Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                field.setAccessible(true);
                Matcher matcher = LITERAL.matcher((String) field.get(null));
                while (matcher.find()) {
                    literals++;
                    if (!vocabulary.contains(matcher.group(1))) {
                        unknown.computeIfAbsent(store.getSimpleName() + "." + field.getName(), k -> new TreeSet<>())
                                .add(matcher.group(1));
                    }
                }
            }
        }
        assertThat(literals).as("the stores spell states").isGreaterThan(50);
        assertThat(unknown).as("literals that are no enum's constant").isEmpty();
    }

    @Test
    void eachEnumIsWhatItsColumnsCheckConstraintAllows() {
        COLUMNS.forEach((column, type) -> {
            String[] parts = column.split("\\.");
            List<String> definitions = jdbc.sql("""
                    select pg_get_constraintdef(c.oid) from pg_constraint c
                      join pg_class t on t.oid = c.conrelid
                      join pg_attribute a on a.attrelid = t.oid and a.attnum = any (c.conkey)
                     where c.contype = 'c' and t.relname = :table and a.attname = :column
                       and cardinality(c.conkey) = 1
                    """).param("table", parts[0]).param("column", parts[1]).query(String.class).list();
            Set<String> allowed = definitions.stream().flatMap(definition -> LITERAL.matcher(definition).results())
                    .map(match -> match.group(1)).collect(Collectors.toCollection(TreeSet::new));
            assertThat(allowed).as(column).isEqualTo(new TreeSet<>(names(type)));
        });
    }

    private static List<Class<?>> stores() {
        return new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.blackboard").stream()
                .filter(type -> type.getSimpleName().endsWith("Store") && type.getEnclosingClass().isEmpty())
                .<Class<?>>map(JavaClass::reflect).toList();
    }

    private static Set<String> names(Class<? extends Enum<?>> type) {
        return Arrays.stream(type.getEnumConstants()).map(Enum::name).collect(Collectors.toSet());
    }
}
