/*
 * libgpueig -- LAPACK-style routines on NVIDIA GPUs with an OpenBLAS/LAPACK fallback.
 *
 * The whole public C API. C99, no CUDA types. All matrices are column-major double precision
 * arrays in host memory (the device-pointer API near the end takes GPU memory); scalars are passed by value; index outputs (IPIV, IBLOCK, ISPLIT) are
 * 1-based as in LAPACK.
 *
 * Return value (INFO), for every routine:
 *   = 0        success;
 *   = -i       the i-th argument (1-based position in the C signature) has an illegal value.
 *              Arguments are checked in LAPACK's order before any work; nothing is written.
 *   > 0        the routine's numerical condition, exactly as the LAPACK analogue defines it;
 *   GPUEIG_ERR_* (<= -1000) a library condition (see below), never an argument position.
 *
 * Dispatch: each call runs on the GPU or on the CPU (LAPACK). See gpueig_set_backend(). In "auto"
 * a GPU problem (no device, out of memory, launch failure) or a numerically unsafe GPU result is
 * never the caller's problem: the call is recomputed on the CPU and returns LAPACK's answer.
 *
 * Array pointers are not checked (as in LAPACK): arrays must have the sizes documented below.
 * Thread safety: all functions may be called concurrently from several host threads.
 */
#ifndef GPUEIG_H
#define GPUEIG_H

#if defined(__GNUC__) || defined(__clang__)
#define GPUEIG_API __attribute__((visibility("default")))
#else
#define GPUEIG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Library conditions returned instead of a LAPACK INFO. */
#define GPUEIG_ERR_DEVICE (-1001) /* backend forced to "gpu" and the GPU could not run the call;
                                     no output was written */
#define GPUEIG_ERR_LAPACK (-1002) /* the CPU backend could not load its LAPACK library */
#define GPUEIG_ERR_MEMORY (-1003) /* host memory for internal workspace could not be allocated */
#define GPUEIG_ERR_INTERNAL (-1004) /* an inner LAPACK call rejected what libgpueig passed it (a
                                       defect of libgpueig: please report it); outputs are
                                       unspecified. Never an argument position of the caller's. */

