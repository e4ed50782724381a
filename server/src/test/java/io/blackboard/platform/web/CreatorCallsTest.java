package io.blackboard.platform.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.blackboard.IntegrationTest;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.deser.bean.BeanDeserializerBase;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.ValueInstantiationException;
import tools.jackson.databind.json.JsonMapper;

/**
 * The server's JSON mapper builds records through {@link CreatorCalls}' spreading handle, and
 * what it builds, and how it refuses, is what Jackson's own call gives.
 */
class CreatorCallsTest extends IntegrationTest {

    record Body(UUID id, int count, Integer limit, List<String> names, JsonNode result) {
    }

    record Checked(String name) {
        Checked {
            if (name.isBlank()) {
                throw new IllegalArgumentException("a name is not blank");
            }
        }
    }

    @Autowired
    JsonMapper json;

    private final JsonMapper plain = JsonMapper.builder().build();

    @Test
    void theServersMapperBuildsRecordsThroughTheSpreadingHandle() {
        for (Class<?> type : List.of(Body.class, Checked.class)) {
            var deserializer = json._deserializationContext().findRootValueDeserializer(json.constructType(type));
            assertThat(((BeanDeserializerBase) deserializer).getValueInstantiator())
                    .as(type.getSimpleName()).isInstanceOf(CreatorCalls.Spreading.class);
        }
    }

    @Test
    void aRecordReadsAsWithJacksonsOwnCall() {
        String whole = """
                {"id": "0192d3a4-0000-7000-8000-000000000001", "count": 3, "limit": 7,
                 "names": ["a", "b"], "result": {"ok": true, "n": [1, 2.5]}}""";
        Body read = json.readValue(whole, Body.class);
        assertThat(read).isEqualTo(plain.readValue(whole, Body.class));
        assertThat(read.id()).isEqualTo(UUID.fromString("0192d3a4-0000-7000-8000-000000000001"));
        assertThat(read.count()).isEqualTo(3);
        assertThat(read.names()).containsExactly("a", "b");
        assertThat(read.result().at("/n/1").asDouble()).isEqualTo(2.5);
        // what is missing is null; a missing primitive is refused before any constructor runs
        assertThat(json.readValue("{\"count\": 1}", Body.class)).isEqualTo(new Body(null, 1, null, null, null))
                .isEqualTo(plain.readValue("{\"count\": 1}", Body.class));
        assertThatThrownBy(() -> json.readValue("{}", Body.class)).isInstanceOf(MismatchedInputException.class);
    }

    @Test
    void aConstructorsRefusalIsReportedAsJacksonReportsIt() {
        assertThatThrownBy(() -> json.readValue("{\"name\": \" \"}", Checked.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a name is not blank");
        assertThatThrownBy(() -> plain.readValue("{\"name\": \" \"}", Checked.class))
                .isInstanceOf(ValueInstantiationException.class)
                .hasMessageContaining("a name is not blank");
        // a constructor's NullPointerException is the value's problem too
        assertThatThrownBy(() -> json.readValue("{}", Checked.class)).isInstanceOf(ValueInstantiationException.class)
                .hasRootCauseInstanceOf(NullPointerException.class);
        assertThat(json.readValue("{\"name\": \"x\"}", Checked.class)).isEqualTo(new Checked("x"));
    }
}
