"""What every command's report entry shares: rounded numbers, the verdict, failures.

An entry is a JSON object: ``file``, ``armature``, ``status`` ("ok" or
"error"), ``outputs``, ``seconds``, the ``command`` that made it and its
``kind``, a ``verdict`` (:meth:`~..core.measure.verdict.Verdict.to_json`),
and what its command adds.
"""

import dataclasses

from ..core.measure import verdict as verdicts


def rounded(values, digits):
    """``values`` as a list of floats rounded to ``digits``."""
    return [round(float(v), digits) for v in values]


def frame_rate(fps):
    """A frame rate as the report gives it: to 3 decimals, which keeps 29.97 and 23.976 and drops a BVH frame time's
    rounding (0.033333 s is 30.00003 fps)."""
    return round(float(fps), 3)


def significant(value, digits=4):
    """Numbers in ``value`` (nested lists and dicts) to ``digits`` significant digits, for numbers whose last digits are
    float32 noise (a graph's distance statistics)."""
    if isinstance(value, dict):
        return {key: significant(item, digits) for key, item in value.items()}
    if isinstance(value, list):
        return [significant(item, digits) for item in value]
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    return value


def span(frames):
    """A (first, last) frame span as JSON: two ints, or None."""
    return None if frames is None else [int(frames[0]), int(frames[1])]


def metrics_json(metrics):
    """A metrics dataclass as a dict of its fields, rounded to 4 digits."""
    return {name: round(float(value), 4) for name, value in dataclasses.asdict(metrics).items()}


def judged(entry, verdict):
    """``entry`` with its ``verdict``."""
    entry["verdict"] = verdict.to_json()
    return entry


def worsened(entry, verdict):
    """``entry``'s verdict made no better than ``verdict`` (its reasons added): what writing an output found."""
    judged = entry.get("verdict") or verdicts.Verdict(verdicts.GOOD).to_json()
    judged["word"] = verdicts.worst([verdicts.Verdict(judged["word"]), verdict])
    judged["reasons"] = [*judged.get("reasons", []), *verdict.reasons]
    entry["verdict"] = judged
    return entry


def verdict_word(entry):
    """An entry's verdict word; entries of earlier versions, which kept none, are '-' unless they failed."""
    verdict = entry.get("verdict")
    if isinstance(verdict, dict) and verdict.get("word") in verdicts.WORDS:
        return verdict["word"]
    return verdicts.FAILED if entry["status"] != "ok" else "-"


def verdict_reasons(entry):
    """The reasons behind an entry's verdict (none for GOOD, or for entries of earlier versions)."""
    verdict = entry.get("verdict")
    return list(verdict.get("reasons", [])) if isinstance(verdict, dict) else []


def error_entry(path, reason, seconds, armature=""):
    """The report of a task, file or armature that made nothing."""
    entry = {"file": str(path), "armature": armature, "status": "error", "error": reason, "seconds": round(seconds, 3)}
    return judged(entry, verdicts.failed(reason))


def run_failure_entry(path, reason, command):
    """The report of a task that failed through no fault of its file (a worker died, the cluster could not run it, a bug):
    ``run_failure`` marks it, so a farm retries the task rather than take it as the file's verdict."""
    return dict(error_entry(path, reason, 0.0), command=command, run_failure=True)