/* ---------------------------------------------------------------------------------------------
 * gpu_sytrd_givens: reduce a real symmetric matrix A to symmetric tridiagonal form T by an
 * orthogonal similarity transformation, A = Q * T * Q**T.  (LAPACK analogue: DSYTRD + DORGTR;
 * the GPU method has two stages: dense to band 32 by Householder reflectors with cuBLAS updates
 * from N = 3072 on, by Givens rotation blocks below (GPUEIG_SYTRD_STAGE1 chooses either), then
 * band to tridiagonal by Givens rotation bulge chasing.)
 *
 *  1 VECT  [in] 'N': Q is not formed;  'V': Q (n x n) is formed;  'U': Q is updated,
 *          Q := Q_in * Q (Q_in on entry, e.g. from a previous reduction).
 *  2 UPLO  [in] 'U': the upper triangle of A is referenced;  'L': the lower triangle.
 *  3 N     [in] order of A, N >= 0.
 *  4 A     [in,out] (LDA, N). On entry the symmetric matrix (triangle UPLO). On exit,
 *          overwritten (its contents are unspecified).
 *  5 LDA   [in] LDA >= max(1, N).
 *  6 D     [out] (N) diagonal of T.
 *  7 E     [out] (N-1) off-diagonal of T (E(i) = T(i, i+1) = T(i+1, i)).
 *  8 Q     [in,out] (LDQ, N). VECT = 'V': on exit Q. VECT = 'U': on entry Q_in, on exit
 *          Q_in * Q. VECT = 'N': not referenced.
 *  9 LDQ   [in] LDQ >= 1, and LDQ >= max(1, N) if VECT = 'V' or 'U'.
 * Characters are case-insensitive. INFO = 0 or -i.
 * Special values: a triangle UPLO with a NaN or an infinite entry is reduced by DSYTRD itself,
 * which propagates them. No scaling is done (as DSYTRD): on the GPU an entry can grow by up to 8x
 * inside a block product, and a GPU reduction whose D, E or Q is not finite is never returned
 * but recomputed by DSYTRD (+ DORGTR), whose answer is then returned, Inf or NaN included. Tested
 * finite and accurate for entries from 1e-300 to 1e306. (DSYEV scales A into
 * [sqrt(SAFMIN/EPS), sqrt(EPS/SAFMIN)] before DSYTRD; the LD_PRELOAD shim's dsyev_/dsyevd_ do.)
 * Every GPU reduction is checked to keep A's Frobenius norm and trace (to 30 N ulp ||A||_F); one
 * that does not is recomputed by LAPACK (README, "Fixed defects worth knowing").
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_sytrd_givens(char vect, char uplo, int n, double *a, int lda,
                     double *d, double *e, double *q, int ldq);

/* ---------------------------------------------------------------------------------------------
 * gpu_stebz: selected eigenvalues of a symmetric tridiagonal matrix T by bisection.
 * Exactly LAPACK DSTEBZ's contract, without the WORK/IWORK arguments. On the GPU, DSTEBZ's own
 * bookkeeping (splitting, Gershgorin intervals, counts at interval ends, discarding for RANGE
 * 'I', the ORDER 'E' sort) runs on the host, so M, NSPLIT, ISPLIT and IBLOCK are DSTEBZ's; every
 * eigenvalue is bracketed on the GPU to DSTEBZ's tolerance (W agrees with DSTEBZ's to within it,
 * not bit for bit).
 *
 *  1 RANGE   [in] 'A': all eigenvalues;  'V': those in the half-open interval (VL, VU];
 *            'I': the IL-th through IU-th eigenvalues (ascending order).
 *  2 ORDER   [in] 'B': eigenvalues grouped by split-off block, ascending inside each block;
 *            'E': the entire matrix, ascending.
 *  3 N       [in] order of T, N >= 0.
 *  4 VL, 5 VU  [in] RANGE = 'V': the interval, VL < VU. Not referenced otherwise.
 *  6 IL, 7 IU  [in] RANGE = 'I': 1 <= IL <= IU <= N if N > 0; IL = 1 and IU = 0 if N = 0.
 *  8 ABSTOL  [in] absolute tolerance for the eigenvalues; <= 0 means ULP * |T| of each block.
 *  9 D       [in] (N) diagonal of T.    10 E [in] (N-1) off-diagonal of T.
 * 11 M       [out] number of eigenvalues found.
 * 12 NSPLIT  [out] number of diagonal blocks T splits into.
 * 13 W       [out] (N) the eigenvalues in W(1..M).
 * 14 IBLOCK  [out] (N) IBLOCK(i) = block (1-based) of eigenvalue W(i); see DSTEBZ for the
 *            negative values marking eigenvalues that did not converge.
 * 15 ISPLIT  [out] (N) block j is rows ISPLIT(j-1)+1 .. ISPLIT(j) (ISPLIT(0) = 0).
 * INFO = 0, -i, or as DSTEBZ: 1 some eigenvalues did not converge; 2 not all of IL..IU found;
 *        3 both; 4 Gershgorin interval too small (no eigenvalues computed).
 * Deviations: a NaN or infinite entry of D (E) is rejected as an illegal value, INFO = -9 (-10),
 * instead of running LAPACK's bisection on it; a NaN VL or VU is rejected with INFO = -5.
 * Scale: DSTEBZ's contract holds at every scale, its limits included (T is not scaled): an
 * off-diagonal entry with E(i)^2 below |D(i) D(i+1)| ULP^2 + SAFMIN (so every |E(i)| below about
 * 1.5e-154) is treated as zero, which makes a matrix of entries that small come back with wrong
 * eigenvalues and no error; where E(i)^2 overflows (|E(i)| above about 1.3e154) bisection does not
 * converge (INFO = 1, as DSTEBZ). Scale T into [1e-100, 1e100] first; DSTERF scales, and the
 * LD_PRELOAD shim's dsterf_ and dsyev(d)_ scale as DSTERF and DSYEV do before they call this.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_stebz(char range, char order, int n, double vl, double vu, int il, int iu,
              double abstol, const double *d, const double *e,
              int *m, int *nsplit, double *w, int *iblock, int *isplit);

/* ---------------------------------------------------------------------------------------------
 * gpu_gtsv_pcr: solve A * X = B for a general tridiagonal A (LAPACK analogue: DGTSV).
 * The GPU method is Gaussian elimination without pivoting in a nested-dissection order (per-thread
 * elimination of short chunks, then a merge tree over the chunk ends; large systems are cut into
 * tiles whose boundary unknowns form a smaller tridiagonal system, solved the same way). The name
 * is kept from the research seed (parallel cyclic reduction), which this method replaced because
 * PCR is not backward stable on ill-conditioned SPD matrices. Every result is checked on the device
 * by LAPACK's residual ratio; a system on which the check fails (or that met a zero pivot or a
 * non-finite value) is re-solved with partial pivoting by DGTSV, so no answer is silently worse.
 * Except on the GPU with one right-hand side from N = 16384, several from N = 65536: the failed
 * columns are first solved again on the device, with partial pivoting inside chunks of rows (as
 * gpu_gtsv_dev), and kept if every one passes the same check (INFO = 0, X of LAPACK's accuracy,
 * not DGTSV's bits); otherwise DGTSV.
 *
 *  1 N     [in] order of A, N >= 0.  2 NRHS  [in] number of right-hand sides, NRHS >= 0.
 *  3 DL    [in] (N-1) sub-diagonal.  4 D  [in] (N) diagonal.  5 DU [in] (N-1) super-diagonal.
 *  6 B     [in,out] (LDB, NRHS) on entry the right-hand sides, on exit the solution X (if
 *          INFO = 0).
 *  7 LDB   [in] LDB >= max(1, N).
 * INFO = 0, -i, or i > 0: U(i,i) is exactly zero in DGTSV's elimination with partial pivoting,
 *        the matrix is singular and no solution was computed (B is then as DGTSV leaves it).
 *        With NRHS = 0 the matrix is still factored (as DGTSV does) and INFO says whether it
 *        is singular; B is not referenced then.
 * Deviation: DL, D and DU are left unchanged (DGTSV overwrites them with its factorization).
 * Special values: a NaN or infinite entry fails the GPU result's check, and DGTSV solves that
 * system (NaN and Inf propagate as in DGTSV). No scaling (as DGTSV). Tested for diagonally
 * dominant systems scaled from 1e-300 to DBL_MAX/16: X agrees with DGTSV's to 1e-12.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_gtsv_pcr(int n, int nrhs, double *dl, double *d, double *du, double *b, int ldb);

/* ---------------------------------------------------------------------------------------------
 * gpu_gtsv_pcr_batch: BATCH independent tridiagonal systems A_k x_k = b_k of order N, one
 * right-hand side each. System k (k = 0 .. BATCH-1) uses DL + k*STRIDE (N-1 entries), D + k*STRIDE,
 * DU + k*STRIDE and B + k*STRIDE, with the conventions of gpu_gtsv_pcr; B is overwritten by X.
 * On the GPU, systems of up to 2048 unknowns are each solved inside one thread group, larger ones
 * by the tiled method. Each system is checked on its own; failed ones are re-solved with DGTSV's
 * partial pivoting, on the GPU when there are many of them, else on the CPU.
 *
 *  1 N      [in] order of each system, N >= 0.    2 BATCH  [in] number of systems, BATCH >= 0.
 *  3 DL, 4 D, 5 DU [in], 6 B [in,out]   arrays of at least (BATCH-1)*STRIDE + N elements.
 *  7 STRIDE [in] distance in elements between consecutive systems, STRIDE >= max(1, N).
 * INFO = 0: every system solved. INFO = -i: argument i is illegal (nothing is done).
 * INFO > 0: some systems are exactly singular (DGTSV's INFO i > 0 for them). All other systems
 *        are solved. The first singular system, k (0-based), is reported as INFO = k*N + i, so
 *        k = (INFO-1) / N and i = (INFO-1) % N + 1 (INFO = INT_MAX if k*N + i does not fit an
 *        int); the B of every singular system is as DGTSV leaves it. For BATCH = 1 this is
 *        exactly gpu_gtsv_pcr's INFO.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_gtsv_pcr_batch(int n, int batch, double *dl, double *d, double *du, double *b,
                                  int stride);

/* ---------------------------------------------------------------------------------------------
 * gpu_getrf_crout: LU factorization with partial pivoting, A = P * L * U (LAPACK analogue:
 * DGETRF; the GPU method is the blocked Crout order of LAPACK's VARIANTS/lu/CR).
 *
 *  1 M     [in] rows of A, M >= 0.          2 N  [in] columns of A, N >= 0.
 *  3 A     [in,out] (LDA, N). On exit L (unit diagonal not stored) and U, as DGETRF.
 *  4 LDA   [in] LDA >= max(1, M).
 *  5 IPIV  [out] (min(M,N)) 1-based pivot indices: row i was interchanged with row IPIV(i).
 * INFO = 0, -i, or i > 0: U(i,i) is exactly zero; the factorization was completed.
 * The output is what DGETRS expects. On the GPU the matrix is copied to the device whole (it
 * must fit there next to about 3 MB of workspace; under the auto policy a matrix that does not
 * fit is factored on the CPU). A matrix with NaN or Inf entries is factored by DGETRF itself,
 * whose INFO there depends on its BLAS. No scaling (as DGETRF): entries of U can overflow where
 * DGETRF's do (element growth); tested for matrices scaled from 1e-300 to 1e306: the same IPIV
 * as DGETRF and its residual ratio.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_getrf_crout(int m, int n, double *a, int lda, int *ipiv);

/* ---------------------------------------------------------------------------------------------
 * gpu_getrs_crout: solves A * X = B, A**T * X = B or A**H * X = B with the LU factors of the N x N
 * matrix A from gpu_getrf_crout or DGETRF (LAPACK analogue: DGETRS).
 *
 *  1 TRANS [in] 'N': A * X = B;  'T' or 'C': A**T * X = B.
 *  2 N     [in] order of A, N >= 0.          3 NRHS [in] columns of B, NRHS >= 0.
 *  4 A     [in] (LDA, N) L and U as gpu_getrf_crout / DGETRF leave them.
 *  5 LDA   [in] LDA >= max(1, N).
 *  6 IPIV  [in] (N) the pivot indices from gpu_getrf_crout / DGETRF.
 *  7 B     [in,out] (LDB, NRHS) on entry B, on exit X.
 *  8 LDB   [in] LDB >= max(1, N).
 * INFO = 0 or -i; N = 0 or NRHS = 0 returns at once (IPIV not read). Backend: the GPU method
 * uploads the whole LU and B, applies the interchanges and the two triangular solves on the
 * device and brings X back; since that is O(N^2) data for O(N^2 NRHS) work, auto runs it there
 * only from N = 8192 (measured against DGETRS; GPUEIG_CROSSOVER_GETRS moves it). A device
 * failure after part of X reached B returns GPUEIG_ERR_DEVICE (B partly overwritten).
 * Deviation: an IPIV entry outside 1..N is rejected with INFO = -6 (checked after DGETRS's own
 * checks), where DGETRS would read and write outside B.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_getrs_crout(char trans, int n, int nrhs, const double *a, int lda,
                               const int *ipiv, double *b, int ldb);

/* ---------------------------------------------------------------------------------------------
 * gpu_gesv_crout: solves A * X = B for a general N x N matrix A by LU factorization with partial
 * pivoting (LAPACK analogue: DGESV).
 *
 *  1 N     [in] order of A, N >= 0.          2 NRHS [in] columns of B, NRHS >= 0.
 *  3 A     [in,out] (LDA, N) on exit L and U of A = P * L * U, as DGESV.
 *  4 LDA   [in] LDA >= max(1, N).
 *  5 IPIV  [out] (N) 1-based pivot indices, as DGESV.
 *  6 B     [in,out] (LDB, NRHS) on entry B, on exit X (if INFO = 0).
 *  7 LDB   [in] LDB >= max(1, N).
 * INFO = 0, -i, or i > 0: U(i,i) is exactly zero; the factorization was completed and X was not
 *        computed (B unchanged). NRHS = 0 still factors A, as Reference LAPACK's DGESV does
 *        (OpenBLAS's returns without factoring).
 * Backend: auto runs the call on the GPU from N = GPUEIG_CROSSOVER_GESV (default 512, measured
 * against DGESV): gpu_getrf_crout's streamed factorization, then the solve on the device on the
 * factors it holds (P*B gathered, two DTRSMs; only X comes back); below the crossover the whole
 * call is DGESV. If the device solve fails before X reached B, DGETRS on the host solves with the
 * factors. A device failure after part of A was written returns GPUEIG_ERR_DEVICE, as
 * gpu_getrf_crout (B untouched), and so does one in X's download after part of B was written.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_gesv_crout(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb);

/* ---------------------------------------------------------------------------------------------
 * gpu_stein: eigenvectors of the symmetric tridiagonal matrix T = tridiag(E, D, E) for given
 * eigenvalues, by inverse iteration (LAPACK analogue: DSTEIN; the eigenvalues as gpu_stebz or
 * DSTEBZ return them with ORDER = 'B').
 *
 *  1 N      [in] order of T, N >= 0.
 *  2 D      [in] (N) diagonal of T.           3 E [in] (N-1) off-diagonal of T.
 *  4 M      [in] number of eigenvectors wanted, 0 <= M <= N.
 *  5 W      [in] (M) the eigenvalues, ascending within each block (ORDER = 'B').
 *  6 IBLOCK [in] (M) the block of each eigenvalue (gpu_stebz's IBLOCK), non-decreasing.
 *  7 ISPLIT [in] (N) the last row of each block (gpu_stebz's ISPLIT).
 *  8 Z      [out] (LDZ, M) column i the eigenvector for W(i) (zero outside its block).
 *  9 LDZ    [in] LDZ >= max(1, N).
 * 10 IFAIL  [out] (M) IFAIL(1..INFO): the indices of the eigenvectors that failed to converge
 *           (zero elsewhere), as DSTEIN.
 * INFO = 0, -i, or i > 0: i eigenvectors failed to converge in DSTEIN's 5 iterations.
 * GPU method: DSTEIN's clusters (eigenvalues closer than 1e-3 ||T_block||_1 chained), a warp per
 * cluster running DSTEIN's inverse iteration (T - xI factored with DLAGTF's pivoting) with
 * Gram-Schmidt inside the cluster, repeated while a pass cancels more than half of the vector; a
 * block with a cluster of more than 64 eigenvalues takes all its vectors from its divide and
 * conquer (as gpu_syevd's), orthogonal whatever the clusters' sizes. A cluster of a few
 * eigenvalues over a long block (at least 512 rows and 16 for each eigenvalue) first gets every
 * vector by inverse iteration on its own, side by side, kept only where their Gram matrix shows
 * them orthogonal (each column of |Z^T Z - I| within the cluster summing to at most N_block eps),
 * else recomputed as above. A block where a vector did not converge in DSTEIN's 5 iterations is
 * recomputed by its divide and conquer; IFAIL/INFO report only what still fails (so where DSTEIN
 * would report a failure, the GPU method may return INFO = 0 with vectors within LAPACK's ratios). auto keeps every size on the CPU (DSTEIN) until
 * the GPU method has been timed (gpueig_backend_reason says so). Deviations, each an illegal value
 * DSTEIN would read past its arrays with or compute NaN from: a NaN or infinite entry of D (-2),
 * E (-3) or W (-5); an IBLOCK(j) outside 1..N (-6); ISPLIT(1..IBLOCK(M)) not increasing within
 * 1..N (-7). On an illegal argument nothing is written (DSTEIN zeroes IFAIL first).
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_stein(int n, const double *d, const double *e, int m, const double *w,
                         const int *iblock, const int *isplit, double *z, int ldz, int *ifail);

/* ---------------------------------------------------------------------------------------------
 * gpu_syevd: all eigenvalues and, optionally, eigenvectors of a real symmetric matrix A.
 * (LAPACK analogue: DSYEVD, without its WORK/IWORK arguments.)
 *
 *  1 JOBZ  [in] 'N': eigenvalues only;  'V': eigenvalues and eigenvectors.
 *  2 UPLO  [in] 'U': the upper triangle of A is referenced;  'L': the lower triangle.
 *  3 N     [in] order of A, N >= 0.
 *  4 A     [in,out] (LDA, N). On entry the symmetric matrix (triangle UPLO). On exit, JOBZ = 'V':
 *          the orthonormal eigenvectors, column j for W(j); JOBZ = 'N': destroyed (as DSYEVD).
 *  5 LDA   [in] LDA >= max(1, N).
 *  6 W     [out] (N) the eigenvalues in ascending order.
 * INFO = 0, -i, or i > 0 as DSYEVD's (no convergence; then from LAPACK, see below): for JOBZ =
 * 'N' the count of off-diagonal entries that did not converge (<= N), for JOBZ = 'V' DSTEDC's
 * code of the submatrix that failed, rows and columns INFO/(N+1) through mod(INFO, N+1) (up to
 * N (N + 1) + N).
 * GPU method: A reduced to tridiagonal T = Q^T A Q by gpu_sytrd_givens' two stages with Q
 * formed (as gpu_sytrd_givens 'V'), A scaled first where DSYEVD scales it; T's eigenpairs by divide and
 * conquer (Cuppen's method with Gu and Eisenstat's recomputed z, as DSTEDC) with every phase on
 * the device; the eigenvectors Q Z by a cuBLAS product; JOBZ = 'N': T's eigenvalues by bisection
 * (as gpu_stebz). T's eigenpairs are checked on the device (||T z - lambda z|| and ||Z^T Z - I||
 * within LAPACK's test threshold); a matrix with NaN or Inf entries, a reduction or eigenpairs
 * that fail their check, or a tridiagonal problem that does not converge are solved by LAPACK
 * DSYEVD on the CPU instead, which gives the INFO > 0 cases. CPU path: DSYEVD. auto runs JOBZ =
 * 'V' on the GPU from N = GPUEIG_CROSSOVER_SYEVD (default 256, measured against DSYEVD) and
 * JOBZ = 'N' from gpu_sytrd_givens' crossover (GPUEIG_CROSSOVER_SYTRD).
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_syevd(char jobz, char uplo, int n, double *a, int lda, double *w);

/* ---------------------------------------------------------------------------------------------
 * gpu_syevx: selected eigenvalues and, optionally, eigenvectors of a real symmetric matrix A: all,
 * those in (VL, VU], or the IL-th through IU-th smallest. (LAPACK analogue: DSYEVX, without its
 * WORK/LWORK/IWORK arguments.)
 *
 *  1 JOBZ   [in] 'N': eigenvalues only;  'V': eigenvalues and eigenvectors.
 *  2 RANGE  [in] 'A': all;  'V': those in the half-open interval (VL, VU];  'I': IL..IU.
 *  3 UPLO   [in] 'U' or 'L': the triangle of A referenced.
 *  4 N      [in] order of A, N >= 0.
 *  5 A      [in,out] (LDA, N) the symmetric matrix (triangle UPLO); on exit that triangle,
 *           diagonal included, is destroyed (as DSYEVX).
 *  6 LDA    [in] LDA >= max(1, N).
 *  7 VL, 8 VU [in] RANGE = 'V': the interval, VL < VU (N > 0); not referenced otherwise.
 *  9 IL, 10 IU [in] RANGE = 'I': 1 <= IL <= IU <= N, or IL = 1 and IU = 0 for N = 0.
 * 11 ABSTOL [in] the absolute error tolerance of the eigenvalues (<= 0: EPS ||T||_1, as DSYEVX;
 *           2*DLAMCH('S') gives the most accurate ones).
 * 12 M      [out] the number of eigenvalues found (RANGE 'A': N; 'I': IU-IL+1).
 * 13 W      [out] (N) W(1..M) the selected eigenvalues, ascending.
 * 14 Z      [out] (LDZ, max(1, M)) JOBZ = 'V': column i the orthonormal eigenvector for W(i)
 *           (M columns are written); not referenced for JOBZ = 'N'.
 * 15 LDZ    [in] LDZ >= 1, and LDZ >= N for JOBZ = 'V'.
 * 16 IFAIL  [out] (N) JOBZ = 'V': zero in IFAIL(1..M) if INFO = 0; if INFO > 0 the indices of
 *           the eigenvectors that failed to converge. Not referenced for JOBZ = 'N'.
 * INFO = 0, -i, or i > 0: i eigenvectors failed to converge (their indices in IFAIL), as DSYEVX.
 * GPU method: all eigenvalues (RANGE 'A', or 'I' with IL = 1, IU = N) go to gpu_syevd's GPU
 * method (divide and conquer; the eigenvectors are then copied to Z), whatever ABSTOL. A subset:
 * A reduced to T = Q^T A Q by gpu_sytrd_givens' two stages with Q kept as their factors (stage
 * 1's Householder V and T, or its rotation blocks below N = 3072; the chase's rotation blocks)
 * (formed instead where they would take more than 8 GB of device memory, N above about 12700; A
 * scaled first where DSYEVX scales it), the eigenvalues of T by GPU bisection, their vectors by
 * gpu_stein's GPU method on T in device memory, the pairs checked on the device
 * (||T z - lambda z|| and ||Z^T Z - I|| within LAPACK's test threshold), Q applied to the M
 * vectors from its blocks (or by a cuBLAS product with the formed Q), only the N x M vectors
 * downloaded. A
 * reduction or eigenpairs that fail their check, bisection that fails or a vector that does not
 * converge: LAPACK DSYEVX on the CPU recomputes the call (and gives the INFO > 0 cases). CPU path: DSYEVX. auto runs a subset on the GPU from N =
 * GPUEIG_CROSSOVER_SYEVX (default 1024, measured against DSYEVX), the whole spectrum by
 * gpu_syevd's crossovers.
 * Deviations: a NaN VL or VU (RANGE 'V') is illegal (-8); an A with a NaN or Inf entry in
 * triangle UPLO has NaN eigenvalues, computed by neither backend: INFO = 0, M = N (RANGE 'A'),
 * IU-IL+1 ('I') or 0 ('V': none in (VL, VU]), W(1..M) and Z's M columns NaN, IFAIL(1..M) zero, A
 * untouched (DSYEVX's bisection fallback would call DSTEIN with an IBLOCK it rejects); where DSYEVX's scaling of A (max |A|
 * outside [sqrt(SAFMIN/EPS), min(sqrt(EPS/SAFMIN), SAFMIN^(-1/4))], or infinite) would make
 * VL*SIGMA < VU*SIGMA false, M = 0 (DSYEVX stops in XERBLA from DSTEBZ there); IFAIL(1) = 0 for
 * N = 1 with vectors, as documented (DSYEVX's own N = 1 return leaves it).
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_syevx(char jobz, char range, char uplo, int n, double *a, int lda, double vl,
                         double vu, int il, int iu, double abstol, int *m, double *w, double *z,
                         int ldz, int *ifail);

/* ---------------------------------------------------------------------------------------------
 * gpu_toeplitz_eig: eigenvalues (and optionally eigenvectors) of the real symmetric Toeplitz
 * matrix T(i,j) = t(|i-j|). (Users' alternative: DSYEVR on the dense matrix.)
 * T is centrosymmetric, so it splits exactly into two half-size symmetric blocks (the symmetric
 * and the skew-symmetric eigenvectors); both are solved and the spectra merged. Eigenvalues
 * (JOBZ = 'N') run on the GPU: both blocks formed there from t, reduced at once by
 * gpu_sytrd_givens' two-stage method, their eigenvalues found by bisection; for RANGE 'I' Sturm counts on both halves fix
 * how many of IL..IU each holds, and no other eigenvalue is computed. Eigenvectors (JOBZ = 'V'):
 * each half block's eigenpairs by gpu_syevd's GPU method (all of them) or gpu_syevx's (a subset),
 * lifted to T's; on the CPU, DSYEVD / DSYEVR on each half block. Both JOBZ go to the GPU from
 * N = GPUEIG_CROSSOVER_TOEPLITZ (measured for the eigenvalues).
 * A few eigenpairs of a large T (RANGE 'I' or 'V', either JOBZ): a structured method that never
 * forms T nor its halves, O(N) memory and O(N^2) work per evaluation: T's DST-I similarity is a
 * Cauchy-like matrix held by O(N) generators, and the inertia of T - sigma*I comes from its
 * symmetric elimination with Bunch-Kaufman pivoting on the generators; (shift, half) evaluations
 * run side by side (on Hopper a thread-block cluster each, up to N of about 226000 on chip;
 * threads on the CPU), each half's eigenvalues followed on their own once the wanted ones are
 * separated, shifts placed by the halves' sorted diagonals and by fitting log|det(H - sigma*I)|,
 * and the wanted eigenvalues bracketed by the counts to max(ABSTOL, N*EPS*||T||_1) (RANGE 'V':
 * an eigenvalue within that of VL or VU may fall either way), for N up to 2^24. Chosen from
 * N = 65536 on (the dense halves would take 17 GB and more), below that on the GPU for at most
 * 16 eigenvalues from N = 8192 and at most 64 from 16384 (measured: 0.24x to 0.77x of the dense
 * method's time there), on the CPU for at most 64 from 32768, or always / never
 * with GPUEIG_TOEPLITZ_METHOD=structured / dense. Counts it cannot trust (overflow, generator growth) are moved, inconsistent ones never
 * used, and what it cannot settle is recomputed by the dense method; GPUEIG_VERBOSE reports its
 * rounds, evaluations and device memory. Its eigenvectors (JOBZ = 'V') come from the same
 * elimination at each eigenvalue: the identity's rows carried along as the pivots eliminate,
 * replayed one row a thread, give the near-null vectors of each half block (one step of inverse
 * iteration from the elimination's last pivots, O(N) memory a vector), lifted to T's basis by
 * a DST-I, rotated by Rayleigh-Ritz where eigenvalues of a half lie within
 * max(1e-3, 100/N)*||T||_1, and each kept only where ||T*x - W(i)*x||_1 <= 30*N*EPS*||T||_1 by FFT
 * products (else its basis recomputed at the Ritz value, twice at most, then the dense method;
 * the first shift is the search's fit of the determinant inside the eigenvalue's bracket).
 * With vectors, W(i) is the Rayleigh quotient of its vector held within the bracket the counts
 * gave (half the tolerance of the bisection midpoint).
 *
 *  1 JOBZ   [in] 'N': eigenvalues only;  'V': eigenvalues and eigenvectors.
 *  2 RANGE  [in] 'A' all;  'V' those in (VL, VU];  'I' the IL-th through IU-th (ascending).
 *  3 N      [in] order of T, N >= 0.
 *  4 T      [in] (N) first column of T.
 *  5 VL, 6 VU   [in] RANGE = 'V': VL < VU if N > 0 (as DSYEVR: not checked when N = 0).
 *  7 IL, 8 IU   [in] RANGE = 'I': 1 <= IL <= IU <= N if N > 0; IL = 1 and IU = 0 if N = 0.
 *  9 ABSTOL [in] as DSYEVR.
 * 10 M      [out] number of eigenvalues found.
 * 11 W      [out] (N) the eigenvalues W(1..M), ascending.
 * 12 Z      [out] (LDZ, max(1,M)) JOBZ = 'V': orthonormal eigenvectors, column i for W(i).
 *           Not referenced if JOBZ = 'N'.
 * 13 LDZ    [in] LDZ >= 1, and LDZ >= N if JOBZ = 'V'.
 * INFO = 0, -i, or i > 0: an internal error in the eigensolver of a half block (as DSYEVR);
 *        GPUEIG_ERR_MEMORY: a half block does not fit in memory.
 * Deviations: a NaN or infinite entry of T is rejected as an illegal value, INFO = -4; a NaN VL
 * or VU with RANGE = 'V' is rejected with INFO = -6 (DSYEVR would bisect with it).
 * Scale: as DSYEVR scales the dense matrix, T is scaled by a power of two into
 * [sqrt(SAFMIN/EPS), sqrt(EPS/SAFMIN)] when max|t| lies outside it (and VL, VU, ABSTOL with it),
 * so the half blocks cannot overflow and bisection never treats a tiny off-diagonal as zero
 * (with JOBZ = 'V' only a huge T is scaled: the inner DSYEVD / DSYEVR scale a tiny block
 * themselves); eigenvalues beyond DBL_MAX come back as -Inf or +Inf, where DSYEVR's do.
 * VL = -Inf and VU = +Inf are accepted. The workspace of the inner LAPACK calls is sized in 64
 * bits; a half block of order 32767 or more with eigenvectors (RANGE = 'A') is solved by DSYEVR
 * instead of DSYEVD, whose workspace would exceed an LP64 INTEGER.
 * ------------------------------------------------------------------------------------------- */
