! Array syntax: z(:) = x(:) + y(:) over 4096 reals, repeated; gfortran vectorises it (t_plugin.sh).
program arr
  implicit none
  integer, parameter :: n = 4096
  real(8), allocatable :: a(:), b(:), c(:)
  integer :: r, reps
  character(len=16) :: arg
  call get_command_argument(1, arg)
  read (arg, *) reps
  allocate(a(n), b(n), c(n))
  a = 1.0d0
  b = 2.0d0
  do r = 1, reps
    call add(c, a, b, n)
  end do
  print '(F12.1)', sum(c)
contains
  subroutine add(z, x, y, m)
    integer, intent(in) :: m
    real(8), intent(out) :: z(m)
    real(8), intent(in) :: x(m), y(m)
    z(:) = x(:) + y(:)
  end subroutine add
end program arr
