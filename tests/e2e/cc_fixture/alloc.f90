! Fixture: ALLOCATE, an array assignment and a module function; prints 5050.
program alloc
  use totals
  implicit none
  integer, allocatable :: values(:)
  integer :: i
  allocate(values(100))
  values = [(i, i = 1, 100)]
  print '(I0)', total(values)
  deallocate(values)
end program alloc