GPUEIG_API int gpu_toeplitz_eig(char jobz, char range, int n, const double *t, double vl, double vu,
                     int il, int iu, double abstol, int *m, double *w, double *z, int ldz);

/* ---------------------------------------------------------------------------------------------
 * Device-pointer API: the routines on arrays already in GPU memory (CUDA code, CuPy, PyTorch),
 * with no host round trip. Every array argument is a device pointer: memory of the library's
 * device (GPUEIG_DEVICE, default 0) from cudaMalloc, cudaMallocAsync or a pool, or managed
 * memory; its size is not checked (as in LAPACK). STREAM [in] is a cudaStream_t of that device
 * passed as void * (NULL: the legacy default stream). The work is queued on STREAM, in order
 * with the caller's other work there (a routine that forks part of it onto a stream of its own,
 * as getrf's look-ahead does, joins it back to STREAM with events before the call returns, so
 * that work queued on STREAM afterwards follows all of it); the call returns without waiting for
 * it unless the routine says otherwise, and never waits for the whole device. Device workspace comes from the
 * library's stream-ordered pool on STREAM and goes back to it there.
 *
 * Return value, synchronously: 0 (the work is queued); -i (the i-th argument is illegal: the
 * scalars are checked in LAPACK's order, then, with a usable GPU, the array pointers and STREAM,
 * before anything is queued; an array that is not device memory of the library's device, or a
 * stream of another device, is illegal); GPUEIG_ERR_DEVICE (no usable GPU: gpueig_gpu_available()
 * is 0; or a CUDA failure while queuing, outputs then unspecified; GPUEIG_VERBOSE says which). The routine's own INFO (LAPACK's INFO >= 0, and the
 * conditions the host API finds by reading an array, such as an IPIV entry out of range) is
 * written to the device int INFO on STREAM, as cuSOLVER's devInfo. The backend policy does not
 * apply: the data is on the device, and so is the work; there is no CPU fallback (gpu_sytrd_dev
 * recomputes a reduction it cannot trust, gpu_stebz_dev a T whose E(i)^2 overflow and
 * gpu_toeplitz_eig_dev what its GPU method declines, with LAPACK on the host, as documented there).
 * ------------------------------------------------------------------------------------------- */

