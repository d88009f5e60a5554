#include "staging.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "context.hpp"

namespace gpueig::gpu {
namespace {

// Host threads that memcpy between the caller's arrays and the pinned ring: one thread cannot
// keep up with PCIe (about 9 GB/s for memcpy against about 55 GB/s for the link; the count is
// tuning::kCopyThreadsMax's).
class CopyPool {
 public:
  static CopyPool &get() {
    static CopyPool pool;
    return pool;
  }

  // Runs job(part, parts) for part = 0 .. parts-1, the caller taking part 0; returns when all
  // parts are done. One job at a time across the process.
  void run(const std::function<void(int, int)> &job) {
    const int parts = static_cast<int>(workers_.size()) + 1;
    if (parts == 1) return job(0, 1);
    std::lock_guard<std::mutex> one(run_mutex_);
    {
      std::lock_guard<std::mutex> lock(m_);
      job_ = &job;
      pending_ = parts - 1;
      ++generation_;
    }
    cv_.notify_all();
    job(0, parts);
    std::unique_lock<std::mutex> lock(m_);
    done_.wait(lock, [&] { return pending_ == 0; });
    job_ = nullptr;
  }

  ~CopyPool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto &w : workers_) w.join();
  }

 private:
  CopyPool() {
    const unsigned hw = std::thread::hardware_concurrency();
    // (the caller's thread is one of the parts; one more is left to the caller's other work)
    const int n = std::clamp(static_cast<int>(hw) - 1, 1, tuning::kCopyThreadsMax) - 1;
    for (int i = 0; i < n; ++i) workers_.emplace_back([this, i] { loop(i + 1); });
  }

