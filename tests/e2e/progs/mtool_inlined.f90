! MTOOL on loops written in internal procedures that gfortran inlines into their one caller
! (t_mtool_inlined, the Fortran twin of mtool_inlined.c): a gather over an array far larger
! than the last-level cache and an L1-resident multiply-add chain, each called from one line.
! Usage: mtool_inlined_f STEPS REPS
program mtool_inlined
  implicit none
  integer(8), allocatable :: big(:)
  real(8) :: a(0:511), x
  integer(8) :: steps, reps, mask, i, s
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read (arg, *) steps
  call get_command_argument(2, arg)
  read (arg, *) reps
  mask = ishft(1_8, 24) - 1
  allocate (big(0:mask))
  do i = 0, mask
    big(i) = ieor(i, ishft(i, -3))
  end do
  do i = 0, 511
    a(i) = 0.5d0 + dble(mod(i, 7_8)) / 16
  end do
  s = gather(big, mask, steps) ! CALL_GATHER
  x = dense(a, 512_8, reps)    ! CALL_DENSE
  print '(i0, 1x, f0.6)', s, x
contains
  function gather(big, mask, steps) result(s)
    integer(8), intent(in) :: big(0:), mask, steps
    integer(8) :: s, k
    s = 0
    do k = 0, steps - 1 ! GATHER_LOOP
      s = s + big(iand(k * 1000003_8, mask))
    end do
  end function gather

  function dense(a, n, reps) result(x)
    integer(8), intent(in) :: n, reps
    real(8), intent(in) :: a(0:n - 1)
    real(8) :: x
    integer(8) :: r, i
    x = 1
    do r = 1, reps ! DENSE_LOOP
      do i = 0, n - 1
        x = x * a(i) + 0.5d0
      end do
    end do
  end function dense
end program mtool_inlined