/* gpu_getrf_dev: gpu_getrf_crout on device memory (LAPACK analogue: DGETRF; cuSOLVER's
 * cusolverDnXgetrf).
 *  1 M, 2 N [in] as gpu_getrf_crout.   3 A [in,out] (LDA, N) device: A = P L U on exit.
 *  4 LDA [in] LDA >= max(1, M).        5 IPIV [out] (min(M, N)) device: 1-based interchanges.
 *  6 INFO [out] device int: DGETRF's INFO (0, or i > 0: U(i,i) is exactly zero), or
 *    GPUEIG_ERR_DEVICE if a wait between the panel kernel's thread blocks timed out (a library
 *    fault, never expected; A and IPIV are then garbage).
 *  7 STREAM [in].
 * M = 0 or N = 0: INFO = 0 (A and IPIV may be NULL). The factorization is the GPU method of
 * gpu_getrf_crout; an A with NaN or Inf entries is factored as it is (the host API hands it to
 * LAPACK instead). Any M: panels of more than 262144 rows are factored by a streaming kernel. */
GPUEIG_API int gpu_getrf_dev(int m, int n, double *a, int lda, int *ipiv, int *info, void *stream);

/* gpu_getrs_dev: gpu_getrs_crout on device memory (DGETRS; cusolverDnXgetrs).
 *  1 TRANS, 2 N, 3 NRHS [in] as gpu_getrs_crout.  4 A [in] (LDA, N) device: the factors.
 *  5 LDA [in] LDA >= max(1, N).   6 IPIV [in] (N) device: DGETRF's interchanges (1-based).
 *  7 B [in,out] (LDB, NRHS) device: B on entry, X on exit.   8 LDB [in] LDB >= max(1, N).
 *  9 INFO [out] device int: 0, or -6 if an IPIV entry is outside 1..N (B untouched then).
 * 10 STREAM [in].
 * N = 0 or NRHS = 0: INFO = 0, nothing else is referenced. The row order is built from IPIV on
 * the device, then two cuBLAS DTRSMs. */
