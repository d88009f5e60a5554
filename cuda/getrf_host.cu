// gpu_getrf_crout with host pointers: the matrix goes up chunk by chunk through the pinned ring
// (cuda/staging.cu) while the device factorization (cuda/getrf.cu) works on the chunks before
// it, and the factors come back as they become final; then IPIV and INFO.
//
// The transfers run on a host thread of their own. The factorization queues a few thousand
// kernels and library calls, and once the stream's queue is full each further call waits for
// the GPU: a thread that also stages the uploads would then stall them (at n = 16384 on the
// H100 the uploads stretched from 40 to over 100 ms that way).
#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "context.hpp"
#include "hardware.hpp"
#include "device_util.hpp"
#include "env.hpp"
#include "getrf.hpp"
#include "gpueig.h"
#include "staging.hpp"

namespace gpueig::gpu {
namespace {

constexpr size_t kD = sizeof(double);

Status nonfinite() {
  return Status::fail(Status::unsafe, "A holds NaN or Inf entries: factored by LAPACK");
}

// Events made for one call (from either of its threads) and destroyed with it.
class Events {
 public:
  ~Events() {
    for (cudaEvent_t e : all_) cudaEventDestroy(e);
  }
  Status record(cudaStream_t st, cudaEvent_t *out) {
    cudaEvent_t e = nullptr;
    Status s = check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    if (!s) return s;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      all_.push_back(e);
    }
    *out = e;
    return check(cudaEventRecord(e, st), "cudaEventRecord");
  }

 private:
  std::mutex mutex_;
  std::vector<cudaEvent_t> all_;
};

// The transfers of the caller's matrix around getrf_device (a GetrfFeed). stage() sends the
// chunks up on the copy stream, each checked for NaN and Inf there, and announces each one;
// ready() (on the factorization's thread) says whether one has landed, arrive() makes the
// compute stream wait for it. finished() records an event each kGroup columns; drain() copies
// back the rows the groups finished (see there). stage() then drain() run on the transfer
// thread, or, for a small matrix, on the caller's thread before and after the factorization.
class Feed final : public GetrfFeed {
 public:
  static constexpr int64_t kGroup = 256;
  // Rows a download strip takes at least: a strip of every column of n = 16384 moved at 24.6 /
  // 38.7 / 46.3 GB/s with 256 / 1024 / 2048 rows, whole columns at 51.8 (gpueig_bench
  // --getrf's transfer probe, H200, 2026-11-28); taller strips wait longer for their rows.
  static constexpr int64_t kRowStrip = 1024;

  Feed(Context &ctx, cudaStream_t compute, cudaStream_t copy, double *a, int64_t lda, double *dA,
       int64_t ldd, int64_t m, int64_t n, int *nonfinite)
      : ctx_(ctx), compute_(compute), copy_(copy), a_(a), lda_(lda), dA_(dA), ldd_(ldd), m_(m),
        n_(n), nonfinite_(nonfinite), chunks_(getrf_chunks(m, n)) {}

  // Transfer side, part 1: every chunk up, then the NaN verdict (`bad`). Nothing is written to
  // the caller's array here.
  Status stage(bool *bad) {
    Status s = Status::success();
    for (size_t k = 0; k + 1 < chunks_.size() && s; ++k) {
      const int64_t c0 = chunks_[k], c1 = chunks_[k + 1];
      cudaEvent_t up = nullptr;
      s = upload(ctx_, dA_ + c0 * ldd_, ldd_ * kD, a_ + c0 * lda_, lda_ * kD, m_ * kD, c1 - c0,
                 copy_);
      if (s) s = check_finite(copy_, dA_ + c0 * ldd_, ldd_, m_, c1 - c0, nonfinite_);
      if (s) s = events_.record(copy_, &up);
      std::lock_guard<std::mutex> lock(mutex_);
      if (s) {
        arrived_.push_back(up);
      } else {
        upload_failed_ = true;
        why_ = s;
      }
      changed_.notify_all();
    }
    int flag = 0;
    if (s) s = check(cudaMemcpyAsync(&flag, nonfinite_, sizeof(int), cudaMemcpyDeviceToHost, copy_),
                     "cudaMemcpyAsync");
    if (s) s = check(cudaStreamSynchronize(copy_), "getrf");
    *bad = flag != 0;
    return s;
  }

