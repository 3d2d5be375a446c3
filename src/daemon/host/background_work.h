// Work that may block on a disk for long (removing a tree of 300,000 files a stage left) runs
// here, on a thread of its own and in the order posted, so the event loop never waits for it.
// A job touches only what no one on the loop uses any more (the files of removed tasks) and
// logs what it has to say itself.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace tq {

/// One worker thread and its queue of jobs. The thread starts with the first job, with every
/// signal blocked (the loop's signalfd takes them); the destructor runs the jobs still queued,
/// then joins it.
class BackgroundWork {
 public:
  using Job = std::function<void()>;

  BackgroundWork() = default;
  ~BackgroundWork();
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  /// Queues `job`; it runs after every job posted before it.
  void Post(Job job);
  /// Waits until every job posted so far has run.
  void Drain();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Job> jobs_;
  bool running_job_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tq