GPUEIG_API int gpu_getrs_dev(char trans, int n, int nrhs, const double *a, int lda, const int *ipiv,
                             double *b, int ldb, int *info, void *stream);

/* gpu_gesv_dev: gpu_gesv_crout on device memory (DGESV; cusolverDnXgetrf + cusolverDnXgetrs).
 *  1 N, 2 NRHS [in].  3 A [in,out] (LDA, N) device: the factors on exit.  4 LDA [in].
 *  5 IPIV [out] (N) device.  6 B [in,out] (LDB, NRHS) device: X on exit if INFO = 0, untouched
 *  otherwise.  7 LDB [in] LDB >= max(1, N).  8 INFO [out] device int: DGETRF's INFO (or
 *  GPUEIG_ERR_DEVICE, as gpu_getrf_dev's).
 *  9 STREAM [in].
 * N = 0: INFO = 0. NRHS = 0 still factors A, as DGESV. */
GPUEIG_API int gpu_gesv_dev(int n, int nrhs, double *a, int lda, int *ipiv, double *b, int ldb,
                            int *info, void *stream);

/* gpu_sytrd_dev: gpu_sytrd_givens on device memory (DSYTRD + DORGTR; cusolverDnXsytrd).
 *  1 VECT, 2 UPLO, 3 N [in] as gpu_sytrd_givens.  4 A [in] (LDA, N) device: triangle UPLO read,
 *  A left unchanged (the reduction works on a copy).  5 LDA [in] LDA >= max(1, N).
 *  6 D [out] (N) device.  7 E [out] (N-1) device.  8 Q [in,out] (LDQ, N) device, as
 *  gpu_sytrd_givens (not referenced for VECT = 'N').  9 LDQ [in] as gpu_sytrd_givens.
 * 10 INFO [out] device int: 0.  11 STREAM [in].
 * N = 0: INFO = 0. The GPU method of gpu_sytrd_givens, with its checks: a triangle with a NaN or
 * an infinite entry, or a reduction that is not finite or does not keep A's Frobenius norm and
 * trace, is recomputed by LAPACK DSYTRD (+ DORGTR) on the host (A, and Q_in for 'U', copied down;
 * D, E, Q copied up), as the host API recomputes it. The call waits for STREAM once, at its end: the
 * checks' verdicts are read on the host (O(N) data), so a NaN in A is found after the reduction
 * (which is then thrown away). Device
 * workspace: N^2 doubles for the copy of A (2 N^2 with Q) and the method's own. */
