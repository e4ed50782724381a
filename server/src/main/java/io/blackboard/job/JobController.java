package io.blackboard.job;

import io.blackboard.platform.web.Caller;
import io.blackboard.platform.web.DirectRoutes;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.ExampleObject;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import io.blackboard.platform.errors.BadRequest;
import io.blackboard.platform.web.NextPage;
import org.springframework.format.annotation.DateTimeFormat;
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
@Tag(name = "Jobs: engine", description = "Write jobs, read them and their audit trail, cancel, follow results")
class JobController {

    /** Creating jobs, also answered without Spring MVC: {@link DirectJobRoutes}. */
    static final String CREATE = "/jobs";

    private final JobService jobs;
    private final JobRequests requests;
    private final ResultFeed feed;
    private final BlockNames names;

    JobController(JobService jobs, JobRequests requests, ResultFeed feed, BlockNames names) {
        this.names = names;
        this.jobs = jobs;
        this.requests = requests;
        this.feed = feed;
    }

    /** One job in, one job out; an array in, an array out. 201 when anything was created. */
    @Operation(summary = "Create a job or a batch", description = "One job (an object) answers one job; an array "
            + "of up to 1000 answers an array, created all or none, in order. An idempotencyKey already "
            + "used answers the existing job (200), or 409 when the content differs.")
    @ApiResponse(responseCode = "201", description = "Created", content = @Content(mediaType = "application/json",
            schema = @Schema(oneOf = {JobView.class, JobView[].class})))
    @ApiResponse(responseCode = "200", description = "Nothing new: every idempotencyKey named an existing job",
            content = @Content(mediaType = "application/json",
                    schema = @Schema(oneOf = {JobView.class, JobView[].class})))
    @ApiResponse(responseCode = "409", description = "An idempotencyKey names a job with other content")
    @ApiResponse(responseCode = "422", description = "Unknown function block")
    @ApiResponse(responseCode = "503", description = "Nothing created: the client's deadline (Blackboard-Timeout-Ms) "
            + "passed or it closed its connection before the work began, or the replica is overloaded")
    @io.swagger.v3.oas.annotations.parameters.RequestBody(content = @Content(
            schema = @Schema(oneOf = {CreateJob.class, CreateJob[].class}), examples = {
                @ExampleObject(name = "one job", value = """
                        {"functionBlockId": "01a2011d-6fb8-7000-9d8d-0c94f60f47db", "type": "EXECUTE",
                         "payload": {"host": "r1"}, "priority": 0, "maxAttempts": 1, "selector": {"site": "a"},
                         "correlationId": "wf-42", "idempotencyKey": "wf-42/backup-r1"}"""),
                @ExampleObject(name = "a batch", value = """
                        [{"functionBlockId": "01a2011d-6fb8-7000-9d8d-0c94f60f47db", "type": "EXECUTE",
                          "payload": {"host": "r1"}},
                         {"functionBlockId": "01a2011d-6fb8-7000-9d8d-0c94f60f47db", "type": "EXECUTE",
                          "payload": {"host": "r2"}}]""")}))
    @PostMapping(CREATE)
    ResponseEntity<Object> create(@RequestBody JsonNode body, HttpServletRequest http) {
        DirectRoutes.rethrowDirectFailure(http); // what its direct call threw (DirectJobRoutes), answered here
        Caller.of(http).requireWaiting();
        JobService.Created created = jobs.create(requests.read(body));
        HttpStatus status = created.inserted() > 0 ? HttpStatus.CREATED : HttpStatus.OK;
        return ResponseEntity.status(status).body(body.isArray() ? created.jobs() : created.jobs().getFirst());
    }

    @Operation(summary = "One job, whole")
    @GetMapping("/jobs/{id}")
    JobView get(@PathVariable UUID id) {
        return jobs.find(id);
    }

