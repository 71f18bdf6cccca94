// SPDX-License-Identifier: GPL-3.0-or-later
//
// Flamenco 3.3+ job type "loopsmith-make-loop" (Flamenco names a job type after its file, "_" read as "-"):
// loop every motion-capture clip of a folder with Loopsmith, split over N tasks, then merge their reports.
//
// Task k of N runs `blender -b -c loopsmith make-loop INPUT --shard k/N -o OUTPUT --report PARTS/part-k.json --quiet ...`:
// every N-th clip of the folder in sorted order from the k-th, with the output names one run would give. Then one task,
// after all of them, runs `blender -b -c loopsmith merge-reports PARTS --report OUTPUT/loopsmith_report.json`, which
// writes the report a single run over the folder would have written. PARTS is OUTPUT/reports/<the job's creation time>,
// so a job never merges another job's parts.
//
// The commands are Flamenco's `exec`, not `blender-render`: blender-render requires a blend file and puts it before
// the other arguments, and this job opens none (`-c` consumes every argument after it). The Manager still expands its
// `{blender}` variable (the worker platform's Blender) in exec's parameters. Arguments are arrays, run without a shell:
// paths with spaces stay single arguments.

const JOB_TYPE = {
    label: "Loopsmith Make Loop",
    description: "Seamless loops of every motion-capture clip in a folder (BVH, FBX, glTF, .blend, Acclaim AMC), in parallel tasks",
    settings: [
        { key: "input_folder", type: "string", subtype: "dir_path", required: true,
          description: "Folder of clips on the shared storage (sub-folders included)" },
        { key: "output_folder", type: "string", subtype: "dir_path", required: true,
          description: "Folder on the shared storage for the loops and loopsmith_report.json; not inside the input folder" },
        { key: "chunks", type: "int32", default: 4, propargs: { min: 1, max: 1000 },
          description: "Number of make-loop tasks; each loops every N-th clip of the folder" },
        { key: "range_mode", type: "string", choices: ["AUTO", "WHOLE", "RANGE"], default: "AUTO",
          description: "AUTO: find the best loop in each clip; WHOLE: loop each clip's whole range; RANGE: loop the frames below" },
        { key: "range_start", type: "int32", default: 1, description: "RANGE: first frame (as the files number them, a BVH from 1)" },
        { key: "range_end", type: "int32", default: 100, description: "RANGE: last frame" },
        { key: "method", type: "string", choices: ["AUTO", "CUBIC", "LINEAR_INERTIALIZE", "SOFTFADE", "SPRING", "LINEAR", "CROSSFADE", "NONE"],
          default: "AUTO", description: "How the seam is closed (AUTO: each method made, the least visible kept)" },
        { key: "root_mode", type: "string", choices: ["AUTO", "TRAVEL", "LOOP", "IN_PLACE"], default: "AUTO",
          description: "AUTO: TRAVEL for clips that move; TRAVEL keeps the displacement; LOOP loops the root; IN_PLACE removes the travel" },
        { key: "loop_mode", type: "string", choices: ["CLAMP", "WRAP"], default: "CLAMP",
          description: "CLAMP: the last frame repeats the first; WRAP: drop it, for engines that wrap last to first" },
        { key: "lock_feet", type: "bool", default: true, description: "Re-solve the legs to keep planted feet still" },
        { key: "formats", type: "string", default: "",
          description: "Output formats, space-separated: same bvh fbx glb blend amc (empty: the engine's, else the input's)" },
        { key: "engine", type: "string", choices: ["none", "unreal", "unity", "godot", "gltf"], default: "none",
          description: "Write for this game engine: its format, units, root bone and animation names" },
    ],
};

const OUTPUT_FORMATS = ["same", "bvh", "fbx", "glb", "blend", "amc"];

function compileJob(job) {
    const settings = job.settings;
    const chunks = settings.chunks;
    if (!Number.isInteger(chunks) || chunks < 1) {
        throw `chunks must be a whole number of at least 1, not ${chunks}`;
    }
    const input = path.join(settings.input_folder);
    const output = path.join(settings.output_folder);
    if (isWithin(output, input)) {
        // Each task would read, as clips to loop, the loops the tasks before it wrote.
        throw `the output folder ${output} is inside the input folder ${input}; choose another output folder`;
    }
    const parts = path.join(output, "reports", formatTimestampLocal(job.created));
    const options = makeLoopOptions(settings);

    const merge = author.Task("merge-reports", "blender");
    merge.addCommand(loopsmith(["merge-reports", parts, "--report", path.join(output, "loopsmith_report.json")]));
    for (let k = 1; k <= chunks; k++) {
        const task = author.Task(`make-loop-${k}-of-${chunks}`, "blender");
        task.addCommand(loopsmith(["make-loop", input, "--shard", `${k}/${chunks}`, "-o", output,
                                   "--report", path.join(parts, `part-${k}.json`), "--quiet"].concat(options)));
        job.addTask(task);
        merge.addDependency(task);
    }
    job.addTask(merge); // after its dependencies: Flamenco stores a copy of the task as it is when added
}

// A Loopsmith command line run in the worker's Blender (the extension registers `-c loopsmith`).
function loopsmith(args) {
    return author.Command("exec", { exe: "{blender}", args: ["-b", "-c", "loopsmith"].concat(args) });
}

// The make-loop options the settings choose, checked here so a wrong value fails the submission, not every task.
function makeLoopOptions(settings) {
    const options = ["--method", settings.method, "--root-mode", settings.root_mode, "--loop-mode", settings.loop_mode];
    if (settings.range_mode === "RANGE") {
        const start = settings.range_start, end = settings.range_end;
        if (!Number.isInteger(start) || !Number.isInteger(end) || end <= start) {
            throw `range_end (${end}) must be a whole number after range_start (${start})`;
        }
        options.push("--range", String(start), String(end));
    } else {
        options.push(settings.range_mode === "WHOLE" ? "--whole" : "--auto");
    }
    if (!settings.lock_feet) {
        options.push("--no-lock-feet");
    }
    const formats = String(settings.formats || "").split(/[\s,]+/).filter((name) => name);
    for (const name of formats) {
        if (OUTPUT_FORMATS.indexOf(name) < 0) {
            throw `unknown output format "${name}" in formats; use ${OUTPUT_FORMATS.join(", ")}`;
        }
    }
    if (formats.length) {
        options.push("--format");
        options.push.apply(options, formats);
    }
    if (settings.engine && settings.engine !== "none") {
        options.push("--engine", settings.engine);
    }
    return options;
}

// Whether `folder` is `parent` or inside it (both cleaned by path.join; "/" and "\" both separate).
function isWithin(folder, parent) {
    const slashed = (text) => text.replace(/\\/g, "/").replace(/\/?$/, "/");
    return slashed(folder).startsWith(slashed(parent));
}
