// A stand-in for Flamenco Manager's job compiler (Flamenco 3.x), to compile a job type script under node.
//
//   node flamenco_author.js JOB_TYPE.js < {"name": ..., "created": ISO time, "settings": {...}}
//
// prints {"jobType": name, "JOB_TYPE": ..., "tasks": [{name, type, commands: [{name, parameters}], dependencies: [names]}]}
// or {"error": message} when the settings are refused or compileJob throws.
//
// What it mimics, as Flamenco documents and runs job types: the script is compiled in strict mode with the globals
// `author` (Task(name, type), Command(name, parameters)), `path` (join, dirname, basename, stem, with "/"),
// `print`, `alert` and `formatTimestampLocal`; the job is named after the file ("_" read as "-"); the settings arrive
// as Blender's add-on sends them (every setting, defaults filled in, each of its type and choices); `job.addTask` and
// `task.addCommand` store a copy of what they get as it is then (Go copies the struct), so whatever the script adds to a
// task after adding it to the job is lost, as in Flamenco; a dependency on a task the job does not hold is an error.

"use strict";

const fs = require("fs");
const nodePath = require("path");
const vm = require("vm");

function authoredTask(name, type) {
    name = String(name).trim();
    type = String(type).trim();
    if (!name) throw new Error("author.Task(name, type): name is required");
    if (!type) throw new Error("author.Task(name, type): type is required");
    const task = { uuid: `task-${++authoredTask.count}`, name, type, priority: 50, commands: [], dependencies: [] };
    task.addCommand = (command) => { task.commands.push({ name: command.name, parameters: command.parameters }); };
    task.addDependency = (other) => { task.dependencies.push(other); };
    return task;
}
authoredTask.count = 0;

const author = {
    Task: authoredTask,
    Command: (name, parameters) => ({ name, parameters }),
};

function goJoin(...parts) {
    // Go's path.Join: empty parts skipped, the result cleaned, no trailing slash.
    const given = parts.map((part) => String(part).replace(/\\/g, "/")).filter((part) => part);
    if (!given.length) return "";
    const joined = nodePath.posix.normalize(given.join("/"));
    return joined.length > 1 ? joined.replace(/\/$/, "") : joined;
}

const flamencoPath = {
    join: goJoin,
    dirname: (p) => nodePath.posix.dirname(String(p).replace(/\\/g, "/")),
    basename: (p) => nodePath.posix.basename(String(p).replace(/\\/g, "/")),
    stem: (p) => nodePath.posix.parse(String(p).replace(/\\/g, "/")).name,
};

function formatTimestampLocal(time) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}_` +
           `${pad(time.getHours())}${pad(time.getMinutes())}${pad(time.getSeconds())}`;
}

// The settings as the add-on sends them: defaults filled in, each value of its setting's type and choices.
function submittedSettings(jobType, given) {
    const settings = {};
    for (const setting of jobType.settings) {
        const value = setting.key in given ? given[setting.key] : setting.default;
        if (value === undefined) {
            if (setting.required) throw new Error(`setting ${setting.key} is required`);
            continue;
        }
        const fits = { string: typeof value === "string", int32: Number.isInteger(value), float: typeof value === "number",
                       bool: typeof value === "boolean" }[setting.type];
        if (!fits) throw new Error(`setting ${setting.key}: ${JSON.stringify(value)} is not a ${setting.type}`);
        if (setting.choices && setting.choices.indexOf(value) < 0) throw new Error(`setting ${setting.key}: ${value} is not one of its choices`);
        if (setting.required && value === "") throw new Error(`setting ${setting.key} is required`);
        settings[setting.key] = value;
    }
    return settings;
}

function compile(scriptPath, submitted) {
    const context = vm.createContext({
        author, path: flamencoPath, formatTimestampLocal,
        print: (...args) => console.error(...args), alert: (...args) => console.error("alert:", ...args),
    });
    vm.runInContext('"use strict";\n' + fs.readFileSync(scriptPath, "utf8"), context, { filename: scriptPath });
    const jobType = vm.runInContext("JOB_TYPE", context);
    const compileJob = vm.runInContext("compileJob", context);
    const name = nodePath.basename(scriptPath, ".js").replace(/_/g, "-");

    const tasks = [];
    const job = {
        name: submitted.name || "job", jobType: name, priority: 50, created: new Date(submitted.created || Date.now()),
        settings: submittedSettings(jobType, submitted.settings || {}), metadata: {},
        addTask: (task) => { tasks.push({ ...task, commands: [...task.commands], dependencies: [...task.dependencies] }); },
    };
    compileJob(job);

    const names = new Map(tasks.map((task) => [task.uuid, task.name]));
    return {
        jobType: name,
        JOB_TYPE: jobType,
        tasks: tasks.map((task) => ({
            name: task.name, type: task.type, commands: task.commands,
            dependencies: task.dependencies.map((other) => {
                if (!names.has(other.uuid)) throw new Error(`task ${task.name} depends on ${other.name}, which the job does not hold`);
                return names.get(other.uuid);
            }),
        })),
    };
}

let result;
try {
    result = compile(process.argv[2], JSON.parse(fs.readFileSync(0, "utf8")));
} catch (error) {
    result = { error: String(error instanceof Error ? error.message : error) };
}
process.stdout.write(JSON.stringify(result));
