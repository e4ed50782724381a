package io.blackboard.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.functionblock.RetryPolicy;
import jakarta.validation.Validation;
import jakarta.validation.Validator;
import jakarta.validation.ValidatorFactory;
import jakarta.validation.metadata.BeanDescriptor;
import jakarta.validation.metadata.ConstraintDescriptor;
import jakarta.validation.metadata.ContainerElementTypeDescriptor;
import jakarta.validation.metadata.PropertyDescriptor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The hand check of a create ({@link JobRequests#plainlyValid}) passes only jobs that Hibernate
 * Validator passes too, and knows every constraint {@link CreateJob} has: one added or changed
 * there fails {@link #createJobsConstraintsAreTheOnesTheHandCheckWasWrittenAgainst} until the
 * hand check is brought along.
 */
class JobRequestsTest {

    private static ValidatorFactory factory;
    private static Validator validator;

    @BeforeAll
    static void validator() {
        factory = Validation.buildDefaultValidatorFactory();
        validator = factory.getValidator();
    }

    @AfterAll
    static void close() {
        factory.close();
    }

    @Test
    void createJobsConstraintsAreTheOnesTheHandCheckWasWrittenAgainst() {
        BeanDescriptor bean = validator.getConstraintsForClass(CreateJob.class);
        List<String> found = new ArrayList<>();
        bean.getConstraintDescriptors().forEach(constraint -> found.add("(class) " + describe(constraint)));
        for (PropertyDescriptor property : bean.getConstrainedProperties()) {
            String name = property.getPropertyName();
            property.getConstraintDescriptors().forEach(constraint -> found.add(name + " " + describe(constraint)));
            if (property.isCascaded()) {
                found.add(name + " @Valid");
            }
            for (ContainerElementTypeDescriptor element : property.getConstrainedContainerElementTypes()) {
                element.getConstraintDescriptors().forEach(constraint -> found.add(
                        name + "<" + element.getTypeArgumentIndex() + "> " + describe(constraint)));
            }
        }
        assertThat(found).containsExactlyInAnyOrder(
                "functionBlockName Size{max=200, min=1}",
                "functionBlockVersion Size{max=100, min=1}",
                "type NotNull{}",
                "priority Min{value=-1000000}",
                "priority Max{value=1000000}",
                "maxAttempts Min{value=1}",
                "maxAttempts Max{value=100}",
                "selector Size{max=64, min=0}",
                "selector<0> NotBlank{}",
                "selector<0> Size{max=100, min=0}",
                "selector<1> NotNull{}",
                "selector<1> Size{max=500, min=0}",
                "correlationId Size{max=200, min=0}",
                "idempotencyKey Size{max=200, min=1}",
                "delayMs Min{value=0}",
                "delayMs Max{value=" + CreateJob.MAX_DELAY_MS + "}",
                "retryPolicy @Valid",
                "executionTimeoutMs Min{value=1}",
                "executionTimeoutMs Max{value=" + CreateJob.MAX_EXECUTION_TIMEOUT_MS + "}");
    }

    /** The annotation's name and the attributes that bound it (not its message, groups or payload). */
    private static String describe(ConstraintDescriptor<?> constraint) {
        Map<String, Object> bounds = new TreeMap<>(constraint.getAttributes());
        bounds.keySet().removeAll(List.of("message", "groups", "payload"));
        return constraint.getAnnotation().annotationType().getSimpleName() + bounds;
    }

    @Test
    void aJobTheHandCheckPassesTheValidatorPassesToo() {
        Random random = new Random(1129);
        int byHand = 0;
        int refused = 0;
        for (int i = 0; i < 50_000; i++) {
            CreateJob job = randomJob(random);
            boolean plain = JobRequests.plainlyValid(job);
            boolean valid = validator.validate(job).isEmpty();
            assertThat(!plain || valid).as("passed by hand, refused by the validator: %s", job).isTrue();
            byHand += plain ? 1 : 0;
            refused += valid ? 0 : 1;
        }
        // both sides were exercised: plain jobs the hand check decides, and refusals it leaves to the validator
        assertThat(byHand).isGreaterThan(500);
        assertThat(refused).isGreaterThan(10_000);
    }

    @Test
    void anEngineCreatesPlainJobIsDecidedByHand() {
        CreateJob plain = new CreateJob(UUID.randomUUID(), null, null, JobType.EXECUTE, null, 5, 3,
                Map.of("site", "a", "rack", "r1"), "corr", "key", null, 1_000L, null, 60_000L);
        assertThat(JobRequests.plainlyValid(plain)).isTrue();
        CreateJob withPolicy = new CreateJob(UUID.randomUUID(), null, null, JobType.EXECUTE, null, null, null, null,
                null, null, null, null, new RetryPolicy(3, null, null, null, null, null, null), null);
        assertThat(JobRequests.plainlyValid(withPolicy)).as("a retry policy goes to the validator").isFalse();
    }

    private static final List<String> TEXTS = List.of("", "a", "é", " ", " a", "a ", "\t", "\u0001a", "\u0001", "\u0000", "\u2003",
            "\u2003a", "\u00a0", "x".repeat(99), "x".repeat(100), "x".repeat(101), "x".repeat(199), "x".repeat(200),
            "x".repeat(201), "x".repeat(499), "x".repeat(500), "x".repeat(501));
    private static final List<Integer> INTS = Arrays.asList(Integer.MIN_VALUE, -1_000_001, -1_000_000, -1, 0, 1, 2,
            99, 100, 101, 1_000_000, 1_000_001, Integer.MAX_VALUE);
    private static final List<Long> LONGS = Arrays.asList(Long.MIN_VALUE, -1L, 0L, 1L, 1_000L,
            CreateJob.MAX_DELAY_MS, CreateJob.MAX_DELAY_MS + 1, CreateJob.MAX_EXECUTION_TIMEOUT_MS,
            CreateJob.MAX_EXECUTION_TIMEOUT_MS + 1, Long.MAX_VALUE);

    private static CreateJob randomJob(Random random) {
        return new CreateJob(UUID.randomUUID(), text(random), text(random),
                random.nextInt(20) == 0 ? null : JobType.values()[random.nextInt(JobType.values().length)], null,
                number(random, INTS), number(random, INTS), selector(random), text(random), text(random), null,
                number(random, LONGS), random.nextInt(10) == 0 ? policy(random) : null, number(random, LONGS));
    }

    /** Mostly null, as most of a create's fields are. */
    private static String text(Random random) {
        return random.nextInt(3) == 0 ? TEXTS.get(random.nextInt(TEXTS.size())) : null;
    }

    private static <N> N number(Random random, List<N> values) {
        return random.nextInt(3) == 0 ? values.get(random.nextInt(values.size())) : null;
    }

    private static Map<String, String> selector(Random random) {
        int shape = random.nextInt(10);
        if (shape < 4) {
            return null;
        }
        Map<String, String> selector = new LinkedHashMap<>();
        int size = shape == 9 ? 63 + random.nextInt(3) : random.nextInt(4);
        for (int i = 0; i < size; i++) {
            String key = shape == 9 ? "k" + i : TEXTS.get(random.nextInt(TEXTS.size()));
            selector.put(key, random.nextInt(30) == 0 ? null : TEXTS.get(random.nextInt(TEXTS.size())));
        }
        return selector;
    }

    private static RetryPolicy policy(Random random) {
        return new RetryPolicy(number(random, INTS), number(random, LONGS), null, null, null, null, null);
    }
}
