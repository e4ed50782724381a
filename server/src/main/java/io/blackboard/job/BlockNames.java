package io.blackboard.job;

import io.blackboard.functionblock.BlockVersion;
import io.blackboard.functionblock.FunctionBlockService;
import io.blackboard.functionblock.VersionRange;
import io.blackboard.platform.errors.BadRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.springframework.lang.Nullable;
import org.springframework.stereotype.Component;

/**
 * Creates that name their function block by name and version (or a range of versions) instead
 * of its id get the newest registered block that matches: an engine can ask for "configBackup,
 * ^1.2" and take each new compatible version as it is registered.
 */
@Component
class BlockNames {

    private final FunctionBlockService functionBlocks;

    BlockNames(FunctionBlockService functionBlocks) {
        this.functionBlocks = functionBlocks;
    }

    /**
     * The creates, each with its functionBlockId, and for each one named by name every block it
     * matched (null for one given by id): a repeat of a keyed create is the same job if it
     * names any of them, so a version registered in between does not make it a conflict.
     */
    record Resolved(List<CreateJob> jobs, List<List<UUID>> choices) {
    }

    /**
     * For a list filter: the ids of the blocks of this name whose version matches (newest
     * registered first; empty when none does), or null when no name is given.
     */
    @Nullable List<UUID> idsMatching(@Nullable String name, @Nullable String versions) {
        if (name == null) {
            if (versions != null) {
                throw new BadRequest("functionBlockVersion goes with functionBlockName");
            }
            return null;
        }
        VersionRange range;
        try {
            range = VersionRange.parse(versions);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("functionBlockVersion: " + e.getMessage());
        }
        return functionBlocks.versionsNamed(List.of(name)).stream().filter(v -> range.matches(v.version()))
                .map(BlockVersion::id).toList();
    }

    Resolved resolve(List<CreateJob> jobs) {
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < jobs.size(); i++) {
            CreateJob job = jobs.get(i);
            String where = JobService.where(i, jobs.size());
            if (job.functionBlockId() != null && job.functionBlockName() != null) {
                throw new BadRequest(where + "functionBlockId and functionBlockName: give one of them, not both");
            }
            if (job.functionBlockId() == null && job.functionBlockName() == null) {
                throw new BadRequest(where + "functionBlockId (or functionBlockName) is required");
            }
            if (job.functionBlockName() == null && job.functionBlockVersion() != null) {
                throw new BadRequest(where + "functionBlockVersion goes with functionBlockName");
            }
            if (job.functionBlockName() != null) {
                names.add(job.functionBlockName());
            }
        }
        List<List<UUID>> choices = new ArrayList<>();
        if (names.isEmpty()) {
            jobs.forEach(job -> choices.add(null));
            return new Resolved(jobs, choices);
        }
        Map<String, List<BlockVersion>> versions = functionBlocks.versionsNamed(names).stream()
                .collect(Collectors.groupingBy(BlockVersion::name, LinkedHashMap::new, Collectors.toList()));
        List<CreateJob> resolved = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            CreateJob job = jobs.get(i);
            if (job.functionBlockName() == null) {
                resolved.add(job);
                choices.add(null);
                continue;
            }
            String where = JobService.where(i, jobs.size());
            VersionRange range;
            try {
                range = VersionRange.parse(job.functionBlockVersion());
            } catch (IllegalArgumentException e) {
                throw new BadRequest(where + "functionBlockVersion: " + e.getMessage());
            }
            List<UUID> matching = versions.getOrDefault(job.functionBlockName(), List.of()).stream()
                    .filter(version -> range.matches(version.version())).map(BlockVersion::id).toList();
            if (matching.isEmpty()) {
                throw new JobProblems.NoFunctionBlockNamed(where, job.functionBlockName(), range.toString());
            }
            resolved.add(job.withFunctionBlockId(matching.getFirst())); // newest registered first
            choices.add(matching);
        }
        return new Resolved(resolved, choices);
    }
}
