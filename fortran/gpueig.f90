! Fortran 2003 interfaces to libgpueig (include/gpueig.h), through ISO_C_BINDING.
!
!   use gpueig
!   info = gpu_stebz('A', 'E', n, vl, vu, il, iu, abstol, d, e, m, nsplit, w, iblock, isplit)
!
! Scalars are passed by value (characters as character(kind=c_char), integers as c_int), arrays
! as assumed-size arrays; the return value is LAPACK's INFO. Index outputs (IPIV, IBLOCK, ISPLIT)
! are 1-based, as in LAPACK. Strings returned by the library are C pointers: gpueig_string()
! turns one into a Fortran string. gpueig_set_backend needs a NUL-terminated name:
!   info = gpueig_set_backend('cpu' // c_null_char)
module gpueig
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_ptr, c_long_long, &
                                         c_null_char, c_associated, c_f_pointer, c_size_t
  implicit none
  private
  public :: gpu_sytrd_givens, gpu_stebz, gpu_gtsv_pcr, gpu_gtsv_pcr_batch, gpu_getrf_crout, &
            gpu_getrs_crout, gpu_gesv_crout, gpu_stein, gpu_syevd, gpu_syevx, gpu_toeplitz_eig
  public :: gpueig_version, gpueig_gpu_available, gpueig_last_backend, gpueig_set_backend
  public :: gpueig_backend_for, gpueig_backend_reason, gpueig_info, gpueig_string
  public :: GPUEIG_ERR_DEVICE, GPUEIG_ERR_LAPACK, GPUEIG_ERR_MEMORY, GPUEIG_ERR_INTERNAL, c_null_char

  integer(c_int), parameter :: GPUEIG_ERR_DEVICE = -1001
  integer(c_int), parameter :: GPUEIG_ERR_LAPACK = -1002
  integer(c_int), parameter :: GPUEIG_ERR_MEMORY = -1003
  integer(c_int), parameter :: GPUEIG_ERR_INTERNAL = -1004

  interface
    integer(c_int) function gpu_sytrd_givens(vect, uplo, n, a, lda, d, e, q, ldq) &
        bind(C, name='gpu_sytrd_givens')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: vect, uplo
      integer(c_int), value :: n, lda, ldq
      real(c_double), intent(inout) :: a(*), q(*)
      real(c_double), intent(out) :: d(*), e(*)
    end function

    integer(c_int) function gpu_stebz(range, order, n, vl, vu, il, iu, abstol, d, e, m, nsplit, &
                                      w, iblock, isplit) bind(C, name='gpu_stebz')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: range, order
      integer(c_int), value :: n, il, iu
      real(c_double), value :: vl, vu, abstol
      real(c_double), intent(in) :: d(*), e(*)
      integer(c_int), intent(out) :: m, nsplit
      real(c_double), intent(out) :: w(*)
      integer(c_int), intent(out) :: iblock(*), isplit(*)
    end function

    integer(c_int) function gpu_gtsv_pcr(n, nrhs, dl, d, du, b, ldb) bind(C, name='gpu_gtsv_pcr')
      import :: c_int, c_double
      integer(c_int), value :: n, nrhs, ldb
      real(c_double), intent(inout) :: dl(*), d(*), du(*), b(*)
    end function

    ! System k (0-based) uses dl, d, du, b from element k*stride + 1 on; see gpueig.h for INFO.
    integer(c_int) function gpu_gtsv_pcr_batch(n, batch, dl, d, du, b, stride) &
        bind(C, name='gpu_gtsv_pcr_batch')
      import :: c_int, c_double
      integer(c_int), value :: n, batch, stride
      real(c_double), intent(inout) :: dl(*), d(*), du(*), b(*)
    end function

    integer(c_int) function gpu_getrf_crout(m, n, a, lda, ipiv) bind(C, name='gpu_getrf_crout')
      import :: c_int, c_double
      integer(c_int), value :: m, n, lda
      real(c_double), intent(inout) :: a(*)
      integer(c_int), intent(out) :: ipiv(*)
    end function

    integer(c_int) function gpu_getrs_crout(trans, n, nrhs, a, lda, ipiv, b, ldb) &
        bind(C, name='gpu_getrs_crout')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: trans
      integer(c_int), value :: n, nrhs, lda, ldb
      real(c_double), intent(in) :: a(*)
      integer(c_int), intent(in) :: ipiv(*)
      real(c_double), intent(inout) :: b(*)
    end function

    integer(c_int) function gpu_gesv_crout(n, nrhs, a, lda, ipiv, b, ldb) &
        bind(C, name='gpu_gesv_crout')
      import :: c_int, c_double
      integer(c_int), value :: n, nrhs, lda, ldb
      real(c_double), intent(inout) :: a(*), b(*)
      integer(c_int), intent(out) :: ipiv(*)
    end function

    integer(c_int) function gpu_stein(n, d, e, m, w, iblock, isplit, z, ldz, ifail) &
        bind(C, name='gpu_stein')
      import :: c_int, c_double
      integer(c_int), value :: n, m, ldz
      real(c_double), intent(in) :: d(*), e(*), w(*)
      integer(c_int), intent(in) :: iblock(*), isplit(*)
      real(c_double), intent(out) :: z(*)
      integer(c_int), intent(out) :: ifail(*)
    end function

    integer(c_int) function gpu_syevd(jobz, uplo, n, a, lda, w) bind(C, name='gpu_syevd')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: jobz, uplo
      integer(c_int), value :: n, lda
      real(c_double), intent(inout) :: a(*)
      real(c_double), intent(out) :: w(*)
    end function

    integer(c_int) function gpu_syevx(jobz, range, uplo, n, a, lda, vl, vu, il, iu, abstol, m, w, &
                                      z, ldz, ifail) bind(C, name='gpu_syevx')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: jobz, range, uplo
      integer(c_int), value :: n, lda, il, iu, ldz
      real(c_double), value :: vl, vu, abstol
      real(c_double), intent(inout) :: a(*)
      integer(c_int), intent(out) :: m
      real(c_double), intent(out) :: w(*), z(*)
      integer(c_int), intent(out) :: ifail(*)
    end function

    integer(c_int) function gpu_toeplitz_eig(jobz, range, n, t, vl, vu, il, iu, abstol, m, w, &
                                             z, ldz) bind(C, name='gpu_toeplitz_eig')
      import :: c_int, c_double, c_char
      character(kind=c_char), value :: jobz, range
      integer(c_int), value :: n, il, iu, ldz
      real(c_double), value :: vl, vu, abstol
      real(c_double), intent(in) :: t(*)
      integer(c_int), intent(out) :: m
      real(c_double), intent(out) :: w(*), z(*)
    end function

    type(c_ptr) function gpueig_version() bind(C, name='gpueig_version')
      import :: c_ptr
    end function

    integer(c_int) function gpueig_gpu_available() bind(C, name='gpueig_gpu_available')
      import :: c_int
    end function

    type(c_ptr) function gpueig_last_backend() bind(C, name='gpueig_last_backend')
      import :: c_ptr
    end function

    integer(c_int) function gpueig_set_backend(name) bind(C, name='gpueig_set_backend')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
    end function

    type(c_ptr) function gpueig_backend_for(routine, size) bind(C, name='gpueig_backend_for')
      import :: c_ptr, c_char, c_long_long
      character(kind=c_char), intent(in) :: routine(*)
      integer(c_long_long), value :: size
    end function

    type(c_ptr) function gpueig_backend_reason(routine, size) bind(C, name='gpueig_backend_reason')
      import :: c_ptr, c_char, c_long_long
      character(kind=c_char), intent(in) :: routine(*)
      integer(c_long_long), value :: size
    end function

    type(c_ptr) function gpueig_info() bind(C, name='gpueig_info')
      import :: c_ptr
    end function

    integer(c_size_t) function c_strlen(s) bind(C, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! The NUL-terminated C string p as a Fortran string ('' for a null pointer).
  function gpueig_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

end module gpueig