GPUEIG_API int gpu_sytrd_dev(char vect, char uplo, int n, const double *a, int lda, double *d,
                             double *e, double *q, int ldq, int *info, void *stream);

/* gpu_syevd_dev: gpu_syevd on device memory (DSYEVD; cusolverDnXsyevd).
 *  1 JOBZ, 2 UPLO, 3 N [in] as gpu_syevd.  4 A [in,out] (LDA, N) device: the symmetric matrix
 *  (triangle UPLO) on entry; on exit, JOBZ = 'V': the orthonormal eigenvectors, column j for
 *  W(j); JOBZ = 'N': destroyed, as DSYEVD (this method leaves it unchanged).
 *  5 LDA [in] LDA >= max(1, N).  6 W [out] (N) device: the eigenvalues, ascending.
 *  7 INFO [out] device int: DSYEVD's INFO (0, or > 0 from LAPACK's recompute, as gpu_syevd's).
 *  8 STREAM [in].
 * N = 0: INFO = 0. The GPU method of gpu_syevd (A scaled where DSYEVD scales it, the two-stage
 * reduction with Q formed, divide and conquer, the pairs certified, Q Z by cuBLAS; JOBZ = 'N':
 * bisection on T), on a copy of A in device workspace; W and A are written on the device once
 * every check has passed, W being the host call's to the bit on the same device. The checks'
 * verdicts (A finite, the reduction's invariants, the pairs' two ratios; T for the bisection of
 * JOBZ = 'N') are read on the host, so the call waits for STREAM a few times (and once a level
 * of the divide and conquer tree), and returns with the final copies queued. Where the method
 * declines (NaN or Inf in A, a check that fails, no convergence), LAPACK DSYEVD recomputes on
 * the host: A comes down, W and A (JOBZ = 'V') and INFO go up. JOBZ = 'V' takes N <= 65535
 * (GPUEIG_ERR_DEVICE above, with the reason under GPUEIG_VERBOSE). Device workspace: about
 * 6 N^2 doubles for JOBZ = 'V' (A's copy, Q, Z, the divide and conquer's), N^2 for 'N'. */
