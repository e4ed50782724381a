package io.blackboard.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.blackboard.IntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.Environment;
import org.springframework.test.context.TestPropertySource;

/** One setting, BLACKBOARD_LOG_FORMAT, turns the console into one JSON object per line. */
@ExtendWith(OutputCaptureExtension.class)
@TestPropertySource(properties = "BLACKBOARD_LOG_FORMAT=ecs")
class JsonLogsTest extends IntegrationTest {

    @Autowired
    Environment environment;

    @Test
    void theLogFormatSettingMakesEveryConsoleLineAJsonObject(CapturedOutput output) {
        assertThat(environment.getProperty("logging.structured.format.console")).isEqualTo("ecs");

        LoggerFactory.getLogger("io.blackboard.probe").info("json-logs-probe worker {}", "w-1");

        String line = output.getAll().lines().filter(l -> l.contains("json-logs-probe")).findFirst().orElseThrow();
        assertThat(line).startsWith("{").endsWith("}")
                .contains("\"message\":\"json-logs-probe worker w-1\"").contains("\"@timestamp\"");
    }
}
