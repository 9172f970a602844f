! Fortran: ALLOCATE goes through malloc; the bin is named after the allocated array.
program alloc
  implicit none
  real(8), allocatable :: field(:,:)
  integer :: i, j
  allocate(field(200,200))
  do j = 1, 200
    do i = 1, 200
      field(i,j) = real(i + j, 8)
    end do
  end do
  print '(F12.1)', sum(field)
  deallocate(field)
end program alloc