GPUEIG_API int gpu_syevd_dev(char jobz, char uplo, int n, double *a, int lda, double *w, int *info,
                             void *stream);

/* gpu_syevx_dev: gpu_syevx on device memory (DSYEVX; cusolverDnXsyevdx).
 *  1 JOBZ .. 11 ABSTOL [in] as gpu_syevx (5 A (LDA, N) device: triangle UPLO read; on exit
 *    destroyed, as DSYEVX: this method leaves it unchanged for a subset and puts the eigenvectors
 *    there for the whole spectrum).
 * 12 M [out] host int: as gpu_syevx (0 when the call returns non-zero).
 * 13 W (N) [out] device: W(1..M) ascending.  14 Z (LDZ, max(1,M)) [out] device, JOBZ = 'V' (not
 *    referenced for 'N').  15 LDZ [in] as gpu_syevx.
 * 16 IFAIL (N) [out] device, JOBZ = 'V': IFAIL(1..M) as gpu_syevx's.
 * 17 INFO [out] device int: DSYEVX's INFO (0, or i > 0 vectors that failed, from LAPACK's
 *    recompute).  18 STREAM [in].
 * N = 0: M = 0, INFO = 0. The GPU method of gpu_syevx: the whole spectrum by gpu_syevd_dev's (the
 * vectors copied into Z); a subset: A's triangle copied into device workspace, scaled where
 * DSYEVX scales it, reduced with Q kept as the reduction's blocks, the wanted eigenvalues by GPU
 * bisection and their vectors by gpu_stein's method on T in device memory, the pairs checked on
 * the device, Q applied to the M vectors, which are copied into Z. The checks' verdicts and
 * DSTEBZ's bookkeeping are read on the host (O(N) data), so the call waits for STREAM; W goes up
 * at the end. gpu_syevx's documented deviations hold (NaN or Inf in A: NaN eigenvalues; (VL, VU]
 * collapsing in DSYEVX's scaling: M = 0; IFAIL(1) for N = 1). Where the method declines (NaN or
 * Inf in A, a check that fails, no convergence) and for N = 1, gpu_syevx's CPU path runs on a
 * host copy of A (A comes down; W, Z, IFAIL and INFO go up). N <= 65535 (GPUEIG_ERR_DEVICE
 * above). Device workspace: about 3 N^2 doubles for a subset (A's copy, the reduction's blocks),
 * plus 3 N M for the vectors; gpu_syevd_dev's for the whole spectrum. */
GPUEIG_API int gpu_syevx_dev(char jobz, char range, char uplo, int n, double *a, int lda, double vl, double vu,
                             int il, int iu, double abstol, int *m, double *w, double *z, int ldz, int *ifail,
                             int *info, void *stream);

/* gpu_stebz_dev: gpu_stebz on device memory (DSTEBZ).
 *  1 RANGE .. 8 ABSTOL [in] as gpu_stebz.   9 D (N), 10 E (N-1) [in] device: left unchanged.
 * 11 M, 12 NSPLIT [out] host ints: as gpu_stebz (0 when INFO < 0).
 * 13 W (N), 14 IBLOCK (N), 15 ISPLIT (N) [out] device: as gpu_stebz, W(1..M), IBLOCK(1..M),
 *    ISPLIT(1..NSPLIT) written.
 * 16 INFO [out] device int: DSTEBZ's INFO (0..4), or -9 (-10) for a NaN or infinite entry of D
 *    (E), as gpu_stebz returns them (nothing else written then).  17 STREAM [in].
 * N = 0: M = NSPLIT = 0, INFO = 0. The method of gpu_stebz: DSTEBZ's O(N) bookkeeping on the
 * host, every wanted eigenvalue bracketed on the device. So the call waits for STREAM: D and E
 * come down first (2N doubles), the outputs go up at the end (queued on STREAM; the call returns
 * without waiting for them). Where DSTEBZ's own arithmetic must answer (some E(i)^2 overflows),
 * LAPACK DSTEBZ runs on the host copies. Device workspace: O(N). */
GPUEIG_API int gpu_stebz_dev(char range, char order, int n, double vl, double vu, int il, int iu,
                             double abstol, const double *d, const double *e, int *m, int *nsplit,
                             double *w, int *iblock, int *isplit, int *info, void *stream);

/* gpu_stein_dev: gpu_stein on device memory (DSTEIN).
 *  1 N [in].  2 D (N), 3 E (N-1) [in] device.  4 M [in] 0 <= M <= N.
 *  5 W (M), 6 IBLOCK (M), 7 ISPLIT (N) [in] device: as gpu_stein.
 *  8 Z [out] (LDZ, M) device.  9 LDZ [in] LDZ >= max(1, N).  10 IFAIL [out] (M) device.
 * 11 INFO [out] device int: gpu_stein's INFO (0, or i > 0 vectors that failed), or the negative
 *    INFO gpu_stein returns for data it rejects (-2 D, -3 E, -5 W not finite or not ascending
 *    within a block, -6 IBLOCK, -7 ISPLIT), Z and IFAIL unwritten then.  12 STREAM [in].
 * N = 0 or M = 0: INFO = 0, no array but INFO referenced. The method of gpu_stein: D, E, W,
 * IBLOCK and ISPLIT come down (O(N) data: the clusters are planned on the host, so the call waits
 * for STREAM), T and W are scaled as gpu_stein scales them, and the vectors are computed into Z on
 * the device; IFAIL and INFO are written on the device. Where a cluster's vectors are first
 * computed independently (a few eigenvalues over a long block), their Gram matrix's column sums
 * come down to decide whether they stand, and where a cluster ran Gram-Schmidt its convergence
 * flags come down to decide whether its block is recomputed: the call waits for STREAM again. Device workspace:
 * about 4 N doubles for each vector or cluster computed at once (at most 1024 of them), and for a
 * cluster solved by divide and conquer its block's. */
GPUEIG_API int gpu_stein_dev(int n, const double *d, const double *e, int m, const double *w,
                             const int *iblock, const int *isplit, double *z, int ldz, int *ifail,
                             int *info, void *stream);

