! --focus on loops in Fortran (t_focus_loops): pointer chases, n loads of nxt in the first
! loop, 2n iterations of a load of nxt and a load and a store of cnt in the second.
subroutine two_loops(nxt, cnt, n, j)
  implicit none
  integer, intent(in) :: n
  integer, intent(in) :: nxt(0:4095)
  integer, intent(inout) :: cnt(0:4095), j
  integer :: k
  do k = 1, n ! LOOP-A
    j = nxt(j)
  end do
  do k = 1, 2 * n ! LOOP-B
    j = nxt(j)
    cnt(j) = cnt(j) + 1
  end do
end subroutine

program focus_loops
  implicit none
  integer :: nxt(0:4095), cnt(0:4095), i, j
  character(len=16) :: arg
  integer :: n
  n = 1000
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) n
  end if
  do i = 0, 4095
    nxt(i) = iand(i * 97 + 13, 4095)
  end do
  cnt = 0
  j = 1
  call two_loops(nxt, cnt, n, j)
  print *, j, cnt(j)
end program
