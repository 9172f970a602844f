! OpenMP in Fortran (tests/e2e/t_omp_names.sh): a combined "parallel do" and a "parallel"
! holding an "omp do": the regions are "p: omp parallel do @10" and "p: omp parallel @16".
program p
  implicit none
  integer, parameter :: n = 100000
  real(8), allocatable :: a(:), b(:)
  integer :: i
  real(8) :: s
  allocate(a(n), b(n))
  !$omp parallel do
  do i = 1, n
     a(i) = 2.0d0 * i
  end do
  !$omp end parallel do
  s = 0
  !$omp parallel
  !$omp do reduction(+:s)
  do i = 1, n
     s = s + a(i)
  end do
  !$omp end do
  !$omp end parallel
  print *, s
end program p
