#!/usr/bin/env python3
"""Scale-out as teams run it (docs/scale-out.md), tested locally:

1. the GitHub Actions workflow (.github/workflows/explore.yml): its matrix covers shards
   0..SHARDS-1, and its own shard and merge commands, run here for every shard, give the
   explore.json one unsharded exploration gives;
2. the Kubernetes Indexed Job (deploy/kubernetes/): the same with its pod command for every
   completion index and its merge Job's command;
3. `cmake --install` gives a working lockstep with its scenario library, and `cpack -G DEB`
   a .deb holding the same files with its dependencies computed.

Usage: scale_out_test.py SOURCE_DIR BUILD_DIR LOCKSTEP_BINARY. Exit 0 when every check holds.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

SOURCE, BUILD, BINARY = sys.argv[1:4]
SCENARIO = os.path.join(SOURCE, "scenarios", "kernel", "random-profile.json")
SEEDS = "24"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def run(cmd, cwd, env, shell="bash"):
    result = subprocess.run([shell, "-c", cmd] if shell == "bash" else [shell, "-c", cmd], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout


def base_env(bin_dir, shards):
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.update({"SCENARIO": SCENARIO, "SEEDS": SEEDS, "SHARDS": str(shards)})
    return env


def summary(path):
    with open(path) as f:
        return json.load(f)


def main():
    work = tempfile.mkdtemp(prefix="lockstep-scale-out-")
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    os.symlink(os.path.abspath(BINARY), os.path.join(bin_dir, "lockstep"))

    # The reference: one exploration of all the seeds.
    code, out = run(f'lockstep explore "$SCENARIO" --seeds "$SEEDS" --no-shrink --out whole', work,
                    base_env(bin_dir, 1))
    check(code in (0, 1), f"the unsharded exploration exited {code}: {out[-2000:]}")
    whole = summary(os.path.join(work, "whole", "explore.json"))
    check(whole.get("seeds_run") == int(SEEDS), f"the unsharded exploration ran {whole.get('seeds_run')} seeds")

    # 1. GitHub Actions.
    with open(os.path.join(SOURCE, ".github", "workflows", "explore.yml")) as f:
        wf = yaml.safe_load(f)
    shards = int(wf["env"]["SHARDS"])
    matrix = wf["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    check(matrix == list(range(1, shards + 1)), f"the workflow's matrix {matrix} is not 1..{shards}")
    steps = {s.get("name"): s for s in wf["jobs"]["shard"]["steps"]}
    shard_cmd = steps["Explore one shard"]["run"]
    merge_steps = {s.get("name"): s for s in wf["jobs"]["merge"]["steps"]}
    merge_cmd = merge_steps["Merge the shards"]["run"]
    check(wf["jobs"]["merge"]["needs"] == "shard", "the merge job does not wait for the shards")
    gh = os.path.join(work, "github")
    os.makedirs(gh)
    for i in matrix:
        cmd = shard_cmd.replace("${{ matrix.shard }}", str(i))
        check("${{" not in cmd, f"the shard command has an expression this test does not know: {cmd}")
        code, out = run(cmd, gh, base_env(bin_dir, shards))
        check(code == 0, f"workflow shard {i} failed ({code}): {out[-2000:]}")
        # upload-artifact then download-artifact: shards/<artifact name>/explore.json
        produced = os.path.join(gh, f"shard-{i}", "explore.json")
        check(os.path.exists(produced), f"workflow shard {i} wrote no {produced}")
        if os.path.exists(produced):
            os.makedirs(os.path.join(gh, "shards", f"shard-{i}"))
            shutil.copy(produced, os.path.join(gh, "shards", f"shard-{i}"))
    code, out = run(merge_cmd, gh, base_env(bin_dir, shards))
    check(code == whole["exit_code"], f"the workflow's merge exited {code}, the whole run {whole['exit_code']}: {out[-2000:]}")
    merged_path = os.path.join(gh, "merged", "explore.json")
    check(os.path.exists(merged_path) and summary(merged_path) == whole,
          "the workflow's merged explore.json differs from the unsharded one")

    # 2. Kubernetes.
    with open(os.path.join(SOURCE, "deploy", "kubernetes", "explore-job.yaml")) as f:
        job = yaml.safe_load(f)
    with open(os.path.join(SOURCE, "deploy", "kubernetes", "explore-merge-job.yaml")) as f:
        merge_job = yaml.safe_load(f)
    spec = job["spec"]
    check(spec.get("completionMode") == "Indexed", "the explore Job is not an Indexed Job")
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container["env"]}
    k8s_shards = int(env["SHARDS"])
    check(spec["completions"] == k8s_shards and spec["parallelism"] == k8s_shards,
          "the Job's completions/parallelism differ from SHARDS")
    check(env["SCENARIO"].startswith("/usr/share/lockstep/scenarios/"), "the Job's scenario is not from the installed library")
    check(os.path.exists(os.path.join(SOURCE, "scenarios", env["SCENARIO"][len("/usr/share/lockstep/scenarios/"):])),
          f"the Job's scenario {env['SCENARIO']} is not in the library")
    k8s = os.path.join(work, "k8s")
    results = os.path.join(k8s, "results")
    os.makedirs(results)
    pod_cmd = " ".join(container["command"][2:] + container["args"]).replace("/results", results)
    for i in range(k8s_shards):
        e = base_env(bin_dir, k8s_shards)
        e["JOB_COMPLETION_INDEX"] = str(i)
        code, out = run(pod_cmd, k8s, e, shell="sh")
        check(code == 0, f"pod {i} failed ({code}): {out[-2000:]}")
    mc = merge_job["spec"]["template"]["spec"]["containers"][0]
    code, out = run(" ".join(mc["args"]).replace("/results", results), k8s, base_env(bin_dir, k8s_shards), shell="sh")
    check(code == whole["exit_code"], f"the merge Job exited {code}: {out[-2000:]}")
    merged_path = os.path.join(results, "merged", "explore.json")
    check(os.path.exists(merged_path) and summary(merged_path) == whole,
          "the Kubernetes merged explore.json differs from the unsharded one")

    # 3. cmake --install and the .deb.
    prefix = os.path.join(work, "prefix")
    code, out = run(f'cmake --install "{BUILD}" --prefix "{prefix}"', work, dict(os.environ))
    check(code == 0, f"cmake --install failed: {out[-2000:]}")
    installed = os.path.join(prefix, "bin", "lockstep")
    scenario = os.path.join(prefix, "share", "lockstep", "scenarios", "edge", "redisson-lock-watchdog-pause.json")
    check(os.path.exists(os.path.join(prefix, "share", "doc", "lockstep", "cli.md")), "the docs are not installed")
    code, out = run(f'"{installed}" run "{scenario}" --out installed-run', work, dict(os.environ))
    check(code == 0, f"the installed lockstep did not replay a library scenario as expected ({code}): {out[-2000:]}")
    # Away from a checkout (work has no scenarios/), list and scorecard find the installed library.
    code, out = run(f'"{installed}" list scenarios --json', work, dict(os.environ))
    listed = json.loads(out).get("scenarios", []) if code == 0 else []
    check(any(s.get("file", "").endswith("redisson-lock-watchdog-pause.json") for s in listed),
          f"the installed lockstep does not list its installed library ({code}): {out[-2000:]}")
    code, out = run(f'"{installed}" scorecard --help', work, dict(os.environ))
    check(code == 0 and "installed with lockstep" in out, f"scorecard --help does not name its default library: {out[-1000:]}")
    pkg = os.path.join(work, "pkg")
    code, out = run(f'cpack -G DEB --config "{BUILD}/CPackConfig.cmake" -B "{pkg}" -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip',
                    work, dict(os.environ))
    check(code == 0, f"cpack failed: {out[-3000:]}")
    debs = [f for f in os.listdir(pkg) if f.endswith(".deb")] if os.path.isdir(pkg) else []
    check(len(debs) == 1, f"cpack made {debs}")
    if debs:
        deb = os.path.join(pkg, debs[0])
        fields = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Depends"], stdout=subprocess.PIPE, text=True).stdout
        check("Package: lockstep" in fields, f"the .deb's control: {fields}")
        check(re.search(r"Depends:.*liblua5\.1", fields) is not None, f"the .deb does not depend on Lua 5.1: {fields}")
        contents = subprocess.run(["dpkg-deb", "-c", deb], stdout=subprocess.PIPE, text=True).stdout
        for path in ["./usr/bin/lockstep", "./usr/share/lockstep/scenarios/edge/redisson-lock-watchdog-pause.json",
                     "./usr/share/doc/lockstep/README.md"]:
            check(path in contents, f"the .deb lacks {path}")

    if failures:
        print(f"{len(failures)} check(s) failed; files kept in {work}")
        return 1
    shutil.rmtree(work)
    print("scale-out: workflow, Kubernetes Job, install and .deb all as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