/* gpu_toeplitz_eig_dev: gpu_toeplitz_eig on device memory.
 *  1 JOBZ .. 9 ABSTOL [in] as gpu_toeplitz_eig (4 T (N) device, left unchanged).
 * 10 M [out] host int: as gpu_toeplitz_eig (0 when INFO != 0).
 * 11 W (N) [out] device.  12 Z (LDZ, max(1,M)) [out] device, JOBZ = 'V' (not referenced for 'N').
 * 13 LDZ [in] as gpu_toeplitz_eig.
 * 14 INFO [out] device int: gpu_toeplitz_eig's INFO >= 0, or -4 for a NaN or infinite entry of T
 *    (as gpu_toeplitz_eig returns it; nothing else written then).  15 STREAM [in].
 * N = 0: M = 0, INFO = 0. The method of gpu_toeplitz_eig on a host copy of t: t comes down (the
 * call waits for STREAM), the half blocks are formed, reduced and bisected on the GPU on the
 * library's own streams while the call waits, and W goes up on STREAM. JOBZ = 'V' is the host
 * call's method too: the half blocks' eigenvectors are lifted on the host and Z (N x M) goes up,
 * so it costs a host round trip of Z. Where the GPU method declines, LAPACK's method runs on the
 * host copy, as in the host call. */
GPUEIG_API int gpu_toeplitz_eig_dev(char jobz, char range, int n, const double *t, double vl, double vu,
                                    int il, int iu, double abstol, int *m, double *w, double *z, int ldz,
                                    int *info, void *stream);

/* gpu_gtsv_dev: gpu_gtsv_pcr on device memory (DGTSV; cuSPARSE's cusparseDgtsv2).
 *  1 N, 2 NRHS [in] as gpu_gtsv_pcr.  3 DL (N-1), 4 D (N), 5 DU (N-1) [in] device: left
 *  unchanged.  6 B [in,out] (LDB, NRHS) device: X on exit (if INFO = 0; as DGTSV leaves it if
 *  INFO > 0).  7 LDB [in] LDB >= max(1, N).  8 INFO [out] device int: DGTSV's INFO.  9 STREAM [in].
 * N = 0: INFO = 0. NRHS = 0: the matrix is factored on the device for INFO alone, B is not
 * referenced. The method of gpu_gtsv_pcr (elimination without pivoting, every column's residual
 * checked); when a column fails its check, every column is solved again on the device by
 * DGTSV's own partial pivoting, so B and INFO are DGTSV's then. Except one right-hand side, or
 * N > 2048: each such column is first solved again in parallel (one right-hand side with
 * N <= 4096 by its block in shared memory, N <= 131072 by a block a column, past that by the
 * whole GPU a column at a time), with partial pivoting inside chunks of rows and a pivoted solve
 * of the rows between them, and kept if it passes the same check (INFO = 0; X of LAPACK's
 * accuracy, not DGTSV's bits); a zero pivot there or a failed check sends it to DGTSV's algorithm
 * (B and INFO DGTSV's for a singular matrix). X is made
 * in place: with N <= 4096 and NRHS = 1 the solve, its check and any re-solve are one kernel and
 * need no workspace; otherwise B is saved in
 * stream-ordered workspace (N x NRHS doubles; for one right-hand side, or N > 131072, about 8 N
 * more, the re-solve's; otherwise up to 64 MiB, at least 6 N doubles) as it is read for the last
 * time, for the re-solve. */
GPUEIG_API int gpu_gtsv_dev(int n, int nrhs, const double *dl, const double *d, const double *du,
                            double *b, int ldb, int *info, void *stream);

/* gpu_gtsv_batch_dev: gpu_gtsv_pcr_batch on device memory (cusparseDgtsv2StridedBatch).
 *  1 N, 2 BATCH [in].  3 DL, 4 D, 5 DU [in] device, 6 B [in,out] device: as gpu_gtsv_pcr_batch,
 *  system k at offset k*STRIDE.  7 STRIDE [in] STRIDE >= max(1, N).  8 INFO [out] device int:
 *  gpu_gtsv_pcr_batch's INFO (0, or k*N + i for the first system k that DGTSV finds singular at
 *  U(i,i); INT_MAX if that does not fit an int).  9 STREAM [in].
 * N = 0 or BATCH = 0: INFO = 0. A system that fails its check is solved again on the device by
 * DGTSV's partial pivoting (its B as DGTSV leaves it); with N > 2048 first in parallel, as
 * gpu_gtsv_dev's columns (kept, INFO 0 for it, if that passes the check). X is made in place: with N <= 2048 each
 * system is solved, checked and re-solved by one thread group and no workspace is taken;
 * otherwise B is saved in stream-ordered workspace (N x BATCH doubles) for the re-solve. */
GPUEIG_API int gpu_gtsv_batch_dev(int n, int batch, const double *dl, const double *d, const double *du,
                                  double *b, int stride, int *info, void *stream);

/* ---------------------------------------------------------------------------------------------
 * Utilities.
 * ------------------------------------------------------------------------------------------- */

/* Library version, "MAJOR.MINOR.PATCH". */
GPUEIG_API const char *gpueig_version(void);

/* 1 if this build has CUDA and the selected device (GPUEIG_DEVICE, default 0) is usable, else 0. */
GPUEIG_API int gpueig_gpu_available(void);

/* Backend used by the calling thread's last completed call: "gpu", "cpu", or "none" (no call
 * yet, or the last call returned before computing: illegal argument or quick return). */
GPUEIG_API const char *gpueig_last_backend(void);

/* Set the process-wide backend policy NAME [in]: "auto" (GPU above each routine's crossover size
 * when a GPU is usable, else CPU), "gpu" (GPU at every size where the routine has a GPU method;
 * a device failure returns GPUEIG_ERR_DEVICE), or "cpu". The initial policy comes from the
 * environment variable GPUEIG_BACKEND (default "auto"). Names are matched case-insensitively.
 * Returns 0, or -1 for an unknown name or NULL (the policy is then unchanged). */
GPUEIG_API int gpueig_set_backend(const char *name);

/* The backend a call of ROUTINE [in] ("sytrd", "stebz", "gtsv", "getrf", "toeplitz", "gesv",
 * "getrs", "stein", "syevd" or "syevx", lower case) of problem size SIZE [in] (N; for getrf
 * the order of the square matrix whose LU takes as many flops as M x N's, discounted to 0.64x
 * when M != N and min(M,N) < 128, which is N for a square N; M, the eigenvectors wanted, for stein; N*BATCH for gpu_gtsv_pcr_batch) would use under the current policy: "gpu" or "cpu" (NULL for an unknown routine or NULL). "gpu" means
 * the GPU is tried first; a failure there still falls back. */
GPUEIG_API const char *gpueig_backend_for(const char *routine, long long size);

/* Why gpueig_backend_for(ROUTINE [in], SIZE [in]) answers as it does, in words: "auto", "policy
 * cpu", "below crossover 128", "no usable GPU: <reason>", "no GPU method for this routine yet"
 * (NULL for an unknown routine or NULL). The string stays valid until the calling thread's next
 * call of this function. */
GPUEIG_API const char *gpueig_backend_reason(const char *routine, long long size);

/* A multi-line, human-readable description of this build and its run-time state: version,
 * CUDA build, LAPACK library, devices, backend policy, and each routine's GPU method and
 * crossover size. The string stays valid until the calling thread's next call of this function. */
GPUEIG_API const char *gpueig_info(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUEIG_H */