  // Transfer side, part 2: the factors into the caller's array as they become final, in row
  // strips. finished(g1, c1) says that rows 0:g1 of columns 0:c1 are final once its event has
  // completed (getrf.hpp's GetrfFeed). So each strip is rows r0:g1 of every column admitted
  // (plus rows 0:r0 of the columns admitted since the last strip): the bytes come free at the
  // factorization's pace of rows, not back-loaded as they would be column by column (L's rows
  // left of a group are final only once the group is done). Strips of at least kRowStrip rows
  // (short pieces make slow copies; GPUEIG_GETRF_ROW_STRIP, a bench hook, changes it). After
  // the last step, the rest: rows r0:m of all columns. All through one download pipeline.
  // Returns when all is in `a`, or early (nothing more written) if the factorization failed.
  Status drain() {
    // wrote_ is set once a piece lands in the caller's array: from then on a failure leaves it
    // part written.
    Downloader out(ctx_, copy_, &wrote_);
    const int64_t strip = env::integer("GPUEIG_GETRF_ROW_STRIP", kRowStrip, 1);
    int64_t r0 = 0, c0 = 0;  // rows 0:r0 of columns 0:c0 are down (or queued)
    Status s = Status::success();
    for (size_t next = 0;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return groups_.size() > next || closed_; });
      if (aborted_) return Status::fail(Status::device_error, "factorization failed");
      if (groups_.size() <= next) break;
      // The first group a strip's height below the last strip, and any later one whose steps
      // are done already (one strip for all of them). Not simply the newest group: the steps
      // are queued far ahead of the GPU, and a strip up to the newest would wait for it.
      size_t k = next;
      while (k < groups_.size() && groups_[k].rows - r0 < strip) ++k;
      if (k == groups_.size()) {
        next = k;
        continue;
      }
      while (k + 1 < groups_.size() && cudaEventQuery(groups_[k + 1].done) == cudaSuccess) ++k;
      next = k + 1;
      const Group g = groups_[k];
      lock.unlock();
      if (!(s = out.add(region(0, r0, c0, g.cols, g.done))) ||
          !(s = out.add(region(r0, g.rows, 0, g.cols))))
        return s;
      r0 = g.rows;
      c0 = g.cols;
    }
    if (!(s = out.add(region(0, r0, c0, n_, end_))) || !(s = out.add(region(r0, m_, 0, n_))))
      return s;
    return out.finish();
  }

  // The transfer side cannot start: arrive() returns `why` instead of waiting.
  void fail(const Status &why) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    upload_failed_ = true;
    try {
      why_ = why;
    } catch (...) {  // no memory for the reason: the code alone
      why_.code = why.code;
    }
    changed_.notify_all();
  }

  // Whether drain() has begun writing the caller's array (read after it returned).
  bool wrote() const { return wrote_; }

  // Factorization side: ends the groups (end: after everything queued on the compute stream),
  // or tells drain() to stop.
  Status close(const Status &factored) {
    const bool ok = static_cast<bool>(factored);
    Status s = ok ? events_.record(compute_, &end_) : Status::success();
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    aborted_ = !ok || !s;
    changed_.notify_all();
    return s;
  }

  Status arrive(int64_t c0) override {
    const size_t k = chunk(c0);
    cudaEvent_t up = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return arrived_.size() > k || upload_failed_; });
      if (arrived_.size() <= k) return why_;
      up = arrived_[k];
    }
    return check(cudaStreamWaitEvent(compute_, up, 0), "cudaStreamWaitEvent");
  }

  bool ready(int64_t c0) override {
    if (lazy_) return false;
    const size_t k = chunk(c0);
    std::lock_guard<std::mutex> lock(mutex_);
    if (arrived_.size() <= k) return false;
    const cudaError_t e = cudaEventQuery(arrived_[k]);
    if (e != cudaSuccess && e != cudaErrorNotReady) cudaGetLastError();  // (arrive() reports it)
    return e == cudaSuccess;
  }

  Status finished(int64_t j, int64_t cols) override {
    if (j - last_group_ < kGroup) return Status::success();
    last_group_ = j;
    cudaEvent_t done = nullptr;
    Status s = events_.record(compute_, &done);
    if (!s) return s;
    std::lock_guard<std::mutex> lock(mutex_);
    groups_.push_back(Group{j, cols, done});
    changed_.notify_all();
    return s;
  }

 private:
  // The index of the chunk whose first column is c0.
  size_t chunk(int64_t c0) const {
    return std::lower_bound(chunks_.begin(), chunks_.end(), c0) - chunks_.begin();
  }

  // Rows r0:r1 of columns c0:c1, device to the caller's array, once `after` has completed
  // (an empty region's event still counts).
  Region region(int64_t r0, int64_t r1, int64_t c0, int64_t c1, cudaEvent_t after = nullptr) const {
    if (r1 <= r0 || c1 <= c0) r1 = r0 = c1 = c0 = 0;
    return Region{a_ + r0 + c0 * lda_, lda_ * kD, dA_ + r0 + c0 * ldd_, ldd_ * kD,
                  static_cast<size_t>(r1 - r0) * kD, static_cast<size_t>(c1 - c0), after};
  }

  Context &ctx_;
  cudaStream_t compute_, copy_;
  double *a_;
  int64_t lda_;
  double *dA_;
  int64_t ldd_, m_, n_;
  int *nonfinite_;
  const std::vector<int64_t> chunks_;
  // GPUEIG_GETRF_FEED=lazy (a test hook): no chunk is ever ready, each comes in once a step
  // needs it, with the rows of U above that step (the path a slow upload takes).
  const bool lazy_ = env::choice("GPUEIG_GETRF_FEED", {"auto", "lazy"}, 0) == 1;
  Events events_;
  int64_t last_group_ = 0;   // factorization side only

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<cudaEvent_t> arrived_;  // chunk k's upload, in order
  bool upload_failed_ = false;
  Status why_;
  // The steps up to `rows` queued on the columns 0:cols admitted then; `done` follows them.
  struct Group {
    int64_t rows, cols;
    cudaEvent_t done;
  };
  std::vector<Group> groups_;
  cudaEvent_t end_ = nullptr;
  bool closed_ = false, aborted_ = false;
  bool wrote_ = false;  // transfer side only
};

