! Known basic-block counts in Fortran: the inner body runs n*m times per call, 7 calls (m odd:
! no vectorisation without an epilogue at -O2, so one execution per element).
subroutine kernel(v, n, m)
  integer, intent(in) :: n, m
  double precision, intent(inout) :: v(m)
  integer :: i, j
  do i = 1, n
    do j = 1, m
      v(j) = v(j) * 0.5d0 + i
    end do
  end do
end subroutine

program blocks
  double precision :: v(1024)
  integer :: r
  v = 0
  do r = 1, 7
    call kernel(v, 30, 201)
  end do
  print *, v(1)
end program
