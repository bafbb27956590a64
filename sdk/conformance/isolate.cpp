#include "isolate.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace frugal::conformance {

namespace {

// Child -> parent protocol, one record per line: "B\trule" (starting a
// rule) or "P|F|S\trule\tmessage" (pass, fail, skip); tabs and newlines in
// text become spaces.
std::string flat(std::string text) {
  for (char& ch : text)
    if (ch == '\t' || ch == '\n') ch = ' ';
  return text;
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n <= 0) return;
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

void run_checks(const std::string& label, bool fork, Report& report, const std::function<void(Sink&)>& body) {
  if (!fork) {
    Sink sink{[](const std::string&) {},
              [&](Outcome outcome, const std::string& rule, const std::string& message) {
                report.add({outcome, label, rule, message});
              }};
    body(sink);
    return;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    report.add({Outcome::fail, label, "harness", std::string("pipe: ") + std::strerror(errno)});
    return;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    report.add({Outcome::fail, label, "harness", std::string("fork: ") + std::strerror(errno)});
    return;
  }
  if (pid == 0) {
    ::close(fds[0]);
    const int out = fds[1];
    Sink sink{[&](const std::string& rule) { write_all(out, "B\t" + flat(rule) + "\n"); },
              [&](Outcome outcome, const std::string& rule, const std::string& message) {
                write_all(out,
                          std::string(1, outcome_name(outcome)[0]) + "\t" + flat(rule) + "\t" + flat(message) + "\n");
              }};
    body(sink);
    write_all(out, "B\texit\n");
    ::close(out);
    std::exit(0);  // not _exit: a leak checker runs at exit and fails the child
  }
  ::close(fds[1]);
  std::string data;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::string running = "start";
  std::istringstream lines(data);
  for (std::string line; std::getline(lines, line);) {
    const auto t1 = line.find('\t');
    if (t1 == std::string::npos) continue;
    const auto t2 = line.find('\t', t1 + 1);
    if (line[0] == 'B') {
      running = line.substr(t1 + 1);
    } else {
      const Outcome outcome = line[0] == 'P' ? Outcome::pass : line[0] == 'S' ? Outcome::skip : Outcome::fail;
      report.add(
          {outcome, label, line.substr(t1 + 1, t2 - t1 - 1), t2 == std::string::npos ? "" : line.substr(t2 + 1)});
    }
  }
  if (WIFSIGNALED(status) && running == "exit") {
    // After every rule: a leak checker at exit (abort_on_error) stopped it.
    report.add({Outcome::fail, label, "leaks",
                std::string("the checking process ended by ") + strsignal(WTERMSIG(status)) +
                    " after every rule (a sanitizer's report, e.g. of a leak, is printed above)"});
  } else if (WIFSIGNALED(status)) {
    report.add({Outcome::fail, label, running,
                std::string("crashed (") + strsignal(WTERMSIG(status)) + ") while checking rule '" + running + "'"});
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0 && running == "exit") {
    report.add({Outcome::fail, label, "leaks",
                "the checking process exited with status " + std::to_string(WEXITSTATUS(status)) +
                    " after every rule (a sanitizer's report, e.g. of a leak, is printed above)"});
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    // Stopped inside a rule: under -fsanitize a bad access (e.g. a store to
    // NULL) ends the process with a status instead of a signal.
    report.add({Outcome::fail, label, running,
                "crashed (exit status " + std::to_string(WEXITSTATUS(status)) +
                    ": a sanitizer stopped the process, its report is above) while checking rule '" + running + "'"});
  }
}

}  // namespace frugal::conformance
