//! The binding across ranks: examples/comm_ranks.rs, built here with cargo,
//! under `mpirun -np 2` and `-np 3` on the `mpi` backend. Every rank checks
//! every collective against values it computes itself and prints
//! "rank R: ok"; the job must exit 0 with one such line per rank. Skipped,
//! saying why, where mpirun or the comm_mpi plugin is absent.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The longest one job may take: each finishes in about a second, and a
/// lost rank fails its peers' calls within the example's 30 s deadline.
const JOB_LIMIT: Duration = Duration::from_secs(90);

#[test]
fn every_collective_agrees_across_2_and_3_ranks() {
    let mpirun = match find_in_path("mpirun") {
        Some(path) => path,
        None => return skip("no mpirun in PATH"),
    };
    if let Err(err) = common::context().find_strategy(frugal::sys::FRUGAL_KIND_COMM, "mpi") {
        return skip(&format!("the comm_mpi plugin is not built ({})", err));
    }
    let example = build_example("comm_ranks");
    let flags = launcher_flags(&mpirun);
    // One job at a time: each already puts up to 3 ranks on the cores.
    for ranks in [2, 3] {
        let mut command = Command::new(&mpirun);
        command.args(&flags).arg("-np").arg(ranks.to_string()).arg(&example);
        let out = run_with_limit(command, JOB_LIMIT);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let report = format!(
            "mpirun -np {} exited {}:\n{}\n{}",
            ranks,
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{}", report);
        for rank in 0..ranks {
            let line = format!("rank {}: ok", rank);
            assert_eq!(stdout.lines().filter(|l| l.trim() == line).count(), 1, "{:?} once: {}", line, report);
        }
        assert_eq!(stdout.lines().filter(|l| l.ends_with(": ok")).count(), ranks, "{}", report);
    }
}

fn skip(why: &str) {
    eprintln!("comm_mpi: skipped: {}", why);
}

/// `name` in a directory of PATH.
fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|file| file.is_file())
}

/// OpenMPI refuses root without --allow-run-as-root (CI runs as root) and
/// more ranks than cores without --oversubscribe (CI has 2); other MPIs
/// get no flags (as cmake/FrugalMpiexec.cmake).
fn launcher_flags(mpirun: &Path) -> Vec<&'static str> {
    let version = Command::new(mpirun).arg("--version").output().expect("mpirun --version runs");
    let text = format!("{}{}", String::from_utf8_lossy(&version.stdout), String::from_utf8_lossy(&version.stderr));
    if text.contains("Open MPI") || text.contains("OpenRTE") {
        vec!["--allow-run-as-root", "--oversubscribe"]
    } else {
        Vec::new()
    }
}

/// Builds example `name` with the cargo running these tests (a no-op when
/// `cargo test` already built it, and it rebuilds one that is stale) into
/// this test's target directory, and returns the executable's path.
fn build_example(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--offline", "--quiet", "--message-format=json", "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if let Some(dir) = target_dir() {
        command.arg("--target-dir").arg(dir);
    }
    let out = command.output().expect("cargo runs");
    let messages = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "cargo build --example {} failed:\n{}", name, String::from_utf8_lossy(&out.stderr));
    // The artifact message of the example names its executable.
    let target = format!("\"name\":\"{}\"", name);
    let executable = messages
        .lines()
        .filter(|line| line.contains(&target) && line.contains("\"kind\":[\"example\"]"))
        .find_map(|line| {
            let start = line.find("\"executable\":\"")? + "\"executable\":\"".len();
            Some(PathBuf::from(&line[start..start + line[start..].find('"')?]))
        })
        .unwrap_or_else(|| panic!("cargo named no executable for example {}:\n{}", name, messages));
    assert!(executable.is_file(), "{} was not built", executable.display());
    executable
}

/// The target directory this test binary was built in (cargo tags its
/// root with CACHEDIR.TAG), so the example reuses the crate built there.
fn target_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().skip(1).find(|dir| dir.join("CACHEDIR.TAG").is_file()).map(Path::to_path_buf)
}

/// Runs `command` with its output captured, killing it past `limit` so a
/// hung job fails the test instead of stalling the suite.
fn run_with_limit(mut command: Command, limit: Duration) -> Output {
    let mut child =
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("mpirun starts");
    // Drain both pipes on threads: a job writing more than a pipe holds
    // would otherwise block before exiting.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || read_all(&mut stdout));
    let err_reader = std::thread::spawn(move || read_all(&mut stderr));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting on mpirun") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            // Not joining the readers: ranks orphaned by the kill may hold
            // the pipes open until their own deadline.
            panic!("mpirun still running after {:?}; killed it", limit);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output { status, stdout: out_reader.join().unwrap(), stderr: err_reader.join().unwrap() }
}

fn read_all(pipe: &mut impl std::io::Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    let _ = pipe.read_to_end(&mut bytes);
    bytes
}
