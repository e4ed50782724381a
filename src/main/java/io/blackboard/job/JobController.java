package io.blackboard.job;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.lang.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/** The engine's endpoints: write jobs, read them and their results, cancel them. */
@RestController
@RequestMapping("/blackboard")
class JobController {

    private final JobService jobs;
    private final JobRequests requests;
    private final ResultFeed feed;

    JobController(JobService jobs, JobRequests requests, ResultFeed feed) {
        this.jobs = jobs;
        this.requests = requests;
        this.feed = feed;
    }

    /** One job in, one job out; an array in, an array out. 201 when anything was created. */
    @PostMapping("/jobs")
    ResponseEntity<Object> create(@RequestBody JsonNode body) {
        JobService.Created created = jobs.create(requests.read(body));
        HttpStatus status = created.inserted() > 0 ? HttpStatus.CREATED : HttpStatus.OK;
        return ResponseEntity.status(status).body(body.isArray() ? created.jobs() : created.jobs().getFirst());
    }

    @GetMapping("/jobs/{id}")
    JobView get(@PathVariable UUID id) {
        return jobs.find(id);
    }

    @GetMapping("/jobs")
    JobPage list(@RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable UUID functionBlockId,
            @RequestParam(required = false) @Nullable UUID workerId,
            @RequestParam(required = false) @Nullable String correlationId,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        JobFilter filter = new JobFilter(status == null ? null : JobStatus.parse(status), functionBlockId, workerId,
                correlationId, after == null ? null : JobFilter.Cursor.decode(after));
        return jobs.list(filter, limit);
    }

    @PostMapping("/jobs/{id}/cancel")
    JobView cancel(@PathVariable UUID id) {
        return jobs.cancel(id);
    }

    @GetMapping("/jobs/{id}/events")
    List<JobEvent> events(@PathVariable UUID id) {
        return jobs.events(id);
    }

    @GetMapping("/results")
    ResultPage results(@RequestParam(defaultValue = ResultFeed.START) String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit,
            @RequestParam(defaultValue = "0") @Min(0) @Max(30_000) int waitMs) throws InterruptedException {
        return feed.read(after, limit, waitMs);
    }
}
