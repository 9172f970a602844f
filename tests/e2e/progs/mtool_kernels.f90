! MTOOL validation kernels in Fortran (tests/e2e/t_mtool.sh): a dependent multiply-add chain
! and a reduction on an array that fits in L1, and a gather over an array far larger than the
! last-level cache.
subroutine dense(a, reps, x)
  integer, parameter :: small = 512
  double precision, intent(in) :: a(small)
  integer(8), intent(in) :: reps
  double precision, intent(out) :: x
  integer(8) :: r
  integer :: i
  x = 1.0d0
  do r = 1, reps
    do i = 1, small
      x = x * a(i) + 0.5d0
    end do
  end do
end subroutine

subroutine reduce(a, reps, s)
  integer, parameter :: small = 512
  double precision, intent(in) :: a(small)
  integer(8), intent(in) :: reps
  double precision, intent(out) :: s
  integer(8) :: r
  integer :: i
  s = 0.0d0
  do r = 1, reps
    do i = 1, small
      s = s + a(i)
    end do
  end do
end subroutine

subroutine gather(big, mask, steps, s)
  integer(8), intent(in) :: mask, steps
  integer(8), intent(in) :: big(0:mask)
  integer(8), intent(out) :: s
  integer(8) :: k
  s = 0
  do k = 0, steps - 1
    s = s + big(iand(k * 1000003_8, mask))
  end do
end subroutine

program mtool_kernels
  integer(8), parameter :: n = 16 * 1024 * 1024 ! 128 MiB of integer(8)
  integer(8), allocatable :: big(:)
  double precision :: a(512), x, y
  integer(8) :: i, s, reps
  reps = 400000
  allocate(big(0:n - 1))
  do i = 0, n - 1
    big(i) = i
  end do
  do i = 1, 512
    a(i) = 0.5d0 + mod(i, 7) * 0.01d0
  end do
  call dense(a, reps, x)
  call reduce(a, reps, y)
  call gather(big, n - 1, reps * 256, s)
  print *, x, y, s
end program
