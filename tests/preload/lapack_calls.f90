! An ordinary Fortran LAPACK program, linked against the system LAPACK only (the twin of
! lapack_calls.c): the LD_PRELOAD test runs it with and without libgpueig_lapack.so and compares
! the output, printed to 8 significant digits. Argument: the size of the dgtsv system.
program lapack_calls
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  integer :: info, n, m, nsplit, i, j, lwork, liwork, t
  integer, allocatable :: ipiv(:), iblock(:), isplit(:), iwork(:), p(:)
  real(dp), allocatable :: a(:, :), dl(:), d(:), du(:), b(:), td(:), te(:), w(:), work(:)
  real(dp), allocatable :: rhs(:, :), g(:, :), zv(:, :), work5(:)
  integer, allocatable :: iwn(:), ifail(:), isuppz(:)
  character, parameter :: trans(2) = ['N', 'T']
  character(len=32) :: arg
  integer(8) :: state = 12345_8

  n = 40
  allocate(a(n, n), ipiv(n))
  do j = 1, n
    do i = 1, n
      a(i, j) = next()
    end do
  end do
  call dgetrf(n, n, a, n, ipiv, info)
  print '("dgetrf info=", i0, " ipiv(1:5)=", 5(1x, i0), " log|det|=", es16.8)', info, ipiv(1:5), &
        sum([(log(abs(a(i, i))), i = 1, n)])

  ! dgetrs with those factors, A x = b and A**T x = b, two right-hand sides each
  allocate(rhs(n, 2))
  do t = 1, 2
    do j = 1, 2
      do i = 1, n
        rhs(i, j) = next()
      end do
    end do
    call dgetrs(trans(t), n, 2, a, n, ipiv, rhs, n, info)
    print '("dgetrs TRANS=", a, " info=", i0, " x(1:4)=", 4es16.8)', trans(t), info, rhs(1:4, 1)
  end do

  ! dgesv: n = 600 (above auto's crossover: the GPU factors it where there is one), 3 rhs
  n = 600
  deallocate(rhs)
  allocate(g(n, n), rhs(n, 3), p(n))
  do j = 1, n
    do i = 1, n
      g(i, j) = next()
    end do
  end do
  do j = 1, 3
    do i = 1, n
      rhs(i, j) = next()
    end do
  end do
  call dgesv(n, 3, g, n, p, rhs, n, info)
  print '("dgesv info=", i0, " ipiv(1:3)=", 3(1x, i0), " sum(x)=", es16.8, " x(1:4)=", 4es16.8)', &
        info, p(1:3), sum(rhs), rhs(1:4, 1)

  n = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  allocate(dl(n), d(n), du(n), b(n))
  do i = 1, n
    dl(i) = next(); du(i) = next(); d(i) = 3.0_dp + next(); b(i) = next()
  end do
  call dgtsv(n, 1, dl, d, du, b, n, info)
  print '("dgtsv n=", i0, " info=", i0, " sum(x)=", es16.8, " x(1:4)=", 4es16.8)', n, info, sum(b), b(1:4)

  n = 200
  allocate(td(n), te(n), w(n), work(4 * n), iblock(n), isplit(n), iwork(3 * n))
  do i = 1, n
    td(i) = next(); te(i) = next()
  end do
  call dstebz('I', 'E', n, 0.0_dp, 0.0_dp, 1, 10, 0.0_dp, td, te, m, nsplit, w, iblock, isplit, &
              work, iwork, info)
  print '("dstebz info=", i0, " m=", i0, " nsplit=", i0, " w=", 10es16.8)', info, m, nsplit, w(1:m)
  allocate(zv(n, m), work5(5 * n), iwn(n), ifail(m))
  call dstein(n, td, te, m, w, iblock, isplit, zv, n, work5, iwn, ifail, info)
  print '("dstein info=", i0, " z(1:4,1)=", 4es16.8)', info, zv(1:4, 1)
  call dsterf(n, td, te, info)
  print '("dsterf info=", i0, " w(1:5)=", 5es16.8, " w(n-2:n)=", 3es16.8)', info, td(1:5), td(n-2:n)

  n = 60
  lwork = 1 + 6 * n + 2 * n * n
  liwork = 3 + 5 * n
  deallocate(a, work, iwork)
  allocate(a(n, n), work(lwork), iwork(liwork))
  call symmetric(a)
  call dsyevd('N', 'L', n, a, n, w, work, lwork, iwork, liwork, info)
  print '("dsyevd JOBZ=N info=", i0, " w(1:6)=", 6es16.8)', info, w(1:6)
  call symmetric(a)
  call dsyevd('V', 'U', n, a, n, w, work, lwork, iwork, liwork, info)
  print '("dsyevd JOBZ=V info=", i0, " |z(1,1)|=", es16.8, " w(1:6)=", 6es16.8)', info, abs(a(1, 1)), w(1:6)
  call symmetric(a)
  call dsyev('N', 'U', n, a, n, w, work, lwork, info)
  print '("dsyev JOBZ=N info=", i0, " w(n-2:n)=", 3es16.8)', info, w(n-2:n)

  ! dsyevx: the 6 smallest eigenpairs (into zv, n x 6; ifail has room for them)
  deallocate(zv, ifail, iwork)
  allocate(zv(n, 6), ifail(n), iwork(5 * n))
  call symmetric(a)
  call dsyevx('V', 'I', 'L', n, a, n, 0.0_dp, 0.0_dp, 1, 6, 0.0_dp, m, w, zv, n, work, lwork, &
              iwork, ifail, info)
  print '("dsyevx RANGE=I info=", i0, " m=", i0, " |z(1,1)|=", es16.8, " w(1:6)=", 6es16.8)', &
        info, m, abs(zv(1, 1)), w(1:6)

  ! dsyevr: all eigenpairs (ISUPPZ filled), then the eigenvalues in (-1, 1]
  deallocate(zv, iwork)
  allocate(zv(n, n), isuppz(2 * n), iwork(10 * n))
  call symmetric(a)
  call dsyevr('V', 'A', 'U', n, a, n, 0.0_dp, 0.0_dp, 1, 6, 0.0_dp, m, w, zv, n, isuppz, work, &
              26 * n, iwork, 10 * n, info)
  print '("dsyevr RANGE=A info=", i0, " m=", i0, " isuppz(1:2)=", 2i4, " |z(1,1)|=", es16.8, &
        & " w(1:6)=", 6es16.8)', info, m, isuppz(1:2), abs(zv(1, 1)), w(1:6)
  call symmetric(a)
  call dsyevr('N', 'V', 'L', n, a, n, -1.0_dp, 1.0_dp, 1, 6, 0.0_dp, m, w, zv, n, isuppz, work, &
              26 * n, iwork, 10 * n, info)
  print '("dsyevr RANGE=V info=", i0, " m=", i0, " w(1:3)=", 3es16.8)', info, m, w(1:3)

  call dgetrf(-1, 1, a, 1, ipiv, info)
  print '("dgetrf(m=-1) info=", i0)', info

contains

  ! Uniform in [-1, 1) from a 64-bit LCG (wrapping arithmetic, the same sequence everywhere).
  real(dp) function next()
    state = state * 6364136223846793005_8 + 1442695040888963407_8
    next = real(ishft(state, -11), dp) / 4503599627370496.0_dp - 1.0_dp
  end function

  subroutine symmetric(s)
    real(dp), intent(out) :: s(:, :)
    integer :: p, q
    do q = 1, size(s, 2)
      do p = q, size(s, 1)
        s(p, q) = next()
        s(q, p) = s(p, q)
      end do
    end do
  end subroutine

end program lapack_calls
