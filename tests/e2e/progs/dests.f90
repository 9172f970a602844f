! Fortran allocatables named from the plugin's records with the source deleted
! (tests/e2e/t_dests.sh): two arrays of the main program, and two components of a derived type
! allocated by one ALLOCATE statement in a module procedure (one source position, two calls).
module grids
  implicit none
  type grid
    real(8), allocatable :: u(:), v(:)
  end type grid
contains
  subroutine make(g, n)
    type(grid), intent(inout) :: g
    integer, intent(in) :: n
    allocate(g%u(n), g%v(2 * n))
    g%u = 1.0d0
    g%v = 2.0d0
  end subroutine make
end module grids

program dests
  use grids
  implicit none
  real(8), allocatable :: field(:,:), w(:)
  type(grid) :: a
  integer :: i, j
  allocate(field(200,200))
  allocate(w(1000))
  do j = 1, 200
    do i = 1, 200
      field(i,j) = real(i + j, 8)
    end do
  end do
  w = 3.0d0
  call make(a, 500)
  print '(F14.1)', sum(field) + sum(w) + sum(a%u) + sum(a%v)
end program dests