  void loop(int part) {
    unsigned long seen = 0;
    for (;;) {
      const std::function<void(int, int)> *job;
      {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        job = job_;
      }
      (*job)(part, static_cast<int>(workers_.size()) + 1);
      {
        std::lock_guard<std::mutex> lock(m_);
        if (--pending_ == 0) done_.notify_one();
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex run_mutex_, m_;
  std::condition_variable cv_, done_;
  const std::function<void(int, int)> *job_ = nullptr;
  int pending_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
};

// Copies `rows` rows of `width` bytes between pitched host regions, split over the pool: by rows
// when there are enough of them, else by bytes within each row.
void parallel_copy(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                   size_t rows) {
  CopyPool::get().run([&](int part, int parts) {
    if (rows >= static_cast<size_t>(parts)) {
      const size_t r0 = rows * part / parts, r1 = rows * (part + 1) / parts;
      for (size_t r = r0; r < r1; ++r) std::memcpy(dst + r * dpitch, src + r * spitch, width);
    } else {
      const size_t b0 = width * part / parts, b1 = width * (part + 1) / parts;
      for (size_t r = 0; r < rows; ++r)
        std::memcpy(dst + r * dpitch + b0, src + r * spitch + b0, b1 - b0);
    }
  });
}

// One piece of a transfer: rows [row, row+rows) and bytes [off, off+len) of each.
struct Piece {
  size_t row, rows, off, len;
};

// Cuts the region into pieces of at most one ring buffer each, in order.
std::vector<Piece> pieces(size_t width, size_t height) {
  std::vector<Piece> out;
  const size_t chunk = PinnedRing::kChunk;
  if (width >= chunk) {
    for (size_t r = 0; r < height; ++r)
      for (size_t off = 0; off < width; off += chunk)
        out.push_back({r, 1, off, std::min(chunk, width - off)});
  } else {
    const size_t per = chunk / width;
    for (size_t r = 0; r < height; r += per) out.push_back({r, std::min(per, height - r), 0, width});
  }
  return out;
}

}  // namespace

Status upload(Context &ctx, void *dev, size_t dpitch, const void *host, size_t hpitch,
              size_t width, size_t height, cudaStream_t st) {
  if (!st) st = ctx.stream();
  if (width == 0 || height == 0) return Status::success();
  if (width * height < kStagingMinBytes)
    return check(cudaMemcpy2DAsync(dev, dpitch, host, hpitch, width, height,
                                   cudaMemcpyHostToDevice, st),
                 "upload");
  PinnedRing *ring = nullptr;
  Status s = ctx.ring(&ring);
  if (!s) return s;
  const std::vector<Piece> ps = pieces(width, height);
  for (size_t i = 0; i < ps.size(); ++i) {
    const Piece &p = ps[i];
    const int k = static_cast<int>(i % PinnedRing::kBuffers);
    // The buffer's previous transfer must have left it before we overwrite it.
    if (!(s = check(cudaEventSynchronize(ring->done[k]), "upload"))) return s;
    const char *src = static_cast<const char *>(host) + p.row * hpitch + p.off;
    parallel_copy(ring->buffer(k), p.len, src, hpitch, p.len, p.rows);
    char *dst = static_cast<char *>(dev) + p.row * dpitch + p.off;
    if (!(s = check(cudaMemcpy2DAsync(dst, dpitch, ring->buffer(k), p.len, p.len, p.rows,
                                      cudaMemcpyHostToDevice, st),
                    "upload")) ||
        !(s = check(cudaEventRecord(ring->done[k], st), "upload")))
      return s;
  }
  return Status::success();
}

Status download(Context &ctx, void *host, size_t hpitch, const void *dev, size_t dpitch,
                size_t width, size_t height, cudaStream_t st, bool *wrote) {
  if (!st) st = ctx.stream();
  if (width == 0 || height == 0) return Status::success();
  if (Status s = check_download("download"); !s) return s;
  if (width * height < kStagingMinBytes) {
    if (wrote) *wrote = true;
    Status s = check(cudaMemcpy2DAsync(host, hpitch, dev, dpitch, width, height,
                                       cudaMemcpyDeviceToHost, st),
                     "download");
    return s ? check(cudaStreamSynchronize(st), "download") : s;
  }
  Downloader d(ctx, st, wrote);
  Status s = d.add({host, hpitch, dev, dpitch, width, height, nullptr});
  return s ? d.finish() : s;
}

Status Downloader::add(const Region &r) {
  if (r.after) waits_.push_back(r.after);
  if (r.width == 0 || r.height == 0) return Status::success();  // its event waits for the next
  Status s = Status::success();
  if (!ring_ && !(s = ctx_.ring(&ring_))) return s;
  for (const Piece &p : pieces(r.width, r.height)) {
    if (flight_.size() == PinnedRing::kBuffers && !(s = drain_one())) return s;
    // The piece's region's event (and those of empty regions before it), then the previous
    // user of its ring buffer, which may be an upload queued on another stream.
    const int k = static_cast<int>(next_++ % PinnedRing::kBuffers);
    for (cudaEvent_t e : waits_)
      if (!(s = check(cudaStreamWaitEvent(st_, e, 0), "download"))) return s;
    waits_.clear();
    const char *src = static_cast<const char *>(r.dev) + p.row * r.dpitch + p.off;
    if (!(s = check(cudaStreamWaitEvent(st_, ring_->done[k], 0), "download")) ||
        !(s = check(cudaMemcpy2DAsync(ring_->buffer(k), p.len, src, r.dpitch, p.len, p.rows,
                                      cudaMemcpyDeviceToHost, st_),
                    "download")) ||
        !(s = check(cudaEventRecord(ring_->done[k], st_), "download")))
      return s;
    flight_.push_back({static_cast<char *>(r.host) + p.row * r.hpitch + p.off, r.hpitch, p.len,
                       p.rows, k});
  }
  return s;
}

Status Downloader::drain_one() {
  const InFlight f = flight_.front();
  flight_.pop_front();
  Status s = check_download("download");
  if (s) s = check(cudaEventSynchronize(ring_->done[f.buffer]), "download");
  if (s && wrote_) *wrote_ = true;
  if (s) parallel_copy(f.host, f.hpitch, ring_->buffer(f.buffer), f.len, f.len, f.rows);
  return s;
}

Status Downloader::finish() {
  Status s = Status::success();
  for (cudaEvent_t e : waits_)  // events of trailing empty regions
    if (!(s = check(cudaEventSynchronize(e), "download"))) return s;
  waits_.clear();
  while (!flight_.empty())
    if (!(s = drain_one())) return s;
  return s;
}

}  // namespace gpueig::gpu
