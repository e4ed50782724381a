package io.blackboard.operator;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The series behind the dashboard's history charts. */
@RestController
@RequestMapping("/operator")
@Tag(name = "Operator", description = "The views behind the dashboard at /")
class HistoryController {

    private final HistoryService history;

    HistoryController(HistoryService history) {
        this.history = history;
    }

    @Operation(summary = "Jobs, latencies, queue depth and workers over time", description = "The last hour by "
            + "the minute (range=1h, the default), the last day by the quarter hour (24h) or the last week by two "
            + "hours (7d), from the rollup a sweeper writes a minute at a time (kept 8 days): jobs created and "
            + "ended by outcome, claims, claim latency and run time percentiles, queue depth per function block "
            + "and workers by state.")
    @GetMapping("/history")
    History history(@RequestParam(defaultValue = "1h") @Parameter(schema = @Schema(allowableValues = {"1h", "24h",
            "7d"})) String range) {
        return history.history(HistoryRange.parse(range));
    }
}
