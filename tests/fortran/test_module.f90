! The Fortran module `gpueig`: every public routine called from Fortran on small problems and
! checked against LAPACK called from the same program. Exits with status 1 on any failure.
program test_module
  use gpueig
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: eps = epsilon(1.0_dp)
  integer :: failures = 0, checks = 0

  call check_version_and_backend()
  call check_gtsv()
  call check_getrf()
  call check_gesv()
  call check_stein()
  call check_stebz()
  call check_sytrd()
  call check_syevd()
  call check_toeplitz()
  print '(i0, " passed, ", i0, " failed")', checks - failures, failures
  if (failures > 0) error stop 1

contains

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      print '("FAILED: ", a)', what
    end if
  end subroutine

  subroutine fill(x, seed)
    real(dp), intent(out) :: x(:)
    integer, intent(in) :: seed
    integer :: i
    do i = 1, size(x)
      x(i) = sin(real(seed * 7919 + i * 104729, dp))
    end do
  end subroutine

  subroutine check_version_and_backend()
    call expect(gpueig_string(gpueig_version()) == '0.1.0', 'gpueig_version')
    call expect(gpueig_set_backend('cpu' // c_null_char) == 0, 'set_backend cpu')
    call expect(gpueig_set_backend('nonsense' // c_null_char) == -1, 'set_backend rejects names')
    call expect(index(gpueig_string(gpueig_info()), 'backend policy: cpu') > 0, 'info shows policy')
    call expect(gpueig_string(gpueig_backend_for('gtsv' // c_null_char, 10_8)) == 'cpu', &
                'backend_for')
  end subroutine

  subroutine check_gtsv()
    integer, parameter :: n = 50, nrhs = 2
    real(dp) :: dl(n-1), d(n), du(n-1), b(n, nrhs), x(n, nrhs)
    real(dp) :: dl2(n-1), d2(n), du2(n-1)
    integer :: info, info_ref
    call fill(dl, 1); call fill(du, 2); call fill(d, 3); d = d + 3.0_dp
    call fill(b(:, 1), 4); call fill(b(:, 2), 5)
    x = b
    info = gpu_gtsv_pcr(n, nrhs, dl, d, du, x, n)
    dl2 = dl; d2 = d; du2 = du
    call dgtsv(n, nrhs, dl2, d2, du2, b, n, info_ref)
    call expect(info == 0 .and. info_ref == 0, 'gtsv info')
    call expect(maxval(abs(x - b)) <= 100 * eps * maxval(abs(b)), 'gtsv matches dgtsv')
    call expect(gpu_gtsv_pcr(n, nrhs, dl, d, du, x, n - 1) == -7, 'gtsv ldb check')
    call check_gtsv_batch()
  end subroutine

  ! Three systems of order 20 at stride 23 in one set of arrays; the second one singular.
  subroutine check_gtsv_batch()
    integer, parameter :: n = 20, batch = 3, stride = 23
    real(dp) :: dl(stride * batch), d(stride * batch), du(stride * batch), b(stride * batch)
    real(dp) :: x(stride * batch), dl2(n-1), d2(n), du2(n-1), bk(n)
    integer :: info, info_ref, k, o
    call fill(dl, 11); call fill(du, 12); call fill(d, 13); d = d + 3.0_dp
    call fill(b, 14)
    d(stride + 5) = 0.0_dp; dl(stride + 4) = 0.0_dp; dl(stride + 5) = 0.0_dp
    du(stride + 4) = 0.0_dp; du(stride + 5) = 0.0_dp
    x = b
    info = gpu_gtsv_pcr_batch(n, batch, dl, d, du, x, stride)
    do k = 0, batch - 1
      o = k * stride
      dl2 = dl(o+1:o+n-1); d2 = d(o+1:o+n); du2 = du(o+1:o+n-1); bk = b(o+1:o+n)
      call dgtsv(n, 1, dl2, d2, du2, bk, n, info_ref)
      if (k == 1) then
        call expect(info_ref == 5 .and. info == 1 * n + 5, 'gtsv_batch info encodes system 1, row 5')
      else
        call expect(info_ref == 0, 'gtsv_batch reference')
        call expect(maxval(abs(x(o+1:o+n) - bk)) <= 100 * eps * maxval(abs(bk)), &
                    'gtsv_batch matches dgtsv')
      end if
    end do
    call expect(gpu_gtsv_pcr_batch(n, batch, dl, d, du, x, n - 1) == -7, 'gtsv_batch stride check')
  end subroutine

  subroutine check_getrf()
    integer, parameter :: m = 30, n = 20
    real(dp) :: a(m, n), lu(m, n)
    integer :: ipiv(n), ipiv_ref(n), info, info_ref, j
    do j = 1, n
      call fill(a(:, j), 6 + j)
    end do
    lu = a
    info = gpu_getrf_crout(m, n, lu, m, ipiv)
    call dgetrf(m, n, a, m, ipiv_ref, info_ref)
    call expect(info == info_ref, 'getrf info')
    call expect(all(ipiv == ipiv_ref), 'getrf ipiv')
    call expect(maxval(abs(lu - a)) <= 100 * eps * maxval(abs(a)), 'getrf factors match dgetrf')
    call expect(gpu_getrf_crout(m, n, lu, m - 1, ipiv) == -4, 'getrf lda check')
  end subroutine

  subroutine check_gesv()
    integer, parameter :: n = 25, nrhs = 3
    real(dp) :: a(n, n), lu(n, n), b(n, nrhs), x(n, nrhs), xt(n, nrhs)
    integer :: ipiv(n), j
    do j = 1, n
      call fill(a(:, j), 40 + j)
    end do
    do j = 1, nrhs
      call fill(b(:, j), 90 + j)
    end do
    lu = a
    x = b
    call expect(gpu_gesv_crout(n, nrhs, lu, n, ipiv, x, n) == 0, 'gesv info')
    call expect(maxval(abs(matmul(a, x) - b)) <= 1000 * eps * maxval(abs(x)) * n, 'gesv residual')
    xt = b
    call expect(gpu_getrs_crout('T', n, nrhs, lu, n, ipiv, xt, n) == 0, 'getrs info')
    call expect(maxval(abs(matmul(transpose(a), xt) - b)) <= 1000 * eps * maxval(abs(xt)) * n, &
                'getrs TRANS=T residual')
    call expect(gpu_gesv_crout(n, nrhs, lu, n, ipiv, x, n - 1) == -7, 'gesv ldb check')
    call expect(gpu_getrs_crout('X', n, nrhs, lu, n, ipiv, x, n) == -1, 'getrs trans check')
  end subroutine

  subroutine check_stein()
    integer, parameter :: n = 30
    real(dp) :: d(n), e(n-1), w(n), work(5*n), z(n, n), zr(n, n), t(n, n)
    integer :: iblock(n), isplit(n), iwork(3*n), ifail(n), ifail_ref(n), m, nsplit, info, info_ref, j
    call fill(d, 71)
    call fill(e, 72)
    call dstebz('A', 'B', n, 0.0_dp, 0.0_dp, 0, 0, 0.0_dp, d, e, m, nsplit, w, iblock, isplit, &
                work, iwork, info)
    call expect(info == 0 .and. m == n, 'stein: dstebz')
    info = gpu_stein(n, d, e, m, w, iblock, isplit, z, n, ifail)
    call dstein(n, d, e, m, w, iblock, isplit, zr, n, work, iwork, ifail_ref, info_ref)
    call expect(info == info_ref .and. all(ifail(1:m) == ifail_ref(1:m)), 'stein info and ifail')
    t = 0
    do j = 1, n
      t(j, j) = d(j)
      if (j < n) then
        t(j, j + 1) = e(j)
        t(j + 1, j) = e(j)
      end if
    end do
    call expect(maxval(abs(matmul(t, z) - z * spread(w, 1, n))) <= 100 * n * eps, 'stein residual')
    call expect(gpu_stein(n, d, e, m, w, iblock, isplit, z, n - 1, ifail) == -9, 'stein ldz check')
  end subroutine

  subroutine check_stebz()
    integer, parameter :: n = 40
    real(dp) :: d(n), e(n-1), w(n), w_ref(n), work(4*n)
    integer :: iblock(n), isplit(n), ib_ref(n), is_ref(n), iwork(3*n)
    integer :: m, nsplit, m_ref, ns_ref, info, info_ref
    call fill(d, 7); call fill(e, 8)
    info = gpu_stebz('I', 'E', n, 0.0_dp, 0.0_dp, 3, 12, 0.0_dp, d, e, m, nsplit, w, iblock, isplit)
    call dstebz('I', 'E', n, 0.0_dp, 0.0_dp, 3, 12, 0.0_dp, d, e, m_ref, ns_ref, w_ref, ib_ref, &
                is_ref, work, iwork, info_ref)
    call expect(info == info_ref .and. m == m_ref .and. nsplit == ns_ref, 'stebz counts')
    call expect(all(iblock(1:m) == ib_ref(1:m)), 'stebz iblock')
    call expect(maxval(abs(w(1:m) - w_ref(1:m))) <= 8 * eps * 3, 'stebz eigenvalues')
  end subroutine

  subroutine check_syevd()
    integer, parameter :: n = 27
    real(dp) :: a(n, n), a0(n, n), w(n), w_ref(n), work(1 + 6*n + 2*n*n)
    integer :: iwork(3 + 5*n), info, info_ref, j
    call fill(a0(:, 1), 91)
    do j = 1, n
      call fill(a0(:, j), 91 + j)
    end do
    a0 = a0 + transpose(a0)
    a = a0
    info = gpu_syevd('V', 'L', n, a, n, w)
    call expect(info == 0, 'syevd info')
    call expect(maxval(abs(matmul(a0, a) - a * spread(w, 1, n))) <= 100 * n * eps * maxval(abs(w)), &
                'syevd residual')
    call expect(maxval(abs(matmul(transpose(a), a) - identity(n))) <= 100 * n * eps, 'syevd orthogonality')
    a = a0
    call dsyevd('N', 'L', n, a, n, w_ref, work, size(work), iwork, size(iwork), info_ref)
    call expect(info_ref == 0 .and. maxval(abs(w - w_ref)) <= 100 * n * eps * maxval(abs(w_ref)), &
                'syevd eigenvalues')
    call expect(gpu_syevd('V', 'L', n, a, n - 1, w) == -5, 'syevd lda check')
    call check_syevx(a0, w_ref)
  end subroutine

  ! gpu_syevx: the 5 smallest eigenpairs of a0 (eigenvalues w_ref, ascending)
  subroutine check_syevx(a0, w_ref)
    real(dp), intent(in) :: a0(:, :), w_ref(:)
    integer :: n, m, info, ifail(size(w_ref))
    real(dp) :: a(size(a0, 1), size(a0, 2)), w(size(w_ref)), z(size(a0, 1), 5)
    n = size(a0, 1)
    a = a0
    info = gpu_syevx('V', 'I', 'U', n, a, n, 0.0_dp, 0.0_dp, 1, 5, 0.0_dp, m, w, z, n, ifail)
    call expect(info == 0 .and. m == 5, 'syevx info, m')
    call expect(maxval(abs(w(1:5) - w_ref(1:5))) <= 100 * n * eps * maxval(abs(w_ref)), 'syevx eigenvalues')
    call expect(maxval(abs(matmul(a0, z) - z * spread(w(1:5), 1, n))) <= 100 * n * eps * maxval(abs(w_ref)), &
                'syevx residual')
    call expect(maxval(abs(matmul(transpose(z), z) - identity(5))) <= 100 * n * eps, 'syevx orthogonality')
    call expect(all(ifail(1:5) == 0), 'syevx ifail')
    call expect(gpu_syevx('V', 'I', 'U', n, a, n, 0.0_dp, 0.0_dp, 1, n + 1, 0.0_dp, m, w, z, n, ifail) == -10, &
                'syevx iu check')
  end subroutine

  function identity(n) result(id)
    integer, intent(in) :: n
    real(dp) :: id(n, n)
    integer :: j
    id = 0
    do j = 1, n
      id(j, j) = 1
    end do
  end function

  subroutine check_sytrd()
    integer, parameter :: n = 25
    real(dp) :: a(n, n), a0(n, n), q(n, n), d(n), e(n-1), w(n), work(1 + 6*n + 2*n*n)
    integer :: iwork(3 + 5*n), info, i, j
    do j = 1, n
      do i = j, n
        a(i, j) = sin(real(i * 17 + j * 3, dp))
        a(j, i) = a(i, j)
      end do
    end do
    a0 = a
    info = gpu_sytrd_givens('V', 'L', n, a, n, d, e, q, n)
    call expect(info == 0, 'sytrd info')
    ! Q^T A Q must be the tridiagonal T.
    a = matmul(transpose(q), matmul(a0, q))
    do i = 1, n
      a(i, i) = a(i, i) - d(i)
      if (i < n) then
        a(i + 1, i) = a(i + 1, i) - e(i)
        a(i, i + 1) = a(i, i + 1) - e(i)
      end if
    end do
    call expect(maxval(abs(a)) <= 30 * n * eps * maxval(abs(a0)) * n, 'sytrd Q^T A Q = T')
    call dsterf(n, d, e, info)
    a = a0
    call dsyevd('N', 'L', n, a, n, w, work, size(work), iwork, size(iwork), info)
    call expect(maxval(abs(d - w)) <= 30 * n * eps * maxval(abs(w)), 'sytrd eigenvalues')
  end subroutine

  subroutine check_toeplitz()
    integer, parameter :: n = 33
    real(dp) :: t(n), dense(n, n), w(n), w_ref(n), z(n, n), work(1 + 6*n + 2*n*n)
    integer :: iwork(3 + 5*n), info, m, i, j
    do i = 1, n
      t(i) = 0.5_dp ** (i - 1)
    end do
    do j = 1, n
      do i = 1, n
        dense(i, j) = t(abs(i - j) + 1)
      end do
    end do
    info = gpu_toeplitz_eig('V', 'A', n, t, 0.0_dp, 0.0_dp, 0, 0, 0.0_dp, m, w, z, n)
    call expect(info == 0 .and. m == n, 'toeplitz info and count')
    call expect(maxval(abs(matmul(dense, z) - z * spread(w, 1, n))) <= 30 * n * eps * 3, &
                'toeplitz eigenvectors')
    call dsyevd('N', 'L', n, dense, n, w_ref, work, size(work), iwork, size(iwork), info)
    call expect(maxval(abs(w - w_ref)) <= 30 * n * eps * 3, 'toeplitz eigenvalues match dsyevd')
    call expect(gpu_toeplitz_eig('N', 'A', n, t, 0.0_dp, 0.0_dp, 0, 0, 0.0_dp, m, w, z, 0) == -13, &
                'toeplitz ldz check')
  end subroutine

end program test_module