    @Operation(summary = "List jobs", description = "Creation order; every filter given must hold: status, "
            + "outcome, failureReason, type (any case), functionBlockId or functionBlockName with "
            + "functionBlockVersion (a version or range), workerId, correlationId, label=key:value (repeatable: "
            + "in the job's selector), createdFrom/createdTo and pushedFrom/pushedTo (RFC 3339; from included, to "
            + "excluded). Follow 'next' as 'after' for the next page.")
    @GetMapping("/jobs")
    JobPage list(@RequestParam(required = false) @Nullable String status,
            @RequestParam(required = false) @Nullable String outcome,
            @RequestParam(required = false) @Nullable String failureReason,
            @RequestParam(required = false) @Nullable String type,
            @RequestParam(required = false) @Nullable UUID functionBlockId,
            @RequestParam(required = false) @Nullable @Size(min = 1, max = 200) String functionBlockName,
            @RequestParam(required = false) @Nullable @Size(min = 1, max = 100) String functionBlockVersion,
            @RequestParam(required = false) @Nullable UUID workerId,
            @RequestParam(required = false) @Nullable String correlationId,
            @RequestParam(required = false) @Nullable @Size(max = 64) List<String> label,
            @RequestParam(required = false) @Nullable @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
                    OffsetDateTime createdFrom,
            @RequestParam(required = false) @Nullable @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
                    OffsetDateTime createdTo,
            @RequestParam(required = false) @Nullable @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
                    OffsetDateTime pushedFrom,
            @RequestParam(required = false) @Nullable @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME)
                    OffsetDateTime pushedTo,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit) {
        JobFilter filter = new JobFilter(status == null ? null : JobStatus.parse(status), functionBlockId, workerId,
                correlationId, after == null ? null : JobFilter.Cursor.decode(after),
                JobFilter.parse(Outcome.class, "outcome", outcome),
                JobFilter.parse(FailureReason.class, "failureReason", failureReason),
                JobFilter.parse(JobType.class, "type", type),
                names.idsMatching(functionBlockName, functionBlockVersion), JobFilter.labels(label),
                createdFrom, createdTo, pushedFrom, pushedTo);
        return jobs.list(filter, limit);
    }

    @Operation(summary = "Cancel a job", description = "PENDING or POLLED -> PUSHED/CANCELLED; a POLLED job's "
            + "worker learns it in its next ping's cancelJobIds. Cancelling a cancelled job again changes nothing.")
    @ApiResponse(responseCode = "200", description = "The cancelled job")
    @ApiResponse(responseCode = "409", description = "The job already ended otherwise")
    @PostMapping("/jobs/{id}/cancel")
    JobView cancel(@PathVariable UUID id) {
        return jobs.cancel(id);
    }

    @Operation(summary = "Cancel every job that matches", description = "Every job not yet ended with this "
            + "correlationId, function block, worker and status (those given; at least one), each cancelled as one "
            + "cancel would: the engine aborting a workflow run. Answers how many were cancelled.")
    @PostMapping("/jobs/cancel")
    Map<String, Integer> cancelMatching(@Valid @RequestBody CancelRequest request) {
        return Map.of("cancelled", jobs.cancelMatching(request));
    }

    @Operation(summary = "A job's audit trail", description = "Every transition with its attempt, worker, actor "
            + "and database time. The CREATED event of a job created to run at once is read from the job: id 0.")
    @ApiResponse(responseCode = "200", description = "A page of events, oldest first", headers = @Header(name = "Link",
            description = "<the next page's URL>; rel=\"next\", when the page is full"))
    @GetMapping("/jobs/{id}/events")
    ResponseEntity<List<JobEvent>> events(@PathVariable UUID id,
            @RequestParam(required = false) @Nullable String after,
            @RequestParam(defaultValue = "1000") @Min(1) @Max(1000) int limit) {
        long from = JobStore.FIRST_EVENT;
        if (after != null) {
            String position = NextPage.decode(after);
            if (position == null || !position.matches("e\\d{1,18}")) {
                throw new BadRequest("'" + after + "' is not a cursor this server returned (use the Link header's)");
            }
            from = Long.parseLong(position.substring(1));
        }
        return NextPage.of(jobs.events(id, from, limit + 1), limit, event -> "e" + event.id());
    }

    @Operation(summary = "The result feed", description = "PUSHED jobs in push order after the cursor (0-0: the "
            + "beginning). Follow 'next'; a consumer that does never misses a result, even when pushes commit out "
            + "of order. waitMs waits for a first result.")
    @GetMapping("/results")
    ResultPage results(@RequestParam(defaultValue = ResultFeed.START) String after,
            @RequestParam(defaultValue = "100") @Min(1) @Max(1000) int limit,
            @RequestParam(defaultValue = "0") @Min(0) @Max(30_000) int waitMs) throws InterruptedException {
        return feed.read(after, limit, waitMs);
    }
}