// The right-hand sides of a gesv call; `solved` says whether X is in b.
struct GesvRhs {
  int64_t nrhs;
  double *b;
  int64_t ldb;
  bool solved;
};

// DGETRF of the caller's matrix and, with `rhs` (m = n), DGESV's solve on the device: B goes
// up ahead of A, and once the last step is queued, P B's gather and the two DTRSMs follow on the
// compute stream while the last factors stream back; X comes down after INFO is known (only
// for INFO = 0: DGESV leaves B alone for a singular U).
Status getrf_solve(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info,
                   GesvRhs *rhs) {
  DeviceScope scope;
  Context *ctx = nullptr;
  cublasHandle_t blas = nullptr;
  Status s = enter(scope, ctx, true, &blas);
  cudaStream_t copy = nullptr;
  if (s) s = ctx->copy_stream(&copy);
  if (!s) return s;
  cudaStream_t st = ctx->stream();
  const int64_t mn = std::min(m, n);
  // Columns padded to 32 rows keep every column 256-byte aligned for the tensor-core DGEMMs.
  const int64_t ldd = (m + 31) / 32 * 32;
  WorkspacePlan plan;
  const size_t o_a = plan.add_array<double>(static_cast<size_t>(ldd) * n);
  const size_t o_piv = plan.add_array<int>(mn);
  const size_t o_flags = plan.add_array<int>(2);  // INFO, non-finite
  const size_t o_scratch = plan.add(getrf_scratch_bytes());
  const size_t o_feed = plan.add(getrf_feed_bytes(m, n));
  const int64_t nrhs = rhs ? rhs->nrhs : 0;
  const size_t o_b = plan.add_array<double>(static_cast<size_t>(n) * nrhs);
  const size_t o_x = plan.add_array<double>(static_cast<size_t>(n) * nrhs);
  Workspace buf(st);
  if (!(s = buf.allocate(plan))) return s;
  // However the call ends, the copy stream is done with the buffer before it is freed (on the
  // compute stream) and with the caller's array before we return.
  struct Drain {
    cudaStream_t copy;
    ~Drain() { cudaStreamSynchronize(copy); }
  } drain{copy};
  double *dA = buf.at<double>(o_a);
  int *dipiv = buf.at<int>(o_piv);
  int *flags = buf.at<int>(o_flags);
  void *scratch = buf.at<char>(o_scratch);
  void *feed_buffers = buf.at<char>(o_feed);

  // The copy stream's first upload must find the buffer allocated and the flag cleared.
  cudaEvent_t ready = nullptr;
  Events events;
  if (!(s = check(cudaMemsetAsync(flags + 1, 0, sizeof(int), st), "cudaMemsetAsync")) ||
      !(s = events.record(st, &ready)) ||
      !(s = check(cudaStreamWaitEvent(copy, ready, 0), "cudaStreamWaitEvent")))
    return s;
  // B ahead of A's first chunk, on the copy stream (before the transfer thread starts using the
  // pinned ring); the solve waits for b_up.
  double *dB = buf.at<double>(o_b), *dX = buf.at<double>(o_x);
  cudaEvent_t b_up = nullptr;
  if (nrhs > 0 && (!(s = upload(*ctx, dB, n * kD, rhs->b, rhs->ldb * kD, n * kD, nrhs, copy)) ||
                   !(s = events.record(copy, &b_up))))
    return s;

  // LAPACK's INFO on NaN or Inf entries follows its BLAS's IDAMAX (which entry wins against a
  // NaN), which only LAPACK itself reproduces: the transfer side writes nothing to the caller's
  // array before it knows there is none.
  Feed feed(*ctx, st, copy, a, lda, dA, ldd, m, n, flags + 1);
  bool bad = false;                  // set by stage(): read once the transfer side is done
  Status moved = Status::success();  // the transfer side's outcome
  bool threaded = static_cast<size_t>(m) * n * kD >= kStagingMinBytes;
  const Status transfer_failed = Status::fail(Status::device_error, "transfer thread: exception");
  std::thread worker;
  if (threaded) {
    try {
      worker = std::thread([&] {
        // An exception must not leave a thread (std::terminate would end the caller's process):
        // one here (host memory for the transfer bookkeeping) fails the transfer side.
        try {
          DeviceScope on_this_thread;
          if (!(moved = on_this_thread.status())) return feed.fail(moved);
          if ((moved = feed.stage(&bad)) && !bad) moved = feed.drain();
        } catch (...) {
          feed.fail(transfer_failed);
          try {
            moved = transfer_failed;
          } catch (...) {
            moved.code = Status::device_error;
          }
        }
      });
    } catch (...) {  // no thread to be had: do it in turn
      threaded = false;
    }
  }
  if (!threaded && (!(moved = feed.stage(&bad)) || bad))
    return moved ? nonfinite() : moved;
  s = getrf_device(blas, st, m, n, dA, ldd, dipiv, flags, flags + 1, scratch, 0, &feed,
                   feed_buffers);
  // After a failure drain() stops; if it had begun, the caller's array is part written.
  const Status closed = feed.close(s);
  // The solve, queued after the end event so that the last factors' download does not wait for
  // it. Its failure leaves rhs->solved false: the caller solves on the host with the factors.
  Status solve = Status::fail(Status::device_error, "no solve");
  if (nrhs > 0 && s && closed) {
    solve = check(cudaStreamWaitEvent(st, b_up, 0), "cudaStreamWaitEvent");
    if (solve)
      solve = getrs_device(blas, st, 'N', n, nrhs, dA, ldd, getrf_feed_order(feed_buffers), dB, n,
                           dX);
  }
  if (threaded) worker.join();
  else if (closed && !bad) moved = feed.drain();
  if (!s || !closed) {
    const Status &why = s ? closed : s;
    return feed.wrote() ? Status::fail(Status::output_lost, why.reason) : why;
  }
  if (bad) {
    cudaStreamSynchronize(st);
    return nonfinite();
  }
  if (!moved && !feed.wrote()) return moved;  // an upload failed: nothing written
  int host_info = 0;
  std::vector<int> host_ipiv(mn);
  if (!moved ||
      !(s = check(cudaMemcpyAsync(&host_info, flags, sizeof(int), cudaMemcpyDeviceToHost, st),
                  "cudaMemcpyAsync")) ||
      !(s = check(cudaMemcpyAsync(host_ipiv.data(), dipiv, mn * sizeof(int),
                                  cudaMemcpyDeviceToHost, st),
                  "cudaMemcpyAsync")) ||
      !(s = check(cudaStreamSynchronize(st), "getrf")))
    return Status::fail(Status::output_lost, moved ? s.reason : moved.reason);
  if (host_info == GPUEIG_ERR_DEVICE)  // (getrf_device: a wait between the panel's blocks timed out)
    return Status::fail(Status::output_lost, "getrf: a wait between the panel kernel's blocks timed out");
  // X into B: only for a nonsingular U, and only if the device solve was queued. A download
  // that fails before writing B leaves the solve to the caller; one that fails after has lost B.
  if (nrhs > 0 && host_info == 0 && solve) {
    bool wrote_b = false;
    solve = download(*ctx, rhs->b, rhs->ldb * kD, dX, n * kD, n * kD, nrhs, st, &wrote_b);
    if (!solve && wrote_b)
      return Status::fail(Status::output_lost, "B partly overwritten: " + solve.reason);
    rhs->solved = static_cast<bool>(solve);
  }
  std::copy(host_ipiv.begin(), host_ipiv.end(), ipiv);
  *info = host_info;
  return Status::success();
}

}  // namespace

Status getrf(int64_t m, int64_t n, double *a, int64_t lda, int *ipiv, int *info) {
  return getrf_solve(m, n, a, lda, ipiv, info, nullptr);
}

Status gesv(int64_t n, int64_t nrhs, double *a, int64_t lda, int *ipiv, double *b, int64_t ldb,
            int *info, bool *solved) {
  GesvRhs rhs{nrhs, b, ldb, false};
  const Status s = getrf_solve(n, n, a, lda, ipiv, info, &rhs);
  *solved = s && rhs.solved;
  return s;
}

}  // namespace gpueig::gpu
